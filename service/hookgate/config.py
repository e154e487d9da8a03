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
