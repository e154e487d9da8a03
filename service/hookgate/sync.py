"""The bundle client: login state, pull, verification, the local cache and background refresh.

Files (see ``hookgate.paths``):

- ``<config>/login.json`` (0600): the server URL, the API token and the bundle public key pinned
  at login. A bundle signed by another key is refused until ``--force-key-rotation``.
- ``<cache>/bundle.json``: the last good bundle exactly as the server signed it, plus the server
  it came from, ``fetched_at`` (when the server last answered for it) and ``freshness``: the
  last signed freshness statement that named it (``{revision, digest, time}``, ``time`` on the
  server's clock) and ``proven_at`` (this machine's clock when it was checked). It is replaced
  only by a bundle that verified and compiled, written to a temporary file, fsynced and renamed.
- ``<state>/refresh.lock``: serializes refreshes; its content is the time of the last start.

The hook (``hookgate eval``) calls only :func:`active_bundle` and :func:`refresh_if_stale`; both
stay off the network and import nothing heavy. Everything that talks to the server runs in
``hookgate login`` / ``hookgate pull`` (the latter also as the detached background refresh).

In personal mode every file above is the user's, and so the agent's: a program it runs can
rewrite the cached bundle and the pinned key. The digest check below catches an edited bundle,
not a replaced one; only a managed install keeps them out of the agent's reach.

In managed mode (``hookgate.anchors``) the server, the pinned key, the token's file and the
refresh settings come from root's ``/etc/hookgate/config.json``; ``hookgate pull`` runs as root
(the systemd timer in ``deploy/``) and keeps the bundle in ``/var/lib/hookgate/bundle`` and its
compiled policies in ``/var/lib/hookgate/compiled`` (0755 directories, 0644 files, replaced
atomically). The hook, as the user, only reads them and starts no refresh.
"""

from __future__ import annotations

import os
import time

from hookgate import anchors, jsonio, paths
from hookgate.files import (
    FileLock,
    MiB,
    UnsafeFile,
    atomic_write,
    open_private,
    read_file,
    read_file_stat,
    try_flock,
)
from hookgate.records import Frozen, fields, set_field

TYPE_CHECKING = False  # not typing's: the hook imports this module
if TYPE_CHECKING:
    import http.client

DEFAULT_REFRESH_INTERVAL = 300.0  # seconds; $HOOKGATE_REFRESH_INTERVAL overrides
# With no cached bundle, a bundle whose signed freshness is older than this (seconds) is refused
# as a replay; $HOOKGATE_MAX_BUNDLE_AGE overrides.
DEFAULT_MAX_BUNDLE_AGE = 86400.0
MAX_BUNDLE_BYTES = 64 * MiB  # the cached bundle the hook reads (files.read_file's cap)
RETRY_AFTER = 60.0  # at most one background refresh start per this many seconds
HTTP_TIMEOUT = 10.0
LOCK_WAIT = 5.0  # how long a pull waits for another process's brief hold of the lock


class SyncError(Exception):
    """A login, pull or upload that failed; the message is safe to print (never a token)."""


class ServerUnreachable(SyncError):
    """The server did not answer at all (down, offline, DNS, timeout)."""


class LocalBundle(Frozen):
    """The last good bundle in the local cache (verified before it was stored)."""

    __slots__ = ("revision", "policies", "data", "digest", "server", "fetched_at", "proven_at")

    def __init__(
        self,
        revision: int,
        policies: dict[str, str],
        data: dict,
        digest: str,
        server: str,
        fetched_at: float,  # epoch seconds of the last time the server answered for this bundle
        # Epoch seconds (this machine's clock) of the last signed freshness statement that named
        # this bundle; None: never proven (a cache written before statements existed).
        proven_at: float | None = None,
    ) -> None:
        set_field(self, "revision", revision)
        set_field(self, "policies", policies)
        set_field(self, "data", data)
        set_field(self, "digest", digest)
        set_field(self, "server", server)
        set_field(self, "fetched_at", fetched_at)
        set_field(self, "proven_at", proven_at)

    def age(self, now: float | None = None) -> float:
        return (time.time() if now is None else now) - self.fetched_at


class Login(Frozen):
    __slots__ = ("server", "token", "public_key", "key_id")
    _hidden = ("token",)  # never in a log line or a traceback

    def __init__(self, server: str, token: str, public_key: str, key_id: str) -> None:
        set_field(self, "server", server)
        set_field(self, "token", token)
        set_field(self, "public_key", public_key)  # base64 of the raw 32-byte Ed25519 key
        set_field(self, "key_id", key_id)


class PullResult(Frozen):
    __slots__ = ("status", "revision")

    def __init__(self, status: str, revision: int) -> None:
        set_field(self, "status", status)  # "updated" or "unchanged"
        set_field(self, "revision", revision)


class RefreshReport(Frozen):
    __slots__ = ("pulled", "pull_error", "uploaded", "upload_error")

    def __init__(
        self,
        pulled: PullResult | None,
        pull_error: str | None,
        uploaded: int,
        upload_error: str | None,
    ) -> None:
        set_field(self, "pulled", pulled)
        set_field(self, "pull_error", pull_error)
        set_field(self, "uploaded", uploaded)
        set_field(self, "upload_error", upload_error)

    @property
    def ok(self) -> bool:
        return self.pull_error is None and self.upload_error is None


def bundle_path() -> str:
    return os.path.join(paths.bundle_dir(), "bundle.json")


def login_path() -> str:
    return os.path.join(paths.config_dir(), "login.json")


def lock_path() -> str:
    directory = anchors.STATE if anchors.present() else paths.state_dir()
    return os.path.join(directory, "refresh.lock")


def max_bundle_age() -> float:
    """Seconds: in managed mode the managed configuration's ``max_bundle_age``, else
    ``$HOOKGATE_MAX_BUNDLE_AGE``; 86400 when unset (a malformed value: the default)."""
    if anchors.present():
        return float(_managed_setting("max_bundle_age") or DEFAULT_MAX_BUNDLE_AGE)
    try:
        return float(os.environ.get("HOOKGATE_MAX_BUNDLE_AGE") or DEFAULT_MAX_BUNDLE_AGE)
    except ValueError:
        return DEFAULT_MAX_BUNDLE_AGE


def refresh_interval() -> float:
    """Seconds after which a cached bundle is stale: in managed mode the managed
    configuration's ``refresh_interval``, else ``$HOOKGATE_REFRESH_INTERVAL``; 300 when unset."""
    if anchors.present():
        return float(_managed_setting("refresh_interval") or DEFAULT_REFRESH_INTERVAL)
    try:
        return float(os.environ.get("HOOKGATE_REFRESH_INTERVAL") or DEFAULT_REFRESH_INTERVAL)
    except ValueError:
        return DEFAULT_REFRESH_INTERVAL


# --- the hook's side: local reads only ------------------------------------------------------


def active_bundle() -> LocalBundle | None:
    """The cached bundle, or None when there is none. An unreadable or corrupt cache is None
    too, after an ``error`` telemetry record (the hook then falls back to the default pack)."""
    if anchors.present():
        return _managed_bundle()
    try:
        document, stamp = _read_cached_document()
    except FileNotFoundError:
        return None
    except UnsafeFile:  # planted, not damaged: a limit (hookgate.deadline), not the default pack
        raise
    except (OSError, ValueError) as exc:
        _error("bundle_cache", str(exc))
        return None
    try:
        bundle = _local_bundle(document)
    except (KeyError, TypeError, ValueError) as exc:
        _error("bundle_cache", f"{bundle_path()}: corrupt bundle cache: {exc}")
        return None
    checked = f"{stamp} {bundle.digest}"
    if _read_checked() == checked:
        return bundle  # the file has not been written since its content matched its digest
    from hookgate.bundle_format import digest

    # The signature covers the digest (pull checked it); content that no longer hashes to it
    # was edited in place, and edited policies are never run.
    if digest(bundle.revision, bundle.policies, bundle.data) != bundle.digest:
        _error(
            "bundle_cache",
            f"{bundle_path()}: the cached bundle does not match the digest its signature "
            "covers (edited?); using the built-in default pack until the next pull",
        )
        return None
    if int(stamp.rsplit(":", 1)[1]) < time.time_ns() - 2_000_000_000:
        # Not for a file changed in the last seconds: a write later within the same tick of
        # the file system's clock could leave its stamp as it is.
        try:
            atomic_write(_checked_path(), checked.encode())
        except OSError:
            pass
    return bundle


def _checked_path() -> str:
    """The stamp (inode, size, modification and change times) of ``bundle.json`` when its
    content last matched its digest, and that digest: a hook that finds the same stamp skips
    hashing the bundle. Any write to the file changes the stamp (no one can set a change
    time), so an edited bundle is hashed again, and refused."""
    return os.path.join(paths.cache_dir(), "bundle.checked")


def _read_checked() -> str | None:
    try:  # anything but a small regular file: hash the bundle again (and rewrite the stamp)
        return (read_file(_checked_path(), 512) or b"").decode("ascii") or None
    except (OSError, ValueError):
        return None


def refresh_if_stale(bundle: LocalBundle | None, now: float | None = None) -> None:
    """Start a detached ``hookgate pull --background`` when ``bundle`` (None: no bundle yet) is
    older than the refresh interval and a server is configured; return at once.

    A burst of hooks starts one refresh: the lock file is taken without waiting (a refresh that
    is running holds it) and records when the last refresh started (none again for
    ``RETRY_AFTER`` seconds, so a server that is down is not hammered).
    """
    if anchors.present():
        return  # root's timer refreshes root's cache; the user's process could not write it
    now = time.time() if now is None else now
    if bundle is not None and now - bundle.fetched_at < refresh_interval():
        return
    if not os.path.exists(login_path()):
        return
    try:
        _start_refresh(now)
    except Exception as exc:  # the refresh must never cost the hook its answer
        _error("refresh", f"cannot start a background refresh: {type(exc).__name__}: {exc}")


def _start_refresh(now: float) -> None:
    fd = open_private(lock_path())
    try:
        if not try_flock(fd):
            return  # a refresh is running, or another hook is starting one right now
        last = _parse_time(os.pread(fd, 64, 0))
        if last is not None and 0 <= now - last < RETRY_AFTER:
            return
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{now}\n".encode(), 0)
        _spawn_refresh()
    finally:
        os.close(fd)


def _spawn_refresh() -> None:
    import subprocess
    import sys

    # -P and a private cwd: `-m` would otherwise import a `hookgate` package from the directory
    # the agent is working in.
    argv = [sys.executable, "-P", "-m", "hookgate.cli", "pull", "--background"]
    subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=paths.state_dir(),
        start_new_session=True,
        close_fds=True,
    )
    from hookgate import telemetry

    telemetry.record("refresh", action="started")


def _parse_time(raw: bytes) -> float | None:
    try:
        return float(raw.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        return None


# --- managed mode: root's anchors and root's cache ------------------------------------------------


def _managed_setting(name: str) -> object | None:
    """A setting of the managed configuration (None in personal mode, when it is not set, or
    when the configuration cannot be trusted: the hook answers the limit action for that, in
    ``hookgate.active``)."""
    if not anchors.present():
        return None
    try:
        config = anchors.load()
    except anchors.AnchorError:
        return None
    return getattr(config, name)


def _managed_bundle() -> LocalBundle | None:
    """Root's cached bundle, for the hook.

    Root's ``hookgate pull`` verified the bundle's signature against the key pinned in the
    managed configuration before writing it. A file only root can write, in directories only
    root can change, is still what root verified: that is the one place where a verification
    result may be cached (the agent cannot write there), so the hook uses it without verifying
    again. A bundle file that anyone else could have written is verified here against the pinned
    key, and not used unless it passes."""
    path = bundle_path()
    trusted = anchors.root_owned(path)  # checked before reading: no one else can swap it after
    try:
        document, _ = _read_cached_document()
        bundle = _local_bundle(document)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        _error("bundle_cache", f"{path}: unreadable managed bundle: {exc}")
        return None
    if trusted:
        return bundle
    from hookgate.bundle_format import BundleError, verify

    try:
        config = anchors.load()
        if config is None or not config.public_key:
            raise BundleError(f"no public_key pinned in {anchors.CONFIG}")
        verify(document, config.public_key)
    except (anchors.AnchorError, BundleError) as exc:
        _error("bundle_cache", f"{path}: not root's alone and not verified, not used: {exc}")
        return None
    return bundle


def _managed_server() -> str | None:
    """The managed configuration's server (None: none set); ``SyncError`` when the
    configuration cannot be trusted."""
    try:
        config = anchors.load()
    except anchors.AnchorError as exc:
        raise SyncError(str(exc)) from None
    return config.server if config is not None else None


def _managed_login() -> Login:
    """The server, the pinned key and the token of the managed configuration; ``SyncError``
    when it cannot be trusted, lacks the server or key, or its token file is not root's
    alone (a token the agent's user could read would let it act as this machine)."""
    import base64
    import binascii

    from hookgate.bundle_format import key_id

    try:
        config = anchors.load()
    except anchors.AnchorError as exc:
        raise SyncError(str(exc)) from None
    if config is None or not config.server or not config.public_key:
        raise SyncError(f"{anchors.CONFIG}: server and public_key must be set to pull")
    try:
        raw = base64.b64decode(config.public_key, validate=True)
    except binascii.Error:
        raw = b""
    if len(raw) != 32:
        raise SyncError(f"{anchors.CONFIG}: public_key: not the base64 of a raw 32-byte key")
    if config.key_id is not None and config.key_id != key_id(raw):
        raise SyncError(f"{anchors.CONFIG}: key_id does not name public_key")
    return Login(config.server, _read_token(config.token_file), config.public_key, key_id(raw))


def _read_token(path: str) -> str:
    try:
        anchors.check_root_owned(path, directory=False)
        found = read_file_stat(path, 4096)
        if found is None:
            raise SyncError(f"{path}: no token file")
        raw, st = found
        if st.st_mode & 0o077:
            raise SyncError(f"{path}: readable by others; chmod 600 it (it holds the token)")
        token = raw.decode("ascii").strip()
    except anchors.AnchorError as exc:
        raise SyncError(f"token_file: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SyncError(f"{path}: cannot read the token: {exc}") from None
    if not token:
        raise SyncError(f"{path}: empty token")
    return token


def _require_root_if_managed() -> bool:
    """Whether this is managed mode; ``SyncError`` when it is and this process is not root's."""
    if not anchors.present():
        return False
    if os.geteuid() != anchors.ROOT_UID:
        raise SyncError(
            f"managed mode ({anchors.CONFIG}): the bundle is root's; hookgate pull runs as "
            "root (systemd's hookgate-pull.timer, or cron)"
        )
    return True


def _public_dir(path: str) -> None:
    """``path`` and ``anchors.STATE`` as root's 0755 directories (readable by every user's
    hook, writable by root alone); ``SyncError`` if either is anything else."""
    for directory in (anchors.STATE, path):
        os.makedirs(directory, mode=0o755, exist_ok=True)
        try:
            os.chmod(directory, 0o755, follow_symlinks=False)
            anchors.check_root_owned(directory, directory=True)
        except (OSError, NotImplementedError, anchors.AnchorError) as exc:
            raise SyncError(f"managed cache: {exc}") from None


def _publish_compiled() -> None:
    """Make root's compile cache entries readable by every user's hook (the compile cache
    writes them 0600, for the user's own cache)."""
    directory = paths.compiled_dir()
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        st = os.lstat(path)
        if name.startswith(".") or st.st_mode & 0o170000 != 0o100000:
            continue
        if st.st_uid == anchors.ROOT_UID and st.st_mode & 0o777 != 0o644:
            os.chmod(path, 0o644)


def _compile_default_pack() -> None:
    """Root's compile cache gets the built-in default pack too: the hook runs it until the
    first bundle arrives."""
    from hookgate.engine import Engine
    from hookgate.sources import default_pack_path

    _public_dir(paths.compiled_dir())
    Engine.from_paths([default_pack_path()], cache_dir=paths.compiled_dir(), origin="default pack")
    _publish_compiled()


# --- local files ------------------------------------------------------------------------------


def _read_cached_document() -> tuple[dict, str]:
    """The cached bundle document, and the stamp of the file it was read from."""
    path = bundle_path()
    found = read_file_stat(path, MAX_BUNDLE_BYTES)
    if found is None:
        raise FileNotFoundError(path)
    raw, st = found
    stamp = f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"
    try:
        document = jsonio.loads(raw.decode("utf-8"))
    except ValueError as exc:
        raise ValueError(f"{path}: corrupt bundle cache: {exc}") from None
    if not isinstance(document, dict):
        raise ValueError(f"{path}: corrupt bundle cache: not a JSON object")
    return document, stamp


def _local_bundle(document: dict) -> LocalBundle:
    bundle = LocalBundle(
        revision=document["revision"],
        policies=document["policies"],
        data=document["data"],
        digest=document["digest"],
        server=document["server"],
        fetched_at=float(document["fetched_at"]),
        proven_at=document.get("proven_at"),
    )
    if not isinstance(bundle.revision, int) or not isinstance(bundle.data, dict):
        raise TypeError("revision or data has the wrong type")
    if not isinstance(bundle.digest, str):
        raise TypeError("digest must be a string")
    if not isinstance(bundle.policies, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in bundle.policies.items()
    ):
        raise TypeError("policies must map ids to source text")
    return bundle


def load_login() -> Login | None:
    """The stored login, or None when not logged in; a damaged file raises ``SyncError``. In
    managed mode: the managed configuration's server and key, with its token file's token."""
    if anchors.present():
        return _managed_login()
    path = login_path()
    try:
        raw = read_file(path, MiB)
        if raw is None:
            return None
        document = jsonio.loads(raw.decode("utf-8"))
        return Login(**{name: document[name] for name in Login.__slots__})
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SyncError(
            f"{path}: unreadable login ({type(exc).__name__}); run hookgate login"
        ) from None


def _save_login(login: Login) -> None:
    import json  # indented for people to read; not on the hook's path

    paths.private_dir(paths.config_dir())
    document = json.dumps(fields(login), indent=2) + "\n"
    atomic_write(login_path(), document.encode(), 0o600)


def refresh_lock(wait: float = LOCK_WAIT) -> FileLock:
    """The refresh lock, for ``with``: waits up to ``wait`` seconds (hooks hold it only for
    microseconds; a running pull holds it for its whole run)."""
    return FileLock(lock_path(), wait, busy=SyncError("another hookgate pull is running"))


# --- the network side: login, pull, upload ----------------------------------------------------


def http_json(
    method: str,
    url: str,
    token: str | None,
    body: object = None,
    headers: dict[str, str] | None = None,
    timeout: float = HTTP_TIMEOUT,
    progress: str | None = None,
) -> tuple[int, dict[str, str], object]:
    """One HTTP exchange with the server: ``(status, headers, JSON body or None)``.
    ``progress``: the label of the download's progress line (on a terminal only).

    Statuses other than 2xx/304 and unreachable servers raise ``SyncError``.
    """
    import urllib.error
    import urllib.request

    data = None if body is None else jsonio.dumps(body, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, got = response.status, dict(response.headers)
            raw = _read_body(response, progress) if progress else response.read()
    except urllib.error.HTTPError as exc:
        if exc.code == 422 and url.endswith("/v1/decisions"):
            from hookgate.decisionlog import RecordsRefused

            raise RecordsRefused(f"{method} {url}: HTTP 422 (invalid decision records)") from None
        if exc.code != 304:
            raise SyncError(f"{method} {url}: HTTP {exc.code}{_error_detail(exc)}") from None
        return 304, dict(exc.headers), None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ServerUnreachable(f"{method} {url}: server unreachable ({reason})") from None
    try:
        return status, got, jsonio.loads(raw.decode("utf-8")) if raw else None
    except ValueError:
        raise SyncError(f"{method} {url}: the response is not JSON") from None


def _read_body(response: http.client.HTTPResponse, label: str) -> bytes:
    """The response body, read in chunks that advance a progress line: bytes of the
    ``Content-Length`` when the server sends one, else bytes so far."""
    from hookgate import progress

    length = response.headers.get("Content-Length")
    total = int(length) if length and length.isdigit() else None
    chunks = []
    with progress.Progress(label, total, unit="bytes") as line:
        while chunk := response.read(1 << 16):
            chunks.append(chunk)
            line.advance(len(chunk))
    return b"".join(chunks)


def _error_detail(exc: Exception) -> str:
    code = getattr(exc, "code", 0)
    if code == 401:
        return " (token rejected: run hookgate login again)"
    if code == 403:
        return " (this token may not read the bundle)"
    return ""


def _endpoint(server: str, path: str) -> str:
    return server.rstrip("/") + path


def fetch_key(server: str, token: str, timeout: float = HTTP_TIMEOUT) -> tuple[str, str]:
    """The server's bundle public key as ``(base64 raw key, key id)``, checked for shape."""
    import base64
    import binascii

    from hookgate.bundle_format import ALGORITHM, key_id

    _, _, document = http_json("GET", _endpoint(server, "/v1/bundle/key"), token, timeout=timeout)
    if not isinstance(document, dict) or document.get("algorithm") != ALGORITHM:
        raise SyncError(f"{server}: /v1/bundle/key: expected an {ALGORITHM} key")
    public_key = document.get("public_key")
    try:
        raw = base64.b64decode(public_key or "", validate=True)
    except (binascii.Error, TypeError):
        raw = b""
    if len(raw) != 32:
        raise SyncError(f"{server}: /v1/bundle/key: public_key is not a raw 32-byte key")
    if document.get("key_id") != key_id(raw):
        raise SyncError(f"{server}: /v1/bundle/key: key_id does not name the public key")
    return public_key, key_id(raw)


def login(
    server: str,
    token: str,
    *,
    force_key_rotation: bool = False,
    insecure: bool = False,
    timeout: float = HTTP_TIMEOUT,
) -> Login:
    """Fetch and pin the server's bundle key, then store the login (0600).

    Logging in again to the same server that now offers a different key is refused unless
    ``force_key_rotation``: a changed key is exactly what an attacker in the middle would offer.
    Plain ``http://`` is refused except to this machine (loopback) unless ``insecure``: the key
    pinned here is what every later bundle is trusted by, and the token travels with it.
    """
    if anchors.present():
        raise SyncError(
            f"managed mode: the server and its bundle key are pinned in {anchors.CONFIG}, "
            "which only root changes (hookgate install --managed)"
        )
    if not server.startswith(("http://", "https://")):
        raise SyncError(f"--server: expected an http:// or https:// URL, got {server!r}")
    if server.startswith("http://") and not insecure and not _loopback(server):
        raise SyncError(
            f"--server: {server} is plain http:// to another machine: the token and the pinned "
            "bundle key could be read or replaced on the way; use https://, or --insecure if "
            "the network is trusted"
        )
    server = server.rstrip("/")
    public_key, key_id = fetch_key(server, token, timeout)
    try:
        previous = load_login()
    except SyncError:
        previous = None
    if previous is not None and previous.server == server and previous.key_id != key_id:
        if not force_key_rotation:
            raise SyncError(
                f"{server} now signs bundles with key {key_id}, but key {previous.key_id} is "
                "pinned; if the server's key was rotated on purpose, run hookgate login again "
                "with --force-key-rotation"
            )
    result = Login(server, token, public_key, key_id)
    _save_login(result)
    return result


def _loopback(server: str) -> bool:
    import ipaddress
    import urllib.parse

    host = urllib.parse.urlsplit(server).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def rotate_key(timeout: float = HTTP_TIMEOUT) -> Login:
    """Re-pin the configured server's current key (``hookgate pull --force-key-rotation``)."""
    current = _require_login()
    return login(
        current.server, current.token, force_key_rotation=True, insecure=True, timeout=timeout
    )


def _require_login() -> Login:
    current = load_login()
    if current is None:
        raise SyncError("not logged in: run hookgate login --server URL --token TOKEN")
    return current


def pull(*, timeout: float = HTTP_TIMEOUT) -> PullResult:
    """Fetch the bundle (``If-None-Match``), verify it with the pinned key, compile it, and
    only then swap it into the cache. Any failure raises ``SyncError`` and leaves the last good
    bundle in place."""
    from hookgate.bundle_format import BundleError, verify

    managed = _require_root_if_managed()
    current = _require_login()
    cached = _verified_cache(current)
    same_server = cached is not None and cached.get("server") == current.server
    headers = {}
    if same_server and isinstance(cached.get("digest"), str):
        headers["If-None-Match"] = f'"{cached["digest"]}"'
    url = _endpoint(current.server, "/v1/bundle")
    status, got, bundle = http_json(
        "GET",
        url,
        current.token,
        headers=headers,
        timeout=timeout,
        progress="downloading the bundle",
    )
    now = time.time()
    if status == 304:
        statement = _freshness(got, current, url)
        if not same_server:
            raise SyncError(f"GET {url}: 304 Not Modified, but no bundle is cached")
        if (statement["revision"], statement["digest"]) != (cached["revision"], cached["digest"]):
            raise SyncError(f"GET {url}: 304 with a freshness statement for another bundle")
        _check_not_older(statement, cached, url)
        proven = {"freshness": statement, "proven_at": now}
        document = _encode({**cached, "fetched_at": now, **proven})
        atomic_write(bundle_path(), document, 0o644 if managed else 0o600)
        if managed:  # a cache that lost its compiled entry (a new Python) gets it back
            _compile(cached["policies"], cached["data"], f"bundle revision {cached['revision']}")
        return PullResult("unchanged", cached["revision"])
    try:
        verify(bundle, current.public_key)
    except BundleError as exc:
        hint = ""
        if isinstance(bundle, dict) and bundle.get("key_id") != current.key_id:
            hint = (
                "; if the server's key was rotated on purpose, run hookgate pull "
                "--force-key-rotation"
            )
        raise SyncError(f"GET {url}: bundle refused: {exc}{hint}") from None
    statement = _freshness(got, current, url)
    if (statement["revision"], statement["digest"]) != (bundle["revision"], bundle["digest"]):
        raise SyncError(f"GET {url}: bundle refused: its freshness statement names another one")
    if same_server and bundle["revision"] < cached.get("revision", -1):
        raise SyncError(
            f"GET {url}: bundle refused: revision {bundle['revision']} is older than the cached "
            f"revision {cached['revision']} (a replayed bundle?); delete {bundle_path()} to "
            "accept it"
        )
    if same_server:
        _check_not_older(statement, cached, url)
    elif now - statement["time"] > max_bundle_age():
        raise SyncError(
            f"GET {url}: bundle refused: the server vouched for it {_ago(now - statement['time'])} "
            f"ago, more than the maximum age of {_ago(max_bundle_age())} (a replayed bundle?)"
        )
    # Compiled as the hook will read it back from the stored file (``_encode`` sorts keys): the
    # compile cache's key follows the data's key order.
    stored_data = jsonio.loads(jsonio.dumps(bundle["data"], sort_keys=True))
    _compile(bundle["policies"], stored_data, f"bundle revision {bundle['revision']}")
    proven = {"freshness": statement, "proven_at": now}
    stored = {**bundle, "server": current.server, "fetched_at": now, **proven}
    if managed:
        _public_dir(paths.bundle_dir())
        atomic_write(bundle_path(), _encode(stored), 0o644)
    else:
        paths.private_dir(paths.cache_dir())
        atomic_write(bundle_path(), _encode(stored), 0o600)
    return PullResult("updated", bundle["revision"])


def _freshness(headers: dict[str, str], current: Login, url: str) -> dict:
    """The response's signed freshness statement, verified with the pinned key."""
    from hookgate.bundle_format import FRESHNESS_HEADER, BundleError, verify_freshness

    value = next((v for k, v in headers.items() if k.lower() == FRESHNESS_HEADER.lower()), None)
    try:
        return verify_freshness(value, current.public_key)
    except BundleError as exc:
        raise SyncError(f"GET {url}: freshness not proven: {exc}") from None


def _check_not_older(statement: dict, cached: dict, url: str) -> None:
    """A statement older than the one already proven is a replay: it proves nothing new."""
    previous = cached.get("freshness")
    if isinstance(previous, dict) and statement["time"] < previous.get("time", 0):
        raise SyncError(
            f"GET {url}: freshness statement older than the last one proven (a replay?)"
        )


def _ago(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds:.0f} s"


def _verified_cache(current: Login) -> dict | None:
    """The cached bundle document if its signature verifies with the pinned key, else None
    (after an error record): a cached revision or digest the server never signed must neither
    block a newer bundle nor answer a 304."""
    from hookgate.bundle_format import BundleError, verify

    try:
        cached, _ = _read_cached_document()
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        _error("bundle_cache", str(exc))
        return None
    try:
        verify(cached, current.public_key)
    except BundleError as exc:
        _error("bundle_cache", f"{bundle_path()}: cached bundle not trusted: {exc}")
        return None
    return cached


def refresh(*, wait: float = LOCK_WAIT, timeout: float = HTTP_TIMEOUT) -> RefreshReport:
    """One sync with the server, under the refresh lock: pull the bundle, then upload pending
    decisions. Each failure is recorded in telemetry and reported, never raised (except
    ``SyncError`` when not logged in, or when another pull holds the lock past ``wait``)."""
    from hookgate import telemetry

    if _require_root_if_managed() and _managed_server() is None:
        # A managed install without a server runs the default pack: root still compiles it, so
        # that no hook has to compile it in memory.
        with refresh_lock(wait):
            try:
                _compile_default_pack()
            except SyncError:
                raise
            except Exception as exc:
                raise SyncError(f"default pack: {type(exc).__name__}: {exc}") from None
        return RefreshReport(None, None, 0, None)
    _require_login()
    with refresh_lock(wait):
        pulled = pull_error = upload_error = None
        uploaded, unreachable = 0, False
        try:
            pulled = pull(timeout=timeout)
            telemetry.record("pull", outcome=pulled.status, revision=pulled.revision)
        except SyncError as exc:
            pull_error, unreachable = str(exc), isinstance(exc, ServerUnreachable)
            _error("pull", pull_error)
        if anchors.present():
            try:
                _compile_default_pack()
            except Exception as exc:  # the pulled bundle is what matters; record, go on
                _error("pull", f"default pack: {type(exc).__name__}: {exc}")
        if not unreachable:  # a second timeout would only delay the same answer
            try:
                uploaded = upload_decisions(timeout=timeout)
            except (SyncError, OSError, ValueError) as exc:
                upload_error = str(exc)
                _error("upload", upload_error)
    return RefreshReport(pulled, pull_error, uploaded, upload_error)


def _compile(policies: dict[str, str], data: dict, origin: str) -> None:
    from hookgate import progress
    from hookgate.engine import Engine
    from hookgate.lang.errors import PolicyError

    managed = anchors.present()
    if managed:
        _public_dir(paths.compiled_dir())
    try:
        with progress.Progress(f"compiling {origin}", ticking=True):
            Engine.from_sources(policies, data, cache_dir=paths.compiled_dir(), origin=origin)
        if managed:
            _publish_compiled()
    except PolicyError as exc:
        first = exc.diagnostics[0].headline() if exc.diagnostics else str(exc)
        raise SyncError(f"{origin} does not compile: {first}") from None
    except Exception as exc:  # whatever breaks the compiler must not reach the hook
        raise SyncError(f"{origin} does not compile: {type(exc).__name__}: {exc}") from None


def upload_decisions(timeout: float = HTTP_TIMEOUT) -> int:
    """Send the pending decision-log records to the server; returns how many were sent. In
    managed mode (as root): every user's log in root's spool, each by a child process that
    runs as that user."""
    current = _require_login()
    if anchors.present():
        return _upload_spool(current, timeout)
    return _upload_own(current, timeout)


def _upload_own(current: Login, timeout: float) -> int:
    from hookgate import decisionlog

    url = _endpoint(current.server, "/v1/decisions")

    def post(records: list[dict]) -> dict:
        _, _, answer = http_json(
            "POST", url, current.token, body={"decisions": records}, timeout=timeout
        )
        if not isinstance(answer, dict):
            raise SyncError(f"POST {url}: expected a JSON object")
        return answer

    return decisionlog.upload(post)


def _upload_spool(current: Login, timeout: float) -> int:
    """Upload each user's log in root's spool (``<spool>/<uid>``, a directory that uid owns).

    Never as root in a directory another user owns: a link planted there would turn root's
    writes (the cursor, the sealed segments) onto any file. A child process takes the user's
    uid and uploads as that user would, with the token it inherited in memory; a process whose
    uid changed from root is not dumpable, so the user cannot read the token out of it. The
    users' decisions are counted by the server; here only those each child reports."""
    spool = anchors.spool_dir()
    os.makedirs(spool, mode=0o1733, exist_ok=True)
    os.chmod(spool, 0o1733, follow_symlinks=False)
    st = os.lstat(spool)
    if st.st_mode & 0o170000 != 0o040000 or st.st_uid != anchors.ROOT_UID:
        raise SyncError(f"{spool}: not root's directory; no decision log uploaded")
    total = 0
    failures = []
    for name in sorted(os.listdir(spool)):
        path = os.path.join(spool, name)
        st = os.lstat(path)
        if not name.isdigit() or int(name) != st.st_uid or st.st_mode & 0o170000 != 0o040000:
            _error("upload", f"{path}: not a directory of uid {name}'s; skipped")
            continue
        if st.st_uid == anchors.ROOT_UID:
            total += _upload_own(current, timeout)
            continue
        sent, problem = _upload_as(st.st_uid, st.st_gid, current, timeout)
        total += sent
        if problem:
            failures.append(f"uid {st.st_uid}: {problem}")
    if failures:
        raise SyncError("; ".join(failures))
    return total


def _upload_as(uid: int, gid: int, current: Login, timeout: float) -> tuple[int, str | None]:
    """``_upload_own`` in a child process running as ``uid``: (records sent, error or None)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        code = 1
        try:
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            try:
                answer = {"sent": _upload_own(current, timeout)}
            except (SyncError, OSError, ValueError) as exc:
                answer = {"sent": 0, "error": str(exc)}
            os.write(write, jsonio.dumps(answer).encode("ascii"))
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        raw = pipe.read(65536)
    _, status = os.waitpid(pid, 0)
    try:
        answer = jsonio.loads(raw.decode("ascii"))
        return int(answer["sent"]), answer.get("error")
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return 0, f"the upload as uid {uid} failed (status {status})"


def _encode(document: dict) -> bytes:
    return jsonio.dumps(document, ensure_ascii=False, sort_keys=True).encode("utf-8")


def _error(kind: str, message: str) -> None:
    from hookgate import telemetry

    telemetry.record("error", kind="fault", source=kind, message=message)
