"""``some p in xs; glob.match(p, d, v)`` with nothing else reading ``p`` compiles to one question
to a matcher of the whole list (``LiteralCompiler.glob_some``, ``runtime.glob_members``,
``regex.glob_match_any``). The oracle is the same policy compiled with coverage, which never
fuses: the loop of one ``glob.match`` per member. Random lists of patterns (the glob's own
metacharacters, malformed classes and braces, non-strings) against random values, with
strict builtin errors or without, with ``glob.match`` replaced by a function, give the same
answers and the same errors."""

import random

import pytest
from lang_support import functions_entered

from hookgate.lang import load
from hookgate.lang.errors import EvalError

POLICY = """package t

import rego.v1

# fused: a function, a partial set, a complete rule, inside `not` and `every`, over a set
f(ps, d, x) if {
	some p in ps
	glob.match(p, d, x)
}

s contains x if {
	x := input.x
	some p in input.ps
	glob.match(p, input.d, x)
}

c := true if {
	d := input.d
	x := input.x
	some p in input.ps
	glob.match(p, d, x)
}

n := true if {
	x := input.x
	d := input.d
	not any_match(d, x)
}

any_match(d, x) if {
	some p in input.ps
	glob.match(p, d, x)
}

e := true if {
	x := input.x
	d := input.d
	every q in input.qs {
		some p in q
		glob.match(p, d, x)
	}
}

as_set := v if {
	ps := {p | some p in input.ps}
	v := f(ps, input.d, input.x)
}

answers := {"f": object.get({"v": f(input.ps, input.d, input.x)}, "v", "undefined"), "s": s}

# not fused: each solution counts (array comprehension), `p` read later, a `print` after
arr := [1 | x := input.x; d := input.d; some p in input.ps; glob.match(p, d, x)]

printed contains 1 if {
	x := input.x
	some p in input.ps
	glob.match(p, ["/"], x)
	print("hit")
}

read_later contains p if {
	x := input.x
	some p in input.ps
	glob.match(p, ["/"], x)
}

mocked := v if v := f(input.ps, input.d, input.x) with glob.match as fake

fake(p, _, x) := p == x
"""

ALPHABET = "ab/.*?[]{},\\!-"


def _pattern(rng: random.Random):
    if rng.random() < 0.08:
        return rng.choice([1, None, ["a"], {"k": "a"}, True])
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 6)))


def _inputs(count: int):
    rng = random.Random(32)
    for _ in range(count):
        ps = [_pattern(rng) for _ in range(rng.randint(0, 6))]
        value = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 7)))
        if rng.random() < 0.05:
            value = rng.choice([3, None, ["a"]])
        d = rng.choice([["/"], [], None, ["/", "."], ["/", 1], "/", 0])
        qs = [[_pattern(rng) for _ in range(rng.randint(0, 3))] for _ in range(rng.randint(0, 3))]
        yield {"ps": ps, "x": value, "d": d, "qs": qs}


RULES = ["answers", "c", "n", "e", "as_set", "arr", "read_later", "mocked", "printed"]


@pytest.fixture(scope="module")
def sets():
    return load({"p.rego": POLICY}), load({"p.rego": POLICY}, coverage=True)


def _answer(ps, rule, doc, strict):
    prints: list[str] = []
    try:
        value = ps.query(f"data.t.{rule}", input=doc, strict_builtin_errors=strict, prints=prints)
    except EvalError as exc:
        return ("error", str(exc))
    return (value, prints) if prints else value


@pytest.mark.parametrize("strict", [False, True])
def test_fused_answers_as_the_loop(sets, strict):
    fused, oracle = sets
    seen = set()
    for doc in _inputs(600):
        for rule in RULES:
            want = _answer(oracle, rule, doc, strict)
            assert _answer(fused, rule, doc, strict) == want, (rule, doc)
            seen.add((rule, repr(want)[:40]))
    # both ways, and errors under strict builtin errors
    answers = {w for r, w in seen if r == "c"}
    assert "True" in answers and len(answers) > 1, answers
    if strict:
        assert any(w.startswith("('error'") for _, w in seen)


def test_the_pack_shapes_match_their_globs(sets):
    fused, _ = sets
    globs = [".husky/*", "**/.husky/*", "lefthook.yml", "**/lefthook.yml", ".lefthook/**"]
    for value, want in [
        (".husky/pre-commit", True),
        ("sub/.husky/pre-commit", True),
        ("lefthook.yml", True),
        ("a/b/lefthook.yml", True),
        (".lefthook/x/y", True),
        (".husky/_/h", False),  # "*" stops at "/"
        ("src/main.py", False),
    ]:
        doc = {"ps": globs, "x": value, "d": ["/"], "qs": []}
        assert (fused.query("data.t.c", input=doc) is True) is want, value


def test_one_question_not_one_call_per_member(sets):
    fused, oracle = sets
    doc = {"ps": [f"dir{i}/*" for i in range(20)], "x": "src/a.py", "d": ["/"], "qs": []}
    assert "glob_match_any" in functions_entered(fused, "data.t.c", doc, builtins=True)
    assert "glob_match" not in functions_entered(fused, "data.t.c", doc, builtins=True)
    assert "glob_match" in functions_entered(oracle, "data.t.c", doc, builtins=True)


def test_a_lone_surrogate_is_judged_member_by_member(sets):
    """RE2 cannot read a lone surrogate: the matcher of the list hands back to the loop, which
    fails (or not) where one call would."""
    fused, oracle = sets
    for ps in (["a*", "*b"], ["\udcff", "x*"], ["x"]):
        doc = {"ps": ps, "x": "a\udcffb", "d": [], "qs": []}
        assert _answer(fused, "c", doc, False) == _answer(oracle, "c", doc, False), ps


def test_the_last_list_is_matched_again_only_with_the_same_content():
    """glob_match_any keeps the last list's matcher (a rule's globs are asked about call after
    call): a list changed since, another list and other delimiters get their own."""
    from hookgate.builtins.regex import glob_match_any

    ps = [".husky/*", "**/.husky/*"]
    assert glob_match_any(ps, ["/"], "a/.husky/x")
    assert not glob_match_any(ps, ["/"], "src/a.py")
    ps.append("src/*")  # the same list, changed
    assert glob_match_any(ps, ["/"], "src/a.py")
    ps[:] = ["x"]
    assert not glob_match_any(ps, ["/"], "src/a.py")
    assert glob_match_any(["src/*"], ["/"], "src/a.py")  # another list
    delims = ["/"]
    stars = ["*"]
    assert not glob_match_any(stars, delims, "a/b")  # "*" stops at "/"
    delims[:] = ["."]  # the same delimiters list, changed
    assert glob_match_any(stars, delims, "a/b")
    assert not glob_match_any(stars, delims, "a.b")
    assert glob_match_any(stars, None, "a.b")
