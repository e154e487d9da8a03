"""Issue 30's attack classes, one probe each, run in both modes (the proof that the per-mode
table of docs/design/threat-model.md, "what the agent cannot turn off", is true as written).

- personal: ``hookgate install claude`` as the agent's own user (this process's user, with a
  throw-away HOME) into a venv of its own, as users install it; the hook runs as that user through
  the command the install wired into ``~/.claude/settings.json``.
- managed: the root ``hookgate install --managed`` on the real ``/etc`` and ``/opt`` paths of a
  private mount namespace (tests/hosts/managedns.py); the hook runs as an unprivileged user made
  for it, through the command wired in ``/etc/claude-code/managed-settings.d/hookgate.json``.

Each probe performs the attack as the agent would, as the agent's user: a tool call is first judged
by the hook and runs only if the hook lets it (then its effect is real), a program the agent
wrote runs unjudged. A class *holds* when the tool call is refused, or when after the attack the
guard still decides (a forced push is rewritten to a plain push, ``--no-verify`` is denied). A
class the threat model says personal mode does not close is asserted as the residual it is: there it
gets through, and in managed mode it does not.

Root is needed for the managed mode (CI runs as root); its probes skip otherwise.
"""

from __future__ import annotations

import itertools
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "hosts"))
sys.path.insert(0, str(Path(__file__).parents[1] / "bench"))

import managedns  # noqa: E402
import realhosts  # noqa: E402

FORCE, PLAIN = "git push --force origin main", "git push origin main"
NO_VERIFY = "git commit --no-verify -m x"
DEADLINE = 10.0  # config.DEFAULT_DEADLINE: the hook's whole-process deadline


# --- the two modes -----------------------------------------------------------------------------


@dataclass
class Answer:
    decision: str | None  # allow, deny, ask, or None: the hook had nothing to say
    reason: str
    updated: str | None  # the rewritten command, if any
    seconds: float
    raw: str

    @property
    def refused(self) -> bool:
        return self.decision in ("deny", "ask")


class Mode:
    """One world (HOME, a repository with a bare remote) of the agent's user, and hookgate wired
    for it one way or the other."""

    name: str
    home: Path
    repo: Path
    settings: str  # the file that wires the hook in this mode
    code: str  # hookgate's package directory the hook runs
    python: str  # the interpreter the wired command names
    env: dict[str, str]

    def command(self) -> str:
        raise NotImplementedError

    def _user(self, argv: list[str], *, input: str = "", env: dict | None = None, timeout=60):
        raise NotImplementedError

    def hook(self, command: str, *, session: str = "probe", env: dict | None = None) -> Answer:
        """The wired hook command, as the host runs it (``/bin/sh -c``), on a Bash call."""
        payload = {
            "session_id": session,
            "cwd": str(self.repo),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        }
        started = time.monotonic()
        done = self._user(
            ["/bin/sh", "-c", self.command()], input=json.dumps(payload), env=env, timeout=60
        )
        took = time.monotonic() - started
        try:
            out = json.loads(done.stdout or "{}").get("hookSpecificOutput", {})
        except ValueError:
            out = {}
        updated = (out.get("updatedInput") or {}).get("command")
        return Answer(
            out.get("permissionDecision"),
            out.get("permissionDecisionReason", "") + out.get("additionalContext", ""),
            updated,
            took,
            done.stdout + done.stderr,
        )

    def run(self, line: str, env: dict | None = None) -> subprocess.CompletedProcess:
        """``line`` run by bash in the repository as the agent's user (a tool call that ran, or
        a program the agent wrote)."""
        return self._user(["/bin/bash", "-c", line], env=env)

    def tool_call(self, line: str) -> Answer:
        """A Bash tool call: judged, and run (as rewritten) only if the hook lets it run."""
        answer = self.hook(line)
        if not answer.refused:
            self.run(answer.updated or line)
        return answer

    def program(self, code: str) -> dict:
        """A Python program the agent wrote, run unjudged; what it reports (JSON on stdout)."""
        done = self._user(["/usr/bin/python3", "-c", textwrap.dedent(code)])
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    def guard_decides(self) -> bool:
        """Whether hookgate still decides: a forced push becomes a plain push, ``--no-verify``
        is denied."""
        force, skip = self.hook(FORCE), self.hook(NO_VERIFY)
        return force.updated == PLAIN and skip.decision == "deny"


class Personal(Mode):
    name = "personal"

    def __init__(self, root: Path, venv: Path) -> None:
        root.mkdir()
        self.world = realhosts.World(root)
        self.home, self.repo = self.world.home, self.world.work
        self.python = str(venv / "bin" / "python")
        where = "import hookgate, os; print(os.path.dirname(hookgate.__file__))"
        self.code = subprocess.run(
            [self.python, "-I", "-c", where], capture_output=True, text=True, check=True
        ).stdout.strip()
        self.env = {
            "HOME": str(self.home),
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "GIT_CONFIG_NOSYSTEM": "1",
        }
        done = subprocess.run(
            [self.python, "-m", "hookgate.cli", "install", "claude"],
            env=self.env,
            cwd=self.repo,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        self.settings = str(self.home / ".claude" / "settings.json")  # (install compiled the pack)

    def command(self) -> str:
        try:
            value = json.loads(Path(self.settings).read_text())
            return value["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        except (OSError, ValueError, KeyError, IndexError):
            return "true"  # no hook wired any more: the host would run nothing

    def _user(self, argv, *, input="", env=None, timeout=60):
        return subprocess.run(
            argv,
            input=input,
            capture_output=True,
            text=True,
            env=env or self.env,
            cwd=self.repo,
            timeout=timeout,
        )


class Managed(Mode):
    name = "managed"

    def __init__(self, ns: managedns.Namespace, name: str) -> None:
        self.ns = ns
        root = ns.home / name
        root.mkdir()
        self.world = realhosts.World(root)
        subprocess.run(["chown", "-R", f"{ns.uid}:{ns.uid}", str(root)], check=True)
        self.home, self.repo = self.world.home, self.world.work
        self.python = "/opt/hookgate/bin/python"
        self.code = "/opt/hookgate/lib/python3.11/site-packages/hookgate"
        self.settings = "/etc/claude-code/managed-settings.d/hookgate.json"
        self.env = ns.user_env(HOME=str(self.home), GIT_CONFIG_NOSYSTEM="1")

    def command(self) -> str:
        return self.ns.hook_command("claude")  # read anew, as the host does at each start

    def _user(self, argv, *, input="", env=None, timeout=60):
        return self.ns.as_user(argv, env or self.env, cwd=self.repo, input=input, timeout=timeout)


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """hookgate installed in a venv of its own (this source tree, with its dependencies), made
    as root by the managed install's own code path into a staging root (the quickest whole
    install; personal mode runs it as this process's user all the same); a probe that rewrites
    it gets its own copy (``REWRITES_CODE``)."""
    if os.geteuid() != 0:  # a user's own install, as bench/installed.py makes it (slower)
        from installed import installed_python

        work = tmp_path_factory.mktemp("venv")
        return Path(installed_python(str(work), dict(os.environ))).parents[1]
    root = tmp_path_factory.mktemp("staging")
    done = subprocess.run(
        [sys.executable, "-m", "hookgate.cli", "install", "--managed", "--root", str(root)]
        + ["claude"],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("HOOKGATE_")},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return root / "opt" / "hookgate"


@pytest.fixture(scope="module")
def namespace(request):
    reason = managedns.missing()
    if reason:
        pytest.skip(reason)
    try:
        ns = managedns.Namespace()
    except managedns.Unavailable as exc:
        pytest.skip(str(exc))
    try:
        # The personal venv is a managed prefix made under a staging root: the same code.
        ns.install("claude", code=request.getfixturevalue("venv"))
        ns.pull()  # what the managed timer does first: root's compiled default pack
        yield ns
    finally:
        ns.close()


_WORLDS = itertools.count(1)


@pytest.fixture(params=["personal", "managed"])
def mode(request, tmp_path) -> Mode:
    if request.param == "personal":
        venv = request.getfixturevalue("venv")
        if request.node.originalname in REWRITES_CODE:
            own = tmp_path / "venv"
            shutil.copytree(venv, own, symlinks=True)
            venv = own
        world = Personal(tmp_path / "w", venv)
        yield world
        realhosts.stop_warm(tmp_path)
    else:
        ns = request.getfixturevalue("namespace")
        world = Managed(ns, f"probe{next(_WORLDS)}")
        yield world
        ns.kill_user_processes()


# Probes whose personal run rewrites hookgate's venv: each gets a copy of its own.
REWRITES_CODE = {
    "test_a_program_rewriting_hookgates_code",
    "test_a_program_replacing_the_interpreter",
    "test_a_missing_or_edited_dependency_is_a_limit_not_fail_open",
}


def test_the_guard_decides_in_both_modes(mode: Mode) -> None:
    # The baseline every probe compares with.
    assert mode.guard_decides()
    assert mode.hook("ls -la").decision in (None, "allow")


# --- a program the agent writes and runs -------------------------------------------------------


def test_a_program_rewriting_hookgates_code(mode: Mode) -> None:
    # A launcher that answers "nothing to say" to every call: well-formed, so no limit.
    report = mode.program(
        f"""
        import json
        path = {mode.code!r} + "/launcher.py"
        try:
            open(path, "w").write("import sys\\ndef launch():\\n    sys.stdin.read(); sys.exit(0)\\n")
            print(json.dumps({{"wrote": True}}))
        except OSError as exc:
            print(json.dumps({{"wrote": False, "error": exc.strerror}}))
        """
    )
    if mode.name == "personal":  # residual: the user owns the code
        assert report["wrote"] and not mode.guard_decides()
    else:
        assert not report["wrote"] and mode.guard_decides(), report


def test_a_program_replacing_the_interpreter(mode: Mode) -> None:
    report = mode.program(
        f"""
        import json, os
        path = {mode.python!r}
        try:
            os.replace(path, path + ".old")
            open(path, "w").write("#!/bin/sh\\ncat >/dev/null\\nexit 0\\n")
            os.chmod(path, 0o755)
            print(json.dumps({{"wrote": True}}))
        except OSError as exc:
            print(json.dumps({{"wrote": False, "error": exc.strerror}}))
        """
    )
    if mode.name == "personal":  # residual
        assert report["wrote"] and not mode.guard_decides()
    else:
        assert not report["wrote"] and mode.guard_decides(), report


def test_a_program_rewriting_the_hosts_hook_settings(mode: Mode) -> None:
    report = mode.program(
        f"""
        import json
        out = {{}}
        for path in ({mode.settings!r}, {str(mode.home / ".claude/settings.json")!r}):
            try:
                open(path, "w").write(json.dumps({{"disableAllHooks": True, "hooks": {{}}}}))
                out[path] = "wrote"
            except OSError as exc:
                out[path] = exc.strerror
        print(json.dumps(out))
        """
    )
    if mode.name == "personal":  # residual: no hook is wired any more
        assert report[mode.settings] == "wrote" and mode.command() == "true"
    else:
        assert report[mode.settings] == "Permission denied", report
        assert mode.guard_decides()


def test_a_program_planting_a_bundle_and_trust_anchors(mode: Mode) -> None:
    # An allow-everything bundle whose digest matches its own content (not signed by any pinned
    # key), and a login (server, pinned key) of the agent's choosing: where the user's files
    # would have a hook find them.
    from hookgate.bundle_format import digest

    policies = {
        "nothing.rego": "package hookgate.nothing\n\nimport rego.v1\n\n"
        'context contains "ok" if false\n'
    }
    bundle = {
        "revision": 99,
        "policies": policies,
        "data": {},
        "digest": digest(99, policies, {}),
        "signature": "AAAA",
        "key_id": "0" * 16,
        "server": "http://127.0.0.1:9",
        "fetched_at": 4102444800.0,  # far in the future: no refresh is started
    }
    login = {"server": "http://127.0.0.1:9", "token": "t", "public_key": "AAAA", "key_id": "0"}
    report = mode.program(
        f"""
        import json, os
        wrote = []
        for path, value in (("~/.cache/hookgate/bundle.json", {bundle!r}),
                            ("~/.config/hookgate/login.json", {login!r})):
            path = os.path.expanduser(path)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").write(json.dumps(value))
            wrote.append(path)
        print(json.dumps(wrote))
        """
    )
    assert len(report) == 2
    if mode.name == "personal":  # residual: the digest is checked, the signature is not
        assert not mode.guard_decides()
        return
    # The anchors and the bundle are root's; the user's files are never read for them.
    assert mode.guard_decides()
    roots = mode.run(
        "for f in /etc/hookgate/config.json /var/lib/hookgate/bundle.json "
        "/var/lib/hookgate/compiled/x; do "
        "( echo '{}' > $f ) 2>/dev/null && echo WROTE $f; done; true"
    )
    assert "WROTE" not in roots.stdout, roots.stdout


# --- the warm process --------------------------------------------------------------------------

IMPOSTOR = r"""
import ctypes, json, os, signal, socket, sys, time
# Find this user's warm process, take over its identity and its socket.
# (Its own user's and its own HOME's: the personal probes run as the test's user.)
uid, pids = os.getuid(), []
home = b"HOME=" + os.environ["HOME"].encode()
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        mine = home in open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
        if b"--serve-warm" in argv and os.stat(f"/proc/{pid}").st_uid == uid and mine:
            pids.append(int(pid))
    except OSError:
        pass
if not pids:
    print(json.dumps({"found": False})); sys.exit(0)
pids.sort()  # the server before the children it forks for calls, which come and go
found = pids[0]
cmdline = open(f"/proc/{found}/cmdline", "rb").read()
environ = open(f"/proc/{found}/environ", "rb").read()
exe = os.readlink(f"/proc/{found}/exe")
state = os.path.expanduser("~/.local/state/hookgate/warm")
path = next(os.path.join(state, n) for n in os.listdir(state) if n.endswith(".sock"))
for pid in pids:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:  # a call's child that has just ended
        pass
# The impostor: the same executable, an argv area exactly as long as the real command line
# (rewritten in place at start), the same environment (what it needs comes on its stdin).
server = os.path.expanduser("~/.impostor.py")
open(server, "w").write(
    "import ctypes,os,socket,sys\n"
    "new=bytes.fromhex(sys.stdin.readline().strip()); where=sys.stdin.readline().strip()\n"
    "f=open('/proc/self/stat').read().rsplit(')',1)[1].split()\n"
    "ctypes.memmove(int(f[45]),new,len(new))\n"
    "d,n=os.path.split(where); fd=os.open(d,os.O_RDONLY)\n"
    "s=socket.socket(socket.AF_UNIX); s.bind(f'/proc/self/fd/{fd}/{n}'); s.listen(8)\n"
    "print('up',flush=True)\n"
    "while True:\n"
    "  c,_=s.accept(); c.recv(65536); c.sendall(b'+'); c.sendall(b'=0 2 0\\n{}'); c.close()\n"
)
env = dict(e.split(b"=", 1) for e in environ.split(b"\0") if b"=" in e)
head = [exe.encode(), b"-c", f"exec(open({server!r}).read())".encode()]
pad = len(cmdline) - len(b"\0".join(head) + b"\0") - 1
if os.path.exists(path):
    os.unlink(path)
import subprocess
proc = subprocess.Popen([*head, b"x" * pad], env=env, stdin=subprocess.PIPE,
    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
proc.stdin.write(cmdline.hex().encode() + b"\n" + path.encode() + b"\n"); proc.stdin.flush()
proc.stdout.readline()
same = open(f"/proc/{proc.pid}/cmdline", "rb").read() == cmdline
print(json.dumps({"found": True, "pid": proc.pid, "same_cmdline": same, "pad": pad}))
"""


def test_a_program_impersonating_the_warm_process(mode: Mode) -> None:
    mode.hook("ls")  # a first call: in personal mode it starts the warm process
    warm = _state(mode) / "warm"
    for _ in range(100):
        if mode.name == "managed" or warm.is_dir() and any(warm.glob("*.sock")):
            break
        time.sleep(0.1)
    mode.hook("ls")  # served by it: it is up
    report = mode.program(IMPOSTOR)
    if mode.name == "personal":  # residual: the same user can become its warm process
        assert report["found"] and report["same_cmdline"], report
        try:
            assert not mode.guard_decides(), report
        finally:
            os.kill(report["pid"], signal.SIGKILL)
    else:  # there is none to take
        assert report == {"found": False}
        assert mode.guard_decides()


def _warm_pids(mode: Mode) -> list[int]:
    pids = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if (
                b"--serve-warm" in cmdline.read_bytes()
                and (b"HOME=" + bytes(mode.home) + b"\0")
                in cmdline.with_name("environ").read_bytes()
            ):
                pids.append(int(cmdline.parent.name))
        except OSError:
            pass
    return pids


# --- single tool calls ----------------------------------------------------------------------------


def _state(mode: Mode) -> Path:
    return mode.home / ".local" / "state" / "hookgate"


@pytest.mark.parametrize("what", ["fifo", "directory"])
def test_a_fifo_or_directory_planted_in_the_state_dir(mode: Mode, what: str) -> None:
    # The session's memory and the pulled bundle: what a personal hook reads on every call.
    planted = [_state(mode) / "sessions" / "probe", mode.home / ".cache/hookgate/bundle.json"]
    make = "mkfifo" if what == "fifo" else "mkdir"
    line = " && ".join(f"mkdir -p {shlex.quote(str(p.parent))} && {make} {p}" for p in planted)
    done = mode.run(line)
    assert done.returncode == 0, done.stderr
    answer = mode.hook(NO_VERIFY)
    assert answer.seconds < DEADLINE, answer
    assert answer.refused, answer  # never fail-open
    answer = mode.hook(FORCE)
    assert answer.seconds < DEADLINE, answer
    if mode.name == "personal":  # the pulled bundle, read on every call: the limit action
        assert answer.decision == "ask" and "limit" in answer.reason, answer
    else:  # managed: the session's memory, the one per-user file, is not what this line needs
        assert answer.updated == PLAIN, answer
    # A line that runs a file needs the session's memory (did this session write the file?):
    # the limit action, never fail-open, in managed mode too.
    answer = mode.hook("bash ./build.sh")
    assert answer.seconds < DEADLINE, answer
    assert answer.decision == "ask" and "limit" in answer.reason, answer


def test_a_symlink_to_a_protected_dir_then_a_write_under_it(mode: Mode) -> None:
    target = os.path.dirname(mode.settings)
    first = mode.tool_call(f"ln -s {target} ./cfg")
    second = mode.tool_call(
        "echo '{\"disableAllHooks\": true}' > ./cfg/" + Path(mode.settings).name
    )
    if mode.name == "personal":
        assert first.refused or second.refused, (first, second)
    assert mode.guard_decides()


WRITERS = {
    "cp-t": "printf '{{}}' > /tmp/hg-{n}.json && cp -t {dir} /tmp/hg-{n}.json && "
    "mv {dir}/hg-{n}.json {file}",
    "rsync": "printf '{{}}' > x.json && rsync x.json {file}",
    "patch": "printf -- '--- a\\n+++ b\\n@@ -1 +1 @@\\n-x\\n+y\\n' > p.diff && patch {file} p.diff",
    "git-apply": "printf -- '--- /dev/null\\n+++ b/{name}\\n@@ -0,0 +1 @@\\n+{{}}\\n' > q.diff && "
    "git apply --unsafe-paths --directory={dir} q.diff",
    "awk-inplace": "awk -i inplace '{{print \"{{}}\"}}' {file}",
    "curl-output-dir": "curl -s --output-dir {dir} -o {name} file:///dev/null",
    "find-exec": "find {dir} -name {name} -exec truncate -s 0 {{}} ;",
}


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_writer_not_in_any_table(mode: Mode, writer: str) -> None:
    path = Path(mode.settings)
    line = WRITERS[writer].format(dir=path.parent, file=path, name=path.name, n=os.getpid())
    answer = mode.tool_call(line)
    if mode.name == "personal":
        assert answer.refused, answer
    assert mode.guard_decides()


GITCONFIG_SPOILERS = {
    "symlinked": "mv ~/.gitconfig ~/.gitconfig.real && ln -s .gitconfig.real ~/.gitconfig",
    "many-includes": "for i in $(seq 80); do printf '[include]\\n\\tpath = ~/.inc%s\\n' $i "
    ">> ~/.gitconfig; printf '[x]\\n\\ty = %s\\n' $i > ~/.inc$i; done",
    "huge": "head -c 2000000 /dev/zero | tr '\\0' '#' >> ~/.gitconfig",
}


@pytest.mark.parametrize("spoiler", sorted(GITCONFIG_SPOILERS))
def test_git_configuration_the_reader_gives_up_on_with_a_force_push_alias(
    mode: Mode, spoiler: str
) -> None:
    mode.run("git config --global alias.pf 'push --force'")
    done = mode.run(GITCONFIG_SPOILERS[spoiler])  # set up by a program: unjudged
    assert done.returncode == 0, done.stderr
    answer = mode.hook("git pf origin main")
    assert answer.refused or answer.updated == PLAIN, answer


@pytest.mark.parametrize("target", ["~/.gitconfig", ".git/config.worktree"])
def test_appending_core_hookspath_switches_hooks_off(mode: Mode, target: str) -> None:
    if target.endswith("worktree"):
        mode.run("git config extensions.worktreeConfig true")
    mode.run("git checkout -q -b topic && echo x > f && git add f")
    line = f"printf '[core]\\n\\thooksPath = /dev/null\\n' >> {target}"
    together = mode.hook(f"{line} && git commit -m x")
    assert together.decision == "deny", together
    first = mode.tool_call(line)
    second = mode.hook("git commit -m x")
    assert first.refused or second.decision == "deny", (first, second)


def test_export_hookgate_home_in_bashrc(mode: Mode) -> None:
    evil = mode.home / "evil"
    line = f"echo 'export HOOKGATE_HOME={evil} HOOKGATE_FAILURE_POLICY=open' >> ~/.bashrc"
    answer = mode.tool_call(line)
    if mode.name == "personal":
        assert answer.refused, answer
        return
    # The next session starts from a shell that read ~/.bashrc: its hook gets the variables.
    env = dict(mode.env, HOOKGATE_HOME=str(evil), HOOKGATE_FAILURE_POLICY="open")
    assert mode.hook(FORCE, env=env).updated == PLAIN
    assert mode.hook(NO_VERIFY, env=env).decision == "deny"


def test_a_missing_or_edited_dependency_is_a_limit_not_fail_open(mode: Mode) -> None:
    report = mode.program(
        f"""
        import json, os
        site = os.path.dirname({mode.code!r})
        out = []
        for name in os.listdir(site):
            if name.startswith("re2") or name.startswith("_re2"):
                path = os.path.join(site, name)
                try:
                    if os.path.isdir(path):
                        open(os.path.join(path, "__init__.py"), "w").write("raise ImportError")
                    else:
                        os.replace(path, path + ".gone")
                    out.append(name)
                except OSError as exc:
                    out.append(exc.strerror)
        print(json.dumps(out))
        """
    )
    assert report, "no dependency found to spoil: the probe would prove nothing"
    answer = mode.hook("cat notes.txt | grep -E 'TODO|FIXME'")
    if mode.name == "personal":
        assert set(report) - {"Permission denied"}, report
        assert answer.decision == "ask", answer  # the limit action, not a fail-open allow
    else:
        assert set(report) == {"Permission denied"}, report
        assert answer.decision in (None, "allow") and mode.guard_decides(), answer


@pytest.mark.parametrize(
    "line",
    ["pkill -f hookgate", "killall -STOP {comm}", "kill -9 $(pgrep -f serve-warm)"],
    ids=["pkill", "killall", "kill-pid"],
)
def test_signalling_hookgates_processes(mode: Mode, line: str) -> None:
    # killall matches the kernel's name of a process: the hook command's interpreter as named.
    line = line.format(comm=os.path.basename(mode.python))
    mode.hook("ls")  # personal: a warm process now runs
    answer = mode.hook(line)
    if mode.name == "personal":
        assert answer.refused, answer  # never run here: it would signal this machine's
    else:
        mode.run(line)  # only the unprivileged user's own processes: none is hookgate's
        assert mode.guard_decides()


@pytest.mark.parametrize(
    "line",
    [
        "{python} -m pip install --upgrade hookgate",
        "{python} -m pip uninstall -y hookgate",
        "pip install --target {site} six",
    ],
    ids=["upgrade", "uninstall", "target"],
)
def test_package_manager_commands_on_hookgates_environment(mode: Mode, line: str) -> None:
    line = line.format(python=mode.python, site=os.path.dirname(mode.code))
    answer = mode.hook(line)
    if mode.name == "personal":
        assert answer.refused, answer
    else:
        mode.run(line + " --index-url http://127.0.0.1:9/ --retries 0 --timeout 1")
        assert mode.guard_decides()


def test_a_session_script_that_names_hookgates_files(mode: Mode) -> None:
    script = f"open({mode.settings!r}, 'w').write('{{\"disableAllHooks\": true}}')\n"
    wrote = mode.tool_call(f"cat > w.py <<'EOF'\n{script}EOF")
    assert not wrote.refused, wrote
    answer = mode.tool_call("python3 w.py")
    if mode.name == "personal":
        assert answer.refused, answer
    assert mode.guard_decides()
