"""``/v1/decisions``: agents upload decision records (masked again here); viewers page
through them, filtered (their input documents only for the role that may read recorded data),
and see each machine's log checked for gaps and rewritten records (``/v1/decisions/streams``)."""

import json
from typing import Annotated, Literal

from fastapi import FastAPI, Query, Request

from hookgate import recorded
from hookgate.masking import Masker
from hookgate.server import models as api
from hookgate.server.auth import Agent, Viewer, sees_recorded
from hookgate.server.decisionrows import CURSOR_PATTERN, parse_cursor
from hookgate.server.deps import invalid
from hookgate.server.metrics import Metrics
from hookgate.server.store import Store

RECORD_FIELDS = tuple(api.DecisionRecordIn.model_fields)


def _errors(errors: list[api.DecisionErrorIn], masker: Masker) -> str | None:
    """A record's errors as stored: compact JSON, messages masked again; None when none."""
    if not errors:
        return None
    kept = [error.model_dump() | {"message": masker.mask(error.message)} for error in errors]
    return json.dumps(kept, separators=(",", ":"), ensure_ascii=False)


def _would(would: list[api.WouldIn], masker: Masker) -> str | None:
    """What guards in warn or audit mode would have answered, as stored: compact JSON, the
    reason and the rewrite masked again; None when none."""
    if not would:
        return None
    kept = []
    for entry in would:
        rewrite, _ = recorded.keep(entry.rewrite, masker.mask)
        kept.append(entry.model_dump() | {"reason": masker.mask(entry.reason), "rewrite": rewrite})
    return json.dumps(kept, separators=(",", ":"), ensure_ascii=False)


def add_routes(app: FastAPI) -> None:
    store: Store = app.state.store
    masker: Masker = app.state.masker
    metrics: Metrics = app.state.metrics

    @app.post(
        "/v1/decisions",
        tags=["decisions"],
        summary="Upload a batch of decision records (idempotent on decision_id)",
        response_model=api.DecisionBatchOut,
    )
    def upload(principal: Agent, body: api.DecisionBatchIn) -> dict:
        rows = []
        current = None
        for i, record in enumerate(body.decisions):
            if record.bundle_revision is not None:
                current = current or store.current_revision(cached_ok=True)
                if record.bundle_revision > current:
                    field = f"body.decisions.{i}.bundle_revision"
                    raise invalid(field, f"no such bundle revision yet (the latest is {current})")
            # A plain dict of the fields (model_dump would copy the input document too).
            row = {name: getattr(record, name) for name in RECORD_FIELDS}
            row["decision_id"] = str(record.decision_id)
            row["matches"] = [dict(match) for match in record.matches]
            row["errors"] = _errors(record.errors, masker)
            row["would"] = _would(record.would, masker)
            row["command"] = masker.mask(record.command)  # masked again: never trust the client
            row["input"], truncated = recorded.keep_json(record.input, masker.mask)
            row["input_truncated"] = record.input_truncated or truncated
            # Its place in its log, and its hash as received (before the masking above).
            row["stream_seq"], row["prev_hash"] = row.pop("seq"), row.pop("prev")
            row["record_hash"] = record._hash
            rows.append(row)
        accepted, duplicates = store.add_decisions(
            rows,
            principal.name,
            token_id=principal.token_id,
            hourly_quota=app.state.decision_quota,
        )
        for row in rows:
            metrics.decision(row["outcome"], "upload")
        return {"accepted": accepted, "duplicates": duplicates}

    @app.get(
        "/v1/decisions/streams",
        tags=["decisions"],
        summary="Each machine's decision log checked: gaps in its sequence, rewritten records",
        response_model=api.StreamsPage,
    )
    def streams(
        _: Viewer,
        limit: Annotated[
            int, Query(ge=1, le=10_000, description="At most this many gaps and rewrites")
        ] = 1000,
    ) -> dict:
        found, capped = store.decision_streams(limit=limit)
        return {"streams": found, "capped": capped}

    @app.get(
        "/v1/decisions",
        tags=["decisions"],
        summary="Decision records, newest first, filtered and paginated",
        response_model=api.DecisionPage,
    )
    def list_decisions(
        principal: Viewer,
        request: Request,
        since: Annotated[api.UTCDateTime | None, Query(description="Decision time ≥ this")] = None,
        until: Annotated[api.UTCDateTime | None, Query(description="Decision time < this")] = None,
        outcome: api.Outcome | None = None,
        pack: Annotated[str | None, Query(max_length=255)] = None,
        host: Annotated[str | None, Query(max_length=64)] = None,
        session_id: Annotated[str | None, Query(max_length=255)] = None,
        token_id: Annotated[
            int | None, Query(ge=1, le=api.MAX_INT, description="The uploading token's id")
        ] = None,
        errors: Annotated[
            Literal["any", "fault", "limit"] | None,
            Query(description="Only records with an error (any), a fault, or a limit"),
        ] = None,
        guard: Annotated[
            str | None,
            Query(
                max_length=255,
                pattern=r"^[A-Za-z0-9_.]+$",
                description="Only records where this guard, in warn or audit mode, would have "
                "answered otherwise",
            ),
        ] = None,
        mode: Annotated[
            Literal["warn", "audit"] | None,
            Query(description="Only records with a would-be answer of a guard in this mode"),
        ] = None,
        limit: Annotated[int, Query(ge=1, le=500)] = 100,
        cursor: Annotated[
            str | None,
            Query(pattern=f"^{CURSOR_PATTERN}$", description="next_cursor of the last page"),
        ] = None,
    ) -> dict:
        if cursor is not None:
            try:
                parse_cursor(cursor)
            except ValueError as exc:
                raise invalid("query.cursor", str(exc)) from None
        items, next_cursor = store.query_decisions(
            since=since,
            until=until,
            outcome=outcome,
            pack=pack,
            host=host,
            session_id=session_id,
            token_id=token_id,
            errors=errors,
            guard=guard,
            mode=mode,
            limit=limit,
            cursor=cursor,
            with_input=sees_recorded(request, principal),
        )
        return {"decisions": items, "next_cursor": next_cursor}
