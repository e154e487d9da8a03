"""git's configuration for a repository, read from its files the way git reads them.

Files, in git's order: the global ``$XDG_CONFIG_HOME/git/config`` (default ``~/.config/git/
config``) and ``~/.gitconfig`` (or the one file ``GIT_CONFIG_GLOBAL`` names), the repository's
``config`` (in the common directory of a worktree) and its ``config.worktree`` when
``extensions.worktreeConfig`` is on; ``include.path`` and ``includeIf "gitdir:…"``,
``"gitdir/i:…"``, ``"onbranch:…"`` and ``"hasconfig:remote.*.url:…"`` are followed as git follows
them. The system file (``/etc/gitconfig``, or wherever the installed git was built to look) is
not read: its place depends on how git was built, and the agent cannot write it without root,
so it neither adds what the agent controls nor can it be trusted to be absent; callers treat
settings that only it could hold as unknown.

Safety: nothing is executed; files are opened without following symlinks (a symlinked file or
include is reported in ``Config.skipped``, not read), each file is read up to ``MAX_FILE_BYTES``,
includes nest at most ``MAX_INCLUDE_DEPTH`` deep (git's own limit) and at most
``MAX_FILES`` files are read per call. Parsed files are cached by (path, mtime, size).
"""

from __future__ import annotations

import os
import stat

MAX_FILE_BYTES = 1 << 20
MAX_INCLUDE_DEPTH = 10  # git's MAX_INCLUDE_DEPTH; deeper is a fatal error in git as here
MAX_FILES = 64
MAX_CACHED = 128

BLANKS = " \t\r"  # git's isspace() (sane_ctype), without the newline that ends a line

# A key without "=" (``[core] bare``) is a boolean true in git; it is stored as this value, which
# every git boolean and string reader of hookgate reads the same way.
VALUELESS = "true"


class ConfigError(ValueError):
    """A configuration file git itself would refuse (git dies on it), named by path:line."""


class Config:
    """The values read (``values``: canonical key → every value in order) and the files that
    exist but were not read (``skipped``: (path, why)), which a caller must treat as unknown."""

    __slots__ = ("values", "skipped", "files")

    def __init__(self) -> None:
        self.values: dict[str, list[str]] = {}
        self.skipped: list[tuple[str, str]] = []
        self.files: list[str] = []  # every file read, in order


def read_config(
    git_dir: str,
    home: str | None,
    *,
    xdg_config_home: str | None = None,
    global_file: str | None = None,
) -> dict[str, list[str]]:
    """Canonical key (section and variable lower-case, subsection as written) → its values in
    the order git sees them. See ``read`` for the arguments and ``Config.skipped``."""
    return read(git_dir, home, xdg_config_home=xdg_config_home, global_file=global_file).values


def read(
    git_dir: str | None,
    home: str | None,
    *,
    xdg_config_home: str | None = None,
    global_file: str | None = None,
) -> Config:
    """git's configuration for the repository whose git directory is ``git_dir`` (absolute;
    ``None``: no repository), with ``home`` as ``$HOME`` (``None``: no global files). ``xdg_config_home``
    defaults to ``home/.config``; ``global_file`` stands for ``GIT_CONFIG_GLOBAL`` and replaces
    both global files. Raises ``ConfigError`` where git would die."""
    files: list[str] = []
    if global_file is not None:
        files.append(global_file)
    elif home is not None:
        xdg = xdg_config_home or os.path.join(home, ".config")
        files += [os.path.join(xdg, "git", "config"), os.path.join(home, ".gitconfig")]
    reader = _Reader(git_dir, home)
    common = common_dir(git_dir) if git_dir is not None else None
    if common is not None:
        local = os.path.join(common, "config")
        files.append(local)
        if _worktree_config(reader, local):
            files.append(os.path.join(git_dir, "config.worktree"))
    reader.top_files = files
    for path in files:
        reader.read_file(path, 0)
    return reader.out


class _Reader:
    def __init__(self, git_dir: str | None, home: str | None, collect_urls: bool = False) -> None:
        self.git_dir = git_dir
        self.home = home
        self.out = Config()
        self.top_files: list[str] = []  # what read() reads, for the hasconfig: URL pass
        self.collect_urls = collect_urls  # the pass that finds remote URLs for hasconfig:
        self.remote_urls: list[str] | None = None
        self.count = 0

    def read_file(self, path: str, depth: int) -> None:
        entries = _parsed(path, self.out.skipped)
        if entries is None:
            return
        self.count += 1
        if self.count > MAX_FILES:
            raise ConfigError(f"{path}: more than {MAX_FILES} configuration files included")
        self.out.files.append(path)
        for key, value, line in entries:
            self._add(key, VALUELESS if value is None else value)
            if key == "include.path" or (key.startswith("includeif.") and key.endswith(".path")):
                if value is None:
                    raise ConfigError(f"{path}:{line}: missing value for '{key}'")
                if key == "include.path" or self._condition(key[10:-5], path):
                    self._include(value, path, line, depth)

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
            branch = _branch(self.git_dir) if self.git_dir is not None else None
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


def common_dir(git_dir: str) -> str:
    """The directory a worktree shares with its main repository (config, refs): the one its
    ``commondir`` file names, else ``git_dir`` itself."""
    text = _read_file(os.path.join(git_dir, "commondir"), [])
    if text is None:
        return git_dir
    target = text.decode("utf-8", "replace").strip()
    return os.path.normpath(os.path.join(git_dir, target)) if target else git_dir


def _worktree_config(reader: _Reader, local: str) -> bool:
    entries = _parsed(local, reader.out.skipped, record=False) or []
    on = False
    for key, value, _line in entries:
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


def _branch(git_dir: str) -> str | None:
    text = _read_file(os.path.join(git_dir, "HEAD"), [])
    if text is None:
        return None
    head = text.decode("utf-8", "replace").strip()
    if head.startswith("ref:") and head[4:].strip().startswith("refs/heads/"):
        return head[4:].strip()[len("refs/heads/") :]
    return None


def _read_file(path: str, skipped: list[tuple[str, str]], record: bool = True) -> bytes | None:
    """A regular file's bytes, opened without following symlinks; None if absent or refused."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    why = None
    if stat.S_ISLNK(st.st_mode):
        why = "symlink not followed"
    elif not stat.S_ISREG(st.st_mode):
        why = "not a regular file"
    elif st.st_size > MAX_FILE_BYTES:
        why = f"larger than {MAX_FILE_BYTES} bytes"
    if why is not None:
        if record:
            skipped.append((path, why))
        return None
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
        try:
            return os.read(fd, MAX_FILE_BYTES + 1)[:MAX_FILE_BYTES]
        finally:
            os.close(fd)
    except OSError:
        if record:
            skipped.append((path, "unreadable"))
        return None


_CACHE: dict[str, tuple[tuple[int, int], list[tuple[str, str | None, int]]]] = {}


def _parsed(
    path: str, skipped: list[tuple[str, str]], record: bool = True
) -> list[tuple[str, str | None, int]] | None:
    try:
        st = os.lstat(path)
        stamp = (st.st_mtime_ns, st.st_size)
    except OSError:
        return None
    hit = _CACHE.get(path)
    if hit is not None and hit[0] == stamp and stat.S_ISREG(st.st_mode):
        return hit[1]
    data = _read_file(path, skipped, record)
    if data is None:
        return None
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


def wildmatch(pattern: str, text: str, *, pathname: bool = False, casefold: bool = False) -> bool:
    """git's wildmatch(): ``*``, ``?``, ``[...]`` (``!``/``^``, ranges, ``[:class:]``), ``\\``
    escapes; with ``pathname``, ``*`` stops at ``/`` and ``**/`` spans directories."""
    return _dowild(pattern, 0, text, 0, pathname, casefold) == _MATCH


_MATCH, _NOMATCH, _ABORT_ALL, _ABORT_TO_STARSTAR = 0, 1, -1, -2
_CLASSES = {
    "alnum": str.isalnum,
    "alpha": str.isalpha,
    "blank": lambda c: c in " \t",
    "cntrl": lambda c: ord(c) < 32 or ord(c) == 127,
    "digit": str.isdigit,
    "graph": lambda c: 32 < ord(c) < 127,
    "lower": str.islower,
    "print": lambda c: 32 <= ord(c) < 127,
    "punct": lambda c: 32 < ord(c) < 127 and not c.isalnum(),
    "space": lambda c: c in " \t\n\r\v\f",
    "upper": str.isupper,
    "xdigit": lambda c: c in "0123456789abcdefABCDEF",
}


def _dowild(p: str, pi: int, t: str, ti: int, pathname: bool, fold: bool) -> int:
    np, nt = len(p), len(t)
    while pi < np:
        p_ch = p[pi]
        t_ch = t[ti] if ti < nt else ""
        if not t_ch and p_ch != "*":
            return _ABORT_ALL
        if fold:
            t_ch, p_ch = (
                t_ch.lower() if t_ch.isascii() else t_ch,
                p_ch.lower() if p_ch.isascii() else p_ch,
            )
        if p_ch == "\\" or p_ch not in "?*[":
            if p_ch == "\\":
                pi += 1
                p_ch = p[pi] if pi < np else ""  # git compares an escaped char unfolded
            if t_ch != p_ch:
                return _NOMATCH
        elif p_ch == "?":
            if pathname and t_ch == "/":
                return _NOMATCH
        elif p_ch == "*":
            pi += 1
            if pi < np and p[pi] == "*":
                prev = pi - 2
                while pi < np and p[pi] == "*":
                    pi += 1
                rest = p[pi : pi + 2]
                if (prev < 0 or p[prev] == "/") and (pi == np or rest[:1] == "/" or rest == "\\/"):
                    if rest[:1] == "/" and _dowild(p, pi + 1, t, ti, pathname, fold) == _MATCH:
                        return _MATCH
                    match_slash = True
                else:
                    match_slash = False
            else:
                match_slash = not pathname
            if pi == np:
                if not match_slash and "/" in t[ti:]:
                    return _NOMATCH
                return _MATCH
            if not match_slash and p[pi] == "/":
                slash = t.find("/", ti)
                if slash < 0:
                    return _NOMATCH
                ti = slash + 1
                pi += 1
                continue
            while True:
                if ti >= nt:
                    break
                if p[pi] not in "*?[\\":
                    want = p[pi].lower() if fold else p[pi]
                    while ti < nt and (match_slash or t[ti] != "/"):
                        have = t[ti].lower() if fold else t[ti]
                        if have == want:
                            break
                        ti += 1
                    have = (t[ti].lower() if fold else t[ti]) if ti < nt else ""
                    if have != want:
                        if match_slash:
                            return _ABORT_ALL
                        break
                matched = _dowild(p, pi, t, ti, pathname, fold)
                if matched != _NOMATCH:
                    if not match_slash or matched != _ABORT_TO_STARSTAR:
                        return matched
                elif not match_slash and t[ti] == "/":
                    return _ABORT_TO_STARSTAR
                ti += 1
            return _ABORT_ALL
        else:  # "["
            pi += 1
            p_ch = p[pi] if pi < np else ""
            negated = p_ch in "!^" and p_ch != ""
            if negated:
                pi += 1
                p_ch = p[pi] if pi < np else ""
            prev_ch = ""
            matched = False
            while True:
                if not p_ch:
                    return _ABORT_ALL
                if p_ch == "\\":
                    pi += 1
                    p_ch = p[pi] if pi < np else ""
                    if not p_ch:
                        return _ABORT_ALL
                    if t_ch == p_ch:
                        matched = True
                elif p_ch == "-" and prev_ch and pi + 1 < np and p[pi + 1] != "]":
                    pi += 1
                    p_ch = p[pi]
                    if p_ch == "\\":
                        pi += 1
                        p_ch = p[pi] if pi < np else ""
                        if not p_ch:
                            return _ABORT_ALL
                    if prev_ch <= t_ch <= p_ch:
                        matched = True
                    elif fold and t_ch.islower() and prev_ch <= t_ch.upper() <= p_ch:
                        matched = True
                    p_ch = ""
                elif p_ch == "[" and pi + 1 < np and p[pi + 1] == ":":
                    s = pi + 2
                    end = p.find("]", s)
                    if end < 0:
                        return _ABORT_ALL
                    if end - s - 1 < 0 or p[end - 1] != ":":
                        if t_ch == "[":
                            matched = True
                        p_ch = "["
                    else:
                        test = _CLASSES.get(p[s : end - 1])
                        if test is None:
                            return _ABORT_ALL
                        if test(t_ch) or (fold and p[s : end - 1] == "upper" and t_ch.islower()):
                            matched = True
                        pi = end
                        p_ch = ""
                elif t_ch == p_ch:
                    matched = True
                prev_ch = p_ch
                pi += 1
                p_ch = p[pi] if pi < np else ""
                if p_ch == "]":
                    break
            if matched == negated or (pathname and t_ch == "/"):
                return _NOMATCH
        pi += 1
        ti += 1
    return _NOMATCH if ti < nt else _MATCH
