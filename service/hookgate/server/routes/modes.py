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
from hookgate.server.store import Store, Validator, canonical_json

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
    def promote(principal: Editor, body: PromoteIn) -> dict:
        key = body.guard + (f"/{body.pattern}" if body.pattern else "")
        active = store.active_set()
        if body.guard not in layers.guard_names(active.policies) - modes.UNMODAL:
            raise invalid("body.guard", f"{body.guard} is no guard of the set with a mode")
        was = modes.effective(modes.table(active.data), key)
        if modes.STRENGTH[body.mode] >= modes.STRENGTH[was]:
            raise invalid(
                "body.mode",
                f"{key} is in {was} mode: a promotion makes it stricter (audit → warn → "
                "enforce); relax a guard by publishing the layer (a built-in one with "
                "--allow-weaker)",
            )
        path, at = next(
            (found for found in _DOCUMENTS if found[0] in active.documents), _DOCUMENTS[-1]
        )
        document = json.loads(json.dumps(active.documents.get(path) or {}))
        table = document
        for name in at:
            table = table.setdefault(name, {})
        table[key] = body.mode
        head = store.head("data", path)
        revision = store.change(
            "data",
            path,
            content=canonical_json(document),
            if_match=head.etag if head is not None and head.content is not None else None,
            author=principal.name,
            message=body.message or f"promote {key}: {was} → {body.mode}",
            validate=validate,
        )
        return {"key": key, "was": was, "mode": body.mode, "revision": revision_out(revision)}
