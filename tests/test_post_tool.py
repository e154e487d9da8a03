"""After a tool: the XPIA scan reads every host's result field, on real captured payloads
(tests/data/hosts/real/): an injection in the output is reported as context, never denied."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The post-tool payloads among every host's captures (tests/data/hosts/real/<host>-<version>/).
REAL = sorted(
    p
    for p in (ROOT / "tests" / "data" / "hosts" / "real").glob("*/*.json")
    if p.stem.split("-")[-1] in {"PostToolUse", "PostToolUseFailure", "postToolUse", "AfterTool"}
    and p.stem.split("-")[1] in {"c", "d", "d2", "d2x"}
)


@pytest.mark.parametrize("path", REAL, ids=[p.stem for p in REAL])
def test_every_hosts_result_is_scanned(engine, path):
    decision = engine.evaluate(json.loads(path.read_text()))
    assert not decision.errors
    assert decision.outcome == "allow"
    injected = "-d-" in path.name or "-d2" in path.name
    warned = any("[pack=xpia," in c for c in decision.context)
    assert warned == injected, (path.name, decision.context)


def test_all_four_hosts_and_the_failure_event_are_covered():
    names = {p.name.split("-")[0] for p in REAL}
    assert names == {"claude", "codex", "gemini", "copilot"}
    assert any("PostToolUseFailure" in p.name for p in REAL)
