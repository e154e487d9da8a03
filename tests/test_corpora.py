"""The false-positive and evasion corpora through the default pack, in process.

- every everyday command (tldr-pages examples of developer tools, and commands as agents write
  them) is neither denied nor asked about, except the false positives recorded in the data, and
  meets no policy fault (which fails open, so the outcome alone would hide a broken guard);
- every evasion row gives exactly the outcome its ``caught`` flag records, with no policy fault:
  a caught row that regresses fails, and so does an uncaught row that starts passing (update the
  flags with ``python bench/corpora_report.py --caught``);
- the README's counts are the ones ``bench/corpora_report.py`` computes;
- what each evasion line really runs (bash, git, stand-in ``rm``) is what the row says, when this
  machine can run the checker (root, ``unshare -m``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUARDS = ROOT / "tests" / "data" / "guards"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


report = _load("corpora_report", ROOT / "bench" / "corpora_report.py")
checker = _load("check_evasions", GUARDS / "check_evasions.py")
ROWS = report.evasion_rows()


@pytest.fixture(scope="module")
def eng():
    return report.engine()


@pytest.fixture(scope="module")
def judged(eng):
    return report.judge_all(eng)


def test_everyday_corpus_is_large_and_licensed():
    cases = report.everyday_cases()
    assert len(cases) >= 1000
    assert len({c["command"] for c in cases}) == len(cases)
    tldr = json.loads((GUARDS / "everyday_tldr.json").read_text())
    assert "CC BY 4.0" in tldr["source"]
    assert "Creative Commons Attribution 4.0" in (GUARDS / "LICENSE-tldr-pages.md").read_text()
    assert all(e["reason"] for e in tldr["excluded"])  # dropped examples say why


def test_everyday_commands_are_left_alone(eng):
    """Exactly the recorded false positives are flagged: a new one fails, and so does a fixed
    one (drop its mark with ``python bench/corpora_report.py --caught``)."""
    assert report.flagged_everyday(eng) == report.known_flagged()


def test_evasion_rows_are_well_formed():
    ids = [r["id"] for r in ROWS]
    assert len(ids) == len(set(ids))
    outcomes = {"deny", "ask", "rewrite", "allow"}
    for r in ROWS:
        expect = r["expect"] if isinstance(r["expect"], list) else [r["expect"]]
        assert set(expect) <= outcomes, r["id"]
        assert r["guard"] in ("no-verify", "force-push", "main-branch", "destructive"), r["id"]
        assert r["technique"] and r["why"], r["id"]
        assert ("runs" in r) != ("not_run" in r), r["id"]  # verified, or why it cannot be run
        assert isinstance(r["caught"], bool), r["id"]
    for guard in ("no-verify", "force-push", "main-branch", "destructive"):
        mine = [r for r in ROWS if r["guard"] == guard]
        assert len({r["technique"] for r in mine if r["expect"] != "allow"}) >= 10, guard
        assert any(r["expect"] == "allow" for r in mine), guard


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_evasion_row_outcome_matches_its_caught_flag(judged, row):
    caught, did = judged[row["id"]]
    assert caught == row["caught"], (
        f"{row['command']!r}: expected {row['expect']}, the pack did {did}; "
        "if this is progress, run python bench/corpora_report.py --caught"
    )


def test_readme_counts_match(eng, judged):
    readme = (ROOT / "README.md").read_text()
    start, end = readme.index(report.BEGIN), readme.index(report.END) + len(report.END)
    assert readme[start:end] == report.section(report.counts(eng, judged))


@pytest.mark.skipif(checker.available() is not None, reason=str(checker.available()))
def test_evasion_premises_hold_in_real_bash_and_git():
    assert checker.check() == []


# -- instructions -------------------------------------------------------------------------------
# Prompt injection through every instruction channel (tests/data/xpia/instructions.json): tool
# inputs that instruct an agent, files an agent reads as instructions, Unicode and symbol
# disguises, French/German/Spanish wording, here-documents and quoted examples. A "deny" row is
# denied by the xpia guard; an "allow" row is allowed by the whole pack.

INSTRUCTION_ROWS = json.loads((ROOT / "tests" / "data" / "xpia" / "instructions.json").read_text())[
    "rows"
]


def host_call(row: dict) -> dict:
    """The row's call in its host's payload shape (HOSTS.md section 7)."""
    host, tool, tool_input = row["host"], row["tool"], row["input"]
    cwd = "/home/u/proj"
    if host == "copilot":
        return {
            "sessionId": "s",
            "timestamp": 1,
            "cwd": cwd,
            "toolName": tool,
            "toolArgs": tool_input,
        }
    if host == "amplifier":
        return {"tool_name": tool, "tool_input": tool_input, "timestamp": "2026-12-05T00:00:00Z"}
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "cwd": cwd,
    }
    if host == "gemini":
        payload.update(
            hook_event_name="BeforeTool", timestamp="2026-12-05T00:00:00Z", session_id="s"
        )
    elif host == "codex":
        payload.update(turn_id="t", session_id="s")
    elif host == "cursor":
        payload.update(hook_event_name="preToolUse", conversation_id="c", generation_id="g")
        payload["workspace_roots"] = [cwd]
    else:
        payload.update(session_id="s", transcript_path="/home/u/.claude/t.jsonl")
    return payload


def test_instruction_rows_cover_each_class_both_ways():
    assert len({r["id"] for r in INSTRUCTION_ROWS}) == len(INSTRUCTION_ROWS)
    for cls in ("channel", "file", "normalise", "language", "quoted"):
        mine = [r for r in INSTRUCTION_ROWS if r["class"] == cls]
        assert {r["expect"] for r in mine} == {"deny", "allow"}, cls
        assert all(r["why"] for r in mine), cls
    hosts = {r["host"] for r in INSTRUCTION_ROWS}
    assert hosts == {"claude", "codex", "copilot", "gemini", "cursor", "amplifier"}


@pytest.mark.parametrize("row", INSTRUCTION_ROWS, ids=[r["id"] for r in INSTRUCTION_ROWS])
def test_instruction_row(eng, row):
    decision = eng.evaluate(host_call(row))
    assert report.faults(decision) == [], decision.reasons
    if row["expect"] == "deny":
        assert decision.outcome == "deny" and any("[pack=xpia," in r for r in decision.reasons), (
            row["id"],
            decision.reasons,
        )
    else:
        assert decision.outcome == "allow", (row["id"], decision.reasons)


@pytest.mark.skipif(
    shutil.which("bash") is None or shutil.which("git") is None, reason="no bash/git"
)
@pytest.mark.parametrize(
    "row",
    [r for r in INSTRUCTION_ROWS if "runs" in r],
    ids=[r["id"] for r in INSTRUCTION_ROWS if "runs" in r],
)
def test_instruction_row_premise_holds_in_real_bash(row, tmp_path):
    """What a here-document row says about bash holds: a body given to cat or git is text that
    lands in the file or the commit message; a body piped into bash is run."""
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    subprocess.run(["git", "init", "-q", "-b", "work"], cwd=tmp_path, env=env, check=True)
    (tmp_path / "README.md").write_text("x\n")
    subprocess.run(["git", "add", "README.md"], cwd=tmp_path, env=env, check=True)
    ran = subprocess.run(
        ["bash", "-c", row["input"]["command"]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stderr
    check = row["runs"]
    if check["check"] == "file":
        assert check["contains"] in (tmp_path / check["path"]).read_text()
    elif check["check"] == "stdout":
        assert ran.stdout.strip() == check["contains"]
    else:
        log = subprocess.run(
            ["git", "log", "-1", "--format=%B"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
        )
        assert check["contains"] in log.stdout
