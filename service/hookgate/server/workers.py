"""A bounded pool of worker processes for user-supplied work: compiling drafts, dry-runs.

``await pool.run(func, *args)`` runs a module-level function in a worker process and returns
its result; the event loop only waits on a pipe. Each call has limits the operating system
enforces in the worker, so a runaway is killed, not waited for: CPU time (``RLIMIT_CPU``: the
kernel sends SIGXCPU), memory (``RLIMIT_AS``: allocations fail, the worker reports it and
exits) and wall time (the pool kills the worker). A killed worker is replaced on next use.
Workers run at a lower priority (nice 10), so the server's own requests (bundles, uploads) come
first on a busy machine. Workers start lazily, on first use, by ``spawn``: nothing of the
server's threads or database connections is inherited.

Results and arguments cross a pipe (pickled): pass plain data, return plain data. An exception
in ``func`` comes back as ``WorkerError`` with its type and message. ``stream``: an async
iterator of lists whose items reach ``func`` as its last argument, an iterator, while it runs, so
neither process holds them all (an impact replay's records).

Admission: the pool is shared by every token, so a request names its ``owner`` (the token) and
the pool refuses it at once (``Busy``, the API's 429 with ``Retry-After``) when that owner
already has ``per_owner`` requests in, or when ``size`` requests run and ``max_queue`` wait. The
queue is bounded, so what waits (and the memory and threads its requests hold) is bounded too.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import multiprocessing
import os
import resource
import signal
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Limits:
    """Per-call limits: CPU seconds, wall seconds, and the worker's address space in bytes."""

    cpu_seconds: int = 5
    # CPU time is the bound on work; wall time only stops what waits (workers run at nice 10,
    # so on a busy machine 5 s of CPU can take several times as long)
    wall_seconds: float = 30.0
    memory_bytes: int = 1024 * 1024 * 1024


# For work on a whole set (its tests and smoke payloads, a replay of recorded decisions): more
# than one dry-run gets.
SET_LIMITS = Limits(cpu_seconds=60, wall_seconds=120.0)

STARTUP_SECONDS = 60.0  # for a new worker to import what it needs (a loaded machine is slow)


class WorkerLimitError(Exception):
    """A call that reached a limit; ``limit`` is ``time``, ``cpu`` or ``memory``."""

    def __init__(self, limit: str, message: str) -> None:
        super().__init__(message)
        self.limit = limit


class WorkerError(Exception):
    """The function raised; the message is ``Type: message``."""


class Busy(Exception):
    """A call refused before it waited: ``limit`` is ``per_token`` or ``queue``;
    ``retry_after``: seconds after which a retry may find room."""

    def __init__(self, limit: str, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.limit = limit
        self.retry_after = retry_after


class _Worker:
    def __init__(self, context: Any, memory_bytes: int, initializer: Callable | None) -> None:
        self.conn, child = context.Pipe()
        self.process = context.Process(
            target=_serve,
            args=(child, memory_bytes, initializer),
            name="hookgate-worker",
            daemon=True,
        )
        self.process.start()
        child.close()

    def kill(self) -> int | None:
        """Stop the process; its exit code (negative: the signal that ended it)."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()
        return self.process.exitcode


class WorkerPool:
    """At most ``size`` worker processes; callers beyond that wait their turn."""

    def __init__(
        self,
        size: int = 2,
        limits: Limits | None = None,
        initializer: Callable[[], None] | None = None,
        *,
        per_owner: int = 2,
        max_queue: int = 8,
    ) -> None:
        """``initializer`` (module-level) runs in each new worker before it takes calls:
        loading what calls need there keeps it out of every call's limits. ``per_owner``:
        requests one owner may have running or waiting; ``max_queue``: requests that may wait
        for a worker (``Busy`` past either)."""
        self.size = size
        self.limits = limits or Limits()
        self.initializer = initializer
        self.per_owner = per_owner
        self.max_queue = max_queue
        self._context = multiprocessing.get_context("spawn")
        self._idle: list[_Worker] = []
        self._loop: asyncio.AbstractEventLoop | None = None  # the one _slots and _turns belong to
        self._slots: asyncio.Semaphore | None = None
        self._running = 0  # calls holding or waiting for a slot
        self._all: set[_Worker] = set()
        self._admitted = 0  # requests running or waiting
        self._owners: dict[object, int] = {}
        self._turns: asyncio.Condition | None = None  # an owner's request ended
        self._seconds = 1.0  # a moving average of calls' wall time, for ``Busy.retry_after``

    async def run(
        self,
        func: Callable[..., Any],
        *args: Any,
        limits: Limits | None = None,
        owner: object = None,
        stream: AsyncIterator[list] | None = None,
    ) -> Any:
        """One call; with ``owner``, admitted on its own (a caller making several calls for
        one request holds ``admitted`` around them instead, and passes no owner)."""
        if owner is not None:
            async with self.admitted(owner):
                return await self.run(func, *args, limits=limits, stream=stream)
        limits = limits or self.limits
        slots, _ = self._bound()
        self._running += 1
        try:
            async with slots:
                started = time.monotonic()
                try:
                    return await self._run(func, args, limits, stream)
                finally:
                    self._seconds = 0.8 * self._seconds + 0.2 * (time.monotonic() - started)
        finally:
            self._running -= 1

    def _bound(self) -> tuple[asyncio.Semaphore, asyncio.Condition]:
        """The pool's asyncio primitives, made on the running loop: a pool used again on another
        loop (a second TestClient, a server restarted in one process) gets new ones, which is
        only sound when nothing is waiting on the old ones."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            if self._running or self._admitted:
                raise RuntimeError("this WorkerPool has calls in progress on another event loop")
            self._loop = loop
            self._slots = asyncio.Semaphore(self.size)
            self._turns = asyncio.Condition()
        assert self._slots is not None and self._turns is not None
        return self._slots, self._turns

    @contextlib.asynccontextmanager
    async def admitted(self, owner: object, *, wait: bool = False) -> AsyncIterator[None]:
        """Room for one request of ``owner`` (its calls may follow one another inside):
        ``Busy`` when ``size`` run and ``max_queue`` wait, or when ``owner`` has ``per_owner``
        requests in already, unless ``wait``: then it waits for one of them to end, holding
        a place in the queue meanwhile."""
        # Until the running requests end and each waiting one has had its turn.
        retry = max(1, math.ceil(self._seconds * (self._admitted + 1) / self.size))
        # A wait ends when one of the owner's requests does: with none allowed, none will.
        if self._owners.get(owner, 0) >= self.per_owner and not (wait and self.per_owner):
            message = (
                f"this token already has {self.per_owner} evaluations running or waiting "
                f"(the per-token limit); retry when one ends"
            )
            raise Busy("per_token", message, retry)
        if self._admitted >= self.size + self.max_queue:
            message = (
                f"the server's {self.size} workers are busy and {self.max_queue} evaluations "
                "are waiting (the queue limit); retry later"
            )
            raise Busy("queue", message, retry)
        _, turns = self._bound()
        self._admitted += 1
        try:
            async with turns:
                await turns.wait_for(lambda: self._owners.get(owner, 0) < self.per_owner)
                self._owners[owner] = self._owners.get(owner, 0) + 1
            try:
                yield
            finally:
                async with turns:
                    self._owners[owner] -= 1
                    if not self._owners[owner]:
                        del self._owners[owner]
                    turns.notify_all()
        finally:
            self._admitted -= 1

    async def _run(
        self,
        func: Callable[..., Any],
        args: tuple,
        limits: Limits,
        stream: AsyncIterator[list] | None,
    ) -> Any:
        worker = self._idle.pop() if self._idle else await self._start()
        try:
            result = await self._call(worker, func, args, limits, stream)
        except WorkerError:
            self._idle.append(worker)  # the function failed; the worker is fine
            raise
        except BaseException:
            self._all.discard(worker)
            worker.kill()  # its state is unknown (or it is gone): a new one next time
            raise
        self._idle.append(worker)
        return result

    def close(self) -> None:
        """Stop every worker (the pool starts new ones if used again)."""
        for worker in list(self._all):
            worker.kill()
        self._all.clear()
        self._idle.clear()

    async def _start(self) -> _Worker:
        """A new worker, once it is ready: its start-up (imports) counts against no call."""
        worker = _Worker(self._context, self.limits.memory_bytes, self.initializer)
        self._all.add(worker)
        try:
            await _readable(worker, STARTUP_SECONDS)
            worker.conn.recv()
        except BaseException:
            self._all.discard(worker)
            worker.kill()
            raise
        return worker

    async def _call(
        self,
        worker: _Worker,
        func: Callable,
        args: tuple,
        limits: Limits,
        stream: AsyncIterator[list] | None,
    ) -> Any:
        worker.conn.send((func, args, limits.cpu_seconds, stream is not None))
        deadline = time.monotonic() + limits.wall_seconds
        try:
            if stream is not None:
                await asyncio.wait_for(_send_all(worker, stream), limits.wall_seconds)
            await _readable(worker, max(0.0, deadline - time.monotonic()))
        except BrokenPipeError:
            pass  # it ended while taking the stream: its exit code says why, below
        except TimeoutError:
            raise WorkerLimitError(
                "time", f"took longer than {limits.wall_seconds:g} s and was stopped"
            ) from None
        try:
            status, value = worker.conn.recv()
        except EOFError:  # the kernel ended it: CPU time (SIGXCPU) or memory
            code = worker.kill()
            if code == -signal.SIGXCPU:
                message = f"used more than {limits.cpu_seconds} s of CPU time and was stopped"
                raise WorkerLimitError("cpu", message) from None
            message = f"the worker ended (exit code {code}), probably out of memory"
            raise WorkerLimitError("memory", message) from None
        if status == "ok":
            return value
        if status == "memory":
            message = f"needed more than {limits.memory_bytes // 2**20} MiB and was stopped"
            raise WorkerLimitError("memory", message)
        raise WorkerError(value)


async def _send_all(worker: _Worker, stream: AsyncIterator[list]) -> None:
    """Each list of ``stream`` down the pipe (from a thread: a worker still busy with the last
    one may keep the pipe full), then the end mark."""
    async for items in stream:
        await asyncio.to_thread(worker.conn.send, items)
    await asyncio.to_thread(worker.conn.send, None)


def _received(conn: Any) -> Iterator[Any]:
    """A streamed call's items, as the caller sends them, until its end mark."""
    while (items := conn.recv()) is not None:
        yield from items


async def _readable(worker: _Worker, seconds: float) -> None:
    """Wait until the worker has written to its pipe (or ended); ``TimeoutError`` after
    ``seconds``."""
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    fd = worker.conn.fileno()
    loop.add_reader(fd, lambda: ready.done() or ready.set_result(None))
    try:
        await asyncio.wait_for(ready, seconds)
    finally:
        loop.remove_reader(fd)


def _serve(conn: Any, memory_bytes: int, initializer: Callable | None) -> None:
    """A worker's loop: run each call under its CPU limit, send back its result."""
    os.nice(10)
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, hard))
    _, cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)
    if initializer is not None:
        initializer()
    conn.send(("ready", None))
    while True:
        try:
            func, args, cpu_seconds, streamed = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        items = _received(conn) if streamed else None
        usage = resource.getrusage(resource.RUSAGE_SELF)
        # RLIMIT_CPU counts the process's whole life: the budget starts from what it used.
        soft = int(usage.ru_utime + usage.ru_stime + cpu_seconds) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (soft, cpu_hard))
        try:
            reply = ("ok", func(*args) if items is None else func(*args, items))
        except MemoryError:
            conn.send(("memory", None))
            return  # its heap may be in pieces: the pool starts a new worker
        except Exception as exc:  # noqa: BLE001 - any failure is the caller's to report
            reply = ("error", f"{type(exc).__name__}: {exc}")
        for _ in items or ():
            pass  # what the caller still streams after a failure, so the pipe is clear
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_hard, cpu_hard))
        try:
            conn.send(reply)
        except MemoryError:
            conn.send(("memory", None))
            return
