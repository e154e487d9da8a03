"""Linear time: the default pack decides adversarial shell commands in time linear in their length.

    .venv/bin/python bench/linear_time.py [--runs 3] [--construct NAME] [--sizes 1,8,64]

For every construct shell analysis knows (pushes, pipes, chains, nesting, quotes,
here-documents, substitutions, wrappers, …) it builds a command of 1, 8 and 64 KiB: a short
dangerous command, then that construct repeated (or nested, or stretched) up to the size, as an
agent padding a command to push the guards past their time limit would write it. Each command is
decided in process by the default pack (the engine's timeout lifted, so that the real time is
measured), and the script prints the median time, the time per KiB and the outcome.

Targets (issue 15, part 3): every 64 KiB command decided in under 0.5 s, and time per KiB at
64 KiB no more than 1.5x that at 8 KiB. A command the analysis gives up on (a ``LimitError``:
nesting or analysis size) counts as decided: the engine answers ``ask`` for it, never ``allow``.
Nothing here asserts; the exit status is 1 when a target is missed, so a run can be scripted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from hookgate.engine import Engine
from hookgate.hostio.normalize import normalize
from hookgate.lang.errors import LimitError
from hookgate.sources import default_pack_path

KIB = 1024
DANGER = "rm -rf ~; "


def repeated(unit: str, size: int, head: str = DANGER, tail: str = "") -> str:
    """``head``, then ``unit`` as many times as fits in ``size`` characters with ``tail``."""
    room = size - len(head) - len(tail)
    return head + unit * max(room // len(unit), 1) + tail


def nested(open_: str, close: str, inner: str, size: int) -> str:
    """``inner`` wrapped in as many ``open_`` … ``close`` pairs as fit in ``size``."""
    depth = max((size - len(DANGER) - len(inner)) // (len(open_) + len(close)), 1)
    return DANGER + open_ * depth + inner + close * depth


def heredoc_lines(size: int) -> str:
    head = DANGER + "cat > notes.txt <<'EOF'\n"
    return head + "git push -f origin main; rm -rf /\n" * ((size - len(head) - 4) // 35) + "EOF"


def heredoc_to_shell(size: int) -> str:
    head = DANGER + "bash <<EOF\n"
    return head + "git push -f origin main\n" * ((size - len(head) - 4) // 24) + "EOF"


# name → function building a command of about ``size`` characters
CONSTRUCTS = {
    "pushes": lambda n: repeated("git push -f origin main; ", n),
    "pushes-forms": lambda n: repeated(
        "git push --force-with-lease -fu origin +main:main +dev; ", n
    ),
    "pipes": lambda n: repeated("git log | grep fix | ", n, tail="wc -l"),
    "chains": lambda n: repeated("git status && make test || git push -f origin main; ", n),
    "subshells": lambda n: repeated("(cd sub && git push -f); { git push -f; }; ", n),
    "nesting-parens": lambda n: nested("(", ")", "git push -f", n),
    "nesting-substitutions": lambda n: nested("$(echo ", ")", "git push -f", n),
    "nesting-shells": lambda n: repeated("bash -c \"sh -c 'eval git push -f'\"; ", n),
    "quotes": lambda n: DANGER + "git commit -m '" + "x" * (n - len(DANGER) - 17) + "'",
    "quoted-words": lambda n: repeated("g\"i\"t 'pu'sh $'-f' \\o\\r\\i\\g\\i\\n main; ", n),
    "unbalanced-quotes": lambda n: repeated("echo \"a 'b git push -f; ", n),
    "heredoc-lines": heredoc_lines,
    "heredoc-to-shell": heredoc_to_shell,
    "heredocs-many": lambda n: repeated("cat <<EOF\n$(git push -f)\nEOF\n", n),
    "substitutions": lambda n: repeated("git push $(echo -f) origin `echo main`; ", n),
    "variables": lambda n: repeated("G=git; F=-f; $G push $F origin main; ", n),
    "ifs": lambda n: repeated("git${IFS}push${IFS}-f; ", n),
    "arrays": lambda n: repeated('a=(-f "$x" o); a+=(m); git push "${a[@]}" ${a[0]}; ', n),
    "parameter-operators": lambda n: repeated(
        "v=--force; git push ${v:0:7} ${v/f/F} ${v##*-} ${v:-x} ${v^^} x${v}y; ", n
    ),
    "positional": lambda n: repeated(
        "set -- -f o; git push \"$@\" $1; bash -c 'rm $1 /' _ -rf; ", n
    ),
    "printf-decode": lambda n: repeated(
        "echo Z2l0IHB1c2ggLWY= | base64 -d | sh; printf '%s\\n' -f | xargs -n 1 git push; ", n
    ),
    "aliases": lambda n: repeated("alias p='git push -f'; p origin; ", n),
    "functions": lambda n: repeated('f() { git push "$@"; }; f -f; f o; ', n),
    "expansion-growth": lambda n: repeated("v=$v$v$v$v; ", n, head=DANGER + "v=-f; "),
    "wrappers": lambda n: repeated("sudo env A=1 nice timeout 5 nohup git push -f; ", n),
    "wrapper-chain": lambda n: repeated("sudo ", n, tail="git push -f origin main"),
    "xargs-find": lambda n: repeated("echo -f | xargs git push; find . -exec rm -rf {} +; ", n),
    "eval-printed": lambda n: repeated('eval "$(echo git push -f)"; ', n),
    "written-scripts": lambda n: repeated("echo 'git push -f' >> run.sh; bash run.sh; ", n),
    "interpreters": lambda n: repeated("python3 -c \"os.system('git push -f')\"; ", n),
    "git-globals": lambda n: repeated("git -C . -c alias.p='push -f' p; ", n),
    "no-verify": lambda n: repeated("git commit --no-verify -m x; HUSKY=0 git push; ", n),
    "destructive": lambda n: repeated("rm -rf build/ /tmp/x; git reset --hard; ", n),
    "launchers": lambda n: repeated(
        "docker run -v /:/h -w /h a sh -c 'rm -rf x'; npx rimraf b; awk 'BEGIN{system(\"ls\")}'; "
        "parallel rm ::: a b; ",
        n,
    ),
    "moves-links": lambda n: repeated(
        "mv .git g; ln -s ~ h; rm -rf h/a/b g/c; pushd /tmp; popd; cd -; ", n
    ),
}


def payload(command: str) -> dict:
    return {
        "session_id": "bench",
        "cwd": "/tmp/project",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }


def decide(engine: Engine, command: str) -> str:
    """The pack's outcome: deny, ask, rewrite, allow, or the limit analysis stopped at."""
    try:
        return engine.decide(normalize(payload(command))).outcome
    except LimitError as exc:
        return f"limit ({exc.limit})"


def cold() -> None:
    """Forget the lines shell analysis read: each run decides as a fresh hook process does."""
    from hookgate.builtins import shell as shell_builtins
    from hookgate.shell import analysis

    analysis._ANALYSED.clear()
    shell_builtins._VALUES.clear()  # results and the limits reached, by line


def measure(engine: Engine, command: str, runs: int) -> tuple[float, str]:
    times = []
    result = ""
    for _ in range(runs):
        cold()
        started = time.perf_counter()
        result = decide(engine, command)
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--construct", action="append", choices=sorted(CONSTRUCTS))
    parser.add_argument("--sizes", default="1,8,64", help="KiB, comma-separated")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    engine = Engine.from_paths([default_pack_path()])
    engine.timeout = 600.0  # measure the real time, not the engine's bound
    decide(engine, "git status")  # warm: builtin families loaded, caches filled
    names = args.construct or list(CONSTRUCTS)
    head = "".join(f"{s:>6} KiB ms/KiB" for s in sizes)
    print(f"{'construct':<24}{head}   64:8 ratio  time at largest  outcome")
    missed = []
    for name in names:
        per_kib = {}
        largest = 0.0
        last = ""
        for size in sizes:
            command = CONSTRUCTS[name](size * KIB)
            assert len(command) <= size * KIB, (name, size, len(command))
            seconds, last = measure(engine, command, args.runs)
            per_kib[size] = seconds * 1000 / (len(command) / KIB)
            largest = seconds
        ratio = per_kib[sizes[-1]] / per_kib[sizes[-2]] if len(sizes) > 1 else 1.0
        cells = "".join(f"{per_kib[s]:>15.2f}" for s in sizes)
        flag = ""
        if largest >= 0.5 or ratio > 1.5:
            missed.append(name)
            flag = "  MISSED"
        print(f"{name:<24}{cells}   {ratio:>10.2f}  {largest:>7.3f}s  {last}{flag}", flush=True)
    print("targets: the largest command < 0.5 s; its ms/KiB <= 1.5x that of the size before")
    print("missed: " + (", ".join(missed) if missed else "none"))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
