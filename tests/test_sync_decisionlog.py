"""The local decision log: masked records, bounded rotation, and batched upload to a real server
with nothing lost while it is down and nothing stored twice."""

from __future__ import annotations

import json
import os
import re

import pytest
from sync_helpers import LiveServer, telemetry

from hookgate import decisionlog, sync
from hookgate.decision import Decision

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.fixture
def home(tmp_path, monkeypatch):
    path = tmp_path / "user"
    monkeypatch.setenv("HOOKGATE_HOME", str(path))
    monkeypatch.delenv("HOOKGATE_TELEMETRY", raising=False)
    monkeypatch.delenv("HOOKGATE_MASK_PATTERNS", raising=False)
    return path


@pytest.fixture
def server(tmp_path):
    live = LiveServer(tmp_path / "server.db")
    yield live
    live.stop()


def document(command: str, session: str = "s1") -> dict:
    return {
        "hook_event_name": "PreToolUse",
        "host": "claude",
        "tool_name": "Bash",
        "tool_kind": "shell",
        "tool_input": {"command": command, "description": "not logged"},
        "session_id": session,
        "cwd": "/repo",
    }


def deny() -> Decision:
    return Decision(
        outcome="deny",
        reasons=["no [pack=p, pattern=q]"],
        matches=[{"pack": "p", "pattern": "q", "rule": "deny"}],
        tool_name="Bash",
    )


def logged(home) -> list[dict]:
    directory = home / "state" / "decisions"
    lines = []
    for path in sorted(directory.iterdir()):
        if path.name.endswith((".jsonl", ".jsonl.sent")):
            lines += path.read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_a_record_has_the_contract_fields_and_a_masked_command(home):
    decisionlog.append(deny(), document(f"GITHUB_TOKEN={SECRET} git push origin main"), 7)
    decisionlog.append(deny(), document("ls"), None)

    first, second = logged(home)
    assert set(first) == {
        "decision_id",
        "time",
        "host",
        "event",
        "session_id",
        "tool_name",
        "outcome",
        "matches",
        "errors",
        "would",
        "bundle_revision",
        "command",
        "input",
        "input_truncated",
        "stream",
        "seq",
        "prev",
    }
    assert first["command"] == "GITHUB_TOKEN=*** git push origin main"
    # The input document the policies saw, masked (hookgate.recorded; tested there).
    assert first["input"]["tool_input"]["command"] == first["command"]
    assert first["input"]["tool_input"]["description"] == "not logged"
    assert first["input_truncated"] is False
    assert SECRET not in (home / "state" / "decisions" / "current.jsonl").read_text()
    assert (first["host"], first["event"], first["tool_name"]) == ("claude", "PreToolUse", "Bash")
    assert (first["outcome"], first["bundle_revision"]) == ("deny", 7)
    assert first["matches"] == [{"pack": "p", "pattern": "q", "rule": "deny"}]
    assert re.fullmatch(
        r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", first["decision_id"]
    )
    assert first["decision_id"] != second["decision_id"]


def test_a_failed_evaluation_without_a_document_is_still_logged(home):
    decisionlog.append(Decision.failure("payload", "bad JSON", False, host="codex"), None, None)
    (record,) = logged(home)
    assert (record["host"], record["outcome"], record["command"]) == ("codex", "allow", None)
    # The allow is the failure policy's, and the record says so.
    assert record["errors"] == [
        {"kind": "fault", "source": "payload", "pack": None, "limit": None, "message": "bad JSON"}
    ]


def test_a_packs_fault_and_a_limit_travel_to_the_server_masked(home, server):
    sync.login(server.url, server.agent_token)
    decision = Decision(
        outcome="ask",
        errors=[
            {"kind": "fault", "source": "policy", "pack": "team.guard", "limit": None,
             "message": f"undefined function in team.guard (token {SECRET})"},
            {"kind": "limit", "source": "shell", "pack": None, "limit": "nesting",
             "message": "x" * 5000},
        ],
        tool_name="Bash",
    )  # fmt: skip
    decisionlog.append(decision, document("ls"), 1)
    decisionlog.append(deny(), document("ls"), 1)
    (first, second) = logged(home)
    assert SECRET not in json.dumps(first) and second["errors"] == []

    assert sync.upload_decisions() == 2
    stored = {d["outcome"]: d for d in server.decisions()}
    fault, limit = stored["ask"]["errors"]
    assert (fault["kind"], fault["pack"], fault["source"]) == ("fault", "team.guard", "policy")
    assert fault["message"].startswith("undefined function in team.guard (token ")
    assert SECRET not in fault["message"]
    assert (limit["kind"], limit["limit"]) == ("limit", "nesting")
    assert len(limit["message"]) == decisionlog.MAX_ERROR_MESSAGE
    assert stored["deny"]["errors"] == []


def test_the_log_is_bounded_and_drops_the_oldest_first(home, monkeypatch):
    monkeypatch.setattr(decisionlog, "SEGMENT_BYTES", 2000)
    monkeypatch.setattr(decisionlog, "MAX_BYTES", 6000)
    for n in range(100):
        decisionlog.append(deny(), document(f"echo {n}", session=f"s{n}"), 1)

    directory = home / "state" / "decisions"
    sizes = sum(p.stat().st_size for p in directory.iterdir() if ".jsonl" in p.name)
    assert sizes <= 6000 + 2000
    kept = [r["session_id"] for r in logged(home)]
    assert kept[-1] == "s99" and "s0" not in kept
    assert kept == [f"s{n}" for n in range(100 - len(kept), 100)]  # the newest, in order
    dropped = [r for r in telemetry(home) if r["event"] == "decision_log"]
    assert sum(r["records"] for r in dropped) == 100 - len(kept)
    assert decisionlog.pending_count() == len(kept)


def test_upload_loses_nothing_while_the_server_is_down_and_stores_nothing_twice(home, server):
    sync.login(server.url, server.agent_token)
    for n in range(250):  # more than one batch
        decisionlog.append(deny(), document(f"echo {n}", session=f"s{n}"), 1)
    server.stop()
    with pytest.raises(sync.ServerUnreachable):
        sync.upload_decisions(timeout=2)
    assert decisionlog.pending_count() == 250

    server.start()
    assert sync.upload_decisions() == 250
    assert decisionlog.pending_count() == 0
    assert sync.upload_decisions() == 0
    stored = server.decisions()
    assert sorted(d["session_id"] for d in stored) == sorted(f"s{n}" for n in range(250))

    # A crash after the server accepted a batch but before the cursor moved: the batch is
    # sent again, and the server recognises every record by its decision_id.
    for n in range(5):
        decisionlog.append(deny(), document(f"echo late {n}", session=f"late{n}"), 1)
    answers = []

    def accept_then_crash(records):
        sync.http_json(
            "POST", server.url + "/v1/decisions", server.agent_token, {"decisions": records}
        )
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError):
        decisionlog.upload(accept_then_crash)
    assert decisionlog.pending_count() == 5

    def recording(records):
        answer = sync.http_json(
            "POST", server.url + "/v1/decisions", server.agent_token, {"decisions": records}
        )[2]
        answers.append(answer)
        return answer

    assert decisionlog.upload(recording) == 5
    assert answers == [{"accepted": 0, "duplicates": 5}]
    assert len(server.decisions()) == 255
    assert decisionlog.pending_count() == 0


def test_oversized_fields_are_cut_so_the_server_accepts_the_record(home, server):
    sync.login(server.url, server.agent_token)
    decision = deny()
    decision.matches = [{"pack": "p" * 400, "pattern": "q", "rule": "deny"}]
    decisionlog.append(decision, document("echo " + "x" * 100_000, session="s" * 300), 1)

    assert sync.upload_decisions() == 1
    (stored,) = server.decisions()
    assert stored["session_id"] == "s" * 255
    assert len(stored["command"]) == decisionlog.MAX_COMMAND
    assert stored["matches"][0]["pack"] == "p" * 255


def test_a_record_torn_by_a_killed_writer_does_not_swallow_the_next_one(home):
    decisionlog.append(deny(), document("echo before", session="before"), 1)
    current = home / "state" / "decisions" / decisionlog.CURRENT
    whole = current.read_bytes()
    with current.open("ab") as f:  # a hook killed (or a disk filled) half-way through a write
        f.write(whole[: len(whole) // 2])
    decisionlog.append(deny(), document("echo after", session="after"), 1)

    sent: list[dict] = []

    def accept(records):
        sent.extend(records)
        return {"accepted": len(records), "duplicates": 0}

    decisionlog.upload(accept)
    assert [record["session_id"] for record in sent] == ["before", "after"]
    assert decisionlog.pending_count() == 0
    (error,) = [r for r in telemetry(home) if r.get("source") == "decision_log"]
    assert "current" in error["message"] or ".jsonl" in error["message"]


def test_records_are_chained_by_sequence_number_and_hash(home):
    for n in range(3):
        decisionlog.append(deny(), document(f"echo {n}"), 1)
    records = logged(home)
    assert [r["seq"] for r in records] == [1, 2, 3]
    assert records[0]["prev"] is None
    assert [r["prev"] for r in records[1:]] == [decisionlog.chain_hash(r) for r in records[:2]]
    assert {r["stream"] for r in records} == {decisionlog.stream_id()}
    assert decisionlog.stream_id().endswith(f":{os.getuid()}")


def upload_all(server) -> None:
    sync.login(server.url, server.agent_token)
    sync.upload_decisions()


def stream_report(server) -> dict:
    (report,) = server.request("GET", "/v1/decisions/streams")[2]["streams"]
    return report


def edit_log(home, change) -> None:
    """What a program the agent runs can do to the spool: ``change(records) -> records``."""
    current = home / "state" / "decisions" / decisionlog.CURRENT
    records = [json.loads(line) for line in current.read_text().splitlines()]
    current.write_text("".join(json.dumps(r) + "\n" for r in change(records)))


def test_the_server_reports_a_removed_record_as_a_gap(home, server):
    for n in range(5):
        decisionlog.append(deny(), document(f"echo {n}"), 1)
    edit_log(home, lambda records: records[:2] + records[3:])  # seq 3 removed
    upload_all(server)
    report = stream_report(server)
    assert (report["records"], report["first_seq"], report["last_seq"]) == (4, 1, 5)
    assert report["gaps"] == [{"after": 2, "before": 4}] and report["missing"] == 1
    assert report["rewritten"] == []
    assert [d["seq"] for d in server.decisions()] == [5, 4, 2, 1]


def test_the_server_reports_an_edited_record_as_rewritten(home, server):
    for n in range(4):
        decisionlog.append(deny(), document(f"echo {n}"), 1)

    def edit(records):
        records[1]["outcome"] = "allow"
        records[1]["matches"] = []
        return records

    edit_log(home, edit)
    upload_all(server)
    report = stream_report(server)
    # The record after the edited one names the hash of the record as it was written.
    assert report["rewritten"] == [3] and report["gaps"] == [] and report["missing"] == 0


def test_the_server_reports_a_log_started_again_after_an_upload(home, server):
    for n in range(3):
        decisionlog.append(deny(), document(f"echo {n}"), 1)
    upload_all(server)
    assert stream_report(server)["rewritten"] == []
    import shutil

    shutil.rmtree(home / "state" / "decisions")  # the agent's user wipes its log
    decisionlog.append(deny(), document("echo after"), 1)
    sync.upload_decisions()
    assert stream_report(server)["rewritten"] == [1]


def test_an_unbroken_log_reports_nothing(home, server):
    for n in range(4):
        decisionlog.append(deny(), document(f"echo {n}"), 1)
    upload_all(server)
    decisionlog.append(deny(), document("echo later"), 1)
    sync.upload_decisions()
    report = stream_report(server)
    assert (report["records"], report["last_seq"], report["missing"]) == (5, 5, 0)
    assert report["gaps"] == [] and report["rewritten"] == []


def test_a_hooks_fault_reaches_the_console_as_a_fault(home, server, tmp_path):
    """The whole path: a pack that fails in a real hook call, the record logged and uploaded,
    the console's decisions page showing the call as a fault of that pack."""
    import html
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from fastapi.testclient import TestClient

    from hookgate.server.app import create_app

    policies = tmp_path / "policies"
    shutil.copytree(Path(__file__).parents[1] / "policies", policies)
    (policies / "team.rego").write_text(
        "package hookgate.team\n\nimport rego.v1\n\n"
        'level := "high" if input.tool_kind == "shell"\n\n'
        'level := "low" if input.tool_name == "Bash"\n\n'
        'deny contains {"reason": "risky", "pattern": "level"} if level == "high"\n'
    )
    hook = subprocess.run(
        [sys.executable, "-m", "hookgate.cli", "eval", "--host", "claude"]
        + ["--policies", str(policies)],
        input=json.dumps(document("ls", session="faulted")),
        capture_output=True,
        text=True,
        env={**os.environ, "HOOKGATE_HOME": str(home), "HOOKGATE_WARM": "0"},
        timeout=60,
    )
    assert (hook.returncode, hook.stdout.strip()) == (0, "{}")  # fail-open

    sync.login(server.url, server.agent_token)
    assert sync.upload_decisions() == 1
    with TestClient(create_app(server.store)) as console:
        console.post("/console/login", data={"token": server.admin_token})
        page = html.unescape(console.get("/console/decisions?session_id=faulted").text)
    (row,) = re.findall(r'<tr class="decision">(.*?)</tr>', page, re.S)
    assert "<strong>fault</strong> → allow" in row
    # the message names the rule's file:line:col (masking takes the random temporary path for
    # a secret), then the conflict
    assert "fault in hookgate.team: evaluation: " in row
    assert ".rego:5:1: conflicting values for data.hookgate.team.level" in row
