"""Does user-supplied work leave everyone else's requests alone? While 8 clients send
worst-case dry-runs at once (a huge draft that compiles until its CPU limit, and a draft whose
builtins double a string up to the output cap) and 4 clients replay recorded decisions against a
draft (``POST /v1/impact``, 10,000 records each), agents poll the bundle and upload decision
records; their latency is measured. Target: bundle and decision-upload p99 under 100 ms.

    .venv/bin/python bench/server_isolation_bench.py [--seconds 20] [--db URL]
        [--instances 2] [--impacts 4] [--recorded 10000]

Real ``hookgate serve`` processes on free ports (fresh SQLite unless ``--db``; with
``--instances 2`` two processes share the database, as behind a load balancer: give a
PostgreSQL URL, which is emptied), the default pack, default worker pool and limits. 4 viewer
tokens with 2 dry-runs each (the per-token cap), so all 8 run at once; one admin token per
impact client (admin replays recorded data whatever the role setting); ``--recorded`` decision
records with their input documents uploaded first, so each replay reads and evaluates that
many. Clients are spread over the instances in turn. The same latencies are measured first without the dry-runs and
replays, in the same run, for comparison.

The machine may be shared and noisy, so each agent loop also times a bare endpoint: FastAPI on
uvicorn in a process of its own answering a constant (``server_bench.py``'s ``bare``), which
pays the machine's noise and the framework, and no hookgate work. The report gives each route's
p99 as a ratio to the bare endpoint's p99 in the same phase, and the load average before and
after. A request that times out (30 s for agents, 60 s for dry-runs, 120 s for replays) counts as
``timeout``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
import uuid
from contextlib import ExitStack
from datetime import UTC, datetime

import httpx
from decisionlog_bench import batches, reset
from server_bench import start_server
from server_process import create_token, serving

HUGE = "package hookgate.huge\n\nimport rego.v1\n\n" + "\n".join(
    f'deny contains "r{i}" if {{\n\tinput.tool_input.command == "c{i}"\n'
    f"\tcount([x | some x in numbers.range(1, {i})]) > 0\n}}"
    for i in range(6000)
)
DOUBLING = """package hookgate.boom

import rego.v1

grow(s) := concat("", [s, s])

deny contains "x" if {
\ts := grow(grow(grow(grow(grow(grow(grow(grow(input.tool_input.command))))))))
\tt := grow(grow(grow(grow(grow(grow(grow(grow(grow(grow(grow(grow(grow(grow(s))))))))))))))
\tcount(t) > 0
}
"""
PAYLOAD = {
    "session_id": "s",
    "cwd": "/r",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "git commit --no-verify -m x" * 4},
}


def latencies(base: str, bare: str, token: str, stop: threading.Event, out: dict) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    with (
        httpx.Client(base_url=base, headers=headers, timeout=30) as client,
        httpx.Client(base_url=bare, timeout=30) as reference,
    ):
        while not stop.is_set():
            started = time.perf_counter()
            reference.post("/v1/evaluate", json={"payload": PAYLOAD}).raise_for_status()
            out["bare"].append(time.perf_counter() - started)
            started = time.perf_counter()
            client.get("/v1/bundle").raise_for_status()
            out["bundle"].append(time.perf_counter() - started)
            batch = [
                {
                    "decision_id": str(uuid.uuid4()),
                    "time": datetime.now(UTC).isoformat(),
                    "outcome": "allow",
                    "command": "ls -la",
                }
                for _ in range(20)
            ]
            started = time.perf_counter()
            client.post("/v1/decisions", json={"decisions": batch}).raise_for_status()
            out["upload"].append(time.perf_counter() - started)
            time.sleep(0.02)


def post_until(
    base: str, token: str, request: tuple[str, dict, float], stop: threading.Event, out: list
) -> None:
    """POST ``request`` (path, body, timeout) again and again until ``stop``; each answer's
    status into ``out``."""
    path, body, timeout = request
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base, headers=headers, timeout=timeout) as c:
        while not stop.is_set():
            try:
                out.append(c.post(path, json=body).status_code)
            except httpx.TimeoutException:
                out.append("timeout")


# A draft for impact replays: one more guard, so every record is decided by the whole pack.
IMPACT = {
    "policies": {
        "extra.rego": 'package hookgate.extra\n\nimport rego.v1\n\ndeny contains "x" '
        'if contains(input.tool_input.command, "no-such-thing")\n'
    },
    "limit": 10_000,
}


def measure(
    bases: list[str],
    bare: str,
    agent: str,
    seconds: float,
    viewers: list[str] | None = None,
    admins: list[str] | None = None,
) -> dict:
    stop = threading.Event()
    out: dict = {"bare": [], "bundle": [], "upload": [], "dry_runs": [], "impacts": []}
    threads = [
        threading.Thread(target=latencies, args=(bases[i % len(bases)], bare, agent, stop, out))
        for i in range(2 * len(bases))
    ]
    bodies = [
        {"payload": PAYLOAD, "policies": {"huge.rego": HUGE}},
        {"payload": PAYLOAD, "policies": {"boom.rego": DOUBLING}},
    ]
    busy = [
        (viewer, ("/v1/evaluate", body, 60), out["dry_runs"])
        for viewer in viewers or []
        for body in bodies
    ]
    busy += [(admin, ("/v1/impact", IMPACT, 120), out["impacts"]) for admin in admins or []]
    for i, (token, request, codes) in enumerate(busy):
        args = (bases[i % len(bases)], token, request, stop, codes)
        threads.append(threading.Thread(target=post_until, args=args))
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    return out


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98] * 1000 if len(values) > 2 else float("nan")


def record_decisions(base: str, agent: str, count: int) -> None:
    """``count`` decision records with their input documents, as hooks upload them."""
    headers = {"Authorization": f"Bearer {agent}", "Content-Type": "application/json"}
    with httpx.Client(base_url=base, headers=headers) as client:
        for batch in batches(seed=33, count=count):
            body = json.dumps({"decisions": batch})
            answer = client.post("/v1/decisions", content=body, timeout=120)
            if answer.status_code != 200:
                raise SystemExit(
                    f"uploading recorded decisions: {answer.status_code} {answer.text}"
                )


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--seconds", type=float, default=20, help="busy phase (quiet: half)")
    parser.add_argument("--db", help="a database URL (emptied; default a fresh SQLite)")
    parser.add_argument("--instances", type=int, default=1, choices=(1, 2))
    parser.add_argument("--impacts", type=int, default=4, help="impact replay clients")
    parser.add_argument("--recorded", type=int, default=10_000, help="records to replay")
    args = parser.parse_args()
    print(f"load average at start: {load()}")
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        db = args.db or f"sqlite:///{tmp}/server.db"
        if args.db:
            reset(db)
        options = ("--no-access-log", "--decision-quota", "0", "--max-body-bytes", "4194304")
        bases = [stack.enter_context(serving(db, *options)).url for _ in range(args.instances)]
        agent = create_token(db, "agent", "bench-agent")
        viewers = [create_token(db, "viewer", f"bench-viewer-{i}") for i in range(4)]
        admins = [create_token(db, "admin", f"bench-impact-{i}") for i in range(args.impacts)]
        record_decisions(bases[0], agent, args.recorded)
        port, reference = start_server("bare", db)
        stack.callback(reference.terminate)
        bare = f"http://127.0.0.1:{port}"
        quiet = measure(bases, bare, agent, args.seconds / 2)
        busy = measure(bases, bare, agent, args.seconds, viewers, admins)
    print(f"{args.instances} instance(s) on {db.partition(':')[0]}; load average after: {load()}")
    print("| requests | quiet p50 / p99 (× bare p99) | busy p50 / p99 (× bare p99) |")
    print("|---|---|---|")
    for name in ("bare", "bundle", "upload"):
        cells = []
        for phase in (quiet, busy):
            values = phase[name]
            ratio = p99(values) / p99(phase["bare"])
            cells.append(
                f"{statistics.median(values) * 1000:.1f} / {p99(values):.1f} ms ({ratio:.1f}×)"
            )
        print(f"| {name} ({len(busy[name])}) | {cells[0]} | {cells[1]} |")
    for kind in ("dry_runs", "impacts"):
        codes = {code: busy[kind].count(code) for code in sorted(set(busy[kind]), key=str)}
        print(f"{kind.replace('_', '-')} answers by status: {codes}")
    worst = max(p99(busy["bundle"]), p99(busy["upload"]))
    print(f"target p99 < 100 ms: {'met' if worst < 100 else 'MISSED'} ({worst:.1f} ms)")


if __name__ == "__main__":
    main()
