"""Any host's hook payload -> one ``HookInput``, and the ``input`` document policies see.

The accepted spellings are the behaviour matrix of docs/design/contracts.md ("HookInput and the
input document"). This runs on every tool call, so it uses only the standard library. Error messages
name fields, JSON positions and types, never payload text: a payload may hold secrets.
"""

from __future__ import annotations

from itertools import repeat

from hookgate import effects, jsonio
from hookgate.hostio import hosts
from hookgate.records import Frozen, set_field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Each logical field with its accepted keys, in precedence order (the first present wins).
EVENT_KEYS: tuple[str, ...] = ("hook_event_name", "hookEventName")
TOOL_NAME_KEYS: tuple[str, ...] = ("tool_name", "toolName")
TOOL_INPUT_KEYS: tuple[str, ...] = ("tool_input", "toolInput", "toolArgs")
TOOL_RESULT_KEYS: tuple[str, ...] = ("tool_result", "toolResult", "tool_response")
SESSION_KEYS: tuple[str, ...] = ("session_id", "sessionId")
CWD_KEYS: tuple[str, ...] = ("cwd",)
ALIASES: frozenset[str] = frozenset(
    EVENT_KEYS + TOOL_NAME_KEYS + TOOL_INPUT_KEYS + TOOL_RESULT_KEYS + SESSION_KEYS + CWD_KEYS
)

# The deepest nesting of arrays and objects accepted in one JSON text (the payload, Copilot's
# toolArgs) or payload object. Real payloads nest a few levels; the bound keeps evaluation,
# rendering and logging far from Python's recursion limit whatever the stack depth already is.
MAX_JSON_DEPTH = 256
_INFINITY = float("inf")
_CONTAINERS = (dict, list)

# Amplifier's in-process hooks receive ``(event, data)``; hookgate's bridge passes them as
# ``{"event": "tool:pre", "data": {...}}``, and ``tool:post`` data carries the result as ``result``.
_AMPLIFIER_RESULT_KEYS: tuple[str, ...] = (*TOOL_RESULT_KEYS, "result")

# The keys whose values must be strings (``normalize``), every spelling.
_STRING_KEYS = frozenset((*EVENT_KEYS, *TOOL_NAME_KEYS, *SESSION_KEYS, *CWD_KEYS))


class PayloadError(ValueError):
    """A payload hookgate cannot read. ``field`` names the offending field (None when the
    payload as a whole is wrong); the message never contains payload content."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class HookInput(Frozen):
    """One tool call (or other hook event) in hookgate's canonical model."""

    event: str  # canonical: PreToolUse / PostToolUse, other events as the host spells them
    host_event: str | None  # the host's own spelling of the event; None when it was inferred
    host: str
    tool_name: str | None
    tool_kind: str | None  # one of hosts.TOOL_KINDS; None when the event has no tool
    tool_input: Any  # usually an object; a decoded non-object string input is kept as is
    tool_result: Any
    session_id: str | None
    cwd: str | None
    extra: dict

    __slots__ = (
        "event",
        "host_event",
        "host",
        "tool_name",
        "tool_kind",
        "tool_input",
        "tool_result",
        "session_id",
        "cwd",
        "extra",
    )

    def __init__(
        self,
        event: str,
        host_event: str | None,
        host: str,
        tool_name: str | None,
        tool_kind: str | None,
        tool_input: Any,
        tool_result: Any,
        session_id: str | None,
        cwd: str | None,
        extra: dict,
    ) -> None:
        set_field(self, "event", event)
        set_field(self, "host_event", host_event)
        set_field(self, "host", host)
        set_field(self, "tool_name", tool_name)
        set_field(self, "tool_kind", tool_kind)
        set_field(self, "tool_input", tool_input)
        set_field(self, "tool_result", tool_result)
        set_field(self, "session_id", session_id)
        set_field(self, "cwd", cwd)
        set_field(self, "extra", extra)

    def document(self) -> dict:
        """The ``input`` document that policies see (``effects``: see ``hookgate.effects``)."""
        return {
            "hook_event_name": self.event,
            "host": self.host,
            "tool_name": self.tool_name,
            "tool_kind": self.tool_kind,
            "tool_input": self.tool_input,
            "tool_result": self.tool_result,
            "session_id": self.session_id,
            "cwd": self.cwd,
            "extra": self.extra,
            "effects": effects.effects(
                self.tool_name, self.tool_kind, self.tool_input, self.cwd, _mcp_server(self.extra)
            ),
        }


def _mcp_server(extra: dict) -> str | None:
    """The MCP server a payload names apart from its tool name: Claude's ``mcp_server``,
    Gemini's ``mcp_context.server_name``."""
    server = extra.get("mcp_server")
    context = extra.get("mcp_context")
    if not isinstance(server, str) and isinstance(context, dict):
        server = context.get("server_name")
    return server if isinstance(server, str) and server else None


def normalize(payload: dict | str | bytes, host: str = "auto") -> HookInput:
    """Read one hook payload of any host (a parsed object, or its JSON text).

    ``host`` is ``"auto"`` (detect from the payload's spelling) or one of ``hosts.HOSTS``.
    Raises ``PayloadError`` for a payload that cannot be read.
    """
    if host != "auto" and host not in hosts.HOSTS:
        raise ValueError(f"unknown host {host!r}; expected auto or one of {', '.join(hosts.HOSTS)}")
    fields = _as_object(payload)
    result_keys = TOOL_RESULT_KEYS
    consumed = ALIASES  # replaced, not changed, by the rare payload that consumes more
    envelope_event = _amplifier_envelope_event(fields)
    if envelope_event is not None:
        outer = {k: v for k, v in fields.items() if k not in ("event", "data")}
        fields = {**outer, **fields["data"]}
        result_keys = _AMPLIFIER_RESULT_KEYS
        consumed = consumed | {"result"}

    event_key, host_event = (
        ("event", envelope_event) if envelope_event else _pick(fields, EVENT_KEYS)
    )
    name_key, tool_name = _pick(fields, TOOL_NAME_KEYS)
    input_key, tool_input = _pick(fields, TOOL_INPUT_KEYS)
    result_key, tool_result = _pick(fields, result_keys)
    session_key, session_id = _pick(fields, SESSION_KEYS)
    cwd_key, cwd = _pick(fields, CWD_KEYS)
    # A host sends these as strings or not at all, under any of their spellings: null is as
    # malformed as a number, not an absent field that would quietly skip every guard keyed on it.
    # The usual payload, all strings, is told in C; any other finds its error below.
    present = map(fields.__getitem__, _STRING_KEYS.intersection(fields))
    if not all(map(isinstance, present, repeat(str))):
        for key, value in (
            (event_key, host_event),
            (name_key, tool_name),
            (session_key, session_id),
            (cwd_key, cwd),
        ):
            _require_string(key, value)
        for key in (*EVENT_KEYS, *TOOL_NAME_KEYS, *SESSION_KEYS, *CWD_KEYS):
            if key in fields and not isinstance(fields[key], str):
                raise PayloadError(
                    f"field {key} must be a string, got {_json_type(fields[key])}", key
                )

    # The event's spelling folded once: the host, the kind of event and its canonical name
    # all read it.
    folded = hosts.fold(host_event) if host_event is not None else None
    if host == "auto":
        host = hosts.AMPLIFIER if envelope_event else hosts.detect_host(fields, host_event, folded)

    shell_event = folded in hosts.SHELL_EVENTS
    if shell_event and input_key is None:
        # Cursor's beforeShellExecution carries the command at the top level.
        consumed = consumed | {"command"}
        input_key, command = "command", fields.get("command")
        if command is None:
            raise PayloadError("missing required field command", "command")
        _require_string("command", command)
        tool_input = {"command": command}
        tool_name = tool_name or "Shell"
    elif isinstance(tool_input, str):
        # Copilot CLI sends its arguments as a JSON string: decoded once, kept whatever it is.
        tool_input = _decode(tool_input, f"field {input_key}", input_key)

    if host_event is not None:
        event = hosts.CANONICAL_EVENTS.get(folded, host_event)
    elif result_key is not None:
        event = hosts.POST_TOOL_USE
    elif name_key is not None or input_key is not None:
        event = hosts.PRE_TOOL_USE
    else:
        raise PayloadError(
            "missing required field hook_event_name (and no tool field to infer it from)",
            "hook_event_name",
        )
    if result_key is None and folded == hosts.FAILURE_EVENT and "error" in fields:
        # Claude's PostToolUseFailure: the failing call's output is its result.
        consumed = consumed | {"error"}
        tool_result = fields["error"]
    if event in hosts.TOOL_EVENTS and input_key is None:
        raise PayloadError("missing required field tool_input", "tool_input")

    if shell_event:
        kind = "shell"
    elif folded in hosts.MCP_EVENTS:
        kind = "mcp"
    else:
        kind = hosts.tool_kind(tool_name, host) if tool_name is not None else None

    return HookInput(
        event=event,
        host_event=host_event,
        host=host,
        tool_name=tool_name,
        tool_kind=kind,
        tool_input=tool_input,
        tool_result=tool_result,
        session_id=session_id,
        cwd=cwd,
        extra={k: v for k, v in fields.items() if k not in consumed},
    )


def _as_object(payload: object) -> dict:
    if isinstance(payload, dict):
        if check_value(payload, "payload", surrogates=True):
            return _without_lone_surrogates(payload)
        return payload
    if isinstance(payload, bytes | bytearray):
        try:
            payload = bytes(payload).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise PayloadError(f"payload is not valid UTF-8 (byte {exc.start})") from None
    if not isinstance(payload, str):
        raise PayloadError(f"payload must be a JSON object, got {type(payload).__name__}")
    text = payload.removeprefix("\ufeff")  # Cursor's Windows CLI prefixes stdin with a BOM
    if not text.strip():
        raise PayloadError("empty payload")
    value = _decode(text, "payload")
    if not isinstance(value, dict):
        raise PayloadError(f"payload must be a JSON object, got {_json_type(value)}")
    return value


def _decode(text: str, what: str, field: str | None = None) -> Any:
    """``jsonio.loads`` whose errors give json's message and position, never the text."""
    try:
        value = jsonio.loads(text)
    except jsonio.DecodeError as exc:
        raise PayloadError(
            f"{what} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", field
        ) from None
    except RecursionError:
        raise PayloadError(_too_deep(what), field) from None
    # The bracket count bounds the depth from above and costs next to nothing, so only a text
    # with more brackets than the limit (strings included) has its value walked.
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH:
        check_value(value, what, field)
    # A lone surrogate comes from an escape ("\\udc80"), or in text given as str.
    if "\\ud" in text or "\\uD" in text or not _utf8(text):
        value = _without_lone_surrogates(value)
    return value


def _utf8(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _without_lone_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (which JSON escapes can spell but no
    UTF-8 text can hold) replaced by U+FFFD, as the host's own UTF-8 encoder writes it into the
    command it runs. Left alone, one would make regular expressions, the decision log and the
    host's response fail, and a failing evaluation answers by the failure policy: appending
    ``\\udc80`` to a command must not be a way around the guards. What holds none is returned
    as it is, not copied."""
    if type(value) is str:
        if _utf8(value):
            return value
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if type(value) is dict:
        pairs = [
            (_without_lone_surrogates(k), _without_lone_surrogates(v)) for k, v in value.items()
        ]
        same = all(
            k is k0 and v is v0 for (k, v), (k0, v0) in zip(pairs, value.items(), strict=True)
        )
        return value if same else dict(pairs)
    if type(value) is list:
        items = [_without_lone_surrogates(v) for v in value]
        return value if all(v is v0 for v, v0 in zip(items, value, strict=True)) else items
    return value


def _too_deep(what: str) -> str:
    return f"{what} is nested too deeply (more than {MAX_JSON_DEPTH} levels)"


def check_value(
    value: Any, what: str, field: str | None = None, *, surrogates: bool = False
) -> bool:
    """Raise ``PayloadError`` if ``value`` nests arrays and objects deeper than
    ``MAX_JSON_DEPTH`` (a top-level container is depth 1) or holds a float that is NaN or
    infinite, which no JSON text can carry back to the host (``jsonio`` refuses them in text);
    iterative, so any depth is safe. With ``surrogates``, the same pass tells whether a string
    in it (keys included) holds a lone surrogate: the cheap test that spares the common payload
    ``_without_lone_surrogates``' rebuilding walk (False without)."""
    found = False if surrogates else None  # None: not looked for
    stack = [(value, 1)] if isinstance(value, _CONTAINERS) else []
    while stack:
        node, depth = stack.pop()
        if found is False and type(node) is dict and not _utf8("".join(node)):  # its keys
            found = True
        for child in node.values() if isinstance(node, dict) else node:
            t = type(child)
            if t is str:  # the commonest member first
                if found is False and not child.isascii():
                    found = not _utf8(child)
            elif t is dict or t is list or isinstance(child, _CONTAINERS):
                if depth == MAX_JSON_DEPTH:
                    raise PayloadError(_too_deep(what), field)
                stack.append((child, depth + 1))
            elif t is float and not -_INFINITY < child < _INFINITY:
                raise PayloadError(f"{what} holds a number out of range ({child})", field)
    return found is True


def _amplifier_envelope_event(fields: dict) -> str | None:
    event = fields.get("event")
    if isinstance(event, str) and ":" in event and isinstance(fields.get("data"), dict):
        return event
    return None


def _pick(fields: dict, keys: tuple[str, ...]) -> tuple[str | None, Any]:
    """The first of ``keys`` present with a non-null value, and that value."""
    for key in keys:
        value = fields.get(key)
        if value is not None:
            return key, value
    return None, None


def _require_string(key: str | None, value: object) -> None:
    if value is not None and not isinstance(value, str):
        raise PayloadError(f"field {key} must be a string, got {_json_type(value)}", key)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__
