"""The managed install's trust anchors: the root-owned configuration that says which server, which
bundle key, which failure policy and limits this machine's hooks obey, and where root keeps the
verified bundle and its compile cache.

A machine is in managed mode when ``CONFIG`` (``/etc/hookgate/config.json``) exists. Its place
is a constant of the installed package, not a setting: the hook runs as the agent's Unix user,
whose environment reaches the hook's process (a host's ``env`` block, a repository ``.env``), so
a variable naming another place would let the agent point the hook at files it wrote. The
package itself sits in a root-owned prefix (``/opt/hookgate``) in a managed install, so this
constant can only be changed by root; tests relocate it by assigning ``CONFIG`` and ``STATE`` in
the process under test.

The file, its directory and every directory above them must be root's and writable by no one
else (a world-writable directory above its own counts only with the sticky bit, which keeps others from
renaming root's entries, as ``/tmp`` has): otherwise whoever can write them could rewrite the
anchors. A present file that fails that check, or does not parse, is ``AnchorError``: the hook
answers the limit action, never a fail-open allow and never a silent fall back to the user's
files.

The file (JSON object; unknown keys are errors, so a typo is not silently ignored)::

    {"server": "https://hookgate.example.com",     the central server (needed by pull)
     "public_key": "<base64 raw Ed25519 key>",      the pinned bundle key (needed by pull)
     "key_id": "<id>",                              optional; checked against public_key
     "token_file": "/etc/hookgate/token",           the API token, root-only (pull reads it)
     "failure_policy": "closed" | "PreToolUse=closed,PostToolUse=open",
     "limits": {"action": "ask" | "deny"},
     "refresh_interval": 300, "max_bundle_age": 86400}

Foundation layer: imports only ``os``, ``jsonio`` and ``files`` (the hook checks the anchors on every call).
"""

from __future__ import annotations

import os

from hookgate import jsonio
from hookgate.files import UnsafeFile, read_file_stat
from hookgate.records import Frozen, set_field

CONFIG = "/etc/hookgate/config.json"
# What ``install --managed`` recorded: a managed install without a server writes no CONFIG, and
# its hooks must still not read the user's bundle cache, variables or anchors.
INSTALLED = "/etc/hookgate/install.json"
STATE = "/var/lib/hookgate"
TOKEN_FILE = "/etc/hookgate/token"
ROOT_UID = 0
MAX_CONFIG_BYTES = 64 * 1024

_S_IFMT, _S_IFDIR, _S_IFREG, _S_ISVTX = 0o170000, 0o040000, 0o100000, 0o1000
_KEYS = {
    "server": str,
    "public_key": str,
    "key_id": str,
    "token_file": str,
    "failure_policy": str,
    "limits": dict,
    "refresh_interval": (int, float),
    "max_bundle_age": (int, float),
}


class AnchorError(Exception):
    """The managed configuration is present but cannot be trusted or read; the message names
    the file and what is wrong with it."""


class Anchors(Frozen):
    """What the managed configuration says (None: not set there)."""

    __slots__ = (
        "server",
        "public_key",
        "key_id",
        "token_file",
        "failure_policy",
        "limit_action",
        "refresh_interval",
        "max_bundle_age",
    )

    def __init__(self, document: dict) -> None:
        limits = document.get("limits") or {}
        set_field(self, "server", (document.get("server") or "").rstrip("/") or None)
        set_field(self, "public_key", document.get("public_key"))
        set_field(self, "key_id", document.get("key_id"))
        set_field(self, "token_file", document.get("token_file") or TOKEN_FILE)
        set_field(self, "failure_policy", document.get("failure_policy"))
        set_field(self, "limit_action", limits.get("action"))
        set_field(self, "refresh_interval", document.get("refresh_interval"))
        set_field(self, "max_bundle_age", document.get("max_bundle_age"))


def present() -> bool:
    """Whether this machine is in managed mode: the managed configuration exists (as anything,
    a link included: whether it can be trusted is ``load``'s question, never a reason to fall
    back to the user's files), or ``install --managed`` recorded an install."""
    return os.path.lexists(CONFIG) or os.path.lexists(INSTALLED)


_loaded: list = [None, None]  # the stamp of the file last parsed, and its Anchors


def load() -> Anchors | None:
    """The managed configuration, or None in personal mode (no ``CONFIG``). ``AnchorError``
    when it is present but not root's alone, not a regular file, too large or malformed."""
    if not present():
        return None
    if not os.path.lexists(CONFIG):
        # Installed without anchors (no server): the defaults, once the record is root's.
        check_root_owned(INSTALLED, directory=False)
        return Anchors({})
    check_root_owned(CONFIG, directory=False)
    try:
        found = read_file_stat(CONFIG, MAX_CONFIG_BYTES)
    except UnsafeFile as exc:
        raise AnchorError(f"{CONFIG}: cannot read the managed configuration: {exc.why}") from None
    if found is None:  # removed since present() saw it: still not a reason for personal mode
        raise AnchorError(f"{CONFIG}: removed while read")
    raw, st = found
    _check_stat(CONFIG, st, directory=False)  # the file opened, not only the name checked
    stamp = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    if _loaded[0] == stamp:
        return _loaded[1]
    anchors = Anchors(parse(raw, CONFIG))
    _loaded[:] = stamp, anchors
    return anchors


def parse(raw: bytes, where: str = CONFIG) -> dict:
    """The managed configuration document, checked; ``AnchorError`` naming the field."""
    try:
        document = jsonio.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise AnchorError(f"{where}: not valid JSON: {exc}") from None
    if not isinstance(document, dict):
        raise AnchorError(f"{where}: expected a JSON object")
    for key, value in document.items():
        expected = _KEYS.get(key)
        if expected is None:
            raise AnchorError(f"{where}: {key}: unknown setting")
        if not isinstance(value, expected) or isinstance(value, bool):
            raise AnchorError(f"{where}: {key}: wrong type ({type(value).__name__})")
    limits = document.get("limits", {})
    if set(limits) - {"action"} or limits.get("action", "ask") not in ("ask", "deny"):
        raise AnchorError(f'{where}: limits: expected {{"action": "ask" | "deny"}}')
    for key in ("refresh_interval", "max_bundle_age"):
        if key in document and document[key] <= 0:
            raise AnchorError(f"{where}: {key}: must be a positive number of seconds")
    for key in ("token_file",):
        if key in document and not os.path.isabs(document[key]):
            raise AnchorError(f"{where}: {key}: must be an absolute path")
    return document


def check_root_owned(path: str, *, directory: bool) -> None:
    """``AnchorError`` unless ``path`` (not a link; a directory if ``directory``, else a
    regular file) and every directory above it are root's and writable by no one else (a
    directory above its own may be world-writable with the sticky bit)."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        raise AnchorError(f"{path}: {exc.strerror}") from None
    _check_stat(path, st, directory=directory)
    parent, child, first = os.path.dirname(path), path, True
    while parent != child:
        try:
            st = os.lstat(parent)
        except OSError as exc:
            raise AnchorError(f"{parent}: {exc.strerror}") from None
        if st.st_mode & _S_IFMT != _S_IFDIR:
            raise AnchorError(f"{parent}: not a directory (a link?); {path} cannot be trusted")
        if st.st_uid != ROOT_UID:
            raise AnchorError(f"{parent}: owned by uid {st.st_uid}, not root")
        sticky = not first and st.st_mode & _S_ISVTX and st.st_mode & 0o002
        if st.st_mode & 0o022 and not sticky:
            raise AnchorError(f"{parent}: writable by others, so {path} cannot be trusted")
        child, parent, first = parent, os.path.dirname(parent), False


def _check_stat(path: str, st: os.stat_result, *, directory: bool) -> None:
    kind = _S_IFDIR if directory else _S_IFREG
    if st.st_mode & _S_IFMT != kind:
        what = "directory" if directory else "regular file"
        raise AnchorError(f"{path}: not a {what} (a link, a FIFO…?)")
    if st.st_uid != ROOT_UID:
        raise AnchorError(f"{path}: owned by uid {st.st_uid}, not root")
    if st.st_mode & 0o022:
        raise AnchorError(f"{path}: writable by group or others (mode {st.st_mode & 0o7777:o})")


def root_owned(path: str) -> bool:
    """Whether ``path`` is a regular file root wrote and only root can write, in directories
    only root can change (``check_root_owned``)."""
    try:
        check_root_owned(path, directory=False)
    except AnchorError:
        return False
    return True


def bundle_dir() -> str:
    """Where root's ``hookgate pull`` keeps the verified bundle."""
    return os.path.join(STATE, "bundle")


def compiled_dir() -> str:
    """Where root's ``hookgate pull`` keeps the compiled policies."""
    return os.path.join(STATE, "compiled")


def spool_dir() -> str:
    """Where each user's hook keeps its decision log (``<uid>/``) for root's pull to upload."""
    return os.path.join(STATE, "spool")
