"""The signed bundle of the active policy set, built once per revision and cached, and the
signed freshness statement every bundle response carries (``bundle_format``)."""

from __future__ import annotations

import base64
import threading
import time

from hookgate import bundle_format
from hookgate.server.store import ActiveSet, Store


class Bundler:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._cached: dict | None = None
        self._keypair: tuple[bytes, bytes] | None = None
        self._freshness: tuple[str, int, str] | None = None  # (digest, second, header value)

    def _key(self) -> tuple[bytes, bytes]:
        if self._keypair is None:
            self._keypair = self._store.signing_key()
        return self._keypair

    def public_key(self) -> dict:
        _, public = self._key()
        return {
            "algorithm": bundle_format.ALGORITHM,
            "key_id": bundle_format.key_id(public),
            "public_key": base64.b64encode(public).decode("ascii"),
        }

    def bundle(self) -> dict:
        """The bundle of the current active set (a cheap revision check when unchanged)."""
        revision = self._store.current_revision(cached_ok=True)
        cached = self._cached
        if cached is not None and cached["revision"] == revision:
            return cached
        with self._lock:
            if self._cached is None or self._cached["revision"] != revision:
                self._cached = self._build()
            return self._cached

    def freshness(self, bundle: dict) -> str:
        """The ``Hookgate-Freshness`` header value for ``bundle``, signed now (one signature
        per second at most: polls within a second share it)."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        now = int(time.time())
        cached = self._freshness
        if cached is not None and cached[:2] == (bundle["digest"], now):
            return cached[2]
        seed, _ = self._key()
        statement = bundle_format.freshness_bytes(bundle["revision"], bundle["digest"], now)
        signature = Ed25519PrivateKey.from_private_bytes(seed).sign(statement)
        value = f"{_b64(statement)}.{_b64(signature)}"
        self._freshness = (bundle["digest"], now, value)
        return value

    def _build(self) -> dict:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        active = self._store.active_set()
        seed, public = self._key()
        digest = bundle_format.digest(active.revision, active.policies, active.data)
        signature = Ed25519PrivateKey.from_private_bytes(seed).sign(digest.encode("ascii"))
        return {
            "revision": active.revision,
            # The time of the change that made this revision, so every server process (and
            # every rebuild) serves the same document for the same revision.
            "created_at": active.updated_at.isoformat().replace("+00:00", "Z"),
            "policies": active.policies,
            "data": active.data,
            "digest": digest,
            "signature": base64.b64encode(signature).decode("ascii"),
            "key_id": bundle_format.key_id(public),
            "base": base_layer(active),
        }


def base_layer(active: ActiveSet) -> dict:
    """Which base layer the set composes (the built-in pack's name and version, or
    ``replaced``) and the guards the team turned off, for people reading the bundle: not
    signed, and nothing trusts it (the signed policies are the composed set)."""
    from hookgate import layers

    return {
        "name": layers.BASE_NAME,
        "version": active.base,
        "policies": "replaced" if active.base is None else "complete",
        "disabled": list(active.disabled),
    }


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")
