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
    for key, value in cmdline:
        out.setdefault(key, []).append(value)
    return out


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
        elif a in ("--remove-section", "--rename-section") or (
            not operands and a in ("remove-section", "rename-section")
        ):
            op = "remove-section"  # a renamed section is gone under its old name
        elif a.startswith("-") and len(a) > 1:
            pass  # --replace-all, --bool, --all, …: a set either way
        elif not operands and a == "set":
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


def expand_alias(
    argv: list[str], k: int, hidden: set[int], settings: dict[str, list[str]]
) -> tuple[str | None, list[str], set[int], str | None, str | None]:
    """The subcommand at argv index ``k`` with its words, through the aliases ``settings``
    define, as git's ``run_argv`` follows them: the subcommand (lower-cased), its words, which
    of them the line does not show, the alias's name and a shell alias's script.

    git runs a builtin command before it looks its name up as an alias, so an alias hiding one
    is ignored; the name is matched as written (``git PUSH`` is no builtin, and its alias
    ``alias.push`` runs), the alias by its lower-cased name as config keys are. An alias that
    leads back to a name already expanded is a loop: git stops with "alias loop detected" (or
    "recursive alias") and runs nothing, so the expansion stops at that name, which is then
    no git command."""
    if k >= len(argv):
        return None, [], set(), None, None
    name, rest = argv[k], list(argv[k + 1 :])
    hidden_rest = {j - k - 1 for j in hidden if j > k}
    alias = script = None
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
        if not words[0]:
            break  # git: an empty alias, or one starting with a blank, is an error
        name, rest = words[0], words[1:] + rest
        hidden_rest = {j + len(words) - 1 for j in hidden_rest}
    return name.lower(), rest, hidden_rest, alias, script


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
