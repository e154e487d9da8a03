"""What a managed install puts beside the hooks so that it works from the first call and stays
checked: root's API token, the pull's systemd units (and the cron line for machines without
systemd), the first root pull, and a checksum manifest of the code in the prefix.

- The token is copied into ``/etc/hookgate/token`` (root, 0600): the file the administrator
  gave may be anywhere (a provisioning tool's drop), and the pull must not depend on it staying.
- ``deploy/``'s units ship in the package (``hookgate.deploy``); the install writes them under
  ``/etc/systemd/system`` with the prefix it installed to, and enables the timer the way
  ``systemctl enable`` does (the ``timers.target.wants`` link), which also holds in a staging
  root that boots later. Where systemd is running it is started at once; where it is not, the
  exact commands are printed. The cron line goes to ``/etc/hookgate/hookgate-pull.cron`` for a
  machine without systemd to copy into ``/etc/cron.d``.
- The checksum manifest (``/etc/hookgate/checksums.json``) is every file under the prefix with
  its SHA-256 (a link with its target), written at install; ``doctor`` compares the prefix with
  it, as root or as the agent's user. Never on the hook's path: a hook reads no more than it
  did.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess

from hookgate.integrations.managed import PREFIX, Change, ManagedError, staged

TOKEN_FILE = "/etc/hookgate/token"
CHECKSUMS = "/etc/hookgate/checksums.json"
CRON_COPY = "/etc/hookgate/hookgate-pull.cron"
UNIT_DIR = "/etc/systemd/system"
TIMER = "hookgate-pull.timer"
TIMER_LINK = f"{UNIT_DIR}/timers.target.wants/{TIMER}"
ROOT_HOME = "/var/lib/hookgate/root-home"  # root's own hookgate files, as the units set it
MAX_TOKEN_BYTES = 64 * 1024


def token_change(source: str) -> Change:
    """``/etc/hookgate/token`` (root, 0600) holding the token read from ``source``: one line,
    not empty. ``ManagedError`` naming the file otherwise."""
    from hookgate.files import UnsafeFile, read_file

    try:
        raw = read_file(os.path.abspath(source), MAX_TOKEN_BYTES)
    except UnsafeFile as exc:
        raise ManagedError(f"--token-file {source}: {exc.why}") from None
    if raw is None:
        raise ManagedError(f"--token-file {source}: no such file")
    token = raw.strip()
    if not token or b"\n" in token or b"\r" in token:
        raise ManagedError(f"--token-file {source}: expected one line holding the API token")
    return Change(TOKEN_FILE, token + b"\n", 0o600, f"root's API token (copied from {source})")


def deploy_changes(prefix: str) -> list[Change]:
    """The pull's systemd units and cron line, naming ``prefix``'s interpreter."""
    from importlib.resources import files

    shipped = files("hookgate.deploy")
    out = []
    for name, target, what in (
        ("hookgate-pull.service", f"{UNIT_DIR}/hookgate-pull.service", "root's pull"),
        ("hookgate-pull.timer", f"{UNIT_DIR}/{TIMER}", "root's pull every five minutes"),
        ("hookgate-pull.cron", CRON_COPY, "the same for cron: copy to /etc/cron.d/"),
    ):
        text = shipped.joinpath(name).read_text(encoding="utf-8")
        if prefix.rstrip("/") != PREFIX:
            text = text.replace(PREFIX + "/", prefix.rstrip("/") + "/")
        out.append(Change(target, text.encode("utf-8"), 0o644, what))
    return out


def enable_timer(root: str) -> bool:
    """What ``systemctl enable hookgate-pull.timer`` does, done under ``root``: the
    ``timers.target.wants`` link. Whether it was made now."""
    link = staged(root, TIMER_LINK)
    if os.path.islink(link) and os.readlink(link) == f"{UNIT_DIR}/{TIMER}":
        return False
    os.makedirs(os.path.dirname(link), mode=0o755, exist_ok=True)
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(f"{UNIT_DIR}/{TIMER}", link)
    return True


def disable_timer(root: str) -> None:
    link = staged(root, TIMER_LINK)
    if os.path.islink(link):
        os.unlink(link)
        try:
            os.rmdir(os.path.dirname(link))
        except OSError:
            pass


def systemd_running(root: str) -> bool:
    """Whether this install can start the timer now: the real root, booted with systemd."""
    import shutil

    return (
        root in ("", "/")
        and os.path.isdir("/run/systemd/system")
        and bool(shutil.which("systemctl"))
    )


START_TIMER = ["systemctl", "daemon-reload"], ["systemctl", "start", TIMER]


def start_timer() -> str | None:
    """Reload systemd and start the timer; None, or what failed."""
    for argv in START_TIMER:
        done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=60)
        if done.returncode != 0:
            return f"{' '.join(argv)} exited {done.returncode}: {done.stderr.strip()}"
    return None


def timer_instructions(root: str) -> list[str]:
    """The exact commands for a machine where this install could not start the timer."""
    where = "this staging root" if root not in ("", "/") else "this machine"
    return [
        f"systemd is not running on {where}: {TIMER} is enabled for its next boot with systemd "
        f"({TIMER_LINK}); to start it under systemd now:",
        "  " + " && ".join(" ".join(argv) for argv in START_TIMER),
        "on a machine without systemd, install the cron line instead:",
        f"  install -o root -g root -m 0644 {CRON_COPY} /etc/cron.d/hookgate-pull",
    ]


def pull_argv(prefix: str) -> list[str]:
    """Root's pull, run by the prefix's own interpreter (``-I``: no PYTHON* variable, ``-B``:
    nothing written into the prefix, whose checksums are recorded)."""
    return [os.path.join(prefix, "bin", "python"), "-I", "-B", "-m", "hookgate.cli", "pull"]


def first_pull(prefix: str) -> tuple[int, str]:
    """Run root's first pull as the units run it: ``(exit code, what it printed)``."""
    env = {
        "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": ROOT_HOME,
        "HOOKGATE_HOME": ROOT_HOME,
    }
    try:
        done = subprocess.run(
            pull_argv(prefix), capture_output=True, text=True, env=env, check=False, timeout=300
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return 127, str(exc)
    return done.returncode, (done.stdout + done.stderr).strip()


# -- the checksum manifest of the prefix -------------------------------------------------------


def checksums(prefix: str, root: str) -> dict[str, str]:
    """Every entry under ``prefix`` (staged under ``root``): a file's ``sha256:<hex>``, a
    link's ``link:<target>``, a directory's ``dir``; anything else by its kind."""
    top = staged(root, prefix)
    found: dict[str, str] = {}
    for directory, dirs, names in os.walk(top):
        dirs.sort()
        for name in sorted(dirs + names):
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, top)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                found[relative] = "link:" + os.readlink(path)
            elif stat.S_ISDIR(info.st_mode):
                found[relative] = "dir"
            elif stat.S_ISREG(info.st_mode):
                digest = hashlib.sha256()
                with open(path, "rb") as handle:
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        digest.update(block)
                found[relative] = "sha256:" + digest.hexdigest()
            else:
                found[relative] = f"special:{stat.S_IFMT(info.st_mode):o}"
    return found


def checksums_change(prefix: str, root: str) -> Change:
    document = {"version": 1, "prefix": prefix, "entries": checksums(prefix, root)}
    text = json.dumps(document, indent=1, sort_keys=True) + "\n"
    return Change(CHECKSUMS, text.encode("utf-8"), 0o644, f"checksums of every file in {prefix}")


def verify(root: str) -> tuple[str, list[str]] | None:
    """``(prefix, differences)`` between the prefix and its recorded checksums (None: no
    manifest). ``ManagedError`` when the manifest cannot be read."""
    path = staged(root, CHECKSUMS)
    try:
        with open(path, "rb") as handle:
            document = json.loads(handle.read())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ManagedError(f"{path}: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get("entries"), dict):
        raise ManagedError(f"{path}: entries: expected an object")
    prefix = document.get("prefix")
    if not isinstance(prefix, str) or not os.path.isabs(prefix):
        raise ManagedError(f"{path}: prefix: expected an absolute path")
    recorded: dict = document["entries"]
    try:
        now = checksums(prefix, root)
    except OSError as exc:
        return prefix, [f"{staged(root, prefix)}: cannot be read ({exc.strerror})"]
    differences = []
    for relative in sorted(set(recorded) | set(now)):
        where = os.path.join(prefix, relative)
        if relative not in now:
            differences.append(f"{where}: removed")
        elif relative not in recorded:
            differences.append(f"{where}: added ({now[relative].partition(':')[0]})")
        elif now[relative] != recorded[relative]:
            differences.append(f"{where}: changed")
    return prefix, differences
