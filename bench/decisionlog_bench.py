"""Decision logs at organisation scale, on PostgreSQL: upload throughput through the API and
the time of a filtered page with millions of records stored.

    .venv/bin/python bench/decisionlog_bench.py --db postgresql+psycopg://u:p@host/db
        [--records 5000000] [--api-records 100000] [--clients 4] [--queries 30]

(A PostgreSQL as ``.ci/run`` starts it: Debian's ``postgresql`` package; the database given
is emptied.) Targets: at least 5,000 records/s uploaded through POST /v1/decisions in batches
of 1,000 with 4 clients, and a filtered page (time window + outcome + pack, 100 records) under
100 ms at 5 million records.

The database is emptied and migrated, then a real ``hookgate serve`` process (access log off,
no quota, no retention, 4 MiB bodies: a batch of 1,000 records with their input documents is
about 1 MB) takes the uploads. Records are shaped as the hook writes them (``decisionlog``):
the masked input document included, sessions of 40 tool calls, a prompt every 5, everyday
commands; 90 % allow, 5 % deny, 3 % ask, 2 % rewrite, matched records naming one of 8 packs,
times over the last 30 days. The request bodies are made before the clock starts, so the
clients cost the server's machine little. In the same run, as a reference, the same number of
such records is loaded with PostgreSQL's COPY (no HTTP, masking or validation): the ratio says
what the API costs over the database's own work, whatever the machine's load. So does the CPU
time the server process and the database's backends (read from ``/proc``: PostgreSQL on this
machine) spend per batch: records per CPU-second is the rate a quiet core would give.

``--api-records`` go through the API; the database itself makes the rest (``GENERATE``:
``INSERT … SELECT`` over ``generate_series``, records of the same shape, the indexes dropped
and built again after, as a bulk load is done), so the table reaches ``--records`` in minutes
(5 million: about 10 on a loaded 2-core machine). Then ``VACUUM ANALYZE`` (what autovacuum
does in time), and the page is timed as a client sees it (HTTP included) for one-day windows at
random, with the next page through its cursor; median and p99 reported.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta

import httpx
import sqlalchemy as sa
from server_process import create_token, serving

PACKS = [f"hookgate.guard{i}" for i in range(8)]
OUTCOMES = ["allow"] * 90 + ["deny"] * 5 + ["ask"] * 3 + ["rewrite"] * 2
HOSTS = ["claude", "codex", "copilot", "gemini", "cursor"]
COMMANDS = [
    "git status",
    "git diff --stat",
    "git log --oneline -20",
    "git add -A",
    "git commit -m 'Fix the parser on empty input'",
    "git push origin feature/login",
    "git push --force origin main",
    "npm test",
    "npm run build",
    "npm install --save-dev eslint",
    "pytest -x -q tests/test_api.py",
    "python -m pytest tests/ -k parser",
    "ls -la",
    "cat README.md",
    "grep -rn 'TODO' src/",
    "rg --files | head -50",
    "make -j4",
    "cargo test --workspace",
    "go test ./...",
    "docker compose up -d db",
    "curl -s http://localhost:8080/healthz",
    "find . -name '*.py' -newer setup.cfg",
    "sed -n 1,80p src/app/server.py",
    "rm -rf build/ dist/",
    "kubectl get pods -n staging",
]
NOW = datetime.now(UTC)
COLUMNS = (
    "decision_id, time, host, event, session_id, tool_name, outcome, bundle_revision, "
    "command, input, input_truncated, uploaded_by, token_id, received_at"
)


class Developer:
    """One developer's hook: sessions of 40 tool calls, a new prompt every 5."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.host = rng.choice(HOSTS)
        self.cwd = f"/home/dev{rng.randrange(10_000)}/src/project{rng.randrange(20)}"
        self.calls = 0

    def record(self) -> dict:
        rng = self.rng
        if self.calls % 40 == 0:
            self.session = str(uuid.UUID(int=rng.getrandbits(128)))
        if self.calls % 5 == 0:
            self.prompt = str(uuid.UUID(int=rng.getrandbits(128)))
        self.calls += 1
        command = rng.choice(COMMANDS)
        outcome = rng.choice(OUTCOMES)
        matched = outcome != "allow"
        document = {
            "hook_event_name": "PreToolUse",
            "host": self.host,
            "tool_name": "Bash",
            "tool_kind": "shell",
            "tool_input": {"command": command, "description": "Run the step"},
            "tool_result": None,
            "session_id": self.session,
            "cwd": self.cwd,
            "extra": {
                "transcript_path": f"/home/dev/.claude/projects/p/{self.session}.jsonl",
                "prompt_id": self.prompt,
                "permission_mode": "default",
                "tool_use_id": f"toolu_{rng.getrandbits(96):024x}",
            },
            "effects": [{"kind": "run", "dialect": "sh", "command": command, "tool": "Bash"}],
        }
        return {
            "decision_id": str(uuid.UUID(int=rng.getrandbits(128))),
            "time": (NOW - timedelta(seconds=rng.uniform(60, 30 * 86400))).isoformat(),
            "host": self.host,
            "event": "PreToolUse",
            "session_id": self.session,
            "tool_name": "Bash",
            "outcome": outcome,
            "matches": [{"pack": rng.choice(PACKS), "pattern": "p", "rule": outcome}]
            if matched
            else [],
            "bundle_revision": 1,
            "command": command,
            "input": document,
            "input_truncated": False,
        }


def batches(seed: int, count: int, size: int = 1000) -> list[list[dict]]:
    """``count`` records in batches of ``size``, each batch from one of 50 developers."""
    rng = random.Random(seed)
    developers = [Developer(random.Random(rng.getrandbits(64))) for _ in range(50)]
    out = []
    for start in range(0, count, size):
        developer = rng.choice(developers)
        out.append([developer.record() for _ in range(min(size, count - start))])
    return out


def dsn(url: str) -> str:
    return sa.engine.make_url(url).set(drivername="postgresql").render_as_string(False)


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
    """Load ``count`` records with COPY (decisions, then their matches); returns seconds."""
    import psycopg

    started = time.perf_counter()
    with psycopg.connect(dsn(url)) as conn:
        for batch in _chunks(seed, count, 50_000):
            first = conn.execute("SELECT nextval('decisions_seq_seq')").fetchone()[0]
            conn.execute("SELECT setval('decisions_seq_seq', %s)", (first + len(batch),))
            with conn.cursor().copy(f"COPY decisions (seq, {COLUMNS}) FROM STDIN") as copy:
                for seq, r in enumerate(batch, first):
                    copy.write_row(
                        (seq, r["decision_id"], r["time"], r["host"], r["event"],
                         r["session_id"], r["tool_name"], r["outcome"], r["bundle_revision"],
                         r["command"], json.dumps(r["input"], separators=(",", ":")), False,
                         "bench", 1, NOW)
                    )  # fmt: skip
            with conn.cursor().copy(
                "COPY decision_matches (decision_seq, position, pack, pattern, rule, time, outcome)"
                " FROM STDIN"
            ) as copy:
                for seq, r in enumerate(batch, first):
                    for i, m in enumerate(r["matches"]):
                        row = (seq, i, m["pack"], m["pattern"], m["rule"], r["time"], r["outcome"])
                        copy.write_row(row)
            conn.commit()
    return time.perf_counter() - started


def _chunks(seed: int, count: int, size: int):
    for n, start in enumerate(range(0, count, size)):
        yield [r for b in batches(seed * 1_000_003 + n, min(size, count - start)) for r in b]


# Records made by the database itself, shaped as ``Developer.record`` makes them (sessions of
# 40 calls), for the bulk of the table: no client between the generator and the table.
GENERATE = """
INSERT INTO decisions (COLUMNS)
SELECT gen_random_uuid()::text, t, host, 'PreToolUse', session, 'Bash', outcome, 1, command,
    json_build_object(
        'hook_event_name', 'PreToolUse', 'host', host, 'tool_name', 'Bash',
        'tool_kind', 'shell',
        'tool_input', json_build_object('command', command, 'description', 'Run the step'),
        'tool_result', NULL, 'session_id', session, 'cwd', '/home/dev/src/project',
        'extra', json_build_object(
            'transcript_path', '/home/dev/.claude/projects/p/' || session || '.jsonl',
            'prompt_id', gen_random_uuid()::text, 'permission_mode', 'default',
            'tool_use_id', 'toolu_' || substr(md5(g::text), 1, 24)),
        'effects', json_build_array(json_build_object(
            'kind', 'run', 'dialect', 'sh', 'command', command, 'tool', 'Bash'))
    )::text,
    false, 'bench', 1, now()
FROM (
    SELECT g, now() - random() * interval '30 days' AS t,
        (%(hosts)s::text[])[1 + floor(random() * %(nhosts)s)::int] AS host,
        md5(((g + %(start)s) / 40)::text)::uuid::text AS session,
        (%(commands)s::text[])[1 + floor(random() * %(ncommands)s)::int] AS command,
        CASE WHEN r < 0.90 THEN 'allow' WHEN r < 0.95 THEN 'deny'
             WHEN r < 0.98 THEN 'ask' ELSE 'rewrite' END AS outcome
    FROM (SELECT g, random() AS r FROM generate_series(1, %(count)s) AS g) AS numbered
) AS generated
""".replace("COLUMNS", COLUMNS)
GENERATE_MATCHES = """
INSERT INTO decision_matches (decision_seq, position, pack, pattern, rule, time, outcome)
SELECT seq, 0, 'hookgate.guard' || floor(random() * 8)::int, 'p', outcome, time, outcome
FROM decisions WHERE seq > %(after)s AND outcome <> 'allow'
"""


def generate_records(url: str, count: int) -> float:
    """``count`` more records made by the database (``GENERATE``), in chunks of a million,
    the tables' indexes dropped first and built again after (as a bulk load is done);
    returns seconds."""
    import psycopg

    from hookgate.server import tables

    started = time.perf_counter()
    engine = sa.create_engine(url)
    indexes = [*tables.decisions.indexes, *tables.decision_matches.indexes]
    with engine.begin() as conn:
        for index in indexes:
            index.drop(conn)
    with psycopg.connect(dsn(url)) as conn:
        after = conn.execute("SELECT coalesce(max(seq), 0) FROM decisions").fetchone()[0]
        for start in range(0, count, 1_000_000):
            params = {"hosts": HOSTS, "nhosts": len(HOSTS), "commands": COMMANDS}
            params |= {"ncommands": len(COMMANDS), "start": start}
            conn.execute(GENERATE, params | {"count": min(1_000_000, count - start)})
            conn.commit()
        conn.execute(GENERATE_MATCHES, {"after": after})
        conn.commit()
    with engine.begin() as conn:
        for index in indexes:
            index.create(conn)
    engine.dispose()
    return time.perf_counter() - started


def upload(base: str, token: str, bodies: list[bytes], clients: int) -> float:
    """Send the batches over ``clients`` connections; returns records/s."""
    counter = iter(range(len(bodies)))
    lock = threading.Lock()
    sent = [0]

    def client() -> None:
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        with httpx.Client(base_url=base, headers=headers, timeout=120) as c:
            while True:
                with lock:
                    n = next(counter, None)
                if n is None:
                    return
                answer = c.post("/v1/decisions", content=bodies[n])
                answer.raise_for_status()
                with lock:
                    sent[0] += answer.json()["accepted"]

    started = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sent[0] / (time.perf_counter() - started)


def database_cpu(url: str) -> dict[int, float]:
    """CPU seconds (user + system) of each PostgreSQL backend serving ``url``'s database on
    this machine, by pid (Linux; a server elsewhere gives nothing)."""
    database = sa.engine.make_url(url).database
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                words = f.read().split(b"\0")[0].split()
            if words[:1] != [b"postgres:"] or database.encode() not in words:
                continue
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rpartition(")")[2].split()
        except (OSError, IndexError):
            continue  # gone meanwhile, or not ours to read
        found[int(pid)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return found


def cpu_used(before: dict[int, float], after: dict[int, float]) -> float:
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


def pages(base: str, token: str, queries: int) -> tuple[list[float], list[float], list[float]]:
    """First pages, their next pages (through the cursor), and the bare endpoint (``/healthz``,
    timed before each query: what the machine's noise alone costs a request), seconds each."""
    rng = random.Random(7)
    first, second, bare = [], [], []
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}) as c:
        for _ in range(queries):
            started = time.perf_counter()
            c.get("/healthz").raise_for_status()
            bare.append(time.perf_counter() - started)
            since = NOW - timedelta(days=rng.uniform(1, 29))
            params = {
                "since": since.isoformat(),
                "until": (since + timedelta(days=1)).isoformat(),
                "outcome": "deny",
                "pack": rng.choice(PACKS),
                "limit": 100,
            }
            for took in (first, second):
                started = time.perf_counter()
                answer = c.get("/v1/decisions", params=params)
                took.append(time.perf_counter() - started)
                answer.raise_for_status()
                page = answer.json()
                assert all(d["outcome"] == "deny" for d in page["decisions"])
                if page["next_cursor"] is None:
                    break
                params["cursor"] = page["next_cursor"]
    return first, second, bare


def ms(values: list[float]) -> str:
    p99 = statistics.quantiles(values, n=100)[98]
    return f"median {statistics.median(values) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms"


def time_pages(db: str, base: str, queries: int) -> None:
    import psycopg

    with psycopg.connect(dsn(db)) as conn:
        total = conn.execute("SELECT count(*) FROM decisions").fetchone()[0]
    first, second, bare = pages(base, create_token(db, "viewer", "bench-viewer"), queries)
    p99 = statistics.quantiles(first + second, n=100)[98] * 1000
    nexts = f"; {len(second)} next pages {ms(second)}" if second else ""
    ratio = statistics.median(first + second) / statistics.median(bare)
    print(
        f"filtered page (1-day window + deny + pack, 100 records) at {total:,} records: "
        f"first pages {ms(first)}{nexts} (target < 100 ms: {'met' if p99 < 100 else 'MISSED'}); "
        f"bare endpoint /healthz {ms(bare)}, pages' median {ratio:.1f}x the bare median"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", required=True, help="a PostgreSQL URL (the database is emptied)")
    parser.add_argument("--records", type=int, default=5_000_000)
    parser.add_argument("--api-records", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument(
        "--pages-only", action="store_true", help="time pages on the records already stored"
    )
    args = parser.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.pages_only:
        with serving(args.db, "--no-access-log", "--retention-days", "0") as server:
            time_pages(args.db, server.url, args.queries)
        return
    reset(args.db)
    bodies = [
        json.dumps({"decisions": b}).encode() for b in batches(seed=1000, count=args.api_records)
    ]
    options = ["--no-access-log", "--decision-quota", "0", "--retention-days", "0"]
    with serving(args.db, *options, "--max-body-bytes", str(4 * 1024 * 1024)) as server:
        base = server.url
        agent = create_token(args.db, "agent", "bench-agent")
        cpu, database = server.cpu_seconds(), database_cpu(args.db)
        rate = upload(base, agent, bodies, args.clients)
        cpu = (server.cpu_seconds() - cpu) / len(bodies)
        database = cpu_used(database, database_cpu(args.db)) / len(bodies)
        del bodies
        reference = min(args.api_records, 50_000)
        copy_rate = reference / copy_records(args.db, reference, seed=2)
        print(
            f"upload through the API: {rate:,.0f} records/s ({args.api_records:,} records, "
            f"batches of 1,000, {args.clients} clients; target >= 5,000: "
            f"{'met' if rate >= 5000 else 'MISSED'}); COPY of as many, same run: "
            f"{copy_rate:,.0f} records/s (API/COPY {rate / copy_rate:.2f}); the server's CPU "
            f"per batch of 1,000: {cpu * 1000:.0f} ms, PostgreSQL's {database * 1000:.0f} ms: "
            f"{1000 / (cpu + database):,.0f} records per CPU-second in all (the rate a "
            f"quiet core would give)"
        )
        print(f"load average after uploads: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        rest = args.records - args.api_records - reference
        if rest > 0:
            seconds = generate_records(args.db, rest)
            print(
                f"{rest:,} more records made by the database, indexes built again: {seconds:.0f} s"
            )
        import psycopg

        with psycopg.connect(dsn(args.db), autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE decisions")
            conn.execute("VACUUM ANALYZE decision_matches")
        time_pages(args.db, base, args.queries)
        print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
