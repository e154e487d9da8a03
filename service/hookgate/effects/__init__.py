"""What a tool call does, in one vocabulary for every host's tools: its *effects*.

Policies reason about effects, not tool names: a Claude ``Write``, a Gemini ``write_file``, a
Copilot ``create``, an ``*** Add File`` in a Codex patch and an MCP filesystem tool all write a
file. Each effect is a JSON object with a ``kind``:

- ``run``: ``{"dialect": "sh" | "powershell", "command"}``, a command line a shell will run;
- ``write`` / ``edit`` / ``delete`` / ``read``: ``{"path"}`` (absolute when the call's ``cwd``
  is known), ``write`` with ``content`` and ``empty``, ``edit`` with ``old_text``/``new_text``;
- ``move``: ``{"path", "to"}``;
- ``fetch``: ``{"url", "prompt"}``; ``search``: ``{"query", "path"}``;
- ``prompt``: ``{"to": "agent" | "mcp" | "skill", "text"}``, text another model will read;
- every effect also carries ``tool``: the tool name it came from.

This runs on every hook call (the input document's ``effects``), so it imports only ``os`` and
does work proportional to the tool input; the tables below are facts about the hosts' tools
(HOSTS.md section 8), not policy.
"""

from __future__ import annotations

import os

from hookgate.effects import patch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_EFFECTS = 256  # effects per call: an MCP call with thousands of arguments is cut here
MAX_DEPTH = 8  # nesting of MCP arguments walked

_PATH_KEYS = ("file_path", "filePath", "path", "notebook_path", "target_file", "file", "filename")
_CONTENT_KEYS = ("content", "contents", "file_text", "text", "new_source")
_OLD_KEYS = ("old_string", "old_str", "oldString")
_NEW_KEYS = ("new_string", "new_str", "newString", "new_source", "insert_text")
_PROMPT_KEYS = ("prompt", "description", "message", "task", "instructions", "query")
_COMMAND_KEYS = frozenset({"command", "cmd", "script", "shell", "commandline", "command_line"})
_MOVE_FROM_KEYS = frozenset({"source", "src", "from", "old_path", "oldpath", "source_path"})
_MOVE_TO_KEYS = frozenset(
    {"destination", "dest", "to", "new_path", "newpath", "target", "destination_path"}
)
_URL_KEYS = frozenset({"url", "uri", "href", "link"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "/bin/sh", "/bin/bash", "/bin/zsh"})
_POWERSHELLS = frozenset({"powershell", "powershell.exe", "pwsh", "pwsh.exe"})
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


def effects(
    tool_name: str | None, tool_kind: str | None, tool_input: Any, cwd: str | None
) -> list[dict]:
    """The effects of one tool call (``[]`` for events without a tool)."""
    if tool_name is None or not isinstance(tool_input, dict):
        return []
    out: list[dict] = []
    name = tool_name.lower()
    handler = _TOOLS.get(name)
    if handler is not None:
        handler(out, tool_input, cwd)
    elif tool_kind == "mcp" or name.startswith(("mcp_", "mcp:")):
        _mcp(out, name, tool_input, cwd)
    elif tool_kind == "shell":
        _run(out, tool_input, cwd, "sh")
    for effect in out:
        effect["tool"] = tool_name
    return out[:MAX_EFFECTS]


def resolve(cwd: str | None, path: str) -> str:
    """``path`` made absolute against ``cwd`` and normalised lexically (``..`` is not
    followed on disk). ``~``, ``$HOME`` and Windows home spellings (``$env:USERPROFILE``,
    ``%USERPROFILE%``) become the home directory; a Windows path (``C:\\Users\\x``) keeps its
    drive and gets ``/`` separators, so the same path rules match it."""
    p = path.strip()
    if _windows(p) or (cwd is not None and _windows(cwd) and "\\" in p):
        p = p.replace("\\", "/")
        if cwd is not None and not _windows(p) and not p.startswith("/"):
            p = cwd.replace("\\", "/").rstrip("/") + "/" + p
        drive, rest = p[:2], p[2:]
        return drive.upper() + os.path.normpath(rest or "/") if drive[1:] == ":" else p
    for prefix in ("$HOME", "${HOME}", "$env:USERPROFILE", "$env:HOME", "%USERPROFILE%", "~"):
        if p == prefix or p.startswith(prefix + "/") or p.startswith(prefix + "\\"):
            p = os.path.expanduser("~") + p[len(prefix) :].replace("\\", "/")
            break
    if not p.startswith("/"):
        if cwd is None or not cwd.startswith("/"):
            return os.path.normpath(p) if p else p
        p = cwd + "/" + p
    resolved = os.path.normpath(p)
    return "/" + resolved.lstrip("/")  # normpath keeps a leading "//"


def _windows(p: str) -> bool:
    return (len(p) >= 3 and p[1] == ":" and p[0].isalpha() and p[2] in "\\/") or p.startswith(
        "\\\\"
    )


def _first(tool_input: dict, keys: tuple[str, ...]) -> Any:
    for key in keys:
        value = tool_input.get(key)
        if isinstance(value, str):
            return value
    return None


def _path_effect(kind: str, tool_input: dict, cwd: str | None, **fields: Any) -> dict | None:
    path = _first(tool_input, _PATH_KEYS)
    if path is None:
        return None
    return {"kind": kind, "path": resolve(cwd, path), **fields}


def _add(out: list[dict], effect: dict | None) -> None:
    if effect is not None and len(out) < MAX_EFFECTS:
        out.append(effect)


def _write_effect(path: str, content: str) -> dict:
    return {"kind": "write", "path": path, "content": content, "empty": not content.strip()}


# ---- the tools -------------------------------------------------------------------------------


def _run(out: list[dict], tool_input: dict, cwd: str | None, dialect: str) -> None:
    command = tool_input.get("command")
    if command is None:
        command = tool_input.get("cmd")
    if isinstance(command, list):
        dialect, command = _argv_line(command, dialect)
    if not isinstance(command, str):
        return
    _add(out, {"kind": "run", "dialect": dialect, "command": command})
    if patch.contains_patch(command):  # Codex runs `apply_patch <<'EOF' … EOF` as a command
        _patch_effects(out, command, cwd)


def _argv_line(argv: list, dialect: str) -> tuple[str, str | None]:
    """A command given as an argument vector (Codex ``shell``/``local_shell``): the script of
    ``bash -lc SCRIPT``/``pwsh -Command SCRIPT``, else the words joined and quoted."""
    words = [w for w in argv if isinstance(w, str)]
    if len(words) != len(argv) or not words:
        return dialect, None
    head = words[0].lower()
    if len(words) >= 3 and head in _SHELLS and words[1].startswith("-") and "c" in words[1]:
        return "sh", words[2]
    if head in _POWERSHELLS:
        rest = [w for w in words[1:] if w.lower() not in ("-command", "-c", "-noprofile")]
        return "powershell", " ".join(rest)
    return dialect, " ".join(_sh_quote(w) for w in words)


def _sh_quote(word: str) -> str:
    safe = word and all(ch.isalnum() or ch in "@%+=:,./-_" for ch in word)
    return word if safe else "'" + word.replace("'", "'\"'\"'") + "'"


def _run_sh(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    _run(out, tool_input, cwd, "sh")


def _run_powershell(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    _run(out, tool_input, cwd, "powershell")


def _write(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    path = _first(tool_input, _PATH_KEYS)
    if path is not None:
        _add(out, _write_effect(resolve(cwd, path), _first(tool_input, _CONTENT_KEYS) or ""))


def _edit(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    old = _first(tool_input, _OLD_KEYS)
    new = _first(tool_input, _NEW_KEYS)
    _add(out, _path_effect("edit", tool_input, cwd, old_text=old or "", new_text=new or ""))


def _multi_edit(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    edits = tool_input.get("edits")
    if not isinstance(edits, list) or not edits:
        _edit(out, tool_input, cwd)
        return
    for edit in edits:
        if isinstance(edit, dict):
            _edit(out, {**edit, **{k: tool_input[k] for k in _PATH_KEYS if k in tool_input}}, cwd)


def _notebook_edit(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    new = "" if tool_input.get("edit_mode") == "delete" else _first(tool_input, _NEW_KEYS) or ""
    _add(out, _path_effect("edit", tool_input, cwd, old_text="", new_text=new))


def _str_replace_editor(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    """Copilot's (and Anthropic's) text editor tool: one tool, its ``command`` says which."""
    command = tool_input.get("command")
    if command == "create":
        _write(out, tool_input, cwd)
    elif command == "view":
        _add(out, _path_effect("read", tool_input, cwd))
    else:  # str_replace, insert, undo_edit: all change the file
        _edit(out, tool_input, cwd)


def _delete(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    _add(out, _path_effect("delete", tool_input, cwd))


def _read(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    paths = tool_input.get("paths")
    if isinstance(paths, list):  # Gemini read_many_files
        for p in paths:
            if isinstance(p, str):
                _add(out, {"kind": "read", "path": resolve(cwd, p)})
        return
    _add(out, _path_effect("read", tool_input, cwd))


def _search(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    query = _first(tool_input, ("pattern", "query", "regex", "glob"))
    path = _first(tool_input, _PATH_KEYS)
    _add(
        out,
        {
            "kind": "search",
            "query": query or "",
            "path": resolve(cwd, path) if path is not None else None,
        },
    )


def _fetch(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    url = _first(tool_input, ("url", "uri"))
    if url is None:  # Gemini web_fetch takes its URLs inside the prompt
        _add(out, {"kind": "fetch", "url": None, "prompt": _first(tool_input, ("prompt",))})
        return
    _add(out, {"kind": "fetch", "url": url, "prompt": _first(tool_input, ("prompt",))})


def _web_search(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    _add(out, {"kind": "search", "query": _first(tool_input, ("query", "q")) or "", "path": None})


def _agent(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    for key in _PROMPT_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str):
            _add(out, {"kind": "prompt", "to": "agent", "text": value})


def _skill(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    for key in ("args", "arguments", "input", "prompt"):
        value = tool_input.get(key)
        if isinstance(value, str):
            _add(out, {"kind": "prompt", "to": "skill", "text": value})


def _apply_patch(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    text = _first(tool_input, ("command", "input", "patch"))
    if text is not None:
        _patch_effects(out, text, cwd)


def _patch_effects(out: list[dict], text: str, cwd: str | None) -> None:
    for op in patch.parse(text):
        path = resolve(cwd, op["path"])
        new_text = "\n".join(op["lines"])
        if op["op"] == "add":
            _add(out, _write_effect(path, new_text))
        elif op["op"] == "delete":
            _add(out, {"kind": "delete", "path": path})
        else:
            old_text = "\n".join(op["removed"])
            _add(out, {"kind": "edit", "path": path, "old_text": old_text, "new_text": new_text})
            if op["to"] is not None:
                _add(out, {"kind": "move", "path": path, "to": resolve(cwd, op["to"])})


def _mcp(out: list[dict], name: str, tool_input: dict, cwd: str | None) -> None:
    """An MCP tool hookgate does not know: its arguments read by what they hold. A command
    argument (or a string that starts like a command line) runs; a path argument is written,
    edited, deleted, moved or read as the tool's name says (written when it does not say);
    every string is a prompt to the MCP server."""
    verb = _mcp_verb(name)
    move: dict[str, str] = {}
    for key, value in _strings(tool_input, "", 0):
        k = key.lower()
        if len(out) >= MAX_EFFECTS:
            break
        if k in _COMMAND_KEYS or _looks_like_command(value):
            _add(out, {"kind": "run", "dialect": "sh", "command": value})
        elif k in _URL_KEYS or value.startswith(("http://", "https://")):
            _add(out, {"kind": "fetch", "url": value, "prompt": None})
        elif verb == "move" and (k in _MOVE_FROM_KEYS or k in _MOVE_TO_KEYS):
            move["to" if k in _MOVE_TO_KEYS else "path"] = resolve(cwd, value)
        elif k in _PATH_KEYS or k.endswith("path") or _looks_like_path(value):
            path = resolve(cwd, value)
            if verb == "write":
                content = _first(tool_input, _CONTENT_KEYS) or ""
                _add(out, _write_effect(path, content))
            elif verb == "edit":
                new = _first(tool_input, _NEW_KEYS) or _first(tool_input, _CONTENT_KEYS) or ""
                _add(out, {"kind": "edit", "path": path, "old_text": "", "new_text": new})
            else:
                _add(out, {"kind": verb if verb != "move" else "write", "path": path})
        _add(out, {"kind": "prompt", "to": "mcp", "text": value})
    if move:
        _add(out, {"kind": "move", "path": move.get("path"), "to": move.get("to")})


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
        _windows(text)
    )


_TOOLS: dict[str, Any] = {
    **dict.fromkeys(
        (
            "bash",
            "shell",
            "shell_command",
            "exec_command",
            "local_shell",
            "run_shell_command",
            "monitor",
            "container.exec",
        ),
        _run_sh,
    ),
    "powershell": _run_powershell,
    **dict.fromkeys(("write", "write_file", "create", "tabwrite"), _write),
    **dict.fromkeys(("edit", "replace", "edit_file", "strreplace", "str_replace"), _edit),
    "multiedit": _multi_edit,
    "notebookedit": _notebook_edit,
    "str_replace_editor": _str_replace_editor,
    **dict.fromkeys(("delete", "delete_file"), _delete),
    **dict.fromkeys(("read", "view", "read_file", "read_many_files", "list_directory"), _read),
    **dict.fromkeys(("grep", "rg", "grep_search", "glob"), _search),
    **dict.fromkeys(("webfetch", "web_fetch"), _fetch),
    **dict.fromkeys(("websearch", "web_search", "google_web_search"), _web_search),
    **dict.fromkeys(("agent", "task", "spawn_agent", "delegate", "invoke_agent"), _agent),
    "skill": _skill,
    "apply_patch": _apply_patch,
}
