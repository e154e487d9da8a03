"""What hookgate knows about each host: names, event spellings, tool vocabularies, detection cues.

Pure data and small lookups, shared by ``normalize`` (reading payloads) and ``render`` (writing
responses); neither imports the other. The facts and their sources are in the hosts fact sheet
(HOSTS.md, sections 1-9).
"""

from __future__ import annotations

CLAUDE = "claude"
CODEX = "codex"
COPILOT = "copilot"
GEMINI = "gemini"
CURSOR = "cursor"
AMPLIFIER = "amplifier"
HOSTS: tuple[str, ...] = (CLAUDE, CODEX, COPILOT, GEMINI, CURSOR, AMPLIFIER)

PRE_TOOL_USE = "PreToolUse"
POST_TOOL_USE = "PostToolUse"
TOOL_EVENTS: frozenset[str] = frozenset({PRE_TOOL_USE, POST_TOOL_USE})

TOOL_KINDS: tuple[str, ...] = (
    "shell",
    "edit",
    "read",
    "search",
    "web",
    "agent",
    "skill",
    "mcp",
    "other",
)


def fold(name: str) -> str:
    """One key for every spelling of an event: case, ``_``, ``-`` and ``:`` do not matter."""
    return name.replace("_", "").replace("-", "").replace(":", "").lower()


# Every host's spelling of the two tool events (folded), and its canonical name (any other
# event keeps its own spelling: no common vocabulary yet): Claude/Codex/Copilot PascalCase,
# Copilot/Cursor camelCase, snake_case, Gemini, Cursor's shell/MCP gates, Copilot's MCP event,
# Amplifier's tool:pre/tool:post.
CANONICAL_EVENTS: dict[str, str] = {
    "pretooluse": PRE_TOOL_USE,
    "beforetool": PRE_TOOL_USE,
    "beforeshellexecution": PRE_TOOL_USE,
    "beforemcpexecution": PRE_TOOL_USE,
    "premcptoolcall": PRE_TOOL_USE,
    "toolpre": PRE_TOOL_USE,
    "posttooluse": POST_TOOL_USE,
    # Claude Code sends a failing call's output through PostToolUseFailure (in ``error``).
    "posttoolusefailure": POST_TOOL_USE,
    "aftertool": POST_TOOL_USE,
    "aftershellexecution": POST_TOOL_USE,
    "aftermcpexecution": POST_TOOL_USE,
    "toolpost": POST_TOOL_USE,
}

# Events whose payload carries the shell command at the top level, not in a tool input.
SHELL_EVENTS: frozenset[str] = frozenset({"beforeshellexecution", "aftershellexecution"})
# Events that are about an MCP tool whatever the tool is called.
MCP_EVENTS: frozenset[str] = frozenset(
    {"beforemcpexecution", "aftermcpexecution", "premcptoolcall"}
)

# Cursor events whose response must carry an explicit ``permission``.
_CURSOR_GATE_EVENTS: frozenset[str] = frozenset(
    {"pretooluse", "beforeshellexecution", "beforemcpexecution", "beforereadfile"}
)
GEMINI_EVENTS: dict[str, str] = {PRE_TOOL_USE: "BeforeTool", POST_TOOL_USE: "AfterTool"}
CURSOR_EVENTS: dict[str, str] = {PRE_TOOL_USE: "preToolUse", POST_TOOL_USE: "postToolUse"}
_CURSOR_ONLY_EVENTS: frozenset[str] = frozenset(
    {
        "beforeshellexecution",
        "aftershellexecution",
        "beforemcpexecution",
        "aftermcpexecution",
        "beforereadfile",
        "afterfileedit",
        "beforesubmitprompt",
        "afteragentresponse",
        "afteragentthought",
    }
)
_CURSOR_CUES: tuple[str, ...] = ("conversation_id", "generation_id", "workspace_roots")
_AMPLIFIER_BRIDGE_KEYS: frozenset[str] = frozenset({"tool_name", "tool_input", "timestamp"})


# The event reporting a tool call that failed (its output is the ``error`` field), folded.
FAILURE_EVENT = "posttoolusefailure"


def is_failure_event(name: str | None) -> bool:
    """Whether the event reports a tool call that failed (its output is the ``error`` field)."""
    return name is not None and fold(name) == FAILURE_EVENT


def hook_event_name(host_event: str | None, event: str) -> str:
    """The ``hookEventName`` a Claude-style response names: the failure event as the payload
    spelled it (what Claude Code 2.1.332 acted on in tests/hosts), else the canonical event."""
    return host_event if is_failure_event(host_event) else event


def cursor_event(host_event: str | None, event: str) -> str:
    """The Cursor event a response answers: the payload's own spelling when it is Cursor's
    (camelCase), else Cursor's name for the canonical event."""
    if host_event is not None and host_event[:1].islower() and ":" not in host_event:
        return host_event
    return CURSOR_EVENTS.get(event, event)


def is_cursor_gate(cursor_event_name: str) -> bool:
    """Whether Cursor's answer to this event must say ``permission``."""
    return fold(cursor_event_name) in _CURSOR_GATE_EVENTS


def cursor_takes_updated_input(cursor_event_name: str) -> bool:
    """Only Cursor's preToolUse reads ``updated_input``."""
    return fold(cursor_event_name) == "pretooluse"


# Tool names (lower-cased) of every host, HOSTS.md section 8, mapped to one vocabulary.
_TOOL_KINDS: dict[str, str] = {
    # shell: Claude Bash/PowerShell/Monitor, Copilot bash/powershell, Codex Bash and its aliases,
    # Amplifier bash, Cursor Shell, Gemini run_shell_command.
    **dict.fromkeys(
        (
            "bash",
            "powershell",
            "monitor",
            "shell",
            "shell_command",
            "exec_command",
            "local_shell",
            "run_shell_command",
        ),
        "shell",
    ),
    # edits and writes (creating or deleting a file is an edit of the workspace).
    **dict.fromkeys(
        (
            "write",
            "edit",
            "multiedit",
            "notebookedit",
            "create",
            "str_replace_editor",
            "apply_patch",
            "write_file",
            "edit_file",
            "replace",
            "strreplace",
            "delete",
            "tabwrite",
        ),
        "edit",
    ),
    # reading a known file or directory.
    **dict.fromkeys(("read", "view", "read_file", "read_many_files", "list_directory"), "read"),
    # searching the workspace.
    **dict.fromkeys(("glob", "grep", "rg", "grep_search"), "search"),
    **dict.fromkeys(
        ("webfetch", "websearch", "web_fetch", "web_search", "google_web_search"), "web"
    ),
    # subagents: Claude Agent (formerly Task), Copilot task, Codex spawn_agent, Amplifier
    # delegate, Cursor Task, Gemini invoke_agent.
    **dict.fromkeys(("agent", "task", "spawn_agent", "delegate", "invoke_agent"), "agent"),
    "skill": "skill",
}
# Claude/Codex mcp__srv__tool, Cursor MCP:tool, Gemini mcp_srv_tool ("mcp_" covers "mcp__").
_MCP_PREFIXES: tuple[str, ...] = ("mcp_", "mcp:")


def tool_kind(tool_name: str, host: str | None = None) -> str:
    """The vocabulary word for ``host``'s tool name, matched case-insensitively. Copilot names
    an MCP tool ``<server-key>-<tool>`` (``github-mcp-server-get_file_contents``), and none of
    its own tools has a hyphen: there, a name it does not list that has one is an MCP tool's."""
    name = tool_name.lower()
    kind = _TOOL_KINDS.get(name)
    if kind is not None:
        return kind
    if name.startswith(_MCP_PREFIXES) or (host == COPILOT and "-" in name):
        return "mcp"
    return "other"


def detect_host(payload: dict, event: str | None, folded: str | None = None) -> str:
    """Which host sent ``payload`` (``event`` is its event name as spelled, if any; ``folded``,
    its ``fold`` when the caller has it), from the cues of HOSTS.md section 9; Claude Code when
    nothing tells the hosts apart."""
    if folded is None and event is not None:
        folded = fold(event)
    if "toolArgs" in payload:
        return COPILOT
    if folded in ("beforetool", "aftertool"):
        return GEMINI
    if event is not None and event.startswith("tool:"):
        return AMPLIFIER
    if folded in _CURSOR_ONLY_EVENTS or not payload.keys().isdisjoint(_CURSOR_CUES):
        return CURSOR
    if "turn_id" in payload:
        return CODEX
    if event is not None and event[:1].islower():
        # camelCase events: Copilot pairs them with camelCase fields, Cursor with snake_case.
        return COPILOT if "toolName" in payload or "sessionId" in payload else CURSOR
    if event is None and payload.keys() == _AMPLIFIER_BRIDGE_KEYS:
        return AMPLIFIER
    if (
        isinstance(payload.get("timestamp"), str)
        and "tool_use_id" not in payload
        and "transcript_path" not in payload
    ):
        # Copilot's PascalCase (VS Code compatible) payload: ISO timestamp, no Claude ids.
        return COPILOT
    return CLAUDE
