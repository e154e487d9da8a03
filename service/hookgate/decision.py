"""The outcome of evaluating one hook event, and its rendering for a host.

A ``Decision`` carries everything the renderer needs (the canonical event, the host's spelling
of it, the host), so rendering never goes back to the payload or to ``normalize``.
"""

from __future__ import annotations

from hookgate.hostio import hosts
from hookgate.hostio.render import Response, respond
from hookgate.records import Record, fields

OUTCOMES: tuple[str, ...] = ("deny", "ask", "rewrite", "allow")

__all__ = ["OUTCOMES", "Decision", "Response"]


class Decision(Record):
    """deny | ask | rewrite | allow, with why (``reasons``, each ending in its
    ``[pack=…, pattern=…]`` provenance), text for the agent (``context``), the complete
    rewritten tool input (``updated_input``, set exactly when the outcome is rewrite), which
    rules matched (``matches``: ``{pack, pattern, rule}``) and ``errors``: what failed, each
    ``{kind, source, pack, limit, message}``. ``kind`` is ``fault`` (hookgate or its host
    failed: the failure policy applied) or ``limit`` (a bound reached judging agent-controlled
    content, ``limit`` naming it: the limit action, ask or deny, applied); ``pack`` names the
    guard pack that failed alone (None: the whole evaluation failed).

    A ``Record`` rather than a dataclass: importing ``dataclasses`` costs a hook call more
    than building its decision.
    """

    __slots__ = (
        "outcome",
        "reasons",
        "context",
        "updated_input",
        "matches",
        "errors",
        "event",
        "host_event",
        "host",
        "tool_name",
        "explain",
        "input_document",
        "would",
    )

    def __init__(
        self,
        outcome: str,
        reasons: list[str] | None = None,
        context: list[str] | None = None,
        updated_input: dict | None = None,
        matches: list[dict] | None = None,
        errors: list[dict] | None = None,
        event: str = hosts.PRE_TOOL_USE,  # canonical
        host_event: str | None = None,  # the host's spelling of the event, when it gave one
        host: str = hosts.CLAUDE,
        tool_name: str | None = None,
        # With explain: where the policies came from, each rule queried and its value, print
        # output.
        explain: dict | None = None,
        # The input document the policies saw (for the decision log); not part of the response.
        input_document: dict | None = None,
        # What guards in warn or audit mode would have answered instead (``hookgate.modes``),
        # each ``{would, mode, guard, pack, pattern, reason, rewrite}``: kept apart from the
        # outcome, which they did not decide.
        would: list[dict] | None = None,
    ) -> None:
        if outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}, not {outcome!r}")
        if outcome == "rewrite" and not isinstance(updated_input, dict):
            raise ValueError("a rewrite needs updated_input, the complete tool input object")
        if outcome != "rewrite" and updated_input is not None:
            raise ValueError(f"updated_input is only for rewrite, not {outcome}")
        self.outcome = outcome
        self.reasons = [] if reasons is None else reasons
        self.context = [] if context is None else context
        self.updated_input = updated_input
        self.matches = [] if matches is None else matches
        self.errors = [] if errors is None else errors
        self.event = event
        self.host_event = host_event
        self.host = host
        self.tool_name = tool_name
        self.explain = explain
        self.input_document = input_document
        self.would = [] if would is None else would

    _hidden = ("input_document",)

    @classmethod
    def failure(
        cls,
        source: str,
        message: str,
        closed: bool,
        event: str = hosts.PRE_TOOL_USE,
        host: str | None = None,
        host_event: str | None = None,
        tool_name: str | None = None,
    ) -> Decision:
        """The decision when the whole evaluation failed on a fault (``source``: payload,
        policy, internal, …; ``message`` must not hold payload content). Fail-open allows and
        records the error; fail-closed denies with a reason naming the failure. ``host`` None
        (an unreadable payload does not say who sent it) renders for Claude Code."""
        error = f"{source}: {message}"
        reasons = []
        if closed:
            reasons.append(
                f"hookgate could not evaluate this call ({error}) and the failure policy for "
                f"{event} is closed [pack=hookgate, pattern=failure-policy]"
            )
        return cls(
            outcome="deny" if closed else "allow",
            reasons=reasons,
            errors=[
                {"kind": "fault", "source": source, "pack": None, "limit": None, "message": message}
            ],
            event=event,
            host_event=host_event,
            host=host or hosts.CLAUDE,
            tool_name=tool_name,
        )

    def error_lines(self) -> list[str]:
        """Each error as one line: ``[pack=…] source: message``, then ``(limit: …)`` for a
        limit."""
        return [error_line(error) for error in self.errors]

    def to_dict(self) -> dict:
        """Every field as plain JSON data (for --explain, the decision log and the server),
        except the input document: it is the payload's content and is never echoed."""
        import copy

        data = fields(self)
        data.pop("input_document", None)
        return copy.deepcopy(data)

    def response(self, host: str | None = None) -> Response:
        """stdout, exit code and stderr for ``host`` (default: ``self.host``)."""
        return respond(self, host)

    def render(self, host: str | None = None) -> dict:
        """The JSON object to write on stdout for ``host`` (default: ``self.host``)."""
        stdout = respond(self, host).stdout
        return {} if stdout is None else stdout


def error_line(error: dict) -> str:
    """One ``errors`` entry as text for stderr and logs."""
    where = f"[pack={error['pack']}] " if error.get("pack") else ""
    limit = f" (limit: {error['limit']})" if error.get("kind") == "limit" else ""
    return f"{where}{error['source']}: {error['message']}{limit}"
