"""The XPIA corpora (tests/data/xpia/, counts in docs/reference/guards.md): every injection
text is denied in the instruction channel it is written for; every benign text stays allowed
in its channel (commit messages, grep patterns, web searches, fetch prompts, sub-agent prompts,
shell commands, doc pages a tool returns). Also every pattern's own examples and counterexamples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookgate.builtins.xpia import scan
from hookgate.engine import Engine

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "xpia"
INJECTIONS = json.loads((DATA / "injections.json").read_text())
BENIGN = json.loads((DATA / "benign.json").read_text())
PATTERNS = json.loads((ROOT / "policies" / "data.json").read_text())["hookgate"]["config"]["xpia"][
    "patterns"
]


@pytest.fixture(scope="module")
def engine():
    return Engine.from_paths([str(ROOT / "policies")])


def call(tool: str, tool_input: dict, **extra: object) -> dict:
    return {
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "cwd": "/home/u/proj",
        **extra,
    }


def payload(channel: str, text: str) -> dict:
    if channel == "agent":
        return call("Task", {"prompt": text, "description": "task"})
    if channel == "shell":
        return call("Bash", {"command": text})
    if channel == "commit":
        return call("Bash", {"command": f"git commit -m {json.dumps(text)}"})
    if channel in ("grep", "rg"):
        return call("Bash", {"command": f"{channel} -rn -- {json.dumps(text)} src/"})
    if channel == "search":
        return call("WebSearch", {"query": text})
    if channel == "fetch":
        return call("WebFetch", {"url": "https://docs.example.com/page", "prompt": text})
    if channel == "doc":
        return {
            **call("WebFetch", {"url": "https://docs.example.com/page", "prompt": "summarise"}),
            "hook_event_name": "PostToolUse",
            "tool_response": {"result": text},
        }
    raise ValueError(channel)


def test_corpus_sizes():
    assert len(INJECTIONS) >= 300 and len(BENIGN) >= 300
    categories = {c["category"] for c in INJECTIONS}
    assert categories >= {
        "instruction_override",
        "role_hijack",
        "fake_system_marker",
        "data_exfiltration",
        "remote_code",
        "reverse_shell",
        "encoded_payload",
    }


@pytest.mark.parametrize("case", INJECTIONS, ids=range(len(INJECTIONS)))
def test_injection_is_denied(engine, case):
    decision = engine.evaluate(payload(case["channel"], case["text"]))
    assert decision.outcome == "deny", case
    assert any("[pack=xpia," in r for r in decision.reasons)


@pytest.mark.parametrize("case", BENIGN, ids=range(len(BENIGN)))
def test_benign_text_stays_allowed(engine, case):
    decision = engine.evaluate(payload(case["channel"], case["text"]))
    assert decision.outcome == "allow", (case, decision.reasons)


@pytest.mark.parametrize("pattern", PATTERNS, ids=[p["id"] for p in PATTERNS])
def test_each_pattern_has_examples_and_counterexamples(pattern):
    assert pattern["examples"] and pattern["counterexamples"]
    for text in pattern["examples"]:
        assert pattern["id"] in {f["id"] for f in scan(text, [pattern])}, text
    for text in pattern["counterexamples"]:
        assert pattern["id"] not in {f["id"] for f in scan(text, [pattern])}, text
