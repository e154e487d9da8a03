"""Differential test: hookgate and a real Rego engine (regorus) give the same answers on the
handwritten modules in ``tests/data/lang/differential``, on their listed inputs.

The guard pack in ``policies/`` is compared with regorus by
``tests/test_pack.py::test_our_interpreter_agrees_with_regorus``: every decision rule of every
guard on each input its ``*_test.rego`` files install and on the corpus, with hookgate's domain
builtins registered in regorus as extensions, so both engines call the same functions.
"""

import json
from pathlib import Path

import pytest

from hookgate.builtins import full_registry
from hookgate.lang import UNDEFINED, load
from hookgate.lang.values import RegoSet, to_json

REGISTRY = full_registry()

regorus = pytest.importorskip("regorus")

ROOT = Path(__file__).parent.parent
POLICIES = ROOT / "policies"
HANDWRITTEN = Path(__file__).parent / "data" / "lang" / "differential"
DOMAIN_FAMILIES = {"shell", "git", "xpia", "host", "hookgate", "powershell"}
DECISIONS = ("deny", "ask", "rewrite", "context")


def _from_regorus(v):
    if isinstance(v, set | frozenset):
        return RegoSet(_from_regorus(x) for x in v)
    if isinstance(v, list):
        return [_from_regorus(x) for x in v]
    if isinstance(v, dict):
        return {k: _from_regorus(x) for k, x in v.items()}
    return v


def _to_regorus(v):
    if isinstance(v, RegoSet):
        return {_to_regorus(x) for x in v}
    if isinstance(v, list):
        return [_to_regorus(x) for x in v]
    if isinstance(v, dict):
        return {k: _to_regorus(x) for k, x in v.items()}
    return v


def _extension(fn):
    def call(*args):
        return _to_regorus(fn(*(_from_regorus(a) for a in args)))

    return call


def regorus_engine(sources, data):
    engine = regorus.Engine()
    for b in REGISTRY.values():
        if b.family in DOMAIN_FAMILIES:
            engine.add_extension(b.name, b.arity, _extension(b.func))
    for name, src in sources.items():
        engine.add_policy(name, src)
    engine.add_data(data)
    return engine


def regorus_value(engine, query):
    try:
        return json.loads(engine.eval_rule_as_json(query))
    except RuntimeError as exc:
        if "not a valid rule path" in str(exc):
            return "<undefined>"
        raise


def hookgate_value(v):
    # Both engines write a set as an array in Rego's sort order, so arrays compare exactly.
    return "<undefined>" if v is UNDEFINED else to_json(v)


@pytest.mark.parametrize("module", sorted(HANDWRITTEN.glob("*.rego")), ids=lambda p: p.stem)
def test_handwritten_modules_match_regorus(module):
    source = module.read_text("utf-8")
    inputs = json.loads(module.with_suffix(".inputs.json").read_text("utf-8"))
    ps = load({module.name: source}, {})
    (mod,) = ps.modules
    pkg = "data." + ".".join(mod.package)
    rules = sorted({r.ref[0] for r in mod.rules if r.kind != "function"})
    engine = regorus_engine({module.name: source}, {})
    for doc in inputs:
        ours = ps.query_many([f"{pkg}.{r}" for r in rules], input=doc)
        engine.set_input(doc)
        for rule, value in zip(rules, ours, strict=True):
            theirs = regorus_value(engine, f"{pkg}.{rule}")
            assert hookgate_value(value) == theirs, (rule, doc)
