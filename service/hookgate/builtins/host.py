"""Facts about the agent host on this machine: the sub-agents and skills it defines.

Read from ``.claude/agents/*.md`` and ``.claude/skills/*/SKILL.md`` under the project directory
and the user's home, with a bounded scan that follows no symlinks; cached per process (a hook
process is short-lived, and the files change rarely within one).
"""

from __future__ import annotations

import os
import stat
from functools import lru_cache

from hookgate.builtins.registry import BuiltinError, builtin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_ENTRIES = 512  # directory entries looked at per directory
MAX_HEAD = 8192  # bytes of a file read to find its frontmatter
MAX_FILE = 1 << 20  # an agent or skill file larger than this is not read


def _lstat_mode(path: str) -> int | None:
    try:
        return os.lstat(path).st_mode
    except OSError:
        return None


def _real_dir(path: str) -> bool:
    mode = _lstat_mode(path)
    return mode is not None and stat.S_ISDIR(mode)


def _entries(directory: str) -> list[str]:
    """Up to ``MAX_ENTRIES`` names in ``directory`` (sorted, so the bound is deterministic)."""
    try:
        with os.scandir(directory) as it:
            names = []
            for entry in it:
                names.append(entry.name)
                if len(names) >= MAX_ENTRIES:
                    break
    except OSError:
        return []
    return sorted(names)


def frontmatter_name(path: str) -> str | None:
    """The ``name:`` of a Markdown file's YAML frontmatter, or None (file unread if not regular)."""
    from hookgate.files import read_file

    mode = _lstat_mode(path)
    if mode is None or not stat.S_ISREG(mode):
        return None
    try:  # the project's files, not hookgate's: one that will not be read names no agent
        raw = read_file(path, MAX_FILE)
    except OSError:
        return None
    if raw is None:
        return None
    head = raw[:MAX_HEAD].decode("utf-8", "replace")
    lines = head.splitlines()
    if not lines or lines[0].strip() != "---":
        return None
    for line in lines[1:]:
        if line.strip() == "---":
            break
        key, sep, value = line.partition(":")
        if sep and key.strip() == "name":
            value = value.strip().strip("'\"").strip()
            return value or None
    return None


def _claude_dirs(directory: str) -> list[str]:
    """``<directory>/.claude`` and ``~/.claude``, real directories only, without duplicates."""
    out = []
    for base in (directory, os.path.expanduser("~")):
        d = os.path.join(base, ".claude")
        if base and os.path.isabs(base) and _real_dir(base) and _real_dir(d) and d not in out:
            out.append(d)
    return out


@lru_cache(maxsize=32)
def _agents(directory: str, home: str) -> tuple[str, ...]:
    names: set[str] = set()
    for claude in _claude_dirs(directory):
        agents = os.path.join(claude, "agents")
        if not _real_dir(agents):
            continue
        for entry in _entries(agents):
            if entry.endswith(".md") and not entry.startswith("."):
                path = os.path.join(agents, entry)
                mode = _lstat_mode(path)
                if mode is not None and stat.S_ISREG(mode):
                    names.add(frontmatter_name(path) or entry[:-3])
    return tuple(sorted(names))


@lru_cache(maxsize=32)
def _skills(directory: str, home: str) -> tuple[str, ...]:
    names: set[str] = set()
    for claude in _claude_dirs(directory):
        skills = os.path.join(claude, "skills")
        if not _real_dir(skills):
            continue
        for entry in _entries(skills):
            skill_dir = os.path.join(skills, entry)
            if entry.startswith(".") or not _real_dir(skill_dir):
                continue
            skill_md = os.path.join(skill_dir, "SKILL.md")
            mode = _lstat_mode(skill_md)
            if mode is not None and stat.S_ISREG(mode):
                names.add(frontmatter_name(skill_md) or entry)
    return tuple(sorted(names))


def _directory(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise BuiltinError(f"{what}: operand 1 must be a string")
    return value


@builtin("host.agents", "host", 1, reads_host=True)
def agents(directory: Any) -> list[str]:
    """Names of the sub-agents defined for the project at ``directory`` and for the user.

    Reads ``<directory>/.claude/agents/*.md`` and ``~/.claude/agents/*.md``: each file's
    frontmatter ``name``, else its file stem. Symlinks are not followed, each directory is read
    up to a bound, and results are cached per process. ``directory`` must be absolute (the
    payload's ``input.cwd``); a relative one contributes nothing. Sorted array of strings.
    """
    return list(_agents(_directory(directory, "host.agents"), os.path.expanduser("~")))


@builtin("host.skills", "host", 1, reads_host=True)
def skills(directory: Any) -> list[str]:
    """Names of the skills defined for the project at ``directory`` and for the user.

    Reads ``<directory>/.claude/skills/*/SKILL.md`` and ``~/.claude/skills/*/SKILL.md``: each
    file's frontmatter ``name``, else its directory's name. Same bounds as ``host.agents``:
    no symlinks followed, bounded, cached per process. Sorted array of strings.
    """
    return list(_skills(_directory(directory, "host.skills"), os.path.expanduser("~")))
