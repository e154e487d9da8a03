"""The input document as decision records keep it: masked, bounded, and read back for replay.

A record keeps the normalized ``input`` document the policies saw, so that a later draft can
be evaluated against recorded traffic (``POST /v1/impact``). Every string in it (keys stay) is
masked with ``hookgate.masking`` before it is stored, by the hook and again by the server.

Bounds: each string keeps at most ``MAX_STRING`` characters, and the whole document at most
``MAX_BYTES`` of compact JSON; a document over that is kept with shorter strings
(``FALLBACK_STRINGS``), and if even that is too large it is not kept at all. Either way the
record says ``input_truncated: true``, and replay reports such records separately: a guard
that reads the cut part (the size of a file being written) may decide otherwise on replay.

This runs in the hook (the decision log), so it uses only the standard library.
"""

from __future__ import annotations

from hookgate import jsonio

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MAX_STRING = 4096  # characters kept of one string
MAX_BYTES = 32 * 1024  # compact JSON of the whole kept document
FALLBACK_STRINGS = (1024, 256)  # shorter string bounds tried when the document is too large
# Masked before the final cut, so that a cut cannot leave the start of a secret unmasked; a
# string is first cut this far past the bound (longer than any secret a rule recognises), so
# masking never reads megabytes of a file being written.
_MASK_MARGIN = 4096


def keep(document: Any, mask: Callable[[str], str]) -> tuple[dict | None, bool]:
    """``(kept document, truncated)``: ``document`` masked with ``mask`` and bounded; ``None``
    when it is not an object or cannot be kept within ``MAX_BYTES``."""
    kept, _, truncated = _keep(document, mask)
    return kept, truncated


def keep_json(document: Any, mask: Callable[[str], str]) -> tuple[str | None, bool]:
    """``keep``, the kept document as the compact JSON it was measured by (what the server
    stores: it need not serialize each record twice)."""
    _, text, truncated = _keep(document, mask)
    return text, truncated


def _keep(document: Any, mask: Callable[[str], str]) -> tuple[dict | None, str | None, bool]:
    if not isinstance(document, dict):
        return None, None, False
    for limit in (MAX_STRING, *FALLBACK_STRINGS):
        cut = [False]
        kept = _walk(document, mask, limit, cut)
        text = jsonio.dumps(kept, compact=True, default=str)
        if len(text) <= MAX_BYTES:
            return kept, text, cut[0] or limit != MAX_STRING
    return None, None, True


def _walk(value: Any, mask: Callable[[str], str], limit: int, cut: list[bool]) -> Any:
    if isinstance(value, str):
        masked = mask(value[: limit + _MASK_MARGIN])
        if len(masked) > limit:
            cut[0] = True
            return masked[:limit]
        return masked
    if isinstance(value, dict):
        return {str(k)[:limit]: _walk(v, mask, limit, cut) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_walk(v, mask, limit, cut) for v in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return _walk(str(value), mask, limit, cut)


class RecordedCall:
    """A recorded input document in the shape the engine decides on (``Engine.decide`` reads
    these attributes and ``document()``), so replay evaluates exactly what was recorded."""

    __slots__ = ("_document", "event", "host_event", "host", "tool_name", "tool_input")

    def __init__(self, document: dict) -> None:
        self._document = document
        self.event = document.get("hook_event_name") or "PreToolUse"
        self.host_event = None
        self.host = document.get("host") or "claude"
        self.tool_name = document.get("tool_name")
        self.tool_input = document.get("tool_input")

    def document(self) -> dict:
        return self._document
