"""hookgate.jsonio, the hook's JSON without ``import json``: it reads and writes what json reads
and writes, with json's errors, except numbers without a finite value, which it refuses both
ways (json writes NaN and Infinity, which no host can parse)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookgate import jsonio

FINITE_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(codec="utf-8")),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _finite(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    return True


@pytest.fixture(params=["accelerator", "json"])
def path(request, monkeypatch):
    """Both ways jsonio works: through CPython's _json, and through json where there is none."""
    if request.param == "json":
        monkeypatch.setattr(jsonio, "_scan", None)
        monkeypatch.setattr(jsonio, "make_encoder", None)
    return request.param


@settings(max_examples=300, deadline=None)
@given(FINITE_JSON, st.booleans(), st.booleans(), st.booleans())
def test_writes_and_reads_what_json_does(value, ensure_ascii, sort_keys, compact):
    separators = (",", ":") if compact else (", ", ": ")
    expected = json.dumps(
        value, ensure_ascii=ensure_ascii, sort_keys=sort_keys, separators=separators
    )
    text = jsonio.dumps(value, ensure_ascii=ensure_ascii, sort_keys=sort_keys, compact=compact)
    assert text == expected
    assert jsonio.loads(text) == json.loads(text)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet='{}[]",:0123456789.eE+-tfnrulasNIy \\\t\n\x00\u00e9\ufeff', max_size=30))
def test_fails_where_json_fails_with_its_message_and_position(text):
    try:
        expected = json.loads(text)
    except json.JSONDecodeError as exc:
        with pytest.raises(jsonio.DecodeError) as raised:
            jsonio.loads(text)
        assert (raised.value.msg, raised.value.pos) == (exc.msg, exc.pos)
        assert (raised.value.lineno, raised.value.colno) == (exc.lineno, exc.colno)
        return
    if _finite(expected):
        assert jsonio.loads(text) == expected
    else:
        with pytest.raises(jsonio.DecodeError, match="Number out of range"):
            jsonio.loads(text)


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("NaN", 1, 1),
        ('{"a": [1, -Infinity]}', 1, 11),
        ('{"a": 1,\n "timeout": 1e400}', 2, 13),
        ("[-1e999]", 1, 2),
        ("[" + "1" * 5000 + "]", 1, 2),  # past Python's int conversion limit: not an internal error
    ],
)
def test_numbers_without_a_finite_value_are_refused_where_they_stand(path, text, line, column):
    with pytest.raises(jsonio.DecodeError, match="Number out of range") as raised:
        jsonio.loads(text)
    assert (raised.value.lineno, raised.value.colno) == (line, column)


@pytest.mark.parametrize("value", [math.nan, math.inf, {"a": [-math.inf]}])
def test_nan_and_infinity_are_never_written(path, value):
    with pytest.raises(ValueError):
        jsonio.dumps(value)


def test_refuses_what_json_refuses(path):
    with pytest.raises(TypeError, match="Object of type object is not JSON serializable"):
        jsonio.dumps({"a": object()})
    assert jsonio.dumps({"a": object()}, default=lambda _: "x") == '{"a": "x"}'
    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        jsonio.dumps(loop)
    with pytest.raises(jsonio.DecodeError, match="Extra data: line 1 column 5"):
        jsonio.loads("[1] x")


def test_both_ways_agree(path):
    value = {"b": [1, 2.5, None, True, "é\u2028"], "a": {}}
    assert jsonio.dumps(value, sort_keys=True, compact=True, ensure_ascii=False) == (
        '{"a":{},"b":[1,2.5,null,true,"é\u2028"]}'
    )
    assert jsonio.dumps(value) == json.dumps(value)
    assert jsonio.loads(' [1, {"a": null}, 1e300] \n') == [1, {"a": None}, 1e300]


@pytest.mark.parametrize("text", ["{this is not json", '{"a": tru}', "[1,,2]", '{"a" 1}'])
def test_fails_with_jsons_error_where_nothing_imported_json(text):
    """The hook reads its payload before anything has imported json (a warm compile cache):
    the accelerator's own error lookup then finds no json.decoder, and loads still raises
    DecodeError at json's position, never SystemError (which failed the hook open)."""
    probe = (
        "import sys; from hookgate import jsonio; assert 'json.decoder' not in sys.modules\n"
        "try: jsonio.loads(sys.argv[1])\n"
        "except jsonio.DecodeError as exc: print(exc.pos)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, text], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    assert result.stdout.strip() == str(expected.value.pos)
