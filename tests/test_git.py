"""git.* builtins: git command lines parsed as git parses them; the branch read from disk."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from hookgate.builtins import BuiltinError, full_registry
from hookgate.builtins.git import branch, force_removal, parse, subcommand, without_force
from hookgate.builtins.shell import commands, commands_with, has_flag
from hookgate.shell.analysis import analyse

REGISTRY = full_registry()


def git_of(cmdline: str) -> dict:
    [c] = [c for c in commands(cmdline) if c["name"] == "git"]
    return parse(c)


@pytest.mark.parametrize(
    ("cmdline", "sub"),
    [
        ("git push", "push"),
        ("git -C repo push", "push"),
        ("git -Crepo push", "push"),
        ("git -c user.name=x push", "push"),
        ("git -cuser.name=x push", "push"),
        ("git --git-dir=.git --work-tree=. push", "push"),
        ("git --git-dir .git --work-tree . push", "push"),
        ("git --no-pager -p --bare --namespace ns push", "push"),
        ("git --config-env=core.hooksPath=HP commit", "commit"),
        ("git --exec-path=/x push", "push"),
        ("git PUSH", "push"),
        ("git -c alias.ci=commit ci", "commit"),
        ("git -c alias.ci='commit -n' ci", "commit"),
        ("git", None),
        ("git -C x", None),
    ],
)
def test_subcommand_after_global_options(cmdline, sub):
    [c] = [c for c in commands(cmdline) if c["name"] == "git"]
    assert subcommand(c) == sub
    assert git_of(cmdline)["subcommand"] == sub


def test_subcommand_of_other_commands_is_null():
    [c] = commands("hg push")
    assert subcommand(c) is None


def test_globals_and_dirs():
    g = git_of("cd sub && git -C a -C ../b -c Core.HooksPath=/dev/null --git-dir=.g commit -m x")
    assert g["dir"] == "sub/b"
    assert g["git_dir"] == "sub/b/.g"
    assert g["place"] == "sub/b/.g"  # where git finds the repository: --git-dir first
    assert git_of("cd sub && git -C a commit")["place"] == "sub/a"
    assert git_of("git commit")["place"] == "."
    assert g["config"] == {"core.hookspath": "/dev/null"}
    assert [x["name"] for x in g["globals"]] == ["-C", "-C", "-c", "--git-dir"]
    assert g["operands"] == []
    assert g["options"] == [{"name": "--message", "value": "x"}]


def test_config_from_environment():
    g = git_of("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=x git commit")
    assert g["config"] == {"core.hookspath": "x"}
    g = git_of("GIT_DIR=/r/.git git commit")
    assert g["git_dir"] == "/r/.git"


def test_config_keys_keep_subsection_case():
    g = git_of("git -c Remote.Origin.URL=x fetch")
    assert g["config"] == {"remote.Origin.url": "x"}


# (command line, flag, whether git would see that option)
FLAGS = [
    ("git commit -n", "--no-verify", True),
    ("git commit -n", "-n", True),
    ("git commit -nm x", "--no-verify", True),
    ("git commit -am x -n", "--no-verify", True),
    ("git commit --no-verify", "-n", True),
    ("git commit --no-verif", "--no-verify", True),
    ("git commit --no-ver", "--no-verify", True),
    ("git commit -m -n", "--no-verify", False),
    ("git commit -m x -- -n", "--no-verify", False),
    ("git commit -mn", "--no-verify", False),
    ("git commit -F -n", "--no-verify", False),
    ("git commit \u2010\u2010no-verify", "--no-verify", True),
    ("git push -n", "--no-verify", False),
    ("git push -n", "--dry-run", True),
    ("git push --no-verify", "--no-verify", True),
    ("git push -f", "--force", True),
    ("git push -fu", "--force", True),
    ("git push -uf", "-f", True),
    ("git push -o -f", "--force", False),
    ("git push --force-with-lease=x", "--force-with-lease", True),
    ("git push --force-with-lease=x", "--force", False),
    ("git merge --no-verify-signatures", "--no-verify", False),
    ("git merge --no-verify", "--no-verify", True),
    ("git merge -n", "--no-verify", False),
    ("git log -n 5", "--no-verify", False),
    ("git am -n x.patch", "--no-verify", True),
    ("git clean -fn", "--dry-run", True),
    ("git switch -f main", "--force", True),
    ("git restore -S a", "--staged", True),
    ("git reset --hard", "--hard", True),
]


@pytest.mark.parametrize(("cmdline", "flag", "expected"), FLAGS)
def test_has_flag_on_git_parse(cmdline, flag, expected):
    assert has_flag(git_of(cmdline), flag) is expected


@pytest.mark.parametrize(
    ("cmdline", "helps"),
    [
        ("git help commit", True),
        ("git commit --help", True),
        ("git commit -h", True),
        ("git --help", True),
        ("git branch -h", False),
        ("git commit -m help", False),
    ],
)
def test_help(cmdline, helps):
    assert git_of(cmdline)["help"] is helps


def test_parse_rejects_non_commands():
    with pytest.raises(BuiltinError):
        parse("git push")
    with pytest.raises(BuiltinError):
        parse({"argv": []})


# (command line, the normal push it must become)
WITHOUT_FORCE = [
    ("git push --force origin main", "git push origin main"),
    ("git push -f origin main", "git push origin main"),
    ("git push --force-with-lease origin main", "git push origin main"),
    ("git push --force-with-lease=main:abc origin main", "git push origin main"),
    ("git push --force-if-includes origin main", "git push origin main"),
    ("git push -fu origin main", "git push -u origin main"),
    ("git push -fo ci.skip origin", "git push -o ci.skip origin"),
    ("git push -fofoo origin", "git push -ofoo origin"),
    ("git push origin +main", "git push origin main"),
    ("git push origin +main:main +dev", "git push origin main:main dev"),
    ("git push +origin", "git push +origin"),
    ("git -C r push -f && git -C s push --force", "git -C r push && git -C s push"),
    ("rm -f a; git push -f", "rm -f a; git push"),
    ("git fetch -f origin", "git fetch -f origin"),
    ("git push -o -f origin", "git push -o -f origin"),
    ("git -c alias.p=push p -f", "git -c alias.p=push p -f"),
    # an alias of push that expands into itself adds its words each time (once an IndexError)
    ("git -c alias.push='push -f' push origin", "git -c alias.push='push -f' push origin"),
    ("git -c core.x=y --no-pager push -f", "git -c core.x=y --no-pager push"),
    ("git push 'origin' -f  # note", "git push 'origin'  # note"),
]


@pytest.mark.parametrize(("cmdline", "expected"), WITHOUT_FORCE)
def test_without_force(cmdline, expected):
    assert without_force(cmdline) == expected


@pytest.mark.parametrize(
    "cmdline",
    [cmdline for cmdline, _ in WITHOUT_FORCE]
    + [
        "git -C a -c x.y=z --git-dir=b --no-pager commit -m x",
        "git -c alias.ship='push -f' ship origin",
        "git -c alias.a=b -c alias.b='commit -n' a",
        "git --exec-path=/x -- push",
        "git -h",
        "git",
    ],
)
def test_subcommand_words_are_the_parses(cmdline):
    """What git.without_force reads of each command (argv.subcommand_words) is what the parse
    has: the subcommand and its words."""
    from hookgate.shell.git.argv import parse_argv, subcommand_words

    for c in analyse(cmdline):
        if c.name == "git":
            argv = [w.text for w in c.words]
            parsed = parse_argv(argv, {}, None)
            assert subcommand_words(argv) == (parsed["subcommand"], parsed["args"])


def corpus_git_lines() -> list[str]:
    import json
    from pathlib import Path

    guards = Path(__file__).parent / "data" / "guards"
    lines = []
    for name in ("corpus", "evasions", "everyday_agent", "everyday_tldr"):
        data = json.loads((guards / f"{name}.json").read_text())
        for row in data.get("cases") or data.get("rows"):
            for key in ("command", "rewritten"):
                if "git" in (row.get(key) or ""):
                    lines.append(row[key])
    return lines


def test_subcommand_words_are_the_parses_over_the_corpora():
    """Every git command the shell model meets in the guard corpora (of each line and of the
    scripts and code it runs): the subcommand and words git.without_force reads
    (argv.subcommand_words) are the parse's."""
    from hookgate.shell.git.argv import parse_argv, subcommand_words

    seen = set()
    for cmdline in corpus_git_lines():
        for c in analyse(cmdline):  # with the commands it runs (scripts, one-liners, …)
            if c.name == "git":
                argv = [w.text for w in c.words]
                parsed = parse_argv(argv, {}, None)
                assert subcommand_words(argv) == (parsed["subcommand"], parsed["args"]), argv
                seen.add(parsed["subcommand"])
    # the corpora hold git's everyday and dangerous subcommands, aliases and scripts
    assert {"push", "commit", "config", "rebase", "submodule", "bisect"} <= seen


# -- git.force_removal: what the rewrite could not remove, without reading the line again -----

# Lines where the rewrite leaves a force behind, or removes every one: an alias, a spelling it
# cannot edit in place, a +refspec, configuration of the line (-c, git config, GIT_CONFIG_*),
# --force-with-lease variants, a second push on the line.
FORCE_LEFT = [
    ("git push --force origin main", False),
    ("git push -fu origin main", False),
    ('git push -f"u" origin main', True),
    ("git push --for'ce' origin main", False),
    ("git push origin +main:main +dev:dev", False),
    ("git push -f origin '+main'", True),
    ("git push --force-with-lease=main:abc origin main", False),
    ("git push --force-with-lease origin +main --force-if-includes", False),
    ("git push --force-with-lease=main origin main --force", False),
    ("git -c alias.p='push -f' p origin main", True),
    ("git push -f origin main; git -c alias.p='push -f' p", True),
    ("git config alias.p 'push --force'; git p origin main", True),
    ("git -c remote.origin.push=+refs/heads/main push -f origin", True),
    ("git config remote.origin.push +main; git push -f origin", True),
    ("git -c push.default=current push --force origin", False),
    ("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0='push -f' git p", True),
    ("git push -f origin main && git push origin +dev", False),
    ("git push -f origin main && git send-pack -f origin main", False),
    ('bash -c "git push -f origin main && git push --force origin dev"', False),
    ("f() { git push -f origin main; }; f", False),
    ("git PUSH -f origin main", False),
    ("git push -f origin main --help", False),
    ("git push -f origin +$(git branch --show-current)", None),
    ("X=-f; git push $X origin main", None),
    ("echo main | xargs git push -f origin", None),
]


def reread_pushes(command: str, context: dict) -> list[dict]:
    """The pushes of ``command`` as a policy found them by analysing it again."""
    found = commands_with(command, {**context, "files": "unread"})
    parsed = (parse(c) for c in found if c["name"] == "git")
    return [g for g in parsed if g["subcommand"] == "push"]


def still_forces(pushes: list[dict]) -> bool:
    """force_push.rego's forced(g) over the pushes that run."""
    force = {"--force", "--force-with-lease", "--force-if-includes"}
    return any(
        not g["help"]
        and (
            any(o["name"] in force for o in g["options"])
            or any(i > 0 and ref.startswith("+") for i, ref in enumerate(g["operands"]))
        )
        for g in pushes
    )


def pack_context() -> dict:
    from hookgate.sources import default_pack_sources

    _, data = default_pack_sources()
    return {"substitutions": data["hookgate"]["config"]["shell"]["substitutions"], "cwd": "/tmp"}


@pytest.mark.parametrize(("cmdline", "left"), FORCE_LEFT)
def test_force_removal_reports_the_force_left(cmdline, left):
    context = pack_context()
    removal = force_removal(cmdline, context)
    assert removal["command"] == without_force(cmdline)
    if left is None:  # words the line does not show as written: the policy reads it again
        assert removal["pushes"] is None
        return
    assert removal["pushes"] == reread_pushes(removal["command"], context)
    assert still_forces(removal["pushes"]) is left


def test_force_removal_equals_reading_the_rewrite_again_over_the_corpora():
    """Over every git line of the guard corpora: where git.force_removal answers the pushes,
    they are what git.parse answers for the rewritten line analysed again, parse for parse."""
    context = pack_context()
    answered = 0
    for cmdline in corpus_git_lines():
        removal = force_removal(cmdline, context)
        if removal["pushes"] is not None:
            answered += 1
            assert removal["pushes"] == reread_pushes(removal["command"], context), cmdline
    assert answered > 900  # most lines are written out word for word


SHARED_OR_NOT = [
    "git push --force origin main # 7",
    "cd sub && git push -f origin +main",
    "docker run -v .:/w -w /w alpine/git push -f origin main",
    "docker run -v .:/w alpine git -C /w/sub push -f origin main",
    "sudo git push -f origin main",
    "bash deploy.sh && git push -f",
    "echo 'git push -f origin main' > x.sh && bash x.sh",
    "git push -f origin main < refs.txt",
    "git push -f origin HEAD:refs/heads/x?",
]


def test_the_rewrite_edits_the_line_as_written_over_the_corpora():
    """git.force_removal edits the words of the line as written (``analyse(text)``); where it
    takes them from the analysis the pack made in its context, they are the same, command for
    command and word for word, over every git line of the corpora and lines that read the
    context (a container's mounts, a file the line runs, a pattern)."""
    from hookgate.builtins.git import _as_written

    def words(commands) -> list:
        return [
            (c.name, c.span, c.via, [(w.text, w.span, w.kind) for w in c.words]) for c in commands
        ]

    shared = 0
    for context in (pack_context(), {**pack_context(), "cwd": os.path.dirname(__file__)}):
        for cmdline in corpus_git_lines() + SHARED_OR_NOT:
            found = _as_written(cmdline, context)
            assert words(found) == words(analyse(cmdline)), cmdline
            shared += found is not analyse(cmdline)
    assert shared > 1000  # most lines read no context: one analysis of them serves both


@pytest.mark.parametrize(("cmdline", "context"), [(None, {}), ("git push -f", None)])
def test_force_removal_rejects_bad_operands(cmdline, context):
    with pytest.raises(BuiltinError, match="git.force_removal: operand"):
        force_removal(cmdline, context)


# -- git.branch on repositories made of plain files ----------------------------------------------


def make_repo(path, head="ref: refs/heads/main\n"):
    (path / ".git" / "refs" / "heads").mkdir(parents=True)
    (path / ".git" / "HEAD").write_text(head)
    return path


def test_branch_of_repository_and_subdirectory(tmp_path):
    repo = make_repo(tmp_path / "r")
    (repo / "a" / "b").mkdir(parents=True)
    assert branch(str(repo)) == "main"
    assert branch(str(repo / "a" / "b")) == "main"
    assert branch(str(repo / "a" / "b" / "not-there")) == "main"


def test_branch_with_slashes(tmp_path):
    repo = make_repo(tmp_path / "r", "ref: refs/heads/release/1.2\n")
    assert branch(str(repo)) == "release/1.2"


def test_detached_head_is_null(tmp_path):
    repo = make_repo(tmp_path / "r", "3f2a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c\n")
    assert branch(str(repo)) is None


def test_no_repository_is_null(tmp_path):
    assert branch(str(tmp_path)) is None


def test_relative_path_is_null_never_the_process_cwd(tmp_path, monkeypatch):
    make_repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert branch(".") is None
    assert branch("") is None


def test_worktree_git_file(tmp_path):
    main = make_repo(tmp_path / "main")
    wt_git = main / ".git" / "worktrees" / "wt"
    wt_git.mkdir(parents=True)
    (wt_git / "HEAD").write_text("ref: refs/heads/feature\n")
    (wt_git / "commondir").write_text("../..\n")
    wt = tmp_path / "wt"
    wt.mkdir()
    (wt / ".git").write_text(f"gitdir: {wt_git}\n")
    assert branch(str(wt)) == "feature"
    assert branch(str(wt_git)) == "feature"  # --git-dir naming the worktree's git directory


def test_submodule_relative_gitdir(tmp_path):
    sup = make_repo(tmp_path / "sup")
    mod_git = sup / ".git" / "modules" / "lib"
    mod_git.mkdir(parents=True)
    (mod_git / "HEAD").write_text("ref: refs/heads/vendor\n")
    lib = sup / "lib"
    lib.mkdir()
    (lib / ".git").write_text("gitdir: ../.git/modules/lib\n")
    assert branch(str(lib)) == "vendor"
    assert branch(str(sup)) == "main"


def test_bare_repository_and_git_dir(tmp_path):
    repo = make_repo(tmp_path / "r", "ref: refs/heads/trunk\n")
    assert branch(str(repo / ".git")) == "trunk"


def test_symlinked_git_is_not_followed(tmp_path):
    real = make_repo(tmp_path / "real")
    outer = make_repo(tmp_path / "outer", "ref: refs/heads/outer\n")
    inner = outer / "inner"
    inner.mkdir()
    os.symlink(real / ".git", inner / ".git")
    assert branch(str(inner)) is None


def test_symlinked_head_is_not_read(tmp_path):
    repo = tmp_path / "r"
    (repo / ".git" / "refs").mkdir(parents=True)
    target = tmp_path / "elsewhere"
    target.write_text("ref: refs/heads/main\n")
    os.symlink(target, repo / ".git" / "HEAD")
    assert branch(str(repo)) is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_head_is_not_read(tmp_path):
    repo = tmp_path / "r"
    (repo / ".git" / "refs").mkdir(parents=True)
    os.mkfifo(repo / ".git" / "HEAD")
    assert branch(str(repo)) is None


def test_upward_search_is_bounded(tmp_path):
    make_repo(tmp_path)
    deep = tmp_path.joinpath(*["d"] * 70)
    assert branch(str(deep)) is None
    assert branch(str(tmp_path.joinpath(*["d"] * 10))) == "main"


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_branch_of_real_git_repositories(tmp_path):
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}

    def git(*args, cwd):
        subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)

    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q", "-b", "trunk", cwd=repo)
    assert branch(str(repo)) == "trunk"
    git(
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
        cwd=repo,
    )
    git("worktree", "add", "-q", "-b", "feature", str(tmp_path / "wt"), cwd=repo)
    assert branch(str(tmp_path / "wt")) == "feature"
    git("checkout", "-q", "--detach", cwd=repo)
    assert branch(str(repo)) is None


def test_branch_rejects_non_strings():
    with pytest.raises(BuiltinError):
        branch(None)


def test_registered_with_docs():
    for name, arity, host in [
        ("git.parse", 1, False),
        ("git.subcommand", 1, False),
        ("git.branch", 1, True),
        ("git.without_force", 1, False),
        ("git.force_removal", 2, False),
        ("git.parse_in", 2, False),
        ("git.configure", 3, False),
    ]:
        b = REGISTRY[name]
        assert b.family == "git" and b.arity == arity and b.reads_host is host
        assert len(b.doc) > 80


@pytest.mark.parametrize("directory", ["/", "//", "/tmp", "//srv/x", ".", "a/b", "/a/"])
def test_the_walk_up_names_each_directory_s_git_files_as_os_path_join(directory):
    from hookgate.shell.git.repo import _child

    for name in (".git", "HEAD", "refs", "commondir"):
        assert _child(directory, name) == os.path.join(directory, name)


def test_a_repository_is_found_from_below(tmp_path):
    from hookgate.shell.git.repo import find_git_dir

    (tmp_path / "r" / ".git").mkdir(parents=True)
    (tmp_path / "r" / "a" / "b").mkdir(parents=True)
    assert find_git_dir(str(tmp_path / "r" / "a" / "b")) == str(tmp_path / "r" / ".git")
    assert find_git_dir(str(tmp_path / "r" / "a" / "b") + "/") == str(tmp_path / "r" / ".git")


# -- one search for a repository per evaluation ---------------------------------------------------


def commit_on(engine, cwd: str):
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git commit -m wip"},
        "cwd": cwd,
    }
    return engine.evaluate(payload, host="claude")


def test_a_commit_searches_for_its_repository_once_per_decision(tmp_path, monkeypatch, engine):
    from hookgate.shell.git import config, repo

    project = make_repo(tmp_path / "r")
    searches = []
    real = repo.find_git_dir

    def counted(start, refused=None):
        searches.append(start)
        return real(start, refused)

    monkeypatch.setattr(repo, "find_git_dir", counted)
    monkeypatch.setattr(config, "find_git_dir", counted)
    assert commit_on(engine, str(project)).outcome == "deny"  # main is protected
    assert searches == [str(project)]  # git.config_read's search answers git.branch too
    # never across decisions: the branch is read again from the disk the next time
    (project / ".git" / "HEAD").write_text("ref: refs/heads/feature\n")
    assert commit_on(engine, str(project)).outcome == "allow"
    assert len(searches) == 2


def test_the_branch_config_read_found_is_kept_only_in_its_evaluation(tmp_path):
    from hookgate.builtins.git import config_read
    from hookgate.builtins.registry import EVALUATION

    project = make_repo(tmp_path / "r")
    assert config_read(str(project))["branch"] == "main"
    (project / ".git" / "HEAD").write_text("ref: refs/heads/feature\n")
    assert branch(str(project)) == "feature"  # outside an evaluation nothing is kept
    scope = EVALUATION.set({})
    try:
        assert config_read(str(project))["branch"] == "feature"
        (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        assert branch(str(project)) == "feature"  # what this evaluation's search found
        assert branch(str(project / "sub")) == "main"  # another directory: searched for
    finally:
        EVALUATION.reset(scope)
    assert branch(str(project)) == "main"


def test_a_search_that_gave_up_is_not_git_branch_s_answer(tmp_path):
    """git.branch searches on past a .git that is no file or directory (git.config_read gives up
    there and has no branch): the two searches differ, so nothing is kept."""
    from hookgate.builtins.git import config_read
    from hookgate.builtins.registry import EVALUATION

    if not hasattr(os, "mkfifo"):
        pytest.skip("needs FIFOs")
    outer = make_repo(tmp_path / "outer", "ref: refs/heads/outer\n")
    inner = outer / "inner"
    inner.mkdir()
    os.mkfifo(inner / ".git")
    scope = EVALUATION.set({})
    try:
        assert "branch" not in config_read(str(inner))
        assert branch(str(inner)) == "outer"
    finally:
        EVALUATION.reset(scope)


def test_a_git_command_is_parsed_once_per_decision(monkeypatch, tmp_path):
    """The shell model parses each git command of a line as it reads it, and the guards'
    git.parse reads it again: without the repository's configuration the second is the first,
    found by what it is made from (a new commit message is parsed once, not twice)."""
    from hookgate.engine import Engine
    from hookgate.shell.git import argv
    from hookgate.sources import default_pack_path

    engine = Engine.from_paths([default_pack_path()])
    parsed = []
    real = argv._parse_argv
    monkeypatch.setattr(argv, "_parse_argv", lambda *a: parsed.append(a[0]) or real(*a))
    for n, (line, sub) in enumerate(
        (("git commit -m 'first {}'", "commit"), ("git push origin feature-{}", "push"))
    ):
        decision = engine.evaluate(
            {
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": line.format(n)},
                "cwd": str(tmp_path),  # no repository: no configuration to read it with
            }
        )
        assert decision.outcome == "allow"
        assert [a[:2] for a in parsed] == [["git", sub]], parsed
        parsed.clear()


def test_only_an_alias_of_the_configuration_reads_what_it_runs(tmp_path):
    """lib.config_commands (what git runs through an alias of the repository's configuration)
    is computed only for a git command such an alias expands: every other call, git or not,
    skips it and every rule that reads lib.commands only for it (relevance's facts)."""
    from hookgate.engine import Engine
    from hookgate.sources import default_pack_path

    engine = Engine.from_paths([default_pack_path()])
    groups = engine.policy_set._tree.groups
    body = {
        f.__name__ for g in groups if g.name == "data.hookgate.lib.config_commands" for f in g.defs
    }
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/feature\n")
    (repo / ".git" / "config").write_text("[alias]\n\tt = !npm test\n\tst = status -s\n")
    entered: set[str] = set()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == "<hookgate policies>":
            entered.add(frame.f_code.co_name)

    for line, reads in (
        ("npm test", False),
        ("git push origin feature", False),
        ("git st", True),  # (the alias runs no script: the list is empty)
        ("git t", True),
    ):
        entered.clear()
        payload = {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": line},
            "cwd": str(repo),
        }
        sys.setprofile(profile)
        try:
            decision = engine.evaluate(payload)
        finally:
            sys.setprofile(None)
        assert decision.outcome == "allow", (line, decision.reasons)
        assert bool(body & entered) is reads, line


# -- the pack's git rules: each shortcut against what it stands for, over the corpora -----------


@pytest.fixture(scope="module")
def pack():
    from hookgate.lang import load
    from hookgate.sources import default_pack_sources

    sources, data = default_pack_sources()
    return load(sources, data)


def corpus_documents() -> list[dict]:
    from hookgate.hostio.normalize import normalize

    return [
        normalize(
            {
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": line},
                "cwd": "/tmp/project",
            },
            "claude",
        ).document()
        for line in corpus_git_lines()
    ]


def test_no_verify_reads_the_commands_that_may_skip_hooks_over_the_corpora(pack):
    """no_verify.git_commands (one body of tests a plain command passes) is the commands for
    which one of the tests it stood for as a chain of elses holds."""

    def may_skip_hooks(x: dict, assignments) -> bool:
        g, c = x["git"], x["cmd"]
        return (
            isinstance(g.get("hooks_path"), str)
            or len(g["config"]) > 0
            or len(c["git_config"]) > 0
            or len(c["env"]) > 0
            or g["config_change"] is not None
            or len(g["unknown"]) > 0
            or bool(x.get("guessed"))
            or len(assignments) > 0
        )

    seen = 0
    for doc in corpus_documents():
        commands = pack.query("data.hookgate.lib.git_commands", input=doc)
        assignments = pack.query("data.hookgate.lib.assignments", input=doc)
        read = pack.query("data.hookgate.no_verify.git_commands", input=doc)
        assert read == [x for x in commands if may_skip_hooks(x, assignments)], doc
        seen += len(read)
    assert seen > 100  # (the corpora have such commands: the test reads some)


def test_a_parse_is_kept_by_everything_it_is_made_from_over_the_corpora():
    """parse_argv without the repository's configuration is kept by its arguments: the kept
    parse is the one made anew, for every git command of the corpora."""
    from hookgate.shell.git.argv import _parse_argv, parse_argv

    context = {**pack_context(), "files": "unread"}
    kept = 0
    for cmdline in corpus_git_lines():
        for c in commands_with(cmdline, context) or ():
            if c["name"] != "git":
                continue
            args = (c["argv"], c["env"], c["cwd"], None, c["git_config"], c["kinds"])
            parsed = parse_argv(*args)
            assert parsed == _parse_argv(*args), cmdline
            kept += parse_argv(*args) is parsed
    assert kept > 1000


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # a word the line does not show is read as an option where git may read one
        (
            (["git", "push", "$X"], {}, None, None, (), [None, None, None]),
            (["git", "push", "$X"], {}, None, None, (), [None, None, "unknown-variable"]),
        ),
        (
            (["git", "commit"], {}, None, None, (), ()),
            (
                ["git", "commit"],
                {
                    "GIT_CONFIG_COUNT": "1",
                    "GIT_CONFIG_KEY_0": "core.hooksPath",
                    "GIT_CONFIG_VALUE_0": "/dev/null",
                },
                None,
                None,
                (),
                (),
            ),
        ),
        ((["git", "commit"], {}, "a", None, (), ()), (["git", "commit"], {}, "b", None, (), ())),
        (
            (["git", "p"], {}, None, None, [["set", "alias.p", "push -f"]], ()),
            (["git", "p"], {}, None, None, [["set", "alias.p", "push"]], ()),
        ),
        # equal as keys of a dict, not as JSON: kept apart
        (
            (["git", "commit"], {"GIT_CONFIG_COUNT": 1}, None, None, (), ()),
            (["git", "commit"], {"GIT_CONFIG_COUNT": True}, None, None, (), ()),
        ),
    ],
)
def test_parses_of_different_arguments_are_kept_apart(first, second):
    from hookgate.shell.git.argv import _parse_argv, parse_argv

    assert parse_argv(*first) == _parse_argv(*first)
    assert parse_argv(*second) == _parse_argv(*second)
    assert parse_argv(*first) is not parse_argv(*second)


def test_the_walk_up_answers_the_same_without_access_nofollow(tmp_path, monkeypatch):
    """find_git_dir asks whether a name is there with access(…, follow_symlinks=False) (no
    exception for a miss) where the platform has it, else lexists: the same answers."""
    from hookgate import paths
    from hookgate.shell.git import repo

    make_repo(tmp_path / "plain")
    (tmp_path / "plain" / "a" / "b").mkdir(parents=True)
    bare = tmp_path / "bare.git"
    (bare / "refs").mkdir(parents=True)
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_text(f"gitdir: {tmp_path / 'plain' / '.git'}\n")
    outer = make_repo(tmp_path / "outer")
    (outer / "linked").mkdir()
    os.symlink(tmp_path / "plain" / ".git", outer / "linked" / ".git")
    (outer / "dangling").mkdir()
    os.symlink(tmp_path / "missing", outer / "dangling" / "HEAD")
    if hasattr(os, "mkfifo"):
        (outer / "fifo").mkdir()
        os.mkfifo(outer / "fifo" / ".git")
    starts = [tmp_path / "plain" / "a" / "b", bare, tmp_path / "wt", tmp_path]
    starts += [outer / name for name in ("linked", "dangling", "fifo")]

    def answers() -> list:
        out = []
        for start in starts:
            refused: list = []
            out.append((repo.find_git_dir(str(start), refused), refused, branch(str(start))))
        return out

    with_access = answers()
    monkeypatch.setattr(paths, "_ACCESS_NOFOLLOW", False)
    assert answers() == with_access
    assert with_access[0][0] == str(tmp_path / "plain" / ".git")
    assert with_access[4] == (
        None,
        [(str(outer / "linked" / ".git"), "symlink not followed")],
        None,
    )


@pytest.mark.parametrize(
    "answer",
    [
        {"values": {}, "files": [], "unknown": [], "branch": None},
        {"values": {}, "files": ["/etc/gitconfig"], "unknown": [], "branch": "main"},
        {"values": {}, "files": [], "unknown": []},
    ],
)
def test_a_configuration_that_sets_nothing_changes_only_the_branch_over_the_corpora(answer):
    """git.configure with a configuration read in full that sets nothing (no repository) is
    git.parse_in's whole parse with it, for every git command of the corpora."""
    from hookgate.builtins.git import configure, parse_in

    context = {**pack_context(), "files": "unread"}
    seen = 0
    for cmdline in corpus_git_lines():
        for c in commands_with(cmdline, context) or ():
            if c["name"] == "git":
                assert configure(parse(c), c, answer) == parse_in(c, answer), cmdline
                seen += 1
    assert seen > 1000
