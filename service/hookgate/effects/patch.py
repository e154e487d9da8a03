"""Codex's ``apply_patch`` format: which files a patch adds, updates, deletes and moves.

The format (codex-rs ``apply-patch``)::

    *** Begin Patch
    *** Add File: path        (every following line starts with "+")
    *** Update File: path
    *** Move to: new/path     (optional, right after Update File)
    @@ context
    -old line
    +new line
    *** Delete File: path
    *** End Patch

Parsed leniently, as Codex does: surrounding whitespace on marker lines is ignored, a missing
``*** End Patch`` ends at the text's end, and text before ``*** Begin Patch`` (a shell
``apply_patch <<'EOF'`` line) is skipped. Nothing here touches the disk.
"""

from __future__ import annotations

BEGIN = "*** Begin Patch"
END = "*** End Patch"
_ADD = "*** Add File:"
_UPDATE = "*** Update File:"
_DELETE = "*** Delete File:"
_MOVE = "*** Move to:"


def contains_patch(text: str) -> bool:
    """Whether ``text`` holds an apply_patch body (a tool input, or a shell here-document)."""
    return BEGIN in text


def parse(text: str) -> list[dict]:
    """The file operations of every patch in ``text``, in order: ``{"op": "add" | "update" |
    "delete", "path", "lines": added lines, "removed": removed lines, "to": move target or
    None}``. Paths are as written (relative to the patch's working directory)."""
    ops: list[dict] = []
    current: dict | None = None
    inside = not contains_patch(text)  # a bare body without the Begin line is read too
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith(BEGIN):
            inside = True
            continue
        if not inside:
            continue
        if line.startswith(END):
            inside = False
            current = None
            continue
        header = _header(line)
        if header is not None:
            op, path = header
            if op == "move":
                if current is not None and current["op"] == "update":
                    current["to"] = path
                continue
            current = {"op": op, "path": path, "lines": [], "removed": [], "to": None}
            ops.append(current)
            continue
        if current is None:
            continue
        if raw.startswith("+"):
            current["lines"].append(raw[1:])
        elif raw.startswith("-"):
            current["removed"].append(raw[1:])
    return ops


def _header(line: str) -> tuple[str, str] | None:
    for marker, op in ((_ADD, "add"), (_UPDATE, "update"), (_DELETE, "delete"), (_MOVE, "move")):
        if line.startswith(marker):
            path = line[len(marker) :].strip()
            return (op, path) if path else None
    return None
