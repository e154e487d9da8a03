"""JSON text for the hook's path, without importing ``json``.

``import json`` imports ``re`` and with it enum, functools and collections: about 6 ms of a hook
that takes about 30. CPython's ``_json`` accelerator, which ``json`` itself calls, reads and
writes the same text without them. Anything the accelerator does not accept is handed to ``json``
itself, so errors carry ``json``'s own message and position, and on an interpreter without the
accelerator ``json`` does all of it. tests/test_jsonio.py holds both paths to ``json``'s output.
"""

from __future__ import annotations

try:
    from _json import encode_basestring, encode_basestring_ascii, make_encoder, make_scanner
except ImportError:  # not CPython: json does the work, at json's import cost
    make_encoder = make_scanner = None

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class DecodeError(ValueError):
    """Text that is not JSON: ``json``'s message and where (``pos`` counts characters)."""

    def __init__(self, msg: str, pos: int, lineno: int, colno: int) -> None:
        super().__init__(f"{msg}: line {lineno} column {colno} (char {pos})")
        self.msg, self.pos, self.lineno, self.colno = msg, pos, lineno, colno


_CONSTANTS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


class _DecoderOptions:
    """The attributes ``_json.make_scanner`` reads from a ``json.JSONDecoder``, at its defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


_scan = None if make_scanner is None else make_scanner(_DecoderOptions())
_WHITESPACE = " \t\n\r"  # json's whitespace, and only it


def loads(text: str) -> Any:
    """``json.loads(text)``; text that is not JSON raises ``DecodeError``."""
    if _scan is not None:
        start = len(text) - len(text.lstrip(_WHITESPACE))
        try:
            value, end = _scan(text, start)
        except (StopIteration, ValueError):  # no value at start, or json's error: see below
            pass
        else:
            if not text[end:].strip(_WHITESPACE):
                return value
    import json

    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DecodeError(exc.msg, exc.pos, exc.lineno, exc.colno) from None


def dumps(
    value: Any,
    *,
    ensure_ascii: bool = True,
    sort_keys: bool = False,
    compact: bool = False,
    default: Callable[[Any], Any] | None = None,
) -> str:
    """``json.dumps(value, ...)`` on one line; ``compact`` drops the spaces after ``,`` and
    ``:``. A value that is not JSON raises ``TypeError`` (``ValueError`` if circular)."""
    separators = (",", ":") if compact else (", ", ": ")
    if make_encoder is None:
        import json

        return json.dumps(
            value,
            ensure_ascii=ensure_ascii,
            sort_keys=sort_keys,
            separators=separators,
            default=default,
        )
    encode = make_encoder(
        {},  # markers: circular references raise ValueError instead of recursing
        default or _unserializable,
        encode_basestring_ascii if ensure_ascii else encode_basestring,
        None,  # indent
        separators[1],
        separators[0],
        sort_keys,
        False,  # skipkeys
        True,  # allow_nan
    )
    return "".join(encode(value, 0))


def _unserializable(value: object) -> None:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
