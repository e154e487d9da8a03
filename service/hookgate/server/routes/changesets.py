"""``POST /v1/changesets`` (editor): make the active set equal to a given set of policies and
data documents, as one bundle revision (see ``hookgate.server.changesets``)."""

from typing import Annotated, Any

from fastapi import APIRouter, Body, Request
from fastapi.responses import JSONResponse

from hookgate import layers
from hookgate.lang.errors import Diagnostic, PolicyError
from hookgate.server import models as api
from hookgate.server.auth import Editor
from hookgate.server.changesets import (
    ChangeSetIn,
    ChangeSetOut,
    apply,
    check_set,
    plan,
    team_layer,
)
from hookgate.server.compilation import owner
from hookgate.server.deps import check_depth, check_key
from hookgate.server.store import PreconditionFailed, Store


def _check_keys(body: ChangeSetIn) -> None:
    for key in body.policies:
        check_key("policy", key, f"body.policies.{key}")
    for path, value in body.data.items():
        check_key("data", path, f"body.data.{path}")
        check_depth(path, value, f"body.data.{path}")


router = APIRouter(tags=["change sets"])


@router.post(
    "/v1/changesets",
    summary="Make the team layer equal to these policies and data, as one bundle revision",
    response_model=ChangeSetOut,
    responses={
        412: {"model": api.ErrorOut, "description": "expect_revision is not the revision now."},
        422: {"model": api.ErrorOut, "description": "The set does not compile or a test fails."},
    },
)
def post_changeset(
    principal: Editor, request: Request, body: Annotated[ChangeSetIn, Body()]
) -> Any:
    store: Store = request.app.state.store
    _check_keys(body)
    replace = body.replace_base
    if replace is None:
        replace = store.active_set().base is None
    policies, documents = team_layer(body.policies, body.data, replace_base=replace)
    warnings: list[str] = []
    try:
        layered = layers.compose_set(policies, documents, base=not replace)
    except PolicyError as exc:
        diagnostics, tests = list(exc.diagnostics), {"passed": 0, "failed": []}
    else:
        workers = request.app.state.workers
        diagnostics, tests = check_set(workers, owner(principal), layered.sources, layered.data)
        warnings = layers.unread_lines(layered)
    ok = not diagnostics
    if body.dry_run or not ok:
        active = store.active_set()
        if body.expect_revision is not None and body.expect_revision != active.revision:
            raise PreconditionFailed(
                f"the bundle revision is {active.revision}, not {body.expect_revision}: "
                "the server moved; read it again"
            )
        answer = {
            "applied": False,
            "base_revision": active.revision,
            "revision": active.revision,
            "changes": [
                {**c, "revision": None} for c in plan(active, policies, documents, replace)
            ],
            "ok": ok,
            "diagnostics": [_diagnostic_out(d) for d in diagnostics],
            "tests": tests,
            "warnings": warnings,
        }
        if ok or body.dry_run:
            return answer
        detail = "the change set was refused; nothing was changed"
        return JSONResponse({"detail": detail, **answer}, 422)
    base, revision, changes = apply(
        store,
        policies,
        documents,
        replace_base=replace,
        expect_revision=body.expect_revision,
        author=principal.name,
        message=body.message or "change set",
    )
    return {
        "applied": revision != base,
        "base_revision": base,
        "revision": revision,
        "changes": changes,
        "ok": True,
        "diagnostics": [],
        "tests": tests,
        "warnings": warnings,
    }


def _diagnostic_out(d: Diagnostic) -> dict:
    return {**d.to_dict(), "text": d.headline()}
