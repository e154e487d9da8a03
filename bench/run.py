"""hookgate's speed and memory, as ratios against baselines measured in the same run.

    .venv/bin/python bench/run.py [--runs 40] [--iterations 2000] [--installed]

1. Whole process, median wall time of one hook call (warm compile cache):
   `hookgate eval` against (a) the least a Python hook can do (`minimal_hook.py`: read stdin
   with json, one re.search, print) and (b) a Python hook evaluating the same guards on regorus
   (`regorus_hook.py`). With ``--installed``, the same figures again with hookgate installed
   from a wheel in a throw-away venv, as a user's ``pip install hookgate`` leaves it (the hook
   command ``hookgate install`` wires, served by its warm process as users run it, and with
   ``HOOKGATE_WARM=0``), and, where valgrind is installed, the instructions each process
   executes without a warm process (a ratio a busy machine does not blur). The editable
   install's import hook (run by every process of this venv, the baselines' included) imports
   pathlib, re, enum and more at start-up, which makes them free for hookgate here but not
   there. Building the wheel needs setuptools from the configured package index.
2. In process, time per decision: `Engine.evaluate` on the default pack against regorus
   evaluating the same modules, data and input (hookgate's domain builtins registered as
   regorus extensions).
3. Peak memory (max RSS) of one `hookgate eval` process against the minimal hook.

Every subprocess runs with ``PYTHONDONTWRITEBYTECODE`` removed from its environment, and
``python -m compileall`` precompiles ``service/`` once at the start, so that modules load from
``.pyc`` files as they do on a user's machine (a process that recompiles every module from source
measures the compiler, not the hook).

Nothing here asserts: the figures go into docs/evidence/performance.md.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PYTHON = sys.executable
HOOKGATE = str(Path(sys.executable).parent / "hookgate")
PAYLOADS = {
    "force push (rewrite)": "git push --force origin main",
    "no-verify (deny)": "git commit --no-verify -m wip",
    "harmless (allow)": "npm test -- --watch=false",
}


def payload(command: str) -> dict:
    return {
        "session_id": "bench",
        "transcript_path": "/tmp/bench.jsonl",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "bench"},
        "tool_use_id": "toolu_bench",
    }


def median_process_ms(
    commands: list[tuple[list[str], dict]], stdin: bytes, runs: int
) -> list[float]:
    """The median wall time of each ``(argv, environment)`` over ``runs`` rounds. The commands
    take turns, so that a change in the machine's load weighs on every figure of a ratio alike,
    and each timed run follows an untimed run of the same command: it finds the caches (the
    compile cache, the CPU's) as that command leaves them, not as the heavier regorus hook run
    just before did."""
    times: list[list[float]] = [[] for _ in commands]
    for _ in range(runs):
        for (argv, env), spent in zip(commands, times, strict=True):
            for timed in (False, True):
                start = time.perf_counter()
                subprocess.run(argv, input=stdin, capture_output=True, env=env, check=True)
                if timed:
                    spent.append(time.perf_counter() - start)
    return [statistics.median(spent) * 1000 for spent in times]


def installed_hook_argv(python: str, env: dict) -> list[str]:
    """The command ``hookgate install claude`` wires (in a throw-away HOME), as argv."""
    import shlex

    home = tempfile.mkdtemp(prefix="hookgate-bench-home-")
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    hookgate = str(Path(python).parent / "hookgate")
    subprocess.run(
        [hookgate, "install", "claude"], env={**env, "HOME": home}, check=True, capture_output=True
    )
    settings = json.loads(Path(home, ".claude", "settings.json").read_text())
    return shlex.split(settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"])


def whole_process(python: str, env: dict, runs: int, hook: list[str] | None = None) -> None:
    """Section 1's table for hookgate and the baselines run by ``python``; ``hook``: the
    command ``hookgate install`` wires, measured as users run it (served by its warm process)
    and with the warm process off (``HOOKGATE_WARM=0``), beside the ``hookgate`` console
    script."""
    hookgate = [str(Path(python).parent / "hookgate"), "eval"]
    commands = {"hookgate eval": (hookgate, env)}
    if hook is not None:
        commands = {
            # The warm process ends 30 s after the run; no other process uses it.
            "installed hook": (hook, {**env, "HOOKGATE_WARM": "30"}),
            "no warm proc.": (hook, {**env, "HOOKGATE_WARM": "0"}),
            "console script": (hookgate, env),
        }
    heads = "".join(f" {name:>15}" for name in commands)
    print(f"   {'payload':24}{heads} {'(a) min':>8} {'(b) regorus':>12}   ÷(a)")
    for name, command in PAYLOADS.items():
        stdin = json.dumps(payload(command)).encode()
        *ours, minimal, rego = median_process_ms(
            [
                *commands.values(),
                ([python, str(HERE / "minimal_hook.py")], env),
                # regorus and the pack's builtins live in this checkout's venv, not the fresh one.
                ([PYTHON, str(HERE / "regorus_hook.py")], env),
            ],
            stdin,
            runs,
        )
        figures = "".join(f" {ms:15.1f}" for ms in ours)
        ratios = " ".join(f"{ms / minimal:.2f}" for ms in ours)
        print(f"   {name:24}{figures} {minimal:8.1f} {rego:12.1f}   {ratios}")


def callgrind_counts(argv: list[str], stdin: bytes, env: dict, options: tuple = ()) -> list[int]:
    """The events one run of ``argv`` counts under valgrind's callgrind with ``options``, in the
    order it prints them (first the instructions): unlike wall time, the same on a busy
    machine as on a quiet one."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *options, *argv],
        input=stdin,
        capture_output=True,
        env=env,
        check=True,
    )
    marker = b"Collected : "
    line = next(line for line in done.stderr.splitlines() if marker in line)
    return [int(v) for v in line.split(marker)[1].split()]


def instructions(argv: list[str], stdin: bytes, env: dict) -> int:
    """Instructions one run of ``argv`` executes (``callgrind_counts``' first)."""
    return callgrind_counts(argv, stdin, env)[0]


def instruction_counts(python: str, hook: list[str], env: dict) -> None:
    """Section 1's ratios in instructions: the wired hook with no warm process (valgrind's
    processes cannot use one: it removes its LD_PRELOAD from the environment of the processes it
    does not trace, and the executable of one it traces is valgrind's) and the minimal hook, and
    the Python start-up both share (``python -I -S -c pass``), each run once after a warm-up
    run."""
    env = {**env, "HOOKGATE_WARM": "0"}
    print(f"   {'payload':24} {'hook':>12} {'(a) min':>12} {'bare python':>12}   ÷(a)")
    for name, command in PAYLOADS.items():
        stdin = json.dumps(payload(command)).encode()
        argvs = [hook, [python, str(HERE / "minimal_hook.py")], [python, "-I", "-S", "-c", "pass"]]
        for argv in argvs:  # warm: the compile cache, the .pyc files
            subprocess.run(argv, input=stdin, capture_output=True, env=env, check=True)
        ours, minimal, bare = (instructions(argv, stdin, env) for argv in argvs)
        print(f"   {name:24} {ours:12,} {minimal:12,} {bare:12,}   {ours / minimal:.2f}")


def peak_rss_kib(argv: list[str], stdin: bytes, env: dict) -> int:
    """Max RSS of one run, measured in a fresh parent so no earlier child counts."""
    probe = (
        "import resource, subprocess, sys;"
        "subprocess.run(sys.argv[1:], input=sys.stdin.buffer.read(), capture_output=True);"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run(
        [PYTHON, "-c", probe, *argv], input=stdin, capture_output=True, env=env, check=True
    )
    return int(out.stdout)


def per_decision_us(fn, iterations: int) -> float:
    fn()
    start = time.perf_counter()
    for _ in range(iterations):
        fn()
    return (time.perf_counter() - start) / iterations * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40, help="processes per whole-process figure")
    parser.add_argument(
        "--iterations", type=int, default=2000, help="decisions per in-process figure"
    )
    parser.add_argument(
        "--installed",
        action="store_true",
        help="also measure section 1 with hookgate installed from a wheel, not editable",
    )
    args = parser.parse_args()

    from installed import installed_python
    from regorus_hook import regorus_decide, regorus_engine

    from hookgate.engine import Engine
    from hookgate.sources import default_pack_path

    home = tempfile.mkdtemp(prefix="hookgate-bench-")
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    env = dict(os.environ, HOOKGATE_HOME=home)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    service = HERE.parent / "service"
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(service)], env=env, check=True)
    print(f"hookgate benchmark — Python {sys.version.split()[0]}, {os.cpu_count()} cpus\n")

    print("1. whole process, median ms per hook call (warm cache)")
    whole_process(PYTHON, env, args.runs)
    if args.installed:
        workdir = tempfile.mkdtemp(prefix="hookgate-bench-venv-")
        atexit.register(shutil.rmtree, workdir, ignore_errors=True)
        python = installed_python(workdir, env)
        hook = installed_hook_argv(python, env)
        print("   installed as users install it (fresh venv, stock pip, wheel), the hook as")
        print(f"   hookgate install wires it: {' '.join(hook[:4])} … {' '.join(hook[5:])}")
        whole_process(python, env, args.runs, hook)
        if shutil.which("valgrind"):
            print("   with no warm process, in instructions executed (valgrind callgrind;")
            print("   load-independent)")
            instruction_counts(python, hook, env)

    print("\n2. in process, µs per decision on the default pack")
    engine = Engine.from_paths([default_pack_path()])
    rego = regorus_engine()
    print(f"   {'payload':24} {'hookgate':>9} {'regorus':>9} {'ratio':>6}")
    for name, command in PAYLOADS.items():
        doc = payload(command)
        ours = per_decision_us(lambda doc=doc: engine.evaluate(doc), args.iterations)
        theirs = per_decision_us(lambda doc=doc: regorus_decide(rego, doc), args.iterations)
        print(f"   {name:24} {ours:9.1f} {theirs:9.1f} {ours / theirs:6.2f}")

    print("\n3. peak memory of one process, MiB")
    stdin = json.dumps(payload(PAYLOADS["force push (rewrite)"])).encode()
    ours = peak_rss_kib([HOOKGATE, "eval"], stdin, env) / 1024
    minimal = peak_rss_kib([PYTHON, str(HERE / "minimal_hook.py")], stdin, env) / 1024
    print(f"   hookgate eval {ours:.1f}   minimal hook {minimal:.1f}   ratio {ours / minimal:.2f}")


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
