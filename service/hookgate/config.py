"""The failure policy: what a hook answers when hookgate itself fails.

Each event is ``open`` (answer "no opinion" and record the failure; the default for PreToolUse
and PostToolUse) or ``closed`` (deny, naming the failure). Set it with ``--failure-policy`` on
``hookgate eval`` (the event being evaluated), or ``$HOOKGATE_FAILURE_POLICY`` as either one
value for every event (``closed``) or per event (``PreToolUse=closed,PostToolUse=open``).

In managed mode (``hookgate.anchors``) the managed configuration's ``failure_policy`` takes the
environment's place: the agent's user sets the environment. A managed configuration that cannot
be trusted makes every event ``closed``.
"""

from __future__ import annotations

import os

from hookgate import anchors

DEFAULT = "open"
VALUES = ("open", "closed")


class ConfigError(ValueError):
    pass


def parse_failure_policy(text: str) -> dict[str, str]:
    """``"closed"`` → ``{"*": "closed"}``; ``"PreToolUse=closed"`` → ``{"PreToolUse": "closed"}``."""
    policy: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        event, _, value = item.rpartition("=")
        value = value.strip().lower()
        if value not in VALUES:
            raise ConfigError(f"failure policy {item!r}: expected open or closed")
        policy[event.strip() or "*"] = value
    return policy


def failure_policy(event: str | None, override: str | None = None) -> str:
    """The failure policy for ``event``: the explicit ``override`` first, then the environment,
    then the default. A malformed setting raises ``ConfigError``."""
    if override:
        return parse_failure_policy(override).get("*", DEFAULT)
    setting = os.environ.get("HOOKGATE_FAILURE_POLICY", "")
    if anchors.present():
        try:
            managed = anchors.load()
        except anchors.AnchorError:
            return "closed"
        setting = (managed.failure_policy if managed is not None else None) or ""
    configured = parse_failure_policy(setting)
    return configured.get(event or "", configured.get("*", DEFAULT))


# --- limits the hook's process itself keeps -------------------------------------------------
#
# A limit is a failure the agent can cause (a bound reached judging what it sent, a FIFO or a
# link planted where hookgate reads a file, a dependency it deleted or edited): it never fails
# open. The policies' ``data.hookgate.config.limits.action`` says what a limit answers once they
# are loaded; these settings hold before (or without) them and for the whole process.

DEFAULT_DEADLINE = 10.0  # seconds; the hosts' hook timeouts are 30 s (Copilot, Claude's
# UserPromptSubmit) to 600 s, and every host goes on without the hook once it times out
MIN_DEADLINE, MAX_DEADLINE = 0.5, 25.0


def deadline_seconds() -> float:
    """``$HOOKGATE_DEADLINE``: the seconds after which the hook answers the limit action,
    whatever it is doing (default 10). Out of 0.5-25 or malformed: the default, since a hook
    that waits past its host's timeout is switched off, and the limit must not be loosened by
    a typo."""
    value = os.environ.get("HOOKGATE_DEADLINE")
    if not value:
        return DEFAULT_DEADLINE
    try:
        seconds = float(value)
    except ValueError:
        return DEFAULT_DEADLINE
    return seconds if MIN_DEADLINE <= seconds <= MAX_DEADLINE else DEFAULT_DEADLINE


def limit_action(policy_action: str | None = None) -> str:
    """What a limit answers: ``deny`` when ``$HOOKGATE_LIMIT_ACTION`` or the policies'
    ``limits.action`` (``policy_action``) says deny, else ``ask``. The stricter one wins, so
    the setting outside the policies holds for limits reached before they load."""
    configured = os.environ.get("HOOKGATE_LIMIT_ACTION", "").strip().lower()
    return "deny" if "deny" in (configured, policy_action) else "ask"
