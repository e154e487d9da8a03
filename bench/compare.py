"""Before and after in one run: this checkout against an earlier revision of it, both installed
from wheels as users install them, measured turn about on the same machine.

    .venv/bin/python bench/compare.py REVISION [--runs 20] [--rounds 30] [--iterations 200] [--no-linear]
        [--fresh] [--collector] [--instructions] [--callgrind]

1. Whole process, median ms per hook call: the hook command ``hookgate install`` wires, served
   by its warm process and with ``HOOKGATE_WARM=0``, for each revision, beside the minimal hook
   (``minimal_hook.py``) as the machine's yardstick.
2. In process, µs per decision on the default pack (``Engine.evaluate``), for the everyday mix:
   the three shell payloads of ``run.py`` and a Read, an Edit and a Write (``--instructions``:
   also 4 KB texts the prompt-injection guard reads; ``--fresh``: again with a text of its own
   on every call, so that nothing cached by a text's content, the shell line's analysis, is
   found as it is when one document repeats: once with a comment of its own ending each
   command, once with a word of its own, which git's parse reads afresh too). Both revisions serve from a warm process each and
   take turns payload by payload, so each ratio is the median of ratios measured a tenth of a
   second apart (with its quartiles). The mixes' ratios are those of a decision drawn evenly
   from ``run.py``'s three shell payloads, and from all of them. Decisions run as the hook
   runs its one decision in both revisions (``commands/eval.py``): with the garbage collector
   off, each round's garbage collected after it, outside the timing (``--collector``: on, as
   in entries before 2026-12-06). Beside it, the Python bytecodes one decision executes: a
   count the machine's load does not move (calls into C count as one), for a shared machine.
3. Linear time: each revision's own ``bench/linear_time.py`` against its own wheel, and the
   ratio of their times per KiB at the largest size, construct by construct.
4. With ``--callgrind`` (valgrind installed): per decision of each payload of section 2, the
   machine instructions each revision executes and the level-1 cache misses and mispredicted
   branches valgrind's model of the processor counts (only the decisions are counted: the loop
   runs inside ``exec``, which ``--toggle-collect`` follows). Counts a busy machine does not
   move, one level below section 2's bytecodes: a revision that executes fewer instructions but
   takes longer waits on memory or branches, not on work.

Ratios are after ÷ before: 1.00 is unchanged, below is faster. Nothing here asserts; the figures
go to the docs' evidence pages (``docs/evidence/performance.md``).
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
from pathlib import Path

HERE = Path(__file__).resolve().parent

FILE_CALLS = {
    "Read": {"file_path": "/tmp/project/src/app.py"},
    "Edit": {"file_path": "/tmp/project/src/app.py", "old_string": "a = 1", "new_string": "a = 2"},
    "Write": {"file_path": "/tmp/project/src/new.py", "content": "print('hello')\n"},
}

# Run by each revision's python, as a server: it answers first the Python bytecodes one decision
# of each payload executes (counted with sys.settrace: the same on every run, whatever the
# machine's load), then, for each line ``[payload, iterations]`` it reads, µs per decision.
PROBE = """
import gc, json, sys, time
from hookgate.engine import Engine
from hookgate.sources import default_pack_path
docs, fresh, collector = json.loads(sys.stdin.readline())
engine = Engine.from_paths([default_pack_path()])
serial = [0]
def variant(doc):
    # The same call with a text no earlier call had: the analyses cached by a text's content
    # (the shell line's) start afresh, as for an agent's stream of different calls. "comment":
    # the command ends in a comment of its own; "word": in a word of its own, which git's
    # parse, cached by the command's words, reads afresh too (a new commit message).
    if not fresh:
        return doc
    serial[0] += 1
    tool_input = dict(doc["tool_input"])
    tail = f" # {serial[0]}" if fresh == "comment" else f" w{serial[0]}"
    for field in ("command", "new_string", "content"):
        if field in tool_input:
            tool_input[field] += tail if field == "command" else f"# {serial[0]}\\n"
    return {**doc, "tool_input": tool_input}
def counted(frame, event, arg):
    frame.f_trace_opcodes = True
    if event == "opcode":
        count[0] += 1
    return counted
ops = {}
for name, doc in docs.items():
    engine.evaluate(doc)
    count = [0]
    call = variant(doc)
    sys.settrace(counted)
    engine.evaluate(call)
    sys.settrace(None)
    ops[name] = count[0]
print(json.dumps(ops), flush=True)
for line in sys.stdin:
    name, iterations = json.loads(line)
    calls = [variant(docs[name]) for _ in range(iterations)]
    # As the hook decides (commands/eval.py, both revisions): no collection pass during a
    # decision; the batch's garbage is collected after it, outside the timing.
    if not collector:
        gc.disable()
    start = time.perf_counter()
    for call in calls:
        engine.evaluate(call)
    spent = time.perf_counter() - start
    if not collector:
        gc.enable()
        gc.collect()
    print(json.dumps(spent / iterations * 1e6), flush=True)
"""


def everyday_docs() -> dict[str, dict]:
    from run import PAYLOADS, payload

    docs = {name: payload(command) for name, command in PAYLOADS.items()}
    for tool, tool_input in FILE_CALLS.items():
        doc = payload("")
        doc.update(tool_name=tool, tool_input=tool_input, cwd="/tmp/project")
        docs[tool] = doc
    return docs


def instruction_docs() -> dict[str, dict]:
    """With ``--instructions``: what the prompt-injection guard reads, about 4 KB each (a
    Write of code, of an AGENTS.md in ASCII and in accented French) and sub-agent prompts."""
    from run import payload

    code = "".join(
        f"def step_{i}(x):\n    return x * {i} + len(str(x))  # $PATH | a1\n" for i in range(70)
    )
    guide = "".join(
        f"- Run `make check` before commit {i}; ignore the lint rules in gen/.\n" for i in range(60)
    )
    french = "".join(
        f"- Vérifiez la traduction n°{i} : déjà validée, à relire.\n" for i in range(75)
    )
    calls = {
        "Write 4 KB code": ("Write", {"file_path": "/tmp/project/src/steps.py", "content": code}),
        "Write 4 KB AGENTS.md": (
            "Write",
            {"file_path": "/tmp/project/AGENTS.md", "content": guide},
        ),
        "Write 4 KB AGENTS.md fr": (
            "Write",
            {"file_path": "/tmp/project/AGENTS.md", "content": french},
        ),
        "Task prompt 1 KB": ("Task", {"prompt": guide[:1024], "description": "check"}),
        "save_memory": ("save_memory", {"fact": "The team formats Python with ruff."}),
    }
    docs = {}
    for name, (tool, tool_input) in calls.items():
        doc = payload("")
        doc.update(tool_name=tool, tool_input=tool_input, cwd="/tmp/project")
        docs[name] = doc
    return docs


def in_process(
    pythons: dict[str, str],
    envs: dict[str, dict],
    iterations: int,
    rounds: int,
    docs: dict[str, dict],
    fresh: str | None = None,
    collector: bool = False,
) -> None:
    """Both revisions serve decisions from a process each, kept warm for the whole section. In
    every round each payload runs ``iterations`` decisions in the one revision and straight
    after in the other (which goes first alternates), so both figures of a ratio meet the
    machine in the same tenth of a second: a ratio is the median of the rounds' ratios, not a
    ratio of medians taken seconds apart."""
    probes = {
        label: subprocess.Popen(
            [python, "-c", PROBE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=envs[label],
        )
        for label, python in pythons.items()
    }

    def ask(label: str, line: object) -> object:
        probe = probes[label]
        assert probe.stdin is not None and probe.stdout is not None
        probe.stdin.write(json.dumps(line) + "\n")
        probe.stdin.flush()
        answer = probe.stdout.readline()
        if not answer:
            raise SystemExit(f"{label}: the probe ended (exit {probe.wait()})")
        return json.loads(answer)

    ops = {label: ask(label, [docs, fresh, collector]) for label in probes}
    times: dict[str, dict[str, list[float]]] = {label: {n: [] for n in docs} for label in probes}
    order = list(probes)
    for _ in range(rounds):
        for name in docs:
            for label in order:
                times[label][name].append(ask(label, [name, iterations]))
        order.reverse()
    for probe in probes.values():
        assert probe.stdin is not None
        probe.stdin.close()
        probe.wait()

    before, after = times["before"], times["after"]
    print(
        f"   {'payload':24} {'before':>9} {'after':>9} {'after÷before':>13} {'(quartiles)':>12}"
        f" {'bytecodes: before':>18} {'after':>7} {'÷':>5}"
    )
    for name in docs:
        ratios = [a / b for a, b in zip(after[name], before[name], strict=True)]
        low, _, high = statistics.quantiles(ratios, n=4)
        print(
            f"   {name:24} {statistics.median(before[name]):9.1f}"
            f" {statistics.median(after[name]):9.1f} {statistics.median(ratios):13.2f}"
            f" {low:5.2f}–{high:<5.2f}"
            f" {ops['before'][name]:18} {ops['after'][name]:7}"
            f" {ops['after'][name] / ops['before'][name]:5.2f}"
        )
    # A mix: a decision drawn evenly from its payloads, so each round's ratio of summed µs.
    from run import PAYLOADS

    mixes = {"run.py's (shell)": [n for n in docs if n in PAYLOADS], f"all {len(docs)}": list(docs)}
    for label, names in mixes.items():
        mix = [
            sum(after[n][r] for n in names) / sum(before[n][r] for n in names)
            for r in range(rounds)
        ]
        low, _, high = statistics.quantiles(mix, n=4)
        print(
            f"   {'mix: ' + label:24} {'':9} {'':9} {statistics.median(mix):13.2f}"
            f" {low:5.2f}–{high:<5.2f}"
        )


def whole_process(
    hooks: dict[str, list[str]], envs: dict[str, dict], python: str, runs: int
) -> None:
    from run import PAYLOADS, median_process_ms, payload

    commands = []
    for label, hook in hooks.items():
        commands.append((hook, {**envs[label], "HOOKGATE_WARM": "30"}))
        commands.append((hook, {**envs[label], "HOOKGATE_WARM": "0"}))
    commands.append(([python, str(HERE / "minimal_hook.py")], envs["after"]))
    print(
        f"   {'payload':24} {'before':>8} {'after':>8} {'÷':>5}"
        f"   {'no warm: before':>15} {'after':>8} {'÷':>5}   {'minimal':>8}"
    )
    for name, command in PAYLOADS.items():
        stdin = json.dumps(payload(command)).encode()
        warm_b, cold_b, warm_a, cold_a, minimal = median_process_ms(commands, stdin, runs)
        print(
            f"   {name:24} {warm_b:8.1f} {warm_a:8.1f} {warm_a / warm_b:5.2f}"
            f"   {cold_b:15.1f} {cold_a:8.1f} {cold_a / cold_b:5.2f}   {minimal:8.1f}"
        )


def linear_time(scripts: dict[str, tuple[str, Path]], envs: dict[str, dict]) -> None:
    """Each revision's own linear_time.py, construct by construct and revision after revision
    (so that a change in the machine's load weighs on both alike), then the ratio of their times
    per KiB at the largest size."""
    python, script = scripts["after"]
    listing = [python, str(script), "--help"]
    wide = {**envs["after"], "COLUMNS": "100000"}  # argparse would wrap the choices
    help_text = subprocess.run(listing, text=True, capture_output=True, env=wide).stdout
    names = help_text.split("--construct {")[1].split("}")[0].split(",")
    rows: dict[str, dict[str, list[str]]] = {label: {} for label in scripts}
    for name in names:
        for label, (python, script) in scripts.items():
            argv = [python, str(script), "--runs", "3", "--construct", name]
            done = subprocess.run(argv, text=True, capture_output=True, env=envs[label])
            if done.returncode not in (0, 1):  # 1: a target missed, still measured
                rows[label][name] = []
                continue
            rows[label][name] = done.stdout.splitlines()[1].split()
    print(
        f"   {'construct':<24} {'64 KiB ms/KiB: before':>22} {'after':>8} {'÷':>5}"
        f"   {'outcome: before':>15} {'after':>8}"
    )
    ratios = []
    for name in names:
        before, after = rows["before"][name], rows["after"][name]
        if not before or not after:
            print(f"   {name:<24} (not in both revisions)")
            continue
        ratio = float(after[3]) / max(float(before[3]), 0.01)
        ratios.append(ratio)
        print(
            f"   {name:<24} {before[3]:>22} {after[3]:>8} {ratio:5.2f}"
            f"   {' '.join(before[6:]):>15} {' '.join(after[6:]):>8}"
        )
    print(f"   median ratio {statistics.median(ratios):.2f}, largest {max(ratios):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revision", help="the git revision to compare this checkout against")
    parser.add_argument("--runs", type=int, default=20, help="processes per whole-process figure")
    parser.add_argument(
        "--iterations", type=int, default=200, help="section 2: decisions per payload per round"
    )
    parser.add_argument("--rounds", type=int, default=30, help="section 2: rounds (≥ 2)")
    parser.add_argument("--no-linear", action="store_true", help="skip section 3")
    parser.add_argument(
        "--instructions", action="store_true", help="section 2 also for 4 KB instruction texts"
    )
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="section 4: instructions and cache misses per decision (valgrind)",
    )
    parser.add_argument(
        "--collector",
        action="store_true",
        help="section 2 with the garbage collector on (the hook decides with it off)",
    )
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="section 2 again with a different text on every call (nothing cached by content)",
    )
    args = parser.parse_args()

    from installed import installed_python
    from run import installed_hook_argv

    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    revisions = {"before": args.revision, "after": None}
    pythons, envs, workdirs = {}, {}, {}
    for label, revision in revisions.items():
        # Each revision its own HOOKGATE_HOME: a warm process retires when it meets other code.
        workdirs[label] = tempfile.mkdtemp(prefix=f"hookgate-compare-{label}-")
        atexit.register(shutil.rmtree, workdirs[label], ignore_errors=True)
        pythons[label] = installed_python(workdirs[label], env, revision)
        envs[label] = {**env, "HOOKGATE_HOME": os.path.join(workdirs[label], "home")}
    commit = subprocess.run(
        ["git", "-C", str(HERE), "rev-parse", "--short", args.revision],
        text=True,
        capture_output=True,
    ).stdout.strip()
    print(
        f"hookgate before/after — before: {args.revision} ({commit}), after: this checkout;"
        f" Python {sys.version.split()[0]}, {os.cpu_count()} cpus\n"
    )

    print("1. whole process, median ms per hook call (the wired hook; warm cache)")
    hooks = {label: installed_hook_argv(pythons[label], envs[label]) for label in revisions}
    whole_process(hooks, envs, pythons["after"], args.runs)

    print(
        f"\n2. in process, µs per decision on the default pack (medians of {args.rounds} paired"
        " rounds)"
    )
    docs = everyday_docs()
    if args.instructions:
        docs.update(instruction_docs())
    in_process(pythons, envs, args.iterations, args.rounds, docs, collector=args.collector)
    if args.fresh:
        for fresh, title in (
            (
                "comment",
                "2b. the same, each call's text different (a comment or a line of its own)",
            ),
            (
                "word",
                "2c. the same, each command with a word of its own (a file a line of its own)",
            ),
        ):
            print(f"\n{title}")
            in_process(pythons, envs, args.iterations, args.rounds, docs, fresh, args.collector)

    if not args.no_linear:
        print("\n3. linear time, each revision's bench/linear_time.py on its own wheel")
        scripts = {
            "before": (
                pythons["before"],
                Path(workdirs["before"], "revision", "bench/linear_time.py"),
            ),
            "after": (pythons["after"], HERE / "linear_time.py"),
        }
        linear_time(scripts, envs)

    if args.callgrind:
        print("\n4. per decision under valgrind's callgrind (instructions, cache and branch model)")
        callgrind(pythons, envs, workdirs, docs)


# Run under valgrind by each revision's python: the default pack loaded from a compile cache
# (a compile under valgrind would take minutes), then N decisions of one payload inside exec,
# the only part callgrind counts (--toggle-collect=builtin_exec).
CALLGRIND_PROBE = """
import json, sys
from hookgate.engine import Engine
from hookgate.sources import default_pack_path
doc, n, cache = json.loads(sys.stdin.readline())
engine = Engine.from_paths([default_pack_path()], cache_dir=cache)
evaluate = engine.evaluate
for _ in range(20):
    evaluate(doc)
exec("for _ in range(n): evaluate(doc)")
"""

# callgrind's events with --cache-sim=yes --branch-sim=yes, in the order it prints them.
EVENTS = (
    "Ir",
    "Dr",
    "Dw",
    "I1mr",
    "D1mr",
    "D1mw",
    "ILmr",
    "DLmr",
    "DLmw",
    "Bc",
    "Bcm",
    "Bi",
    "Bim",
)
SHOWN = {"Ir": "instructions", "D1mr": "L1 data read misses", "Bcm": "cond. branch mispredicts"}


def callgrind(
    pythons: dict[str, str], envs: dict[str, dict], workdirs: dict[str, str], docs: dict
) -> None:
    """Section 4's table: per decision, each revision's counts of ``SHOWN`` and their ratio."""
    from run import callgrind_counts

    if shutil.which("valgrind") is None:
        print("   (valgrind is not installed: skipped)")
        return
    decisions = 200
    counts: dict[str, dict[str, dict[str, float]]] = {label: {} for label in pythons}
    for label, python in pythons.items():
        cache = os.path.join(workdirs[label], "compiled")
        os.makedirs(cache, mode=0o700, exist_ok=True)
        for name, doc in docs.items():
            line = json.dumps([doc, decisions, cache]) + "\n"
            # once without valgrind: the compile cache filled, every .pyc written
            subprocess.run(
                [python, "-c", CALLGRIND_PROBE],
                input=line,
                text=True,
                env=envs[label],
                check=True,
                capture_output=True,
            )
            values = callgrind_counts(
                [python, "-c", CALLGRIND_PROBE],
                line.encode(),
                envs[label],
                ("--cache-sim=yes", "--branch-sim=yes", "--collect-atstart=no",
                 "--toggle-collect=builtin_exec*"),
            )  # fmt: skip
            counts[label][name] = {e: v / decisions for e, v in zip(EVENTS, values, strict=False)}
    heads = "".join(f" {text + ': before':>28} {'after':>9} {'÷':>5}" for text in SHOWN.values())
    print(f"   {'payload':24}{heads}")
    for name in docs:
        before, after = counts["before"][name], counts["after"][name]
        cells = "".join(
            f" {before[e]:28,.0f} {after[e]:9,.0f} {after[e] / max(before[e], 1):5.2f}"
            for e in SHOWN
        )
        print(f"   {name:24}{cells}")


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
