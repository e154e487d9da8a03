"""git as it reads a command line and its repository: argv parsed with git's own option tables
(``-n`` is ``--no-verify`` for ``commit``, ``--dry-run`` for ``push``), configuration given on
the line, the force-free form of a push, and the current branch read from the repository files
(no process, no symlink followed).
"""

from __future__ import annotations

import os
import stat

from hookgate.shell.edits import apply_edits
from hookgate.shell.parser import analyse
from hookgate.shell.words import join_path, normalize_option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_UP = 64  # directories walked upward looking for a repository


MAX_READ = 4096  # bytes read from .git files and HEAD


class Spec:
    """How one git subcommand's options are spelled (fixed tables, never modified)."""

    __slots__ = ("shorts", "longs", "values")

    def __init__(
        self, shorts: dict[str, str], longs: frozenset[str], values: frozenset[str]
    ) -> None:
        self.shorts = shorts  # short letter -> long name (without dashes)
        self.longs = longs  # known long names, for abbreviations
        self.values = values  # long names (or short letters) that take a value


def _spec(shorts: str, longs: str, values: str) -> Spec:
    pairs = dict(p.split("=") for p in shorts.split())
    long_names = frozenset(longs.split()) | frozenset(v for v in pairs.values() if len(v) > 1)
    return Spec(pairs, long_names, frozenset(values.split()))


_COMMON = "quiet verbose progress no-progress help"


SPECS: dict[str, Spec] = {
    "commit": _spec(
        "a=all p=patch C=reuse-message c=reedit-message F=file m=message s=signoff n=no-verify "
        "e=edit i=include o=only v=verbose q=quiet t=template z=null",
        "fixup squash reset-author short branch porcelain long author date verify no-verify "
        "allow-empty allow-empty-message cleanup no-edit amend no-post-rewrite dry-run status "
        "no-status gpg-sign no-gpg-sign untracked-files trailer pathspec-from-file "
        "pathspec-file-nul interactive no-signoff " + _COMMON,
        "reuse-message reedit-message file message template author date fixup squash cleanup "
        "trailer pathspec-from-file C c F m t",
    ),
    "push": _spec(
        "f=force n=dry-run u=set-upstream d=delete o=push-option v=verbose q=quiet",
        "all branches mirror tags follow-tags no-follow-tags atomic no-atomic porcelain prune "
        "force-with-lease no-force-with-lease force-if-includes no-force-if-includes repo thin "
        "no-thin recurse-submodules verify no-verify signed no-signed ipv4 ipv6 receive-pack "
        "exec " + _COMMON,
        "push-option repo receive-pack exec o",
    ),
    "merge": _spec(
        "n=no-stat e=edit m=message F=file s=strategy X=strategy-option v=verbose q=quiet",
        "commit no-commit no-edit cleanup ff no-ff ff-only log no-log stat squash no-squash "
        "verify no-verify verify-signatures no-verify-signatures summary no-summary autostash "
        "no-autostash allow-unrelated-histories rerere-autoupdate no-rerere-autoupdate gpg-sign "
        "no-gpg-sign into-name abort continue quit signoff no-signoff " + _COMMON,
        "message file strategy strategy-option into-name cleanup m F s X",
    ),
    "pull": _spec(
        "n=no-stat r=rebase f=force e=edit s=strategy X=strategy-option v=verbose q=quiet",
        "no-rebase commit no-commit no-edit ff no-ff ff-only log no-log stat squash no-squash "
        "verify no-verify verify-signatures no-verify-signatures autostash no-autostash all "
        "append upload-pack depth deepen shallow-since unshallow tags no-tags prune "
        "allow-unrelated-histories " + _COMMON,
        "strategy strategy-option upload-pack depth deepen shallow-since s X",
    ),
    "rebase": _spec(
        "i=interactive x=exec s=strategy X=strategy-option f=force-rebase m=merge n=no-stat "
        "v=verbose q=quiet r=rebase-merges",
        "onto keep-base continue skip abort quit edit-todo show-current-patch apply empty "
        "keep-empty no-keep-empty reapply-cherry-picks no-reapply-cherry-picks "
        "allow-empty-message stat no-stat verify no-verify no-ff fork-point no-fork-point "
        "ignore-whitespace whitespace committer-date-is-author-date ignore-date signoff "
        "autosquash no-autosquash autostash no-autostash root update-refs no-update-refs "
        "gpg-sign no-gpg-sign " + _COMMON,
        "onto exec strategy strategy-option whitespace empty x s X",
    ),
    "am": _spec(
        "n=no-verify s=signoff k=keep 3=3way i=interactive q=quiet",
        "verify no-verify keep-non-patch keep-cr no-keep-cr scissors no-scissors "
        "message-id no-message-id quoted-cr empty whitespace directory exclude include reject "
        "patch-format resolved continue skip abort quit show-current-patch "
        "committer-date-is-author-date ignore-date gpg-sign no-gpg-sign " + _COMMON,
        "whitespace directory exclude include patch-format empty quoted-cr C p",
    ),
    "checkout": _spec(
        "b=b B=B f=force m=merge p=patch q=quiet t=track l=l",
        "merge patch quiet track no-track detach orphan ours theirs conflict "
        "ignore-other-worktrees recurse-submodules no-recurse-submodules overlay no-overlay "
        "pathspec-from-file pathspec-file-nul ignore-skip-worktree-bits guess no-guess force",
        "b B orphan conflict pathspec-from-file",
    ),
    "switch": _spec(
        "c=create C=force-create f=force d=detach m=merge t=track q=quiet",
        "discard-changes guess no-guess conflict orphan no-track ignore-other-worktrees "
        "recurse-submodules no-recurse-submodules progress no-progress",
        "create force-create conflict orphan c C",
    ),
    "restore": _spec(
        "s=source S=staged W=worktree p=patch q=quiet m=merge",
        "ours theirs conflict ignore-unmerged ignore-skip-worktree-bits recurse-submodules "
        "no-recurse-submodules overlay no-overlay pathspec-from-file pathspec-file-nul progress",
        "source conflict pathspec-from-file s",
    ),
    "reset": _spec(
        "q=quiet p=patch N=intent-to-add",
        "soft mixed hard merge keep recurse-submodules no-recurse-submodules "
        "pathspec-from-file pathspec-file-nul no-refresh refresh",
        "pathspec-from-file",
    ),
    "clean": _spec(
        "d=d f=force i=interactive n=dry-run q=quiet e=exclude x=x X=X",
        "force interactive dry-run quiet exclude",
        "exclude e",
    ),
    "branch": _spec(
        "d=delete f=force m=move c=copy r=remotes a=all l=list v=verbose q=quiet t=track "
        "u=set-upstream-to D=D M=M C=C",
        "no-track unset-upstream contains no-contains merged no-merged sort format points-at "
        "create-reflog edit-description show-current column no-column color no-color abbrev "
        "no-abbrev ignore-case omit-empty recurse-submodules",
        "set-upstream-to contains no-contains merged no-merged sort format points-at u",
    ),
    "stash": _spec(
        "q=quiet p=patch k=keep-index u=include-untracked a=all m=message",
        "staged no-keep-index index pathspec-from-file",
        "message m",
    ),
    "tag": _spec(
        "a=annotate s=sign d=delete f=force l=list m=message F=file u=local-user",
        "cleanup sort contains points-at merged no-merged",
        "message file local-user cleanup sort contains points-at m F u",
    ),
    "cherry-pick": _spec(
        "e=edit n=no-commit x=x m=mainline s=signoff",
        "continue skip abort quit ff allow-empty strategy strategy-option",
        "mainline strategy strategy-option m X",
    ),
    "revert": _spec(
        "e=edit n=no-commit m=mainline s=signoff",
        "continue skip abort quit no-edit strategy strategy-option",
        "mainline strategy strategy-option m X",
    ),
}


_NO_SPEC = Spec({}, frozenset(), frozenset())


# Global options of git itself (before the subcommand) that take a value.
_GLOBAL_VALUES = {
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--super-prefix",
    "--list-cmds",
    "--exec-path",
    "--attr-source",
}


def _long_name(spec: Spec, given: str) -> str:
    """A long option name as git resolves it: exact, else a unique known prefix."""
    if given in spec.longs or not spec.longs:
        return given
    matches = [n for n in spec.longs if n.startswith(given)]
    return matches[0] if len(matches) == 1 else given


def _parse_subcommand_args(
    spec: Spec, args: list[str]
) -> tuple[list[tuple[str, str | None, int]], list[tuple[str, int]]]:
    """Options (name, value, argv index) and operands (text, argv index) of a subcommand."""
    options: list[tuple[str, str | None, int]] = []
    operands: list[tuple[str, int]] = []
    k = 0
    while k < len(args):
        index = k  # where the option was written (its value may be the next word)
        raw = args[k]
        a = normalize_option(raw)
        if a == "--":
            operands.extend((x, j) for j, x in enumerate(args[k + 1 :], k + 1))
            break
        if a.startswith("--") and len(a) > 2:
            name, eq, value = a[2:].partition("=")
            name = _long_name(spec, name)
            if eq:
                options.append(("--" + name, value, index))
            elif name in spec.values and k + 1 < len(args):
                options.append(("--" + name, args[k + 1], index))
                k += 1
            else:
                options.append(("--" + name, None, index))
        elif a.startswith("-") and len(a) > 1:
            for j in range(1, len(a)):
                letter = a[j]
                name = spec.shorts.get(letter, letter)
                full = "--" + name if len(name) > 1 else "-" + name
                if letter in spec.values or name in spec.values:
                    value = a[j + 1 :] if j + 1 < len(a) else None
                    if value is None and k + 1 < len(args):
                        value = args[k + 1]
                        k += 1
                    options.append((full, value, index))
                    break
                options.append((full, None, index))
        else:
            operands.append((raw, k))
        k += 1
    return options, operands


def parse_argv(argv: list[str], env: dict[str, Any], cwd: str | None) -> dict[str, Any]:
    """The parse of a git argv; see ``git.parse``."""
    globals_: list[dict[str, Any]] = []
    config: dict[str, str] = {}
    dirs = cwd
    git_dir = env.get("GIT_DIR")
    work_tree = env.get("GIT_WORK_TREE")
    help_ = False
    _env_config(env, config)
    k = 1
    while k < len(argv):
        a = normalize_option(argv[k])
        if not a.startswith("-") or a == "-":
            break
        name, value = a, None
        if a == "--":
            k += 1
            break
        if "=" in a and a.startswith("--"):
            name, value = a.split("=", 1)
        elif a in _GLOBAL_VALUES and a != "--exec-path":
            value = argv[k + 1] if k + 1 < len(argv) else ""
            k += 1
        elif a[:2] in ("-C", "-c") and len(a) > 2:
            name, value = a[:2], a[2:]
        if name in ("-h", "--help"):
            help_ = True
        if name == "-C" and value:
            dirs = join_path(dirs, value)
        elif name == "-c" and value is not None:
            key, _, val = value.partition("=")
            config[_config_key(key)] = val
        elif name == "--config-env" and value is not None:
            key, _, var = value.partition("=")
            config[_config_key(key)] = "$" + var
        elif name == "--git-dir":
            git_dir = join_path(dirs, value or "")
        elif name == "--work-tree":
            work_tree = join_path(dirs, value or "")
        globals_.append({"name": name, "value": value})
        k += 1
    subcommand = argv[k].lower() if k < len(argv) else None
    rest = list(argv[k + 1 :]) if k < len(argv) else []
    alias = config.get(f"alias.{subcommand}") if subcommand else None
    if alias and not alias.startswith("!"):
        words = alias.split()
        subcommand, rest = words[0].lower(), words[1:] + rest
    if subcommand == "help":
        help_ = True
    spec = SPECS.get(subcommand or "", _NO_SPEC)
    options, operands = _parse_subcommand_args(spec, rest)
    if any(n == "--help" or (n == "-h" and subcommand != "branch") for n, _v, _k in options):
        help_ = True
    return {
        "subcommand": subcommand,
        "args": rest,
        "options": [{"name": n, "value": v} for n, v, _k in options],
        "operands": [x for x, _k in operands],
        "globals": globals_,
        "dir": dirs if dirs is not None else ".",
        "git_dir": git_dir,
        "work_tree": work_tree,
        "config": config,
        "help": help_,
    }


def _config_key(key: str) -> str:
    """git config keys: section and variable are case-insensitive, a subsection is not."""
    first, _, rest = key.partition(".")
    if "." in rest:
        sub, _, var = rest.rpartition(".")
        return f"{first.lower()}.{sub}.{var.lower()}"
    return f"{first.lower()}.{rest.lower()}"


def _env_config(env: dict[str, Any], config: dict[str, str]) -> None:
    """``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n`` set config too."""
    for name, key in env.items():
        if name.startswith("GIT_CONFIG_KEY_") and isinstance(key, str):
            value = env.get("GIT_CONFIG_VALUE_" + name[len("GIT_CONFIG_KEY_") :], "")
            config[_config_key(key)] = str(value)
    params = env.get("GIT_CONFIG_PARAMETERS")
    if isinstance(params, str):
        for part in params.split():
            key, _, val = part.strip("'").partition("=")
            config[_config_key(key)] = val.strip("'")


def has_option(parsed: dict[str, Any], flag: str) -> bool:
    """``shell.has_flag`` on a ``git.parse`` result: the flag under git's own names."""
    spec = SPECS.get(parsed.get("subcommand") or "", _NO_SPEC)
    if flag.startswith("--"):
        name = flag[2:].partition("=")[0]
        wanted = "--" + _long_name(spec, name)
    elif len(flag) == 2 and flag[0] == "-":
        long = spec.shorts.get(flag[1], flag[1])
        wanted = "--" + long if len(long) > 1 else "-" + long
    else:
        return False
    return any(o.get("name") == wanted for o in parsed.get("options", []))


FORCE_OPTIONS = frozenset({"--force", "--force-with-lease", "--force-if-includes"})


def _push_force_edits(words: list[Any]) -> list[tuple[int, int, str]]:
    """Edits removing force options and ``+`` refspec prefixes from one ``git … push`` command."""
    argv = [w.text for w in words]
    parsed = parse_argv(argv, {}, None)
    offset = len(argv) - len(parsed["args"])
    if parsed["subcommand"] != "push" or argv[offset - 1].lower() != "push":
        return []  # not a push, or one through an alias: left as written
    options, operands = _parse_subcommand_args(SPECS["push"], parsed["args"])
    edits: list[tuple[int, int, str]] = []
    for name, _value, k in options:
        w = words[offset + k]
        if w.span is None or name not in FORCE_OPTIONS:
            continue
        text = normalize_option(w.text)
        if text.startswith("--"):
            edits.append((w.span[0], w.span[1], ""))
        elif w.span[1] - w.span[0] == len(w.text):
            kept = _without_short_force(text[1:])
            edits.append((w.span[0], w.span[1], "-" + kept if kept else ""))
    for text, k in operands[1:]:
        w = words[offset + k]
        if text.startswith("+") and w.span is not None and w.span[1] - w.span[0] == len(text):
            edits.append((w.span[0], w.span[0] + 1, ""))
    return edits


def _without_short_force(bundle: str) -> str:
    """A push's short-option bundle without ``f``; a value (``-o<value>``) is kept whole."""
    spec = SPECS["push"]
    for j, ch in enumerate(bundle):
        if ch in spec.values:
            return _without_short_force(bundle[:j]) + bundle[j:]
    return "".join(ch for ch in bundle if spec.shorts.get(ch) != "force")


def _read_small(path: str) -> str | None:
    """A small regular file's text; None for anything else (symlink, FIFO, too big, error)."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode):
            return None
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
        try:
            data = os.read(fd, MAX_READ)
        finally:
            os.close(fd)
        return data.decode("utf-8", "replace")
    except OSError:
        return None


def _is_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _is_git_dir(d: str) -> bool:
    """A repository directory itself: bare, a ``.git`` given with ``--git-dir``, or a worktree's
    own git directory (``HEAD`` plus ``refs/`` or a ``commondir`` file)."""
    if _read_small(os.path.join(d, "HEAD")) is None:
        return False
    return _is_dir(os.path.join(d, "refs")) or _read_small(os.path.join(d, "commondir")) is not None


def find_git_dir(start: str) -> str | None:
    """The git directory for ``start``: ``.git`` dirs, ``.git`` files (worktrees, submodules),
    bare repositories; walking upward at most ``MAX_UP`` levels, following no symlinks."""
    d = os.path.normpath(start)
    for _ in range(MAX_UP):
        dot = os.path.join(d, ".git")
        try:
            mode: int | None = os.lstat(dot).st_mode
        except OSError:
            mode = None
        if mode is not None and stat.S_ISLNK(mode):
            return None  # a symlinked .git is not followed (and not skipped past)
        if mode is not None and stat.S_ISDIR(mode):
            return dot
        pointer = _read_small(dot) if mode is not None else None
        if pointer is not None:
            line = pointer.splitlines()[0] if pointer.strip() else ""
            if line.startswith("gitdir:"):
                target = line[len("gitdir:") :].strip()
                return os.path.normpath(os.path.join(d, target))
            return None
        if _is_git_dir(d):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent
    return None


def without_force(cmdline: str) -> str:
    """``cmdline`` with every ``git push`` written in it made a normal push, all else byte for
    byte (see the ``git.without_force`` builtin)."""
    edits = [e for c in analyse(cmdline) if c.name == "git" for e in _push_force_edits(c.words)]
    return apply_edits(cmdline, edits)


def current_branch(path: str) -> str | None:
    """The current branch of the repository containing absolute ``path``, or None (detached
    HEAD, no repository)."""
    git_dir = find_git_dir(path)
    if git_dir is None:
        return None
    head = _read_small(os.path.join(git_dir, "HEAD"))
    if head is None:
        return None
    head = head.strip()
    if head.startswith("ref:"):
        ref = head[4:].strip()
        return ref[len("refs/heads/") :] if ref.startswith("refs/heads/") else ref
    return None


# Options that put HEAD on a new branch (their value) and those that detach it.
_CREATES = frozenset(("--create", "--force-create", "--orphan", "-b", "-B"))
_DETACHES = frozenset(("--detach",))


def switched_branch(parsed: dict[str, Any]) -> str | None:
    """The branch a parsed ``git switch``/``git checkout`` leaves HEAD on: the one it creates
    (``switch -c x``, ``checkout -b x``, ``--orphan x``), the one ``switch x`` names, ``""`` when
    it detaches HEAD; None when it does not switch or it is unclear (``checkout x`` may restore
    a file ``x``: git's own repository then decides, as if the line had not switched)."""
    sub = parsed["subcommand"]
    if sub not in ("switch", "checkout") or parsed["help"]:
        return None
    for option in parsed["options"]:
        if option["name"] in _CREATES and option["value"]:
            return option["value"]
        if option["name"] in _DETACHES:
            return ""
    if sub == "switch" and len(parsed["operands"]) == 1 and parsed["operands"][0] != "-":
        return parsed["operands"][0]
    return None


def repository_key(parsed: dict[str, Any]) -> tuple[Any, Any]:
    """Which repository a parsed git command works on, as written in the line (relative to the
    payload's cwd): its ``--git-dir``/``GIT_DIR``, else its directory."""
    return (parsed["git_dir"], None if parsed["git_dir"] else parsed["dir"])
