"""Programs that run other programs: the tables of ``launchers.txt`` and what each launcher
runs (``unwrap``): wrappers (``sudo``, ``env``, ``timeout``), shells and their ``-c`` scripts,
``eval``, package runners, containers, awk programs (read in ``awk``), makefile recipes,
``parallel`` jobs, ``find -exec``, the programs git itself runs; and whether a command reads its script on stdin.

The tables are read once per process, without ``json`` or ``re`` (the hook imports this on
every shell call).
"""

from __future__ import annotations

import os

from hookgate.shell.awk import awk_runs
from hookgate.shell.expansion import is_unknown
from hookgate.shell.words import Command, Word, join_path, normalize_option, single_quoted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from hookgate.shell.expansion import Value

PATH = os.path.join(os.path.dirname(__file__), "launchers.txt")

SECTIONS = (
    "wrappers",
    "operand-first",
    "leading-operand",
    "argv-options",
    "wrapper-scripts",
    "script-files",
    "operands-are-a-script",
    "operands-are-scripts",
    "multiplexers",
    "package-runners",
    "containers",
    "image-entrypoints",
    "image-option-programs",
    "image-commands",
    "path-execs",
    "git-scripts",
    "container-subcommands",
    "shells",
    "awks",
    "makes",
    "option-values",
    "tmux-starts",
    "file-readers",
    "tree-deleters",
    "remote-runners",
    "interpreters",
    "interpreter-stops",
    "one-liners",
    "script-suffixes",
)


def parse(text: str, source: str = PATH) -> dict[str, dict[str, frozenset[str]]]:
    """Each section's entries: ``name: words`` gives ``{name: words}``; a line of bare names
    gives each of them an empty set. A malformed line raises ``ValueError`` naming it."""
    tables: dict[str, dict[str, frozenset[str]]] = {s: {} for s in SECTIONS}
    section: dict[str, frozenset[str]] | None = None
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("["):
            name = line.strip("[]")
            if not line.endswith("]") or name not in tables:
                raise ValueError(f"{source}:{number}: unknown section {line!r}")
            section = tables[name]
        elif section is None:
            raise ValueError(f"{source}:{number}: an entry before any [section]")
        elif ":" in line:
            key, _, values = line.partition(":")
            if not key.strip():
                raise ValueError(f"{source}:{number}: an entry without a name")
            section[" ".join(key.split())] = frozenset(values.split())
        else:
            for name in line.split():
                section[name] = frozenset()
    return tables


def load() -> dict[str, dict[str, frozenset[str]]]:
    with open(PATH, encoding="utf-8") as f:
        return parse(f.read())


TABLES = load()


def _one_liners(tables: dict[str, dict[str, frozenset[str]]]) -> dict[str, str]:
    """Each interpreter's code option; a ``ValueError`` names an entry not one [interpreters] option."""
    found = {}
    for name, options in tables["one-liners"].items():
        if len(options) != 1 or name not in tables["interpreters"]:
            raise ValueError(
                f"{PATH}: [one-liners] {name}: one option of an interpreter of [interpreters]"
            )
        found[name] = next(iter(options))
    return found


ONE_LINERS = _one_liners(TABLES)
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
    that is not in the original text), ``("file", path)`` (a script file), ``("makefile",
    path)``, ``("interpreted", interpreter, script word, its arguments)`` (``python3 -u w.py
    a``: an [interpreters] program running a script file) or ``("container", argvs, mounts,
    workdir)`` (each argv may be what runs in a container).

    The second value is how many words belong to the wrapper itself (or those words).
    ``printed`` is what a command substitution prints, when the line shows it (None if not):
    ``eval "$(echo …)"`` and ``bash <(echo …)`` run that.
    """
    n = len(words)
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
        k = _options_end(words, start, _WRAPPER_VALUES[name], skip_assignments=env_like)
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
        k = _options_end(words, 1, TABLES["operands-are-a-script"][name])
        return (("script", words[k:]), k) if k < n else (None, n)
    if name in TABLES["operands-are-scripts"]:
        k = _options_end(words, 1, TABLES["operands-are-scripts"][name])
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
        return ("makefile", _makefile(words)), n
    runner = _package_runner(name, words)
    if runner is not None:
        return runner
    if name in TABLES["containers"]:
        return _container_runs(name, words)
    if name == "tmux":
        k = _options_end(words, 1, _TMUX_VALUES)
        if k < n and words[k].text in _TMUX_STARTS:
            start = _options_end(words, k + 1, _TMUX_VALUES)
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
        k = _options_end(words, 1, _SSH_VALUES)
        if k + 1 < n:
            return ("script", words[k + 1 :]), k + 1
        return None, n
    if name == "parallel":
        return _parallel_runs(words)
    if name in TABLES["path-execs"]:
        return _find_exec(words, TABLES["path-execs"][name])
    if name == "git":
        return _git_runs(words)
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
        end = _options_end(words, 1, _WRAPPER_VALUES[name] - options)
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
    program a package runner runs (launchers.txt, [package-runners]), its version dropped."""
    runners = TABLES["package-runners"]
    key, start = (f"{name} {words[1].text}", 2) if len(words) > 1 else (name, 1)
    if key not in runners:  # the longer name first: yarn dlx x is not yarn's program dlx
        key, start = name, 1
        if key not in runners:
            return None
    values = runners[key]
    k = _options_end(words, start, values)
    if k >= len(words):
        return None, len(words)
    program, rest, text = words[k], words[k + 1 :], words[k].text
    if key == "nix run":  # nixpkgs#python3Packages.black^bin -- .: the attribute's program, black
        end = len(text.split("^")[0])
        name = text[:end].partition("#")[2].rsplit(".", 1)[-1]
        if not name or text.startswith((".", "/", "path:")):  # the project's flake: not shown
            return None, len(words)
        program = Word(name, None, program.literal, program.offs[end - len(name) : end])
        return ("argv", [program, *(rest[1:] if rest and rest[0].text == "--" else rest)], []), k
    at = text.find("@", 1)  # rimraf@5, @scope/pkg@1 (a leading @ is the scope)
    if at > 0:
        program = Word(text[:at], None, program.literal, program.offs[:at])
    return ("argv", [program, *rest], []), k


def _container_runs(name: str, words: list[Word]) -> tuple[Any, int]:
    """``docker run [options] IMAGE cmd…`` and ``docker exec [options] CONTAINER cmd…`` (also
    ``container run``, ``compose run|exec SERVICE cmd…``): the command, the bind mounts (the
    host path each container path is) and the working directory in the container."""
    n = len(words)
    subs = TABLES["container-subcommands"]
    k = _options_end(words, 1, subs["globals"])
    if k < n and words[k].text == "container":
        k += 1
    compose = k < n and words[k].text == "compose"
    if compose:
        k = _options_end(words, k + 1, subs["compose"])
    if k >= n or words[k].text not in ("run", "exec"):
        return None, n
    sub = words[k].text
    values = TABLES["containers"][name]
    mounts: list[tuple[str, str]] = []
    workdir: str | None = None
    entrypoint: Word | None = None
    j = k + 1
    while j < n:
        a = normalize_option(words[j].text)
        if a == "--" or not a.startswith("-") or a == "-":
            j += a == "--"
            break
        option, eq, value = a.partition("=")
        if not eq and a[:2] in ("-v", "-w") and len(a) > 2:  # -v/:/host, attached
            option, value = a[:2], a[2:]
        elif not eq and option in values and j + 1 < n:
            value = words[j + 1].text
            j += 1
        if option in ("-v", "--volume"):
            mounts += _volume(value)
        elif option == "--mount":
            mounts += _bind_mount(value)
        elif option in ("-w", "--workdir"):
            workdir = value
        elif option == "--entrypoint":
            entrypoint = Word(value, None, True, [])
        j += 1
    if j >= n:
        return None, n
    inner = words[j + 1 :]
    # the words as a command, and, when the image's entrypoint is a known program, as its
    # arguments too (a local image may carry the same name with another entrypoint)
    runs = [inner] if inner else []
    image = _image_name(words[j].text)
    if entrypoint is None and sub == "run":
        program = TABLES["image-entrypoints"].get(image)
        if program is None and inner and inner[0].text.startswith("-"):
            program = TABLES["image-option-programs"].get(image)
        if program is None and not inner:
            program = TABLES["image-commands"].get(image)
        if program:  # one program: a section's entry is "image: program"
            runs.insert(0, [Word(next(iter(program)), None, True, []), *inner])
    elif entrypoint is not None and entrypoint.text:
        runs = [[entrypoint, *inner]]
    if not runs:
        return None, n
    # docker exec and compose: the container's mounts are not on the line
    known = sub == "run" and not compose
    return ("container", runs, mounts if known else None, workdir), j + 1


def _image_name(ref: str) -> str:
    """An image reference without its registry, ``library/``, tag and digest
    (``docker.io/alpine/git:v2@sha256:…`` is ``alpine/git``)."""
    name = ref.split("@", 1)[0]
    slash = name.rfind("/")
    if name.rfind(":") > slash:
        name = name[: name.rfind(":")]
    parts = name.split("/")
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        parts = parts[1:]  # a registry host
    if parts[:1] == ["library"]:
        parts = parts[1:]
    return "/".join(parts)


def host_source(src: str, here: str) -> str:
    """A bind mount's host path, ``$PWD``/``$(pwd)``/``.`` being ``here``."""
    for pwd in ("$PWD", "${PWD}", "$(pwd)", "`pwd`", "."):
        if src == pwd or src.startswith(pwd + "/"):
            return join_path(here, src[len(pwd) + 1 :] or ".")
    return join_path(here if here != "." else None, src)


def _volume(spec: str) -> list[tuple[str, str]]:
    """``-v SRC:DST[:opts]`` as ``[(DST, SRC)]``; a named volume (no path) mounts no host path."""
    parts = spec.split(":")
    if len(parts) < 2 or not parts[0].startswith(("/", "~", ".", "$", "`")):
        return []
    return [(parts[1], parts[0])]


def _bind_mount(spec: str) -> list[tuple[str, str]]:
    """``--mount type=bind,source=SRC,target=DST`` as ``[(DST, SRC)]``."""
    fields = dict(f.partition("=")[::2] for f in spec.split(","))
    source = fields.get("source", fields.get("src"))
    target = fields.get("target", fields.get("destination", fields.get("dst")))
    if fields.get("type") != "bind" or not source or not target:
        return []
    return [(target, source)]


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
    k = _options_end(words, 1, _PARALLEL_VALUES)
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


def _find_exec(words: list[Word], starts: frozenset[str]) -> tuple[Any, int | list[Word]]:
    """``find … -exec cmd {} ;``, ``fd … -x cmd``: the commands it runs (after an option of
    ``starts``); it keeps every other word."""
    inner: list[list[Word]] = []
    own: list[Word] = words[:1]
    k = 1
    while k < len(words):
        own.append(words[k])
        if words[k].text in starts:
            j = k + 1
            while j < len(words) and words[j].text not in (";", "+"):
                j += 1
            inner.append(words[k + 1 : j])
            own.extend(words[j : j + 1])
            k = j + 1
        else:
            k += 1
    if not inner:
        return None, len(words)
    return ("argv", inner[0], inner[1:]), own


def _git_runs(words: list[Word]) -> tuple[Any, int]:
    """Commands git itself runs: options of [git-scripts] (``rebase -x``, ``difftool -x``,
    ``filter-branch --tree-filter``), ``submodule foreach``, ``bisect run``; and
    the script ``git config`` defines to be run, as if run (``git config core.editor 'rm -rf
    ~'`` as ``rm -rf ~``, ``alias.x '!…'``: a later command this line may not show runs it).
    Shell aliases and program settings given to a command itself are read by
    ``shell.git.state.LineState``; what a plain alias runs is in ``git.parse`` (``config_change``)."""
    from hookgate.shell.git.argv import parse_argv
    from hookgate.shell.git.configchange import config_change
    from hookgate.shell.git.programs import program_script

    argv = [w.text for w in words]
    parsed = parse_argv(argv, {}, None)
    sub = parsed["subcommand"]
    rest = words[len(argv) - len(parsed["args"]) :]
    if sub in TABLES["git-scripts"]:  # rebase -x, difftool -x, clone --upload-pack, …
        names = tuple(TABLES["git-scripts"][sub])
        scripts = [_option_value(rest, k, names) for k in range(len(rest))]
        found = [w for w in scripts if w is not None]
        return (("scripts", found), len(words)) if found else (None, len(words))
    texts = [w.text for w in rest]
    if sub == "submodule" and "foreach" in texts:
        k = texts.index("foreach") + 1
        while k < len(rest) and rest[k].text.startswith("-"):
            k += 1
        return (("script", rest[k:]), len(words)) if k < len(rest) else (None, len(words))
    if sub == "bisect" and texts[:1] == ["run"] and len(rest) > 1:
        return ("argv", rest[1:], []), len(words)
    if sub == "config":
        change = config_change(texts)
        if change is not None and change[0] != "unset":
            script = program_script(change[1], change[2])
            if script:
                return ("printed", script), len(words)
    return None, len(words)


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


def wrapper_chdir(name: str, words: list[Word]) -> str | None:
    """The directory ``env -C dir`` or ``sudo -D dir`` runs its command in, or None."""
    if name in ("env", "sudo"):
        for k, w in enumerate(words[1:], 1):
            if w.text in ("-C", "--chdir", "-D") and k + 1 < len(words):
                return words[k + 1].text
            if w.text.startswith("--chdir="):
                return w.text.split("=", 1)[1]
    return None


def _options_end(
    words: list[Word],
    start: int,
    with_value: frozenset[str],
    skip_assignments: bool = False,
) -> int:
    """Index of the first operand after the options of a wrapper (``sudo -u x cmd`` → cmd);
    with ``skip_assignments``, ``NAME=value`` words are the wrapper's too (``env A=1 cmd``)."""
    k = start
    while k < len(words):
        a = normalize_option(words[k].text)
        if a == "--":
            return k + 1
        if skip_assignments and "=" in a and not a.startswith("-"):
            k += 1
            continue
        if not a.startswith("-") or a == "-":
            return k
        if a.startswith("--"):
            k += 2 if (a in with_value and "=" not in a) else 1
            continue
        # a bundle of short options: one taking a value consumes the rest or the next word
        for j in range(1, len(a)):
            if "-" + a[j] in with_value:
                k += 1 if j + 1 < len(a) else 2
                break
        else:
            k += 1
    return k


_STDIN_FILES = frozenset(("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"))


def reads_script_from_stdin(cmd: Command) -> bool:
    """A shell with no ``-c`` and no script operand (or ``-s``) runs what it reads on stdin."""
    if cmd.name in ("at", "batch"):
        return not any(w.text.startswith("-f") for w in cmd.words[1:])  # -f FILE: not stdin
    if cmd.name in TABLES["makes"]:
        return _makefile(cmd.words) == "-"  # make -f -: the makefile is on stdin
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
