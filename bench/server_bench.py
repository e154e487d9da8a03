"""Throughput and latency of the server's POST /v1/evaluate under concurrent loopback clients,
against a bare FastAPI endpoint returning a constant JSON, both served by uvicorn with the same
settings in the same run. Target: hookgate at least 0.7x the bare endpoint's throughput.

    .venv/bin/python bench/server_bench.py [--seconds 10] [--clients 16] [--processes 2]

Each server runs in its own process (one uvicorn worker, access log off); the load comes from
separate client processes, each with persistent HTTP/1.1 connections, so the measurement is of
the server, not of the load generator. The hookgate server uses a fresh SQLite database seeded
with the default pack; every request carries a viewer token (authentication included).
"""

import argparse
import http.client
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAYLOAD = {
    "payload": {
        "session_id": "bench",
        "cwd": "/home/u/proj",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git commit --no-verify -m wip"},
    },
    "host": "claude",
    "explain": False,
}


def serve(kind: str, port: int, db: str) -> None:
    """Run one server (``hookgate`` or ``bare``) in this process."""
    import uvicorn

    if kind == "bare":
        from fastapi import FastAPI, Request

        app = FastAPI()

        @app.post("/v1/evaluate")
        async def constant(request: Request) -> dict:
            await request.body()
            return {"decision": {"outcome": "allow"}}
    else:
        from hookgate.server.app import create_app
        from hookgate.server.store import Store, make_engine, migrate

        engine = make_engine(db)
        migrate(engine)
        app = create_app(Store(engine))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def prepare_db(db: str) -> str:
    """Seed the database and return a viewer token."""
    from hookgate.server.app import compile_set
    from hookgate.server.store import Store, make_engine, migrate, seed_policies

    engine = make_engine(db)
    migrate(engine)
    store = Store(engine)
    store.seed(*seed_policies(), validate=compile_set)
    token = store.create_token("viewer", "bench")
    engine.dispose()
    return token


def engine_alone(seconds: float) -> float:
    """Evaluations per second of the same payload by the engine in this process, one thread:
    the ceiling the server's evaluate endpoint works under."""
    from hookgate.server.app import compile_set
    from hookgate.server.store import seed_policies

    engine = compile_set(*seed_policies())
    payload, count = PAYLOAD["payload"], 0
    stop_at = time.perf_counter() + seconds
    while time.perf_counter() < stop_at:
        engine.evaluate(payload, "claude", facts={}, explain=False)
        count += 1
    return count / seconds


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"server on port {port} did not start")


def client_worker(args: tuple) -> tuple[list[float], int]:
    """One load process: ``threads`` persistent connections for ``seconds``."""
    import threading

    port, token, seconds, threads = args
    body = json.dumps(PAYLOAD).encode()
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def loop() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine: list[float] = []
        failed = 0
        while time.monotonic() < stop_at:
            started = time.perf_counter()
            try:
                conn.request("POST", "/v1/evaluate", body=body, headers=headers)
                response = conn.getresponse()
                response.read()
                if response.status != 200:
                    failed += 1
                    continue
            except (OSError, http.client.HTTPException):
                failed += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                continue
            mine.append(time.perf_counter() - started)
        conn.close()
        with lock:
            latencies.extend(mine)
            errors[0] += failed

    workers = [threading.Thread(target=loop) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return latencies, errors[0]


def measure(kind: str, db: str, token: str, options: argparse.Namespace) -> dict:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", kind, "--port", str(port), "--db", db],
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        wait_ready(port)
        per_process = max(1, options.clients // options.processes)
        jobs = [(port, token, 1.0, per_process)] * options.processes  # warm-up
        with multiprocessing.Pool(options.processes) as pool:
            pool.map(client_worker, jobs)
            jobs = [(port, token, options.seconds, per_process)] * options.processes
            started = time.perf_counter()
            results = pool.map(client_worker, jobs)
            elapsed = time.perf_counter() - started
    finally:
        server.terminate()
        server.wait(timeout=30)
    latencies = sorted(x for lat, _ in results for x in lat)
    errors = sum(e for _, e in results)
    return {
        "server": kind,
        "requests": len(latencies),
        "errors": errors,
        "throughput_rps": len(latencies) / elapsed,
        "p50_ms": statistics.median(latencies) * 1000 if latencies else None,
        "p99_ms": latencies[int(len(latencies) * 0.99) - 1] * 1000 if latencies else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=16, help="concurrent connections in all")
    parser.add_argument("--processes", type=int, default=2, help="load-generating processes")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--serve", choices=("hookgate", "bare"), help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        serve(options.serve, options.port, options.db)
        return 0

    with tempfile.TemporaryDirectory(prefix="hookgate-bench-") as tmp:
        db = f"sqlite:///{Path(tmp) / 'server.db'}"
        token = prepare_db(db)
        bare = measure("bare", db, token, options)
        hookgate = measure("hookgate", db, token, options)
    ratio = hookgate["throughput_rps"] / bare["throughput_rps"]
    ceiling = engine_alone(min(options.seconds, 5.0))
    print(
        f"{options.clients} concurrent clients, {options.seconds:g} s, loopback, 1 uvicorn worker"
    )
    print(f"{'server':10} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}")
    for r in (bare, hookgate):
        print(
            f"{r['server']:10} {r['throughput_rps']:9.0f} {r['p50_ms']:8.2f} "
            f"{r['p99_ms']:8.2f} {r['errors']:7d}"
        )
    print(f"engine alone (in-process, one thread, no HTTP): {ceiling:.0f} evaluations/s")
    verdict = "meets" if ratio >= 0.7 else "misses"
    print(f"hookgate / bare throughput: {ratio:.2f} ({verdict} the 0.7 target)")
    if options.json:
        Path(options.json).write_text(
            json.dumps(
                {"bare": bare, "hookgate": hookgate, "ratio": ratio, "engine_eval_per_s": ceiling}
            )
        )
    return 0 if ratio >= 0.7 and hookgate["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
