"""Per-decision time of the default pack, this tree against a baseline tree, in one run.

Each tree's ``Engine.evaluate`` decides everyday payloads (shell commands, file reads, writes
and edits, searches, a web fetch, an MCP call) and the guard payloads of ``bench/run.py``, in
process, warm: one process per tree (``PYTHONPATH=<tree>/service``, the tree's own
``policies/``), and the two take turns on each payload, round after round, so that the load of
a shared machine weighs on both alike. Each figure is the minimum over the rounds of the mean
CPU time (the timing process's own, which other jobs' load disturbs less than wall time) of
``--loops`` decisions.
With ``--same-pack``, both trees decide with the baseline tree's ``policies/``: the ratio is
then the engine's alone (language, compiler, builtins, shell model), without what the pack
itself grew since.
The Python function calls of one decision (``sys.setprofile``: calls into Python and C
functions) are a second measure of the work, which load does not disturb at all.

    .venv/bin/python bench/decision_compare.py --baseline-tree /work/wt/base [--rounds 8]
        [--same-pack]

A baseline tree is a checkout (``git worktree add /tmp/base <commit>``, or ``git archive <commit>
| tar -x -C /tmp/base``); it is only read.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PAYLOADS: dict[str, tuple[str, dict]] = {
    # name: (what it is, tool call)
    "force": ("force push (rewrite)", {"Bash": {"command": "git push --force origin main"}}),
    "noverify": ("no-verify (deny)", {"Bash": {"command": "git commit --no-verify -m wip"}}),
    "harmless": ("`npm test` (allow)", {"Bash": {"command": "npm test -- --watch=false"}}),
    "everyday": (
        "`cd … && pytest …`, piped to tail",
        {"Bash": {"command": "cd service && python -m pytest tests/test_x.py -q 2>&1 | tail -20"}},
    ),
    "pipeline": (
        "longer pipeline",
        {
            "Bash": {
                "command": "git log --oneline -20 | grep -v Merge | awk '{print $1}' | "
                "xargs -n1 git show --stat | sort | uniq -c | sort -rn | head -30 > /tmp/stats.txt"
            }
        },
    ),
    "read": ("Read", {"Read": {"file_path": "/tmp/proj/README.md"}}),
    "edit": (
        "Edit",
        {
            "Edit": {
                "file_path": "/tmp/proj/src/app.py",
                "old_string": "a = 1",
                "new_string": "a = 2",
            }
        },
    ),
    "write": (
        "Write of a project file",
        {
            "Write": {
                "file_path": "/tmp/proj/src/new_module.py",
                "content": '"""Helpers."""\n\n\ndef add(x: int, y: int) -> int:\n    return x + y\n',
            }
        },
    ),
    "grep": (
        "Grep",
        {
            "Grep": {
                "pattern": "def evaluate",
                "path": "/tmp/proj/service",
                "output_mode": "content",
            }
        },
    ),
    "glob": ("Glob", {"Glob": {"pattern": "**/*.py", "path": "/tmp/proj"}}),
    "webfetch": (
        "WebFetch",
        {
            "WebFetch": {
                "url": "https://docs.python.org/3/library/os.path.html",
                "prompt": "Summarise what os.path.normpath does with '..' components",
            }
        },
    ),
    "mcp": (
        "MCP tool",
        {"mcp__github__get_issue": {"owner": "acme", "repo": "widgets", "issue_number": 42}},
    ),
}


def payload(call: dict) -> dict:
    ((tool, tool_input),) = call.items()
    return {
        "session_id": "bench",
        "transcript_path": "/tmp/proj/.claude/bench.jsonl",
        "cwd": "/tmp/proj",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_bench",
    }


def child(policies: str, loops: int) -> None:
    """Serve timings: for each payload name read from stdin, the mean CPU µs of ``loops``
    decisions with ``policies`` and the Python calls of one (the tree's hookgate on sys.path),
    as a JSON line."""
    from hookgate.engine import Engine

    engine = Engine.from_paths([policies])
    docs = {name: payload(call) for name, (_, call) in PAYLOADS.items()}
    for doc in docs.values():
        engine.evaluate(doc)  # warm: builtin families imported, caches filled
    for line in sys.stdin:
        doc = docs[line.strip()]
        calls = [0]

        def count(frame: object, event: str, arg: object, calls: list = calls) -> None:
            if event == "call" or event == "c_call":
                calls[0] += 1

        sys.setprofile(count)
        engine.evaluate(doc)
        sys.setprofile(None)
        start = time.process_time()
        for _ in range(loops):
            engine.evaluate(doc)
        us = (time.process_time() - start) / loops * 1e6
        print(json.dumps([us, calls[0]]), flush=True)


def start_child(tree: str, policies: str, loops: int) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.path.join(tree, "service"), PYTHONHASHSEED="0")
    cmd = [sys.executable, __file__, "--child", policies, "--loops", str(loops)]
    return subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def ask(proc: subprocess.Popen, name: str) -> tuple[float, int]:
    proc.stdin.write(name + "\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    if not line:
        sys.exit("a timing process failed (its error is above)")
    us, calls = json.loads(line)
    return us, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-tree", help="checkout to compare against (required)")
    parser.add_argument("--tree", default=HERE, help="checkout measured (default: this one)")
    parser.add_argument("--rounds", type=int, default=8, help="turns each tree takes")
    parser.add_argument("--loops", type=int, default=200, help="decisions timed per turn")
    parser.add_argument(
        "--same-pack",
        action="store_true",
        help="both trees decide with the baseline's policies/ (the engine's speed alone)",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("payloads", nargs="*", help=f"a subset of: {', '.join(PAYLOADS)}")
    args = parser.parse_args()
    names = args.payloads or list(PAYLOADS)
    unknown = [n for n in names if n not in PAYLOADS]
    if unknown:
        parser.error(f"unknown payload {', '.join(unknown)} (choose from {', '.join(PAYLOADS)})")
    if args.child:
        child(args.child, args.loops)
        return
    if not args.baseline_tree:
        parser.error("--baseline-tree is required")
    trees = {"baseline": os.path.abspath(args.baseline_tree), "this": os.path.abspath(args.tree)}

    def policies(tree: str) -> str:
        return os.path.join(trees["baseline"] if args.same_pack else tree, "policies")

    procs = {key: start_child(tree, policies(tree), args.loops) for key, tree in trees.items()}
    best: dict[str, dict[str, float]] = {k: {} for k in trees}
    calls: dict[str, dict[str, int]] = {k: {} for k in trees}
    load = [os.getloadavg()[0]]
    for _ in range(args.rounds):
        for name in names:  # the trees take turns on each payload
            for key, proc in procs.items():
                us, n = ask(proc, name)
                best[key][name] = min(us, best[key].get(name, us))
                calls[key][name] = n
        load.append(os.getloadavg()[0])
    for proc in procs.values():
        proc.stdin.close()
        proc.wait()
    print(f"baseline {trees['baseline']}\nthis     {trees['this']}")
    print(f"policies: {'the baseline' if args.same_pack else 'each tree'}'s own")
    print(f"{args.rounds} rounds x {args.loops} decisions, min per payload; load average (1 min)")
    print(f"during the run: {min(load):.1f}-{max(load):.1f}\n")
    print("| payload | baseline µs | this µs | ratio | Python calls: baseline | this | ratio |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        base, this = best["baseline"][name], best["this"][name]
        cb, ct = calls["baseline"][name], calls["this"][name]
        print(
            f"| {PAYLOADS[name][0]} | {base:.0f} | {this:.0f} | **{this / base:.2f}** "
            f"| {cb} | {ct} | {ct / cb:.2f} |"
        )


if __name__ == "__main__":
    main()
