"""Issue 31 part 3: ``hookgate init DIR`` starts a team's policy repository, driven as a team
would (the CLI in a subprocess): its tests pass over the built-in pack, its guard denies what it
says through the hook, the built-in guards still deny, its workflow runs real commands with real
options, and what the workflow publishes keeps every default guard on a seeded server."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

import pytest
import yaml
from sync_helpers import LiveServer, bash_payload, run_hookgate

from hookgate import cli
from hookgate.commands import init
from hookgate.sources import default_pack_sources

STARTER = set(init.starter_files())


def hookgate(tmp_path: Path, *argv: str, stdin: str = "", **env: str):
    return run_hookgate(tmp_path / "home", *argv, stdin=stdin, **env)


def decision(tmp_path: Path, repo: Path, command: str, *options: str) -> tuple[str, str]:
    proc = hookgate(
        tmp_path,
        "eval",
        "--host",
        "claude",
        "--policies",
        str(repo),
        *options,
        stdin=bash_payload(command),
    )
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout or "{}").get("hookSpecificOutput", {})
    return answer.get("permissionDecision", "allow"), answer.get("permissionDecisionReason", "")


@pytest.fixture
def repo(tmp_path):
    directory = tmp_path / "team"
    proc = hookgate(tmp_path, "init", str(directory))
    assert proc.returncode == 0, proc.stderr
    return directory


def files_of(directory: Path) -> set[str]:
    return {p.relative_to(directory).as_posix() for p in directory.rglob("*") if p.is_file()}


def test_init_writes_the_starter_and_its_tests_and_check_pass(tmp_path, repo):
    assert files_of(repo) == STARTER
    test = hookgate(tmp_path, "test", "-v", str(repo))
    assert test.returncode == 0, test.stdout + test.stderr
    assert "test_publishing_is_denied: PASS" in test.stdout
    assert "PASS: 3/3" in test.stdout  # the team's tests (the pack's run in its own repo)
    check = hookgate(tmp_path, "check", str(repo))
    assert check.returncode == 0, check.stdout + check.stderr
    assert "base: hookgate-default" in check.stdout


def test_a_broken_example_fails_its_test(tmp_path, repo):
    # The tests are real: a guard that no longer reads the table fails them.
    guard = repo / "team_example.rego"
    guard.write_text(guard.read_text().replace("rule.subcommand in c.argv", "false"))
    test = hookgate(tmp_path, "test", str(repo))
    assert test.returncode == 1
    assert "test_publishing_is_denied" in test.stdout


def test_the_example_guard_denies_through_the_hook_and_the_pack_still_decides(tmp_path, repo):
    outcome, reason = decision(tmp_path, repo, "cd pkg && npm publish --tag next")
    assert outcome == "deny" and "pack=team-example" in reason
    assert decision(tmp_path, repo, "npm install")[0] == "allow"
    # The built-in guards stay on, and the override is in force: a force push is denied
    # (force_push.on_force: deny) where the default rewrites it.
    outcome, reason = decision(tmp_path, repo, "git push -f origin feature")
    assert outcome == "deny" and "pack=force-push" in reason
    assert decision(tmp_path, repo, "rm -rf ~")[0] == "deny"


def test_the_data_file_holds_only_keys_that_differ_from_the_defaults(repo):
    overrides = json.loads((repo / "data.json").read_text())  # plain JSON: no comments
    _, defaults = default_pack_sources()

    def leaves(value, path=()):
        if isinstance(value, dict):
            for key, inner in value.items():
                yield from leaves(inner, (*path, key))
        else:
            yield path, value

    for path, value in leaves(overrides):
        default = defaults
        for key in path:
            default = default.get(key) if isinstance(default, dict) else None
        assert default != value, f"{'.'.join(path)} repeats the default"
    assert "deep-merged" in (repo / "README.md").read_text()


def test_a_non_empty_directory_is_refused_unless_force(tmp_path):
    directory = tmp_path / "busy"
    directory.mkdir()
    (directory / "notes.txt").write_text("mine")
    (directory / "data.json").write_text('{"mine": true}')
    refused = hookgate(tmp_path, "init", str(directory))
    assert refused.returncode == 2 and "not empty" in refused.stderr
    assert files_of(directory) == {"notes.txt", "data.json"}
    assert (directory / "data.json").read_text() == '{"mine": true}'
    forced = hookgate(tmp_path, "init", "--force", str(directory))
    assert forced.returncode == 0, forced.stderr
    assert files_of(directory) == STARTER | {"notes.txt"}
    assert (directory / "notes.txt").read_text() == "mine"
    file = tmp_path / "file"
    file.write_text("x")
    assert hookgate(tmp_path, "init", str(file)).returncode == 2


def _parser(name: str) -> argparse.ArgumentParser:
    __import__(cli.COMMANDS[name][0])
    parser = argparse.ArgumentParser(prog=f"hookgate {name}", exit_on_error=False)
    sys.modules[cli.COMMANDS[name][0]].add_arguments(parser)
    return parser


def hookgate_lines(script: str) -> list[list[str]]:
    """Each ``hookgate …`` command of a step's script, as words (shell variables kept as
    placeholders, an ``|| …`` tail dropped)."""
    found = []
    for line in script.replace("\\\n", " ").splitlines():
        line = line.split("||")[0]
        words = shlex.split(line.replace("${{", "{{"))
        if words and words[0] == "hookgate":
            found.append(words[1:])
    return found


def test_the_workflow_parses_and_runs_real_commands_with_real_options(repo):
    workflow = yaml.safe_load((repo / ".github/workflows/hookgate.yml").read_text())
    # PyYAML reads the bare key `on` as True (YAML 1.1); GitHub reads it as "on".
    triggers = workflow.get("on", workflow.get(True))
    assert "pull_request" in triggers and triggers["push"]["branches"] == ["main"]
    steps = workflow["jobs"]["policies"]["steps"]
    runs: dict[str, list[tuple[list[str], str]]] = {}
    for step in steps:
        if "run" not in step:
            continue
        for words in hookgate_lines(step["run"]):
            runs.setdefault(words[0], []).append((words, step.get("if", "")))
    assert {"check", "test", "impact", "publish"} <= set(runs)
    for name, uses in runs.items():
        assert name in cli.COMMANDS, name
        for words, _ in uses:
            _parser(name).parse_args(words[1:])  # an unknown option raises
    for words, condition in runs["publish"]:
        if "--dry-run" not in words:
            assert "refs/heads/main" in condition and "push" in condition
    comments = (repo / ".github/workflows/hookgate.yml").read_text()
    for code in ("6", "7"):
        assert f" {code} " in comments  # impact's and publish's own exit codes are explained


# ------------------------------------------------------------ the repository, published as is


@pytest.fixture
def server(tmp_path):
    live = LiveServer(tmp_path / "server.db")
    live.editor_token = live.store.create_token("editor", "ci")
    yield live
    live.stop()


def test_the_repository_the_workflow_publishes_keeps_the_default_guards(tmp_path, repo, server):
    def on_server(*argv: str):
        return hookgate(tmp_path, *argv, "--server", server.url, HOOKGATE_TOKEN=server.editor_token)

    # The server keeps the repository as the team's layer over its built-in pack.
    dry = on_server("publish", str(repo), "-m", "team layer", "--dry-run")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert "+ team_example.rego" in dry.stdout and "force_push.rego" not in dry.stdout
    published = on_server("publish", str(repo), "-m", "team layer")
    assert published.returncode == 0, published.stdout + published.stderr
    again = on_server("publish", str(repo), "-m", "again")
    assert again.returncode == 0 and "nothing to change" in again.stdout
    exported = tmp_path / "exported"
    assert on_server("export", str(exported)).returncode == 0
    # The export is the layer: the repository's policy and data files, nothing of the pack.
    assert files_of(exported) == {"team_example.rego", "team_example_test.rego", "data.json"}
    assert json.loads((exported / "data.json").read_text()) == init.OVERRIDES
    assert decision(tmp_path, exported, "npm publish")[0] == "deny"
    assert decision(tmp_path, exported, "git push -f origin main")[0] == "deny"
    assert decision(tmp_path, exported, "rm -rf ~")[0] == "deny"
    assert decision(tmp_path, exported, "ls -la")[0] == "allow"


def test_a_setting_of_another_type_is_refused_by_the_server_naming_the_key(tmp_path, repo, server):
    (repo / "data.json").write_text(
        json.dumps({"hookgate": {"config": {"force_push": {"on_force": 1}}}})
    )
    bad = hookgate(
        tmp_path, "publish", str(repo), "-m", "bad", "--server", server.url,
        HOOKGATE_TOKEN=server.editor_token,
    )  # fmt: skip
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert (
        "data/hookgate:1:1: data.hookgate.config.force_push.on_force is a number here but a "
        "string in the layers below" in bad.stderr
    )


def test_init_has_no_set_option_any_more(tmp_path, repo):
    # The server composes the layer itself: there is no whole set to build.
    assert hookgate(tmp_path, "init", "--set", str(tmp_path / "out"), str(repo)).returncode == 2


def test_the_workflow_s_own_lines_run_in_the_repository_against_a_server(tmp_path, repo, server):
    # The workflow runs in the repository's checkout and names it "."; every line of a pull
    # request's steps, run as written there, answers as its comment says (no traceback).
    import subprocess

    from sync_helpers import hookgate_env

    workflow = yaml.safe_load((repo / ".github/workflows/hookgate.yml").read_text())
    env = hookgate_env(
        tmp_path / "home", HOOKGATE_SERVER=server.url, HOOKGATE_TOKEN=server.editor_token
    )
    ran = []
    for step in workflow["jobs"]["policies"]["steps"]:
        if "run" not in step or "push" in step.get("if", ""):
            continue
        for words in hookgate_lines(step["run"]):
            words = [w.replace("$HOOKGATE_SERVER", server.url) for w in words]
            proc = subprocess.run(
                [sys.executable, "-m", "hookgate.cli", *words],
                cwd=repo, env=env, capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            assert proc.returncode in (0, 6), (words, proc.stdout, proc.stderr)
            assert "Traceback" not in proc.stderr
            ran.append(words[0])
    assert ran == ["check", "test", "impact", "publish"]
