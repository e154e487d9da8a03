"""The shell model's records: a word and a simple command, and the spelling rules shared by
every part of the model (command names, option dashes, lexical paths)."""

from __future__ import annotations

from hookgate.records import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Characters that look like an ASCII hyphen-minus; agents (and attackers) paste them into flags.
DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"


class Word(Record):
    __slots__ = ("text", "span", "literal", "offs", "braces", "marks", "items", "kind", "glob")

    def __init__(
        self,
        text: str,  # the word after quote removal (expansions kept as written)
        span: tuple[int, int] | None,  # raw span in the root text; None if not contiguous there
        literal: bool = True,  # no unquoted/double-quoted expansion ($x, $(…), `…`)
        offs: list[int] | None = None,  # root offset of each character of text
        braces: bool = False,  # an unquoted "{" in it: bash may brace-expand it
        marks: list[tuple[int, int, bool]] | None = None,
        kind: str | None = None,
    ) -> None:
        self.text = text
        self.span = span
        self.literal = literal
        self.offs = [] if offs is None else offs
        self.braces = braces
        # where text holds an expansion as written: (start, end, inside double quotes)
        self.marks = marks
        # the elements of an array assignment a=(x y) (this word is "a=")
        self.items: list[Word] | None = None
        # None: text known from the line; else what the expansion in it may be (Command.kinds)
        self.kind = kind
        # an unquoted *, ? or [ in it (and none quoted): bash matches it against file names
        self.glob = False


class Command(Record):
    __slots__ = (
        "name",
        "words",
        "env",
        "span",
        "cwd",
        "via",
        "incomplete",
        "stdin",
        "stdin_file",
        "writes",
        "appends",
        "branch",
        "piped",
        "git_config",
        "fed_by",
        "files",
    )

    def __init__(
        self,
        name: str,
        words: list[Word],
        env: dict[str, str],
        span: tuple[int, int],
        cwd: str | None,
        via: list[str],
        incomplete: bool = False,
        stdin: str | None = None,  # a here-document's body or a here-string fed to the command
    ) -> None:
        self.name = name
        self.words = words
        self.env = env
        self.span = span
        self.cwd = cwd
        self.via = via
        self.incomplete = incomplete
        self.stdin = stdin
        # the file it reads on stdin when the line names it but not its text (git apply <
        # fix.patch, cat fix.patch | git apply), relative to the payload's cwd
        self.stdin_file: str | None = None
        self.writes: list[str] = []  # files its redirections truncate (> f, >| f, &> f)
        self.appends: list[str] = []  # files it appends to (>> f)
        # git: the branch an earlier command of the line switched its repository to ("" when it
        # detached HEAD), None when the line did not switch it
        self.branch: str | None = None
        self.piped: Command | None = None  # the command whose output it reads (a | b)

        # git: what earlier git config commands of the line wrote to the configuration this
        # command reads ([op, key, value], op set/add/unset), in order
        self.git_config: list[list[str]] = []
        # a shell or interpreter that runs what other commands print, which the line does not
        # show (curl … | bash, bash < <(curl …), curl … > >(sh)): their names, nearest first
        self.fed_by: list[str] = []
        # what it does to files (shell/files.py: FileEffects.record), the write effects' shape
        self.files: list[dict[str, Any]] = []

    def to_value(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "argv": [w.text for w in self.words],
            "kinds": [w.kind for w in self.words],
            "env": dict(self.env),
            "span": list(self.span),
            "cwd": self.cwd,
            "via": list(self.via),
            "incomplete": self.incomplete,
            "stdin": self.stdin,
            "stdin_file": self.stdin_file,
            "writes": list(self.writes),
            "appends": list(self.appends),
            "branch": self.branch,
            "git_config": [list(op) for op in self.git_config],
            "fed_by": list(self.fed_by),
            "files": [dict(f) for f in self.files],
        }


def word_offsets(w: Word) -> list[int]:
    """The root offset of each character of ``w`` (made up from its span when it has none)."""
    if len(w.offs) == len(w.text):
        return w.offs
    base = w.span[0] if w.span else 0
    return [base + k for k in range(len(w.text))]


def span_of(words: list[Word]) -> tuple[int, int] | None:
    """The root span from the first word's that has one to the last's; None if none has."""
    first = next((w.span for w in words if w.span is not None), None)
    if first is None:
        return None
    last = next(w.span for w in reversed(words) if w.span is not None)
    return (first[0], last[1])


def command_name(word: str) -> str:
    """The name a command word runs: basename, lower-cased, without ``.exe``."""
    name = word.rsplit("/", 1)[-1].rsplit("\\", 1)[-1].lower()
    return name[:-4] if name.endswith(".exe") else name


def normalize_option(word: str) -> str:
    """``word`` with look-alike Unicode dashes at its start replaced by ASCII ``-``.

    En and em dashes are what "smart" typography makes of ``--``, so each counts as two,
    except before a single letter (``–f`` is ``-f``).
    """
    if word.isascii():
        return word  # every look-alike dash is non-ASCII; the git parse asks this of each word
    i = 0
    while i < len(word) and (word[i] == "-" or word[i] in DASHES):
        i += 1
    run, rest = word[:i], word[i:]
    if not i or run.count("-") == i:
        return word
    n = sum(2 if ch in "\u2013\u2014" else 1 for ch in run)
    if n >= 2 and len(rest) == 1 and run.count("-") == 0 and len(run) == 1:
        n = 1
    return "-" * n + rest


# A path inside a container that no bind mount maps to the host: the container's own file
# (``container:/var/cache``), an absolute path of another machine.
CONTAINER = "container:"


def join_path(base: str | None, path: str) -> str:
    """Lexically join ``path`` onto ``base`` (``None`` = the payload's cwd) and normalize;
    ``$PWD`` (``${PWD}``) at its start is ``base`` (bash keeps it the directory it is in)."""
    for pwd in ("$PWD", "${PWD}"):
        if path == pwd or path.startswith(pwd + "/"):
            path = "." + path[len(pwd) :]
            break
    if base is None or path.startswith(("/", "~", "$", CONTAINER)):
        joined = path
    else:
        joined = base.rstrip("/") + "/" + path
    return normalize_path(joined)


def normalize_path(path: str) -> str:
    """Resolve ``.`` and ``..`` lexically (never touching the disk); keeps a leading ``~``/``$X``."""
    absolute = path.startswith("/")
    wrapped = path + "/" if absolute else "/" + path + "/"
    if "//" not in wrapped and "/./" not in wrapped and "/../" not in wrapped:
        return path  # most paths: no empty, "." or ".." part, nothing to resolve
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == ".." and parts and parts[-1] != "..":
            if parts[-1].startswith(("~", "$")) and len(parts) == 1:
                parts.append(part)  # cannot go above an unknown home/variable lexically
            else:
                parts.pop()
        elif part == ".." and absolute:
            continue  # /.. is /
        else:
            parts.append(part)
    text = "/".join(parts)
    if absolute:
        return "/" + text
    return text or "."


def option_words(argv: list[str]) -> list[str]:
    """The option words of ``argv[1:]`` (before ``--``), dashes normalized."""
    opts: list[str] = []
    for a in argv[1:]:
        a = normalize_option(a)
        if a == "--":
            break
        if a.startswith("-") and len(a) > 1:
            opts.append(a)
    return opts


def option_matches(word: str, flag: str) -> bool:
    """Whether option word ``word`` sets ``flag`` (``-nm`` sets ``-n``; ``--x=1`` sets ``--x``)."""
    if word == flag:
        return True
    if flag.startswith("--"):
        return word.startswith(flag + "=")
    if len(flag) == 2 and flag[0] == "-" and not word.startswith("--"):
        return flag[1] in word[1:]
    return False


def argv_operands(argv: list[str]) -> list[str]:
    """The operands of ``argv[1:]``: words that are not options (a lone ``-`` is an operand;
    every word after ``--`` is one)."""
    out: list[str] = []
    ended = False
    for a in argv[1:]:
        if not ended and normalize_option(a) == "--":
            ended = True
        elif ended or not normalize_option(a).startswith("-") or a == "-":
            out.append(a)
    return out


def argv_has_option(argv: list[str], flag: str) -> bool:
    """Whether ``argv`` carries option ``flag`` (normalized), bundles and ``--x=v`` included."""
    return any(option_matches(w, flag) for w in option_words(argv))


def matching_close(text: str, i: int) -> int:
    """The end (one past it) of the group that ``text[i]`` (``(`` or ``{``) opens, at the same
    level, as bash finds it: quoted and backslash-escaped brackets do not count, inside a
    ``${…}`` and inside double quotes alike (``"${x:-'}'}"``); ``len(text)`` if it never
    closes."""
    opener = text[i]
    closer = ")" if opener == "(" else "}"
    depth, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            end = text.find("'", i + 1)
            i = n if end < 0 else end + 1
            continue
        if c == '"':
            i = _double_quote_end(text, i)
            continue
        if c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _double_quote_end(text: str, i: int) -> int:
    """One past the ``"`` that closes the double quote at ``text[i]``: a ``$(…)`` or ``${…}``
    in it is a group of its own, whose quotes start afresh (``"$(echo ")")"``)."""
    j, n = i + 1, len(text)
    while j < n and text[j] != '"':
        if text[j] == "\\":
            j += 2
        elif text[j] == "$" and text[j + 1 : j + 2] in ("(", "{"):
            j = matching_close(text, j + 1)
        else:
            j += 1
    return j + 1


def is_int(text: str) -> bool:
    """A decimal integer as bash reads one (a sign allowed, ASCII digits only)."""
    digits = text[1:] if text[:1] in "+-" else text
    return digits.isdigit() and digits.isascii()


def single_quoted(text: str) -> str:
    """``text`` as one shell word (``shlex.quote`` would import ``re`` on the hook's path)."""
    return "'" + text.replace("'", "'\\''") + "'"
