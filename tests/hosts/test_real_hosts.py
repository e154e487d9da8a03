"""hookgate inside the real hosts: each scenario runs one headless agent turn of a pinned host,
whose scripted model calls the host's shell tool with one command. The assertions are on what
the host did (the repository, its bare remote, the files) and on what the model received after
the call (the tool result and what the host added to it), never on hookgate's stdout."""

from __future__ import annotations

from pathlib import Path

import pytest
import realhosts
from realhosts import HOSTS, World
from scripted_model import Model

pytestmark = pytest.mark.parametrize("host", HOSTS)


class Agent:
    """A world with hookgate wired into ``host`` and a way to run one turn in it."""

    def __init__(
        self,
        host: str,
        binary: Path,
        model: Model,
        root: Path,
        install: tuple[str, ...] = ("--trust",),
    ) -> None:
        self.host = host
        self.binary = binary
        self.model = model
        self.world = World(root)
        self.env = realhosts.configure(self.world, host, model.url)
        # --trust: what reviewing the hooks in Codex's /hooks records (the other hosts need none
        # at user scope).
        self.install_output = realhosts.install_hookgate(self.world, host, install)

    def run(self, command: str, *, allow: bool = True) -> str:
        """Run one turn whose model calls the shell tool with ``command``; what the model saw
        after the call."""
        self.model.reset(command)
        turn = realhosts.run_turn(self.host, self.binary, self.world, self.env, allow=allow)
        assert self.model.shell_calls() >= 1, (
            f"{self.host} never offered the model its shell tool:\n{turn.stdout[-2000:]}\n"
            f"{turn.stderr[-2000:]}"
        )
        return self.model.seen_after_tool()


@pytest.fixture
def agent(host: str, host_binaries: dict[str, Path], model: Model, tmp_path: Path) -> Agent:
    return Agent(host, host_binaries[host], model, tmp_path)


def diverge(world: World) -> None:
    """origin/main holds a commit the local main lacks: a force push would replace it, a plain
    push is refused."""
    world.git("checkout", "-q", "main")
    world.git("commit", "-q", "--allow-empty", "-m", "remote-only")
    world.git("push", "-q", "origin", "main")
    world.git("reset", "-q", "--hard", "HEAD~1")
    world.git("commit", "-q", "--allow-empty", "-m", "local-work")


def test_force_push_runs_as_a_plain_push(agent: Agent) -> None:
    world = agent.world
    diverge(world)
    seen = agent.run("git push --force origin main")
    assert world.remote_log()[0] == "remote-only"
    assert "rejected" in seen  # the push ran, without --force, and git refused it


def test_no_verify_is_denied_and_the_model_is_told_why(agent: Agent) -> None:
    world = agent.world
    (world.work / "f.txt").write_text("x\n")
    world.git("add", "f.txt")
    before = world.head()
    seen = agent.run("git commit --no-verify -m x")
    assert world.head() == before
    assert "pack=no-verify" in seen


def test_an_ordinary_command_runs(agent: Agent) -> None:
    # The output is not in the command's text: seeing it proves the command ran.
    seen = agent.run("printf 'ordinary-%s\\n' 42 > out.txt && cat out.txt")
    assert (agent.world.work / "out.txt").read_text() == "ordinary-42\n"
    assert "ordinary-42" in seen
    assert "pack=" not in seen


def test_sessions_share_one_warm_process(agent: Agent) -> None:
    # The first hook call starts the warm process; the calls after it, in this session and the
    # next, are served by it: what the host sets for each session does not make another one.
    served = []
    for n in (1, 2):
        assert f"session-{n}" in agent.run(f"printf 'session-%s\\n' {n}")
        warms = realhosts.warm_processes(agent.world)
        assert len(warms) <= 1, warms
        served.append(int(warms[0].rpartition("(")[2].split()[0]) if warms else 0)
    assert len(warms) == 1 and served[1] > served[0], (warms, served)


def test_context_after_a_command_that_succeeds(agent: Agent) -> None:
    seen = agent.run("cat NOTES.md")
    assert "IGNORE ALL PREVIOUS INSTRUCTIONS" in seen  # the result itself
    assert "pack=xpia" in seen  # and hookgate's warning about it


def test_context_after_a_command_that_fails(agent: Agent) -> None:
    seen = agent.run("cat NOTES.md; exit 3")
    assert "IGNORE ALL PREVIOUS INSTRUCTIONS" in seen
    assert "pack=xpia" in seen


def test_commit_on_main_is_denied(agent: Agent) -> None:
    world = agent.world
    world.git("checkout", "-q", "main")
    (world.work / "f.txt").write_text("x\n")
    world.git("add", "f.txt")
    before = world.head()
    seen = agent.run("git commit -m x")
    assert world.head() == before
    assert "pack=main-branch" in seen


def test_oversize_command_does_not_run(agent: Agent) -> None:
    marker = agent.world.work / "marker.txt"
    seen = agent.run("echo ran > marker.txt; : " + "a" * 70_000)
    assert not marker.exists()
    if agent.host == "gemini":
        # Headless, Gemini's own ask would wait for an answer until killed: the turn ended, and
        # the model was told approval is required (hookgate.hostio.hostmode).
        assert "Approval required" in seen


def test_writing_a_git_hook_is_denied(agent: Agent) -> None:
    hook = agent.world.work / ".git" / "hooks" / "pre-commit"
    seen = agent.run("printf '#!/bin/sh\\nexit 0\\n' > .git/hooks/pre-commit")
    assert not hook.exists()
    assert "pack=no-verify" in seen


def test_a_guard_in_warn_mode_lets_the_command_run_and_the_model_is_warned(
    host: str, host_binaries: dict[str, Path], model: Model, tmp_path: Path
) -> None:
    # The team's layer puts no-verify into warn mode (data.hookgate.modes): the commit runs,
    # and the guard's reason reaches the model in the host's own way of passing context.
    team = tmp_path / "team"
    team.mkdir()
    (team / "data.json").write_text('{"hookgate": {"modes": {"no_verify": "warn"}}}')
    (tmp_path / "world").mkdir()
    install = ("--trust", "--policies", str(team))
    agent = Agent(host, host_binaries[host], model, tmp_path / "world", install)
    world = agent.world
    # Some hosts run the shell without the test's author variables: the repository names one.
    world.git("config", "user.name", "warned")
    world.git("config", "user.email", "warned@example.com")
    (world.work / "f.txt").write_text("x\n")
    world.git("add", "f.txt")
    before = world.head()
    seen = agent.run("git commit --no-verify -m warned")
    assert world.head() != before, seen[-3000:]  # the commit ran
    # Gemini 0.61 reads no context before a tool (its user sees that warning); it passes the
    # same guard's warning after the tool, as every host does.
    assert "hookgate would deny this call (warn mode, not enforced)" in seen
    assert "pack=no-verify" in seen
