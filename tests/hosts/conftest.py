"""The real-host stage: required on CI (``CI=true``), opt-in elsewhere (``HOOKGATE_REAL_HOSTS=1``),
because it installs four agent programs from the npm registry (cached in
``~/.cache/hookgate-hosts``, or ``$HOOKGATE_HOSTS_CACHE``) and runs each of them for real."""

from __future__ import annotations

import os
import sys
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
