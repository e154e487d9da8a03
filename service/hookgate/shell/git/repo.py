"""A repository's own files, read without a process and without following symlinks: where the
git directory of a path is (``.git`` directories and files, bare repositories), the common
directory a worktree shares, the branch HEAD is on and the refs a name may be.
"""

from __future__ import annotations

import os
import stat

from hookgate.paths import present  # the walk up asks it of two names at every level

MAX_UP = 64  # directories walked upward looking for a repository
MAX_READ = 4096  # bytes read from .git files, HEAD and refs
MAX_FILE_BYTES = 1 << 20  # bytes of a whole file read (configuration, commondir)


def _read_small(path: str, mode: int | None = None) -> str | None:
    """A small regular file's text; None for anything else (symlink, FIFO, too big, error).
    ``mode``: what ``os.lstat(path)`` just answered, not asked again."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode if mode is None else mode):
            return None
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
        try:
            data = os.read(fd, MAX_READ)
        finally:
            os.close(fd)
        return data.decode("utf-8", "replace")
    except OSError:
        return None


def _child(d: str, name: str) -> str:
    """``os.path.join(d, name)`` for a relative ``name``, without its generic checks: every
    git call walks up its directories through this."""
    return d + name if d.endswith("/") else d + "/" + name


def _is_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _is_git_dir(d: str) -> bool:
    """A repository directory itself: bare, a ``.git`` given with ``--git-dir``, or a worktree's
    own git directory (``HEAD`` plus ``refs/`` or a ``commondir`` file)."""
    head = _child(d, "HEAD")
    if not present(head) or _read_small(head) is None:
        return False
    return _is_dir(_child(d, "refs")) or _read_small(_child(d, "commondir")) is not None


def find_git_dir(start: str, refused: list[tuple[str, str]] | None = None) -> str | None:
    """The git directory for ``start``: ``.git`` dirs, ``.git`` files (worktrees, submodules),
    bare repositories; walking upward at most ``MAX_UP`` levels, following no symlinks. Where
    it stops at a ``.git`` it does not follow (git would), why is appended to ``refused``."""
    d = os.path.normpath(start)
    for _ in range(MAX_UP):
        dot = _child(d, ".git")
        mode: int | None = None
        if present(dot):
            try:
                mode = os.lstat(dot).st_mode
            except OSError:
                pass
        if mode is not None and stat.S_ISLNK(mode):
            if refused is not None:
                refused.append((dot, "symlink not followed"))
            return None  # a symlinked .git is not followed (and not skipped past)
        if mode is not None and stat.S_ISDIR(mode):
            return dot
        pointer = _read_small(dot, mode) if mode is not None else None
        if pointer is not None:
            line = pointer.splitlines()[0] if pointer.strip() else ""
            if line.startswith("gitdir:"):
                target = line[len("gitdir:") :].strip()
                return os.path.normpath(os.path.join(d, target))
            return None
        if mode is not None and not stat.S_ISREG(mode) and refused is not None:
            refused.append((dot, "not a regular file or directory"))
            return None
        if _is_git_dir(d):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent
    return None


def work_top(path: str, git_dir: str) -> str:
    """The top of the work tree whose git directory is ``git_dir`` (where git runs hooks): the
    nearest directory at or above ``path`` holding a ``.git``; ``git_dir`` for a bare one."""
    d = os.path.normpath(path)
    for _ in range(MAX_UP):
        if os.path.lexists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return git_dir


def hooks_dir(path: str, value: str | None, home: str | None) -> dict[str, object] | None:
    """Where git looks for the hooks of the repository containing absolute ``path`` when
    ``core.hooksPath`` is ``value`` (None: not set): ``path`` (absolute; ``~/`` is ``home``,
    a relative value is relative to the top of the work tree, where git runs hooks), ``own``
    (the repository's own ``hooks`` directory, in its common directory), ``exists`` (a
    directory is there: git runs no hooks from a path that is not). None without a
    repository."""
    git_dir = find_git_dir(path)
    if git_dir is None:
        return None
    own = os.path.normpath(os.path.join(common_dir(git_dir), "hooks"))
    if value is None:
        where = own
    elif value == "~" or value.startswith("~/"):
        where = os.path.normpath((home or "~") + value[1:])
    else:
        where = os.path.normpath(os.path.join(work_top(path, git_dir), value))
    return {"path": where, "own": where == own, "exists": os.path.isdir(where) and value != ""}


def current_branch(path: str) -> str | None:
    """The current branch of the repository containing absolute ``path``, or None (detached
    HEAD, no repository)."""
    git_dir = find_git_dir(path)
    return None if git_dir is None else checked_out(git_dir)


def checked_out(git_dir: str) -> str | None:
    """The branch HEAD of ``git_dir`` names (``current_branch`` once the repository is found):
    a ref outside ``refs/heads/`` whole, None for a detached or unreadable HEAD."""
    head = _read_small(_child(git_dir, "HEAD"))
    if head is None:
        return None
    head = head.strip()
    if head.startswith("ref:"):
        ref = head[4:].strip()
        return ref[len("refs/heads/") :] if ref.startswith("refs/heads/") else ref
    return None


def head_branch(git_dir: str) -> str | None:
    """The branch (under ``refs/heads/``) HEAD of ``git_dir`` is on, as ``includeIf
    "onbranch:…"`` matches it; None otherwise (detached, another ref, no HEAD)."""
    text = read_file(_child(git_dir, "HEAD"))
    if text is None:
        return None
    head = text.decode("utf-8", "replace").strip()
    if head.startswith("ref:") and head[4:].strip().startswith("refs/heads/"):
        return head[4:].strip()[len("refs/heads/") :]
    return None


def common_dir(git_dir: str) -> str:
    """The directory a worktree shares with its main repository (config, refs): the one its
    ``commondir`` file names, else ``git_dir`` itself."""
    text = read_file(_child(git_dir, "commondir"))
    if text is None:
        return git_dir
    target = text.decode("utf-8", "replace").strip()
    return os.path.normpath(os.path.join(git_dir, target)) if target else git_dir


def read_file(path: str, skipped: list[tuple[str, str]] | None = None) -> bytes | None:
    """A regular file's bytes, opened without following symlinks (``files.read_file``: never
    blocked by a FIFO); None if absent or refused, and then why it was refused appended to
    ``skipped`` (when given) if the file exists."""
    from hookgate.files import UnsafeFile
    from hookgate.files import read_file as read_regular

    try:
        return read_regular(path, MAX_FILE_BYTES)
    except UnsafeFile as exc:
        if skipped is not None:
            skipped.append((path, _WHY.get(exc.kind, "unreadable")))
        return None


def read_config_file(path: str, skipped: list[tuple[str, str]]) -> tuple[bytes, tuple] | None:
    """A configuration file's bytes and its identity stamp, following a symlink as git does
    (a dotfile manager's ``~/.gitconfig`` → ``~/dotfiles/gitconfig``); None if absent (a
    dangling link, as git ignores it) or refused, then why is appended to ``skipped``. Only a
    regular file within ``MAX_FILE_BYTES`` is read (``files.read_file_stat``: the target is
    checked before it is opened, a FIFO never hangs the hook)."""
    from hookgate.files import UnsafeFile, read_file_stat

    try:
        found = read_file_stat(path, MAX_FILE_BYTES, follow=True)
    except UnsafeFile as exc:
        skipped.append((path, _WHY.get(exc.kind, exc.why)))
        return None
    if found is None:
        return None
    data, now = found
    return data, (now.st_dev, now.st_ino, now.st_mtime_ns, now.st_size)


_WHY = {
    "link": "symlink not followed",
    "type": "not a regular file",
    "size": f"larger than {MAX_FILE_BYTES} bytes",
}


MAX_PACKED_REFS = 1 << 20  # bytes of packed-refs read


def _packed_refs(common: str) -> set[str]:
    path = os.path.join(common, "packed-refs")
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return set()
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        try:
            data = os.read(fd, MAX_PACKED_REFS).decode("utf-8", "replace")
        finally:
            os.close(fd)
    except OSError:
        return set()
    return {
        line.split(" ", 1)[1] for line in data.splitlines() if line[:1] not in "#^" and " " in line
    }


def checkout_target(directory: str, name: str) -> str | None:
    """How ``git checkout <name>`` (one operand, no ``--``) reads ``name`` in the repository
    containing ``directory``: ``"revision"`` (a branch, tag, remote branch it would track, or a
    revision expression), ``"path"`` (no such revision, but a file or directory of that name
    exists: git restores it from the index, discarding changes), or None (no repository, or
    neither: git fails)."""
    git_dir = find_git_dir(directory)
    if git_dir is None or not name:
        return None
    if name in ("-", "HEAD", "@") or any(c in name for c in "~^@:{"):
        return "revision"
    if len(name) >= 4 and all(c in "0123456789abcdef" for c in name.lower()):
        return "revision"
    common = common_dir(git_dir)
    candidates = [name, f"refs/{name}", f"refs/tags/{name}", f"refs/heads/{name}"]
    candidates += [f"refs/remotes/{name}"]
    for ref in candidates:
        if _read_small(os.path.join(common, ref)) is not None:
            return "revision"
    packed = _packed_refs(common)
    if packed.intersection(candidates) or any(
        r.startswith("refs/remotes/") and r.endswith("/" + name) for r in packed
    ):
        return "revision"
    remotes = os.path.join(common, "refs", "remotes")
    try:
        names = os.listdir(remotes) if _is_dir(remotes) else []
    except OSError:
        names = []
    if any(_read_small(os.path.join(remotes, r, name)) is not None for r in names[:64]):
        return "revision"  # git checkout x creates x tracking origin/x
    return "path" if os.path.lexists(os.path.join(directory, name)) else None
