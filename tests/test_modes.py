"""Guard modes (``hookgate.modes``): enforce, warn and audit per guard and per pattern, as the
engine applies them, as every host renders them, and where no mode applies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hookgate import modes
from hookgate.decision import Decision
from hookgate.engine import Engine
from hookgate.hostio.hosts import HOSTS
from hookgate.lang.errors import PolicyError
from hookgate.layers import compose


def module(name: str, body: str) -> str:
    return f"package hookgate.{name}\n\nimport rego.v1\n\n{body}\n"


TEAM = {
    "rm.rego": module(
        "rm",
        'deny contains {"reason": "no rm", "pattern": "rm"} if '
        'startswith(input.tool_input.command, "rm")\n'
        'ask contains {"reason": "sure?", "pattern": "sudo"} if '
        'startswith(input.tool_input.command, "sudo")\n'
        'context contains {"reason": "rm guard is watching", "pattern": "note"} if '
        'startswith(input.tool_input.command, "rm")',
    ),
    "quiet.rego": module(
        "quiet",
        'rewrite contains {"tool_input": {"command": "git status --short"}, "reason": "shorter",'
        ' "pattern": "short"} if input.tool_input.command == "git status"',
    ),
}
SLOW = module(
    "slow",
    'deny contains "never" if {\n\tsome a in numbers.range(1, 3000)\n'
    "\tsome b in numbers.range(1, 3000)\n\ta * b == -1\n}",
)
BROKEN = module("broken", 'deny contains 5 if input.tool_input.command == "ls"')


def bash(command: str) -> dict:
    return {
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "cwd": "/tmp",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }


def team(mode_table: dict, sources: dict | None = None) -> Engine:
    return Engine.from_sources(sources or TEAM, {"hookgate": {"modes": mode_table}})


def pack_engine(mode_table: dict) -> Engine:
    """The shipped pack with ``mode_table`` as its data's modes (as a team layer sets them)."""
    layered = compose([])
    data = json.loads(json.dumps(layered.data))
    data["hookgate"]["modes"] = mode_table
    return Engine.from_sources(layered.sources, data)


def test_enforce_is_the_default_and_decides_as_before():
    for table in ({}, {"rm": "enforce"}):
        decision = team(table).evaluate(bash("rm x"))
        assert decision.outcome == "deny"
        assert decision.would == []


def test_warn_lets_the_call_go_and_gives_the_reason_as_context():
    decision = team({"rm": "warn"}).evaluate(bash("rm x"))
    assert decision.outcome == "allow" and decision.reasons == []
    assert decision.context == [
        "hookgate would deny this call (warn mode, not enforced): no rm [pack=hookgate.rm, pattern=rm]",
        "rm guard is watching [pack=hookgate.rm, pattern=note]",
    ]
    assert decision.would == [
        {
            "would": "deny",
            "mode": "warn",
            "guard": "rm",
            "pack": "hookgate.rm",
            "pattern": "rm",
            "reason": "no rm",
            "rewrite": None,
        }
    ]
    ask = team({"rm": "warn"}).evaluate(bash("sudo ls"))
    assert ask.outcome == "allow"
    assert ask.context[0].startswith("hookgate would ask about this call (warn mode")
    assert ask.would[0]["would"] == "ask"


def test_audit_lets_the_call_go_shows_nothing_and_records_what_it_would_have_done():
    decision = team({"rm": "audit"}).evaluate(bash("rm x"))
    assert decision.outcome == "allow"
    assert decision.reasons == [] and decision.context == [] and decision.matches == []
    assert [(w["would"], w["mode"], w["pattern"]) for w in decision.would] == [
        ("deny", "audit", "rm")
    ]
    assert decision.to_dict()["would"] == decision.would


@pytest.mark.parametrize("mode", ["warn", "audit"])
def test_a_rewrite_not_enforced_is_not_applied_but_recorded(mode):
    decision = team({"quiet": mode}).evaluate(bash("git status"))
    assert decision.outcome == "allow" and decision.updated_input is None
    (would,) = decision.would
    assert would["would"] == "rewrite" and would["rewrite"] == {"command": "git status --short"}
    assert bool(decision.context) == (mode == "warn")
    enforced = team({}).evaluate(bash("git status"))
    assert enforced.outcome == "rewrite"


def test_a_patterns_mode_wins_over_its_guards():
    assert team({"rm": "audit", "rm/rm": "enforce"}).evaluate(bash("rm x")).outcome == "deny"
    decision = team({"rm/rm": "audit"}).evaluate(bash("rm x"))
    assert decision.outcome == "allow"
    # The guard's other pattern is enforced still, and its context shown.
    assert decision.context == ["rm guard is watching [pack=hookgate.rm, pattern=note]"]
    assert team({"rm/rm": "audit"}).evaluate(bash("sudo ls")).outcome == "ask"


def test_another_guard_still_decides_over_a_guard_in_audit():
    sources = {**TEAM, "also.rego": module("also", 'deny contains "also no" if true')}
    decision = team({"rm": "audit"}, sources).evaluate(bash("rm x"))
    assert decision.outcome == "deny"
    assert decision.reasons == ["also no [pack=hookgate.also, pattern=deny]"]
    assert [w["guard"] for w in decision.would] == ["rm"]


def test_a_built_in_guard_in_warn_mode():
    decision = pack_engine({"destructive": "warn"}).evaluate(bash("rm -rf ~/projects"))
    assert decision.outcome == "allow"
    assert (
        "hookgate would deny this call (warn mode, not enforced): rm -rf ~/projects"
        in (decision.context[0])
    )
    assert decision.would[0]["guard"] == "destructive"


# --- each host's own way -----------------------------------------------------------------------


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse"])
def test_every_host_renders_warn_as_its_context_and_audit_as_a_plain_allow(host, event):
    e = team({"rm": "warn"}, {"rm.rego": TEAM["rm.rego"].split("\ncontext")[0]})
    payload = {**bash("rm x"), "hook_event_name": event}
    warned = e.evaluate(payload)
    warning = "hookgate would deny this call (warn mode, not enforced): no rm"
    allowed = Decision("allow", event=warned.event, host_event=warned.host_event)
    with_context = Decision(
        "allow", context=warned.context, event=warned.event, host_event=warned.host_event
    )
    assert warned.response(host) == with_context.response(host)
    rendered = json.dumps(warned.render(host))
    assert warning in rendered, (host, rendered)
    enforced = team({}).evaluate(payload)
    assert enforced.render(host) != warned.render(host)

    audited = team({"rm": "audit"}).evaluate(payload)
    assert audited.response(host) == allowed.response(host)
    assert "no rm" not in json.dumps(audited.render(host))


# --- what is not a guard here ------------------------------------------------------------------


def test_self_protection_and_oversize_have_no_mode():
    with pytest.raises(PolicyError) as raised:
        team_layer({"self_protect": "audit"})
    assert "data.hookgate.modes.self_protect" in str(raised.value)
    assert "has no mode" in str(raised.value)
    # Even data that skipped the layers' check (a bundle built by hand) changes nothing.
    assert modes.table({"hookgate": {"modes": {"self_protect": "audit", "oversize": "warn"}}}) == {}
    e = pack_engine({"self_protect": "audit", "self_protect/self-protect": "audit"})
    decision = e.evaluate(bash("rm -rf ~/.claude"))
    assert decision.outcome == "deny" and decision.would == []
    big = pack_engine({"oversize": "audit"}).evaluate(bash("echo " + "x" * 200_000))
    assert big.outcome in ("ask", "deny") and big.would == []


def test_a_limit_is_answered_whatever_the_guards_mode():
    e = team({"slow": "audit"}, {"slow.rego": SLOW})
    e.timeout = 0.2
    decision = e.evaluate(bash("ls"))
    assert decision.outcome == "ask" and decision.errors[0]["kind"] == "limit"
    assert decision.would == []


def test_a_fault_follows_the_failure_policy_whatever_the_guards_mode():
    e = team({"broken": "audit"}, {"broken.rego": BROKEN})
    closed = e.evaluate(bash("ls"), failure="closed")
    assert closed.outcome == "deny" and closed.errors[0]["kind"] == "fault"
    assert closed.reasons[0].endswith("pattern=failure-policy]")


def team_layer(table: dict, tmp: Path | None = None) -> object:
    import tempfile

    directory = Path(tmp or tempfile.mkdtemp())
    (directory / "data.json").write_text(json.dumps({"hookgate": {"modes": table}}))
    return compose([directory])


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"destructive": "off"}, "data.hookgate.modes.destructive is 'off': a mode is one of"),
        ({"nope": "warn"}, "data.hookgate.modes.nope names no guard"),
        ({"oversize/x": "warn"}, "data.hookgate.modes.oversize/x: oversize protects"),
    ],
)
def test_a_wrong_mode_entry_is_refused_naming_it(table, message, tmp_path):
    with pytest.raises(PolicyError) as raised:
        team_layer(table, tmp_path)
    assert message in str(raised.value)
    assert str(tmp_path / "data.json") in str(raised.value)


def test_a_mode_of_another_type_than_an_object_is_refused(tmp_path):
    with pytest.raises(PolicyError) as raised:
        team_layer("warn", tmp_path)  # type: ignore[arg-type]
    assert "data.hookgate.modes" in str(raised.value)


def test_relaxing_is_looser_modes_of_the_bases_guards_only():
    before = {"hookgate": {"modes": {"destructive": "warn"}}}
    after = {"hookgate": {"modes": {"destructive": "audit", "mine": "audit", "xpia/x": "warn"}}}
    base = {"destructive", "xpia"}
    assert modes.relaxed(before, after, base) == [
        "destructive: warn → audit",
        "xpia/x: enforce → warn",
    ]
    assert modes.relaxed(after, before, base) == []  # a promotion is no weakening


def cli(*argv: str, stdin: str = "", env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hookgate.cli", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_check_and_explain_show_the_modes(tmp_path):
    (tmp_path / "data.json").write_text(
        json.dumps(
            {"hookgate": {"modes": {"destructive": "warn", "force_push/force-push": "audit"}}}
        )
    )
    shown = cli("check", str(tmp_path))
    assert shown.returncode == 0, shown.stderr
    assert (
        "guards not enforced (data.hookgate.modes): destructive warn, force_push/force-push audit"
        in shown.stdout
    )
    report = json.loads(cli("check", str(tmp_path), "--format", "json").stdout)
    assert report["modes"] == {"destructive": "warn", "force_push/force-push": "audit"}
    payload = json.dumps(bash("rm -rf ~/projects"))
    ran = cli("eval", "--policies", str(tmp_path), "--explain", stdin=payload)
    assert ran.returncode == 0, ran.stderr
    assert (
        "hookgate would deny this call (warn mode"
        in json.loads(ran.stdout)["hookSpecificOutput"]["additionalContext"]
    )
    explained = json.loads(ran.stderr[ran.stderr.index("{") :])
    assert explained["modes"] == {"destructive": "warn", "force_push/force-push": "audit"}
