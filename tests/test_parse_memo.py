"""The parser's and the scoper's memos (``parser._PARSED``, ``scopes._SCOPED``): a pack compiled
again reuses the trees of its unchanged modules, and nothing else."""

from __future__ import annotations

import pytest

from hookgate.lang import PolicyError, load, parser, scopes
from hookgate.lang.parser import parse_module
from hookgate.lang.scopes import scope_module

SOURCE = "package p\n\nxs := [x | some x in input.a; x > 1]\n\nx := 3\n"


def test_an_unchanged_module_is_parsed_and_scoped_once() -> None:
    first = parse_module(SOURCE, "p.rego")
    assert parse_module(SOURCE, "p.rego") is first
    assert scope_module(first) is scope_module(first)
    # the memo's trees are the ones a fresh parse and scope make
    fresh = parser._parse_module(SOURCE, "p.rego")
    assert fresh == first and fresh is not first
    assert scopes._scope_module(fresh) == scope_module(first)


def test_a_changed_source_or_another_file_is_parsed_anew() -> None:
    first = parse_module(SOURCE, "p.rego")
    other_file = parse_module(SOURCE, "q.rego")
    assert other_file is not first and other_file.filename == "q.rego"
    changed = parse_module(SOURCE.replace("x := 3", "x := 4"), "p.rego")
    assert changed != first
    assert load({"p.rego": SOURCE.replace("x := 3", "x := 4")}).query("data.p.x") == 4
    assert load({"p.rego": SOURCE}).query("data.p.x") == 3


def test_a_module_that_fails_fails_every_time() -> None:
    broken = "package p\n\nx := [1,\n"
    for _ in range(2):
        with pytest.raises(PolicyError) as exc:
            parse_module(broken, "bad.rego")
        assert exc.value.diagnostics[0].file == "bad.rego"
    assert ("bad.rego", broken) not in parser._PARSED


def test_the_memos_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parser, "_PARSED_MAX", 3)
    monkeypatch.setattr(scopes, "_SCOPED_MAX", 3)
    parser._PARSED.clear()
    scopes._SCOPED.clear()
    for i in range(7):
        scope_module(parse_module(f"package p\n\nx := {i}\n", "p.rego"))
        assert len(parser._PARSED) <= 3 and len(scopes._SCOPED) <= 3
    assert parse_module("package p\n\nx := 6\n", "p.rego").rules[0].value.value == 6


def test_a_set_compiled_again_in_one_process_is_not_compiled_again(monkeypatch) -> None:
    from hookgate.lang import compile as compile_module

    sources = {"p.rego": SOURCE}
    first = load(sources, {"k": 1})
    # A hit makes a policy set of its own from the compiled code, without the compiler.
    monkeypatch.setattr(compile_module, "Program", None)
    again = load(dict(sources), {"k": 1})
    assert again is not first and again.modules is not first.modules
    assert again.query("data.p.xs", input={"a": [1, 2, 3]}) == [2, 3]
    assert again.query("data.k") == 1
    # other data, strictness or coverage: compiled (here: the missing compiler is met)
    for call in (
        lambda: load(sources, {"k": 2}),
        lambda: load(sources, {"k": 1}, strict=True),
        lambda: load(sources, {"k": 1}, coverage=True),
    ):
        with pytest.raises(TypeError):
            call()


def test_the_compiled_sets_kept_are_bounded(monkeypatch) -> None:
    from hookgate.lang import policyset

    monkeypatch.setattr(policyset, "_COMPILED_MAX", 2)
    policyset._COMPILED.clear()
    for i in range(5):
        assert load({"p.rego": f"package p\n\nx := {i}\n"}).query("data.p.x") == i
        assert len(policyset._COMPILED) <= 2
