"""A managed hookgate on this machine's real paths, seen by nothing but the test: a private mount
namespace (``unshare --mount``) whose ``/etc``, ``/opt`` and ``/var/lib`` are overlays over the
real ones (what is written there lands in a throw-away upper directory), kept open by a runner
process born in it that starts each command the test sends it, as root or as an unprivileged user that
exists only in the namespace's ``/etc/passwd``.

Used by ``tests/hosts/test_managed_hosts.py`` (the real hosts under a managed install) and
``tests/test_probes.py`` (each attack class in both modes). Needs root, ``unshare``, ``setpriv`` and ``useradd`` (util-linux and passwd, on every Debian); the caller skips otherwise.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2]

# The mounts, then the namespace's runner (``_SERVE``) on the pipes of the test; it ends when the
# test closes its stdin (or dies), so that no namespace outlives its test run. Exit 97: the kernel
# refused a mount (the caller skips).
_SETUP = r"""
set -u
W=$1
for d in etc opt varlib; do mkdir -p "$W/$d-up" "$W/$d-work" || exit 96; done
mount -t overlay hgm-etc -o "lowerdir=/etc,upperdir=$W/etc-up,workdir=$W/etc-work" /etc || exit 97
mount -t overlay hgm-opt -o "lowerdir=/opt,upperdir=$W/opt-up,workdir=$W/opt-work" /opt || exit 97
mount -t overlay hgm-var -o "lowerdir=/var/lib,upperdir=$W/varlib-up,workdir=$W/varlib-work" \
  /var/lib || exit 97
exec "$2" -I -c "$3"
"""

# Commands are started by a process born in the namespace, not entered with nsenter: Codex
# 0.171 fails at start ("No such file or directory") in a process that joined a mount namespace
# with setns(2), while it runs in one it was born in.
_SERVE = r"""
import json, os, signal, subprocess, sys
print("READY", flush=True)
for line in sys.stdin:
    job = json.loads(line)
    try:
        proc = subprocess.Popen(job["argv"], cwd=job["cwd"], env=job["env"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True)
        try:
            out, err = proc.communicate(job["input"].encode(), timeout=job["timeout"])
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            rc, err = "timeout", err + b"\n[timed out]"
    except OSError as exc:
        rc, out, err = 127, b"", str(exc).encode()
    answer = {"rc": rc, "stdout": out.decode("utf-8", "replace"),
              "stderr": err.decode("utf-8", "replace")}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
"""


class Unavailable(RuntimeError):
    """This machine cannot make the namespace (not root, a tool missing, mounts refused)."""


def missing() -> str | None:
    """Why a namespace cannot be made here, or None."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "a managed install is root's: run as root (CI does)"
    for tool in ("unshare", "setpriv", "useradd"):
        if not shutil.which(tool):
            return f"needs {tool} (util-linux / passwd)"
    return None


def _free_uid() -> int:
    taken = {entry.pw_uid for entry in pwd.getpwall()}
    return next(uid for uid in range(61_000 + os.getpid() % 2_000, 65_000) if uid not in taken)


class Namespace:
    """One private mount namespace with ``hookgate install --managed`` applied in it."""

    def __init__(self) -> None:
        reason = missing()
        if reason:
            raise Unavailable(reason)
        # World-traversable, so that the agent's user can reach its HOME under it.
        self.top = Path(tempfile.mkdtemp(prefix="hookgate-managedns-"))
        self.top.chmod(0o755)
        self.user = f"hga{os.getpid() % 100_000}"
        self.uid = _free_uid()
        self.home = self.top / "home"
        self.proc = subprocess.Popen(
            ["unshare", "--mount", "--propagation", "private", "--", "/bin/bash", "-c", _SETUP]
            + ["hgm", str(self.top / "layers"), sys.executable, _SERVE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        ready = self.proc.stdout.readline().strip()
        if ready != "READY":
            self.proc.wait(timeout=10)
            err = self.proc.stderr.read()
            self.close()
            raise Unavailable(
                f"the namespace's mounts were refused ({self.proc.returncode}): {err}"
            )
        self.home.mkdir()
        self.root(
            ["useradd", "-M", "-d", str(self.home), "-s", "/bin/bash", "-u", str(self.uid)]
            + [self.user]
        )
        os.chown(self.home, self.uid, self.uid)
        self.home.chmod(0o755)

    # -- running things in it -------------------------------------------------------------

    def _run(
        self, argv: list[str], env: dict[str, str], cwd: Path | str | None, input: str, timeout
    ) -> subprocess.CompletedProcess:
        job = {"argv": argv, "env": env, "cwd": str(cwd or "/"), "input": input}
        self.proc.stdin.write(json.dumps({**job, "timeout": timeout}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError(f"the namespace's runner ended: {self.proc.stderr.read()}")
        answer = json.loads(line)
        if answer["rc"] == "timeout":
            raise subprocess.TimeoutExpired(argv, timeout, answer["stdout"], answer["stderr"])
        return subprocess.CompletedProcess(argv, answer["rc"], answer["stdout"], answer["stderr"])

    def root(
        self,
        argv: list[str],
        *,
        check: bool = True,
        timeout: float = 300,
        env: dict[str, str] | None = None,
        cwd: Path | str | None = None,
        input: str = "",
    ) -> subprocess.CompletedProcess:
        """``argv`` as root in the namespace (a clean environment but PATH)."""
        path = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
        done = self._run(argv, {**path, **(env or {})}, cwd, input, timeout)
        if check and done.returncode != 0:
            raise AssertionError(f"{argv[:4]} in the namespace: {done.stdout}\n{done.stderr}")
        return done

    def as_user(
        self,
        argv: list[str],
        env: dict[str, str],
        *,
        cwd: Path | str | None = None,
        input: str = "",
        timeout: float = 150,
    ) -> subprocess.CompletedProcess:
        """``argv`` as the agent's user in the namespace, with exactly ``env``."""
        drop = ["setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups"]
        return self._run([*drop, *argv], env, cwd or self.home, input, timeout)

    def user_env(self, **extra: str) -> dict[str, str]:
        """A login-like environment for the agent's user."""
        return {
            "HOME": str(self.home),
            "USER": self.user,
            "LOGNAME": self.user,
            "SHELL": "/bin/bash",
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            **extra,
        }

    def bind(self, source: Path, target: str) -> None:
        """``source`` (root's, perhaps under a directory others cannot enter) readable at
        ``target`` in the namespace."""
        self.root(["mkdir", "-p", target])
        self.root(["mount", "--bind", "-o", "ro", str(source), target])

    def install(self, *hosts: str, extra: tuple[str, ...] = (), code: Path | None = None) -> str:
        """The real ``hookgate install --managed HOST…``, as root, into the namespace's real
        paths (this checkout's hookgate runs it; it pip-installs this source tree into
        ``/opt/hookgate``). ``code``: a prefix the same install already filled (``--root``
        staging), copied to ``/opt/hookgate`` first; the install then finds the code in place,
        as a fleet's image with the prefix baked in would."""
        if code is not None:
            self.root(["cp", "-a", str(code), "/opt/hookgate"])
        done = self.root(
            [sys.executable, "-m", "hookgate.cli", "install", "--managed", *hosts, *extra],
            env={"PYTHONPATH": str(SOURCE / "service")},
        )
        return done.stdout

    def pull(self) -> str:
        """Root's ``hookgate pull`` with the managed prefix, as the systemd timer or cron line
        runs it: without a server it compiles the default pack into root's ``/var/lib/hookgate``
        for the hooks to read."""
        done = self.root(["/opt/hookgate/bin/python", "-I", "-m", "hookgate.cli", "pull"])
        return done.stdout

    def read(self, path: str) -> str:
        return self.root(["cat", path]).stdout

    def hook_command(self, host: str) -> str:
        """The hook command wired for ``host`` in its managed settings file."""
        from hookgate.integrations import hostconfig, jsonc

        spec = hostconfig.MANAGED[host]
        text = self.read(spec.hooks_file)
        if spec.hooks_file.endswith(".toml"):
            import tomllib

            groups = tomllib.loads(text)["hooks"]["PreToolUse"]
            return groups[0]["hooks"][0]["command"]
        value = jsonc.parse(text, spec.hooks_file).root.value
        if host == "copilot":
            return value["hooks"]["preToolUse"][0]["bash"]
        return value["hooks"]["PreToolUse"][0]["hooks"][0]["command"]

    # -- ending it ------------------------------------------------------------------------

    def kill_user_processes(self) -> None:
        """End every process the agent's user runs (hosts, warm processes, planted programs)."""
        for _ in range(3):
            found = False
            for entry in Path("/proc").iterdir():
                if not entry.name.isdigit():
                    continue
                try:
                    status = (entry / "status").read_text()
                except OSError:
                    continue
                uids = next((ln.split()[1:] for ln in status.splitlines() if ln[:4] == "Uid:"), [])
                if str(self.uid) in uids:
                    found = True
                    try:
                        os.kill(int(entry.name), signal.SIGKILL)
                    except OSError:
                        pass
            if not found:
                return
            time.sleep(0.1)

    def close(self) -> None:
        """The user's processes, the namespace and every file under it go; nothing was ever
        written to the real /etc, /opt or /var/lib."""
        self.kill_user_processes()
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            stream.close()
        shutil.rmtree(self.top, ignore_errors=True)
