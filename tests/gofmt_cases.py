"""Random ``sprintf`` cases for the Go oracle (tests/test_sprintf_go.py,
tests/data/gofmt/record.py): a format string and the argument array, as JSON.

Formats mix text with directives built from every part Go's ``fmt`` reads: flags in any order
and repetition, ``[n]`` indexes (good, out of range, malformed), widths and precisions as
digits or ``*``, every verb that applies to Go's ``int``, ``*big.Int``, ``float64`` and
``string`` and some that do not, ``%%`` and a stray ``%`` at the end. Arguments are what OPA
hands to Go: integers small, at int64's edges and beyond, floats (integral ones such as
``4.0`` and ``1e6`` included, ``-0.0``, ``1e21``), strings with quotes, controls, backquotes
and non-ASCII, and booleans, null, arrays, objects and sets, which OPA passes as their Rego
text. ``{"$set": [...]}`` stands for a set.

Inside arrays, objects and sets OPA prints a number as its text, here the JSON text Python
writes (``4.0``, ``1e+21``), which is the text hookgate gives a float.
"""

from __future__ import annotations

import random

INTS = [0, 1, -1, 7, 42, -42, 65, 255, 0x1F600, 0xD800, 0x110000, 1 << 31, -(1 << 31)]
INTS += [(1 << 63) - 1, -(1 << 63), 1 << 63, -(1 << 63) - 1, 10**30, -(10**25), 123456789]
FLOATS = [0.0, -0.0, 0.1, -0.5, 1.5, 4.0, 1000.0, 1e6, 1e21, 1e-5, 3.14159, 2.5e-7, 1e100]
FLOATS += [123456.789, -1234567.0, 5e-324, 1.7976931348623157e308, 0.000123, 99.5, 1e20]
STRINGS = ["", "a", "hello", "héllo", 'q"uote', "it's", "back\\slash", "tab\tx", "nl\n"]
STRINGS += ["\x00\x07\x7f", "日本語", "emoji😀", "`tick`", "\u00a0nbsp", "\ufeffbom", "%d"]
STRINGS += ["\u200bzw", "ü", "  sp  ", "\r\x1b["]
VERBS = "vvvddssqxXoObcUeEfFgGtTp%!zé"
TEXT = ["", "a", " ", "x=", "é", "[", "]", "*", ".", "-", "1"]


def value(r: random.Random, depth: int = 0) -> object:
    k = r.randrange(10 if depth < 2 else 6)
    if k < 2:
        return r.choice(INTS) if r.random() < 0.7 else r.randint(-(10**6), 10**6)
    if k < 4:
        if r.random() < 0.6:
            return r.choice(FLOATS)
        return r.choice([-1, 1]) * r.random() * 10 ** r.randint(-8, 25)
    if k == 4:
        return r.choice(STRINGS)
    if k == 5:
        return r.choice([True, False, None])
    if k == 6:
        return [value(r, depth + 1) for _ in range(r.randrange(4))]
    if k == 7:
        return {r.choice(STRINGS[:8]): value(r, depth + 1) for _ in range(r.randrange(3))}
    if k == 8:
        items: list = []
        for _ in range(r.randrange(4)):
            v = scalar(r)
            if not any(type(x) is type(v) and x == v for x in items):
                items.append(v)
        return {"$set": items}
    return r.choice(STRINGS)


def scalar(r: random.Random) -> object:
    k = r.randrange(4)
    if k == 0:
        return r.randint(-1000, 10**20)
    if k == 1:
        return r.choice([0.25, -1.5, 0.1, 3.75, 1e-3, 123.5])
    if k == 2:
        return r.choice(STRINGS)
    return r.choice([True, False, None])


def directive(r: random.Random, big: bool) -> str:
    out = "%" + "".join(r.choice("+-# 0") for _ in range(r.choice([0, 0, 1, 1, 2, 3])))
    if r.random() < 0.15:
        out += r.choice(["[1]", "[2]", "[3]", "[0]", "[9]", "[x]", "[", "[1"])
    w = r.random()
    if w < 0.3:
        out += str(r.randrange(13))
    elif w < 0.38:
        out += r.choice(["*", "[1]*", "[2]*"])
    p = r.random()
    if p < 0.25:
        out += "." + str(r.randrange(25))
    elif p < 0.3:
        out += r.choice([".", ".*", ".[1]*"])
    if r.random() < 0.05:
        out += r.choice(["[1]", "[2]"])
    verb = r.choice(VERBS)
    if verb == "p" and big:  # Go prints a *big.Int's address: never the same twice
        verb = "v"
    return out + verb


def case(r: random.Random) -> dict:
    args = [value(r) for _ in range(r.choice([0, 1, 1, 2, 2, 3, 4]))]
    big = any(type(a) is int and not -(1 << 63) <= a < 1 << 63 for a in args)
    parts = []
    for _ in range(r.randint(1, 4)):
        parts.append(r.choice(TEXT))
        parts.append(directive(r, big))
    if r.random() < 0.05:
        parts.append("%")
    return {"format": "".join(parts), "args": args}
