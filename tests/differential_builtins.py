"""Rules that call the builtins whose answers are Go's (``strings.replace_n``, ``net.cidr_*``,
``json.patch``'s paths, ``object.subset``, ``glob.quote_meta``), run beside the random programs
of tests/rego_gen.py by ``bench/differential.py``.

They come from a random stream of their own (seeded from the program's seed), so the programs
of tests/rego_gen.py, and the decisions tests/test_differential_random.py records for them,
stay as they are. The arguments are drawn from small pools that hold the corners: empty keys,
overlapping keys, multi-byte text; bare addresses, IPv4 written in IPv6, both families;
array indexes with a sign, a leading zero or ``-``.
"""

from __future__ import annotations

import json
import random

_KEYS = ["a", "ab", "b", "ba", "aab", "é"]
_VALUES = ["", "X", "ab", "-", "é"]
_TEXT = "abé-"

_NETS = [
    "10.0.0.0/8",
    "10.1.0.0/16",
    "10.1.2.0/24",
    "192.168.0.0/24",
    "192.168.1.0/24",
    "0.0.0.0/0",
    "fe80::/64",
    "fe80::/10",
    "::/0",
    "::ffff:10.0.0.0/104",
    "2001:db8::/32",
]
_ADDRS = ["10.1.2.3", "192.168.0.7", "11.0.0.1", "fe80::1", "2001:db8::5", "::ffff:10.1.2.3"]
_BAD = ["10.0.0.1/33", "x", "10.0.0.0/255.0.0.0", "010.0.0.0/8"]
_SMALL_NETS = ["192.168.1.0/30", "10.0.0.4/31", "fe80::/126", "::ffff:1.2.3.4/127", "10.0.0.9/32"]

_DOCS = [[1, 2, 3], ["a"], [], {"a": [1, 2]}, {"a": {"b": 1}}, {"": 0, "0": 1}]
_PATHS = ["", "/", "/0", "/1", "/2", "/3", "/-", "/01", "/00", "/+1", "/-0", "/-1", "/a", "/a/0"]
_PATHS += ["/a/1", "/a/-", "/a/01", "/a/b", "/1e0", "/ 1"]
_SUBSETS = [{}, {"a": 1}, {"a": {"b": 1}}, [1, 2], [2], [2, 1], [1, 2, 3], "s"]
_GLOB = "*?[]{}\\a.-!"


def _str(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _call(r: random.Random) -> str:
    kind = r.randrange(9)
    if kind == 0:
        # The empty key only now and then: rego-cpp 1.x spins on it until the worker's
        # timeout, which would make the run minutes longer.
        keys = r.sample(_KEYS, r.randint(1, 3)) + ([""] if r.random() < 0.1 else [])
        pattern = {k: r.choice(_VALUES) for k in keys}
        text = "".join(r.choice(_TEXT) for _ in range(r.randint(0, 6)))
        return f"strings.replace_n({_str(pattern)}, {_str(text)})"
    if kind == 1:
        b = r.choice(_NETS + _ADDRS + _ADDRS + (_BAD if r.random() < 0.1 else []))
        return f"net.cidr_contains({_str(r.choice(_NETS))}, {_str(b)})"
    if kind == 2:
        return f"net.cidr_intersects({_str(r.choice(_NETS))}, {_str(r.choice(_NETS))})"
    if kind == 3:
        pool = _NETS + _SMALL_NETS + [a for a in _ADDRS if ":" not in a]
        items = [r.choice(pool) for _ in range(r.randint(1, 4))]
        return f"net.cidr_merge({_str(items)})"
    if kind == 4:
        return f"net.cidr_expand({_str(r.choice(_SMALL_NETS))})"
    if kind == 5:
        return f"net.cidr_is_valid({_str(r.choice(_NETS + _ADDRS + _BAD))})"
    if kind == 6:
        op = r.choice(["add", "remove", "replace", "test"])
        patch = {"op": op, "path": r.choice(_PATHS)}
        if op != "remove":
            patch["value"] = r.choice([0, "v", [1]])
        return f"json.patch({_str(r.choice(_DOCS))}, [{_str(patch)}])"
    if kind == 7:
        return f"object.subset({_str(r.choice(_SUBSETS))}, {_str(r.choice(_SUBSETS))})"
    text = "".join(r.choice(_GLOB) for _ in range(r.randint(0, 5)))
    return f"glob.quote_meta({_str(text)})"


def calls(seed: int) -> list[str]:
    """Up to three builtin calls for the program of ``seed``."""
    r = random.Random(f"builtins-{seed}")
    return [_call(r) for _ in range(r.randint(0, 3))]


def programs(seed: int) -> list[tuple[str, str, dict]]:
    """``(query, module, input)``: tests/rego_gen.py's program of ``seed`` (query ``""``: its
    rules are compared one by one) and one module per builtin call (query ``b0``…), so that an
    oracle that lacks a builtin, and fails the whole module, fails that call alone."""
    import rego_gen

    source, inp = rego_gen.program(seed)
    out = [("", source, inp)]
    for i, call in enumerate(calls(seed)):
        out.append((f"b{i}", f"package g\n\nb{i} := {call}\n", inp))
    return out
