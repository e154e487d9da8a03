"""User-supplied work runs in worker processes under limits the OS enforces: a runaway is
stopped, the pool recovers, and the event loop never runs it."""

from __future__ import annotations

import asyncio
import os
import time

import pytest
from server_support import NO_VERIFY, auth, client_for, seeded, store_fixture

from hookgate.server.metrics import LATENCY_BUCKETS, Metrics
from hookgate.server.workers import Busy, Limits, WorkerError, WorkerLimitError, WorkerPool


def pid_and_sum(*numbers: int) -> tuple[int, int]:
    return os.getpid(), sum(numbers)


def spin() -> None:
    while True:
        pass


def sleep(seconds: float) -> None:
    time.sleep(seconds)


def allocate(megabytes: int) -> int:
    return len(bytearray(megabytes * 1024 * 1024))


def fail() -> None:
    raise KeyError("nope")


def count_items(start: int, items) -> tuple[int, int]:
    total = start
    for n, item in enumerate(items, 1):
        if item == "fail":
            raise ValueError(f"item {n}")
        total += item
    return n, total


async def batches(*lists):
    for items in lists:
        await asyncio.sleep(0)
        yield items


def _run(pool: WorkerPool, *calls):
    async def main():
        try:
            return [await pool.run(func, *args) for func, *args in calls]
        finally:
            pool.close()

    return asyncio.run(main())


def test_a_call_runs_in_another_process_and_its_errors_come_back():
    pool = WorkerPool(size=1)

    async def main():
        try:
            pid, total = await pool.run(pid_and_sum, 1, 2, 3)
            with pytest.raises(WorkerError, match="KeyError: 'nope'"):
                await pool.run(fail)
            again, _ = await pool.run(pid_and_sum)
            return pid, total, again
        finally:
            pool.close()

    pid, total, again = asyncio.run(main())
    assert pid != os.getpid() and total == 6
    assert again == pid  # an exception in the function does not cost the worker


@pytest.mark.parametrize(
    ("limits", "call", "limit"),
    [
        (Limits(cpu_seconds=1, wall_seconds=60), (spin,), "cpu"),
        (Limits(cpu_seconds=60, wall_seconds=0.5), (sleep, 30), "time"),
        (Limits(memory_bytes=512 * 1024 * 1024), (allocate, 1024), "memory"),
    ],
)
def test_a_runaway_is_stopped_at_its_limit_and_the_pool_recovers(limits, call, limit):
    pool = WorkerPool(size=1, limits=limits)

    async def main():
        try:
            with pytest.raises(WorkerLimitError) as caught:
                await pool.run(*call)
            # The next call gets a new worker (importing this module in it takes a while).
            recovery = Limits(memory_bytes=limits.memory_bytes)
            return caught.value.limit, await pool.run(pid_and_sum, 2, 2, limits=recovery)
        finally:
            pool.close()

    stopped, (_, total) = asyncio.run(main())
    assert stopped == limit and total == 4


def test_the_event_loop_keeps_serving_while_every_worker_is_busy():
    pool = WorkerPool(size=2, limits=Limits(cpu_seconds=2, wall_seconds=30))
    order = []

    async def busy():
        with pytest.raises(WorkerLimitError):
            await pool.run(spin)
        order.append("worker stopped")

    async def ticks():
        for _ in range(5):
            await asyncio.sleep(0.01)
        order.append("loop ticked")

    async def main():
        try:
            await asyncio.gather(busy(), busy(), ticks())
        finally:
            pool.close()

    asyncio.run(main())
    assert order[0] == "loop ticked"


def test_a_stream_reaches_the_call_as_it_runs_and_a_failure_leaves_the_worker_usable():
    pool = WorkerPool(size=1)

    async def main():
        try:
            big = [list(range(1000))] * 50  # 50 batches: more than a pipe's buffer holds
            counted = await pool.run(count_items, 1, stream=batches(*big))
            with pytest.raises(WorkerError, match="ValueError: item 3"):
                await pool.run(count_items, 0, stream=batches([1, 2], ["fail", 4], [5] * 999))
            again = await pool.run(count_items, 0, stream=batches([7]))
            return counted, again, len(pool._all)
        finally:
            pool.close()

    counted, again, workers = asyncio.run(main())
    assert counted == (50_000, 1 + 50 * sum(range(1000)))
    assert again == (1, 7) and workers == 1  # the same worker, its pipe clear


def test_requests_per_owner_and_waiting_requests_are_capped():
    pool = WorkerPool(size=1, per_owner=2, max_queue=1)

    async def main():
        try:
            first = asyncio.create_task(pool.run(sleep, 1.0, owner="a"))
            second = asyncio.create_task(pool.run(sleep, 0, owner="a"))
            await asyncio.sleep(0)
            with pytest.raises(Busy) as per_token:
                await pool.run(sleep, 0, owner="a")
            with pytest.raises(Busy) as queue:  # one runs, one waits
                await pool.run(sleep, 0, owner="b")
            await asyncio.gather(first, second)
            async with pool.admitted("a"):  # released; calls inside count as one request
                await pool.run(sleep, 0)
                await pool.run(sleep, 0)
            order, roomier = [], WorkerPool(size=1, per_owner=2, max_queue=4)

            async def change(n: int) -> None:  # a change waits its turn past the token's share
                async with roomier.admitted("e", wait=True):
                    order.append(f"in {n}")
                    await asyncio.sleep(0.05)
                    order.append(f"out {n}")

            await asyncio.gather(*(change(n) for n in range(3)))
            assert order[:2] == ["in 0", "in 1"] and order.index("in 2") > 2
            return per_token.value, queue.value
        finally:
            pool.close()

    per_token, queue = asyncio.run(main())
    assert (per_token.limit, queue.limit) == ("per_token", "queue")
    assert per_token.retry_after >= 1 and queue.retry_after >= 1


store = store_fixture()


def test_a_pool_serves_one_event_loop_after_another():
    # Each TestClient (and each asyncio.run) has its own loop: a pool reused by the next one
    # must not wait on primitives of the loop that is gone.
    pool = WorkerPool(size=1, per_owner=1, max_queue=4)

    async def contended():
        async def one(owner):
            async with pool.admitted(owner, wait=True):
                return await pool.run(pid_and_sum, 1, 2)

        return await asyncio.gather(*(one("same") for _ in range(3)))

    try:
        for _ in range(2):
            assert [total for _, total in asyncio.run(contended())] == [3, 3, 3]
    finally:
        pool.close()


def test_past_the_cap_a_dry_run_gets_429(store):
    tokens = seeded(store)
    with client_for(store, dry_runs_per_token=0) as client:
        r = client.post("/v1/evaluate", json={"payload": NO_VERIFY}, headers=auth(tokens["viewer"]))
    assert r.status_code == 429 and r.json()["limit"] == "per_token"
    assert int(r.headers["Retry-After"]) >= 1


def _huge_draft(rules: int) -> str:
    body = "\n".join(
        f'deny contains "r{i}" if {{\n\tinput.tool_input.command == "c{i}"\n\tcount([x | '
        f"some x in numbers.range(1, {i})]) > 0\n}}"
        for i in range(rules)
    )
    return "package hookgate.huge\n\nimport rego.v1\n\n" + body + "\n"


def test_compiling_a_huge_draft_is_stopped_at_the_limit(store):
    tokens = seeded(store)
    pool = WorkerPool(size=1, limits=Limits(cpu_seconds=1, wall_seconds=3))
    with client_for(store, workers=pool) as client:
        draft = {"policies": {"huge.rego": _huge_draft(3000)}}
        r = client.post("/v1/check", json=draft, headers=auth(tokens["viewer"]))
        assert r.status_code == 422 and r.json()["limit"] in ("cpu", "time")
        ok = client.post(
            "/v1/evaluate", json={"payload": NO_VERIFY}, headers=auth(tokens["viewer"])
        )
        assert ok.status_code == 200 and ok.json()["decision"]["outcome"] == "deny"


def test_latency_histogram_buckets_are_inclusive_and_cumulative():
    metrics = Metrics()
    for seconds in (LATENCY_BUCKETS[0], LATENCY_BUCKETS[0] * 1.01, LATENCY_BUCKETS[-1] * 2):
        metrics.evaluation(seconds)
    lines = metrics.render().splitlines()
    buckets = [int(line.rsplit(" ", 1)[1]) for line in lines if "_seconds_bucket" in line]
    assert buckets == [1] + [2] * (len(LATENCY_BUCKETS) - 1) + [3]
    assert "hookgate_evaluation_seconds_count 3" in lines


DOUBLING = """package hookgate.boom

import rego.v1

grow(s) := concat("", [s, s])

deny contains "x" if {
\ts := grow(grow(grow(grow(grow(grow(grow(grow(input.tool_input.command))))))))
\tt := grow(grow(grow(grow(grow(grow(grow(grow(grow(grow(grow(grow(grow(grow(s))))))))))))))
\tcount(t) > 0
}
"""


def test_a_builtin_result_past_the_output_cap_stops_the_evaluation(store):
    tokens = seeded(store)
    body = {"payload": NO_VERIFY, "policies": {"boom.rego": DOUBLING}}
    with client_for(store) as client:
        r = client.post("/v1/evaluate", json=body, headers=auth(tokens["viewer"]))
    assert r.status_code == 200
    # A limit of the failing pack alone: the other packs still decide (no-verify denies).
    decision = r.json()["decision"]
    (error,) = decision["errors"]
    assert error["kind"] == "limit" and error["limit"] == "output-size"
    assert error["pack"] == "hookgate.boom" and "concat: result over 1048576" in error["message"]
    assert decision["outcome"] == "deny"
