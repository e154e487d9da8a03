"""Encodings: ``json.*``, ``base64.*``, ``base64url.*``, ``urlquery.*``, ``hex.*``.

``json``, ``base64`` and ``urllib`` are imported on first use (not on the hook's hot path).
"""

from __future__ import annotations

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.builtins.types import want_str
from hookgate.lang.values import RegoSet, json_text, obj_items, sorted_values, type_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@builtin("json.marshal", "encoding", 1)
def json_marshal(x: Any) -> str:
    """``x`` as compact JSON text (object keys sorted, sets as sorted arrays)."""
    return json_text(x)


@builtin("json.unmarshal", "encoding", 1)
def json_unmarshal(s: Any) -> Any:
    """The value of the JSON text ``s``."""
    import json

    try:
        return json.loads(want_str("json.unmarshal", 1, s))
    except ValueError as exc:
        raise BuiltinError(f"json.unmarshal: invalid JSON at position {exc.pos}") from None


@builtin("json.is_valid", "encoding", 1)
def json_is_valid(s: Any) -> bool:
    """True if ``s`` is a string holding valid JSON."""
    import json

    if type(s) is not str:
        return False
    try:
        json.loads(s)
    except ValueError:
        return False
    return True


def _b64(name: str, s: Any, *, url: bool, pad: bool = True) -> str:
    import base64

    raw = want_str(name, 1, s).encode()
    out = (base64.urlsafe_b64encode if url else base64.b64encode)(raw).decode()
    return out if pad else out.rstrip("=")


def _b64decode(name: str, s: Any, *, url: bool) -> str:
    import base64
    import binascii

    text = want_str(name, 1, s)
    if url:
        text = text + "=" * (-len(text) % 4)
    try:
        if url:
            raw = base64.urlsafe_b64decode(text.encode())
        else:
            raw = base64.b64decode(text.encode(), validate=True)
        return raw.decode()
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise BuiltinError(f"{name}: illegal base64 data") from None


@builtin("base64.encode", "encoding", 1)
def base64_encode(s: Any) -> str:
    """``s`` (UTF-8) in standard base64 with padding."""
    return _b64("base64.encode", s, url=False)


@builtin("base64.decode", "encoding", 1)
def base64_decode(s: Any) -> str:
    """The text encoded in standard base64 by ``s``."""
    return _b64decode("base64.decode", s, url=False)


@builtin("base64.is_valid", "encoding", 1)
def base64_is_valid(s: Any) -> bool:
    """True if ``s`` is valid standard base64."""
    import base64
    import binascii

    if type(s) is not str:
        return False
    try:
        base64.b64decode(s.encode(), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


@builtin("base64url.encode", "encoding", 1)
def base64url_encode(s: Any) -> str:
    """``s`` (UTF-8) in URL-safe base64 with padding."""
    return _b64("base64url.encode", s, url=True)


@builtin("base64url.encode_no_pad", "encoding", 1)
def base64url_encode_no_pad(s: Any) -> str:
    """``s`` (UTF-8) in URL-safe base64 without padding."""
    return _b64("base64url.encode_no_pad", s, url=True, pad=False)


@builtin("base64url.decode", "encoding", 1)
def base64url_decode(s: Any) -> str:
    """The text encoded in URL-safe base64 (padding optional) by ``s``."""
    return _b64decode("base64url.decode", s, url=True)


@builtin("hex.encode", "encoding", 1)
def hex_encode(s: Any) -> str:
    """The UTF-8 bytes of ``s`` as lower-case hexadecimal."""
    return want_str("hex.encode", 1, s).encode().hex()


@builtin("hex.decode", "encoding", 1)
def hex_decode(s: Any) -> str:
    """The text whose UTF-8 bytes the hexadecimal ``s`` spells."""
    try:
        return bytes.fromhex(want_str("hex.decode", 1, s)).decode()
    except (ValueError, UnicodeDecodeError):
        raise BuiltinError("hex.decode: invalid hexadecimal string") from None


def _quote(s: str) -> str:
    from urllib.parse import quote_plus

    return quote_plus(s, safe="-_.~")


@builtin("urlquery.encode", "encoding", 1)
def urlquery_encode(s: Any) -> str:
    """``s`` escaped for a URL query (spaces as ``+``)."""
    return _quote(want_str("urlquery.encode", 1, s))


@builtin("urlquery.decode", "encoding", 1)
def urlquery_decode(s: Any) -> str:
    """The text of the URL-query-escaped ``s``."""
    from urllib.parse import unquote_plus

    text = want_str("urlquery.decode", 1, s)
    if _bad_escape(text):
        raise BuiltinError("urlquery.decode: invalid URL escape")
    return unquote_plus(text, errors="strict")


def _bad_escape(text: str) -> bool:
    i = text.find("%")
    while i >= 0:
        pair = text[i + 1 : i + 3]
        if len(pair) < 2 or any(c not in "0123456789abcdefABCDEF" for c in pair):
            return True
        i = text.find("%", i + 3)
    return False


@builtin("urlquery.encode_object", "encoding", 1)
def urlquery_encode_object(obj: Any) -> str:
    """A URL query from an object of strings (or arrays/sets of strings), keys sorted."""
    if type(obj) is not dict:
        raise BuiltinError(
            f"urlquery.encode_object: operand 1 must be object but got {type_name(obj)}"
        )
    parts = []
    for k, v in sorted(obj_items(obj), key=lambda kv: str(kv[0])):
        if type(k) is not str:
            raise BuiltinError("urlquery.encode_object: keys must be strings")
        values = v if type(v) is list else sorted_values(v) if type(v) is RegoSet else [v]
        for item in values:
            if type(item) is not str:
                raise BuiltinError(
                    "urlquery.encode_object: values must be strings or arrays/sets of strings"
                )
            parts.append(f"{_quote(k)}={_quote(item)}")
    return "&".join(parts)


@builtin("urlquery.decode_object", "encoding", 1)
def urlquery_decode_object(s: Any) -> dict:
    """The object of arrays of strings encoded by the URL query ``s``."""
    from urllib.parse import parse_qsl

    out: dict = {}
    for k, v in parse_qsl(want_str("urlquery.decode_object", 1, s), keep_blank_values=True):
        out.setdefault(k, []).append(v)
    return out
