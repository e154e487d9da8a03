"""Object builtins: ``object.get``, ``object.keys``, ``object.remove``, ``object.union``,
``object.union_n``, ``object.filter``, ``json.filter``, ``json.remove`` and ``json.patch``."""

from __future__ import annotations

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.builtins.types import want_array, want_object
from hookgate.lang.values import (
    UNDEFINED,
    RegoSet,
    dict_key,
    equal,
    obj_get,
    obj_items,
    obj_keys,
    type_name,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@builtin("object.get", "objects", 3)
def get(obj: Any, key: Any, default: Any) -> Any:
    """``obj[key]``, or ``default`` when absent; an array ``key`` is a path into nested
    objects and arrays."""
    want_object("object.get", 1, obj)
    if type(key) is not list:
        return obj_get(obj, key, default)
    node = obj
    for k in key:
        t = type(node)
        if t is dict:
            node = obj_get(node, k)
        elif t is list and type(k) is int and 0 <= k < len(node):
            node = node[k]
        elif t is RegoSet and k in node:
            node = k
        else:
            return default
        if node is UNDEFINED:
            return default
    return node


@builtin("object.keys", "objects", 1)
def keys(obj: Any) -> RegoSet:
    """The set of keys of ``obj``."""
    return RegoSet(obj_keys(want_object("object.keys", 1, obj)))


def _key_set(name: str, keys: Any) -> RegoSet:
    t = type(keys)
    if t is RegoSet:
        return keys
    if t is list:
        return RegoSet(keys)
    if t is dict:
        return RegoSet(obj_keys(keys))
    raise BuiltinError(
        f"{name}: operand 2 must be one of {{object, array, set}} but got {type_name(keys)}"
    )


@builtin("object.remove", "objects", 2)
def remove(obj: Any, keys: Any) -> dict:
    """``obj`` without the given keys (an array, set or the keys of an object)."""
    want_object("object.remove", 1, obj)
    drop = _key_set("object.remove", keys)
    return {dict_key(k): v for k, v in obj_items(obj) if k not in drop}


@builtin("object.filter", "objects", 2)
def filter_(obj: Any, keys: Any) -> dict:
    """``obj`` with only the given keys (an array, set or the keys of an object)."""
    want_object("object.filter", 1, obj)
    keep = _key_set("object.filter", keys)
    return {dict_key(k): v for k, v in obj_items(obj) if k in keep}


def _merge(a: dict, b: dict) -> dict:
    out = dict(a)
    for k, v in b.items():
        old = out.get(k, UNDEFINED)
        out[k] = _merge(old, v) if type(old) is dict and type(v) is dict else v
    return out


@builtin("object.union", "objects", 2)
def union(a: Any, b: Any) -> dict:
    """``a`` and ``b`` merged recursively; on conflicting keys ``b`` wins."""
    return _merge(want_object("object.union", 1, a), want_object("object.union", 2, b))


@builtin("object.union_n", "objects", 1)
def union_n(objects: Any) -> dict:
    """The objects of an array merged recursively, later ones winning."""
    out: dict = {}
    for o in want_array("object.union_n", 1, objects):
        if type(o) is not dict:
            raise BuiltinError("object.union_n: operand 1 must be array of objects")
        out = _merge(out, o)
    return out


# json.filter / json.remove: the paths become one tree of objects whose leaves are LEAF (the
# whole value at that path). As in OPA, a shorter path wins over a longer one below it, and an
# array index only matches as a string segment ("a/0", ["a", "0"]).
LEAF = None
MISSING = object()


def _path_tree(name: str, paths: Any) -> dict:
    if type(paths) not in (list, RegoSet):
        raise BuiltinError(
            f"{name}: operand 2 must be one of {{set, array}} but got {type_name(paths)}"
        )
    root: dict = {}
    for path in paths:
        if type(path) is str:
            segments = [] if path == "" else _pointer(path.lstrip("/"))
        elif type(path) is list:
            segments = path
        else:
            raise BuiltinError(
                f"{name}: operand 2 must be one of {{set, array}} containing string paths or "
                f"array of path segments but got {type_name(path)}"
            )
        if not segments:
            continue
        node = root
        for key in segments[:-1]:
            k = dict_key(key)
            child = node.get(k, MISSING)
            if child is LEAF:
                break
            if child is MISSING:
                child = node[k] = {}
            node = child
        else:
            node[dict_key(segments[-1])] = LEAF
    return root


def _pointer(path: str) -> list[str]:
    return [p.replace("~1", "/").replace("~0", "~") for p in path.split("/")]


def _sub_tree(tree: dict, key: Any) -> Any:
    return tree.get(dict_key(key), MISSING)


def _pruned(value: Any, tree: Any, keep_listed: bool) -> Any:
    """``value`` with only the paths of ``tree`` (``keep_listed``, json.filter) or without
    them (json.remove). A branch the tree does not mention (MISSING) or ends at (LEAF) is kept
    whole; which of the two a level drops depends on the builtin."""
    if tree is LEAF or tree is MISSING:
        return value
    dropped = MISSING if keep_listed else LEAF
    t = type(value)
    if t is dict:
        return {
            k: _pruned(v, sub, keep_listed)
            for k, v in value.items()
            if (sub := tree.get(k, MISSING)) is not dropped
        }
    if t is list:
        return [
            _pruned(v, sub, keep_listed)
            for i, v in enumerate(value)
            if (sub := tree.get(str(i), MISSING)) is not dropped
        ]
    if t is RegoSet:
        return RegoSet(
            [
                _pruned(v, sub, keep_listed)
                for v in value
                if (sub := _sub_tree(tree, v)) is not dropped
            ]
        )
    return value


@builtin("object.subset", "objects", 2)
def subset(sup: Any, sub: Any) -> bool:
    """True if ``sub`` is contained in ``sup``: objects key by key (nested objects, sets and
    arrays recursively, other values equal), sets by members, arrays as a contiguous run; an
    array ``sup`` with a set ``sub``: the set's members among the array's elements."""
    ts, tb = type(sup), type(sub)
    for pos, t in ((1, ts), (2, tb)):
        if t not in (dict, RegoSet, list):
            raise BuiltinError(
                f"object.subset: operand {pos} must be one of {{object, set, array}} but got "
                f"{type_name(sup if pos == 1 else sub)}"
            )
    if ts is list and tb is RegoSet:
        return all(any(equal(m, e) for e in sup) for m in sub)
    if ts is not tb:
        raise BuiltinError(
            "object.subset: both arguments to object.subset must be of the same type or "
            "array and set"
        )
    return _contains(sup, sub)


def _contains(sup: Any, sub: Any) -> bool:
    t = type(sup)
    if t is not type(sub):
        return equal(sup, sub)
    if t is dict:
        for k, v in obj_items(sub):
            w = obj_get(sup, k)
            if w is UNDEFINED or not _contains(w, v):
                return False
        return True
    if t is RegoSet:
        return all(m in sup for m in sub)
    if t is list:
        n = len(sub)
        return any(
            all(equal(sup[i + k], sub[k]) for k in range(n)) for i in range(len(sup) - n + 1)
        )
    return equal(sup, sub)


@builtin("json.filter", "objects", 2)
def json_filter(obj: Any, paths: Any) -> dict:
    """``obj`` with only the values at ``paths`` (an array or set; each path a ``/``-separated
    string such as ``"a/b/0"`` or an array of segments such as ``["a", {"x"}]``). Array indexes
    are string segments; a set member is addressed by its value."""
    want_object("json.filter", 1, obj)
    return _pruned(obj, _path_tree("json.filter", paths), keep_listed=True)


@builtin("json.remove", "objects", 2)
def json_remove(obj: Any, paths: Any) -> dict:
    """``obj`` without the values at ``paths`` (the same path forms as ``json.filter``)."""
    want_object("json.remove", 1, obj)
    return _pruned(obj, _path_tree("json.remove", paths), keep_listed=False)


@builtin("json.patch", "objects", 2)
def patch(doc: Any, patches: Any) -> Any:
    """``doc`` with the RFC 6902 operations of ``patches`` applied (add, remove, replace, move,
    copy, test); a path is a ``/``-separated string or an array; a set member is addressed by
    its value. An operation that does not apply is an error, as in OPA (so undefined unless
    builtin errors are strict)."""
    for n, op in enumerate(want_array("json.patch", 2, patches)):
        if type(op) is not dict:
            raise BuiltinError("json.patch: operand 2 must be array of objects")
        doc = _apply(doc, op)
        if doc is UNDEFINED:
            kind = op.get("op")
            shown = repr(kind) if type(kind) is str else "without a string op"
            raise BuiltinError(f"json.patch: operation {n} ({shown}) does not apply")
    if doc is _REMOVED:  # OPA's edit tree renders nothing: no value
        raise BuiltinError("json.patch: the operations removed the whole document")
    return doc


# The document after `{"op": "remove", "path": ""}`: OPA's edit tree with no value at its root.
_REMOVED = object()


def _path(value: Any) -> list | None:
    if type(value) is list:
        return value
    if type(value) is not str:
        return None
    if value == "":
        return []
    if not value.startswith("/"):
        return None
    return [p.replace("~1", "/").replace("~0", "~") for p in value[1:].split("/")]


def _apply(doc: Any, op: dict) -> Any:
    kind = op.get("op")
    path = _path(op.get("path", UNDEFINED))
    if path is None:
        return UNDEFINED
    if kind == "add":
        return _add(doc, path, op.get("value", UNDEFINED))
    if doc is _REMOVED:  # only a new whole document can follow (OPA's edit tree)
        return op.get("value", UNDEFINED) if kind == "add" and not path else UNDEFINED
    if kind == "remove":
        return _remove(doc, path) if path else _REMOVED
    if kind == "replace":
        doc = _remove(doc, path)
        return UNDEFINED if doc is UNDEFINED else _add(doc, path, op.get("value", UNDEFINED))
    if kind in ("move", "copy"):
        src = _path(op.get("from", UNDEFINED))
        if src is None:
            return UNDEFINED
        value = _lookup(doc, src)
        if value is UNDEFINED:
            return UNDEFINED
        if kind == "move":
            doc = _remove(doc, src)
        return UNDEFINED if doc is UNDEFINED else _add(doc, path, value)
    if kind == "test":
        found = _lookup(doc, path)
        value = op.get("value", UNDEFINED)
        return doc if found is not UNDEFINED and equal(found, value) else UNDEFINED
    return UNDEFINED


def _index(arr: list, key: Any, *, append: bool) -> int | None:
    """OPA's ``toIndex`` (internal/edittree): ``-`` is the end of the array, a string index is
    read as Go's ``strconv.ParseInt`` reads it (ASCII digits, an optional sign, 64 bits) and
    may not start with ``0`` unless it is ``0``; a number must be an integer. A malformed index
    is an error; one out of range makes the operation not apply (None)."""
    if type(key) is str:
        if key == "-":
            i = len(arr)
        else:
            digits = key[1:] if key.startswith(("+", "-")) else key
            if not (digits.isascii() and digits.isdigit()) or not -(2**63) <= int(key) < 2**63:
                raise BuiltinError(f"json.patch: invalid string for indexing: {key!r}")
            if key != "0" and key.startswith("0"):
                raise BuiltinError(
                    f"json.patch: leading zeros are not allowed in JSON paths: {key!r}"
                )
            i = int(key)
    elif type(key) is int and -(2**63) <= key < 2**63:
        i = key
    else:
        raise BuiltinError(f"json.patch: invalid {type_name(key)} for indexing an array")
    limit = len(arr) + (1 if append else 0)
    return i if 0 <= i < limit else None


def _child(node: Any, key: Any) -> Any:
    t = type(node)
    if t is dict:
        return obj_get(node, key)
    if t is list:
        i = _index(node, key, append=False)
        return UNDEFINED if i is None else node[i]
    if t is RegoSet:
        return key if key in node else UNDEFINED
    return UNDEFINED


def _lookup(doc: Any, path: list) -> Any:
    for key in path:
        doc = _child(doc, key)
        if doc is UNDEFINED:
            return UNDEFINED
    return doc


def _update(doc: Any, path: list, leaf: Any) -> Any:
    """A copy of ``doc`` with ``leaf(parent, last_key)`` applied at the parent of ``path``."""
    if len(path) == 1:
        return leaf(doc, path[0])
    key = path[0]
    child = _child(doc, key)
    if child is UNDEFINED:
        return UNDEFINED
    new_child = _update(child, path[1:], leaf)
    if new_child is UNDEFINED:
        return UNDEFINED
    t = type(doc)
    if t is dict:
        out = dict(doc)
        out[dict_key(key)] = new_child
        return out
    if t is list:
        out = list(doc)
        out[_index(doc, key, append=False)] = new_child
        return out
    members = [m for m in doc if not equal(m, key)]
    return RegoSet([*members, new_child])


def _add(doc: Any, path: list, value: Any) -> Any:
    if value is UNDEFINED:
        return UNDEFINED
    if not path:
        return value

    def leaf(parent: Any, key: Any) -> Any:
        t = type(parent)
        if t is dict:
            out = dict(parent)
            out[dict_key(key)] = value
            return out
        if t is list:
            i = _index(parent, key, append=True)
            return UNDEFINED if i is None else parent[:i] + [value] + parent[i:]
        if t is RegoSet:
            return parent.union(RegoSet([value]))
        return UNDEFINED

    return _update(doc, path, leaf)


def _remove(doc: Any, path: list) -> Any:
    if not path:
        return None

    def leaf(parent: Any, key: Any) -> Any:
        t = type(parent)
        if t is dict:
            if obj_get(parent, key) is UNDEFINED:
                return UNDEFINED
            dk = dict_key(key)
            return {k: v for k, v in parent.items() if k != dk}
        if t is list:
            i = _index(parent, key, append=False)
            return UNDEFINED if i is None else parent[:i] + parent[i + 1 :]
        if t is RegoSet and key in parent:
            return parent.difference(RegoSet([key]))
        return UNDEFINED

    return _update(doc, path, leaf)
