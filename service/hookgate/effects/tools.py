"""The hosts' known tools, each read into effects by its own rule (the tables are facts about
the hosts' tools, HOSTS.md section 8, not policy), and ``effects``: any tool call's effects.
"""

from __future__ import annotations

from hookgate.effects.mcp import is_mcp_name, mcp
from hookgate.effects.model import (
    CONTENT_KEYS,
    MAX_EFFECTS,
    NEW_KEYS,
    PATH_KEYS,
    add,
    argv_line,
    first,
    path_effect,
    resolve,
    write_effect,
)
from hookgate.effects.patch import contains_patch
from hookgate.effects.patch import parse as parse_patch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_OLD_KEYS = ("old_string", "old_str", "oldString")
_PROMPT_KEYS = ("prompt", "description", "message", "task", "instructions", "query")


def effects(
    tool_name: str | None,
    tool_kind: str | None,
    tool_input: Any,
    cwd: str | None,
    server: str | None = None,
) -> list[dict]:
    """The effects of one tool call (``[]`` for events without a tool). ``server``: the MCP
    server a payload names apart from the tool name (Claude's ``mcp_server``, Gemini's
    ``mcp_context.server_name``)."""
    if tool_name is None or not isinstance(tool_input, dict):
        return []
    out: list[dict] = []
    name = tool_name.lower()
    # A payload that names an MCP server is an MCP call, even under a host tool's name (Gemini
    # may show an MCP tool by its bare name, with the server in mcp_context).
    handler = None if server else _TOOLS.get(name)
    if handler is not None:
        handler(out, tool_input, cwd)
    elif tool_kind == "mcp" or server or is_mcp_name(name):
        mcp(out, name, tool_input, cwd, server)
    elif tool_kind == "shell":
        _run(out, tool_input, cwd, "sh")
    for effect in out:
        effect["tool"] = tool_name
    return out[:MAX_EFFECTS]


def _run(out: list[dict], tool_input: dict, cwd: str | None, dialect: str) -> None:
    command = tool_input.get("command")
    if command is None:
        command = tool_input.get("cmd")
    if isinstance(command, list):
        dialect, command = argv_line(command, dialect)
    if not isinstance(command, str):
        return
    add(out, {"kind": "run", "dialect": dialect, "command": command})
    if contains_patch(command):  # Codex runs `apply_patch <<'EOF' … EOF` as a command
        _patch_effects(out, command, cwd)


def _run_sh(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    _run(out, tool_input, cwd, "sh")


def _run_powershell(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    _run(out, tool_input, cwd, "powershell")


def _write(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    path = first(tool_input, PATH_KEYS)
    if path is not None:
        add(out, write_effect(resolve(cwd, path), first(tool_input, CONTENT_KEYS) or ""))


def _edit(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    old = first(tool_input, _OLD_KEYS)
    new = first(tool_input, NEW_KEYS)
    add(out, path_effect("edit", tool_input, cwd, old_text=old or "", new_text=new or ""))


def _multi_edit(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    edits = tool_input.get("edits")
    if not isinstance(edits, list) or not edits:
        _edit(out, tool_input, cwd)
        return
    for edit in edits:
        if isinstance(edit, dict):
            _edit(out, {**edit, **{k: tool_input[k] for k in PATH_KEYS if k in tool_input}}, cwd)


def _notebook_edit(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    new = "" if tool_input.get("edit_mode") == "delete" else first(tool_input, NEW_KEYS) or ""
    add(out, path_effect("edit", tool_input, cwd, old_text="", new_text=new))


def _str_replace_editor(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    """Copilot's (and Anthropic's) text editor tool: one tool, its ``command`` says which."""
    command = tool_input.get("command")
    if command == "create":
        _write(out, tool_input, cwd)
    elif command == "view":
        add(out, path_effect("read", tool_input, cwd))
    else:  # str_replace, insert, undo_edit: all change the file
        _edit(out, tool_input, cwd)


def _delete(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    add(out, path_effect("delete", tool_input, cwd))


def _read(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    paths = tool_input.get("paths")
    if isinstance(paths, list):  # Gemini read_many_files
        for p in paths:
            if isinstance(p, str):
                add(out, {"kind": "read", "path": resolve(cwd, p)})
        return
    add(out, path_effect("read", tool_input, cwd))


def _search(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    query = first(tool_input, ("pattern", "query", "regex", "glob"))
    path = first(tool_input, PATH_KEYS)
    add(
        out,
        {
            "kind": "search",
            "query": query or "",
            "path": resolve(cwd, path) if path is not None else None,
        },
    )


def _fetch(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    url = first(tool_input, ("url", "uri"))
    if url is None:  # Gemini web_fetch takes its URLs inside the prompt
        add(out, {"kind": "fetch", "url": None, "prompt": first(tool_input, ("prompt",))})
        return
    add(out, {"kind": "fetch", "url": url, "prompt": first(tool_input, ("prompt",))})


def _web_search(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    add(out, {"kind": "search", "query": first(tool_input, ("query", "q")) or "", "path": None})


def _agent(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    for key in _PROMPT_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str):
            add(out, {"kind": "prompt", "to": "agent", "text": value})


def _skill(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    for key in ("args", "arguments", "input", "prompt"):
        value = tool_input.get(key)
        if isinstance(value, str):
            add(out, {"kind": "prompt", "to": "skill", "text": value})


def _apply_patch(out: list[dict], tool_input: dict, cwd: str | None) -> None:
    text = first(tool_input, ("command", "input", "patch"))
    if text is not None:
        _patch_effects(out, text, cwd)


def _patch_effects(out: list[dict], text: str, cwd: str | None) -> None:
    for op in parse_patch(text):
        path = resolve(cwd, op["path"])
        new_text = "\n".join(op["lines"])
        if op["op"] == "add":
            add(out, write_effect(path, new_text))
        elif op["op"] == "delete":
            add(out, {"kind": "delete", "path": path})
        else:
            old_text = "\n".join(op["removed"])
            add(out, {"kind": "edit", "path": path, "old_text": old_text, "new_text": new_text})
            if op["to"] is not None:  # the updated file arrives there with the added lines
                to = resolve(cwd, op["to"])
                add(out, {"kind": "move", "path": path, "to": to, "content": new_text})


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
