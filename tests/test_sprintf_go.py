"""``sprintf`` against Go's ``fmt`` itself: hookgate's port (builtins/gofmt.py) and a Go program
that formats exactly as OPA's ``builtinSprintf`` does (tests/data/gofmt/oracle.go), compared
answer for answer.

- A recorded table (tests/data/gofmt/recorded.jsonl: generated cases with Go's answers) is
  checked on every machine, with or without Go.
- A property test generates more cases (tests/gofmt_cases.py) and asks the Go program, built
  once per session with the Go toolchain. It is skipped only where ``go`` is absent, and never
  in CI (``CI=true``), where .ci/run installs Debian's golang-go.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hookgate.builtins.registry import BuiltinError
from hookgate.builtins.strings import sprintf
from hookgate.lang import load
from hookgate.lang.values import RegoSet

sys.path.insert(0, str(Path(__file__).parent))

import gofmt_cases  # noqa: E402

DATA = Path(__file__).parent / "data" / "gofmt"


def rego(v: object) -> object:
    """A case's JSON argument as a policy value (``{"$set": [...]}`` is a set)."""
    if type(v) is dict:
        if set(v) == {"$set"}:
            return RegoSet(rego(x) for x in v["$set"])
        return {k: rego(x) for k, x in v.items()}
    if type(v) is list:
        return [rego(x) for x in v]
    return v


def hookgate(case: dict) -> str:
    return sprintf(case["format"], rego(case["args"]))


def test_recorded_go_answers():
    lines = (DATA / "recorded.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) >= 300
    wrong = []
    for n, line in enumerate(lines, 1):
        case = json.loads(line)
        got = hookgate(case)
        if got != case["want"]:
            wrong.append(
                f"line {n}: {case['format']!r} {case['args']!r}: {got!r} != Go's {case['want']!r}"
            )
    assert not wrong, "\n".join(wrong[:20])


@pytest.fixture(scope="session")
def go_oracle(tmp_path_factory):
    if shutil.which("go") is None:
        assert os.environ.get("CI") != "true", "CI installs golang-go (.ci/run): go must exist"
        pytest.skip("the go command is not installed")
    tmp = tmp_path_factory.mktemp("gofmt")
    env = {**os.environ, "GOCACHE": str(tmp / "cache"), "GOPATH": str(tmp / "gopath")}
    exe = tmp / "oracle"
    subprocess.run(["go", "build", "-o", str(exe), str(DATA / "oracle.go")], check=True, env=env)
    proc = subprocess.Popen(
        [str(exe)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8"
    )

    def ask(case: dict) -> str:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(case, ensure_ascii=False) + "\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())

    yield ask
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(timeout=10)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(r=st.randoms(use_true_random=False))
def test_generated_cases_match_go(go_oracle, r):
    case = gofmt_cases.case(r)
    assert hookgate(case) == go_oracle(case), case


def rego_source(v: object) -> str:
    """A case's JSON argument written as a Rego term (numbers as their JSON text)."""
    if type(v) is dict:
        if set(v) == {"$set"}:
            return "{" + ", ".join(map(rego_source, v["$set"])) + "}" if v["$set"] else "set()"
        return "{" + ", ".join(f"{rego_source(k)}: {rego_source(x)}" for k, x in v.items()) + "}"
    if type(v) is list:
        return "[" + ", ".join(map(rego_source, v)) + "]"
    return json.dumps(v, ensure_ascii=False)


def _exact_int_literal(v: object) -> bool:
    """A float literal past 2**53 that writes an integer: hookgate keeps it an exact int, where
    OPA's sprintf sees a float64 (docs/reference/sprintf.md)."""
    if type(v) is float:
        return v.is_integer() and abs(v) > 2**53
    if type(v) is dict:
        return any(_exact_int_literal(x) for x in v.values())
    if type(v) is list:
        return any(_exact_int_literal(x) for x in v)
    return False


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(r=st.randoms(use_true_random=False))
def test_generated_cases_as_policy_source_match_go(go_oracle, r):
    """The same cases written into a policy: the arguments are Rego literals, so the parser's
    numbers (4.0 a float, 1e3 too) reach sprintf as OPA's do."""
    case = gofmt_cases.case(r)
    assume(not _exact_int_literal(case["args"]))
    src = f"package t\n\nx := sprintf({json.dumps(case['format'])}, {rego_source(case['args'])})\n"
    assert load({"t.rego": src}).query("data.t.x") == go_oracle(case), src


@pytest.mark.parametrize(
    ("fmt", "args"),
    [
        ("%d|%v|%s|%T", [4.0, 1e3, 1, 1e6]),
        ("%v %v %v", [1e21, 0.1, -0.0]),
        ("%05.1f|%+.3e|%#g|%G|%x|%b", [3.14159, 1e6, 2.0, 1e-7, 1.5, 1.0]),
        ("%s %d %x %v %T", [2**70, -(2**64), 2**64, 2**63, 2**63]),
        ("%c%c%q%U|%#U|%+q", [65, 0x1F600, 0x41, 0x1F600, 0x1F600, "日本"]),
        ("%t %5t %-5d| %s %d", [True, None, "ab", [1, {"a": RegoSet(["x"])}], RegoSet()]),
        ("%[2]d %[1]d|%[3]d|%[x]d", [1, 2]),
        ("%*d|%-*d|%.*f|%*d", [5, 1, 4, 2, 2, 3.14159, "w", 7]),
        ("%d %d", [1]),
        ("%d", [1, "x", 2.5, 2**64]),
        ("%!|%z|%", [1, 2]),
        ("%08.3f|%-08d|%+08d|% d|%x|% X|%#x", [-3.14159, 42, 42, 42, "héllo", "ab", "ab"]),
    ],
)
def test_named_corners_match_go(go_oracle, fmt, args):
    """Corners the issue names, through the oracle (sets as ``{"$set": [...]}``)."""

    def as_json(v: object) -> object:
        if type(v) is RegoSet:
            return {"$set": [as_json(x) for x in v]}
        if type(v) is dict:
            return {k: as_json(x) for k, x in v.items()}
        if type(v) is list:
            return [as_json(x) for x in v]
        return v

    case = {"format": fmt, "args": as_json(args)}
    assert sprintf(fmt, args) == go_oracle(case)


def test_known_answers_without_go():
    """What Go prints for the issue's examples, written down (checked on every machine)."""
    assert sprintf("%v|%d|%s", [4.0, 4.0, 1]) == "4|%!d(float64=4)|%!s(int=1)"
    assert sprintf("%v %v %f", [1e6, 1e21, 3]) == "1e+06 1e+21 %!f(int=3)"
    assert sprintf("%5t|%-6d|", [1, "ab"]) == "%!t(int=    1)|%!d(string=ab    )|"
    assert sprintf("%T %T %T %T %T", [1, 2**64, 1.5, "s", True]) == (
        "int *big.Int float64 string string"
    )
    assert sprintf("%d %x %q", [2**64, 2**64, 2**64]) == (
        "18446744073709551616 10000000000000000 %!q(big.Int=18446744073709551616)"
    )
    assert sprintf("%d %d", [1]) == "1 %!d(MISSING)"
    assert sprintf("%d", [1, True, None]) == "1%!(EXTRA string=true, string=null)"
    assert sprintf("a%", []) == "a%!(NOVERB)"
    assert sprintf("%[3]2d|%[2]d", [1]) == "%!d(BADINDEX)|%!d(BADINDEX)"
    assert sprintf("%*d|%.*d", ["w", 1, "p", 2]) == "%!(BADWIDTH)1|%!(BADPREC)2"


def test_p_of_a_big_integer_is_refused():
    """Go prints the address of the ``*big.Int``: an answer no engine gives twice."""
    with pytest.raises(BuiltinError, match="unsupported: sprintf %p"):
        sprintf("%p", [2**64])
    assert sprintf("%p", [1]) == "%!p(int=1)"


def test_sprintf_through_a_policy():
    """End to end: the arguments as a policy sees them (input JSON) reach Go's rules."""
    policy = load({"t.rego": "package t\n\nx := sprintf(input.f, input.a)\n"})
    doc = {"f": "%d|%v|%5.1f|%s", "a": [4.0, 1e6, 2, True]}
    got = policy.query("data.t.x", input=doc)
    assert got == "%!d(float64=4)|1e+06|%!f(int=    2)|true"


def test_number_literals_format_as_their_text_makes_them():
    """OPA keeps a literal's text: ``4.0`` and ``1e3`` are float64 to Go, and arithmetic on
    integral operands, or with an integral result below a million, gives an integer."""
    src = (
        "package t\n\n"
        'x := sprintf("%d|%v|%v|%d|%d|%v|%v", '
        "[4.0, 1e3, 4.0 + 1, 2.5 * 2, 1e3 * 1e3, 0.5 * 4e6, [4.0, 0.5, 4.0 / 2]])\n"
    )
    got = load({"t.rego": src}).query("data.t.x")
    assert got == "%!d(float64=4)|1000|5|5|1000000|2e+06|[4.0, 0.5, 2]"


def test_huge_widths_are_bounded_as_they_grow():
    """Go reads widths up to ten million: many of them are refused as the text passes the
    evaluator's bound on a result, not after gigabytes are built."""
    from hookgate.lang.errors import LimitError

    assert len(sprintf("%70000d", [1])) == 70000
    assert sprintf("%.9999999s", ["abc"]) == "abc"  # a precision that builds nothing
    with pytest.raises(LimitError, match="result over"):
        sprintf("%9999999d" * 1000, [1] * 1000)
    policy = load({"t.rego": "package t\n\nx := sprintf(input.f, [1])\n"})
    with pytest.raises(LimitError):
        policy.query("data.t.x", input={"f": "%9999999d"})
