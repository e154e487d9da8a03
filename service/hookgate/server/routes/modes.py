"""``/v1/modes``: the set's guard modes (``hookgate.modes``) with what guards not enforced would
have answered, per day, and the one-call promotion of a guard audit → warn → enforce, an
ordinary change of the team's data document: its impact on recorded decisions measured first
(``POST /v1/impact``'s replay) and refused as ``hookgate publish`` refuses a weaker change,
then a revision checked as any ``PUT`` is, in the document's history."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal

import anyio.to_thread
from fastapi import FastAPI, Query, Request
from pydantic import BaseModel, Field

from hookgate import layers, modes
from hookgate.impact import weakening
from hookgate.server.auth import Editor, Viewer, sees_recorded
from hookgate.server.compilation import owner
from hookgate.server.deps import invalid
from hookgate.server.impact import MAX_RECORDS, ImpactIn, measure
from hookgate.server.responses import revision_out
from hookgate.server.store import Revision, Store, Validator, canonical_json
from hookgate.server.workers import WorkerPool

# Where a promotion writes: the deepest team document that holds the modes (a deeper document
# overrides a shallower one, so editing the shallower would change nothing).
_DOCUMENTS = (("hookgate/modes", ()), ("hookgate", ("modes",)))


class PromoteIn(BaseModel):
    guard: str = Field(max_length=255, pattern=r"^[A-Za-z0-9_.]+$")
    pattern: str | None = Field(None, max_length=255, description="One pattern of the guard.")
    mode: Literal["warn", "enforce"] = Field(description="Stricter than its mode now.")
    message: str = Field("", max_length=2000)
    impact_limit: int = Field(
        1000, ge=1, le=MAX_RECORDS, description="The impact replays the newest N records."
    )


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
        summary="Make a guard (or pattern) stricter: audit → warn → enforce, as a new revision, "
        "with its impact on recorded decisions",
    )
    async def promote_route(principal: Editor, request: Request, body: PromoteIn) -> dict:
        try:
            revision, was, report = await promote(
                store,
                app.state.workers,
                validate,
                Promotion(body.guard, body.pattern, body.mode),
                owner=owner(principal),
                author=principal.name,
                message=body.message,
                limit=body.impact_limit,
                examples=sees_recorded(request, principal),
            )
        except NotAPromotion as exc:
            raise invalid(exc.field, str(exc)) from None
        return {
            "key": Promotion(body.guard, body.pattern, body.mode).key,
            "was": was,
            "mode": body.mode,
            "revision": revision_out(revision),
            "impact": report,
        }


class NotAPromotion(ValueError):
    """A promotion refused before anything is written, naming the request's field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Promotion:
    """What is asked: ``guard`` (or its ``pattern``) to ``mode``."""

    guard: str
    pattern: str | None
    mode: str

    @property
    def key(self) -> str:
        return self.guard + (f"/{self.pattern}" if self.pattern else "")


@dataclass(frozen=True)
class _Draft:
    active: Any  # the active set the promotion was drafted over, and its impact measured on
    was: str
    path: str
    document: dict
    etag: str | None  # the document's as drafted: the write is refused if it changed since


def _draft(store: Store, asked: Promotion) -> _Draft:
    active = store.active_set()
    if asked.guard not in layers.guard_names(active.policies) - modes.UNMODAL:
        raise NotAPromotion("body.guard", f"{asked.guard} is no guard of the set with a mode")
    was = modes.effective(modes.table(active.data), asked.key)
    if asked.mode not in modes.STRENGTH or modes.STRENGTH[asked.mode] >= modes.STRENGTH[was]:
        raise NotAPromotion(
            "body.mode",
            f"{asked.key} is in {was} mode: a promotion makes it stricter (audit → warn → "
            "enforce); relax a guard by publishing the layer (a built-in one with --allow-weaker)",
        )
    path, at = next((found for found in _DOCUMENTS if found[0] in active.documents), _DOCUMENTS[-1])
    document = json.loads(json.dumps(active.documents.get(path) or {}))
    table = document
    for name in at:
        table = table.setdefault(name, {})
    table[asked.key] = asked.mode
    head = store.head("data", path)
    etag = head.etag if head is not None and head.content is not None else None
    return _Draft(active, was, path, document, etag)


async def promote(
    store: Store,
    workers: WorkerPool,
    validate: Validator,
    asked: Promotion,
    *,
    owner: object,
    author: str,
    message: str,
    limit: int,
    examples: bool,
) -> tuple[Revision, str, dict]:
    """Set ``asked.guard`` (or its pattern) to ``asked.mode``, stricter than the mode it has,
    in the team document that holds the modes. First the impact of the change on the newest
    ``limit`` recorded decisions (``server.impact.measure``), refused as a weaker change is
    (a recorded deny or ask becoming an allow); then an ordinary change (``Store.change``:
    the write lock, the set checked by ``validate``, a revision in the document's history),
    refused if the document changed since the impact was measured. The API and the console
    both call this. Returns the revision, the mode it had and the impact report (its examples
    only for who may read recorded inputs: ``examples``); the replay counts against
    ``owner``'s share of the worker pool."""
    draft = await anyio.to_thread.run_sync(_draft, store, asked)
    body = ImpactIn(data={draft.path: draft.document}, limit=limit)
    report = await measure(store, workers, owner, draft.active, body)
    weaker = weakening(report["transitions"])
    if weaker:
        how = ", ".join(f"{name}: {n}" for name, n in weaker.items())
        raise NotAPromotion(
            "body.mode",
            f"promoting {asked.key} to {asked.mode} would turn {sum(weaker.values())} recorded "
            f"decisions into allows ({how}); nothing was changed",
        )
    if not examples:
        report["examples"] = []

    def write() -> Revision | None:
        return store.change(
            "data",
            draft.path,
            content=canonical_json(draft.document),
            if_match=draft.etag,
            author=author,
            message=message or f"promote {asked.key}: {draft.was} → {asked.mode}",
            validate=validate,
        )

    revision = await anyio.to_thread.run_sync(write)
    assert revision is not None  # a document with a mode in it is never the base's own
    return revision, draft.was, report
