"""Load test of the central server: a real ``hookgate serve`` on loopback under concurrent clients
sending mixed traffic, with every answer checked and every decision record accounted for.

    .venv/bin/python bench/load_test.py [--seconds 30] [--clients 32] [--db URL] [--seed N]

The server is started with ``hookgate serve --port 0`` on a fresh database (default: a SQLite
file in a temporary directory; ``--db postgresql+psycopg://...``: a temporary schema in that
database, dropped afterwards; ``--db sqlite:///file``: a file that must not exist yet), with the
default guard pack, and tokens are made with ``hookgate token create``. Clients (threads in
this process, one persistent HTTP/1.1 connection each) pick at random, for the whole run, among:

- ``POST /v1/evaluate``: payloads of several hosts (Claude ``--no-verify``, Copilot ``toolArgs``
  force push, Codex hooks bypass and force push, harmless commands), each with a random suffix so
  no answer can be cached; the outcome (and the rewritten command) must be the expected one;
- ``GET /v1/bundle``, with and without ``If-None-Match`` (304 expected with it);
- ``POST /v1/decisions``: batches of records with unique decision ids, all to be accepted.

Afterwards one acknowledged batch is sent again (the API is idempotent on ``decision_id``: all
duplicates, none accepted) and every record is read back through ``GET /v1/decisions``'
pagination: none may be lost, listed twice or stored differently from what was sent (a secret in
a command must be stored masked). Exit status 1 on any error (a non-2xx/304 answer, an exception,
a traceback in the server's log), wrong answer, or lost, duplicate or altered record.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import random
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa
from server_process import create_token, serving

EVALUATE = "POST /v1/evaluate"
BUNDLE = "GET /v1/bundle"
BUNDLE_CACHED = "GET /v1/bundle If-None-Match"
DECISIONS = "POST /v1/decisions"
MIX = {EVALUATE: 6, BUNDLE: 1, BUNDLE_CACHED: 2, DECISIONS: 2}  # relative weights
MAX_BATCH = 50
PAGE = 500  # the API's largest page of decisions
SAMPLES = 10  # distinct error messages kept for the report


# -- evaluate payloads with their expected answers ------------------------------------------


@dataclass(frozen=True)
class Case:
    host: str
    payload: dict
    outcome: str
    command: str | None = None  # the rewritten command a rewrite must carry


def _claude(command: str, session: str) -> dict:
    return {
        "session_id": session,
        "cwd": "/home/u/proj",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }


def _codex(command: str, session: str) -> dict:
    return {
        **_claude(command, session),
        "turn_id": "turn-1",
        "model": "gpt-5",
        "permission_mode": "default",
        "tool_use_id": f"call_{session}",
    }


def _copilot(command: str, session: str) -> dict:
    return {
        "sessionId": session,
        "timestamp": int(time.time() * 1000),
        "cwd": "/home/u/proj",
        "toolName": "bash",
        "toolArgs": json.dumps({"command": command, "description": "load test"}),
    }


def _gemini(command: str, session: str) -> dict:
    return {
        "session_id": session,
        "cwd": "/home/u/proj",
        "hook_event_name": "BeforeTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": command},
    }


def _cursor(command: str, session: str) -> dict:
    return {
        "hook_event_name": "beforeShellExecution",
        "conversation_id": session,
        "generation_id": "gen-1",
        "workspace_roots": ["/home/u/proj"],
        "command": command,
        "cwd": "/home/u/proj",
    }


# Each maker takes a unique suffix and returns a payload of one host and what the default pack
# must answer to it.
CASES: tuple[Callable[[str], Case], ...] = (
    lambda s: Case("claude", _claude(f"git commit --no-verify -m 'wip {s}'", s), "deny"),
    lambda s: Case(
        "copilot",
        _copilot(f"git push --force origin feat-{s}", s),
        "rewrite",
        f"git push origin feat-{s}",
    ),
    lambda s: Case(
        "codex",
        _codex(f"git push --force-with-lease origin fix-{s}", s),
        "rewrite",
        f"git push origin fix-{s}",
    ),
    lambda s: Case("codex", _codex(f"git -c core.hooksPath=/dev/null commit -m {s}", s), "deny"),
    lambda s: Case("claude", _claude(f"echo build-{s}", s), "allow"),
    lambda s: Case("codex", _codex(f"cat README-{s}.md", s), "allow"),
    lambda s: Case("gemini", _gemini(f"ls -la src/{s}", s), "allow"),
    lambda s: Case("cursor", _cursor(f"npm test -- --grep {s}", s), "allow"),
)


def check_evaluation(case: Case, answer: dict) -> str | None:
    """What is wrong with the server's answer to ``case`` (``None``: nothing)."""
    decision = answer.get("decision") or {}
    if decision.get("outcome") != case.outcome:
        return f"{case.host}: outcome {decision.get('outcome')!r}, expected {case.outcome!r}"
    if answer.get("host") != case.host or answer.get("exit_code") != 0:
        return (
            f"{case.host}: answered for host {answer.get('host')!r}, exit {answer.get('exit_code')}"
        )
    if case.command is not None:
        updated = decision.get("updated_input") or {}
        if updated.get("command") != case.command:
            return f"{case.host}: rewritten command is not the expected one"
    return None


# -- decision records ------------------------------------------------------------------------


def decision_record(rng: random.Random, run_id: str) -> dict:
    """One record with a fresh id; one in four carries a secret the server must mask."""
    suffix = f"{rng.getrandbits(48):012x}"
    if rng.random() < 0.25:
        command = f"curl -H 'Authorization: Bearer LOADSECRET{suffix}' https://example.test"
    else:
        command = f"make test-{suffix}"
    matches = [
        {"pack": "no-verify", "pattern": f"p{i}", "rule": "deny"} for i in range(rng.randint(0, 3))
    ]
    return {
        "decision_id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        "time": datetime.now(UTC).isoformat(),
        "host": rng.choice(("claude", "codex", "copilot", "gemini", "cursor")),
        "event": "PreToolUse",
        "session_id": f"load-{run_id}",
        "tool_name": "Bash",
        "outcome": rng.choice(("allow", "deny", "ask", "rewrite")),
        "matches": matches,
        "bundle_revision": 1,
        "command": command,
    }


def check_stored(sent: dict, stored: dict) -> str | None:
    """What differs between a record as sent and as stored (``None``: nothing)."""
    for key in ("outcome", "host", "event", "session_id", "tool_name", "bundle_revision"):
        if stored.get(key) != sent[key]:
            return f"field {key} differs"
    if stored.get("matches") != sent["matches"]:
        return "matches differ"
    if "LOADSECRET" in sent["command"]:
        if "LOADSECRET" in (stored.get("command") or ""):
            return "a secret was stored unmasked"
    elif stored.get("command") != sent["command"]:
        return "field command differs"
    return None


# -- the run ---------------------------------------------------------------------------------


@dataclass
class RouteStats:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    wrong: int = 0


@dataclass
class Tally:
    """What one client saw (each client thread has its own: no locks on the hot path)."""

    routes: dict[str, RouteStats] = field(default_factory=lambda: {r: RouteStats() for r in MIX})
    problems: dict[str, int] = field(default_factory=dict)  # message -> count
    sent: dict[str, dict] = field(default_factory=dict)  # acknowledged records by id
    batches: int = 0

    def problem(self, route: str | None, message: str, *, wrong: bool = False) -> None:
        """Count an error (or a wrong answer) of ``route``; keep a few distinct messages."""
        if route is not None:
            stats = self.routes[route]
            if wrong:
                stats.wrong += 1
            else:
                stats.errors += 1
        self._note(f"{route or 'server'}: {message}", 1)

    def add(self, other: Tally) -> None:
        for route, stats in other.routes.items():
            mine = self.routes[route]
            mine.latencies += stats.latencies
            mine.errors += stats.errors
            mine.wrong += stats.wrong
        for message, count in other.problems.items():
            self._note(message, count)
        self.sent.update(other.sent)
        self.batches += other.batches

    def _note(self, message: str, count: int) -> None:
        if message in self.problems or len(self.problems) < SAMPLES:
            self.problems[message] = self.problems.get(message, 0) + count


@dataclass
class Report(Tally):
    db: str = ""
    clients: int = 0
    seconds: float = 0.0
    elapsed: float = 0.0
    stored: int = 0
    lost: int = 0
    duplicates: int = 0
    altered: int = 0
    unexpected: int = 0  # stored, but never acknowledged
    resent: tuple[int, int, int] | None = None  # (batch size, accepted, duplicates)
    server_tracebacks: int = 0
    server_log_excerpt: str = ""

    @property
    def errors(self) -> int:
        return sum(s.errors for s in self.routes.values()) + self.server_tracebacks

    @property
    def wrong(self) -> int:
        return sum(s.wrong for s in self.routes.values())

    @property
    def ok(self) -> bool:
        idempotent = self.resent is None or self.resent[1:] == (0, self.resent[0])
        return (
            self.errors == 0
            and self.wrong == 0
            and self.lost == 0
            and self.duplicates == 0
            and self.altered == 0
            and self.unexpected == 0
            and idempotent
            and all(s.latencies for s in self.routes.values())
        )


@dataclass(frozen=True)
class Target:
    """The server under test, as every client sees it."""

    host: str
    port: int
    tokens: dict[str, str]
    etag: str  # of the bundle, which no one changes during the run
    run_id: str

    def auth(self, role: str) -> dict:
        return {"Authorization": f"Bearer {self.tokens[role]}"}


class Client:
    """One client: a persistent HTTP/1.1 connection (http.client, cheaper per request than an
    async client, so the load generator leaves the CPU to the server), a random generator of
    its own, and its own tally."""

    def __init__(self, target: Target, rng: random.Random) -> None:
        self.target = target
        self.rng = rng
        self.tally = Tally()
        self.conn = http.client.HTTPConnection(target.host, target.port, timeout=60)

    def request(
        self, method: str, path: str, role: str, body: object = None, headers: dict | None = None
    ) -> tuple[int, http.client.HTTPMessage, bytes]:
        """``(status, headers, body)``; after a broken connection the next request reconnects."""
        headers = {**self.target.auth(role), **(headers or {})}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
            return response.status, response.headers, response.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            raise

    def call(
        self, route: str, method: str, path: str, role: str, expect: int, **kwargs: object
    ) -> tuple[http.client.HTTPMessage, bytes] | None:
        """One request of the load, timed; ``None`` (an error counted) unless it answers
        ``expect``."""
        started = time.perf_counter()
        try:
            status, headers, content = self.request(method, path, role, **kwargs)
        except (OSError, http.client.HTTPException) as exc:
            self.tally.problem(route, f"{type(exc).__name__}: {exc}")
            return None
        self.tally.routes[route].latencies.append(time.perf_counter() - started)
        if status != expect:
            detail = content[:200].decode("utf-8", "replace")
            self.tally.problem(route, f"HTTP {status}, expected {expect}: {detail}")
            return None
        return headers, content

    def evaluate(self) -> None:
        case = self.rng.choice(CASES)(f"{self.rng.getrandbits(48):012x}")
        body = {"payload": case.payload, "host": case.host}
        answer = self.call(EVALUATE, "POST", "/v1/evaluate", "viewer", 200, body=body)
        if answer is not None:
            wrong = check_evaluation(case, json.loads(answer[1]))
            if wrong:
                self.tally.problem(EVALUATE, wrong, wrong=True)

    def bundle(self) -> None:
        answer = self.call(BUNDLE, "GET", "/v1/bundle", "agent", 200)
        if answer is not None:
            digest = json.loads(answer[1]).get("digest")
            if answer[0].get("ETag") != self.target.etag or f'"{digest}"' != self.target.etag:
                self.tally.problem(BUNDLE, "ETag or digest changed with no change", wrong=True)

    def bundle_cached(self) -> None:
        headers = {"If-None-Match": self.target.etag}
        answer = self.call(BUNDLE_CACHED, "GET", "/v1/bundle", "agent", 304, headers=headers)
        if answer is not None and answer[1]:
            self.tally.problem(BUNDLE_CACHED, "a 304 with a body", wrong=True)

    def decisions(self) -> None:
        size = self.rng.randint(1, MAX_BATCH)
        batch = [decision_record(self.rng, self.target.run_id) for _ in range(size)]
        body = {"decisions": batch}
        answer = self.call(DECISIONS, "POST", "/v1/decisions", "agent", 200, body=body)
        if answer is None:
            return
        counts = json.loads(answer[1])
        if counts != {"accepted": size, "duplicates": 0}:
            self.tally.problem(DECISIONS, f"answered {counts} for new records", wrong=True)
            return
        self.tally.batches += 1
        self.tally.sent.update((r["decision_id"], r) for r in batch)

    def run(self, stop_at: float) -> None:
        actions = {
            EVALUATE: self.evaluate,
            BUNDLE: self.bundle,
            BUNDLE_CACHED: self.bundle_cached,
            DECISIONS: self.decisions,
        }
        routes, weights = list(MIX), list(MIX.values())
        try:
            while time.monotonic() < stop_at:
                actions[self.rng.choices(routes, weights)[0]]()
        finally:
            self.conn.close()

    def fetch(
        self, method: str, path: str, role: str, body: object = None
    ) -> tuple[http.client.HTTPMessage, Any]:
        """A request outside the load: anything but a 2xx raises."""
        status, headers, content = self.request(method, path, role, body)
        if not 200 <= status < 300:
            raise RuntimeError(f"{method} {path}: HTTP {status}")
        return headers, json.loads(content)


def verify(client: Client, report: Report) -> None:
    """Re-send one acknowledged batch (all duplicates), then read every record back."""
    if report.sent:
        batch = list(report.sent.values())[:MAX_BATCH]
        _, counts = client.fetch("POST", "/v1/decisions", "agent", {"decisions": batch})
        report.resent = (len(batch), counts["accepted"], counts["duplicates"])
    seen: dict[str, int] = {}
    path = f"/v1/decisions?limit={PAGE}"
    while path:
        _, page = client.fetch("GET", path, "viewer")
        for stored in page["decisions"]:
            decision_id = stored["decision_id"]
            seen[decision_id] = seen.get(decision_id, 0) + 1
            sent = report.sent.get(decision_id)
            if sent is None:
                report.unexpected += 1
            elif seen[decision_id] == 1 and (altered := check_stored(sent, stored)):
                report.altered += 1
                report.problem(None, f"stored record: {altered}")
        cursor = page["next_cursor"]
        path = cursor and f"/v1/decisions?limit={PAGE}&cursor={cursor}"
    report.stored = sum(1 for i in seen if i in report.sent)
    report.lost = len(report.sent) - report.stored
    report.duplicates = sum(n - 1 for n in seen.values())


def drive(base_url: str, tokens: dict, report: Report, seed: int) -> None:
    """The load (``report.clients`` threads for ``report.seconds``), then the verification."""
    address = urlsplit(base_url)
    target = Target(address.hostname, address.port, tokens, "", f"{seed:x}")
    control = Client(target, random.Random(seed))
    headers, _ = control.fetch("GET", "/v1/bundle", "agent")
    # Closed now: idle during the load, the server would close it; the next request reopens it.
    control.conn.close()
    target = replace(target, etag=headers["ETag"])
    clients = [Client(target, random.Random(f"{seed}-{i}")) for i in range(report.clients)]
    stop_at = time.monotonic() + report.seconds
    threads = [threading.Thread(target=c.run, args=(stop_at,)) for c in clients]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    report.elapsed = time.perf_counter() - started
    for client in clients:
        report.add(client.tally)
    try:
        verify(control, report)
    finally:
        control.conn.close()


# -- the server ------------------------------------------------------------------------------


@contextmanager
def fresh_database(url: str | None, workdir: Path) -> Iterator[str]:
    """A URL of an empty database: SQLite under ``workdir`` by default; in PostgreSQL a new
    schema (the search path of every connection), dropped on exit."""
    if url is None:
        yield f"sqlite:///{workdir / 'server.db'}"
        return
    parsed = sa.engine.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and Path(parsed.database).exists():
            raise SystemExit(f"load test: {parsed.database} exists; give a new file")
        yield url
        return
    schema = f"hookgate_load_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(url)
    try:
        with admin.begin() as conn:
            conn.execute(sa.text(f"CREATE SCHEMA {schema}"))
        yield parsed.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
            hide_password=False
        )
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        admin.dispose()


@contextmanager
def running_server(db_url: str, workdir: Path, report: Report) -> Iterator[tuple[str, dict]]:
    """``hookgate serve`` on a free loopback port: yields its base URL and a token per role
    (agent, viewer). On exit it is stopped; a traceback in its log counts as an error."""
    env = {**os.environ, "HOOKGATE_HOME": str(workdir / "home"), "PYTHONUNBUFFERED": "1"}
    log_path = workdir / "server.log"
    # Every client dry-runs with the one viewer token: neither the per-token cap nor the bounded
    # queue may turn the load into 429s (both are tested in tests/test_server_workers.py and
    # tests/test_server_limits.py); every client may have one evaluation waiting.
    room = str(max(report.clients, 2))
    options = ["--log-level", "warning", "--dry-runs-per-token", room, "--worker-queue", room]
    try:
        with serving(db_url, *options, env=env, log=log_path) as server:
            roles = ("agent", "viewer")
            yield server.url, {role: create_token(db_url, role, f"load-{role}") for role in roles}
    finally:
        text = log_path.read_text(errors="replace") if log_path.exists() else ""
        report.server_tracebacks = text.count("Traceback")
        if report.server_tracebacks:
            first = text.index("Traceback")
            report.server_log_excerpt = text[first : first + 3000]


# -- entry points ----------------------------------------------------------------------------


def run_load(
    db: str | None = None, *, seconds: float = 30, clients: int = 32, seed: int = 0
) -> Report:
    """Start a server on a fresh database (see ``fresh_database``), load it, check everything;
    the report says what held."""
    with tempfile.TemporaryDirectory(prefix="hookgate-load-") as tmp:
        workdir = Path(tmp)
        with fresh_database(db, workdir) as db_url:
            backend = sa.engine.make_url(db_url).get_backend_name()
            report = Report(db=backend, clients=clients, seconds=seconds)
            with running_server(db_url, workdir, report) as (base_url, tokens):
                drive(base_url, tokens, report, seed)
    return report


def percentile(sorted_values: list[float], q: float) -> float:
    """The nearest-rank ``q`` percentile (0 < q <= 1) of a non-empty sorted list."""
    return sorted_values[max(0, math.ceil(len(sorted_values) * q) - 1)]


def print_report(report: Report, seed: int) -> None:
    print(
        f"hookgate load test: {report.clients} clients, {report.seconds:g} s, {report.db}, "
        f"loopback, 1 uvicorn worker, seed {seed}"
    )
    columns = ("requests", "req/s", "p50 ms", "p99 ms", "errors", "wrong")
    print(f"{'route':30} " + " ".join(f"{c:>8}" for c in columns))
    rows = [
        (route, stats.latencies, stats.errors, stats.wrong)
        for route, stats in report.routes.items()
    ]
    every = [x for stats in report.routes.values() for x in stats.latencies]
    rows.append(("all", every, report.errors, report.wrong))
    for name, latencies, errors, wrong in rows:
        done = sorted(latencies)
        rate = len(done) / report.elapsed if report.elapsed else 0.0
        p50, p99 = (percentile(done, 0.5) * 1000, percentile(done, 0.99) * 1000) if done else (0, 0)
        print(f"{name:30} {len(done):8d} {rate:8.0f} {p50:8.2f} {p99:8.2f} {errors:8d} {wrong:8d}")
    print(
        f"decision records: {len(report.sent)} acknowledged in {report.batches} batches, "
        f"{report.stored} stored, {report.lost} lost, {report.duplicates} duplicates, "
        f"{report.altered} altered, {report.unexpected} unexpected"
    )
    if report.resent is not None:
        size, accepted, duplicates = report.resent
        print(f"re-sent batch of {size}: {accepted} accepted, {duplicates} duplicates")
    for message, count in report.problems.items():
        print(f"  {count} x {message}")
    if report.server_log_excerpt:
        print(f"server log, first traceback:\n{report.server_log_excerpt}")
    print("PASS" if report.ok else "FAIL")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--clients", type=int, default=32, help="concurrent clients")
    parser.add_argument(
        "--db", metavar="URL", help="postgresql+psycopg://... or sqlite:///new-file"
    )
    parser.add_argument("--seed", type=int, help="of the random traffic (default: random)")
    options = parser.parse_args()
    seed = options.seed if options.seed is not None else random.randrange(2**32)
    report = run_load(options.db, seconds=options.seconds, clients=options.clients, seed=seed)
    print_report(report, seed)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
