"""Every guard on every channel besides a host's own shell line: file tools, Codex apply_patch
(as a tool and inside a shell command), MCP tools and PowerShell (tests/data/effects/cases.json;
counts per channel in docs/reference/effects.md)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CASES = json.loads((ROOT / "tests" / "data" / "effects" / "cases.json").read_text())
PACK_NAMES = {"no-verify", "force-push", "destructive", "self-protect", "xpia", "main-branch"}


@pytest.fixture(autouse=True)
def machine(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", "/home/u")
    monkeypatch.setenv("HOOKGATE_HOME", str(tmp_path / "hookgate"))


def ids(case: dict) -> str:
    return f"{case['channel']}-{case['guard']}-{case['expect']}"


@pytest.mark.parametrize("case", CASES, ids=[ids(c) for c in CASES])
def test_case(engine, case):
    decision = engine.evaluate(case["payload"])
    assert not decision.errors
    assert decision.outcome == case["expect"], decision.reasons
    if case["expect"] in ("deny", "ask") and case["guard"] in PACK_NAMES:
        assert any(f"[pack={case['guard']}," in r for r in decision.reasons), decision.reasons


def test_every_channel_has_cases_for_every_guard_both_ways():
    seen = Counter((c["channel"], c["guard"]) for c in CASES)
    for channel in ("file-tool", "apply_patch", "mcp", "powershell"):
        guards = {g for (ch, g) in seen if ch == channel}
        assert {"destructive", "no-verify", "self-protect", "xpia"} <= guards, channel
        assert any(c["expect"] == "allow" for c in CASES if c["channel"] == channel), channel
