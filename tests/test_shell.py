"""shell.* builtins: what a command line would run, seen through quoting, wrappers and nesting."""

from __future__ import annotations

import re
import subprocess
from unittest import mock

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from hookgate.builtins import BuiltinError, full_registry
from hookgate.builtins.git import without_force
from hookgate.builtins.shell import (
    MAX_DEPTH,
    MAX_NEST,
    analyse,
    commands,
    has_flag,
    operands,
    resolve,
    without_flags,
)
from hookgate.lang.errors import LimitError
from hookgate.shell import patterns
from hookgate.shell.patterns import brace_expand

REGISTRY = full_registry()


def argvs(cmdline: str, name: str) -> list[list[str]]:
    return [c["argv"] for c in commands(cmdline) if c["name"] == name]


# (command line, command name, the argv of every command with that name, in order)
SEEN = [
    ("git push -f", "git", [["git", "push", "-f"]]),
    ('"git" push', "git", [["git", "push"]]),
    ("g'i't push", "git", [["git", "push"]]),
    ('g"i"t push', "git", [["git", "push"]]),
    ("\\git push", "git", [["git", "push"]]),
    ("$'\\x67it' push", "git", [["git", "push"]]),
    ("GIT push", "git", [["GIT", "push"]]),
    ("/usr/bin/git push", "git", [["/usr/bin/git", "push"]]),
    ("./git.exe push", "git", [["./git.exe", "push"]]),
    ("FOO=1 BAR='a b' git push", "git", [["git", "push"]]),
    ("sudo -u root -E git push", "git", [["git", "push"]]),
    ("sudo --user=root git push", "git", [["git", "push"]]),
    ("env -i PATH=/bin A=1 git push", "git", [["git", "push"]]),
    ("env -u HOME -- git push", "git", [["git", "push"]]),
    ("env -S 'git push -f'", "git", [["git", "push", "-f"]]),
    ("command git push", "git", [["git", "push"]]),
    ("command -p git push", "git", [["git", "push"]]),
    ("exec git push", "git", [["git", "push"]]),
    ("nohup git push &", "git", [["git", "push"]]),
    ("time git push", "git", [["git", "push"]]),
    ("time -p git push", "git", [["git", "push"]]),
    ("nice -n 10 git push", "git", [["git", "push"]]),
    ("nice -10 git push", "git", [["git", "push"]]),
    ("timeout 30 git push", "git", [["git", "push"]]),
    ("timeout -s KILL -k 5 30s git push", "git", [["git", "push"]]),
    ("xargs git push", "git", [["git", "push", "$(xargs)"]]),  # what it reads, unknown
    ("xargs -a flags git commit -m x", "git", [["git", "commit", "-m", "x", "$(xargs)"]]),
    ("echo -f | xargs git push", "git", [["git", "push"], ["git", "push", "-f"]]),  # shown
    ("xargs -I{} -n1 git push {}", "git", [["git", "push", "{}"]]),
    ("find . -name x -exec git add {} \\;", "git", [["git", "add", "{}"]]),
    ("find . -execdir git add {} + -print", "git", [["git", "add", "{}"]]),
    ("sudo env FOO=1 nice timeout 5 git push", "git", [["git", "push"]]),
    ("a; git push", "git", [["git", "push"]]),
    ("a && git push", "git", [["git", "push"]]),
    ("a || git push", "git", [["git", "push"]]),
    ("a | git push", "git", [["git", "push"]]),
    ("a |& git push", "git", [["git", "push"]]),
    ("a & git push", "git", [["git", "push"]]),
    ("a\ngit push", "git", [["git", "push"]]),
    ("a &&\n  git push", "git", [["git", "push"]]),
    ("a \\\n && git push", "git", [["git", "push"]]),
    ("(git push)", "git", [["git", "push"]]),
    ("(cd x; (git push))", "git", [["git", "push"]]),
    ("{ git push; }", "git", [["git", "push"]]),
    ("! git push", "git", [["git", "push"]]),
    ("if git push; then git pull; fi", "git", [["git", "push"], ["git", "pull"]]),
    ("while true; do git push; done", "git", [["git", "push"]]),
    # a loop's body is read once per value the line shows
    (
        "for b in a b; do git push origin $b; done",
        "git",
        [["git", "push", "origin", "b"], ["git", "push", "origin", "a"]],
    ),
    ("for b in $L; do git push origin $b; done", "git", [["git", "push", "origin", "$b"]]),
    # the script file is stdin
    ("source /dev/stdin <<< 'git push -f'", "git", [["git", "push", "-f"]]),
    ("echo 'git push -f' | bash /dev/fd/0", "git", [["git", "push", "-f"]]),
    ("for b; do git push origin $b; done", "git", [["git", "push", "origin", "$b"]]),
    ("case $x in a) git push;; esac", "git", [["git", "push"]]),
    ("f() { git push; }; f", "git", [["git", "push"]]),
    ("function f { git push; }", "git", [["git", "push"]]),
    ("echo $(git push)", "git", [["git", "push"]]),
    ('echo "$(git push)"', "git", [["git", "push"]]),
    ("echo `git push`", "git", [["git", "push"]]),
    ('echo "`git push`"', "git", [["git", "push"]]),
    ("x=$(git push)", "git", [["git", "push"]]),
    ("echo ${x:-$(git push)}", "git", [["git", "push"]]),
    ("diff <(git show a) >(git push)", "git", [["git", "show", "a"], ["git", "push"]]),
    ("echo $(echo $(git push))", "git", [["git", "push"]]),
    ("bash -c 'git push'", "git", [["git", "push"]]),
    ('sh -c "git push -f"', "git", [["git", "push", "-f"]]),
    ("bash -lc 'git push'", "git", [["git", "push"]]),
    ("zsh -xc 'git push'", "git", [["git", "push"]]),
    ("bash -o pipefail -c 'git push'", "git", [["git", "push"]]),
    ("bash -c 'bash -c \"git push\"'", "git", [["git", "push"]]),
    ("sudo bash -c 'cd x && git push'", "git", [["git", "push"]]),
    ("eval 'git push'", "git", [["git", "push"]]),
    ("eval git push", "git", [["git", "push"]]),
    ("bash <<< 'git push'", "git", [["git", "push"]]),
    ("bash <<EOF\ngit push\nEOF", "git", [["git", "push"]]),
    ("sh -s <<'EOF'\ngit push\nEOF", "git", [["git", "push"]]),
    ("cat <<EOF | sh\ngit push\nEOF", "git", [["git", "push"]]),
    ("echo 'git push' | bash", "git", [["git", "push"]]),
    ("printf 'git push\\ngit pull\\n' | sh", "git", [["git", "push"], ["git", "pull"]]),
    ("cat <<EOF\n$(git push)\nEOF", "git", [["git", "push"]]),
    ("ssh host git push", "git", [["git", "push"]]),
    ("ssh -p 22 -i key host 'cd r && git push'", "git", [["git", "push"]]),
    ("watch -n 5 git status", "git", [["git", "status"]]),
    ("parallel git push ::: a b", "git", [["git", "push", "a"], ["git", "push", "b"]]),
    ("su -c 'git push' me", "git", [["git", "push"]]),
    ("busybox rm -rf x", "rm", [["rm", "-rf", "x"]]),
    ("echo hi # comment\ngit push", "git", [["git", "push"]]),
    ("cat > out <<EOF\nhi\nEOF\ngit push", "git", [["git", "push"]]),
    ("git push 2>&1 >/dev/null", "git", [["git", "push"]]),
    ("> log git push", "git", [["git", "push"]]),
    ("echo $((1 + (2 * 3))) && git push", "git", [["git", "push"]]),
    ("((n++)); git push", "git", [["git", "push"]]),
    ("((git push) ; (ls))", "git", [["git", "push"]]),
    # Arithmetic to bash, two subshells to dash: "sh -c" runs the push.
    ("sh -c '((git push -f))'", "git", [["git", "push", "-f"]]),
    ("((git push -f))", "git", [["git", "push", "-f"]]),
    ("((((rm -rf /))))", "rm", [["rm", "-rf", "/"]]),
    # What echo or printf prints, run as a script.
    ("$(echo git push -f)", "git", [["git", "push", "-f"]]),
    ("`echo git push -f`", "git", [["git", "push", "-f"]]),
    ('eval "$(echo git push -f)"', "git", [["git", "push", "-f"]]),
    ("bash -c \"$(printf 'git push -f')\"", "git", [["git", "push", "-f"]]),
    ("source <(echo git push -f)", "git", [["git", "push", "-f"]]),
    (". <(echo git push -f)", "git", [["git", "push", "-f"]]),
    ("bash <(echo -e 'git push -f')", "git", [["git", "push", "-f"]]),
    ("echo git push -f | bash", "git", [["git", "push", "-f"]]),
    # xargs runs what echo prints: in place of its replace string, or as more arguments.
    ("echo 'git push -f origin' | xargs -I{} sh -c '{}'", "git", [["git", "push", "-f", "origin"]]),
    ("printf 'rm -rf /\\n' | xargs -i sh -c {}", "rm", [["rm", "-rf", "/"]]),
    (
        "echo x | xargs --replace=@ sh -c 'git push -f @'",
        "git",
        [["git", "push", "-f", "@"], ["git", "push", "-f", "x"]],
    ),
    ("echo -f origin | xargs git push", "git", [["git", "push"], ["git", "push", "-f", "origin"]]),
    ("x='git push -f'; eval \"$x\"", "git", [["git", "push", "-f"]]),
    ("G=$(echo git); $G push", "git", [["git", "push"]]),
    ("a=git; b=push; $a $b -f", "git", [["git", "push", "-f"]]),
    ("F=-f; git push $F origin", "git", [["git", "push", "-f", "origin"]]),
    # An unquoted substitution as an argument is split into what it prints.
    ("git push $(echo --force) origin", "git", [["git", "push", "--force", "origin"]]),
    ("git push `echo -f origin`", "git", [["git", "push", "-f", "origin"]]),
    # $IFS splits where it stands (its default is blanks), unless the line sets IFS.
    ("git${IFS}push${IFS}-f", "git", [["git", "push", "-f"]]),
    ("git$IFS-f", "git", [["git", "-f"]]),
    ("rm${IFS}-rf${IFS}/", "rm", [["rm", "-rf", "/"]]),
    # A script the line writes, then runs (what it appends counts too).
    ("cat > x.sh <<'EOF'\ngit push -f\nEOF\nbash x.sh", "git", [["git", "push", "-f"]]),
    ("echo 'git push -f' > x.sh; sh ./x.sh", "git", [["git", "push", "-f"]]),
    ("printf 'git push -f' > x.sh && source x.sh", "git", [["git", "push", "-f"]]),
    ("echo ls > x; echo 'git push -f' >> x; . ./x", "git", [["git", "push", "-f"]]),
    ("tee -a x.sh <<< 'git push -f'; bash x.sh", "git", [["git", "push", "-f"]]),
    (
        "cat <<'E' > d/x.sh\ngit push -f\nE\ncd d && chmod +x x.sh && ./x.sh",
        "git",
        [["git", "push", "-f"]],
    ),
    # A shell alias git config defines, as what it runs (a plain alias is a git command line:
    # git.parse gives its argv, config_change.alias_argv).
    ("git config alias.p 'push -f'", "git", [["git", "config", "alias.p", "push -f"]]),
    ("git config --global alias.x '!rm -rf ~'", "rm", [["rm", "-rf", "~"]]),
    (
        "git config set -f .gitconfig alias.x '!git push -f'",
        "git",
        [
            ["git", "config", "set", "-f", ".gitconfig", "alias.x", "!git push -f"],
            ["git", "push", "-f"],
        ],
    ),  # fmt: skip
    # Launchers that run a command (or a script) later, elsewhere or detached.
    ("setsid git push -f", "git", [["git", "push", "-f"]]),
    ("chrt -f 99 git push", "git", [["git", "push"]]),
    ("systemd-run --user --unit x git push", "git", [["git", "push"]]),
    ("script -qc 'git push -f' /dev/null", "git", [["git", "push", "-f"]]),
    ("script --command='git push' log", "git", [["git", "push"]]),
    ("tmux new-session -d -s x 'git push -f'", "git", [["git", "push", "-f"]]),
    ("tmux -L sock split-window git push", "git", [["git", "push"]]),
    ("tmux send-keys -t x 'git push -f' Enter", "git", [["git", "push", "-f", "Enter"]]),
    ("screen -dmS x git push -f", "git", [["git", "push", "-f"]]),
    ("at now <<< 'git push -f'", "git", [["git", "push", "-f"]]),
    ("echo 'git push' | batch", "git", [["git", "push"]]),
    ("kubectl exec -it pod -- git push", "git", [["git", "push"]]),
    ("G=git; $G push", "git", [["git", "push"]]),
    ('G="git push"; ${G} -f', "git", [["git", "push", "-f"]]),
    ("export G=git; $G push", "git", [["git", "push"]]),
    ("$(which git) push", "git", [["git", "push"]]),
    ("`command -v git` push", "git", [["git", "push"]]),
    (
        "git rebase -x 'git push -f' main",
        "git",
        [["git", "rebase", "-x", "git push -f", "main"], ["git", "push", "-f"]],
    ),
    ("git rebase -x 'rm -rf x' main", "rm", [["rm", "-rf", "x"]]),
    ("git rebase --exec='rm -rf x' main", "rm", [["rm", "-rf", "x"]]),
    ("git submodule foreach --recursive 'rm -rf x'", "rm", [["rm", "-rf", "x"]]),
    ("git bisect run rm -rf x", "rm", [["rm", "-rf", "x"]]),
    ("git -c alias.x='!rm -rf x' x", "rm", [["rm", "-rf", "x"]]),
]


@pytest.mark.parametrize(("cmdline", "name", "expected"), SEEN)
def test_commands_seen(cmdline, name, expected):
    assert argvs(cmdline, name) == expected


# (command line, a name that must NOT be reported as a command: it is data there)
DATA = [
    ("echo git push", "git"),
    ("echo 'rm -rf /'", "rm"),
    ("printf '%s' 'git push'", "git"),
    ("grep -r 'git push' .", "git"),
    ("grep -e rm file", "rm"),
    ("tee -a log <<< 'git push'", "git"),
    ("git commit -m 'then git push -f'", "push"),
    ("git commit -m \"$(echo data)\" -m 'rm -rf /'", "rm"),
    ("cat <<'EOF'\ngit push\nEOF", "git"),
    ("cat <<EOF\ngit push\nEOF", "git"),
    ("cat <<-EOF\n\tgit push\n\tEOF", "git"),
    ("command -v git", "git"),
    ("command -V git", "git"),
    ("type git", "git"),
    ("which git", "git"),
    ("man git", "git"),
    ("less git.log", "git"),
    ("digit push", "git"),
    ("git-lfs push", "git"),
    ("echo hi # git push", "git"),
    ("ls 'a; git push'", "git"),
    ('ls "a && git push"', "git"),
    ("ls a\\;git", "git"),
    ("bash script.sh git", "git"),
    ("echo '$(git push)'", "git"),
    ("cat <<'EOF'\n$(git push)\nEOF", "git"),
    ("$UNSET push", "git"),
    ("git rebase main", "rm"),
    ("git submodule update --init", "update"),
    ("echo $(echo git push)", "git"),
    ("cat <(echo git push)", "git"),
    ("bash script.sh <(echo git push)", "git"),
    ('echo "$(printf git) push"', "push"),
    ("tmux ls", "ls"),
    ("script typescript", "typescript"),
    ("kubectl logs git", "git"),
    ("screen -ls", "ls"),
    # A written script that is only read, or run from elsewhere, or a bare name (found on PATH).
    ("echo 'git push -f' > x.sh; cat x.sh", "git"),
    ("echo 'git push -f' > x.sh; bash other.sh", "git"),
    ("cd d && echo 'git push -f' > x.sh; cd .. && bash x.sh", "git"),
    ("echo 'git push -f' > x.sh; x.sh", "git"),
]


@pytest.mark.parametrize(("cmdline", "name"), DATA)
def test_data_is_not_a_command(cmdline, name):
    assert argvs(cmdline, name) == []


@pytest.mark.parametrize(
    ("cmdline", "argv"),
    [
        # Quoted, a substitution or $IFS is one word, as the shell keeps it.
        ('git commit -m "$(echo --amend)"', ["git", "commit", "-m", "--amend"]),
        ('git "x${IFS}y"', ["git", "x \t\ny"]),
        ("git '$(echo -f)'", ["git", "$(echo -f)"]),
        # Another variable (not set by the line) is not split; an IFS the line sets splits.
        ("git $IFSX", ["git", "$IFSX"]),
        ("IFS=,; git x${IFS}y", ["git", "x", "y"]),
        # A variable in quotes is one word, however many blanks its value holds.
        ('M="fix: explain -f"; git commit -m "$M"', ["git", "commit", "-m", "fix: explain -f"]),
        ('F=--amend; git commit "$F"', ["git", "commit", "--amend"]),
        # A substitution that runs something other than echo/printf is unknown: kept.
        ("git log $(date +%s)", ["git", "log", "$(date +%s)"]),
    ],
)
def test_words_the_shell_does_not_split_stay_whole(cmdline, argv):
    assert argvs(cmdline, "git") == [argv]


def test_command_fields():
    [git] = [c for c in commands("cd sub && FOO=1 sudo git -C x push") if c["name"] == "git"]
    assert git["argv"] == ["git", "-C", "x", "push"]
    assert git["via"] == ["sudo"]
    assert git["cwd"] == "sub"
    assert git["incomplete"] is False
    [sudo] = [c for c in commands("cd sub && FOO=1 sudo git -C x push") if c["name"] == "sudo"]
    assert sudo["env"] == {"FOO": "1"}
    assert sudo["argv"] == ["sudo"]


@pytest.mark.parametrize(
    ("cmdline", "writes"),
    [
        ("echo x > /etc/passwd", [("echo", ["/etc/passwd"])]),
        ("cmd >| a &> b >& c", [("cmd", ["a", "b", "c"])]),
        ("cmd >> log 2>&1 >&2 >&- < in", [("cmd", [])]),
        ("> f", [("", ["f"])]),
        ("(ls) > out", [("ls", []), ("", ["out"])]),
        ("sudo sh -c 'echo 1 > /etc/x'", [("sudo", []), ("sh", []), ("echo", ["/etc/x"])]),
        ("eval \"$(echo 'echo 1 > /etc/x')\"", [("echo", []), ("eval", []), ("echo", ["/etc/x"])]),
    ],
)
def test_writes_are_the_files_redirections_empty(cmdline, writes):
    assert [(c["name"], c["writes"]) for c in commands(cmdline)] == writes


@pytest.mark.parametrize(
    ("cmdline", "cwd"),
    [
        ("cd a && git x", "a"),
        ("cd a; cd b; git x", "a/b"),
        ("cd /srv/r && git x", "/srv/r"),
        ("cd a && cd .. && git x", "."),
        ("(cd a) && git x", None),
        ("cd a | true; git x", None),
        ("cd && git x", "~"),
        ("pushd a >/dev/null && git x", "a"),
        ("env -C /srv git x", "/srv"),
    ],
)
def test_cwd_follows_cd(cmdline, cwd):
    [git] = [c for c in commands(cmdline) if c["name"] == "git"]
    assert git["cwd"] == cwd


@pytest.mark.parametrize(
    "cmdline",
    ["git push -f", "FOO=1 git push -f", "a && sudo git push -f || b", "x;\n  git push -f &"],
)
def test_spans_point_into_the_original(cmdline):
    for c in commands(cmdline):
        start, end = c["span"]
        assert 0 <= start <= end <= len(cmdline)
    [git] = [c for c in commands(cmdline) if c["name"] == "git"]
    assert cmdline[git["span"][0] : git["span"][1]].endswith("git push -f")


def _is_subsequence(text: str, raw: str) -> bool:
    chars = iter(raw)
    return all(ch in chars for ch in text)


# Pieces of command lines that expand, nest and quote: words made by an expansion are nowhere
# in the original text, and rewrites edit words by their spans.
PIECES = [
    "git push -f origin main",
    "git push --force",
    "git push origin +main",
    "git push -fu origin x",
    "--force-with-lease=main",
    "+HEAD:main",
    "eval",
    "$x",
    '"$x"',
    "x='git push -f'",
    "$(echo git push -f)",
    "`echo -f`",
    "x=$(git push -f)",
    "bash -c",
    "'git push -f'",
    '"git push -f"',
    "$'git push -f'",
    "F=-f",
    "$F",
    "G=git",
    "$G",
    "git${IFS}push${IFS}-f",
    "alias.p='push -f'",
    "push",
    "-f",
    "'--force'",
    "origin",
    "--",
    ";",
    "&&",
    "|",
    "&",
    "\n",
    "(",
    ")",
    "{",
    "}",
    "echo",
    "printf '%s'",
    "xargs",
    "-I{}",
    "{}",
    "sh",
    "bash <<<",
    "<<<",
    "source",
    "<(echo git push -f)",
    "git",
    "git -C dir",
    "\\git",
    "sudo",
    "env",
    "FOO=1",
    "nohup",
    "ssh host",
    "find . -exec",
    "\\;",
    "cd sub",
    "cat <<EOF\ngit push -f\nEOF",
    "-{f,}",
    "--{force,verbose}",
    "{git,push}",
    "{a,b}",
    "{1..3}",
    "git switch -c feat",
]


def _within_limits(line: str) -> bool:
    """Whether the analysis reads ``line`` at all: a line nested deeper than its limit (seven
    ``ssh host`` in a row) is answered by the limit action, with no spans and no rewrite."""
    try:
        analyse(line)
    except LimitError:
        return False
    return True


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=8))
@example(["eval", "$(echo git push -f origin main)"])
@example(["ssh host"] * 7 + ["git push -f"])
@example(["x='git push -f origin main';", "eval", '"$x"'])
def test_a_word_with_a_span_is_at_that_place_in_the_line(pieces):
    # The words a rewrite would edit: each one's span must hold it (its characters in order,
    # quotes aside), or the rewrite would cut another part of the line.
    line = " ".join(pieces)
    assume(_within_limits(line))
    for c in analyse(line):
        for w in c.words:
            if w.span is not None:
                raw = line[w.span[0] : w.span[1]]
                assert _is_subsequence(w.text, raw), (line, w.text, raw)


FORCE_FLAGS = frozenset(("-f", "--force", "--force-with-lease", "--force-if-includes"))


def _git_commands_without_force(line: str) -> list[list[str]]:
    """Every git command written in ``line`` with its force flags taken out, the way a
    rewrite takes them out (words made by an expansion, which a rewrite cannot edit, as they
    are; words holding a substitution left out: its commands are compared on their own). A
    command an expansion made is left out: it may repeat text the rewrite edited."""
    out = []
    for c in analyse(line):
        if c.name != "git" or c.words[0].span is None:
            continue
        words = []
        for w in c.words:
            t = w.text
            if any(s in t for s in ("$(", "`", "<(")):
                continue
            if w.span is not None and (t in FORCE_FLAGS or t.startswith("--force-with-lease=")):
                continue
            if w.span is not None and re.fullmatch(r"-[a-zA-Z]*f[a-zA-Z]*", t):
                t = t.replace("f", "")
                if t == "-":
                    continue
            words.append(t[1:] if w.span is not None and t.startswith("+") else t)
        out.append(words)
    return out


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=8))
@example(["eval", "$(echo git push -f origin main)"])
def test_a_rewrite_takes_out_force_flags_and_nothing_else(pieces):
    line = " ".join(pieces)
    assume(_within_limits(line))
    rewritten = without_force(line)
    assert _git_commands_without_force(rewritten) == _git_commands_without_force(line), (
        line,
        rewritten,
    )


def test_nested_span_points_inside_the_quotes():
    line = "bash -c 'git push -f'"
    [git] = [c for c in commands(line) if c["name"] == "git"]
    assert line[git["span"][0] : git["span"][1]] == "git push -f"


@pytest.mark.parametrize(
    ("cmdline", "name"),
    [
        ("git commit -m 'unterminated; git push", "git"),
        ('echo "unterminated; git push -f', "git"),
        ("bash -c 'git push", "git"),
        ("echo $(git push", "git"),
    ],
)
def test_unterminated_input_is_analysed_conservatively(cmdline, name):
    cmds = commands(cmdline)
    assert any(c["name"] == name and "push" in c["argv"] for c in cmds)
    assert all(c["incomplete"] for c in cmds)


def test_unterminated_quote_content_is_read_as_commands():
    assert ["git", "push", "-f"] in argvs('git commit -m "msg; git push -f', "git")


def test_nested_shells_are_bounded():
    line = "git push"
    for _ in range(MAX_DEPTH):
        line = "bash -c " + "'" + line.replace("'", "'\\''") + "'"
    assert argvs(line, "git") == [["git", "push"]]
    # one level more: the analysis gives up, which the engine answers with ask, never allow
    line = "bash -c " + "'" + line.replace("'", "'\\''") + "'"
    with pytest.raises(LimitError, match="nested more than 6 deep") as raised:
        commands(line)
    assert raised.value.limit == "nesting"


@pytest.mark.parametrize(
    "line",
    [
        "nice " * 3000 + "git push",
        "(" * 3000 + "git push",
        "eval " * 3000 + "git push",
        "find . -exec " * 1000 + "git push",
    ],
)
def test_deep_wrappers_and_groups_are_bounded(line):
    with pytest.raises(LimitError) as raised:
        commands(line)
    assert raised.value.limit == "nesting"


def test_brace_groups_do_not_nest_the_parser():
    assert argvs("{ " * 3000 + "git push", "git") == [["git", "push"]]


def test_deep_substitution_is_a_limit_not_a_crash():
    line = "echo " + "$(" * 5000 + "x" + ")" * 5000
    with pytest.raises(LimitError, match=f"nested more than {MAX_NEST} deep"):
        commands(line)


def test_find_keeps_its_words_around_exec():
    [find] = [c for c in commands("find / -exec echo {} \\; -delete") if c["name"] == "find"]
    assert find["argv"] == ["find", "/", "-exec", ";", "-delete"]


def test_stdin_of_here_documents_and_here_strings():
    [py] = [c for c in commands("python3 - <<'EOF'\nprint(1)\nEOF") if c["name"] == "python3"]
    assert py["stdin"] == "print(1)\n"
    [cat] = [c for c in commands("cat <<< 'hello there'") if c["name"] == "cat"]
    assert cat["stdin"] == "hello there"
    [ls] = commands("ls")
    assert ls["stdin"] is None


def test_assignment_only_statement_is_reported():
    [c] = [c for c in commands("TMPDIR=/ ; ls") if c["name"] == ""]
    assert c["env"] == {"TMPDIR": "/"}


@pytest.mark.parametrize(
    ("argv", "flag", "expected"),
    [
        (["git", "commit", "-n"], "-n", True),
        (["git", "commit", "-nm", "x"], "-n", True),
        (["git", "commit", "-mn"], "-n", True),
        (["git", "push", "--force"], "--force", True),
        (["git", "push", "--force-with-lease=x"], "--force-with-lease", True),
        (["git", "push", "--force-with-lease=x"], "--force", False),
        (["git", "push", "--", "--force"], "--force", False),
        (["git", "push", "\u2010\u2010force"], "--force", True),
        (["git", "push", "\u2013f"], "-f", True),
        (["git", "push", "\u2014force"], "--force", True),
        (["git", "push", "\u2013force"], "--force", True),
        (["git", "push", "\u2212f"], "-f", True),
        (["git", "push", "\u2010\u2010force"], "--force", True),
        (["rm", "-rf", "x"], "-r", True),
        (["rm", "-rf", "x"], "-R", False),
        (["rm", "x"], "-r", False),
        (["ls", "-"], "-", False),
    ],
)
def test_has_flag_on_commands(argv, flag, expected):
    assert has_flag({"name": argv[0], "argv": argv}, flag) is expected


def test_has_flag_rejects_bad_operands():
    with pytest.raises(BuiltinError):
        has_flag("git push -f", "-f")
    with pytest.raises(BuiltinError):
        has_flag({"argv": ["git"]}, 1)


# (command line, flags, the exact text that must come back)
WITHOUT = [
    ("git push --force origin main", ["--force"], "git push origin main"),
    ("git push -f origin main", ["-f"], "git push origin main"),
    ("git push origin main -f", ["-f"], "git push origin main"),
    ("git push -fu origin main", ["-f"], "git push -u origin main"),
    ("git push -uf origin main", ["-f"], "git push -u origin main"),
    ("git push --force-with-lease=a:b x", ["--force-with-lease"], "git push x"),
    ("git  push   --force\t origin", ["--force"], "git  push\t origin"),
    ('git push "--force" x', ["--force"], "git push x"),
    ("git push -- -f", ["-f"], "git push -- -f"),
    ("git push -f && echo 'keep -f'", ["-f"], "git push && echo 'keep -f'"),
    ("a -f; b -f", ["-f"], "a; b"),
    ("bash -c 'git push --force'", ["--force"], "bash -c 'git push'"),
    ('bash -c "git push -f x"', ["-f"], 'bash -c "git push x"'),
    ("git push -f\ngit status", ["-f"], "git push\ngit status"),
    ("git push x \u2010\u2010force", ["--force"], "git push x"),
    ("-f x", ["-f"], "-f x"),
    ("git push x", ["--force"], "git push x"),
    ("git push $'--forc\\x65' x", ["--force"], "git push x"),
    ("bash -c $'git push --forc\\x65 x'", ["--force"], "bash -c $'git push --forc\\x65 x'"),
]


@pytest.mark.parametrize(("cmdline", "flags", "expected"), WITHOUT)
def test_without_flags_is_byte_exact(cmdline, flags, expected):
    assert without_flags(cmdline, flags) == expected


def test_without_flags_accepts_a_set_and_a_string():
    assert without_flags("git push -f --force x", {"-f", "--force"}) == "git push x"
    assert without_flags("git push -f x", "-f") == "git push x"
    with pytest.raises(BuiltinError):
        without_flags("git push", [1])
    with pytest.raises(BuiltinError):
        without_flags(3, ["-f"])


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab -f'\"\\$`();|&<>{}#\n\t=~/")), max_size=60))
@example(">= =()")  # a redirection, then a function definition: the span ran backwards
def test_any_text_is_analysed_without_error(text):
    for c in commands(text):
        start, end = c["span"]
        assert 0 <= start <= end <= len(text)
    # removing a flag that never appears as an option keeps the text byte for byte
    assert without_flags(text, ["--zzz"]) == text


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["rm", "-rf", "a", "b"], ["a", "b"]),
        (["rm", "-rf", "--", "-x"], ["-x"]),
        (["cat", "-"], ["-"]),
        (["rm", "\u2010rf", "/"], ["/"]),
    ],
)
def test_operands(argv, expected):
    assert operands({"argv": argv}) == expected


@pytest.mark.parametrize(
    ("base", "path", "expected"),
    [
        ("/home/u/proj", "build", "/home/u/proj/build"),
        ("/home/u/proj", "../x", "/home/u/x"),
        ("/home/u/proj", "/tmp/../etc", "/etc"),
        ("/home/u/proj", "/../..", "/"),
        ("/home/u/proj", "~/x", "~/x"),
        ("/home/u/proj", "$HOME/x/..", "$HOME"),
        ("/home/u/proj", ".", "/home/u/proj"),
        (None, "a/../..", ".."),
        (None, "a/./b/", "a/b"),
    ],
)
def test_resolve(base, path, expected):
    assert resolve(base, path) == expected


def test_registered_with_docs():
    for name, arity in [
        ("shell.commands", 1),
        ("shell.has_flag", 2),
        ("shell.without_flags", 2),
        ("shell.operands", 1),
        ("shell.resolve", 2),
    ]:
        b = REGISTRY[name]
        assert b.family == "shell" and b.arity == arity and len(b.doc) > 80
        assert not b.reads_host


BRACE_PIECES = ["a", "b", "1", "3", "{", "}", ",", "..", "-", "x{", "}y", "{a,b}", "{1..3}"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(BRACE_PIECES), min_size=1, max_size=7))
def test_brace_expansion_agrees_with_bash(pieces):
    word = "".join(pieces)
    shown = subprocess.run(
        ["bash", "-c", 'printf "%s\\n" _ ' + word], capture_output=True, text=True, check=True
    ).stdout.split("\n")[1:-1]  # "_" first: a word that expands to nothing still prints
    with mock.patch.object(patterns, "MAX_BRACE_WORDS", 1 << 20):
        words = brace_expand(word)
    assert [w for w in words if w] == shown, word
    if len(words) > patterns.MAX_BRACE_WORDS:  # past the bound, the analysis stops instead
        with pytest.raises(LimitError):
            brace_expand(word)


@pytest.mark.parametrize(
    ("line", "argv"),
    [
        ("{git,push} -f origin main", ["git", "push", "-f", "origin", "main"]),
        ("git push -{f,} origin", ["git", "push", "-f", "-", "origin"]),
        ("g{i,}t push", ["git", "gt", "push"]),
        ("git push --{force,verbose}", ["git", "push", "--force", "--verbose"]),
    ],
)
def test_brace_expansion_in_any_word(line, argv):
    [git] = [c for c in commands(line) if c["name"] == "git"]
    assert git["argv"] == argv


@pytest.mark.parametrize("line", ["find . -exec rm {} +", "git rev-parse @{u}", "{ ls; }"])
def test_braces_that_bash_leaves_alone(line):
    assert all("," not in a for c in commands(line) for a in c["argv"])
    assert any(a in ("{}", "@{u}", "ls") for c in commands(line) for a in c["argv"])


@pytest.mark.parametrize("word", ["{},}", "{},a}", "x{},}", "{{},a}", "{}{a,b}"])
def test_a_word_starting_with_an_empty_brace_pair(word):
    # bash ignores a "{" at the start of a word that "}" closes at once, and no other
    shown = subprocess.run(
        ["bash", "-c", 'printf "%s\\n" _ ' + word], capture_output=True, text=True, check=True
    ).stdout.split("\n")[1:-1]
    assert [w for w in brace_expand(word) if w] == shown


def test_a_brace_bomb_is_a_limit():
    with pytest.raises(LimitError, match="brace"):
        commands("echo " + "{a,b}" * 12)


@pytest.mark.parametrize(
    ("line", "env"),
    [
        ("env HUSKY=0 git commit", {"HUSKY": "0"}),
        ("HUSKY=0 nice git commit", {"HUSKY": "0"}),
        ("sudo -u bob HUSKY=0 git commit", {"HUSKY": "0"}),
        ("A=1 env B=2 git commit", {"A": "1", "B": "2"}),
        ("timeout 5 git commit", {}),
    ],
)
def test_a_wrapped_command_gets_the_environment_its_wrapper_gives(line, env):
    [git] = [c for c in commands(line) if c["name"] == "git"]
    assert git["env"] == env
