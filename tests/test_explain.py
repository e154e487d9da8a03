"""``--explain`` names the rules that decided, each with the file:line:col of its definitions
that produced the value, the configuration keys (``data.hookgate.config.*``) it read and the
host facts (branch, repository configuration, session files) it was given; rules that gave
nothing are not listed, and without ``--explain`` nothing of this is built (issue 31, part 4c).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hookgate.engine import Engine
from hookgate.lang import trace

ROOT = Path(__file__).resolve().parents[1]
POLICIES = ROOT / "policies"

BRANCHES = """package hookgate.branches

import rego.v1

import data.hookgate.config

cfg := data.hookgate.config.branches

deny contains "never on Fridays" if {
	input.tool_input.command == "push"
	cfg.fridays == false
	input.day == "friday"
}

deny contains msg if {
	input.tool_input.command == "push"
	branch := git.branch(input.cwd)
	branch in cfg.protected
	object.get(config, ["branches", "message"], "no") != ""
	msg := sprintf("no push to %s", [branch])
}
"""

QUIET = """package hookgate.quiet

import rego.v1

ask contains "skills?" if {
	count(host.skills(input.cwd)) > data.hookgate.config.quiet.most
}
"""

DATA = {
    "hookgate": {
        "config": {
            "branches": {"protected": ["main"], "fridays": False, "message": "x"},
            "quiet": {"most": 5},
        }
    }
}

FACTS = {"git.branch": {"/repo": "main"}, "host.skills": {"/repo": ["a"]}}


def payload(command: str) -> dict:
    return {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": "/repo",
    }


def engine() -> Engine:
    return Engine.from_sources({"branches.rego": BRANCHES, "quiet.rego": QUIET}, DATA)


def _line(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def test_explain_names_definition_config_keys_and_facts_of_the_deciding_rule():
    decision = engine().evaluate(payload("push"), facts=FACTS, explain=True)
    assert decision.outcome == "deny"
    (rule,) = decision.explain["rules"]  # quiet.ask gave nothing: not listed
    assert rule["rule"] == "data.hookgate.branches.deny"
    assert rule["value"] == ["no push to main"]
    # the second definition decided; the first ran too but produced nothing
    second = _line(BRANCHES, "deny contains msg")
    assert rule["definitions"] == [{"file": "branches.rego", "line": second, "col": 1}]
    # read through an alias rule (cfg) and through object.get on an import; the first
    # definition's `cfg.fridays` did not decide, quiet.most belongs to another rule
    assert rule["config"] == {"branches.message": "x", "branches.protected": ["main"]}
    assert rule["facts"] == [{"builtin": "git.branch", "args": ["/repo"], "result": "main"}]
    # every fact the evaluation asked for, the other pack's too
    builtins = sorted(f["builtin"] for f in decision.explain["facts"])
    assert builtins == ["git.branch", "host.skills"]


def test_explain_of_an_allow_lists_no_rule_but_the_facts_read():
    decision = engine().evaluate(payload("ls"), facts=FACTS, explain=True)
    assert decision.outcome == "allow"
    assert decision.explain["rules"] == []
    assert [f["builtin"] for f in decision.explain["facts"]] == ["host.skills"]


def test_explain_follows_the_facts_in_the_decision():
    facts = {"git.branch": {"/repo": "feature"}, "host.skills": {"/repo": list("abcdefg")}}
    decision = engine().evaluate(payload("push"), facts=facts, explain=True)
    assert decision.outcome == "ask"
    (rule,) = decision.explain["rules"]
    assert rule["rule"] == "data.hookgate.quiet.ask"
    assert rule["definitions"][0]["line"] == _line(QUIET, "ask contains")
    assert rule["config"] == {"quiet.most": 5}
    assert rule["facts"] == [
        {"builtin": "host.skills", "args": ["/repo"], "result": list("abcdefg")}
    ]


def test_without_explain_nothing_is_traced():
    e = engine()
    decision = e.evaluate(payload("push"), facts=FACTS)
    assert decision.explain is None
    assert e._tracer is None  # the traced compilation is built by the first --explain only
    e.evaluate(payload("push"), facts=FACTS, explain=True)
    tracer = e._tracer
    assert tracer is not None
    e.evaluate(payload("push"), facts=FACTS, explain=True)
    assert e._tracer is tracer  # and kept: a server explaining many calls compiles it once


def test_explain_from_the_compile_cache(tmp_path, monkeypatch):
    """A warm engine loads compiled code without the syntax tree: the trace parses the
    sources it kept."""
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "branches.rego").write_text(BRANCHES)
    (tmp_path / "p" / "data.json").write_text(json.dumps(DATA))
    cache = tmp_path / "cache"
    Engine.from_paths([tmp_path / "p"], cache_dir=cache)
    warm = Engine.from_paths([tmp_path / "p"], cache_dir=cache)
    decision = warm.evaluate(payload("push"), facts=FACTS, explain=True)
    (rule,) = decision.explain["rules"]
    assert rule["definitions"][0]["file"].endswith("branches.rego")
    assert rule["config"]["branches.protected"] == ["main"]
    # The traced code and its index are cached too: the next process's --explain parses and
    # compiles nothing.
    assert list(cache.glob("trace/*.code"))
    monkeypatch.setattr(trace, "_build", lambda ps: pytest.fail("traced code built again"))
    again = Engine.from_paths([tmp_path / "p"], cache_dir=cache)
    decision = again.evaluate(payload("push"), facts=FACTS, explain=True)
    assert "trace_error" not in decision.explain
    assert decision.explain["rules"][0]["config"]["branches.protected"] == ["main"]
    assert decision.explain["rules"][0]["facts"][0]["result"] == "main"


def test_hookgate_eval_explain_on_the_default_pack(tmp_path):
    """End to end: a force push is rewritten by force_push.rego's rewrite rule, which read
    force_push.on_force; the repository's configuration was read (a push's meaning depends on
    it), the session's written files were not (the line runs no file)."""
    env = dict(os.environ, HOOKGATE_HOME=str(tmp_path / "home"))
    env["HOOKGATE_TELEMETRY"] = str(tmp_path / "t.jsonl")
    call = {
        "session_id": "s1",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git push --force origin feature"},
        "cwd": str(tmp_path),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "hookgate.cli", "eval", "--host", "claude", "--explain"],
        input=json.dumps(call),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    explained = json.loads(proc.stderr[proc.stderr.index("{") :])
    assert "trace_error" not in explained
    (rule,) = explained["rules"]
    assert rule["rule"] == "data.hookgate.force_push.rewrite"
    source = (POLICIES / "force_push.rego").read_text()
    (definition,) = rule["definitions"]
    assert Path(definition["file"]).name == "force_push.rego"
    assert source.splitlines()[definition["line"] - 1].startswith("rewrite contains")
    assert rule["config"]["force_push.on_force"] == "rewrite"
    read = {(f["builtin"], tuple(f["args"])) for f in rule["facts"]}
    assert ("git.config_read", (str(tmp_path),)) in read
    assert not any(name == "hookgate.session_files" for name, _ in read)
