"""A draft set replayed against recorded decisions, for ``POST /v1/impact``
(``routes/impact.py``) and the console.

The records are the newest ``limit`` decisions matching the filters (time window, host, pack,
outcome, session); each keeps the masked input document its policies saw. The replay itself is
``hookgate.impact.replay``, run in the worker pool (see ``run_replay``).
"""

from __future__ import annotations

import json
from datetime import datetime
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
# Recorded input documents read for one replay (compact JSON; each is at most 32 KiB, most are
# far smaller): a bound on the memory one request can take, whatever its limit.
MAX_INPUT_BYTES = 64 * 1024 * 1024


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
    size_capped: bool = Field(
        description="Fewer than `limit` were read: their inputs reached 64 MiB in all."
    )
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


def load_records(store: Store, query: ImpactIn) -> tuple[list[dict], bool]:
    """The newest ``query.limit`` records matching its filters, with their input documents,
    and whether ``MAX_INPUT_BYTES`` stopped the reading before that many."""
    d = m.decisions.c
    select = (
        sa.select(
            d.decision_id,
            d.time,
            d.host,
            d.session_id,
            d.tool_name,
            d.outcome,
            d.bundle_revision,
            d.input,
            d.input_truncated,
        )
        .order_by(d.time.desc(), d.seq.desc())
        .limit(query.limit)
    )
    select = decision_filters(
        select,
        host=query.host,
        outcome=query.outcome,
        session_id=query.session_id,
        since=query.since,
        until=query.until,
        pack=query.pack,
    )
    records: list[dict] = []
    size = 0
    with store.engine.connect().execution_options(stream_results=True) as conn:
        for r in conn.execute(select):
            size += len(r.input or "")
            if size > MAX_INPUT_BYTES:
                return records, True
            records.append(
                {
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
            )
    return records, False


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
    sources: dict[str, str],
    data: dict,
    records: list[dict],
    baseline: tuple[dict, dict, int],
) -> dict:
    """``replay`` in the worker pool: the draft is user-supplied code, run under the limits the
    operating system enforces there. The draft is compiled first, so one that does not compile
    is a ``PolicyError`` with its diagnostics."""
    await check_in_workers(workers, sources, data)
    return await workers.run(replay, sources, data, records, baseline, limits=SET_LIMITS)


async def measure(store: Store, workers: WorkerPool, active: Any, body: ImpactIn) -> dict:
    """The impact report (``ImpactOut``) of ``body``'s draft over ``active``, the set it is
    compared with: ``POST /v1/impact`` and a promotion (``routes.modes``) answer this."""
    sources, data = draft_set(active, body)
    records, capped = await anyio.to_thread.run_sync(load_records, store, body)
    baseline = (active.policies, active.data, active.revision)
    report = await run_replay(workers, sources, data, records, baseline)
    return {"bundle_revision": active.revision, "size_capped": capped, **report}
