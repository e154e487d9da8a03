"""Run one program on hookgate, regorus and rego-cpp, each answer normalised to JSON text (or
``undefined`` / ``error: …`` / ``unsupported: …``), and classify the three answers."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys

from hookgate.lang import UNDEFINED, EvalError, PolicyError, load
from hookgate.lang.values import to_json

UNDEF = "undefined"


def _canon(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def hookgate_answer(source: str, inp: dict) -> str:
    try:
        value = load({"g.rego": source}).query("data.g", input=inp)
    except (PolicyError, EvalError) as exc:
        text = str(exc) if isinstance(exc, PolicyError) else exc.message
        first = text.splitlines()[0].split(": ", 1)[-1] if isinstance(exc, PolicyError) else text
        return ("unsupported: " if "unsupported:" in text else "error: ") + first
    return UNDEF if value is UNDEFINED else _canon(to_json(value))


def _first_error_line(exc: Exception) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    found = [line for line in lines if "error" in line]
    return (found or lines or ["?"])[0]


def regorus_answer(source: str, inp: dict) -> str:
    import regorus

    engine = regorus.Engine()
    try:
        engine.add_policy("g.rego", source)
        engine.set_input_json(json.dumps(inp))
        out = json.loads(engine.eval_query_as_json("data.g"))
    except Exception as exc:  # regorus raises plain exceptions for every error
        return f"error: {_first_error_line(exc)}"
    results = out.get("result") or []
    if not results:
        return UNDEF
    return _canon(results[0]["expressions"][0]["value"])


_worker: subprocess.Popen | None = None
REGOCPP_SECONDS = 3

# rego-cpp 1.x never answers a strings.replace_n whose pattern object has an empty key (it
# spins: tests/test_differential_random.py checks that it still does). Such a call is its
# failure at once instead of after REGOCPP_SECONDS of a busy core (about one program in sixty
# of the long run: 150 core-seconds of a CI run). The generated pattern objects are literals of
# strings, so an empty key is a `"": ` inside the call's braces.
REGOCPP_SPINS = re.compile(r'strings\.replace_n\(\{[^}]*?"": ')
SPIN_ANSWER = "error: rego-cpp spins on strings.replace_n with an empty key"


def regocpp_answer(source: str, inp: dict) -> str:
    """rego-cpp's answer, from a worker process (tests/regocpp_worker.py says why)."""
    if REGOCPP_SPINS.search(source):
        return SPIN_ANSWER
    return regocpp_run(source, inp)


def regocpp_run(source: str, inp: dict) -> str:
    """rego-cpp's answer to any program, run by the worker with REGOCPP_SECONDS to answer."""
    global _worker
    if _worker is None or _worker.poll() is not None:
        worker = os.path.join(os.path.dirname(__file__), "regocpp_worker.py")
        _worker = subprocess.Popen(
            [sys.executable, worker], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
    assert _worker.stdin is not None and _worker.stdout is not None
    _worker.stdin.write(json.dumps({"source": source, "input": inp}) + "\n")
    _worker.stdin.flush()
    # rego-cpp 1.x spins on some calls (strings.replace_n with an empty key): no answer in
    # REGOCPP_SECONDS is its failure, and the next program gets a fresh worker.
    if not select.select([_worker.stdout], [], [], REGOCPP_SECONDS)[0]:
        _worker.kill()
        _worker.wait()
        _worker = None
        return "error: rego-cpp timed out"
    line = _worker.stdout.readline()
    if not line:  # the worker died on this program
        _worker = None
        return "error: rego-cpp crashed"
    return json.loads(line)


def _same(x: str, y: str) -> bool:
    """Equal answers; two errors are the same answer (each engine words its own)."""
    return x == y or (x.startswith("error") and y.startswith("error"))


def classify(source: str, inp: dict) -> tuple[str, dict]:
    """``agree`` (all three equal), ``unsupported`` (hookgate refused, labelled), ``ours``
    (regorus and rego-cpp agree and hookgate does not: our bug), ``oracles differ`` (they
    disagree and hookgate gives one of their answers: OPA's semantics decide which is right,
    see tests/test_differential_random.py), ``third answer`` (they disagree and hookgate gives
    neither answer), ``oracles fail`` (both oracles refuse a program hookgate runs, each for a
    reason of its own, such as a parser limit: no verdict)."""
    answers = _answers(source, inp)
    return _verdict(answers["hookgate"], answers["regorus"], answers["rego-cpp"]), answers


def _answers(source: str, inp: dict) -> dict:
    return {
        "hookgate": hookgate_answer(source, inp),
        "regorus": regorus_answer(source, inp),
        "rego-cpp": regocpp_answer(source, inp),
    }


def _verdict(ours: str, a: str, b: str) -> str:
    if ours.startswith("unsupported:"):
        return "unsupported"
    if a.startswith("error") and b.startswith("error") and not ours.startswith("error"):
        return "oracles fail"
    if _same(a, b):
        return "agree" if _same(ours, a) else "ours"
    if _same(ours, a) or _same(ours, b):
        return "oracles differ"
    return "third answer"


def _per_rule(answer: str, rules: set) -> dict:
    """One engine's answer for ``data.g`` split by rule (``data.g.<rule>``): an object's
    members, a missing one undefined; an error or undefined document is that answer for all."""
    if not answer.startswith("{"):
        return dict.fromkeys(rules, answer)
    doc = json.loads(answer)
    return {r: _canon(doc[r]) if r in doc else UNDEF for r in rules}


def classify_queries(
    source: str, inp: dict, lacking: tuple[str, ...] = ()
) -> list[tuple[str, str, dict]]:
    """``classify`` query by query: ``(rule, verdict, answers)`` for each rule of the program
    (each top-level key any engine reports), so that one rule's disagreement does not hide or
    taint the program's other rules. An oracle named in ``lacking`` does not implement what the
    program calls: its answer counts as its failure, whatever it printed."""
    answers = _answers(source, inp)
    for engine in lacking:
        answers[engine] = f"error: {engine} lacks a builtin the program calls"
    rules = set()
    for text in answers.values():
        if text.startswith("{"):
            rules |= set(json.loads(text))
    if not rules:  # no engine gave a document: the program's one answer
        return [
            ("", _verdict(answers["hookgate"], answers["regorus"], answers["rego-cpp"]), answers)
        ]
    split = {engine: _per_rule(text, rules) for engine, text in answers.items()}
    out = []
    for rule in sorted(rules):
        per = {engine: split[engine][rule] for engine in answers}
        out.append((rule, _verdict(per["hookgate"], per["regorus"], per["rego-cpp"]), per))
    return out
