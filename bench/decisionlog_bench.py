"""Decision logs at organisation scale, on PostgreSQL: upload throughput through the API and
the time of a filtered page with millions of records stored.

    .venv/bin/python bench/decisionlog_bench.py --db postgresql+psycopg://u:p@host/db
        [--records 5000000] [--api-records 200000] [--clients 4] [--queries 30]

Targets: at least 5,000 records/s uploaded through POST /v1/decisions in batches of 1,000,
and a filtered page (time window + outcome + pack, 100 records) under 100 ms at that size.

The database is emptied and migrated, then a real ``hookgate serve`` process (access log off,
no quota, no retention) takes the uploads. ``--api-records`` of the records go through the API
(``--clients`` connections, batches of 1,000); the rest is loaded with PostgreSQL's COPY, so
the table reaches ``--records`` in minutes (``--api-records`` equal to ``--records`` sends
them all through the API). Records span the last 30 days: 90 % allow, 5 % deny, 3 % ask,
2 % rewrite; matched records name one of 8 packs. The page is timed as a client sees it
(HTTP included), for windows of one day at random, median and p99 reported.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import re
import statistics
import subprocess
import sys
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta

import httpx
import sqlalchemy as sa

PACKS = [f"hookgate.guard{i}" for i in range(8)]
OUTCOMES = ["allow"] * 90 + ["deny"] * 5 + ["ask"] * 3 + ["rewrite"] * 2
HOSTS = ["claude", "codex", "copilot", "gemini", "cursor"]
NOW = datetime.now(UTC)


def record(rng: random.Random) -> dict:
    outcome = rng.choice(OUTCOMES)
    matched = outcome != "allow"
    return {
        "decision_id": str(uuid.UUID(int=rng.getrandbits(128))),
        "time": (NOW - timedelta(seconds=rng.uniform(0, 30 * 86400))).isoformat(),
        "host": rng.choice(HOSTS),
        "event": "PreToolUse",
        "session_id": f"s{rng.randrange(100000)}",
        "tool_name": "Bash",
        "outcome": outcome,
        "matches": [{"pack": rng.choice(PACKS), "pattern": "p", "rule": "deny"}] if matched else [],
        "bundle_revision": 1,
        "command": rng.choice(["git status", "npm test", "ls -la", "git push --force origin"]),
    }


def reset(url: str) -> None:
    from hookgate.server import tables
    from hookgate.server.store import make_engine, migrate

    engine = make_engine(url)
    tables.metadata.drop_all(engine)
    with engine.begin() as conn:
        conn.execute(sa.text("DROP TABLE IF EXISTS alembic_version"))
    migrate(engine)
    engine.dispose()


def copy_records(url: str, count: int, seed: int) -> float:
    """Load ``count`` records with COPY; returns seconds."""
    import psycopg

    rng = random.Random(seed)
    started = time.perf_counter()
    dsn = sa.engine.make_url(url).set(drivername="postgresql").render_as_string(False)
    with psycopg.connect(dsn) as conn:
        first = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM decisions").fetchone()[0]
        for start in range(0, count, 100_000):
            decisions, matches = io.StringIO(), io.StringIO()
            for seq in range(first + start, first + min(start + 100_000, count)):
                r = record(rng)
                decisions.write(
                    f"{seq}\t{r['decision_id']}\t{r['time']}\t{r['host']}\tPreToolUse\t"
                    f"{r['session_id']}\tBash\t{r['outcome']}\t1\t{r['command']}\tbench\t"
                    f"{NOW.isoformat()}\t1\n"
                )
                for m in r["matches"]:
                    matches.write(f"{seq}\t0\t{m['pack']}\tp\tdeny\n")
            columns = (
                "seq, decision_id, time, host, event, session_id, tool_name, outcome, "
                "bundle_revision, command, uploaded_by, received_at, token_id"
            )
            with conn.cursor().copy(f"COPY decisions ({columns}) FROM STDIN") as copy:
                copy.write(decisions.getvalue())
            with conn.cursor().copy(
                "COPY decision_matches (decision_seq, position, pack, pattern, rule) FROM STDIN"
            ) as copy:
                copy.write(matches.getvalue())
            conn.commit()
        conn.execute("SELECT setval('decisions_seq_seq', (SELECT max(seq) FROM decisions))")
        conn.execute("ANALYZE decisions")
        conn.execute("ANALYZE decision_matches")
        conn.commit()
    return time.perf_counter() - started


def start_server(url: str) -> tuple[subprocess.Popen, str, str]:
    hookgate = os.path.join(os.path.dirname(sys.executable), "hookgate")
    argv = [hookgate, "serve", "--port", "0", "--db", url, "--no-access-log"]
    argv += ["--decision-quota", "0", "--retention-days", "0"]
    server = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    address = token = None
    for line in server.stdout:
        if found := re.search(r"Swagger UI: (http://\S+)/docs", line):
            address = found.group(1)
        if found := re.search(r"Admin token.*: (hg_\S+)", line):
            token = found.group(1)
        if address and token:
            break
    threading.Thread(target=server.stdout.read, daemon=True).start()
    for _ in range(600):
        try:
            httpx.get(f"{address}/healthz").raise_for_status()
            break
        except httpx.HTTPError:
            time.sleep(0.1)
    return server, address, token


def upload(base: str, token: str, count: int, clients: int) -> float:
    """Send ``count`` records in batches of 1,000 over ``clients`` connections; records/s."""
    batches = count // 1000
    rngs = [random.Random(1000 + i) for i in range(clients)]
    bodies = [[{"decisions": [record(rngs[i]) for _ in range(1000)]} for _ in range(2)]
              for i in range(clients)]  # fmt: skip
    counter = iter(range(batches))
    lock = threading.Lock()

    def client(i: int) -> None:
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=base, headers=headers, timeout=120) as c:
            while True:
                with lock:
                    n = next(counter, None)
                if n is None:
                    return
                body = bodies[i][n % 2]
                for r in body["decisions"]:  # new ids, so nothing is a duplicate
                    r["decision_id"] = str(uuid.uuid4())
                answer = c.post("/v1/decisions", json=body)
                answer.raise_for_status()
                assert answer.json()["accepted"] == 1000, answer.text

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return batches * 1000 / (time.perf_counter() - started)


def pages(base: str, token: str, queries: int) -> list[float]:
    rng = random.Random(7)
    took = []
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}) as c:
        for _ in range(queries):
            since = NOW - timedelta(days=rng.uniform(1, 29))
            params = {
                "since": since.isoformat(),
                "until": (since + timedelta(days=1)).isoformat(),
                "outcome": "deny",
                "pack": rng.choice(PACKS),
                "limit": 100,
            }
            started = time.perf_counter()
            answer = c.get("/v1/decisions", params=params)
            took.append(time.perf_counter() - started)
            answer.raise_for_status()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", required=True, help="a PostgreSQL URL (the database is emptied)")
    parser.add_argument("--records", type=int, default=5_000_000)
    parser.add_argument("--api-records", type=int, default=200_000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--queries", type=int, default=30)
    args = parser.parse_args()
    reset(args.db)
    server, base, admin = start_server(args.db)
    try:
        headers = {"Authorization": f"Bearer {admin}"}
        agent = httpx.post(f"{base}/v1/tokens", headers=headers,
                           json={"role": "agent", "name": "bench"}).json()["token"]  # fmt: skip
        rate = upload(base, agent, args.api_records, args.clients)
        print(f"upload through the API: {rate:,.0f} records/s "
              f"({args.api_records:,} records, batches of 1,000, {args.clients} clients; "
              f"target >= 5,000: {'met' if rate >= 5000 else 'MISSED'})")  # fmt: skip
        rest = args.records - args.api_records
        if rest > 0:
            seconds = copy_records(args.db, rest, seed=1)
            print(f"COPY of {rest:,} more records: {rest / seconds:,.0f} records/s")
        took = pages(base, admin, args.queries)
        p99 = statistics.quantiles(took, n=100)[98] * 1000
        print(f"filtered page (1-day window + deny + pack, 100 records) at {args.records:,}: "
              f"median {statistics.median(took) * 1000:.1f} ms, p99 {p99:.1f} ms "
              f"(target < 100 ms: {'met' if p99 < 100 else 'MISSED'})")  # fmt: skip
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
