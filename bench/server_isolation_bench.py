"""Does user-supplied work leave everyone else's requests alone? While 8 clients send
worst-case dry-runs at once (a huge draft that compiles until its CPU limit, and a draft whose
builtins double a string up to the output cap), agents poll the bundle and upload decision
records; their latency is measured. Target: bundle and decision-upload p99 under 100 ms.

    .venv/bin/python bench/server_isolation_bench.py [--seconds 20] [--db URL]

A real ``hookgate serve`` process on a free port (fresh SQLite unless ``--db``), the default
pack, default worker pool and limits; 4 viewer tokens with 2 dry-runs each (the per-token cap),
so all 8 run at once. The same latencies are measured first without the dry-runs, in the same
run, for comparison.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
import uuid
from datetime import UTC, datetime

import httpx
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


def latencies(base: str, token: str, stop: threading.Event, out: dict) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base, headers=headers, timeout=30) as client:
        while not stop.is_set():
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


def dry_runs(base: str, token: str, body: dict, stop: threading.Event, out: list) -> None:
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=60) as c:
        while not stop.is_set():
            out.append(c.post("/v1/evaluate", json=body).status_code)


def measure(base: str, agent: str, seconds: float, viewers: list[str] | None) -> dict:
    stop = threading.Event()
    out: dict = {"bundle": [], "upload": [], "dry_runs": []}
    threads = [threading.Thread(target=latencies, args=(base, agent, stop, out)) for _ in range(2)]
    bodies = [
        {"payload": PAYLOAD, "policies": {"huge.rego": HUGE}},
        {"payload": PAYLOAD, "policies": {"boom.rego": DOUBLING}},
    ]
    for viewer in viewers or []:
        for body in bodies:
            args = (base, viewer, body, stop, out["dry_runs"])
            threads.append(threading.Thread(target=dry_runs, args=args))
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    return out


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98] * 1000 if len(values) > 2 else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--db")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or f"sqlite:///{tmp}/server.db"
        with serving(db, "--no-access-log", "--decision-quota", "0") as server:
            base = server.url
            agent = create_token(db, "agent", "bench-agent")
            viewers = [create_token(db, "viewer", f"bench-viewer-{i}") for i in range(4)]
            quiet = measure(base, agent, args.seconds / 2, None)
            busy = measure(base, agent, args.seconds, viewers)
    print("| requests | quiet p50 / p99 | with 8 worst-case dry-runs p50 / p99 |")
    print("|---|---|---|")
    for name in ("bundle", "upload"):
        q, b = quiet[name], busy[name]
        print(
            f"| {name} ({len(b)}) | {statistics.median(q) * 1000:.1f} / {p99(q):.1f} ms "
            f"| {statistics.median(b) * 1000:.1f} / {p99(b):.1f} ms |"
        )
    codes = {code: busy["dry_runs"].count(code) for code in sorted(set(busy["dry_runs"]))}
    print(f"dry-run answers by status: {codes}")
    worst = max(p99(busy["bundle"]), p99(busy["upload"]))
    print(f"target p99 < 100 ms: {'met' if worst < 100 else 'MISSED'} ({worst:.1f} ms)")


if __name__ == "__main__":
    main()
