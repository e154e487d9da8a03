"""Feedback on long work: ``impact``, ``publish``, ``pull`` and ``install`` draw a progress line
on stderr when it is a terminal (a pty here) and print nothing extra otherwise; and ``install``
compiles the pack, so that the first hook reads the compile cache instead of compiling."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sync_helpers import LiveServer, hookgate_env, run_hookgate

from hookgate import progress
from hookgate.integrations import hostconfig
from hookgate.sources import default_pack_path

PACK = Path(default_pack_path())
PAYLOAD = Path(__file__).parent / "data" / "hosts" / "payloads" / "claude-pre-bash.json"
TEAM_GUARD = """package hookgate.no_deploy

import rego.v1

deny contains {"reason": "Deploys go through the pipeline.", "pattern": "make-deploy"} if {
\tinput.tool_kind == "shell"
\tcontains(input.tool_input.command, "make deploy")
}
"""


def read_to_end(master: int) -> str:
    """Everything written to a pseudo-terminal, read from ``master`` until every holder of its
    other end has closed it (one read returns only what is there at that moment)."""
    seen: list[bytes] = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every holder of the terminal's other end closed it
            break
        if not chunk:
            break
        seen.append(chunk)
    return b"".join(seen).decode(errors="replace")


def on_pty(argv: list[str], env: dict[str, str], stdin: str = "") -> tuple[int, str, str]:
    """Run ``argv`` with stderr on a pseudo-terminal and stdout on a pipe; returns the exit
    code, stdout, and everything written to the terminal."""
    master, slave = os.openpty()
    seen: list[str] = []
    reader = threading.Thread(target=lambda: seen.append(read_to_end(master)), daemon=True)
    reader.start()
    try:
        process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=slave, env=env
        )
    finally:
        os.close(slave)
    out, _ = process.communicate(stdin.encode(), timeout=120)
    reader.join(timeout=10)
    os.close(master)
    return process.returncode, out.decode(), "".join(seen)


def cli(*argv: str) -> list[str]:
    return [sys.executable, "-m", "hookgate.cli", *argv]


# --- the module -------------------------------------------------------------------------------


def test_a_terminal_gets_one_rewritten_line_cleared_at_the_end():
    master, slave = os.openpty()
    try:
        with open(slave, "w", closefd=False) as stream:
            assert progress.shown(stream)
            with progress.Progress("downloading", 4096, unit="bytes", stream=stream) as line:
                line.advance(1024)
                progress_text = line.text()
                line._drawn_at = -1.0  # past the throttle: the next update draws
                line.advance(3072)
    finally:
        os.close(slave)
    written = read_to_end(master)
    os.close(master)
    assert progress_text.startswith("downloading: 1.0 KiB of 4.0 KiB (25%)")
    assert "downloading: 4.0 KiB of 4.0 KiB (100%)" in written
    assert "\n" not in written  # rewritten in place, never scrolled
    # Cleared: the last thing written blanks the line and returns to its start.
    last = written.rsplit("\r", 2)
    assert last[-1] == "" and last[-2].strip() == ""


def test_updates_are_throttled():
    master, slave = os.openpty()
    try:
        with open(slave, "w", closefd=False) as stream:
            with progress.Progress("counting", 100000, stream=stream) as line:
                for _ in range(100000):
                    line.advance()
    finally:
        os.close(slave)
    written = read_to_end(master)
    os.close(master)
    assert written.count("counting") < 100  # not one draw per update


def test_a_pipe_or_a_file_gets_nothing():
    stream = io.StringIO()
    with progress.Progress("work", 10, stream=stream, ticking=True) as line:
        line.advance(5)
    assert stream.getvalue() == ""
    read, write = os.pipe()
    with open(write, "w") as pipe:
        assert not progress.shown(pipe)
    os.close(read)


def test_silence_turns_it_off_on_a_terminal_too(monkeypatch):
    monkeypatch.setattr(progress, "_silenced", False)
    master, slave = os.openpty()
    try:
        with open(slave, "w", closefd=False) as stream:
            progress.silence()
            assert not progress.shown(stream)
            with progress.Progress("quiet", stream=stream):
                pass
            stream.write("end")
            stream.flush()
        assert os.read(master, 4096).decode() == "end"
    finally:
        os.close(slave)
        os.close(master)


def test_sizes_read_as_a_person_reads_them():
    assert progress.size(512) == "512 B"
    assert progress.size(3 * 1024 + 512) == "3.5 KiB"
    assert progress.size(12 * 1024 * 1024) == "12.0 MiB"


# --- the commands against a live server --------------------------------------------------------


@pytest.fixture
def server(tmp_path):
    live = LiveServer(tmp_path / "server.db")
    live.editor_token = live.store.create_token("editor", "ci")
    yield live
    live.stop()


@pytest.fixture
def draft(tmp_path):
    directory = tmp_path / "repo" / "policies"
    shutil.copytree(PACK, directory, ignore=shutil.ignore_patterns("__*"))
    (directory / "no_deploy.rego").write_text(TEAM_GUARD)
    return directory


def test_impact_and_publish_show_progress_on_a_terminal_and_nothing_in_a_pipe(
    tmp_path, server, draft
):
    home = tmp_path / "home"
    env = hookgate_env(home, HOOKGATE_TOKEN=server.editor_token)
    impact = ["impact", str(draft), "--server", server.url]
    code, out, terminal = on_pty(cli(*impact), env)
    assert code == 0, (out, terminal)
    assert "impact: replaying up to 1000 recorded decisions on the server" in terminal
    assert out.startswith("impact: 0 of 0 replayed decisions")
    piped = run_hookgate(home, *impact, HOOKGATE_TOKEN=server.editor_token)
    assert (piped.returncode, piped.stdout, piped.stderr) == (0, out, "")

    publish = ["publish", str(draft), "--server", server.url, "-m", "a team guard"]
    code, out, terminal = on_pty(cli(*publish, "--dry-run"), env)
    assert code == 0, (out, terminal)
    assert "checking the change set on the server" in terminal
    assert "impact: replaying" in terminal
    assert "+ no_deploy.rego" in out
    piped = run_hookgate(home, *publish, "--dry-run", HOOKGATE_TOKEN=server.editor_token)
    assert (piped.returncode, piped.stdout, piped.stderr) == (0, out, "")

    code, out, terminal = on_pty(cli(*publish), env)
    assert code == 0, (out, terminal)
    for step in ("impact: replaying", "reading the server's active set", "publishing the change"):
        assert step in terminal, step
    assert "published bundle revision" in out
    piped = run_hookgate(home, *publish, HOOKGATE_TOKEN=server.editor_token)
    assert piped.returncode == 0 and piped.stderr == ""
    assert "nothing to change" in piped.stdout


def test_pull_shows_the_download_in_bytes_and_the_compile(tmp_path, server):
    # A bundle made large on purpose: the download reports bytes of its Content-Length.
    filler = json.dumps({"notes": ["x" * 1000] * 900}).encode()  # under the 1 MiB body limit
    for name in ("one", "two"):
        headers = {"Content-Type": "application/json"}
        server.request("PUT", f"/v1/data/team/{name}", filler, headers)
    home = tmp_path / "user"
    piped_home = tmp_path / "piped"
    for where in (home, piped_home):
        where.mkdir()
        login = ["login", "--server", server.url, "--token", server.agent_token]
        assert run_hookgate(where, *login).returncode == 0
        (where / "cache" / "bundle.json").unlink()  # the next pull downloads it again
    code, out, terminal = on_pty(cli("pull"), hookgate_env(home))
    assert code == 0, (out, terminal)
    assert "bundle installed revision" in out
    sizes = [line for line in terminal.split("\r") if line.startswith("downloading the bundle:")]
    assert sizes, terminal
    assert any(" of " in line and "MiB" in line for line in sizes)  # bytes of the total
    assert "compiling bundle revision" in terminal
    piped = run_hookgate(piped_home, "pull")
    assert (piped.returncode, piped.stdout, piped.stderr) == (0, out, "")


def test_a_background_pull_on_a_terminal_prints_nothing(tmp_path, server):
    home = tmp_path / "user"
    home.mkdir()
    login = ["login", "--server", server.url, "--token", server.agent_token]
    assert run_hookgate(home, *login).returncode == 0
    (home / "cache" / "bundle.json").unlink()
    code, out, terminal = on_pty(cli("pull", "--background"), hookgate_env(home))
    assert (code, out, terminal) == (0, "", "")
    assert (home / "cache" / "bundle.json").exists()


# --- install compiles the pack ---------------------------------------------------------------


def cache_state(home: Path) -> dict[str, int]:
    """Every file of the compile cache with its modification time."""
    compiled = home / "hookgate" / "cache" / "compiled"
    if not compiled.exists():
        return {}
    return {
        str(path.relative_to(compiled)): path.stat().st_mtime_ns
        for path in compiled.rglob("*")
        if path.is_file()
    }


def install_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKGATE_")}
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME"):
        env.pop(name, None)
    # No warm process: the first hook's cold start is what install makes fast.
    env.update(HOME=str(home), HOOKGATE_HOME=str(home / "hookgate"), HOOKGATE_WARM="0")
    return env


def first_hook(home: Path, command: str) -> dict:
    """The installed command, run as the host runs it on a force push."""
    payload = json.loads(PAYLOAD.read_text())
    payload["tool_input"]["command"] = "git push --force origin main"
    result = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=install_env(home),
        timeout=120,
    )
    assert result.returncode in (0, 2), result.stderr
    return json.loads(result.stdout)


def denied(answer: dict) -> bool:
    return answer.get("hookSpecificOutput", {}).get("permissionDecision") == "deny"


def guarded(answer: dict) -> bool:
    """The force-push guard decided (it strips the flag by default; denies with the team's
    ``on_force: deny``)."""
    return "pack=force-push" in json.dumps(answer)


def test_without_the_compile_step_the_first_hook_compiles(tmp_path):
    """The measure the next tests rely on: a hook that compiles changes the cache."""
    home = tmp_path / "home"
    home.mkdir()
    assert cache_state(home) == {}
    exe = shutil.which("hookgate", path=str(Path(sys.executable).parent))
    assert guarded(first_hook(home, f"{exe} eval --host claude"))
    assert cache_state(home) != {}


@pytest.mark.parametrize("layered", [False, True], ids=["default pack", "team layers"])
def test_install_compiles_what_the_hook_runs_and_the_first_hook_compiles_nothing(tmp_path, layered):
    home = tmp_path / "home"
    home.mkdir()
    argv = ["install", "claude"]
    if layered:
        team = tmp_path / "team"
        team.mkdir()
        (team / "no_deploy.rego").write_text(TEAM_GUARD)
        (team / "data.json").write_text(
            '{"hookgate": {"config": {"force_push": {"on_force": "deny"}}}}'
        )
        # Written before the install, as a team's files are: a file changed in the last two
        # seconds gets no stamp record (cache.store_stamped; its ctime cannot be set back), and
        # the first hook a slow machine runs seconds later would store the one install could not.
        time.sleep(2.1)
        argv += ["--policies", str(team)]
    code, out, terminal = on_pty(cli(*argv), install_env(home))
    assert code == 0, (out, terminal)
    assert "compiling the pack for the first hook" in terminal
    assert "compiled the pack" in out
    entries = cache_state(home)
    assert entries, "install left the compile cache empty"

    settings = home / ".claude" / "settings.json"
    command = hostconfig.installed_commands(settings.read_text(), "claude")[0]
    assert ("--policies" in command) == layered
    answer = first_hook(home, command)
    assert guarded(answer) and denied(answer) == layered  # the team's setting is in force
    assert cache_state(home) == entries  # nothing compiled, nothing stored: only read
    if layered:  # the team's guard is in what was compiled
        payload = json.loads(PAYLOAD.read_text())
        payload["tool_input"]["command"] = "make deploy"
        result = subprocess.run(
            ["sh", "-c", command],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            env=install_env(home),
            timeout=120,
        )
        assert denied(json.loads(result.stdout)), result.stderr
        assert cache_state(home) == entries


def test_install_in_a_pipe_prints_no_progress_and_a_broken_layer_is_named(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    team = tmp_path / "team"
    team.mkdir()
    (team / "broken.rego").write_text("package hookgate.broken\n\ndeny contains x if {\n")
    result = subprocess.run(
        cli("install", "claude", "--policies", str(team)),
        capture_output=True,
        text=True,
        env=install_env(home),
        timeout=120,
    )
    assert result.returncode == 1
    assert "compiling" not in result.stderr and "\r" not in result.stderr
    assert str(team) in result.stderr and "do not compile" in result.stderr


def test_after_login_install_compiles_the_pulled_bundle_the_hook_runs(tmp_path, server):
    home = tmp_path / "home"
    home.mkdir()
    env = install_env(home)
    login = ["login", "--server", server.url, "--token", server.agent_token]
    assert subprocess.run(cli(*login), env=env, capture_output=True, timeout=120).returncode == 0
    shutil.rmtree(home / "hookgate" / "cache" / "compiled")  # a new Python, a cleaned cache
    code, out, terminal = on_pty(cli("install", "claude"), env)
    assert code == 0, (out, terminal)
    entries = cache_state(home)
    assert entries
    settings = home / ".claude" / "settings.json"
    command = hostconfig.installed_commands(settings.read_text(), "claude")[0]
    assert guarded(first_hook(home, command))
    assert cache_state(home) == entries  # the first hook compiled nothing
    # And what it read was the bundle, not the built-in pack (--explain compiles its own trace).
    payload = json.loads(PAYLOAD.read_text())
    result = subprocess.run(
        ["sh", "-c", command.replace(" eval ", " eval --explain ", 1)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert '"origin": "bundle revision' in result.stderr, result.stderr
