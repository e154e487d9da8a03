"""Semantic versions (``semver.*``, SemVer 2.0.0) and quantities with units (``units.*``)."""

from __future__ import annotations

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.builtins.types import want_str

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SEMVER = (
    r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    r"(?:-((?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"
    r"(?:\.(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
)


def _parse(name: str, pos: int, v: Any) -> tuple:
    import re2

    m = re2.fullmatch(_SEMVER, want_str(name, pos, v))
    if m is None:
        raise BuiltinError(f"{name}: operand {pos}: string {v!r} is not a valid SemVer")
    major, minor, patch, pre, _build = m.groups()
    return int(major), int(minor), int(patch), pre


def _pre_key(pre: str | None) -> tuple:
    # A version without pre-release ranks above any with one; identifiers compare numerically
    # when numeric, numbers below words, and a longer list wins a tie (SemVer 2.0.0 §11).
    if pre is None:
        return (1,)
    return (0, [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split(".")])


@builtin("semver.compare", "versions", 2)
def compare(a: Any, b: Any) -> int:
    """-1, 0 or 1 as version ``a`` is lower than, equal to or higher than ``b`` (build metadata
    ignored, pre-releases below their release)."""
    x = _parse("semver.compare", 1, a)
    y = _parse("semver.compare", 2, b)
    kx, ky = (*x[:3], _pre_key(x[3])), (*y[:3], _pre_key(y[3]))
    return (kx > ky) - (kx < ky)


@builtin("semver.is_valid", "versions", 1)
def is_valid(v: Any) -> bool:
    """True if ``v`` is a string holding a SemVer 2.0.0 version (any other value: false)."""
    if type(v) is not str:
        return False
    try:
        _parse("semver.is_valid", 1, v)
    except BuiltinError:
        return False
    return True


_SI = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12, "p": 10**15, "e": 10**18}
_BINARY = {"ki": 2**10, "mi": 2**20, "gi": 2**30, "ti": 2**40, "pi": 2**50, "ei": 2**60}


# Exponents beyond this are refused rather than expanded (a quantity is agent-controlled text).
_MAX_EXPONENT = 4096


def _split(name: str, what: str, x: Any, lower: bool) -> tuple[Any, str]:
    """The amount (exact) and the unit of a quantity, read as OPA reads it: quotes dropped,
    no spaces, the amount the leading digits, dots and exponent (an ``e`` not followed by a
    digit or sign starts the unit)."""
    from decimal import Decimal, InvalidOperation

    text = want_str(name, 1, x).replace('"', "")
    if lower:
        text = text.lower()
    if " " in text:
        raise BuiltinError(f"{name}: spaces not allowed in resource strings")
    end = len(text)
    i = 0
    while i < len(text):
        c = text[i]
        if c in "eE":
            nxt = text[i + 1 : i + 2]
            if not nxt or not (nxt.isdigit() or nxt in "+-"):
                end = i
                break
            if nxt in "+-":
                i += 1
        elif not (c.isdigit() or c in ".+-"):
            end = i
            break
        i += 1
    num, unit = text[:end], text[end:]
    if not num:
        raise BuiltinError(f"{name}: no {what}amount provided")
    try:
        amount = Decimal(num)
    except InvalidOperation:
        raise BuiltinError(f"{name}: could not parse {what}amount to a number") from None
    if not amount.is_finite():
        raise BuiltinError(f"{name}: could not parse {what}amount to a number")
    if abs(amount.adjusted()) > _MAX_EXPONENT:
        raise BuiltinError(f"{name}: exponent too large")
    return amount, unit


@builtin("units.parse", "units", 1)
def parse(x: Any) -> Any:
    """The number a quantity with an SI or binary suffix denotes, suffixes in any case but
    ``m`` (milli) against ``M`` (mega): ``"10K"`` is 10000, ``"1Ki"`` 1024, ``"100m"`` 0.1,
    ``"100M"`` 100000000, ``"1.5e3k"`` 1500000."""
    from hookgate.lang.numbers import normalize

    amount, unit = _split("units.parse", "", x, lower=False)
    if unit == "m":
        return normalize(amount / 1000)
    u = unit.lower()
    factor = _SI.get(u, _BINARY.get(u))
    if factor is None:
        raise BuiltinError(f"units.parse: unknown unit {unit!r}")
    return normalize(amount * factor)


@builtin("units.parse_bytes", "units", 1)
def parse_bytes(x: Any) -> int:
    """The number of bytes a size denotes, as an integer (fractions dropped): ``"1KB"``/``"1K"``
    is 1000, ``"1KiB"``/``"1Ki"`` 1024 (units in any case, the ``B`` optional)."""
    amount, unit = _split("units.parse_bytes", "byte ", x, lower=True)
    u = unit[:-1] if unit.endswith("b") else unit
    factor = _SI.get(u, _BINARY.get(u))
    if factor is None:
        raise BuiltinError(f"units.parse_bytes: unknown unit {unit!r}")
    return int(amount * factor)
