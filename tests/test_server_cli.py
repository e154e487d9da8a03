"""`hookgate serve` and `hookgate token` as a user runs them: first start seeds and prints the
admin token once, tokens made on the command line work against the running server, and no
token ever reaches the server's log."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import httpx
import pytest


def hookgate(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hookgate.cli", *args],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip


class Server:
    """``hookgate serve --port 0``: the server binds a free port itself and prints it."""

    def __init__(self, db: str, env: dict, *options: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hookgate.cli", "serve", "--port", "0", "--db", db, *options],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        )  # fmt: skip
        self.lines: list[str] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError("server exited:\n" + "".join(self.lines))
            self.lines.append(line)
            if line.startswith("Swagger UI: "):
                self.url = line.split()[2].removesuffix("/docs")
            if "Application startup complete" in line:
                return
        raise AssertionError("server did not start:\n" + "".join(self.lines))

    def stop(self) -> str:
        self.proc.terminate()
        rest, _ = self.proc.communicate(timeout=30)
        return "".join(self.lines) + rest


@pytest.fixture
def env(tmp_path):
    return {**os.environ, "HOOKGATE_HOME": str(tmp_path / "home"), "HOOKGATE_DB_URL": ""}


def test_first_start_seeds_prints_token_once_and_logs_no_token(tmp_path, env):
    db = f"sqlite:///{tmp_path / 'server.db'}"
    server = Server(db, env)
    try:
        printed = "".join(server.lines)
        assert f"{server.url}/docs" in printed
        admin = next(line.split()[-1] for line in server.lines if "Admin token" in line)
        h = {"Authorization": f"Bearer {admin}"}
        assert httpx.get(f"{server.url}/readyz").status_code == 200
        bundle = httpx.get(f"{server.url}/v1/bundle", headers=h).json()
        assert bundle["revision"] == 1 and bundle["policies"]  # the default pack
        made = hookgate("token", "create", "--role", "viewer", "--db", db, "--name", "ci", env=env)
        viewer = made.stdout.strip()
        assert made.returncode == 0 and viewer.startswith("hg_")
        vh = {"Authorization": f"Bearer {viewer}"}
        assert httpx.get(f"{server.url}/v1/policies", headers=vh).status_code == 200
        assert httpx.get(f"{server.url}/v1/tokens", headers=vh).status_code == 403
        listed = hookgate("token", "list", "--db", db, env=env).stdout
        assert "viewer\tci\tactive" in listed and viewer not in listed
    finally:
        log = server.stop()
    after_banner = log.split("Admin token", 1)[1].split("\n", 1)[1]
    assert admin not in after_banner and viewer not in log

    again = Server(db, env)
    try:
        assert not any("Admin token" in line for line in again.lines)
    finally:
        again.stop()


@pytest.mark.parametrize("options", [(), ("--no-access-log",)])
def test_access_log_is_on_unless_turned_off(tmp_path, env, options):
    server = Server(f"sqlite:///{tmp_path / 'server.db'}", env, *options)
    try:
        assert httpx.get(f"{server.url}/readyz").status_code == 200
    finally:
        log = server.stop()
    assert ('"GET /readyz HTTP/1.1" 200' in log) == (not options)


def test_each_request_is_logged_once_with_its_secrets_masked(tmp_path, env):
    # uvicorn logs a request itself, URL as sent, while its access logger has a handler.
    server = Server(f"sqlite:///{tmp_path / 'server.db'}", env)
    try:
        httpx.get(f"{server.url}/v1/bundle?access_token=hg_NOT_A_REAL_ONE")
        httpx.get(f"{server.url}/console/oidc/callback?code=SIGNINCODE&state=STATE1")
        httpx.get(f"{server.url}/readyz?probe=1")
    finally:
        log = server.stop()
    for secret in ("hg_NOT_A_REAL_ONE", "SIGNINCODE", "STATE1"):
        assert secret not in log
    assert log.count('"GET /readyz?probe=1 HTTP/1.1" 200') == 1
    assert log.count('"GET /v1/bundle?access_token=*** HTTP/1.1" 400') == 1


def test_token_create_uses_the_state_directory_by_default(tmp_path, env):
    made = hookgate("token", "create", "--role", "agent", env=env)
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "home" / "state" / "server.db").is_file()
    bad = hookgate("token", "revoke", "12345", env=env)
    assert bad.returncode == 1 and "12345" in bad.stderr


def test_a_busy_port_is_a_clear_error_before_anything_else(tmp_path, env):
    server = Server(f"sqlite:///{tmp_path / 'a.db'}", env)
    try:
        port = server.url.rsplit(":", 1)[1]
        busy = hookgate("serve", "--port", port, "--db", f"sqlite:///{tmp_path / 'b.db'}", env=env)
        assert busy.returncode == 1 and f"cannot listen on 127.0.0.1:{port}" in busy.stderr
        assert not (tmp_path / "b.db").exists()
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("flag", "value", "says"),
    [
        ("--dry-runs-per-token", "0", "0 is less than 1"),
        ("--max-body-bytes", "0", "0 is less than 1"),
        ("--max-body-bytes", "1k", "'1k' is not a whole number"),
        ("--decision-quota", "-5", "-5 is less than 0"),
        ("--retention-days", "-1", "-1 is less than 0"),
        ("--worker-queue", "-1", "-1 is less than 0"),
    ],
)
def test_a_limit_out_of_range_is_refused_naming_the_flag(tmp_path, env, flag, value, says):
    # 0 dry-runs or a 0-byte body limit once silently became the default
    run = hookgate("serve", flag, value, "--db", f"sqlite:///{tmp_path / 'a.db'}", env=env)
    assert run.returncode == 2 and f"argument {flag}: {says}" in run.stderr
    assert not (tmp_path / "a.db").exists()


@pytest.mark.parametrize(("proxies", "secure"), [("10.9.9.9", False), ("*", True)])
def test_forwarded_proto_is_believed_from_the_trusted_proxies_alone(tmp_path, env, proxies, secure):
    # A TLS proxy that is not on 127.0.0.1: uvicorn believed only 127.0.0.1 before the option.
    server = Server(f"sqlite:///{tmp_path / 's.db'}", env, "--forwarded-allow-ips", proxies)
    try:
        token = next(line for line in server.lines if "Admin token" in line).split()[-1]
        answer = httpx.post(
            f"{server.url}/console/login", data={"token": token},
            headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"},
        )  # fmt: skip
        assert answer.status_code == 303
        cookie = answer.headers["set-cookie"]
        assert ("secure" in cookie.lower()) is secure, cookie
    finally:
        server.stop()


@pytest.mark.parametrize(
    "value", ["hookgate.example", "ftp://x", "https://x/console", "https://u@x", "https://x?a"]
)
def test_a_public_url_that_is_no_http_origin_is_refused(tmp_path, env, value):
    run = hookgate(
        "serve", "--public-url", value, "--db", f"sqlite:///{tmp_path / 'a.db'}", env=env
    )
    assert run.returncode == 2 and "argument --public-url:" in run.stderr
