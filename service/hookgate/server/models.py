"""The API's request and response bodies (pydantic), with the examples Swagger UI offers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictBool,
    StrictInt,
    model_validator,
)

from hookgate.decision import OUTCOMES
from hookgate.hostio.hosts import HOSTS
from hookgate.hostio.normalize import check_value

MAX_INT = 2**31 - 1  # the database's INTEGER columns
Outcome = Literal[OUTCOMES]
Host = Literal[HOSTS]
Role = Literal["agent", "viewer", "editor", "admin"]


def _plain_json(value: dict[str, Any]) -> dict[str, Any]:
    # A NaN or an infinity (which the request's JSON parser lets through) would make the answer
    # unwritable as JSON; a deep nesting would take evaluation near the recursion limit.
    check_value(value, "the document")
    return value


# A JSON object as the engine reads it: finite numbers only, nested within the payload limit.
JSONObject = Annotated[dict[str, Any], AfterValidator(_plain_json)]

# Facts: builtin name → argument → answer (see EvaluateIn.facts).
Facts = Annotated[dict[str, dict[str, Any]], AfterValidator(_plain_json)]


def _unicode(value: str) -> str:
    # JSON's "\ud800" parses to a lone surrogate, which no database or answer can encode.
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(
            "holds a lone surrogate (a \\uD800-\\uDFFF escape without its pair)"
        ) from None
    return value


Text = Annotated[str, AfterValidator(_unicode)]


def _utc(value: datetime) -> datetime:
    # Without an offset a time is UTC. With one, a time near year 1 or 9999 can leave the
    # calendar on conversion (0001-01-01T00:00+14:00): refused here, not a 500 later.
    try:
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except OverflowError:
        raise ValueError("time out of range once converted to UTC") from None


UTCDateTime = Annotated[datetime, AfterValidator(_utc)]

# How far ahead of the server's clock a recorded decision's time may be (clock skew).
MAX_CLOCK_SKEW = timedelta(minutes=5)


def _not_in_future(value: datetime) -> datetime:
    if value > datetime.now(UTC) + MAX_CLOCK_SKEW:
        raise ValueError("time is in the future (more than 5 minutes ahead of the server)")
    return value


RecordTime = Annotated[UTCDateTime, AfterValidator(_not_in_future)]

# -- errors ----------------------------------------------------------------------------------


class ValidationItem(BaseModel):
    loc: list[str | int]
    msg: str
    type: str
    field: str = Field(description="The offending field as a dotted path, e.g. body.payload.")


class DiagnosticOut(BaseModel):
    file: str
    line: int
    col: int
    message: str
    hint: str | None = None
    severity: str = "error"
    text: str = Field(description="`file:line:col: message`, as `hookgate check` prints it.")


class ErrorOut(BaseModel):
    detail: str | list[ValidationItem]
    diagnostics: list[DiagnosticOut] | None = None


# -- documents -------------------------------------------------------------------------------


class RevisionOut(BaseModel):
    id: str = Field(description="The policy id or the data path.")
    revision: int = Field(description="This document's revision number (1, 2, …).")
    op: Literal["put", "delete", "rollback"]
    content: Any = Field(None, description="Policy text, or the data document; null for a delete.")
    content_hash: str | None
    author: str
    message: str
    created_at: datetime
    bundle_revision: int = Field(description="The bundle revision this change produced.")
    etag: str = Field(description="Send it back in If-Match to change this document.")
    warnings: list[str] = Field(
        default_factory=list,
        description="After a PUT of a data document: its settings that the base does not have "
        "and no policy reads (a key the pack renamed, a typo); they change nothing.",
    )


class UnchangedOut(BaseModel):
    id: str = Field(description="The policy id or the data path.")
    unchanged: Literal[True] = Field(
        description="The content is the base's own (the built-in pack's file, or its data at "
        "that path): the team layer keeps no copy, and nothing was written."
    )
    message: str = Field(description="Which base holds it.")


class RevisionList(BaseModel):
    revisions: list[RevisionOut]


class BaseOut(BaseModel):
    name: str = Field(description="The base layer: the built-in pack (hookgate-default).")
    version: str | None = Field(
        description="The pack version the active set composes; null when the team replaced "
        "the base (its layer is the whole set)."
    )
    replaced: bool = Field(description="True when the team layer replaces the base.")
    guards: list[str] = Field(description="The base's guards (packages without hookgate.).")
    revision: int = Field(description="The base document's revision (its history: /revisions).")


class RollbackIn(BaseModel):
    revision: StrictInt = Field(
        ge=1, le=MAX_INT, description="The revision whose content becomes current again."
    )
    message: str = Field("", max_length=2000)


# -- dry-runs --------------------------------------------------------------------------------


class EvaluateIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    payload: dict[str, Any] | str = Field(
        description="The hook payload in any host's shape (an object, or its JSON text)."
    )
    host: Host | None = Field(
        None, description="Render for this host; default: detected from the payload."
    )
    policies: dict[str, str | None] | None = Field(
        None,
        description="Draft policies by id, overriding the stored ones for this request only; "
        "null removes a stored policy from this evaluation.",
    )
    data: JSONObject | None = Field(
        None,
        description="Draft data documents by data path (as in PUT /v1/data/{path}), "
        "overriding the stored ones for this request only.",
    )
    facts: Facts | None = Field(
        None,
        description="Answers for the builtins that read the hook's machine, by builtin name "
        'then argument, e.g. {"git.branch": {"/repo": "main"}}. The server never reads '
        "its own disk for them: a fact not given is null.",
    )
    explain: StrictBool = Field(True, description="Include the rule-by-rule trace.")


class DecisionErrorOut(BaseModel):
    kind: Literal["fault", "limit"] = Field(
        description="fault: hookgate failed (the failure policy applied); limit: a bound "
        "reached judging agent-controlled content (the limit action, ask or deny, applied)."
    )
    source: str = Field(description="What failed: payload, evaluation, policy, …")
    pack: str | None = Field(description="The guard pack that failed alone (null: all).")
    limit: str | None = Field(description="The limit reached: time, steps, nesting, …")
    message: str


class DecisionOut(BaseModel):
    outcome: Outcome
    reasons: list[str]
    context: list[str]
    updated_input: dict[str, Any] | None
    matches: list[dict[str, Any]]
    errors: list[DecisionErrorOut]
    would: list[dict[str, Any]] = Field(
        default_factory=list,
        description="What guards in warn or audit mode would have answered instead: "
        "{would, mode, guard, pack, pattern, reason, rewrite}.",
    )
    event: str
    host_event: str | None
    host: str
    tool_name: str | None


class EvaluateOut(BaseModel):
    decision: DecisionOut
    host: str = Field(description="The host the response is rendered for.")
    response: dict[str, Any] = Field(description="Exactly what the hook writes on stdout.")
    exit_code: int
    explain: list[dict[str, Any]] | None = Field(description="Each rule queried and its value.")
    prints: list[str] = Field(description="Output of print() calls in the policies.")
    took_ms: float = Field(description="Time spent evaluating (compilation of drafts excluded).")
    bundle_revision: int = Field(description="The stored active set's revision used.")
    draft: bool = Field(description="True when draft policies or data took part.")


class CheckIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    policies: dict[str, str | None] = Field(
        description="Draft policies by id, checked together with the rest of the active set."
    )
    data: JSONObject | None = Field(None, description="Draft data documents by path.")


class CheckOut(BaseModel):
    ok: bool
    diagnostics: list[DiagnosticOut]


# -- bundles ---------------------------------------------------------------------------------


class BundleOut(BaseModel):
    revision: int
    created_at: str
    policies: dict[str, str]
    data: dict[str, Any]
    digest: str
    signature: str
    key_id: str
    base: dict[str, Any] | None = Field(
        None,
        description="The built-in pack this server ships (unsigned, for people): `name`, "
        "`version`, and `policies`: `complete` (every pack file, unchanged), `modified` or "
        "`absent`; `disabled`: the guards data.hookgate.disabled turns off.",
    )


class KeyOut(BaseModel):
    algorithm: Literal["ed25519"]
    key_id: str
    public_key: str = Field(description="Standard base64 of the raw 32-byte Ed25519 public key.")


# -- decision logs ---------------------------------------------------------------------------


class MatchIn(BaseModel):
    pack: Text | None = Field(None, max_length=255)
    pattern: Text | None = Field(None, max_length=255)
    rule: Text | None = Field(None, max_length=255)


class DecisionErrorIn(BaseModel):
    kind: Literal["fault", "limit"] = Field(
        description="fault: hookgate failed (the failure policy applied); limit: a bound "
        "reached judging agent-controlled content (the limit action applied)."
    )
    source: Text = Field(max_length=64, description="What failed: payload, policy, …")
    pack: Text | None = Field(None, max_length=255, description="The pack that failed alone.")
    limit: Text | None = Field(None, max_length=64, description="The limit reached.")
    message: Text = Field("", max_length=1000)


class WouldIn(BaseModel):
    would: Literal["deny", "ask", "rewrite"] = Field(
        description="What the guard would have answered, had it been enforced."
    )
    mode: Literal["warn", "audit"] = Field(description="The guard's mode (data.hookgate.modes).")
    guard: Text | None = Field(None, max_length=255, description="The guard's package name.")
    pack: Text | None = Field(None, max_length=255)
    pattern: Text | None = Field(None, max_length=255)
    reason: Text = Field("", max_length=1000, description="Masked again before storing.")
    rewrite: JSONObject | None = Field(
        None, description="The tool input the rewrite would have made, masked (again here)."
    )


class DecisionRecordIn(BaseModel):
    decision_id: UUID
    time: RecordTime = Field(
        description="ISO-8601; without an offset it is taken as UTC; at most 5 minutes ahead "
        "of the server's clock."
    )
    host: Text | None = Field(None, max_length=64)
    event: Text | None = Field(None, max_length=64)
    session_id: Text | None = Field(None, max_length=255)
    tool_name: Text | None = Field(None, max_length=255)
    outcome: Outcome
    matches: list[MatchIn] = Field(default_factory=list, max_length=100)
    errors: list[DecisionErrorIn] = Field(
        default_factory=list,
        max_length=20,
        description="What failed behind the outcome (an allow with a fault is the failure "
        "policy's answer, not the policies').",
    )
    would: list[WouldIn] = Field(
        default_factory=list,
        max_length=20,
        description="What guards in warn or audit mode would have answered: not the outcome.",
    )
    bundle_revision: StrictInt | None = Field(
        None, ge=0, le=MAX_INT, description="At most the server's current bundle revision."
    )
    command: Text | None = Field(
        None, max_length=65536, description="Masked by the hook; masked again before storing."
    )
    input: JSONObject | None = Field(
        None,
        description="The input document the policies saw, masked (again before storing); at "
        "most 32 KiB as compact JSON. Replayed by POST /v1/impact.",
    )
    input_truncated: StrictBool = Field(
        False, description="Some strings of `input` were cut, or it was too large to keep."
    )
    stream: Text | None = Field(
        None, max_length=128, description="Whose log the record is from: `<machine id>:<uid>`."
    )
    seq: StrictInt | None = Field(None, ge=1, le=MAX_INT, description="1, 2, … in the stream.")
    prev: str | None = Field(
        None,
        pattern="^[0-9a-f]{64}$",
        description="SHA-256 (hex) of the canonical bytes (sorted keys, no spaces, ASCII JSON) "
        "of the stream's record before this one; null for the first.",
    )
    # The SHA-256 of this record's canonical bytes, computed here from what was received.
    _hash: str | None = PrivateAttr(None)

    @model_validator(mode="wrap")
    @classmethod
    def _chain_hash(cls, data: Any, handler: Any) -> DecisionRecordIn:
        record = handler(data)
        if isinstance(data, dict) and record.seq is not None:
            from hookgate.decisionlog import chain_hash

            record._hash = chain_hash(data)
        return record


class DecisionBatchIn(BaseModel):
    decisions: list[DecisionRecordIn] = Field(max_length=1000)


class DecisionBatchOut(BaseModel):
    accepted: int
    duplicates: int


class DecisionRecordOut(BaseModel):
    decision_id: str
    time: datetime
    host: str | None
    event: str | None
    session_id: str | None
    tool_name: str | None
    outcome: str
    matches: list[MatchIn]
    errors: list[DecisionErrorIn] = Field(description="Faults and limits behind the outcome.")
    would: list[WouldIn] = Field(
        description="What guards in warn or audit mode would have answered (not the outcome)."
    )
    bundle_revision: int | None
    command: str | None
    uploaded_by: str = Field(description="The name of the token that uploaded it.")
    token_id: int | None = Field(description="The id of the token that uploaded it.")
    input: dict[str, Any] | None = Field(description="The masked input document, if recorded.")
    input_truncated: bool
    input_withheld: bool = Field(
        False,
        description="An input document is recorded, but the token's role may not read recorded "
        "data (`hookgate serve --recorded-data-role`, editor by default).",
    )
    received_at: datetime
    stream: str | None = Field(None, description="Whose log the record is from.")
    seq: int | None = Field(None, description="Its sequence number in that log.")


class DecisionPage(BaseModel):
    decisions: list[DecisionRecordOut]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next (older) page.")


class StreamGap(BaseModel):
    after: int = Field(description="The last seq held before the gap.")
    before: int = Field(description="The first seq held after it.")


class StreamReport(BaseModel):
    stream: str
    records: int
    first_seq: int
    last_seq: int
    missing: int = Field(description="Sequence numbers between first_seq and last_seq not held.")
    gaps: list[StreamGap]
    rewritten: list[int] = Field(
        description="Sequence numbers held twice, or whose record's `prev` is not the hash of "
        "the record held before it: a record changed after it was chained."
    )
    last_received_at: datetime


class StreamsPage(BaseModel):
    streams: list[StreamReport]
    capped: bool = Field(description="More gaps or rewritten records exist than are listed.")


# -- tokens ----------------------------------------------------------------------------------


class TokenIn(BaseModel):
    role: Role
    name: str = Field(min_length=1, max_length=255)


class TokenOut(BaseModel):
    id: int
    name: str
    role: str
    created_at: datetime
    revoked_at: datetime | None


class NewTokenOut(BaseModel):
    name: str
    role: str
    token: str = Field(description="Shown once; only its hash is stored.")


class TokenList(BaseModel):
    tokens: list[TokenOut]


# -- examples that make "Try it out" work in one click ----------------------------------------

EVALUATE_EXAMPLES: dict[str, dict] = {
    "claude-no-verify-commit": {
        "summary": "Claude Code: git commit --no-verify",
        "value": {
            "payload": {
                "session_id": "abc123",
                "cwd": "/home/u/proj",
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {
                    "command": "git commit --no-verify -m 'wip'",
                    "description": "Commit without running hooks",
                },
            },
            "host": "claude",
        },
    },
    "copilot-force-push": {
        "summary": "Copilot CLI: git push --force (toolArgs as a JSON string)",
        "value": {
            "payload": {
                "sessionId": "s-1",
                "timestamp": 1704614600000,
                "cwd": "/home/u/proj",
                "toolName": "bash",
                "toolArgs": '{"command":"git push --force origin main","description":"Push"}',
            },
            "host": "copilot",
            "facts": {"git.branch": {"/home/u/proj": "main"}},
        },
    },
    "codex-rm-rf": {
        "summary": "Codex CLI: rm -rf of the home directory",
        "value": {
            "payload": {
                "session_id": "0199a1b2",
                "turn_id": "turn-1",
                "cwd": "/home/u/proj",
                "hook_event_name": "PreToolUse",
                "model": "gpt-5",
                "tool_name": "Bash",
                "tool_input": {"command": "rm -rf ~/"},
                "tool_use_id": "call_abc",
            },
            "host": "codex",
        },
    },
}

CHECK_EXAMPLES: dict[str, dict] = {
    "broken-draft": {
        "summary": "A draft with a syntax error",
        "value": {
            "policies": {
                "draft.rego": "package hookgate.draft\n\nimport rego.v1\n\n"
                'deny contains "no" if {\n\tinput.tool_name ==\n}\n'
            }
        },
    },
    "good-draft": {
        "summary": "A draft that compiles",
        "value": {
            "policies": {
                "draft.rego": "package hookgate.draft\n\nimport rego.v1\n\n"
                'deny contains "no curl | sh" if {\n\tinput.tool_kind == "shell"\n'
                '\tcontains(input.tool_input.command, "| sh")\n}\n'
            }
        },
    },
}

POLICY_EXAMPLE = (
    "package hookgate.example\n\nimport rego.v1\n\n"
    'deny contains {"reason": "Do not read .env files.", "pattern": "dotenv"} if {\n'
    '\tinput.tool_kind == "read"\n\tendswith(input.tool_input.file_path, ".env")\n}\n'
)
