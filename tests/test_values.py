"""The value model: Rego equality, ordering, sets and objects (not Python's)."""

import pytest

from hookgate.lang.values import (
    UNDEFINED,
    RegoSet,
    compare,
    equal,
    make_object,
    obj_get,
    obj_items,
    sorted_values,
    to_json,
    type_name,
)


def test_booleans_are_not_numbers():
    assert not equal(True, 1)
    assert not equal(False, 0)
    assert not equal([True], [1])
    assert not equal({"a": 1}, {"a": True})
    assert equal(1, 1.0)
    assert equal([1, {"a": 2.0}], [1.0, {"a": 2}])


def test_set_membership_keeps_true_and_one_apart():
    s = RegoSet([1, True, "1", None, 0, False])
    assert len(s) == 6
    assert True in s and 1 in s and 1.0 in s
    assert RegoSet([1]) != RegoSet([True])
    assert 2 not in s


def test_sets_hold_objects_arrays_and_sets():
    s = RegoSet([{"a": [1, 2]}, [1, 2], RegoSet(["x"]), {"a": [1, 2]}])
    assert len(s) == 3
    assert {"a": [1.0, 2]} in s
    assert RegoSet(["x"]) in s
    assert RegoSet([s]) == RegoSet([RegoSet([[1, 2], {"a": [1, 2]}, RegoSet(["x"])])])


def test_object_keys_of_any_type():
    obj = make_object([(1, "int"), (True, "bool"), ("1", "str"), ([1, 2], "arr")])
    assert obj_get(obj, 1) == "int"
    assert obj_get(obj, 1.0) == "int"
    assert obj_get(obj, True) == "bool"
    assert obj_get(obj, "1") == "str"
    assert obj_get(obj, [1, 2]) == "arr"
    assert obj_get(obj, False) is UNDEFINED
    assert sorted(type(k).__name__ for k, _ in obj_items(obj)) == ["bool", "int", "list", "str"]


def test_total_order_across_types():
    values = [RegoSet([1]), {"a": 1}, [1], "a", 2, 1.5, True, False, None]
    assert sorted_values(values) == [None, False, True, 1.5, 2, "a", [1], {"a": 1}, RegoSet([1])]
    assert compare([1, 2], [1, 2, 0]) == -1
    assert compare({"a": 1}, {"a": 2}) == -1
    assert compare({"a": 9}, {"b": 0}) == -1
    assert compare(1, 1.0) == 0


def test_sets_iterate_in_sorted_order():
    assert list(RegoSet(["b", "c", "a"])) == ["a", "b", "c"]
    assert list(RegoSet([3, "x", None])) == [None, 3, "x"]


def test_to_json():
    doc = {"s": RegoSet(["b", "a"]), "f": 2.0, "g": 0.5, "n": None}
    assert to_json(doc) == {"s": ["a", "b"], "f": 2, "g": 0.5, "n": None}
    assert to_json(make_object([(1, True)])) == {"1": True}
    with pytest.raises(TypeError):
        to_json(object())


def test_type_names():
    names = [type_name(v) for v in (None, True, 1, 1.5, "s", [], {}, RegoSet())]
    assert names == ["null", "boolean", "number", "number", "string", "array", "object", "set"]
