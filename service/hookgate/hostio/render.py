"""``Decision`` -> the exact response each host expects (docs/design/contracts.md, "The
decision and the host responses"; the facts per host are in HOSTS.md).

Every renderer first reduces the decision to a ``_Plan`` within what its host can express (a
host without ``ask`` gets a deny saying approval is required; a host that cannot apply a
rewritten input gets a deny that names the input to retry with, because letting the original
call through would defeat the rewrite), then spells the plan in the host's JSON.

The exit code is always 0: every host reads a deny from stdout, and Copilot CLI treats any
non-zero exit of a preToolUse hook as a crash.

What a rewrite answers is a setting (``$HOOKGATE_REWRITE``, written into the hook command by
``hookgate install --rewrite``): ``allow`` (the default) runs the rewritten input without the
host's own approval step, as Claude Code and Codex document; ``ask`` grants nothing the host
would not: hosts that ask about an updated input (Claude Code, Copilot CLI, Gemini CLI) ask the
user about the rewritten call, the others deny and name the input to retry with, which then
meets the host's own approval.
"""

from __future__ import annotations

import os

from hookgate import jsonio
from hookgate.hostio import hosts
from hookgate.records import Frozen, set_field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from hookgate.decision import Decision

DEFAULT_DENY_REASON = "Blocked by hookgate policy."
DEFAULT_ASK_REASON = "hookgate policy requires human approval for this call."
REWRITE_ANSWERS = ("allow", "ask")
REWRITE_ENV = "HOOKGATE_REWRITE"


def rewrite_answer() -> str:
    """``allow`` or ``ask`` (``$HOOKGATE_REWRITE``; anything else is ``allow``, today's answer)."""
    value = os.environ.get(REWRITE_ENV, "allow")
    return value if value in REWRITE_ANSWERS else "allow"


class Response(Frozen):
    """What the hook process writes: ``stdout`` (a JSON object; None writes nothing), its exit
    code, and ``stderr`` (one line per error, no trailing newline; never payload content)."""

    __slots__ = ("stdout", "exit_code", "stderr")

    def __init__(self, stdout: dict | None, exit_code: int, stderr: str) -> None:
        set_field(self, "stdout", stdout)
        set_field(self, "exit_code", exit_code)
        set_field(self, "stderr", stderr)


class _Plan:
    __slots__ = ("verdict", "reason", "context", "updated_input")

    def __init__(
        self,
        verdict: str,  # "deny" | "ask" | "rewrite" | "allow"
        reason: str = "",  # non-empty for deny and ask
        context: str = "",  # text for the agent's context; "" for none
        updated_input: dict | None = None,  # the complete tool input, for rewrite
    ) -> None:
        self.verdict = verdict
        self.reason = reason
        self.context = context
        self.updated_input = updated_input


def respond(decision: Decision, host: str | None = None) -> Response:
    """The response for ``host`` (default: the host the decision was made for)."""
    name = host or decision.host
    renderer = _RENDERERS.get(name)
    if renderer is None:
        raise ValueError(f"unknown host {name!r}; expected one of {', '.join(hosts.HOSTS)}")
    stderr = "\n".join(f"hookgate: {line}" for line in decision.error_lines())
    return Response(renderer(decision), 0, stderr)


def _join(lines: list[str]) -> str:
    return "\n".join(line for line in lines if line)


def _plan(
    decision: Decision,
    *,
    gate: bool,
    can_ask: bool,
    can_rewrite: bool,
    can_block_after: bool,
    can_ask_rewrite: bool = False,
) -> _Plan:
    """Reduce ``decision`` to what the host can say. ``gate``: the event runs before the tool
    (PreToolUse and its equivalents); ``can_block_after``: the host reads a block on the event
    after the tool ran (it cannot undo the call, but replaces or annotates its result);
    ``can_ask_rewrite``: the host asks the user about an updated input (for rewrites answered
    with ``ask``, verdict ``ask-rewrite``)."""
    reasons = _join(decision.reasons)
    context = _join(decision.context)
    outcome = decision.outcome
    if not gate:
        if outcome == "deny" and can_block_after:
            return _Plan("deny", reasons or DEFAULT_DENY_REASON, context)
        # After the call there is nothing left to ask or rewrite: the reasons become context.
        return _Plan("allow", context=_join([*decision.reasons, *decision.context]))
    if outcome == "deny":
        return _Plan("deny", reasons or DEFAULT_DENY_REASON, context)
    if outcome == "ask":
        if can_ask:
            return _Plan("ask", reasons or DEFAULT_ASK_REASON, context)
        return _Plan("deny", f"Approval required: {reasons or DEFAULT_ASK_REASON}", context)
    unasked = outcome == "rewrite" and rewrite_answer() == "ask" and not can_ask_rewrite
    if unasked:
        can_rewrite = False  # what the host would then run unasked is the rewritten input
    if outcome == "rewrite":
        if can_rewrite:
            return _Plan(
                "ask-rewrite" if rewrite_answer() == "ask" else "rewrite",
                reason=_join(decision.reasons) or DEFAULT_ASK_REASON,
                context=_join([*decision.reasons, *decision.context]),
                updated_input=decision.updated_input,
            )
        retry = jsonio.dumps(decision.updated_input, ensure_ascii=False)
        note = (
            f"The rewritten call needs approval; retry with: {retry}"
            if unasked
            else f"This host cannot apply a rewritten input; retry with: {retry}"
        )
        return _Plan("deny", _join([reasons, note]), context)
    return _Plan("allow", context=context)


def _is_gate(decision: Decision) -> bool:
    return decision.event == hosts.PRE_TOOL_USE


def _hook_specific_output(decision: Decision, *, can_ask: bool) -> dict:
    """Claude Code and Codex CLI: ``hookSpecificOutput``; after the tool, a top-level block."""
    gate = _is_gate(decision)
    plan = _plan(
        decision,
        gate=gate,
        can_ask=can_ask,
        can_rewrite=True,
        can_block_after=True,
        can_ask_rewrite=can_ask,
    )
    response: dict = {}
    specific: dict = {"hookEventName": hosts.hook_event_name(decision.host_event, decision.event)}
    if plan.verdict in ("deny", "ask"):
        if gate:
            specific["permissionDecision"] = plan.verdict
            specific["permissionDecisionReason"] = plan.reason
        else:
            response = {"decision": "block", "reason": plan.reason}
    elif plan.verdict == "rewrite":
        specific["permissionDecision"] = "allow"
        specific["updatedInput"] = plan.updated_input
    elif plan.verdict == "ask-rewrite":
        # Claude asks the user about the updated input (observed with Claude Code 2.1.332).
        specific["permissionDecision"] = "ask"
        specific["permissionDecisionReason"] = plan.reason
        specific["updatedInput"] = plan.updated_input
    if plan.context:
        specific["additionalContext"] = plan.context
    if len(specific) > 1:
        response["hookSpecificOutput"] = specific
    return response


def _claude(decision: Decision) -> dict:
    return _hook_specific_output(decision, can_ask=True)


def _codex(decision: Decision) -> dict:
    # Codex rejects ask, a bare allow, a reasonless deny and unknown keys: the plan never
    # yields the first three, and _hook_specific_output writes only schema keys.
    return _hook_specific_output(decision, can_ask=False)


def _copilot(decision: Decision) -> dict:
    """Copilot CLI: flat fields; after the tool only ``additionalContext`` is read."""
    plan = _plan(
        decision,
        gate=_is_gate(decision),
        can_ask=True,
        can_rewrite=True,
        can_block_after=False,
        can_ask_rewrite=True,
    )
    response: dict = {}
    if plan.verdict in ("deny", "ask"):
        response = {"permissionDecision": plan.verdict, "permissionDecisionReason": plan.reason}
    elif plan.verdict == "rewrite":
        response = {"permissionDecision": "allow", "modifiedArgs": plan.updated_input}
    elif plan.verdict == "ask-rewrite":
        response = {
            "permissionDecision": "ask",
            "permissionDecisionReason": plan.reason,
            "modifiedArgs": plan.updated_input,
        }
    if plan.context:
        response["additionalContext"] = plan.context
    return response


def _gemini(decision: Decision) -> dict:
    """Gemini CLI: top-level ``decision``/``reason``; the rewritten input and the context in
    hookSpecificOutput. Gemini 0.61's own ``ask`` (before a tool, about the call as rewritten)
    prompts its user; a headless run (``gemini -p``) has no one to answer and waits forever
    (tests/hosts), so there an ask is a deny saying approval is required (``hostmode``). Before
    a tool Gemini reads no context: a reason goes to the user as ``systemMessage``."""
    gate = _is_gate(decision)
    asks = decision.outcome == "ask" or (
        decision.outcome == "rewrite" and rewrite_answer() == "ask"
    )
    if gate and asks:
        from hookgate.hostio.hostmode import gemini_can_ask

        can_ask = gemini_can_ask()
    else:
        can_ask = False
    plan = _plan(
        decision,
        gate=gate,
        can_ask=can_ask,
        can_rewrite=True,
        can_block_after=True,
        can_ask_rewrite=can_ask,
    )
    response: dict = {}
    specific: dict = {}
    if plan.verdict == "deny":
        response = {"decision": "deny", "reason": plan.reason}
    elif plan.verdict in ("ask", "ask-rewrite"):
        response = {"decision": "ask", "reason": plan.reason, "systemMessage": plan.reason}
    elif plan.verdict == "rewrite":
        response = {"decision": "allow", "reason": plan.context, "systemMessage": plan.context}
    elif plan.context and gate:
        response["systemMessage"] = plan.context
    if plan.verdict in ("rewrite", "ask-rewrite"):
        specific["tool_input"] = plan.updated_input
    if plan.context and not gate:
        specific["additionalContext"] = plan.context
    if specific:
        event = hosts.GEMINI_EVENTS.get(decision.event, decision.host_event or decision.event)
        response["hookSpecificOutput"] = {"hookEventName": event, **specific}
    return response


def _cursor(decision: Decision) -> dict:
    """Cursor: gate events need an explicit ``permission`` (a missing one blocks) and pass text
    to the model as ``agent_message``; only preToolUse takes ``updated_input``; after the tool
    only ``additional_context`` is read."""
    event = hosts.cursor_event(decision.host_event, decision.event)
    gate = hosts.is_cursor_gate(event)
    plan = _plan(
        decision,
        gate=gate,
        can_ask=True,
        can_rewrite=hosts.cursor_takes_updated_input(event),
        can_block_after=False,
    )
    if not gate:
        return {"additional_context": plan.context} if plan.context else {}
    if plan.verdict in ("deny", "ask"):
        return {
            "permission": plan.verdict,
            "user_message": plan.reason,
            "agent_message": plan.reason,
        }
    if plan.verdict == "rewrite":
        return {"permission": "allow", "updated_input": plan.updated_input}
    # An allow carries context (a guard in warn mode) the one way a gate answer reaches the
    # model: ``agent_message``.
    return (
        {"permission": "allow", "agent_message": plan.context}
        if plan.context
        else {"permission": "allow"}
    )


def _amplifier(decision: Decision) -> dict:
    """Amplifier's hook-shell bridge: ``decision: block`` + ``reason`` denies (it has no ask,
    does not apply a tool:pre rewrite, and ignores hookSpecificOutput); ``contextInjection``."""
    plan = _plan(
        decision, gate=_is_gate(decision), can_ask=False, can_rewrite=False, can_block_after=False
    )
    if plan.verdict == "deny":
        return {"decision": "block", "reason": plan.reason}
    return {"contextInjection": plan.context} if plan.context else {}


_RENDERERS: dict[str, Callable[[Decision], dict]] = {
    hosts.CLAUDE: _claude,
    hosts.CODEX: _codex,
    hosts.COPILOT: _copilot,
    hosts.GEMINI: _gemini,
    hosts.CURSOR: _cursor,
    hosts.AMPLIFIER: _amplifier,
}
