"""Builtins whose answer is Go's: ``strings.replace_n`` (Go's ``strings.NewReplacer``),
``net.cidr_*`` (Go's ``net`` package as OPA's ``topdown/cidr.go`` uses it) and ``json.patch``'s
array indexes (OPA's ``internal/edittree`` ``toIndex``), and ``import rego.v2`` refused with the
contract's ``unsupported:`` label.

The expected values are Go's and OPA's own: the replacer table is Go's
``strings/replace_test.go`` (empty old strings); the ``net.cidr_merge`` table is OPA's
``test/cases/testdata/netcidrmerge/test-netcidrmerge0117.yaml`` (a Rego v0 file, so not in
tests/data/opa; its queries are written here in v1).
"""

from __future__ import annotations

import pytest

from hookgate.builtins.strings import go_replace
from hookgate.lang import UNDEFINED, EvalError, PolicyError, load
from hookgate.lang.values import RegoSet


def ev(expr: str, *, strict: bool = True):
    ps = load({"t.rego": f"package t\n\np := {expr}\n"}, {})
    return ps.query("data.t.p", strict_builtin_errors=strict)


# Go's strings/replace_test.go, "Test cases with empty old strings".
BLANK = [
    ([("", "X")], "foo", "XfXoXoX"),
    ([("", "X")], "", "X"),
    ([("", "X"), ("", "")], "foo", "XfXoXoX"),
    ([("", "X"), ("o", "O")], "oo", "XOXOX"),
    ([("", "X"), ("o", "O")], "ii", "XiXiX"),
    ([("", "X"), ("o", "O")], "oiio", "XOXiXiXOX"),
    ([("", "X"), ("o", "O")], "iooi", "XiXOXOXiX"),
    ([("o", "O"), ("", "X")], "oo", "OOX"),
    ([("o", "O"), ("", "X")], "ii", "XiXiX"),
    ([("o", "O"), ("", "X")], "oiio", "OXiXiOX"),
    ([("o", "O"), ("", "X")], "iooi", "XiOOXiX"),
    ([("o", "O"), ("", "X")], "", "X"),
    ([("", "")], "foo", "foo"),
    ([("", ""), ("", "A")], "foo", "foo"),
    ([("", "X"), ("foobar", "R"), ("foobaz", "Z")], "foobarfoobaz", "XRXZX"),
    ([("", "X"), ("foobar", "R"), ("foobaz", "Z")], "foobar-foobaz", "XRX-XZX"),
    ([("abc", "[match]")], "cabcabcdabca", "c[match][match]d[match]a"),
    ([("Hello", "")], "xHellox", "xx"),
    ([("a", "1"), ("aa", "2")], "aaa", "111"),
    ([("aa", "2"), ("a", "1")], "aaa", "21"),
]


@pytest.mark.parametrize(("pairs", "text", "want"), BLANK)
def test_go_replacer(pairs, text, want):
    assert go_replace(pairs, text) == want


@pytest.mark.parametrize(
    ("expr", "want"),
    [
        # The keys are sorted, so "" (first) inserts everywhere and "o" still matches after it.
        ('strings.replace_n({"": "-", "o": "0"}, "foo")', "-f-0-0-"),
        ('strings.replace_n({"": "."}, "")', "."),
        ('strings.replace_n({"a": "1", "ab": "2"}, "abab")', "1b1b"),
        ('strings.replace_n({"ab": "2", "abc": "3"}, "abcab")', "2c2"),
        ('strings.replace_n({}, "abc")', "abc"),
        # Between the bytes of one character: each half is shown as U+FFFD.
        ('strings.replace_n({"": "|"}, "é")', "|\ufffd|\ufffd|"),
    ],
)
def test_replace_n(expr, want):
    assert ev(expr) == want


def test_replace_n_names_the_bad_pattern():
    with pytest.raises(EvalError, match="non-string value found in pattern object"):
        ev('strings.replace_n({"a": 1}, "abc")')


# OPA's test-netcidrmerge0117.yaml, case by case.
MERGE = [
    (["192.0.128.0/24"], ["192.0.128.0/24"]),
    (["192.0.128.0/24", "192.0.128.0/24"], ["192.0.128.0/24"]),
    (["192.0.128.0/24", "0.0.0.0/0"], ["0.0.0.0/0"]),
    (["192.0.128.0/24", "192.0.129.0/24"], ["192.0.128.0/23"]),
    (["192.0.2.112/30", "192.0.2.116/31", "192.0.2.118/31"], ["192.0.2.112/29"]),
    (["192.0.129.0/24", "192.0.130.0/24"], ["192.0.129.0/24", "192.0.130.0/24"]),
    (
        ["192.0.2.112/30", "192.0.2.116/32", "192.0.2.118/31"],
        ["192.0.2.112/30", "192.0.2.116/32", "192.0.2.118/31"],
    ),
    (["192.0.2.112/31", "192.0.2.116/31", "192.0.2.118/31"], ["192.0.2.112/31", "192.0.2.116/30"]),
    (
        ["192.0.1.254/31"] + [f"192.0.2.{n}/28" for n in range(0, 256, 16)] + ["192.0.3.0/28"],
        ["192.0.1.254/31", "192.0.2.0/24", "192.0.3.0/28"],
    ),
    (["::/0", "fe80::1/128"], ["::/0"]),
    (["::/0", "::192.0.2.0/124", "ff00::101/128"], ["::/0"]),
    (
        ["fe80::/120", "192.0.2.0/24", "192.0.3.0/24", "192.0.4.0/25", "192.0.4.128/25"],
        ["192.0.2.0/23", "192.0.4.0/24", "fe80::/120"],
    ),
    ([], []),
    (["192.0.2.112", "192.0.2.116/31", "192.0.2.118/31"], ["192.0.2.0/24"]),
    (["192.0.128.0", "192.0.129.0"], ["192.0.128.0/23"]),
]


@pytest.mark.parametrize(("addrs", "want"), MERGE)
def test_cidr_merge_as_opa(addrs, want):
    import json

    assert ev(f"net.cidr_merge({json.dumps(addrs)})") == RegoSet(want)


@pytest.mark.parametrize(
    ("expr", "want"),
    [
        # A bare IPv4 address is its class network (A /8, B /16, C /24) and, merged with
        # nothing, is printed with the address itself: Go's IPNet.String does not mask.
        ('net.cidr_merge(["10.1.2.3"])', RegoSet(["10.1.2.3/8"])),
        ('net.cidr_merge(["172.16.5.4"])', RegoSet(["172.16.5.4/16"])),
        ('net.cidr_merge(["192.0.2.5", "192.0.2.5"])', RegoSet(["192.0.2.0/24"])),
        ('net.cidr_merge({"10.0.0.0/9", "10.128.0.0/9", "11.0.0.0/8"})', RegoSet(["10.0.0.0/7"])),
        # IPv4 written in the ::ffff:0:0/96 block is IPv4 to Go.
        ('net.cidr_contains("10.0.0.0/8", "::ffff:10.1.2.3")', True),
        ('net.cidr_contains("::ffff:10.0.0.0/104", "10.1.2.3")', True),
        ('net.cidr_contains("10.0.0.0/8", "10.0.0.0/9")', True),
        ('net.cidr_contains("10.0.0.0/8", "10.0.0.0/7")', False),
        ('net.cidr_contains("fe80::/64", "fe80::1")', True),
        ('net.cidr_contains("fe80::/64", "10.0.0.1")', False),
        ('net.cidr_intersects("10.0.0.0/8", "10.200.0.0/16")', True),
        ('net.cidr_intersects("10.0.0.0/8", "fe80::/8")', False),
        ('net.cidr_expand("::ffff:1.2.3.4/127")', RegoSet(["1.2.3.4", "1.2.3.5"])),
        ('net.cidr_expand("fe80::/127")', RegoSet(["fe80::", "fe80::1"])),
        ('net.cidr_expand("255.255.255.255/32")', RegoSet(["255.255.255.255"])),
        # Go's ParseCIDR: a decimal prefix length (leading zeros allowed), nothing else.
        ('net.cidr_is_valid("10.0.0.0/08")', True),
        ('net.cidr_is_valid("10.0.0.0/000000000008")', True),
        ('net.cidr_is_valid("10.0.0.0/' + "9" * 5000 + '")', False),
        ('net.cidr_is_valid("10.0.0.0/255.0.0.0")', False),
        ('net.cidr_is_valid("10.0.0.0/33")', False),
        ('net.cidr_is_valid("10.0.0.0")', False),
        ('net.cidr_is_valid("fe80::1%eth0/64")', False),
        ('net.cidr_is_valid("010.0.0.0/8")', False),
        (
            'net.cidr_contains_matches({"a": "10.0.0.0/8"}, ["10.1.1.1", ["11.0.0.1", 2]])',
            RegoSet([["a", 0]]),
        ),
    ],
)
def test_cidr_as_go(expr, want):
    assert ev(expr) == want


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        # The first operand (and both of cidr_intersects, and cidr_expand's) is a network.
        ('net.cidr_contains("10.0.0.1", "10.0.0.1")', "invalid CIDR address: 10.0.0.1"),
        ('net.cidr_intersects("10.0.0.0", "10.0.0.0/8")', "invalid CIDR address: 10.0.0.0"),
        ('net.cidr_intersects("10.0.0.0/8", "10.0.0.0")', "invalid CIDR address: 10.0.0.0"),
        ('net.cidr_expand("10.0.0.1")', "invalid CIDR address: 10.0.0.1"),
        ('net.cidr_contains_matches("10.0.0.1", "10.0.0.1")', "invalid CIDR address"),
        ('net.cidr_contains("10.0.0.0/8", "x")', "not a valid textual representation"),
        ('net.cidr_merge(["2601:600::1"])', "IPv6 invalid: needs prefix length"),
        ('net.cidr_merge(["foo"])', "invalid CIDR address: foo"),
        ("net.cidr_merge([1])", "element must be string"),
    ],
)
def test_cidr_errors(expr, message):
    with pytest.raises(EvalError, match=message):
        ev(expr)


@pytest.mark.parametrize(
    ("path", "want"),
    [
        ("/0", ["b", "c"]),
        ("/2", ["a", "b"]),
        # strconv.ParseInt takes a sign; OPA's toIndex only refuses a leading "0".
        ("/+1", ["a", "c"]),
        ("/-0", ["b", "c"]),
    ],
)
def test_json_patch_index(path, want):
    assert ev(f'json.patch(["a", "b", "c"], [{{"op": "remove", "path": "{path}"}}])') == want


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/01", "leading zeros are not allowed"),
        ("/00", "leading zeros are not allowed"),
        ("/\u00b2", "invalid string for indexing"),  # '²'.isdigit() is True in Python
        ("/\u0661", "invalid string for indexing"),  # ARABIC-INDIC DIGIT ONE
        ("/1e0", "invalid string for indexing"),
        ("/ 1", "invalid string for indexing"),
        ("/99999999999999999999", "invalid string for indexing"),
        ("/3", "does not apply"),
        ("/-", "does not apply"),  # the end of the array: only `add` may use it
        ("/-1", "does not apply"),
    ],
)
def test_json_patch_bad_index_is_a_labelled_error(path, message):
    expr = f'json.patch(["a", "b", "c"], [{{"op": "remove", "path": "{path}"}}])'
    with pytest.raises(EvalError, match=f"json.patch: {message}|json.patch: operation 0"):
        ev(expr)
    assert ev(expr, strict=False) is UNDEFINED


def test_json_patch_removing_the_whole_document_gives_no_value():
    assert ev('json.patch([1], [{"op": "remove", "path": ""}])', strict=False) is UNDEFINED
    assert ev('json.patch([1], [{"op": "replace", "path": "", "value": 2}])') == 2
    removed_then_added = '[{"op": "remove", "path": ""}, {"op": "add", "path": "", "value": 3}]'
    assert ev(f"json.patch([1], {removed_then_added})") == 3
    removed_then_test = '[{"op": "remove", "path": ""}, {"op": "test", "path": "", "value": 3}]'
    assert ev(f"json.patch([1], {removed_then_test})", strict=False) is UNDEFINED


def test_json_patch_appends_with_dash_and_array_paths():
    assert ev('json.patch([1], [{"op": "add", "path": "/-", "value": 2}])') == [1, 2]
    assert ev('json.patch({"a": [1]}, [{"op": "add", "path": ["a", 0], "value": 0}])') == {
        "a": [0, 1]
    }
    with pytest.raises(EvalError, match="invalid number for indexing"):
        ev('json.patch({"a": [1]}, [{"op": "add", "path": ["a", 0.5], "value": 0}])')


@pytest.mark.parametrize(
    "body",
    [
        "p if not { input.a; input.b }",
        "p if input.a or input.b",
        "p if { input.a and input.b }",
        "p if { true }",
    ],
)
def test_rego_v2_is_unsupported_at_its_import(body):
    with pytest.raises(PolicyError) as info:
        load({"t.rego": f"package t\n\n  import rego.v2  # preview\n\n{body}\n"}, {})
    (diag,) = info.value.diagnostics
    assert (diag.line, diag.col) == (3, 3)
    assert diag.message.startswith("unsupported: import rego.v2")


def test_a_syntax_error_before_a_rego_v2_line_is_reported_as_itself():
    src = "package t\n\np := `\nimport rego.v2\n` +\n"
    with pytest.raises(PolicyError) as info:
        load({"t.rego": src}, {})
    assert not info.value.diagnostics[0].message.startswith("unsupported")
