"""The effects of an MCP tool call. A tool of a well-known server (``mcp_table``: matched by its
name and the shape of its arguments) is read by that server's table entry; any other is read from
what its arguments hold: a command line runs, a URL is fetched, a path is written, edited,
deleted, moved or read as the tool's name says. Every string is a prompt to the MCP server.

Naming the repository is not writing it. A path that is the project directory or one of its
parents, given to a tool whose name says it writes or edits (or says nothing), names where the
tool works (``repo_path``, ``projectPath``, a workspace root): it is read, not written. A file
write cannot replace a directory, and what a tool does inside it shows in its other arguments
(a command, content for named files), which are read as such. A tool that says it deletes or
moves keeps its verb on every path, the project's included.
"""

from __future__ import annotations

from hookgate.effects.mcp_table import expand, matches
from hookgate.effects.model import (
    CONTENT_KEYS,
    MAX_EFFECTS,
    NEW_KEYS,
    PATH_KEYS,
    add,
    edit_effect,
    first,
    is_windows,
    resolve,
    write_effect,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH = 8  # nesting of MCP arguments walked

_COMMAND_KEYS = frozenset({"command", "cmd", "script", "shell", "commandline", "command_line"})
_MOVE_FROM_KEYS = frozenset({"source", "src", "from", "old_path", "oldpath", "source_path"})
_MOVE_TO_KEYS = frozenset(
    {"destination", "dest", "to", "new_path", "newpath", "target", "destination_path"}
)
_URL_KEYS = frozenset({"url", "uri", "href", "link"})
# First words that make an MCP string argument a command line: what shell analysis knows best.
_COMMAND_WORDS = frozenset(
    {
        "sh", "bash", "zsh", "sudo", "env", "rm", "mv", "cp", "ln", "chmod", "chown", "truncate",
        "tee", "sed", "git", "curl", "wget", "python", "python3", "node", "perl", "ruby", "npm",
        "npx", "make", "cat", "echo", "printf", "find", "xargs", "dd", "mkfs", "shred", "ssh",
        "scp", "rsync", "nc", "ncat", "eval", "source", "cd", "export",
    }
)  # fmt: skip
# Words of an MCP tool's name that say what it does with a path it is given.
_VERBS: tuple[tuple[str, frozenset[str]], ...] = (
    ("move", frozenset({"move", "rename", "mv"})),
    ("delete", frozenset({"delete", "remove", "rm", "unlink", "rmdir", "trash"})),
    (
        "write",
        frozenset(
            {"write", "create", "save", "put", "upload", "append", "overwrite", "mkdir", "copy"}
        ),
    ),
    ("edit", frozenset({"edit", "replace", "patch", "update", "modify", "insert", "apply"})),
    ("read", frozenset({"read", "get", "view", "list", "search", "find", "stat", "info", "open"})),
)


def is_mcp_name(name: str) -> bool:
    """Whether a tool name is an MCP tool's in some host's spelling: ``mcp__s__t``, ``mcp_s_t``,
    ``mcp:t``, or ``s__t`` (no host's own tool has a double underscore)."""
    return name.startswith(("mcp_", "mcp:")) or "__" in name


def mcp(
    out: list[dict], name: str, tool_input: dict, cwd: str | None, server: str | None = None
) -> None:
    """An MCP tool call's effects: a table tool's by its entry, any other's by its arguments;
    every string argument is a prompt to the MCP server. ``server`` is a server name the payload
    gives apart from the tool name (a hint for the table, never required)."""
    tools = matches(name, tool_input, server)
    if not tools:
        _unknown(out, name, tool_input, cwd)
        return
    for tool in tools:
        expand(tool, tool_input, cwd, out)
    for _key, value in _strings(tool_input, "", 0):
        if len(out) >= MAX_EFFECTS:
            break
        add(out, {"kind": "prompt", "to": "mcp", "text": value})


def _unknown(out: list[dict], name: str, tool_input: dict, cwd: str | None) -> None:
    """An MCP tool hookgate does not know: its arguments read by what they hold. A command
    argument (or a string that starts like a command line) runs; a path argument is written,
    edited, deleted, moved or read as the tool's name says (written when it does not say, read
    when it is the project or a parent of it and the tool does not delete or move)."""
    verb = _mcp_verb(name)
    move: dict[str, str] = {}
    for key, value in _strings(tool_input, "", 0):
        k = key.lower()
        if len(out) >= MAX_EFFECTS:
            break
        if k in _COMMAND_KEYS or _looks_like_command(value):
            add(out, {"kind": "run", "dialect": "sh", "command": value})
        elif k in _URL_KEYS or value.startswith(("http://", "https://")):
            add(out, {"kind": "fetch", "url": value, "prompt": None})
        elif verb == "move" and (k in _MOVE_FROM_KEYS or k in _MOVE_TO_KEYS):
            move["to" if k in _MOVE_TO_KEYS else "path"] = resolve(cwd, value)
        elif k in PATH_KEYS or k.endswith("path") or _looks_like_path(value):
            path = resolve(cwd, value)
            if verb in ("write", "edit") and _holds_project(path, cwd):
                add(out, {"kind": "read", "path": path})
            elif verb == "write":
                add(out, write_effect(path, first(tool_input, CONTENT_KEYS) or ""))
            elif verb == "edit":
                new = first(tool_input, NEW_KEYS) or first(tool_input, CONTENT_KEYS) or ""
                add(out, edit_effect(path, "", new))
            else:
                add(out, {"kind": verb if verb != "move" else "write", "path": path})
        add(out, {"kind": "prompt", "to": "mcp", "text": value})
    if move:
        add(out, {"kind": "move", "path": move.get("path"), "to": move.get("to")})


def _holds_project(path: str, cwd: str | None) -> bool:
    """Whether ``path`` is the call's directory or one of its parents."""
    if cwd is None:
        return False
    project = resolve(None, cwd)
    return path == project or project.startswith(path.rstrip("/") + "/")


def _mcp_verb(name: str) -> str:
    words = set(name.replace("__", "_").replace(":", "_").replace("-", "_").split("_"))
    for verb, spellings in _VERBS:
        if words & spellings:
            return verb
    return "write"  # a tool that does not say what it does with a path may change it


def _strings(value: Any, key: str, depth: int) -> Any:
    """(key, string) for every string in ``value``, depth first, bounded."""
    if isinstance(value, str):
        yield key, value
    elif depth < MAX_DEPTH and isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, str(k), depth + 1)
    elif depth < MAX_DEPTH and isinstance(value, list):
        for v in value:
            yield from _strings(v, key, depth + 1)


def _looks_like_command(text: str) -> bool:
    words = text.split(None, 1)
    return bool(words) and words[0] in _COMMAND_WORDS and len(words) > 1


def _looks_like_path(text: str) -> bool:
    if not text or len(text) > 4096 or any(ch in text for ch in "\n\t"):
        return False
    return text.startswith(("/", "~/", "./", "../", "$HOME/", "$env:", "%USERPROFILE%")) or (
        is_windows(text)
    )
