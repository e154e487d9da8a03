"""The managed install: hookgate in root-owned files that the agent's Unix user cannot change.

``hookgate install --managed HOST…`` (as root) puts three things where only root can write:

- the code: a venv at ``/opt/hookgate`` (``python -m venv``, then ``pip install`` of this
  hookgate's source tree, or of the wheel or requirement given with ``--from``), every file
  ``root:root`` and not group/world-writable. The hook command names that venv's interpreter by
  absolute path with ``-I -S`` and the launcher code (``hostconfig.LAUNCH_CODE``), never the pip
  console script, which honours ``PYTHONPATH``;
- the hook entries, in each host's administrator settings (``hostconfig.MANAGED``), merged into
  files an administrator may share (their other content kept) or written as hookgate's own
  drop-in;
- ``/etc/hookgate/`` (0755): ``install.json``, what this install created and pinned, so that
  ``uninstall --managed`` removes exactly that; ``config.json``, the managed runtime's trust
  anchors, only when the administrator gives them (``write_config``).

Every path is written under a staging root (``--root DIR``, like ``DESTDIR``): an image builder
fills a tree that becomes ``/`` later, and the files name the final paths, not the staging ones.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from hookgate.integrations import hostconfig, jsonc
from hookgate.integrations.trust import table_path

PREFIX = "/opt/hookgate"
CONFIG_DIR = "/etc/hookgate"
CONFIG_FILE = "/etc/hookgate/config.json"  # the managed runtime's trust anchors
STATE_DIR = "/var/lib/hookgate"  # bundle and compile cache, written by a root-run pull
MANIFEST = "/etc/hookgate/install.json"
_TOML_BEGIN = "# >>> hookgate managed hooks (hookgate install --managed; do not edit)"
_TOML_END = "# <<< hookgate managed hooks"


class ManagedError(ValueError):
    """A managed file that cannot be edited safely, or an install step that failed."""


@dataclass
class Change:
    """One file a managed (un)install writes: its final path, new content (None: delete it)."""

    path: str
    content: bytes | None
    mode: int = 0o644
    what: str = ""


def staged(root: str, path: str) -> str:
    """``path`` (absolute, as the hosts will read it) under the staging ``root``."""
    return os.path.join(root, path.lstrip("/")) if root not in ("", "/") else path


def _read(root: str, path: str) -> str | None:
    try:
        return Path(staged(root, path)).read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ManagedError(f"cannot read {staged(root, path)}: {exc}") from None


# -- the code ---------------------------------------------------------------------------------


def default_source() -> str:
    """What ``pip install`` puts in the prefix when ``--from`` is not given: this hookgate's
    source tree when it runs from one (an editable or in-tree run), else this version from the
    package index."""
    import hookgate

    tree = Path(hookgate.__file__).resolve().parents[2]
    if (tree / "pyproject.toml").is_file() and (tree / "service" / "hookgate").is_dir():
        return str(tree)
    return f"hookgate=={hookgate.__version__}"


def code_installed(prefix: str, root: str) -> str | None:
    """The hookgate version installed in the prefix's venv (None: none)."""
    python = staged(root, os.path.join(prefix, "bin", "python"))
    if not os.path.exists(python):
        return None
    found = subprocess.run(
        [python, "-I", "-c", "import hookgate; print(hookgate.__version__)"],
        capture_output=True,
        text=True,
        check=False,
    )
    return found.stdout.strip() if found.returncode == 0 else None


def base_python(requested: str | None = None) -> str:
    """The interpreter the prefix's venv is made from: ``requested``, else this Python's base
    interpreter, else ``/usr/bin/python3``; the first every user can run (a pyenv build under
    ``/root`` cannot be run by the agent's user) and only root can change."""
    candidates = [requested] if requested else [sys._base_executable, "/usr/bin/python3"]
    reasons = []
    for candidate in candidates:
        reason = _unusable(candidate)
        if reason is None:
            return os.path.abspath(candidate)
        reasons.append(reason)
    raise ManagedError("no interpreter for the prefix: " + "; ".join(reasons) + " (give --python)")


def _unusable(python: str) -> str | None:
    real = os.path.realpath(python)
    try:
        info = os.stat(real)
    except OSError as exc:
        return f"{python}: {exc.strerror}"
    if info.st_mode & 0o005 != 0o005:
        return f"{real} cannot be run by other users"
    directory = os.path.dirname(real)
    while True:
        if not os.stat(directory).st_mode & stat.S_IXOTH:
            return f"{python}: other users cannot enter {directory}"
        if directory == os.path.dirname(directory):
            break
        directory = os.path.dirname(directory)
    nobody = changeable_by(real, 65534, {65534})
    if nobody or os.stat(real).st_uid != 0:
        return f"{real} is not root's alone ({nobody or 'not owned by root'})"
    found = subprocess.run(
        [real, "-I", "-c", "import sys; print(sys.version_info >= (3, 11))"],
        capture_output=True,
        text=True,
        check=False,
    )
    if found.stdout.strip() != "True":
        return f"{real} is not Python 3.11 or newer"
    return None


def install_code(prefix: str, root: str, source: str, python: str) -> None:
    """A venv at ``prefix`` made from ``python``, with ``source`` installed in it (not
    editable) by this Python's pip, every file root-owned. The venv holds no pip: nothing in
    the prefix installs anything."""
    target = staged(root, prefix)
    venv_python = os.path.join(target, "bin", "python")
    # No --clear on an upgrade: pip replaces one package at a time, so the hooks that run
    # meanwhile keep finding an interpreter and a hookgate.
    steps = [[python, "-m", "venv", "--without-pip", target]]
    steps.append(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            venv_python,
            "install",
            "--no-input",
            "--upgrade",
            source,
        ]
    )
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
            raise ManagedError(f"{' '.join(step)} failed:\n  " + "\n  ".join(tail))
    secure_tree(target)


def secure_tree(top: str) -> None:
    """Every file under ``top`` owned by root and writable by no one else (a umask of 002, or
    a file pip copied with its archive's modes, must not leave a door open)."""
    for directory, dirs, files in os.walk(top):
        for name in [directory, *(os.path.join(directory, n) for n in dirs + files)]:
            info = os.lstat(name)
            os.lchown(name, 0, 0)
            if not stat.S_ISLNK(info.st_mode):
                os.chmod(name, stat.S_IMODE(info.st_mode) & ~0o022)


def launcher_dirs(prefix: str, root: str) -> list[str]:
    """The prefix venv's site-packages, as the hook will name them (staging root removed)."""
    python = staged(root, os.path.join(prefix, "bin", "python"))
    code = "import json,sysconfig;p=sysconfig.get_paths();print(json.dumps([p['purelib'],p['platlib']]))"
    found = subprocess.run([python, "-I", "-c", code], capture_output=True, text=True, check=False)
    if found.returncode != 0:
        raise ManagedError(f"{python} cannot run: {found.stderr.strip()}")
    top = staged(root, prefix)
    dirs = []
    for path in json.loads(found.stdout):
        path = os.path.abspath(path)
        dirs.append(os.path.join(prefix, os.path.relpath(path, top)) if root != "/" else path)
    return list(dict.fromkeys(dirs))


def managed_command(prefix: str, dirs: list[str], host: str, rewrite: str = "allow") -> str:
    """The hook command: the prefix's interpreter by absolute path, ``-I -S``, the launcher;
    with no warm process (``HOOKGATE_WARM=0``, which no variable of the user's environment
    overrides): one would run as the agent's user, who could stop or impersonate it."""
    python = os.path.join(prefix, "bin", "python")
    command = hostconfig.hook_command(hostconfig.launcher_argv(python, dirs), host, rewrite)
    return f"HOOKGATE_WARM=0 {command}"


# -- the trust anchors (the managed runtime reads them; hookgate.commands.pull keeps them) -----


def write_config(root: str, config: dict) -> Change:
    """``/etc/hookgate/config.json`` holding ``config`` (server URL, pinned bundle key, failure
    policy, limits): the one place an install writes the managed runtime's anchors. The document
    is checked by the parser the hook itself uses (``anchors.parse``, ``AnchorError`` naming the
    field), so an install never leaves a file that makes every hook ask."""
    import base64
    import binascii

    from hookgate import anchors

    text = json.dumps(config, indent=2, sort_keys=True) + "\n"
    anchors.parse(text.encode("utf-8"), CONFIG_FILE)
    if "public_key" in config:
        try:
            raw = base64.b64decode(config["public_key"], validate=True)
        except binascii.Error:
            raw = b""
        if len(raw) != 32:
            message = "public_key: not the base64 of a raw 32-byte Ed25519 key (/v1/bundle/key)"
            raise anchors.AnchorError(f"{CONFIG_FILE}: {message}")
    return Change(CONFIG_FILE, text.encode("utf-8"), 0o644, "trust anchors of the managed runtime")


# -- the hosts' administrator files -----------------------------------------------------------


def _claude_dropin(command: str, managed_only: bool) -> bytes:
    spec = hostconfig.SPECS["claude"]
    value: dict = {"env": hostconfig.managed_env()}
    value["hooks"] = {event: [hostconfig._entry(spec, command)] for event in spec.events}
    if managed_only:
        value["allowManagedHooksOnly"] = True
    return (json.dumps(value, indent=2) + "\n").encode("utf-8")


def _set_json(text: str | None, keys: tuple[str, ...], value: object, name: str) -> str:
    """``text`` (None: a new file) with the member at ``keys`` set to ``value``."""
    text = "{}\n" if text is None else text
    doc = jsonc.parse(text, name)
    node = doc.root
    for depth, key in enumerate(keys):
        if node.kind != "object":
            raise ManagedError(
                f"{name}: {'.'.join(keys[:depth]) or 'the top level'}: expected an object"
            )
        child = node.get(key)
        if child is None:
            nested: object = value
            for inner in reversed(keys[depth + 1 :]):
                nested = {inner: nested}
            return jsonc.append(doc, node, key, nested)
        node = child
    if node.value == value and type(node.value) is type(value):
        return text
    if doc.has_comment_in(node.start, node.end):
        raise ManagedError(f"{name}: {'.'.join(keys)}: a comment inside the value; edit it by hand")
    return text[: node.start] + json.dumps(value) + text[node.end :]


def _get(value: object, keys: tuple[str, ...]) -> object:
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return _ABSENT
        value = value[key]
    return value


_ABSENT = object()


def _remove_json(text: str, keys: tuple[str, ...], name: str) -> str:
    """``text`` without the member at ``keys``, and without the objects that held only it."""
    for depth in range(len(keys), 0, -1):
        doc = jsonc.parse(text, name)
        chain = [doc.root]
        for key in keys[:depth]:
            child = chain[-1].get(key) if chain[-1].kind == "object" else None
            if child is None:
                return text
            chain.append(child)
        if depth < len(keys) and (chain[-1].kind != "object" or chain[-1].entries):
            return text
        parent = chain[-2]
        index = max(i for i, k in enumerate(parent.keys) if k == keys[depth - 1])
        text = jsonc.remove(doc, parent, index)
    return text


def _toml_block(command: str) -> str:
    spec = hostconfig.SPECS["codex"]
    lines = [_TOML_BEGIN]
    for event in spec.events:
        lines += [
            f"[[hooks.{event}]]",
            'matcher = "*"',
            f"[[hooks.{event}.hooks]]",
            'type = "command"',
            f"command = {json.dumps(command)}",
            "timeout = 30",
        ]
    lines.append(_TOML_END)
    return "\n".join(lines) + "\n"


def _toml_without_block(text: str) -> str:
    lines = text.splitlines(keepends=True)
    out, inside = [], False
    for line in lines:
        if line.rstrip("\r\n") == _TOML_BEGIN:
            inside = True
        elif inside and line.rstrip("\r\n") == _TOML_END:
            inside = False
        elif not inside:
            out.append(line)
    result = "".join(out)
    return result if result.strip() else ""


def _toml_set(text: str, keys: tuple[str, ...], value: bool, name: str) -> str:
    """``text`` with ``keys = value`` (a table and a key, or a top-level key), written in the
    table's own ``[header]`` section; refused when the file spells that table another way."""
    literal = "true" if value else "false"
    lines = text.splitlines(keepends=True)
    table, key = keys[:-1], keys[-1]
    if table:
        header = next((i for i, line in enumerate(lines) if table_path(line) == list(table)), None)
        if header is None:
            body = text if not text or text.endswith("\n") else text + "\n"
            return _check_toml(
                body + f"\n[{'.'.join(table)}]\n{key} = {literal}\n", text, keys, value, name
            )
        end = next(
            (i for i in range(header + 1, len(lines)) if lines[i].lstrip().startswith("[")),
            len(lines),
        )
    else:
        header, end = (
            -1,
            next((i for i, line in enumerate(lines) if line.lstrip().startswith("[")), len(lines)),
        )
    for i in range(header + 1, end):
        if lines[i].partition("=")[0].strip().strip("\"'") == key:
            lines[i] = f"{key} = {literal}\n"
            break
    else:
        lines.insert(header + 1, f"{key} = {literal}\n")
    return _check_toml("".join(lines), text, keys, value, name)


def _toml_unset(text: str, keys: tuple[str, ...], name: str) -> str:
    lines = text.splitlines(keepends=True)
    table, key = keys[:-1], keys[-1]
    if table:
        header = next((i for i, line in enumerate(lines) if table_path(line) == list(table)), None)
        if header is None:
            return text
        end = next(
            (i for i in range(header + 1, len(lines)) if lines[i].lstrip().startswith("[")),
            len(lines),
        )
    else:
        header, end = (
            -1,
            next((i for i, line in enumerate(lines) if line.lstrip().startswith("[")), len(lines)),
        )
    kept = [
        line
        for i, line in enumerate(lines)
        if not (header < i < end and line.partition("=")[0].strip().strip("\"'") == key)
    ]
    if table and all(not line.strip() for line in kept[header + 1 : end - 1]):
        # The table held only hookgate's pin: the header goes, with the blank line _toml_set
        # put before it.
        del kept[header]
        if header and not kept[header - 1].strip():
            del kept[header - 1]
    return "".join(kept)


def _check_toml(new: str, old: str, keys: tuple[str, ...], value: bool, name: str) -> str:
    """``new`` when it parses and differs from ``old`` only in ``keys``; else refuse."""
    try:
        expected = tomllib.loads(old)
        got = tomllib.loads(new)
    except tomllib.TOMLDecodeError as exc:
        raise ManagedError(f"{name}: {exc}") from None
    target = expected
    for key in keys[:-1]:
        target = target.setdefault(key, {})
        if not isinstance(target, dict):
            raise ManagedError(f"{name}: {'.'.join(keys)}: not a table")
    target[keys[-1]] = value
    if got != expected:
        raise ManagedError(
            f"{name}: cannot set {'.'.join(keys)} in this file as written; set it by hand"
        )
    return new


# -- planning and applying --------------------------------------------------------------------


def load_manifest(root: str) -> dict:
    text = _read(root, MANIFEST)
    if text is None:
        return {"version": 1, "hosts": [], "created": [], "pins": []}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ManagedError(f"{staged(root, MANIFEST)}: {exc}") from None
    if not isinstance(value, dict):
        raise ManagedError(f"{staged(root, MANIFEST)}: expected a JSON object")
    for key, default in (("hosts", []), ("created", []), ("pins", [])):
        value.setdefault(key, default)
    return value


class _Files:
    """The planned content of each administrator file, read once from the staging root."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.before: dict[str, str | None] = {}
        self.after: dict[str, str | None] = {}
        self.modes: dict[str, int] = {}

    def get(self, path: str) -> str | None:
        if path not in self.after:
            self.before[path] = self.after[path] = _read(self.root, path)
        return self.after[path]

    def put(self, path: str, text: str | None, mode: int = 0o644) -> None:
        self.get(path)
        self.after[path] = text
        self.modes[path] = mode

    def changes(self, whats: dict[str, str]) -> list[Change]:
        return [
            Change(
                path,
                None if text is None else text.encode("utf-8"),
                self.modes.get(path, 0o644),
                whats.get(path, ""),
            )
            for path, text in self.after.items()
            if text != self.before[path]
        ]


def _pin(
    files: _Files, manifest: dict, host: str, path: str, keys: tuple[str, ...], value: object
) -> None:
    text = files.get(path)
    toml = path.endswith(".toml")
    try:
        old = tomllib.loads(text or "") if toml else jsonc.parse(text or "{}", path).root.value
    except (tomllib.TOMLDecodeError, jsonc.JsoncError) as exc:
        raise ManagedError(f"{staged(files.root, path)}: {exc}") from None
    if not any(p["file"] == path and tuple(p["keys"]) == keys for p in manifest["pins"]):
        previous = _get(old, keys)
        record = {"host": host, "file": path, "keys": list(keys), "had": previous is not _ABSENT}
        if previous is not _ABSENT:
            record["previous"] = previous
        manifest["pins"].append(record)
    if toml:
        files.put(path, _toml_set(text or "", keys, bool(value), path))
    else:
        files.put(path, _set_json(text, keys, value, path))


def plan_install(
    hosts: list[str], root: str, command: dict[str, str], managed_only: bool, manifest: dict
) -> tuple[list[Change], list[str]]:
    """The file changes that wire ``hosts`` (``command``: each host's hook command), and what
    each host still cannot enforce. ``manifest`` is updated to record them."""
    files, whats, notes = _Files(root), {}, []
    for host in hosts:
        spec = hostconfig.MANAGED[host]
        if spec.residual:
            notes.append(f"{host}: {spec.residual}")
        if spec.hooks_file is None:
            continue
        if host == "claude" and not managed_only:
            # Seen in the real host (tests/hosts/test_managed_hosts.py): a user hook answering
            # an updated input after hookgate's rewrite put `--force` back.
            notes.append(
                "claude: without --managed-only, the user's and the project's own hooks run "
                "after hookgate's and can change the input of a call hookgate allowed or "
                "rewrote (a program the agent writes can add such a hook); give --managed-only"
            )
        path, cmd = spec.hooks_file, command[host]
        whats[path] = f"{host}: hookgate's managed hooks"
        try:
            if not managed_only:  # an earlier --managed-only is undone, not kept by accident
                for pin in [
                    p
                    for p in manifest["pins"]
                    if p.get("host") == host and p["keys"] == [spec.only_key]
                ]:
                    _restore(files, manifest, pin)
            if host == "claude":
                files.put(path, _claude_dropin(cmd, managed_only).decode("utf-8"))
            elif host == "copilot":
                files.put(path, hostconfig.install_text(None, "copilot", cmd, path))
            elif host == "codex":
                for _, keys, value in spec.pins:
                    _pin(files, manifest, host, path, keys, value)
                if managed_only:
                    _pin(files, manifest, host, path, (spec.only_key,), True)
                text = _toml_without_block(files.get(path) or "")
                # Straight after the file's last line: uninstall takes out exactly the block.
                text = (text if not text or text.endswith("\n") else text + "\n") + _toml_block(cmd)
                try:
                    tomllib.loads(text)
                except tomllib.TOMLDecodeError as exc:
                    raise ManagedError(
                        f"{path}: hookgate's [hooks] entries do not fit this file ({exc}); merge them by hand"
                    ) from None
                files.put(path, text)
            else:  # gemini: a shared settings file
                files.put(path, hostconfig.install_text(files.get(path), host, cmd, path))
                for file, keys, value in spec.pins:
                    _pin(files, manifest, host, file, keys, value)
            if managed_only and host == "copilot":
                _pin(files, manifest, host, spec.only_file, (spec.only_key,), True)
                whats[spec.only_file] = f"{host}: only managed hooks run"
        except (hostconfig.HostConfigError, jsonc.JsoncError) as exc:
            raise ManagedError(str(exc)) from None
        if host not in manifest["hosts"]:
            manifest["hosts"].append(host)
    for path, before in files.before.items():
        if before is None and files.after[path] is not None and path not in manifest["created"]:
            manifest["created"].append(path)
    _drop_emptied(files, manifest)
    return files.changes(whats), notes


def _drop_emptied(files: _Files, manifest: dict) -> None:
    """Delete the files hookgate created that hold nothing any more."""
    for path, text in list(files.after.items()):
        empty = text is not None and not (
            tomllib.loads(text) if path.endswith(".toml") else jsonc.parse(text, path).root.value
        )
        if empty and path in manifest["created"]:
            files.put(path, None)
        if files.after[path] is None and path in manifest["created"]:
            manifest["created"].remove(path)


def _restore(files: _Files, manifest: dict, pin: dict) -> None:
    """Put a pinned setting back as it was before hookgate pinned it, and forget the pin."""
    current, keys = files.get(pin["file"]), tuple(pin["keys"])
    if current is not None:
        toml = pin["file"].endswith(".toml")
        if pin.get("had"):
            setter = _toml_set if toml else _set_json
            current = setter(current, keys, pin["previous"], pin["file"])
        else:
            current = (_toml_unset if toml else _remove_json)(current, keys, pin["file"])
        files.put(pin["file"], current)
    manifest["pins"].remove(pin)


def plan_uninstall(hosts: list[str], root: str, manifest: dict) -> list[Change]:
    """The file changes that remove hookgate from ``hosts``' administrator files: its hooks,
    the settings it pinned (restored to what they were), the files it created that hold
    nothing else. ``manifest`` is updated."""
    files, whats = _Files(root), {}
    for host in hosts:
        spec = hostconfig.MANAGED[host]
        if spec.hooks_file is None:
            continue
        path = spec.hooks_file
        whats[path] = f"{host}: hookgate's managed hooks removed"
        text = files.get(path)
        try:
            if spec.own_file:
                files.put(path, None)
            elif text is not None and host == "codex":
                files.put(path, _toml_without_block(text))
            elif text is not None:
                files.put(path, hostconfig.uninstall_text(text, host, path))
            for pin in [p for p in manifest["pins"] if p.get("host") == host]:
                _restore(files, manifest, pin)
        except (hostconfig.HostConfigError, jsonc.JsoncError) as exc:
            raise ManagedError(str(exc)) from None
        if host in manifest["hosts"]:
            manifest["hosts"].remove(host)
    _drop_emptied(files, manifest)
    return files.changes(whats)


def manifest_change(manifest: dict) -> Change:
    """The manifest as written (deleted when nothing managed is left)."""
    if not manifest["hosts"] and not manifest.get("config"):
        return Change(MANIFEST, None, 0o644, "what hookgate's managed install wrote")
    text = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    return Change(MANIFEST, text.encode("utf-8"), 0o644, "what hookgate's managed install wrote")


def apply(changes: list[Change], root: str, manifest: dict) -> None:
    """Write ``changes`` under ``root``: each file root-owned with its mode, the directories it
    needs created root-owned 0755 (and recorded, so uninstall removes them when empty), each
    directory of a host's administrator tree made root-owned and not group/world-writable."""
    from hookgate.files import atomic_write

    for change in changes:
        target = staged(root, change.path)
        if change.content is None:
            try:
                os.unlink(target)
            except FileNotFoundError:
                pass
            remove_empty_dirs(os.path.dirname(change.path), root, manifest)
            continue
        make_dirs(os.path.dirname(change.path), root, manifest)
        atomic_write(target, change.content, change.mode)
        os.chown(target, 0, 0)


def _admin_top(path: str) -> str:
    """The host's own directory under /etc (``/etc/github-copilot`` for its policy files)."""
    parts = Path(path).parts
    return str(Path(*parts[:3])) if len(parts) > 3 else os.path.dirname(path)


def make_dirs(directory: str, root: str, manifest: dict, secure: bool = True) -> None:
    created = manifest.setdefault("created_dirs", [])
    missing = []
    current = directory
    while not os.path.isdir(staged(root, current)):
        missing.append(current)
        current = os.path.dirname(current)
    for path in reversed(missing):
        os.mkdir(staged(root, path), 0o755)
        if path not in created:
            created.append(path)
    if not secure:
        return
    # A host that checks modes (Copilot) skips files under a writable tree; the others would let
    # its owner edit them: every directory of the host's own tree is root's, 0755 at most.
    current = directory
    top = _admin_top(directory + "/x")
    while True:
        target = staged(root, current)
        os.chown(target, 0, 0)
        os.chmod(target, stat.S_IMODE(os.stat(target).st_mode) & ~0o022)
        if current in (top, "/", CONFIG_DIR) or len(Path(current).parts) <= 2:
            break
        current = os.path.dirname(current)


def remove_empty_dirs(directory: str, root: str, manifest: dict) -> None:
    created = manifest.setdefault("created_dirs", [])
    while directory in created:
        try:
            os.rmdir(staged(root, directory))
        except FileNotFoundError:
            pass
        except OSError:
            return  # something else lives there
        created.remove(directory)
        directory = os.path.dirname(directory)


# -- what the agent's user could change -------------------------------------------------------


def changeable_by(path: str, uid: int, gids: set[int]) -> str | None:
    """Why a user (``uid`` in groups ``gids``) could change ``path`` or what it resolves to
    (None: they cannot): they can write it (or create it, when it is missing), or write a
    directory on its way and so replace an entry; judged from owners, mode bits and POSIX
    access ACLs (``acl_entries``)."""
    if uid == 0:
        return f"{path}: root can write anything"
    real = os.path.realpath(path)
    for candidate in dict.fromkeys((path, real)):
        reason = _changeable(candidate, uid, gids)
        if reason:
            return reason
    return None


def _changeable(path: str, uid: int, gids: set[int]) -> str | None:
    current = path
    while not os.path.lexists(current) and current != os.path.dirname(current):
        current = os.path.dirname(current)
    try:
        info = os.lstat(current)
    except OSError as exc:
        return f"{current}: {exc.strerror}"
    if _may_write(info, uid, gids, current):
        if current == path:
            return f"{path} is writable by the user"
        return f"{current} is writable by the user, who can create {path}"
    while current != os.path.dirname(current):
        parent = os.path.dirname(current)
        try:
            pinfo = os.stat(parent)
        except OSError as exc:
            return f"{parent}: {exc.strerror}"
        # A sticky directory (/tmp) lets its writers replace only the entries they own.
        sticky_guard = pinfo.st_mode & stat.S_ISVTX and uid not in (info.st_uid, pinfo.st_uid)
        if _may_write(pinfo, uid, gids, parent) and not sticky_guard:
            return f"{parent} is writable by the user, who can replace {current} (on the way to {path})"
        current, info = parent, pinfo
    return None


def _may_write(info: os.stat_result, uid: int, gids: set[int], path: str | None = None) -> bool:
    if stat.S_ISLNK(info.st_mode):
        return False  # a link's own mode means nothing; its directory decides
    acl = acl_entries(path) if path is not None else None
    if acl:
        return _acl_allows(acl, info, uid, gids, _ACL_WRITE)
    if info.st_uid == uid:
        return bool(info.st_mode & stat.S_IWUSR)
    if info.st_gid in gids:
        return bool(info.st_mode & stat.S_IWGRP)
    return bool(info.st_mode & stat.S_IWOTH)


# POSIX access ACLs, as the kernel stores them in the ``system.posix_acl_access`` attribute
# (linux/posix_acl_xattr.h): a little-endian u32 version (2), then (u16 tag, u16 perm, u32 id)
# entries. Read from the attribute rather than asked with ``os.access`` as the agent's user:
# ``os.access`` answers for the caller's real uid, so judging another user would mean forking
# and dropping to their uid and groups (root only, and for every path doctor lists), while the
# attribute can be read by anyone who can reach the path, in a staging root too. The kernel's
# own algorithm (``posix_acl_permission``) is applied below.
_ACL_USER_OBJ, _ACL_USER, _ACL_GROUP_OBJ, _ACL_GROUP, _ACL_MASK, _ACL_OTHER = (
    0x01,
    0x02,
    0x04,
    0x08,
    0x10,
    0x20,
)
_ACL_WRITE = 0o2


def acl_entries(path: str) -> list[tuple[int, int, int]] | None:
    """``path``'s access ACL as ``(tag, perm, id)`` entries; None when it has none beyond its
    mode bits (or the file system keeps none). A link's own ACL is not read."""
    import struct

    try:
        raw = os.getxattr(path, "system.posix_acl_access", follow_symlinks=False)
    except OSError:  # ENODATA (none), ENOTSUP (no ACLs here), gone…
        return None
    if len(raw) < 4 or (len(raw) - 4) % 8 or struct.unpack_from("<I", raw)[0] != 2:
        return [(_ACL_OTHER, 0o7, 0)]  # an ACL this code cannot read: judged writable by all
    return [struct.unpack_from("<HHI", raw, at) for at in range(4, len(raw), 8)]


def _acl_allows(
    acl: list[tuple[int, int, int]], info: os.stat_result, uid: int, gids: set[int], want: int
) -> bool:
    """Whether the access ACL grants ``want`` to ``uid`` in ``gids`` (POSIX.1e: the owner's
    entry, else a named user's, else every matching group's, else other; named entries and
    groups limited by the mask)."""
    mask = next((perm for tag, perm, _ in acl if tag == _ACL_MASK), 0o7)
    if info.st_uid == uid:
        return any(tag == _ACL_USER_OBJ and perm & want for tag, perm, _ in acl)
    for tag, perm, ident in acl:
        if tag == _ACL_USER and ident == uid:
            return bool(perm & mask & want)
    matched = False
    for tag, perm, ident in acl:
        if (tag == _ACL_GROUP_OBJ and info.st_gid in gids) or (tag == _ACL_GROUP and ident in gids):
            matched = True
            if perm & mask & want:
                return True
    if matched:
        return False
    return any(tag == _ACL_OTHER and perm & want for tag, perm, _ in acl)


def mode_problems(path: str) -> list[str]:
    """What is wrong with a managed file's or directory's owner and mode: not root's, or
    group/world-writable (Copilot skips such a policy file without a word)."""
    found = []
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return [f"{path} is missing"]
    except OSError as exc:
        return [f"{path}: {exc.strerror}"]
    if info.st_uid != 0:
        found.append(f"{path} is owned by uid {info.st_uid}, not root")
    if not stat.S_ISLNK(info.st_mode) and info.st_mode & 0o022:
        found.append(f"{path} is group- or world-writable (mode {stat.S_IMODE(info.st_mode):04o})")
    return found
