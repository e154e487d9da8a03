"""The real hosts under a managed install, run as an unprivileged user (issue 30, the proof).

Root runs the real ``hookgate install --managed --managed-only claude codex copilot`` into the real ``/etc`` and
``/opt`` paths of a private mount namespace (``managedns``: overlays nothing outside the test
sees; the agent's user exists only in the namespace's ``/etc/passwd``). Each host then runs as that
user against the scripted model, as in test_real_hosts.py, three times before and three times
after a turn whose model runs ``python3 tamper.py``: a same-user program (tests/data/probes/) that
rewrites the user's and the project's host settings (``disableAllHooks``, ``[features] hooks =
false``, ``disabledHooks``, the user ``env`` block, a user hook that answers every call with the
push forced again), ``HOOKGATE_HOME``/``XDG_*``/``PYTHONPATH``/
``PATH`` lines in every start-up file (each session below is started from a login shell, so they
reach the host and the hook), a fake hookgate on PATH, PYTHONPATH and in a user-owned venv, the
user's hookgate caches, login.json and keys, and tries root's files. The bypasses MANAGED.md found
take effect at the next start: every turn is a new session. The decisions after the tampering
must be the ones before it (a forced push runs as a plain push, ``--no-verify`` is denied, an
ordinary command runs).

Gemini CLI, which the managed install does not claim (``NOT ENFORCEABLE``; MANAGED.md: a user
or workspace ``hooksConfig.disabled`` entry turns its system hook off), runs too: the test
asserts the residual docs/design/threat-model.md names, so that the promise table stays honest.
Runs with the real-host stage (HOOKGATE_REAL_HOSTS=1, CI) and as root; skipped otherwise.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import managedns
import pytest
import realhosts
from realhosts import World
from scripted_model import Model

HOSTS = ("claude", "codex", "copilot")
TAMPER = Path(__file__).resolve().parents[1] / "data" / "probes" / "tamper.py"
HOSTS_DIR = "/opt/hookgate-hosts"  # the host cache, bound read-only into the namespace
_SPENT: dict[str, float] = {}


@pytest.fixture(scope="module")
def ns():
    reason = managedns.missing()
    if reason:
        pytest.skip(reason)
    started = time.monotonic()
    try:
        space = managedns.Namespace()
    except managedns.Unavailable as exc:
        pytest.skip(str(exc))
    try:
        # --managed-only: without it the hosts also run user hooks after hookgate's, and a user
        # hook the tamper program adds can put back what hookgate's rewrite took out.
        out = space.install(*HOSTS, "gemini", extra=("--managed-only",))
        assert "NOT ENFORCEABLE: gemini" in out, out
        assert "wrote /etc/codex/requirements.toml" in out, out
        space.pull()  # what the managed timer does first: root's compiled default pack
        # The cache lives under root's HOME, which the agent's user cannot enter.
        space.bind(realhosts.CACHE, HOSTS_DIR)
        _SPENT["namespace and install"] = time.monotonic() - started
        yield space
    finally:
        space.close()


class ManagedAgent:
    """One host, as the agent's user, in its own world inside the namespace."""

    def __init__(self, ns: managedns.Namespace, host: str, binary: Path, model: Model) -> None:
        self.ns, self.host, self.model = ns, host, model
        self.binary = Path(HOSTS_DIR) / binary.relative_to(realhosts.CACHE)
        root = ns.home / host
        root.mkdir()
        self.world = World(root)
        env = realhosts.configure(self.world, host, model.url)
        if host == "copilot":
            # Copilot unpacks itself into its cache directory on a first start: the user's own.
            cache = Path(env["XDG_CACHE_HOME"])
            mine = self.world.home / ".cache"
            for name in ("copilot", "Microsoft"):
                if (cache / name).exists():
                    shutil.copytree(cache / name, mine / name, symlinks=True)
            env["XDG_CACHE_HOME"] = str(mine)
        # What a login shell gives the host: its start-up files are read (see _launch).
        self.env = {k: v for k, v in env.items() if not k.startswith("HOOKGATE_")}
        self.env.update(USER=ns.user, LOGNAME=ns.user, SHELL="/bin/bash")
        shutil.copy(TAMPER, self.world.work / "tamper.py")
        self.root = root
        diverge(self.world)  # as root, before the world becomes the user's
        self.chown()
        # The test reads the user's repositories as root.
        self.world.env.update(
            GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="safe.directory", GIT_CONFIG_VALUE_0="*"
        )

    def chown(self) -> None:
        """The world is the user's again after the test changed it as root (git objects too)."""
        subprocess.run(["chown", "-R", f"{self.ns.uid}:{self.ns.uid}", str(self.root)], check=True)

    def run(self, command: str) -> str:
        """A new session of the host whose model runs ``command``; what the model saw after."""
        self.model.reset(command)
        started = time.monotonic()
        # Started as a user's terminal starts it: after ~/.profile and ~/.bashrc.
        launch = 'for f in ~/.profile ~/.bashrc; do [ -f "$f" ] && . "$f"; done; exec "$@"'
        argv = ["/bin/bash", "-c", launch, "host", *realhosts.turn_argv(self.host, self.binary)]
        turn = self.ns.as_user(argv, self.env, cwd=self.world.work, input="", timeout=150)
        _SPENT[self.host] = _SPENT.get(self.host, 0.0) + time.monotonic() - started
        assert self.model.shell_calls() >= 1, (
            f"{self.host} never offered the model its shell tool:\n{turn.stdout[-2000:]}\n"
            f"{turn.stderr[-2000:]}"
        )
        return self.model.seen_after_tool()

    def decisions(self, n: int) -> dict[str, object]:
        """The three commands of the proof, each in a new session, and what each did."""
        world = self.world
        seen = self.run("git push --force origin main")
        pushed = {"remote main": world.remote_log()[0], "push refused": "rejected" in seen}
        (world.work / f"f{n}.txt").write_text("x\n")
        world.git("add", f"f{n}.txt")
        self.chown()
        before = world.head()
        seen = self.run("git commit --no-verify -m x")
        verify = {"committed": world.head() != before, "told": "pack=no-verify" in seen}
        world.git("reset", "-q", f"f{n}.txt")
        self.chown()
        seen = self.run(f"printf 'ordinary-%s\\n' {n} > out{n}.txt && cat out{n}.txt")
        out = world.work / f"out{n}.txt"
        ordinary = {
            "ran": out.exists()
            and out.read_text() == f"ordinary-{n}\n"
            and f"ordinary-{n}" in seen,
            "hookgate spoke": "pack=" in seen,
        }
        return {"force push": pushed, "--no-verify": verify, "ordinary": ordinary}


EXPECTED = {
    "force push": {"remote main": "remote-only", "push refused": True},
    "--no-verify": {"committed": False, "told": True},
    "ordinary": {"ran": True, "hookgate spoke": False},
}


def diverge(world: World) -> None:
    world.git("checkout", "-q", "main")
    world.git("commit", "-q", "--allow-empty", "-m", "remote-only")
    world.git("push", "-q", "origin", "main")
    world.git("reset", "-q", "--hard", "HEAD~1")
    world.git("commit", "-q", "--allow-empty", "-m", "local-work")


@pytest.mark.parametrize("host", HOSTS)
def test_a_same_user_program_that_rewrites_everything_changes_no_decision(
    ns: managedns.Namespace, host: str, host_binaries: dict[str, Path], model: Model
) -> None:
    agent = ManagedAgent(ns, host, host_binaries[host], model)
    before = agent.decisions(1)
    assert before == EXPECTED, before

    seen = agent.run("python3 tamper.py")
    report = json.loads((agent.world.home / "tamper-report.json").read_text())
    assert "tampered: wrote" in seen
    home = str(agent.world.home)
    for must in (
        f"{home}/.claude/settings.json",
        f"{home}/.copilot/settings.json",
        f"{home}/.codex/config.toml",
        f"{home}/.bashrc",
        f"{home}/.local/share/hookgate/login.json",
        f"{home}/fake/py/hookgate/launcher.py",
    ):
        assert must in report["wrote"], (must, report)
    assert not any(p.startswith(("/etc", "/opt")) for p in report["wrote"]), report
    assert len(report["refused"]) >= 6, report  # every root file, written and moved

    after = agent.decisions(2)
    assert after == before, {"before": before, "after": after}


def test_gemini_is_not_enforced_as_install_and_the_readme_say(
    ns: managedns.Namespace, host_binaries: dict[str, Path], model: Model
) -> None:
    # The residual the threat model names: the managed hook runs, but the same program's
    # hooksConfig.disabled entry in the user's settings turns it off at Gemini's next start.
    agent = ManagedAgent(ns, "gemini", host_binaries["gemini"], model)
    assert agent.decisions(1) == EXPECTED
    agent.run("python3 tamper.py")
    after = agent.decisions(2)
    assert after["force push"] == {"remote main": "local-work", "push refused": False}, after
    assert not after["--no-verify"]["told"], after  # hookgate never saw it


def test_the_namespace_left_nothing_behind(ns: managedns.Namespace) -> None:
    # Runs last in this module: the real machine never saw the install or the user.
    assert not os.path.exists("/etc/hookgate/install.json") or _real_install_predates()
    assert subprocess.run(["id", ns.user], capture_output=True).returncode != 0
    print(
        "managed-host stage: "
        + ", ".join(f"{what} {spent:.0f} s" for what, spent in sorted(_SPENT.items()))
    )


def _real_install_predates() -> bool:
    # A machine with a real managed install of its own: not this test's business.
    return os.stat("/etc/hookgate/install.json").st_mtime < time.time() - 3600
