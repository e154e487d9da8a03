"""``hookgate publish`` and ``hookgate impact`` against a real server, as a CI job runs them:
the exit codes, the dry-run's diff, check and impact, and all-or-nothing publication."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest
from sync_helpers import LiveServer, run_hookgate

from hookgate.sources import default_pack_path

PACK = Path(default_pack_path())
NO_DEPLOY = """package hookgate.no_deploy

import rego.v1

deny contains {"reason": "Deploys go through the pipeline.", "pattern": "make-deploy"} if {
\tinput.tool_kind == "shell"
\tcontains(input.tool_input.command, "make deploy")
}
"""


@pytest.fixture
def server(tmp_path):
    live = LiveServer(tmp_path / "server.db")
    live.editor_token = live.store.create_token("editor", "ci")
    yield live
    live.stop()


@pytest.fixture
def pack(tmp_path):
    """The default pack as a team keeps it in git: policies, their tests and data."""
    directory = tmp_path / "repo" / "policies"
    shutil.copytree(PACK, directory, ignore=shutil.ignore_patterns("__*"))
    return directory


def hookgate(tmp_path, server, *argv, token=None):
    token = token or server.editor_token
    return run_hookgate(tmp_path / "home", *argv, "--server", server.url, HOOKGATE_TOKEN=token)


def upload(server, *commands):
    records = [
        {
            "decision_id": str(uuid.uuid4()),
            "time": "2026-12-01T10:00:00Z",
            "host": "claude",
            "outcome": "allow",
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


EXTRA_TEST = "package hookgate.team_extra_test\n\nimport rego.v1\n\ntest_extra if true\n"


def test_publish_makes_the_server_equal_the_directory_in_one_revision(tmp_path, server, pack):
    # A copy of the pack (tests included) is no layer over it: nothing to change.
    same = hookgate(tmp_path, server, "publish", str(pack), "-m", "from git")
    assert same.returncode == 0 and "nothing to change" in same.stdout, same.stderr
    (pack / "team_extra_test.rego").write_text(EXTRA_TEST)
    first = hookgate(
        tmp_path, server, "publish", str(pack), "-m", "from git", "--expect-revision", "1"
    )
    assert first.returncode == 0, first.stderr
    assert "published bundle revision 2 (was 1)" in first.stdout
    assert "+ team_extra_test.rego" in first.stdout  # the tests go along, and ran on the server
    assert "check: ok; tests: " in first.stdout
    bundle = server.request("GET", "/v1/bundle")[2]
    assert bundle["revision"] == 2 and "test_extra" in bundle["policies"]["team_extra_test.rego"]

    again = hookgate(tmp_path, server, "publish", str(pack), "-m", "again")
    assert again.returncode == 0 and "nothing to change" in again.stdout

    stale = hookgate(tmp_path, server, "publish", str(pack), "-m", "x", "--expect-revision", "1")
    assert stale.returncode == 3 and "not 1" in stale.stderr

    (pack / "team_extra_test.rego").unlink()
    (pack / "no_deploy.rego").write_text(NO_DEPLOY)
    upload(server, "make deploy ENV=prod", "ls -la")
    dry = hookgate(tmp_path, server, "publish", str(pack), "-m", "add a guard", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "+++ b/no_deploy.rego" in dry.stdout and "--- a/team_extra_test.rego" in dry.stdout
    assert "check: ok" in dry.stdout
    assert "impact: 1 of 2 replayed decisions would change" in dry.stdout
    assert "allow→deny" in dry.stdout and "hookgate.no_deploy/make-deploy" in dry.stdout
    assert "dry-run: nothing was changed (server at revision 2)" in dry.stdout
    assert server.request("GET", "/v1/bundle")[2]["revision"] == 2

    impact = hookgate(tmp_path, server, "impact", str(pack), "--json")
    assert impact.returncode == 6, impact.stderr  # something would change: CI can gate on it
    assert json.loads(impact.stdout)["transitions"] == {"allow→deny": 1}

    published = hookgate(tmp_path, server, "publish", str(pack), "-m", "add a guard")
    assert published.returncode == 0, published.stderr
    assert "- team_extra_test.rego" in published.stdout and "+ no_deploy.rego" in published.stdout
    assert hookgate(tmp_path, server, "impact", str(pack)).returncode == 0  # nothing left


def test_a_failing_test_refuses_the_whole_set_and_names_its_line(tmp_path, server, pack):
    (pack / "no_deploy_test.rego").write_text(
        "package hookgate.no_deploy_test\n\nimport rego.v1\n\ntest_fails if {\n\tfalse\n}\n"
    )
    (pack / "no_deploy.rego").write_text(NO_DEPLOY)
    refused = hookgate(tmp_path, server, "publish", str(pack), "-m", "broken test")
    assert refused.returncode == 1
    assert "no_deploy_test.rego:5:" in refused.stderr and ": FAIL" in refused.stderr
    assert "refused: nothing was changed" in refused.stderr
    assert server.request("GET", "/v1/bundle")[2]["revision"] == 1

    (pack / "broken.rego").write_text("package hookgate.broken\n\ndeny if {\n")
    broken = hookgate(tmp_path, server, "impact", str(pack))
    assert broken.returncode == 1 and "broken.rego:" in broken.stderr


def test_exit_codes_for_tokens_servers_and_directories(tmp_path, server, pack):
    viewer = server.store.create_token("viewer", "reader")
    denied = hookgate(tmp_path, server, "publish", str(pack), "-m", "x", token=viewer)
    assert denied.returncode == 4 and "HTTP 403" in denied.stderr
    missing = run_hookgate(
        tmp_path / "home", "publish", str(pack), "-m", "x", "--server", server.url
    )
    assert missing.returncode == 4 and "HOOKGATE_TOKEN" in missing.stderr
    nowhere = hookgate(tmp_path, server, "publish", str(tmp_path / "nope"), "-m", "x")
    assert nowhere.returncode == 2 and "not a directory" in nowhere.stderr
    (pack / "team").mkdir()
    (pack / "team" / "data.json").write_text('{"x": ')
    bad_json = hookgate(tmp_path, server, "publish", str(pack), "-m", "x")
    assert bad_json.returncode == 2 and "team/data.json:1:" in bad_json.stderr
    unreachable = run_hookgate(
        tmp_path / "home", "publish", str(PACK), "-m", "x", "--server", "http://127.0.0.1:9",
        HOOKGATE_TOKEN="hg_x",
    )  # fmt: skip
    assert unreachable.returncode == 5 and "unreachable" in unreachable.stderr
