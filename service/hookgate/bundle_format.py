"""The signed policy bundle: its canonical bytes, digest and signature check.

Shared by the server (which signs) and the CLI (which verifies), so both compute the very same
bytes. The hook checks a cached bundle against its digest on every call, so the module imports
only what that needs (no ``json``, no OpenSSL-backed ``hashlib``); ``cryptography`` is imported
only inside ``verify``.

A bundle is ``{"revision", "created_at", "policies", "data", "digest", "signature", "key_id"}``:
``digest`` is ``sha256:<hex>`` of ``canonical_bytes(revision, policies, data)``; ``signature`` is
the standard base64 of the Ed25519 signature over the ASCII bytes of the digest string;
``key_id`` is the first 16 hex characters of sha256 of the raw 32-byte public key.

Every bundle response, ``304`` included, carries a signed freshness statement in the
``Hookgate-Freshness`` header: ``<base64 statement>.<base64 signature>``, where the statement is
the canonical JSON of ``{"revision", "digest", "time"}`` (``time``: the server's clock, epoch
seconds, when it served the response) and the signature is Ed25519 over the statement bytes.
It proves that the server, at that time, held that revision as current: an unsigned 304 or an
old bundle replayed from a capture cannot pass for it.
"""

from __future__ import annotations

from hookgate import jsonio

try:  # the C module behind hashlib.sha256, without hashlib's OpenSSL start-up cost
    from _sha256 import sha256  # Python 3.11
except ImportError:  # pragma: no cover - renamed in 3.12, absent on other interpreters
    try:
        from _sha2 import sha256
    except ImportError:
        from hashlib import sha256

ALGORITHM = "ed25519"


class BundleError(Exception):
    """A bundle that is malformed, altered, or not signed by the expected key."""


def canonical_bytes(revision: int, policies: dict[str, str], data: dict) -> bytes:
    """The exact bytes the digest covers: sorted keys, no whitespace, UTF-8."""
    document = {"revision": revision, "policies": policies, "data": data}
    return jsonio.dumps(document, sort_keys=True, compact=True, ensure_ascii=False).encode("utf-8")


def digest(revision: int, policies: dict[str, str], data: dict) -> str:
    """``sha256:<hex>`` of the canonical bytes."""
    return "sha256:" + sha256(canonical_bytes(revision, policies, data)).hexdigest()


def key_id(public_key_raw: bytes) -> str:
    """The short name of a public key: the first 16 hex characters of its sha256."""
    return sha256(public_key_raw).hexdigest()[:16]


FRESHNESS_HEADER = "Hookgate-Freshness"


def freshness_bytes(revision: int, digest: str, time: int) -> bytes:
    """The exact bytes a freshness statement's signature covers."""
    statement = {"digest": digest, "revision": revision, "time": time}
    return jsonio.dumps(statement, sort_keys=True, compact=True).encode("ascii")


def verify_freshness(header: str | None, public_key_b64: str) -> dict:
    """The statement ``{revision, digest, time}`` of a ``Hookgate-Freshness`` header value,
    after checking its signature with the trusted key; ``BundleError`` naming the problem."""
    import base64
    import binascii

    from cryptography.exceptions import InvalidSignature

    if not header:
        raise BundleError(f"no {FRESHNESS_HEADER} statement (an unsigned answer)")
    text, _, signature = header.strip().partition(".")
    try:
        raw = base64.b64decode(text, validate=True)
        statement = jsonio.loads(raw.decode("ascii"))
        revision, digest, time = statement["revision"], statement["digest"], statement["time"]
        if not (type(revision) is int and isinstance(digest, str) and type(time) is int):
            raise TypeError
        if raw != freshness_bytes(revision, digest, time):
            raise ValueError
        _public_key(public_key_b64).verify(base64.b64decode(signature, validate=True), raw)
    except (binascii.Error, ValueError, TypeError, KeyError, InvalidSignature):
        raise BundleError(f"{FRESHNESS_HEADER}: not a valid signed statement") from None
    return {"revision": revision, "digest": digest, "time": time}


def _public_key(public_key_b64: str) -> object:
    import base64
    import binascii

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        return Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key_b64, validate=True))
    except (binascii.Error, ValueError):
        raise BundleError("public key: not base64 of a raw 32-byte Ed25519 key") from None


def verify(bundle: dict, public_key_b64: str) -> None:
    """Check ``bundle`` against the trusted public key; raise ``BundleError`` naming the reason.

    Every check runs on every call: the digest is recomputed from the content (a bundle's own
    ``digest`` field is never trusted), the key id must name the trusted key, and the signature
    must verify over the recomputed digest.
    """
    import base64
    import binascii

    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    if not isinstance(bundle, dict):
        raise BundleError("bundle: expected a JSON object")
    revision = bundle.get("revision")
    if not isinstance(revision, int) or isinstance(revision, bool) or revision < 0:
        raise BundleError("bundle.revision: expected a non-negative integer")
    policies = bundle.get("policies")
    if not isinstance(policies, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in policies.items()
    ):
        raise BundleError("bundle.policies: expected an object of policy id to source text")
    data = bundle.get("data")
    if not isinstance(data, dict):
        raise BundleError("bundle.data: expected an object")
    for field in ("digest", "signature", "key_id"):
        if not isinstance(bundle.get(field), str):
            raise BundleError(f"bundle.{field}: missing or not a string")
    try:
        public_raw = base64.b64decode(public_key_b64, validate=True)
        public_key = Ed25519PublicKey.from_public_bytes(public_raw)
    except (binascii.Error, ValueError):
        raise BundleError("public key: not base64 of a raw 32-byte Ed25519 key") from None
    if bundle["key_id"] != key_id(public_raw):
        raise BundleError(
            f"bundle.key_id: signed by key {bundle['key_id']!r}, "
            f"but the trusted key is {key_id(public_raw)!r}"
        )
    expected = digest(revision, policies, data)
    if bundle["digest"] != expected:
        raise BundleError("bundle.digest: does not match the bundle's content (altered bundle)")
    try:
        signature = base64.b64decode(bundle["signature"], validate=True)
        public_key.verify(signature, expected.encode("ascii"))
    except (binascii.Error, ValueError, InvalidSignature):
        raise BundleError("bundle.signature: not a valid signature of the digest") from None
