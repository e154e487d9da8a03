"""Faults, injected for real: a pull killed (SIGKILL) at each step of the bundle swap, a damaged
compile cache or telemetry file, the server's database going away, editors racing on one policy,
and a burst of hooks while a background refresh installs a new revision. After each, what is
left must be consistent, and no hook may fail open or answer from a half-written bundle."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime
from itertools import pairwise

import pytest
import sqlalchemy as sa
from server_support import GUARD, NO_VERIFY, auth, client_for, database_params, fresh_store, seeded
from sync_helpers import (
    LiveServer,
    TamperingProxy,
    bash_payload,
    deny_policy,
    hookgate_env,
    run_hookgate,
    telemetry,
    wait_for,
)

from hookgate import telemetry as telemetry_module
from hookgate.bundle_format import verify
from hookgate.server import store as store_module
from hookgate.server import tables
from hookgate.server.routes import documents as document_routes

HOOK_TIMEOUT = 20  # seconds; a hook that hangs on a damaged file fails the test instead
NO_VERIFY_PATTERN = "[pack=no-verify, pattern=git-no-verify]"  # the default pack's answer


@pytest.fixture
def home(tmp_path):
    path = tmp_path / "user"
    path.mkdir()
    return path


def deny_reason(stdout: str) -> str | None:
    """The deny reason of a Claude Code hook response; None when it does not deny."""
    output = json.loads(stdout).get("hookSpecificOutput", {})
    if output.get("permissionDecision") != "deny":
        return None
    return output["permissionDecisionReason"]


def answer(returncode: int, stdout: str, stderr: str) -> tuple[str | None, str]:
    """A hook's answer as (deny reason or None, origin of the policies). It must have exited 0
    and explained which policies answered (a fail-open answer explains nothing)."""
    assert returncode == 0, stderr
    assert "{" in stderr, f"no explanation (a fail-open answer?): {stderr}"
    explained = json.loads(stderr[stderr.index("{") :])
    assert "origin" in explained, f"an answer without its policies (a limit?): {stderr}"
    return deny_reason(stdout), explained["origin"]


def hook(home, command: str, preexec_fn=None) -> tuple[str | None, str]:
    """Run ``hookgate eval --explain`` as Claude Code would; its ``answer``."""
    result = subprocess.run(
        [sys.executable, "-m", "hookgate.cli", "eval", "--host", "claude", "--explain"],
        input=bash_payload(command),
        capture_output=True,
        text=True,
        env=hookgate_env(home),
        timeout=HOOK_TIMEOUT,
        preexec_fn=preexec_fn,
    )
    return answer(result.returncode, result.stdout, result.stderr)


def assert_guarded(home) -> None:
    """The hook still denies what the default pack denies, for the right reason."""
    reason, origin = hook(home, "git commit --no-verify -m wip")
    assert reason is not None and NO_VERIFY_PATTERN in reason
    assert origin == "default pack"


def cached(home) -> dict:
    return json.loads((home / "cache" / "bundle.json").read_text())


class StallingProxy(TamperingProxy):
    """A faithful proxy that can hold the bundle download (``GET /v1/bundle``) until
    ``release`` is set: ``hold("request")`` before the request reaches the server (which may
    change meanwhile), ``hold("body")`` after half of the answer's body was sent. ``held`` is
    set once a download is being held."""

    def __init__(self, upstream: LiveServer) -> None:
        super().__init__(upstream)
        self.where: str | None = None
        self.held = threading.Event()
        self.release = threading.Event()

    @contextmanager
    def hold(self, where: str):
        self.held.clear()
        self.release.clear()
        self.where = where
        try:
            yield
        finally:
            self.where = None
            self.release.set()

    def forward(self, handler) -> None:
        where = self.where if handler.path == "/v1/bundle" else None
        if where == "request":
            self.held.set()
            self.release.wait(30)
        elif where == "body":
            handler.wfile = _HalfBody(handler.wfile, self)
        super().forward(handler)


class _HalfBody:
    """A response stream that passes the status line and headers (the first write), sends
    half of the body (the second), then waits for the proxy's ``release``; the rest never
    goes out."""

    def __init__(self, raw, proxy: StallingProxy) -> None:
        self.raw, self.proxy, self.writes = raw, proxy, 0

    def write(self, data: bytes) -> None:
        self.writes += 1
        if self.writes == 1:
            self.raw.write(data)
            return
        self.raw.write(data[: len(data) // 2])
        self.raw.flush()
        self.proxy.held.set()
        self.proxy.release.wait(30)

    def __getattr__(self, name: str):
        return getattr(self.raw, name)


# -- 1. a pull killed during the bundle swap -------------------------------------------------

# `hookgate pull` with the os calls of the swap wrapped: at POINT the process SIGKILLs itself,
# as an out-of-memory killer or a power cut would stop it, with no cleanup of any kind.
SWAP_CHILD = """
import os, signal, sys
from hookgate import cli, sync

point, bundle = sys.argv[1], os.fspath(sync.bundle_path())
real_open, real_write, real_replace = os.open, os.write, os.replace
swap_fds = set()

def die():
    os.kill(os.getpid(), signal.SIGKILL)

def swap_file(path, flags):
    # Any file written beside bundle.json, whatever the swap names it.
    beside = os.path.dirname(os.path.abspath(path)) == os.path.dirname(bundle)
    return beside and flags & (os.O_WRONLY | os.O_RDWR)

def open_(path, flags, *args, **kwargs):
    if point == "before-write" and swap_file(path, flags):
        die()
    fd = real_open(path, flags, *args, **kwargs)
    if swap_file(path, flags):
        swap_fds.add(fd)
    return fd

def write(fd, data):
    if point == "half-written" and fd in swap_fds:
        real_write(fd, bytes(data)[: len(data) // 2])
        die()
    return real_write(fd, data)

def replace(src, dst, **kwargs):
    target = os.fspath(dst)
    if point == "compile-cache-written" and target.endswith(".code"):
        die()
    if point == "written" and target == bundle:
        die()
    real_replace(src, dst, **kwargs)
    if point == "renamed" and target == bundle:
        die()

os.open, os.write, os.replace = open_, write, replace
sys.exit(cli.main(["pull"]))
"""

# (where the pull dies, which bundle must be left: the last good one or the new one)
KILL_POINTS = [
    ("mid-download", "old"),  # killed from outside while the proxy holds half the body
    ("compile-cache-written", "old"),  # verified, compiled, its cache entry not yet renamed
    ("before-write", "old"),  # about to create the temporary file
    ("half-written", "old"),  # the temporary file holds half the bundle
    ("written", "old"),  # the temporary file complete and fsynced, not renamed
    ("renamed", "new"),  # renamed, before the directory fsync, telemetry and upload
]


@pytest.fixture(scope="module")
def swap_site(tmp_path_factory):
    """A server behind a stalling proxy, and a user home logged in through the proxy (copied
    by each test, so that each starts from the same last good bundle)."""
    root = tmp_path_factory.mktemp("swap")
    server = LiveServer(root / "server.db")
    proxy = StallingProxy(server)
    template = root / "template"
    template.mkdir()
    login = run_hookgate(template, "login", "--server", proxy.url, "--token", server.agent_token)
    assert login.returncode == 0, login.stderr
    yield server, proxy, template
    proxy.close()
    server.stop()


@pytest.mark.parametrize(("point", "survivor"), KILL_POINTS)
def test_a_pull_killed_during_the_swap_leaves_a_whole_verified_bundle(
    swap_site, tmp_path, point, survivor
):
    server, proxy, template = swap_site
    home = tmp_path / "user"
    shutil.copytree(template, home)
    old = cached(home)
    marker = f"marker-{point}"
    new_revision = server.put_policy("marker", deny_policy(marker))
    env = hookgate_env(home)

    if point == "mid-download":
        with proxy.hold("body"):
            child = subprocess.Popen([sys.executable, "-m", "hookgate.cli", "pull"], env=env)
            assert proxy.held.wait(30), "the pull never started its download"
            child.kill()
            returncode = child.wait(30)
    else:
        returncode = subprocess.run(
            [sys.executable, "-c", SWAP_CHILD, point], env=env, timeout=60
        ).returncode
    assert returncode == -signal.SIGKILL, f"the pull was not killed at {point}"

    expected = old["revision"] if survivor == "old" else new_revision
    left = cached(home)  # whole JSON, never a mix of two bundles
    verify(left, json.loads((home / "config" / "login.json").read_text())["public_key"])
    assert left["revision"] == expected
    leftovers = [p for p in (home / "cache").iterdir() if p.name not in ("bundle.json", "compiled")]
    assert bool(leftovers) == (point in ("half-written", "written"))  # the fault was real

    reason, origin = hook(home, f"echo {marker}")
    assert origin == f"bundle revision {expected}"
    assert (reason is not None) == (survivor == "new")
    assert not [r for r in telemetry(home) if r["event"] == "error"]  # nothing read as corrupt

    # The killed pull's lock died with it: the next pull installs the new revision.
    result = run_hookgate(home, "pull")
    assert result.returncode == 0, result.stderr
    assert cached(home)["revision"] == new_revision
    assert not list((home / "cache").glob(".*.tmp"))  # the killed writer's file is cleared
    reason, origin = hook(home, f"echo {marker}")
    assert reason is not None and marker in reason and origin == f"bundle revision {new_revision}"


# -- 2. a damaged compile cache or telemetry file --------------------------------------------


def _edit_every_guard_string(entry) -> None:
    # Same length, so the entry still unmarshals: only a checksum can tell.
    entry.write_bytes(entry.read_bytes().replace(b"no-verify", b"noXverify"))


def _directory_in_place(entry) -> None:
    entry.unlink()
    entry.mkdir()


CACHE_FAULTS = {
    "binary junk": lambda entry: entry.write_bytes(b"\x00\xff" + os.urandom(4096)),
    "truncated": lambda entry: entry.write_bytes(entry.read_bytes()[: entry.stat().st_size // 2]),
    "edited in place": _edit_every_guard_string,
    "the cache directory is a file": lambda entry: (
        shutil.rmtree(entry.parent),
        entry.parent.write_bytes(b"not a directory"),
    ),
    "the cache directory is world-writable": lambda entry: entry.parent.chmod(0o777),
}
REBUILT = ("binary junk", "truncated", "edited in place")
# Not damage but a planted file (no hookgate writes a directory, FIFO or link as an entry): the
# agent can cause it, so it answers the limit action (tests/test_agent_caused.py covers FIFOs,
# directories and oversize entries the same way).


def test_a_directory_planted_as_a_compile_cache_entry_answers_the_limit(home):
    compiled = home / "cache" / "compiled"
    os.makedirs(compiled, mode=0o700)
    assert_guarded(home)
    (entry,) = compiled.glob("*.code")
    _directory_in_place(entry)
    result = subprocess.run(
        [sys.executable, "-m", "hookgate.cli", "eval", "--host", "claude"],
        input=bash_payload("git commit --no-verify -m wip"),
        capture_output=True,
        text=True,
        env=hookgate_env(home),
        timeout=HOOK_TIMEOUT,
    )
    out = json.loads(result.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "ask", out
    assert str(entry) in out["permissionDecisionReason"]


@pytest.mark.parametrize("fault", CACHE_FAULTS)
def test_a_damaged_compile_cache_is_not_trusted_and_the_hook_still_answers(home, fault):
    compiled = home / "cache" / "compiled"
    os.makedirs(compiled, mode=0o700)  # empty (no warm copy): the pack's entry is the only one
    assert_guarded(home)
    (entry,) = compiled.glob("*.code")
    good = entry.read_bytes()

    CACHE_FAULTS[fault](entry)
    assert_guarded(home)
    if fault in REBUILT:  # detected, and rebuilt from the policies
        assert entry.read_bytes() == good


GOOD_RECORD = {"time": "2026-01-01T00:00:00Z", "event": "error", "kind": "earlier", "message": "ok"}
GOOD_LINE = json.dumps(GOOD_RECORD).encode() + b"\n"
JUNK = (b"\x00\xff\xfe" + os.urandom(2048)).replace(b"\n", b"")


def _state_dir_is_a_file(path) -> None:
    shutil.rmtree(path.parent)
    path.parent.write_bytes(b"not a directory")


def _state_dir_restored(path) -> None:
    path.parent.unlink()
    path.parent.mkdir(mode=0o700)


# fault -> (damage, repair: None when the file's content is damaged and it must keep working)
TELEMETRY_FAULTS = {
    "binary junk": (lambda path: path.write_bytes(GOOD_LINE + JUNK), None),
    "a truncated line": (lambda path: path.write_bytes(GOOD_LINE + GOOD_LINE[:30]), None),
    "junk nested too deeply to parse": (
        lambda path: path.write_bytes(GOOD_LINE + b"[" * 10**5),
        None,
    ),
    "a directory in its place": (lambda path: path.mkdir(), lambda path: path.rmdir()),
    "a FIFO in its place": (os.mkfifo, os.unlink),
    "its directory is a file": (_state_dir_is_a_file, _state_dir_restored),
}
INVALID_JSON = "payload is not valid JSON"


def fail_open(home, **kwargs) -> None:
    """Send the hook a payload that is not JSON: it answers allow (fail-open, exit 0) and
    records an error in telemetry."""
    result = subprocess.run(
        [sys.executable, "-m", "hookgate.cli", "eval", "--host", "claude"],
        input="not json",
        capture_output=True,
        text=True,
        env=hookgate_env(home),
        timeout=HOOK_TIMEOUT,
        **kwargs,
    )
    assert result.returncode == 0 and json.loads(result.stdout) == {}, result.stderr


@pytest.mark.parametrize("fault", TELEMETRY_FAULTS)
def test_a_damaged_telemetry_file_costs_no_answer_and_records_resume(home, monkeypatch, fault):
    damage, repair = TELEMETRY_FAULTS[fault]
    path = home / "state" / "telemetry.jsonl"
    path.parent.mkdir(mode=0o700)
    monkeypatch.setenv("HOOKGATE_TELEMETRY", str(path))  # for read_records in this process
    damage(path)

    assert_guarded(home)
    fail_open(home)
    doctor = run_hookgate(home, "doctor", "--project-dir", str(home), "--timeout", "2")
    assert "recent errors:" in doctor.stdout, doctor.stderr  # it ran to the end, no traceback
    if repair is None:
        assert INVALID_JSON in doctor.stdout.split("recent errors:")[1]
        records = telemetry_module.read_records()
        assert records[0] == GOOD_RECORD and INVALID_JSON in records[-1]["message"]
        assert len(records) == 2
    else:
        repair(path)
        fail_open(home)
        (record,) = telemetry_module.read_records()
        assert INVALID_JSON in record["message"]


def test_a_disk_filling_up_mid_record_costs_no_answer_and_records_resume(home, monkeypatch):
    path = home / "state" / "telemetry.jsonl"
    monkeypatch.setenv("HOOKGATE_TELEMETRY", str(path))
    fail_open(home)
    limit = path.stat().st_size + 20  # room for 20 more bytes in any file: a torn record

    def disk_full() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    fail_open(home, preexec_fn=disk_full)
    assert path.stat().st_size == limit and not path.read_bytes().endswith(b"\n")
    reason, _ = hook(home, "git commit --no-verify -m wip", disk_full)  # it logs it, too
    assert reason is not None and NO_VERIFY_PATTERN in reason

    fail_open(home)  # space again
    records = telemetry_module.read_records()
    assert len(records) == 2 and all(INVALID_JSON in r["message"] for r in records)


# -- 3. the server's database unreachable -----------------------------------------------------


class TcpRelay:
    """A loopback TCP relay to a database server that can be cut: ``cut()`` drops every open
    connection and refuses new ones (the database host gone), ``restore()`` lets them through."""

    def __init__(self, host: str, port: int) -> None:
        # A host that is a directory is PostgreSQL's unix socket there (libpq's rule).
        self.target = f"{host}/.s.PGSQL.{port}" if host.startswith("/") else (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.up = True
        self.lock = threading.Lock()
        self.open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            if not self.up:
                client.close()
                continue
            upstream = self._connect()
            with self.lock:
                self.open += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _connect(self) -> socket.socket:
        if isinstance(self.target, str):
            upstream = socket.socket(socket.AF_UNIX)
            upstream.connect(self.target)
            return upstream
        upstream = socket.create_connection(self.target, timeout=10)
        upstream.settimeout(None)
        return upstream

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        self.up = False
        with self.lock:
            dropped, self.open = self.open, []
        for end in dropped:
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            end.close()

    def restore(self) -> None:
        self.up = True

    def close(self) -> None:
        self.cut()
        self.listener.close()


class SqliteOutage:
    """The SQLite file's directory moved away (an unmounted volume) and back."""

    def __init__(self, store, directory) -> None:
        self.store, self.directory = store, directory
        self.away = directory.with_name(directory.name + "-away")

    def cut(self) -> None:
        self.directory.rename(self.away)
        self.store.engine.dispose()  # pooled connections would keep the moved file open

    def restore(self) -> None:
        self.away.rename(self.directory)


@contextmanager
def database_with_outage(param, tmp_path):
    """A migrated store on ``param`` (see database_params) and a way to cut it off."""
    relay = None
    if param == "sqlite":
        store = fresh_store(f"sqlite:///{tmp_path / 'db' / 'server.db'}", tmp_path)
        outage = SqliteOutage(store, tmp_path / "db")
    else:
        if param is None:
            fresh_store(None, tmp_path)  # fails: under CI the PostgreSQL tests must run
        url = sa.engine.make_url(param)
        # psycopg takes ?host=/?port= over the URL's own: they would bypass the relay.
        query = {k: v for k, v in url.query.items() if k not in ("host", "port")}
        upstream_port = int(url.query.get("port") or url.port or 5432)
        relay = outage = TcpRelay(url.query.get("host") or url.host or "127.0.0.1", upstream_port)
        store = fresh_store(url.set(host="127.0.0.1", port=relay.port, query=query), tmp_path)
    try:
        yield store, outage
    finally:
        store.engine.dispose()
        if relay is not None:
            relay.close()


PG_ONLY = [p for p in database_params() if p.id.startswith("postgresql")]


def decision_batch() -> dict:
    match = {"pack": "no-verify", "pattern": "git-no-verify", "rule": "deny"}
    record = {"decision_id": str(uuid.uuid4()), "time": datetime.now(UTC).isoformat()}
    return {"decisions": [{**record, "outcome": "deny", "matches": [match]}]}


def history(store) -> tuple[int, list[int], int]:
    """What a change or an upload would leave in the database itself: the bundle revision, the
    revision numbers of git_hooks.rego and the number of stored decisions."""
    with store.engine.connect() as conn:
        decisions = conn.execute(sa.select(sa.func.count()).select_from(tables.decisions)).scalar()
    numbers = [r.number for r in store.revisions("policy", "git_hooks.rego")]
    return store.current_revision(), numbers, decisions


def assert_503(response) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["content-type"] == "application/json"
    assert "database" in response.json()["detail"]


@pytest.mark.parametrize("param", database_params())
def test_database_unreachable_not_ready_503_with_a_reason_and_nothing_half_written(
    param, tmp_path, monkeypatch
):
    # The hot path trusts its view of the bundle revision for a second; 0: every request asks.
    monkeypatch.setattr(store_module, "REVISION_CACHE_SECONDS", 0.0)
    with database_with_outage(param, tmp_path) as (store, outage):
        tokens = seeded(store)
        viewer, editor, agent = (auth(tokens[r]) for r in ("viewer", "editor", "agent"))
        with client_for(store) as client:
            assert client.get("/readyz").status_code == 200
            etag = client.get("/v1/policies/git_hooks.rego", headers=viewer).headers["etag"]
            before = history(store)
            change = {
                "content": GUARD.replace("skip", "bypass"),
                "headers": {**editor, "If-Match": etag},
            }

            outage.cut()
            try:
                assert_503(client.get("/readyz"))
                assert client.get("/healthz").status_code == 200  # the process itself is fine
                assert_503(client.post("/v1/evaluate", json={"payload": NO_VERIFY}, headers=viewer))
                assert_503(client.put("/v1/policies/git_hooks.rego", **change))
                assert_503(client.get("/v1/bundle", headers=agent))
                batch = decision_batch()
                assert_503(client.post("/v1/decisions", json=batch, headers=agent))
            finally:
                outage.restore()

            assert client.get("/readyz").status_code == 200
            assert history(store) == before
            # The ETag read before the outage is still current: nothing was written.
            assert client.put("/v1/policies/git_hooks.rego", **change).status_code == 200
            uploaded = client.post("/v1/decisions", json=batch, headers=agent).json()
            assert uploaded == {"accepted": 1, "duplicates": 0}


@pytest.mark.parametrize("param", PG_ONLY)
def test_a_database_lost_in_the_middle_of_a_change_keeps_none_of_it(param, tmp_path, monkeypatch):
    real_compile = document_routes.check_in_workers

    async def cut_then_compile(workers, policies, data, owner):
        # Called while the change is checked, before its write transaction: the database
        # goes away between the change's read and its write.
        outage.cut()
        return await real_compile(workers, policies, data, owner)

    with database_with_outage(param, tmp_path) as (store, outage):
        tokens = seeded(store)
        viewer, editor = auth(tokens["viewer"]), auth(tokens["editor"])
        with client_for(store) as client:
            etag = client.get("/v1/policies/git_hooks.rego", headers=viewer).headers["etag"]
            before = history(store)
            change = {
                "content": GUARD.replace("skip", "bypass"),
                "headers": {**editor, "If-Match": etag},
            }
            monkeypatch.setattr(document_routes, "check_in_workers", cut_then_compile)
            try:
                assert_503(client.put("/v1/policies/git_hooks.rego", **change))
            finally:
                monkeypatch.setattr(document_routes, "check_in_workers", real_compile)
                outage.restore()
            assert history(store) == before
            assert client.put("/v1/policies/git_hooks.rego", **change).status_code == 200


# -- 4. editors racing on one policy ----------------------------------------------------------

EDITORS = 8


@pytest.fixture(params=database_params())
def live(request, tmp_path, monkeypatch):
    """A real server (uvicorn on loopback) over SQLite or PostgreSQL."""
    store = fresh_store(request.param, tmp_path)
    # LiveServer opens a SQLite file of its own; hand it this store instead.
    monkeypatch.setattr("hookgate.commands.serve.open_store", lambda _url: store)
    server = LiveServer(tmp_path / "unused.db")
    yield server
    server.stop()
    store.engine.dispose()


def call(server: LiveServer, method: str, path: str, body: bytes | None = None, **headers) -> int:
    try:
        return server.request(method, path, body, headers)[0]
    except urllib.error.HTTPError as exc:
        return exc.code


def race(edit) -> list[int]:
    """Run ``edit(n, barrier)`` in EDITORS threads at once; their statuses, sorted."""
    barrier = threading.Barrier(EDITORS)
    with ThreadPoolExecutor(EDITORS) as pool:
        return sorted(pool.map(lambda n: edit(n, barrier), range(EDITORS)))


def test_editors_racing_on_one_etag_exactly_one_wins_the_rest_get_412(live):
    path = "/v1/policies/marker"
    live.put_policy("marker", deny_policy("marker-race"))
    revisions_before = len(live.request("GET", f"{path}/revisions")[2]["revisions"])
    bundle_before = live.request("GET", "/v1/bundle")[2]["revision"]
    texts = [deny_policy(f"marker-race-{n}") for n in range(EDITORS)]

    def edit(n: int, barrier: threading.Barrier) -> int:
        etag = live.request("GET", path)[1]["etag"]  # each editor reads, then all write at once
        barrier.wait()
        return call(live, "PUT", path, texts[n].encode(), **{"If-Match": etag})

    assert race(edit) == [200] + [412] * (EDITORS - 1)
    found = live.request("GET", f"{path}/revisions")[2]["revisions"]
    assert len(found) == revisions_before + 1
    assert found[-1]["content"] in texts
    assert live.request("GET", "/v1/bundle")[2]["revision"] == bundle_before + 1


def test_editors_racing_to_create_one_policy_exactly_one_wins_the_rest_get_428(live):
    path = "/v1/policies/created"
    bundle_before = live.request("GET", "/v1/bundle")[2]["revision"]

    def create(n: int, barrier: threading.Barrier) -> int:
        barrier.wait()
        return call(live, "PUT", path, deny_policy(f"marker-new-{n}").encode())

    assert race(create) == [201] + [428] * (EDITORS - 1)
    assert len(live.request("GET", f"{path}/revisions")[2]["revisions"]) == 1
    assert live.request("GET", "/v1/bundle")[2]["revision"] == bundle_before + 1


# -- 5. a burst of hooks during a background refresh ------------------------------------------

BEFORE, DURING, AFTER = 10, 30, 10  # hooks answered before, while and after the swap
BURST = 5  # the hooks during the refresh come in bursts, to span its download, compile and swap


def test_fifty_hooks_during_a_background_refresh_answer_for_the_old_or_new_revision(tmp_path):
    server = LiveServer(tmp_path / "server.db")
    proxy = StallingProxy(server)
    hooks = []
    try:
        home = tmp_path / "user"
        home.mkdir()
        markers = {server.put_policy("marker", deny_policy("marker-old")): "marker-old"}
        login = run_hookgate(home, "login", "--server", proxy.url, "--token", server.agent_token)
        assert login.returncode == 0, login.stderr
        (old,) = markers

        # All 50 start at once and wait for their payload; the first BEFORE see a fresh
        # bundle, the others a stale one (each of those would start a refresh).
        argv = [sys.executable, "-m", "hookgate.cli", "eval", "--host", "claude", "--explain"]
        for n in range(BEFORE + DURING + AFTER):
            # Fifty hooks at once on a small machine: the deadline at its most (25 s), since
            # what is tested is the revision each answers for, not how fast fifty start.
            interval = "300" if n < BEFORE else "0"
            env = hookgate_env(home, HOOKGATE_REFRESH_INTERVAL=interval, HOOKGATE_DEADLINE="25")
            out, err = (open(tmp_path / f"hook{n}.{s}", "w+") for s in ("out", "err"))
            child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=out, stderr=err, env=env)
            hooks.append((child, out, err))
        started = len(telemetry(home))

        def feed(wave) -> None:
            for child, _, _ in wave:
                child.stdin.write(bash_payload("echo marker-old marker-new").encode())
                child.stdin.close()

        def answers(wave) -> list[int]:
            """The revision each hook answered for, checked against its deny reason."""
            revisions = []
            for child, out, err in wave:
                returncode = child.wait(60)
                out.seek(0)  # the child shared the files' offset
                err.seek(0)
                reason, origin = answer(returncode, out.read(), err.read())
                revision = next(r for r in markers if origin == f"bundle revision {r}")
                assert reason is not None and markers[revision] in reason, reason
                revisions.append(revision)
            return revisions

        feed(hooks[:BEFORE])
        assert answers(hooks[:BEFORE]) == [old] * BEFORE
        during = [hooks[n : n + BURST] for n in range(BEFORE, BEFORE + DURING, BURST)]
        with proxy.hold("request"):
            feed(during[0])  # the first of these starts the refresh
            assert proxy.held.wait(30), "no background refresh reached the server"
            new = server.put_policy("marker", deny_policy("marker-new"))  # published meanwhile
            markers[new] = "marker-new"
        seen = [answers(during[0])]
        for burst in during[1:]:
            feed(burst)
            seen.append(answers(burst))
        # Once a hook has answered for the new revision, no later one answers for the old.
        assert all(max(earlier) <= min(later) for earlier, later in pairwise(seen))
        wait_for(lambda: cached(home)["revision"] == new, what="the background pull")
        feed(hooks[BEFORE + DURING :])
        assert answers(hooks[BEFORE + DURING :]) == [new] * AFTER

        records = telemetry(home)[started:]
        assert len([r for r in records if r["event"] == "refresh"]) == 1
        pulls = wait_for(
            lambda: [r for r in telemetry(home)[started:] if r["event"] == "pull"],
            what="the background pull's record",
        )
        assert [r["revision"] for r in pulls] == [new]
        assert not [r for r in records if r["event"] == "error"]  # nothing failed open
    finally:
        for child, out, err in hooks:
            child.kill()  # only those a failed assertion left waiting
            child.wait()
            for stream in (child.stdin, out, err):
                stream.close()
        proxy.close()
        server.stop()
