"""A line's git state: what its earlier git commands change for later ones (the branch a
repository was switched to, the configuration ``git config`` wrote), shared by every nested
script of the line.
"""

from __future__ import annotations

import os

from hookgate.shell.git.argv import parse_argv
from hookgate.shell.git.programs import PROGRAM_ENV, program_scripts
from hookgate.shell.words import join_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _same_repository(a: tuple, b: tuple) -> bool:
    """Whether two repository keys (``repository_key``) name the same repository as far as the
    line shows: the same git directory, or directories one of which is inside the other (``git
    config …`` at the top, then ``cd src && git …``)."""
    if a == b:
        return True
    dir_a = a[1] if a[0] is None else os.path.dirname(a[0])
    dir_b = b[1] if b[0] is None else os.path.dirname(b[0])
    if dir_a is None or dir_b is None:
        return False
    if dir_a == "." or dir_b == ".":
        # relative to the payload's directory: inside it unless it climbs out
        other = dir_b if dir_a == "." else dir_a
        return not (other.startswith(("/", "~", "$")) or other == ".." or other.startswith("../"))
    return dir_a.startswith(dir_b.rstrip("/") + "/") or dir_b.startswith(dir_a.rstrip("/") + "/")


# Commands that name a file without changing it; any other command naming one of git's
# configuration files is presumed to write it (cp x ~/.gitconfig, sed -i, truncate, chmod 000).
READERS = frozenset(
    (
        "cat", "less", "more", "head", "tail", "grep", "egrep", "fgrep", "rg", "wc", "ls",
        "stat", "file", "diff", "cmp", "test", "[", "[[", "md5sum", "sha1sum", "sha256sum",
        "echo", "printf", "realpath", "readlink", "dirname", "basename", "git", "bat", "nl",
        "od", "xxd", "hexdump", "strings", "cd", "pushd", "source", ".",
    )
)  # fmt: skip


def _home_key(path: str) -> str:
    """A path key with ``$HOME``/``${HOME}`` written as ``~`` (bash's home in both)."""
    for var in ("$HOME", "${HOME}"):
        if path == var or path.startswith(var + "/"):
            return "~" + path[len(var) :]
    return path


def _repo_file(path: str) -> str | None:
    """The directory whose ``.git`` holds ``path`` when it is a repository's ``config`` or
    ``config.worktree`` (``src/.git/config`` → ``src``); None otherwise."""
    for name in ("/.git/config", "/.git/config.worktree"):
        if ("/" + path).endswith(name):
            return path[: len(path) - len(name)] or "."
    return None


def _is_include(key: str) -> bool:
    return key == "include.path" or (key.startswith("includeif.") and key.endswith(".path"))


class LineState:
    """What the git commands of one line do to later ones: the branch each repository was
    switched to (``git switch -c x``) and the configuration ``git config`` wrote (to a
    repository, globally or to a file), shared by every nested script of the line."""

    def __init__(self) -> None:
        self.switches: list[tuple[tuple, str]] = []  # (repository key, branch) in line order
        self.config: dict[Any, list[list[str]]] = {}  # scope → [op, key, value] in order
        # Per command list read for exports (the line's, each nested script's): the list, how
        # far it was read and what it exported. Per list, not the last one only: a line whose
        # git commands alternate between lists (``… | xargs git push; …`` repeated) would read
        # every list again from its start at each of them, in time quadratic in the line.
        self._scans: dict[int, tuple[list, list]] = {}
        self._named: set[str] = set()  # paths earlier commands may have written (not git)

    def see(
        self, cmd: Any, written: dict[str, list[str]], variables: dict[str, Any], before: list
    ) -> tuple[dict[str, Any], list[str]]:
        """Read git command ``cmd`` (a ``words.Command``): set its ``branch`` and ``git_config``
        from what the line did before, remember what it does, and return its parse (with the
        configuration the line gave it: its aliases followed) and the scripts its own
        settings make git run. ``written``: files the line wrote (path → parts);
        ``variables``: variables the line set (``expansion.Value``); ``before``: the commands before ``cmd``.
        Configuration and program variables count whether exported or not (reading more is
        safe); ``GIT_DIR``/``GIT_WORK_TREE`` only when exported (``export``, ``set -a``), as
        otherwise git never sees them and reads the repository of its directory. Exported ones
        become part of ``cmd.env``, the environment git gets."""
        env = {
            k: v.text
            for k, v in variables.items()
            if k.startswith("GIT_CONFIG") or k in PROGRAM_ENV or k in ("XDG_CONFIG_HOME", "HOME")
        }
        exported = {
            k: v.text
            for k, v in variables.items()
            if (k in env or k in ("GIT_DIR", "GIT_WORK_TREE"))
            and k not in cmd.env
            and self._exported(k, before)
        }
        if exported:
            cmd.env = {**exported, **cmd.env}  # the environment git really gets
        env.update(cmd.env)
        argv = [w.text for w in cmd.words]
        kinds = [w.kind for w in cmd.words]
        first = parse_argv(argv, env, cmd.cwd, None, (), kinds)
        key = repository_key(first)
        self._scan(before)
        ops = self._ops(key, env, cmd.cwd, written, first["config"])
        parsed = parse_argv(argv, env, cmd.cwd, None, ops, kinds) if ops else first
        cmd.git_config = ops
        cmd.branch = next((b for k, b in reversed(self.switches) if _same_repository(k, key)), None)
        switched = switched_branch(parsed)
        if switched is not None:
            self.switches.append((key, switched))
        added = worktree_added(parsed)
        if added is not None:
            self.switches.append(((None, join_path(parsed["dir"], added[0])), added[1]))
        if parsed["subcommand"] in ("config", "remote") and not parsed["help"]:
            change = parsed["config_change"]
            if change is not None:
                change = (change["op"], change["key"], change["value"], change["scope"])
                op, name, value, scope = change
                where: Any = ("repo", key) if scope in ("local", "worktree") else scope
                if scope.startswith("file:"):
                    path = _home_key(join_path(cmd.cwd, scope[5:]))
                    where = ("file", path)
                    top = _repo_file(path)
                    if top is not None:
                        # git config -f .git/config: the repository's own file
                        where = ("repo", (None, top))
                    elif path in ("~/.gitconfig", "~/.config/git/config"):
                        where = "global"
                self.config.setdefault(where, []).append([op, name, value])
        return parsed, program_scripts(parsed, env)

    def _exported(self, name: str, before: list) -> bool:
        """Whether a command before exported ``name`` (``export NAME``, ``declare -x``,
        ``set -a``)."""
        exports = self._scan(before)
        return name in exports or "*" in exports

    def _scan(self, before: list) -> set[str]:
        """Read the commands before a git command for what they export and the files they
        may write (``_named``, kept across nested scripts); each list of commands is read once,
        however many git commands follow. What ``before`` exported."""
        entry = self._scans.get(id(before))
        if entry is None or entry[0] is not before:
            entry = self._scans[id(before)] = (before, [0, set()])
        progress = entry[1]
        exports: set[str] = progress[1]
        for c in before[progress[0] :]:
            args = [w.text for w in c.words[1:]]
            for path in (*c.writes, *c.appends):
                self._named.add(_home_key(join_path(c.cwd, path)))
            if c.name not in READERS and c.name:
                self._named.update(
                    _home_key(join_path(c.cwd, a)) for a in args if a and not a.startswith("-")
                )
            if c.name == "set" and ("-a" in args or "allexport" in args):
                exports.add("*")
            if c.name == "export" or (c.name in ("declare", "typeset") and "-x" in args):
                exports.update(a.partition("=")[0] for a in args)
        progress[0] = len(before)
        return exports

    def _ops(
        self,
        key: tuple,
        env: dict[str, Any],
        cwd: str | None,
        written: dict[str, list[str]],
        cmdline: dict[str, str],
    ) -> list[list[str]]:
        """The configuration changes git command ``key`` reads beyond its repository's files:
        what the line did (``_line_ops``), then the files its own ``-c include.path`` names,
        and the files each include names in turn."""
        # (a line that sets no variable git reads and wrote, named and configured nothing, as
        # most lines, changes nothing: not asked)
        changed = env or written or self._named or self.config
        ops = self._line_ops(key, env, cwd, written) if changed else []
        for name, value in cmdline.items():
            if _is_include(name):
                ops += self._file(join_path(cwd, value), written)
        out: list[list[str]] = []
        for op in ops:
            out.append(op)
            if op[0] != "unset" and _is_include(op[1]):
                out += self._file(join_path(cwd, op[2]), written)
        return out

    def _line_ops(
        self, key: tuple, env: dict[str, Any], cwd: str | None, written: dict[str, list[str]]
    ) -> list[list[str]]:
        """What the line's environment, writes and ``git config`` commands change in the
        configuration files git reads for repository ``key`` (most lines: nothing, not asked)."""
        # ["drop", scope, ""]: files git reads on the disk where the hook runs that this
        # command's environment replaces (GIT_CONFIG_GLOBAL=/dev/null, HOME=/tmp/h): their
        # settings (a managed core.hooksPath) are not this command's
        ops: list[list[str]] = []
        nosystem = env.get("GIT_CONFIG_NOSYSTEM")
        if isinstance(nosystem, str) and nosystem.lower() in ("1", "true", "yes", "on"):
            ops.append(["drop", "system", ""])
        texts = {_home_key(k): k for k in written}
        for var, scope in (("GIT_CONFIG_SYSTEM", "system"), ("GIT_CONFIG_GLOBAL", "global")):
            path = env.get(var)
            if scope == "global" and path and _home_key(join_path(cwd, path)) == "~/.gitconfig":
                # the hook's own ~/.gitconfig, as read on the disk: only the XDG file is not
                ops += [["drop", "xdg", ""], *self._line_file("~/.gitconfig", texts, written)]
            elif isinstance(path, str):
                ops.append(["drop", scope, ""])
                ops += self._file(join_path(cwd, path), written) if path else []
        if not isinstance(env.get("GIT_CONFIG_GLOBAL"), str):
            # HOME=dir git …: git's global files are dir's (HOME is exported, set or not)
            home = env.get("HOME")
            home = _home_key(join_path(cwd, home)) if isinstance(home, str) and home else "~"
            xdg = env.get("XDG_CONFIG_HOME")
            xdg = _home_key(xdg) if isinstance(xdg, str) and xdg else home + "/.config"
            if home != "~" or xdg != "~/.config":
                ops.append(["drop", "global" if home != "~" else "xdg", ""])
            # (in the hook's own home, a line that wrote and named no file adds nothing here:
            # most lines, spared the paths)
            for path in (
                (join_path(None, xdg + "/git/config"), join_path(None, home + "/.gitconfig"))
                if home != "~" or texts or self._named
                else ()
            ):
                if home == "~" or path in texts or path in self._named:
                    ops += self._line_file(path, texts, written)
                else:  # a home of the line's whose files the line does not show: on the disk
                    ops += self._file(path, written)
            ops += self.config.get("global", [])
        for path in sorted(set(texts) | self._named):
            top = _repo_file(path)
            if top is not None and _same_repository((None, top), key):
                ops += self._line_file(path, texts, written)
        for (scope, *rest), changes in self.config.items():
            if scope == "repo" and _same_repository(rest[0], key):
                ops += changes
        return ops

    def _line_file(
        self, path: str, texts: dict[str, str], written: dict[str, list[str]]
    ) -> list[list[str]]:
        """What the line put in configuration file ``path`` (a ``~``-form key): the settings
        of the text it wrote, or an ``unknown`` op when a command of the line may have changed
        it in a way the line does not show (``cp x ~/.gitconfig``, ``cat a >> .git/config``)."""
        if path in texts:
            return self._file(texts[path], written)
        if path in self._named:
            return [
                [
                    "unknown",
                    path,
                    "changed by an earlier command of the line in a way it does not show",
                ]
            ]
        return []

    def _file(self, path: str, written: dict[str, list[str]]) -> list[list[str]]:
        """The settings a configuration file holds as far as the line shows: what the line
        wrote into it, then what ``git config -f`` set there. A file the line neither wrote
        nor set is on the disk, where git reads it and the line's model does not: unknown
        (``/dev/null``, git's idiom for "no file", is empty)."""
        ops: list[list[str]] = []
        text = written.get(path)
        if text is None and ("file", path) not in self.config and path != "/dev/null":
            why = "a file the command names: git reads it from the disk, hookgate does not"
            return [["unknown", path, why]]
        if text is not None:
            # only a line that writes a configuration file pays for the file reader
            from hookgate.shell.git.config import VALUELESS, ConfigError, parse

            try:
                entries = parse("\n".join(text), path)
            except ConfigError as e:
                return [["unknown", path, str(e)]]
            if any("." not in k for k, _v, _l in entries):
                # appended without a [section] header: they join whatever section the file
                # on disk ends with ([core] in a fresh .git/config)
                why = "settings written before any [section] join the section the file ends with"
                return [["unknown", path, why]]
            ops += [["add", k, VALUELESS if v is None else v] for k, v, _l in entries]
        return ops + self.config.get(("file", path), [])


_CREATES = frozenset(("--create", "--force-create", "--orphan", "-b", "-B"))
_DETACHES = frozenset(("--detach",))


def switched_branch(parsed: dict[str, Any]) -> str | None:
    """The branch a parsed ``git switch``/``git checkout`` leaves HEAD on: the one it creates
    (``switch -c x``, ``checkout -b x``, ``--orphan x``), the one ``switch x`` names, ``""`` when
    it detaches HEAD; None when it does not switch or it is unclear (``checkout x`` may restore
    a file ``x``: git's own repository then decides, as if the line had not switched)."""
    sub = parsed["subcommand"]
    if sub not in ("switch", "checkout") or parsed["help"]:
        return None
    for option in parsed["options"]:
        if option["name"] in _CREATES and option["value"]:
            return option["value"]
        if option["name"] in _DETACHES:
            return ""
    if sub == "switch" and len(parsed["operands"]) == 1 and parsed["operands"][0] != "-":
        return parsed["operands"][0]
    return None


def worktree_added(parsed: dict[str, Any]) -> tuple[str, str] | None:
    """``(path, branch)`` of the worktree ``git worktree add`` makes: the branch ``-b``/``-B``
    creates, else the one it names (``--force`` lets it be one checked out elsewhere, even
    main), else a new one named after the path; ``""`` for ``--detach``."""
    ops = parsed["operands"]
    if parsed["subcommand"] != "worktree" or parsed["help"] or ops[:1] != ["add"] or len(ops) < 2:
        return None
    branch = next((o["value"] for o in parsed["options"] if o["name"] in ("-b", "-B")), None)
    if any(o["name"] == "--detach" for o in parsed["options"]):
        branch = ""
    if branch is None:
        branch = ops[2] if len(ops) > 2 else ops[1].rstrip("/").rsplit("/", 1)[-1]
    return ops[1], branch


def repository_key(parsed: dict[str, Any]) -> tuple[Any, Any]:
    """Which repository a parsed git command works on, as written in the line (relative to the
    payload's cwd): its ``--git-dir``/``GIT_DIR``, else its directory."""
    return (parsed["git_dir"], None if parsed["git_dir"] else parsed["dir"])
