"""hostio.normalize: every host's payload spelling -> one HookInput / input document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookgate.hostio.hosts import HOSTS
from hookgate.hostio.normalize import ALIASES, HookInput, PayloadError, normalize

PAYLOADS = Path(__file__).parent / "data" / "hosts" / "payloads"
SECRET = "sk-live-9f8e7d6c5b4a-DO-NOT-LEAK"

DOCUMENT_KEYS = [
    "hook_event_name",
    "host",
    "tool_name",
    "tool_kind",
    "tool_input",
    "tool_result",
    "session_id",
    "cwd",
    "extra",
    "effects",
]

# Each example payload (tests/data/hosts/payloads, copied from the hosts fact sheet) and the
# fields its document must have; "extra" lists the keys that must land in extra.
EXAMPLES = {
    "amplifier-bridge-pre.json": {
        "host": "amplifier",
        "hook_event_name": "PreToolUse",
        "host_event": None,
        "tool_name": "bash",
        "tool_kind": "shell",
        "tool_input": {"command": "rm -rf build"},
        "session_id": None,
        "extra": ["timestamp"],
    },
    "amplifier-native-tool-pre.json": {
        "host": "amplifier",
        "hook_event_name": "PreToolUse",
        "host_event": "tool:pre",
        "tool_name": "bash",
        "tool_kind": "shell",
        "tool_input": {"command": "rm -rf build"},
        "extra": ["parallel_group_id", "tool_call_id"],
    },
    "claude-post-write.json": {
        "host": "claude",
        "hook_event_name": "PostToolUse",
        "host_event": "PostToolUse",
        "tool_name": "Write",
        "tool_kind": "edit",
        "tool_input": {"file_path": "/home/u/proj/f.txt", "content": "x"},
        "tool_result": {"filePath": "/home/u/proj/f.txt", "success": True},
        "session_id": "abc123",
        "cwd": "/home/u/proj",
        "extra": ["duration_ms", "permission_mode", "tool_use_id", "transcript_path"],
    },
    "claude-pre-bash.json": {
        "host": "claude",
        "hook_event_name": "PreToolUse",
        "host_event": "PreToolUse",
        "tool_name": "Bash",
        "tool_kind": "shell",
        "tool_input": {
            "command": "npm test",
            "description": "Run tests",
            "timeout": 120000,
            "run_in_background": False,
        },
        "tool_result": None,
        "session_id": "abc123",
        "cwd": "/home/u/proj",
        "extra": ["permission_mode", "tool_use_id", "transcript_path"],
    },
    "claude-pre-skill.json": {
        "host": "claude",
        "tool_name": "Skill",
        "tool_kind": "skill",
        "tool_input": {"skill": "architect"},
    },
    "claude-pre-webfetch.json": {
        "host": "claude",
        "tool_name": "WebFetch",
        "tool_kind": "web",
        "tool_input": {
            "url": "https://example.com/docs",
            "prompt": "Summarize the installation steps",
        },
    },
    "codex-post-bash.json": {
        "host": "codex",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_kind": "shell",
        "tool_input": {"command": "cat README.md"},
        "tool_result": "# Project\n",
        "session_id": "0199a1b2",
        "extra": ["model", "permission_mode", "tool_use_id", "transcript_path", "turn_id"],
    },
    "codex-pre-apply-patch.json": {
        "host": "codex",
        "hook_event_name": "PreToolUse",
        "tool_name": "apply_patch",
        "tool_kind": "edit",
    },
    "codex-pre-bash.json": {
        "host": "codex",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_kind": "shell",
        "tool_input": {"command": "rm -rf dist"},
    },
    "copilot-pascal-pre-bash.json": {
        "host": "copilot",
        "hook_event_name": "PreToolUse",
        "host_event": "PreToolUse",
        "tool_name": "Bash",
        "tool_kind": "shell",
        "tool_input": {"command": "rm -rf dist"},
        "session_id": "s-1",
        "extra": ["timestamp"],
    },
    "copilot-post-bash.json": {
        "host": "copilot",
        "hook_event_name": "PostToolUse",
        "host_event": None,
        "tool_name": "bash",
        "tool_kind": "shell",
        "tool_input": {"command": "ls"},
        "tool_result": {"resultType": "success", "textResultForLlm": "README.md\nsrc\n"},
        "session_id": "s-1",
        "extra": ["timestamp"],
    },
    "copilot-pre-bash.json": {
        "host": "copilot",
        "hook_event_name": "PreToolUse",
        "host_event": None,
        "tool_name": "bash",
        "tool_kind": "shell",
        "tool_input": {"command": "rm -rf dist", "description": "Clean build directory"},
        "session_id": "s-1",
        "cwd": "/home/u/proj",
        "extra": ["timestamp"],
    },
    "cursor-before-shell.json": {
        "host": "cursor",
        "hook_event_name": "PreToolUse",
        "host_event": "beforeShellExecution",
        "tool_name": "Shell",
        "tool_kind": "shell",
        "tool_input": {"command": "npm install express"},
        "cwd": "/home/u/proj",
        "extra": ["conversation_id", "generation_id", "workspace_roots"],
    },
    "cursor-pre-tool.json": {
        "host": "cursor",
        "hook_event_name": "PreToolUse",
        "host_event": "preToolUse",
        "tool_name": "Shell",
        "tool_kind": "shell",
        "tool_input": {"command": "rm -rf /"},
        "extra": ["conversation_id", "generation_id", "tool_use_id", "workspace_roots"],
    },
    "gemini-after-tool.json": {
        "host": "gemini",
        "hook_event_name": "PostToolUse",
        "host_event": "AfterTool",
        "tool_name": "read_file",
        "tool_kind": "read",
        "tool_result": {"llmContent": "hello", "returnDisplay": "hello"},
        "extra": ["timestamp", "transcript_path"],
    },
    "gemini-before-tool.json": {
        "host": "gemini",
        "hook_event_name": "PreToolUse",
        "host_event": "BeforeTool",
        "tool_name": "run_shell_command",
        "tool_kind": "shell",
        "tool_input": {"command": "rm -rf build"},
        "session_id": "s1",
    },
}


def test_every_example_payload_has_expectations():
    assert sorted(p.name for p in PAYLOADS.glob("*.json")) == sorted(EXAMPLES)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_payload_document(name):
    expected = dict(EXAMPLES[name])
    hook = normalize((PAYLOADS / name).read_bytes())
    doc = hook.document()
    assert list(doc) == DOCUMENT_KEYS
    if "host_event" in expected:
        assert hook.host_event == expected.pop("host_event")
    if "extra" in expected:
        assert sorted(doc["extra"]) == sorted(expected.pop("extra"))
    for key, value in expected.items():
        assert doc[key] == value, key
    assert not ALIASES & doc["extra"].keys()


BASH_INPUT = {"command": "git commit --no-verify -m x", "description": "Commit"}

# The same PreToolUse call in every envelope of the behaviour matrix.
SPELLINGS = {
    "snake": {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": BASH_INPUT,
        "session_id": "s",
        "cwd": "/r",
    },
    "camel": {
        "hookEventName": "PreToolUse",
        "toolName": "Bash",
        "toolInput": BASH_INPUT,
        "sessionId": "s",
        "cwd": "/r",
    },
    "copilot-toolArgs-string": {
        "sessionId": "s",
        "cwd": "/r",
        "toolName": "bash",
        "toolArgs": json.dumps(BASH_INPUT),
    },
    "copilot-toolArgs-object": {
        "sessionId": "s",
        "cwd": "/r",
        "toolName": "bash",
        "toolArgs": BASH_INPUT,
    },
    "pascal-snake-no-event": {
        "tool_name": "Bash",
        "tool_input": BASH_INPUT,
        "session_id": "s",
        "cwd": "/r",
    },
    "snake-event": {
        "hook_event_name": "pre_tool_use",
        "tool_name": "BASH",
        "tool_input": BASH_INPUT,
        "session_id": "s",
        "cwd": "/r",
    },
}


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
@pytest.mark.parametrize("form", ["dict", "str", "bytes"])
def test_alias_matrix_gives_one_document(spelling, form):
    payload = SPELLINGS[spelling]
    given = {
        "dict": payload,
        "str": json.dumps(payload),
        "bytes": json.dumps(payload).encode(),
    }[form]
    doc = normalize(given).document()
    assert doc["hook_event_name"] == "PreToolUse"
    assert doc["tool_name"].lower() == "bash"
    assert doc["tool_kind"] == "shell"
    assert doc["tool_input"] == BASH_INPUT
    assert doc["session_id"] == "s"
    assert doc["cwd"] == "/r"
    assert doc["extra"] == {}


@pytest.mark.parametrize(
    "spelling, canonical",
    [
        ("PreToolUse", "PreToolUse"),
        ("preToolUse", "PreToolUse"),
        ("pre_tool_use", "PreToolUse"),
        ("BeforeTool", "PreToolUse"),
        ("beforeShellExecution", "PreToolUse"),
        ("beforeMCPExecution", "PreToolUse"),
        ("tool:pre", "PreToolUse"),
        ("PostToolUse", "PostToolUse"),
        ("postToolUse", "PostToolUse"),
        ("post_tool_use", "PostToolUse"),
        ("AfterTool", "PostToolUse"),
        ("afterShellExecution", "PostToolUse"),
        ("tool:post", "PostToolUse"),
        ("UserPromptSubmit", "UserPromptSubmit"),
    ],
)
def test_event_spellings_are_canonicalized_and_kept(spelling, canonical):
    hook = normalize(
        {"hook_event_name": spelling, "tool_name": "x", "tool_input": {"command": "ls"}}
    )
    assert hook.event == canonical
    assert hook.host_event == spelling


@pytest.mark.parametrize(
    "payload, event",
    [
        ({"tool_name": "Bash", "tool_input": {}}, "PreToolUse"),
        ({"toolInput": {}}, "PreToolUse"),
        ({"toolName": "bash", "toolArgs": "{}"}, "PreToolUse"),
        ({"tool_name": "Bash", "tool_input": {}, "tool_response": "out"}, "PostToolUse"),
        (
            {"toolName": "bash", "toolArgs": "{}", "toolResult": {"resultType": "success"}},
            "PostToolUse",
        ),
        ({"tool_input": {}, "tool_result": 0}, "PostToolUse"),
    ],
)
def test_event_inferred_when_absent(payload, event):
    hook = normalize(payload)
    assert hook.event == event
    assert hook.host_event is None


@pytest.mark.parametrize(
    "payload, tool_input, leftover",
    [
        # The first present alias wins; the losers are consumed, not copied to extra.
        ({"tool_input": {"a": 1}, "toolInput": {"b": 2}, "toolArgs": "not json"}, {"a": 1}, {}),
        ({"toolInput": {"b": 2}, "toolArgs": '{"c": 3}'}, {"b": 2}, {}),
        # A null alias does not hide a later one.
        ({"tool_input": None, "toolArgs": '{"c": 3}'}, {"c": 3}, {}),
        ({"tool_input": {}, "other": {"nested": [1, 2]}}, {}, {"other": {"nested": [1, 2]}}),
    ],
)
def test_first_present_alias_wins_and_all_are_consumed(payload, tool_input, leftover):
    hook = normalize({"tool_name": "Bash", "toolName": "Ignored", **payload})
    assert hook.tool_name == "Bash"
    assert hook.tool_input == tool_input
    assert hook.extra == leftover


def test_unknown_fields_go_to_extra_untouched():
    nested = {"deep": [{"x": None}], "n": 1.5}
    hook = normalize({"tool_name": "Bash", "tool_input": {}, "weird": nested, "flag": False})
    assert hook.extra == {"weird": nested, "flag": False}
    assert hook.extra["weird"] is nested


@pytest.mark.parametrize(
    "encoded, decoded",
    [
        ('"just a string"', "just a string"),
        ("[1, 2]", [1, 2]),
        ("42", 42),
        ("null", None),
        ('{"command": "ls", "n": [1]}', {"command": "ls", "n": [1]}),
    ],
)
def test_tool_args_string_decoded_once(encoded, decoded):
    doc = normalize({"toolName": "bash", "toolArgs": encoded}).document()
    assert doc["tool_input"] == decoded


def test_tool_args_decoded_only_once():
    # A JSON string whose content is itself JSON text stays that text after one decode.
    inner = json.dumps({"command": "ls"})
    hook = normalize({"toolName": "bash", "toolArgs": json.dumps(inner)})
    assert hook.tool_input == inner


def test_cursor_before_shell_execution_command_becomes_tool_input():
    hook = normalize({"hook_event_name": "beforeShellExecution", "command": "ls -la", "cwd": "/p"})
    assert (hook.tool_name, hook.tool_kind, hook.tool_input) == (
        "Shell",
        "shell",
        {"command": "ls -la"},
    )
    assert "command" not in hook.extra


def test_mcp_event_makes_an_mcp_tool():
    hook = normalize(
        {"hook_event_name": "beforeMCPExecution", "tool_name": "search", "tool_input": "{}"}
    )
    assert (hook.event, hook.tool_kind, hook.tool_input) == ("PreToolUse", "mcp", {})


def test_amplifier_native_post_result():
    payload = {
        "event": "tool:post",
        "data": {"tool_name": "bash", "tool_input": {}, "result": {"ok": 1}},
    }
    hook = normalize(payload)
    assert (hook.event, hook.host, hook.tool_result, hook.extra) == (
        "PostToolUse",
        "amplifier",
        {"ok": 1},
        {},
    )


def test_non_tool_event_needs_no_tool_input():
    hook = normalize({"hook_event_name": "UserPromptSubmit", "prompt": "hi", "session_id": "s"})
    assert (hook.event, hook.tool_name, hook.tool_kind, hook.tool_input) == (
        "UserPromptSubmit",
        None,
        None,
        None,
    )
    assert hook.extra == {"prompt": "hi"}


def test_byte_order_mark_is_ignored():
    payload = "\ufeff" + json.dumps(
        {"hook_event_name": "preToolUse", "tool_name": "Shell", "tool_input": {}}
    )
    assert normalize(payload.encode()).event == "PreToolUse"


@pytest.mark.parametrize(
    "name, kind",
    [
        # shell
        ("Bash", "shell"),
        ("PowerShell", "shell"),
        ("Monitor", "shell"),
        ("bash", "shell"),
        ("powershell", "shell"),
        ("shell", "shell"),
        ("shell_command", "shell"),
        ("exec_command", "shell"),
        ("local_shell", "shell"),
        ("Shell", "shell"),
        ("run_shell_command", "shell"),
        ("RUN_SHELL_COMMAND", "shell"),
        # edit / write
        ("Write", "edit"),
        ("Edit", "edit"),
        ("MultiEdit", "edit"),
        ("NotebookEdit", "edit"),
        ("create", "edit"),
        ("edit", "edit"),
        ("str_replace_editor", "edit"),
        ("apply_patch", "edit"),
        ("write_file", "edit"),
        ("edit_file", "edit"),
        ("replace", "edit"),
        ("StrReplace", "edit"),
        ("Delete", "edit"),
        # read / search
        ("Read", "read"),
        ("view", "read"),
        ("read_file", "read"),
        ("read_many_files", "read"),
        ("list_directory", "read"),
        ("Glob", "search"),
        ("Grep", "search"),
        ("rg", "search"),
        ("grep_search", "search"),
        # web
        ("WebFetch", "web"),
        ("WebSearch", "web"),
        ("web_fetch", "web"),
        ("web_search", "web"),
        ("google_web_search", "web"),
        # agents, skills
        ("Agent", "agent"),
        ("Task", "agent"),
        ("task", "agent"),
        ("spawn_agent", "agent"),
        ("delegate", "agent"),
        ("invoke_agent", "agent"),
        ("Skill", "skill"),
        # MCP, every host's spelling
        ("mcp__github__create_issue", "mcp"),
        ("MCP:create_issue", "mcp"),
        ("mcp_github_create_issue", "mcp"),
        # other
        ("TodoWrite", "other"),
        ("AskUserQuestion", "other"),
        ("write_todos", "other"),
        ("Bashful", "other"),
    ],
)
def test_tool_kind(name, kind):
    assert normalize({"tool_name": name, "tool_input": {}}).tool_kind == kind


@pytest.mark.parametrize(
    "payload, host",
    [
        (
            {
                "hook_event_name": "PreToolUse",
                "turn_id": "t",
                "tool_name": "Bash",
                "tool_input": {},
            },
            "codex",
        ),
        (
            {
                "hook_event_name": "BeforeTool",
                "timestamp": "2026-01-01T00:00:00Z",
                "tool_name": "x",
                "tool_input": {},
            },
            "gemini",
        ),
        ({"hook_event_name": "preToolUse", "tool_name": "Shell", "tool_input": {}}, "cursor"),
        (
            {
                "hook_event_name": "PreToolUse",
                "conversation_id": "c",
                "tool_name": "Shell",
                "tool_input": {},
            },
            "cursor",
        ),
        ({"hookEventName": "preToolUse", "toolName": "bash", "toolInput": {}}, "copilot"),
        ({"toolName": "bash", "toolArgs": "{}"}, "copilot"),
        (
            {
                "hook_event_name": "PreToolUse",
                "timestamp": "2026-01-01T00:00:00Z",
                "tool_name": "Bash",
                "tool_input": {},
            },
            "copilot",
        ),
        ({"tool_name": "bash", "tool_input": {}, "timestamp": "2026-01-01T00:00:00Z"}, "amplifier"),
        ({"hook_event_name": "tool:pre", "tool_name": "bash", "tool_input": {}}, "amplifier"),
        (
            {
                "hook_event_name": "PreToolUse",
                "tool_use_id": "toolu_1",
                "transcript_path": "/t",
                "tool_name": "Bash",
                "tool_input": {},
            },
            "claude",
        ),
        ({"hookEventName": "PreToolUse", "toolName": "Bash", "toolInput": {}}, "claude"),
        ({"tool_name": "Bash", "tool_input": {}}, "claude"),
    ],
)
def test_host_detection(payload, host):
    assert normalize(payload).host == host


@pytest.mark.parametrize("host", HOSTS)
def test_host_override(host):
    claude = json.loads((PAYLOADS / "claude-pre-bash.json").read_text())
    assert normalize(claude, host=host).document()["host"] == host


def test_unknown_host_override_is_rejected():
    with pytest.raises(ValueError, match="unknown host"):
        normalize({"tool_name": "Bash", "tool_input": {}}, host="vim")


def test_hook_input_is_frozen():
    hook = normalize({"tool_name": "Bash", "tool_input": {}})
    assert isinstance(hook, HookInput)
    with pytest.raises(AttributeError):
        hook.tool_name = "Other"


# Malformed payloads: (payload, field the error names, words the message must contain).
ERRORS = [
    (
        {"toolName": "bash", "toolArgs": '{"command": "echo ' + SECRET},
        "toolArgs",
        ["toolArgs", "not valid JSON", "line 1, column"],
    ),
    (
        {"tool_name": "Bash", "tool_input": "rm " + SECRET},
        "tool_input",
        ["tool_input", "not valid JSON"],
    ),
    (
        {"hook_event_name": "PreToolUse", "tool_name": "Bash", "note": SECRET},
        "tool_input",
        ["missing required field tool_input"],
    ),
    (
        {"hookEventName": "PostToolUse", "toolName": "Bash", "toolResult": SECRET},
        "tool_input",
        ["missing required field tool_input"],
    ),
    ({"note": SECRET}, "hook_event_name", ["missing required field hook_event_name"]),
    ({"tool_name": 7, "tool_input": {"k": SECRET}}, "tool_name", ["tool_name", "string", "number"]),
    # null, booleans, numbers and objects where a host sends a string, in every such field.
    *(
        ({**{"tool_name": "Bash", "tool_input": {"k": SECRET}}, key: value}, key, [key, word])
        for key in ("tool_name", "toolName", "session_id", "hook_event_name", "cwd")
        for value, word in ((None, "null"), (True, "boolean"), (1.5, "number"), ({}, "object"))
    ),
    ({"hookEventName": [SECRET], "tool_input": {}}, "hookEventName", ["hookEventName", "array"]),
    ({"sessionId": {"s": SECRET}, "tool_input": {}}, "sessionId", ["sessionId", "object"]),
    # The spelling read (the first not null) is named first, then any spelling in order.
    (
        {"hook_event_name": None, "hookEventName": 5, "tool_input": {}},
        "hookEventName",
        ["hookEventName", "number"],
    ),
    ({"tool_name": None, "tool_input": {}}, "tool_name", ["tool_name", "null"]),
    ({"tool_name": "Bash", "toolName": 5, "tool_input": {}}, "toolName", ["toolName", "number"]),
    (
        {"hook_event_name": "beforeShellExecution", "cwd": SECRET},
        "command",
        ["missing required field command"],
    ),
    (
        {"hook_event_name": "beforeShellExecution", "command": [SECRET]},
        "command",
        ["command", "array"],
    ),
    ('["' + SECRET + '"]', None, ["JSON object", "array"]),
    ('"' + SECRET + '"', None, ["JSON object", "string"]),
    ("null", None, ["JSON object", "null"]),
    ("", None, ["empty payload"]),
    (b" \n\t", None, ["empty payload"]),
    ("not json " + SECRET, None, ["not valid JSON", "line 1, column 1"]),
    ('{"tool_name": "' + SECRET, None, ["not valid JSON"]),
    (b"\xff\xfe" + SECRET.encode(), None, ["UTF-8", "byte 0"]),
    ("[" * 200_000 + SECRET, None, ["nested too deeply"]),
    (
        {"toolName": "bash", "toolArgs": "[" * 200_000 + SECRET},
        "toolArgs",
        ["toolArgs", "nested too deeply"],
    ),
    (42, None, ["JSON object", "int"]),
]


@pytest.mark.parametrize("payload, field, words", ERRORS, ids=range(len(ERRORS)))
def test_errors_name_the_field_and_never_echo_the_payload(payload, field, words):
    with pytest.raises(PayloadError) as caught:
        normalize(payload)
    err = caught.value
    assert err.field == field
    for word in words:
        assert word in str(err)
    assert SECRET not in str(err)
    assert "sk-live" not in repr(err)
    # No chained exception (json's carries the whole document) is shown in a traceback.
    assert err.__cause__ is None
    assert err.__context__ is None or err.__suppress_context__


@pytest.mark.parametrize(
    ("tool_input", "expected"),
    [
        ({"command": "ls \udc80"}, {"command": "ls \ufffd"}),
        ({"c\ud800": ["é", "x"]}, {"c\ufffd": ["é", "x"]}),
        (
            {"edits": [{"new": ["ok", {"deep": "\udfff é"}]}]},
            {"edits": [{"new": ["ok", {"deep": "\ufffd é"}]}]},
        ),
    ],
)
def test_a_payload_object_loses_its_lone_surrogates_wherever_they_are(tool_input, expected):
    # One walk checks a payload object's depth and numbers and finds lone surrogates (in keys
    # too): a surrogate anywhere must still be replaced, as the host's UTF-8 encoder does.
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": tool_input}
    assert normalize(payload).tool_input == expected


def test_a_payload_object_without_lone_surrogates_is_used_as_it_is():
    tool_input = {"command": "echo 'héllo wörld ✓'", "nested": [{"ключ": "значение"}]}
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": tool_input}
    assert normalize(payload).tool_input is tool_input


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("tool_input", "message"),
    [
        ({"x\udc80": float("nan")}, "payload holds a number out of range (nan)"),
        ({"x": "\udc80", "y": _nested(300)}, "nested too deeply"),
    ],
)
def test_a_payload_object_with_a_lone_surrogate_is_still_checked(tool_input, message):
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": tool_input}
    with pytest.raises(PayloadError, match=message.replace("(", r"\(").replace(")", r"\)")):
        normalize(payload)
