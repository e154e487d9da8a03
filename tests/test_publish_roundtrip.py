"""Issue 31 part 2, against a real server as CI drives it: seed, publish and the per-document API
store one shape; ``hookgate export`` writes the active set to a directory and publishing it back
changes nothing; ``publish`` (and its dry-run) refuses, exit 7, a change that removes a guard or
turns recorded denies and asks into allows, unless ``--allow-weaker``."""

from __future__ import annotations

import json
import re
import shutil
import uuid
from pathlib import Path

import pytest
from server_support import auth, client_for, seeded, store_fixture
from sync_helpers import LiveServer, run_hookgate

from hookgate import layers
from hookgate.sources import default_pack_path

PACK = Path(default_pack_path())
NO_CURL = """package hookgate.no_curl

import rego.v1

deny contains {"reason": "No curl.", "pattern": "curl"} if {
\tinput.tool_kind == "shell"
\tcontains(input.tool_input.command, "curl ")
}
"""


@pytest.fixture
def server(tmp_path):
    live = LiveServer(tmp_path / "server.db")
    live.editor_token = live.store.create_token("editor", "ci")
    yield live
    live.stop()


def hookgate(tmp_path, server, *argv):
    return run_hookgate(
        tmp_path / "home", *argv, "--server", server.url, HOOKGATE_TOKEN=server.editor_token
    )


def revision(server) -> int:
    return server.request("GET", "/v1/bundle")[2]["revision"]


def files(directory: Path) -> dict[str, str]:
    return {
        str(p.relative_to(directory)): p.read_text()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def upload(server, outcome: str, *commands: str) -> None:
    records = [
        {
            "decision_id": str(uuid.uuid4()),
            "time": "2026-12-01T10:00:00Z",
            "host": "claude",
            "outcome": outcome,
            "input": {
                "hook_event_name": "PreToolUse",
                "host": "claude",
                "tool_name": "Bash",
                "tool_kind": "shell",
                "tool_input": {"command": command},
                "session_id": "s1",
                "cwd": "/repo",
                "extra": {},
            },
        }
        for command in commands
    ]
    body = json.dumps({"decisions": records}).encode()
    server.request("POST", "/v1/decisions", body, {"Content-Type": "application/json"})


def test_a_fresh_server_exports_an_empty_layer_and_publishing_it_back_is_a_no_op(tmp_path, server):
    out = tmp_path / "repo"
    exported = hookgate(tmp_path, server, "export", str(out))
    assert exported.returncode == 0, exported.stderr
    # The seed is an empty team layer over the pack: nothing of the pack is written.
    assert files(out) == {}
    assert f"over the base hookgate-default {layers.base_version()}" in exported.stdout
    again = hookgate(tmp_path, server, "publish", str(out), "-m", "round trip")
    assert again.returncode == 0, again.stderr + again.stdout
    assert "nothing to change" in again.stdout
    # A copy of the pack is no change either: the base holds every file of it.
    copy = tmp_path / "copy"
    shutil.copytree(PACK, copy, ignore=shutil.ignore_patterns("__*"))
    same = hookgate(tmp_path, server, "publish", str(copy), "-m", "a copy")
    assert same.returncode == 0 and "nothing to change" in same.stdout, same.stdout + same.stderr
    assert revision(server) == 1
    base = server.request("GET", "/v1/bundle")[2]["base"]
    assert base == {
        "name": "hookgate-default",
        "version": layers.base_version(),
        "policies": "complete",
        "disabled": [],
    }
    # The exported directory is a layer the local tools take as they are.
    check = run_hookgate(tmp_path / "home", "check", str(out))
    assert check.returncode == 0, check.stdout + check.stderr


def test_every_change_round_trips_through_export(tmp_path, server):
    token = {"Authorization": f"Bearer {server.editor_token}"}
    override = json.dumps({"force_push": {"on_force": "deny"}}).encode()
    put = server.request(
        "PUT", "/v1/data/hookgate/config", override, token | {"Content-Type": "application/json"}
    )
    assert put[0] == 201, put
    crlf = NO_CURL.replace("\n", "\r\n")  # line endings are kept as stored
    put = server.request(
        "PUT", "/v1/policies/no_curl.rego", crlf.encode(), token | {"Content-Type": "text/plain"}
    )
    assert put[0] == 201, put
    out = tmp_path / "repo"
    assert hookgate(tmp_path, server, "export", str(out)).returncode == 0
    assert json.loads((out / "hookgate" / "config" / "data.json").read_text()) == {
        "force_push": {"on_force": "deny"}
    }
    assert (out / "no_curl.rego").read_bytes() == crlf.encode()
    before = revision(server)
    again = hookgate(tmp_path, server, "publish", str(out), "-m", "round trip")
    assert again.returncode == 0 and "nothing to change" in again.stdout, again.stdout
    assert revision(server) == before
    # Local tools read the export as the server merges it: the override wins over data.json.
    check = run_hookgate(tmp_path / "home", "check", str(out))
    assert check.returncode == 0, check.stdout + check.stderr


def test_export_never_mixes_a_set_with_files_already_there(tmp_path, server):
    out = tmp_path / "repo"
    (out / ".git").mkdir(parents=True)
    (out / ".git" / "config").write_text("[core]\n")
    (out / "stale.rego").write_text("package stale\n")
    refused = hookgate(tmp_path, server, "export", str(out))
    assert refused.returncode == 2 and "--force" in refused.stderr
    forced = hookgate(tmp_path, server, "export", str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert not (out / "stale.rego").exists() and (out / ".git" / "config").exists()


def evaluate(server, command: str) -> str:
    return decision(server, command)["outcome"]


def decision(server, command: str) -> dict:
    """What the server's ``/v1/evaluate`` decides for a Claude Code Bash call of ``command``."""
    payload = {
        "session_id": "s",
        "cwd": "/repo",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    body = json.dumps({"payload": payload}).encode()
    answer = server.request("POST", "/v1/evaluate", body, {"Content-Type": "application/json"})
    return answer[2]["decision"]


def local_outcome(tmp_path, layer: Path, command: str) -> str:
    payload = {
        "session_id": "s",
        "cwd": "/repo",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    argv = ("eval", "--host", "claude", "--policies", str(layer))
    answer = run_hookgate(tmp_path / "home", *argv, stdin=json.dumps(payload))
    assert answer.returncode == 0, answer.stderr
    output = json.loads(answer.stdout).get("hookSpecificOutput", {})
    return output.get("permissionDecision", "allow")


def test_a_directory_of_only_the_teams_guard_adds_it_over_the_default_guards(tmp_path, server):
    team = tmp_path / "team"
    team.mkdir()
    (team / "no_curl.rego").write_text(NO_CURL)
    upload(server, "deny", "git push --force origin main", "rm -rf ~")
    dry = hookgate(tmp_path, server, "publish", str(team), "-m", "mine", "--dry-run")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert "+ no_curl.rego" in dry.stdout and "weaker" not in dry.stdout
    published = hookgate(tmp_path, server, "publish", str(team), "-m", "mine")
    assert published.returncode == 0, published.stdout + published.stderr
    assert revision(server) == 2
    assert evaluate(server, "curl example.com") == "deny"
    assert evaluate(server, "rm -rf ~") == "deny"
    assert evaluate(server, "git push --force origin main") == "rewrite"  # the pack's, kept


def test_replacing_the_base_is_an_explicit_statement_refused_as_weaker(tmp_path, server):
    team = tmp_path / "team"
    team.mkdir()
    (team / "no_curl.rego").write_text(NO_CURL)
    upload(server, "deny", "rm -rf ~", "rm -rf /")
    for extra in ([], ["--dry-run"]):
        refused = hookgate(
            tmp_path, server, "publish", str(team), "-m", "only mine", "--replace-base", *extra
        )
        assert refused.returncode == 7, refused.stdout + refused.stderr
        assert "weaker: guards removed: destructive, " in refused.stdout
        assert "--allow-weaker" in refused.stderr
    # The dry-run shows the statement and the base's change, and the decisions it opens.
    assert "base hookgate-default replaced (--replace-base or REPLACE-BASE)" in refused.stdout
    assert f"-base hookgate-default {layers.base_version()}" in refused.stdout
    assert "- base hookgate-default" in refused.stdout
    assert "recorded decisions would become allows (deny→allow: 2)" in refused.stdout
    assert revision(server) == 1
    allowed = hookgate(
        tmp_path, server, "publish", str(team), "-m", "only mine", "--replace-base",
        "--allow-weaker",
    )  # fmt: skip
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert revision(server) == 2
    assert server.request("GET", "/v1/bundle")[2]["base"]["policies"] == "replaced"
    assert evaluate(server, "rm -rf ~") == "allow" and evaluate(server, "curl x") == "deny"
    # The export says so, and publishing it back is a no-op.
    out = tmp_path / "out"
    assert hookgate(tmp_path, server, "export", str(out)).returncode == 0
    assert set(files(out)) == {"no_curl.rego", "REPLACE-BASE"}
    # Locally the export decides as the server does: REPLACE-BASE drops the pack there too.
    for command, expected in (("rm -rf ~", "allow"), ("curl x", "deny")):
        assert local_outcome(tmp_path, out, command) == expected == evaluate(server, command)
    again = hookgate(tmp_path, server, "publish", str(out), "-m", "round trip")
    assert again.returncode == 0 and "nothing to change" in again.stdout, again.stdout
    # Without the statement the layer composes over the pack again: stronger, not refused.
    (out / "REPLACE-BASE").unlink()
    restored = hookgate(tmp_path, server, "publish", str(out), "-m", "the pack again")
    assert restored.returncode == 0, restored.stdout + restored.stderr
    assert "+ base hookgate-default" in restored.stdout
    assert revision(server) == 3 and evaluate(server, "rm -rf ~") == "deny"
    history = server.request("GET", "/v1/base/revisions")[2]["revisions"]
    assert [(r["op"], r["bundle_revision"]) for r in history] == [
        ("put", 1),
        ("delete", 2),
        ("put", 3),
    ]


def test_removing_a_teams_guard_needs_allow_weaker(tmp_path, server):
    team = tmp_path / "team"
    team.mkdir()
    (team / "no_curl.rego").write_text(NO_CURL)
    assert hookgate(tmp_path, server, "publish", str(team), "-m", "add").returncode == 0
    (team / "no_curl.rego").unlink()
    refused = hookgate(tmp_path, server, "publish", str(team), "-m", "drop no_curl")
    assert refused.returncode == 7
    assert "weaker: guards removed: no_curl\n" in refused.stdout
    assert revision(server) == 2
    allowed = hookgate(
        tmp_path, server, "publish", str(team), "-m", "drop no_curl", "--allow-weaker"
    )
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert "allowed by --allow-weaker: weaker: guards removed: no_curl" in allowed.stdout
    assert revision(server) == 3


def test_an_edited_copy_of_a_base_file_is_refused_naming_it(tmp_path, server):
    repo = tmp_path / "repo"
    shutil.copytree(PACK, repo, ignore=shutil.ignore_patterns("__*"))
    text = (repo / "force_push.rego").read_text()
    (repo / "force_push.rego").write_text(text.replace("deny contains", "ask contains", 1))
    refused = hookgate(tmp_path, server, "publish", str(repo), "-m", "edit the pack")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "force_push.rego:1:1: force_push.rego is an edited copy" in refused.stderr
    assert "--replace-base" in refused.stderr
    assert revision(server) == 1


def test_turning_a_guard_off_is_shown_and_refused_with_the_decisions_it_opens(tmp_path, server):
    upload(server, "deny", "git commit --no-verify -m a", "git commit -n -m b")
    upload(server, "allow", "ls -la")
    repo = tmp_path / "repo"
    assert hookgate(tmp_path, server, "export", str(repo)).returncode == 0
    off = repo / "hookgate" / "disabled" / "data.json"  # the document at data.hookgate.disabled
    off.parent.mkdir(parents=True)
    off.write_text(json.dumps(["no_verify"]))
    dry = hookgate(tmp_path, server, "publish", str(repo), "-m", "no hooks", "--dry-run")
    assert dry.returncode == 7, dry.stdout + dry.stderr
    assert "guards turned off (data.hookgate.disabled): no_verify" in dry.stdout
    assert "weaker: 2 recorded decisions would become allows (deny→allow: 2)" in dry.stdout
    impact = hookgate(tmp_path, server, "impact", str(repo))
    assert "guards turned off (data.hookgate.disabled): no_verify" in impact.stdout
    # Adding a guard is not weaker, whatever it changes.
    off.unlink()
    (repo / "no_curl.rego").write_text(NO_CURL)
    upload(server, "allow", "curl example.com")
    added = hookgate(tmp_path, server, "publish", str(repo), "-m", "add no_curl")
    assert added.returncode == 0, added.stdout + added.stderr
    assert "weaker" not in added.stdout
    # The published set: the team's guard and every default guard decide.
    for command in ("curl example.com", "git commit --no-verify -m x", "rm -rf ~"):
        assert evaluate(server, command) == "deny", command


store = store_fixture()


def test_the_console_shows_the_guards_turned_off(store):
    tokens = seeded(store)
    with client_for(store) as client:
        put = client.put(
            "/v1/data/hookgate", json={"disabled": ["nope"]}, headers=auth(tokens["editor"])
        )
        assert put.status_code == 422 and "names no guard: nope" in put.text
        put = client.put(
            "/v1/data/hookgate", json={"disabled": ["git_hooks"]}, headers=auth(tokens["editor"])
        )
        assert put.status_code == 201, put.text
        signed = client.post("/console/login", data={"token": tokens["viewer"]})
        assert signed.status_code == 200, signed.text
        page = client.get("/console/policies")
        assert page.status_code == 200
        assert re.search(r'id="disabled-guards".*Guards turned off.*git_hooks', page.text)


def test_publish_names_a_setting_nothing_reads(tmp_path, server):
    team = tmp_path / "team"
    team.mkdir()
    renamed = {"hookgate": {"config": {"xpia": {"instruction_files": ["RULES.md"]}}}}
    (team / "data.json").write_text(json.dumps(renamed))
    for extra in (["--dry-run"], []):
        sent = hookgate(tmp_path, server, "publish", str(team), "-m", "old key", *extra)
        assert sent.returncode == 0, sent.stdout + sent.stderr
        assert (
            "warning: data/hookgate: data.hookgate.config.xpia.instruction_files is a setting "
            f"the base {layers.BASE_NAME} {layers.base_version()} does not have and no policy "
            "reads: it changes nothing"
        ) in sent.stderr
