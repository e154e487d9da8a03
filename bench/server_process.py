"""A real ``hookgate serve`` process for the server benchmarks (``load_test.py``,
``decisionlog_bench.py``, ``server_isolation_bench.py``): started on a free loopback port, its
address read from what it prints, waited for until it answers, stopped on exit; tokens for it
are made in the database directly (no admin token is printed for a database already seeded).

A benchmark run as a script finds this module beside it; ``tests/test_load.py`` puts
``bench/`` on the path before it loads ``load_test.py``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

START_SECONDS = 60  # until the server prints its address and answers /healthz


def hookgate_cli() -> str:
    """The installed ``hookgate`` CLI of this Python environment."""
    script = Path(sys.executable).with_name("hookgate")
    if not script.exists():
        raise SystemExit(f"{script} not found; install hookgate in this environment")
    return str(script)


@dataclass(frozen=True)
class Server:
    url: str  # the base URL, http://127.0.0.1:PORT
    pid: int

    def cpu_seconds(self) -> float:
        """CPU time the server process has used (user + system; Linux)."""
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def serving(
    db_url: str, *options: str, env: dict | None = None, log: Path | None = None
) -> Iterator[Server]:
    """``hookgate serve --port 0 --db db_url *options``; yields it once it answers.
    Its stderr goes to ``log`` (else with its stdout, which is drained so that it never blocks
    on a full pipe)."""
    command = [hookgate_cli(), "serve", "--port", "0", "--db", db_url, *options]
    stderr = open(log, "w") if log else subprocess.STDOUT  # noqa: SIM115 (closed below)
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True, env=env)
    # A server that never prints its address is killed, which ends the read below.
    watchdog = threading.Timer(START_SECONDS, server.kill)
    watchdog.start()
    try:
        printed, base_url = [], None
        for line in server.stdout:
            printed.append(line)
            if found := re.match(r"Swagger UI: (http://\S+)/docs", line):
                base_url = found.group(1)
                break
        if base_url is None:
            output = log.read_text(errors="replace") if log else "".join(printed)
            raise RuntimeError(f"hookgate serve did not start; it wrote:\n{output}")
        threading.Thread(target=server.stdout.read, daemon=True).start()
        _wait_until_ready(base_url, server)
        watchdog.cancel()
        yield Server(base_url, server.pid)
    finally:
        watchdog.cancel()
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        if log:
            stderr.close()


def _wait_until_ready(base_url: str, server: subprocess.Popen) -> None:
    # The address is printed before uvicorn serves (the port is bound first).
    while server.poll() is None:
        try:
            httpx.get(f"{base_url}/healthz", timeout=5).raise_for_status()
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"hookgate serve exited with {server.returncode} before it answered")


def create_token(db_url: str, role: str, name: str) -> str:
    """A new token of ``role`` in the server's database."""
    from hookgate.server.store import Store, make_engine

    engine = make_engine(db_url)
    try:
        return Store(engine).create_token(role, name)
    finally:
        engine.dispose()
