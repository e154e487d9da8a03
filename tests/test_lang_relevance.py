"""Rule groups that cannot concern a call are not computed (``hookgate.lang.relevance``): each
group's facts about the input are tested once per evaluation, and a group none of whose facts
holds has its empty value without running. The answers must be those of the same policy
compiled without the analysis (with coverage: the oracle here) over inputs at the edge of every
fact, with ``with`` overrides of data, input and functions; and the skipped groups' functions
must not be entered."""

import pytest
from lang_support import functions_entered

from hookgate.lang import load
from hookgate.lang.policyset import parse_and_check

POLICY = """package t

import rego.v1

cfg := {"action": "deny"}

ops := {"write": "write", "edit": "edit", "delete": "delete"}

# complete rules: an array comprehension over the input, narrowed by the member's kind
runs := [e | some e in object.get(input, "effects", []); e.kind == "run"]

writes := [{"op": op, "path": e.path} | some e in object.get(input, "effects", []); op := ops[e.kind]]

line := input.line if {
	input.tool_kind == "shell"
	is_string(input.line)
}

# a rule the analysis cannot read (a call's value): always computed, and so is what reads it
words := [w | some w in split(line, " ")]

default line_list := []

line_list := [line] if line

commands := array.concat(array.concat(runs, writes), line_list)

names contains c.op if {
	some c in commands
}

pre if input.event == "pre"

default allowed := false

allowed if {
	some e in input.effects
	e.kind == "allow"
} else := "maybe" if {
	input.maybe
}

# sets reading other groups: lifted emptiness
violations contains sprintf("run %v", [e]) if {
	pre
	cfg.action == "deny"
	some e in runs
}

violations contains "git" if "git" in names

violations contains "counted" if count(runs) + count(writes) > 0

violations contains "inter" if count(names & {"write", "edit"}) > 0

violations contains "raw count" if count(input.items) > 0

violations contains "pushed" if {
	some e in input.effects
	e.kind == "push"
}

violations contains "allowed" if {
	allowed
}

violations contains "commands" if {
	some c in commands
	c == "git"
}

violations contains "words" if {
	pre
	some w in words
	w == "git"
}

violations contains "line" if {
	x := line
	x != ""
}

# a default that counts: count("none") > 0 holds whatever the input
default label := "none"

label := input.label if input.tool_kind == "label"

extra contains "label" if count(label) > 0

# two definitions may conflict (an error): not passed over for a later literal
clash := 1 if input.a

clash := 2 if input.a

clashing contains "clash" if {
	clash
	input.tool_kind == "never"
}

# facts about a rule's members: worked out where the first literal reads the rule, not after
# a literal that may stop the body first
tagged := [c | some c in commands; c.kind == "run"]

violations contains "tagged" if {
	some t in tagged
}

# narrowed again: the members of a group whose own needs are a fact about another group's
# members (tagged: commands of kind run), read for a tool of their own
violations contains "make" if {
	some t in tagged
	t.tool == "make"
}

clash_list := [1] if input.a

clash_list := [2] if input.a

clash_facts := [c | some c in clash_list; c.kind == "x"]

clashing contains "facts" if {
	some c in clash_facts
}

guarded contains "never read" if {
	cfg.action == "ask"
	some c in clash_facts
}

# array.concat of a string: an error, never an empty value
odd := array.concat(label, runs)

deny contains r if {
	cfg.action == "deny"
	some r in violations
}

# with: every group runs when data or a function is replaced; a replaced input is retested
with_runs := x if x := deny with data.t.runs as ["r"]

with_count := x if x := deny with count as 1

with_input := x if x := deny with input as {"event": "pre", "effects": [{"kind": "run"}]}
"""

EFFECTS = [
    None,
    "a string",
    {"kind": "run"},
    [],
    [{"kind": "read"}],
    [{"kind": "run"}],
    [{"kind": "run", "tool": "make"}],
    [{"kind": "run", "tool": "npm"}, {"kind": "read", "tool": "make"}],
    [{"kind": "run", "tool": ["make"]}],
    [{"kind": "write", "path": "/a"}],
    [{"kind": "push"}],
    [{"kind": "allow"}],
    [{"kind": ["run"]}],
    [{"kind": 1}],
    ["run"],
    {"a": {"kind": "edit", "path": "/b"}},
]

INPUTS = [
    {},
    {"event": "pre"},
    {"event": "pre", "tool_kind": "shell", "line": "git status"},
    {"tool_kind": "shell", "line": 3},
    {"tool_kind": "shell"},
    {"maybe": True},
    {"a": True},
    {"a": True, "tool_kind": "never"},
    {"tool_kind": "label", "label": ""},
    {"tool_kind": "label", "label": []},
    {"items": "abc"},
    {"items": ""},
    {"items": []},
    {"items": [0]},
    {"items": 5},
    *({"event": "pre", "effects": e} for e in EFFECTS),
    *({"effects": e, "maybe": 0} for e in EFFECTS),
]

RULES = [
    "deny",
    "extra",
    "clashing",
    "guarded",
    "tagged",
    "violations",
    "names",
    "commands",
    "allowed",
    "writes",
    "line",
    "odd",
    "label",
]


@pytest.fixture(scope="module")
def sets():
    return load({"p.rego": POLICY}), load({"p.rego": POLICY}, coverage=True)


def _answer(ps, rule, doc, package="t", **options):
    try:
        return ps.query(f"data.{package}.{rule}", input=doc, **options)
    except Exception as exc:  # the same error, or the same value
        return type(exc).__name__


def _same_answers(pair, package, rules, doc, **options):
    """Each rule alone, then all of them in one query: the same value or the same error with
    the analysis (the first policy set) as without it (compiled with coverage: no analysis)."""
    analysed, oracle = pair
    for rule in rules:
        assert _answer(analysed, rule, doc, package, **options) == _answer(
            oracle, rule, doc, package, **options
        ), rule
    refs = [f"data.{package}.{rule}" for rule in rules]
    if not options:
        assert analysed.query_many(refs, input=doc) == oracle.query_many(refs, input=doc)


@pytest.mark.parametrize("doc", INPUTS)
@pytest.mark.parametrize("rule", RULES)
def test_answers_equal_those_without_the_analysis(sets, doc, rule):
    analysed, oracle = sets
    assert _answer(analysed, rule, doc) == _answer(oracle, rule, doc)


@pytest.mark.parametrize("doc", INPUTS)
def test_one_query_of_every_rule_answers_as_each_alone(sets, doc):
    # query_many reads the groups the input facts rule out from the cache the facts filled,
    # computes the others in order, and must answer as the unanalysed rules one by one.
    analysed, oracle = sets
    refs = [f"data.t.{rule}" for rule in RULES]
    try:
        together = analysed.query_many(refs, input=doc)
    except Exception as exc:
        together = type(exc).__name__
    alone = [_answer(oracle, rule, doc) for rule in RULES]
    if isinstance(together, str):
        assert together in alone  # the first failing rule's error ends the query
    else:
        assert together == alone


@pytest.mark.parametrize("doc", ["a string", [1], None, 3])
def test_an_input_that_is_not_an_object(sets, doc):
    analysed, oracle = sets
    for rule in RULES:
        assert _answer(analysed, rule, doc) == _answer(oracle, rule, doc)


@pytest.mark.parametrize("rule", ["with_runs", "with_count", "with_input"])
def test_with_overrides(sets, rule):
    analysed, oracle = sets
    want = oracle.query(f"data.t.{rule}", input={})
    assert want  # each override makes the rule produce something for an empty input
    assert analysed.query(f"data.t.{rule}", input={}) == want


def test_groups_that_cannot_concern_the_call_are_not_entered(sets):
    analysed, oracle = sets
    quiet = {"event": "post", "effects": [{"kind": "read"}]}
    entered = functions_entered(analysed, "data.t.deny", quiet)
    # Only the mask is computed; nothing of deny, violations or what they read runs.
    assert entered and all(n.startswith("relevance") for n in entered), entered
    assert len(functions_entered(oracle, "data.t.deny", quiet)) > 10
    # A call the rules concern runs them.
    busy = {"event": "pre", "effects": [{"kind": "run"}]}
    assert len(functions_entered(analysed, "data.t.deny", busy)) > 5
    got = analysed.query("data.t.deny", input=busy)
    assert got == oracle.query("data.t.deny", input=busy)
    assert sorted(got) == ["counted", 'run {"kind": "run"}', "tagged"]


def test_the_default_pack_shared_rules_are_analysed():
    """The rules every guard reads get facts: a change to the pack or the compiler that loses
    them (every decision would compute them again) fails here."""
    from pathlib import Path

    from hookgate.lang.compile import Program
    from hookgate.sources import default_pack_path

    sources = {
        str(p): p.read_text()
        for p in Path(default_pack_path()).glob("*.rego")
        if not p.name.endswith("_test.rego")
    }
    program = Program(parse_and_check(sources))
    assert "relevance" in program.source
    analysed = {line.split(".need")[0] for line in program.out.attached if ".need" in line}
    names = {program.out.group(g): g.name for g in program.tree.groups}
    for rule in (
        "lib.commands",
        "lib.file_effects",
        "lib.git_commands",
        "destructive.violations",
        "force_push.deny",
        "no_verify.violations",
        "main_branch.deny",
        "xpia.effect_texts",
    ):
        assert f"data.hookgate.{rule}" in {names[g] for g in analysed}, rule
    # groups sharing their needs share one test of them: a decision runs each test's code once
    facts = [line.split(" = ")[1] for line in program.out.attached if ".facts = " in line]
    assert len(facts) > len(set(facts)) > 10
    bodies = program.source.split("\ndef ")
    tests = [b.split("\n", 1)[1] for b in bodies if b.split("(", 1)[0] in set(facts)]
    assert len(tests) == len(set(tests)) == len(set(facts))


def test_groups_with_facts_get_their_empty_value_from_the_mask():
    """A group whose needs carry facts about a rule's members (``tagged``: a member of
    ``commands`` of kind "run") is set empty by the mask's function when no atom of its needs
    holds, as one without facts is: no call of its facts test on every reference. When an
    atom holds, its facts decide later, and nothing is set in advance."""
    from hookgate.lang.runtime import Ctx

    ps = load({"p.rego": POLICY})
    groups = {g.name: g for g in ps._tree.groups}
    with_facts = {n for n, g in groups.items() if g.facts is not None}
    assert {"data.t.tagged", "data.t.clash_facts"} <= with_facts
    # A need that holds only when another does is not tested: clashing's definition "facts"
    # needs input.a and clash_facts' fact, its "clash" input.a alone; violations' "tagged"
    # needs commands' atom and a fact, its "commands" that atom alone.
    assert not {"data.t.clashing", "data.t.violations"} & with_facts
    quiet = Ctx({"event": "post", "effects": [{"kind": "read"}]}, ps.data, None, None, 10**6, None)
    groups["data.t.tagged"].relevance(quiet)
    prefilled = {g.name: v for g, v in quiet.cache.items() if getattr(g, "name", "") in with_facts}
    assert set(prefilled) == {"data.t.tagged", "data.t.clash_facts"}
    assert all(len(v) == 0 for v in prefilled.values()), prefilled
    # input.a makes clash_list's atom hold: clash_facts and clashing wait for their fact.
    busy = Ctx({"a": True}, ps.data, None, None, 10**6, None)
    groups["data.t.tagged"].relevance(busy)
    names = {getattr(g, "name", "") for g in busy.cache}
    assert "data.t.tagged" in names
    assert not {"data.t.clash_facts", "data.t.clashing"} & names


def test_a_query_of_many_rules_starts_from_the_cache_the_mask_makes():
    """``query_many`` starts from a copy of one cache made per mask: the cache the mask's
    function makes itself (the fixed values, then the empty values of the groups ruled out),
    never the one an earlier evaluation wrote into, and made again once ``Tree.fixed`` grows."""
    from hookgate.lang.runtime import Ctx

    ps = load({"p.rego": POLICY})
    refs = [f"data.t.{rule}" for rule in RULES]
    ps.query_many(refs, input={})
    relevance = ps._batches[tuple(refs)][2]
    assert relevance is not None
    fixed = ps._fixed_values()
    masks = set()
    for doc in [*INPUTS, "a string", None]:
        want = Ctx(doc, ps.data, None, None, 10**6, None)
        want.cache.update(fixed)
        relevance(want)
        for _ in range(2):  # made, then copied from the one kept
            got = Ctx(doc, ps.data, None, None, 10**6, None)
            got.cache = ps._start(got, relevance, fixed)
            assert got.relevant == want.relevant > 0
            assert got.cache.keys() == want.cache.keys()
            assert all(got.cache[g] is v for g, v in want.cache.items())
            got.cache["written"] = True  # what one evaluation adds is not in the next one's
        masks.add(got.relevant)
    assert len(masks) > 3
    assert set(ps._starts) == masks
    computed = object()  # stands for a memoized rule computed since
    fixed[computed] = "known"
    got = Ctx({}, ps.data, None, None, 10**6, None)
    assert ps._start(got, relevance, fixed)[computed] == "known"
    assert len(ps._starts) == 1


# Tables of base data indexed by an input value (``cfg.fields[input.kind]``, through a rule
# that is another name for base data or not, the key lowered or not): the literal's atom
# reads the table at run time.
KEYED = """package k

import rego.v1

cfg := data.conf.k

found contains v if {
	some f in cfg.fields[input.kind]
	v := object.get(input, "args", {})[f]
}

named contains v if {
	some f in cfg.tools[lower(input.name)].fields
	v := object.get(input, "args", {})[f]
}

direct contains f if {
	some f in data.conf.k.fields[input.kind]
}

held contains "held" if {
	cfg.flags[input.kind]
}

picked := x if {
	x := cfg.fields[input.kind]
}

equal contains "equal" if {
	cfg.names[input.kind] == "yes"
}

# a need the keyed atom shares with another atom, and one it does not: the atom is tested
# only when the other does not hold, for what needs it alone
either contains "either" if input.kind == "shell"

either contains "either" if {
	some f in cfg.shells[input.kind]
}

alone contains "alone" if {
	some f in cfg.shells[input.kind]
}

shared contains "shared" if {
	input.kind == "shell"
	some f in cfg.shells[input.kind]
}

# a member's kind in a keyed table's entry
typed contains e.path if {
	some e in cfg.entries[input.kind]
	e.kind == "run"
}

with_table := x if x := found with data.conf.k.fields as {"zz": ["x"]}
"""

KEYED_DATA = {
    "conf": {
        "k": {
            "fields": {"a": ["x"], "b": [], "c": "str", "d": {"q": "x"}, "shell": ["x"]},
            "tools": {"task": {"fields": ["p"]}, "none": {"fields": []}, "i": {"fields": ["x"]}},
            "flags": {"a": True, "b": False},
            "shells": {"shell": ["x"], "zsh": ["y"], "b": []},
            "entries": {
                "a": [{"kind": "run", "path": "/r"}],
                "b": [{"kind": "read", "path": "/b"}],
            },
            "names": {"a": "yes", "b": "no"},
        }
    }
}

KEYED_RULES = [
    "found",
    "named",
    "direct",
    "held",
    "picked",
    "equal",
    "either",
    "alone",
    "shared",
    "typed",
]

KEYED_INPUTS = [
    {},
    {"args": {"x": "1", "p": "2", "q": "3"}},
    *(
        {"kind": k, "args": {"x": "1", "p": "2"}}
        for k in ("a", "b", "c", "d", "zz", "shell", "zsh", 1, None, ["a"], {"a": 1}, "A")
    ),
    *(
        {"name": n, "args": {"x": "1", "p": "2"}}
        for n in ("Task", "TASK", "task", "None", "İ", "\u0130", "x", 3, [], None, "I")
    ),
    "not an object",
    [1],
]


@pytest.fixture(scope="module")
def keyed():
    return load({"k.rego": KEYED}, KEYED_DATA), load({"k.rego": KEYED}, KEYED_DATA, coverage=True)


@pytest.mark.parametrize("doc", KEYED_INPUTS)
def test_keyed_tables_answer_as_without_the_analysis(keyed, doc):
    _same_answers(keyed, "k", KEYED_RULES, doc)


def test_keyed_tables_under_with(keyed):
    analysed, oracle = keyed
    doc = {"kind": "zz", "args": {"x": "1"}}
    assert sorted(analysed.query("data.k.with_table", input=doc)) == ["1"]
    assert sorted(oracle.query("data.k.with_table", input=doc)) == ["1"]


def _keyed_entered(ps, rule, doc):
    return {n for n in functions_entered(ps, f"data.k.{rule}", doc) if not n.startswith("rel")}


def test_keyed_tables_skip_what_the_key_does_not_name(keyed):
    analysed, oracle = keyed
    for rule, doc, want in (
        ("found", {"kind": "zz", "args": {"x": "1"}}, set()),
        ("found", {"kind": "b", "args": {"x": "1"}}, set()),  # an empty entry
        ("named", {"name": "Write", "args": {"p": "1"}}, set()),
        ("named", {"name": "none", "args": {"p": "1"}}, set()),
        ("held", {"kind": "zz"}, set()),
        ("alone", {"kind": "zz"}, set()),
        ("typed", {"kind": "b"}, set()),  # an entry, but none of its members of kind "run"
        # the other atom of a need holds: the keyed atom is not tested, and counts as holding
        # only for needs naming that other atom too
        ("alone", {"kind": "shell"}, {"alone"}),
    ):
        assert analysed.query(f"data.k.{rule}", input=doc) == oracle.query(
            f"data.k.{rule}", input=doc
        )
        assert sorted(analysed.query(f"data.k.{rule}", input=doc)) == sorted(want)
        if not want:
            assert not _keyed_entered(analysed, rule, doc), (rule, doc)
            assert _keyed_entered(oracle, rule, doc), (rule, doc)
    # Computed when the key names an entry with members, lowered as Rego lowers.
    assert sorted(analysed.query("data.k.named", input={"name": "TASK", "args": {"p": "2"}})) == [
        "2"
    ]
    assert _keyed_entered(analysed, "found", {"kind": "a", "args": {"x": "1"}})


def _keyed_atom(line: str) -> bool:
    """The mask's line of the atom ``some f in cfg.shells[input.kind]`` alone (``shared``
    reads it with ``input.kind == "shell"`` as one atom)."""
    return "'shells'" in line and "== 'shell'" not in line


def test_keyed_atom_is_not_tested_when_an_atom_every_need_shares_holds():
    """``shared`` and ``either`` name the keyed atom with ``kind == "shell"``, ``alone`` names it
    alone: with ``kind`` "shell" the keyed test runs only if ``alone`` is in the program."""
    from hookgate.lang.compile import Program

    def mask_source(source: str) -> str:
        program = Program(parse_and_check({"k.rego": source}))
        return program.source.split("def relevance", 1)[1].split("\nG", 1)[0]

    alone = 'alone contains "alone" if {\n\tsome f in cfg.shells[input.kind]\n}\n'
    assert alone in KEYED
    without_alone = KEYED.replace(alone, "")
    guarded = [line for line in mask_source(without_alone).splitlines() if _keyed_atom(line)]
    assert guarded and all(line.strip().startswith("if r & ") for line in guarded), guarded
    plain = [line for line in mask_source(KEYED).splitlines() if _keyed_atom(line)]
    assert plain and not any(line.strip().startswith("if r & ") for line in plain), plain


# ``x in {"a", "b"}`` (a literal set or array of strings): of the input, of a rule, and of a
# member after ``some e in s`` (a fact about the members' strings).
ONE_OF = """package o

import rego.v1

kind := input.kind if input.tool == "t"

direct contains "direct" if input.kind in {"write", "edit"}

listed contains "listed" if input.kind in ["write", "edit"]

through contains "through" if kind in {"write", "edit"}

empty contains "empty" if input.kind in set()

members contains e.path if {
	some e in object.get(input, "effects", [])
	e.kind in {"write", "edit"}
}

made := [e | some e in object.get(input, "effects", []); e.kind in {"delete", "move"}]

later contains "later" if {
	some e in made
}

# not constant strings: not read, always computed
mixed contains "mixed" if input.kind in {"write", 1}
"""

ONE_OF_RULES = ["direct", "listed", "through", "empty", "members", "made", "later", "mixed"]

ONE_OF_INPUTS = [
    {},
    *({"kind": k} for k in ("write", "edit", "delete", "Write", 1, None, ["write"], {"write": 1})),
    {"tool": "t", "kind": "edit"},
    {"tool": "t", "kind": "read"},
    *(
        {"effects": e}
        for e in (
            [],
            "write",
            {"a": {"kind": "write", "path": "/a"}},
            [{"kind": "write", "path": "/w"}],
            [{"kind": "read", "path": "/r"}, {"kind": "move", "path": "/m"}],
            [{"kind": ["write"]}, {"kind": 1}],
            [{"path": "/p"}],
        )
    ),
    "not an object",
]


@pytest.fixture(scope="module")
def one_of():
    return load({"o.rego": ONE_OF}), load({"o.rego": ONE_OF}, coverage=True)


@pytest.mark.parametrize("doc", ONE_OF_INPUTS)
def test_literal_sets_answer_as_without_the_analysis(one_of, doc):
    _same_answers(one_of, "o", ONE_OF_RULES, doc)


@pytest.mark.parametrize(
    ("rule", "doc"),
    [
        ("direct", {"kind": "read"}),
        ("listed", {"kind": "Write"}),
        ("through", {"kind": "write"}),
        ("empty", {"kind": "write"}),
        ("members", {"effects": [{"kind": "read", "path": "/r"}]}),
        ("later", {"effects": [{"kind": "write", "path": "/w"}]}),
    ],
)
def test_literal_sets_skip_what_they_cannot_concern(one_of, rule, doc):
    analysed, oracle = one_of
    assert len(analysed.query(f"data.o.{rule}", input=doc)) == 0
    entered = functions_entered(analysed, f"data.o.{rule}", doc)
    assert all(n.startswith("relevance") for n in entered), entered
    assert any(
        not n.startswith("relevance") for n in functions_entered(oracle, f"data.o.{rule}", doc)
    )


def test_literal_sets_run_what_they_concern(one_of):
    analysed, _ = one_of
    assert sorted(analysed.query("data.o.direct", input={"kind": "edit"})) == ["direct"]
    assert sorted(analysed.query("data.o.through", input={"tool": "t", "kind": "edit"})) == [
        "through"
    ]
    got = analysed.query("data.o.members", input={"effects": [{"kind": "edit", "path": "/e"}]})
    assert sorted(got) == ["/e"]
    got = analysed.query("data.o.later", input={"effects": [{"kind": "move", "path": "/m"}]})
    assert sorted(got) == ["later"]
    mixed = functions_entered(analysed, "data.o.mixed", {"kind": "read"})
    assert any(not n.startswith("relevance") for n in mixed)


# Tests of the input read as one atom (``input.kind == "shell"``, ``is_string``, then a length
# compared), and a count compared first, which may be an error (``count(5)``).
LONG = """package l

import rego.v1

limit := 5

long contains n if {
	input.kind == "shell"
	is_string(input.cmd)
	count(input.cmd) > limit
	n := count(input.cmd)
}

counted contains "counted" if {
	count(input.items) > 2
}

typed contains "typed" if {
	input.kind == "shell"
	is_string(input.cmd)
}
"""

LONG_RULES = ["long", "counted", "typed"]

LONG_INPUTS = [
    {},
    *(
        {"kind": kind, "cmd": cmd}
        for kind in ("shell", "read")
        for cmd in ("abc", "abcdef", "ééééé", "ééééééé", "\U0001d518" * 6, 5, ["a"] * 6, None)
    ),
    {"kind": "shell"},
    *({"items": items} for items in ([1, 2], [1, 2, 3], "ab", "abcd", 5, {"a": 1}, None, True)),
    "not an object",
]


@pytest.fixture(scope="module")
def long():
    return load({"l.rego": LONG}), load({"l.rego": LONG}, coverage=True)


@pytest.mark.parametrize("doc", LONG_INPUTS)
def test_lengths_answer_as_without_the_analysis(long, doc):
    _same_answers(long, "l", LONG_RULES, doc)
    # count(5) is an error with strict builtin errors: raised by both, or neither
    _same_answers(long, "l", LONG_RULES, doc, strict_builtin_errors=True)


@pytest.mark.parametrize(
    ("rule", "doc"),
    [
        ("long", {"kind": "shell", "cmd": "abc"}),
        ("long", {"kind": "read", "cmd": "abcdefgh"}),
        ("long", {"kind": "shell", "cmd": ["a"] * 9}),
        ("counted", {"items": [1, 2]}),
        ("counted", {"items": "ab"}),
    ],
)
def test_lengths_skip_what_they_cannot_concern(long, rule, doc):
    analysed, oracle = long
    assert len(analysed.query(f"data.l.{rule}", input=doc)) == 0
    entered = functions_entered(analysed, f"data.l.{rule}", doc)
    assert all(n.startswith("relevance") for n in entered), entered
    assert any(
        not n.startswith("relevance") for n in functions_entered(oracle, f"data.l.{rule}", doc)
    )


def test_lengths_run_what_they_concern(long):
    analysed, _ = long
    assert sorted(analysed.query("data.l.long", input={"kind": "shell", "cmd": "abcdef"})) == [6]
    assert sorted(analysed.query("data.l.counted", input={"items": [1, 2, 3]})) == ["counted"]
    # a count that may be an error is computed
    entered = functions_entered(analysed, "data.l.counted", {"items": 5})
    assert any(not n.startswith("relevance") for n in entered)


@pytest.mark.parametrize(
    "members",
    [
        [{"kind": "run"}, {"kind": 1}, {"other": "x"}, "run", 3, None, ["kind"], {"kind": "edit"}],
        {"a": {"kind": "write"}, "b": {"kind": ["x"]}},
        [],
        "not a collection",
    ],
)
@pytest.mark.parametrize("keys", [("kind",), (0,), ("kind", "x"), ()])
def test_member_strings_one_key_inline_reads_as_index_path(members, keys):
    # member_strings reads a one-key fact inline; the strings must be those index_path finds.
    from hookgate.lang.documents import member_strings
    from hookgate.lang.runtime import index_path
    from hookgate.lang.values import RegoSet

    for v in (members, RegoSet(members) if type(members) is list else members):
        t = type(v)
        all_members = v.values() if t is dict else v if t in (list, RegoSet) else ()
        expected = {x for e in all_members if type(x := index_path(e, keys)) is str}
        assert member_strings(v, keys) == expected


def test_the_mask_reads_each_input_path_once():
    """The mask's function reads ``input`` and each path of it that several atoms (or longer
    paths) go through once, into a local: ``input.tool_input`` once for ``command``, ``skill``
    and ``name``. The answers stay those without the analysis (the tests above)."""
    import re
    from pathlib import Path

    from hookgate.lang.codegen import index_expr
    from hookgate.lang.compile import Program
    from hookgate.lang.relevance import _prefixes
    from hookgate.sources import default_pack_path

    read = index_expr("ctx.input", ("tool_input", "command"))
    assert _prefixes(read) == [index_expr("ctx.input", ("tool_input",)), "ctx.input"]
    assert _prefixes("index_path(ctx.input, ('a', 'b', 'c', 'd'))") == []
    sources = {
        str(p): p.read_text()
        for p in Path(default_pack_path()).glob("*.rego")
        if not p.name.endswith("_test.rego")
    }
    source = Program(parse_and_check(sources)).source
    mask = re.search(r"^def relevance\d+_mask\(ctx\):\n(?:    .*\n)+", source, re.M).group(0)
    assert mask.count("ctx.input") == 1
    assert mask.count("'tool_input'") == 2  # the one read: its key, and index's


def test_a_group_its_facts_rule_out_is_cached_empty(sets):
    """A group whose atom holds but whose facts do not (``tagged``: commands, none of kind
    "run") gets its empty value into the evaluation's cache, so the next reference reads it
    there: its facts are tested once, and the answer is the one without the analysis."""
    from hookgate.lang.runtime import IN_PROGRESS, Ctx

    ps = load({"p.rego": POLICY})
    plain = sets[1]  # compiled with coverage: no analysis
    tagged = next(g for g in ps._tree.groups if g.name == "data.t.tagged")
    doc = {"event": "pre", "effects": [{"kind": "write", "path": "/a"}]}
    tested = []
    facts = tagged.facts
    tagged.facts = lambda ctx, r: tested.append(r) or facts(ctx, r)
    try:
        ctx = Ctx(doc, ps.data, None, None, 10**6, None)
        assert tagged.value(ctx) == [] and len(tested) == 1
        # what a reference in the generated code reads first
        assert ctx.cache.get(tagged, IN_PROGRESS) is tagged.empty
        assert ps.query("data.t.violations", input=doc) == plain.query(
            "data.t.violations", input=doc
        )
    finally:
        tagged.facts = facts


CHAINED = """package c

import rego.v1

base := [e | some e in input.effects]

runs := [e | some e in base; e.kind == "run"]

makes contains "make" if {
	some r in runs
	r.tool == "make"
}
"""


def test_a_fact_about_a_rule_s_members_holds_with_the_facts_of_its_own_needs():
    """``makes`` reads the members of ``runs``, whose own need is a fact about ``base``'s
    members (one of kind "run"): ``makes`` runs only when both facts hold, the one about
    ``base`` tested first (cheaper, shared), then the one about ``runs`` (a tool "make")."""
    ps = load({"c.rego": CHAINED})
    plain = load({"c.rego": CHAINED}, coverage=True)  # coverage: no analysis
    makes = next(g for g in ps._tree.groups if g.name == "data.c.makes")
    body = {f.__name__ for f in makes.defs}
    for tool, kind, runs in (("npm", "run", False), ("make", "read", False), ("make", "run", True)):
        doc = {"effects": [{"kind": kind, "tool": tool}]}
        entered = functions_entered(ps, "data.c.makes", doc)
        assert bool(body & entered) is runs, doc
        assert ps.query("data.c.makes", input=doc) == plain.query("data.c.makes", input=doc)


def test_a_need_that_holds_only_when_another_does_is_left_out():
    from hookgate.lang.relevance import _merged

    a, b = ("G1", ("kind",), frozenset({"x"})), ("G2", ("name",), frozenset({"git"}))
    needs = ((4, (a,)), (4, (b, a)), (8, (a, b)), (8, (b, a)), (2, None), (2, (b,)))
    # (4, (b, a)) merges with (8, (b, a)); (8, (a, b)) holds only when it does, (2, (b,)) only
    # when the need without facts does
    assert _merged(needs) == ((2, None), (4, (a,)), (12, (b, a)))
    # the same facts in another order, under the same atoms: the first is kept
    assert _merged(((4, (a, b)), (4, (b, a)))) == ((4, (a, b)),)
