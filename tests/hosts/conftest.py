"""The real-host stage: required on CI (``CI=true``), opt-in elsewhere (``HOOKGATE_REAL_HOSTS=1``),
because it installs four agent programs from the npm registry (cached in
``~/.cache/hookgate-hosts``, or ``$HOOKGATE_HOSTS_CACHE``) and runs each of them for real."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import realhosts  # noqa: E402
from scripted_model import Model  # noqa: E402

ENABLED = os.environ.get("CI") == "true" or os.environ.get("HOOKGATE_REAL_HOSTS") == "1"
SKIP_REASON = (
    "real-host tests install and run Claude Code, Codex, Gemini CLI and Copilot CLI from npm; "
    "set HOOKGATE_REAL_HOSTS=1 to run them (CI=true runs them always)"
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if ENABLED:
        return
    skip = pytest.mark.skip(reason=SKIP_REASON)
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def model() -> Model:
    server = Model().start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _no_warm_process_outlives_its_test(tmp_path: Path):
    yield
    realhosts.stop_warm(tmp_path)


@pytest.fixture(scope="session")
def host_binaries() -> dict[str, Path]:
    """Every pinned host, installed once per session; a host that cannot be installed fails
    the stage (on CI it is required)."""
    found = {}
    for host in realhosts.HOSTS:
        try:
            found[host] = realhosts.install(host)
        except realhosts.HostUnavailable as exc:
            pytest.fail(f"{host}: {exc}")
    return found


# Where the stage's time goes: seconds per host (setup, call and teardown of its tests) and the
# stage's wall time, printed after the run.
_SPENT: dict[str, float] = {}
_WALL: list[float] = []


def _stage_host(nodeid: str) -> str | None:
    if "tests/hosts/" not in nodeid:
        return None
    return next((h for h in (*realhosts.HOSTS, "amplifier") if h in nodeid), "other")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    host = _stage_host(report.nodeid)
    if host is not None and ENABLED:
        _SPENT[host] = _SPENT.get(host, 0.0) + report.duration
        _WALL.append(time.monotonic())
        if len(_WALL) == 1:
            _WALL.insert(0, time.monotonic() - report.duration)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _SPENT:
        return
    per_host = ", ".join(f"{host} {spent:.0f} s" for host, spent in sorted(_SPENT.items()))
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    terminalreporter.write_line(
        f"real-host stage: {_WALL[-1] - _WALL[0]:.0f} s ({per_host}; load average {load})"
    )
