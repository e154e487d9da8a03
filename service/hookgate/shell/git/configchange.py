"""What a command line gives git as configuration, read as git reads it: the environment
(``GIT_CONFIG_PARAMETERS``, ``GIT_CONFIG_COUNT``/``KEY``/``VALUE``), ``-c key=value``, what a
``git config`` command writes, and the order in which they and the repository's files combine;
and the aliases it defines, expanded as git expands them.
"""

from __future__ import annotations

import os

from hookgate.shell.words import normalize_option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def config_key(key: str) -> str:
    """A key in canonical form (``Remote.Origin.URL`` as ``remote.Origin.url``); git config keys: section and variable are case-insensitive, a subsection is not."""
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
                pairs.append((int(n), config_key(key), str(env.get("GIT_CONFIG_VALUE_" + n, ""))))
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
        out.append((config_key(key), value if eq else "true"))
    return out


def effective(
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
        elif kind == "remove-section":
            for name in [k for k in out if k.startswith(key + ".")]:
                del out[name]
    return with_settings(out, cmdline)


def last_value(settings: dict[str, list[str]], key: str) -> str | None:
    """The value of a single-valued setting: the last one given wins (None: not set)."""
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
    ``unset``/``remove-section`` (key: the section, ``remote.origin``), scope ``local``/``global``/``system``/``worktree`` or ``file:<path>``; None when
    it only reads or changes nothing this model follows. Every spelling: ``git config k v``,
    ``set``, ``--add``, ``--append``, ``--replace-all``, ``--unset[-all]``, ``unset``, a value
    pattern after the value, ``--global``/``--local``/``-f file``/``--file=file`` (before the
    key: after it, as in git, every word is the value or its pattern, ``-n`` and ``--global``
    too)."""
    scope = "local"
    op = "set"
    operands: list[str] = []
    k = 0
    while k < len(args):
        if operands:
            # git config stops reading options at the key: what follows is its value (and a
            # value pattern), whatever it starts with (git config alias.c '-c x=y commit')
            operands.append(args[k])
            k += 1
            continue
        a = normalize_option(args[k])
        name, eq, value = a.partition("=")
        if a in _CONFIG_READS or a in ("get", "list", "edit"):
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
        elif a in ("--unset", "--unset-all", "unset"):
            op = "unset"
        elif a in ("--remove-section", "--rename-section", "remove-section", "rename-section"):
            op = "remove-section"  # a renamed section is gone under its old name
        elif a.startswith("-") and len(a) > 1:
            pass  # --replace-all, --bool, --all, …: a set either way
        elif a == "set":
            pass
        else:
            operands.append(args[k])
        k += 1
    if not operands:
        return None
    if op == "remove-section":
        first, dot, sub = operands[0].partition(".")
        return ("remove-section", first.lower() + dot + sub, "", scope)
    key = config_key(operands[0])
    if op == "unset":
        return ("unset", key, "", scope)
    if len(operands) < 2:
        return None  # git config k: reads k
    return (op, key, operands[1], scope)


def remote_change(args: list[str]) -> tuple[str, str, str, str] | None:
    """What ``git remote <args>`` writes that changes what a later push does, as ``config_change``
    gives it: ``remote add --mirror=push NAME URL`` (and the older ``--mirror``, both fetch and
    push) sets ``remote.NAME.mirror``, which makes every ``git push NAME`` a ``--mirror`` push."""
    if args[:1] != ["add"]:
        return None
    mirror = False
    operands: list[str] = []
    k = 1
    while k < len(args):
        a = normalize_option(args[k])
        if a in ("--mirror", "--mirror=push"):
            mirror = True
        elif a in ("-t", "--track", "-m", "--master"):
            k += 1  # their value
        elif not a.startswith("-") or a == "-":
            operands.append(args[k])
        k += 1
    if not mirror or not operands:
        return None
    return ("set", config_key(f"remote.{operands[0]}.mirror"), "true", "local")


def settings_read(
    repo_config: Any, line_config: Any, cmdline: list[tuple[str, str]]
) -> tuple[dict[str, list[str]], list[dict[str, Any]], Any]:
    """The settings a command reads (the repository's files, then the line's ``git config``
    changes, then its command line), the configuration files it cannot read, and the branch
    read with the configuration (``False``: none read)."""
    disk = repo_config
    disk_unknown: list[Any] = []
    if isinstance(repo_config, dict) and isinstance(repo_config.get("values"), dict):
        # git.config_read: no configuration key lacks a dot, so "values" is never a setting
        disk = repo_config["values"]
        disk_unknown = [u for u in repo_config.get("unknown") or () if isinstance(u, dict)]
        disk = _not_read(disk, repo_config.get("origins"), line_config)
    settings = effective(disk, line_config, cmdline)
    line_unknown = (
        [
            {"path": op[1], "why": op[2]}
            for op in line_config
            if isinstance(op, (list, tuple)) and len(op) == 3 and op[0] == "unknown"
        ]
        if line_config  # (most commands follow no git config of their line)
        else []
    )
    dormant = repo_config.get("dormant") if disk is not repo_config else None
    if isinstance(dormant, str) and config_bool(last_value(settings, "extensions.worktreeconfig")):
        why = "read by git once extensions.worktreeConfig is on, as this command has it"
        line_unknown.append({"path": dormant, "why": why})
    branch = repo_config.get("branch", False) if disk is not repo_config else False
    return settings, disk_unknown + line_unknown, branch


def _not_read(values: Any, origins: Any, ops: Any) -> Any:
    """The settings of the files on the disk that the command still reads: without those of the
    scopes its environment replaces (``["drop", scope, ""]`` ops: ``system``, ``global``, or
    ``xdg``, the global ``…/git/config`` file alone), by each value's ``[scope, file]`` origin."""
    drops = {op[1] for op in ops or () if isinstance(op, (list, tuple)) and op[:1] == ["drop"]}
    if not drops or not isinstance(values, dict) or not isinstance(origins, dict):
        return values

    def read(origin: Any) -> bool:
        scope, path = (list(origin) + [None, None])[:2]
        if scope == "global" and "xdg" in drops and str(path).endswith("/git/config"):
            return False
        return scope not in drops

    out = {}
    for key, vals in values.items():
        where = origins.get(key)
        known = isinstance(where, list) and len(where) == len(vals)  # else kept, all of them
        out[key] = [v for v, o in zip(vals, where, strict=True) if read(o)] if known else vals
    return out


BUILTINS_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "data", "git-builtins.txt")
_builtins: list[frozenset[str]] = []  # read on the first alias a line's configuration defines


def git_builtins() -> frozenset[str]:
    """git's builtin commands (``data/git-builtins.txt``), read once per process."""
    if not _builtins:
        with open(BUILTINS_PATH, encoding="utf-8") as f:
            names = (line.strip() for line in f if not line.startswith("#"))
            _builtins.append(frozenset(n for n in names if n))
    return _builtins[0]


# git's own options that take the next word as their value (git.c handle_options).
GLOBAL_VALUES = frozenset(
    (
        "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix",
        "--list-cmds", "--exec-path", "--attr-source",
    )
)  # fmt: skip


def with_settings(settings: dict[str, list[str]], given: list[tuple[str, str]]) -> dict:
    """``settings`` with the command line's ``given`` (key, value) pairs after their values."""
    out = dict(settings)
    for key, value in given:
        out[key] = [*out.get(key, ()), value]
    return out


def alias_options(
    words: list[str], env: dict[str, Any] | None
) -> tuple[list[tuple[str, str]], int]:
    """git's own options at the start of an alias's words, which git reads as it reads them
    before a subcommand (git.c ``handle_alias`` runs ``handle_options`` on them): the settings
    ``-c`` and ``--config-env`` give (from ``env``, the command's environment) and how many
    words they take. git refuses an alias whose options change the environment (``-C``,
    ``--git-dir``, ``--no-pager``, …: "alias changes environment variables") and then runs
    nothing; they are read past as if it ran, which judges more, never less."""
    given: list[tuple[str, str]] = []
    k = 0
    while k < len(words) and words[k].startswith("-") and words[k] != "-":
        a = words[k]
        k += 1
        if a == "--":
            break
        name, eq, value = a.partition("=") if a.startswith("--") else (a[:2], "", a[2:])
        if not eq and not value and name in GLOBAL_VALUES:
            value = words[k] if k < len(words) else ""
            k += 1
        if name == "-c" and value:
            key, eq, val = value.partition("=")
            given.append((config_key(key), val if eq else "true"))
        elif name == "--config-env" and value:
            key, _, var = value.partition("=")
            val = (env or {}).get(var)
            given.append((config_key(key), val if isinstance(val, str) else "$" + var))
    return given, k


def expand_alias(
    argv: list[str],
    k: int,
    hidden: set[int],
    settings: dict[str, list[str]],
    env: dict[str, Any] | None = None,
) -> tuple[str | None, list[str], set[int], str | None, str | None, list[tuple[str, str]]]:
    """The subcommand at argv index ``k`` with its words, through the aliases ``settings``
    define, as git's ``run_argv`` follows them: the subcommand (lower-cased), its words, which
    of them the line does not show, the alias's name, a shell alias's script, and the settings
    the aliases' own ``-c``/``--config-env`` give the command (``alias_options``; ``env``: the
    command's environment), which later aliases of the chain read too.

    git runs a builtin command before it looks its name up as an alias, so an alias hiding one
    is ignored; the name is matched as written (``git PUSH`` is no builtin, and its alias
    ``alias.push`` runs), the alias by its lower-cased name as config keys are. An alias that
    leads back to a name already expanded is a loop: git stops with "alias loop detected" (or
    "recursive alias") and runs nothing, so the expansion stops at that name, which is then
    no git command."""
    if k >= len(argv):
        return None, [], set(), None, None, []
    name, rest = argv[k], list(argv[k + 1 :])
    hidden_rest = {j - k - 1 for j in hidden if j > k} if hidden else set()
    alias = script = None
    given: list[tuple[str, str]] = []
    seen: set[str] = set()
    while name.lower() not in seen:
        defined = last_value(settings, f"alias.{name.lower()}")
        if defined is None or name in git_builtins():
            break
        seen.add(name.lower())
        alias = alias or name.lower()
        if defined.startswith("!"):
            script = defined[1:]
            break
        words = split_cmdline(defined)
        if words[0].startswith("-"):
            own, at = alias_options(words, env)
            if own:
                given += own
                settings = with_settings(settings, own)
            words = words[at:]
        if not words or not words[0]:
            break  # git: an empty alias, or one starting with a blank, is an error
        name, rest = words[0], words[1:] + rest
        hidden_rest = {j + len(words) - 1 for j in hidden_rest}
    return name.lower(), rest, hidden_rest, alias, script, given


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
