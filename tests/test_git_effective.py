"""The git guards judge by git's effective configuration, checked against real git.

Each case builds the evasion corpus's sandbox (a repository on ``main`` with a ``feature``
branch, a local ``origin`` and hooks that log themselves), prepares git's files there, judges a
command with the default pack (``HOME`` the sandbox's home), then runs the command with real git
and reads the hooks' log: "hooks off" is claimed exactly when git ran no hook, and a reader that
gave up makes the pack ask, never allow.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from hookgate.engine import Engine

ROOT = Path(__file__).resolve().parent.parent
GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")


def _checker():
    path = ROOT / "tests" / "data" / "guards" / "check_evasions.py"
    spec = importlib.util.spec_from_file_location("check_evasions", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def eng():
    return Engine.from_paths([str(ROOT / "policies")])


@pytest.fixture()
def sandbox(tmp_path, monkeypatch):
    root = tmp_path / "s"
    _checker().build_template(root)
    home = root / "home" / "u"
    proj = home / "proj"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "XDG_"))}
    env.update(HOME=str(home), GIT_CONFIG_NOSYSTEM="1", LC_ALL="C")
    for k in [k for k in os.environ if k.startswith(("GIT_", "XDG_"))]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    subprocess.run([GIT, "switch", "-q", "feature"], cwd=proj, env=env, check=True)
    subprocess.run([GIT, "stash", "-q"], cwd=proj, env=env, check=True)

    def sh(script: str) -> None:
        subprocess.run(["bash", "-c", script], cwd=proj, env=env, check=True)

    def decide(command: str):
        payload = {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "cwd": str(proj),
            "session_id": "git-effective",
        }
        return eng_ref[0].evaluate(payload, host="claude")

    def hooks_run(command: str) -> list[str]:
        log = root / "events.log"
        log.unlink(missing_ok=True)
        subprocess.run(["bash", "-c", command], cwd=proj, env=env, capture_output=True)
        text = log.read_text() if log.exists() else ""
        return [line.split("\x1f")[1] for line in text.splitlines() if "\x1f" in line]

    eng_ref: list = []
    return {"sh": sh, "decide": decide, "hooks_run": hooks_run, "home": home, "eng": eng_ref}


COMMIT = "git commit -q --allow-empty -m wip"

# (setup in the project, whether git then runs the pre-commit hook)
HOOKS_PATH_CASES = [
    ("", True),
    ("git config --global core.hooksPath /dev/null", False),
    (
        "mkdir -p ~/.config/git && printf '[core]\\n\\thooksPath = ~/nohooks\\n' > ~/.config/git/config",
        False,
    ),
    (
        "mkdir ../elsewhere && git config extensions.worktreeConfig true && printf '[core]\\nhooksPath=%s\\n' \"$HOME/elsewhere\" > .git/config.worktree",
        False,
    ),
    ("printf '[core]\\n\\thooksPath = /dev/null\\n' > .git/config.worktree", True),  # extension off
    (
        "printf '[core]\\n\\thooksPath = /dev/null\\n' > ../inc && git config include.path \"$HOME/inc\"",
        False,
    ),
    (
        "printf '[core]\\n\\thooksPath = /dev/null\\n' > ../inc && git config include.path ../inc",
        True,
    ),  # .git/../inc,
    (
        "printf '[core]\\n\\thooksPath = /dev/null\\n' > ~/inc && printf '[includeIf \"onbranch:feature\"]\\n\\tpath = ~/inc\\n' >> ~/.gitconfig",
        False,
    ),
    (
        "mkdir .githooks && cp .git/hooks/pre-commit .githooks/ && git config core.hooksPath .githooks",
        True,
    ),
    ("git config core.hooksPath .githooks", False),  # no such directory: no hook runs
    ('git config core.hooksPath "$PWD/.git/hooks"', True),
    ("git config --global core.hooksPath .git/hooks", True),
]


@pytest.mark.parametrize(("setup", "runs"), HOOKS_PATH_CASES)
def test_hooks_off_exactly_when_git_runs_no_hook(eng, sandbox, setup, runs):
    sandbox["eng"].append(eng)
    if setup:
        sandbox["sh"](setup)
    decision = sandbox["decide"](COMMIT)
    assert ("pre-commit" in sandbox["hooks_run"](COMMIT)) is runs
    assert decision.outcome == ("allow" if runs else "deny"), decision.reasons
    if not runs:
        assert any("core.hooksPath" in r for r in decision.reasons)


# Lines that write git's files and then commit: judged by what the line writes.
LINE_CASES = [
    ("echo '[core]hooksPath=/dev/null' >> ~/.gitconfig && " + COMMIT, "deny", False),
    ("printf '[core]\\n\\thooksPath = /tmp\\n' >> \"$HOME/.gitconfig\"; " + COMMIT, "deny", False),
    (
        "git config extensions.worktreeConfig true && printf '[core]\\nhooksPath=/x\\n' > .git/config.worktree && "
        + COMMIT,
        "deny",
        False,
    ),
    ("git config --worktree core.hooksPath /dev/null 2>/dev/null; " + COMMIT, "deny", None),
    (
        "export XDG_CONFIG_HOME=/tmp/x; mkdir -p /tmp/x/git && printf '[core]\\nhooksPath=/x\\n' > /tmp/x/git/config && "
        + COMMIT,
        "deny",
        False,
    ),
    ("sed -i s/T/U/ ~/.gitconfig && " + COMMIT, "ask", True),
    ("cat ../x >> .git/config.worktree; " + COMMIT, "ask", True),
    (
        "echo 'hookspath = /dev/null' >> ../.gitconfig.local && git config include.path ../.gitconfig.local && "
        + COMMIT,
        "ask",
        None,
    ),
    ("git config user.name x && git config --global pull.rebase true && " + COMMIT, "allow", True),
    # HOME= moves git's global files to the home the command gives
    (
        "mkdir -p /tmp/x && printf '[core]\\n\\thooksPath = /tmp/x\\n' > /tmp/x/.gitconfig && HOME=/tmp/x "
        + COMMIT,
        "deny",
        False,
    ),
    (
        "export HOME=/tmp/x; mkdir -p $HOME; printf '[core]\\n\\thooksPath = /tmp\\n' >> $HOME/.gitconfig; "
        + COMMIT,
        "ask",  # appended to a file the line does not show whole
        False,
    ),
    ("HOME=/tmp/x " + COMMIT, "ask", None),  # a home the line does not show (git: no identity)
    # a hooks path given on the command line that is not there: no hook runs
    ("git -c core.hooksPath=.githooks " + COMMIT[4:], "deny", False),
    ("git -c core.hooksPath=.git/hooks " + COMMIT[4:], "allow", True),
]


@pytest.mark.parametrize(("command", "outcome", "runs"), LINE_CASES)
def test_the_lines_own_writes_to_gits_files(eng, sandbox, command, outcome, runs, tmp_path):
    sandbox["eng"].append(eng)
    if "/tmp/x" in command:
        command = command.replace("/tmp/x", str(tmp_path / "x"))
    decision = sandbox["decide"](command)
    assert decision.outcome == outcome, decision.reasons
    if runs is not None:
        assert ("pre-commit" in sandbox["hooks_run"](command)) is runs


PUSH = "git pf origin feature"


@pytest.mark.parametrize(
    ("setup", "outcome", "why"),
    [
        ("printf '[alias]\\n\\tpf = push -f\\n' >> ~/.gitconfig", "deny", None),
        (
            "mkdir ~/dotfiles && printf '[alias]\\n\\tpf = push -f\\n' > ~/dotfiles/gitconfig"
            " && mv ~/.gitconfig ~/dotfiles/old && ln -s ~/dotfiles/gitconfig ~/.gitconfig",
            "deny",  # a dotfile manager's link is followed, as git follows it
            None,
        ),
        (
            "for n in $(seq 70); do echo '[k]' > ~/i$n; echo \"[include] path = i$n\" >> ~/.gitconfig;"
            " done; printf '[alias]\\n\\tpf = push -f\\n' > ~/i70",
            "ask",
            "more than 64",
        ),
        (
            "head -c 1100000 /dev/zero | tr '\\0' '#' > ~/big && printf '\\n[alias]\\n\\tpf = push -f\\n'"
            " >> ~/big && printf '[include]\\n\\tpath = big\\n' >> ~/.gitconfig",
            "ask",
            "larger than",
        ),
    ],
)
def test_a_push_that_depends_on_configuration_the_reader_gave_up_on_asks(
    eng, sandbox, setup, outcome, why
):
    sandbox["eng"].append(eng)
    sandbox["sh"](setup)
    run = subprocess.run(
        [GIT, "config", "--get", "alias.pf"],
        cwd=sandbox["home"] / "proj",
        env={"HOME": str(sandbox["home"]), "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.environ["PATH"]},
        capture_output=True,
        text=True,
    )
    assert run.stdout.strip() == "push -f"  # git reads the alias in every case
    decision = sandbox["decide"](PUSH)
    assert decision.outcome == outcome, decision.reasons
    if why:
        assert any(why in r and str(sandbox["home"]) in r for r in decision.reasons)
    for everyday in ("git push origin feature", "git status", "git log -n 3"):
        expected = "ask" if why and "push" in everyday else "allow"
        assert sandbox["decide"](everyday).outcome == expected, everyday


def test_everyday_git_with_a_plain_configuration_is_allowed(eng, sandbox):
    sandbox["eng"].append(eng)
    sandbox["sh"](
        "printf '[alias]\\n\\tst = status\\n[pull]\\n\\trebase = true\\n' >> ~/.gitconfig"
    )
    for command in (
        "git config user.name 'A B'",
        "git config --global pull.rebase true",
        "git config --global --unset pull.rebase",
        COMMIT,
        "git push origin feature",
        "git push",
        "git st",
        "git pull",
    ):
        decision = sandbox["decide"](command)
        assert decision.outcome == "allow", (command, decision.reasons)


@pytest.mark.parametrize(
    ("command", "outcome"),
    [
        ("echo '[core]hooksPath=/dev/null' >> ~/.gitconfig", "deny"),
        ("printf '[core]\\n\\thooksPath = /tmp\\n' >> \"$HOME/.gitconfig\"", "deny"),
        (
            "git config extensions.worktreeConfig true && echo '[core] hooksPath = /dev/null' >> .git/config.worktree",
            "deny",
        ),
        ("sed -i 's/T/U/' ~/.gitconfig", "ask"),
        ("printf '[user]\\n\\tname = A\\n' >> ~/.gitconfig", "allow"),
        ("echo '[core]hooksPath=.git/hooks' >> ~/.gitconfig", "allow"),
        ("cat ~/.gitconfig", "allow"),
    ],
)
def test_a_line_that_only_writes_gits_files_is_judged_by_the_next_commit(
    eng, sandbox, command, outcome
):
    """Without a commit in the line, what the line writes is judged as the configuration of
    the next commit; and that commit, run by git, confirms it."""
    sandbox["eng"].append(eng)
    decision = sandbox["decide"](command)
    assert decision.outcome == outcome, decision.reasons
    if outcome != "ask":
        ran = "pre-commit" in sandbox["hooks_run"](command + "\n" + COMMIT)
        assert ran is (outcome == "allow")
        after = sandbox["decide"](COMMIT)  # the next call reads the files from the disk
        assert after.outcome == outcome, after.reasons


def test_a_configuration_file_the_command_names_on_the_disk_is_unknown(eng, sandbox):
    """``GIT_CONFIG_GLOBAL=f`` or ``-c include.path=f`` with ``f`` from an earlier call: git
    reads ``f`` from the disk, the line's model does not, so the commit asks."""
    sandbox["eng"].append(eng)
    sandbox["sh"]("printf '[core]\\n\\thooksPath = /dev/null\\n' > ../evil")
    command = "GIT_CONFIG_GLOBAL=../evil " + COMMIT
    assert "pre-commit" not in sandbox["hooks_run"](command)
    decision = sandbox["decide"](command)
    assert decision.outcome == "ask" and any("../evil" in r for r in decision.reasons)
    assert sandbox["decide"]("GIT_CONFIG_GLOBAL=/dev/null " + COMMIT).outcome == "allow"


def test_git_clean_asks_where_clean_require_force_may_be_off(eng, sandbox):
    sandbox["eng"].append(eng)
    sandbox["sh"](
        "head -c 1100000 /dev/zero | tr '\\0' '#' > ~/big"
        " && printf '\\n[clean]\\n\\trequireForce = false\\n' >> ~/big"
        " && printf '[include]\\n\\tpath = big\\n' >> ~/.gitconfig && touch untracked.txt"
    )
    assert sandbox["decide"]("git clean -d").outcome == "ask"
    assert sandbox["decide"]("git clean -n").outcome == "allow"
    sandbox["hooks_run"]("git clean -d")  # git reads the large file: the untracked file is gone
    assert not (sandbox["home"] / "proj" / "untracked.txt").exists()


def test_a_dormant_config_worktree_counts_once_the_line_turns_the_extension_on(eng, sandbox):
    sandbox["eng"].append(eng)
    sandbox["sh"]("printf '[core]\\n\\thooksPath = /dev/null\\n' > .git/config.worktree")
    assert "pre-commit" in sandbox["hooks_run"](COMMIT)  # git ignores it without the extension
    assert sandbox["decide"](COMMIT).outcome == "allow"
    line = "git config extensions.worktreeConfig true && " + COMMIT
    assert sandbox["decide"](line).outcome == "ask"
    assert "pre-commit" not in sandbox["hooks_run"](line)
    assert sandbox["decide"](COMMIT).outcome == "deny"  # now on the disk


def test_writing_a_hook_into_the_configured_hooks_directory_then_committing_is_allowed(
    eng, sandbox
):
    """husky before v9 sets core.hooksPath to .husky: adding a hook there and committing is
    everyday work; a hook that does nothing is still caught (hook_files)."""
    sandbox["eng"].append(eng)
    sandbox["sh"]("mkdir .husky && git config core.hooksPath .husky")
    line = "printf 'npm test\\n' > .husky/pre-commit && " + COMMIT
    assert sandbox["decide"](line).outcome == "allow"
    assert sandbox["decide"]("echo 'exit 0' > .husky/pre-commit && " + COMMIT).outcome == "deny"


def trusting_githooks() -> Engine:
    """The shipped pack with ``no_verify.trusted_hooks_paths`` set to ``~/.githooks``, loaded
    from the pack's own files (the same file names each time: the process's compile memo keeps
    the set, where a copy per test compiled it again)."""
    data = json.loads((ROOT / "policies" / "data.json").read_text())
    data["hookgate"]["config"]["no_verify"]["trusted_hooks_paths"] = ["~/.githooks"]
    return Engine.from_paths([str(ROOT / "policies")], data=data)


def test_a_hooks_directory_the_team_trusts_keeps_hooks_on(sandbox):
    """``no_verify.trusted_hooks_paths``: a global hooks directory a team manages (by value
    as written or by the absolute directory) is not "hooks off"; unlisted, it is."""
    sandbox["sh"]("mkdir ~/.githooks && git config --global core.hooksPath '~/.githooks'")
    sandbox["eng"].append(trusting_githooks())
    assert sandbox["decide"](COMMIT).outcome == "allow"
    sandbox["eng"][0] = Engine.from_paths([str(ROOT / "policies")])
    assert sandbox["decide"](COMMIT).outcome == "deny"


def test_a_command_line_hooks_path_away_from_the_configured_one_skips_its_hooks(eng, sandbox):
    """.husky holds the hooks the repository configured; -c core.hooksPath=.git/hooks runs the
    other directory's instead, a hooks directory of the project though it is."""
    sandbox["eng"].append(eng)
    sandbox["sh"](
        "mkdir .husky && sed s/pre-commit/husky/ .git/hooks/pre-commit > .husky/pre-commit"
        " && chmod +x .husky/pre-commit && git config core.hooksPath .husky"
    )
    assert "husky" in sandbox["hooks_run"](COMMIT)
    assert sandbox["decide"](COMMIT).outcome == "allow"
    for override in ("git -c core.hooksPath=.git/hooks", "git -c core.hooksPath=.githooks"):
        command = f"{override} {COMMIT[4:]}"
        assert "husky" not in sandbox["hooks_run"](command)
        decision = sandbox["decide"](command)
        assert decision.outcome == "deny", decision.reasons
    assert sandbox["decide"]("git -c core.hooksPath=./.husky/ " + COMMIT[4:]).outcome == "allow"


def test_a_remote_added_as_a_push_mirror_makes_its_pushes_mirror_pushes(eng, sandbox):
    sandbox["eng"].append(eng)
    for spelling, mirror in (
        ("--mirror=push", True),
        ("--mirror", True),
        ("--mirror=fetch", False),
    ):
        add = f"git remote add {spelling} copy ../remote.git"
        decision = sandbox["decide"](f"{add} && git push copy")
        assert (decision.outcome == "deny") is mirror, (spelling, decision.reasons)
        sandbox["sh"](f"{add} 2>/dev/null")
        real = subprocess.run(
            [GIT, "config", "--bool", "remote.copy.mirror"],
            cwd=sandbox["home"] / "proj",
            capture_output=True,
            text=True,
        )
        assert (real.stdout.strip() == "true") is mirror, spelling  # what git really set
        sandbox["sh"]("git remote remove copy")
    assert sandbox["decide"](
        "git remote add copy ../remote.git && git push copy feature"
    ).outcome == ("allow")


DROPPED_CONFIG = ["~/.gitconfig", "~/.config/git/config"]


@pytest.mark.parametrize("where", DROPPED_CONFIG)
@pytest.mark.parametrize(
    ("line", "dropped"),
    [
        ("GIT_CONFIG_GLOBAL=/dev/null " + COMMIT, True),
        ("GIT_CONFIG_GLOBAL= " + COMMIT, True),
        (": > /tmp/empty.gitconfig && GIT_CONFIG_GLOBAL=/tmp/empty.gitconfig " + COMMIT, True),
        ("mkdir -p /tmp/h && HOME=/tmp/h " + COMMIT, True),
        ("export HOME=/tmp; " + COMMIT, True),
        ("env GIT_CONFIG_GLOBAL=/dev/null " + COMMIT, True),
        ("GIT_CONFIG_GLOBAL=~/.gitconfig " + COMMIT, None),  # all but the XDG file
        ('HOME="$HOME" ' + COMMIT, False),
        ("XDG_CONFIG_HOME=/tmp/xdg " + COMMIT, None),  # another XDG file
        ("GIT_CONFIG_NOSYSTEM=1 " + COMMIT, False),
        # a change the line makes to the file (the command's git_config): read again, not
        # taken from the hook's configuration
        ("git config --global --unset core.hooksPath && " + COMMIT, True),
        (COMMIT, False),
    ],
)
def test_configuration_files_that_drop_the_trusted_hooks_path_skip_its_hooks(
    sandbox, line, dropped, where
):
    """A team's hooks set in a global file (core.hooksPath ~/.githooks, trusted): a line that
    points git at other files for one command (GIT_CONFIG_GLOBAL, HOME, XDG_CONFIG_HOME) runs
    .git/hooks instead of them, which real git shows; one that leaves that file read keeps them
    (None: dropped where the setting is in the XDG file, ~/.config/git/config)."""
    sandbox["sh"](
        "mkdir ~/.githooks && sed s/pre-commit/managed/ .git/hooks/pre-commit"
        " > ~/.githooks/pre-commit && chmod +x ~/.githooks/pre-commit"
        f" && mkdir -p ~/.config/git && git config -f {where} core.hooksPath '~/.githooks'"
    )
    sandbox["eng"].append(trusting_githooks())
    if dropped is None:
        dropped = where == "~/.config/git/config"
    decision = sandbox["decide"](line)  # before the line runs: it may change the files
    assert (decision.outcome == "deny") is dropped, decision.reasons
    found = any("git-hooks-path-config" in str(r) for r in decision.reasons)
    assert found is dropped, decision.reasons  # the rule on the hooks the configuration names
    assert ("managed" not in sandbox["hooks_run"](line)) is dropped
