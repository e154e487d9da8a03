"""Each host's hook configuration file: where it is, its JSON shape, and hookgate's entries in it.

Install adds one entry per event (pre- and post-tool) that runs ``<hookgate> eval --host <host>``;
uninstall removes every entry whose command is a ``hookgate eval`` command, and the containers
that emptied because of it. Both are text edits through ``jsonc`` so that everything else in the
file stays byte for byte. Shapes and locations: shared/hosts/HOSTS.md, one section per host.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from hookgate.integrations import jsonc
from hookgate.integrations.jsonc import Document, JsoncError, Node

COMMAND_KEYS = ("command", "bash", "powershell")


@dataclass(frozen=True)
class HostSpec:
    name: str
    events: tuple[str, ...]  # the host's spelling of pre-tool, post-tool (and failed-tool) events
    nested: bool  # Claude-style {"matcher", "hooks": [handler]} groups, else flat handlers
    handler: dict  # the handler's fields; the command goes where the value is None
    command_key: str = "command"
    new_file: str = "{}\n"  # the content a missing file starts from
    own_file: bool = False  # a file hookgate alone writes: deleted when uninstall empties it
    # What the user must still do after an install: (scope it applies to, or None for both, text).
    notes: tuple[tuple[str | None, str], ...] = field(default=())


SPECS: dict[str, HostSpec] = {
    "claude": HostSpec(
        "claude",
        # A failing command's output comes only through PostToolUseFailure.
        ("PreToolUse", "PostToolUse", "PostToolUseFailure"),
        True,
        {"type": "command", "command": None, "timeout": 30},
    ),
    "codex": HostSpec(
        "codex",
        ("PreToolUse", "PostToolUse"),
        True,
        {"type": "command", "command": None, "timeout": 30},
        # Whether Codex will run the hooks (trust, project trust): integrations.trust.
    ),
    "gemini": HostSpec(
        "gemini",
        ("BeforeTool", "AfterTool"),
        True,
        {"name": "hookgate", "type": "command", "command": None, "timeout": 30000},  # milliseconds
        notes=(
            (
                "project",
                "Gemini CLI treats new or changed project hooks as untrusted until you approve "
                "them in the next session.",
            ),
        ),
    ),
    "copilot": HostSpec(
        "copilot",
        ("preToolUse", "postToolUse"),
        False,
        {"type": "command", "bash": None, "timeoutSec": 30},
        command_key="bash",
        new_file='{\n  "version": 1\n}\n',
        own_file=True,
        # Whether Copilot loads project hooks (trusted folders): integrations.trust.
    ),
    "cursor": HostSpec(
        "cursor",
        ("preToolUse", "postToolUse"),
        False,
        {"command": None, "timeout": 30},
        new_file='{\n  "version": 1\n}\n',
    ),
}
HOSTS = tuple(SPECS)
SCOPES = ("user", "project")


class HostConfigError(ValueError):
    """A host file hookgate cannot edit safely; the message names the file and the reason."""


def notes(host: str, scope: str) -> list[str]:
    """What the user must still do after installing into ``host`` at ``scope``."""
    return [text for applies, text in SPECS[host].notes if applies in (None, scope)]


_PROJECT_FILES = {
    "claude": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
    "copilot": ".github/hooks/hookgate.json",
    "cursor": ".cursor/hooks.json",
}
# Another host's files a host also runs hooks from (HOSTS.md): Copilot CLI runs the hooks of a
# repository's .claude/settings.json as well as its own.
ALSO_READS: dict[str, tuple[tuple[str, str], ...]] = {"copilot": (("claude", "project"),)}


def config_path(host: str, scope: str, project_dir: Path | None = None) -> Path:
    """The file that carries ``host``'s hooks for ``scope`` (user: under $HOME or the host's
    own *_HOME variable; project: under ``project_dir``)."""
    if scope == "project":
        return Path(project_dir or Path.cwd()) / _PROJECT_FILES[host]
    home = Path.home()
    if host == "claude":
        return Path(os.environ.get("CLAUDE_CONFIG_DIR") or home / ".claude") / "settings.json"
    if host == "codex":
        return Path(os.environ.get("CODEX_HOME") or home / ".codex") / "hooks.json"
    if host == "copilot":
        return Path(os.environ.get("COPILOT_HOME") or home / ".copilot") / "hooks" / "hookgate.json"
    return home / f".{host}" / ("hooks.json" if host == "cursor" else "settings.json")


# What the fast launcher runs (``python -I -S -c <code> eval …``): see ``launcher_argv``.
#
# The code the hook runs before any of hookgate's own is this text, so the answer to a launcher
# or deadline module that is missing, does not import or raises (something the agent's user can
# cause in a personal install) must be here too: the limit action, never a traceback that every
# host reads as "go on". First through ``deadline.answer_limit`` (the host's exact answer and
# the configured limit action); when that cannot run either, the answer is spelled below for the
# host named by ``--host`` (``render.py``'s shapes: ask where the host asks, deny where it
# cannot; Copilot reads a non-zero exit as a crash, so only an unknown host gets exit 2).
# ``launch()`` ends the process with ``os._exit``: nothing else reaches the ``except``.
# The answer for a hook that could not start (``e``: what was raised), compiled only then: the
# hook's process compiles the command's code on every call, and a string costs it a fraction of
# what the same code would.
_LIMIT_CODE = r"""if sys.argv[1:2]!=['eval']:raise
import os;t=e.__traceback__
while t and t.tb_next:t=t.tb_next
w=f'{type(e).__name__}: {e} in {getattr(e,"filename",None) or t and t.tb_frame.f_code.co_filename}'[:400]
try:
 from hookgate import deadline as d
 if d.STATE.answered:os._exit(d.STATE.exit_code)
 d.STATE.host=d.host_from_argv(sys.argv[2:]);d.STATE.explain='--explain' in sys.argv[2:]
 if d.STATE.payload is None:d.STATE.payload=sys.stdin.buffer.read()
 d.answer_limit('launcher','launcher',w,d.detail_of(e))
except BaseException:pass
import json;a=sys.argv;h=a[a.index('--host')+1] if '--host' in a[:-1] else ''
try:p=json.loads(d.STATE.payload or b'{}')
except BaseException:
 try:p=json.loads(sys.stdin.buffer.read() or b'{}')
 except BaseException:p={}
v=p.get('hook_event_name') or p.get('hookEventName') or '' if type(p) is dict else ''
if str(v).translate({95:None,45:None,58:None}).lower() not in ('','pretooluse','beforetool','beforeshellexecution','beforemcpexecution','premcptoolcall','toolpre','beforereadfile'):os._exit(0)
k='deny' if os.environ.get('HOOKGATE_LIMIT_ACTION','').strip().lower()=='deny' else 'ask'
r=f'hookgate could not start ({w}), so this call cannot be checked and is {"asked about" if k=="ask" else "denied"} [pack=hookgate, pattern=limit-launcher]'
o={'claude':{'hookSpecificOutput':{'hookEventName':v or 'PreToolUse','permissionDecision':k,'permissionDecisionReason':r}},'codex':{'hookSpecificOutput':{'hookEventName':v or 'PreToolUse','permissionDecision':'deny','permissionDecisionReason':r}},'copilot':{'permissionDecision':k,'permissionDecisionReason':r},'gemini':{'decision':'deny','reason':r},'cursor':{'permission':k,'user_message':r,'agent_message':r},'amplifier':{'decision':'block','reason':r}}.get(h)
if o is None:os.write(2,r.encode()+b'\n');os._exit(2)
os.write(1,json.dumps(o).encode()+b'\n');os._exit(0)"""
LAUNCH_CODE = (
    "import sys;sys.path[3:3]={dirs};\n"
    "try:from hookgate.launcher import launch;launch()\n"
    "except BaseException as e:exec("
    + repr(_LIMIT_CODE).replace("{", "{{").replace("}", "}}")
    + ")"
)
# This version's launcher and the one before it (``…cli import main;sys.exit(main())``).
_LAUNCH_MARKS = ("from hookgate.launcher import launch", "from hookgate.cli import main")


def launcher_argv(python: str, import_dirs: list[str]) -> list[str]:
    """The quickest way Python starts hookgate: ``-S`` skips ``site`` (its .pth files, its
    imports), ``-I`` ignores PYTHON* variables and keeps the working directory off ``sys.path``;
    the directories hookgate and its dependencies are installed in go after the standard
    library, where ``site`` would have put them."""
    import json

    return [python, "-I", "-S", "-c", LAUNCH_CODE.format(dirs=json.dumps(import_dirs))]


def hook_command(program: str | list[str], host: str, rewrite: str = "allow") -> str:
    """The shell command a host runs: ``<program> eval --host <host>`` (``program``: the
    ``hookgate`` executable, or the launcher's argv), preceded by ``HOOKGATE_REWRITE=ask``
    when rewrites are to be asked about."""
    prefix = "HOOKGATE_REWRITE=ask " if rewrite == "ask" else ""
    start = shlex.join(program) if isinstance(program, list) else shlex.quote(program)
    return f"{prefix}{start} eval --host {host}"


# A project's settings are shared through its repository, so the command written there names
# no path of one developer's machine: ``hookgate`` as each developer's PATH finds it. Where
# hookgate is missing the command says so and exits 2, which every host reads as a block with
# the text as its reason (shared/hosts/HOSTS.md: Claude, Codex with stderr, Copilot, Cursor,
# Gemini), rather than the shell's 127, which Claude, Codex and Cursor take as a failed hook
# and let the call through without a word.
PROJECT_PROGRAM = "hookgate"
_MISSING = (
    "hookgate: {settings} runs hookgate on every tool call, and hookgate is not on your PATH, "
    "so this call is blocked. Install hookgate (pipx install hookgate), or ask the maintainers "
    "of this project."
)
_GUARD = "command -v hookgate >/dev/null 2>&1 || {{ echo {message} >&2; exit 2; }}; "
_GUARD_PATTERN = re.compile(
    r"command -v hookgate >/dev/null 2>&1 \|\| \{ echo '[^']*' >&2; exit 2; \}; "
)


def project_command(host: str, settings: str, rewrite: str = "allow") -> str:
    """The portable hook command for a project's shared settings file ``settings`` (relative to
    the project): ``hookgate eval --host <host>`` from PATH, after a check that blocks the call,
    naming the file, where hookgate is not installed."""
    message = shlex.quote(_MISSING.format(settings=settings).replace("'", ""))
    return _GUARD.format(message=message) + hook_command(PROJECT_PROGRAM, host, rewrite)


def project_relative(host: str) -> str:
    """Where ``host``'s project-scope settings file is, relative to the project."""
    return _PROJECT_FILES[host]


def is_hookgate_command(command: object) -> bool:
    """Whether ``command`` is one hookgate installed: ``[NAME=value …] …/hookgate eval …`` or
    the launcher's ``[NAME=value …] python -I -S -c '…hookgate.cli…' eval …``."""
    words = command_words(command)
    if len(words) >= 2 and os.path.basename(words[0]) == "hookgate" and words[1] == "eval":
        return True
    return (
        len(words) >= 6
        and os.path.basename(words[0]).startswith("python")
        and words[1:4] == ["-I", "-S", "-c"]
        and any(mark in words[4] for mark in _LAUNCH_MARKS)
        and words[5] == "eval"
    )


def launcher_dirs(command: object) -> list[str] | None:
    """The import directories of a launcher command (``launcher_argv``), None for any other
    command: where ``doctor`` checks that hookgate is still installed."""
    import json

    words = command_words(command)
    if not is_hookgate_command(command) or len(words) < 5 or words[1:4] != ["-I", "-S", "-c"]:
        return None
    head, _, rest = words[4].partition("sys.path[3:3]=")
    try:
        dirs = json.loads(rest.partition(";")[0])
    except ValueError:
        return None
    return dirs if isinstance(dirs, list) and all(isinstance(d, str) for d in dirs) else None


def wired_files(host: str, project_dir: Path | None = None) -> list[tuple[str, str, Path]]:
    """``(host whose file it is, scope, path)`` of each personal settings file from which
    ``host`` runs a hookgate hook: its user and project files, and other hosts' files it reads
    (``ALSO_READS``). A file reached twice (the project is the home directory) counts once; a
    file that cannot be read or parsed is left to ``doctor``'s own report."""
    found: list[tuple[str, str, Path]] = []
    seen: set[str] = set()
    for owner, scope in [(host, scope) for scope in SCOPES] + list(ALSO_READS.get(host, ())):
        path = config_path(owner, scope, project_dir)
        try:
            real = os.path.realpath(path)
            if real in seen:
                continue
            if installed_commands(path.read_text(encoding="utf-8"), owner, str(path)):
                seen.add(real)
                found.append((owner, scope, path))
        except (OSError, UnicodeDecodeError, HostConfigError):
            continue
    return found


def command_words(command: object) -> list[str]:
    """A hook command's words after its leading ``NAME=value`` assignments ([] if unreadable);
    a project command's words after its check that hookgate is installed."""
    if not isinstance(command, str):
        return []
    guard = _GUARD_PATTERN.match(command)
    if guard:
        command = command[guard.end() :]
    try:
        words = shlex.split(command)
    except ValueError:
        return []
    while words and "=" in words[0] and words[0].split("=", 1)[0].isidentifier():
        words = words[1:]
    return words


def installed_commands(text: str, host: str, name: str = "<config>") -> list[str]:
    """The hookgate commands wired in a host file's pre/post events."""
    doc = _parse(text, name)
    return [_command(handler.value) for _, _, handler in _ours(doc, SPECS[host])]


def events_wired(text: str, host: str, name: str = "<config>") -> set[str]:
    """The events of a host file that run a hookgate command."""
    return {event for event, _, _ in _ours(_parse(text, name), SPECS[host])}


def install_text(text: str | None, host: str, command: str, name: str = "<config>") -> str:
    """``text`` (None: a missing file) with hookgate's entries present exactly once, pointing at
    ``command``; an older hookgate entry (another path) is replaced, not duplicated."""
    spec = SPECS[host]
    text = spec.new_file if text is None else text
    while True:
        doc = _parse(text, name)
        edit = _next_install_edit(doc, spec, command, name)
        if edit is None:
            return text
        text = edit


def uninstall_text(text: str, host: str, name: str = "<config>") -> str | None:
    """``text`` without hookgate's entries and the containers they alone filled; None when the
    file is hookgate's own and nothing else is left in it."""
    spec = SPECS[host]
    touched: set[str] = set()
    while True:
        doc = _parse(text, name)
        edit = _next_uninstall_edit(doc, spec, touched, name)
        if edit is None:
            break
        text = edit
    if spec.own_file and _parse(text, name).root.value in ({}, {"version": 1}):
        return None
    return text


def _next_install_edit(doc: Document, spec: HostSpec, command: str, name: str) -> str | None:
    root = _object(doc.root, name, "the top level")
    hooks = root.get("hooks")
    if hooks is None:
        value = {event: [_entry(spec, command)] for event in spec.events}
        return _edit(jsonc.append, doc, root, "hooks", value, name=name)
    _object(hooks, name, "hooks")
    for event in spec.events:
        handlers = hooks.get(event)
        if handlers is None:
            return _edit(jsonc.append, doc, hooks, event, [_entry(spec, command)], name=name)
        if handlers.kind != "array":
            raise HostConfigError(f"{name}: hooks.{event}: expected an array")
        ours = [item for item in _ours(doc, spec) if item[0] == event]
        stale = [item for item in ours if _command(item[2].value) != command]
        if stale:
            return _remove_ours(doc, stale[0], name)
        if not ours:
            return _edit(jsonc.append, doc, handlers, None, _entry(spec, command), name=name)
    return None


def _next_uninstall_edit(doc: Document, spec: HostSpec, touched: set[str], name: str) -> str | None:
    ours = _ours(doc, spec)
    if ours:
        touched.add(ours[0][0])
        return _remove_ours(doc, ours[0], name)
    hooks = doc.root.get("hooks") if doc.root.kind == "object" else None
    if hooks is None or hooks.kind != "object" or not touched:
        return None
    for index, (event, handlers) in enumerate(zip(hooks.keys, hooks.entries, strict=True)):
        if event in touched and handlers.kind == "array" and not handlers.entries:
            return _edit(jsonc.remove, doc, hooks, index, name=name)
    if not hooks.entries:
        return _edit(jsonc.remove, doc, doc.root, doc.root.entries.index(hooks), name=name)
    return None


def _ours(doc: Document, spec: HostSpec) -> list[tuple[str, list[Node], Node]]:
    """Every hookgate handler in the spec's events: ``(event, path of containers from the
    event's array down to the handler's array, handler node)``."""
    found = []
    hooks = doc.root.get("hooks") if doc.root.kind == "object" else None
    if hooks is None or hooks.kind != "object":
        return found
    for event in spec.events:
        handlers = hooks.get(event)
        if handlers is None or handlers.kind != "array":
            continue
        for item in handlers.entries:
            if spec.nested:
                group = item.get("hooks") if item.kind == "object" else None
                if group is not None and group.kind == "array":
                    found += [
                        (event, [handlers, group], handler)
                        for handler in group.entries
                        if _is_ours(handler)
                    ]
            elif _is_ours(item):
                found.append((event, [handlers], item))
    return found


def _remove_ours(doc: Document, found: tuple[str, list[Node], Node], name: str) -> str:
    """Remove one hookgate handler; in a group, the whole group when nothing else is in it."""
    _, containers, handler = found
    if len(containers) == 2:
        handlers, group = containers
        if all(_is_ours(other) for other in group.entries):
            group_node = next(g for g in handlers.entries if g.get("hooks") is group)
            return _edit(jsonc.remove, doc, handlers, handlers.entries.index(group_node), name=name)
        return _edit(jsonc.remove, doc, group, group.entries.index(handler), name=name)
    (handlers,) = containers
    return _edit(jsonc.remove, doc, handlers, handlers.entries.index(handler), name=name)


def _edit(operation: object, doc: Document, *args: object, name: str = "<config>") -> str:
    try:
        return operation(doc, *args)
    except JsoncError as exc:
        raise HostConfigError(f"{name}: {exc}") from None


def _entry(spec: HostSpec, command: str) -> dict:
    handler = {key: command if value is None else value for key, value in spec.handler.items()}
    if not spec.nested:
        return handler
    return {"matcher": "*", "hooks": [handler]}


def _is_ours(node: Node) -> bool:
    return node.kind == "object" and is_hookgate_command(_command(node.value))


def _command(handler: dict) -> str | None:
    for key in COMMAND_KEYS:
        if is_hookgate_command(handler.get(key)):
            return handler[key]
    return None


def _object(node: Node, name: str, what: str) -> Node:
    if node.kind != "object":
        raise HostConfigError(f"{name}: {what}: expected a JSON object")
    return node


def _parse(text: str, name: str) -> Document:
    try:
        return jsonc.parse(text, name)
    except JsoncError as exc:
        raise HostConfigError(str(exc)) from None


# -- Administrator ("managed") channels: shared/hosts/MANAGED.md, verified per host ------------


@dataclass(frozen=True)
class ManagedSpec:
    """Where a host reads hooks its users cannot override, and what must be pinned there."""

    host: str
    # The administrator file that carries hookgate's hooks (None: the host has no such channel).
    hooks_file: str | None
    # Whether hookgate alone writes ``hooks_file`` (a drop-in it creates and deletes) or merges its
    # entries into a file an administrator may share with other settings.
    own_file: bool = False
    # Where the "only managed hooks run" switch goes, and its key.
    only_file: str | None = None
    only_key: str | None = None
    # Settings pinned beside the hooks: (file, key path, value); see MANAGED.md per host.
    pins: tuple[tuple[str, tuple[str, ...], object], ...] = ()
    # The host skips an administrator file that is not root-owned or is group/world-writable.
    strict_modes: bool = False
    # What a user can still do that no administrator file prevents, said plainly (None: nothing
    # found).
    residual: str | None = None


MANAGED: dict[str, ManagedSpec] = {
    "claude": ManagedSpec(
        "claude",
        "/etc/claude-code/managed-settings.d/hookgate.json",
        own_file=True,
        only_file="/etc/claude-code/managed-settings.d/hookgate.json",
        only_key="allowManagedHooksOnly",
        # The loader and hookgate variables are pinned in the same drop-in's ``env`` (see
        # managed_env), because a user settings ``env`` block reaches the managed hook.
    ),
    "codex": ManagedSpec(
        "codex",
        "/etc/codex/requirements.toml",
        only_file="/etc/codex/requirements.toml",
        only_key="allow_managed_hooks_only",
        # Without it, ``[features] hooks = false`` in the user's config turns managed hooks off.
        pins=(("/etc/codex/requirements.toml", ("features", "hooks"), True),),
    ),
    "copilot": ManagedSpec(
        "copilot",
        "/etc/github-copilot/policy.d/hookgate.json",
        own_file=True,
        only_file="/etc/github-copilot/managed-settings.json",
        only_key="allowManagedHooksOnly",
        strict_modes=True,
    ),
    "gemini": ManagedSpec(
        "gemini",
        "/etc/gemini-cli/settings.json",
        pins=(("/etc/gemini-cli/settings.json", ("hooksConfig", "enabled"), True),),
        residual=(
            "Gemini CLI cannot be enforced through settings alone: a hooksConfig.disabled entry "
            "naming the hook in the user's ~/.gemini/settings.json or in a workspace's "
            ".gemini/settings.json turns the system hook off (the list is merged, system "
            "settings cannot undo it), and a repository .env or .gemini/.env reaches the hook's "
            "process (LD_PRELOAD silenced it). Both take effect at the next start of Gemini CLI"
        ),
    ),
    "cursor": ManagedSpec(
        "cursor",
        None,
        residual="Cursor has no verified administrator channel for hooks: hookgate cannot be "
        "enforced there (a personal install is all there is, and its user can remove it)",
    ),
    "amplifier": ManagedSpec(
        "amplifier",
        None,
        residual="Amplifier has no administrator channel for hooks: hookgate cannot be enforced "
        "there (the hooks-hookgate module is mounted by the user's own bundle)",
    ),
}
MANAGED_HOSTS = tuple(MANAGED)


def managed_env() -> dict[str, str]:
    """The variables pinned to "" in Claude Code's managed ``env`` (data/managed-env.txt)."""
    from importlib.resources import files

    text = files("hookgate.data").joinpath("managed-env.txt").read_text(encoding="utf-8")
    names = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    return {name: "" for name in names if name}
