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
    "send-pack": _spec(
        "f=force n=dry-run v=verbose q=quiet",
        "all mirror dry-run force receive-pack exec thin atomic signed no-signed stdin "
        "stateless-rpc helper-status force-with-lease no-force-with-lease " + _COMMON,
        "receive-pack exec",
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
    "checkout-index": _spec(
        "a=all f=force n=no-create u=index q=quiet z=z",
        "temp stdin ignore-skip-worktree-bits prefix stage",
        "prefix stage",
    ),
    "read-tree": _spec(
        "m=m u=u i=i n=dry-run v=v",
        "reset trivial aggressive prefix index-output no-sparse-checkout empty quiet "
        "recurse-submodules no-recurse-submodules exclude-per-directory",
        "prefix index-output exclude-per-directory",
    ),
    "rm": _spec(
        "f=force n=dry-run r=r q=quiet",
        "cached ignore-unmatch sparse pathspec-from-file pathspec-file-nul",
        "pathspec-from-file",
    ),
    "worktree": _spec(
        "f=force b=b B=B q=quiet",
        "detach checkout no-checkout lock no-lock reason orphan track no-track guess-remote "
        "expire porcelain verbose",
        "b B reason expire",
    ),
    "prune": _spec("n=dry-run v=verbose", "expire progress", "expire"),
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


# What a known-safe command substitution yields (a word's kind in the shell model, from the
# pack's table) that git never reads as an option: git refuses branch names that start with "-",
# and the others are a hash, a number or an absolute path. Any other kind may be anything: the
# text of "date +FORMAT" is what its format says.
_NEVER_OPTIONS = frozenset(("branch", "revision", "number", "toplevel", "cwd", "temp"))
# Kinds naming the repository the command already runs in: -C "$(git rev-parse --show-toplevel)".
_HERE = frozenset(("toplevel", "cwd"))

# git's own commands (git --list-cmds=main): a name among them is never an alias (git runs the
# command), and those whose behaviour configuration changes in ways the guards read.
GIT_COMMANDS = frozenset(
    """
    add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr
    check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick clean
    clone column commit commit-graph commit-tree config count-objects credential
    credential-cache credential-store daemon describe diagnose diff diff-files diff-index
    diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg
    for-each-ref for-each-repo format-patch fsck fsck-objects gc get-tar-commit-id grep
    hash-object help hook http-backend http-fetch http-push imap-send index-pack init init-db
    instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance
    merge merge-base merge-file merge-index merge-octopus merge-one-file merge-ours
    merge-recursive merge-recursive-ours merge-recursive-theirs merge-resolve merge-subtree
    merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes pack-objects
    pack-redundant pack-refs patch-id pickaxe prune prune-packed pull push quiltimport
    range-diff read-tree rebase receive-pack reflog remote remote-ext remote-fd remote-ftp
    remote-ftps remote-http remote-https repack replace request-pull rerere reset restore
    rev-list rev-parse revert rm send-pack shell shortlog show show-branch show-index show-ref
    sparse-checkout stage stash status stripspace submodule subtree switch symbolic-ref tag
    unpack-file unpack-objects update-index update-ref update-server-info upload-archive
    upload-pack var verify-commit verify-pack verify-tag version whatchanged worktree write-tree
    """.split()
)
_CONFIGURED = frozenset(("push", "send-pack", "pull", "merge", "clean"))
MAX_ALIAS_DEPTH = 16
_PUSHES = frozenset(("push", "send-pack"))  # aliases of aliases followed (git stops at a loop)


def parse_argv(
    argv: list[str],
    env: dict[str, Any],
    cwd: str | None,
    repo_config: dict[str, Any] | None = None,
    line_config: Any = (),
    kinds: Any = (),
) -> dict[str, Any]:
    """The parse of a git argv; see ``git.parse``. ``repo_config`` is the repository's
    configuration on disk (key → values, ``git.config``), ``line_config`` the changes earlier
    ``git config`` commands of the line made to it (``[op, key, value]``), ``kinds`` the shell
    model's kind of each argv word (``None``: the line shows it)."""
    globals_: list[dict[str, Any]] = []
    cmdline = env_config(env)
    dirs = cwd
    target_known = True
    # relative to the directory git runs in (cd x && GIT_DIR=../y/.git git commit)
    git_dir = _env_path(cwd, env.get("GIT_DIR"))
    work_tree = _env_path(cwd, env.get("GIT_WORK_TREE"))
    help_ = False
    hidden = {j for j, kind in enumerate(kinds) if kind is not None and kind not in _NEVER_OPTIONS}
    hidden_globals: list[str] = []
    k = 1
    while k < len(argv):
        a = normalize_option(argv[k])
        if not a.startswith("-") or a == "-":
            break
        name, value, at = a, None, k
        if a == "--":
            k += 1
            break
        if "=" in a and a.startswith("--"):
            name, value = a.split("=", 1)
        elif a in _GLOBAL_VALUES and a != "--exec-path":
            value = argv[k + 1] if k + 1 < len(argv) else ""
            k += 1
            at = k
        elif a[:2] in ("-C", "-c") and len(a) > 2:
            name, value = a[:2], a[2:]
        if name in ("-h", "--help"):
            help_ = True
        shown = at not in hidden
        if not shown and name in ("-c", "--config-env"):
            hidden_globals.append(value or "")  # may set anything: remote.origin.push=+…
        if name == "-C" and value:
            if not shown:
                target_known = False
            elif at >= len(kinds) or kinds[at] not in _HERE:
                dirs = join_path(dirs, value)
        elif name == "-c" and value is not None:
            key, eq, val = value.partition("=")
            cmdline.append((_config_key(key), val if eq else "true"))
        elif name == "--config-env" and value is not None:
            key, _, var = value.partition("=")
            val = env.get(var)
            cmdline.append((_config_key(key), val if isinstance(val, str) else "$" + var))
        elif name in ("--git-dir", "--work-tree"):
            if not shown:
                target_known = False
            elif name == "--git-dir":
                git_dir = join_path(dirs, value or "")
            else:
                work_tree = join_path(dirs, value or "")
        globals_.append({"name": name, "value": value})
        k += 1
    settings = _effective(repo_config, line_config, cmdline)
    subcommand = argv[k].lower() if k < len(argv) else None
    rest = list(argv[k + 1 :]) if k < len(argv) else []
    hidden_rest = {j - k - 1 for j in hidden if j > k}
    alias = script = None
    for _ in range(MAX_ALIAS_DEPTH):
        defined = _last(settings, f"alias.{subcommand}") if subcommand else None
        if defined is None:
            break
        alias = alias or subcommand
        if defined.startswith("!"):
            script = defined[1:]
            break
        words = split_cmdline(defined)
        if not words[0]:
            break  # git: an empty alias, or one starting with a blank, is an error
        subcommand, rest = words[0].lower(), words[1:] + rest
        hidden_rest = {j + len(words) - 1 for j in hidden_rest}
    if subcommand == "help":
        help_ = True
    spec = SPECS.get(subcommand or "", _NO_SPEC)
    options, operands = _parse_subcommand_args(spec, rest)
    if any(n == "--help" or (n == "-h" and subcommand != "branch") for n, _v, _k in options):
        help_ = True
    # after "--" a word is no option, but a push's refspec there may still be +main or :main
    end = rest.index("--") if "--" in rest and subcommand not in _PUSHES else len(rest)
    implied = _implied(subcommand, options, operands, settings)
    return {
        "subcommand": subcommand,
        # what the subcommand word may be when the line does not show it (git $SUB -f)
        "subcommand_kind": kinds[k] if k < len(kinds) else None,
        "args": rest,
        "options": [{"name": n, "value": v} for n, v, _k in options] + implied,
        "operands": [x for x, _k in operands],
        "globals": globals_,
        "dir": dirs if dirs is not None else ".",
        "git_dir": git_dir,
        "work_tree": work_tree,
        "target_known": target_known,
        "config": {key: value for key, value in cmdline},
        "alias": alias,
        "script": script,
        "config_change": _change(subcommand, rest),
        "reads_config": subcommand is not None
        and (subcommand in _CONFIGURED or subcommand not in GIT_COMMANDS),
        # words the line does not show where git reads options: an operand, or a word read as
        # an option whose text is partly unknown (-${X} may be -f, --${X} --force)
        "unknown": hidden_globals
        + [
            rest[j]
            for j in sorted(hidden_rest)
            if j < end and j < len(rest) and _is_read(j, options, operands)
        ],
        "help": help_,
    }


def _is_read(j: int, options: list, operands: list) -> bool:
    """Whether argv word ``j`` of the subcommand is an option or an operand (not an option's
    value, which git reads as that value)."""
    return any(k == j for _n, _v, k in options) or any(k == j for _x, k in operands)


def _change(subcommand: str | None, args: list[str]) -> dict[str, Any] | None:
    if subcommand != "config":
        return None
    change = config_change(args)
    if change is None:
        return None
    out: dict[str, Any] = dict(zip(("op", "key", "value", "scope"), change, strict=True))
    op, key, value, _scope = change
    if op != "unset" and key.startswith("alias.") and not value.startswith("!"):
        out["alias_argv"] = ["git", *split_cmdline(value)]  # what the alias will run
    return out


def _env_path(cwd: str | None, value: Any) -> str | None:
    return join_path(cwd, value) if isinstance(value, str) and value else None


def split_cmdline(text: str) -> list[str]:
    """An alias value split into words as git's ``split_cmdline`` does: quotes and backslashes
    as in the shell, and every run of blanks ends a word, so blanks at the end (or start) of
    the value leave an empty word."""
    words: list[str] = []
    current: list[str] = []
    quote = ""
    i = 0
    while i < len(text):
        c = text[i]
        if not quote and c.isspace():
            words.append("".join(current))
            current = []
            while i + 1 < len(text) and text[i + 1].isspace():
                i += 1
        elif c == "\\" and quote != "'":
            i += 1
            if i < len(text):
                current.append(text[i])
        elif c == quote:
            quote = ""
        elif not quote and c in "'\"":
            quote = c
        else:
            current.append(c)
        i += 1
    words.append("".join(current))
    return words


def _effective(
    repo: dict[str, Any] | None, ops: Any, cmdline: list[tuple[str, str]]
) -> dict[str, list[str]]:
    """The configuration git sees: the repository's files, the line's ``git config`` changes to
    them, then the command line's (``GIT_CONFIG_*``, ``-c``), which come last."""
    out: dict[str, list[str]] = {}
    if isinstance(repo, dict):
        for key, values in repo.items():
            if isinstance(values, (list, tuple)):
                out[key] = [v for v in values if isinstance(v, str)]
    for op in ops or ():
        if not isinstance(op, (list, tuple)) or len(op) != 3:
            continue
        kind, key, value = op
        if kind == "set":
            out[key] = [value]
        elif kind == "add":
            out.setdefault(key, []).append(value)
        elif kind == "unset":
            out.pop(key, None)
    for key, value in cmdline:
        out.setdefault(key, []).append(value)
    return out


def _last(settings: dict[str, list[str]], key: str) -> str | None:
    values = settings.get(key)
    return values[-1] if values else None


def config_bool(value: str | None) -> bool | None:
    """git's boolean reading of a value (None: not a boolean, or not set)."""
    if value is None:
        return None
    v = value.strip().lower()
    if v in ("true", "yes", "on"):
        return True
    if v in ("false", "no", "off", ""):
        return False
    if v.lstrip("-").isdigit():
        return int(v) != 0
    return None


def _implied(
    sub: str | None,
    options: list[tuple[str, str | None, int]],
    operands: list[tuple[str, int]],
    settings: dict[str, list[str]],
) -> list[dict[str, Any]]:
    """The options configuration makes a command behave as if given (``remote.origin.push =
    +refs/heads/*:…`` makes a plain ``git push origin`` a forced push), each with the key that
    implies it; an option written on the line that says otherwise wins, as in git."""
    given = {n for n, _v, _k in options}
    out: list[dict[str, Any]] = []

    def imply(name: str, key: str, unless: tuple[str, ...]) -> None:
        if name not in given and not given.intersection(unless):
            out.append({"name": name, "value": None, "config": key})

    if sub == "push" and len(operands) <= 1:
        whole = ("--all", "--branches", "--mirror", "--tags", "--delete")
        for remote in _push_remotes(operands, settings):
            key = f"remote.{remote}.push"
            if any(r.startswith("+") for r in settings.get(key, ())):
                imply("--force", key, whole)
            key = f"remote.{remote}.mirror"
            if config_bool(_last(settings, key)):
                imply("--mirror", key, ())
    elif sub == "pull":
        if config_bool(_last(settings, "pull.rebase")) is False:
            imply("--no-rebase", "pull.rebase", ("--rebase", "--no-rebase"))
        ff = (_last(settings, "pull.ff") or "").lower()
        if ff == "only":
            imply("--ff-only", "pull.ff", ("--ff", "--no-ff"))
        elif config_bool(ff or None) is False:
            imply("--no-ff", "pull.ff", ("--ff", "--ff-only"))
    elif sub == "merge":
        ff = (_last(settings, "merge.ff") or "").lower()
        if ff == "only":
            imply("--ff-only", "merge.ff", ("--ff", "--no-ff"))
    elif sub == "clean":
        if config_bool(_last(settings, "clean.requireforce")) is False:
            imply("--force", "clean.requireforce", ("--dry-run", "--interactive"))
    return out


def _push_remotes(operands: list[tuple[str, int]], settings: dict[str, list[str]]) -> list[str]:
    """The remotes a push may go to: the one named, else every one configuration may pick (the
    branch's ``pushRemote``/``remote``, ``remote.pushDefault``, ``origin``)."""
    if operands:
        return [operands[0][0]]
    names = {"origin"}
    for key, values in settings.items():
        if key == "remote.pushdefault" or (
            key.startswith("branch.") and key.endswith((".pushremote", ".remote"))
        ):
            names.update(values[-1:])
    return sorted(names)


def _config_key(key: str) -> str:
    """git config keys: section and variable are case-insensitive, a subsection is not."""
    first, _, rest = key.partition(".")
    if "." in rest:
        sub, _, var = rest.rpartition(".")
        return f"{first.lower()}.{sub}.{var.lower()}"
    return f"{first.lower()}.{rest.lower()}"


def env_config(env: dict[str, Any]) -> list[tuple[str, str]]:
    """The settings the environment gives every git command, in git's order:
    ``GIT_CONFIG_PARAMETERS`` (``'key'='value'`` words, shell-quoted; the older ``'key=value'``
    too), then ``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n`` for n below ``GIT_CONFIG_COUNT`` (every
    n when the count is not a number the line shows)."""
    out: list[tuple[str, str]] = []
    params = env.get("GIT_CONFIG_PARAMETERS")
    if isinstance(params, str):
        out.extend(_config_parameters(params))
    count = env.get("GIT_CONFIG_COUNT")
    if count is None:
        return out
    limit = int(count) if isinstance(count, str) and count.strip().isdigit() else None
    pairs = []
    for name, key in env.items():
        n = name[len("GIT_CONFIG_KEY_") :]
        if name.startswith("GIT_CONFIG_KEY_") and n.isdigit() and isinstance(key, str):
            if limit is None or int(n) < limit:
                pairs.append((int(n), _config_key(key), str(env.get("GIT_CONFIG_VALUE_" + n, ""))))
    out.extend((key, value) for _n, key, value in sorted(pairs))
    return out


def _config_parameters(text: str) -> list[tuple[str, str]]:
    """``GIT_CONFIG_PARAMETERS`` read as git's ``sq_dequote_step`` reads it."""
    words: list[str] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        word: list[str] = []
        while i < n and not text[i].isspace():
            if text[i] == "'":
                j = text.find("'", i + 1)
                j = n if j < 0 else j
                word.append(text[i + 1 : j])
                i = j + 1
            elif text[i] == "\\" and i + 1 < n:
                word.append(text[i + 1])
                i += 2
            else:
                word.append(text[i])  # git refuses this; read it rather than drop it
                i += 1
        words.append("".join(word))
    out = []
    for w in words:
        key, eq, value = w.partition("=")
        out.append((_config_key(key), value if eq else "true"))
    return out


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


def worktree_added(parsed: dict[str, Any]) -> tuple[str, str] | None:
    """``(path, branch)`` of the worktree ``git worktree add`` makes: the branch ``-b``/``-B``
    creates, else the one it names (``--force`` lets it be one checked out elsewhere, even
    main), else a new one named after the path; ``""`` for ``--detach``."""
    ops = parsed["operands"]
    if parsed["subcommand"] != "worktree" or parsed["help"] or ops[:1] != ["add"] or len(ops) < 2:
        return None
    branch = next((o["value"] for o in parsed["options"] if o["name"] in ("-b", "-B")), None)
    if any(o["name"] == "--detach" for o in parsed["options"]):
        branch = ""
    if branch is None:
        branch = ops[2] if len(ops) > 2 else ops[1].rstrip("/").rsplit("/", 1)[-1]
    return ops[1], branch


def repository_key(parsed: dict[str, Any]) -> tuple[Any, Any]:
    """Which repository a parsed git command works on, as written in the line (relative to the
    payload's cwd): its ``--git-dir``/``GIT_DIR``, else its directory."""
    return (parsed["git_dir"], None if parsed["git_dir"] else parsed["dir"])


# git config's options that take a value, and those that only read.
_CONFIG_VALUE_OPTIONS = frozenset(
    ("-f", "--file", "--blob", "--type", "--default", "--comment", "--value", "--url")
)
_CONFIG_READS = frozenset(
    (
        "get", "list", "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color",
        "--get-colorbool", "-l", "--list", "-e", "--edit", "edit",
    )
)  # fmt: skip


def config_change(args: list[str]) -> tuple[str, str, str, str] | None:
    """What ``git config <args>`` writes: ``(op, key, value, scope)``, op ``set``/``add``/
    ``unset``, scope ``local``/``global``/``system``/``worktree`` or ``file:<path>``; None when
    it only reads or changes nothing this model follows. Every spelling: ``git config k v``,
    ``set``, ``--add``, ``--append``, ``--replace-all``, ``--unset[-all]``, ``unset``, a value
    pattern after the value, ``--global``/``--local``/``-f file``/``--file=file``."""
    scope = "local"
    op = "set"
    operands: list[str] = []
    k = 0
    while k < len(args):
        a = normalize_option(args[k])
        name, eq, value = a.partition("=")
        if a in _CONFIG_READS or (not operands and a in ("get", "list", "edit")):
            return None
        if name in _CONFIG_VALUE_OPTIONS:
            if not eq:
                k += 1
                value = args[k] if k < len(args) else ""
            if name in ("-f", "--file"):
                scope = "file:" + value
            elif name == "--blob":
                return None  # reads a blob, writes nothing
        elif a in ("--global", "--system", "--local", "--worktree"):
            scope = a[2:]
        elif a in ("--add", "--append"):
            op = "add"
        elif a in ("--unset", "--unset-all") or (not operands and a == "unset"):
            op = "unset"
        elif a.startswith("-") and len(a) > 1:
            pass  # --replace-all, --bool, --all, …: a set either way
        elif not operands and a == "set":
            pass
        else:
            operands.append(args[k])
        k += 1
    if not operands:
        return None
    key = _config_key(operands[0])
    if op == "unset":
        return ("unset", key, "", scope)
    if len(operands) < 2:
        return None  # git config k: reads k
    return (op, key, operands[1], scope)


# Settings whose value is a program git runs (through the shell when it has shell syntax): the
# variable names, for any subsection (diff.<driver>.textconv), and those whose value runs only
# after a "!" (aliases, credential helpers).
_PROGRAM_VARIABLES = frozenset(
    (
        "core.editor", "core.pager", "core.sshcommand", "core.askpass", "core.gitproxy",
        "core.fsmonitor", "sequence.editor", "diff.external", "gpg.program",
        "gpg.ssh.program", "gpg.x509.program", "web.browser", "interactive.difffilter",
        "diff.*.textconv", "diff.*.command", "filter.*.clean", "filter.*.smudge",
        "filter.*.process", "merge.*.driver", "difftool.*.cmd", "mergetool.*.cmd",
        "man.*.cmd", "browser.*.cmd", "remote.*.receivepack",
        "remote.*.uploadpack", "sendemail.sendmailcmd",
        "sendemail.tocmd", "sendemail.cccmd", "sendemail.smtpserver", "uploadpack.packobjectshook",
    )
)  # fmt: skip
_BANG_VARIABLES = frozenset(("credential.helper", "credential.*.helper"))
# Environment variables that name a program git runs.
PROGRAM_ENV = frozenset(
    (
        "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "GIT_SSH_COMMAND", "GIT_SSH",
        "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PROXY_COMMAND", "EDITOR",
        "VISUAL", "PAGER",
    )
)  # fmt: skip


def _shape(key: str) -> str:
    """``diff.foo.textconv`` as ``diff.*.textconv``; a two-part key as it is."""
    first, _, rest = key.partition(".")
    if "." not in rest:
        return key
    return first + ".*." + rest.rpartition(".")[2]


def program_script(key: str, value: str) -> str | None:
    """The shell script a setting makes git run, or None (not a program setting, or a value
    that names no program: ``core.pager=false``, ``core.fsmonitor=true``, a credential helper
    without ``!``, which is ``git credential-<name>``)."""
    shape = _shape(key)
    if key.startswith("alias.") or shape in _BANG_VARIABLES:
        return value[1:] if value.startswith("!") else None
    if (
        key in _PROGRAM_VARIABLES
        or shape in _PROGRAM_VARIABLES
        or (key.startswith("pager.") and key.count(".") == 1)
    ):
        if config_bool(value) is not None and not value.strip().isdigit():
            return None  # pager.log=false, core.fsmonitor=true: no program
        return value if value.strip() else None
    return None


def program_scripts(parsed: dict[str, Any], env: dict[str, Any]) -> list[str]:
    """The scripts a git command's own settings make it run: ``-c``/``--config-env``/
    ``GIT_CONFIG_*`` program settings (``-c core.editor='…'``), ``GIT_EDITOR``-like variables
    and a shell alias (``!…``) from wherever it was defined."""
    out = []
    for key, value in parsed["config"].items():
        if not key.startswith("alias."):
            script = program_script(key, value)
            if script:
                out.append(script)
    for name in sorted(PROGRAM_ENV):
        value = env.get(name)
        if isinstance(value, str) and value.strip():
            out.append(value)
    if parsed.get("script"):
        out.append(parsed["script"])
    names = _PROGRAM_OPTIONS.get(parsed["subcommand"] or "", ())
    args = parsed["args"]
    for k, a in enumerate(args):
        if a == "--":
            break
        for name in names:
            glued = name + "=" if name.startswith("--") else name
            if a == name and k + 1 < len(args):
                out.append(args[k + 1])
            elif a.startswith(glued) and a != name:
                out.append(a[len(glued) :])
        if a.startswith("ext::"):
            out.append(ext_command(a[5:]))
    return out


# Options whose value is a program git runs through the shell: the other side of a local or
# ssh transport (git push --receive-pack='…' ../repo.git runs it here).
_PROGRAM_OPTIONS = {
    "push": ("--receive-pack", "--exec"),
    "send-pack": ("--receive-pack", "--exec"),
    "fetch": ("--upload-pack",),
    "pull": ("--upload-pack",),
    "ls-remote": ("--upload-pack",),
    "clone": ("--upload-pack", "-u"),
    "archive": ("--exec",),
    "fetch-pack": ("--upload-pack", "--exec"),
}
_EXT_ESCAPES = {" ": " ", "%": "%", "s": "git-upload-pack", "S": "git-upload-pack"}


def ext_command(spec: str) -> str:
    """The command an ``ext::`` remote runs (``ext::sh -c touch% x``), as shell words: blanks
    separate arguments, ``% `` is a blank and ``%%`` a ``%`` in one, ``%s``/``%S`` the service."""
    args: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(spec):
        c = spec[i]
        if c == "%" and i + 1 < len(spec):
            current.append(_EXT_ESCAPES.get(spec[i + 1], ""))
            i += 2
            continue
        if c == " ":
            if current:
                args.append("".join(current))
            current = []
        else:
            current.append(c)
        i += 1
    if current:
        args.append("".join(current))
    return " ".join("'" + a.replace("'", "'\\''") + "'" for a in args)


def _same_repository(a: tuple, b: tuple) -> bool:
    """Whether two repository keys (``repository_key``) name the same repository as far as the
    line shows: the same git directory, or directories one of which is inside the other (``git
    config …`` at the top, then ``cd src && git …``)."""
    if a == b:
        return True
    dir_a = a[1] if a[0] is None else os.path.dirname(a[0])
    dir_b = b[1] if b[0] is None else os.path.dirname(b[0])
    if dir_a is None or dir_b is None:
        return False
    if dir_a == "." or dir_b == ".":
        # relative to the payload's directory: inside it unless it climbs out
        other = dir_b if dir_a == "." else dir_a
        return not (other.startswith(("/", "~", "$")) or other == ".." or other.startswith("../"))
    return dir_a.startswith(dir_b.rstrip("/") + "/") or dir_b.startswith(dir_a.rstrip("/") + "/")


def _is_include(key: str) -> bool:
    return key == "include.path" or (key.startswith("includeif.") and key.endswith(".path"))


class LineState:
    """What the git commands of one line do to later ones: the branch each repository was
    switched to (``git switch -c x``) and the configuration ``git config`` wrote (to a
    repository, globally or to a file), shared by every nested script of the line."""

    def __init__(self) -> None:
        self.switches: list[tuple[tuple, str]] = []  # (repository key, branch) in line order
        self.config: dict[Any, list[list[str]]] = {}  # scope → [op, key, value] in order
        self._scan_of: list | None = None  # the command list read for exports, how far, what
        self._scanned = 0
        self._exports: set[str] = set()

    def see(
        self, cmd: Any, written: dict[str, list[str]], variables: dict[str, Any], before: list
    ) -> list[str]:
        """Read git command ``cmd`` (a ``words.Command``): set its ``branch`` and ``git_config``
        from what the line did before, remember what it does, and return the scripts its own
        settings make git run. ``written``: files the line wrote (path → parts);
        ``variables``: variables the line set (``expansion.Value``); ``before``: the commands before ``cmd``.
        Configuration and program variables count whether exported or not (reading more is
        safe); ``GIT_DIR``/``GIT_WORK_TREE`` only when exported (``export``, ``set -a``), as
        otherwise git never sees them and reads the repository of its directory. Exported ones
        become part of ``cmd.env``, the environment git gets."""
        env = {
            k: v.text
            for k, v in variables.items()
            if k.startswith("GIT_CONFIG") or k in PROGRAM_ENV
        }
        exported = {
            k: v.text
            for k, v in variables.items()
            if (k in env or k in ("GIT_DIR", "GIT_WORK_TREE"))
            and k not in cmd.env
            and self._exported(k, before)
        }
        if exported:
            cmd.env = {**exported, **cmd.env}  # the environment git really gets
        env.update(cmd.env)
        argv = [w.text for w in cmd.words]
        kinds = [w.kind for w in cmd.words]
        first = parse_argv(argv, env, cmd.cwd, None, (), kinds)
        key = repository_key(first)
        ops = self._ops(key, env, cmd.cwd, written, first["config"])
        parsed = parse_argv(argv, env, cmd.cwd, None, ops, kinds) if ops else first
        cmd.git_config = ops
        cmd.branch = next((b for k, b in reversed(self.switches) if _same_repository(k, key)), None)
        switched = switched_branch(parsed)
        if switched is not None:
            self.switches.append((key, switched))
        added = worktree_added(parsed)
        if added is not None:
            self.switches.append(((None, join_path(parsed["dir"], added[0])), added[1]))
        if parsed["subcommand"] == "config" and not parsed["help"]:
            change = config_change(parsed["args"])
            if change is not None:
                op, name, value, scope = change
                where: Any = ("repo", key) if scope in ("local", "worktree") else scope
                if scope.startswith("file:"):
                    path = join_path(cmd.cwd, scope[5:])
                    where = ("file", path)
                    if path == ".git/config" or path.endswith("/.git/config"):
                        # git config -f .git/config: the repository's own file
                        where = ("repo", (None, path[: -len("/.git/config")] or "."))
                self.config.setdefault(where, []).append([op, name, value])
        return program_scripts(parsed, env)

    def _exported(self, name: str, before: list) -> bool:
        """Whether a command before exported ``name`` (``export NAME``, ``declare -x``,
        ``set -a``); each list of commands is read once, however many git commands follow."""
        if self._scan_of is not before:
            self._scan_of, self._scanned, self._exports = before, 0, set()
        for c in before[self._scanned :]:
            args = [w.text for w in c.words[1:]]
            if c.name == "set" and ("-a" in args or "allexport" in args):
                self._exports.add("*")
            if c.name == "export" or (c.name in ("declare", "typeset") and "-x" in args):
                self._exports.update(a.partition("=")[0] for a in args)
        self._scanned = len(before)
        return name in self._exports or "*" in self._exports

    def _ops(
        self,
        key: tuple,
        env: dict[str, Any],
        cwd: str | None,
        written: dict[str, list[str]],
        cmdline: dict[str, str],
    ) -> list[list[str]]:
        ops: list[list[str]] = []
        for var in ("GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL"):
            path = env.get(var)
            if isinstance(path, str) and path:
                ops += self._file(join_path(cwd, path), written)
        if not isinstance(env.get("GIT_CONFIG_GLOBAL"), str):
            ops += self.config.get("global", [])
        for (scope, *rest), changes in self.config.items():
            if scope == "repo" and _same_repository(rest[0], key):
                ops += changes
        for name, value in cmdline.items():
            if _is_include(name):
                ops += self._file(join_path(cwd, value), written)
        out: list[list[str]] = []
        for op in ops:
            out.append(op)
            if op[0] != "unset" and _is_include(op[1]):
                out += self._file(join_path(cwd, op[2]), written)
        return out

    def _file(self, path: str, written: dict[str, list[str]]) -> list[list[str]]:
        """The settings a configuration file holds as far as the line shows: what the line
        wrote into it, then what ``git config -f`` set there."""
        from hookgate.shell import gitconfig

        ops: list[list[str]] = []
        text = written.get(path)
        if text is not None:
            try:
                entries = gitconfig.parse("\n".join(text), path)
            except gitconfig.ConfigError:
                entries = []
            ops += [["add", k, gitconfig.VALUELESS if v is None else v] for k, v, _l in entries]
        return ops + self.config.get(("file", path), [])


def repository_config(path: str) -> dict[str, list[str]]:
    """The configuration of the repository containing absolute ``path`` (``git.config``)."""
    from hookgate.shell import gitconfig

    git_dir = find_git_dir(path)
    if git_dir is None:
        return {}
    try:
        return gitconfig.read_config(git_dir, os.path.expanduser("~") or None)
    except gitconfig.ConfigError:
        return {}


MAX_PACKED_REFS = 1 << 20  # bytes of packed-refs read


def _packed_refs(common: str) -> set[str]:
    path = os.path.join(common, "packed-refs")
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return set()
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        try:
            data = os.read(fd, MAX_PACKED_REFS).decode("utf-8", "replace")
        finally:
            os.close(fd)
    except OSError:
        return set()
    return {
        line.split(" ", 1)[1] for line in data.splitlines() if line[:1] not in "#^" and " " in line
    }


def checkout_target(directory: str, name: str) -> str | None:
    """How ``git checkout <name>`` (one operand, no ``--``) reads ``name`` in the repository
    containing ``directory``: ``"revision"`` (a branch, tag, remote branch it would track, or a
    revision expression), ``"path"`` (no such revision, but a file or directory of that name
    exists: git restores it from the index, discarding changes), or None (no repository, or
    neither: git fails)."""
    git_dir = find_git_dir(directory)
    if git_dir is None or not name:
        return None
    if name in ("-", "HEAD", "@") or any(c in name for c in "~^@:{"):
        return "revision"
    if len(name) >= 4 and all(c in "0123456789abcdef" for c in name.lower()):
        return "revision"
    from hookgate.shell.gitconfig import common_dir

    common = common_dir(git_dir)
    candidates = [name, f"refs/{name}", f"refs/tags/{name}", f"refs/heads/{name}"]
    candidates += [f"refs/remotes/{name}"]
    for ref in candidates:
        if _read_small(os.path.join(common, ref)) is not None:
            return "revision"
    packed = _packed_refs(common)
    if packed.intersection(candidates) or any(
        r.startswith("refs/remotes/") and r.endswith("/" + name) for r in packed
    ):
        return "revision"
    remotes = os.path.join(common, "refs", "remotes")
    try:
        names = os.listdir(remotes) if _is_dir(remotes) else []
    except OSError:
        names = []
    if any(_read_small(os.path.join(remotes, r, name)) is not None for r in names[:64]):
        return "revision"  # git checkout x creates x tracking origin/x
    return "path" if os.path.lexists(os.path.join(directory, name)) else None
