"""A tampered cache is never trusted: the hook checks the cached bundle against the digest its
signature covers and falls back to the built-in pack; ``pull`` verifies what is cached before
comparing revisions, so a revision the server never signed blocks neither updates nor uploads;
one decision record the server refuses never blocks the rest of an upload."""

from __future__ import annotations

import json

from sync_helpers import (
    deny_policy,
    home_fixture,
    run_hookgate,
    server_fixture,
    telemetry,
)

from hookgate import decisionlog, sync
from hookgate.decision import Decision

server = server_fixture()


home = home_fixture()


def bundle_file(home):
    return home / "cache" / "bundle.json"


def hook(home, command: str) -> tuple[str | None, str]:
    """The hook's answer to a shell command, and where its policies came from."""
    payload = {
        "session_id": "s1",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    result = run_hookgate(home, "eval", "--explain", stdin=json.dumps(payload))
    assert result.returncode == 0, result.stderr
    explain = json.loads(result.stderr[result.stderr.index("{") :])
    answer = json.loads(result.stdout).get("hookSpecificOutput", {}).get("permissionDecision")
    return answer, explain["origin"]


def logged_in(home, server) -> None:
    result = run_hookgate(home, "login", "--server", server.url, "--token", server.agent_token)
    assert result.returncode == 0, result.stderr


def test_a_cached_bundle_edited_in_place_is_not_run(server, home):
    server.put_policy("marker", deny_policy("marker-one"))
    logged_in(home, server)
    assert hook(home, "echo marker-one") == ("deny", "bundle revision 2")
    document = json.loads(bundle_file(home).read_text())
    # The agent's edit: the guard neutralised, digest and signature left as they were.
    document["policies"]["marker"] = document["policies"]["marker"].replace("marker-one", "zzz")
    bundle_file(home).write_text(json.dumps(document))

    answer, origin = hook(home, "echo marker-one")
    assert origin == "default pack" and answer is None  # the edited policies never ran
    assert hook(home, "git commit --no-verify -m x")[0] == "deny"  # the built-in guards did
    errors = [r for r in telemetry(home) if r.get("source") == "bundle_cache"]
    # The hook's own check (a background pull may add its "not trusted" record after it).
    assert any("does not match the digest its signature covers" in e["message"] for e in errors)


def test_a_cached_revision_the_server_never_signed_blocks_no_update(server, home):
    logged_in(home, server)
    document = json.loads(bundle_file(home).read_text())
    document["revision"] = 2**62  # with a matching digest, so the hook alone cannot tell
    from hookgate.bundle_format import digest

    document["digest"] = digest(document["revision"], document["policies"], document["data"])
    bundle_file(home).write_text(json.dumps(document))
    revision = server.put_policy("marker", deny_policy("marker-two"))

    pulled = run_hookgate(home, "pull")
    assert pulled.returncode == 0, pulled.stderr
    assert json.loads(bundle_file(home).read_text())["revision"] == revision
    assert hook(home, "echo marker-two") == ("deny", f"bundle revision {revision}")
    errors = [r for r in telemetry(home) if r.get("source") == "bundle_cache"]
    assert any("cached bundle not trusted" in r["message"] for r in errors)


def test_one_refused_record_does_not_block_the_rest_of_an_upload(server, home, monkeypatch):
    monkeypatch.setenv("HOOKGATE_HOME", str(home))
    monkeypatch.delenv("HOOKGATE_TELEMETRY", raising=False)
    sync.login(server.url, server.agent_token)
    for session, revision in (("before", 1), ("bad", 2**70), ("after", 1)):
        decision = Decision("allow", event="PreToolUse", tool_name="Bash")
        document = {"session_id": session, "tool_input": {"command": "ls"}}
        decisionlog.append(decision, document, revision)

    assert sync.upload_decisions() == 3
    assert sorted(d["session_id"] for d in server.decisions()) == ["after", "before"]
    assert decisionlog.pending_count() == 0
    (error,) = [r for r in telemetry(home) if "refused by the server" in r.get("message", "")]
    assert error["kind"] == "fault"


def test_the_hook_hashes_a_bundle_again_only_after_its_file_was_written(tmp_path, monkeypatch):
    import os
    import time

    from hookgate import bundle_format

    monkeypatch.setenv("HOOKGATE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HOOKGATE_TELEMETRY", str(tmp_path / "telemetry.jsonl"))
    policies = {"p": "package p\n\nimport rego.v1\n\nx := 1\n"}
    document = {
        "revision": 3,
        "policies": policies,
        "data": {},
        "digest": bundle_format.digest(3, policies, {}),
        "server": "http://127.0.0.1:1",
        "fetched_at": time.time(),
    }
    path = tmp_path / "home" / "cache" / "bundle.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(document))
    assert sync.active_bundle().revision == 3
    # Written this very second: not trusted by its stamp yet (a later write within the same
    # tick of the file system's clock could leave the stamp as it is).
    assert not (path.parent / "bundle.checked").exists()
    later = time.time_ns() + 60_000_000_000
    monkeypatch.setattr(time, "time_ns", lambda: later)
    assert sync.active_bundle().revision == 3
    assert (path.parent / "bundle.checked").exists()

    def unhashed(*args):
        raise AssertionError("an unchanged bundle file was hashed again")

    monkeypatch.setattr(bundle_format, "digest", unhashed)
    assert sync.active_bundle().revision == 3
    monkeypatch.undo()

    # Edited in place, same size, modification time put back: the change time tells.
    monkeypatch.setenv("HOOKGATE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HOOKGATE_TELEMETRY", str(tmp_path / "telemetry.jsonl"))
    before = path.stat()
    path.write_text(json.dumps(document).replace("x := 1", "x := 2"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    assert sync.active_bundle() is None
    assert "does not match the digest" in (tmp_path / "telemetry.jsonl").read_text()
