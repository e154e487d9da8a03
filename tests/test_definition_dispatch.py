"""A partial set's definitions are dispatched by the input facts (``compile.Program._dispatch``
with ``relevance.Relevance.definition_test``): a definition whose own facts cannot hold for the
call (``some e in effects; e.op == "link"`` when no effect is a link) is skipped without a call.

The oracle is the same policy compiled with coverage, which has neither the dispatch nor the
relevance analysis: every definition runs. Over every payload of the corpora (the everyday and
evasion commands, the file-tool effect cases, the prompt-injection corpora and instruction rows,
the benchmark's everyday mix), every decision rule's value (or error) must be the oracle's; and on
a small policy, the skipped definitions must not be entered, under ``with`` too."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import pytest
from lang_support import functions_entered

from hookgate.engine import Engine
from hookgate.lang import load

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"


def _corpora_payloads() -> list[dict]:
    """Every hook payload the corpora tests send (as they build them)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from compare import everyday_docs
    from test_corpora import INSTRUCTION_ROWS, host_call, report
    from test_self_protect import shell_call
    from test_xpia_corpus import BENIGN, INJECTIONS, payload

    def bash(command: str, cwd: str) -> dict:
        return {**shell_call(command, cwd), "session_id": "corpora"}

    out = [bash(c["command"], report.EVERYDAY_CWD) for c in report.everyday_cases()]
    with tempfile.TemporaryDirectory() as tmp:
        cwd = report.sandbox(tmp)
        out += [bash(r["command"], cwd) for r in report.evasion_rows()]
    out += [c["payload"] for c in json.loads((DATA / "effects" / "cases.json").read_text())]
    out += [payload(c["channel"], c["text"]) for c in INJECTIONS + BENIGN]
    out += [host_call(row) for row in INSTRUCTION_ROWS]
    out += list(everyday_docs().values())
    return out


@pytest.fixture(scope="module")
def queries() -> tuple[Engine, list[tuple]]:
    """The default pack's engine and every query it made of its policy set for the corpora:
    ``(refs, input, overrides)``."""
    engine = Engine.from_paths([str(ROOT / "policies")])
    made: list[tuple] = []
    query_many = engine.policy_set.query_many

    def recorded(refs, input, data_overrides=None, overrides=None, **options):
        made.append((tuple(refs), input, overrides))
        return query_many(refs, input, data_overrides, overrides, **options)

    engine.policy_set.query_many = recorded
    for doc in _corpora_payloads():
        engine.evaluate(doc)
    engine.policy_set.query_many = query_many
    return engine, made


def _answers(ps, refs: tuple, doc, overrides) -> list | str:
    try:
        return ps.query_many(list(refs), input=doc, overrides=overrides)
    except Exception as exc:  # the same error, or the same values
        return type(exc).__name__


def test_every_decision_rule_answers_as_every_definition_run(queries):
    engine, made = queries
    ps = engine.policy_set
    oracle = load(ps.sources, ps.data, coverage=True)
    assert len(made) > 5000  # every payload reached the policies
    file_tools = [doc for _, doc, _ in made if doc.get("tool_kind") in ("edit", "write")]
    assert len(file_tools) > 50
    denied = 0
    for refs, doc, overrides in made:
        got = _answers(ps, refs, doc, overrides)
        assert got == _answers(oracle, refs, doc, overrides), (refs, doc)
        denied += any(v for v in got if v) if isinstance(got, list) else 0
    assert denied > 500  # the comparison covers rules with values, not only empty sets


def test_the_pack_dispatches_file_definitions_by_their_facts():
    """The definitions of ``no_verify.violations`` that read a file effect's operation test
    that operation among the call's file effects before they are called."""
    from hookgate.lang.compile import Program
    from hookgate.lang.policyset import parse_and_check

    sources = {
        str(p): p.read_text()
        for p in (ROOT / "policies").glob("*.rego")
        if not p.name.endswith("_test.rego")
    }
    source = Program(parse_and_check(sources)).source
    tests = [line for line in source.splitlines() if "member_fact(ctx" in line and "): s" in line]
    assert any("'link' in" in line for line in tests), tests
    assert any("'delete' in" in line for line in tests), tests


POLICY = """package t

import rego.v1

effects := [e | some e in object.get(input, "effects", [])]

v contains x if {
	some e in effects
	e.op == "link"
	x := concat(" ", ["link", e.path])
}

v contains x if {
	some e in effects
	e.op in {"delete", "move"}
	x := concat(" ", [e.op, e.path])
}

v contains x if {
	some e in effects
	x := concat(" ", ["any", e.op])
}

v contains x if {
	some e in object.get(input, "runs", [])
	e.kind == "git"
	x := "git"
}

v contains x if {
	input.tool_kind == "shell"
	input.line == "ls"
	x := "ls"
}

v contains "always"

with_effects := x if x := v with data.t.effects as [{"op": "link", "path": "p"}]

with_input := x if x := v with input as {"effects": [{"op": "delete", "path": "q"}]}

with_mocked := x if {
	x := v with input as {"effects": [{"op": "link", "path": "p"}]} with concat as "mocked"
}
"""

INPUTS = [
    {},
    {"effects": []},
    {"effects": [{"op": "write", "path": "a"}]},
    {"effects": [{"op": "link", "path": "a"}]},
    {"effects": [{"op": "move", "path": "a"}, {"op": "link", "path": "b"}]},
    {"effects": [{"op": 3}]},
    {"effects": [{"path": "no op"}]},
    {"effects": "not a collection"},
    {"effects": {"k": {"op": "delete", "path": "obj"}}},
    {"runs": [{"kind": "git"}]},
    {"runs": [{"kind": "npm"}]},
    {"tool_kind": "shell", "line": "ls"},
    {"tool_kind": "shell", "line": "pwd"},
    {"tool_kind": "read", "line": "ls"},
    "not an object",
]


@pytest.fixture(scope="module")
def sets():
    return load({"p.rego": POLICY}), load({"p.rego": POLICY}, coverage=True)


@pytest.mark.parametrize("doc", INPUTS)
def test_answers_equal_every_definition_run(sets, doc):
    dispatched, oracle = sets
    assert dispatched.query("data.t.v", input=doc) == oracle.query("data.t.v", input=doc)
    refs = ["data.t.v", "data.t.effects"]
    assert dispatched.query_many(refs, input=doc) == oracle.query_many(refs, input=doc)


@pytest.mark.parametrize("rule", ["with_effects", "with_input", "with_mocked"])
def test_with_overrides(sets, rule):
    dispatched, oracle = sets
    want = oracle.query(f"data.t.{rule}", input={})
    assert len(want) > 1  # each override makes a dispatched definition produce something
    assert dispatched.query(f"data.t.{rule}", input={}) == want


def _entered(ps, doc) -> set[str]:
    return {n for n in functions_entered(ps, "data.t.v", doc) if n.startswith("s")}


def test_definitions_whose_facts_fail_are_not_entered(sets):
    dispatched, oracle = sets
    # A write: the link, delete-or-move, git and ls definitions are skipped; "any" and
    # "always" run.
    write = {"effects": [{"op": "write", "path": "a"}], "runs": [{"kind": "npm"}]}
    assert len(_entered(dispatched, write)) == 2
    assert len(_entered(oracle, write)) == 6
    assert set(dispatched.query("data.t.v", input=write)) == {"any write", "always"}
    busy = {
        "effects": [{"op": "link", "path": "a"}, {"op": "delete", "path": "b"}],
        "runs": [{"kind": "git"}],
        "tool_kind": "shell",
        "line": "ls",
    }
    assert len(_entered(dispatched, busy)) == 6


MEMO_POLICY = """package m

import rego.v1

names := ["a", "b"]

kinds := {"x": 1}

fixed contains n if {
	some n in names
}

fixed contains k if {
	some k, _ in kinds
}

fixed contains "never" if {
	some n in names
	n == "c"
}

v contains n if {
	some n in fixed
	input.want == n
}
"""


def test_a_memoized_group_is_dispatched_without_the_mask():
    """A group reading neither the call nor the machine has one value for every call
    (``Group.memo_env``): its dispatch must test no fact of this call. None can arise (the
    atoms are facts of the input, which such a group does not read, even through a rule)."""
    from hookgate.lang.compile import Program
    from hookgate.lang.policyset import parse_and_check

    program = Program(parse_and_check({"m.rego": MEMO_POLICY}))
    fixed = next(g for g in program.tree.groups if g.name == "data.m.fixed")
    assert fixed in program.out.memoized
    (dispatch,) = program.out.definitions[fixed][0]
    body = program.source.split(f"def {dispatch}(ctx, acc):\n")[1].split("\ndef ")[0]
    assert "ctx.data_over" in body and " r " not in body, body
    ps, oracle = load({"m.rego": MEMO_POLICY}), load({"m.rego": MEMO_POLICY}, coverage=True)
    for doc in ({"want": "a"}, {"want": "x"}, {"want": "c"}, {}):
        assert ps.query("data.m.v", input=doc) == oracle.query("data.m.v", input=doc)
        assert ps.query("data.m.fixed", input=doc) == oracle.query("data.m.fixed", input=doc)
