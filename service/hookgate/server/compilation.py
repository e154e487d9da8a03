"""Compiling policy sets for the API. Policies are user-supplied code, so the API compiles
them in the worker pool, under its limits (each call on behalf of its token: ``owner``); a set
is keyed by the hash of its sources and data for the workers' caches."""

import hashlib
import threading
from typing import Any

from hookgate.lang.errors import Diagnostic, PolicyError
from hookgate.server import dryrun
from hookgate.server.store import ActiveSet, Principal, Store, canonical_json
from hookgate.server.workers import WorkerPool


def compile_set(policies: dict[str, str], data: dict) -> Any:
    """Compile a policy set with the real engine; ``PolicyError`` when it does not compile."""
    from hookgate.engine import Engine

    return Engine.from_sources(policies, data, origin="server")


async def check_in_workers(
    workers: WorkerPool, policies: dict[str, str], data: dict, owner: object
) -> None:
    """``compile_set`` in the worker pool, under its limits: ``PolicyError`` when the set does
    not compile, ``WorkerLimitError`` when compiling it reached a limit."""
    found = await workers.run(dryrun.check, set_key(policies, data), policies, data, owner=owner)
    if found:
        fields = ("file", "line", "col", "message", "hint", "severity")
        raise PolicyError([Diagnostic(**{f: d[f] for f in fields if f in d}) for d in found])


def owner(principal: Principal) -> object:
    """Whose share of the worker pool a call takes: the token's."""
    return principal.token_id or principal.name


class ActiveSets:
    """The active set and its key for the workers' compile cache, read again when the bundle
    revision moves (compiled only in the workers)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._cached: tuple[ActiveSet, str] | None = None

    def get(self) -> tuple[ActiveSet, str]:
        revision = self._store.current_revision(cached_ok=True)
        cached = self._cached
        if cached is not None and cached[0].revision == revision:
            return cached
        with self._lock:
            if self._cached is None or self._cached[0].revision != revision:
                active = self._store.active_set()
                self._cached = (active, set_key(active.policies, active.data))
            return self._cached


def set_key(policies: dict[str, str], data: dict) -> str:
    """What identifies a policy set's compiled form: the hash of its sources and data."""
    text = canonical_json({"policies": policies, "data": data})
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
