"""Where one decision's time goes, in a count the machine's load does not move: the Python
bytecodes each function executes (``sys.settrace``, calls into C count as one) for the everyday
mix of ``compare.py``, and how many rule groups the evaluation computed; with ``--groups``, by
rule group (inclusive of the builtins each calls); with ``--wall N``, wall time by rule group.

    .venv/bin/python bench/profile_decision.py [PAYLOAD ...] [--top 12]

Run it in a checkout (and in an earlier one, for before/after): it profiles the installed
``hookgate`` of the interpreter running it. Nothing asserts; the figures go to
``docs/evidence/performance.md``.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from compare import everyday_docs  # noqa: E402

from hookgate.engine import Engine  # noqa: E402
from hookgate.lang import documents  # noqa: E402
from hookgate.sources import default_pack_path  # noqa: E402


def computed_groups(engine: Engine, doc: dict) -> list[str]:
    """The rule groups one evaluation of ``doc`` computed (cached a value for), in order."""
    seen: dict[str, None] = {}
    classes = [c for c in vars(documents).values() if isinstance(c, type)]
    classes = [c for c in classes if issubclass(c, documents.Group) and "value" in vars(c)]
    originals = {c: c.value for c in classes}

    def wrap(value):
        def traced(self, ctx):
            before = self in ctx.cache
            v = value(self, ctx)
            # (the mask's function puts the empty values of groups whose need fails into the
            # cache, and value those whose facts fail: those were not computed)
            r = ctx.relevant
            prefilled = self.need and r > 0 and not (r & self.need and self.facts is None)
            prefilled = prefilled and not (r & self.need and self.facts(ctx, r))
            if not before and self in ctx.cache and not prefilled:
                seen.setdefault(self.name)
            return v

        return traced

    for c, value in originals.items():
        c.value = wrap(value)
    try:
        engine.evaluate(doc)
    finally:
        for c, value in originals.items():
            c.value = value
    return list(seen)


def bytecodes(engine: Engine, doc: dict) -> tuple[int, collections.Counter, collections.Counter]:
    """Bytecodes executed by one decision: total, by function, and calls by function."""
    per: collections.Counter = collections.Counter()
    calls: collections.Counter = collections.Counter()
    total = [0]

    def counted(frame, event, arg):
        frame.f_trace_opcodes = True
        code = frame.f_code
        key = f"{code.co_name} ({Path(code.co_filename).name}:{code.co_firstlineno})"
        if event == "call":
            calls[key] += 1
        elif event == "opcode":
            total[0] += 1
            per[key] += 1
        return counted

    sys.settrace(counted)
    try:
        engine.evaluate(doc)
    finally:
        sys.settrace(None)
    return total[0], per, calls


@contextlib.contextmanager
def groups_wrapped(wrap):
    """Every rule group's ``value`` and ``call`` replaced by ``wrap(method)`` while inside."""
    classes = [c for c in vars(documents).values() if isinstance(c, type)]
    classes = [c for c in classes if issubclass(c, documents.Group)]
    originals = [(c, m, vars(c)[m]) for c in classes for m in ("value", "call") if m in vars(c)]
    for c, m, method in originals:
        setattr(c, m, wrap(method))
    try:
        yield
    finally:
        for c, m, method in originals:
            setattr(c, m, method)


def by_group(engine: Engine, doc: dict) -> collections.Counter:
    """Bytecodes of one decision by the innermost rule group being computed when they ran
    (builtins a rule calls count for it; ``<engine>`` is everything outside any rule)."""
    stack = ["<engine>"]
    per: collections.Counter = collections.Counter()

    def wrap(method):
        def inside(self, *args):
            stack.append(self.name)
            try:
                return method(self, *args)
            finally:
                stack.pop()

        return inside

    def counted(frame, event, arg):
        frame.f_trace_opcodes = True
        if event == "opcode":
            per[stack[-1]] += 1
        return counted

    with groups_wrapped(wrap):
        sys.settrace(counted)
        try:
            engine.evaluate(doc)
        finally:
            sys.settrace(None)
    return per


def wall_by_group(engine: Engine, doc: dict, iterations: int) -> tuple[float, collections.Counter]:
    """µs of one decision (the mean of ``iterations``, with the wrappers' own overhead) and, by
    rule group, the µs spent in it and not in a group it asked for: the time bytecodes do not
    see (system calls, builtins in C, objects built) shows here."""
    clock = time.perf_counter_ns
    stack: list[list] = []
    per: collections.Counter = collections.Counter()

    def wrap(method):
        def inside(self, *args):
            frame = [clock(), 0]
            stack.append(frame)
            try:
                return method(self, *args)
            finally:
                stack.pop()
                spent = clock() - frame[0]
                per[self.name] += spent - frame[1]
                if stack:
                    stack[-1][1] += spent

        return inside

    with groups_wrapped(wrap):
        start = clock()
        for _ in range(iterations):
            engine.evaluate(doc)
        total = (clock() - start) / iterations / 1000
    in_groups = sum(per.values())
    per = collections.Counter({k: v / iterations / 1000 for k, v in per.items()})
    per["<engine>"] = total - in_groups / iterations / 1000
    return total, per


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("payloads", nargs="*", help="names of the everyday mix (default: all)")
    parser.add_argument("--top", type=int, default=12, help="functions listed per payload")
    parser.add_argument(
        "--groups",
        action="store_true",
        help="by rule group instead of by function (the wrappers' own bytecodes included)",
    )
    parser.add_argument(
        "--wall",
        type=int,
        metavar="N",
        help="µs by rule group, the mean of N decisions (wall time: noisy under load)",
    )
    args = parser.parse_args()
    engine = Engine.from_paths([default_pack_path()])
    for name, doc in everyday_docs().items():
        if args.payloads and name not in args.payloads:
            continue
        engine.evaluate(doc)
        engine.evaluate(doc)
        groups = computed_groups(engine, doc)
        total, per, calls = bytecodes(engine, doc)
        print(f"{name}: {total} bytecodes, {len(groups)} rule groups computed")
        if args.wall:
            spent, per_group = wall_by_group(engine, doc, args.wall)
            print(f"  {spent:7.1f} µs a decision (wrapped)")
            for key, us in per_group.most_common(args.top):
                print(f"  {us:7.2f} {key}")
            continue
        if args.groups:
            for key, count in by_group(engine, doc).most_common(args.top):
                print(f"  {count:7d} {key}")
            continue
        for key, count in per.most_common(args.top):
            print(f"  {count:7d} ({calls[key]:3d} calls) {key}")


if __name__ == "__main__":
    main()
