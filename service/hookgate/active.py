"""Which policies this machine's hooks run: the paths given, else the last good pulled bundle,
else the built-in default pack.

Above the engine and the bundle client (``sync``), so that the engine knows nothing of where
its policies come from. On the hook's hot path: the bundle client is imported only when no
paths are given.

In managed mode (``hookgate.anchors``) the bundle and the compile cache are root's, and the
managed configuration's limit action overrides the policies' own. A managed configuration that
is present but cannot be trusted gives an engine that answers every call with the limit action
(ask), naming the reason: never a fail-open allow, never a silent fall back to the user's files.
"""

from __future__ import annotations

from hookgate import anchors
from hookgate.engine import Engine

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from hookgate.decision import Decision


def local_engine(
    policies: list[str] | None = None, *, base: bool = True
) -> tuple[Engine | UntrustedAnchors, int | None]:
    """The engine this machine's hooks use: ``policies`` if given (layers over the built-in
    pack, or alone when ``base`` is false: ``--no-default-pack``), else the last good pulled
    bundle (starting a background refresh when it is stale), else the built-in default pack.
    Returns the engine and the bundle revision it came from (None if none)."""
    managed = None
    if anchors.present():
        try:
            managed = anchors.load()
        except anchors.AnchorError as exc:
            return UntrustedAnchors(str(exc)), None
    engine, revision = _engine(policies, base)
    if managed is not None and managed.limit_action:
        engine.limit_action = managed.limit_action
    return engine, revision


def _engine(policies: list[str] | None, base: bool = True) -> tuple[Engine, int | None]:
    from hookgate import sync
    from hookgate.paths import compiled_dir
    from hookgate.sources import default_pack_path

    compiled = compiled_dir()
    if policies and base:
        return Engine.from_layers(policies, cache_dir=compiled), None
    if policies:
        return Engine.from_paths(policies, cache_dir=compiled), None
    bundle = sync.active_bundle()
    sync.refresh_if_stale(bundle)
    if bundle is not None:
        origin = f"bundle revision {bundle.revision}"
        engine = Engine.from_sources(
            bundle.policies, bundle.data, cache_dir=compiled, origin=origin
        )
        return engine, bundle.revision
    pack = [default_pack_path()]
    return Engine.from_paths(pack, cache_dir=compiled, origin="default pack"), None


class UntrustedAnchors:
    """In place of an engine when the managed configuration cannot be trusted: every call
    answers the limit action, ``ask`` (the configuration that could have chosen ``deny`` is
    the one that cannot be read), with the reason; a payload it cannot read is denied."""

    limit_action = "ask"
    origin = "untrusted managed configuration"

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def evaluate(
        self,
        payload: Mapping | str | bytes,
        host: str | None = None,
        *,
        facts: Mapping | None = None,
        explain: bool = False,
        failure: str | None = None,
    ) -> Decision:
        from hookgate.decision import Decision
        from hookgate.hostio.normalize import PayloadError, normalize

        try:
            hook_input = normalize(payload, host or "auto")
        except PayloadError as exc:
            return Decision.failure("payload", str(exc), True, host=host)
        error = {
            "kind": "limit",
            "source": "managed_config",
            "pack": None,
            "limit": "managed-config",
            "message": self.reason,
        }
        reason = (
            f"hookgate's managed configuration cannot be trusted ({self.reason}), so this call "
            "cannot be checked and is asked about [pack=hookgate, pattern=limit-managed-config]"
        )
        match = {"pack": "hookgate", "pattern": "limit-managed-config", "rule": "ask"}
        decision = Decision(
            outcome="ask",
            reasons=[reason],
            matches=[match],
            errors=[error],
            event=hook_input.event,
            host_event=hook_input.host_event,
            host=hook_input.host,
            tool_name=hook_input.tool_name,
        )
        decision.input_document = hook_input.document()
        if explain:
            decision.explain = {
                "origin": self.origin,
                "decided": "before the policies were evaluated: a limit",
                "limit": "managed-config",
                "file": anchors.CONFIG,
                "why": self.reason,
                "rules": [],
                "prints": [],
            }
        return decision

    def query(self, ref: str, input: object = None, data: Mapping | None = None) -> None:
        return None
