"""git's configuration for a repository, read from its files the way git reads them.

Files, in git's order: the global ``$XDG_CONFIG_HOME/git/config`` (default ``~/.config/git/
config``) and ``~/.gitconfig`` (or the one file ``GIT_CONFIG_GLOBAL`` names), the repository's
``config`` (in the common directory of a worktree) and its ``config.worktree`` when
``extensions.worktreeConfig`` is on; ``include.path`` and ``includeIf "gitdir:…"``,
``"gitdir/i:…"``, ``"onbranch:…"`` and ``"hasconfig:remote.*.url:…"`` are followed as git follows
them. The system file comes first when the caller names it (``GIT_CONFIG_SYSTEM``, else
``/etc/gitconfig``, where git installed under ``/usr`` looks; a git built for another prefix
looks elsewhere, which is not read).

Safety: nothing is executed; a symlinked file or include is followed as git follows it, but
only a regular file is opened (``repo.read_config_file``: checked before opening, never
blocking on a FIFO), each file is read up to ``repo.MAX_FILE_BYTES``, includes nest at most ``MAX_INCLUDE_DEPTH`` deep (git's own limit) and
at most ``MAX_FILES`` files are read per call. Parsed files are cached by (path, mtime, size).

A reader that gives up (``state``: a symlinked ``.git`` it does not follow, a FIFO or other
non-regular file, a link loop, an unreadable or too large file, the include bounds, an include path it cannot expand,
a file git itself would refuse) says so: the answer is then *unknown*, never "not set", and the
guards ask about what depends on it.
"""

from __future__ import annotations

import os
import stat

from hookgate.shell.git.repo import (
    _child,
    checked_out,
    common_dir,
    find_git_dir,
    head_branch,
    read_config_file,
)
from hookgate.shell.git.wildmatch import wildmatch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_INCLUDE_DEPTH = 10  # git's MAX_INCLUDE_DEPTH; deeper is a fatal error in git as here
MAX_FILES = 64
MAX_CACHED = 128
SYSTEM_FILE = "/etc/gitconfig"  # git built with prefix /usr (distributions' git)

BLANKS = " \t\r"  # git's isspace() (sane_ctype), without the newline that ends a line

# A key without "=" (``[core] bare``) is a boolean true in git; it is stored as this value, which
# every git boolean and string reader of hookgate reads the same way.
VALUELESS = "true"


class ConfigError(ValueError):
    """A configuration file git itself would refuse (git dies on it), named by path:line."""


class Config:
    """The values read (``values``: canonical key → every value in order) and the files that
    exist but were not read (``skipped``: (path, why)), which a caller must treat as unknown."""

    __slots__ = ("values", "skipped", "files", "origins", "scopes")

    def __init__(self) -> None:
        self.values: dict[str, list[str]] = {}
        self.skipped: list[tuple[str, str]] = []
        self.files: list[str] = []  # every file read, in order
        # key → (the scope, the file) of each of its values: a scope's file or one it includes
        self.origins: dict[str, list[tuple[str, str]]] = {}
        # scope → the file ``git config --<scope>`` writes (system, global, local, worktree)
        self.scopes: dict[str, str] = {}


def read_config(
    git_dir: str,
    home: str | None,
    *,
    xdg_config_home: str | None = None,
    global_file: str | None = None,
    system_file: str | None = None,
) -> dict[str, list[str]]:
    """Canonical key (section and variable lower-case, subsection as written) → its values in
    the order git sees them. See ``read`` for the arguments and ``Config.skipped``."""
    return read(
        git_dir,
        home,
        xdg_config_home=xdg_config_home,
        global_file=global_file,
        system_file=system_file,
    ).values


def read(
    git_dir: str | None,
    home: str | None,
    *,
    xdg_config_home: str | None = None,
    global_file: str | None = None,
    system_file: str | None = None,
) -> Config:
    """git's configuration for the repository whose git directory is ``git_dir`` (absolute;
    ``None``: no repository), with ``home`` as ``$HOME`` (``None``: no global files). ``xdg_config_home``
    defaults to ``home/.config``; ``global_file`` stands for ``GIT_CONFIG_GLOBAL`` and replaces
    both global files; ``system_file`` is read first when given. Raises ``ConfigError`` where
    git would die (or the reader's bounds are reached)."""
    files: list[tuple[str, str]] = [("system", system_file)] if system_file else []
    if global_file is not None:
        files.append(("global", global_file))
    elif home is not None:
        xdg = _child(xdg_config_home or _child(home, ".config"), "git/config")
        files += [("global", xdg), ("global", _child(home, ".gitconfig"))]
    reader = _Reader(git_dir, home)
    common = common_dir(git_dir) if git_dir is not None else None
    if common is not None:
        local = _child(common, "config")
        files.append(("local", local))
        entries = _parsed(local, None)
        if entries is not None:
            reader.parsed[local] = entries  # read below from here: one stat of it per call
        if _worktree_config(entries):
            files.append(("worktree", _child(git_dir, "config.worktree")))
    reader.top_files = [path for _scope, path in files]
    for scope, path in files:
        reader.scope = scope
        found = reader.read_file(path, 0)
        # git config --global writes ~/.gitconfig, or the XDG file when only that one exists
        written = reader.out.scopes.get(scope)
        if written is None or found or os.path.lexists(path) or not os.path.lexists(written):
            reader.out.scopes[scope] = path
    return reader.out


def repository_config(path: str) -> dict[str, list[str]]:
    """The configuration of the repository containing absolute ``path`` (``git.config``):
    ``state``'s values; ``{}`` without a repository, and only what was read where the reader
    gave up (``state`` says where)."""
    return state(path)["values"]


def environment_files(environ: Any = None) -> dict[str, str | None]:
    """Where git looks for its system and global files under ``environ`` (default: this
    process's environment, which the agent's shells inherit from the same host): the keyword
    arguments of ``read`` besides the repository and home."""
    env = os.environ if environ is None else environ
    nosystem = _boolean(env.get("GIT_CONFIG_NOSYSTEM")) if "GIT_CONFIG_NOSYSTEM" in env else False
    system = None if nosystem else (env.get("GIT_CONFIG_SYSTEM") or SYSTEM_FILE)
    return {
        "xdg_config_home": env.get("XDG_CONFIG_HOME") or None,
        "global_file": env.get("GIT_CONFIG_GLOBAL"),
        "system_file": system,
    }


def state(path: str, environ: Any = None) -> dict[str, Any]:
    """What ``git.config_read`` answers for absolute ``path``: ``values`` (as ``read_config``),
    ``files`` (each file read, in order), ``unknown`` (``[{"path", "why"}]``: every file
    the reader gave up on; empty when the answer is complete), ``origins`` (key → the
    ``[scope, file]`` of each of its values), ``writes`` (scope → the file ``git config
    --<scope>`` writes) and ``dormant``: a
    ``config.worktree`` git does not read now (``extensions.worktreeConfig`` is off) but would
    once a command turns the extension on, and ``branch``: what ``git.branch`` answers for
    ``path`` (the repository is found once for both; absent where the search gave up on a
    ``.git``: ``git.branch`` searches on past one that is no file or directory). Without a repository:
    ``{}`` values, no unknown and a null branch."""
    refused: list[tuple[str, str]] = []
    git_dir = find_git_dir(path, refused)
    if git_dir is None:
        unknown = [{"path": p, "why": why} for p, why in refused]
        if refused:  # git.branch searches on past a .git that is no file or directory
            return {"values": {}, "files": [], "unknown": unknown}
        return {"values": {}, "files": [], "unknown": unknown, "branch": None}
    # (the repository is found once for both: a commit's guards read its configuration and its
    # branch, and each step of the search is a system call)
    branch = checked_out(git_dir)
    try:
        config = read(git_dir, os.path.expanduser("~") or None, **environment_files(environ))
    except ConfigError as e:
        where, _, why = str(e).partition(": ")
        unknown = [{"path": where, "why": why or str(e)}]
        return {"values": {}, "files": [], "unknown": unknown, "branch": branch}
    unknown = [{"path": p, "why": why} for p, why in config.skipped]
    out: dict[str, Any] = {
        "values": config.values,
        "files": config.files,
        "unknown": unknown,
        "origins": {k: [list(o) for o in v] for k, v in config.origins.items()},
        "writes": config.scopes,
        "branch": branch,
    }
    dormant = _child(git_dir, "config.worktree")
    if dormant not in config.files and os.path.lexists(dormant):
        out["dormant"] = dormant  # git reads it once extensions.worktreeConfig is turned on
    return out


class _Reader:
    def __init__(self, git_dir: str | None, home: str | None, collect_urls: bool = False) -> None:
        self.git_dir = git_dir
        self.home = home
        self.out = Config()
        self.top_files: list[str] = []  # what read() reads, for the hasconfig: URL pass
        self.collect_urls = collect_urls  # the pass that finds remote URLs for hasconfig:
        self.remote_urls: list[str] | None = None
        self.count = 0
        self.scope = ""  # the scope of the file read() reads, its includes too
        # files already parsed in this call (the repository's config, read first for
        # extensions.worktreeConfig), each taken once
        self.parsed: dict[str, list[tuple[str, str | None, int]]] = {}

    def read_file(self, path: str, depth: int) -> bool:
        """Read ``path`` (at include ``depth``) into the answer; whether it was there to read."""
        entries = self.parsed.pop(path, None)
        if entries is None:
            entries = _parsed(path, self.out.skipped)
        if entries is None:
            return False
        self.count += 1
        if self.count > MAX_FILES:
            raise ConfigError(f"{path}: more than {MAX_FILES} configuration files included")
        self.out.files.append(path)
        for key, value, line in entries:
            self._add(key, VALUELESS if value is None else value)
            self.out.origins.setdefault(key, []).append((self.scope, path))
            if key == "include.path" or (key.startswith("includeif.") and key.endswith(".path")):
                if value is None:
                    raise ConfigError(f"{path}:{line}: missing value for '{key}'")
                if key == "include.path" or self._condition(key[10:-5], path):
                    self._include(value, path, line, depth)
        return True

    def _add(self, key: str, value: str) -> None:
        self.out.values.setdefault(key, []).append(value)

    def _include(self, value: str, origin: str, line: int, depth: int) -> None:
        target = _interpolate(value, self.home)
        if target is None:
            self.out.skipped.append((value, "include path not expanded (~user or %(prefix))"))
            return
        if not os.path.isabs(target):
            target = os.path.join(os.path.dirname(origin), target)
        if not os.path.lexists(target):
            return  # git ignores an include that does not exist
        if depth + 1 > MAX_INCLUDE_DEPTH:
            raise ConfigError(f"{origin}:{line}: includes nested more than {MAX_INCLUDE_DEPTH}")
        self.read_file(target, depth + 1)

    def _condition(self, cond: str, origin: str) -> bool:
        if self.collect_urls and cond.startswith("hasconfig:remote.*.url:"):
            return True  # git's URL pass includes them all (and forbids URLs inside)
        for prefix, fold in (("gitdir:", False), ("gitdir/i:", True)):
            if cond.startswith(prefix):
                return self._by_gitdir(cond[len(prefix) :], origin, fold)
        if cond.startswith("onbranch:"):
            branch = head_branch(self.git_dir) if self.git_dir is not None else None
            pattern = _starstar(cond[len("onbranch:") :])
            return branch is not None and wildmatch(pattern, branch, pathname=True)
        if cond.startswith("hasconfig:remote.*.url:"):
            pattern = cond[len("hasconfig:remote.*.url:") :]
            return any(wildmatch(pattern, u, pathname=True) for u in self._remote_urls())
        return False  # git: unknown conditions are false

    def _by_gitdir(self, pattern: str, origin: str, fold: bool) -> bool:
        if self.git_dir is None:
            return False
        expanded = _interpolate(pattern, self.home)
        pattern = pattern if expanded is None else expanded
        text = os.path.normpath(os.path.abspath(self.git_dir))
        prefix = 0
        if pattern.startswith("./"):
            base = os.path.dirname(os.path.normpath(os.path.abspath(origin)))
            pattern = base + pattern[1:]
            prefix = len(base) + 1
        elif not pattern.startswith("/"):
            pattern = "**/" + pattern
        pattern = _starstar(pattern)
        if prefix:
            head, tail = (pattern[:prefix], text[:prefix])
            if len(text) < prefix or (head.lower() != tail.lower() if fold else head != tail):
                return False
        # git also tries the symlink-resolved path; symlinks are not followed here.
        return wildmatch(pattern[prefix:], text[prefix:], pathname=True, casefold=fold)

    def _remote_urls(self) -> list[str]:
        if self.remote_urls is None:
            collector = _Reader(self.git_dir, self.home, collect_urls=True)
            for path in self.top_files:
                collector.read_file(path, 0)
            self.remote_urls = [
                u
                for k, vs in collector.out.values.items()
                if len(k) > 11 and k.startswith("remote.") and k.endswith(".url")
                for u in vs
            ]
        return self.remote_urls


def _starstar(pattern: str) -> str:
    return pattern + "**" if pattern.endswith("/") else pattern


def _interpolate(path: str, home: str | None) -> str | None:
    """git's interpolate_path: ``~/`` is ``home``; ``~user`` and ``%(prefix)/`` are not
    resolved here (None)."""
    if path.startswith("%(prefix)/"):
        return None
    if path == "~" or path.startswith("~/"):
        return None if home is None else home + path[1:]
    if path.startswith("~"):
        return None
    return path


def _worktree_config(entries: list[tuple[str, str | None, int]] | None) -> bool:
    """Whether the repository's config (its entries) turns ``extensions.worktreeConfig`` on."""
    on = False
    for key, value, _line in entries or ():
        if key == "extensions.worktreeconfig":
            on = _boolean(value)
    return on


def _boolean(value: str | None) -> bool:
    if value is None:
        return True
    v = value.strip().lower()
    if v in ("true", "yes", "on"):
        return True
    if v in ("false", "no", "off", ""):
        return False
    try:
        return int(v, 10) != 0
    except ValueError:
        return False


_CACHE: dict[str, tuple[tuple, list[tuple[str, str | None, int]]]] = {}


def _parsed(
    path: str, skipped: list[tuple[str, str]] | None
) -> list[tuple[str, str | None, int]] | None:
    """A file's entries, from the cache while the file it names (a symlink followed, as git
    follows it) keeps its identity, mtime and size; None when it is absent or refused (why
    appended to ``skipped``, when given)."""
    try:
        st = os.stat(path)
        stamp: tuple = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)
    except (FileNotFoundError, NotADirectoryError):
        # absent (or a dangling link): the reader's own stat would say so again. Most of git's
        # files are absent on most machines (the system and XDG files), and each costs every
        # decision that reads the configuration.
        return None
    except OSError:
        stamp = ()
    hit = _CACHE.get(path)
    if hit is not None and stamp and hit[0] == stamp and stat.S_ISREG(st.st_mode):
        return hit[1]
    got = read_config_file(path, skipped if skipped is not None else [])
    if got is None:
        return None
    data, stamp = got
    entries = parse(data.decode("utf-8", "surrogateescape"), path)
    if len(_CACHE) >= MAX_CACHED:
        _CACHE.clear()
    _CACHE[path] = (stamp, entries)
    return entries


def _keychar(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c == "-")


def parse(text: str, name: str = "<config>") -> list[tuple[str, str | None, int]]:
    """Entries (canonical key, value or None for a key without ``=``, line) of one file's text,
    parsed as git's config.c parses it; ``ConfigError`` naming ``name:line`` where git fails."""
    src = text.replace("\r\n", "\n")
    if src.startswith("\ufeff"):
        src = src[1:]
    n = len(src)
    i = 0
    line = 1
    section = ""
    out: list[tuple[str, str | None, int]] = []

    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif c in BLANKS:
            i += 1
        elif c in "#;":
            while i < n and src[i] != "\n":
                i += 1
        elif c == "[":
            i += 1
            base = []
            while True:
                if i >= n:
                    raise _bad(name, line)
                c = src[i]
                i += 1
                if c == "]":
                    break
                if c in BLANKS + "\n":
                    # [section "subsection"]: blanks, then a quoted name with \x escapes
                    while c in BLANKS:
                        if i >= n:
                            raise _bad(name, line)
                        c = src[i]
                        i += 1
                    if c != '"':
                        raise _bad(name, line)
                    base.append(".")
                    while True:
                        if i >= n or src[i] == "\n":
                            raise _bad(name, line)
                        c = src[i]
                        i += 1
                        if c == '"':
                            break
                        if c == "\\":
                            if i >= n or src[i] == "\n":
                                raise _bad(name, line)
                            c = src[i]
                            i += 1
                        base.append(c)
                    if i >= n or src[i] != "]":
                        raise _bad(name, line)
                    i += 1
                    break
                if not _keychar(c) and c != ".":
                    raise _bad(name, line)
                base.append(c.lower())
            if not base:
                raise _bad(name, line)
            # section lower-cased, a quoted subsection kept as written; the old [a.B] form is
            # lower-cased whole, as git does
            section = "".join(base)
        elif c.isascii() and c.isalpha():
            start_line = line
            j = i
            while j < n and _keychar(src[j]):
                j += 1
            var = src[i:j].lower()
            i = j
            while i < n and src[i] in " \t":
                i += 1
            value: str | None = None
            if i < n and src[i] != "\n":
                if src[i] != "=":
                    raise _bad(name, line)
                value, i, line = _value(src, i + 1, line, name)
            key = section + "." + var if section else var
            out.append((key, value, start_line))
        else:
            raise _bad(name, line)
    return out


def _bad(name: str, line: int) -> ConfigError:
    return ConfigError(f"{name}:{line}: bad config line")


def _value(src: str, i: int, line: int, name: str) -> tuple[str, int, int]:
    """git's parse_value from ``i`` (after ``=``) to the end of the logical line."""
    n = len(src)
    buf: list[str] = []
    quote = False
    comment = False
    trim: int | None = None
    while True:
        c = src[i] if i < n else "\n"
        i += 1
        if c == "\n":
            if quote:
                raise _bad(name, line)
            if i <= n:
                line += 1
            if trim is not None:
                del buf[trim:]
            return "".join(buf), min(i, n), line
        if comment:
            continue
        if c in BLANKS and not quote:
            if trim is None:
                trim = len(buf)
            if buf:
                buf.append(" ")  # git keeps each unquoted blank as one space
            continue
        if not quote and c in ";#":
            comment = True
            continue
        trim = None
        if c == "\\":
            c = src[i] if i < n else "\n"
            i += 1
            if c == "\n":
                if i <= n:
                    line += 1
                continue
            esc = {"t": "\t", "b": "\b", "n": "\n", "\\": "\\", '"': '"'}.get(c)
            if esc is None:
                raise _bad(name, line)
            buf.append(esc)
            continue
        if c == '"':
            quote = not quote
            continue
        buf.append(c)
