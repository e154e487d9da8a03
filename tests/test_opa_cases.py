"""OPA's own topdown test cases (tests/data/opa/cases.json, converted from
open-policy-agent/opa ``v1/test/cases/testdata/v1``, Apache-2.0) run the way OPA's harness
runs them: the modules and data loaded, the query evaluated, its results compared as a set of
bindings after a round trip through JSON (sets become sorted arrays, non-string keys their
JSON text); ``want_error``/``want_error_code`` expect an error of that kind; builtin errors are
strict only where a case says ``strict_error``.

Each case is *right*, *unsupported* (refused with ``unsupported: …`` at line:col) or *wrong*.
``tests/data/opa/expectations.json`` lists the cases known to be unsupported; any wrong answer
fails, and so does any change of status (a case that starts passing must leave the list).
``python tests/test_opa_cases.py`` prints the counts per family (for docs/evidence/opa-conformance.md) and, with
``--write``, rewrites the expectations file.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

from hookgate.lang import UNDEFINED, EvalError, PolicyError, load
from hookgate.lang.values import equal, to_json

DATA = Path(__file__).parent / "data" / "opa"
FILES = json.loads((DATA / "cases.json").read_text("utf-8"))["files"]
EXPECTATIONS = DATA / "expectations.json"

CASES = {}
for _file in FILES:
    for _case in _file["cases"]:
        _id = f"{_file['path'].split('/v1/', 2)[-1]}#{_case['note']}"
        _n = 1
        while _id in CASES:  # OPA's files repeat a note now and then ("units_parse/failure")
            _n += 1
            _id = f"{_id.rsplit(' #', 1)[0]} #{_n}"
        CASES[_id] = _case

# Error codes OPA reports before evaluation (parse, compile, type, recursion) and during it.
_COMPILE_CODES = (
    "rego_parse_error",
    "rego_compile_error",
    "rego_type_error",
    "rego_recursion_error",
)

# `<ref> = <rhs>`: the harness's query forms. A variable on the right is the binding reported;
# anything else (`= input`, `= 1`) makes the query a test with no bindings.
_QUERY = re.compile(r"^\s*(data(?:\.[A-Za-z_][A-Za-z0-9_]*|\[[^\]]*\]|\([^)]*\))*)\s*=\s*(.+?)\s*$")
_BARE = re.compile(r"^\s*data(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?:\([^)=]*\))?\s*$")
_VAR = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NOT_VARS = ("input", "data", "true", "false", "null")


def _family(case_id: str) -> str:
    return case_id.split("/", 1)[0]


def _results(case: dict) -> list[dict]:
    """The query's set of bindings, as JSON (raises PolicyError / EvalError)."""
    sources = {f"case{i}.rego": m for i, m in enumerate(case.get("modules") or [])}
    ps = load(sources, case.get("data") or {})
    inp = case["input"] if "input" in case else UNDEFINED
    if "input_term" in case:
        try:
            inp = json.loads(case["input_term"])
        except ValueError:
            raise _Unsupported(f"input_term {case['input_term']!r}") from None
    strict = bool(case.get("strict_error"))
    if _BARE.match(case["query"]):  # `data.p.f(1)`: a test, true unless undefined or false
        value = ps.query(case["query"].strip(), input=inp, strict_builtin_errors=strict)
        return [] if value is UNDEFINED or value is False else [{}]
    matches = [_QUERY.match(q) for q in case["query"].strip().split(";")]
    if None in matches:
        raise _Unsupported(f"query form {case['query']!r}")
    parts = [m.groups() for m in matches]
    if len(parts) > 1 and not all(_VAR.match(rhs) and rhs not in _NOT_VARS for _, rhs in parts):
        raise _Unsupported(f"query form {case['query']!r}")
    ref, rhs = parts[0]
    if _VAR.match(rhs) and rhs not in _NOT_VARS:
        # `data.a = x; data.b = y`: one evaluation (one time.now_ns), one row of bindings.
        values = ps.query_many([r for r, _ in parts], input=inp, strict_builtin_errors=strict)
        if UNDEFINED in values:
            return []
        return [{v: to_json(value) for (_, v), value in zip(parts, values, strict=True)}]
    holds = ps.query(f"{ref} == {rhs}", input=inp, strict_builtin_errors=strict)
    return [{}] if holds is True else []


class _Unsupported(Exception):
    """A case the harness itself cannot run (counted as unsupported)."""


def _sorted_bindings(rows: list[dict]) -> list[dict]:
    return [
        {k: sorted(v, key=json.dumps) if isinstance(v, list) else v for k, v in r.items()}
        for r in rows
    ]


def _same_rows(got: list[dict], want: list[dict]) -> bool:
    """Equal as sets of bindings (numbers compare by value, as OPA's do)."""
    left = list(got)
    for w in want:
        for i, g in enumerate(left):
            if equal(g, w):
                del left[i]
                break
        else:
            return False
    return not left


def _is_unsupported(exc: Exception) -> bool:
    if isinstance(exc, PolicyError):
        return all(
            d.message.startswith("unsupported:") and d.line > 0 and d.col > 0
            for d in exc.diagnostics
        )
    if isinstance(exc, EvalError):
        return exc.message.startswith("unsupported:") and exc.line > 0
    return False


def classify(case: dict) -> str:
    """``right``, ``unsupported`` or ``wrong: <what happened>``."""
    try:
        got = _results(case)
    except _Unsupported:
        return "unsupported"
    except (PolicyError, EvalError) as exc:
        if _is_unsupported(exc):
            return "unsupported"
        code = case.get("want_error_code")
        if code is None and "want_error" not in case:
            return f"wrong: error {exc}"
        if code is not None:
            compile_time = code in _COMPILE_CODES
            if compile_time != isinstance(exc, PolicyError):
                return f"wrong: {type(exc).__name__} where OPA reports {code}: {exc}"
        return "right"
    except RecursionError:
        return "wrong: recursion"
    if "want_error" in case or "want_error_code" in case:
        return f"wrong: no error, results {got}"
    want = case.get("want_result") or []
    if case.get("sort_bindings"):
        got, want = _sorted_bindings(got), _sorted_bindings(want)
    if _same_rows(got, want):
        return "right"
    return f"wrong: {json.dumps(got)[:300]}"


def _known_unsupported() -> set[str]:
    return set(json.loads(EXPECTATIONS.read_text("utf-8"))["unsupported"])


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_case(case_id: str) -> None:
    status = classify(CASES[case_id])
    if case_id in _known_unsupported():
        assert status == "unsupported", f"listed as unsupported, now {status}: move it"
    else:
        assert status == "right", status


def counts() -> dict[str, Counter]:
    out: dict[str, Counter] = {}
    for case_id, case in CASES.items():
        status = classify(case).split(":", 1)[0]
        out.setdefault(_family(case_id), Counter())[status] += 1
    return out


if __name__ == "__main__":
    if "--write" in sys.argv:
        unsupported = sorted(c for c, case in CASES.items() if classify(case) == "unsupported")
        EXPECTATIONS.write_text(json.dumps({"unsupported": unsupported}, indent=1) + "\n")
    if "--wrong" in sys.argv:
        for c, case in sorted(CASES.items()):
            s = classify(case)
            if s != "right":
                print(c, "->", s[:400])
    total: Counter = Counter()
    print("| family | right | unsupported | wrong |\n|---|---|---|---|")
    for fam, cnt in sorted(counts().items()):
        total.update(cnt)
        print(f"| {fam} | {cnt['right']} | {cnt['unsupported']} | {cnt['wrong']} |")
    print(f"| **all** | {total['right']} | {total['unsupported']} | {total['wrong']} |")
