"""Expansion as hookgate's shell model reports it, against what real bash does.

Generated lines use only safe printing commands: assignments, ``set --``, arrays and probes
``printf '%s\\n' @@ WORD…``. bash runs the line (an empty environment, so only what the line sets
exists) and prints each probe's expanded words one per line after its ``@@`` marker;
``shell.commands`` must report the same argv for each probe.

Each kind of word is a *construct*. ``GAPS`` names the constructs today's model does not expand
yet: lines are generated only from the others, and ``test_each_gap_is_still_a_gap`` fails as soon
as the model handles one, so that it moves out of ``GAPS`` and into the property test.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookgate.builtins.shell import commands

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="bash is not installed")

SAFE = "abcxyz019._-"
VARS = ("v1", "v2", "v3")

# Constructs the model does not expand yet (issue 16 part 1): generated lines avoid them.
GAPS: dict[str, str] = {}
SUPPORTED = (
    "positional_parameters",
    "arrays",
    "parameter_operators",
    "variable_inside_word",
    "quoted_command_substitution",
    "script_arguments",
    "printf_substitution",
    "decoded_substitution",
    "literal",
    "single_quoted",
    "double_quoted",
    "escaped",
    "ansi_c",
    "quote_concatenation",
    "variable",
    "command_substitution",
    "brace_expansion",
    "filters",
    "arithmetic",
)
FILTERS = (
    "tr a-z A-Z",
    "tr -d ab",
    "sed s/a/X/g",
    "sed -E 's/(.)$/<&>/'",
    "rev",
    "head -n 1",
    "tail -1",
    "cut -c2-",
    "awk '{print $1}'",
    "sort -r",
)

OPERATORS = (
    ":-d",
    "-d",
    ":+alt",
    "+alt",
    ":=d",
    "#?",
    "##*.",
    "#a",
    "%?",
    "%%.*",
    "%[0-9]",
    "/a/b",
    "//a/b",
    "/#a/b",
    "/%a/b",
    "//[xyz]/-",
    "/#/-",
    "/%/-",
    "/#/--",
    "//a/-f",
    "/#?/-",
    ":1:2",
    ":1",
    ": -2",
    ":0:-1",
    "^^",
    ",,",
    "^",
    ":-$v1",
    ':+"q r"',
)
POSITIONAL = ('"$@"', "$1", "$2", "$#", "$*", '"$*"', "${@:2}", '"${1:-z}"', "x$1y", '"$3"')
PRINTF_FORMATS = (
    "'%s-'",
    "'%s%s'",
    "'[%5s]'",
    "'%-4s|'",
    "'%.2s'",
    "'%b'",
    "'\\x41%s'",
    "-- '%s\\n'",
    "'%c%%'",
    "'a\\101b'",
)
TEXT = st.text(SAFE, min_size=1, max_size=4)
SPACED = st.text(SAFE + " ", min_size=1, max_size=6)


@st.composite
def word(draw, construct: str, assigned: list[str]) -> str:
    if construct in ("variable", "variable_inside_word", "parameter_operators") and not assigned:
        construct = "literal"
    v = draw(st.sampled_from(assigned)) if assigned else "v1"
    if construct == "literal":
        return draw(TEXT)
    if construct == "single_quoted":
        return f"'{draw(SPACED)}'"
    if construct == "double_quoted":
        return f'"{draw(SPACED)}"'
    if construct == "escaped":
        return f"{draw(TEXT)}\\ {draw(TEXT)}"
    if construct == "ansi_c":
        return f"$'{draw(TEXT)}\\t{draw(TEXT)}'"
    if construct == "quote_concatenation":
        return f"{draw(TEXT)}'{draw(SPACED)}'\"{draw(TEXT)}\""
    if construct == "variable":
        return draw(st.sampled_from([f"${v}", f'"${v}"', f"${{{v}}}"]))
    if construct == "command_substitution":
        return f"$(echo {draw(TEXT)} {draw(TEXT)})"
    if construct == "quoted_command_substitution":
        return f'"$(echo {draw(TEXT)} {draw(TEXT)})"'
    if construct == "variable_inside_word":
        return draw(st.sampled_from([f'x"${v}"y', f"${v}${v}", f"{draw(TEXT)}${{{v}}}"]))
    if construct == "brace_expansion":
        return draw(st.sampled_from(["{a,b}", "x{1,2}y", "{1..3}", "{a,b}{c,d}"]))
    if construct in ("positional_parameters", "script_arguments"):
        return draw(st.sampled_from(POSITIONAL))
    if construct == "printf_substitution":
        fmt = draw(st.sampled_from(PRINTF_FORMATS))
        args = " ".join(draw(st.lists(TEXT, max_size=3)))
        return draw(st.sampled_from(["$(printf {} {})", '"$(printf {} {})"'])).format(fmt, args)
    if construct == "decoded_substitution":
        text = draw(SPACED).encode()
        encoded = draw(
            st.sampled_from(
                [
                    f"echo {base64.b64encode(text).decode()} | base64 -d",
                    f"base64 --decode <<< {base64.b64encode(text).decode()}",
                    f"echo {text.hex()} | xxd -r -p",
                ]
            )
        )
        return draw(st.sampled_from(["$({})", '"$({})"'])).format(encoded)
    if construct == "arithmetic":
        op = draw(st.sampled_from(["+", "-", "*", "/", "%", "<<", ">>", "**", "==", "<", "&", "|"]))
        a = draw(st.integers(-99, 99))
        b = draw(st.integers(0, 5) if op in ("<<", ">>", "**") else st.integers(-9, 9))
        b = b or 1  # no division by zero
        form = draw(st.sampled_from(["$(({} {} {}))", '"$(( ({}){}({}) ))"', "x$(({}{}{}))"]))
        return form.format(a, op, b)
    if construct == "filters":
        chain = " | ".join(draw(st.lists(st.sampled_from(FILTERS), min_size=1, max_size=2)))
        form = draw(st.sampled_from(["$(printf '%s\\n' {} {} | {})", '"$(echo {} {} | {})"']))
        return form.format(draw(TEXT), draw(TEXT), chain)
    if construct == "arrays":
        return draw(
            st.sampled_from(
                [
                    '"${a[@]}"',
                    "${a[1]}",
                    "${#a[@]}",
                    "${a[*]}",
                    '"${a[*]}"',
                    "${a[-1]}",
                    '"${a[@]:1}"',
                    '"${a[@]/a/b}"',
                    "${a[@]/#/-}",
                    "x${a[0]}y",
                    "$a",
                    '"$a"',
                    "${a}",
                ]
            )
        )
    if construct == "parameter_operators":
        op = draw(st.sampled_from(OPERATORS))
        form = draw(st.sampled_from(["{}", '"{}"', "x{}y"]))
        return form.format(draw(st.sampled_from([f"${{{v}{op}}}", f"${{#{v}}}"])))
    raise AssertionError(construct)


@st.composite
def line(draw, constructs: tuple[str, ...]) -> str:
    statements: list[str] = []
    assigned: list[str] = []
    for name in draw(st.lists(st.sampled_from(VARS), max_size=3)):
        value = draw(
            st.one_of(TEXT, SPACED.map(lambda s: f"'{s}'"), SPACED.map(lambda s: f'"{s}"'))
        )
        statements.append(f"{name}={value}")
        assigned.append(name)
    if "positional_parameters" in constructs:
        statements.append("set -- " + " ".join(draw(st.lists(TEXT, min_size=1, max_size=3))))
    if "arrays" in constructs:
        statements.append("a=(" + " ".join(draw(st.lists(TEXT, min_size=1, max_size=3))) + ")")
    for _ in range(draw(st.integers(1, 2))):
        words = [
            draw(word(draw(st.sampled_from(constructs)), assigned))
            for _ in range(draw(st.integers(1, 4)))
        ]
        statements.append("printf '%s\\n' @@ " + " ".join(words))
    if "script_arguments" in constructs:
        # bash -c 'script' arg0 args…: $0, $1, "$@" are the words after the script
        words = " ".join(draw(st.lists(st.sampled_from(POSITIONAL + ("$0",)), min_size=1)))
        args = " ".join(draw(st.lists(TEXT, min_size=1, max_size=4)))
        statements.append(f"bash -c 'printf \"%s\\n\" @@ {words}' {args}")
    return draw(st.sampled_from(["; ", "\n", " && "])).join(statements)


def bash_probes(text: str) -> list[list[str]]:
    run = subprocess.run(
        [BASH, "--norc", "--noprofile", "-c", text],
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert run.returncode == 0, run.stderr
    probes: list[list[str]] = []
    for out in run.stdout.split("\n")[:-1]:
        if out == "@@":
            probes.append([])
        else:
            probes[-1].append(out)
    return probes


def model_probes(text: str) -> list[list[str]]:
    # as printf '%s\n' prints them: a word holding a newline is two lines
    return [
        [line for word in c["argv"][3:] for line in word.split("\n")]
        for c in commands(text)
        if c["name"] == "printf" and c["argv"][1:3] == ["%s\\n", "@@"]
    ]


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_expansion_agrees_with_bash(data):
    text = data.draw(line(SUPPORTED))
    assert model_probes(text) == bash_probes(text)


GAP_SAMPLES: dict[str, str] = {}


def test_gaps_and_samples_match():
    assert set(GAP_SAMPLES) == set(GAPS)
    assert not set(GAPS) & set(SUPPORTED)


@pytest.mark.parametrize("gap", sorted(GAPS))
def test_each_gap_is_still_a_gap(gap):
    text = GAP_SAMPLES[gap]
    assert model_probes(text) != bash_probes(text), (
        f"the model now expands {gap} ({GAPS[gap]}): move it from GAPS to SUPPORTED"
    )


# Aliases (bash expands them with expand_aliases, from the next line on), definitions made by
# eval, and printf -v: each line's probes as bash prints them.
STATE_LINES = (
    "shopt -s expand_aliases\nalias P=\"printf '%s\\n' @@ \" f='-f o'\nP f",
    "shopt -s expand_aliases\nalias P=\"printf '%s\\n' @@ \" f='-f o'\nP 'f' \\f",
    "shopt -s expand_aliases\nalias P=\"printf '%s\\n' @@\" f='-f o'\nP f",
    "shopt -s expand_aliases\nalias P=\"printf '%s\\n' @@ \" Q='x ' f=-f\nP Q f Q",
    "shopt -s expand_aliases\nalias P=\"printf '%s\\n' @@ \" Q='x ' R='Q ' S=Q\nP R Q -f",
    "shopt -s expand_aliases\nalias P=\"printf '%s\\n' @@ \" Q='x ' R='Q ' S=Q\nP S Q -f",
    "shopt -s expand_aliases\nalias P=\"printf '%s\\n' @@ \" Q='x ' R='Q ' S=Q\nP R R",
    "shopt -s expand_aliases\neval \"alias P='printf %s\\\\\\\\n @@ -f'\"\nP o",
    "eval 'x=-f'; printf '%s\\n' @@ $x",
    "printf -v x -- '-%s' f; printf '%s\\n' @@ $x",
    "printf -vx '%s-%s' a b; printf '%s\\n' @@ \"$x\" x$x",
    "x=1; printf -v x '%s' 'a b'; printf '%s\\n' @@ $x",
)


@pytest.mark.parametrize("text", STATE_LINES)
def test_aliases_eval_and_printf_v_agree_with_bash(text):
    probes = bash_probes(text)
    assert probes and model_probes(text) == probes


# -- focused cases: what a guard sees for each construct -----------------------------------------


def argvs(text: str, name: str) -> list[list[str]]:
    return [c["argv"] for c in commands(text) if c["name"] == name]


@pytest.mark.parametrize(
    ("text", "name", "argv"),
    [
        ('set -- --force; git push "$@" origin', "git", ["git", "push", "--force", "origin"]),
        ("set -- a -f; shift; git push $1", "git", ["git", "push", "-f"]),
        ("bash -c 'git push \"$1\" o' _ -f", "git", ["git", "push", "-f", "o"]),
        ("bash -c '$0 -rf \"$@\"' rm /etc /usr", "rm", ["rm", "-rf", "/etc", "/usr"]),
        ('a=(-f "o r"); git push "${a[@]}"', "git", ["git", "push", "-f", "o r"]),
        ("a=(x -f); git push ${a[1]} ${a[-1]}", "git", ["git", "push", "-f", "-f"]),
        ("a=(x); a+=(-f); git push ${a[@]:1}", "git", ["git", "push", "-f"]),
        ("x=1; git push ${x:+--force}", "git", ["git", "push", "--force"]),
        ("v=--FORCE; git push ${v,,}", "git", ["git", "push", "--force"]),
        ("v=xx-fyy; git push ${v:2:2}", "git", ["git", "push", "-f"]),
        ("v=x--force; git push ${v#x} ${v##*x}", "git", ["git", "push", "--force", "--force"]),
        ("v=--forcez.t; git push ${v%.*} ${v%%z*}", "git", ["git", "push", "--forcez", "--force"]),
        ("v=--farce; git push ${v/a/o} ${v//[a]/o}", "git", ["git", "push", "--force", "--force"]),
        ("x=ce; git push --for${x}", "git", ["git", "push", "--force"]),
        ("x=r; ${x}m -rf /", "rm", ["rm", "-rf", "/"]),
        ("n=2; git push -j$((n*3)) origin", "git", ["git", "push", "-j6", "origin"]),
        ("git push $(printf -- '-%s' f)", "git", ["git", "push", "-f"]),
        ("git push \"$(printf '%s%s' -- -force)\"", "git", ["git", "push", "---force"]),
        ("$(printf '\\x72\\x6d') -rf /", "rm", ["rm", "-rf", "/"]),
        ("printf '%s\\n' 'git push -f' | sh", "git", ["git", "push", "-f"]),
        ("echo Z2l0IHB1c2ggLWY= | base64 -d | bash", "git", ["git", "push", "-f"]),
        ('eval "$(base64 --decode <<< Z2l0IHB1c2ggLWY=)"', "git", ["git", "push", "-f"]),
        ("echo 726d202d7266202f | xxd -r -p | sh", "rm", ["rm", "-rf", "/"]),
        ("printf -- '-f\\0o\\0' | xargs -0 git push", "git", ["git", "push", "-f", "o"]),
        ("xargs -n 1 rm -rf <<< '/a /b'", "rm", ["rm", "-rf", "/b"]),
        ("printf 'a\\nb\\n' | xargs -I{} rm -rf /{}", "rm", ["rm", "-rf", "/b"]),
        (
            "shopt -s expand_aliases\nalias p='git push -f'\np origin",
            "git",
            ["git", "push", "-f", "origin"],
        ),
        ("w=; v=${w:=-f}; git push $w", "git", ["git", "push", "-f"]),
        ('f() { git push "$@" o; }; f -f', "git", ["git", "push", "-f", "o"]),
        ('function g { rm -rf "$1"; }\ng /etc', "rm", ["rm", "-rf", "/etc"]),
        ('function g() ( rm "$2" "$1" ); g / -rf', "rm", ["rm", "-rf", "/"]),
        (
            "cat > lib.sh <<'EOF'\nf() { git push \"$@\"; }\nEOF\n. lib.sh; f -f",
            "git",
            ["git", "push", "-f"],
        ),
    ],
)
def test_each_construct_is_expanded(text, name, argv):
    assert argv in argvs(text, name), argvs(text, name)


@pytest.mark.parametrize(
    ("text", "name", "word", "kind"),
    [
        ("git push $F origin", "git", "$F", "unknown-variable"),
        ("git push ${F:-x} origin", "git", "${F:-x}", "unknown-variable"),
        ("git push ${w:=-f} origin", "git", "${w:=-f}", "unknown-variable"),
        ('git push "$1" origin', "git", "$1", "unknown-variable"),  # the agent shell's own
        ("git push $(cat opts) origin", "git", "$(cat opts)", "unknown-file"),
        ("git push $(curl -s x) origin", "git", "$(curl -s x)", "unknown-output"),
        ("git push -j$((N+2))", "git", "-j$((N+2))", "unknown-number"),
        ("git push -j$((1/0))", "git", "-j$((1/0))", "unknown-number"),
        ("i=1; git push -j$((i++))", "git", "-j$((i++))", "unknown-number"),
        ("read F; git push $F", "git", "$F", "unknown-variable"),
        ("F=-f; read F; git push $F", "git", "$F", "unknown-variable"),
        ("for F in $(ls); do git push $F; done", "git", "$F", "unknown-variable"),
        # a nameref reads and writes the variable it names: not followed, so unknown
        ("declare -n F=x; x=-f; git push $F", "git", "$F", "unknown-variable"),
        ("x=a; declare -n r=x; x=b; r=-f; git push $x", "git", "$x", "unknown-variable"),
    ],
)
def test_what_the_line_does_not_show_stays_unknown(text, name, word, kind):
    [cmd] = [c for c in commands(text) if c["name"] == name]
    assert (word, kind) in zip(cmd["argv"], cmd["kinds"], strict=True), cmd


def test_unset_is_empty():
    assert ["rm", "-rf", "/"] in argvs("X=build; unset X; rm -rf $X/", "rm")


@pytest.mark.parametrize(
    "text",
    [
        "v=-f; " + "v=$v$v$v$v; " * 12 + "echo $v",  # each use copies: bounded in all
        "v=" + "x" * 2000 + "; echo ${v//?*x/y}",  # a pattern operator on a long value
    ],
)
def test_expansions_are_bounded(text):
    from hookgate.lang.errors import LimitError
    from hookgate.shell.analysis import analyse

    with pytest.raises(LimitError):
        analyse(text)


# -- part 7: a force flag an expansion makes is denied, never rewritten -------------------------

SETUP = "a=(-f o); v=--force; w=1; set -- -f; "
# words whose expansion (with SETUP) holds a force flag: nothing in the text to edit
EXPANDED_FORCE = (
    '"${a[@]}"',
    "${a[0]}",
    "${v:-x}",
    "${v/x/y}",
    "${w:+--force}",
    '"$@"',
    "$1",
    "$(printf -- '%s' -f)",
    "$(echo LWY= | base64 -d)",
    "--for${v:5:2}",
)
LITERAL = ("-f", "--force", "-fu", "-u", "origin", "main", "'a b'", "$HOME")


@pytest.fixture(scope="module")
def engine():
    from hookgate.engine import Engine
    from hookgate.sources import default_pack_path

    return Engine.from_paths([default_pack_path()])


def decide(engine, command: str):
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": "/tmp",
        "session_id": "t",
    }
    return engine.evaluate(payload, host="claude")


@settings(max_examples=80, deadline=None)
@given(
    literal=st.lists(st.sampled_from(LITERAL), max_size=4),
    expanded=st.lists(st.sampled_from(EXPANDED_FORCE), max_size=2),
)
def test_a_rewrite_only_removes_force_flags_written_in_the_line(engine, literal, expanded):
    words = literal + expanded
    line = SETUP + "git push " + " ".join(words)
    decision = decide(engine, line)
    if expanded or "$HOME" in literal:
        # a word the line does not show may be --force, +main or :main: nothing to rewrite
        assert decision.outcome == "deny", (line, decision.outcome)
        return
    if decision.outcome != "rewrite":
        assert not {"-f", "--force", "-fu"} & set(literal), (line, decision.outcome)
        return
    result = decision.updated_input["command"]
    chars = iter(line)
    assert all(ch in chars for ch in result)  # only deletions
    [git] = [c for c in commands(result) if c["name"] == "git"]
    assert not {"-f", "--force", "-fu"} & set(git["argv"])
    kept = [w for w in git["argv"][2:]]
    assert kept == [
        {"-fu": "-u", "'a b'": "a b"}.get(w, w) for w in literal if w not in ("-f", "--force")
    ]


# -- file name patterns, matched on the disk where the command runs -------------------------------


@pytest.fixture
def project(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("")
    (tmp_path / "src" / "b.py").write_text("")
    return tmp_path


def globbed(text: str, cwd) -> list[list[str]]:
    from hookgate.builtins.shell import commands_with

    return [c["argv"] for c in commands_with(text, {"cwd": str(cwd)}) if c["name"]]


@pytest.mark.parametrize(
    "text",
    [
        "echo .??* src/*.py",
        "echo src/[ab].py '*' x*",
        "cd src && echo *.py",
        "echo */",
        "echo .*",
        "echo */a.py */missing.py",  # a literal last part is listed only where it exists
        "echo */a.py/ src/*/x",
        "x='src/*.py'; echo $x \"$x\" s$x",  # an unquoted expansion's pattern is matched too
        "y='.g?t'; echo $y/ ${y}x",
    ],
)
def test_patterns_match_what_bash_matches(project, text):
    run = subprocess.run(
        [BASH, "--norc", "-c", text.replace("echo", "printf '%s\\n'")],
        cwd=project,
        capture_output=True,
        text=True,
    )
    assert globbed(text, project)[-1][1:] == run.stdout.split("\n")[:-1]


def test_a_pattern_is_matched_against_the_disk_as_it_is_at_each_call(project):
    """A long-lived process (the server, the warm process, a benchmark) asks about the same line
    again after the disk changed: the analysis, kept by line, must not keep an old match. A line
    without a pattern is still kept (the same answer, read once)."""
    from hookgate.shell.analysis import _ANALYSED, analyse

    assert globbed("rm -f src/*.py", project)[-1] == ["rm", "-f", "src/a.py", "src/b.py"]
    (project / "src" / "c.py").write_text("")
    assert globbed("rm -f src/*.py", project)[-1] == ["rm", "-f", *(f"src/{n}.py" for n in "abc")]
    (project / "src" / "a.py").unlink()
    [rm] = analyse("cd src && rm ?.py", None, str(project))[-1:]
    assert [w.text for w in rm.words] == ["rm", "b.py", "c.py"]
    analyse("git status", None, str(project))
    assert ("git status", id(None), str(project), None) in _ANALYSED


def test_a_pattern_command_word_runs_what_it_matches():
    if not os.path.exists("/bin/rm"):
        pytest.skip("no /bin/rm")
    assert ["/bin/rm", "-rf", "x"] in globbed("/???/r? -rf x", "/")


def test_patterns_past_the_bound_are_unknown(tmp_path):
    from hookgate.builtins.shell import commands_with

    for k in range(70):
        (tmp_path / f"d{k}").mkdir()
        for j in range(70):
            (tmp_path / f"d{k}" / f"f{j}").write_text("")
    [ls] = commands_with("ls */*", {"cwd": str(tmp_path)})
    assert ls["argv"] == ["ls", "*/*"] and ls["kinds"] == [None, "unknown-glob"]


def test_deleting_dot_files_by_pattern_is_deleting_git(project):
    from hookgate.engine import Engine
    from hookgate.sources import default_pack_path

    engine = Engine.from_paths([default_pack_path()])
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf .??*"},
        "cwd": str(project),
        "session_id": "t",
    }
    assert engine.evaluate(payload, host="claude").outcome == "deny"
    payload["tool_input"]["command"] = "rm -rf src/*.py"
    assert engine.evaluate(payload, host="claude").outcome == "allow"


@pytest.mark.parametrize(
    "text",
    [
        "for x in a 'b c' d; do printf '%s\\n' @@ $x; done",
        "for x in {1..3}; do printf '%s\\n' @@ \"$x\" -$x; done",
        "v='p q'; for x in $v; do printf '%s\\n' @@ $x; done",
        "for x in a b; do for y in 1 2; do printf '%s\\n' @@ $x$y; done; done",
        "for x in a b\ndo\n  printf '%s\\n' @@ \"$x\" done\ndone",
        # the values are words, not a command: a quoted "$@" keeps each argument whole
        "set -- 'a b' c; for x in \"$@\"; do printf '%s\\n' @@ \"$x\"; done",
        "set -- 'a b' -f; for x; do printf '%s\\n' @@ \"$x\"; done",
        "set -- 'a b' c; for x in $@; do printf '%s\\n' @@ \"$x\"; done",
        'set -- \'a b\' c; for x in "$*" "${@:2}"; do printf \'%s\\n\' @@ "$x"; done',
        "f() { for x in \"$@\"; do printf '%s\\n' @@ \"$x\"; done; }; f 'p q' -r",
        "v='p q'; for x in \"$v\" r; do printf '%s\\n' @@ \"$x\"; done",
        # no value the line shows: bash never runs the body
        "set --; for x; do printf '%s\\n' @@ \"$x/b\"; done; printf '%s\\n' @@ after",
        "set --; for x in \"$@\"; do for y in a; do printf '%s\\n' @@ $y; done; done",
        "e=; for x in $e; do printf '%s\\n' @@ $x; done; printf '%s\\n' @@ .",
        "for x in; do printf '%s\\n' @@ in; done",
        "set -- a; shift; for x; do printf '%s\\n' @@ $x; done",
        "f() { for x; do printf '%s\\n' @@ $x; done; }; f; f b",
    ],
)
def test_a_loop_body_is_read_once_per_value_as_bash_runs_it(text):
    # the model reads every iteration (in its own order); bash runs them in turn
    assert sorted(model_probes(text)) == sorted(bash_probes(text))


# A function is read where it is called, with that call's arguments; what its definition
# read with them unknown is not what runs. (One never called keeps its definition's reading:
# the pack judges a body the line may call later in a way it cannot see.)
@pytest.mark.parametrize(
    "text",
    [
        "f() { for x; do printf '%s\\n' @@ $x/b; done; }; f a c",
        'f() { for x in "$@"; do printf \'%s\\n\' @@ "$x"; done; }; f p q; f s',
        'f() { printf \'%s\\n\' @@ "$1" "$#"; }; g() { f "$2-$1"; }; g a b',
        "function f { printf '%s\\n' @@ $1-x; }\nf 1\nf 2",
    ],
)
def test_a_function_body_is_read_where_it_is_called(text):
    assert sorted(model_probes(text)) == sorted(bash_probes(text))


@pytest.mark.parametrize(
    "word",
    [
        '${u:-$(echo "(")-f}',
        '${u:-$(echo ")")x}',
        '${u:-"}"-f}',
        "${u:-'}'-f}",
        "\"${u:-'}'}\"",
        "${u:-\\}-f}",
        '"$(echo "(" ")")"',
        '${u:-"${u:-"}"}"}',
        '"${u:-"$(echo ")")"}"',
        '${u:-"$(echo "}")"x}',
    ],
)
def test_a_quoted_bracket_does_not_close_a_group(word):
    # bash skips quoted and escaped brackets when it looks for the end of ${…} and $(…)
    text = f"u=; printf '%s\\n' @@ {word}"
    assert model_probes(text) == bash_probes(text)


# -- programs that run programs: what the model hands the command, against the real program ------
# Each line runs a probe through a launcher (its options with a value, its own operands, where its
# command ends); real bash runs the line in a directory holding one file, src/a.py. What a finder
# found is ``{}`` in the model (``{}/..`` for fd's parent placeholder): the real path stands in.

LAUNCHED = (
    ("", "timeout -s KILL 5 printf '%s\\n' @@ a"),
    ("", "timeout --signal=TERM -k 1 9 printf '%s\\n' @@ b"),
    ("", "stdbuf -oL -e 0 printf '%s\\n' @@ c"),
    ("", "ionice -c 3 printf '%s\\n' @@ d"),
    ("", "nice -n 5 printf '%s\\n' @@ e"),
    ("", "flock -w 5 lockfile printf '%s\\n' @@ f"),
    ("", "prlimit --nofile=512 printf '%s\\n' @@ g"),
    ("", "setsid -w printf '%s\\n' @@ h"),
    ("", "env -u X A=1 printf '%s\\n' @@ i"),
    ("", "echo src/a.py | xargs printf '%s\\n' @@"),
    ("", "echo src/a.py | xargs -n 1 printf '%s\\n' @@ j"),
    ("", "find . -name a.py -exec printf '%s\\n' @@ {} +"),
    ("", "find . -name a.py -exec printf '%s\\n' @@ + {} \\;"),
    ("", "find . -name a.py -exec printf '%s\\n' @@ k \\;"),
    ("fdfind", "fdfind -e py -x printf '%s\\n' @@ l"),
    ("fdfind", "fdfind -e py -X printf '%s\\n' @@"),
    ("fdfind", "fdfind -e py --exec-batch printf '%s\\n' @@ + m"),
    ("fdfind", "fdfind a.py -x printf '%s\\n' @@ {} n \\; -t f"),
    ("fdfind", "fdfind -t f -x printf '%s\\n' @@ o {//} {}"),
    ("fdfind", "fdfind -e py --search-path src -X printf '%s\\n' @@ p"),
    ("entr", "ls src/a.py | entr -nz printf '%s\\n' @@ q"),
    ("entr", "ls src/a.py | entr -nzs \"printf '%s\\n' @@ r\""),
)


@pytest.mark.parametrize(("needs", "text"), LAUNCHED)
def test_a_launcher_hands_its_command_what_the_real_program_does(tmp_path, needs, text):
    if needs and shutil.which(needs) is None:
        pytest.skip(f"{needs} is not installed")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("")
    run = subprocess.run(
        [BASH, "--norc", "--noprofile", "-c", text],
        cwd=tmp_path,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SHELL": BASH},
        capture_output=True,
        text=True,
        timeout=10,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 0, run.stderr
    # entr -s reports the script's exit status on stdout
    real = [w for w in run.stdout.split("\n")[:-1] if not w.endswith("returned exit code 0")]
    assert real[:1] == ["@@"], real
    path = next((w for w in real if w.endswith("a.py")), "")
    parent = os.path.dirname(path)
    # xargs: the command as written, and as fed what echo prints
    model = [
        [w.replace("{}/..", parent).replace("{}", path) for w in probe]
        for probe in model_probes(text)
    ]
    assert real[1:] in model, (real, model)
