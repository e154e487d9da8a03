"""Issue 31 part 1: the built-in pack is a versioned base layer and a team's policies and data
are layers over it (``hookgate.layers``), so that adding and tuning never removes protection
without an explicit statement.

Driven as a team would: a directory with only its own files, given to ``hookgate eval
--policies`` (a subprocess, as a host runs the hook), ``check``, ``test`` and ``install``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hookgate import cli, layers, packcheck
from hookgate.engine import Engine
from hookgate.lang.errors import PolicyError
from hookgate.sources import default_pack_path, default_pack_sources

HOOKGATE = str(Path(sys.executable).parent / "hookgate")


def bash(command: str) -> dict:
    return {
        "session_id": "s",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }


def team(root: Path, files: dict[str, object]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    return root


def outcome(engine: Engine, command: str) -> str:
    return engine.evaluate(bash(command), "claude").outcome


def run_eval(tmp_path: Path, payload: dict, *options: str) -> dict:
    env = dict(os.environ, HOOKGATE_HOME=str(tmp_path / "home"))
    env.pop("HOOKGATE_FAILURE_POLICY", None)
    proc = subprocess.run(
        [HOOKGATE, "eval", "--host", "claude", *options],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


TEAM_GUARD = """# METADATA
# title: team-no-curl
package hookgate.team_no_curl

import rego.v1

deny contains msg if {
\tcontains(input.tool_input.command, "curl ")
\tmsg := "no curl here"
}
"""

TEAM_GUARD_TEST = """package hookgate.team_no_curl_test

import rego.v1

import data.hookgate.team_no_curl

test_curl_denied if {
\tcount(team_no_curl.deny) == 1 with input as {"tool_input": {"command": "curl x"}}
}
"""

FORCE_DENY = {"hookgate": {"config": {"force_push": {"on_force": "deny"}}}}


# ------------------------------------------------------------------ adding and tuning


def test_a_data_only_layer_keeps_every_default_guard_through_the_hook(tmp_path):
    layer = team(tmp_path / "team", {"data.json": FORCE_DENY})
    answer = run_eval(tmp_path, bash("git push -f origin feature"), "--policies", str(layer))
    # Before layers this directory replaced the pack: the force push got {}.
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "pack=force-push" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    answer = run_eval(tmp_path, bash("rm -rf ~"), "--policies", str(layer))
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_setting_is_deep_merged_over_the_defaults(tmp_path):
    layer = team(tmp_path / "team", {"data.json": FORCE_DENY})
    composed = layers.compose([layer])
    _, default = default_pack_sources()
    expected = json.loads(json.dumps(default))
    expected["hookgate"]["config"]["force_push"]["on_force"] = "deny"
    assert composed.data == expected  # only the key the team wrote differs
    assert default["hookgate"]["config"]["force_push"]["on_force"] == "rewrite"  # unchanged
    engine = Engine.from_layers([layer])
    assert outcome(engine, "git push -f origin feature") == "deny"
    assert outcome(Engine.from_layers([]), "git push -f origin feature") == "rewrite"


def test_arrays_and_scalars_replace_and_new_keys_are_added(tmp_path):
    layer = team(
        tmp_path / "team",
        {
            "data.json": {
                "hookgate": {"config": {"protected_branches": ["release"]}},
                "team": {"issue_key": "ABC"},
            }
        },
    )
    data = layers.compose([layer]).data
    assert data["hookgate"]["config"]["protected_branches"] == ["release"]
    assert data["team"] == {"issue_key": "ABC"}


def test_later_layers_win_and_nested_data_files_merge_at_their_path(tmp_path):
    first = team(tmp_path / "a", {"data.json": FORCE_DENY})
    second = team(tmp_path / "b", {"hookgate/config/force_push/data.json": {"on_force": "rewrite"}})
    data = layers.compose([first, second]).data
    assert data["hookgate"]["config"]["force_push"]["on_force"] == "rewrite"
    assert (
        layers.compose([second, first]).data["hookgate"]["config"]["force_push"]["on_force"]
        == "deny"
    )


@pytest.mark.parametrize(
    ("document", "path", "types"),
    [
        (
            {"hookgate": {"config": {"force_push": {"on_force": 1}}}},
            "force_push.on_force",
            "a number here but a string",
        ),
        (
            {"hookgate": {"config": {"protected_branches": "main"}}},
            "protected_branches",
            "a string here but an array",
        ),
        (
            {"hookgate": {"config": {"force_push": ["deny"]}}},
            "config.force_push",
            "an array here but an object",
        ),
    ],
)
def test_a_setting_of_another_type_is_an_error_naming_the_key_and_file(
    tmp_path, document, path, types
):
    layer = team(tmp_path / "team", {"data.json": document})
    with pytest.raises(PolicyError) as caught:
        layers.compose([layer])
    (diag,) = caught.value.diagnostics
    assert diag.file == str(layer / "data.json")
    assert path in diag.message and types in diag.message


def test_adding_a_guard_is_adding_a_file(tmp_path):
    layer = team(tmp_path / "team", {"no_curl.rego": TEAM_GUARD})
    engine = Engine.from_layers([layer])
    assert outcome(engine, "curl example.com") == "deny"
    assert outcome(engine, "rm -rf ~") == "deny"  # the built-in guards still decide
    assert outcome(engine, "ls -la") == "allow"


def test_a_team_file_named_like_a_pack_file_is_its_own_unless_an_edited_copy(tmp_path):
    pack = Path(default_pack_path())
    own = team(tmp_path / "own", {"lib.rego": "package teamlib\n\nx := 1\n"})
    assert str(own / "lib.rego") in layers.compose([own]).sources  # another package: added
    same = team(tmp_path / "same", {"force_push.rego": (pack / "force_push.rego").read_text()})
    assert str(same / "force_push.rego") not in layers.compose([same]).sources  # no change
    edited_text = (pack / "force_push.rego").read_text().replace("deny contains", "x contains")
    edited = team(tmp_path / "edited", {"force_push.rego": edited_text})
    with pytest.raises(PolicyError, match="edited copy of the built-in pack's file"):
        layers.compose([edited])
    # Replacing the base is the explicit flag.
    assert str(edited / "force_push.rego") in layers.compose([edited], base=False).sources


# ------------------------------------------------------------------ turning a guard off


def test_a_guard_is_off_only_by_the_explicit_statement(tmp_path, capsys):
    layer = team(tmp_path / "team", {"data.json": {"hookgate": {"disabled": ["force_push"]}}})
    composed = layers.compose([layer])
    assert composed.disabled == ["force_push"]
    engine = Engine.from_layers([layer])
    decision = engine.evaluate(bash("git push -f origin feature"), "claude")
    assert decision.outcome == "allow"  # neither denied nor rewritten
    assert outcome(engine, "rm -rf ~") == "deny"  # every other guard still runs
    assert cli.main(["check", str(layer)]) == 0
    out = capsys.readouterr().out
    assert f"guards turned off by {layer / 'data.json'} (data.hookgate.disabled): force_push" in out
    assert cli.main(["check", "--format", "json", str(layer)]) == 0
    assert json.loads(capsys.readouterr().out)["disabled"] == ["force_push"]


def test_an_unknown_guard_name_in_disabled_is_an_error(tmp_path, capsys):
    layer = team(tmp_path / "team", {"data.json": {"hookgate": {"disabled": ["force-push"]}}})
    with pytest.raises(PolicyError, match="names no guard: force-push") as caught:
        layers.compose([layer])
    assert "force_push" in caught.value.diagnostics[0].message  # the names it could be
    assert cli.main(["check", str(layer)]) == 2
    assert "names no guard" in capsys.readouterr().err
    answer = run_eval(tmp_path, bash("git push -f origin feature"), "--policies", str(layer))
    assert answer == {}  # the hook's failure policy (open): never the guard silently off


def test_replacing_the_base_is_an_explicit_flag(tmp_path, capsys):
    layer = team(tmp_path / "team", {"no_curl.rego": TEAM_GUARD})
    assert cli.main(["check", "--no-default-pack", str(layer)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("base: none (--no-default-pack") and "1 file checked" in out
    payload = bash("rm -rf ~")
    answer = run_eval(tmp_path, payload, "--policies", str(layer), "--no-default-pack")
    assert answer == {}  # only the team's guard runs
    answer = run_eval(tmp_path, payload, "--policies", str(layer))
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_replace_base_file_states_locally_what_it_states_on_the_server(tmp_path, capsys):
    # ``hookgate export`` writes REPLACE-BASE for a server whose base is replaced: the directory
    # then decides on a laptop as on the server, with no flag to remember.
    layer = team(tmp_path / "team", {"no_curl.rego": TEAM_GUARD, "tests/t_test.rego": ""})
    (layer / "tests" / "t_test.rego").write_text(TEAM_GUARD_TEST)
    (layer / layers.REPLACE_BASE_FILE).write_text("")
    assert cli.main(["check", str(layer)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"base: none ({layer / layers.REPLACE_BASE_FILE}: the paths replace")
    assert cli.main(["check", "--format", "json", str(layer)]) == 0
    assert json.loads(capsys.readouterr().out)["base"] is None
    assert cli.main(["test", str(layer)]) == 0
    assert "PASS: 1/1" in capsys.readouterr().out  # the team's test alone: no pack test ran
    # Under a second layer too: one statement makes the whole stack the set.
    other = team(tmp_path / "other", {"data.json": FORCE_DENY})
    composed = layers.compose([other, layer])
    assert composed.base_version is None and "destructive.rego" not in str(composed.sources)
    payload = bash("rm -rf ~")
    assert run_eval(tmp_path, payload, "--policies", str(layer)) == {}
    curl = run_eval(tmp_path, bash("curl x"), "--policies", str(layer))
    assert curl["hookSpecificOutput"]["permissionDecision"] == "deny"
    # The compile cache keys on the statement: taking it away brings the base back, and again.
    (layer / layers.REPLACE_BASE_FILE).unlink()
    answer = run_eval(tmp_path, payload, "--policies", str(layer))
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    (layer / layers.REPLACE_BASE_FILE).write_text("")
    assert run_eval(tmp_path, payload, "--policies", str(layer)) == {}


def test_a_setting_nothing_reads_is_named_by_check(tmp_path, capsys):
    # This pack renamed xpia.instruction_files to xpia.instruction_channels: a team override of
    # the old key was silently ignored. check names it (a warning; an error with --strict).
    guard = TEAM_GUARD.replace('"curl "', "data.hookgate.config.team_no_curl.word")
    layer = team(
        tmp_path / "team",
        {
            "no_curl.rego": guard,
            "data.json": {
                "hookgate": {
                    "config": {
                        "force_push": {"on_forse": "deny"},
                        "team_no_curl": {"word": "curl "},  # the team guard reads it
                        "self_protect": {"host_files": {"myhost": {"name": "m", "files": []}}},
                        # New entries of tables keyed by names the modules never spell.
                        "no_verify": {"bypass_env": {"MYSKIP": ["1"]}},
                        "xpia": {
                            "instruction_files": ["RULES.md"],
                            "instruction_channels": {"files": {"RULES.md": ["claude"]}},
                        },
                    }
                }
            },
        },
    )
    assert cli.main(["check", str(layer)]) == 0
    out = capsys.readouterr().out
    data = layer / "data.json"
    found = [line for line in out.splitlines() if "no policy reads" in line]
    assert found == [
        f"warning: {data}: data.hookgate.config.force_push.on_forse is a setting the base "
        f"{layers.BASE_NAME} {layers.base_version()} does not have and no policy reads: it "
        "changes nothing (renamed in the pack, or misspelled?)",
        f"warning: {data}: data.hookgate.config.xpia.instruction_files is a setting the base "
        f"{layers.BASE_NAME} {layers.base_version()} does not have and no policy reads: it "
        "changes nothing (renamed in the pack, or misspelled?)",
    ]  # not the team guard's own setting, nor a new entry of a table (host_files)
    assert "2 warnings" in out
    assert cli.main(["check", "--strict", str(layer)]) == 1
    assert "error: " in capsys.readouterr().out
    assert cli.main(["check", "--format", "json", str(layer)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [u["path"] for u in report["unread"]] == [
        "data.hookgate.config.force_push.on_forse",
        "data.hookgate.config.xpia.instruction_files",
    ]
    # Without the guard that reads it, the team's own setting is unread too.
    (layer / "no_curl.rego").unlink()
    assert cli.main(["check", str(layer)]) == 0
    assert "data.hookgate.config.team_no_curl is a setting" in capsys.readouterr().out


# ------------------------------------------------------------------ tests and versions


def test_a_teams_setting_never_fails_a_shipped_test(tmp_path, capsys):
    # force_push.on_force: deny made five of the pack's tests fail in check, test and publish.
    layer = team(
        tmp_path / "team",
        {
            "data.json": FORCE_DENY,
            "no_curl.rego": TEAM_GUARD,
            "no_curl_test.rego": TEAM_GUARD_TEST,
            "force_deny_test.rego": (
                "package hookgate.force_deny_test\n\nimport rego.v1\n\n"
                "test_force_is_denied if {\n\tcount(data.hookgate.force_push.deny) > 0 with "
                'input as {"hook_event_name": "PreToolUse", "tool_name": "Bash", '
                '"tool_kind": "shell", "tool_input": {"command": "git push -f origin x"}, '
                '"cwd": "/home/u/proj"}\n}\n'
            ),
        },
    )
    pack = default_pack_path()
    assert cli.main(["test", "-v", pack, str(layer)]) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert "test_force_is_denied: PASS" in out  # the team's test sees its configuration
    assert "test_curl_denied: PASS" in out
    assert cli.main(["check", pack, str(layer)]) == 0, capsys.readouterr().out
    capsys.readouterr()
    # Without the base layer the team's copy is its own pack: its settings apply to it all.
    assert cli.main(["test", "--no-default-pack", pack, str(layer)]) == 1
    out = capsys.readouterr().out
    # (every shipped test of a rewrite fails once a force is denied, and only those)
    failed = re.findall(r"^data\.hookgate\.(\w+)\.(\w+): FAIL", out, re.MULTILINE)
    assert failed and {package for package, _ in failed} == {"force_push_test"}, out
    assert f"FAIL: {len(failed)}/" in out
    # The server's check (packcheck) tells shipped tests by name and text, not by path.
    sources, _ = default_pack_sources(include_tests=True)
    by_id = {Path(name).name: text for name, text in sources.items()}
    composed = layers.compose([layer])
    assert packcheck.problems(by_id, composed.data) == []


def test_the_base_layer_has_a_version_shown_by_check(tmp_path, capsys):
    version = layers.base_version()
    assert version.startswith(__import__("hookgate").__version__ + "+")
    layer = team(tmp_path / "team", {"data.json": FORCE_DENY})
    assert cli.main(["check", str(layer)]) == 0
    assert f"base: hookgate-default {version} (the built-in pack)" in capsys.readouterr().out
    # Any change to the pack's text changes the version.
    sources, data = default_pack_sources()
    first = next(iter(sources))
    assert layers.pack_version({**sources, first: sources[first] + "\n"}, data) != version


def test_the_compile_cache_sees_a_changed_layer(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    layer = team(tmp_path / "team", {"data.json": FORCE_DENY})
    assert outcome(Engine.from_layers([layer], cache_dir=cache), "git push -f origin x") == "deny"
    (layer / "data.json").write_text(json.dumps({"hookgate": {"disabled": ["force_push"]}}))
    assert outcome(Engine.from_layers([layer], cache_dir=cache), "git push -f origin x") == "allow"


# ------------------------------------------------------------------ install


def test_install_writes_the_layers_into_every_hook_command(tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("HOOKGATE_HOME", str(tmp_path / "hookgate"))
    layer = team(tmp_path / "team", {"data.json": FORCE_DENY})
    monkeypatch.chdir(tmp_path)
    assert cli.main(["install", "claude", "--policies", "team"]) == 0
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    commands = [
        hook["command"]
        for groups in settings["hooks"].values()
        for group in groups
        for hook in group["hooks"]
    ]
    assert commands and all(c.endswith(f"--policies {layer}") for c in commands)
    # The command written runs the layers.
    env = dict(os.environ, HOME=str(home), HOOKGATE_HOME=str(tmp_path / "hookgate"))
    proc = subprocess.run(
        commands[0],
        shell=True,
        input=json.dumps(bash("git push -f origin feature")),
        capture_output=True,
        text=True,
        env=env,
        cwd="/",
        timeout=120,
    )
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert cli.main(["install", "claude", "--no-default-pack"]) == 1
    assert "needs --policies" in capsys.readouterr().err
    # A project's shared settings never name a path of this machine (issue 31 part 6).
    project = tmp_path / "project"
    project.mkdir()
    argv = ["install", "claude", "--scope", "project", "--project-dir", str(project)]
    assert cli.main([*argv, "--policies", "team"]) == 1
    assert "would write a path of this machine" in capsys.readouterr().err
    assert not (project / ".claude" / "settings.json").exists()


def test_the_servers_check_refuses_an_unknown_guard_in_disabled():
    # The same check guards PUT /v1/data, change sets and `hookgate check` (packcheck).
    sources, data = default_pack_sources()
    data = json.loads(json.dumps(data))
    data["hookgate"]["disabled"] = ["nope"]
    (problem,) = packcheck.problems(sources, data)
    assert problem["input"] == "data.hookgate.disabled"
    assert "names no guard: nope" in problem["message"]
    data["hookgate"]["disabled"] = ["force_push"]
    assert packcheck.problems(sources, data) == []
