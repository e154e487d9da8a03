"""What each host does with a setup hookgate's `doctor` calls unprotected, and with the answer
a rewrite gets when it is to be asked about (`install --rewrite ask`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from realhosts import HOSTS, doctor, hookgate
from scripted_model import Model
from test_real_hosts import Agent, diverge


def test_codex_runs_no_untrusted_hook_and_doctor_says_so(
    host_binaries: dict[str, Path], model: Model, tmp_path: Path
) -> None:
    # A user-scope install trusts the hook it writes; --no-trust leaves it for the user to review.
    agent = Agent("codex", host_binaries["codex"], model, tmp_path, install=("--no-trust",))
    assert "NOT PROTECTED YET: Codex will not run hookgate" in agent.install_output
    report = doctor(agent.world)
    assert report.returncode == 1 and "--trust" in report.stdout
    diverge(agent.world)
    agent.run("git push --force origin main")
    # Codex ran the force push untouched: the hook never ran, as doctor said.
    assert agent.world.remote_log()[0] == "local-work"


@pytest.mark.parametrize("trusted", [False, True], ids=["untrusted", "trusted"])
def test_copilot_project_hooks_run_only_in_a_trusted_folder(
    host_binaries: dict[str, Path], model: Model, tmp_path: Path, trusted: bool
) -> None:
    install = ("--scope", "project", *(("--trust",) if trusted else ()))
    agent = Agent("copilot", host_binaries["copilot"], model, tmp_path, install=install)
    assert ("NOT PROTECTED YET" in agent.install_output) != trusted
    # The project's portable hook runs the hookgate on PATH, as a developer's installed one is.
    env = agent.world.env
    env["PATH"] = f"{hookgate().parent}:{env['PATH']}"
    assert (doctor(agent.world).returncode == 0) == trusted
    world = agent.world
    (world.work / "f.txt").write_text("x\n")
    world.git("add", "f.txt")
    before = world.head()
    agent.run("git commit --no-verify -m x")
    assert (world.head() == before) == trusted


@pytest.mark.parametrize("host", HOSTS)
def test_a_rewrite_to_be_asked_about_runs_nothing_unasked(
    host: str, host_binaries: dict[str, Path], model: Model, tmp_path: Path
) -> None:
    agent = Agent(
        host, host_binaries[host], model, tmp_path, install=("--trust", "--rewrite", "ask")
    )
    diverge(agent.world)
    seen = agent.run("git push --force origin main")
    assert agent.world.remote_log()[0] == "remote-only"  # no force push
    assert "rejected" not in seen  # and no push at all: nobody approved the rewritten one
