"""Run the everyday and evasion corpora through the default pack and report the counts.

    python bench/corpora_report.py            # the counts of docs/evidence/corpora.md, as markdown
    python bench/corpora_report.py --caught   # record today's "caught" and "flagged" in the data

Everyday commands (``tests/data/guards/everyday_*.json``) run as Bash PreToolUse calls in
``/home/u/proj`` (no repository there); a command is left alone when the pack neither denies nor
asks. The known false positives of today's pack are marked in ``everyday_agent.json``
(``"flagged": "deny"``); a tldr example is never expected to be flagged. Evasion rows (``evasions.json``) run in a sandbox repository on ``main`` (the one
``check_evasions.py`` builds, without running anything); a row is caught when the outcome is one
of its ``expect`` and, for a rewrite with a ``rewritten`` command, the rewrite is exactly that.
``tests/test_corpora.py`` asserts every count and flag this script reports.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GUARDS = ROOT / "tests" / "data" / "guards"
EVERYDAY = ("everyday_tldr.json", "everyday_agent.json")
EVERYDAY_CWD = "/home/u/proj"
BEGIN = "<!-- corpora-report:begin -->"
END = "<!-- corpora-report:end -->"


def _checker():
    spec = importlib.util.spec_from_file_location("check_evasions", GUARDS / "check_evasions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def engine():
    from hookgate.engine import Engine

    return Engine.from_paths([str(ROOT / "policies")])


def decide(eng, command: str, cwd: str):
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": cwd,
        "session_id": "corpora",
    }
    return eng.evaluate(payload, host="claude")


def everyday_cases() -> list[dict]:
    return [c for name in EVERYDAY for c in json.loads((GUARDS / name).read_text())["cases"]]


def flagged_everyday(eng) -> list[tuple[str, str]]:
    """(outcome, command) of every everyday command the pack denies or asks about."""
    out = []
    for case in everyday_cases():
        decision = decide(eng, case["command"], EVERYDAY_CWD)
        if faults(decision):  # a guard that failed: never a recorded false positive
            out.append((f"fault: {faults(decision)[0]}", case["command"]))
        elif decision.outcome in ("deny", "ask"):
            out.append((decision.outcome, case["command"]))
    return out


def faults(decision) -> list[str]:
    """The messages of the policy faults a decision met. A fault fails open by default, so an
    outcome alone can hide a guard that broke (a function with two values for one input)."""
    return [e.get("message", "") for e in decision.errors if e.get("kind") == "fault"]


def known_flagged() -> list[tuple[str, str]]:
    """(outcome, command) of the everyday commands recorded as today's false positives."""
    return [(c["flagged"], c["command"]) for c in everyday_cases() if "flagged" in c]


def evasion_rows() -> list[dict]:
    return json.loads((GUARDS / "evasions.json").read_text())["rows"]


def sandbox(tmp: str) -> str:
    """The project directory of a fresh sandbox (a repository on main) under ``tmp``."""
    root = Path(tmp) / "s"
    _checker().build_template(root)
    return str(root / "home" / "u" / "proj")


def judge(eng, row: dict, cwd: str) -> tuple[bool, str]:
    """(caught, what the pack did) for one evasion row."""
    decision = decide(eng, row["command"], cwd)
    expect = row["expect"] if isinstance(row["expect"], list) else [row["expect"]]
    did = decision.outcome
    ok = did in expect and not faults(decision)
    if faults(decision):
        did += f" after a fault: {faults(decision)[0]}"
    if did == "rewrite":
        rewritten = (decision.updated_input or {}).get("command")
        did += f" to {rewritten!r}"
        ok = ok and row.get("rewritten", rewritten) == rewritten
    return ok, did


def judge_all(eng) -> dict[str, tuple[bool, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        cwd = sandbox(tmp)
        return {r["id"]: judge(eng, r, cwd) for r in evasion_rows()}


def counts(eng, judged: dict[str, tuple[bool, str]] | None = None) -> dict[str, int]:
    rows = evasion_rows()
    judged = judge_all(eng) if judged is None else judged
    blocked = [r for r in rows if r["expect"] != "allow"]
    allowed = [r for r in rows if r["expect"] == "allow"]
    cases = everyday_cases()
    return {
        "evasions": len(blocked),
        "evasions_caught": sum(judged[r["id"]][0] for r in blocked),
        "allowed_rows": len(allowed),
        "allowed_rows_ok": sum(judged[r["id"]][0] for r in allowed),
        "everyday": len(cases),
        "everyday_left_alone": len(cases) - len(flagged_everyday(eng)),
    }


def section(c: dict[str, int]) -> str:
    return "\n".join(
        [
            BEGIN,
            f"- evasions caught: **{c['evasions_caught']} / {c['evasions']}** "
            "(no-verify, force-push, main-branch and destructive)",
            f"- must-stay-allowed rows left alone: **{c['allowed_rows_ok']} / "
            f"{c['allowed_rows']}**",
            f"- everyday commands left alone: **{c['everyday_left_alone']} / {c['everyday']}**",
            END,
        ]
    )


def update_caught(eng) -> None:
    flagged = dict((command, outcome) for outcome, command in flagged_everyday(eng))
    path = GUARDS / "everyday_agent.json"
    data = json.loads(path.read_text())
    for case in data["cases"]:
        case.pop("flagged", None)
        if case["command"] in flagged:
            case["flagged"] = flagged.pop(case["command"])
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    if flagged:  # tldr examples: the data is generated, so fix the pack or exclude the example
        raise SystemExit(f"tldr examples flagged: {sorted(flagged)}")
    path = GUARDS / "evasions.json"
    data = json.loads(path.read_text())
    judged = judge_all(eng)
    for r in data["rows"]:
        r["caught"] = judged[r["id"]][0]
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    eng = engine()
    if "--caught" in sys.argv:
        update_caught(eng)
    print(section(counts(eng)))
