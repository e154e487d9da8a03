"""The compile path's memos (``policyset._PARSED``, ``policyset._COMPILED``): a pack compiled
again in one process reuses the trees of its unchanged modules, and a set compiled again is not
compiled again; nothing else is reused."""

from __future__ import annotations

import pytest

from hookgate.lang import PolicyError, load, policyset
from hookgate.lang.parser import parse_module
from hookgate.lang.policyset import parse_and_check
from hookgate.lang.scopes import scope_module

SOURCE = "package p\n\nxs := [x | some x in input.a; x > 1]\n\nx := 3\n"
OTHER = "package q\n\ny := 1\n"


def test_an_unchanged_module_is_parsed_and_scoped_once() -> None:
    (first, other) = parse_and_check({"p.rego": SOURCE, "q.rego": OTHER})
    changed = SOURCE.replace("x := 3", "x := 4")
    again, other_again = parse_and_check({"p.rego": changed, "q.rego": OTHER})
    assert other_again is other  # unchanged: the same tree
    assert again is not first and again != first  # changed: parsed anew
    # the memo's tree is the one a fresh parse and scope make
    assert first == scope_module(parse_module(SOURCE, "p.rego"))
    (renamed,) = parse_and_check({"r.rego": SOURCE})
    assert renamed is not first and renamed.filename == "r.rego"
    assert load({"p.rego": changed}).query("data.p.x") == 4
    assert load({"p.rego": SOURCE}).query("data.p.x") == 3


def test_a_module_that_fails_fails_every_time() -> None:
    broken = "package p\n\nx := [1,\n"
    for _ in range(2):
        with pytest.raises(PolicyError) as exc:
            parse_and_check({"bad.rego": broken})
        assert exc.value.diagnostics[0].file == "bad.rego"
    assert ("bad.rego", broken) not in policyset._PARSED


def test_the_parsed_modules_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(policyset, "_PARSED_MAX", 3)
    policyset._PARSED.clear()
    for i in range(7):
        (module,) = parse_and_check({"p.rego": f"package p\n\nx := {i}\n"})
        assert len(policyset._PARSED) <= 3
    assert module.rules[0].value.value == 6


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
    monkeypatch.setattr(policyset, "_COMPILED_MAX", 2)
    policyset._COMPILED.clear()
    for i in range(5):
        assert load({"p.rego": f"package p\n\nx := {i}\n"}).query("data.p.x") == i
        assert len(policyset._COMPILED) <= 2
