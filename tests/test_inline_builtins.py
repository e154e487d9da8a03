"""The builtins the compiler computes inline (``compile._INLINE``) give what the builtin gives,
for every operand their guard admits; any other operand still takes the call and its error."""

from __future__ import annotations

import pytest

from hookgate.builtins import full_registry
from hookgate.lang import UNDEFINED, EvalError, load
from hookgate.lang.compile import _INLINE
from hookgate.lang.runtime import COUNTED
from hookgate.lang.values import RegoSet

OPERANDS = ["", "a", "ab", "/tmp/x", "é/ß", 0, 1.5, True, None, [], ["a"], {}, {"a": 1}]
OPERANDS.append(RegoSet._from_dict({"a": "a"}))


class _Ctx:
    mocks = None


@pytest.mark.parametrize("name", sorted(_INLINE))
def test_inline_expression_is_the_builtin(name):
    guard, fast = _INLINE[name]
    builtin = full_registry()[name]
    arity = builtin.arity
    names = [f"v{i}" for i in range(arity)]
    checked = 0
    pairs = [(a,) for a in OPERANDS] if arity == 1 else [(a, b) for a in OPERANDS for b in OPERANDS]
    for values in pairs:
        scope = {"ctx": _Ctx(), "COUNTED": COUNTED, **dict(zip(names, values, strict=True))}
        if not eval("ctx.mocks is None" + guard.format(*names), scope):
            continue
        assert eval(fast.format(*names), scope) == builtin.func(*values), (name, values)
        checked += 1
    assert checked >= 3  # the guard admits the usual operands


SOURCE = """
package p

import rego.v1

r := [startswith(input.a, input.b), endswith(input.a, input.b), contains(input.a, input.b),
	is_string(input.a), count(input.a)]

mocked if {
	startswith("abc", "x") with startswith as fake
}

fake(_, _) := true

literal := endswith(1, "")
"""


def test_policies_get_the_same_answers_and_errors():
    ps = load({"p.rego": SOURCE})
    assert ps.query("data.p.r", input={"a": "abc", "b": "ab"}) == [True, False, True, True, 3]
    assert ps.query("data.p.literal", input={}) is UNDEFINED  # compiles: (1).endswith
    assert ps.query("data.p.mocked", input={}) is True  # a mock still replaces the builtin
    with pytest.raises(EvalError, match="startswith: operand 1 must be string"):
        ps.query("data.p.r", input={"a": 1, "b": "x"}, strict_builtin_errors=True)
