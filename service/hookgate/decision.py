"""The outcome of evaluating one hook event, and its rendering for a host.

A ``Decision`` carries everything the renderer needs (the canonical event, the host's spelling
of it, the host), so rendering never goes back to the payload or to ``normalize``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from hookgate.hostio import hosts
from hookgate.hostio.render import Response, respond

OUTCOMES: tuple[str, ...] = ("deny", "ask", "rewrite", "allow")

__all__ = ["OUTCOMES", "Decision", "Response"]


@dataclass
class Decision:
    """deny | ask | rewrite | allow, with why (``reasons``, each ending in its
    ``[pack=…, pattern=…]`` provenance), text for the agent (``context``), the complete
    rewritten tool input (``updated_input``, set exactly when the outcome is rewrite), which
    rules matched (``matches``: ``{pack, pattern, rule}``) and ``errors`` (non-empty: the
    evaluation failed and the failure policy applied)."""

    outcome: str
    reasons: list[str] = field(default_factory=list)
    context: list[str] = field(default_factory=list)
    updated_input: dict | None = None
    matches: list[dict] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    event: str = hosts.PRE_TOOL_USE  # canonical
    host_event: str | None = None  # the host's spelling of the event, when it gave one
    host: str = hosts.CLAUDE
    tool_name: str | None = None
    # With explain: where the policies came from, each rule queried and its value, print output.
    explain: dict | None = None
    # The input document the policies saw (for the decision log); not part of the response.
    input_document: dict | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}, not {self.outcome!r}")
        if self.outcome == "rewrite" and not isinstance(self.updated_input, dict):
            raise ValueError("a rewrite needs updated_input, the complete tool input object")
        if self.outcome != "rewrite" and self.updated_input is not None:
            raise ValueError(f"updated_input is only for rewrite, not {self.outcome}")

    @classmethod
    def failure(
        cls,
        kind: str,
        message: str,
        closed: bool,
        event: str = hosts.PRE_TOOL_USE,
        host: str | None = None,
        host_event: str | None = None,
        tool_name: str | None = None,
    ) -> Decision:
        """The decision when evaluation failed (``kind``: payload, policy, timeout, …;
        ``message`` must not hold payload content). Fail-open allows and records the error;
        fail-closed denies with a reason naming the failure. ``host`` None (an unreadable
        payload does not say who sent it) renders for Claude Code."""
        error = f"{kind}: {message}"
        reasons = []
        if closed:
            reasons.append(
                f"hookgate could not evaluate this call ({error}) and the failure policy for "
                f"{event} is closed [pack=hookgate, pattern=failure-policy]"
            )
        return cls(
            outcome="deny" if closed else "allow",
            reasons=reasons,
            errors=[error],
            event=event,
            host_event=host_event,
            host=host or hosts.CLAUDE,
            tool_name=tool_name,
        )

    def to_dict(self) -> dict:
        """Every field as plain JSON data (for --explain, the decision log and the server)."""
        return dataclasses.asdict(self)

    def response(self, host: str | None = None) -> Response:
        """stdout, exit code and stderr for ``host`` (default: ``self.host``)."""
        return respond(self, host)

    def render(self, host: str | None = None) -> dict:
        """The JSON object to write on stdout for ``host`` (default: ``self.host``)."""
        stdout = respond(self, host).stdout
        return {} if stdout is None else stdout
