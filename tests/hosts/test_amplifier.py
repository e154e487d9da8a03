"""hookgate's native hook module inside the real Amplifier kernel (amplifier-core from PyPI,
pinned), which has no runnable app in the registries: ``amplifier_run.py`` runs one turn with a
minimal orchestrator, context, provider and bash tool of our own, in a venv of its own (the
kernel's pytest plugin stays out of this test run)."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from realhosts import CACHE, World

KERNEL = "amplifier-core==2.0.2"
RUNNER = Path(__file__).with_name("amplifier_run.py")


@pytest.fixture(scope="session")
def kernel_python() -> str:
    """The Python of a cached venv holding the pinned kernel, and this hookgate (a .pth line
    that adds this interpreter's site-packages, where hookgate and its entry point are)."""
    venv = CACHE / KERNEL.replace("==", "@")
    python = venv / "bin" / "python"
    if not (venv / ".complete").exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        done = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", KERNEL], capture_output=True, text=True
        )
        if done.returncode != 0:
            pytest.fail(f"pip install {KERNEL} failed:\n{done.stderr[-2000:]}")
        (venv / ".complete").write_text(KERNEL)
    where = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    purelib = subprocess.run([str(python), "-c", where], capture_output=True, text=True).stdout
    ours = sysconfig.get_paths()["purelib"]
    Path(purelib.strip(), "hookgate-under-test.pth").write_text(
        f"import site; site.addsitedir({ours!r})\n"
    )
    return str(python)


def turn(kernel_python: str, world: World, command: str) -> dict:
    done = subprocess.run(
        [kernel_python, str(RUNNER), command],
        cwd=world.work,
        env={**world.env, "HOOKGATE_FAILURE_POLICY": "open"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def tool_results(run: dict) -> str:
    return "\n".join(m["content"] for m in run["messages"] if m["role"] == "tool")


def test_the_kernel_blocks_a_denied_call(kernel_python: str, tmp_path: Path) -> None:
    world = World(tmp_path)
    (world.work / "f.txt").write_text("x\n")
    world.git("add", "f.txt")
    before = world.head()
    run = turn(kernel_python, world, "git commit --no-verify -m x")
    assert run["ran"] == [] and world.head() == before
    assert run["pre"][0]["action"] == "deny"
    assert "pack=no-verify" in tool_results(run)  # the model is told why


def test_a_rewrite_is_a_deny_naming_the_call_to_retry(kernel_python: str, tmp_path: Path) -> None:
    world = World(tmp_path)
    run = turn(kernel_python, world, "git push --force origin main")
    assert run["ran"] == []
    assert 'retry with: {"command": "git push origin main"}' in tool_results(run)


def test_the_kernel_injects_the_context_after_a_call(kernel_python: str, tmp_path: Path) -> None:
    world = World(tmp_path)
    run = turn(kernel_python, world, "cat NOTES.md")
    assert run["ran"] == ["cat NOTES.md"]
    injected = [m for m in run["messages"] if (m.get("metadata") or {}).get("source") == "hook"]
    assert len(injected) == 1 and "pack=xpia" in injected[0]["content"]
    assert injected[0]["metadata"]["hook_name"] == "hookgate"


def test_an_ordinary_call_runs_untouched(kernel_python: str, tmp_path: Path) -> None:
    world = World(tmp_path)
    run = turn(kernel_python, world, "printf 'ordinary-%s\\n' 42")
    assert "ordinary-42" in tool_results(run)
    assert not any((m.get("metadata") or {}).get("source") == "hook" for m in run["messages"])
