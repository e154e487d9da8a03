"""Well-known MCP servers' tools (``data/mcp_tools.json``): a call matched to a tool by the
tool's name and the shape of its arguments, then read into effects by the tool's templates.

The server name a host shows (``mcp__<server>__<tool>``, ``mcp_<server>_<tool>``, a payload's
``mcp_server``) is the user's choice, so it only breaks ties: a call is a table tool when its
name ends in that tool's name and it gives the arguments the tool requires (extra ones do not
stop it: the servers drop them and run the call); of two tools of one name, the one that takes
more of the call's arguments, and both when they take as many. Anything else is an unknown
tool (``mcp.py`` reads it generically).

A git operation becomes the git command line it runs (``git -C <repo> commit -m … --no-verify``)
and a command given as an argument vector one quoted line, so the guards read MCP git and shell
tools exactly as they read the Bash tool. The table is read once per process, on the first MCP
call, and checked: a malformed entry raises ``TableError`` naming its place in the file.
"""

from __future__ import annotations

from hookgate.effects.model import (
    POWERSHELLS,
    add,
    argv_line,
    edit_effect,
    resolve,
    sh_quote,
    write_effect,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TABLE_PATH = __file__.rpartition("/")[0].rpartition("/")[0] + "/data/mcp_tools.json"
MAX_TABLE_BYTES = 1 << 20

# Argument types of the table, as JSON Schema names them; bool is not a number here.
_TYPES: dict[str, Any] = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "any": lambda v: True,
}
# The fields of an effect template whose value names an argument of the tool (checked when the
# table is read; ``each``'s items hold ``old`` and ``new`` as their own fields).
_ARG_FIELDS = ("path", "to", "content", "old", "new", "query", "url", "command", "cwd", "base",
               "dir", "branch", "when", "unless", "each", "shell")  # fmt: skip
_KINDS: dict[str, frozenset[str]] = {
    "read": frozenset({"path", "path_format", "base"}),
    "write": frozenset({"path", "path_format", "base", "content", "append_if"}),
    "edit": frozenset({"path", "path_format", "base", "old", "new", "each"}),
    "delete": frozenset({"path", "path_format", "base"}),
    "move": frozenset({"path", "to", "base"}),
    "search": frozenset({"query", "path", "base"}),
    "fetch": frozenset({"url"}),
    "run": frozenset({"command", "cwd", "shell"}),
    "argv": frozenset({"argv", "cwd"}),
    "git": frozenset({"dir", "argv"}),
    "commit": frozenset({"branch", "repository"}),
    "push": frozenset({"branch", "repository", "delete"}),
}
_COMMON = frozenset({"kind", "when", "unless"})
_SEPARATORS = "_-:/."


class TableError(ValueError):
    """The MCP tool table is malformed; the message names the place (``servers[2].tools.x``)."""


class Tool:
    """One tool of one server of the table."""

    __slots__ = ("server", "names", "name", "args", "required", "effects")

    def __init__(self, server: str, names: tuple[str, ...], name: str, spec: dict) -> None:
        self.server, self.names, self.name = server, names, name
        self.args: dict[str, str] = spec["args"]
        self.required: tuple[str, ...] = tuple(spec["required"])
        self.effects: list[dict] = spec["effects"]

    def takes(self, tool_input: dict) -> bool:
        """Whether a call gives every argument this tool requires. Arguments it does not take
        do not stop it: the servers' schema libraries (pydantic, zod) drop them and run the
        call, so an extra argument must not turn a commit into an unknown tool."""
        return all(tool_input.get(key) is not None for key in self.required)

    def fit(self, tool_input: dict) -> int:
        """How many of the call's arguments this tool takes, of their type, less those it does
        not take: the closer shape of two tools of one name."""
        score = 0
        for key, value in tool_input.items():
            kind = self.args.get(key)
            score += 1 if kind is not None and (value is None or _TYPES[kind](value)) else -1
        return score

    def hinted(self, hint: str | None) -> int:
        """How well a server name shown by the host names this server: 2 exactly, 1 as one
        word of it (``plugin_serena_serena``), else 0."""
        if not hint:
            return 0
        if hint in self.names:
            return 2
        words = set(hint.replace("-", "_").replace(".", "_").split("_"))
        return 1 if any(name in words for name in self.names) else 0


_TABLE: dict[str, list[Tool]] | None = None


def table() -> dict[str, list[Tool]]:
    """The table's tools by lower-case tool name, read and checked once per process."""
    global _TABLE
    if _TABLE is None:
        from hookgate import jsonio
        from hookgate.files import read_file

        data = read_file(TABLE_PATH, MAX_TABLE_BYTES, follow=True)
        if data is None:
            raise TableError(f"{TABLE_PATH}: missing")
        try:
            _TABLE = parse(jsonio.loads(data.decode("utf-8")))
        except jsonio.DecodeError as exc:
            raise TableError(
                f"{TABLE_PATH}: line {exc.lineno} column {exc.colno}: {exc.msg}"
            ) from None
    return _TABLE


def parse(doc: Any) -> dict[str, list[Tool]]:
    """The tools of a table document, checked; ``TableError`` names what is wrong and where."""
    _expect(isinstance(doc, dict), "the table", "must be an object")
    _expect(doc.get("version") == 1, "version", "must be 1")
    servers = doc.get("servers")
    _expect(isinstance(servers, list), "servers", "must be a list")
    index: dict[str, list[Tool]] = {}
    for i, server in enumerate(servers):
        where = f"servers[{i}]"
        _expect(isinstance(server, dict), where, "must be an object")
        for field in ("id", "source", "version"):
            _expect(
                isinstance(server.get(field), str) and server[field],
                f"{where}.{field}",
                "must be a non-empty string",
            )
        names = server.get("names")
        _expect(
            isinstance(names, list) and all(isinstance(n, str) for n in names),
            f"{where}.names",
            "must be a list of strings",
        )
        tools = server.get("tools")
        _expect(isinstance(tools, dict) and tools, f"{where}.tools", "must be a non-empty object")
        for name, spec in tools.items():
            _check_tool(spec, f"{where}.tools.{name}")
            tool = Tool(server["id"], tuple(n.lower() for n in names), name, spec)
            index.setdefault(name.lower(), []).append(tool)
    return index


def _check_tool(spec: Any, where: str) -> None:
    _expect(
        isinstance(spec, dict) and set(spec) == {"args", "required", "effects"},
        where,
        "must have exactly args, required and effects",
    )
    args, required, effects = spec["args"], spec["required"], spec["effects"]
    _expect(
        isinstance(args, dict) and all(t in _TYPES for t in args.values()),
        f"{where}.args",
        f"must map argument names to one of {', '.join(_TYPES)}",
    )
    _expect(
        isinstance(required, list) and all(r in args for r in required),
        f"{where}.required",
        "must list arguments of args",
    )
    _expect(isinstance(effects, list), f"{where}.effects", "must be a list")
    for j, effect in enumerate(effects):
        _check_effect(effect, args, f"{where}.effects[{j}]")


def _check_effect(effect: Any, args: dict, where: str) -> None:
    _expect(
        isinstance(effect, dict) and effect.get("kind") in _KINDS,
        f"{where}.kind",
        f"must be one of {', '.join(_KINDS)}",
    )
    allowed = _KINDS[effect["kind"]] | _COMMON
    for field, value in effect.items():
        _expect(
            field in allowed, f"{where}.{field}", f"is not a field of a {effect['kind']} effect"
        )
        item_field = "each" in effect and field in ("old", "new")  # a field of each item
        # a commit's branch null: the call does not name it (a pull request's base branch)
        unnamed = field == "branch" and value is None and effect["kind"] in ("commit", "push")
        if field in _ARG_FIELDS and field != "each" and not item_field and not unnamed:
            _expect(
                isinstance(value, str) and _argument(value) in args,
                f"{where}.{field}",
                f"must name an argument of the tool, got {value!r}",
            )
    if "each" in effect:
        _expect(effect["each"] in args, f"{where}.each", "must name an argument of the tool")
    if "delete" in effect:
        _expect(isinstance(effect["delete"], bool), f"{where}.delete", "must be true or false")
    if "repository" in effect:
        repo = effect["repository"]
        _expect(
            isinstance(repo, list) and all(r in args for r in repo),
            f"{where}.repository",
            "must list arguments of the tool",
        )
    if "path_format" in effect:
        _expect(isinstance(effect["path_format"], str), f"{where}.path_format", "must be a string")
        for part in effect["path_format"].split("{")[1:]:
            _expect(
                "}" in part and part.split("}")[0] in args,
                f"{where}.path_format",
                "must name arguments of the tool in {braces}",
            )
    if "append_if" in effect:
        cond = effect["append_if"]
        _expect(
            isinstance(cond, dict) and all(k in args for k in cond),
            f"{where}.append_if",
            "must map arguments of the tool to values",
        )
    argv = effect.get("argv")
    if effect["kind"] == "argv" and isinstance(argv, str):
        _expect(argv in args, f"{where}.argv", "must name an argument of the tool")
    elif effect["kind"] in ("argv", "git"):
        _expect(
            isinstance(argv, list), f"{where}.argv", "must be a list of words or an argument name"
        )
        for k, item in enumerate(argv):
            _check_word(item, args, f"{where}.argv[{k}]")


def _check_word(item: Any, args: dict, where: str) -> None:
    if isinstance(item, str):
        return
    _expect(isinstance(item, dict), where, "must be a word or an object")
    if "refspec" in item:
        ok = (
            set(item) == {"refspec"}
            and isinstance(item["refspec"], list)
            and len(item["refspec"]) == 2
        )
        _expect(
            ok and all(r in args for r in item["refspec"]),
            where,
            "refspec must be [source argument, destination argument]",
        )
    elif "if" in item:
        _expect(
            set(item) == {"if", "flag"} and item["if"] in args and isinstance(item["flag"], str),
            where,
            "must be {if: argument, flag: word}",
        )
    else:
        _expect(item.get("arg") in args, f"{where}.arg", "must name an argument of the tool")
        _expect(
            set(item) <= {"arg", "option", "map", "default", "after"},
            where,
            "has a field other than arg, option, map, default, after",
        )
        _expect(isinstance(item.get("map", {}), dict), f"{where}.map", "must be an object")


def _expect(ok: Any, where: str, what: str) -> None:
    if not ok:
        raise TableError(f"{where} {what}")


def _argument(selector: str) -> str:
    """The argument a selector reads: ``files[].path`` reads ``files``."""
    for stop in ("[", "."):
        selector = selector.split(stop, 1)[0]
    return selector


def match(name: str, tool_input: dict, server: str | None) -> Tool | None:
    """The table tool a call of the MCP tool ``name`` is (the first of ``matches``), or None."""
    found = matches(name, tool_input, server)
    return found[0] if found else None


def matches(name: str, tool_input: dict, server: str | None) -> list[Tool]:
    """The table tools a call of the MCP tool ``name`` may be: the closest shape, then the
    server name; more than one when tools of that name tie on both (``git_commit(repo_path,
    message, noVerify)`` fits the reference git server's and cyanheads' alike), since hookgate
    cannot tell which server gets the call, and it is judged as each. ``name`` is the host's
    spelling (``mcp__git__git_status``, ``mcp_git_git_status``, ``mcp:git_status``,
    ``git__git_status``, ``git-git_status``); ``server`` a server name the payload names."""
    index = table()
    rest = name.lower()
    for prefix in ("mcp__", "mcp_", "mcp:"):
        if rest.startswith(prefix):
            rest = rest[len(prefix) :]
            break
    # Longest tool name first: the name ends in the tool's, the rest before it names the server.
    splits = [("", rest)] + [
        (rest[:i].rstrip(_SEPARATORS), rest[i + 1 :])
        for i in range(len(rest))
        if rest[i] in _SEPARATORS and rest[i + 1 :] in index
    ]
    for shown, tool_name in splits:
        fitting = [t for t in index.get(tool_name, ()) if t.takes(tool_input)]
        if fitting:
            hint = (server or shown).lower()
            ranks = [(t.fit(tool_input), t.hinted(hint)) for t in fitting]
            best = max(ranks)
            return [t for t, rank in zip(fitting, ranks, strict=True) if rank == best]
    return []


def expand(tool: Tool, tool_input: dict, cwd: str | None, out: list[dict]) -> None:
    """The effects of a call of ``tool`` with ``tool_input``, added to ``out``."""
    for spec in tool.effects:
        if "when" in spec and not _on(tool_input.get(spec["when"])):
            continue
        if "unless" in spec and _on(tool_input.get(spec["unless"])):
            continue
        _EXPANDERS[spec["kind"]](spec, tool_input, cwd, out)


def _on(value: Any) -> bool:
    """Whether a flag argument is set, as the servers read it: ``true``, and what pydantic's lax
    mode also takes for true (``1``, ``"true"``, ``"yes"``, ``"on"``…). A list or object (the
    files of a commit to stage) is set when it is not empty. Anything else is unset."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value == 1
    if isinstance(value, str):
        return value.strip().lower() in ("1", "t", "true", "y", "yes", "on")
    return bool(value) if isinstance(value, list | dict) else False


def _strings(tool_input: dict, selector: str) -> list[str]:
    """The strings a selector names: ``a`` (a string), ``a[]`` (a list's strings), ``a[].b``
    (its objects' ``b``), ``a.*`` (an object's string values)."""
    value = tool_input.get(_argument(selector))
    if selector.endswith(".*"):
        items = list(value.values()) if isinstance(value, dict) else []
    elif "[]" in selector:
        field = selector.partition("[].")[2]
        items = value if isinstance(value, list) else []
        items = [i.get(field) for i in items if isinstance(i, dict)] if field else items
    else:
        items = [value]
    return [i for i in items if isinstance(i, str)]


def _paths(spec: dict, tool_input: dict, cwd: str | None, field: str = "path") -> list[str]:
    """The paths ``spec`` names, resolved: against its ``base`` argument (a project root the
    call names), else the call's directory."""
    base = tool_input.get(spec["base"]) if "base" in spec else None
    where = resolve(cwd, base) if isinstance(base, str) and base else cwd
    if field == "path" and "path_format" in spec:
        text = _format(spec["path_format"], tool_input)
        return [] if text is None else [resolve(where, text)]
    if field not in spec:
        return []
    return [resolve(where, p) for p in _strings(tool_input, spec[field])]


def _format(fmt: str, tool_input: dict) -> str | None:
    """``fmt`` with each ``{argument}`` replaced by its string value; None when one is not a
    non-empty string."""
    head, *parts = fmt.split("{")
    out = [head]
    for part in parts:
        name, _, tail = part.partition("}")
        value = tool_input.get(name)
        if not isinstance(value, str) or not value:
            return None
        out += [value, tail]
    return "".join(out)


def _text(tool_input: dict, spec: dict, field: str) -> str:
    value = tool_input.get(spec[field]) if field in spec else None
    return value if isinstance(value, str) else ""


def _path_kind(spec: dict, tool_input: dict, cwd: str | None, out: list[dict]) -> None:
    for path in _paths(spec, tool_input, cwd):
        add(out, {"kind": spec["kind"], "path": path})


def _write(spec: dict, tool_input: dict, cwd: str | None, out: list[dict]) -> None:
    content = _text(tool_input, spec, "content")
    cond = spec.get("append_if", {})
    appends = bool(cond) and all(tool_input.get(k) == v for k, v in cond.items())
    for path in _paths(spec, tool_input, cwd):
        add(out, edit_effect(path, "", content) if appends else write_effect(path, content))


def _edit(spec: dict, tool_input: dict, cwd: str | None, out: list[dict]) -> None:
    items = tool_input.get(spec["each"]) if "each" in spec else [tool_input]
    for path in _paths(spec, tool_input, cwd):
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict):
                add(out, edit_effect(path, _text(item, spec, "old"), _text(item, spec, "new")))


def _move(spec: dict, tool_input: dict, cwd: str | None, out: list[dict]) -> None:
    for path in _paths(spec, tool_input, cwd):
        for to in _paths(spec, tool_input, cwd, "to"):
            add(out, {"kind": "move", "path": path, "to": to})


def _search(spec: dict, tool_input: dict, cwd: str | None, out: list[dict]) -> None:
    paths = _paths(spec, tool_input, cwd) or [None]
    add(out, {"kind": "search", "query": _text(tool_input, spec, "query"), "path": paths[0]})


def _fetch(spec: dict, tool_input: dict, cwd: str | None, out: list[dict]) -> None:
    for url in _strings(tool_input, spec["url"]):
        add(out, {"kind": "fetch", "url": url, "prompt": None})


def _run(spec: dict, tool_input: dict, cwd: str | None, out: list[dict]) -> None:
    command = tool_input.get(spec["command"])
    shell = tool_input.get(spec["shell"]) if "shell" in spec else None
    # the shell the call names (Desktop Commander's shell: "pwsh", a path to powershell.exe)
    name = shell.replace("\\", "/").rsplit("/", 1)[-1].lower() if isinstance(shell, str) else ""
    if isinstance(command, str):
        _add_run(out, "powershell" if name in POWERSHELLS else "sh", command, tool_input, spec)


def _argv(spec: dict, tool_input: dict, cwd: str | None, out: list[dict]) -> None:
    argv = spec["argv"]
    words = tool_input.get(argv) if isinstance(argv, str) else _words(argv, tool_input)
    if isinstance(words, list) and words:
        dialect, command = argv_line(words, "sh")  # one argv: its words are never split again
        if command is not None:
            _add_run(out, dialect, command, tool_input, spec)


def _git(spec: dict, tool_input: dict, cwd: str | None, out: list[dict]) -> None:
    words = ["git"]
    repo = tool_input.get(spec["dir"]) if "dir" in spec else None
    if isinstance(repo, str) and repo not in ("", "."):
        words += ["-C", repo]
    words += _words(spec["argv"], tool_input)
    add(out, {"kind": "run", "dialect": "sh", "command": " ".join(sh_quote(w) for w in words)})


def _add_run(out: list[dict], dialect: str, command: str, tool_input: dict, spec: dict) -> None:
    where = tool_input.get(spec["cwd"]) if "cwd" in spec else None
    if isinstance(where, str) and where and dialect == "sh":
        command = f"cd -- {sh_quote(where)} && {command}"  # the shell model follows cd
    add(out, {"kind": "run", "dialect": dialect, "command": command})


def _words(template: list, tool_input: dict) -> list[str]:
    """The words of an argv template with the call's arguments filled in."""
    words: list[str] = []
    for item in template:
        if isinstance(item, str):
            words.append(item)
        elif "refspec" in item:
            src, dst = (tool_input.get(a) for a in item["refspec"])
            src = src if isinstance(src, str) and src else None
            dst = dst if isinstance(dst, str) and dst else None
            if src or dst:
                words.append(f"{src or 'HEAD'}:{dst}" if dst else src)
        elif "if" in item:
            if _on(tool_input.get(item["if"])):
                words.append(item["flag"])
        else:
            words += _arg_words(item, tool_input)
    return words


def _arg_words(item: dict, tool_input: dict) -> list[str]:
    value = tool_input.get(item["arg"])
    if value is None:
        value = item.get("default")
    if "map" in item:
        flag = item["map"].get(value) if isinstance(value, str) else None
        return [flag] if isinstance(flag, str) else []
    values = [v for v in value if isinstance(v, str)] if isinstance(value, list) else [value]
    values = [v for v in values if isinstance(v, str) and v]
    if not values:
        return []
    if "option" in item:
        return [w for v in values for w in (item["option"], v)]
    return [item["after"], *values] if "after" in item else values


def _commit(spec: dict, tool_input: dict, cwd: str | None, out: list[dict]) -> None:
    add(out, _remote(spec, tool_input, "commit"))


def _push(spec: dict, tool_input: dict, cwd: str | None, out: list[dict]) -> None:
    add(out, {**_remote(spec, tool_input, "push"), "delete": bool(spec.get("delete"))})


def _remote(spec: dict, tool_input: dict, kind: str) -> dict:
    """A commit or push a service makes on a branch of a remote repository (no local git)."""
    branch = tool_input.get(spec["branch"]) if spec.get("branch") else None
    if isinstance(branch, str):
        branch = branch.removeprefix("refs/heads/")  # the contents API takes a ref too
    parts = [tool_input.get(a) for a in spec["repository"]]
    repository = "/".join(p for p in parts if isinstance(p, str)) or None
    return {
        "kind": kind,
        "branch": branch if isinstance(branch, str) else None,
        "repository": repository,
    }


_EXPANDERS: dict[str, Any] = {
    "read": _path_kind,
    "delete": _path_kind,
    "write": _write,
    "edit": _edit,
    "move": _move,
    "search": _search,
    "fetch": _fetch,
    "run": _run,
    "argv": _argv,
    "git": _git,
    "commit": _commit,
    "push": _push,
}
