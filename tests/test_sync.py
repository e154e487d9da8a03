"""Bundle sync against a real server on a loopback port: login, pull, 304, tampering, key
pinning, offline evaluation from the cache, the default pack, and the background refresh."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest
from sync_helpers import (
    TamperingProxy,
    bash_payload,
    deny_policy,
    home_fixture,
    hookgate_env,
    run_hookgate,
    server_fixture,
    telemetry,
    wait_for,
)

server = server_fixture()


@pytest.fixture
def proxy(server):
    tampering = TamperingProxy(server)
    yield tampering
    tampering.close()


home = home_fixture()


def login(home, url, token, *extra):
    return run_hookgate(home, "login", "--server", url, "--token", token, *extra)


def cached(home) -> dict:
    return json.loads((home / "cache" / "bundle.json").read_text())


def evaluate(home, command: str, **env) -> tuple[dict, str]:
    """Run the hook as Claude Code would; returns (stdout JSON, origin of the policies)."""
    result = run_hookgate(
        home, "eval", "--host", "claude", "--explain", stdin=bash_payload(command), **env
    )
    assert result.returncode == 0, result.stderr
    explain = json.loads(result.stderr[result.stderr.index("{") :])
    return json.loads(result.stdout), explain["origin"]


def answer(home, command: str) -> dict:
    """The hook's answer alone: no ``--explain``, whose trace compiles the policies once more
    in each new home and revision (seconds on a busy machine)."""
    result = run_hookgate(home, "eval", "--host", "claude", stdin=bash_payload(command))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def denied(response: dict) -> bool:
    return response.get("hookSpecificOutput", {}).get("permissionDecision") == "deny"


def test_login_stores_a_private_login_pins_the_key_and_pulls(server, home):
    result = login(home, server.url, server.agent_token)
    assert result.returncode == 0, result.stderr
    assert server.agent_token not in result.stdout + result.stderr
    login_file = home / "config" / "login.json"
    assert stat.S_IMODE(login_file.stat().st_mode) == 0o600
    stored = json.loads(login_file.read_text())
    key = server.request("GET", "/v1/bundle/key")[2]
    assert (stored["server"], stored["token"]) == (server.url, server.agent_token)
    assert (stored["public_key"], stored["key_id"]) == (key["public_key"], key["key_id"])
    assert cached(home)["revision"] == 1
    assert evaluate(home, "ls")[1] == "bundle revision 1"


def test_login_with_a_wrong_token_stores_nothing(server, home):
    result = login(home, server.url, "not-a-token")
    assert result.returncode == 1
    assert "401" in result.stderr
    assert not (home / "config" / "login.json").exists()


def test_pull_installs_a_new_revision_then_gets_304(server, proxy, home):
    assert login(home, proxy.url, server.agent_token).returncode == 0
    assert not denied(answer(home, "echo marker-two"))
    revision = server.put_policy("marker", deny_policy("marker-two"))

    result = run_hookgate(home, "pull")
    assert result.returncode == 0, result.stderr
    assert f"installed revision {revision}" in result.stdout
    response, origin = evaluate(home, "echo marker-two")
    assert denied(response) and origin == f"bundle revision {revision}"

    before = cached(home)
    proxy.log.clear()
    result = run_hookgate(home, "pull")
    assert result.returncode == 0, result.stderr
    assert f"unchanged: revision {revision}" in result.stdout
    assert ("/v1/bundle", True, 304) in proxy.log
    after = cached(home)
    assert after["fetched_at"] > before["fetched_at"]
    # The 304's signed statement proved the same bundle current again, later.
    assert after["proven_at"] > before["proven_at"]
    assert after["freshness"]["time"] >= before["freshness"]["time"]
    assert after["freshness"]["digest"] == before["digest"]
    moving = {"fetched_at": 0, "proven_at": 0, "freshness": 0}
    assert {**after, **moving} == {**before, **moving}


@pytest.mark.parametrize(
    ("mode", "named"),
    [
        ("content", "bundle.digest"),
        ("redigest", "bundle.signature"),
        ("uncompilable", "does not compile"),
    ],
)
def test_a_bad_bundle_is_refused_and_the_last_good_one_kept(server, proxy, home, mode, named):
    assert login(home, proxy.url, server.agent_token).returncode == 0
    good = (home / "cache" / "bundle.json").read_bytes()
    server.put_policy("marker", deny_policy("marker-three"))
    proxy.mode = mode

    result = run_hookgate(home, "pull")
    assert result.returncode == 1
    assert named in result.stderr and "last good bundle" in result.stderr
    assert (home / "cache" / "bundle.json").read_bytes() == good
    errors = [r for r in telemetry(home) if r["event"] == "error" and r.get("source") == "pull"]
    assert errors and named in errors[-1]["message"]
    response, origin = evaluate(home, "echo marker-three")
    assert not denied(response) and origin == "bundle revision 1"


def test_a_changed_server_key_is_refused_until_rotation_is_forced(server, proxy, home):
    assert login(home, proxy.url, server.agent_token).returncode == 0
    pinned = json.loads((home / "config" / "login.json").read_text())["key_id"]
    server.put_policy("marker", deny_policy("marker-four"))
    proxy.mode = "foreign-key"

    result = run_hookgate(home, "pull")
    assert result.returncode == 1
    assert "bundle.key_id" in result.stderr and "--force-key-rotation" in result.stderr
    assert cached(home)["revision"] == 1
    relogin = login(home, proxy.url, server.agent_token)
    assert relogin.returncode == 1 and "--force-key-rotation" in relogin.stderr
    assert json.loads((home / "config" / "login.json").read_text())["key_id"] == pinned

    result = run_hookgate(home, "pull", "--force-key-rotation")
    assert result.returncode == 0, result.stderr
    rotated = json.loads((home / "config" / "login.json").read_text())["key_id"]
    assert rotated != pinned
    assert cached(home)["key_id"] == rotated
    assert denied(answer(home, "echo marker-four"))


def test_with_the_server_down_eval_answers_from_the_cache(server, home):
    server.put_policy("marker", deny_policy("marker-five"))
    assert login(home, server.url, server.agent_token).returncode == 0
    server.stop()

    # Stale at once: the hook starts a background refresh, which fails, and still answers.
    response, origin = evaluate(home, "echo marker-five", HOOKGATE_REFRESH_INTERVAL="0")
    assert denied(response) and origin.startswith("bundle revision")
    wait_for(
        lambda: any("unreachable" in r.get("message", "") for r in telemetry(home)),
        what="the background refresh to record that the server is unreachable",
    )
    result = run_hookgate(home, "pull")
    assert result.returncode == 1 and "server unreachable" in result.stderr
    assert denied(answer(home, "echo marker-five"))


def test_without_any_bundle_eval_uses_the_default_pack(home):
    response, origin = evaluate(home, "ls", HOOKGATE_REFRESH_INTERVAL="0")
    assert origin == "default pack"
    assert response == {}
    assert not [r for r in telemetry(home) if r["event"] == "refresh"]  # no server, no refresh


def test_a_stale_hook_refreshes_in_the_background_and_answers_at_once(server, home):
    assert login(home, server.url, server.agent_token).returncode == 0
    revision = server.put_policy("marker", deny_policy("marker-six"))

    response, origin = evaluate(home, "echo marker-six", HOOKGATE_REFRESH_INTERVAL="0")
    assert not denied(response) and origin == "bundle revision 1"  # the cached answer
    wait_for(lambda: cached(home)["revision"] == revision, what="the background pull")
    assert denied(answer(home, "echo marker-six"))


BURST_CHILD = """
import os, sys, time
while not os.path.exists(sys.argv[1]):
    time.sleep(0.001)
from hookgate import sync
sync.refresh_if_stale(sync.active_bundle())
"""


def test_a_burst_of_stale_hooks_starts_one_refresh(server, home, tmp_path):
    assert login(home, server.url, server.agent_token).returncode == 0
    revision = server.put_policy("marker", deny_policy("marker-seven"))
    before = len(telemetry(home))
    gate = tmp_path / "go"
    env = hookgate_env(home, HOOKGATE_REFRESH_INTERVAL="0")
    burst = [
        subprocess.Popen([sys.executable, "-c", BURST_CHILD, str(gate)], env=env) for _ in range(50)
    ]
    gate.touch()
    assert [child.wait(60) for child in burst] == [0] * 50

    started = [r for r in telemetry(home)[before:] if r["event"] == "refresh"]
    assert len(started) == 1
    wait_for(lambda: cached(home)["revision"] == revision, what="the background pull")
    pulls = wait_for(lambda: [r for r in telemetry(home)[before:] if r["event"] == "pull"])
    assert [p["revision"] for p in pulls] == [revision]


def test_the_lock_is_released_when_the_refresh_ends(server, home):
    assert login(home, server.url, server.agent_token).returncode == 0
    env = hookgate_env(home)
    script = "from hookgate import sync\nwith sync.refresh_lock(wait=0):\n    print('locked')\n"
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert result.stdout == "locked\n", result.stderr
    assert os.path.exists(home / "state" / "refresh.lock")
