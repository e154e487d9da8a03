"""The effect objects every tool's reading builds, the tool-input fields they are read from,
and the bound on how many one call has.
"""

from __future__ import annotations

from hookgate.effects.paths import resolve

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_EFFECTS = 256  # effects per call: an MCP call with thousands of arguments is cut here

PATH_KEYS = ("file_path", "filePath", "path", "notebook_path", "target_file", "file", "filename")
CONTENT_KEYS = ("content", "contents", "file_text", "text", "new_source")
NEW_KEYS = ("new_string", "new_str", "newString", "new_source", "insert_text")


def first(tool_input: dict, keys: tuple[str, ...]) -> Any:
    """The first of ``keys`` whose value in ``tool_input`` is a string, else None."""
    for key in keys:
        value = tool_input.get(key)
        if isinstance(value, str):
            return value
    return None


def path_effect(kind: str, tool_input: dict, cwd: str | None, **fields: Any) -> dict | None:
    """A ``kind`` effect on the tool input's path (None when it names none), with ``fields``."""
    path = first(tool_input, PATH_KEYS)
    if path is None:
        return None
    return {"kind": kind, "path": resolve(cwd, path), **fields}


def add(out: list[dict], effect: dict | None) -> None:
    """Append ``effect`` to ``out`` unless it is None or ``out`` is full."""
    if effect is not None and len(out) < MAX_EFFECTS:
        out.append(effect)


def write_effect(path: str, content: str) -> dict:
    """A ``write`` of ``content`` to ``path``."""
    return {"kind": "write", "path": path, "content": content, "empty": not content.strip()}
