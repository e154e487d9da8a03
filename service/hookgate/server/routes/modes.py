"""``/v1/modes``: the set's guard modes (``hookgate.modes``) with what guards not enforced would
have answered, per day, and the one-call promotion of a guard audit → warn → enforce, an
ordinary change of the team's data document (a revision, checked as any ``PUT`` is, in the
document's history)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Literal

from fastapi import FastAPI, Query
from pydantic import BaseModel, Field

from hookgate import layers, modes
from hookgate.server.auth import Editor, Viewer
from hookgate.server.deps import invalid
from hookgate.server.responses import revision_out
from hookgate.server.store import Revision, Store, Validator, canonical_json

# Where a promotion writes: the deepest team document that holds the modes (a deeper document
# overrides a shallower one, so editing the shallower would change nothing).
_DOCUMENTS = (("hookgate/modes", ()), ("hookgate", ("modes",)))


class PromoteIn(BaseModel):
    guard: str = Field(max_length=255, pattern=r"^[A-Za-z0-9_.]+$")
    pattern: str | None = Field(None, max_length=255, description="One pattern of the guard.")
    mode: Literal["warn", "enforce"] = Field(description="Stricter than its mode now.")
    message: str = Field("", max_length=2000)


def add_routes(app: FastAPI, validate: Validator) -> None:
    store: Store = app.state.store

    @app.get("/v1/modes", tags=["modes"], summary="Guard modes, and would-be answers per day")
    def get_modes(
        _: Viewer,
        since: Annotated[datetime | None, Query(description="Decision time ≥ this")] = None,
        until: Annotated[datetime | None, Query(description="Decision time < this")] = None,
    ) -> dict:
        active = store.active_set()
        return {
            "modes": modes.table(active.data),
            "guards": sorted(layers.guard_names(active.policies) - modes.UNMODAL),
            "days": store.would_per_day(since=since, until=until),
        }

    @app.post(
        "/v1/modes/promote",
        tags=["modes"],
        summary="Make a guard (or pattern) stricter: audit → warn → enforce, as a new revision",
    )
    def promote_route(principal: Editor, body: PromoteIn) -> dict:
        try:
            revision, was = promote(
                store, validate, body.guard, body.pattern, body.mode, principal.name, body.message
            )
        except NotAPromotion as exc:
            raise invalid(exc.field, str(exc)) from None
        key = body.guard + (f"/{body.pattern}" if body.pattern else "")
        return {"key": key, "was": was, "mode": body.mode, "revision": revision_out(revision)}


class NotAPromotion(ValueError):
    """A promotion refused before anything is written, naming the request's field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def promote(
    store: Store,
    validate: Validator,
    guard: str,
    pattern: str | None,
    mode: str,
    author: str,
    message: str,
) -> tuple[Revision, str]:
    """Set ``guard`` (or its ``pattern``) to ``mode``, stricter than the mode it has, in the
    team document that holds the modes: an ordinary change (``Store.change``: the write lock,
    the set checked by ``validate``, a revision in the document's history). The API and the
    console both call this. Returns the revision and the mode it had."""
    key = guard + (f"/{pattern}" if pattern else "")
    active = store.active_set()
    if guard not in layers.guard_names(active.policies) - modes.UNMODAL:
        raise NotAPromotion("body.guard", f"{guard} is no guard of the set with a mode")
    was = modes.effective(modes.table(active.data), key)
    if mode not in modes.STRENGTH or modes.STRENGTH[mode] >= modes.STRENGTH[was]:
        raise NotAPromotion(
            "body.mode",
            f"{key} is in {was} mode: a promotion makes it stricter (audit → warn → enforce); "
            "relax a guard by publishing the layer (a built-in one with --allow-weaker)",
        )
    path, at = next((found for found in _DOCUMENTS if found[0] in active.documents), _DOCUMENTS[-1])
    document = json.loads(json.dumps(active.documents.get(path) or {}))
    table = document
    for name in at:
        table = table.setdefault(name, {})
    table[key] = mode
    head = store.head("data", path)
    revision = store.change(
        "data",
        path,
        content=canonical_json(document),
        if_match=head.etag if head is not None and head.content is not None else None,
        author=author,
        message=message or f"promote {key}: {was} → {mode}",
        validate=validate,
    )
    assert revision is not None  # a document with a mode in it is never the base's own
    return revision, was
