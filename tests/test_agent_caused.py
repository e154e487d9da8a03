"""A failure the agent can cause is a limit, not a fault (hookgate/deadline.py, files.read_file).

The agent runs as the hook's user: it can plant a FIFO, a link, a directory or a huge file where
hookgate reads one, break a module hookgate imports, or leave the hook blocked. Each is driven
here through the real hook (the ``hookgate`` console script, and the wired launcher command with
the warm process off and on): the answer is the limit action, quickly, never ``{}``.
"""

from __future__ import annotations

import fcntl
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from hookgate import files
from hookgate.integrations import hostconfig

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="FIFOs, flock and the launcher")

ROOT = Path(__file__).parents[1]
HOOKGATE = str(Path(sys.executable).with_name("hookgate"))
DENIED = "git commit --no-verify -m wip"  # the default pack denies it


def payload(command: str, session: str = "s1", event: str = "PreToolUse") -> bytes:
    body = {
        "session_id": session,
        "cwd": "/tmp",
        "hook_event_name": event,
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    return json.dumps(body).encode()


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """hookgate as a wheel installs it, a copy (a test edits its modules), for the wired
    command (``-I -S``: no editable install)."""
    site = tmp_path_factory.mktemp("site")
    shutil.copytree(
        ROOT / "service" / "hookgate",
        site / "hookgate",
        ignore=shutil.ignore_patterns("__pycache__", "server"),
    )
    for name in ("grammar", "policies"):
        (site / "hookgate" / name).symlink_to(ROOT / name)
    return site


def wired(site: Path) -> list[str]:
    dirs = [str(site), sysconfig.get_paths()["purelib"]]
    return [*hostconfig.launcher_argv(sys.executable, dirs), "eval", "--host", "claude"]


@pytest.fixture
def env(tmp_path):
    env = dict(os.environ, HOOKGATE_HOME=str(tmp_path / "home"), HOOKGATE_WARM="off")
    env["HOOKGATE_TELEMETRY"] = str(tmp_path / "telemetry.jsonl")
    for name in ("HOOKGATE_FAILURE_POLICY", "HOOKGATE_LIMIT_ACTION", "HOOKGATE_DEADLINE"):
        env.pop(name, None)
    yield env
    for pid in warm_pids(env):
        os.kill(pid, signal.SIGKILL)


def warm_pids(env: dict) -> list[int]:
    pids = []
    for path in glob.glob(os.path.join(env["HOOKGATE_HOME"], "state", "warm", "*.lock")):
        try:
            pids.append(int((files.read_file(path, 4096) or b"").split()[0]))
        except (OSError, ValueError, IndexError):
            pass
    return [pid for pid in pids if os.path.exists(f"/proc/{pid}")]


def run(argv: list[str], env: dict, body: bytes, timeout: float = 60) -> tuple[dict, float]:
    start = time.monotonic()
    done = subprocess.run(argv, input=body, env=env, capture_output=True, timeout=timeout)
    took = time.monotonic() - start
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout or b"{}"), took


def decision(answer: dict) -> str | None:
    return answer.get("hookSpecificOutput", {}).get("permissionDecision")


def reason(answer: dict) -> str:
    return answer.get("hookSpecificOutput", {}).get("permissionDecisionReason", "")


def state(env: dict) -> Path:
    return Path(env["HOOKGATE_HOME"]) / "state"


def compiled(env: dict) -> Path:
    return Path(env["HOOKGATE_HOME"]) / "cache" / "compiled"


def limit_records(env: dict) -> list[dict]:
    try:
        lines = Path(env["HOOKGATE_TELEMETRY"]).read_text().splitlines()
    except FileNotFoundError:
        return []
    return [r for r in map(json.loads, lines) if r.get("kind") == "limit"]


# --- the helper itself -------------------------------------------------------------------------


def test_read_file_reads_regular_files_and_refuses_everything_else(tmp_path) -> None:
    regular = tmp_path / "f"
    regular.write_bytes(b"abc")
    assert files.read_file(str(regular), 3) == b"abc"
    assert files.read_file(str(tmp_path / "missing"), 3) is None
    assert files.read_file(str(tmp_path / "missing" / "below"), 3) is None
    os.mkfifo(tmp_path / "fifo")  # no writer: a plain open() would wait for ever
    (tmp_path / "dir").mkdir()
    (tmp_path / "link").symlink_to(regular)
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "sock"))
    cases = {
        "fifo": ("type", "a FIFO"),
        "dir": ("type", "a directory"),
        "link": ("link", "symbolic link"),
        "sock": ("type", "socket"),
    }
    for name, (kind, why) in cases.items():
        with pytest.raises(files.UnsafeFile) as caught:
            files.read_file(str(tmp_path / name), 1 << 20)
        assert caught.value.kind == kind and why in caught.value.why, name
    with pytest.raises(files.UnsafeFile) as caught:
        files.read_file(str(regular), 2)
    assert caught.value.kind == "size"
    assert files.read_file(str(tmp_path / "link"), 3, follow=True) == b"abc"
    with pytest.raises(files.UnsafeFile):  # a device: a read that never ends
        files.read_file("/dev/zero", 1 << 20, follow=True)
    server.close()


def test_a_bug_stays_a_fault_and_broken_code_is_agent_caused(tmp_path) -> None:
    assert files.agent_caused(ValueError("a bug")) is None
    assert files.agent_caused(ModuleNotFoundError("No module named 're2'"))[0] == "code"
    module = tmp_path / "edited_module.py"
    module.write_text("raise RuntimeError('edited')\n")
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(RuntimeError) as caught:
            __import__("edited_module")
    finally:
        sys.path.remove(str(tmp_path))
    limit, message = files.agent_caused(caught.value)
    assert limit == "code" and "edited_module.py" in message
    wrapped = ValueError("policy")
    wrapped.__cause__ = files.UnsafeFile("/x", "a FIFO")
    assert files.agent_caused(wrapped) == ("file", "/x: a FIFO")


# --- planted files, through the real hook ---------------------------------------------------


def plant(path: Path, what: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    if what == "fifo":
        os.mkfifo(path)
    elif what == "dir":
        path.mkdir()
    elif what == "huge":
        with open(path, "wb") as f:
            f.truncate(65 << 20)  # sparse: past every cap, no disk used
    elif what == "link":
        target = path.with_name(path.name + ".target")
        target.write_text("/tmp/x.sh\n")
        path.symlink_to(target)


def argvs(site: Path) -> dict[str, list[str]]:
    return {
        "console": [HOOKGATE, "eval", "--host", "claude"],
        "wired": wired(site),
    }


@pytest.mark.parametrize("what", ["fifo", "link", "huge", "dir"])
@pytest.mark.parametrize("how", ["console", "wired", "warm"])
def test_a_file_planted_as_the_session_memory_answers_the_limit(env, site, what, how) -> None:
    argv = argvs(site)["console" if how == "console" else "wired"]
    if how == "warm":
        env["HOOKGATE_WARM"] = "30"
        run(argv, env, payload("ls"))  # starts the warm process
        wait_for_warm(env)
    plant(state(env) / "sessions" / "s1", what)
    answer, took = run(argv, env, payload("bash x.sh"))
    assert decision(answer) == "ask", answer
    assert "sessions/s1" in reason(answer) and "limit" in reason(answer)
    assert took < 8
    env["HOOKGATE_LIMIT_ACTION"] = "deny"
    answer, _ = run(argv, env, payload("bash x.sh"))
    assert decision(answer) == "deny", answer
    if how == "warm":
        assert warm_pids(env), "the warm process answered"
    if what == "link":  # not followed: the target was never read as the memory
        assert "symbolic link" in reason(answer)
    assert limit_records(env)


def wait_for_warm(env: dict) -> None:
    for _ in range(200):
        if glob.glob(os.path.join(env["HOOKGATE_HOME"], "state", "warm", "*.sock")):
            return
        time.sleep(0.05)
    raise AssertionError("no warm process started")


@pytest.mark.parametrize("what", ["fifo", "dir", "huge"])
@pytest.mark.parametrize("how", ["console", "wired"])
def test_a_file_planted_in_the_compile_cache_answers_the_limit(env, site, what, how) -> None:
    argv = argvs(site)[how]
    run(argv, env, payload("ls"))  # compiles the default pack into the cache
    entries = [p for p in compiled(env).iterdir() if p.suffix in (".code", ".stamp")]
    assert entries
    for entry in entries:
        plant(entry, what)
    answer, took = run(argv, env, payload(DENIED))
    assert decision(answer) == "ask", answer
    assert str(compiled(env)) in reason(answer)
    assert took < 8


def test_fifos_in_state_files_read_only_after_the_answer_do_not_hold_the_hook(env, site) -> None:
    """The decision log, telemetry, the refresh lock, a warm lock: none is read to decide, so
    the answer is the usual one, and none of them blocks the hook."""
    env["HOOKGATE_WARM"] = "30"
    argv = wired(site)
    run(argv, env, payload("ls"))
    for name in (
        "decisions/current.jsonl",
        "decisions/cursor.json",
        "telemetry.jsonl",
        "refresh.lock",
        "warm/00000000.lock",
    ):
        plant(state(env) / name, "fifo")
    env["HOOKGATE_TELEMETRY"] = str(state(env) / "telemetry.jsonl")
    answer, took = run(argv, env, payload(DENIED), timeout=30)
    assert decision(answer) == "deny"
    assert took < 8


# --- broken code -------------------------------------------------------------------------------


def test_a_dependency_that_raises_on_import_answers_the_limit(env, tmp_path) -> None:
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "re2.py").write_text("raise RuntimeError('edited by the agent')\n")
    env["PYTHONPATH"] = str(planted)
    command = "cat notes.txt | grep -E 'TODO|FIXME' | sed -e 's/a/b/'"
    answer, _ = run([HOOKGATE, "eval", "--host", "claude"], env, payload(command))
    assert decision(answer) == "ask", answer
    assert "re2.py" in reason(answer)
    del env["PYTHONPATH"]  # and without the planted module, the usual answer
    answer, _ = run([HOOKGATE, "eval", "--host", "claude"], env, payload(command))
    assert decision(answer) is None


@pytest.mark.parametrize("module", ["engine.py", "hostio/normalize.py", "commands/eval.py"])
@pytest.mark.parametrize("warm", ["off", "30"])
def test_an_edited_hookgate_module_answers_the_limit(env, tmp_path, site, module, warm) -> None:
    edited = tmp_path / "site"
    shutil.copytree(site, edited, symlinks=True)
    path = edited / "hookgate" / module
    path.write_text("raise RuntimeError('edited by the agent')\n" + path.read_text())
    env["HOOKGATE_WARM"] = warm
    for _ in range(2):  # the second call may be the warm process's
        answer, took = run(wired(edited), env, payload(DENIED))
        assert decision(answer) == "ask", answer
        assert module.rpartition("/")[2] in reason(answer)
        assert took < 8


# --- the deadline ------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["console", "wired", "warm"])
def test_a_blocked_read_answers_the_limit_at_the_deadline(env, site, how) -> None:
    """stdin that never ends (the hook blocks reading it): the deadline answers."""
    argv = argvs(site)["console" if how == "console" else "wired"]
    run(argv, env, payload("ls"))  # compiles the pack: on a loaded machine, past 1.5 s
    env["HOOKGATE_DEADLINE"] = "1.5"
    if how == "warm":
        env["HOOKGATE_WARM"] = "30"
        run(argv, env, payload("ls"))
        wait_for_warm(env)
    read, write = os.pipe()
    os.write(write, payload("ls")[:-1])  # an unfinished payload, and the pipe held open
    start = time.monotonic()
    try:
        done = subprocess.run(argv, stdin=read, env=env, capture_output=True, timeout=30)
    finally:
        os.close(read)
        os.close(write)
    took = time.monotonic() - start
    answer = json.loads(done.stdout)
    assert decision(answer) == "ask", done
    assert "deadline of 1.5 s" in reason(answer)
    assert 1.4 < took < 6
    assert limit_records(env)[-1]["source"] == "deadline"


def test_a_stopped_warm_child_answers_the_limit_at_the_deadline(env, site) -> None:
    argv = wired(site)
    run(argv, env, payload("ls"))  # compiles the pack: on a loaded machine, past 2 s
    env["HOOKGATE_WARM"] = "30"
    env["HOOKGATE_DEADLINE"] = "2"
    run(argv, env, payload("ls"))
    wait_for_warm(env)
    (pid,) = warm_pids(env)
    # The socket is bound before the first spare child is forked: wait for the child.
    for _ in range(200):
        spares = [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        if spares:
            break
        time.sleep(0.05)
    assert spares
    for child in spares:  # the child waiting for the call: it takes it and answers nothing
        os.kill(child, signal.SIGSTOP)
    try:
        answer, took = run(argv, env, payload("ls"), timeout=30)
    finally:
        for child in spares:
            os.kill(child, signal.SIGCONT)
    # The stopped child holds the call: the hook waits for its acknowledgement (3 s), longer
    # than its deadline here.
    assert decision(answer) == "ask" and "deadline" in reason(answer)
    assert took < 6


# --- nothing after the answer holds the host ----------------------------------------------------


@pytest.mark.parametrize("how", ["console", "wired", "warm"])
def test_the_answer_ends_before_the_work_that_follows_it(env, site, how) -> None:
    """A held decision-log lock blocks the log's append, which follows the answer: the host
    reads the whole answer and the end of stdout at once; the process ends by its deadline."""
    argv = argvs(site)["console" if how == "console" else "wired"]
    run(argv, env, payload("ls"))  # compiles the pack: on a loaded machine, past 3 s
    env["HOOKGATE_DEADLINE"] = "3"
    if how == "warm":
        env["HOOKGATE_WARM"] = "30"
        run(argv, env, payload("ls"))
        wait_for_warm(env)
    run(argv, env, payload("ls"))  # warm caches: the next call answers at once
    lock_path = state(env) / "decisions" / "lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    lock = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        start = time.monotonic()
        proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        proc.stdin.write(payload(DENIED))
        proc.stdin.close()
        out = proc.stdout.read()  # to EOF
        at_eof = time.monotonic() - start
        err = proc.stderr.read()
        code = proc.wait(timeout=30)
        ended = time.monotonic() - start
    finally:
        os.close(lock)
    assert decision(json.loads(out)) == "deny", (out, err)
    assert code == 0
    if how == "warm":  # the child appends after sending: the hook itself is not held at all
        assert at_eof < 2.5 and ended < 2.5
    else:
        assert at_eof < 2.5, at_eof
        assert ended > at_eof + 0.3 and ended < 8  # held by the append, ended by the deadline


def test_the_deadline_setting_is_bounded(monkeypatch) -> None:
    from hookgate import config

    for value, seconds in (("", 10.0), ("4", 4.0), ("0", 10.0), ("600", 10.0), ("x", 10.0)):
        monkeypatch.setenv("HOOKGATE_DEADLINE", value)
        assert config.deadline_seconds() == seconds
    monkeypatch.setenv("HOOKGATE_LIMIT_ACTION", "deny")
    assert config.limit_action("ask") == "deny"
    monkeypatch.setenv("HOOKGATE_LIMIT_ACTION", "allow")  # never looser than ask
    assert config.limit_action(None) == "ask" and config.limit_action("deny") == "deny"


@pytest.mark.parametrize("what", ["fifo", "dir", "link"])
def test_a_file_planted_as_the_pulled_bundle_answers_the_limit(env, what) -> None:
    """Not the default pack in its place: that would let the agent choose the policies."""
    plant(Path(env["HOOKGATE_HOME"]) / "cache" / "bundle.json", what)
    answer, took = run([HOOKGATE, "eval", "--host", "claude"], env, payload("ls"))
    assert decision(answer) == "ask", answer
    assert "bundle.json" in reason(answer)
    assert took < 8


def test_a_fifo_as_git_configuration_does_not_block_the_hook(env, tmp_path) -> None:
    """The git model reads ~/.gitconfig and .git/config through files.read_file: a FIFO there is
    "skipped" by the git model (its rule), never a hang."""
    home = tmp_path / "user"
    home.mkdir()
    os.mkfifo(home / ".gitconfig")
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".git" / "config").unlink()
    os.mkfifo(repo / ".git" / "config")
    env["HOME"] = str(home)
    body = json.loads(payload("git push --force origin main"))
    body["cwd"] = str(repo)
    answer, took = run([HOOKGATE, "eval", "--host", "claude"], env, json.dumps(body).encode())
    # Configuration git would read but the model could not is unknown, never "not set": the
    # push asks, naming the file (tests/test_git_effective.py has that rule's own tests).
    assert decision(answer) == "ask", answer
    assert ".gitconfig" in reason(answer) or ".git/config" in reason(answer)
    assert took < 8


# --- the launcher's own code (hostconfig.LAUNCH_CODE) -----------------------------------------

# What each host reads as "not allowed" in the answer the inline code spells (render.py's
# shapes): ask where the host asks, deny where it cannot (Codex, Gemini headless, Amplifier).
HELD = {
    "claude": lambda a: a["hookSpecificOutput"]["permissionDecision"] == "ask",
    "codex": lambda a: a["hookSpecificOutput"]["permissionDecision"] == "deny",
    "copilot": lambda a: a["permissionDecision"] == "ask",
    "gemini": lambda a: a["decision"] == "deny",
    "cursor": lambda a: a["permission"] == "ask",
    "amplifier": lambda a: a["decision"] == "block",
}


def _break(site: Path, tmp_path: Path, module: str, how: str) -> Path:
    edited = tmp_path / "site"
    shutil.copytree(site, edited, symlinks=True)
    path = edited / "hookgate" / module
    if how == "missing":
        path.unlink()
    elif how == "raises":  # after the __future__ import: the module's body raises
        text = path.read_text().replace(
            "from __future__ import annotations\n",
            "from __future__ import annotations\nraise RuntimeError('edited by the agent')\n",
        )
        assert "edited by the agent" in text
        path.write_text(text)
    else:  # does not parse
        path.write_text("def (:\n" + path.read_text())
    return edited


@pytest.mark.parametrize("how", ["missing", "raises", "syntax"])
@pytest.mark.parametrize("module", ["launcher.py", "deadline.py", "paths.py"])
def test_a_broken_launcher_or_deadline_module_answers_the_limit(
    env, tmp_path, site, module, how
) -> None:
    """The code the wired command runs before anything else: broken, it still answers the
    limit action (ask) for every host, never allow, and nothing after the tool."""
    edited = _break(site, tmp_path, module, how)
    dirs = [str(edited), sysconfig.get_paths()["purelib"]]
    for host, held in HELD.items():
        argv = [*hostconfig.launcher_argv(sys.executable, dirs), "eval", "--host", host]
        done = subprocess.run(argv, input=payload(DENIED), env=env, capture_output=True, timeout=60)
        assert done.returncode == 0, (host, done.stderr)
        answer = json.loads(done.stdout)
        assert held(answer), (host, answer)
        assert "limit-launcher" in json.dumps(answer)
        assert module.removesuffix(".py") in json.dumps(answer) or how == "missing", answer
    argv = [*hostconfig.launcher_argv(sys.executable, dirs), "eval", "--host", "claude"]
    after = payload("ls", event="PostToolUse")
    done = subprocess.run(argv, input=after, env=env, capture_output=True, timeout=60)
    assert done.returncode == 0, done
    after_answer = json.loads(done.stdout or b"{}")  # context at most: the call has run
    assert "decision" not in after_answer, after_answer
    assert "permissionDecision" not in after_answer.get("hookSpecificOutput", {}), after_answer


def test_a_broken_launcher_answers_deny_when_the_limit_action_is_deny(env, tmp_path, site) -> None:
    edited = _break(site, tmp_path, "deadline.py", "raises")
    env["HOOKGATE_LIMIT_ACTION"] = "deny"
    dirs = [str(edited), sysconfig.get_paths()["purelib"]]
    argv = [*hostconfig.launcher_argv(sys.executable, dirs), "eval", "--host", "claude"]
    answer, _ = run(argv, env, payload("ls"))
    assert decision(answer) == "deny", answer


def test_the_launcher_code_fails_only_the_hook_it_runs(env, tmp_path, site) -> None:
    """Not a hook (``eval``): the launcher's error is the error, no answer is made up."""
    edited = _break(site, tmp_path, "launcher.py", "raises")
    argv = [*hostconfig.launcher_argv(sys.executable, [str(edited)]), "doctor"]
    done = subprocess.run(argv, env=env, capture_output=True, timeout=60)
    assert done.returncode == 1 and b"edited by the agent" in done.stderr
    assert done.stdout == b""


# --- --explain of a limit answered before evaluation -------------------------------------------


def explained(stderr: bytes) -> dict:
    """The explanation ``--explain`` prints on stderr (the JSON object after the answer)."""
    text = stderr.decode()
    return json.loads(text[text.index("{") :])


@pytest.mark.parametrize("how", ["console", "wired"])
def test_explain_names_the_planted_file_and_why(env, site, how) -> None:
    """A compile-cache entry planted as a FIFO: the limit is reached loading the policies,
    before any is evaluated."""
    argv = argvs(site)[how]
    run(argv, env, payload("ls"))  # compiles the default pack into the cache
    entries = sorted(p for p in compiled(env).iterdir() if p.suffix in (".code", ".stamp"))
    for entry in entries:
        plant(entry, "fifo")
    done = subprocess.run(
        [*argv, "--explain"], input=payload(DENIED), env=env, capture_output=True, timeout=60
    )
    assert decision(json.loads(done.stdout)) == "ask"
    found = explained(done.stderr)
    assert found["limit"] == "file" and found["file"] in map(str, entries), found
    assert "FIFO" in found["why"] and found["file_problem"] == "type"
    assert found["limit_action"] == "ask" and found["limit_action_from"] == "default (ask)"
    # without --explain, no explanation: the host reads stdout only, a person the flag
    done = subprocess.run(argv, input=payload(DENIED), env=env, capture_output=True, timeout=60)
    assert b"limit_action_from" not in done.stderr


@pytest.mark.parametrize("how", ["console", "wired"])
def test_explain_of_the_deadline_says_how_long_and_where_the_hook_waited(env, site, how) -> None:
    env["HOOKGATE_DEADLINE"] = "1"
    read, write = os.pipe()
    os.write(write, payload("ls")[:-1])  # an unfinished payload, and the pipe held open
    try:
        argv = [*argvs(site)[how], "--explain"]
        done = subprocess.run(argv, stdin=read, env=env, capture_output=True, timeout=30)
    finally:
        os.close(read)
        os.close(write)
    assert decision(json.loads(done.stdout)) == "ask", done
    found = explained(done.stderr)
    assert found["limit"] == "deadline" and found["deadline_seconds"] == 1
    assert found["set_by"] == "$HOOKGATE_DEADLINE"
    assert "payload" in found["waiting_in"] or "read" in found["waiting_in"], found


@pytest.mark.parametrize("module", ["engine.py", "launcher.py"])
def test_explain_names_the_module_that_does_not_import(env, tmp_path, site, module) -> None:
    edited = _break(site, tmp_path, module, "raises")
    dirs = [str(edited), sysconfig.get_paths()["purelib"]]
    argv = [
        *hostconfig.launcher_argv(sys.executable, dirs),
        "eval",
        "--host",
        "claude",
        "--explain",
    ]
    done = subprocess.run(argv, input=payload(DENIED), env=env, capture_output=True, timeout=60)
    assert decision(json.loads(done.stdout)) == "ask", done
    found = explained(done.stderr)
    assert found["file"].startswith(str(edited / "hookgate" / module)), found
    assert "edited by the agent" in found["exception"]


# --- a policy layer the hook was given, gone ---------------------------------------------------


@pytest.mark.parametrize("how", ["console", "wired", "warm"])
def test_a_policy_layer_that_is_gone_answers_the_limit(env, site, tmp_path, how) -> None:
    """``--policies DIR`` deleted or renamed after install (the agent's user can): a limit, as an
    unreadable policy file is, never the fault that answered ``{}`` with every guard off."""
    layer = tmp_path / "team"
    layer.mkdir()
    (layer / "data.json").write_text('{"team": {"name": "t"}}')
    argv = [*argvs(site)["console" if how == "console" else "wired"], "--policies", str(layer)]
    if how == "warm":
        env["HOOKGATE_WARM"] = "30"
        run(argv, env, payload("ls"))  # starts the warm process, with the layer loaded
        wait_for_warm(env)
    answer, _ = run(argv, env, payload(DENIED))
    assert decision(answer) == "deny", answer  # the layer is there: the default pack decides
    layer.rename(tmp_path / "elsewhere")
    done = subprocess.run(argv, input=payload("ls"), env=env, capture_output=True, timeout=60)
    answer = json.loads(done.stdout)
    assert decision(answer) == "ask", answer
    assert str(layer) in reason(answer) and "limit" in reason(answer)
    assert f"hookgate: file: {layer}: no such file or directory" in done.stderr.decode()
    env["HOOKGATE_LIMIT_ACTION"] = "deny"
    answer, _ = run(argv, env, payload("ls"))
    assert decision(answer) == "deny", answer
    if how == "warm":
        assert warm_pids(env), "the warm process answered"
    assert any(str(layer) in r.get("message", "") for r in limit_records(env)), limit_records(env)


def test_a_policy_directory_that_cannot_be_listed_is_unreadable(tmp_path, monkeypatch) -> None:
    # os.walk skips a directory it cannot list: its policies would go without a word
    from hookgate import sources
    from hookgate.lang.errors import PolicyError

    (tmp_path / "team" / "sub").mkdir(parents=True)
    (tmp_path / "team" / "sub" / "p.rego").write_text("package team\n")
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path).endswith("sub"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    with pytest.raises(files.UnsafeFile) as caught:
        sources.load_paths([tmp_path / "team"])
    assert caught.value.path == str(tmp_path / "team" / "sub") and caught.value.kind == "unreadable"
    assert files.agent_caused(caught.value) == ("file", str(caught.value))
    with pytest.raises(PolicyError) as gone:
        sources.load_paths([tmp_path / "nothing"])
    assert files.agent_caused(gone.value)[0] == "file"
