"""git's command line: its global options and each subcommand's option table (``-n`` is
``--no-verify`` for ``commit``, ``--dry-run`` for ``push``), aliases followed through the
configuration, the options configuration implies, and the edits that make a push force-free.
"""

from __future__ import annotations

from hookgate.shell.git.configchange import (
    GLOBAL_VALUES,
    config_bool,
    config_change,
    config_key,
    effective,
    env_config,
    expand_alias,
    last_value,
    remote_change,
    settings_read,
    split_cmdline,
    with_settings,
)
from hookgate.shell.words import join_path, normalize_option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


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


def _long_name(spec: Spec, given: str) -> str:
    """A long option name as git resolves it: exact, else a unique known prefix."""
    if given in spec.longs or not spec.longs:
        return given
    matches = [n for n in spec.longs if n.startswith(given)]
    return matches[0] if len(matches) == 1 else given


# Subcommands that read no option after their first operand (parse_options'
# PARSE_OPT_STOP_AT_NON_OPTION): git config alias.c '-c x=y commit' sets that value, -h and all.
_STOPS_AT_OPERAND = frozenset(("config",))


def _parse_subcommand_args(
    spec: Spec, args: list[str], stops: bool = False
) -> tuple[list[tuple[str, str | None, int]], list[tuple[str, int]]]:
    """Options (name, value, argv index) and operands (text, argv index) of a subcommand
    (``stops``: one that reads no option after its first operand)."""
    options: list[tuple[str, str | None, int]] = []
    operands: list[tuple[str, int]] = []
    k = 0
    while k < len(args):
        index = k  # where the option was written (its value may be the next word)
        raw = args[k]
        a = normalize_option(raw)
        if stops and operands:
            operands.extend((x, j) for j, x in enumerate(args[k:], k))
            break
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
# Subcommands whose meaning configuration changes in ways the guards read: the options it
# implies (push, pull, merge, clean) and the hooks they run (core.hooksPath: commit, rebase, am).
_CONFIGURED = frozenset(("push", "send-pack", "pull", "merge", "clean", "commit", "rebase", "am"))
_PUSHES = frozenset(("push", "send-pack"))


# Parses without the repository's configuration, by everything they are made from (a parse
# reads no disk and no process environment then): the shell model parses each git command of a
# line as it reads it, the guards parse it again, and a repeated line is parsed anew on every
# call. Shared: a parse is never modified in place (``reparse`` copies).
_PARSES: dict[tuple, dict[str, Any]] = {}
MAX_PARSES = 512


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
    if repo_config is not None:
        return _parse_argv(argv, env, cwd, repo_config, line_config, kinds)
    # (repr: a value from a policy may be any JSON, and 1, 1.0 and true are equal keys; no line
    # configuration is one key, () from the shell model, [] from a policy's command)
    key = (tuple(argv), cwd, repr(env), repr(line_config) if line_config else "", repr(kinds))
    parsed = _PARSES.get(key)
    if parsed is None:
        parsed = _parse_argv(argv, env, cwd, None, line_config, kinds)
        if len(_PARSES) >= MAX_PARSES:
            _PARSES.clear()
        _PARSES[key] = parsed
    return parsed


def _parse_argv(
    argv: list[str],
    env: dict[str, Any],
    cwd: str | None,
    repo_config: dict[str, Any] | None,
    line_config: Any,
    kinds: Any,
) -> dict[str, Any]:
    (
        k,
        globals_,
        cmdline,
        dirs,
        target_known,
        git_dir,
        work_tree,
        help_,
        hidden,
        hidden_globals,
    ) = _globals(argv, env, cwd, kinds)
    settings, config_unknown, branch = settings_read(repo_config, line_config, cmdline)
    subcommand, rest, hidden_rest, alias, script, given = expand_alias(
        argv, k, hidden, settings, env
    )
    if given:  # an alias's own -c (alias.c = -c core.hooksPath=/dev/null commit): the command's
        cmdline = cmdline + given
        settings = with_settings(settings, given)
    if subcommand == "help":
        help_ = True
    spec = SPECS.get(subcommand or "", _NO_SPEC)
    options, operands = _parse_subcommand_args(spec, rest, subcommand in _STOPS_AT_OPERAND)
    for n, _v, _k in options:
        if n == "--help" or (n == "-h" and subcommand != "branch"):
            help_ = True
            break
    # after "--" a word is no option, but a push's refspec there may still be +main or :main
    end = rest.index("--") if "--" in rest and subcommand not in _PUSHES else len(rest)
    implied = _implied(subcommand, options, operands, settings)
    parsed = {
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
        # where git finds the repository: --git-dir (GIT_DIR), else the -C/cd chain
        "place": git_dir if git_dir is not None else (dirs if dirs is not None else "."),
        "target_known": target_known,
        "config": dict(cmdline),  # the last value of each key
        "alias": alias,
        "script": script,
        "config_change": _change(subcommand, rest),
        # configuration files git reads that could not be: the repository's files the reader
        # gave up on, and files the line wrote with content it does not show
        "config_unknown": config_unknown,
        # the effective core.hooksPath (files, the line's git config and writes, -c, env)
        "hooks_path": last_value(settings, "core.hookspath"),
        # a name git would look up as an alias that no known setting defines
        "may_be_alias": subcommand is not None
        and alias is None
        and subcommand not in GIT_COMMANDS
        and not subcommand.startswith("-"),
        "reads_config": subcommand is not None
        and (subcommand in _CONFIGURED or subcommand not in GIT_COMMANDS),
        # words the line does not show where git reads options: an operand, or a word read as
        # an option whose text is partly unknown (-${X} may be -f, --${X} --force)
        "unknown": hidden_globals
        + [
            rest[j]
            for j in sorted(hidden_rest)
            if j < end and j < len(rest) and _is_read(j, options, operands)
        ]
        if hidden_rest  # (most lines show every word)
        else hidden_globals,
        "help": help_,
        "writes": output_files(subcommand, rest),
    }
    if branch is None or isinstance(branch, str):
        parsed["branch"] = branch  # read with the configuration (git.config_read)
    return parsed


def reparse(
    parsed: dict[str, Any],
    argv: list[str],
    env: dict[str, Any],
    cwd: str | None,
    repo_config: dict[str, Any] | None,
    line_config: Any = (),
    kinds: Any = (),
) -> dict[str, Any]:
    """``parse_argv(argv, env, cwd, repo_config, line_config, kinds)`` from ``parsed``, the
    parse without the repository's configuration (``parse_argv(argv, env, cwd, None,
    line_config, kinds)``): where the configuration expands no further alias, the words are
    read as before and only what it changes is redone (the options it implies,
    core.hooksPath, the files not read, the branch); else the whole parse."""
    if _sets_nothing(repo_config):
        # (no repository, or one whose files set nothing: only the branch is new)
        out = dict(parsed)
        out.pop("branch", None)
        branch = repo_config.get("branch", False)
        if branch is None or isinstance(branch, str):
            out["branch"] = branch
        return out
    k, _g, cmdline, _d, _t, _gd, _wt, _h, hidden, _hg = _globals(argv, env, cwd, kinds)
    settings, config_unknown, branch = settings_read(repo_config, line_config, cmdline)
    subcommand, rest, _hidden_rest, alias, script, given = expand_alias(
        argv, k, hidden, settings, env
    )
    if (
        given
        or subcommand != parsed["subcommand"]
        or rest != parsed["args"]
        or alias != parsed["alias"]
        or script != parsed["script"]
    ):
        return parse_argv(argv, env, cwd, repo_config, line_config, kinds)
    # the same words through the same aliases: the same options, operands, help and unknown
    # words. Of the options, those configuration implies are the ones with a "config" key.
    given = [o for o in parsed["options"] if "config" not in o]
    options = [(o["name"], o["value"], 0) for o in given]
    operands = [(x, 0) for x in parsed["operands"]]
    out = dict(parsed)
    out["options"] = given + _implied(subcommand, options, operands, settings)
    out["config_unknown"] = config_unknown
    out["hooks_path"] = last_value(settings, "core.hookspath")
    out.pop("branch", None)
    if branch is None or isinstance(branch, str):
        out["branch"] = branch
    return out


def _sets_nothing(repo_config: Any) -> bool:
    """Whether ``repo_config`` is a ``git.config_read`` answer that sets nothing and was read in
    full: then the parse with it is the parse without it (``settings_read``), and its branch."""
    return (
        isinstance(repo_config, dict)
        and repo_config.get("values") == {}
        and not repo_config.get("unknown")
        and "dormant" not in repo_config
    )


def _globals(argv: list[str], env: dict[str, Any], cwd: str | None, kinds: Any) -> tuple:
    """git's own options before the subcommand, read as git reads them: the subcommand's argv
    index, the options, the command line's settings (``-c``, ``--config-env``,
    ``GIT_CONFIG_*``), the ``-C`` directory, whether the target is known, ``--git-dir`` and
    ``--work-tree``, help, the argv indexes the line does not show, and the hidden ``-c``s."""
    globals_: list[dict[str, Any]] = []
    cmdline = env_config(env)
    dirs = cwd
    target_known = True
    # relative to the directory git runs in (cd x && GIT_DIR=../y/.git git commit)
    git_dir = _env_path(cwd, env.get("GIT_DIR"))
    work_tree = _env_path(cwd, env.get("GIT_WORK_TREE"))
    help_ = False
    hidden = (
        {j for j, kind in enumerate(kinds) if kind is not None and kind not in _NEVER_OPTIONS}
        if kinds.count(None) != len(kinds)  # (most lines show every word: no walk)
        else set()
    )
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
        elif a in GLOBAL_VALUES and a != "--exec-path":
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
            cmdline.append((config_key(key), val if eq else "true"))
        elif name == "--config-env" and value is not None:
            key, _, var = value.partition("=")
            val = env.get(var)
            cmdline.append((config_key(key), val if isinstance(val, str) else "$" + var))
        elif name in ("--git-dir", "--work-tree"):
            if not shown:
                target_known = False
            elif name == "--git-dir":
                git_dir = join_path(dirs, value or "")
            else:
                work_tree = join_path(dirs, value or "")
        globals_.append({"name": name, "value": value})
        k += 1
    return (
        k,
        globals_,
        cmdline,
        dirs,
        target_known,
        git_dir,
        work_tree,
        help_,
        hidden,
        hidden_globals,
    )


# The subcommands that take git's diff options, whose --output FILE (or --output=FILE) sends
# the diff to FILE instead of stdout, created or emptied even when the command then fails;
# archive writes its archive with -o FILE / --output=FILE.
_DIFF_OUTPUT = frozenset(
    "diff diff-files diff-index diff-tree log show whatchanged format-patch range-diff stash"
    " reflog".split()
)


def output_files(subcommand: str | None, args: list[str]) -> list[str]:
    """The files ``git SUBCOMMAND ARGS`` writes by an output option (``git diff
    --output=x.diff``, ``git archive -o a.tgz HEAD``), as written; none after ``--``. The
    patches of ``git format-patch`` are named by a pattern in their directory (their names come
    from the commits)."""
    if subcommand not in _DIFF_OUTPUT and subcommand != "archive":
        return []
    if subcommand == "format-patch":
        return _output_option(args, ()) or _patch_files(args)
    return _output_option(args, ("-o",) if subcommand == "archive" else ())


def _output_option(args: list[str], shorts: tuple[str, ...]) -> list[str]:
    files: list[str] = []
    k = 0
    while k < len(args) and args[k] != "--":
        a = args[k]
        if a.startswith("--output="):
            files.append(a[len("--output=") :])
        elif (a == "--output" or a in shorts) and k + 1 < len(args):
            files.append(args[k + 1])
            k += 1
        elif shorts and a.startswith("-o") and not a.startswith("--"):
            files.append(a[2:])
        k += 1
    return files


def _patch_files(args: list[str]) -> list[str]:
    """The files ``git format-patch ARGS`` (without ``--output``) writes: one per commit in
    ``-o DIR`` (``--output-directory``; else git's cwd), ``0001-<subject>.patch`` (another
    suffix with ``--suffix``; plain numbers with ``--numbered-files``), nothing with
    ``--stdout``. As one glob of the names git may choose: a guard judges the directory and the
    kind of name, which the line shows, not the subject, which the commits choose.
    (``format.outputDirectory`` and ``format.suffix`` in git's configuration are not read.)"""
    directories, suffix, numbered, stdout = [], ".patch", False, False
    k = 0
    while k < len(args) and args[k] != "--":
        a = args[k]
        value = args[k + 1] if k + 1 < len(args) else None
        if a in ("-o", "--output-directory", "--suffix") and value is not None:
            if a == "--suffix":
                suffix = value
            else:
                directories.append(value)
            k += 1
        elif a.startswith("--output-directory="):
            directories.append(a[len("--output-directory=") :])
        elif a.startswith("-o") and not a.startswith("--") and len(a) > 2:
            directories.append(a[2:])
        elif a.startswith("--suffix="):
            suffix = a[len("--suffix=") :]
        elif a in ("--numbered-files", "--no-numbered-files"):
            numbered = a == "--numbered-files"
        elif a in ("--stdout", "--no-stdout"):
            stdout = a == "--stdout"
        k += 1
    if stdout or len(directories) > 1:  # git refuses both, and two directories
        return []
    name = "[1-9]*" if numbered else f"[0-9][0-9][0-9][0-9]-*{suffix}"
    if not directories or not directories[0]:
        return [name]
    directory = directories[0]
    return [directory + name if directory.endswith("/") else f"{directory}/{name}"]


def _is_read(j: int, options: list, operands: list) -> bool:
    """Whether argv word ``j`` of the subcommand is an option or an operand (not an option's
    value, which git reads as that value)."""
    return any(k == j for _n, _v, k in options) or any(k == j for _x, k in operands)


def _change(subcommand: str | None, args: list[str]) -> dict[str, Any] | None:
    if subcommand not in ("config", "remote"):
        return None
    change = config_change(args) if subcommand == "config" else remote_change(args)
    if change is None:
        return None
    out: dict[str, Any] = dict(zip(("op", "key", "value", "scope"), change, strict=True))
    op, key, value, _scope = change
    if op != "unset" and key.startswith("alias.") and not value.startswith("!"):
        out["alias_argv"] = ["git", *split_cmdline(value)]  # what the alias will run
    return out


def _env_path(cwd: str | None, value: Any) -> str | None:
    return join_path(cwd, value) if isinstance(value, str) and value else None


def _implied(
    sub: str | None,
    options: list[tuple[str, str | None, int]],
    operands: list[tuple[str, int]],
    settings: dict[str, list[str]],
) -> list[dict[str, Any]]:
    """The options configuration makes a command behave as if given (``remote.origin.push =
    +refs/heads/*:…`` makes a plain ``git push origin`` a forced push), each with the key that
    implies it; an option written on the line that says otherwise wins, as in git."""
    if sub not in ("push", "pull", "merge", "clean"):
        return []  # (the subcommands below: most commands have none)
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
            if config_bool(last_value(settings, key)):
                imply("--mirror", key, ())
    elif sub == "pull":
        if config_bool(last_value(settings, "pull.rebase")) is False:
            imply("--no-rebase", "pull.rebase", ("--rebase", "--no-rebase"))
        ff = (last_value(settings, "pull.ff") or "").lower()
        if ff == "only":
            imply("--ff-only", "pull.ff", ("--ff", "--no-ff"))
        elif config_bool(ff or None) is False:
            imply("--no-ff", "pull.ff", ("--ff", "--ff-only"))
    elif sub == "merge":
        ff = (last_value(settings, "merge.ff") or "").lower()
        if ff == "only":
            imply("--ff-only", "merge.ff", ("--ff", "--no-ff"))
    elif sub == "clean":
        if config_bool(last_value(settings, "clean.requireforce")) is False:
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


def subcommand_words(argv: list[str]) -> tuple[str | None, list[str]]:
    """The subcommand of a git argv and its words (``-c`` aliases followed), as
    ``parse_argv(argv, {}, None)`` has them, without the rest of a parse (its configuration,
    options, output files, …), which a caller that edits or reads the words does not need."""
    k, _globals_read, cmdline, *_ = _globals(argv, {}, None, ())
    subcommand, args, *_ = expand_alias(argv, k, set(), effective(None, (), cmdline))
    return subcommand, args


def push_force_changes(words: list[Any]) -> list[tuple[int, str]]:
    """The words of one ``git … push`` command that lose a force: ``(index, text left)``, the
    text ``""`` for a word removed whole. Only words written in the line are changed, so that
    an edit of the line's text (``push_force_edits``) makes exactly these changes."""
    argv = [w.text for w in words]
    subcommand, args = subcommand_words(argv)
    offset = len(argv) - len(args)
    if subcommand != "push" or offset < 1 or argv[offset - 1].lower() != "push":
        return []  # not a push, or one through an alias: left as written
    options, operands = _parse_subcommand_args(SPECS["push"], args)
    changes: list[tuple[int, str]] = []
    for name, _value, k in options:
        w = words[offset + k]
        if w.span is None or name not in FORCE_OPTIONS:
            continue
        text = normalize_option(w.text)
        if text.startswith("--"):
            changes.append((offset + k, ""))
        elif w.span[1] - w.span[0] == len(w.text):
            kept = _without_short_force(text[1:])
            changes.append((offset + k, "-" + kept if kept else ""))
    for text, k in operands[1:]:
        w = words[offset + k]
        if text.startswith("+") and w.span is not None and w.span[1] - w.span[0] == len(text):
            changes.append((offset + k, text[1:]))
    return changes


def push_force_edits(
    words: list[Any], changes: list[tuple[int, str]]
) -> list[tuple[int, int, str]]:
    """The edits of the line's text that make ``push_force_changes(words)``: a word removed
    whole, a bundle rewritten (``-fu`` as ``-u``), the ``+`` of a refspec taken off."""
    edits: list[tuple[int, int, str]] = []
    for k, kept in changes:
        start, end = words[k].span
        if kept and words[k].text.startswith("+"):
            edits.append((start, start + 1, ""))
        else:
            edits.append((start, end, kept))
    return edits


def without_push_force(argv: list[str], changes: list[tuple[int, str]]) -> list[str]:
    """A command's ``argv`` once ``changes`` are made (a word left empty is gone)."""
    out = list(argv)
    for k, kept in reversed(changes):  # (in word order: later indexes first)
        if kept:
            out[k] = kept
        else:
            del out[k]
    return out


def _without_short_force(bundle: str) -> str:
    """A push's short-option bundle without ``f``; a value (``-o<value>``) is kept whole."""
    spec = SPECS["push"]
    for j, ch in enumerate(bundle):
        if ch in spec.values:
            return _without_short_force(bundle[:j]) + bundle[j:]
    return "".join(ch for ch in bundle if spec.shorts.get(ch) != "force")
