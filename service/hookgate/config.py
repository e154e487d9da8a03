"""The failure policy: what a hook answers when hookgate itself fails.

Each event is ``open`` (answer "no opinion" and record the failure; the default for PreToolUse
and PostToolUse) or ``closed`` (deny, naming the failure). Set it with ``--failure-policy`` on
``hookgate eval`` (the event being evaluated), or ``$HOOKGATE_FAILURE_POLICY`` as either one
value for every event (``closed``) or per event (``PreToolUse=closed,PostToolUse=open``).
"""

from __future__ import annotations

import os

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
    configured = parse_failure_policy(os.environ.get("HOOKGATE_FAILURE_POLICY", ""))
    return configured.get(event or "", configured.get("*", DEFAULT))
