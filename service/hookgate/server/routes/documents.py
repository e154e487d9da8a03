"""``/v1/policies`` and ``/v1/data``: the team layer's documents as immutable revisions, with
ETags, history and rollback. Both kinds share every route; only the body's media type differs,
so ``add_routes`` is called once per kind. ``/v1/base`` (``add_base_routes``) says which base
layer the set composes, with its history; a change set (``publish``) replaces or restores it."""

from functools import partial
from typing import Annotated, Any

import anyio.from_thread
from fastapi import Depends, FastAPI, Header, Path, Query, Response
from fastapi.concurrency import run_in_threadpool

from hookgate import layers, packcheck
from hookgate.server import models as api
from hookgate.server.auth import Editor, Viewer
from hookgate.server.compilation import check_in_workers, owner
from hookgate.server.deps import data_path, policy_id
from hookgate.server.responses import revision_out
from hookgate.server.store import (
    BASE_KIND,
    Principal,
    Revision,
    Store,
    Validator,
    same_as_base,
    unread_settings,
)
from hookgate.server.workers import SET_LIMITS, WorkerPool

IfMatch = Annotated[
    str | None,
    Header(description="The ETag you read (or *); required to change an existing document"),
]
Message = Annotated[str, Query(max_length=2000, description="Why; kept with the revision")]
_CHANGE_ERRORS: dict = {
    409: {"model": api.ErrorOut, "description": "Another change landed while it was checked."},
    412: {"model": api.ErrorOut, "description": "If-Match is stale: read it again."},
    428: {"model": api.ErrorOut, "description": "If-Match is required to change it."},
}


def validator(app: FastAPI) -> Validator:
    """The check of a change's would-be set every document change runs (and a promotion)."""
    workers: WorkerPool = app.state.workers

    def validate(policies: dict[str, str], data: dict) -> None:
        # Compiles the set (PolicyError: 422 with diagnostics), then runs its packs' tests and
        # smoke payloads (PackCheckError: 422 naming the failing pack and input), both in the
        # worker pool (a change's policies are user-supplied code), before the change's write
        # transaction (``Store.change``).
        found = anyio.from_thread.run(pack_problems, workers, policies, data)
        if found:
            raise packcheck.PackCheckError(found)

    return validate


def add_routes(app: FastAPI, kind: str, base: str, param: str, content: Any) -> None:
    """GET/PUT/DELETE, list, revisions and rollback of one kind of document; policies and data
    share everything but the body's media type."""
    store: Store = app.state.store
    item = f"{base}/{param}"
    tags = ["policies" if kind == "policy" else "data"]
    Key = Annotated[str, Depends(policy_id if kind == "policy" else data_path)]
    if kind == "policy":
        media = {"text/plain": {"schema": {"type": "string"}, "example": api.POLICY_EXAMPLE}}
    else:
        media = {
            "application/json": {
                "schema": {},
                "example": {"protected_branches": ["main", "release/*"]},
            }
        }
    body_doc = {"requestBody": {"required": True, "content": media}}

    workers: WorkerPool = app.state.workers
    validate = validator(app)

    async def change(key: str, principal: Principal, **kwargs: Any) -> Revision | None:
        # A change past the token's share waits its turn (in the bounded queue) rather than
        # being refused: editors racing on one document get the If-Match answer (412/428),
        # read after the turn came, without compiling anything.
        async with workers.admitted(owner(principal), wait=True):
            return await run_in_threadpool(
                partial(store.change, kind, key, author=principal.name, validate=validate),
                **kwargs,
            )

    def etag_response(revision: Revision | None, response: Response, key: str = "") -> dict:
        if revision is None:  # the base's own content: nothing written (``Store.change``)
            return {"id": key, "unchanged": True, "message": same_as_base(kind, key)}
        response.headers["ETag"] = revision.etag
        return revision_out(revision)

    @app.get(
        base,
        tags=tags,
        summary=f"List the current {kind} documents (without content)",
        response_model=api.RevisionList,
    )
    def list_documents(_: Viewer) -> dict:
        return {"revisions": [revision_out(r, False) for r in store.list(kind)]}

    @app.get(
        f"{item}/revisions",
        tags=tags,
        summary="Every revision, oldest first",
        response_model=api.RevisionList,
    )
    def list_revisions(_: Viewer, key: Key) -> dict:
        found = store.revisions(kind, key)
        return {"revisions": [revision_out(r) for r in found]}

    @app.get(
        f"{item}/revisions/{{number}}",
        tags=tags,
        summary="One revision",
        response_model=api.RevisionOut,
    )
    def get_revision(
        _: Viewer, key: Key, number: Annotated[int, Path(ge=1, le=api.MAX_INT)]
    ) -> dict:
        return revision_out(store.revision(kind, key, number))

    @app.post(
        f"{item}/rollback",
        tags=tags,
        summary="Make an earlier revision's content current again (a new revision)",
        response_model=api.RevisionOut | api.UnchangedOut,
        responses=_CHANGE_ERRORS,
    )
    async def rollback(
        principal: Editor,
        response: Response,
        body: api.RollbackIn,
        key: Key,
        if_match: IfMatch = None,
    ) -> dict:
        message = body.message or f"rollback to revision {body.revision}"
        revision = await change(
            key,
            principal,
            content=None,
            if_match=if_match,
            message=message,
            rollback_to=body.revision,
        )
        return etag_response(revision, response, key)

    @app.get(
        item,
        tags=tags,
        summary="The current content, with its ETag",
        response_model=api.RevisionOut,
    )
    def get_document(_: Viewer, response: Response, key: Key) -> dict:
        return etag_response(store.get(kind, key), response)

    @app.put(
        item,
        tags=tags,
        summary="Create, or change with If-Match",
        response_model=api.RevisionOut | api.UnchangedOut,
        openapi_extra=body_doc,
        responses={201: {"model": api.RevisionOut}, **_CHANGE_ERRORS},
    )
    async def put_document(
        principal: Editor,
        response: Response,
        key: Key,
        text: Annotated[str, Depends(content)],
        message: Message = "",
        if_match: IfMatch = None,
    ) -> dict:
        revision = await change(key, principal, content=text, if_match=if_match, message=message)
        response.status_code = 201 if revision is not None and revision.number == 1 else 200
        answer = etag_response(revision, response, key)
        if kind == "data" and revision is not None and revision.content is not None:
            active = await run_in_threadpool(store.active_set)
            answer["warnings"] = unread_settings(active, key)
        return answer

    @app.delete(
        item,
        tags=tags,
        summary="Delete with If-Match (a new revision; the history stays)",
        response_model=api.RevisionOut,
        responses=_CHANGE_ERRORS,
    )
    async def delete_document(
        principal: Editor, key: Key, message: Message = "", if_match: IfMatch = None
    ) -> dict:
        revision = await change(key, principal, content=None, if_match=if_match, message=message)
        return revision_out(revision)


async def pack_problems(workers: WorkerPool, policies: dict[str, str], data: dict) -> list[dict]:
    """A change's check in the worker pool (its request is admitted already): ``PolicyError``
    when the set does not compile, else its packs' problems."""
    await check_in_workers(workers, policies, data, None)
    return await workers.run(packcheck.problems, policies, data, limits=SET_LIMITS)


def add_base_routes(app: FastAPI) -> None:
    """``GET /v1/base`` and ``GET /v1/base/revisions``: the base layer the active set composes
    (the built-in pack's version, or replaced) and every change of it (seed, upgrades of the
    server's hookgate, publishes that replaced or restored it)."""
    store: Store = app.state.store

    @app.get(
        "/v1/base",
        tags=["policies"],
        summary="The base layer under the team's documents: its version, or replaced",
        response_model=api.BaseOut,
    )
    def get_base(_: Viewer) -> dict:
        head = store.head(BASE_KIND, layers.BASE_NAME)
        version = None if head is None else head.content
        pack = layers.server_base()[0]
        return {
            "name": layers.BASE_NAME,
            "version": version,
            "replaced": version is None,
            "guards": sorted(layers.guard_names(pack)),
            "revision": 0 if head is None else head.number,
        }

    @app.get(
        "/v1/base/revisions",
        tags=["policies"],
        summary="Every revision of the base layer, oldest first (content: its version)",
        response_model=api.RevisionList,
    )
    def base_revisions(_: Viewer) -> dict:
        found = store.revisions(BASE_KIND, layers.BASE_NAME)
        return {"revisions": [revision_out(r) for r in found]}
