"""The text filter model (shell/filters.py) against GNU's tools: for every option it reads, the
same output; for anything else, no answer (None), never a guess."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from hookgate.builtins.shell import commands
from hookgate.shell.filters import filter_output

TEXTS = [
    "git push -f origin feature\n",
    "x\ngit push -f origin feature\n",
    "a b c\nd e f\ng h i\n",
    "rm -rf ~",
    "A:b:C\nd:E:f\n\nlast",
    "Hello World\nhello world\nHELLO\n",
    "x x\ny\ny\nz\nx x\n",
    "  lead  space \n\ttab\there\n",
    "a,b\n",
]

KNOWN = [
    ["head", "-1"], ["head", "-n", "2"], ["head", "-n2"], ["head"], ["head", "-n", "-1"],
    ["tail", "-1"], ["tail", "-n", "+2"], ["tail", "-n", "0"], ["tail"], ["tac"],
    ["sort"], ["sort", "-r"], ["sort", "-u"], ["uniq"],
    ["grep", "push"], ["grep", "-v", "push"], ["grep", "-i", "hello"], ["grep", "-F", "a.b"],
    ["grep", "-E", "^(a|d)"], ["grep", "^[a-c]"], ["grep", "-x", "y"], ["grep", "-e", "-f"],
    ["grep", "o\\+"], ["grep", "o+"],
    ["tr", "a-z", "A-Z"], ["tr", "[:lower:]", "[:upper:]"], ["tr", "-d", "aeiou"],
    ["tr", "-s", " ", "_"], ["tr", "ab", "x"], ["tr", ":", "\\n"], ["tr", "\\n", " "],
    ["tr", "abc", "cab"],
    ["sed", "s/a/X/"], ["sed", "s/a/X/g"], ["sed", "-e", "s/o/0/g"], ["sed", "s/\\(h\\)e/&E/"],
    ["sed", "-E", "s/(l+)/<&>/g"], ["sed", "s|/|_|g"], ["sed", "s/x*/-/g"], ["sed", "s/^/> /"],
    ["sed", "s/o/0/;s/e/3/"], ["sed", "s/A/z/I"],
    ["awk", "{print}"], ["awk", "{print $1}"], ["awk", "{print $2, $1}"], ["awk", "-F:", "{print $2}"],
    ["cut", "-d:", "-f2"], ["cut", "-c1-3"], ["cut", "-d", " ", "-f1,3"], ["cut", "-d", ":", "-f2-"],
]  # fmt: skip

UNREAD = [
    ["sed", "2d"], ["sed", "-n", "p"], ["sed", "s/\\(a\\)/\\1/"], ["awk", "{print NR}"],
    ["grep", "-c", "x"], ["grep", "-w", "x"], ["grep", "[[:alpha:]]"], ["tr", "-c", "a", "b"],
    ["head", "-c", "3"], ["sort", "-k2"], ["uniq", "-c"], ["cut", "-b1"], ["grep", "x", "file"],
    ["sed", "s/a/b/", "file"], ["tr", "a-z"], ["awk", "{print $1}", "file"], ["less"],
]  # fmt: skip


@pytest.mark.parametrize("argv", KNOWN, ids=" ".join)
def test_each_filter_prints_what_the_real_tool_prints(argv):
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed")
    for text in TEXTS:
        real = subprocess.run(
            argv,
            input=text.encode(),
            capture_output=True,
            env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"},
            check=False,
        ).stdout.decode()
        assert filter_output(argv, text) == real, (argv, text)


@pytest.mark.parametrize("argv", UNREAD, ids=" ".join)
def test_what_the_model_does_not_read_has_no_answer(argv):
    assert filter_output(argv, "a b\nc d\n") is None


def test_bytes_are_no_characters():
    # tr, cut -c, sed and grep count bytes in the C locale: no answer for other text
    assert filter_output(["tr", "a", "b"], "café\n") is None
    assert filter_output(["sed", "s/x*/-/g"], "é\n") is None


@pytest.mark.parametrize(
    ("line", "argv"),
    [
        ("echo 'ez -es ~' | tr ez rm | sh", ["rm", "-rs", "~"]),
        ("echo 'git push -X origin' | sed 's/-X/-f/' | bash", ["git", "push", "-f", "origin"]),
        ("printf 'x\\ngit push -f o\\n' | grep push | sh", ["git", "push", "-f", "o"]),
        ("echo 'a:rm -rf /' | cut -d: -f2 | sh", ["rm", "-rf", "/"]),
        ("echo 'GIT PUSH -F' | tr '[:upper:]' '[:lower:]' | sh", ["git", "push", "-f"]),
        ("echo 'gxit pxush -xf' | tr -d x > s.sh; bash s.sh", ["git", "push", "-f"]),
    ],
)
def test_a_filtered_script_is_what_the_shell_runs(line, argv):
    assert argv in [c["argv"] for c in commands(line)]


def test_a_bad_pattern_has_no_answer_and_prints_nothing(capfd):
    # the pattern is the agent's: RE2 must not log its error on the hook's stderr
    assert filter_output(["grep", "-E", "a[bc"], "abc\n") is None
    assert filter_output(["sed", "s/\\(/x/"], "(\n") is None
    assert capfd.readouterr().err == ""
