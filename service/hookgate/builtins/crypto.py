"""Hashes and HMACs: ``crypto.md5``, ``crypto.sha1``, ``crypto.sha256``, ``crypto.hmac.*``
(``hashlib`` and ``hmac``, imported on first use)."""

from __future__ import annotations

from hookgate.builtins.registry import builtin
from hookgate.builtins.types import want_str

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _digest(name: str, algorithm: str, s: Any) -> str:
    import hashlib

    return hashlib.new(algorithm, want_str(name, 1, s).encode()).hexdigest()


def _hmac(name: str, algorithm: str, x: Any, key: Any) -> str:
    import hmac

    message = want_str(name, 1, x).encode()
    return hmac.new(want_str(name, 2, key).encode(), message, algorithm).hexdigest()


@builtin("crypto.md5", "crypto", 1)
def md5(s: Any) -> str:
    """The MD5 digest of the string ``s``, as lowercase hex."""
    return _digest("crypto.md5", "md5", s)


@builtin("crypto.sha1", "crypto", 1)
def sha1(s: Any) -> str:
    """The SHA-1 digest of the string ``s``, as lowercase hex."""
    return _digest("crypto.sha1", "sha1", s)


@builtin("crypto.sha256", "crypto", 1)
def sha256(s: Any) -> str:
    """The SHA-256 digest of the string ``s``, as lowercase hex."""
    return _digest("crypto.sha256", "sha256", s)


@builtin("crypto.hmac.md5", "crypto", 2)
def hmac_md5(x: Any, key: Any) -> str:
    """The HMAC-MD5 of ``x`` under ``key``, as lowercase hex."""
    return _hmac("crypto.hmac.md5", "md5", x, key)


@builtin("crypto.hmac.sha1", "crypto", 2)
def hmac_sha1(x: Any, key: Any) -> str:
    """The HMAC-SHA1 of ``x`` under ``key``, as lowercase hex."""
    return _hmac("crypto.hmac.sha1", "sha1", x, key)


@builtin("crypto.hmac.sha256", "crypto", 2)
def hmac_sha256(x: Any, key: Any) -> str:
    """The HMAC-SHA256 of ``x`` under ``key``, as lowercase hex."""
    return _hmac("crypto.hmac.sha256", "sha256", x, key)


@builtin("crypto.hmac.sha512", "crypto", 2)
def hmac_sha512(x: Any, key: Any) -> str:
    """The HMAC-SHA512 of ``x`` under ``key``, as lowercase hex."""
    return _hmac("crypto.hmac.sha512", "sha512", x, key)


@builtin("crypto.hmac.equal", "crypto", 2)
def hmac_equal(mac1: Any, mac2: Any) -> bool:
    """True if the two MACs are equal, compared in constant time."""
    import hmac

    a = want_str("crypto.hmac.equal", 1, mac1)
    return hmac.compare_digest(a.encode(), want_str("crypto.hmac.equal", 2, mac2).encode())
