"""PowerShell command lines read as PowerShell, in the command shape of ``shell.commands``.

Hosts run PowerShell on Windows (Copilot's ``powershell`` tool, Claude's ``PowerShell``, Codex
with ``powershell.exe -Command``). Each simple command of the line becomes the dict
``shell.commands`` gives for sh (``name``, ``argv``, ``env``, ``span``, ``cwd``, ``via``,
``incomplete``, ``stdin``, ``writes``, ``appends``), with PowerShell's cmdlets and aliases
translated to the POSIX command that does the same, so every guard written for sh covers them:
``Remove-Item -Recurse -Force X`` (``rm``, ``del``, ``rd``, ``ri``, ``erase``) is ``rm -r -f
X``; ``Move-Item`` is ``mv``; ``Copy-Item`` is ``cp``; ``Set-Content``/``Clear-Content``/
``Out-File`` write their file (``Add-Content``, ``Out-File -Append`` append); ``$env:X = v`` is
an assignment ``X=v``; ``Invoke-Expression``/``iex`` of a string, script blocks, ``&``,
``Start-Process`` and ``cmd /c`` run what they are given, and ``iex`` of what a download returns
is fed by it (``fed_by``, as ``curl … | sh``'s shell is). Windows paths map onto POSIX ones
(``$HOME``, ``$env:USERPROFILE``, ``C:\\Users\\<name>`` are ``~``; ``\\`` is ``/``).

The line's state carries from one statement to the next as PowerShell carries it:
``Set-Location``/``Push-Location``/``Pop-Location`` move later commands' relative paths (their
``cwd``), ``$env:NAME = v`` is in every later command's environment (``$env:GIT_DIR``,
``$env:GIT_CONFIG_PARAMETERS`` reach a later ``git``), and ``$name = @{…}`` is splatted by
``@name``. .NET file and directory calls (``[System.IO.File]::WriteAllText(p, t)``,
``[IO.Directory]::Delete(p, $true)``, …) are the commands that do the same. Each command also
has ``files``: its write effects (effects/model.py's ``FILE_OPS``), with the content where the
line shows it (``Set-Content``'s value, ``New-Item -Value``, a .NET call's text).

The reading is lexical and bounded (nesting, size); nothing runs.
"""

from __future__ import annotations

from hookgate.shell.files import FILE_COMMANDS, operand_records
from hookgate.shell.words import join_path

MAX_DEPTH = 8
MAX_STACK = 64  # Push-Location entries kept
PROGRAMS = frozenset({"pwsh", "powershell"})  # (command names: without .exe)

# Cmdlets and their aliases (lower-cased) -> the POSIX command they act as.
_CMDLETS: dict[str, str] = {
    **dict.fromkeys(("remove-item", "rm", "del", "rd", "ri", "erase", "rmdir"), "rm"),
    **dict.fromkeys(("move-item", "mv", "move", "mi", "rename-item", "ren", "rni"), "mv"),
    **dict.fromkeys(("copy-item", "cp", "copy", "cpi", "cpp"), "cp"),
    **dict.fromkeys(("set-content", "sc", "clear-content", "clc", "out-file"), "write"),
    **dict.fromkeys(("add-content", "ac"), "append"),
    **dict.fromkeys(("invoke-expression", "iex"), "iex"),
    **dict.fromkeys(("start-process", "start", "saps"), "start"),
    **dict.fromkeys(("foreach-object", "%", "where-object", "?", "invoke-command", "icm"), "block"),
    **dict.fromkeys(("new-item", "ni"), "new-item"),
    **dict.fromkeys(("set-location", "cd", "sl", "chdir"), "cd"),
    **dict.fromkeys(("push-location", "pushd"), "pushd"),
    **dict.fromkeys(("pop-location", "popd"), "popd"),
    **dict.fromkeys(("write-output", "echo", "write", "write-host"), "echo"),
}
# Parameters by the POSIX flag they become (PowerShell accepts any unambiguous prefix).
_SWITCHES: tuple[tuple[str, int, str], ...] = (("recurse", 1, "-r"), ("force", 2, "-f"))
_PATH_PARAMS = ("path", "literalpath", "filepath", "destination", "pspath")
_VALUE_PARAMS = (
    "filter", "include", "exclude", "value", "encoding", "credential", "itemtype", "argumentlist",
    "workingdirectory", "name", "newname", "stream", "target", "value",
)  # fmt: skip
# Switch parameters: they take no value, so the word after one is an operand.
_FLAG_PARAMS = (
    "append", "noclobber", "confirm", "whatif", "passthru", "nonewline", "wait", "nonewwindow",
    "container", "debug", "verbose",
)  # fmt: skip
_CMD_BUILTINS = {"del": "rm", "erase": "rm", "rd": "rm", "rmdir": "rm", "copy": "cp", "move": "mv"}


# .NET calls by (class, method), lower-cased -> (the POSIX command, the operands it takes from
# the call's arguments: "p" a path, "t" text, "r" a recursive flag, "-" ignored).
_DOTNET: dict[tuple[str, str], tuple[str, str]] = {
    **{("file", m): ("write", "pt") for m in (
        "writealltext", "writealllines", "writeallbytes", "create", "createtext", "openwrite")},
    **{("file", m): ("append", "pt") for m in ("appendalltext", "appendalllines", "appendtext")},
    ("file", "delete"): ("rm", "p"),
    ("file", "copy"): ("cp", "pp"),
    ("file", "move"): ("mv", "pp"),
    ("file", "replace"): ("mv", "pp"),
    ("file", "createsymboliclink"): ("ln", "pp"),
    ("directory", "delete"): ("rm", "pr"),
    ("directory", "move"): ("mv", "pp"),
    ("directory", "createdirectory"): ("mkdir", "p"),
    ("directory", "createsymboliclink"): ("ln", "pp"),
}  # fmt: skip


class _Token:
    __slots__ = ("text", "start", "end", "quoted", "block", "call")

    def __init__(self, text: str, start: int, end: int, quoted: bool, block: bool = False) -> None:
        self.text = text
        self.start = start
        self.end = end
        self.quoted = quoted
        self.block = block  # a { script block }: text is its body
        self.call: list[str] | None = None  # a .NET call's arguments (text: class::method)


class _State:
    """What one statement leaves for the next: variables (a string, or a hashtable to splat),
    the directory (relative to the payload's cwd, None there), Push-Location's stack, and the
    environment ``$env:`` assignments set."""

    __slots__ = ("variables", "cwd", "stack", "env")

    def __init__(self) -> None:
        self.variables: dict[str, str | dict[str, str]] = {}
        self.cwd: str | None = None
        self.stack: list[str | None] = []
        self.env: dict[str, str] = {}


def commands(line: str, cwd: str | None = None, via: list[str] | None = None) -> list[dict]:
    """The simple commands of PowerShell ``line``, in order, as ``shell.commands`` dicts;
    ``cwd``: where the line starts (relative to the payload's cwd, None there), ``via``: what
    runs it (another shell's ``pwsh -Command``)."""
    out: list[dict] = []
    state = _State()
    state.cwd = cwd
    _statements(line, 0, list(via or ()), state, out, 0)
    return out


# pwsh's and powershell.exe's own parameters (about_Pwsh, about_PowerShell_exe): each name with
# the shortest prefix of it the command line accepts and its other documented spellings; a
# parameter is written -Name, --Name or /Name, case-insensitively.
_CLI: dict[str, tuple[str, tuple[str, ...]]] = {
    "command": ("c", ()), "configurationname": ("config", ()),
    "configurationfile": ("configurationfile", ()), "custompipename": ("custompipename", ()),
    "encodedcommand": ("e", ("ec",)), "encodedarguments": ("encodeda", ("ea",)),
    "executionpolicy": ("ex", ("ep",)), "file": ("f", ()), "help": ("h", ("?",)),
    "inputformat": ("inp", ("if",)), "interactive": ("i", ()), "login": ("l", ()),
    "mta": ("mta", ()), "noexit": ("noe", ()), "nologo": ("nol", ()),
    "noninteractive": ("noni", ()), "noprofile": ("nop", ()),
    "noprofileloadtime": ("noprofileloadtime", ()), "outputformat": ("o", ("of",)),
    "settingsfile": ("settings", ()), "sshservermode": ("sshs", ()), "sta": ("sta", ()),
    "version": ("v", ()), "windowstyle": ("w", ()), "workingdirectory": ("wo", ("wd",)),
}  # fmt: skip
# (the ones that take a value; -Command, -File and -EncodedCommand end the reading)
_CLI_VALUED = frozenset({
    "configurationname", "configurationfile", "custompipename", "encodedarguments",
    "executionpolicy", "inputformat", "outputformat", "settingsfile", "windowstyle",
    "workingdirectory",
})  # fmt: skip


def _cli_name(arg: str) -> str | None:
    """The parameter ``arg`` spells (``-nop``, ``-Command``, ``/c``), or None."""
    if len(arg) < 2 or arg[0] not in "-/" or (arg[0] == "/" and "/" in arg[1:]):
        return None
    key = arg.lstrip("-/").split(":", 1)[0].lower()
    found = [
        name
        for name, (shortest, spellings) in _CLI.items()
        if key in spellings or (name.startswith(key) and len(key) >= len(shortest))
    ]
    return found[0] if len(found) == 1 else None


def script_of(name: str, args: list[str]) -> tuple[str | None, str | None]:
    """What ``pwsh``/``powershell`` with ``args`` runs: ``(script, working directory)``. The
    script is ``-Command``'s (with every argument after it, as the shell joins them),
    ``-EncodedCommand``'s decoded, or the first argument that is not a parameter's when the
    program takes that as a command (Windows PowerShell; pwsh takes it as ``-File``). None when
    it runs a file, standard input (``-Command -``) or something the arguments do not show."""
    workdir = None
    k = 0
    while k < len(args):
        arg = args[k]
        cli = _cli_name(arg)
        if cli is None:
            if name.lower().startswith("powershell") and not arg.startswith("-"):
                return " ".join(args[k:]), workdir
            return None, workdir
        if cli == "command":
            rest = args[k + 1 :]
            return (None if rest[:1] == ["-"] or not rest else " ".join(rest)), workdir
        if cli == "encodedcommand":
            return _decoded(args[k + 1] if k + 1 < len(args) else ""), workdir
        if cli in ("file", "version", "help"):
            return None, workdir
        if cli in _CLI_VALUED:
            value = (
                arg.split(":", 1)[1] if ":" in arg else (args[k + 1] if k + 1 < len(args) else "")
            )
            workdir = value if cli == "workingdirectory" else workdir
            k += 0 if ":" in arg else 1
        k += 1
    return None, workdir


def _decoded(text: str) -> str | None:
    """``-EncodedCommand``'s value: base64 of the script's UTF-16LE."""
    import base64
    import binascii

    try:
        return base64.b64decode(text, validate=True).decode("utf-16-le")
    except (binascii.Error, ValueError):
        return None


def _statements(
    text: str, offset: int, via: list[str], state: _State, out: list[dict], depth: int
) -> None:
    producer = None
    for statement, piped in _split(text):
        before = len(out)
        _statement(statement, offset, via, state, out, depth, producer if piped else None)
        producer = out[-1] if len(out) > before else None


def _split(text: str) -> list[tuple[list[_Token], bool]]:
    """Tokens of each pipeline element: split on ``;``, newlines, ``|``, ``&&``, ``||``; each
    with whether a ``|`` feeds it the output of the one before."""
    groups: list[list[_Token]] = [[]]
    piped = [False]
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r":
            i += 1
        elif c in ";\n|" or text.startswith("&&", i):
            pipe = c == "|" and not text.startswith("||", i)
            if groups[-1]:
                groups.append([])
                piped.append(pipe)
            i += 2 if text.startswith(("&&", "||"), i) else 1
        elif c == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif c in "<>" or (c.isdigit() and i + 1 < n and text[i + 1] == ">"):
            j = i
            while j < n and text[j] in "0123456789*>&<":
                j += 1
            groups[-1].append(_Token(text[i:j], i, j, False))
            i = j
        elif c == "[" and _dotnet_head(text, i) is not None:
            i = _dotnet_call(text, i, groups[-1])
        elif c == "{":
            j = _matching(text, i, "{", "}")
            groups[-1].append(_Token(text[i + 1 : j - 1], i, j, False, block=True))
            i = j
        else:
            i = _word(text, i, groups[-1])
    return [(g, p) for g, p in zip(groups, piped, strict=True) if g]


def _dotnet_head(text: str, i: int) -> tuple[str, str, int] | None:
    """``[System.IO.File]::Method(`` at ``i``: (class, method, index of the ``(``), else None."""
    close = text.find("]::", i, i + 40)
    if close < 0:
        return None
    cls = text[i + 1 : close].lower().replace(" ", "")
    cls = cls.removeprefix("system.").removeprefix("io.")
    j = close + 3
    k = j
    while k < len(text) and (text[k].isalnum() or text[k] == "_"):
        k += 1
    paren = k
    while paren < len(text) and text[paren] in " \t":
        paren += 1
    if cls not in ("file", "directory") or k == j or paren >= len(text) or text[paren] != "(":
        return None
    return cls, text[j:k].lower(), paren


def _dotnet_call(text: str, i: int, tokens: list[_Token]) -> int:
    """A .NET call as one token: ``class::method`` with its arguments, each unquoted."""
    cls, method, paren = _dotnet_head(text, i)  # type: ignore[misc]
    end = _matching(text, paren, "(", ")")
    inner: list[_Token] = []
    k = paren + 1
    while k < end - 1:
        c = text[k]
        if c in " \t,\r\n":
            k += 1
            continue
        k = _word(text, k, inner, stop=",)")
    token = _Token(f"{cls}::{method}", i, end, False)
    token.call = [t.text for t in inner]
    tokens.append(token)
    return end


def _matching(text: str, i: int, open_: str, close: str) -> int:
    """The index after the bracket closing the one at ``i`` (quotes respected)."""
    level, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "'\"":
            i = _quoted_end(text, i)
            continue
        if c == "`":
            i += 2
            continue
        if c == open_:
            level += 1
        elif c == close:
            level -= 1
            if level == 0:
                return i + 1
        i += 1
    return n


def _quoted_end(text: str, i: int) -> int:
    quote, j, n = text[i], i + 1, len(text)
    while j < n:
        if text[j] == "`" and quote == '"':
            j += 2
            continue
        if text[j] == quote:
            if j + 1 < n and text[j + 1] == quote:  # '' or "" inside: one quote
                j += 2
                continue
            return j + 1
        j += 1
    return n


def _word(text: str, i: int, tokens: list[_Token], stop: str = "") -> int:
    """One word from ``i``: quotes removed, backtick escapes applied, ``$(…)`` kept whole;
    ``stop``: more characters that end it (a .NET call's ``,`` and ``)``)."""
    start, n = i, len(text)
    parts: list[str] = []
    quoted = False
    ends = " \t\r\n;|{}" + stop
    while i < n and text[i] not in ends and not text.startswith("&&", i):
        c = text[i]
        if c in "'\"":
            end = _quoted_end(text, i)
            body = text[i + 1 : end - 1] if end - i >= 2 else text[i + 1 :]
            parts.append(body.replace(c * 2, c) if c == "'" else _unescape(body))
            quoted = True
            i = end
        elif c == "`" and i + 1 < n:
            parts.append(text[i + 1])
            i += 2
        elif c == "$" and i + 1 < n and text[i + 1] == "(":
            end = _matching(text, i + 1, "(", ")")
            parts.append(text[i:end])
            i = end
        elif c == "(" and not parts:
            end = _matching(text, i, "(", ")")
            parts.append(text[i:end])
            i = end
        elif c in "<>" and not quoted:
            break
        else:
            parts.append(c)
            i += 1
    tokens.append(_Token("".join(parts), start, i, quoted))
    return max(i, start + 1)


def _unescape(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        if body[i] == "`" and i + 1 < len(body):
            out.append({"n": "\n", "t": "\t", "0": "\0"}.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def _statement(
    tokens: list[_Token],
    offset: int,
    via: list[str],
    state: _State,
    out: list[dict],
    depth: int,
    producer: dict | None = None,
) -> None:
    if depth > MAX_DEPTH:
        return
    writes: list[str] = []
    appends: list[str] = []
    words: list[_Token] = []
    k = 0
    while k < len(tokens):
        t = tokens[k]
        if not t.quoted and not t.block and t.text and t.text[-1] == ">" and "&" not in t.text:
            target = tokens[k + 1].text if k + 1 < len(tokens) else ""
            if target and target != "$null":
                (appends if t.text.endswith(">>") else writes).append(_posix_path(target))
            k += 2
            continue
        words.append(t)
        k += 1
    if not words:
        return
    span = [offset + tokens[0].start, offset + tokens[-1].end] if not via else None
    head = words[0]
    if head.block:
        _statements(head.text, offset + head.start + 1, via, state, out, depth + 1)
        return
    if head.call is not None:
        out.append(_dotnet(head, state, span, via))
        return
    text = head.text
    # $env:NAME = value, $name = value, $name = @{ Key = value; … }
    if text.startswith("$") and (
        (len(words) >= 3 and words[1].text == "=") or text.endswith("=") or "=" in text
    ):
        if len(words) == 4 and words[2].text == "@" and words[3].block and words[1].text == "=":
            state.variables[text[1:].lower()] = _hashtable(words[3].text)
            return
        name, value = _assignment(words)
        if name is not None:
            if name.lower().startswith("env:"):
                state.env[name[4:]] = value
                out.append(_command("", [], {name[4:]: value}, span, via, writes, appends, state))
            else:
                state.variables[name.lower()] = value
            return
    if text in ("&", ".") and len(words) > 1:
        words = words[1:]
        head = words[0]
    elif head.quoted and len(words) == 1:  # a string alone is output: 'exit 0' | Out-File f
        out.append(_command("echo", ["echo", text], {}, span, via, writes, appends, state))
        return
    name = _name(head.text)
    args = _arguments(words[1:], state)
    role = _CMDLETS.get(name)
    blocks = [w for w in words[1:] if w.block]
    for b in blocks:
        _statements(b.text, offset + b.start + 1, [*via, name], state, out, depth + 1)
    if role == "iex":
        # what a download returns, run: irm u | iex, iex (iwr u).Content, $s = irm u; iex $s
        unseen = [_value(w, state) for w in words[1:] if not w.quoted and w.text[:1] in "($"]
        if (producer is not None and producer["name"] in _FETCHERS) or any(map(_fetches, unseen)):
            ran = _command("iex", [name, *args], {}, span, via, writes, appends, state)
            ran["fed_by"] = ["curl"]
            out.append(ran)
        for a in args:
            if a and not a.startswith(("$", "(")):
                _statements(a, 0, [*via, "iex"], state, out, depth + 1)
        return
    if role == "start":
        argv = _start_process(args)
        if argv:
            out.append(
                _command(_name(argv[0]), argv, {}, None, [*via, "start-process"], [], [], state)
            )
        return
    if name in ("cmd", "cmd.exe") and any(a.lower() in ("/c", "/k") for a in args):
        body = " ".join(args[[a.lower() for a in args].index("/c" if "/c" in args else "/k") + 1 :])
        _cmd_line(body, [*via, "cmd"], out, depth + 1, state)
        return
    if name in PROGRAMS and args:
        script, workdir = script_of(name, args)
        if script is not None:
            # a process of its own: the environment and directory are inherited, variables not
            inner = _State()
            inner.cwd = join_path(state.cwd, _posix_path(workdir)) if workdir else state.cwd
            inner.env = dict(state.env)
            _statements(script, 0, [*via, name], inner, out, depth + 1)
        return
    content = None
    if role == "rm" and producer is not None and not _paths(args):
        argv = [role, *_translate(args), *_piped_items(producer)]
    elif role in ("rm", "mv", "cp"):
        argv = [role, *_translate(args)]
    elif role in ("write", "append"):
        paths = _paths(args)
        content = _content(name, args, paths, producer)
        appending = role == "append" or (name == "out-file" and _has_switch(args, "append"))
        (appends if appending else writes).extend(paths[:1])
        argv = [name]
    elif role == "new-item":
        argv = _new_item(args)
        if argv[0] == "touch":  # a file, with its -Value
            writes += argv[1:]
            content = _param(args, "value") or ""
            argv = ["new-item"]
    elif role in ("cd", "pushd", "popd"):
        _move(state, role, _paths(args)[:1])
        return
    else:
        argv = [name, *(_posix_path(a) if _looks_like_path(a) else a for a in args)]
    cmd = _command(argv[0] if argv else name, argv, {}, span, via, writes, appends, state)
    _record(cmd, content)
    out.append(cmd)


def _move(state: _State, role: str, paths: list[str]) -> None:
    """Set-Location/Push-Location to a path (relative to where the line is), Pop-Location."""
    if role == "popd":
        if state.stack:
            state.cwd = state.stack.pop()
        return
    if role == "pushd" and len(state.stack) < MAX_STACK:
        state.stack.append(state.cwd)
    if paths:
        state.cwd = join_path(state.cwd, paths[0])


def _arguments(words: list[_Token], state: _State) -> list[str]:
    """The words' values: a variable the line set replaced, ``@name`` of a hashtable splatted
    as ``-Key value`` pairs (of a string: its comma-separated items, positional)."""
    args: list[str] = []
    for w in words:
        if w.block:
            continue
        if w.text.startswith("@") and not w.quoted and len(w.text) > 1:
            value = state.variables.get(w.text[1:].lower())
            if isinstance(value, dict):
                for key, v in value.items():
                    args += [f"-{key}", v] if v.lower() not in ("$true", "") else [f"-{key}"]
                continue
            if isinstance(value, str):
                args += [item.strip().strip("'\"") for item in value.split(",")]
                continue
        args.append(_value(w, state))
    return args


def _hashtable(body: str) -> dict[str, str]:
    """``Key = value; Key2 = 'v'`` (a hashtable literal's body) as keys and unquoted values."""
    table: dict[str, str] = {}
    for entry in _entries(body):
        key, eq, value = entry.partition("=")
        key = key.strip().strip("'\"")
        if eq and key:
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            table[key] = value
    return table


def _entries(body: str) -> list[str]:
    """A hashtable body split on ``;`` and newlines outside quotes."""
    entries, start, i = [], 0, 0
    while i < len(body):
        if body[i] in "'\"":
            i = _quoted_end(body, i)
            continue
        if body[i] in ";\n":
            entries.append(body[start:i])
            start = i + 1
        i += 1
    return [*entries, body[start:]]


def _param(args: list[str], full: str) -> str | None:
    """The value of parameter ``-full`` (any unambiguous prefix, ``-P:v`` too), else None."""
    for k, a in enumerate(args):
        if a.startswith("-") and len(a) > 2:
            name, colon, value = a[1:].partition(":")
            if full.startswith(name.lower()):
                if colon:
                    return value
                return args[k + 1] if k + 1 < len(args) else None
    return None


def _content(name: str, args: list[str], paths: list[str], producer: dict | None) -> str | None:
    """What Set-Content/Add-Content/Out-File write: ``-Value`` (``-InputObject``), else the
    second positional argument, else what an echo piped to them prints; Clear-Content: ""."""
    if name in ("clear-content", "clc"):
        return ""
    value = _param(args, "value") or _param(args, "inputobject")
    if value is None and len(paths) > 1 and _param(args, "path") is None:
        value = paths[1]
    if value is None and producer is not None and producer["name"] == "echo":
        value = " ".join(producer["argv"][1:])
    return None if value is None else value + ("" if _has_switch(args, "nonewline") else "\n")


def _dotnet(call: _Token, state: _State, span: list[int] | None, via: list[str]) -> dict:
    """A .NET file or directory call as the command that does the same (``_DOTNET``)."""
    cls, method = call.text.split("::")
    args = [_posix_path(a) if k == 0 else a for k, a in enumerate(call.call or [])]
    role, shape = _DOTNET.get((cls, method), ("dotnet", ""))
    paths = [_posix_path(a) for a, kind in zip(args, shape, strict=False) if kind == "p"]
    texts = [a for a, kind in zip(args, shape, strict=False) if kind == "t"]
    recursive = any(
        kind == "r" and a.lower() == "$true" for a, kind in zip(args, shape, strict=False)
    )
    writes: list[str] = []
    appends: list[str] = []
    content = None
    if role in ("write", "append"):
        (writes if role == "write" else appends).extend(paths[:1])
        content = texts[0] if texts else ""
        argv = [call.text]
    elif role == "rm":
        argv = ["rm", *(["-r", "-f"] if recursive else []), *paths]
    elif role == "ln":  # CreateSymbolicLink(path, target)
        argv = ["ln", "-s", *paths[1:], *paths[:1]]
    else:
        argv = [role, *paths] if role != "dotnet" else [call.text, *args]
    cmd = _command(argv[0], argv, {}, span, via, writes, appends, state)
    _record(cmd, content)
    return cmd


def _record(cmd: dict, content: str | None) -> None:
    """The write effects of a translated command (shell/files.py's shape): its ``writes`` and
    ``appends`` with ``content``, what rm/cp/mv/ln/mkdir do to their operands."""
    files, cwd, argv = cmd["files"], cmd["cwd"], cmd["argv"]

    def add(op: str, path: str, text: str | None = None, source: str | None = None) -> None:
        files.append({"op": op, "path": path, "from": source, "content": text, "mode": None})

    for op in ("writes", "appends"):
        for path in cmd[op]:
            add("write" if op == "writes" else "append", join_path(cwd, path), content)
    name = cmd["name"]
    if name in FILE_COMMANDS:  # with how far each reaches (Remove-Item -Recurse: a tree)
        files.extend(operand_records(name, argv, cwd))
        return
    operands = [a for a in argv[1:] if not a.startswith("-")]
    if name in ("cp", "mv", "ln") and len(operands) >= 2:
        dest = join_path(cwd, operands[-1])
        for src in operands[:-1]:
            source = join_path(cwd, src)
            if name == "mv":
                add("delete", source)
            add({"cp": "copy", "mv": "move", "ln": "link"}[name], dest, None, source)


def _assignment(words: list[_Token]) -> tuple[str | None, str]:
    # quotes are already removed from each word: $p='push' is the word $p=push
    joined = " ".join(w.text for w in words)
    name, eq, value = joined.partition("=")
    name = name.strip()[1:]
    if not eq or not name or " " in name:
        return None, ""
    return name, value.strip()


# Cmdlets whose output piped to Remove-Item is the items of a directory.
_LISTINGS = frozenset(("get-childitem", "gci", "ls", "dir"))


def _piped_items(producer: dict) -> list[str]:
    """What Remove-Item deletes when a pipeline feeds it: the items under the directory
    ``Get-ChildItem DIR`` lists (``DIR/*``; with ``-Recurse``, the whole tree: ``-r``), else
    objects the line does not show (``$input``)."""
    if producer["name"] not in _LISTINGS:
        return ["$input"]
    listed = _translate(producer["argv"][1:])
    paths = [p for p in listed if not p.startswith("-")]
    tree = ["-r"] if "-r" in listed else []
    return [*tree, (paths[0] if paths else ".").rstrip("/") + "/*"]


# What fetches from the network: cmdlets (and the curl and wget aliases of Windows PowerShell)
# and .NET calls, as written (lower-cased). Their output, run, is a download run: for the guards
# that read fed_by it is curl's, the POSIX command that does the same.
_FETCHERS = frozenset(
    ("invoke-webrequest", "iwr", "invoke-restmethod", "irm", "curl", "wget", "start-bitstransfer")
)
_FETCH_CALLS = (".downloadstring(", ".downloaddata(", ".downloadfile(", ".getstringasync(")
_PS_WORD_ENDS = str.maketrans(dict.fromkeys("(){};|,=", " "))


def _fetches(text: str) -> bool:
    """Whether PowerShell ``text`` (a subexpression, a variable's value) calls something that
    fetches from the network."""
    low = text.lower()
    return any(call in low for call in _FETCH_CALLS) or not _FETCHERS.isdisjoint(
        low.translate(_PS_WORD_ENDS).split()
    )


def _name(word: str) -> str:
    name = word.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name[:-4] if name.endswith(".exe") else name


def _value(word: _Token, state: _State) -> str:
    if word.text.startswith("$") and not word.quoted:
        value = state.variables.get(word.text[1:].lower())
        if isinstance(value, str):
            return value
    return word.text


def _switch(arg: str) -> str | None:
    """The POSIX flag a PowerShell switch parameter becomes (``-Recurse``, ``-rec`` → ``-r``)."""
    if not arg.startswith("-") or len(arg) < 2:
        return None
    name = arg[1:].split(":", 1)[0].lower()
    if arg.lower().endswith(":$false"):
        return None
    for full, shortest, flag in _SWITCHES:
        if len(name) >= shortest and full.startswith(name):
            return flag
    return None


def _has_switch(args: list[str], full: str) -> bool:
    return any(a.startswith("-") and full.startswith(a[1:].lower()) and len(a) > 2 for a in args)


def _translate(args: list[str]) -> list[str]:
    """PowerShell parameters → POSIX flags and path operands."""
    flags: list[str] = []
    paths: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        flag = _switch(a)
        if flag is not None:
            flags.append(flag)
        elif a.startswith("-") and len(a) > 1 and not a[1].isdigit():
            param = a[1:].split(":", 1)[0].lower()
            takes_path = any(p.startswith(param) for p in _PATH_PARAMS)
            switch = any(p.startswith(param) for p in _FLAG_PARAMS) and len(param) > 1
            if i + 1 < len(args) and ":" not in a and not switch:
                if takes_path:
                    paths.extend(_posix_path(p) for p in args[i + 1].split(","))
                i += 1
        else:
            paths.extend(_posix_path(p) for p in a.split(",") if p)
        i += 1
    return [*flags, *paths]


def _paths(args: list[str]) -> list[str]:
    return [p for p in _translate(args) if not p.startswith("-") or p == "-"]


def _new_item(args: list[str]) -> list[str]:
    """``New-Item -ItemType SymbolicLink -Path X -Target Y`` is ``ln -s Y X``; other items
    are created (``touch``)."""
    lowered = [a.lower() for a in args]
    kind = ""
    target = ""
    for i, a in enumerate(lowered):
        if a.startswith("-it") and i + 1 < len(args):
            kind = lowered[i + 1]
        if a.startswith(("-target", "-value")) and i + 1 < len(args):
            target = _posix_path(args[i + 1])
    paths = [p for p in _translate(args) if not p.startswith("-")]
    if kind in ("symboliclink", "hardlink", "junction"):
        return ["ln", "-s", target, *paths[:1]]
    return ["mkdir" if kind == "directory" else "touch", *paths[:1]]


def _start_process(args: list[str]) -> list[str]:
    program, rest = "", []
    i = 0
    while i < len(args):
        a = args[i].lower()
        if a.startswith("-f") and i + 1 < len(args):  # -FilePath
            program = args[i + 1]
            i += 2
            continue
        if a.startswith("-a") and i + 1 < len(args):  # -ArgumentList
            rest += [x for part in args[i + 1].split(",") for x in part.split()]
            i += 2
            continue
        if not a.startswith("-") and not program:
            program = args[i]
        elif not a.startswith("-"):
            rest += args[i].split()
        i += 1
    return [program, *rest] if program else []


def _cmd_line(body: str, via: list[str], out: list[dict], depth: int, state: _State) -> None:
    """A ``cmd /c`` line: ``&``/``&&``/``|`` separate commands; ``del /s /q`` is ``rm -r -f``."""
    for part in body.replace("&&", "&").replace("||", "&").replace("|", "&").split("&"):
        words = part.split()
        if not words:
            continue
        name = _name(words[0].strip('"'))
        role = _CMD_BUILTINS.get(name)
        args = [w.strip('"') for w in words[1:]]
        if role is None:
            argv = [name, *args]
        else:
            flags = ["-r"] if any(a.lower() == "/s" for a in args) else []
            flags += ["-f"] if any(a.lower() == "/q" for a in args) else []
            argv = [role, *flags, *(_posix_path(a) for a in args if not a.startswith("/"))]
        cmd = _command(argv[0], argv, {}, None, via, [], [], state)
        _record(cmd, None)  # rd /s /q DIR: a delete of the tree, for every file guard
        out.append(cmd)


def _looks_like_path(arg: str) -> bool:
    return (
        "\\" in arg
        or arg.startswith(("~", "$HOME", "$env:", "%"))
        or (len(arg) > 2 and arg[1] == ":" and arg[0].isalpha())
    )


def _posix_path(path: str) -> str:
    """A Windows or PowerShell path in the spelling the sh guards know: ``$HOME``,
    ``$env:USERPROFILE``, ``%USERPROFILE%`` and ``C:\\Users\\<name>`` become ``~``; a drive
    root becomes ``/``; separators become ``/``."""
    p = path.replace("\\", "/")
    lowered = p.lower()
    for prefix in ("$home", "${home}", "$env:userprofile", "$env:home", "%userprofile%", "~"):
        if lowered == prefix or lowered.startswith(prefix + "/"):
            return "~" + p[len(prefix) :]
    if len(p) >= 2 and p[1] == ":" and p[0].isalpha():
        rest = p[2:] or "/"
        parts = rest.split("/")
        if len(parts) >= 3 and parts[1].lower() == "users" and parts[2]:
            return "~" + ("/" + "/".join(parts[3:]) if len(parts) > 3 else "")
        return rest if rest.startswith("/") else "/" + rest
    return p


def _command(
    name: str,
    argv: list[str],
    env: dict,
    span: list[int] | None,
    via: list[str],
    writes: list[str],
    appends: list[str],
    state: _State,
) -> dict:
    return {
        "name": name,
        "argv": argv,
        "kinds": [_kind(a) for a in argv],
        "env": {**state.env, **env},  # $env: set earlier in the line, as the process has it
        "span": span,
        "cwd": state.cwd,
        "via": list(via),
        "incomplete": False,
        "stdin": None,
        "writes": writes,
        "appends": appends,
        "files": [],
        "fed_by": [],
    }


def _kind(word: str) -> str | None:
    """What a word may be when the line does not show it (see ``shell.commands``' kinds): a
    variable the line did not set (the known ones are replaced already), a command's output."""
    if word.startswith("$("):
        return "unknown-output"
    if word.startswith("$") and len(word) > 1 and word.lower() not in ("$true", "$false", "$null"):
        return "unknown-variable"
    return None
