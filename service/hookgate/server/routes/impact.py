"""``POST /v1/impact``: a draft set replayed against recorded decisions (see
``hookgate.server.impact``), for the role that may read recorded data: a draft's reasons can
print the inputs it replays."""

from typing import Annotated

import anyio.to_thread
from fastapi import APIRouter, Body, Request

from hookgate.server import models as api
from hookgate.server.auth import RecordedReader
from hookgate.server.compilation import owner
from hookgate.server.impact import ImpactIn, ImpactOut, measure
from hookgate.server.store import Store

router = APIRouter(tags=["impact"])


@router.post(
    "/v1/impact",
    summary="Replay recorded decisions against a draft set: every outcome it would change",
    response_model=ImpactOut,
    responses={
        422: {"model": api.ErrorOut, "description": "The draft does not compile."},
        429: {"model": api.ErrorOut, "description": "At the worker pool's limits."},
    },
)
async def post_impact(
    principal: RecordedReader, request: Request, body: Annotated[ImpactIn, Body()]
) -> dict:
    store: Store = request.app.state.store
    active = await anyio.to_thread.run_sync(store.active_set)
    return await measure(store, request.app.state.workers, owner(principal), active, body)
