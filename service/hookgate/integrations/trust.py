"""Whether a host will actually run the hooks hookgate installed, and what to do when it will not.

A hook in the host's file is not enough: Codex runs a user or project hook only after it was
reviewed (``[hooks.state."<hooks.json>:<event>:<group>:<handler>"] trusted_hash`` in its
``config.toml``, and a project hook only in a trusted project); Copilot CLI loads a repository's
hooks only in a trusted folder (``trustedFolders`` in ``~/.copilot/config.json``); Claude Code
reports a failing command only through ``PostToolUseFailure``. ``problems`` names each gap with
the exact fix; ``trust`` records hookgate's hooks in the host's own trust store, for a user who
asks for it (``hookgate install <host> --trust``).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import tomllib
from pathlib import Path

from hookgate.integrations import hostconfig, jsonc

# Codex's event labels in trust keys and hashes (codex-rs hooks: hook_event_key_label).
_CODEX_LABELS = {"PreToolUse": "pre_tool_use", "PostToolUse": "post_tool_use"}
_CODEX_DEFAULT_TIMEOUT = 600


class TrustError(ValueError):
    """A host file that cannot be read or edited safely; the message names it."""


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


def copilot_home() -> Path:
    return Path(os.environ.get("COPILOT_HOME") or Path.home() / ".copilot")


def codex_hook_hash(event_label: str, matcher: str | None, handler: dict) -> str:
    """The ``sha256:…`` Codex compares with ``trusted_hash``: SHA-256 of the canonical JSON
    (sorted keys, no spaces) of the normalized hook identity, fields that are None left out
    (codex-rs ``command_hook_hash`` and ``version_for_toml``; checked against Codex 0.171.0's
    own ``hooks/list`` in tests/test_trust.py)."""
    timeout = handler.get("timeout")
    normalized: dict = {
        "type": "command",
        "command": handler["command"],
        "timeout": max(1, timeout if isinstance(timeout, int) else _CODEX_DEFAULT_TIMEOUT),
        "async": bool(handler.get("async", False)),
    }
    if isinstance(handler.get("statusMessage"), str):
        normalized["statusMessage"] = handler["statusMessage"]
    identity: dict = {"event_name": event_label, "hooks": [normalized]}
    if matcher is not None:
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def codex_entries(hooks_json: Path) -> list[tuple[str, str]]:
    """``(trust key, current hash)`` of every hookgate hook in a Codex ``hooks.json``."""
    try:
        root = jsonc.parse(hooks_json.read_text(encoding="utf-8"), str(hooks_json)).root.value
    except (OSError, UnicodeDecodeError, jsonc.JsoncError) as exc:
        raise TrustError(f"cannot read {hooks_json}: {exc}") from None
    hooks = root.get("hooks") if isinstance(root, dict) else None
    found = []
    for event, label in _CODEX_LABELS.items():
        groups = hooks.get(event) if isinstance(hooks, dict) else None
        for group_index, group in enumerate(groups if isinstance(groups, list) else []):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler_index, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if isinstance(handler, dict) and hostconfig.is_hookgate_command(
                    handler.get("command")
                ):
                    key = f"{os.path.abspath(hooks_json)}:{label}:{group_index}:{handler_index}"
                    found.append((key, codex_hook_hash(label, group.get("matcher"), handler)))
    return found


def _codex_config() -> tuple[Path, dict]:
    path = codex_home() / "config.toml"
    try:
        return path, tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise TrustError(f"cannot read {path}: {exc}") from None


def _copilot_config() -> tuple[Path, dict]:
    path = copilot_home() / "config.json"
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else "{}"
        value = jsonc.parse(text, str(path)).root.value
    except (OSError, UnicodeDecodeError, jsonc.JsoncError) as exc:
        raise TrustError(f"cannot read {path}: {exc}") from None
    return path, value if isinstance(value, dict) else {}


def _copilot_trusted(project: Path, config: dict) -> bool:
    folders = config.get("trustedFolders")
    trusted = (
        {os.path.abspath(f) for f in folders if isinstance(f, str)}
        if isinstance(folders, list)
        else set()
    )
    here = Path(os.path.abspath(project))
    return any(str(p) in trusted for p in (here, *here.parents))


def problems(host: str, scope: str, hook_file: Path, project: Path) -> list[str]:
    """Why ``host`` will not run the hooks hookgate installed in ``hook_file``, each with its fix
    (empty when it will)."""
    found: list[str] = []
    if host == "codex":
        path, config = _codex_config()
        states = (
            ((config.get("hooks") or {}).get("state") or {})
            if isinstance(config.get("hooks"), dict)
            else {}
        )
        for key, current in codex_entries(hook_file):
            state = states.get(key) if isinstance(states, dict) else None
            state = state if isinstance(state, dict) else {}
            if state.get("enabled") is False:
                found.append(
                    f"Codex has the hook {key} disabled: open /hooks in Codex and enable it"
                )
            elif state.get("trusted_hash") != current:
                how = (
                    "is not trusted"
                    if "trusted_hash" not in state
                    else "changed since it was trusted"
                )
                found.append(
                    f"Codex will not run hookgate: the hook {key} {how}, and Codex skips "
                    f"unreviewed hooks without a word. Fix: hookgate install codex --scope {scope} "
                    f'--trust (records trusted_hash = "{current}" in {path}), or open /hooks '
                    "in Codex and trust it"
                )
        if scope == "project":
            projects = config.get("projects") if isinstance(config.get("projects"), dict) else {}
            level = (projects.get(os.path.abspath(project)) or {}).get("trust_level")
            if level != "trusted":
                found.append(
                    f"Codex loads {hook_file} only in a trusted project: trust {project} when "
                    f'Codex asks, or add [projects."{os.path.abspath(project)}"] '
                    f'trust_level = "trusted" to {path}'
                )
    elif host == "copilot" and scope == "project":
        path, config = _copilot_config()
        if not _copilot_trusted(project, config):
            found.append(
                f"Copilot CLI loads {hook_file} only in a trusted folder, and {project} is not "
                f"one: its prompt mode (copilot -p) runs without hookgate. Fix: hookgate install "
                f"copilot --scope project --trust (adds it to trustedFolders in {path}), or "
                "start copilot there and trust the folder"
            )
    elif host == "claude":
        try:
            text = hook_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise TrustError(f"cannot read {hook_file}: {exc}") from None
        try:
            wired = hostconfig.events_wired(text, host, str(hook_file))
        except hostconfig.HostConfigError as exc:
            raise TrustError(str(exc)) from None
        missing = [e for e in hostconfig.SPECS[host].events if e not in wired]
        if missing:
            found.append(
                f"Claude Code does not call hookgate on {', '.join(missing)} ({hook_file}): "
                f"run hookgate install claude --scope {scope} again"
            )
    return found


def trust(host: str, scope: str, hook_file: Path, project: Path) -> list[str]:
    """Record hookgate's installed hooks in ``host``'s own trust store; what was changed."""
    if host == "codex":
        path, before = _codex_config()
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        entries = codex_entries(hook_file)
        for key, current in entries:
            text = _set_codex_state(text, key, current)
        # Only the trust keys may change: a hook the user disabled stays disabled (doctor says
        # so), and whatever else the file holds is left as it was.
        expected = copy.deepcopy(before)
        hooks = expected.setdefault("hooks", {})
        states = hooks.setdefault("state", {}) if isinstance(hooks, dict) else None
        for key, current in entries if isinstance(states, dict) else ():
            state = states.get(key)
            states[key] = {**(state if isinstance(state, dict) else {}), "trusted_hash": current}
        try:
            unchanged = isinstance(states, dict) and tomllib.loads(text) == expected
        except tomllib.TOMLDecodeError:
            unchanged = False
        if not unchanged:
            raise TrustError(
                f"{path}: cannot add hook trust entries to this file as written; trust the "
                "hooks in Codex's /hooks"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return [f"trusted hookgate's Codex hooks in {path}"]
    if host == "copilot" and scope == "project":
        path, config = _copilot_config()
        if _copilot_trusted(project, config):
            return []
        text = path.read_text(encoding="utf-8") if path.exists() else "{}\n"
        doc = jsonc.parse(text, str(path))
        folders = doc.root.get("trustedFolders")
        folder = os.path.abspath(project)
        if folders is None:
            text = jsonc.append(doc, doc.root, "trustedFolders", [folder])
        elif folders.kind == "array":
            text = jsonc.append(doc, folders, None, folder)
        else:
            raise TrustError(f"{path}: trustedFolders: expected an array")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return [f"added {folder} to Copilot CLI's trusted folders in {path}"]
    return []


def _set_codex_state(text: str, key: str, current: str) -> str:
    """``text`` with ``trusted_hash = current`` in the table ``[hooks.state."<key>"]``, the rest
    of that table (``enabled = false``, …) as the user left it; the table is added if missing."""
    entry = f"trusted_hash = {json.dumps(current)}\n"
    lines = text.splitlines(keepends=True)
    start = next(
        (i for i, line in enumerate(lines) if table_path(line) == ["hooks", "state", key]), None
    )
    if start is None:
        body = text if not text or text.endswith("\n") else text + "\n"
        return f"{body}\n[hooks.state.{json.dumps(key, ensure_ascii=False)}]\n{entry}"
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines)
    )
    for i in range(start + 1, end):
        if lines[i].partition("=")[0].strip().strip("\"'") == "trusted_hash":
            lines[i] = entry
            break
    else:
        if not lines[start].endswith("\n"):
            lines[start] += "\n"
        lines.insert(start + 1, entry)
    return "".join(lines)


def table_path(line: str) -> list[str] | None:
    """The keys a ``[table]`` header line names, however they are quoted (None: not one)."""
    stripped = line.strip()
    if not stripped.startswith("[") or stripped.startswith("[["):
        return None
    try:
        table = tomllib.loads(stripped)
    except tomllib.TOMLDecodeError:
        return None
    path = []
    while isinstance(table, dict) and len(table) == 1:
        name, table = next(iter(table.items()))
        path.append(name)
    return path
