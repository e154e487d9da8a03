"""Rules whose value does not depend on the call are computed once per policy set (and per
environment, for those reading ``hookgate.paths``), never at the cost of a different answer."""

from __future__ import annotations

from hookgate.lang import UNDEFINED, EvalError, load
from hookgate.lang.values import to_json

SOURCE = """
package p

import rego.v1

specs := [{"name": n, "upper": upper(n)} | some n in data.names]

from_specs := {s.upper | some s in specs}

asks := {n | some n in data.names; n == input.name}

via_function := {n | some n in data.names; matches(n)}

matches(n) if n == input.name

clock := [t | t := time.now_ns()]

printed := [n | some n in data.names; print(n)]

machine := hookgate.paths().hosts.codex

bad := to_number(data.names[0])
"""
DATA = {"names": ["a", "b"]}


def group(ps, name: str):
    return ps._tree.find(("p", name))[0].group


def test_rules_of_base_data_and_pure_builtins_are_computed_once():
    ps = load({"p.rego": SOURCE}, data=DATA)
    first = ps.query("data.p.from_specs", input={"name": "a"})
    again = ps.query("data.p.from_specs", input={"name": "b"})
    assert to_json(first) == ["A", "B"]
    assert again is first  # the same object: not computed again
    assert group(ps, "specs").memo_env == () and group(ps, "from_specs").memo_env == ()


def test_rules_reading_the_call_are_not_memoized():
    ps = load({"p.rego": SOURCE}, data=DATA)
    for name in ("asks", "via_function"):  # directly, and through a function reading input
        assert group(ps, name).memo_env is None
        assert to_json(ps.query(f"data.p.{name}", input={"name": "a"})) == ["a"]
        assert to_json(ps.query(f"data.p.{name}", input={"name": "b"})) == ["b"]


def test_clock_and_print_are_read_on_every_evaluation():
    ps = load({"p.rego": SOURCE}, data=DATA)
    assert group(ps, "clock").memo_env is None and group(ps, "printed").memo_env is None
    for _ in range(2):
        out: list[str] = []
        ps.query("data.p.printed", input={}, prints=out)
        assert len(out) == 2


def test_environment_rules_follow_the_environment(monkeypatch, tmp_path):
    ps = load({"p.rego": SOURCE}, data=DATA)
    assert group(ps, "machine").memo_env == ("hookgate.paths",)
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "one"))
    assert ps.query("data.p.machine", input={}) == str(tmp_path / "one")
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "two"))
    assert ps.query("data.p.machine", input={}) == str(tmp_path / "two")
    monkeypatch.chdir(tmp_path)  # a relative value is read against the working directory
    monkeypatch.setenv("CODEX_HOME", "rel")
    assert ps.query("data.p.machine", input={}) == str(tmp_path / "rel")


def test_mocks_overrides_and_strict_errors_bypass_the_memo():
    ps = load({"p.rego": SOURCE}, data=DATA)
    real = ps.query("data.p.machine", input={})
    mocked = ps.query(
        "data.p.machine", input={}, overrides={"hookgate.paths": lambda: {"hosts": {"codex": "x"}}}
    )
    assert mocked == "x" and ps.query("data.p.machine", input={}) == real
    renamed = ps.query("data.p.from_specs", input={}, data_overrides={"data.names": ["c"]})
    assert to_json(renamed) == ["C"]
    assert to_json(ps.query("data.p.from_specs", input={})) == ["A", "B"]
    assert ps.query("data.p.bad", input={}) is UNDEFINED  # to_number("a") fails: undefined
    try:
        ps.query("data.p.bad", input={}, strict_builtin_errors=True)
    except EvalError as exc:
        assert "to_number" in str(exc)
    else:
        raise AssertionError("a strict evaluation reports the builtin error of a memoized rule")


def test_coverage_reaches_every_rule_each_time():
    ps = load({"p.rego": SOURCE}, data=DATA, coverage=True)
    assert group(ps, "specs").memo_env is None


def test_a_line_past_the_analysis_bounds_is_read_once_per_decision(monkeypatch):
    """The engine evaluates each pack alone when the evaluation of all fails: the packs that
    read the line get the limit again without reading the line up to the bound again."""
    from hookgate.builtins import shell
    from hookgate.engine import Engine
    from hookgate.sources import default_pack_path

    reads = []

    def counted(text, *context):
        reads.append(text)
        return analyse(text, *context)

    analyse = shell.analyse
    monkeypatch.setattr(shell, "analyse", counted)
    engine = Engine.from_paths([default_pack_path()])
    line = "sudo env A=1 nice timeout 5 nohup git push -f; " * 100
    decision = engine.evaluate(
        {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": line}}
    )
    assert decision.outcome == "ask"
    assert {e["limit"] for e in decision.errors} == {"analysis-size"}
    assert reads.count(line) == 1


CONFLICT = """
package p

import rego.v1

names := {n | some n in data.names}

one := n if some n in names

calls contains n if {
    some n in names
    one
}
"""


def test_a_computed_rule_reading_no_environment_starts_every_later_evaluation_cached(
    monkeypatch,
):
    """Not even ``Group.value`` runs for it again (its memo check was about 150 bytecodes a
    decision for each such rule the pack reads): its value is in the evaluation's cache from
    the start, as the constants' are."""
    ps = load({"p.rego": SOURCE}, data=DATA)
    specs, from_specs = group(ps, "specs"), group(ps, "from_specs")
    first = ps.query("data.p.from_specs", input={"name": "a"})
    asked = []
    for cls in {type(specs), type(from_specs)}:
        value = cls.value

        def counted(self, ctx, value=value):
            asked.append(self.name)
            return value(self, ctx)

        monkeypatch.setattr(cls, "value", counted)
    again = ps.query_many(["data.p.from_specs", "data.p.asks"], input={"name": "b"})
    assert again[0] is first and to_json(again[1]) == ["b"]
    assert asked == ["data.p.asks"]


def test_a_mocked_builtin_or_strict_errors_compute_a_memoized_rule_again():
    ps = load({"p.rego": SOURCE}, data=DATA)
    assert to_json(ps.query("data.p.from_specs", input={})) == ["A", "B"]
    mocked = ps.query("data.p.from_specs", input={}, overrides={"upper": lambda s: s + "!"})
    assert to_json(mocked) == ["a!", "b!"]
    assert to_json(ps.query("data.p.from_specs", input={})) == ["A", "B"]
    strict = ps.query("data.p.from_specs", input={}, strict_builtin_errors=True)
    assert to_json(strict) == ["A", "B"]
    renamed = ps.query("data.p.specs", input={}, overrides={"data.p.specs": lambda: ["x"]})
    assert to_json(renamed) == ["x"]


def test_a_memoized_rule_that_fails_fails_again_where_the_next_evaluation_uses_it():
    ps = load({"p.rego": CONFLICT}, data=DATA)
    assert group(ps, "one").memo_env == () and group(ps, "calls").memo_env == ()
    for _ in range(2):
        try:
            ps.query("data.p.calls", input={})
        except EvalError as exc:
            assert "conflicting values for data.p.one" in str(exc)
        else:
            raise AssertionError("the conflict is reported on every evaluation")
    assert group(ps, "one") not in ps._tree.fixed and group(ps, "calls") not in ps._tree.fixed
    assert to_json(ps.query("data.p.names", input={})) == ["a", "b"]
    assert group(ps, "names") in ps._tree.fixed
