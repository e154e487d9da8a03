"""Issue 31's proof, as one journey a new security team takes, every step through the CLI and a
real server: ``init``, add a guard, ``test``; publish to a freshly seeded server, where the default
guards still deny; a weakening publish is refused with its impact report; the console shows the
new guard's decisions, and a fault as a fault."""

from __future__ import annotations

import html
import json
import re

import pytest
from sync_helpers import LiveServer, run_hookgate

NO_DESTROY = """package hookgate.team.no_destroy

import rego.v1

import data.hookgate.lib

deny contains {"reason": "terraform destroy needs a change ticket.", "pattern": "destroy"} if {
\tsome cmd in lib.commands
\tcmd.name == "terraform"
\t"destroy" in cmd.argv
}
"""

NO_DESTROY_TEST = """package hookgate.team.no_destroy_test

import rego.v1

import data.hookgate.team.no_destroy

shell(command) := {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_kind": "shell",
\t"tool_input": {"command": command}, "cwd": "/repo"}

test_destroy_is_denied if {
\tcount(no_destroy.deny) == 1 with input as shell("cd infra && terraform destroy -auto-approve")
}

test_plan_is_left_alone if {
\tcount(no_destroy.deny) == 0 with input as shell("terraform plan")
}
"""

# Two definitions that disagree: the pack faults on every shell call.
FAULTY = """package hookgate.team.faulty

import rego.v1

level := "high" if input.tool_kind == "shell"

level := "low" if input.tool_name == "Bash"

deny contains {"reason": "shell calls are high risk", "pattern": "level"} if level == "high"
"""


@pytest.fixture
def server(tmp_path):
    live = LiveServer(tmp_path / "server.db")
    live.editor_token = live.store.create_token("editor", "ci")
    yield live
    live.stop()


def bash(command: str, session: str) -> str:
    return json.dumps(
        {
            "session_id": session,
            "cwd": "/repo",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        }
    )


def test_a_new_teams_journey_never_loses_protection_silently(tmp_path, server):
    home = tmp_path / "home"

    def hookgate(*argv: str, stdin: str = "", **env: str):
        return run_hookgate(home, *argv, stdin=stdin, HOOKGATE_WARM="0", **env)

    def on_server(*argv: str):
        return hookgate(*argv, "--server", server.url, HOOKGATE_TOKEN=server.editor_token)

    # 1. init, add a guard, test.
    team = tmp_path / "team"
    assert hookgate("init", str(team)).returncode == 0
    (team / "no_destroy.rego").write_text(NO_DESTROY)
    (team / "no_destroy_test.rego").write_text(NO_DESTROY_TEST)
    tested = hookgate("test", "-v", str(team))
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "test_destroy_is_denied: PASS" in tested.stdout

    # 2. Publish the team's directory, as it is, to a freshly seeded server: it is the team's
    # layer there, and the team's guard and the default guards deny.
    published = on_server("publish", str(team), "-m", "team guard")
    assert published.returncode == 0, published.stdout + published.stderr
    assert "weaker" not in published.stdout
    commands = ("terraform destroy", "git commit --no-verify -m x", "rm -rf ~")
    for command in (*commands, "git push --force origin main"):
        body = json.dumps({"payload": json.loads(bash(command, "check"))}).encode()
        answer = server.request("POST", "/v1/evaluate", body, {"Content-Type": "application/json"})
        assert answer[2]["decision"]["outcome"] == "deny", (command, answer)

    # The developers' hooks run the same layers; their decisions reach the server.
    login = hookgate("login", "--server", server.url, "--token", server.agent_token)
    assert login.returncode == 0, login.stderr
    for command in ("terraform destroy", "terraform destroy -target=x", "terraform plan"):
        hook = hookgate(
            "eval", "--host", "claude", "--policies", str(team), stdin=bash(command, "dev")
        )
        assert hook.returncode == 0, hook.stderr
        assert ("deny" in hook.stdout) == ("destroy" in command), (command, hook.stdout)
    faulty = tmp_path / "faulty"
    faulty.mkdir()
    (faulty / "faulty.rego").write_text(FAULTY)
    fault = hookgate(
        "eval", "--host", "claude", "--policies", str(faulty), stdin=bash("ls", "oops")
    )
    assert fault.returncode == 0 and fault.stdout.strip() == "{}", fault.stdout  # fail-open
    pulled = hookgate("pull")
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr

    # 3. Turning the team's guard off is weaker: refused, exit 7, with the decisions it opens.
    exported = tmp_path / "exported"
    assert on_server("export", str(exported)).returncode == 0
    off = exported / "hookgate" / "disabled" / "data.json"  # the document at data.hookgate.disabled
    off.parent.mkdir(parents=True, exist_ok=True)
    off.write_text(json.dumps(["team.no_destroy"]))
    refused = on_server("publish", str(exported), "-m", "destroy is fine", "--dry-run")
    assert refused.returncode == 7, refused.stdout + refused.stderr
    assert "guards turned off (data.hookgate.disabled): team.no_destroy" in refused.stdout
    assert "weaker: 2 recorded decisions would become allows (deny→allow: 2)" in refused.stdout
    assert "--allow-weaker" in refused.stderr

    # 4. The console shows the guard's decisions, and the fault as a fault.
    from fastapi.testclient import TestClient

    from hookgate.server.app import create_app

    with TestClient(create_app(server.store)) as console:
        console.post("/console/login", data={"token": server.admin_token})
        dev = html.unescape(console.get("/console/decisions?session_id=dev").text)
        oops = html.unescape(console.get("/console/decisions?session_id=oops").text)
    rows = re.findall(r'<tr class="decision">(.*?)</tr>', dev, re.S)
    denied = [row for row in rows if "outcome-deny" in row]
    assert len(denied) == 2 and all("hookgate.team.no_destroy/destroy" in row for row in denied)
    (row,) = re.findall(r'<tr class="decision">(.*?)</tr>', oops, re.S)
    assert "<strong>fault</strong> → allow" in row
    assert "conflicting values for data.hookgate.team.faulty.level" in row
