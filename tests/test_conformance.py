"""Every case of the Rego conformance file (tests/data/conformance, from microsoft/regorus's
test suite, MIT): a result case must evaluate to the expected value or fail with an
"unsupported: …" error naming line:col; an error case must raise. A wrong answer fails.

Where OPA itself disagrees with the engine that produced an expectation, hookgate follows OPA;
those cases are listed in ``OPA_DIVERGENCES`` with OPA's behaviour, and they must give OPA's
answer (they do not count as passes).
"""

import json
from pathlib import Path

import pytest

from hookgate.lang import UNDEFINED, EvalError, PolicyError, load
from hookgate.lang.values import RegoSet, equal, to_json

CASES = json.loads(
    (Path(__file__).parent / "data" / "conformance" / "rego-v1-cases.json").read_text("utf-8")
)

# case id -> (what OPA does, a check of hookgate's outcome)
OPA_DIVERGENCES = {
    **dict.fromkeys(
        ("builtins/time/add_date.yaml#3", "builtins/time/add_date.yaml#4"),
        (
            "time.add_date past the int64 nanosecond range is an error (OPA's own case time/"
            "add_date too large result: time outside of valid range), not undefined",
            lambda r: isinstance(r, EvalError) and "outside of valid range" in r.message,
        ),
    ),
    "builtins/time/format.yaml#0": (
        "Go's RFC3339Nano trims trailing zeros: 2023-12-24T18:58:45.73439Z",
        lambda r: r["a"] == "2023-12-24T18:58:45.73439Z",
    ),
    "builtins/time/format.yaml#1": (
        "Go's RFC3339Nano trims trailing zeros: 2023-12-24T18:58:45.73439Z",
        lambda r: r["a"] == "2023-12-24T18:58:45.73439Z",
    ),
    "builtins/strings/lower.yaml#1": (
        "Go's strings.ToLower maps each rune: a final Σ becomes σ, not ς",
        lambda r: r["v2"] == "ὀδυσσεύσ",
    ),
    "builtins/strings/sprintf.yaml#1": (
        "sprintf is Go's fmt.Sprintf: %f has precision 6 (3.140000) and %o no prefix (100)",
        lambda r: r["float"] == "Float: 3.140000" and r["octal"] == "Octal: 100",
    ),
    "builtins/strings/sprintf.yaml#4": (
        "sprintf is Go's fmt.Sprintf (OPA checks no argument count): a verb without an "
        "argument prints %!d(MISSING)",
        lambda r: r == {"error_case": "Value: only_one %!d(MISSING)"},
    ),
    "builtins/strings/indexof.yaml#0": (
        "indexof with an empty search string is an error: empty search character",
        lambda r: isinstance(r, EvalError) and "empty search character" in r.message,
    ),
    "builtins/numbers/mod.yaml#6": (
        "an integral number is an integer to `%` however it is written: 1e16 % 2 is 0",
        lambda r: r == {"x": 0},
    ),
    "builtins/semver/is_valid.yaml#1": (
        "semver.is_valid takes any value (its parameter is typed any): false for a non-string",
        lambda r: r is False,
    ),
    "builtins/units/parse.yaml#5": (
        "units.parse has no byte suffix: a builtin error, which strict builtin errors raise",
        lambda r: isinstance(r, EvalError) and "units.parse" in r.message,
    ),
    "target/complex.yaml#4": (
        "a rule reading the whole `data` document depends on itself: rego_recursion_error",
        lambda r: isinstance(r, PolicyError) and "recursi" in str(r),
    ),
    "target/complex.yaml#8": (
        "recursive functions are rejected: rego_recursion_error",
        lambda r: isinstance(r, PolicyError) and "recursi" in str(r),
    ),
}

MIN_PASS_RATE = 0.90


def _expected(v):
    if isinstance(v, dict):
        if set(v) == {"set!"}:
            return RegoSet(_expected(x) for x in v["set!"])
        return {k: _expected(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_expected(x) for x in v]
    return v


def run_case(case):
    """The query's value, or the PolicyError/EvalError it raised."""
    sources = {f"case{i}.rego": m for i, m in enumerate(case["modules"])}
    try:
        ps = load(sources, case.get("data") or {})
        # The expectations come from an engine with strict builtin errors (OPA's
        # --strict-builtin-errors): a builtin's error fails the query.
        return ps.query(
            case["query"], input=case.get("input", UNDEFINED), strict_builtin_errors=True
        )
    except (PolicyError, EvalError) as exc:
        return exc


def _message(exc):
    if isinstance(exc, PolicyError):
        return exc.diagnostics[0].message
    return exc.message


def _is_unsupported(exc):
    if not _message(exc).startswith("unsupported:"):
        return False
    if isinstance(exc, PolicyError):
        return all(d.line > 0 and d.col > 0 for d in exc.diagnostics)
    return exc.line > 0 and exc.col > 0


def classify(case):
    got = run_case(case)
    if case["id"] in OPA_DIVERGENCES:
        _, check = OPA_DIVERGENCES[case["id"]]
        return "opa" if check(got) else f"wrong: {got!r}"
    if "want_error" in case:
        return "error" if isinstance(got, PolicyError | EvalError) else f"no error: {got!r}"
    if isinstance(got, PolicyError | EvalError):
        return "unsupported" if _is_unsupported(got) else f"failed: {got}"
    want = case["want_result"]
    if want is None:
        return "pass" if got is UNDEFINED else f"wrong: {got!r}"
    if got is not UNDEFINED and equal(got, _expected(want)):
        return "pass"
    shown = json.dumps(to_json(got)) if got is not UNDEFINED else "undefined"
    return f"wrong: {shown}"


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case):
    outcome = classify(case)
    assert outcome in ("pass", "unsupported", "error", "opa"), f"{case['note']}: {outcome}"


def test_pass_rate():
    results = [classify(c) for c in CASES if "want_error" not in c]
    passed = results.count("pass")
    rate = passed / len(results)
    print(f"conformance: {passed}/{len(results)} result cases pass ({rate:.1%})")
    assert rate >= MIN_PASS_RATE
