"""JSON text for the hook's path, without importing ``json``.

``import json`` imports ``re`` and with it enum, functools and collections: about 6 ms of a hook
that takes about 30. CPython's ``_json`` accelerator, which ``json`` itself calls, reads and
writes the same text without them. Anything the accelerator does not accept is handed to ``json``
itself, so errors carry ``json``'s own message and position, and on an interpreter without the
accelerator ``json`` does all of it. tests/test_jsonio.py holds both paths to ``json``'s output.

One difference from ``json``, on purpose: numbers without a finite value are refused both ways.
``json`` reads ``NaN``, ``Infinity`` and ``1e400`` (as infinity) and writes them back as
``NaN`` and ``Infinity``, which are not JSON: a host handed such a response cannot parse it, and
a payload could use that to make the host drop a rewrite. Integers of more digits than Python
converts (``sys.get_int_max_str_digits``) are refused as out of range too, not as an internal
error.
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

_INFINITY = float("inf")


class DecodeError(ValueError):
    """Text that is not JSON: ``json``'s message and where (``pos`` counts characters)."""

    def __init__(self, msg: str, pos: int, lineno: int, colno: int) -> None:
        super().__init__(f"{msg}: line {lineno} column {colno} (char {pos})")
        self.msg, self.pos, self.lineno, self.colno = msg, pos, lineno, colno


class _OutOfRange(Exception):
    """A number literal with no finite value here; its text."""


def _float(text: str) -> float:
    value = float(text)
    if -_INFINITY < value < _INFINITY:
        return value
    raise _OutOfRange(text)


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # more digits than Python converts
        raise _OutOfRange(text) from None


def _constant(text: str) -> float:
    raise _OutOfRange(text)  # NaN, Infinity, -Infinity


class _DecoderOptions:
    """The attributes ``_json.make_scanner`` reads from a ``json.JSONDecoder``."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = staticmethod(_float)
    parse_int = staticmethod(_int)
    parse_constant = staticmethod(_constant)


_scan = None if make_scanner is None else make_scanner(_DecoderOptions())
_WHITESPACE = " \t\n\r"  # json's whitespace, and only it


def loads(text: str) -> Any:
    """``json.loads(text)``, but a number without a finite value is refused: text that is not
    JSON, or holds such a number, raises ``DecodeError``."""
    try:
        if _scan is not None:
            start = len(text) - len(text.lstrip(_WHITESPACE))
            try:
                value, end = _scan(text, start)
            # No value at start, json's error, or (SystemError) json's error before anything
            # imported json.decoder: the accelerator looks its error class up there, and only
            # there (CPython 3.11). json, imported below, then says what is wrong.
            except (StopIteration, ValueError, SystemError):
                pass
            else:
                if not text[end:].strip(_WHITESPACE):
                    return value
        import json

        try:
            return json.loads(text, parse_float=_float, parse_int=_int, parse_constant=_constant)
        except json.JSONDecodeError as exc:
            raise DecodeError(exc.msg, exc.pos, exc.lineno, exc.colno) from None
    except _OutOfRange as exc:
        # The scanner does not say where the number was: its first occurrence is, but for the
        # rare text that also holds it inside an earlier string.
        pos = max(text.find(exc.args[0]), 0)
        line = text.count("\n", 0, pos) + 1
        column = pos - text.rfind("\n", 0, pos)
        raise DecodeError("Number out of range", pos, line, column) from None


def dumps(
    value: Any,
    *,
    ensure_ascii: bool = True,
    sort_keys: bool = False,
    compact: bool = False,
    default: Callable[[Any], Any] | None = None,
) -> str:
    """``json.dumps(value, ...)`` on one line; ``compact`` drops the spaces after ``,`` and
    ``:``. A value that is not JSON raises ``TypeError``; a circular one, or a float that is
    NaN or infinite, ``ValueError``."""
    separators = (",", ":") if compact else (", ", ": ")
    if make_encoder is None:
        import json

        return json.dumps(
            value,
            ensure_ascii=ensure_ascii,
            sort_keys=sort_keys,
            separators=separators,
            default=default,
            allow_nan=False,
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
        False,  # allow_nan
    )
    return "".join(encode(value, 0))


def _unserializable(value: object) -> None:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
