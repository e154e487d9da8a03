"""Compiling policy sets for the API. Policies are user-supplied code, so the API compiles
them in the worker pool, under its limits; a set is keyed by the hash of its sources and data
for the workers' caches; and each token may hold only a few dry-runs in that shared pool."""

import contextlib
import hashlib
import threading
from collections.abc import Iterator
from typing import Any

import anyio.from_thread

from hookgate.lang.errors import Diagnostic, PolicyError
from hookgate.server import dryrun
from hookgate.server.store import ActiveSet, Principal, Store, StoreError, canonical_json
from hookgate.server.workers import WorkerPool


def compile_set(policies: dict[str, str], data: dict) -> Any:
    """Compile a policy set with the real engine; ``PolicyError`` when it does not compile."""
    from hookgate.engine import Engine

    return Engine.from_sources(policies, data, origin="server")


async def check_in_workers(workers: WorkerPool, policies: dict[str, str], data: dict) -> None:
    """``compile_set`` in the worker pool, under its limits: ``PolicyError`` when the set does
    not compile, ``WorkerLimitError`` when compiling it reached a limit."""
    found = await workers.run(dryrun.check, set_key(policies, data), policies, data)
    if found:
        fields = ("file", "line", "col", "message", "hint", "severity")
        raise PolicyError([Diagnostic(**{f: d[f] for f in fields if f in d}) for d in found])


def compile_in_workers(workers: WorkerPool, policies: dict[str, str], data: dict) -> None:
    """``check_in_workers`` from a route's thread (a change's validation runs in its database
    transaction, on the thread pool)."""
    anyio.from_thread.run(check_in_workers, workers, policies, data)


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


class DryRunSlots:
    """At most ``per_token`` dry-runs in flight per token in this process; more get 429 (the
    worker pool is shared by everyone, so one token cannot hold all of it)."""

    def __init__(self, per_token: int) -> None:
        self.per_token = per_token
        self._running: dict[object, int] = {}

    @contextlib.contextmanager
    def hold(self, principal: Principal) -> Iterator[None]:
        key = principal.token_id or principal.name
        if self._running.get(key, 0) >= self.per_token:
            raise TooManyDryRuns(
                f"this token already has {self.per_token} dry-runs running; retry when one ends"
            )
        self._running[key] = self._running.get(key, 0) + 1
        try:
            yield
        finally:
            self._running[key] -= 1
            if not self._running[key]:
                del self._running[key]


class TooManyDryRuns(StoreError):
    status = 429
