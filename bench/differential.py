"""The long differential run: random programs (tests/rego_gen.py, with the builtin rules of
tests/differential_builtins.py) on hookgate, regorus and rego-cpp, compared query by query
(``data.g.<rule>``, tests/differential_engines.py).

Prints the counts per verdict and every query that needs a reason: ``ours`` (both oracles
agree and hookgate does not) and ``third answer`` (hookgate gives neither oracle's answer). A
query of either kind is a failure unless ``ALLOWED`` below names it with the OPA source or
docs that make hookgate's answer OPA's. tests/test_differential_long.py runs the fixed 3,000
(seeds 0..2999) in the suite's slow tier; docs/evidence/differential.md keeps the counts.

    .venv/bin/python bench/differential.py [--programs 3000] [--start 0] [--jobs N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import differential_builtins  # noqa: E402
import differential_engines  # noqa: E402

PROGRAMS = 3000

NEEDS_REASON = ("ours", "third answer")

# Builtins an oracle does not implement (regorus 0.x: "could not find function"; rego-cpp 1.x
# answers undefined for every net.* call, valid or not): its answer there is no evidence.
ORACLE_LACKS = {
    "net.cidr_merge": ("regorus", "rego-cpp"),
    "net.cidr_intersects": ("regorus", "rego-cpp"),
    "net.cidr_contains": ("rego-cpp",),
    "net.cidr_expand": ("rego-cpp",),
    "net.cidr_is_valid": ("rego-cpp",),
}


# Each entry: why hookgate's answer is OPA's (naming OPA's source or docs), and the test that
# picks out exactly the queries it explains, from the rule's text and the three answers.
def _args(rule_text: str, name: str) -> list | None:
    """The JSON arguments of ``bN := name(…)`` (tests/differential_builtins.py writes JSON)."""
    prefix = f"{name}("
    call = rule_text.split(" := ", 1)[-1].strip()
    if not call.startswith(prefix) or not call.endswith(")"):
        return None
    return json.loads("[" + call[len(prefix) : -1] + "]")


def _kind(value: object) -> str:
    return type(value).__name__


def _subset_of_two_kinds(text: str, answers: dict) -> bool:
    args = _args(text, "object.subset")
    return (
        args is not None
        and _kind(args[0]) != _kind(args[1])
        and answers["hookgate"] == "undefined"
        and answers["regorus"] == answers["rego-cpp"] == "false"
    )


def _one_pass(pattern: dict, text: str) -> str:
    """Go's NewReplacer, written out again here (strings/replace.go's generic
    algorithm): left to right, at each position the first key in sorted order that starts
    there; an empty key (first in that order) inserts its value at every position, the end
    too, and a longer key may still match right after it."""
    keys = sorted(k for k in pattern if k)
    out, i = [], 0
    while True:
        if "" in pattern:
            out.append(pattern[""])
        if i == len(text):
            return "".join(out)
        key = next((k for k in keys if text.startswith(k, i)), None)
        out.append(text[i] if key is None else pattern[key])
        i += 1 if key is None else len(key)


def _replace_n_one_pass(text: str, answers: dict) -> bool:
    args = _args(text, "strings.replace_n")
    # Keys are whole characters, so only an empty key sees the bytes inside one (next entry).
    if args is None or (args[0].get("") and not args[1].isascii()):
        return False
    return answers["hookgate"] == json.dumps(_one_pass(*args))


def _replace_n_empty_key_between_bytes(text: str, answers: dict) -> bool:
    args = _args(text, "strings.replace_n")
    return (
        args is not None
        and "" in args[0]
        and not args[1].isascii()
        and "\\ufffd" in answers["hookgate"]
    )


def _sprintf_sign_after_dash(text: str, answers: dict) -> bool:
    ours, theirs = answers["hookgate"], answers["regorus"]
    return (
        'sprintf("%v-%d"' in text
        and answers["rego-cpp"].startswith("error")
        and "---" in theirs
        and theirs.replace("---", "--") == ours
    )


def _mapped_ipv4(text: str, answers: dict) -> bool:
    return "::ffff:" in text and text.split(" := ", 1)[-1].startswith(
        ("net.cidr_contains(", "net.cidr_expand(")
    )


ALLOWED: list[tuple[str, Callable[[str, dict], bool]]] = [
    (
        "sprintf(\"%v-%d\", [s, -2]) is Go's fmt.Sprintf (OPA's builtinSprintf in "
        "v1/topdown/strings.go): the literal '-' then the number's sign, \"s--2\"; regorus 0.x "
        "prints a third '-' (tests/test_differential_random.py records it) and rego-cpp 1.x "
        "emits JSON its own Python binding cannot read for these programs",
        _sprintf_sign_after_dash,
    ),
    (
        "object.subset of two kinds other than array and set is an operand error in OPA "
        "(v1/topdown/subset.go, builtinObjectSubset: 'both arguments object.subset must be of "
        "the same type or array and set'), so the rule is undefined; the oracles answer false",
        _subset_of_two_kinds,
    ),
    (
        "strings.replace_n is one pass of Go's strings.NewReplacer over the text, a replaced "
        "part never replaced again, an empty key inserting everywhere before a longer key "
        "matches (v1/topdown/strings.go, builtinReplaceN; OPA's cases replacen/semantics/*; "
        "Go's strings/replace_test.go blankHighPriority); the oracles replace key after key, "
        "and rego-cpp 1.x does not return on an empty key",
        _replace_n_one_pass,
    ),
    (
        "an empty key of strings.replace_n matches at every byte of the UTF-8 text, inside a "
        "character too (Go's genericReplacer in strings/replace.go steps byte by byte; OPA's "
        "builtinReplaceN uses it), and JSON shows each stray byte as U+FFFD (encoding/json); "
        "regorus steps by character, rego-cpp 1.x does not return",
        _replace_n_empty_key_between_bytes,
    ),
    (
        "an IPv4 address written in ::ffff:0:0/96 is IPv4 to Go's net package (IP.To4 in "
        "IPNet.Contains and networkNumberAndMask; IP.String prints it dotted), which OPA's "
        "v1/topdown/cidr.go uses for net.cidr_contains and net.cidr_expand; regorus keeps it "
        "IPv6",
        _mapped_ipv4,
    ),
]


def allowed_reason(rule_text: str, answers: dict) -> str | None:
    """The first entry of ``ALLOWED`` that explains this query, or None."""
    for reason, explains in ALLOWED:
        if explains(rule_text, answers):
            return reason
    return None


def run(programs: int = PROGRAMS, start: int = 0, jobs: int = 1) -> dict:
    """Counts per verdict (queries and programs) and the queries that need a reason, the seeds
    dealt round-robin to ``jobs`` processes (each with its own rego-cpp worker): the oracles
    and hookgate are all CPU-bound, and the suite runs one test at a time."""
    seeds = range(start, start + programs)
    if jobs <= 1:
        parts = [_run_seeds(seeds)]
    else:
        import multiprocessing

        # fork: the children inherit sys.path and the imported engines; each starts its own
        # rego-cpp worker rather than sharing the parent's pipe.
        with multiprocessing.get_context("fork").Pool(jobs, initializer=_own_worker) as pool:
            parts = pool.map(_run_seeds, [seeds[i::jobs] for i in range(jobs)])
    queries: Counter = Counter()
    worst: Counter = Counter()
    findings = []
    for part in parts:
        queries.update(part["queries"])
        worst.update(part["programs_by_worst"])
        findings.extend(part["findings"])
    findings.sort(key=lambda f: f["seed"])
    return {
        "programs": programs,
        "start": start,
        "queries": queries,
        "programs_by_worst": worst,
        "findings": findings,
    }


def _own_worker() -> None:
    differential_engines._worker = None


def _run_seeds(seeds: range) -> dict:
    queries: Counter = Counter()
    worst: Counter = Counter()
    findings = []
    order = ["agree", "unsupported", "oracles fail", "oracles differ", *NEEDS_REASON]
    for seed in seeds:
        verdicts = []
        for _query, source, inp in differential_builtins.programs(seed):
            lacking = tuple(
                {
                    e
                    for name, engines in ORACLE_LACKS.items()
                    if f"{name}(" in source
                    for e in engines
                }
            )
            for rule, verdict, answers in differential_engines.classify_queries(
                source, inp, tuple(sorted(lacking))
            ):
                verdicts.append(verdict)
                queries[verdict] += 1
                if verdict in NEEDS_REASON:
                    text = _rule_text(source, rule)
                    findings.append(
                        {
                            "seed": seed,
                            "rule": rule,
                            "verdict": verdict,
                            "answers": answers,
                            "source": text,
                            "allowed": allowed_reason(text, answers),
                        }
                    )
        worst[max(verdicts, key=order.index)] += 1
    return {"queries": queries, "programs_by_worst": worst, "findings": findings}


def _rule_text(source: str, rule: str) -> str:
    """The program's rules whose head starts with ``rule`` (what a reader needs to judge)."""
    blocks = source.split("\n\n")
    return "\n\n".join(b for b in blocks if _head_name(b) == rule)


def _head_name(block: str) -> str:
    head = block.split(" ", 1)[0]
    for stop in "[(.":
        head = head.split(stop, 1)[0]
    return head


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--programs", type=int, default=PROGRAMS)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes")
    ap.add_argument("--json", help="write the counts and findings here")
    args = ap.parse_args()
    began = time.monotonic()
    result = run(args.programs, args.start, args.jobs)
    took = time.monotonic() - began
    for f in result["findings"]:
        tag = f"allowed: {f['allowed']}" if f["allowed"] else "NOT ALLOWED"
        print(
            f"seed {f['seed']} {f['rule']}: {f['verdict']} ({tag})\n{f['source']}\n{f['answers']}\n"
        )
    q = result["queries"]
    print(
        f"{args.programs} programs (seeds {args.start}..{args.start + args.programs - 1}), "
        f"{sum(q.values())} queries in {took:.0f} s"
    )
    print("queries: " + ", ".join(f"{k} {v}" for k, v in q.most_common()))
    print(
        "programs by their worst query: "
        + ", ".join(f"{k} {v}" for k, v in result["programs_by_worst"].most_common())
    )
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
