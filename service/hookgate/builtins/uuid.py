"""UUIDs: ``uuid.rfc4122`` (a random version 4 UUID) and ``uuid.parse``."""

from __future__ import annotations

from hookgate.builtins.registry import builtin
from hookgate.builtins.types import want_str
from hookgate.lang.values import UNDEFINED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# 100-nanosecond intervals between the Gregorian epoch (1582-10-15) and the Unix epoch.
_GREGORIAN_OFFSET = 0x01B21DD213814000
_DOMAINS = {0: "Person", 1: "Group", 2: "Org"}


@builtin("uuid.rfc4122", "uuid", 1)
def rfc4122(key: Any) -> str:
    """A new random (version 4) UUID; ``key`` names it (any string)."""
    import uuid

    want_str("uuid.rfc4122", 1, key)
    return str(uuid.uuid4())


@builtin("uuid.parse", "uuid", 1)
def parse(s: Any) -> Any:
    """The parts of a UUID: ``version``, ``variant`` and, by version, ``time`` (ns since the
    Unix epoch), ``clocksequence``, ``nodeid``, ``macvariables``, ``domain``, ``id``.
    Undefined for a string that is not a UUID."""
    import uuid

    text = want_str("uuid.parse", 1, s)
    try:
        u = uuid.UUID(text)
    except ValueError:
        return UNDEFINED
    b = u.bytes
    out: dict = {"variant": _variant(b[8]), "version": b[6] >> 4}
    version = out["version"]
    if version in (1, 2):
        ts = ((u.time_hi_version & 0x0FFF) << 48) | (u.time_mid << 32) | u.time_low
        out["time"] = (ts - _GREGORIAN_OFFSET) * 100
        out["clocksequence"] = ((b[8] & 0x3F) << 8) | b[9]
        out["nodeid"] = "-".join(f"{x:02x}" for x in b[10:])
        out["macvariables"] = ("local" if b[10] & 0x02 else "global") + (
            ":multicast" if b[10] & 0x01 else ":unicast"
        )
        if version == 2:
            out["domain"] = _DOMAINS.get(b[9], f"Domain{b[9]}")
            out["id"] = u.time_low
    elif version == 6:
        ts = (
            (int.from_bytes(b[0:4]) << 28)
            | (int.from_bytes(b[4:6]) << 12)
            | (int.from_bytes(b[6:8]) & 0x0FFF)
        )
        out["time"] = (ts - _GREGORIAN_OFFSET) * 100
    elif version == 7:
        out["time"] = int.from_bytes(b[0:6]) * 1_000_000
    return out


def _variant(byte: int) -> str:
    if byte & 0x80 == 0:
        return "Reserved"
    if byte & 0xC0 == 0x80:
        return "RFC4122"
    if byte & 0xE0 == 0xC0:
        return "Microsoft"
    return "Future"
