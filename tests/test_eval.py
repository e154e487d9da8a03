"""The evaluator: Rego semantics through ``hookgate.lang.load``/``PolicySet.query``."""

import os
import stat
import subprocess
import sys
import textwrap

import pytest

from hookgate.lang import UNDEFINED, EvalError, LimitError, PolicyError, load
from hookgate.lang.values import RegoSet, to_json


def q(src, query="data.t", input=UNDEFINED, data=None, **kw):
    src = textwrap.dedent(src)
    if not src.lstrip().startswith("package"):
        src = "package t\n\n" + src
    return load({"t.rego": src}, data).query(query, input=input, **kw)


def test_complete_rules_default_and_else():
    src = """
    default allow := false
    allow if input.user == "admin"
    level := "high" if input.n > 10
    else := "mid" if input.n > 5
    else := "low"
    """
    assert q(src, input={"user": "admin", "n": 7}) == {"allow": True, "level": "mid"}
    assert q(src, input={"user": "bob", "n": 1}) == {"allow": False, "level": "low"}


def test_undefined_is_not_false():
    src = """
    x if false
    y := x == 1
    z if not x
    """
    assert q(src) == {"z": True}
    assert q(src, "data.t.y") is UNDEFINED


def test_partial_set_and_object_rules():
    src = """
    names contains n if some n in input.users
    by_len[n] := count(n) if some n in input.users
    p.q.r := 1
    p.q.s := 2
    """
    out = q(src, input={"users": ["ann", "bo"]})
    assert out["names"] == RegoSet(["ann", "bo"])
    assert out["by_len"] == {"ann": 3, "bo": 2}
    assert out["p"] == {"q": {"r": 1, "s": 2}}


def test_conflicting_complete_values_raise():
    src = """
    x := 1 if input.a
    x := 2 if input.b
    """
    assert q(src, "data.t.x", input={"a": True}) == 1
    with pytest.raises(EvalError, match="conflicting values for data.t.x"):
        q(src, "data.t.x", input={"a": True, "b": True})


def test_partial_object_conflict_raises():
    with pytest.raises(EvalError, match="conflicting"):
        q('p[k] := v if { some v in [1, 2]; k := "a" }', "data.t.p")


def test_functions_several_definitions():
    src = """
    f(x) := "neg" if x < 0
    f(x) := "pos" if x > 0
    default g(_) := "fallback"
    g(x) := x if x == "a"
    h(x) := x + 1
    h(x) := x + 2
    a := [f(-1), f(3), g("a"), g("z")]
    """
    assert q(src, "data.t.a") == ["neg", "pos", "a", "fallback"]
    assert q(src, "data.t.b") is UNDEFINED
    with pytest.raises(EvalError, match="multiple outputs"):
        q(src + "b := h(1)\n", "data.t.b")


def test_some_every_not_and_iteration():
    src = """
    idx contains i if input.xs[i] > 1
    pairs contains [k, v] if some k, v in input.obj
    all_pos if every x in input.xs { x > 0 }
    none_big if not input.xs[_] > 100
    """
    out = q(src, input={"xs": [1, 2, 3], "obj": {"b": 2, "a": 1}})
    assert out["idx"] == RegoSet([1, 2])
    assert out["pairs"] == RegoSet([["a", 1], ["b", 2]])
    assert out["all_pos"] is True and out["none_big"] is True
    assert "all_pos" not in q(src, input={"xs": [1, -1], "obj": {}})


def test_comprehensions_iterate_objects_and_sets_in_sorted_order():
    src = """
    keys := [k | some k, _ in input.obj]
    refkeys := [k | input.obj[k]]
    members := [x | some x in {"c", "a", "b"}]
    inverted := {v: k | some k, v in input.obj}
    evens := {x | some x in numbers.range(1, 6); x % 2 == 0}
    """
    out = q(src, input={"obj": {"z": 1, "y": 2}})
    assert out["keys"] == ["y", "z"]
    assert out["refkeys"] == ["y", "z"]
    assert out["members"] == ["a", "b", "c"]
    assert out["inverted"] == {1: "z", 2: "y"}
    assert out["evens"] == RegoSet([2, 4, 6])


def test_unification_patterns_and_reordering():
    src = """
    r := {"a": a, "b": b} if {
        b > 1
        [a, {"k": b}] = input.pair
    }
    s := x if {
        [x, 2] = [1, y]
        y == 2
    }
    """
    assert q(src, input={"pair": ["one", {"k": 5}]}) == {"r": {"a": "one", "b": 5}, "s": 1}


def test_numbers():
    src = """
    a := 1 == 1.0
    b := 7 / 2
    c := 8 / 2
    d := -7 % 3
    e := 0.1 + 0.2
    f := 100000000000000000000 + 1
    """
    out = q(src)
    assert out == {"a": True, "b": 3.5, "c": 4, "d": -1, "e": 0.30000000000000004, "f": 10**20 + 1}
    assert type(out["c"]) is int
    with pytest.raises(EvalError, match="divide by zero"):
        q("x := 1 / input.z", "data.t.x", input={"z": 0}, strict_builtin_errors=True)
    with pytest.raises(EvalError, match="floating-point"):
        q("x := 1.5 % 1", "data.t.x", strict_builtin_errors=True)
    assert q("x := 1 / input.z", "data.t.x", input={"z": 0}) is UNDEFINED


def test_sets_operators_and_membership():
    src = """
    a := {1, 2, 3} & {2, 3, 4}
    b := {1} | {2}
    c := {1, 2} - {2}
    d := 2 in [1, 2]
    e := "k", "v" in {"k": "v"}
    f := true in {1}
    """
    assert q(src) == {
        "a": RegoSet([2, 3]),
        "b": RegoSet([1, 2]),
        "c": RegoSet([1]),
        "d": True,
        "e": True,
        "f": False,
    }


def test_with_input_data_and_functions():
    src = """
    allow if input.role == "admin"
    limit := data.cfg.limit
    double(x) := 2 * x
    main := double(2)
    t1 if allow with input as {"role": "admin"}
    t2 := l if l := limit with data.cfg.limit as 9
    t3 := m if m := main with double as 10
    t4 := u if u := upper("a") with upper as lower
    """
    out = q(src, data={"cfg": {"limit": 1}})
    assert out["t1"] is True and out["t2"] == 9 and out["t3"] == 10 and out["t4"] == "a"
    assert out["limit"] == 1 and out["main"] == 4


def test_imports_and_packages():
    lib = 'package lib\n\nhelper(x) := concat("-", [x, x])\nvals := {1, 2}\n'
    main = textwrap.dedent(
        """
        package app
        import data.lib as l
        import input.user
        out := l.helper(user)
        n := count(l.vals)
        """
    )
    ps = load({"lib.rego": lib, "app.rego": main})
    assert ps.query("data.app", input={"user": "u"}) == {"out": "u-u", "n": 2}
    assert ps.query("data", input={"user": "u"})["lib"] == {"vals": RegoSet([1, 2])}


def test_data_document_merges_base_data_and_rules():
    ps = load({"a.rego": "package a.b\n\nr := 1\n"}, data={"a": {"base": True}})
    assert ps.query("data.a") == {"base": True, "b": {"r": 1}}
    assert ps.query("data.a.base") is True


def test_unsafe_variable_is_reported_once_by_name():
    with pytest.raises(PolicyError) as err:
        load({"u.rego": "package u\n\np if {\n\tx > 1\n\tcount(x) > y\n}\n"})
    messages = [d.message for d in err.value.diagnostics]
    assert len(messages) == 1, messages
    assert "var x is unsafe" in messages[0]
    d = err.value.diagnostics[0]
    assert (d.file, d.line, d.col) == ("u.rego", 4, 2)


@pytest.mark.parametrize(
    ("body", "name", "col"),
    [
        ("q := w", "w", 7),  # the assigned variable is bound by the literal; `w` is not
        ("q = w", "w", 6),
        ("[a, b] := [w, 1]", "w", 13),
        ("y := [q | q := w]", "w", 17),  # inside a comprehension (renamed q'1 there)
        ("y := {k: v | k := w; v := 1}", "w", 20),
        ("every x in [1] { y := z }", "z", 24),
        ("x := w + 1", "w", 7),
        ("w == 1", "w", 2),
    ],
)
def test_unsafe_variable_is_the_unbound_one_not_the_one_being_bound(body, name, col):
    src = f"package u\n\np if {{\n\t{body}\n\ttrue\n}}\n"
    with pytest.raises(PolicyError) as err:
        load({"u.rego": src})
    (d,) = err.value.diagnostics
    assert d.message == f"var {name} is unsafe"
    assert (d.file, d.line, d.col) == ("u.rego", 4, col)


def test_unknown_function_and_wrong_arity():
    with pytest.raises(PolicyError, match="nope"):
        load({"u.rego": "package u\n\np := nope(1)\n"})
    with pytest.raises(PolicyError, match="expects 1 argument"):
        load({"u.rego": "package u\n\np := upper(1, 2)\n"})


def test_builtin_errors_are_undefined_or_strict_errors_with_position():
    src = "x := upper(input.n)\ny if not x\n"
    assert q(src, input={"n": 1}) == {"y": True}
    with pytest.raises(EvalError) as err:
        q(src, "data.t.x", input={"n": 1}, strict_builtin_errors=True)
    assert err.value.line == 3 and "upper" in err.value.message


def test_unsupported_features_raise_even_without_strict_errors():
    with pytest.raises(EvalError, match="unsupported: sprintf %p"):  # Go prints an address
        q('x := sprintf("%p", [18446744073709551616])', "data.t.x")


def test_data_overrides():
    ps = load({"a.rego": "package a\n\nx := data.cfg.v\n"}, {"cfg": {"v": 1}})
    assert ps.query("data.a.x") == 1
    assert ps.query("data.a.x", data_overrides={"data.cfg.v": 2}) == 2
    assert ps.query("data.a.x", data_overrides={"cfg": {"v": 3}}) == 3


def test_rules_fixed_by_the_base_data_are_evaluated_once_per_policy_set():
    src = textwrap.dedent(
        """\
        package c

        cfg := data.cfg
        opts := {"limit": 3, "words": ["a"]}
        over if input.n > opts.limit
        uses_input := input.n
        calls := upper("x")
        twice := 1
        twice := 2
        """
    )
    ps = load({"c.rego": src}, {"cfg": {"v": 1}})
    constants = sorted(g.name for g in ps._tree.constants)
    assert constants == ["data.c.cfg", "data.c.opts", "data.c.twice"]
    first = ps.query("data.c.opts")
    assert first == {"limit": 3, "words": ["a"]}
    assert ps.query("data.c.opts") is first  # built once, not per query
    assert ps.query("data.c.over", input={"n": 4}) is True
    assert ps.query("data.c.cfg", data_overrides={"cfg": {"v": 2}}) == {"v": 2}
    assert ps.query("data.c.opts", overrides={"data.c.opts": lambda: "mocked"}) == "mocked"
    with pytest.raises(EvalError, match="conflicting values for data.c.twice"):
        ps.query("data.c.twice")


def test_print_output_is_collected_per_query():
    src = 'p if {\n\tprint("n is", input.n, {"a": [1]})\n\tprint(input.missing)\n}\n'
    out = []
    assert q(src, "data.t.p", input={"n": 2}, prints=out) is True
    assert out == ['n is 2 {"a": [1]}', "<undefined>"]


def test_budget_stops_pathological_policies():
    src = "p := count([1 | numbers.range(1, 100)[_]; numbers.range(1, 100)[_]; numbers.range(1, 100)[_]])\n"
    with pytest.raises(LimitError, match="step budget exceeded") as steps:
        q(src, "data.t.p", budget=10_000)
    with pytest.raises(LimitError, match="time limit reached") as time_limit:
        q(src, "data.t.p", timeout=0.0)
    assert (steps.value.limit, time_limit.value.limit) == ("steps", "time")


def test_budget_counts_every_step_also_under_with():
    # n takes about 3,000 steps; m computes it again under `with` (a fresh cache, the same
    # budget): both together need about 6,000.
    src = (
        "n := count([1 | numbers.range(1, input.k)[_]])\n"
        'm := x if {\n\tx := n with input as {"k": 3000}\n}\n'
        "both := [n, m]\n"
    )
    doc = {"k": 3000}
    assert q(src, "data.t.n", input=doc, budget=4_500) == 3000
    assert q(src, "data.t.both", input=doc, budget=8_000) == [3000, 3000]
    with pytest.raises(LimitError, match="step budget exceeded"):
        q(src, "data.t.both", input=doc, budget=4_500)


def test_a_complete_rule_compares_the_solutions_of_a_body_that_iterates():
    # A body without iteration has one solution and returns it; one that iterates may have
    # several, which must agree.
    src = (
        "straight := x if {\n\tx := input.a\n\tx > 1\n}\n"
        "same := x if {\n\tsome y in input.xs\n\tx := input.a\n}\n"
        "each := y if {\n\tsome y in input.xs\n}\n"
        "f(v) := w if {\n\tw := v + input.a\n}\n"
        "g := f(1)\n"
    )
    doc = {"a": 2, "xs": [1, 2]}
    assert q(src, "data.t.straight", input=doc) == 2
    assert q(src, "data.t.straight", input={"a": 1}) is UNDEFINED
    assert q(src, "data.t.same", input=doc) == 2
    assert q(src, "data.t.g", input=doc) == 3
    assert q(src, "data.t.each", input={"xs": [7, 7]}) == 7
    with pytest.raises(EvalError, match="conflicting values for data.t.each"):
        q(src, "data.t.each", input=doc)


def test_overrides_replace_builtins_for_one_query():
    ps = load({"g.rego": 'package g\n\nb := upper("x")\n'})
    assert ps.query("data.g.b", overrides={"upper": lambda s: "mocked"}) == "mocked"
    assert ps.query("data.g.b") == "X"


def test_query_many_shares_one_evaluation():
    ps = load({"g.rego": "package g\n\na := input.x + 1\nb := a * 2\n"})
    assert ps.query_many(["data.g.a", "data.g.b", "data.g.c"], input={"x": 1}) == [2, 4, UNDEFINED]


def test_expression_queries():
    ps = load({"g.rego": "package g\n\na := 1\n"})
    assert ps.query("data.g.a + 1") == 2
    assert ps.query("data.g.a == 2") is False


def test_input_is_not_copied():
    doc = {"items": [{"k": 1}]}
    ps = load({"g.rego": "package g\n\nfirst := input.items[0]\n"})
    assert ps.query("data.g.first", input=doc) is doc["items"][0]


# -- the compile cache ---------------------------------------------------------------------

SRC = {"c.rego": "package c\n\nimport rego.v1\n\nallow if input.x == 1\n"}


def test_cache_hit_imports_neither_lark_nor_parser(tmp_path):
    cache = tmp_path / "cache"
    load(SRC, cache_dir=cache)
    assert len(list(cache.iterdir())) == 1
    code = textwrap.dedent(
        f"""
        import sys
        from hookgate.lang import load
        ps = load({SRC!r}, cache_dir={str(cache)!r})
        assert ps.query("data.c.allow", input={{"x": 1}}) is True
        assert "lark" not in sys.modules, "lark imported"
        compiler = ("parser", "ast", "compile", "codegen", "safety", "terms", "literals")
        for name in ["hookgate.lang." + stage for stage in compiler]:
            assert name not in sys.modules, f"{{name}} imported"
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True)


LAZY_SRC = {
    "l.rego": textwrap.dedent(
        """
        package l

        import rego.v1

        up := upper(input.s)

        parts := split(input.s, "-") if input.split

        hits contains n if {
            some n in input.n
            n > 1
        }

        matched if regex.match(`^a`, input.s)
        """
    )
}


def test_cache_hit_imports_only_the_builtin_families_its_evaluation_calls(tmp_path):
    cache = tmp_path / "cache"
    cold = load(LAZY_SRC, cache_dir=cache)
    doc = {"s": "a-b", "split": True, "n": [1, 2, 3]}
    expected = {r: to_json(cold.query(f"data.l.{r}", input=doc)) for r in ("up", "parts", "hits")}
    code = textwrap.dedent(
        f"""
        import sys
        from hookgate.lang import load
        from hookgate.lang.values import to_json
        ps = load({LAZY_SRC!r}, cache_dir={str(cache)!r})
        assert "hookgate.builtins.strings" not in sys.modules, "family imported before use"
        got = {{r: to_json(ps.query(f"data.l.{{r}}", input={doc!r})) for r in {list(expected)!r}}}
        assert got == {expected!r}, got
        assert "hookgate.builtins.strings" in sys.modules
        assert "hookgate.builtins.regex" not in sys.modules, "regex.match never evaluated"
        assert "hookgate.builtins.shell" not in sys.modules, "shell never used"
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_corrupt_cache_entry_is_ignored_and_rewritten(tmp_path):
    cache = tmp_path / "cache"
    load(SRC, cache_dir=cache)
    (entry,) = cache.iterdir()
    good = entry.read_bytes()
    entry.write_bytes(good[: len(good) // 2] + b"garbage")
    ps = load(SRC, cache_dir=cache)
    assert ps.query("data.c.allow", input={"x": 1}) is True
    assert entry.read_bytes() == good
    entry.write_bytes(b"not a cache file at all")
    assert load(SRC, cache_dir=cache).query("data.c.allow", input={"x": 1}) is True
    assert entry.read_bytes() == good


def test_cache_entry_holding_no_code_object_is_ignored_and_rewritten(tmp_path):
    import marshal

    cache = tmp_path / "cache"
    load(SRC, cache_dir=cache)
    (entry,) = cache.iterdir()
    good = entry.read_bytes()
    header = good[: good.index(b"\n", good.index(b"\n") + 1) + 1]  # format line, key line
    entry.write_bytes(header + marshal.dumps(("not code", [], {})))
    assert load(SRC, cache_dir=cache).query("data.c.allow", input={"x": 1}) is True
    assert entry.read_bytes() == good


META_SRC = {
    "m.rego": "# METADATA\n# title: Meta pack\npackage hookgate.m\n\nimport rego.v1\n\n"
    "deny contains 1 if input.x\n\nf(x) := x\n",
}


def test_cache_hit_keeps_what_provenance_and_expression_queries_need(tmp_path):
    cache = tmp_path / "cache"
    cold = load(META_SRC, cache_dir=cache)
    warm = load(META_SRC, cache_dir=cache)
    for ps in (cold, warm):
        (module,) = ps.modules
        assert (module.filename, module.package) == ("m.rego", ("hookgate", "m"))
        assert dict(module.metadata)["title"] == "Meta pack"
        assert [(r.kind, r.ref) for r in module.rules] == [("set", ("deny",)), ("function", ("f",))]
        assert to_json(ps.query("data.hookgate.m.f(2) + 1")) == 3
        assert to_json(ps.query("data.hookgate.m.deny", input={"x": True})) == [1]


def test_cache_key_covers_sources_and_data(tmp_path):
    cache = tmp_path / "cache"
    load(SRC, cache_dir=cache)
    load(SRC, data={"d": 1}, cache_dir=cache)
    load({"c.rego": SRC["c.rego"] + "\n"}, cache_dir=cache)
    assert len(list(cache.iterdir())) == 3


STAMPED = 'package s\n\nimport rego.v1\n\nword := "aaaa"\n'


def test_files_with_unchanged_stamps_are_neither_read_nor_hashed_and_any_write_is_noticed(
    tmp_path, monkeypatch
):
    import time

    from hookgate import sources
    from hookgate.lang import load_files

    policies, cache = tmp_path / "pol", tmp_path / "cache"
    policies.mkdir()
    (policies / "s.rego").write_text(STAMPED)
    (policies / "data.json").write_text('{"team": {"n": 1}}')
    # Files written this very second are not stamped (a write within the same tick of the
    # file system's clock might leave the stamp as it was): seen from a minute later, they are.
    assert load_files([str(policies)], cache_dir=cache).query("data.s.word") == "aaaa"
    assert not list(cache.glob("*.stamp"))
    later = time.time_ns() + 60_000_000_000
    monkeypatch.setattr(time, "time_ns", lambda: later)
    load_files([str(policies)], cache_dir=cache)
    assert len(list(cache.glob("*.stamp"))) == 1

    def unread(*args, **kwargs):
        raise AssertionError("policy files read although their stamps are unchanged")

    monkeypatch.setattr(sources, "load_paths", unread)
    warm = load_files([str(policies)], cache_dir=cache)
    assert warm.query("data.s.word") == "aaaa" and warm.data == {"team": {"n": 1}}
    monkeypatch.undo()

    # The same size, the modification time put back: the change time still tells.
    before = (policies / "s.rego").stat()
    (policies / "s.rego").write_text(STAMPED.replace("aaaa", "bbbb"))
    os.utime(policies / "s.rego", ns=(before.st_atime_ns, before.st_mtime_ns))
    assert load_files([str(policies)], cache_dir=cache).query("data.s.word") == "bbbb"
    (policies / "t.rego").write_text("package t\n\nimport rego.v1\n\nx := 1\n")
    assert load_files([str(policies)], cache_dir=cache).query("data.t.x") == 1


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_cache_refuses_a_world_writable_directory(tmp_path):
    cache = tmp_path / "shared"
    cache.mkdir()
    cache.chmod(0o777)
    ps = load(SRC, cache_dir=cache)
    assert ps.query("data.c.allow", input={"x": 1}) is True
    assert list(cache.iterdir()) == []
    fresh = tmp_path / "fresh"
    load(SRC, cache_dir=fresh)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o700


def test_deeply_nested_terms_and_bodies_evaluate():
    # Python's own limits (bracket nesting, nested loops per function) must not show through.
    chain = " + ".join(["input.a"] * 300)
    iterations = "; ".join(
        ["some x0 in input.l"] + [f"some x{i} in input.one" for i in range(1, 25)]
    )
    src = f"""
        import rego.v1

        sum := {chain}

        hits contains x0 if {{ {iterations} }}

        first := x0 if {{ {iterations}; x0 == 2 }}

        none if not some_three

        some_three if {{ {iterations}; x7 == 3 }}

        all if every y in input.l {{ {iterations}; y >= x3 }}
        """
    out = q(src, input={"a": 2, "l": [1, 2], "one": [1]})
    assert to_json(out) == {"sum": 600, "hits": [1, 2], "first": 2, "none": True, "all": True}


def test_policy_errors_carry_source_lines():
    with pytest.raises(PolicyError) as err:
        load({"e.rego": "package e\n\np if {\n\tq(1)\n}\n"})
    rendered = err.value.render()
    assert "e.rego:4:2" in rendered and "q(1)" in rendered


def test_values_round_trip_to_json():
    out = q('s := {"b", "a"}\no := {"k": {1, 2}}\n')
    assert to_json(out) == {"s": ["a", "b"], "o": {"k": [1, 2]}}
