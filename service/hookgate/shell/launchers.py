"""Programs that run other programs: what each launcher of ``launchers.txt`` (read in
``launcher_table``) runs (``unwrap``): wrappers (``sudo``, ``env``, ``timeout``), shells and
their ``-c`` scripts, ``eval``, package runners, containers (read in ``containers``), awk
programs (read in ``awk``), makefile recipes, ``parallel`` jobs, ``find -exec``, the programs git
itself runs; and whether a command reads its script on stdin.
"""

from __future__ import annotations

from hookgate.shell.awk import awk_runs
from hookgate.shell.containers import container_runs
from hookgate.shell.expansion import is_unknown
from hookgate.shell.launcher_table import ONE_LINERS, TABLES, options_end
from hookgate.shell.words import Command, Word, normalize_option, single_quoted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from hookgate.shell.expansion import Value

_SUFFIXES = {s: name for name, suffixes in TABLES["script-suffixes"].items() for s in suffixes}
_RUNNERS = frozenset(key.split()[0] for key in TABLES["package-runners"])


SHELLS = frozenset(TABLES["shells"])

# Which programs run other programs, and how.
_WRAPPER_VALUES = TABLES["wrappers"]
_TRANSPARENT = frozenset(_WRAPPER_VALUES)
_OPERAND_FIRST = frozenset(TABLES["operand-first"])
_LEADING = frozenset(TABLES["leading-operand"])
_SCRIPT_OPTIONS = TABLES["wrapper-scripts"]
SCRIPT_FILES = TABLES["script-files"]
FILE_READERS = frozenset(TABLES["file-readers"])
_SHELL_VALUES = frozenset().union(*TABLES["shells"].values())
_TMUX_STARTS = frozenset(TABLES["tmux-starts"])
_TMUX_VALUES = TABLES["option-values"]["tmux"]
_SSH_VALUES = TABLES["option-values"]["ssh"]
_PARALLEL_VALUES = TABLES["option-values"]["parallel"]


def wrapper_env(name: str, own: list[Word]) -> dict[str, str]:
    """The variables ``env``-like wrappers set for the command they run (``env A=1 cmd``,
    ``cross-env A=1 cmd``, ``sudo A=1 cmd``)."""
    if name not in ("env", "cross-env", "sudo"):
        return {}
    found = {}
    for w in own[1:]:
        var, eq, value = w.text.partition("=")
        if eq and var.isidentifier():
            found[var] = value
    return found


def unwrap(
    name: str, words: list[Word], printed: Callable[[str], str | None]
) -> tuple[Any, int | list[Word]]:
    """What ``words`` runs besides itself: ``("argv", inner, extra)``, ``("script", words)``,
    ``("scripts", words)`` (each word a script of its own), ``("printed", text)`` (a script
    that is not in the original text), ``("file", path)`` (a script file), ``("formatted",
    path, read)`` (a file of commands in the program's own format, a makefile or a crontab, and
    ``read``, which makes a script of its text: ``script_format``), ``("interpreted",
    interpreter, script word, its arguments)`` (``python3 -u w.py
    a``: an [interpreters] program running a script file) or ``("container", argvs, mounts,
    workdir)`` (each argv may be what runs in a container).

    The second value is how many words belong to the wrapper itself (or those words).
    ``printed`` is what a command substitution prints, when the line shows it (None if not):
    ``eval "$(echo …)"`` and ``bash <(echo …)`` run that.
    """
    n = len(words)
    if name == "git":
        return None, n  # what git runs follows from its parse, with the line's state: git_runs
    script = _script_option(name, words)
    if script is not None:
        return script
    if name in _TRANSPARENT:
        if name == "command" and any(w.text in ("-v", "-V") for w in words[1:2]):
            return None, n  # command -v git: a lookup, nothing runs
        if name == "env":
            for k, w in enumerate(words[1:], 1):
                a = w.text
                if a in ("-S", "--split-string") and k + 1 < n:
                    return ("script", [words[k + 1]]), k + 2
                if a.startswith("--split-string="):
                    head = Word(a.split("=", 1)[1], None, w.literal)
                    return ("script", [head] + words[k + 1 :]), k + 1
                if a.startswith("-S") and len(a) > 2:  # -S'rm -rf ~'
                    head = Word(a[2:], None, w.literal)
                    return ("script", [head] + words[k + 1 :]), k + 1
        # sudo takes VAR=value before its command too (sudo A=1 rm -rf ~)
        env_like = name in ("env", "cross-env", "cross-env-shell", "sudo")
        start = 2 if name in _LEADING and n > 1 and not words[1].text.startswith("-") else 1
        k = options_end(words, start, _WRAPPER_VALUES[name], skip_assignments=env_like)
        if name in _OPERAND_FIRST and k < n:
            k += 1  # the duration / lock file / new root / mask / priority
        if name == "cross-env-shell":  # its command is a shell script
            return (("script", words[k:]), k) if k < n else (None, n)
        if name == "chroot" and k < n:  # the new root is its command's /, and its directory
            return ("container", [words[k:]], [("/", words[k - 1].text)], "/"), k
        return (("argv", words[k:], []), k) if k < n else (None, n)
    if name in SHELLS:
        k = 1
        script = False
        while k < n:
            a = words[k].text
            if a == "--":
                k += 1
                break
            if a in _SHELL_VALUES:
                k += 2
                continue
            if a.startswith(("-", "+")) and len(a) > 1:
                if not a.startswith("--") and "c" in a[1:]:
                    script = True
                k += 1
                continue
            break
        if script and k < n:
            return ("script", [words[k]]), n
        return _sourced(words[k : k + 1], printed), n
    if name in ("source", "."):
        return _sourced(words[1:2], printed), n
    if name in TABLES["operands-are-a-script"]:  # watch -n 1 'cmd': a shell runs the operands
        k = options_end(words, 1, TABLES["operands-are-a-script"][name])
        return (("script", words[k:]), k) if k < n else (None, n)
    if name in TABLES["operands-are-scripts"]:
        k = options_end(words, 1, TABLES["operands-are-scripts"][name])
        return (("scripts", words[k:]), k) if k < n else (None, n)
    if name in TABLES["argv-options"]:  # nix develop -c git push: git push
        options = TABLES["argv-options"][name]
        k = next((k for k in range(1, n) if words[k].text in (*options, "--")), n)
        if k < n and words[k].text != "--":  # else nix run nixpkgs#git …: a package runner
            return (("argv", words[k + 1 :], []), k + 1) if k + 1 < n else (None, n)
    if name == "sg":  # sg GROUP [-c] SCRIPT [ARG0 …]: /bin/sh -c SCRIPT
        k = 1 + (words[1].text == "-" if n > 1 else 0)
        k += 1 + (k + 1 < n and words[k + 1].text == "-c")
        return (("script", [words[k]]), n) if k < n else (None, n)
    if name in TABLES["multiplexers"] and n > 1:  # busybox rm -rf ~: the applet is the command
        return ("argv", words[1:], []), 1
    if name in TABLES["awks"]:
        return awk_runs(words, SHELLS)
    if name in TABLES["makes"]:
        return ("formatted", _makefile(words), make_recipes), n
    if name in TABLES["crontabs"]:
        table = _crontab_file(words)
        return (
            (("formatted", table, crontab_commands), n) if table not in (None, "-") else (None, n)
        )
    runner = _package_runner(name, words)
    if runner is not None:
        return runner
    if name in TABLES["containers"]:
        return container_runs(name, words)
    if name == "tmux":
        k = options_end(words, 1, _TMUX_VALUES)
        if k < n and words[k].text in _TMUX_STARTS:
            start = options_end(words, k + 1, _TMUX_VALUES)
            return (("script", words[start:]), n) if start < n else (None, n)
        return None, n
    if name == "kubectl":  # kubectl exec POD -- cmd …: like ssh, on another machine
        if "exec" in (w.text for w in words[1:3]):
            end = next((k for k, w in enumerate(words) if w.text == "--"), n)
            return (("argv", words[end + 1 :], []), end + 1) if end + 1 < n else (None, n)
        return None, n
    if name == "eval":
        # eval "$(echo …)" parses what echo prints, redirections included.
        text = printed(words[1].text) if n == 2 else None
        if text is not None:
            return ("printed", text), n
        return (("script", words[1:]), n) if n > 1 else (None, n)
    if name == "ssh":
        k = options_end(words, 1, _SSH_VALUES)
        if k + 1 < n:
            return ("script", words[k + 1 :]), k + 1
        return None, n
    if name == "parallel":
        return _parallel_runs(words)
    if name in TABLES["path-execs"]:
        return _find_exec(name, words)
    interpreter = name.rstrip("0123456789.")
    if interpreter in ONE_LINERS:
        return _interpreted(interpreter, words)
    return None, n


def interpreter_of(name: str) -> str | None:
    """The [interpreters] entry of program ``name`` (python3.12: python), or None."""
    interpreter = name.rstrip("0123456789.")
    return interpreter if interpreter in ONE_LINERS else None


def runs_stdin(cmd: Command) -> bool:
    """Whether ``cmd`` runs what it reads on stdin as code: a shell without ``-c`` or a
    script (``reads_script_from_stdin``), an interpreter without code, module or script file
    (``python3``, ``node -``)."""
    if reads_script_from_stdin(cmd):
        return True
    interpreter = interpreter_of(cmd.name)
    if interpreter is None:
        return False
    stops = TABLES["interpreter-stops"].get(interpreter, frozenset())
    values = TABLES["interpreters"][interpreter]
    k = 1
    while k < len(cmd.words):
        a = cmd.words[k].text
        if a in stops or a.split("=", 1)[0] in stops:
            return a == "-"
        if not a.startswith("-") or a == "--":
            return False  # a script file
        k += 2 if a in values else 1
    return True


def _interpreted(interpreter: str, words: list[Word]) -> tuple[Any, int]:
    """``python3 -u w.py a b``: ``("interpreted", interpreter, script word, its arguments)``;
    None when it runs no script file (``-c``, ``-m``, stdin)."""
    n = len(words)
    values = TABLES["interpreters"][interpreter]
    stops = TABLES["interpreter-stops"].get(interpreter, frozenset())
    k = 1
    while k < n:
        a = words[k].text
        if a == "--":
            k += 1
            break
        if a in stops or a.split("=", 1)[0] in stops:
            return None, n
        if a in values:
            k += 2
            continue
        if a.startswith("-") and len(a) > 1:
            # a bundle of short options: one that takes a value or stops ends it (-uc, -Wi)
            if not a.startswith("--") and any("-" + c in stops for c in a[1:]):
                return None, n
            k += 1
            continue
        if a in stops:
            return None, n
        break
    if k >= n:
        return None, n
    return ("interpreted", interpreter, words[k], words[k + 1 :]), n


def script_word(name: str, words: list[Word]) -> str | None:
    """The script file a shell, ``source`` or an interpreter runs (``bash -o x w.sh``,
    ``python3 -W ignore w.py``), which it reads, not writes; None for other commands."""
    if name in ("source", "."):
        return words[1].text if len(words) > 1 else None
    if name in SHELLS:
        inner, _ = unwrap(name, words, lambda _: None)
        return inner[1] if inner is not None and inner[0] == "file" else None
    interpreter = interpreter_of(name)
    if interpreter is None:
        return None
    found = _interpreted(interpreter, words)[0]
    return found[2].text if found is not None else None


def shebang(text: str) -> str | None:
    """The program a script's ``#!`` line names (``#!/usr/bin/env -S python3 -u``: python3),
    or None."""
    if not text.startswith("#!"):
        return None
    words = text[2 : text.find("\n") if "\n" in text else len(text)].split()
    if words and words[0].rsplit("/", 1)[-1] == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    return words[0].rsplit("/", 1)[-1] if words else None


def suffix_interpreter(path: str, via: list[str]) -> str | None:
    """What a package runner (the last of ``via``) runs the file ``path`` with, by its suffix
    ([script-suffixes]): ``uv run w.py`` runs python. None when no runner runs it."""
    if not via or via[-1] not in _RUNNERS:
        return None
    dot = path.rfind(".")
    return _SUFFIXES.get(path[dot:]) if dot > path.rfind("/") else None


def script_files(
    spec: frozenset[str], words: list[Word], env: dict[str, str], variables: dict[str, Value]
) -> list[str]:
    """The script files a program runs by an option or an environment variable of ``spec``
    (the [script-files] table): ``at -f job.sh``, ``bash --rcfile x``, ``BASH_ENV=x bash``."""
    found = []
    argv = [w.text for w in words]
    for k, a in enumerate(argv[1:], 1):
        for option in spec:
            if a == option and k + 1 < len(argv):
                found.append(argv[k + 1])
            elif option.startswith("--") and a.startswith(option + "="):
                found.append(a[len(option) + 1 :])
            elif len(option) == 2 and a.startswith(option) and len(a) > 2 and a[1] != "-":
                found.append(a[2:])
    for name in spec:
        if not name.startswith("-"):
            value = env.get(name)
            if value is None and name in variables and not is_unknown(variables[name].kind):
                value = variables[name].text
            if value:
                found.append(value)
    return found


def _script_option(name: str, words: list[Word]) -> tuple[Any, int] | None:
    """``su -c 'cmd'``, ``nix-shell --run 'cmd'``, ``flock f -c 'cmd'``, ``npx -c 'cmd'``: the
    value of an option that is a shell script (launchers.txt, [wrapper-scripts]). A wrapper's
    own options end where its command starts (``flock f git commit -c x`` runs git)."""
    key = name
    if name not in _SCRIPT_OPTIONS:
        key = f"{name} {words[1].text}" if len(words) > 1 else name
        if key not in _SCRIPT_OPTIONS:
            return None
    options = _SCRIPT_OPTIONS[key]
    n = len(words)
    end = n
    if name in _TRANSPARENT:
        end = options_end(words, 1, _WRAPPER_VALUES[name] - options)
        end += 1 if name in _OPERAND_FIRST else 0
    for k in range(1, min(end + 1, n)):
        a = normalize_option(words[k].text)
        for option in options:
            if a == option and k + 1 < n:
                return ("script", [words[k + 1]]), n
            if option.startswith("--") and a.startswith(option + "="):
                w = words[k]
                value = Word(w.text[len(option) + 1 :], None, True, w.offs[len(option) + 1 :])
                return ("script", [value]), n
            short = len(option) == 2 and not a.startswith("--") and a.startswith("-")
            if short and a.endswith(option[1]) and a[1:].isalpha() and k + 1 < n:
                return ("script", [words[k + 1]]), n  # a bundle ending in it: su -lc 'cmd'
    return None


def _package_runner(name: str, words: list[Word]) -> tuple[Any, int] | None:
    """``npx rimraf ~``, ``npm exec -- del-cli x``, ``pnpm dlx pkg@1 …``, ``uv run cmd``: the
    program a package runner runs (launchers.txt, [package-runners]), its version dropped. A
    program's own options of [option-values] and [option-pairs] may come before the subcommand
    (``nix --option sandbox false run …``)."""
    runners = TABLES["package-runners"]
    found = _entry(name, words, runners)
    if found is None:
        return None
    key, start = found
    own = TABLES["option-values"].get(name, frozenset())
    pairs = TABLES["option-pairs"].get(name, frozenset())
    values = runners[key] | own
    k = options_end(words, start, values, with_two=pairs)
    if key == "nix run":
        return _nix_run(words, start, k)
    if k >= len(words):
        return None, len(words)
    program, rest, text = words[k], words[k + 1 :], words[k].text
    at = text.find("@", 1)  # rimraf@5, @scope/pkg@1 (a leading @ is the scope)
    if at > 0:
        program = Word(text[:at], None, program.literal, program.offs[:at])
    return ("argv", [program, *rest], []), k


def _entry(name: str, words: list[Word], table: dict) -> tuple[str, int] | None:
    """The entry of ``table`` a command is, ``name subcommand`` before ``name`` (yarn dlx x is
    not yarn's program dlx), and where the words after it start; the program's own options of
    [option-values] and [option-pairs] may come before the subcommand (``nix --option a b
    run``)."""
    own = TABLES["option-values"].get(name, frozenset())
    pairs = TABLES["option-pairs"].get(name, frozenset())
    sub = options_end(words, 1, own, with_two=pairs) if own or pairs else 1
    if len(words) > sub and f"{name} {words[sub].text}" in table:
        return f"{name} {words[sub].text}", sub + 1
    return (name, 1) if name in table else None


def _nix_run(words: list[Word], start: int, k: int) -> tuple[Any, int]:
    """``nix run INSTALLABLE [--] ARGS``: the installable's program, named after its attribute
    (nix3-run(1): ``meta.mainProgram``, else its ``pname``), an ``^output`` aside:
    ``nixpkgs#python3Packages.black^bin`` runs black, and so does ``-f '<nixpkgs>'
    python3Packages.black`` (with ``--file``/``--expr`` an installable is an attribute path).
    ``--expr E`` with no installable runs E's value: the attribute E ends with (``with import
    <nixpkgs> {}; git``, ``(import <nixpkgs> {}).git``); ``--`` only ends nix's options, so
    ``--expr E -- push`` runs E's attribute push. A flake without an attribute (``nix run .``,
    ``nix run github:o/r``) runs what its flake.nix says, which the line does not show."""
    n = len(words)
    options = [w.text.split("=", 1)[0] for w in words[start:k]]
    attributes = any(o in ("-f", "--file", "--expr") for o in options)
    if k >= n:  # no installable: --expr's value
        found = (_option_value(words, j, ("--expr",)) for j in range(start, k))
        expr = next((w for w in found if w is not None), None)
        name = _last_attribute(expr.text) if expr is not None else None
        return (("argv", [Word(name, None, expr.literal, [])], []), k) if name else (None, n)
    text = words[k].text
    path = text.split("^", 1)[0]
    if not attributes:
        path = path.partition("#")[2]
    name = path.rsplit(".", 1)[-1].strip('"')
    if not name:
        return None, n
    program = words[k]
    at = text.find(name)
    program = Word(name, None, program.literal, program.offs[at : at + len(name)])
    rest = words[k + 1 :]
    return ("argv", [program, *(rest[1:] if rest and rest[0].text == "--" else rest)], []), k


def _last_attribute(expr: str) -> str | None:
    """The name a Nix expression's value ends with (``…; git``, ``(…).git``, ``pkgs.git``), or
    None when it ends otherwise (a call, a string, a set)."""
    text = expr.rstrip().rstrip(")").rstrip()
    end = len(text)
    while end > 0 and (text[end - 1].isalnum() or text[end - 1] in "_-'"):
        end -= 1
    name = text[end:]
    if not name or not (name[0].isalpha() or name[0] == "_"):
        return None
    return name if end == 0 or text[end - 1] in " \t\n;.(" else None


def _makefile(words: list[Word]) -> str:
    """The makefile ``make`` reads: ``-f FILE`` (``-`` is stdin), else ``Makefile`` in its
    directory (``-C dir``)."""
    path = "Makefile"
    chdir = ""
    k = 1
    while k < len(words):
        a = words[k].text
        value = words[k + 1].text if k + 1 < len(words) else ""
        if a in ("-f", "--file", "--makefile"):
            path, k = value, k + 1
        elif a.startswith(("--file=", "--makefile=")):
            path = a.split("=", 1)[1]
        elif a.startswith("-f") and len(a) > 2:
            path = a[2:]
        elif a in ("-C", "--directory"):
            chdir, k = value, k + 1
        elif a.startswith("--directory="):
            chdir = a.split("=", 1)[1]
        k += 1
    if path == "-" or not chdir or path.startswith("/"):
        return path
    return chdir.rstrip("/") + "/" + path


def script_format(name: str) -> Callable[[str], str] | None:
    """How a program that reads a file of commands in a format of its own (a makefile, a crontab)
    reads one: the shell script it makes of that file's text. None for a shell, which reads a
    script as it is."""
    if name in TABLES["makes"]:
        return make_recipes
    if name in TABLES["crontabs"]:
        return crontab_commands
    return None


def _crontab_file(words: list[Word]) -> str | None:
    """The table ``crontab`` installs: its file operand, ``-`` for stdin (also when it names
    none), None when it installs nothing (``-l`` lists, ``-r`` removes, ``-e`` edits in an
    editor)."""
    operands = []
    k = 1
    while k < len(words):
        a = words[k].text
        if a in ("-u", "-s"):  # a user, an SELinux context: a value, not the table
            k += 2
            continue
        if a.startswith("-") and a != "-":
            if any(c in a for c in "lreT"):
                return None
        else:
            operands.append(a)
        k += 1
    return operands[0] if operands else "-"


def crontab_commands(table: str) -> str:
    """The commands of a crontab's lines: after the five time fields, or one ``@reboot``,
    ``@daily`` … field, up to an unescaped ``%`` (the rest is the command's stdin); comments,
    blank lines and variable settings (``PATH=…``) run nothing."""
    out: list[str] = []
    for raw in table.split("\n"):
        line = raw.strip()
        name, eq, _ = line.partition("=")
        if not line or line.startswith("#") or (eq and name.strip().isidentifier()):
            continue
        fields = line.split(None, 1 if line.startswith("@") else 5)
        if len(fields) < (2 if line.startswith("@") else 6):
            continue
        command = fields[-1]
        cut = command.find("%")
        while cut > 0 and command[cut - 1] == "\\":
            cut = command.find("%", cut + 1)
        out.append((command[:cut] if cut >= 0 else command).rstrip().replace("\\%", "%"))
    return "\n".join(out)


def make_recipes(makefile: str) -> str:
    """The shell lines of a makefile's recipes: lines that start with a tab, and what follows
    ``;`` on a rule line (``x: ; cmd``), with make's ``@``/``-``/``+`` prefixes dropped and
    ``$$`` made ``$``. Make variables stay as written (``$(RM)``: a command word the shell
    would substitute)."""
    out: list[str] = []
    for line in makefile.split("\n"):
        if line.startswith("\t"):
            out.append(line[1:].lstrip("@-+ \t").replace("$$", "$"))
            continue
        head, semi, recipe = line.partition(";")
        if semi and ":" in head and "=" not in head:
            out.append(recipe.lstrip("@-+ \t").replace("$$", "$"))
    return "\n".join(out)


def _parallel_runs(words: list[Word]) -> tuple[Any, int | list[Word]]:
    """``parallel cmd ::: a b``: one job per argument, ``{}`` replaced by it or it appended
    (``parallel rm -rf ::: ~ /``; with no command, each argument is a command). The jobs are
    made by parallel, not in the text: they are printed scripts."""
    n = len(words)
    k = options_end(words, 1, _PARALLEL_VALUES)
    end = next((j for j in range(k, n) if words[j].text in (":::", "::::", ":::+")), n)
    command = [w.text for w in words[k:end]]
    args = [w.text for w in words[end:] if w.text not in (":::", "::::", ":::+", "::::+")]
    if end == n or not args or any(w.text.startswith("::::") for w in words[end:]):
        # no arguments on the line (or read from files): the command as written
        return (("script", words[k:end]), words[:k] + words[end:]) if k < end else (None, n)
    jobs = []
    for a in args:
        if not command:
            jobs.append(a)
        elif any("{}" in c for c in command):
            jobs.append(" ".join(c.replace("{}", single_quoted(a)) for c in command))
        else:
            jobs.append(" ".join(command) + " " + single_quoted(a))
    return ("printed", "\n".join(jobs)), words[:k] + words[end:]


def _sourced(operand: list[Word], printed: Callable[[str], str | None]) -> tuple[str, str] | None:
    """``("printed", script)`` when a shell or ``source`` reads its script from a process
    substitution that prints a known text (``bash <(echo 'git push -f')``), ``("file", path)``
    when it reads a file (which the line may have written)."""
    if not operand:
        return None
    if not operand[0].text.startswith("<("):
        return "file", operand[0].text
    text = printed(operand[0].text)
    return None if text is None else ("printed", text)


def _find_exec(name: str, words: list[Word]) -> tuple[Any, int | list[Word]]:
    """``find … -exec cmd {} ;``, ``fd … -x cmd``: the commands it runs (after an option of
    [path-execs]); it keeps every other word. find's command ends at ``;``, or at ``+`` right
    after ``{}`` (``-exec echo + ;`` runs ``echo +``); fd's at ``;`` or the end of the line. A
    program of [path-placeholders] (fd) appends the path when its command holds none of them
    (``fd -e py -x rm``: ``rm PATH``; ``-X``: ``rm PATH…``), and its other placeholders name
    what ``{}`` does: the path less its extension (``{.}``), its base name (``{/}``, ``{/.}``,
    read as the path: a name the line does not show) or its parent (``{//}``: ``{}/..``)."""
    starts = TABLES["path-execs"][name]
    placeholders = TABLES["path-placeholders"].get(name)
    inner: list[list[Word]] = []
    own: list[Word] = words[:1]
    k = 1
    while k < len(words):
        own.append(words[k])
        option, eq, value = words[k].text.partition("=")
        if option in starts and eq:  # fd --exec=rm y: the command is rm, y is fd's pattern
            w = words[k]
            command = [Word(value, None, w.literal, w.offs[len(option) + 1 :])]
            inner.append(_placed(command, placeholders) if placeholders is not None else command)
            k += 1
        elif option in starts:
            j = k + 1
            while j < len(words) and not _exec_end(words, j, placeholders is None):
                j += 1
            command = words[k + 1 : j]
            inner.append(_placed(command, placeholders) if placeholders is not None else command)
            own.extend(words[j : j + 1])
            k = j + 1
        else:
            k += 1
    if not inner:
        return None, len(words)
    return ("argv", inner[0], inner[1:]), own


def _exec_end(words: list[Word], j: int, find: bool) -> bool:
    text = words[j].text
    return text == ";" or (find and text == "+" and words[j - 1].text == "{}")


# fd's placeholders as find's {}: the entry found, less its extension or as its base name (a
# name the line does not show either way), or the directory holding it.
_AS_FOUND = (("{//}", "{}/.."), ("{/.}", "{}"), ("{/}", "{}"), ("{.}", "{}"))


def _placed(command: list[Word], placeholders: frozenset[str]) -> list[Word]:
    """An fd command with its placeholders read as find's ``{}``, or ``{}`` appended when it
    holds none (fd(1): "an implicit {} at the end is assumed")."""
    if not command:
        return command
    if not any(p in w.text for w in command for p in placeholders):
        return [*command, Word("{}", None, True, [])]
    placed = []
    for w in command:
        text = w.text
        for placeholder, found in _AS_FOUND:
            text = text.replace(placeholder, found)
        placed.append(w if text == w.text else Word(text, None, w.literal, []))
    return placed


def git_runs(parsed: dict[str, Any], words: list[Word], shown: list[str]) -> tuple[Any, ...] | None:
    """What git itself runs for a git command, in ``unwrap``'s form, or None: options of
    [git-scripts] (``rebase -x``, ``difftool -x``, ``filter-branch --tree-filter``), ``submodule
    foreach``, ``bisect run``; and what ``git config`` defines to be run, as if run (``git config
    core.editor 'rm -rf ~'`` as ``rm -rf ~``, ``alias.x '!…'``, and what ``alias.r 'rebase -x
    …'`` would run: a later command this line may not show runs it).

    ``parsed``: the command's parse by ``shell.git.state.LineState.see``, its aliases followed
    (program settings given to the command itself are ``see``'s); ``words``: its words as
    written, which what git runs keeps, to be read where git runs it; ``shown``: each word's text
    as the parse read it (in a container, a path as the host's)."""
    sub, args = parsed["subcommand"], parsed["args"]
    # The words after the subcommand: the line's own, and before them those an alias put in
    # (alias.r='rebase -x "rm -rf ~"'; git r), which have no place of their own in the line.
    own = 0
    while own < len(args) and own < len(shown) - 1 and shown[-1 - own] == args[-1 - own]:
        own += 1
    rest = [Word(a, None, True, []) for a in args[: len(args) - own]] + words[len(words) - own :]
    if sub in TABLES["git-scripts"]:  # rebase -x, difftool -x, clone --upload-pack, …
        names = tuple(TABLES["git-scripts"][sub])
        found = [w for k in range(len(rest)) if (w := _option_value(rest, k, names)) is not None]
        return ("scripts", found) if found else None
    texts = [w.text for w in rest]
    if sub == "submodule" and "foreach" in texts:
        k = texts.index("foreach") + 1
        while k < len(rest) and rest[k].text.startswith("-"):
            k += 1
        return ("script", rest[k:]) if k < len(rest) else None
    if sub == "bisect" and texts[:1] == ["run"] and len(rest) > 1:
        return ("argv", rest[1:], [])
    change = parsed["config_change"] if sub == "config" else None
    if change is not None and change["op"] != "unset":
        from hookgate.shell.git.programs import program_script

        script = program_script(change["key"], change["value"])
        if script:
            return ("printed", script)
        alias = change.get("alias_argv")
        if alias:  # alias.r 'rebase -x …': what git runs through it, as if run, as a ! alias
            return _defined_alias_runs(alias)
    return None


def _defined_alias_runs(argv: list[str]) -> tuple[Any, ...] | None:
    """What a plain alias ``git config`` defines would make git run (``argv``: ``git`` and its
    words), as one script."""
    from hookgate.shell.git.argv import parse_argv

    texts = run_texts(parse_argv(argv, {}, None))
    return ("printed", "\n".join(texts)) if texts else None


def run_texts(parsed: dict[str, Any]) -> list[str]:
    """The scripts git runs for the command ``parsed`` (a parse of ``shell.git``), as texts:
    the programs its own settings and options name (``-c core.editor='…' commit``, a ``!``
    alias, ``push --receive-pack``) and its subcommand's scripts (``rebase -x …``), its words
    as the parse read them."""
    import shlex

    from hookgate.shell.git.programs import program_scripts

    texts = program_scripts(parsed, {})
    runs = git_runs(parsed, [], [])
    if runs is not None:
        form, *found = runs
        if form == "scripts":
            texts += [w.text for w in found[0]]
        elif form == "printed":
            texts.append(found[0])
        else:  # a script's words, or a command's (bisect run)
            words = [w.text for w in found[0]]
            texts.append(" ".join(words) if form == "script" else shlex.join(words))
    return texts


def _option_value(words: list[Word], k: int, names: tuple[str, ...]) -> Word | None:
    """The value of option ``names`` written at ``words[k]`` (``-x cmd``, ``--exec=cmd``)."""
    text = words[k].text
    if text in names and k + 1 < len(words):
        return words[k + 1]
    for name in names:
        prefix = name + "=" if name.startswith("--") else name
        if text.startswith(prefix) and len(text) > len(prefix):
            value = text[len(prefix) :]
            return Word(value, None, True, words[k].offs[len(prefix) :])
    return None


def path_exec_roots(name: str, argv: list[str]) -> list[str]:
    """The starting points of a [path-exec-values] program (``fd -e py PATTERN a b``: a, b;
    ``--search-path x``; ``.`` when none): its operands after the pattern, past the options
    that take a value and the ``;`` that ends a command it runs."""
    values = TABLES["path-exec-values"].get(name, frozenset())
    operands: list[str] = []
    searched: list[str] = []
    k = 1
    while k < len(argv):
        option, eq, value = argv[k].partition("=")
        if option == "--search-path":
            searched.append(value if eq else argv[k + 1] if k + 1 < len(argv) else ".")
        if argv[k] in values:
            k += 2
            continue
        if argv[k] == "--":
            operands += argv[k + 1 :]
            break
        if argv[k] != ";" and (not argv[k].startswith("-") or argv[k] == "-"):
            operands.append(argv[k])
        k += 1
    return searched or operands[1:] or ["."]


def wrapper_chdir(name: str, words: list[Word]) -> str | None:
    """The directory ``env -C dir`` or ``sudo -D dir`` runs its command in (``fd
    --base-directory dir -x cmd`` too), or None."""
    if name in TABLES["path-exec-values"]:
        argv = [w.text for w in words]
        for k, a in enumerate(argv[1:], 1):
            if a == "--base-directory" and k + 1 < len(argv):
                return argv[k + 1]
            if a.startswith("--base-directory="):
                return a.split("=", 1)[1]
    if name in ("env", "sudo"):
        for k, w in enumerate(words[1:], 1):
            if w.text in ("-C", "--chdir", "-D") and k + 1 < len(words):
                return words[k + 1].text
            if w.text.startswith("--chdir="):
                return w.text.split("=", 1)[1]
    return None


_STDIN_FILES = frozenset(("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"))


def reads_script_from_stdin(cmd: Command) -> bool:
    """A shell with no ``-c`` and no script operand (or ``-s``) runs what it reads on stdin."""
    if cmd.name in ("at", "batch"):
        return not any(w.text.startswith("-f") for w in cmd.words[1:])  # -f FILE: not stdin
    if cmd.name in TABLES["makes"]:
        return _makefile(cmd.words) == "-"  # make -f -: the makefile is on stdin
    if cmd.name in TABLES["crontabs"]:
        return _crontab_file(cmd.words) == "-"  # crontab -: the table is on stdin
    starter = _entry(cmd.name, cmd.words, TABLES["shell-starters"])
    if starter is not None:  # nix-shell -p git, nix develop: a shell, given no command
        given = TABLES["shell-starters"][starter[0]]
        return not any(w.text.split("=", 1)[0] in given for w in cmd.words[starter[1] :])
    if cmd.name in ("sudo", "doas"):  # sudo -s / -i with no command starts a shell (on stdin)
        opts = [w.text for w in cmd.words[1:] if w.text.startswith("-")]
        return any(
            o in ("--shell", "--login")
            or (o[1:2] != "-" and o[1:].isalpha() and ("s" in o or "i" in o))
            for o in opts
        )
    if cmd.name == "su":  # su [user] with no -c starts the user's shell (on stdin)
        return _script_option("su", cmd.words) is None
    if cmd.name in SHELLS or cmd.name in ("source", "."):
        # source /dev/stdin <<< '…', bash /dev/fd/0: the script file is stdin
        operands = [w.text for w in cmd.words[1:] if not w.text.startswith(("-", "+"))]
        if operands[:1] and operands[0] in _STDIN_FILES:
            return True
    if cmd.name not in SHELLS:
        return False
    for w in cmd.words[1:]:
        a = w.text
        if a == "-s" or (a.startswith("-") and not a.startswith("--") and "s" in a[1:]):
            return True
        if a.startswith("-") and not a.startswith("--") and "c" in a[1:]:
            return False
        if not a.startswith(("-", "+")):
            return False
    return True


def xargs_value(argv: list[str], names: tuple[str, ...]) -> str | None:
    """The value of an ``xargs`` option (``-n 1``, ``-n1``, ``--max-args=1``)."""
    for k, a in enumerate(argv[1:], 1):
        for name in names:
            if a == name and k + 1 < len(argv):
                return argv[k + 1]
            if name.startswith("--") and a.startswith(name + "="):
                return a[len(name) + 1 :]
            if not name.startswith("--") and a.startswith(name) and len(a) > len(name):
                return a[len(name) :]
    return None


def xargs_replace(own: list[Word]) -> str | None:
    """The replace string of an ``xargs`` command's options (``-I R``, ``-IR``, ``-i``,
    ``--replace[=R]``; ``{}`` by default), or None when it appends its input instead."""
    words = [w.text for w in own[1:]]
    for k, a in enumerate(words):
        if a == "-I" and k + 1 < len(words):
            return words[k + 1]
        if a.startswith("-I") and len(a) > 2:
            return a[2:]
        if a.startswith("-i") or a == "--replace":
            return a[2:] or "{}"
        if a.startswith("--replace="):
            return a.removeprefix("--replace=") or "{}"
    return None
