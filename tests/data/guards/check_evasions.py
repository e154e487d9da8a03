"""What each line of ``evasions.json`` really runs, observed with real bash and git.

Every row's command runs under ``bash -c`` in a throw-away sandbox: a home ``/home/u`` holding a
repository ``proj`` on ``main`` (with a ``feature`` branch, a local bare ``origin``, hooks that log
themselves, a staged change) and a second repository ``other`` on a feature branch. It runs in a
private mount namespace (``unshare -m``, needs root) where stand-ins are bind-mounted over
``rm``, ``rmdir``, ``unlink``, ``shred``, ``truncate``, ``find`` and ``tar`` (they log their argv
and do nothing) and over ``git`` (real git with ``GIT_TRACE``, so aliases and ``-c`` settings show
as the built-in command git finally runs), and ``/tmp`` is a private tmpfs. Whatever path reaches
the program (``/bin/r?``, ``env -i``, ``chroot /``, ``su -c``) reaches the stand-in.

The events of a row, in order: ``["git", …argv]`` per built-in git command, ``["rm", …]`` (and
the other stand-ins), ``["hook", name]`` per git hook that ran, and ``["gone", path]`` for the
sandbox paths (home, the project, its ``.git``) that no longer exist afterwards. Sandbox paths
are shown as ``/home/u/…``.

The sandbox is a private mount namespace over the real file system, which it sees read-only: only
the sandbox itself and its private ``/tmp`` can be written. A row whose deleting code is not a
stand-in (``python3 -c "shutil.rmtree('/etc')"``, ``perl -e 'rmtree …'``) fails on anything else,
and still says ``not_run`` when what it would do is not what the row shows. Before the file
system was read-only, running such rows deleted this machine's real ``/etc`` twice.

    python tests/data/guards/check_evasions.py           # compare with each row's "runs"
    python tests/data/guards/check_evasions.py --write   # record what runs into the rows
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

DATA = Path(__file__).with_name("evasions.json")
STAND_INS = ("rm", "rmdir", "unlink", "shred", "truncate", "find", "tar")
# Launchers that would start a container, download a package or are not installed: stand-ins
# first on PATH log the argv bash hands them (what they then run is their documented behaviour,
# which shell analysis models: a bind mount, a package's program, parallel's jobs).
LAUNCHERS = (
    "docker",
    "podman",
    "npx",
    "npm",
    "pnpm",
    "bunx",
    "yarn",
    "nix-shell",
    "parallel",
    "busybox",
    "toybox",
    "pwsh",
    "powershell",
    "nix",
    "watchexec",
    "gosu",
)
REAL_GIT = "/usr/lib/git-core/git"
SENTINELS = ("/home/u", "/home/u/proj", "/home/u/proj/.git", "/home/u/proj/.git/hooks")
HOOK = "/home/u/proj/.git/hooks/pre-commit"
# Sandboxes live on a tmpfs outside /tmp (which each row gets privately) when there is one.
SCRATCH = "/dev/shm" if os.access("/dev/shm", os.W_OK) else "/var/tmp"
# Fixed dates: the commits a row makes (commit-tree) get the same id on every run.
DATES = {"GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z"}
MARK = "@@"
SEP = "\x1f"


def available() -> str | None:
    """Why the checker cannot run here, or None."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return "needs root and unshare(1) for a private mount namespace"
    if not os.path.exists(REAL_GIT):
        return f"needs git at {REAL_GIT}"
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    return None if probe.returncode == 0 else "unshare -m is not permitted here"


def _git(cwd: Path, *args: str, env: dict[str, str]) -> None:
    subprocess.run(
        [shutil.which("git") or REAL_GIT, *args], cwd=cwd, env=env, check=True, capture_output=True
    )


def build_template(root: Path) -> None:
    """The sandbox every row starts from: ``root/home/u/{proj,other,remote.git}``."""
    home = root / "home" / "u"
    proj = home / "proj"
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1", **DATES}
    (home).mkdir(parents=True)
    (home / ".gitconfig").write_text("[user]\n\tname = T\n\temail = t@example.com\n")
    _git(home, "init", "-q", "--bare", "-b", "main", "remote.git", env=env)
    for repo, branch in ((proj, "main"), (home / "other", "feature/other")):
        _git(home, "init", "-q", "-b", "main", str(repo), env=env)
        (repo / "src").mkdir()
        (repo / "src" / "app.py").write_text("print('hi')\n")
        _git(repo, "add", ".", env=env)
        _git(repo, "commit", "-q", "-m", "init", env=env)
        if branch != "main":
            _git(repo, "switch", "-q", "-c", branch, env=env)
    _git(proj, "remote", "add", "origin", "../remote.git", env=env)
    _git(proj, "push", "-q", "origin", "main", env=env)
    _git(proj, "switch", "-q", "-c", "feature", env=env)
    (proj / "src" / "feature.py").write_text("x = 1\n")
    _git(proj, "add", ".", env=env)
    _git(proj, "commit", "-q", "-m", "feature", env=env)
    _git(proj, "push", "-q", "origin", "feature", env=env)
    _git(proj, "format-patch", "-q", "-1", "-o", ".", env=env)
    for patch in proj.glob("0001-*.patch"):
        patch.rename(proj / "0001-change.patch")
    _git(proj, "switch", "-q", "main", env=env)
    (proj / "src" / "app.py").write_text("print('changed')\n")
    _git(proj, "add", "src/app.py", env=env)
    hooks = proj / ".git" / "hooks"
    for sample in hooks.glob("*.sample"):
        sample.unlink()
    for hook in ("pre-commit", "pre-push", "pre-merge-commit", "commit-msg"):
        # hooks run at the top of the work tree: the log is three levels up, beside home/
        (hooks / hook).write_text(
            f"#!/bin/sh\nprintf '{MARK}hook{SEP}{hook}\\n' >> ../../../events.log\nexit 0\n"
        )
        (hooks / hook).chmod(0o755)
    (proj / "build").mkdir()
    (proj / "build" / "out.o").write_text("")


def _stand_ins(root: Path, log: Path) -> None:
    fake = root / "fake"
    fake.mkdir()
    record = f'{{ printf \'{MARK}%s\' "$(basename "$0")"; for a; do printf \'{SEP}%s\' "$a"; done; echo; }} >> {shlex.quote(str(log))}'
    for name in STAND_INS:
        (fake / name).write_text(f"#!/bin/sh\n{record}\nexit 0\n")
    launchers = root / "launchers"
    launchers.mkdir()
    for name in LAUNCHERS:
        (launchers / name).write_text(f"#!/bin/sh\n{record}\nexit 0\n")
        (launchers / name).chmod(0o755)
    # git's own trace names the built-in command an alias or -c setting finally ran; its first
    # "built-in:" line is this process's (git's internal children do not come through here).
    trace = shlex.quote(str(log) + ".git") + ".$$"
    (fake / "git").write_text(
        f'#!/bin/sh\nGIT_TRACE={trace} {REAL_GIT} "$@"\nrc=$?\n'
        f"grep -m1 'trace: built-in: git ' {trace} >> {shlex.quote(str(log))}\nexit $rc\n"
    )
    for path in fake.iterdir():
        path.chmod(0o755)


def run_row(template: Path, command: str) -> list[list[str]]:
    """The events of running ``command`` in a fresh copy of the sandbox."""
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        root = Path(tmp) / "s"
        shutil.copytree(template, root, symlinks=True)
        log = root / "events.log"
        log.touch()
        _stand_ins(root, log)
        home = root / "home" / "u"
        mounts = "".join(
            f"mount --bind {root}/fake/{n} /usr/bin/{n} && " for n in (*STAND_INS, "git")
        )
        # Everything but the sandbox (its own mount) and a fresh /tmp is read-only in the
        # namespace: a row that deletes for real (python3 -c "shutil.rmtree('/etc')") fails
        # there instead of deleting this machine's files. Without that, nothing runs.
        driver = (
            f"{mounts}mount --bind {root} {root} && mount -o remount,bind,ro / && "
            "mount -o remount,bind,ro /dev && "
            f"mount -t tmpfs tmpfs /tmp && cd {home}/proj && "
            'exec timeout 10 bash --norc --noprofile -c "$0" </dev/null'
        )
        env = {
            "HOME": str(home),
            "PATH": f"{root}/launchers:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_EDITOR": "true",
            "LC_ALL": "C",
            **DATES,
        }
        subprocess.run(
            ["unshare", "-m", "--propagation", "private", "sh", "-c", driver, command],
            env=env,
            capture_output=True,
            timeout=30,
        )
        events = _events(log.read_text(errors="replace"), str(root))
        for sentinel in SENTINELS:
            if not os.path.lexists(str(root) + sentinel):
                events.append(["gone", sentinel])
        hook = Path(str(root) + HOOK)
        if not hook.exists():
            events.append(["gone", HOOK])
        elif hook.stat().st_size == 0 or not os.access(hook, os.X_OK):
            events.append(["disabled", HOOK])
        return events


def _events(text: str, root: str) -> list[list[str]]:
    out: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith(MARK):
            out.append(line[len(MARK) :].split(SEP))
        elif "trace: built-in: git " in line:
            out.append(shlex.split(line.split("trace: built-in: ", 1)[1]))
    return [[a.replace(root, "") for a in e] for e in out]


def check(write: bool = False) -> list[str]:
    """Run every row; return the mismatches (or record what ran with ``write``)."""
    rows = json.loads(DATA.read_text())
    problems = []
    todo = [r for r in rows["rows"] if "not_run" not in r]
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        template = Path(tmp) / "template"
        build_template(template)
        with ThreadPoolExecutor(4) as pool:
            ran = list(pool.map(lambda r: run_row(template, r["command"]), todo))
        for r, events in zip(todo, ran, strict=True):
            if write:
                r["runs"] = events
            elif events != r.get("runs"):
                problems.append(
                    f"{r['id']}: {r['command']!r} ran {events}, data says {r.get('runs')}"
                )
    if write:
        DATA.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
    return problems


if __name__ == "__main__":
    why = available()
    if why:
        sys.exit(f"check_evasions: {why}")
    found = check(write="--write" in sys.argv)
    print("\n".join(found) or "every row runs what it says")
    sys.exit(1 if found else 0)
