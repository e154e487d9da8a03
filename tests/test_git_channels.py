"""git's own channels: configuration read the way git reads it (command line, environment,
``git config`` earlier in the line, files the line writes, the repository's files through the
``git.config`` host fact), aliases, options configuration implies, programs settings run, words
the line does not show, and ``git checkout <name>`` read as git reads it. Where real git is
installed, it is the oracle."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from test_git import corpus_git_lines

from hookgate.builtins import BuiltinError, full_registry
from hookgate.builtins.git import checkout_target, config, configure, parse, parse_in
from hookgate.builtins.shell import commands, commands_with, has_flag
from hookgate.engine import Engine
from hookgate.shell.analysis import analyse
from hookgate.shell.git.argv import split_cmdline
from hookgate.shell.git.configchange import (
    config_bool,
    config_change,
    env_config,
    git_builtins,
)
from hookgate.shell.git.programs import program_script

REGISTRY = full_registry()

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git not installed")
POLICIES = os.path.join(os.path.dirname(__file__), "..", "policies")


with open(os.path.join(POLICIES, "data.json"), encoding="utf-8") as f:
    SUBSTITUTIONS = json.load(f)["hookgate"]["config"]["shell"]["substitutions"]


def gits(cmdline: str) -> list[dict]:
    """The git commands of ``cmdline`` as the pack reads them (with its known-safe substitutions)."""
    return [c for c in commands_with(cmdline, SUBSTITUTIONS) if c["name"] == "git"]


def last_git(cmdline: str, repo_config: dict | None = None) -> dict:
    """git.parse_in of the line's last git command; git.configure, from its git.parse, agrees."""
    c = gits(cmdline)[-1]
    parsed = parse_in(c, repo_config)
    assert configure(parse(c), c, repo_config) == parsed
    return parsed


def git_env(home) -> dict:
    return {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.environ["PATH"]}


def real_list(cwd, env: dict, *args: str) -> list[tuple[str, str]]:
    """(key, value) of ``git config --list`` for the command-line scope, as git reads it."""
    out = subprocess.run(
        [GIT, *args, "config", "--list", "--show-scope", "-z"],
        cwd=cwd, env=env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    fields = out.split("\0")
    pairs = []
    for scope, entry in zip(fields[0::2], fields[1::2], strict=False):
        if scope == "command":
            key, newline, value = entry.partition("\n")
            pairs.append((key, value if newline else "true"))  # valueless: git's true
    return pairs


# -- configuration from the command line and the environment -----------------------------------

PARAMETERS = [
    "'alias.p'='push --force'",
    "'alias.p=push -f'",
    "'core.hooksPath'='/dev/null' 'user.name'='x'",
    "'Remote.Origin.Push'='+refs/heads/*:refs/heads/*'",
    "'a.b'='it'\\''s'",
    "'flag.on'",
]


@needs_git
@pytest.mark.parametrize("params", PARAMETERS)
def test_git_config_parameters_read_as_git_reads_them(params, tmp_path):
    env = git_env(tmp_path) | {"GIT_CONFIG_PARAMETERS": params}
    real = real_list(tmp_path, env)
    ours = env_config({"GIT_CONFIG_PARAMETERS": params})
    assert ours == real


@needs_git
@pytest.mark.parametrize("count", ["0", "1", "2"])
def test_git_config_count_limits_the_pairs(count, tmp_path):
    pairs = {
        "GIT_CONFIG_COUNT": count,
        "GIT_CONFIG_KEY_0": "alias.a",
        "GIT_CONFIG_VALUE_0": "status",
        "GIT_CONFIG_KEY_1": "alias.b",
        "GIT_CONFIG_VALUE_1": "push -f",
    }
    real = real_list(tmp_path, git_env(tmp_path) | pairs)
    assert env_config(pairs) == real


def test_unknown_count_reads_every_pair():
    pairs = {"GIT_CONFIG_COUNT": "$N", "GIT_CONFIG_KEY_3": "alias.p", "GIT_CONFIG_VALUE_3": "x"}
    assert env_config(pairs) == [("alias.p", "x")]


def test_config_env_takes_the_variable_value():
    g = last_git("A='push --force' git --config-env=alias.p=A p origin")
    assert (g["subcommand"], g["alias"]) == ("push", "p")
    assert has_flag(g, "--force")
    assert last_git("git --config-env=core.hooksPath=HP commit")["config"] == {
        "core.hookspath": "$HP"
    }


def test_valueless_c_is_true():
    assert last_git("git -c remote.origin.mirror push")["config"] == {
        "remote.origin.mirror": "true"
    }


# -- git config in every spelling --------------------------------------------------------------

CHANGES = [
    (["alias.p", "push -f"], ("set", "alias.p", "push -f", "local")),
    (["set", "alias.p", "push -f"], ("set", "alias.p", "push -f", "local")),
    (["--global", "alias.p", "push -f"], ("set", "alias.p", "push -f", "global")),
    (["-f", "/tmp/c", "alias.p", "x"], ("set", "alias.p", "x", "file:/tmp/c")),
    (["--file=/tmp/c", "alias.p", "x"], ("set", "alias.p", "x", "file:/tmp/c")),
    (["--add", "remote.origin.push", "+a:a"], ("add", "remote.origin.push", "+a:a", "local")),
    (["set", "--append", "remote.o.push", "+a"], ("add", "remote.o.push", "+a", "local")),
    (["--replace-all", "core.hooksPath", "/x"], ("set", "core.hookspath", "/x", "local")),
    (["--unset", "core.hooksPath"], ("unset", "core.hookspath", "", "local")),
    (["unset", "--global", "alias.p"], ("unset", "alias.p", "", "global")),
    (["--bool", "remote.origin.mirror", "yes"], ("set", "remote.origin.mirror", "yes", "local")),
    (["--type=bool", "pull.rebase", "false"], ("set", "pull.rebase", "false", "local")),
    (["core.editor", "vim", "^v"], ("set", "core.editor", "vim", "local")),
    (["--get", "alias.p"], None),
    (["get", "alias.p"], None),
    (["alias.p"], None),
    (["--list"], None),
    (["-l"], None),
    (["--blob", "HEAD:.gitmodules", "x.y", "z"], None),
]


@pytest.mark.parametrize(("args", "change"), CHANGES)
def test_config_change_spellings(args, change):
    assert config_change(args) == change


@needs_git
@pytest.mark.parametrize(
    "args",
    [a for a, c in CHANGES if c and c[3] == "local" and a[0] not in ("set", "unset")],
)
def test_config_change_is_what_git_writes(args, tmp_path):
    from hookgate.shell.git.config import read_config

    env = git_env(tmp_path)
    subprocess.run([GIT, "init", "-q", "r"], cwd=tmp_path, env=env, check=True)
    repo = tmp_path / "r"
    subprocess.run([GIT, "config", "core.hooksPath", "old"], cwd=repo, env=env, check=True)
    before = read_config(str(repo / ".git"), None)
    subprocess.run([GIT, "config", *args], cwd=repo, env=env, check=True)
    after = read_config(str(repo / ".git"), None)
    op, key, value, _scope = config_change(args)
    if "--bool" in args:
        value = "true" if config_bool(value) else "false"  # git writes the canonical form
    expected = dict(before)
    if op == "set":
        expected[key] = [value]
    elif op == "add":
        expected[key] = before.get(key, []) + [value]
    else:
        expected.pop(key, None)
    assert after == expected


# -- aliases -----------------------------------------------------------------------------------

SPLITS = ["push --force", "commit -m 'two words'", 'log --format="%h %s"', r"a\ b c", "  x   y  "]


@needs_git
@pytest.mark.parametrize("alias", SPLITS)
def test_alias_words_split_as_git_splits_them(alias, tmp_path):
    env = git_env(tmp_path) | {"GIT_TRACE": "1"}
    run = subprocess.run(
        [GIT, "-c", f"alias.zz=rev-parse --sq-quote {alias}", "zz"],
        cwd=tmp_path, env=env, capture_output=True, text=True,
    )  # fmt: skip
    import shlex

    assert shlex.split(run.stdout) == split_cmdline("rev-parse --sq-quote " + alias)[2:]


@needs_git
def test_the_builtins_table_is_the_machines_git():
    def listed(kind: str) -> set[str]:
        out = subprocess.run([GIT, f"--list-cmds={kind}"], capture_output=True, text=True)
        return set(out.stdout.split())

    builtins = listed("builtins")
    assert builtins - git_builtins() == set(), "data/git-builtins.txt lacks this git's builtins"
    # every name is a command this git has (a newer git's builtin would hide an alias it runs)
    assert git_builtins() - builtins - listed("main") == set()


# (-c aliases, the words after git): what real git runs, read from its trace
ALIAS_RUNS = [
    ({"status": "rev-parse --git-dir"}, ["status"]),
    ({"rev-parse": "status"}, ["rev-parse", "--git-dir"]),
    ({"REV-PARSE": "status"}, ["rev-parse", "--git-dir"]),
    ({"version": "rev-parse --git-dir"}, ["VERSION"]),  # no builtin: alias.version runs
    ({"v": "version --build-options"}, ["v"]),
    ({"v": "w -x", "w": "rev-parse --show-toplevel"}, ["v"]),
    ({"v": "status", "status": "v"}, ["v"]),  # status is the builtin, not the alias
    ({"status": "!echo x", "v": "status -s"}, ["v"]),  # nor a shell alias of its name
    ({"V": "rev-parse --git-dir"}, ["v"]),
    ({"v": "STATUS -s", "status": "rev-parse --git-dir"}, ["v"]),
    ({"v": "v --build-options"}, ["v"]),  # loops: git runs nothing
    ({"v": "V"}, ["v"]),
    ({"a": "b -q", "b": "c", "c": "a"}, ["a", "x"]),
    ({"a": "b", "b": "a", "c": "a"}, ["c"]),
]


@needs_git
@pytest.mark.parametrize(("aliases", "words"), ALIAS_RUNS)
def test_aliases_run_what_git_runs(aliases, words, tmp_path):
    subprocess.run([GIT, "init", "-q", "r"], cwd=tmp_path, env=git_env(tmp_path), check=True)
    config = [w for name, value in aliases.items() for w in ("-c", f"alias.{name}={value}")]
    argv = [GIT, *config, *words]
    env = git_env(tmp_path) | {"GIT_TRACE": "1"}
    run = subprocess.run(argv, cwd=tmp_path / "r", env=env, capture_output=True, text=True)
    ran = [ln.split("trace: built-in: git ", 1)[1].split() for ln in run.stderr.splitlines()
           if "trace: built-in: git " in ln]  # fmt: skip
    parsed = parse_in({"argv": ["git", *config, *words]}, None)
    if ran:
        assert [parsed["subcommand"], *parsed["args"]] == ran[-1]
    else:
        assert run.returncode == 128 and "alias" in run.stderr, run.stderr
        # git runs nothing: the guard sees a name that is no git command, each alias expanded
        # at most once on the way
        assert parsed["subcommand"] not in git_builtins()
        assert parsed["subcommand"] in {a.lower() for a in aliases}
        added = sum(len(split_cmdline(v)) - 1 for v in aliases.values())
        assert len(parsed["args"]) <= len(words) - 1 + added


# What git runs through a plain alias (no "!") that expands to a subcommand running a script:
# the same command as when the line spells the subcommand out. (Real git runs each: the
# "git alias to a script option" rows of tests/data/guards/evasions.json.)
ALIASED_SCRIPTS = [
    "git -c alias.r='rebase -x \"rm -rf ~\"' r main",
    "git -c alias.r='rebase --exec=\"rm -rf ~\"' r main",
    "git config alias.r 'rebase -x \"rm -rf ~\"'; git r main",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.r GIT_CONFIG_VALUE_0='rebase -x \"rm -rf ~\"' git r",
    'GIT_CONFIG_PARAMETERS="\'alias.d=difftool -y -x \\"rm -rf ~\\"\'" git d',
    "git -c alias.a=b -c alias.b='difftool -y --extcmd \"rm -rf ~\"' a",
    "git -c alias.s='submodule foreach \"rm -rf ~\"' s",
    "git -c alias.s='submodule foreach --recursive' s rm -rf '~'",
    "git -c alias.b='bisect run' b rm -rf ~",
    "git -c alias.f='filter-branch -f --tree-filter \"rm -rf ~\"' f HEAD",
    # defined, not run yet: judged as if run, as a ! alias is (a later call runs it)
    "git config alias.r 'rebase -x \"rm -rf ~\"'",
    "git config --global alias.s 'submodule foreach \"rm -rf ~\"'",
    'git config alias.a \'config alias.b "rebase -x \\"rm -rf ~\\""\'',
]


@pytest.mark.parametrize("line", ALIASED_SCRIPTS)
def test_a_plain_alias_runs_the_script_its_subcommand_runs(line):
    ran = [(c.name, *(w.text for w in c.words[1:])) for c in analyse(line) if c.name != "git"]
    # (a line that defines the alias and runs it: at each)
    assert ran and set(ran) == {("rm", "-rf", "~")}, line


@pytest.mark.parametrize(
    "line",
    [
        "git config alias.lg 'log --oneline -5'",
        "git -c alias.lg='log --oneline' lg",
        "git config --unset alias.r",
        "git -c alias.r='rebase -i' r main",
    ],
)
def test_an_alias_that_runs_no_script_runs_nothing_but_git(line):
    assert {c.name for c in analyse(line)} == {"git"}


def test_a_script_word_of_the_line_keeps_its_place_through_an_alias():
    line = "git -c alias.dx='difftool -y -x' dx 'rm -rf ~;'"
    (rm,) = [c for c in analyse(line) if c.name == "rm"]
    start = line.index("rm -rf")
    assert rm.span == (start, start + len("rm -rf ~"))
    # the alias's own words have no place in the line: what they run is seen all the same
    (rm,) = [c for c in analyse("git -c alias.r='rebase -x \"rm -rf ~\"' r") if c.name == "rm"]
    assert [w.text for w in rm.words] == ["rm", "-rf", "~"]


def test_what_git_runs_in_a_container_is_read_there_through_an_alias():
    # the container's /h is the host's home: its paths are mapped once, where git runs them
    for line in (
        "docker run -v ~:/h alpine/git -C /h bisect run rm -rf /h",
        "docker run -v ~:/h alpine/git -c alias.b='bisect run' b rm -rf /h",
        "docker run -v ~:/h alpine/git -c alias.r='rebase -x \"rm -rf /h\"' r",
    ):
        ran = [[w.text for w in c.words] for c in analyse(line) if c.name == "rm"]
        assert ran == [["rm", "-rf", "~"]], line


# git's own options at the start of an alias (git.c handle_alias runs handle_options on its
# words): -c and --config-env configure the command it runs. What real git then reads, with
# the alias config --get foo.bar.
ALIAS_OPTIONS = [
    ("-c foo.bar=baz", "baz"),
    ("-c Foo.Bar=x -c foo.bar=y", "y"),
    ("--config-env=foo.bar=V", "from-env"),
    ("--config-env foo.bar=V", "from-env"),
    ("-p -c foo.bar=q", "q"),
]


@needs_git
@pytest.mark.parametrize(("options", "value"), ALIAS_OPTIONS)
def test_an_alias_s_own_options_configure_its_command_as_in_git(options, value, tmp_path):
    argv = ["git", "-c", f"alias.v={options} config --get foo.bar", "v"]
    env = git_env(tmp_path) | {"V": "from-env"}
    run = subprocess.run([GIT, *argv[1:]], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.stdout.strip() == value, run.stderr
    parsed = parse_in({"argv": argv, "env": {"V": "from-env"}}, None)
    assert (parsed["subcommand"], parsed["args"]) == ("config", ["--get", "foo.bar"])
    assert parsed["config"]["foo.bar"] == value


@pytest.mark.parametrize(
    ("line", "setting", "value"),
    [
        (
            "git -c alias.c='-c core.hooksPath=/dev/null commit' c -m x",
            "core.hookspath",
            "/dev/null",
        ),
        (
            "git config alias.c '-c core.hooksPath=/dev/null commit'; git c",
            "core.hookspath",
            "/dev/null",
        ),
        ("E=/x git -c alias.w='--config-env=core.hooksPath=E commit' w", "core.hookspath", "/x"),
        ("git -c alias.a='-c alias.b=\"commit -n\" b' a", "alias.b", "commit -n"),
    ],
)
def test_an_alias_s_own_settings_are_the_command_s(line, setting, value):
    g = last_git(line)
    assert g["subcommand"] == "commit" and g["config"][setting] == value, g


def test_git_config_takes_every_word_after_the_key_as_its_value():
    # git config stops reading options at the key (real git: `git config alias.q -n` sets "-n")
    for value in ("-n", "--global", "-c core.hooksPath=/dev/null commit", "-h"):
        g = last_git(f"git config alias.q '{value}'")
        assert not g["help"] and g["config_change"]["value"] == value, g
        assert g["config_change"]["scope"] == "local"


def test_alias_chains_and_the_line_config():
    g = last_git("git config alias.a pf && git config alias.pf 'push -f' && git a origin x")
    assert (g["subcommand"], g["alias"]) == ("push", "a")
    assert has_flag(g, "--force")


def test_alias_from_the_repository_configuration():
    g = last_git("git p origin feature", {"alias.p": ["push --force"]})
    assert g["subcommand"] == "push" and has_flag(g, "--force")
    shell = last_git("git x", {"alias.x": ["!rm -rf ~"]})
    assert (shell["subcommand"], shell["script"]) == ("x", "rm -rf ~")


# What git runs through an alias the repository's configuration defines, not the line: the
# scripts (config_runs) the pack judges as it judges the line's commands (None: the alias, if
# any, is the line's).
CONFIG_ALIAS_RUNS = [
    ({"alias.z": ["!rm -rf ~"]}, "git z", ["rm -rf ~"]),
    ({"alias.r": ['rebase -x "rm -rf ~"']}, "git r main", ["rm -rf ~"]),
    ({"alias.r": ["rebase --exec=true"]}, "git r -x 'rm -rf ~' main", ["true", "rm -rf ~"]),
    ({"alias.c": ["-c core.editor='rm -rf ~;:' commit"]}, "git c", ["rm -rf ~;:"]),
    ({"alias.p": ["push --receive-pack='rm -rf ~;:' ../x"]}, "git p", ["rm -rf ~;:"]),
    ({"alias.b": ["bisect run"]}, "git b rm -rf /", ["rm -rf /"]),
    ({"alias.s": ["submodule foreach"]}, "git s 'rm -rf ~'", ["rm -rf ~"]),
    ({"alias.a": ["b"], "alias.b": ["!rm -rf ~"]}, "git a", ["rm -rf ~"]),
    # the line's alias leads to one of the configuration's
    ({"alias.b": ["!rm -rf ~"]}, "git -c alias.a=b a", ["rm -rf ~"]),
    ({"alias.b": ['rebase -x "rm -rf ~"']}, "git -c alias.a=b a main", ["rm -rf ~"]),
    ({"alias.st": ["status -s"]}, "git st", []),
    ({"alias.z": ["!rm -rf ~"]}, "git -c alias.z='!make' z", None),  # the line's alias
    ({}, "git -c alias.z='!rm -rf ~' z", None),  # the shell model reads the line's own
    ({"alias.r": ['rebase -x "rm -rf ~"']}, "git rebase -x 'rm -rf ~' main", None),
]


@pytest.mark.parametrize(("disk", "line", "runs"), CONFIG_ALIAS_RUNS)
def test_what_an_alias_of_the_configuration_runs(disk, line, runs):
    parsed = last_git(line, disk)
    assert parsed.get("config_runs") == runs
    assert parsed.get("alias_from") == (None if runs is None else "configuration")


# Aliases of a configuration file the repository includes (a team's shared file, which the
# agent's user can write): git z runs what the file says, and the pack judges it.
SHARED_ALIASES = {
    "z": ("!rm -rf ~", "deny", "rm -rf ~ would delete ~"),
    "r": ('rebase -x \\"rm -rf ~\\"', "deny", "rm -rf ~ would delete ~"),
    "cl": ("!rm -f ~/.claude/settings.json", "deny", "Claude Code's hook settings"),
    "ship": ("!git push --force origin main", "deny", "force push"),
    "rp": ('rebase -x \\"git push --force origin main\\"', "deny", "force push"),
    "t": ("!npm test", "allow", None),
    "st": ("status -s", "allow", None),
    "rt": ('rebase -x \\"npm test\\"', "allow", None),
}


@needs_git
def test_an_alias_of_an_included_file_runs_what_the_guards_judge(tmp_path):
    home, repo = tmp_path / "home", tmp_path / "repo"
    home.mkdir()
    env = git_env(home)
    subprocess.run([GIT, "init", "-q", str(repo)], env=env, check=True)
    subprocess.run([GIT, "config", "include.path", "../shared.gitconfig"], cwd=repo, env=env)
    shared = repo / "shared.gitconfig"
    # the premise: git runs the included file's shell alias
    shared.write_text("[alias]\n\tmark = !touch marked\n")
    subprocess.run([GIT, "mark"], cwd=repo, env=env, check=True)
    assert (repo / "marked").exists()
    shared.write_text(
        "[alias]\n" + "".join(f'\t{k} = "{v}"\n' for k, (v, _, _) in SHARED_ALIASES.items())
    )
    for name, (value, _, _) in SHARED_ALIASES.items():  # as git reads the file
        read = subprocess.run(
            [GIT, "config", f"alias.{name}"], cwd=repo, env=env, text=True, capture_output=True
        )
        assert read.stdout == value.replace("\\", "") + "\n", name
    eng = Engine.from_paths([POLICIES])
    for name, (_, outcome, reason) in SHARED_ALIASES.items():
        payload = {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {
                "command": f"git {name} main" if name in ("r", "rt", "rp") else f"git {name}"
            },
            "cwd": str(repo),
        }
        decision = eng.evaluate(payload, host="claude")
        assert decision.outcome == outcome, (name, decision.reasons)
        if reason:
            assert any(reason in r for r in decision.reasons), (name, decision.reasons)


def test_the_line_overrides_the_repository_and_the_command_line_overrides_both():
    disk = {"alias.p": ["push --force"]}
    assert last_git("git config --unset alias.p && git p", disk)["subcommand"] == "p"
    assert last_git("git -c alias.p=status p", disk)["subcommand"] == "status"


def test_global_config_file_the_line_writes():
    line = "printf '[alias]\\n\\tpf = push --force\\n' > /tmp/g; GIT_CONFIG_GLOBAL=/tmp/g git pf"
    assert has_flag(last_git(line), "--force")
    line = "cat > inc <<'X'\n[alias]\n\tpf = push -f\nX\ngit -c include.path=inc pf"
    assert has_flag(last_git(line), "--force")
    line = "git config -f /tmp/c alias.pf 'push -f' && git config include.path /tmp/c && git pf"
    assert has_flag(last_git(line), "--force")


def test_config_of_another_repository_does_not_count():
    g = last_git("git -C ../other config alias.p 'push -f' && git p")
    assert g["subcommand"] == "p"


# -- options configuration implies -------------------------------------------------------------

IMPLIED = [
    ("git push", {"remote.origin.push": ["+refs/heads/*:refs/heads/*"]}, "--force"),
    ("git push origin", {"remote.origin.push": ["refs/heads/a:refs/heads/a", "+b:b"]}, "--force"),
    ("git push up", {"remote.up.mirror": ["true"]}, "--mirror"),
    ("git push", {"remote.pushdefault": ["up"], "remote.up.push": ["+a:a"]}, "--force"),
    ("git push", {"branch.x.pushremote": ["up"], "remote.up.mirror": ["yes"]}, "--mirror"),
    ("git pull", {"pull.rebase": ["false"]}, "--no-rebase"),
    ("git pull", {"pull.ff": ["false"]}, "--no-ff"),
    ("git pull", {"pull.ff": ["only"]}, "--ff-only"),
    ("git merge x", {"merge.ff": ["only"]}, "--ff-only"),
    ("git clean -d", {"clean.requireforce": ["false"]}, "--force"),
]


@pytest.mark.parametrize(("cmdline", "disk", "flag"), IMPLIED)
def test_configuration_implies_options(cmdline, disk, flag):
    g = last_git(cmdline, disk)
    assert has_flag(g, flag)
    assert any(o["name"] == flag and o.get("config") for o in g["options"])


@pytest.mark.parametrize(
    ("cmdline", "disk"),
    [
        ("git push origin main", {"remote.origin.push": ["+a:a"]}),  # refspec given
        ("git push other", {"remote.origin.push": ["+a:a"]}),  # another remote
        ("git pull --rebase", {"pull.rebase": ["false"]}),
        ("git pull --ff-only", {"pull.ff": ["false"]}),
        ("git clean -n", {"clean.requireforce": ["false"]}),
        ("git push", {"remote.origin.mirror": ["false"]}),
    ],
)
def test_the_command_line_wins_over_configuration(cmdline, disk):
    g = last_git(cmdline, disk)
    assert not any(o.get("config") for o in g["options"])


# -- programs settings run ---------------------------------------------------------------------

PROGRAMS = [
    ("core.editor", "rm -rf ~", "rm -rf ~"),
    ("core.pager", "less -R", "less -R"),
    ("core.pager", "false", None),
    ("pager.log", "rm -rf ~", "rm -rf ~"),
    ("pager.log", "true", None),
    ("core.fsmonitor", "true", None),
    ("core.fsmonitor", "./watch.sh", "./watch.sh"),
    ("diff.external", "x", "x"),
    ("diff.pdf.textconv", "pdftotext", "pdftotext"),
    ("filter.lfs.smudge", "git-lfs smudge -- %f", "git-lfs smudge -- %f"),
    ("credential.helper", "store", None),
    ("credential.helper", "!rm -rf ~", "rm -rf ~"),
    ("credential.https://x.example.helper", "!f() { :; }; f", "f() { :; }; f"),
    ("alias.x", "!sh -c 'rm -rf ~'", "sh -c 'rm -rf ~'"),
    ("alias.x", "status", None),
    ("user.name", "rm -rf ~", None),
]


@pytest.mark.parametrize(("key", "value", "script"), PROGRAMS)
def test_program_settings(key, value, script):
    assert program_script(key, value) == script


@pytest.mark.parametrize(
    "cmdline",
    [
        "git -c core.editor='rm -rf ~' commit",
        "GIT_EDITOR='rm -rf ~' git commit",
        "git -c core.sshCommand='rm -rf ~' fetch",
        "GIT_SSH_COMMAND='rm -rf ~' git fetch",
        "GIT_EXTERNAL_DIFF='rm -rf ~' git diff",
        "git -c diff.external='rm -rf ~' diff",
        "git config core.editor 'rm -rf ~'",
        "git config --global sequence.editor 'rm -rf ~'",
        "git -c alias.x='!rm -rf ~' x",
        "A='!rm -rf ~' git --config-env=alias.x=A x",
        "GIT_CONFIG_PARAMETERS=\"'core.pager'='rm -rf ~'\" git log",
        "git config alias.x '!rm -rf ~' && git x",
        "git -c credential.helper='!rm -rf ~' fetch",
    ],
)
def test_programs_are_analysed_as_scripts(cmdline):
    ran = [(c.name, [w.text for w in c.words]) for c in analyse(cmdline)]
    assert ("rm", ["rm", "-rf", "~"]) in ran


def test_ordinary_program_settings_are_ordinary_commands():
    ran = [c.name for c in analyse('git config --global core.editor "code --wait"')]
    assert ran == ["git", "code"]


# -- words the line does not show --------------------------------------------------------------


@pytest.mark.parametrize(
    ("cmdline", "unknown"),
    [
        ("git push $OPTS origin feature", ["$OPTS"]),
        ('git push origin "$BRANCH"', ["$BRANCH"]),
        ('git push origin -- "$REF"', ["$REF"]),
        ('git push origin "$(git branch --show-current)"', []),
        ('git push -u origin "$(git rev-parse --abbrev-ref HEAD)"', []),
        ("git push origin `git branch --show-current`", []),
        ('git commit -m "$MSG"', []),
        ("git commit $FLAGS -m wip", ["$FLAGS"]),
        # a word read as an option but partly unknown: -${X} may be -f, --${X} --force
        ("git push -${X} origin feature", ["-${X}"]),
        ("git push --${X} origin feature", ["--${X}"]),
        ('git push -o "$OPT" origin feature', []),
        ('git commit -m wip -- "$FILE"', []),
    ],
)
def test_unknown_words_where_git_may_read_options(cmdline, unknown):
    assert last_git(cmdline)["unknown"] == unknown


def test_only_substitutions_that_cannot_be_options_are_not_unknown():
    # the kind comes from the pack's table: without it, the current branch is a command's output
    plain = [
        c for c in commands("git push origin $(git branch --show-current)") if c["name"] == "git"
    ]
    assert parse(plain[-1])["unknown"] == ["$(git branch --show-current)"]
    assert last_git("git push origin $(git rev-parse HEAD):refs/heads/x")["unknown"] == []
    # date prints what its format says: +--force is --force
    assert last_git("git push $(date +--force) origin x")["unknown"] == ["$(date +--force)"]
    assert last_git("git push origin $(whoami)")["unknown"] == ["$(whoami)"]


def test_repository_targets():
    assert last_git('git -C "$(git rev-parse --show-toplevel)" commit')["target_known"] is True
    assert last_git('git -C "$(git rev-parse --show-toplevel)" commit')["dir"] == "."
    assert last_git('git -C "$DIR" commit')["target_known"] is False
    assert last_git('git --git-dir="$G" commit')["target_known"] is False
    assert last_git("git -C sub commit")["target_known"] is True


# -- the repository's configuration and checkout targets on disk -------------------------------


@needs_git
def test_git_config_fact_reads_the_repository(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    env = git_env(tmp_path / "home")
    subprocess.run([GIT, "init", "-q", "r"], cwd=tmp_path, env=env, check=True)
    repo = tmp_path / "r"
    (tmp_path / "inc").write_text("[alias]\n\tp = push --force\n")
    subprocess.run([GIT, "config", "include.path", str(tmp_path / "inc")], cwd=repo, env=env)
    subprocess.run([GIT, "config", "--add", "remote.o.push", "+a:a"], cwd=repo, env=env)
    (repo / "sub").mkdir()
    got = config(str(repo / "sub"))
    assert got["alias.p"] == ["push --force"]
    assert got["remote.o.push"] == ["+a:a"]
    assert config("relative/dir") == {}
    assert config(str(tmp_path / "home")) == {}
    assert REGISTRY["git.config"].reads_host


@needs_git
def test_checkout_target_is_what_git_does(tmp_path):
    env = git_env(tmp_path) | {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b",
                               "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}  # fmt: skip

    def git(*args, cwd=None):
        return subprocess.run([GIT, *args], cwd=cwd or repo, env=env, capture_output=True)

    subprocess.run([GIT, "init", "-q", "-b", "main", "r"], cwd=tmp_path, env=env, check=True)
    repo = tmp_path / "r"
    (repo / "src").mkdir()
    (repo / "src" / "a.py").write_text("1\n")
    git("add", ".")
    git("commit", "-qm", "i")
    git("branch", "feat")
    git("tag", "v1")
    git("update-ref", "refs/remotes/origin/rb", "HEAD")
    git("pack-refs", "--all")
    git("branch", "loose")
    for name, kind in [
        ("src", "path"),
        ("src/a.py", "path"),
        ("feat", "revision"),
        ("loose", "revision"),
        ("v1", "revision"),
        ("rb", "revision"),
        ("HEAD~0", "revision"),
        ("nothing", None),
    ]:
        assert checkout_target(str(repo), name) == kind, name
        (repo / "src" / "a.py").write_text("changed\n")
        git("checkout", name)
        restored = (repo / "src" / "a.py").read_text() == "1\n"
        git("checkout", "-q", "-f", "main")
        assert restored is (kind == "path"), name


# -- through the default pack ------------------------------------------------------------------


def test_server_facts_answer_git_config():
    eng = Engine.from_paths([POLICIES])
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git push"},
        "cwd": "/srv/none/proj",
    }
    assert eng.evaluate(payload, host="claude", facts={}).outcome == "allow"
    read = {"values": {"remote.origin.push": ["+a:a"]}, "files": [], "unknown": []}
    facts = {"git.config_read": {"/srv/none/proj": read}}
    decision = eng.evaluate(payload, host="claude", facts=facts)
    assert decision.outcome == "deny"
    assert any("remote.origin.push" in r for r in decision.reasons)
    gave_up = {"values": {}, "files": [], "unknown": [{"path": "/h/.gitconfig", "why": "x"}]}
    facts = {"git.config_read": {"/srv/none/proj": gave_up}}
    decision = eng.evaluate(payload, host="claude", facts=facts)
    assert decision.outcome == "ask"
    assert any("/h/.gitconfig (x)" in r for r in decision.reasons)


def test_a_commits_branch_is_git_branchs_answer_whatever_the_configuration_read_says():
    """main_branch asks git.branch for the branch a commit runs on, even where git.config_read's
    answer carries one: a policy test's `with git.branch as …` (and a server's git.branch fact)
    decides. git.parse_in still passes a configuration answer's branch on in the parse."""
    eng = Engine.from_paths([POLICIES])
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git commit -m wip"},
        "cwd": "/srv/none/proj",
    }

    def outcome(facts: dict) -> str:
        return eng.evaluate(payload, host="claude", facts=facts).outcome

    assert outcome({}) == "allow"
    assert outcome({"git.branch": {"/srv/none/proj": "main"}}) == "deny"
    read = {"values": {}, "files": [], "unknown": []}
    for read_branch in ("main", "feature", None):
        for branch, want in (("main", "deny"), ("feature", "allow")):
            facts = {
                "git.config_read": {"/srv/none/proj": {**read, "branch": read_branch}},
                "git.branch": {"/srv/none/proj": branch},
            }
            assert outcome(facts) == want, (read_branch, branch)
    parsed = parse_in(gits("git commit -m x")[0], {**read, "branch": "dev"})
    assert parsed["branch"] == "dev"
    assert "branch" not in parse_in(gits("git commit -m x")[0], read)
    assert "branch" not in parse_in(gits("git commit -m x")[0], {"user.name": ["n"]})


def test_a_commit_on_disk_on_main_is_denied(tmp_path):
    eng = Engine.from_paths([POLICIES])
    (tmp_path / "proj" / ".git" / "refs" / "heads").mkdir(parents=True)
    (tmp_path / "proj" / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (tmp_path / "proj" / "src").mkdir()
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git commit -m wip"},
        "cwd": str(tmp_path / "proj" / "src"),
    }
    decision = eng.evaluate(payload, host="claude")
    assert decision.outcome == "deny"
    assert any('protected branch "main"' in r for r in decision.reasons)


# Configurations that change what a command means (aliases of every kind, implied options,
# hooks, files not read, a dormant worktree file, scopes a line's environment drops, a branch).
CONFIGURATIONS = [
    None,
    {},
    {"alias.p": ["push --force"], "alias.ci": ["commit --no-verify"], "alias.x": ["!rm -rf ~"]},
    {"alias.push": ["push -f"], "alias.commit": ["status"], "alias.st": ["st"]},
    {"remote.origin.push": ["+refs/heads/*:refs/heads/*"], "remote.up.mirror": ["true"]},
    {"remote.pushdefault": ["up"], "remote.up.push": ["+a:a"], "pull.rebase": ["false"]},
    {"pull.ff": ["only"], "merge.ff": ["only"], "clean.requireforce": ["false"]},
    {"core.hookspath": ["/dev/null"], "extensions.worktreeconfig": ["true"]},
    {
        "values": {"alias.ci": ["commit -n"], "remote.origin.push": ["+main"]},
        "files": ["/h/.gitconfig"],
        "origins": {
            "alias.ci": [["global", "/h/.gitconfig"]],
            "remote.origin.push": [["local", "/r/.git/config"]],
        },
        "unknown": [{"path": "/h/.config/git/config", "why": "a FIFO"}],
        "dormant": "/r/.git/config.worktree",
        "branch": "main",
    },
    {"values": {}, "files": [], "unknown": [], "branch": None},
]


def test_configure_is_parse_in_over_the_corpora():
    """git.configure, from a command's git.parse, answers what git.parse_in does: every git
    command of the guard corpora's lines (with the line's own git config and environment) in
    each configuration above."""
    checked = 0
    for cmdline in corpus_git_lines():
        try:
            found = gits(cmdline)
        except BuiltinError:
            continue  # a line past the shell model's bounds: no git command to parse
        for c in found:
            parsed = parse(c)
            for repo_config in CONFIGURATIONS:
                want = parse_in(c, repo_config)
                assert configure(parsed, c, repo_config) == want, (cmdline, repo_config)
                checked += 1
    assert checked > 5000


def test_configure_wants_a_parse():
    c = gits("git push")[0]
    for bad in (None, "push", {"subcommand": "push"}):
        with pytest.raises(BuiltinError, match="operand 1 must be what git.parse answers"):
            configure(bad, c, {})


def test_a_help_option_that_an_alias_makes_a_value_is_no_help(tmp_path):
    """alias.ci = commit --no-verify, then git ci -m -h: -h is the message (git commits,
    skipping the hooks), not help as it would be for a name without configuration."""
    repo = tmp_path / "r"
    subprocess.run([GIT or "git", "init", "-q", str(repo)], check=True)
    (repo / ".git" / "config").write_text("[alias]\n\tci = commit --no-verify\n")
    eng = Engine.from_paths([POLICIES])

    def outcome(command: str) -> str:
        payload = {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "cwd": str(repo),
        }
        return eng.evaluate(payload, host="claude").outcome

    assert outcome("git ci -m -h") == "deny"
    assert outcome("git ci -m wip") == "deny"
    assert outcome("git commit -h") == "allow"  # help: nothing runs
    assert outcome("git status -h") == "allow"


def test_parse_reads_the_line_config_of_the_command():
    [_, push] = gits("git config remote.origin.push +a:a && git push")
    assert push["git_config"] == [["set", "remote.origin.push", "+a:a"]]
    assert has_flag(parse(push), "--force")


@pytest.mark.parametrize(
    "cmdline",
    [
        "git push --receive-pack='rm -rf ~' ../r.git main",
        "git push --exec='rm -rf ~' ../r.git main",
        "git clone -u 'rm -rf ~' ../r.git x",
        "git clone --upload-pack='rm -rf ~' ../r.git x",
        "git fetch --upload-pack 'rm -rf ~' ../r.git",
        "git ls-remote --upload-pack='rm -rf ~' ../r.git",
        "git -c protocol.ext.allow=always ls-remote 'ext::sh -c rm% -rf% ~'",
        "git -c protocol.ext.allow=always clone 'ext::rm -rf ~' x",
    ],
)
def test_transport_programs_are_scripts(cmdline):
    ran = [[w.text for w in c.words] for c in analyse(cmdline)]
    assert ["rm", "-rf", "~"] in ran


def test_ext_command_escapes():
    from hookgate.shell.git.programs import ext_command

    assert ext_command("sh -c touch% a%%b") == "'sh' '-c' 'touch a%b'"
    assert ext_command("ssh host %S 'x'") == "'ssh' 'host' 'git-upload-pack' ''\\''x'\\'''"


@pytest.mark.parametrize(
    ("cmdline", "git_dir"),
    [
        ("export GIT_DIR=/r/.git; git commit", "/r/.git"),
        ("declare -x GIT_DIR=/r/.git; git commit", "/r/.git"),
        ("set -a; GIT_DIR=/r/.git; git commit", "/r/.git"),
        ("GIT_DIR=/r/.git; git commit", None),  # not exported: git never sees it
        ("cd sub && GIT_DIR=../o/.git git commit", "o/.git"),
        ("export GIT_DIR=/r/.git; GIT_DIR=/s/.git git commit", "/s/.git"),
    ],
)
def test_the_git_dir_git_really_gets(cmdline, git_dir):
    g = last_git(cmdline)
    assert g["git_dir"] == git_dir
    assert g["place"] == (git_dir if git_dir is not None else g["dir"])


def test_an_unknown_config_setting_is_an_unknown_word():
    assert last_git('git -c "$CFG" push origin x')["unknown"] == ["$CFG"]
    assert last_git("git -c user.name=x push origin x")["unknown"] == []


def decide_in_repository(cmd: str, repo_config: dict):
    """The pack's decision on ``cmd`` run in /srv/p, whose configuration is ``repo_config``."""
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": cmd},
        "cwd": "/srv/p",
    }
    facts = {"git.config": {"/srv/p": repo_config}}
    return Engine.from_paths([POLICIES]).evaluate(payload, host="claude", facts=facts)


def test_shell_aliases_of_the_repository_are_judged_by_what_they_run():
    aliases = {
        "alias.ship": ["!git push --force origin HEAD"],
        "alias.wipe": ["!git reset --hard"],
        "alias.st": ["!git status --short"],
    }
    ship = decide_in_repository("git ship", aliases)
    assert ship.outcome == "deny" and ship.updated_input is None  # nothing to edit in place
    assert decide_in_repository("git wipe", aliases).outcome == "deny"
    assert decide_in_repository("git st", aliases).outcome == "allow"
    assert decide_in_repository("git -c alias.ship='!git status' ship", aliases).outcome == "allow"


def test_an_alias_hiding_a_git_command_does_not_change_the_decision():
    hiding = {"alias.push": ["push --force"], "alias.reset": ["!rm -rf ~"]}
    assert decide_in_repository("git push origin feat", hiding).outcome == "allow"
    assert decide_in_repository("git reset --soft HEAD~1", hiding).outcome == "allow"
    # a name that is no builtin is looked up: git PUSH runs alias.push (config keys ignore case)
    assert decide_in_repository("git PUSH origin feat", hiding).outcome == "deny"
    looping = {"alias.p": ["p --force"], "alias.a": ["b -f"], "alias.b": ["a"]}
    assert decide_in_repository("git p origin feat", looping).outcome == "allow"


@pytest.mark.parametrize(
    ("cmdline", "sub"),
    [
        ("git config alias.p 'push -f' && cd src && git p", "push"),
        ("cd src && git config alias.p 'push -f' && cd .. && git p", "push"),
        ("git config --file .git/config alias.p 'push -f' && git p", "push"),
        ("git -C ../other config alias.p 'push -f' && git p", "p"),
        ("git config alias.p 'push -f' && cd /elsewhere && git p", "p"),
        ("git config --global alias.p 'push -f' && cd /elsewhere && git p", "push"),
    ],
)
def test_the_line_config_of_the_same_repository(cmdline, sub):
    assert last_git(cmdline)["subcommand"] == sub


def test_a_branch_switched_applies_in_subdirectories_not_other_repositories():
    assert gits("git switch -c x && cd src && git commit")[-1]["branch"] == "x"
    assert gits("git -C ../other switch -c x && git commit")[-1]["branch"] is None


@pytest.mark.parametrize(
    ("cmdline", "branch"),
    [
        ("git worktree add -f ../wt main && cd ../wt && git commit", "main"),
        ("git worktree add ../wt -b wt && git -C ../wt commit", "wt"),
        ("git worktree add ../hotfix && cd ../hotfix && git commit", "hotfix"),
        ("git worktree add --detach ../d && cd ../d && git commit", ""),
        ("git worktree add -f ../wt main && git commit", None),  # here, not in the worktree
    ],
)
def test_the_branch_of_a_worktree_the_line_adds(cmdline, branch):
    assert gits(cmdline)[-1]["branch"] == branch


def test_an_alias_definition_gives_what_it_runs():
    change = last_git("git config --global alias.pf 'push --force origin'")["config_change"]
    assert change["alias_argv"] == ["git", "push", "--force", "origin"]
    assert "alias_argv" not in last_git("git config alias.x '!rm -rf ~'")["config_change"]
    assert "alias_argv" not in last_git("git config --unset alias.pf")["config_change"]
