"""A real hookgate server on a loopback port for the sync tests, and a tampering proxy; the
fixtures the sync test modules share (``server = server_fixture()`` and kin at module level).

The server is ``hookgate.server.app`` over a fresh SQLite database, served by uvicorn in a
thread on a socket bound to 127.0.0.1:0. The proxy forwards to it and rewrites what the server
says (the bundle, its key) the way an attacker in the middle would.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from compile_support import seed_compile_cache

SOURCE_DIR = Path(__file__).resolve().parents[1] / "service"


def deny_policy(marker: str) -> str:
    """A guard that denies shell commands containing ``marker`` (tells bundles apart)."""
    return (
        "package hookgate.sync_marker\n\n"
        "import rego.v1\n\n"
        'deny contains {"reason": msg, "pattern": "marker"} if {\n'
        '\tcontains(input.tool_input.command, "' + marker + '")\n'
        '\tmsg := "the sync test marker ' + marker + ' is forbidden"\n'
        "}\n"
    )


class LiveServer:
    def __init__(self, db_path: Path) -> None:
        import uvicorn

        from hookgate.commands.serve import open_store
        from hookgate.server.app import create_app
        from hookgate.server.compilation import compile_set

        self.store = open_store(f"sqlite:///{db_path}")
        # As ``hookgate serve`` seeds: an empty team layer over the built-in pack.
        self.admin_token = self.store.seed({}, {}, validate=compile_set, base=True)
        self.agent_token = self.store.create_token("agent", "laptop")
        self.app = create_app(self.store)
        self._uvicorn = uvicorn
        self.port = 0
        self.start()

    def start(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))  # the same port again after stop()
        sock.listen(64)
        self.port = sock.getsockname()[1]
        config = self._uvicorn.Config(self.app, log_level="warning", lifespan="off")
        self.server = self._uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def request(self, method: str, path: str, body: bytes | None = None, headers=None):
        request = urllib.request.Request(self.url + path, data=body, method=method)
        request.add_header("Authorization", f"Bearer {self.admin_token}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        # A change is compiled and its packs' tests and smoke payloads run in the server's worker
        # pool before it is accepted: seconds on a loaded machine.
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, dict(response.headers), json.loads(response.read() or b"null")

    def put_policy(self, policy_id: str, text: str) -> int:
        """Create or change a policy; returns the new bundle revision."""
        headers = {"Content-Type": "text/plain"}
        try:
            _, got, _ = self.request("GET", f"/v1/policies/{policy_id}")
            headers["If-Match"] = got["etag"]
        except urllib.error.HTTPError as exc:
            if exc.code != 404:
                raise
        self.request("PUT", f"/v1/policies/{policy_id}", text.encode(), headers)
        return self.request("GET", "/v1/bundle")[2]["revision"]

    def decisions(self) -> list[dict]:
        return self.request("GET", "/v1/decisions?limit=500")[2]["decisions"]


class TamperingProxy:
    """Forwards to ``upstream``; ``mode`` says how to change what comes back:

    - None: nothing (a faithful proxy);
    - "content": a policy edited, digest and signature left as they were;
    - "redigest": a policy edited and the digest recomputed (the signature no longer matches);
    - "foreign-key": the bundle re-signed with ``foreign_key`` and that key served as the
      server's key (an attacker's key, or a deliberate rotation);
    - "uncompilable": a policy replaced by text that does not compile, re-signed with the
      server's own key (a server newer than this client, or a compromised one).

    ``log`` records ``(path, If-None-Match sent?, status)`` of every request.
    """

    def __init__(self, upstream: LiveServer) -> None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        self.upstream = upstream
        self.mode: str | None = None
        self.forward_headers = True  # False: drop the signed freshness statement on the way
        self.log: list[tuple[str, bool, int]] = []
        self.foreign_key = Ed25519PrivateKey.generate()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                proxy.forward(self)

            def do_POST(self) -> None:  # noqa: N802 (decision uploads pass through untouched)
                proxy.forward(self)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def forward(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else None
        request = urllib.request.Request(
            self.upstream.url + handler.path, data=body, method=handler.command
        )
        for name in ("Authorization", "If-None-Match", "Content-Type"):
            if handler.headers.get(name):
                request.add_header(name, handler.headers[name])
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                status, body, got = response.status, response.read(), response.headers
        except urllib.error.HTTPError as exc:
            status, body, got = exc.code, exc.read(), exc.headers
        self.log.append((handler.path, bool(handler.headers.get("If-None-Match")), status))
        passed = {name: got[name] for name in ("ETag", "Hookgate-Freshness") if got.get(name)}
        if status == 200 and self.mode:
            document = self.tamper(handler.path, json.loads(body))
            body = json.dumps(document).encode()
            if self.mode in ("uncompilable", "foreign-key") and handler.path == "/v1/bundle":
                passed["Hookgate-Freshness"] = self.vouch(document)
        handler.send_response(status)
        for name, value in passed.items():  # what a faithful proxy passes on
            if self.forward_headers:
                handler.send_header(name, value)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def vouch(self, document: dict) -> str:
        """A freshness statement for ``document``, signed as its signature is: with the
        foreign key in foreign-key mode, else with the server's own key."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        from hookgate import bundle_format

        key = self.foreign_key
        if self.mode != "foreign-key":
            key = Ed25519PrivateKey.from_private_bytes(self.upstream.store.signing_key()[0])
        statement = bundle_format.freshness_bytes(
            document["revision"], document["digest"], int(time.time())
        )
        signature = key.sign(statement)
        return base64.b64encode(statement).decode() + "." + base64.b64encode(signature).decode()

    def tamper(self, path: str, document: dict) -> dict:
        from cryptography.hazmat.primitives import serialization

        from hookgate import bundle_format

        raw = self.foreign_key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        if path.startswith("/v1/bundle/key"):
            if self.mode == "foreign-key":
                document["public_key"] = base64.b64encode(raw).decode()
                document["key_id"] = bundle_format.key_id(raw)
            return document
        first = sorted(document["policies"])[0]
        if self.mode in ("content", "redigest"):
            document["policies"][first] += "\n# tampered\n"
        if self.mode in ("redigest", "foreign-key"):
            document["digest"] = bundle_format.digest(
                document["revision"], document["policies"], document["data"]
            )
        if self.mode == "foreign-key":
            signature = self.foreign_key.sign(document["digest"].encode("ascii"))
            document["signature"] = base64.b64encode(signature).decode()
            document["key_id"] = bundle_format.key_id(raw)
        if self.mode == "uncompilable":
            from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

            document["policies"][first] = "package hookgate.broken\n\ndeny contains if {\n"
            document["digest"] = bundle_format.digest(
                document["revision"], document["policies"], document["data"]
            )
            seed, _ = self.upstream.store.signing_key()
            signature = Ed25519PrivateKey.from_private_bytes(seed).sign(document["digest"].encode())
            document["signature"] = base64.b64encode(signature).decode()
        return document


def bash_payload(command: str) -> str:
    """A Claude Code PreToolUse payload of a Bash call, as the hook reads it on stdin."""
    return json.dumps(
        {
            "session_id": "s1",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": "/tmp",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        }
    )


def hookgate_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a hookgate process living in ``home`` (HOOKGATE_HOME)."""
    seed_compile_cache(home / "cache" / "compiled")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKGATE_")}
    env.update(HOOKGATE_HOME=str(home), HOME=str(home), **extra)
    return env


def run_hookgate(home: Path, *argv: str, stdin: str = "", **env: str):
    return subprocess.run(
        [sys.executable, "-m", "hookgate.cli", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        env=hookgate_env(home, **env),
        # a bound for a hang, not a speed test: a publish (impact, compile, sign) on a loaded
        # 2-core machine has taken over 60 s (tests/test_progress.py in CI, session 20)
        timeout=180,
    )


def telemetry(home: Path) -> list[dict]:
    path = home / "state" / "telemetry.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def wait_for(predicate, timeout: float = 20.0, what: str = "condition"):
    """Poll until ``predicate()`` is truthy (a background process finishing its work)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def server_fixture():
    """A ``server`` fixture: a ``LiveServer`` on a fresh SQLite file, stopped after the test."""

    @pytest.fixture
    def server(tmp_path):
        live = LiveServer(tmp_path / "server.db")
        yield live
        live.stop()

    return server


def home_fixture():
    """A ``home`` fixture: an empty directory for the user's HOOKGATE_HOME."""

    @pytest.fixture
    def home(tmp_path):
        path = tmp_path / "user"
        path.mkdir()
        return path

    return home
