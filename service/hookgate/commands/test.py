"""``hookgate test PATH...``: run the ``test_*`` rules of policies, like ``opa test``.

Loads the ``.rego`` files and the ``.json`` data files under each PATH (a data file's content is
placed in ``data`` at its directory's path relative to the PATH it was found under, as OPA does;
a data file at the top merges at the root), then evaluates every rule named ``test_*`` (tests
set up their cases with ``with input as …`` / ``with data.x as …``). A test passes when its value
is ``true``; undefined, any other value, or a run-time error fails it. Output and exit code
follow ``opa test``: a line per failed test with its time, then why it failed (the literal
with no solution at its file:line:col, as written, and the values of its terms: see
``lang.testing.explain``) and its ``print()`` output; ``-v`` lists every test with its time
and outcome (and every test's ``print()`` output); a ``PASS: n/m`` summary; exit 1 on any
failure or error.
"""

from __future__ import annotations

import argparse
import re
import sys

from hookgate.lang import ast
from hookgate.lang.testing import Failure, Result, coverage, discover, explain, run_test


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="policy and data files or dirs, laid in order over the built-in pack",
    )
    parser.add_argument(
        "--no-default-pack",
        action="store_true",
        help="the paths alone: they replace the built-in pack instead of adding to it",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="list every test with its time and outcome, and its print() output",
    )
    parser.add_argument("--run", metavar="REGEX", help="only tests whose name matches REGEX")
    parser.add_argument(
        "--coverage", action="store_true", help="report which lines of the policies ran"
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=0.0,
        metavar="N",
        help="with --coverage: fail if less than N%% of the policy lines ran",
    )


def run(args: argparse.Namespace) -> int:
    from hookgate.lang import PolicyError, load

    try:
        pattern = re.compile(args.run) if args.run else None
    except re.error as exc:
        print(f"hookgate test: --run: bad regular expression: {exc}", file=sys.stderr)
        return 2
    from hookgate.layers import compose, shipped_tests

    try:
        layered = compose(args.paths, base=not args.no_default_pack, include_tests=True)
    except PolicyError as exc:
        print(f"hookgate test: {exc}", file=sys.stderr)
        return 2
    try:
        ps = load(layered.sources, data=layered.data, coverage=args.coverage)
        # The built-in pack's own tests run against its default configuration, the team's
        # against the effective one: a team's setting never fails a shipped test.
        shipped = shipped_tests(layered.sources) if layered.base_sources else set()
        pack = ps
        if shipped:
            pack = load(layered.base_sources, layered.base_data, coverage=args.coverage)
    except PolicyError as exc:
        print(exc.render(), file=sys.stderr)
        return 1
    tests = [t for t in discover(ps.modules) if pattern is None or pattern.search(t.name)]
    if not tests:
        print("no tests found", file=sys.stderr)
        return 1
    results = [run_test(pack if test.file in shipped else ps, test) for test in tests]
    paired = list(zip(tests, results, strict=True))
    explain(ps, [r for t, r in paired if t.file not in shipped], timeout=_PROBE_TIMEOUT)
    if shipped:  # a failure is explained in the set its test ran against
        explain(pack, [r for t, r in paired if t.file in shipped], timeout=_PROBE_TIMEOUT)
    _report(results, args.verbose)
    failed = any(r.outcome != "PASS" for r in results)
    if ps.coverage is not None:
        # The files named are covered, not the built-in pack under them.
        named = set(layered.named)
        modules = [m for m in ps.modules if m.filename in named]
        percent = _report_coverage(modules, ps.coverage | (pack.coverage or set()))
        if percent < args.threshold:
            print(f"coverage {percent:.1f}% is below the threshold {args.threshold:g}%")
            failed = True
    return 1 if failed else 0


# Seconds the probes explaining failed tests may take (a failed test is explained once).
_PROBE_TIMEOUT = 30.0


def _report(results: list[Result], verbose: bool) -> None:
    current = None
    for r in results:
        if not verbose and r.outcome == "PASS":
            continue
        if r.test.file != current:
            current = r.test.file
            print(f"{current}:")
        print(f"{r.test.name}: {r.outcome} ({_duration(r.seconds)})")
        if r.outcome != "PASS":
            print(f"  test at {r.test.file}:{r.test.line}:{r.test.col}")
        if r.error:
            print(f"  error: {r.error}")
        for failure in r.failures:
            _report_failure(failure)
        if r.prints and (verbose or r.outcome != "PASS"):
            print("  print() output:")
            for line in r.prints:
                print(f"    {line}")
    print("-" * 80)
    total = len(results)
    for outcome in ("PASS", "FAIL", "ERROR"):
        n = sum(r.outcome == outcome for r in results)
        if n or outcome == "PASS":
            print(f"{outcome}: {n}/{total}")


def _report_failure(f: Failure, indent: str = "  ", head: str = "failed") -> None:
    """``file:line:col: failed:``, the literal as written, then ``term = value`` lines; for an
    ``every``, then the body's literal that failed for the first item it fails for."""
    print(f"{indent}{f.file}:{f.line}:{f.col}: {head}:")
    for line in f.expression.splitlines():
        print(f"{indent}  {line}")
    if f.terms:
        print(f"{indent}where")
        for shown in f.terms:
            text = shown.text.replace("\n", " ")
            print(f"{indent}  {text} = {shown.value}")
    if f.note:
        print(f"{indent}({f.note})")
    if f.inner is not None:
        _report_failure(f.inner, indent + "  ", "for that item, the body failed at")


def _duration(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f}µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f}ms"
    return f"{seconds:.2f}s"


def _report_coverage(modules: list[ast.Module], covered: set) -> float:
    """Print per-file line coverage of the non-test modules; return the total percentage.
    ``covered`` holds ``(filename, line)`` pairs reported by the evaluator."""
    total = hit = 0
    print("coverage:")
    for file in coverage(modules, covered):
        total += len(file.lines)
        hit += len(file.ran)
        percent = 100.0 * len(file.ran) / len(file.lines) if file.lines else 100.0
        missed = _ranges(sorted(file.lines - file.ran))
        tail = f", not covered: {missed}" if missed else ""
        print(f"  {file.filename}: {percent:.1f}% ({len(file.ran)}/{len(file.lines)} lines){tail}")
    percent = 100.0 * hit / total if total else 100.0
    print(f"  total: {percent:.1f}% ({hit}/{total} lines)")
    return percent


def _ranges(lines: list[int]) -> str:
    parts: list[str] = []
    for line in lines:
        if parts and parts[-1][1] == line - 1:
            parts[-1] = (parts[-1][0], line)
        else:
            parts.append((line, line))
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in parts)
