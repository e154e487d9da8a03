"""The runtime side of a managed install: root's trust anchors in ``/etc/hookgate/config.json``,
root's bundle and compile cache under ``/var/lib/hookgate`` written by a root ``hookgate pull``,
and the hook, run as an unprivileged user, reading only those (never the user's
``HOOKGATE_HOME``/``XDG_*`` files), answering the limit action when the anchors cannot be trusted.

The managed root is relocated into a root-owned temporary directory by assigning
``anchors.CONFIG``/``anchors.STATE`` in the process under test (a hook subprocess gets them from
the test's own launcher code, never from its environment). Needs root (CI runs as root) to own
the files and to create the agent's user; skipped otherwise.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import pwd
import resource
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
import uuid
from pathlib import Path

import pytest
from sync_helpers import LiveServer, bash_payload, deny_policy

from hookgate import anchors, paths, sync

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"


def needs_root() -> None:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip(
            "a managed install is root's: this test owns files as root and runs the hook as "
            "another user (CI runs as root)"
        )


SITE = sysconfig.get_paths()["purelib"]


def _interpreter() -> str | None:
    """A Python of this version the agent's user may run: this one, unless it lives where
    others cannot reach (pyenv under /root), else the system's."""
    real = os.path.realpath(sys.executable)
    parent = os.path.dirname(real)
    while parent != "/":
        if not os.stat(parent).st_mode & 0o001:
            break
        parent = os.path.dirname(parent)
    else:
        return real
    return shutil.which(f"python{sys.version_info[0]}.{sys.version_info[1]}", path="/usr/bin")


PYTHON = _interpreter()

# The hook as the agent's user runs it, with the managed root relocated by code (as a build
# would bake it in), not by anything in the environment.
LAUNCH = (
    "import site, sys\n"
    "site.addsitedir(sys.argv[1])\n"
    "from hookgate import anchors\n"
    "anchors.CONFIG, anchors.STATE = sys.argv[2], sys.argv[3]\n"
    "from hookgate import cli\n"
    "sys.exit(cli.main(sys.argv[4:]))\n"
)


@pytest.fixture(scope="module")
def agent():
    """An unprivileged user for the agent, created for these tests and removed after."""
    needs_root()
    if shutil.which("useradd") is None:
        pytest.skip("useradd is not available")
    name = f"hg{uuid.uuid4().hex[:8]}"
    home = Path(tempfile.mkdtemp(prefix="hookgate-agent-")) / name
    subprocess.run(["useradd", "-m", "-d", str(home), "-s", "/bin/sh", name], check=True)
    try:
        yield pwd.getpwnam(name)
    finally:
        subprocess.run(["userdel", "-r", name], capture_output=True)
        shutil.rmtree(home.parent, ignore_errors=True)


@pytest.fixture
def root(monkeypatch):
    """A relocated managed root, root-owned, 0755 all the way down from /tmp."""
    needs_root()
    base = Path(tempfile.mkdtemp(prefix="hookgate-managed-"))
    base.chmod(0o755)
    etc, state = base / "etc" / "hookgate", base / "var" / "lib" / "hookgate"
    etc.mkdir(parents=True, mode=0o755)
    state.mkdir(parents=True, mode=0o755)
    for directory in (base / "etc", base / "var", base / "var" / "lib", etc, state):
        directory.chmod(0o755)
    monkeypatch.setattr(anchors, "CONFIG", str(etc / "config.json"))
    monkeypatch.setattr(anchors, "STATE", str(state))
    monkeypatch.setattr(anchors, "_loaded", [None, None])
    # Root's own per-user files (telemetry, decision log) somewhere harmless.
    monkeypatch.setenv("HOOKGATE_HOME", str(base / "root-home"))
    monkeypatch.delenv("HOOKGATE_TELEMETRY", raising=False)
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def server(tmp_path):
    live = LiveServer(tmp_path / "server.db")
    yield live
    live.stop()


def write_config(root: Path, document: dict, mode: int = 0o644) -> Path:
    path = Path(anchors.CONFIG)
    path.write_text(json.dumps(document))
    path.chmod(mode)
    anchors.forget()  # as the next hook, a new process, would see it
    return path


def configure(root: Path, server: LiveServer, **extra) -> None:
    key = server.request("GET", "/v1/bundle/key")[2]
    token = root / "etc" / "hookgate" / "token"
    token.write_text(server.agent_token + "\n")
    token.chmod(0o600)
    document = {"server": server.url, "public_key": key["public_key"], "key_id": key["key_id"]}
    write_config(root, {**document, "token_file": str(token), **extra})


def as_agent(agent, root: Path, *argv: str, stdin: str = "", env: dict | None = None):
    """``hookgate ARGV`` as the agent's user (None: as root), in its home, with its own
    environment."""
    if PYTHON is None:
        pytest.skip("no Python of this version that the agent's user can run")
    home = Path(agent.pw_dir) if agent is not None else root / "root-home"
    home.mkdir(exist_ok=True)
    environment = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        **(env or {}),
    }

    def drop() -> None:
        os.setgid(agent.pw_gid)
        os.setgroups([])
        os.setuid(agent.pw_uid)

    return subprocess.run(
        [PYTHON, "-c", LAUNCH, SITE, anchors.CONFIG, anchors.STATE, *argv],
        input=stdin,
        capture_output=True,
        text=True,
        env=environment,
        cwd=str(home),
        preexec_fn=drop if agent is not None else None,
        timeout=120,
    )


def hook(agent, root: Path, command: str, env: dict | None = None) -> tuple[dict, dict]:
    result = as_agent(
        agent, root, "eval", "--host", "claude", "--explain", stdin=bash_payload(command), env=env
    )
    assert result.returncode == 0, result.stderr
    assert "{" in result.stderr, (result.stdout, result.stderr)
    explain = json.loads(result.stderr[result.stderr.index("{") :])
    return json.loads(result.stdout), explain


def decision_of(response: dict) -> str | None:
    return response.get("hookSpecificOutput", {}).get("permissionDecision")


def agent_files(agent, files: dict[str, str]) -> Path:
    """Files the agent's user wrote in its home, owned by it."""
    home = Path(agent.pw_dir)
    for relative, text in files.items():
        path = home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for dirpath, dirnames, filenames in os.walk(home):
        for name in [*dirnames, *filenames, "."]:
            os.chown(os.path.join(dirpath, name), agent.pw_uid, agent.pw_gid)
    return home


# --- anchors: when they are trusted -------------------------------------------------------------


def test_personal_mode_without_the_managed_file(root, tmp_path, monkeypatch):
    monkeypatch.setenv("HOOKGATE_HOME", str(tmp_path / "h"))
    assert anchors.load() is None
    assert paths.compiled_dir() == str(tmp_path / "h" / "cache" / "compiled")
    assert sync.bundle_path() == str(tmp_path / "h" / "cache" / "bundle.json")


def test_managed_mode_runs_no_warm_process_whatever_the_environment_says(root, monkeypatch):
    """A warm process runs as the agent's user, who can take its socket or signal it: a managed
    hook answers in its own process, even when the environment asks for a warm one."""
    from hookgate import warm

    if sys.platform != "linux":
        pytest.skip("warm processes are Linux-only")
    monkeypatch.setenv("HOOKGATE_WARM", "600")
    assert warm.idle_seconds() == 600
    Path(anchors.CONFIG).write_text("{}\n")
    anchors.forget()  # what the next hook's process (or a warm process's child) sees
    assert warm.idle_seconds() == 0


def test_managed_mode_ignores_hookgate_home_and_xdg_for_bundle_and_cache(root, monkeypatch):
    write_config(root, {})
    monkeypatch.setenv("HOOKGATE_HOME", "/tmp/agent-filled")
    monkeypatch.setenv("XDG_CACHE_HOME", "/tmp/agent-filled-xdg")
    assert paths.compiled_dir() == os.path.join(anchors.STATE, "compiled")
    assert sync.bundle_path() == os.path.join(anchors.STATE, "bundle", "bundle.json")
    assert anchors.load() is not None


@pytest.mark.parametrize(
    "spoil, reason",
    [
        (lambda p: p.chmod(0o666), "writable by group or others"),
        (lambda p: p.chmod(0o664), "writable by group or others"),
        (lambda p: os.chown(p, 65534, 65534), "owned by uid 65534"),
        (lambda p: p.parent.chmod(0o777), "writable by others"),
        (lambda p: p.parent.chmod(0o1777), "writable by others"),
        (lambda p: os.chown(p.parent, 65534, 65534), "owned by uid 65534"),
        (lambda p: p.write_text("{not json"), "not valid JSON"),
        (lambda p: p.write_text('{"limits": {"action": "allow"}}'), "limits"),
        (lambda p: p.write_text('{"sevrer": "https://x"}'), "sevrer: unknown setting"),
        (lambda p: (p.unlink(), p.symlink_to("/etc/hostname")), "not a regular file"),
        (lambda p: (p.unlink(), os.mkfifo(p)), "not a regular file"),
    ],
)
def test_an_untrusted_managed_config_answers_the_limit_action(root, spoil, reason):
    from hookgate.active import local_engine

    spoil(write_config(root, {}))
    with pytest.raises(anchors.AnchorError, match=reason):
        anchors.load()
    engine, revision = local_engine()
    decision = engine.evaluate(bash_payload("ls"), "claude")
    assert decision.outcome == "ask" and revision is None
    assert reason.split(":")[0] in decision.reasons[0]
    assert decision.errors[0]["kind"] == "limit"


def test_an_untrusted_managed_config_asks_the_agents_hook_too(root, agent):
    write_config(root, {}, mode=0o666)
    response, explain = hook(agent, root, "ls")
    assert decision_of(response) == "ask"
    assert (
        "managed configuration cannot be trusted"
        in response["hookSpecificOutput"]["permissionDecisionReason"]
    )
    assert explain["origin"] == "untrusted managed configuration"


def test_refresh_settings_come_from_the_managed_configuration_not_the_environment(
    root, monkeypatch
):
    monkeypatch.setenv("HOOKGATE_MAX_BUNDLE_AGE", "1")
    monkeypatch.setenv("HOOKGATE_REFRESH_INTERVAL", "1")
    write_config(root, {})
    assert (sync.max_bundle_age(), sync.refresh_interval()) == (86400.0, 300.0)
    write_config(root, {"max_bundle_age": 600, "refresh_interval": 60})
    assert (sync.max_bundle_age(), sync.refresh_interval()) == (600.0, 60.0)


def test_the_managed_limit_action_overrides_the_policies(root):
    from hookgate.active import local_engine

    write_config(root, {"limits": {"action": "deny"}})
    engine, _ = local_engine()
    assert engine.limit_action == "deny"


# --- root's pull, the agent's hook ---------------------------------------------------------------


def test_pull_as_root_writes_root_owned_files_the_agents_hook_uses(root, server, agent):
    server.put_policy("marker", deny_policy("managed-marker"))
    configure(root, server)
    report = sync.refresh()
    assert report.pull_error is None, report.pull_error
    assert report.pulled.revision == 2

    state = Path(anchors.STATE)
    bundle = state / "bundle" / "bundle.json"
    for directory in (state, state / "bundle", state / "compiled"):
        st = directory.stat()
        assert (st.st_uid, stat.S_IMODE(st.st_mode)) == (0, 0o755), directory
    st = bundle.stat()
    assert (st.st_uid, stat.S_IMODE(st.st_mode)) == (0, 0o644)
    entries = [p for p in (state / "compiled").iterdir() if not p.name.startswith(".")]
    assert entries and all(stat.S_IMODE(p.stat().st_mode) == 0o644 for p in entries)
    assert not list(state.glob("**/.*.tmp"))

    # The agent's user fills its own directories with a bundle that allows everything (an
    # older one of the same server, tampered) and points every variable at them.
    forged = json.loads(bundle.read_text())
    forged["policies"] = {k: v for k, v in forged["policies"].items() if "marker" not in k}
    home = agent_files(
        agent,
        {
            "filled/cache/bundle.json": json.dumps(forged),
            "xdg/hookgate/bundle.json": json.dumps(forged),
        },
    )
    env = {
        "HOOKGATE_HOME": str(home / "filled"),
        "XDG_CACHE_HOME": str(home / "xdg"),
        "XDG_CONFIG_HOME": str(home / "xdg"),
        "HOOKGATE_REFRESH_INTERVAL": "0",
    }
    response, explain = hook(agent, root, "echo managed-marker", env=env)
    assert decision_of(response) == "deny", response
    assert explain["origin"] == "bundle revision 2"
    # The hook wrote nothing under root's state and started no refresh of its own.
    assert sorted(p.name for p in (state / "compiled").iterdir()) == sorted(p.name for p in entries)
    assert not (home / "filled" / "state" / "refresh.lock").exists()


def test_a_root_bundle_file_someone_else_could_write_is_verified_first(root, server, agent):
    server.put_policy("marker", deny_policy("managed-marker"))
    configure(root, server)
    assert sync.refresh().pull_error is None
    bundle = Path(anchors.STATE) / "bundle" / "bundle.json"
    document = json.loads(bundle.read_text())
    first = sorted(document["policies"])[0]
    document["policies"][first] += "\n# edited\n"
    bundle.write_text(json.dumps(document))
    os.chown(bundle, agent.pw_uid, agent.pw_gid)  # as if the agent's user could write it
    response, explain = hook(agent, root, "echo managed-marker")
    assert explain["origin"] == "default pack"  # refused: its signature no longer verifies


def test_the_hook_compiles_in_memory_when_roots_entry_is_missing_and_stays_fast(
    root, server, agent
):
    server.put_policy("marker", deny_policy("managed-marker"))
    configure(root, server)
    pulled = as_agent(None, root, "pull")  # as root, with the Python the agent's hook runs
    assert pulled.returncode == 0, pulled.stderr
    compiled = Path(anchors.STATE) / "compiled"

    def timed() -> float:
        # CPU seconds the hook process used (waited-for children), not wall time: the machine
        # is shared, and what root's cache saves is the compile's CPU. Without --explain: its
        # trace is compiled per call where the agent cannot write the cache, and would hide it.
        best = float("inf")
        for _ in range(3):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            done = as_agent(
                agent, root, "eval", "--host", "claude", stdin=bash_payload("echo managed-marker")
            )
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            best = min(best, used)
            assert decision_of(json.loads(done.stdout)) == "deny", done.stderr
        return best

    cached = timed()
    for entry in compiled.iterdir():
        entry.unlink()
    uncached = timed()
    assert list(compiled.iterdir()) == []  # the agent's hook cannot write root's cache
    print(f"hook as the agent: {cached * 1000:.0f} ms of CPU with root's compile cache, "
          f"{uncached * 1000:.0f} ms compiling in memory")  # fmt: skip
    assert cached < uncached * 0.8


def test_a_managed_install_without_a_server_still_gets_roots_compiled_default_pack(root, agent):
    write_config(root, {})
    report = sync.refresh()
    assert report.ok and report.pulled is None
    compiled = Path(anchors.STATE) / "compiled"
    entries = [p for p in compiled.iterdir() if not p.name.startswith(".")]
    assert len(entries) >= 2  # the compiled pack and the stamp of its files
    assert all((p.stat().st_uid, stat.S_IMODE(p.stat().st_mode)) == (0, 0o644) for p in entries)
    response, explain = hook(agent, root, "git push --force origin main")
    assert explain["origin"] == "default pack" and response  # the pack's rewrite
    write_config(root, {}, mode=0o666)
    with pytest.raises(sync.SyncError, match="writable by group or others"):
        sync.refresh()


def test_pull_in_managed_mode_needs_root_and_a_private_token(root, server, agent):
    configure(root, server)
    result = as_agent(agent, root, "pull")
    assert result.returncode == 1 and "runs as root" in result.stderr
    token = Path(anchors.STATE).parent.parent.parent / "etc" / "hookgate" / "token"
    token.chmod(0o644)
    with pytest.raises(sync.SyncError, match="readable by others"):
        sync.refresh()


def test_doctor_as_the_agents_user_shows_the_anchors_not_a_token_error(root, server, agent):
    configure(root, server)
    done = as_agent(agent, root, "doctor")
    assert f"managed: {server.url}; pulled by root" in done.stdout, done.stderr
    assert "token" not in done.stdout
    Path(anchors.CONFIG).chmod(0o666)
    spoiled = as_agent(agent, root, "doctor")
    assert spoiled.returncode == 1
    assert "managed configuration:" in spoiled.stdout and "every hook asks" in spoiled.stdout


def test_login_and_key_rotation_are_refused_in_managed_mode(root, server):
    configure(root, server)
    with pytest.raises(sync.SyncError, match="pinned in"):
        sync.login(server.url, server.agent_token)
    with pytest.raises(sync.SyncError, match="pinned in"):
        sync.rotate_key()


def test_a_pinned_key_that_does_not_match_the_servers_refuses_the_bundle(root, server):
    configure(root, server)
    document = json.loads(Path(anchors.CONFIG).read_text())
    other = base64.b64encode(bytes(32)).decode()
    from hookgate.bundle_format import key_id

    document.update(public_key=other, key_id=key_id(bytes(32)))
    write_config(root, document)
    report = sync.refresh()
    assert report.pull_error and "bundle refused" in report.pull_error
    assert not (Path(anchors.STATE) / "bundle" / "bundle.json").exists()


# --- deploy/: the root-run refresh --------------------------------------------------------------


def test_the_systemd_units_parse_and_run_the_agreed_command_as_root(tmp_path):
    service = (DEPLOY / "hookgate-pull.service").read_text()
    timer = (DEPLOY / "hookgate-pull.timer").read_text()
    sections = _sections(service)
    assert sections["Service"]["ExecStart"] == [
        "/opt/hookgate/bin/python -I -B -m hookgate.cli pull"
    ]
    assert sections["Service"]["User"] == ["root"]
    assert sections["Service"]["Type"] == ["oneshot"]
    # systemd creates /var/lib/hookgate, root's and 0755, and lets the service write it even
    # under ProtectSystem=strict.
    assert sections["Service"]["StateDirectory"] == ["hookgate"]
    assert sections["Service"]["StateDirectoryMode"] == ["0755"]
    assert sections["Service"]["ProtectSystem"] == ["strict"]
    # The users' logs are uploaded by children that take each user's uid.
    assert sections["Service"]["CapabilityBoundingSet"] == ["CAP_SETUID CAP_SETGID"]
    assert sections["Unit"]["ConditionPathExists"] == ["/etc/hookgate/config.json"]
    assert _sections(timer)["Timer"]["Unit"] == ["hookgate-pull.service"]
    assert _sections(timer)["Install"]["WantedBy"] == ["timers.target"]
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        return  # the structural checks above are all there is without systemd
    # verify needs the command to exist: the same units, run with /bin/true.
    (tmp_path / "hookgate-pull.service").write_text(
        service.replace("/opt/hookgate/bin/python", "/bin/true")
    )
    (tmp_path / "hookgate-pull.timer").write_text(timer)
    result = subprocess.run(
        [analyze, "verify", "--man=no", "hookgate-pull.service", "hookgate-pull.timer"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    complaints = [line for line in result.stderr.splitlines() if "hookgate-pull" in line]
    assert result.returncode == 0 and complaints == [], result.stderr


def test_the_cron_line_runs_the_agreed_command_as_root():
    lines = [
        line
        for line in (DEPLOY / "hookgate-pull.cron").read_text().splitlines()
        if line.strip() and not line.startswith("#") and "=" not in line.split()[0]
    ]
    (line,) = lines
    fields = line.split()
    minute, hour, day, month, weekday, user = fields[:6]
    assert (minute, hour, day, month, weekday, user) == ("*/5", "*", "*", "*", "*", "root")
    command = fields[6:]
    program = next(word for word in command if "=" not in word)
    assert program == "/opt/hookgate/bin/python"
    assert command[command.index(program) + 1 :] == [
        "-I",
        "-B",
        "-m",
        "hookgate.cli",
        "pull",
        "--background",
    ]


def _sections(text: str) -> dict[str, dict[str, list[str]]]:
    """A unit file's ``[Section]`` ``Key=value`` pairs (every value of a repeated key)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current = None
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        key, eq, value = line.partition("=")
        assert eq and current is not None, f"line {number}: not Key=value in a section: {line}"
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


# --- the failure policy, and what the decide path reads ------------------------------------------


def test_the_failure_policy_comes_from_the_managed_configuration_not_the_environment(
    root, monkeypatch
):
    from hookgate.config import failure_policy

    monkeypatch.setenv("HOOKGATE_FAILURE_POLICY", "open")
    write_config(root, {"failure_policy": "PreToolUse=closed"})
    assert failure_policy("PreToolUse") == "closed"
    assert failure_policy("PostToolUse") == "open"
    write_config(root, {})
    monkeypatch.setenv("HOOKGATE_FAILURE_POLICY", "closed")
    assert failure_policy("PreToolUse") == "open"  # the agent's variable changes nothing
    Path(anchors.CONFIG).chmod(0o666)
    assert failure_policy("PreToolUse") == "closed"  # untrusted: never open


def test_the_decide_path_reads_no_per_user_file(root, server, monkeypatch):
    """What the hook opens between reading the payload and having its decision: root's anchors,
    bundle and cache; never the user's decision log, telemetry, login or cache. (The session's
    memory of the files it wrote, ``<state>/sessions``, is read to decide: it only adds
    scrutiny, and what a forgotten file answers is the session memory's business.)"""
    from hookgate.active import local_engine
    from hookgate.decision import Decision

    server.put_policy("marker", deny_policy("managed-marker"))
    configure(root, server)
    assert sync.refresh().pull_error is None
    user = Path(tempfile.mkdtemp(prefix="hookgate-user-"))
    monkeypatch.setenv("HOOKGATE_HOME", str(user))
    monkeypatch.setenv("HOOKGATE_TELEMETRY", str(user / "telemetry.jsonl"))
    from hookgate import decisionlog

    decisionlog.append(Decision("allow", tool_name="Bash"), None, None)  # a spool exists
    opened: list[str] = []
    watching = [True]

    def audit(event: str, args: tuple) -> None:
        if watching[0] and event == "open" and isinstance(args[0], str):
            opened.append(os.path.abspath(args[0]))

    sys.addaudithook(audit)
    try:
        engine, revision = local_engine()
        decision = engine.evaluate(bash_payload("echo managed-marker"), "claude")
    finally:
        watching[0] = False
        shutil.rmtree(user, ignore_errors=True)
    assert decision.outcome == "deny" and revision == 2
    per_user = [path for path in opened if path.startswith(str(user))]
    assert [p for p in per_user if not p.startswith(str(user / "state" / "sessions"))] == []
    assert any(path.startswith(anchors.STATE) for path in opened)


# --- the users' decision logs in root's spool ------------------------------------------------------


def test_roots_pull_uploads_each_users_log_as_that_user(root, server, agent):
    configure(root, server)
    assert sync.refresh().ok  # creates the spool
    spool = Path(anchors.STATE) / "spool"
    st = spool.stat()
    assert (st.st_uid, stat.S_IMODE(st.st_mode)) == (0, 0o1733)
    for command in ("echo one", "echo two"):
        hook(agent, root, command)
    mine = spool / str(agent.pw_uid)
    assert mine.stat().st_uid == agent.pw_uid
    # Another user's name taken by the agent: that log is neither written nor uploaded as root.
    planted = spool / "4242"
    planted.mkdir()
    os.chown(planted, agent.pw_uid, agent.pw_gid)
    (planted / "current.jsonl").write_text("{}\n")
    report = sync.refresh()
    assert report.uploaded == 2, report
    stored = server.decisions()
    assert sorted(d["command"] for d in stored) == ["echo one", "echo two"]
    assert {d["stream"] for d in stored} == {f"{_machine()}:{agent.pw_uid}"}
    assert sorted(d["seq"] for d in stored) == [1, 2]
    # The cursor and the sealed segments were written by the user's uid, not root's.
    assert {p.stat().st_uid for p in mine.iterdir()} == {agent.pw_uid}
    (streams,) = server.request("GET", "/v1/decisions/streams")[2]["streams"]
    assert streams["gaps"] == [] and streams["rewritten"] == []


def _machine() -> str:
    from hookgate import decisionlog

    return decisionlog.stream_id().rsplit(":", 1)[0]


def test_managed_mode_is_asked_of_the_disk_once_per_process_and_again_in_a_forked_child(
    tmp_path, monkeypatch
):
    """``anchors.present()`` is answered once per process (every paths/config call asks it);
    a forked child (the warm process's, serving one call) asks the disk again, so a managed
    install made while a warm parent runs is seen by the next call it serves."""
    from hookgate import config, paths

    monkeypatch.setattr(anchors, "CONFIG", str(tmp_path / "config.json"))
    anchors.forget()
    asked: list[str] = []
    real = os.path.lexists

    def lexists(path: str) -> bool:
        asked.append(path)
        return real(path)

    monkeypatch.setattr(anchors.os.path, "lexists", lexists)
    for _ in range(3):
        paths.compiled_dir(), paths.bundle_dir(), config.failure_policy("PreToolUse")
    assert asked.count(anchors.CONFIG) == 1
    Path(anchors.CONFIG).write_text("{}\n")
    assert not anchors.present()  # this process's answer: the parent's, stale by design
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: what a warm process's child sees
        os.write(write, b"1" if anchors.present() else b"0")
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    assert os.read(read, 1) == b"1"
    anchors.forget()
    assert anchors.present()


# --- the hook's module file: root writes it, the agent's hook reads it --------------------------

# The launcher as the agent's user runs it (``hostconfig.LAUNCH_CODE`` with the managed root
# relocated), and a probe: which loader gave hookgate.engine.
LAUNCHER = (
    "import site, sys\n"
    "site.addsitedir(sys.argv[1])\n"
    "from hookgate import anchors\n"
    "anchors.CONFIG, anchors.STATE = sys.argv[2], sys.argv[3]\n"
    "sys.argv[1:] = sys.argv[4:]\n"
    "from hookgate.launcher import launch\n"
    "launch()\n"
)
MODULE_PROBE = (
    "import site, sys\n"
    "site.addsitedir(sys.argv[1])\n"
    "from hookgate import anchors\n"
    "anchors.CONFIG, anchors.STATE = sys.argv[2], sys.argv[3]\n"
    "from hookgate import launcher\n"
    "f = launcher._Finder(launcher._read(launcher._modules_path())); sys.meta_path.insert(0, f)\n"
    "import hookgate.engine as e\n"
    "print(type(e.__spec__.loader) is launcher._Loader, len(f.entries))\n"
)


def as_agent_code(agent, code: str, *argv: str, stdin: str = "") -> subprocess.CompletedProcess:
    def drop() -> None:
        os.setgid(agent.pw_gid)
        os.setgroups([])
        os.setuid(agent.pw_uid)

    # A home the agent's user can reach (the fixture's sits in root's 0700 temporary directory).
    home = Path(anchors.STATE).parents[2] / "agent-home"
    home.mkdir(mode=0o700, exist_ok=True)
    os.chown(home, agent.pw_uid, agent.pw_gid)
    return subprocess.run(
        [PYTHON, "-c", code, SITE, anchors.CONFIG, anchors.STATE, *argv],
        input=stdin,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home), "HOOKGATE_WARM": "0"},
        cwd=str(home),
        preexec_fn=drop,
        timeout=120,
    )


def test_roots_pull_writes_the_module_file_the_agents_hook_reads(root, agent):
    from hookgate.commands import pull

    write_config(root, {})
    assert sync.refresh().ok
    path = Path(pull.write_hook_modules())
    assert path.parent == Path(anchors.STATE) / "compiled"
    st = path.stat()
    assert (st.st_uid, stat.S_IMODE(st.st_mode)) == (0, 0o644)
    done = as_agent_code(agent, MODULE_PROBE)
    served, count = done.stdout.split()
    assert served == "True" and int(count) > 20, done.stderr
    # the hook, through the launcher, as the agent: the usual answer, the file unchanged
    before = path.read_bytes()
    done = as_agent_code(
        agent,
        LAUNCHER,
        "eval",
        "--host",
        "claude",
        stdin=bash_payload("git commit --no-verify -m x"),
    )
    assert done.returncode == 0, done.stderr
    assert decision_of(json.loads(done.stdout)) == "deny", done.stdout
    assert path.read_bytes() == before and path.stat().st_uid == 0

    # anything but root's alone is not read in managed mode: the agent's own file, or root's
    # that others could write
    os.chown(path, agent.pw_uid, agent.pw_gid)
    assert as_agent_code(agent, MODULE_PROBE).stdout.split() == ["False", "0"]
    os.chown(path, 0, 0)
    path.chmod(0o666)
    assert as_agent_code(agent, MODULE_PROBE).stdout.split() == ["False", "0"]
    path.chmod(0o644)
    compiled = path.parent
    compiled.chmod(0o777)
    assert as_agent_code(agent, MODULE_PROBE).stdout.split() == ["False", "0"]
    compiled.chmod(0o755)
    assert as_agent_code(agent, MODULE_PROBE).stdout.split()[0] == "True"


def test_pull_in_managed_mode_reports_the_module_file(root, monkeypatch, capsys):
    from hookgate.commands import pull

    write_config(root, {})
    args = argparse.Namespace(background=False, force_key_rotation=False, timeout=5.0)
    assert pull.run(args) == 0
    out = capsys.readouterr().out
    assert f"hook modules: {Path(anchors.STATE) / 'compiled'}" in out
