"""hookgate.shell.git.config against real git: the same files must give the same values.

Every case writes configuration files into a temporary home and repository and compares
``read_config`` with ``git config --list -z`` run there (system file off, as hookgate never reads
it); a file git refuses must raise ``ConfigError``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookgate.shell.git import config as gitconfig
from hookgate.shell.git.config import VALUELESS, ConfigError, parse, read, read_config
from hookgate.shell.git.repo import MAX_FILE_BYTES
from hookgate.shell.git.wildmatch import wildmatch

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")


def git_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "XDG_"))}
    env.update(HOME=str(home), GIT_CONFIG_NOSYSTEM="1", LC_ALL="C")
    return env


def git_values(repo: Path, home: Path) -> dict[str, list[str]] | None:
    """``git config --list`` in ``repo`` as key → values; None when git refuses the files."""
    run = subprocess.run(
        [GIT, "config", "--list", "-z"], cwd=repo, env=git_env(home), capture_output=True
    )
    if run.returncode != 0:
        return None
    out: dict[str, list[str]] = {}
    for item in run.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]:
        key, sep, value = item.partition("\n")
        out.setdefault(key, []).append(value if sep else VALUELESS)
    return out


def ours(repo: Path, home: Path) -> dict[str, list[str]] | None:
    try:
        return read_config(str(repo / ".git"), str(home))
    except ConfigError:
        return None


@pytest.fixture()
def world(tmp_path):
    home = tmp_path / "home"
    repo = home / "work" / "Proj"
    home.mkdir()
    subprocess.run([GIT, "init", "-q", "-b", "main", str(repo)], env=git_env(home), check=True)
    return home, repo


def agree(repo: Path, home: Path) -> dict[str, list[str]] | None:
    expected = git_values(repo, home)
    assert ours(repo, home) == expected
    return expected


# -- syntax: generated files -----------------------------------------------------------------------

NAME = st.from_regex(r"[A-Za-z][A-Za-z0-9-]{0,6}", fullmatch=True)
SUB = st.text(st.sampled_from('aB .-_/"\\x*:'), max_size=8)
VALUE_PART = st.one_of(
    st.text(st.sampled_from("abcXYZ09 ./:-_@+~"), max_size=8),
    st.sampled_from(['"', '"quoted ; # text"', "\\t", "\\n", "\\\\", '\\"', "\\b", "\\\n", " "]),
    st.sampled_from([" # comment", " ; comment", "\t", "\\q", '"open']),  # some invalid
)


@st.composite
def header(draw) -> str:
    name = draw(NAME)
    kind = draw(st.sampled_from(["plain", "sub", "old"]))
    if kind == "sub":
        sub = draw(SUB).replace("\\", "\\\\").replace('"', '\\"')
        return f'[{name}{draw(st.sampled_from([" ", "  ", chr(9)]))}"{sub}"]'
    if kind == "old":
        return f"[{name}.{draw(NAME)}]"
    return f"[{name}]"


@st.composite
def entry(draw) -> str:
    key = draw(NAME)
    if draw(st.integers(0, 5)) == 0:
        return key + draw(st.sampled_from(["", " ", "\t"]))
    value = "".join(draw(st.lists(VALUE_PART, max_size=5)))
    return f"{draw(st.sampled_from(['', ' ', chr(9)]))}{key}{draw(st.sampled_from(['=', ' = ', ' =']))}{value}"


LINE = st.one_of(
    header(), entry(), entry(), st.sampled_from(["", "# c", "; c", "   ", "[core] bare = true"])
)
FILE = st.lists(LINE, min_size=1, max_size=8).map(lambda lines: "\n".join(lines) + "\n")


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(local=FILE, glob=FILE, crlf=st.booleans())
def test_generated_files_read_as_git_reads_them(world, local, glob, crlf):
    home, repo = world
    config = repo / ".git" / "config"
    config.write_bytes(local.replace("\n", "\r\n" if crlf else "\n").encode())
    (home / ".gitconfig").write_text(glob)
    agree(repo, home)


HAND = [
    '[remote "Origin"]\n\turl = git@example.com:a/b.git\n\tpush = +refs/heads/*:refs/heads/*\n',
    "[Branch.Feature]\n\tRemote = origin\n",
    '[alias]\n\tp = "!f() { git push --force \\"$@\\"; }; f"\n',
    "[core]\n\thooksPath = /dev/null ; silence\n\teditor = vim \\\n -n\n",
    '[section "with \\\\ and \\" and \\x"]\n\tkey = v\n',
    '[push]\n\tdefault = current\n[remote "o"]\n\tmirror\n',
    "[a]\n\tk = one\n[A]\n\tK = two\n",
    "\ufeff[core]\n\tx = bom\n",
    "top = no section\n",
    '[core]\n\tk = "unterminated\n',
    "[core]\n\tk = bad \\q escape\n",
    "[core\n",
    '[core "x"extra]\n',
    "[]\n",
    "[core]\n\t1k = v\n",
    "[core]\n\tk = a  b\t\tc   \n",
    '[core]\n\tk = "  kept  "  # gone\n',
    "[core]k=v\n",
]


@pytest.mark.parametrize("text", HAND, ids=range(len(HAND)))
def test_hand_written_files(world, text):
    home, repo = world
    (repo / ".git" / "config").write_text(text)
    agree(repo, home)


def test_canonical_keys():
    entries = parse('[Remote "Origin"]\n\tPushURL = x\n[Branch.Feature]\n\tRemote = o\n')
    assert [k for k, _v, _l in entries] == ["remote.Origin.pushurl", "branch.feature.remote"]


def test_errors_name_file_and_line():
    with pytest.raises(ConfigError, match=r"^f:3: bad config line"):
        parse('[a]\n k = v\n k = "open\n', "f")


# -- files and includes ----------------------------------------------------------------------------


def test_global_xdg_local_and_worktree_files_in_gits_order(world):
    home, repo = world
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "config").write_text("[k]\n\tv = xdg\n")
    (home / ".gitconfig").write_text("[k]\n\tv = home\n")
    with (repo / ".git" / "config").open("a") as f:
        f.write("[k]\n\tv = local\n[extensions]\n\tworktreeConfig = true\n")
    (repo / ".git" / "config.worktree").write_text("[k]\n\tv = worktree\n")
    got = agree(repo, home)
    assert got["k.v"] == ["xdg", "home", "local", "worktree"]
    listing = subprocess.run(
        [GIT, "config", "--list", "--show-origin", "-z"],
        cwd=repo,
        env=git_env(home),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")[:-1]
    git_files = list(dict.fromkeys(o.removeprefix("file:") for o in listing[0::2]))
    ours_files = [
        os.path.relpath(f, repo) if f.startswith(str(repo)) else f
        for f in read(str(repo / ".git"), str(home)).files
    ]
    assert ours_files == git_files


def test_config_worktree_ignored_without_the_extension(world):
    home, repo = world
    (repo / ".git" / "config.worktree").write_text("[k]\n\tv = worktree\n")
    assert "k.v" not in agree(repo, home)


def test_includes_relative_home_and_nested(world):
    home, repo = world
    (home / "inc").mkdir()
    (home / ".gitconfig").write_text("[include]\n\tpath = inc/a\n\tpath = ~/missing\n")
    (home / "inc" / "a").write_text("[k]\n\tv = a\n[include]\n\tpath = b\n")
    (home / "inc" / "b").write_text("[k]\n\tv = b\n")
    with (repo / ".git" / "config").open("a") as f:
        f.write(f"[include]\n\tpath = {home}/inc/b\n[k]\n\tv = after\n")
    assert agree(repo, home)["k.v"] == ["a", "b", "b", "after"]


CONDITIONS = [
    "gitdir:~/work/",
    "gitdir:~/work/Proj/.git",
    "gitdir:~/WORK/",
    "gitdir/i:~/WORK/",
    "gitdir:Proj/",
    "gitdir:Proj",
    "gitdir:work/*/",
    "gitdir:**/P?oj/**",
    "gitdir:/nowhere/",
    "gitdir:./work/",
    "gitdir:./",
    "onbranch:main",
    "onbranch:ma*",
    "onbranch:feature/",
    "onbranch:other",
    "hasconfig:remote.*.url:https://example.com/**",
    "hasconfig:remote.*.url:git@other:*",
    "nosuch:thing",
]


@pytest.mark.parametrize("cond", CONDITIONS)
@pytest.mark.parametrize("where", ["global", "local"])
def test_include_if_conditions(world, cond, where):
    home, repo = world
    (home / "cond.inc").write_text("[k]\n\tv = included\n")
    text = f'[includeIf "{cond}"]\n\tpath = {home}/cond.inc\n'
    text += '[remote "origin"]\n\turl = https://example.com/a/b.git\n'
    if where == "global":
        (home / ".gitconfig").write_text(text)
    else:
        with (repo / ".git" / "config").open("a") as f:
            f.write(text)
    agree(repo, home)


def test_onbranch_follows_head(world):
    home, repo = world
    (home / "b.inc").write_text("[k]\n\tv = feature\n")
    (home / ".gitconfig").write_text(f'[includeIf "onbranch:feature/**"]\n\tpath = {home}/b.inc\n')
    assert "k.v" not in agree(repo, home)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n")
    assert agree(repo, home)["k.v"] == ["feature"]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    parts=st.lists(
        st.sampled_from(["home", "work", "Proj", ".git", "*", "**", "?", "P*", "[Pp]roj", "[!x]*"]),
        min_size=1,
        max_size=5,
    ),
    lead=st.sampled_from(["", "/", "~/", "**/"]),
    trail=st.sampled_from(["", "/"]),
    fold=st.booleans(),
)
def test_generated_gitdir_patterns(world, parts, lead, trail, fold):
    home, repo = world
    (home / "g.inc").write_text("[k]\n\tv = yes\n")
    pattern = lead + "/".join(parts) + trail
    kind = "gitdir/i" if fold else "gitdir"
    (home / ".gitconfig").write_text(f'[includeIf "{kind}:{pattern}"]\n\tpath = {home}/g.inc\n')
    agree(repo, home)


def test_worktree_reads_common_config_and_its_own_head(world):
    home, repo = world
    env = git_env(home)
    run = {"cwd": repo, "env": env, "check": True, "capture_output": True}
    subprocess.run(
        [
            GIT,
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ],
        **run,
    )
    subprocess.run([GIT, "worktree", "add", "-q", "-b", "feature/w", str(home / "wt")], **run)
    (home / "b.inc").write_text("[k]\n\tv = feature\n")
    (home / ".gitconfig").write_text(f'[includeIf "onbranch:feature/"]\n\tpath = {home}/b.inc\n')
    git_dir = (home / "wt" / ".git").read_text().split(":", 1)[1].strip()
    expected = git_values(home / "wt", home)
    assert read_config(git_dir, str(home)) == expected
    assert expected["k.v"] == ["feature"]


def test_include_depth_is_bounded_like_git(world):
    home, repo = world
    (home / ".gitconfig").write_text("[include]\n\tpath = .gitconfig\n")
    assert git_values(repo, home) is None
    with pytest.raises(ConfigError, match="nested more than 10"):
        read_config(str(repo / ".git"), str(home))


def test_symlinked_include_is_followed_as_git_follows_it(world):
    home, repo = world
    (home / "real.inc").write_text("[alias]\n\tp = push -f\n")
    (home / "link.inc").symlink_to(home / "real.inc")
    (home / "dangling.inc").symlink_to(home / "nowhere")
    (home / ".gitconfig").write_text("[include]\n\tpath = link.inc\n\tpath = dangling.inc\n")
    assert agree(repo, home)["alias.p"] == ["push -f"]
    assert read(str(repo / ".git"), str(home)).skipped == []


def test_a_changed_link_target_is_read_again(world):
    home, repo = world
    (home / "a").write_text("[k]\n\tv = a\n")
    (home / "b").write_text("[k]\n\tv = b\n")
    (home / ".gitconfig").symlink_to(home / "a")
    assert agree(repo, home)["k.v"] == ["a"]
    (home / ".gitconfig").unlink()
    (home / ".gitconfig").symlink_to(home / "b")
    assert agree(repo, home)["k.v"] == ["b"]


def test_global_file_replaces_both_global_files(world, tmp_path):
    home, repo = world
    (home / ".gitconfig").write_text("[k]\n\tv = home\n")
    other = tmp_path / "g"
    other.write_text("[k]\n\tv = env\n")
    got = read_config(str(repo / ".git"), str(home), global_file=str(other))
    assert got["k.v"] == ["env"]


def test_parsed_files_are_cached_by_mtime_and_size(world):
    home, repo = world
    path = home / ".gitconfig"
    path.write_text("[k]\n\tv = 1\n")
    assert read_config(str(repo / ".git"), str(home))["k.v"] == ["1"]
    cached = gitconfig._CACHE[str(path)]
    assert read_config(str(repo / ".git"), str(home))["k.v"] == ["1"]
    assert gitconfig._CACHE[str(path)] is cached
    path.write_text("[k]\n\tv = 22\n")
    assert read_config(str(repo / ".git"), str(home))["k.v"] == ["22"]


@pytest.mark.parametrize(
    ("pattern", "text", "pathname", "expected"),
    [
        ("a/**/b", "a/b", True, True),
        ("a/**/b", "a/x/y/b", True, True),
        ("a/*/b", "a/x/y/b", True, False),
        ("a/*/b", "a/x/y/b", False, True),
        ("[[:upper:]]x", "Ax", True, True),
        ("[!a-c]", "d", True, True),
        ("[^a-c]", "b", True, False),
        ("\\*", "*", True, True),
        ("**", "any/thing", True, True),
    ],
)
def test_wildmatch(pattern, text, pathname, expected):
    assert wildmatch(pattern, text, pathname=pathname) is expected


# -- where the reader gives up: "unknown", never "not set" -----------------------------------------


def git_get(repo: Path, home: Path, key: str, **extra: str) -> str | None:
    env = git_env(home) | extra
    run = subprocess.run([GIT, "config", "--get", key], cwd=repo, env=env, capture_output=True)
    return run.stdout.decode().strip() if run.returncode == 0 else None


def unknown_paths(repo: Path, **environ: str) -> dict[str, str]:
    got = gitconfig.state(str(repo), {"GIT_CONFIG_NOSYSTEM": "1", **environ})
    return {u["path"]: u["why"] for u in got["unknown"]}


def test_a_symlinked_global_file_is_read_and_a_link_to_what_is_no_file_is_unknown(
    world, monkeypatch
):
    home, repo = world
    monkeypatch.setenv("HOME", str(home))
    (home / "dotfiles").mkdir()
    (home / "dotfiles" / "gitconfig").write_text("[alias]\n\tpf = push -f\n")
    (home / ".gitconfig").symlink_to(home / "dotfiles" / "gitconfig")
    assert git_get(repo, home, "alias.pf") == "push -f"  # git follows the link, and so do we
    assert unknown_paths(repo) == {}
    got = gitconfig.state(str(repo), {"GIT_CONFIG_NOSYSTEM": "1"})
    assert got["values"]["alias.pf"] == ["push -f"]
    os.mkfifo(home / "fifo")
    (home / "to-fifo").symlink_to(home / "fifo")
    (home / "loop").symlink_to(home / "loop")
    (home / "dotfiles" / "gitconfig").write_text("[include]\n\tpath = ~/to-fifo\n\tpath = ~/loop\n")
    got = unknown_paths(repo)
    assert got[str(home / "to-fifo")] == "not a regular file"  # never opened: no hang
    assert got[str(home / "loop")].startswith("unreadable")


def test_a_large_file_is_unknown_where_git_reads_it(world, monkeypatch):
    home, repo = world
    monkeypatch.setenv("HOME", str(home))
    filler = "# " + "x" * 78 + "\n"
    text = filler * (MAX_FILE_BYTES // len(filler) + 1) + "[alias]\n\tpf = push -f\n"
    (home / ".gitconfig").write_text(text)
    assert git_get(repo, home, "alias.pf") == "push -f"
    assert "larger than" in unknown_paths(repo)[str(home / ".gitconfig")]


def test_many_includes_are_unknown_where_git_reads_them(world, monkeypatch):
    home, repo = world
    monkeypatch.setenv("HOME", str(home))
    lines = ["[include]"]
    for n in range(gitconfig.MAX_FILES + 2):
        (home / f"i{n}").write_text(f"[k]\n\tv = {n}\n")
        lines.append(f"\tpath = i{n}")
    (home / "last").write_text("[alias]\n\tpf = push -f\n")
    (home / ".gitconfig").write_text("\n".join([*lines, "\tpath = last", ""]))
    assert git_get(repo, home, "alias.pf") == "push -f"  # git has no count bound
    [(path, why)] = unknown_paths(repo).items()
    assert f"more than {gitconfig.MAX_FILES}" in why


def test_include_depth_past_gits_limit_is_unknown(world, monkeypatch):
    home, repo = world
    monkeypatch.setenv("HOME", str(home))
    (home / ".gitconfig").write_text("[include]\n\tpath = .gitconfig\n")
    assert git_values(repo, home) is None  # git dies: nothing it does can be read either
    [(path, why)] = unknown_paths(repo).items()
    assert "nested more than 10" in why


def test_fifo_and_directory_and_unexpandable_include_are_unknown(world, monkeypatch):
    home, repo = world
    monkeypatch.setenv("HOME", str(home))
    os.mkfifo(home / "fifo")  # git would block reading it: never given to git here
    (home / "dir").mkdir()
    (home / ".gitconfig").write_text(
        "[include]\n\tpath = fifo\n\tpath = dir\n\tpath = ~nobody/x\n\tpath = %(prefix)/etc/x\n"
    )
    got = unknown_paths(repo)
    assert got[str(home / "fifo")] == "not a regular file"
    assert got[str(home / "dir")] == "not a regular file"
    assert "not expanded" in got["~nobody/x"] and "not expanded" in got["%(prefix)/etc/x"]


def test_a_symlinked_dot_git_is_unknown(world, monkeypatch):
    home, repo = world
    monkeypatch.setenv("HOME", str(home))
    (home / "w").mkdir()
    (home / "w" / ".git").symlink_to(repo / ".git")
    subprocess.run([GIT, "config", "alias.pf", "push -f"], cwd=repo, env=git_env(home), check=True)
    assert git_get(home / "w", home, "alias.pf") == "push -f"
    assert unknown_paths(home / "w") == {str(home / "w" / ".git"): "symlink not followed"}


def test_no_repository_and_complete_answers_have_no_unknown(world, monkeypatch):
    home, repo = world
    monkeypatch.setenv("HOME", str(home))
    (home / ".gitconfig").write_text("[user]\n\tname = n\n")
    assert unknown_paths(repo) == {}
    want = {"values": {}, "files": [], "unknown": [], "branch": None}
    assert gitconfig.state(str(home), {}) == want


def test_each_file_is_looked_at_once_per_read(world, monkeypatch):
    """One ``git.config_read`` stats each of git's files once (the repository's config, read
    first for extensions.worktreeConfig; ~/.gitconfig, known to exist once read): every look is
    a system call, and a commit's guards read the configuration on every call."""
    from collections import Counter

    home, repo = world
    monkeypatch.setenv("HOME", str(home))
    (home / ".gitconfig").write_text("[user]\n\tname = n\n")
    environ = {"GIT_CONFIG_NOSYSTEM": "1"}
    gitconfig.state(str(repo), environ)  # parsed once into the cache: the calls below stat only
    looked: Counter = Counter()
    for name in ("stat", "lstat"):
        real = getattr(os, name)

        def counted(path, *args, _real=real, **kwargs):
            looked[os.fspath(path)] += 1
            return _real(path, *args, **kwargs)

        monkeypatch.setattr(os, name, counted)
    got = gitconfig.state(str(repo), environ)
    assert got["files"] == [str(home / ".gitconfig"), str(repo / ".git" / "config")]
    assert looked and max(looked.values()) == 1, looked


def git_branch(where: Path, home: Path) -> str | None:
    """The branch real git says ``where`` is on (``git symbolic-ref --short -q HEAD``)."""
    run = subprocess.run(
        [GIT, "symbolic-ref", "-q", "HEAD"], cwd=where, env=git_env(home), capture_output=True
    )
    ref = run.stdout.decode().strip()
    return (ref[len("refs/heads/") :] if ref.startswith("refs/heads/") else ref) or None


def test_the_answer_has_the_branch_git_branch_reads_from_the_same_search(world, monkeypatch):
    """``branch`` is ``git.branch``'s answer (a commit's guards read both: one search of the
    directories), as real git names it: a branch, one with a slash, a worktree's own HEAD,
    detached, a subdirectory, no repository; none where the search gives up on a ``.git``
    (``git.branch`` alone answers there: it searches on past a ``.git`` that is no file)."""
    from hookgate.builtins import git as git_builtins

    home, repo = world
    monkeypatch.setenv("HOME", str(home))
    run = {"cwd": repo, "env": git_env(home), "check": True, "capture_output": True}
    ident = ["-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([GIT, *ident, "commit", "-q", "--allow-empty", "-m", "x"], **run)
    (repo / "src").mkdir()
    subprocess.run([GIT, "worktree", "add", "-q", "-b", "feat/w", str(home / "wt")], **run)

    def branch_of(where: Path) -> str | None:
        got = gitconfig.state(str(where), {})
        assert got["branch"] == git_builtins.branch(str(where))
        return got["branch"]

    assert branch_of(repo) == branch_of(repo / "src") == git_branch(repo, home) == "main"
    assert branch_of(home / "wt") == git_branch(home / "wt", home) == "feat/w"
    subprocess.run([GIT, "switch", "-q", "--detach"], **run)
    assert branch_of(repo) is None and git_branch(repo, home) is None
    assert branch_of(home) is None  # no repository
    odd = home / "wt" / "odd"
    odd.mkdir()
    os.mkfifo(odd / ".git")
    got = gitconfig.state(str(odd), {})
    assert "branch" not in got and got["unknown"]
    assert git_builtins.branch(str(odd)) == "feat/w"  # git.branch searched on to the worktree


# -- which files git reads, from the environment git gets ------------------------------------------


def test_system_xdg_and_global_files_from_the_environment_in_gits_order(world, tmp_path):
    home, repo = world
    system, xdg = tmp_path / "system", tmp_path / "xdg"
    (xdg / "git").mkdir(parents=True)
    system.write_text("[k]\n\tv = system\n")
    (xdg / "git" / "config").write_text("[k]\n\tv = xdg\n")
    (home / ".gitconfig").write_text("[k]\n\tv = home\n")
    with (repo / ".git" / "config").open("a") as f:
        f.write("[k]\n\tv = local\n")
    env = {"GIT_CONFIG_SYSTEM": str(system), "XDG_CONFIG_HOME": str(xdg)}
    run = subprocess.run(
        [GIT, "config", "--get-all", "k.v"],
        cwd=repo,
        env={k: v for k, v in git_env(home).items() if k != "GIT_CONFIG_NOSYSTEM"} | env,
        capture_output=True,
        text=True,
        check=True,
    )
    expected = run.stdout.split()
    assert expected == ["system", "xdg", "home", "local"]
    files = gitconfig.environment_files(env)
    assert read_config(str(repo / ".git"), str(home), **files)["k.v"] == expected
    assert gitconfig.environment_files(env | {"GIT_CONFIG_NOSYSTEM": "1"})["system_file"] is None
    assert gitconfig.environment_files({})["system_file"] == gitconfig.SYSTEM_FILE
    glob = tmp_path / "g"
    glob.write_text("[k]\n\tv = env-global\n")
    env["GIT_CONFIG_GLOBAL"] = str(glob)
    files = gitconfig.environment_files(env)
    run = subprocess.run(
        [GIT, "config", "--get-all", "k.v"],
        cwd=repo,
        env={k: v for k, v in git_env(home).items() if k != "GIT_CONFIG_NOSYSTEM"} | env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert read_config(str(repo / ".git"), str(home), **files)["k.v"] == run.stdout.split()
