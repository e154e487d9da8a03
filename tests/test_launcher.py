"""The launcher `hookgate install` wires (hookgate/launcher.py): the hook's modules served from
one file in the compile cache while their sources are unchanged, the process ended without the
interpreter's teardown. Its speed: bench/run.py --installed."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys

import pytest

from hookgate import launcher

PAYLOAD = {
    "session_id": "s",
    "cwd": "/tmp",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "git commit --no-verify -m wip"},
}
LAUNCH = "from hookgate.launcher import launch; launch()"
# Which loader gave hookgate.engine, and from which file, with the module file's finder first.
PROBE = (
    "import sys; from hookgate import launcher;"
    "f = launcher._Finder(launcher._read(launcher._modules_path())); sys.meta_path.insert(0, f);"
    "import hookgate.engine as e; print(type(e.__spec__.loader) is launcher._Loader, e.__file__)"
)


@pytest.fixture
def env(tmp_path) -> dict:
    env = dict(os.environ, HOOKGATE_HOME=str(tmp_path / "home"))
    env.pop("HOOKGATE_FAILURE_POLICY", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # the module file is made of .pyc files
    return env


def hook(env: dict, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", LAUNCH, *argv],
        input=json.dumps(PAYLOAD),
        env=env,
        capture_output=True,
        text=True,
    )


def module_file(env: dict) -> str:
    tag = sys.implementation.cache_tag
    return os.path.join(env["HOOKGATE_HOME"], "cache", "compiled", f"modules-{tag}.code")


def probe(env: dict) -> tuple[bool, str]:
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True)
    served, file = done.stdout.split()
    return served == "True", file


def test_the_hook_answers_logs_and_then_serves_its_modules_from_one_file(env) -> None:
    import hookgate.engine

    for run in range(3):  # cold (compiles: writes no module file), warm (writes it), warm
        done = hook(env, "eval", "--host", "claude")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
        assert os.path.exists(module_file(env)) == (run > 0)
    log = os.path.join(env["HOOKGATE_HOME"], "state", "decisions", "current.jsonl")
    with open(log) as f:
        assert len(f.readlines()) == 3  # each process logged before it ended
    assert probe(env) == (True, hookgate.engine.__file__)
    assert hook(env, "no-such-command").returncode == 2


def test_a_module_whose_source_changed_is_imported_as_usual(env) -> None:
    hook(env, "eval", "--host", "claude")
    hook(env, "eval", "--host", "claude")
    path = module_file(env)
    with open(path, "rb") as f:
        head = f.read(len(launcher._MAGIC)) + f.readline()
        entries, codes = marshal.loads(f.read())
    source, mtime_ns, *rest = entries["hookgate.engine"]
    entries["hookgate.engine"] = (source, mtime_ns - 1, *rest)  # as if the source were edited
    with open(path, "wb") as f:
        f.write(head + marshal.dumps((entries, codes)))
    assert probe(env)[0] is False


def test_policies_compile_with_the_modules_of_the_module_file(env, tmp_path) -> None:
    """Policies the compile cache has not seen (edited, pulled, ``--policies``) are parsed with
    the grammar read through the loader of ``hookgate.grammar``, which the module file serves
    once a warm hook has imported it."""
    import shutil

    from hookgate.sources import default_pack_path

    hook(env, "eval", "--host", "claude")
    hook(env, "eval", "--host", "claude")
    with open(module_file(env), "rb") as f:
        f.read(len(launcher._MAGIC))
        f.readline()
        assert "hookgate.grammar" in marshal.loads(f.read())[0]
    pack = shutil.copytree(default_pack_path(), tmp_path / "pack")
    done = hook(env, "eval", "--host", "claude", "--policies", str(pack))
    assert done.stderr == ""
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.parametrize(
    "damage", ["writable by others", "truncated", "another python", "another install"]
)
def test_an_unsafe_or_damaged_module_file_is_ignored(env, damage) -> None:
    hook(env, "eval", "--host", "claude")
    hook(env, "eval", "--host", "claude")
    path = module_file(env)
    assert probe(env)[0] is True
    if damage == "writable by others":
        os.chmod(path, 0o666)
    else:
        with open(path, "rb") as f:
            content = f.read()
        if damage == "truncated":
            content = content[: len(content) // 2]
        elif damage == "another python":
            content = content.replace(launcher._header(), b"00000000 " + launcher._header()[9:])
        else:  # the same version installed elsewhere (another venv sharing the cache)
            here = os.fsencode(os.path.dirname(os.path.abspath(launcher.__file__)))
            other = launcher._header().replace(here, b"/elsewhere/hookgate")
            content = content.replace(launcher._header(), other)
        with open(path, "wb") as f:
            f.write(content)
    assert probe(env)[0] is False
    done = hook(env, "eval", "--host", "claude")
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
