"""Guard modes as a team changes them on the server: a built-in guard relaxed only with
``--allow-weaker`` (shown by ``--dry-run``), a promotion audit → warn → enforce as ordinary
changes in the revision history, and the hook deciding by the mode in the signed bundle."""

from __future__ import annotations

import json

import test_publish_roundtrip as roundtrip
from sync_helpers import run_hookgate
from test_publish_roundtrip import hookgate

RM = "rm -rf ~/projects"
server = roundtrip.server  # a live server with an editor's token (fixture)


def layer(tmp_path, table: dict):
    team = tmp_path / "team"
    team.mkdir(exist_ok=True)
    (team / "data.json").write_text(json.dumps({"hookgate": {"modes": table}}))
    return team


def test_relaxing_a_built_in_guard_is_weaker_and_promoting_it_is_an_ordinary_change(
    tmp_path, server
):
    team = layer(tmp_path, {"destructive": "audit"})
    outputs = {}
    for extra in ("--dry-run", "--expect-revision=1"):
        refused = hookgate(tmp_path, server, "publish", str(team), "-m", "watch rm", extra)
        assert refused.returncode == 7, refused.stdout + refused.stderr
        assert (
            "weaker: guards not enforced (data.hookgate.modes): destructive: enforce → audit"
            in refused.stdout
        )
        outputs[extra] = refused.stdout
    # The dry-run shows the statement itself, as it shows data.hookgate.disabled.
    assert "guards not enforced (data.hookgate.modes): destructive audit" in outputs["--dry-run"]
    assert roundtrip.decision(server, RM)["outcome"] == "deny"
    published = hookgate(tmp_path, server, "publish", str(team), "-m", "watch rm", "--allow-weaker")
    assert published.returncode == 0, published.stdout + published.stderr
    audited = roundtrip.decision(server, RM)
    assert audited["outcome"] == "allow" and audited["context"] == []
    assert audited["would"][0]["would"] == "deny" and audited["would"][0]["mode"] == "audit"

    # audit → warn → enforce: each stronger, published without --allow-weaker.
    for mode in ("warn", "enforce"):
        layer(tmp_path, {"destructive": mode})
        promoted = hookgate(tmp_path, server, "publish", str(team), "-m", f"rm: {mode}")
        assert promoted.returncode == 0, promoted.stdout + promoted.stderr
        assert "weaker" not in promoted.stdout
        if mode == "warn":
            warned = roundtrip.decision(server, RM)
            assert warned["outcome"] == "allow"
            assert warned["context"][0].startswith("hookgate would deny this call (warn mode")
    assert roundtrip.decision(server, RM)["outcome"] == "deny"
    history = server.request("GET", "/v1/data/hookgate/revisions")[2]["revisions"]
    assert [r["message"] for r in history] == ["watch rm", "rm: warn", "rm: enforce"]


def test_a_teams_own_guard_is_relaxed_without_allow_weaker(tmp_path, server):
    team = layer(tmp_path, {"no_curl": "audit"})
    (team / "no_curl.rego").write_text(
        'package hookgate.no_curl\n\nimport rego.v1\n\ndeny contains {"reason": "No curl.", '
        '"pattern": "curl"} if contains(input.tool_input.command, "curl ")\n'
    )
    published = hookgate(tmp_path, server, "publish", str(team), "-m", "new guard, watched")
    assert published.returncode == 0, published.stdout + published.stderr
    decision = roundtrip.decision(server, "curl x")
    assert decision["outcome"] == "allow" and decision["would"][0]["guard"] == "no_curl"


def test_the_server_refuses_a_mode_for_self_protection(tmp_path, server):
    team = layer(tmp_path, {"self_protect": "audit"})
    refused = hookgate(tmp_path, server, "publish", str(team), "-m", "no", "--allow-weaker")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "data.hookgate.modes.self_protect" in refused.stderr
    assert "has no mode" in refused.stderr


def test_the_hook_decides_by_the_mode_in_the_pulled_bundle(tmp_path, server):
    team = layer(tmp_path, {"destructive": "warn"})
    published = hookgate(tmp_path, server, "publish", str(team), "-m", "warn", "--allow-weaker")
    assert published.returncode == 0, published.stdout + published.stderr
    home = tmp_path / "agent"
    assert (
        run_hookgate(
            home, "login", "--server", server.url, "--token", server.agent_token
        ).returncode
        == 0
    )
    assert run_hookgate(home, "pull").returncode == 0
    payload = json.dumps(
        {"session_id": "m1", "cwd": "/repo", "hook_event_name": "PreToolUse",
         "tool_name": "Bash", "tool_input": {"command": RM}}
    )  # fmt: skip
    hook = run_hookgate(home, "eval", "--host", "claude", stdin=payload)
    assert hook.returncode == 0, hook.stderr
    output = json.loads(hook.stdout)["hookSpecificOutput"]
    assert "permissionDecision" not in output
    assert output["additionalContext"].startswith("hookgate would deny this call (warn mode")
    # The local decision log keeps what it would have done, apart from the outcome.
    (line,) = [
        json.loads(text)
        for text in (home / "state" / "decisions" / "current.jsonl").read_text().splitlines()
        if text.startswith("{") and '"m1"' in text
    ]
    assert line["outcome"] == "allow"
    assert [(w["would"], w["mode"], w["guard"]) for w in line["would"]] == [
        ("deny", "warn", "destructive")
    ]
    assert run_hookgate(home, "pull").returncode == 0  # uploads the record
    (stored,) = [
        d
        for d in server.request("GET", "/v1/decisions?guard=destructive&mode=warn")[2]["decisions"]
    ]
    assert stored["session_id"] == "m1" and stored["outcome"] == "allow"
