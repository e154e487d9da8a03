"""A native Amplifier hook module: hookgate's policies on ``tool:pre`` and ``tool:post``.

Installed with hookgate, it is the Amplifier module ``hooks-hookgate`` (an ``amplifier.modules``
entry point): mount it from a bundle with ``hooks: - module: hooks-hookgate`` and optional
config ``policies: [paths]``, ``failure_policy: open|closed``, ``priority: int``. Each
event is evaluated by the same engine and the same policy sources as ``hookgate eval``
(``policies`` if configured, else the pulled bundle, else the default pack) and the decision is
rendered as Amplifier's ``HookResult``: ``deny`` (with the reason the model sees),
``inject_context``, or ``continue``. An ask becomes a deny saying approval is required and a
rewrite a deny naming the input to retry with, because Amplifier's orchestrator does not apply a
``tool:pre`` modification (see ``hookgate.hostio.render``).

``amplifier_core`` is imported only when a result is built, and only if it is installed;
otherwise :class:`HookResult` below (the same fields and defaults) is returned, which Amplifier's
registry reads the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__amplifier_module_type__ = "hook"

EVENTS = ("tool:pre", "tool:post")
MAX_CONTEXT = 10_000  # Amplifier caps one injection at 10 KB


@dataclass
class HookResult:
    """Amplifier's ``HookResult`` fields and defaults, for when amplifier_core is absent."""

    action: str = "continue"
    data: dict | None = None
    reason: str | None = None
    context_injection: str | None = None
    context_injection_role: str = "system"
    ephemeral: bool = False
    approval_prompt: str | None = None
    approval_options: list[str] | None = None
    approval_timeout: float = 300.0
    approval_default: str = "deny"
    suppress_output: bool = False
    user_message: str | None = None
    user_message_level: str = "info"
    user_message_source: str | None = None
    append_to_last_tool_result: bool = False


def evaluate_event(
    event: str,
    data: dict,
    policies: list[str] | None = None,
    failure: str | None = None,
) -> Any:
    """Evaluate one Amplifier event and return its hook result. Never raises: an internal error
    is recorded in telemetry and answered by the failure policy (``continue`` when open)."""
    try:
        return _evaluate(event, data, policies, failure)
    except Exception as exc:
        from hookgate import telemetry

        message = f"{type(exc).__name__}: {exc}"
        telemetry.record(
            "error", kind="fault", source="internal", host="amplifier", message=message
        )
        if failure == "closed":
            return _result(
                action="deny", reason=f"hookgate could not evaluate this call ({message})"
            )
        return _result()


def _evaluate(event: str, data: dict, policies: list[str] | None, failure: str | None) -> Any:
    from hookgate import decisionlog, telemetry
    from hookgate.active import local_engine

    engine, revision = local_engine(policies)
    decision = engine.evaluate({"event": event, "data": data}, "amplifier", failure=failure)
    for error in decision.errors:
        telemetry.record("error", host="amplifier", hook_event=decision.event, **error)
    decisionlog.append(decision, decision.input_document, revision)
    rendered = decision.render("amplifier")
    if "reason" in rendered:
        return _result(action="deny", reason=rendered["reason"])
    if rendered.get("contextInjection"):
        return _result(
            action="inject_context", context_injection=rendered["contextInjection"][:MAX_CONTEXT]
        )
    return _result()


def _result(**fields: Any) -> Any:
    try:
        from amplifier_core.models import HookResult as NativeResult
    except ImportError:
        return HookResult(**fields)
    return NativeResult(**fields)


class HookgateHook:
    """The handler Amplifier calls: ``await hook(event, data) -> HookResult``."""

    def __init__(self, policies: list[str] | None = None, failure: str | None = None) -> None:
        self.policies = policies
        self.failure = failure

    async def __call__(self, event: str, data: dict) -> Any:
        return evaluate_event(event, data, self.policies, self.failure)


async def mount(coordinator: Any, config: dict | None = None) -> Callable[[], None]:
    """Amplifier's module entry point: register the hook on ``tool:pre`` and ``tool:post``;
    returns the cleanup that unregisters it."""
    config = config or {}
    hook = HookgateHook(config.get("policies"), config.get("failure_policy"))
    priority = int(config.get("priority", 0))
    unregister = [
        coordinator.hooks.register(event, hook, priority=priority, name="hookgate")
        for event in EVENTS
    ]

    def cleanup() -> None:
        for undo in unregister:
            if callable(undo):
                undo()

    return cleanup
