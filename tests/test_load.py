"""The server under load: bench/load_test.py (imported, not copied), bounded for the suite, on
SQLite and on PostgreSQL (``$HOOKGATE_TEST_PG_URL``). A real ``hookgate serve`` on loopback,
16 concurrent clients for 8 s of mixed evaluate / bundle / decision-upload traffic: no error, every
evaluation answered as expected, every acknowledged decision record stored once and unaltered."""

from __future__ import annotations

import importlib.util
import random
import socket
import sys
from pathlib import Path

import pytest
from server_support import PG_ENV, database_params


def _bench_module():
    bench = Path(__file__).resolve().parents[1] / "bench"
    sys.path.insert(0, str(bench))  # as when it runs as a script: server_process beside it
    spec = importlib.util.spec_from_file_location(
        "hookgate_bench_load_test", bench / "load_test.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


load_test = _bench_module()


@pytest.mark.parametrize("db", database_params())
def test_mixed_load_answers_right_and_loses_no_record(db):
    if db is None:
        pytest.fail(f"CI=true but {PG_ENV} is not set: the PostgreSQL tests must run in CI")
    seed = random.randrange(2**32)
    report = load_test.run_load(None if db == "sqlite" else db, seconds=8, clients=16, seed=seed)
    context = f"seed {seed}; {report.problems}; {report.server_log_excerpt}"
    assert all(stats.latencies for stats in report.routes.values()), context
    assert report.errors == 0, context
    assert report.wrong == 0, context
    assert report.batches > 0 and len(report.sent) >= report.batches, context
    assert report.stored == len(report.sent), context
    assert report.lost == 0 and report.duplicates == 0, context
    assert report.altered == 0 and report.unexpected == 0, context
    size = report.resent[0]
    assert report.resent == (size, 0, size), context  # idempotent on decision_id
    assert report.ok


def test_serve_hands_uvicorn_a_tcp_socket(monkeypatch, tmp_path):
    """Found by the load test: ``hookgate serve`` gave uvicorn its listener's fd, which uvicorn
    wraps as a Unix socket, so asyncio never set TCP_NODELAY and every answer waited for a
    delayed ACK (p50 ~48 ms, a sixth of the throughput). The listener must reach uvicorn as the
    TCP socket it is."""
    import uvicorn

    from hookgate.cli import main

    handed = []

    def run(server, sockets=None):
        handed.append(sockets)
        server.started = True

    monkeypatch.setattr(uvicorn.Server, "run", run)
    monkeypatch.setenv("HOOKGATE_HOME", str(tmp_path / "home"))
    assert main(["serve", "--port", "0", "--db", f"sqlite:///{tmp_path / 'server.db'}"]) == 0
    [[listener]] = handed
    try:
        kind = (listener.family, listener.type, listener.proto)
        assert kind == (socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    finally:
        listener.close()


# The load test's checks themselves: a wrong answer or a bad record must not pass unnoticed.


@pytest.mark.parametrize("make", load_test.CASES)
def test_evaluation_check_accepts_only_the_expected_answer(make):
    case = make("abc123")
    right = {
        "decision": {"outcome": case.outcome, "updated_input": {"command": case.command}},
        "host": case.host,
        "exit_code": 0,
    }
    assert load_test.check_evaluation(case, right) is None
    other = "allow" if case.outcome != "allow" else "deny"
    wrong_outcome = {**right, "decision": {**right["decision"], "outcome": other}}
    assert load_test.check_evaluation(case, wrong_outcome)
    assert load_test.check_evaluation(case, {**right, "host": "cursor-x"})
    if case.command is not None:
        crossed = {
            **right,
            "decision": {"outcome": case.outcome, "updated_input": {"command": "x"}},
        }
        assert load_test.check_evaluation(case, crossed)


def test_record_check_catches_changes_and_unmasked_secrets():
    rng = random.Random(7)
    records = [load_test.decision_record(rng, "t") for _ in range(40)]
    plain = next(r for r in records if "LOADSECRET" not in r["command"])
    secret = next(r for r in records if "LOADSECRET" in r["command"])
    assert load_test.check_stored(plain, dict(plain)) is None
    assert load_test.check_stored(plain, {**plain, "outcome": "x"})
    assert load_test.check_stored(plain, {**plain, "command": plain["command"] + " "})
    assert load_test.check_stored(plain, {**plain, "matches": [*plain["matches"], {}]})
    assert load_test.check_stored(secret, dict(secret))  # stored as sent: not masked
    masked = secret["command"].split("LOADSECRET")[0] + "***' https://example.test"
    assert load_test.check_stored(secret, {**secret, "command": masked}) is None
