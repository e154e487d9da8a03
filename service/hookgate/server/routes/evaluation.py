"""``/v1/evaluate`` and ``/v1/check`` (viewer): dry-runs of the active set, with draft
policies and data laid over it, in the worker pool."""

from typing import Annotated, Any

from fastapi import Body, FastAPI, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from hookgate.server import dryrun
from hookgate.server import models as api
from hookgate.server.auth import Viewer
from hookgate.server.compilation import ActiveSets, owner, set_key
from hookgate.server.deps import check_depth, check_key
from hookgate.server.metrics import Metrics
from hookgate.server.responses import FastJSONResponse
from hookgate.server.store import ActiveSet, compose
from hookgate.server.workers import WorkerPool

# The response's decision: what EvaluateOut documents of a Decision (never its input document
# or explain trace, which have their own fields or none).
DECISION_FIELDS = tuple(api.DecisionOut.model_fields)
_DRY_RUN_ERRORS: dict = {
    429: {
        "model": api.ErrorOut,
        "description": "This token's evaluations, or the server's queue of them, are at their "
        "limit (`limit` names it; retry after `Retry-After` seconds).",
    },
    422: {
        "model": api.ErrorOut,
        "description": "Invalid request, drafts that do not compile, or a dry-run stopped at "
        "its CPU, wall-time or memory limit (`limit` names it).",
    },
}


def _with_drafts(
    active: ActiveSet, policies: dict[str, str | None] | None, data: dict[str, Any] | None
) -> tuple[dict[str, str], dict]:
    """The active set with draft policies and data documents laid over its team layer."""
    merged_policies = dict(active.layer)
    for key, text in (policies or {}).items():
        check_key("policy", key, f"body.policies.{key}")
        if text is None:
            merged_policies.pop(key, None)
        else:
            merged_policies[key] = text
    documents = dict(active.documents)
    for path, value in (data or {}).items():
        field = f"body.data.{path}"
        check_depth(check_key("data", path, field), value, field)
        documents[path] = value
    return compose(merged_policies, documents, base=active.base is not None)


def _draft_set(
    active: ActiveSet, key: str, body: api.EvaluateIn | api.CheckIn
) -> tuple[str, dict[str, str], dict]:
    """The policy set a dry-run evaluates, with its key: the active set, drafts laid over."""
    if body.policies is None and body.data is None:
        return key, active.policies, active.data
    policies, data = _with_drafts(active, body.policies, body.data)
    return set_key(policies, data), policies, data


def add_routes(app: FastAPI) -> None:
    metrics: Metrics = app.state.metrics
    active_sets: ActiveSets = app.state.active
    workers: WorkerPool = app.state.workers

    @app.post(
        "/v1/evaluate",
        tags=["dry-run"],
        summary="Evaluate a hook payload against the active set (and drafts)",
        response_model=api.EvaluateOut,
        responses=_DRY_RUN_ERRORS,
    )
    async def evaluate(
        principal: Viewer,
        body: Annotated[api.EvaluateIn, Body(openapi_examples=api.EVALUATE_EXAMPLES)],
    ) -> Response:
        active, key = await run_in_threadpool(active_sets.get)
        key, policies, data = _draft_set(active, key, body)
        request = body.model_dump(include={"payload", "host", "facts", "explain"})
        answer = await workers.run(
            dryrun.evaluate, key, policies, data, request, DECISION_FIELDS, owner=owner(principal)
        )
        if "diagnostics" in answer:
            detail = "the policy set would not compile"
            return JSONResponse({"detail": detail, "diagnostics": answer["diagnostics"]}, 422)
        del answer["stderr"]  # the console shows it; the API's answer has the exit code
        metrics.evaluation(answer["took_ms"] / 1000)
        metrics.decision(answer["decision"]["outcome"], "evaluate")
        # Built as plain JSON data: FastAPI then skips validating it against EvaluateOut (the
        # worker made it to that shape). The model still documents it.
        draft = body.policies is not None or body.data is not None
        answer |= {"bundle_revision": active.revision, "draft": draft}
        return FastJSONResponse(answer)

    @app.post(
        "/v1/check",
        tags=["dry-run"],
        summary="Diagnostics for draft policies, checked with the rest of the active set",
        response_model=api.CheckOut,
        responses=_DRY_RUN_ERRORS,
    )
    async def check(
        principal: Viewer,
        body: Annotated[api.CheckIn, Body(openapi_examples=api.CHECK_EXAMPLES)],
    ) -> dict:
        active, key = await run_in_threadpool(active_sets.get)
        found = await workers.run(
            dryrun.check, *_draft_set(active, key, body), owner=owner(principal)
        )
        return {"ok": not found, "diagnostics": found}
