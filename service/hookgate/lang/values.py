"""The interpreter's values, with Rego's semantics.

Values are plain Python objects so that the input document (parsed JSON) is used as it is, never
copied: ``None``, ``bool``, ``int``/``float``, ``str``, ``list`` (array), ``dict`` (object) and
``RegoSet``. Python's own equality does not fit Rego (``True == 1`` in Python, not in Rego), so
every comparison, set membership and object key goes through the functions below.

Object keys are usually strings; a key of another kind (a boolean, an array, an object, a set) is
stored in the dict wrapped in ``ObjKey`` so that ``true`` and ``1`` stay distinct keys. Use
``obj_get``/``obj_put``/``obj_items``/``obj_keys`` on objects built by the interpreter.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any


class _Undefined:
    """The result of a query or a reference that has no value (distinct from ``null``)."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNDEFINED"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "UNDEFINED"


UNDEFINED: Any = _Undefined()

_TRUE_KEY = ("b", True)
_FALSE_KEY = ("b", False)
_PLAIN = (str, int, float, type(None))


def freeze(value: Any) -> Any:
    """A hashable key that is equal for Rego-equal values and distinct otherwise."""
    t = type(value)
    if t is str or t is int or t is float or value is None:
        return value
    if t is bool:
        return _TRUE_KEY if value else _FALSE_KEY
    # Strings, the most common members, are their own keys: no call for them.
    if t is list or t is tuple:
        return ("a", tuple([v if type(v) is str else freeze(v) for v in value]))
    if t is dict:
        return (
            "o",
            frozenset(
                [
                    (
                        k if type(k) is str else freeze(_unwrap(k)),
                        v if type(v) is str else freeze(v),
                    )
                    for k, v in value.items()
                ]
            ),
        )
    if t is RegoSet:
        return ("s", value.keyset())
    if t is ObjKey:
        return value.frozen
    if is_decimal(value):
        return value
    raise TypeError(f"not a policy value: {t.__name__}")


class ObjKey:
    """An object key that is not a string or a number (kept distinct from numbers)."""

    __slots__ = ("value", "frozen", "_hash")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.frozen = freeze(value)
        self._hash = hash(self.frozen)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return type(other) is ObjKey and self.frozen == other.frozen

    def __repr__(self) -> str:
        return f"ObjKey({self.value!r})"


def _unwrap(key: Any) -> Any:
    return key.value if type(key) is ObjKey else key


def dict_key(key: Any) -> Any:
    """The dict key under which object key ``key`` is stored."""
    t = type(key)
    if t is str or t is int or t is float or key is None or is_decimal(key):
        return key
    return ObjKey(key)


def obj_get(obj: dict, key: Any, default: Any = UNDEFINED) -> Any:
    t = type(key)
    if t is str or t is int or t is float or key is None or is_decimal(key):
        return obj.get(key, default)
    return obj.get(ObjKey(key), default)


def obj_put(obj: dict, key: Any, value: Any) -> None:
    obj[dict_key(key)] = value


def obj_keys(obj: dict) -> Iterator[Any]:
    for k in obj:
        yield k.value if type(k) is ObjKey else k


def obj_items(obj: dict) -> Iterator[tuple[Any, Any]]:
    for k, v in obj.items():
        yield (k.value if type(k) is ObjKey else k), v


def sorted_items(obj: dict) -> list[tuple[Any, Any]]:
    """An object's (key, value) pairs in key order, the order Rego iterates objects in."""
    if all(type(k) is str for k in obj):
        return sorted(obj.items())
    return sorted(obj_items(obj), key=lambda kv: sort_key(kv[0]))


def make_object(pairs: Iterable[tuple[Any, Any]]) -> dict:
    out: dict = {}
    for k, v in pairs:
        out[dict_key(k)] = v
    return out


class RegoSet:
    """An immutable set of policy values (hashable, so sets may hold sets and be object keys)."""

    __slots__ = ("_d", "_hash", "_sorted")

    def __init__(self, items: Iterable[Any] = ()) -> None:
        d: dict = {}
        for v in items:
            t = type(v)
            d[v if (t is str or t is int or t is float or v is None) else freeze(v)] = v
        self._d = d
        self._hash: int | None = None
        self._sorted: list | None = None

    @classmethod
    def _from_dict(cls, d: dict) -> RegoSet:
        s = cls.__new__(cls)
        s._d = d
        s._hash = None
        s._sorted = None
        return s

    def __iter__(self) -> Iterator[Any]:
        # Rego iterates a set in sorted order (observable in array comprehensions).
        if self._sorted is None:
            values = list(self._d.values())
            if all(type(v) is str for v in values):
                values.sort()
            else:
                values.sort(key=sort_key)
            self._sorted = values
        return iter(self._sorted)

    def unordered(self) -> Iterator[Any]:
        """The members in insertion order (cheaper than sorted ``iter``)."""
        return iter(self._d.values())

    def pairs(self) -> Iterator[tuple[Any, Any]]:
        """(member, member) pairs in insertion order: a set iterated as a collection."""
        members = self._d.values()
        return zip(members, members, strict=True)

    def __len__(self) -> int:
        return len(self._d)

    def __contains__(self, value: Any) -> bool:
        t = type(value)
        if t is str or t is int or t is float or value is None:
            return value in self._d
        return freeze(value) in self._d

    def keyset(self) -> frozenset:
        return frozenset(self._d)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(("s", frozenset(self._d)))
        return self._hash

    def __eq__(self, other: object) -> bool:
        return type(other) is RegoSet and self._d.keys() == other._d.keys()

    def __repr__(self) -> str:
        return "{" + ", ".join(repr(v) for v in self) + "}" if self._d else "set()"

    def union(self, other: RegoSet) -> RegoSet:
        d = dict(self._d)
        d.update(other._d)
        return RegoSet._from_dict(d)

    def intersection(self, other: RegoSet) -> RegoSet:
        od = other._d
        return RegoSet._from_dict({k: v for k, v in self._d.items() if k in od})

    def difference(self, other: RegoSet) -> RegoSet:
        od = other._d
        return RegoSet._from_dict({k: v for k, v in self._d.items() if k not in od})


EMPTY_SET = RegoSet()


def equal(a: Any, b: Any) -> bool:
    """Rego equality: ``1 == 1.0``, ``true != 1``, deep over arrays, objects and sets."""
    if a is b:
        return True
    ta = type(a)
    tb = type(b)
    if ta is str or tb is str:
        return ta is tb and a == b
    if ta is bool or tb is bool:
        return ta is tb and a == b
    if ta in _NUM and tb in _NUM:
        return a == b
    if ta is list or ta is tuple:
        if tb is not list and tb is not tuple or len(a) != len(b):
            return False
        return all(equal(x, y) for x, y in zip(a, b, strict=True))
    if ta is dict:
        if tb is not dict or len(a) != len(b):
            return False
        for k, v in a.items():
            w = b.get(k, UNDEFINED)
            if w is UNDEFINED or not equal(v, w):
                return False
        return True
    if ta is RegoSet:
        return tb is RegoSet and a == b
    if is_number(a) and is_number(b):  # a Decimal: compares exactly with int and float
        return a == b
    return False


_NUM = (int, float)


def is_decimal(v: Any) -> bool:
    """A number kept exactly because a float would round it (``hookgate.lang.numbers``); no
    such value exists unless ``decimal`` was imported to make it."""
    mod = sys.modules.get("decimal")
    return mod is not None and type(v) is mod.Decimal


def is_number(v: Any) -> bool:
    t = type(v)
    return t is int or t is float or is_decimal(v)


_RANK = {type(None): 0, bool: 1, int: 2, float: 2, str: 3, list: 4, tuple: 4, dict: 5, RegoSet: 6}


def sort_key(v: Any) -> tuple:
    """A Python-orderable key giving Rego's total order:
    null < boolean < number < string < array < object < set."""
    t = type(v)
    rank = _RANK.get(t)
    if rank is None and is_decimal(v):
        return (2, v)
    if rank is None:
        raise TypeError(f"not a policy value: {t.__name__}")
    if rank <= 3:
        return (rank, v) if rank else (0,)
    if rank == 4:
        return (4, tuple(sort_key(x) for x in v))
    if rank == 5:
        pairs = sorted((sort_key(k), sort_key(x)) for k, x in obj_items(v))
        return (5, tuple(pairs))
    return (6, tuple(sorted(sort_key(x) for x in v)))


def compare(a: Any, b: Any) -> int:
    """-1, 0 or 1 by Rego's total order."""
    ka = sort_key(a)
    kb = sort_key(b)
    return (ka > kb) - (ka < kb)


def sorted_values(values: Iterable[Any]) -> list:
    return sorted(values, key=sort_key)


def type_name(v: Any) -> str:
    """Rego's type name: null, boolean, number, string, array, object, set."""
    t = type(v)
    if v is None:
        return "null"
    if t is bool:
        return "boolean"
    if t is int or t is float or is_decimal(v):
        return "number"
    if t is str:
        return "string"
    if t is list or t is tuple:
        return "array"
    if t is dict:
        return "object"
    if t is RegoSet:
        return "set"
    raise TypeError(f"not a policy value: {t.__name__}")


def to_json(value: Any) -> Any:
    """A plain JSON value: sets become sorted lists, non-string object keys become their JSON
    text, integral floats become ints (as OPA prints them)."""
    t = type(value)
    if t is str or t is int or t is bool or value is None:
        return value
    if t is float:
        if value.is_integer() and abs(value) < 2**53:
            return int(value)
        return value
    if t is list or t is tuple:
        return [to_json(v) for v in value]
    if t is dict:
        out = {}
        for k, v in obj_items(value):
            out[k if type(k) is str else json_text(k)] = to_json(v)
        return out
    if t is RegoSet:
        return [to_json(v) for v in sorted_values(value)] if value._d else []
    if is_decimal(value):  # JSON output holds it at a float's precision
        return float(value)
    raise TypeError(f"not a policy value: {t.__name__}")


def from_json(value: Any) -> Any:
    """Parsed JSON is already a policy value: returned as is (never copied)."""
    return value


def json_text(value: Any) -> str:
    """Compact JSON text of a value (as ``json.marshal`` writes it: keys sorted)."""
    from hookgate import jsonio

    return jsonio.dumps(to_json(value), compact=True, sort_keys=True, ensure_ascii=False)


__all__ = [
    "UNDEFINED",
    "RegoSet",
    "ObjKey",
    "EMPTY_SET",
    "equal",
    "compare",
    "sort_key",
    "sorted_values",
    "freeze",
    "type_name",
    "to_json",
    "from_json",
    "json_text",
    "obj_get",
    "obj_put",
    "obj_keys",
    "obj_items",
    "sorted_items",
    "make_object",
    "dict_key",
    "is_number",
    "is_decimal",
]
