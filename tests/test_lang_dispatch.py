"""A partial set's or object's definitions run through one dispatch (``compile.Program._dispatch``)
that skips each definition whose first literal cannot hold: ``some x in r`` when ``r`` has no
members, ``input.a == "s"`` when the input differs. The answers are those of the definitions run
one by one (a policy set compiled with coverage has no dispatch: the oracle here), and a skipped
definition's function is never entered."""

import pytest
from lang_support import functions_entered

from hookgate.lang import load

POLICY = """package t

import rego.v1

cmds := [c | some c in object.get(input, "cmds", [])]

names := {"none"} if input.scalar else := input.names

v contains x if {
	some c in cmds
	x := sprintf("cmd %v", [c])
}

v contains x if {
	some c in cmds
	c == "rm"
	x := "rm"
}

v contains x if {
	input.tool_kind == "shell"
	x := "shell"
}

v contains x if {
	some n in names
	x := concat("", ["name ", n])
}

v contains "always"

flag := input.flag

conf := {"mode": object.get(input, "mode", null)}

v contains "flag" if {
	flag
	true
}

v contains m if {
	m := conf.mode
	is_string(m)
}

v contains "edit mode" if {
	conf.mode == "edit"
}

opt := input.opt

v contains "opt" if {
	opt.k == "x"
}

o[k] := n if {
	some k, n in names
}

o.kind := input.tool_kind if input.tool_kind == "edit"

# with data…: every definition runs, reading the overridden rule; with input: the guards read
# the replaced input
with_cmds := x if x := v with data.t.cmds as [7]

with_names := x if x := v with data.t.names as ["w"]

with_object := x if x := o with data.t.names as {"k": 2}

with_input := x if x := v with input as {"tool_kind": "shell"}
"""

INPUTS = [
    {},
    {"tool_kind": "read"},
    {"tool_kind": "shell"},
    {"tool_kind": 1},
    {"tool_kind": "shell", "cmds": ["ls", "rm"]},
    {"cmds": [], "names": []},
    {"names": {"a": 1}},
    {"names": "a string: not a collection"},
    {"names": ["x"], "tool_kind": "edit"},
    {"scalar": True, "tool_kind": "edit"},
    {"flag": False},
    {"flag": 0},
    {"flag": None},
    {"flag": True, "mode": "edit"},
    {"mode": 3},
    {"mode": ["edit"]},
    {"opt": {"k": "x"}},
    {"opt": ["x"]},
    {"opt": "x"},
]


@pytest.fixture(scope="module")
def sets():
    return load({"p.rego": POLICY}), load({"p.rego": POLICY}, coverage=True)


@pytest.mark.parametrize("doc", INPUTS)
@pytest.mark.parametrize("rule", ["v", "o"])
def test_dispatch_answers_as_each_definition_would(sets, doc, rule):
    dispatched, oracle = sets
    assert dispatched.query(f"data.t.{rule}", input=doc) == oracle.query(
        f"data.t.{rule}", input=doc
    )


@pytest.mark.parametrize("rule", ["with_cmds", "with_names", "with_object", "with_input"])
def test_dispatch_with_overrides(sets, rule):
    dispatched, oracle = sets
    want = oracle.query(f"data.t.{rule}", input={})
    assert want  # each override makes a definition produce something
    assert dispatched.query(f"data.t.{rule}", input={}) == want


def test_skipped_definitions_are_not_entered(sets):
    dispatched, oracle = sets
    # A read with no commands, names, flag, mode or opt: only "always" and `m := conf.mode`
    # (null is defined) are entered.
    quiet = {"tool_kind": "read", "names": []}
    entered = {n for n in functions_entered(dispatched, "data.t.v", quiet) if n.startswith("s")}
    assert len(entered) == 2, entered
    # Without dispatch (coverage) each of the nine definitions is entered.
    assert len({n for n in functions_entered(oracle, "data.t.v", quiet) if n.startswith("s")}) == 9
    busy = {
        "tool_kind": "shell",
        "cmds": ["rm"],
        "names": ["a"],
        "flag": True,
        "mode": "edit",
        "opt": {"k": "x"},
    }
    assert (
        len({n for n in functions_entered(dispatched, "data.t.v", busy) if n.startswith("s")}) == 9
    )
