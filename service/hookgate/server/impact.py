"""A draft set replayed against recorded decisions, for ``POST /v1/impact``
(``routes/impact.py``) and the console.

The records are the newest ``limit`` decisions matching the filters (time window, host, pack,
outcome, session); each keeps the masked input document its policies saw. The replay itself is
``hookgate.impact.replay``, run in the worker pool (see ``run_replay``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import datetime
from functools import partial
from typing import Any

import anyio.to_thread
import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict, Field, StrictBool

from hookgate.impact import replay
from hookgate.server import models as api
from hookgate.server import tables as m
from hookgate.server.compilation import check_in_workers
from hookgate.server.decisionrows import decision_filters
from hookgate.server.deps import check_key
from hookgate.server.store import Store, compose
from hookgate.server.workers import SET_LIMITS, WorkerPool

MAX_RECORDS = 10_000


class ImpactIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    policies: dict[str, str | None] = Field(
        default_factory=dict,
        description="Draft policies by id laid over the active set (null removes one); with "
        "`complete`, the whole draft set.",
    )
    data: api.JSONObject = Field(
        default_factory=dict, description="Draft data documents by path, likewise."
    )
    complete: StrictBool = Field(
        False, description="The draft is the whole team layer (as a change set), not an overlay."
    )
    replace_base: StrictBool | None = Field(
        None,
        description="The draft replaces the built-in pack (true) or composes over it (false); "
        "null keeps the active set's base.",
    )
    limit: int = Field(1000, ge=1, le=MAX_RECORDS, description="The newest N records.")
    since: datetime | None = Field(None, description="Decision time ≥ this.")
    until: datetime | None = Field(None, description="Decision time < this.")
    host: str | None = Field(None, max_length=64)
    pack: str | None = Field(None, max_length=255, description="A recorded match of this pack.")
    outcome: api.Outcome | None = Field(None, description="The recorded outcome.")
    session_id: str | None = Field(None, max_length=255)


class ImpactExample(BaseModel):
    decision_id: str | None
    time: datetime | None
    host: str | None
    session_id: str | None
    tool_name: str | None
    command: str | None
    recorded: str | None
    before: str
    after: str
    reasons_before: list[str]
    reasons_after: list[str]
    input_truncated: bool


class ImpactOut(BaseModel):
    bundle_revision: int = Field(description="The active set compared with.")
    considered: int = Field(description="Records matching the filters (at most `limit`).")
    replayed: int = Field(description="Those with a recorded input document.")
    skipped_without_input: int
    truncated_inputs: int = Field(description="Replayed on an input whose strings were cut.")
    rechecked: int = Field(
        description="Records also replayed on the active set: the draft decided them "
        "otherwise than recorded, or an older bundle revision decided them."
    )
    drifted: int | None = Field(
        description="Of those, the records whose replay on the active set differs from what "
        "was recorded (an older bundle, a fact about the machine the replay lacks, a cut input)."
    )
    changed: int = Field(description="Records whose outcome the draft changes.")
    transitions: dict[str, int] = Field(description='e.g. {"allow→deny": 3}')
    by_pack: dict[str, int]
    by_pattern: dict[str, int] = Field(description='"pack/pattern" → changed records.')
    examples: list[ImpactExample]


# Records read and sent to the replay at a time (each input is at most 32 KiB, most are far
# smaller): the memory one replay's records take in the server, whatever its limit.
BATCH_RECORDS = 200


async def record_batches(store: Store, query: ImpactIn) -> AsyncIterator[list[dict]]:
    """The newest ``query.limit`` records matching its filters, with their input documents,
    ``BATCH_RECORDS`` at a time, newest first: each batch is its own short read (keyset
    pagination on ``(time, seq)``), so no connection stays open while the replay runs."""
    d = m.decisions.c
    left, after, batch = query.limit, None, BATCH_RECORDS
    while left > 0 and batch == BATCH_RECORDS:  # a shorter batch was the last
        select = sa.select(
            d.seq,
            d.decision_id,
            d.time,
            d.host,
            d.session_id,
            d.tool_name,
            d.outcome,
            d.bundle_revision,
            d.input,
            d.input_truncated,
        ).order_by(d.time.desc(), d.seq.desc())
        select = decision_filters(
            select.limit(min(left, BATCH_RECORDS)),
            host=query.host,
            outcome=query.outcome,
            session_id=query.session_id,
            since=query.since,
            until=query.until,
            pack=query.pack,
        )
        if after is not None:
            select = select.where((d.time < after[0]) | ((d.time == after[0]) & (d.seq < after[1])))
        rows = await anyio.to_thread.run_sync(_read, store, select)
        if not rows:
            return
        left, batch = left - len(rows), len(rows)
        after = (rows[-1].time, rows[-1].seq)
        yield [_record(r) for r in rows]


def _read(store: Store, select: sa.Select) -> list[sa.Row]:
    with store.engine.connect() as conn:
        return list(conn.execute(select))


def _record(r: sa.Row) -> dict:
    return {
        "decision_id": r.decision_id,
        "time": r.time,
        "host": r.host,
        "session_id": r.session_id,
        "tool_name": r.tool_name,
        "outcome": r.outcome,
        "bundle_revision": r.bundle_revision,
        "input": None if r.input is None else json.loads(r.input),
        "input_truncated": r.input_truncated,
    }


def draft_set(active: Any, body: ImpactIn) -> tuple[dict[str, str], dict]:
    """The draft's policies and composed data: the body alone when ``complete``, else laid over
    the active set's team layer (as dry-runs with drafts are), composed over the base unless
    the draft, or else the active set, replaces it."""
    policies = {} if body.complete else dict(active.layer)
    documents = {} if body.complete else dict(active.documents)
    for key, text in body.policies.items():
        check_key("policy", key, f"body.policies.{key}")
        if text is None:
            policies.pop(key, None)
        else:
            policies[key] = text
    for path, value in body.data.items():
        documents[check_key("data", path, f"body.data.{path}")] = value
    replaced = active.base is None if body.replace_base is None else body.replace_base
    return compose(policies, documents, base=not replaced)


async def run_replay(
    workers: WorkerPool,
    owner: object,
    sources: dict[str, str],
    data: dict,
    records: AsyncIterator[list[dict]],
    baseline: tuple[dict, dict, int],
) -> dict:
    """``replay`` in the worker pool, ``records`` streamed to it: the draft is user-supplied
    code, run under the limits the operating system enforces there, on behalf of ``owner``
    (the token, for the pool's per-token limit). The draft is compiled first, so one that does
    not compile is a ``PolicyError`` with its diagnostics."""
    async with workers.admitted(owner):
        await check_in_workers(workers, sources, data, None)
        with_baseline = partial(replay, baseline=baseline)  # the streamed records come last
        return await workers.run(with_baseline, sources, data, limits=SET_LIMITS, stream=records)


async def measure(
    store: Store, workers: WorkerPool, owner: object, active: Any, body: ImpactIn
) -> dict:
    """The impact report (``ImpactOut``) of ``body``'s draft over ``active``, the set it is
    compared with, on behalf of ``owner`` (the pool's per-token limit): ``POST /v1/impact`` and
    a promotion (``routes.modes``) answer this."""
    sources, data = draft_set(active, body)
    records = record_batches(store, body)
    baseline = (active.policies, active.data, active.revision)
    report = await run_replay(workers, owner, sources, data, records, baseline)
    return {"bundle_revision": active.revision, **report}
