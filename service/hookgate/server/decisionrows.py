"""The decision records' rows: the filters the API and the console share, the page cursor, and
the batch inserts of an upload (one statement a batch on PostgreSQL, insertmanyvalues
elsewhere). ``Store`` (``store``) calls these inside its transactions."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.expression import ColumnElement

from hookgate.server import tables as m


def utc(value: datetime) -> datetime:
    # SQLite hands back naive datetimes (everything stored is UTC); PostgreSQL, aware ones in
    # the session's time zone.
    return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)


def decision_filters(select: sa.Select, **filters: Any) -> sa.Select:
    """``select`` over decisions narrowed by the filters the API offers (``None``: any):
    host, outcome, session_id, token_id (equal), since (≥), until (<), pack (a recorded
    match), errors (``any``, ``fault`` or ``limit``: records with such an error), guard and
    mode (a would-be answer of that guard, or in that mode: ``Decision.would``)."""
    d = m.decisions.c
    for name in ("host", "outcome", "session_id", "token_id"):
        if filters.get(name) is not None:
            select = select.where(getattr(d, name) == filters[name])
    if filters.get("since") is not None:
        select = select.where(d.time >= utc(filters["since"]))
    if filters.get("until") is not None:
        select = select.where(d.time < utc(filters["until"]))
    if filters.get("errors") is not None:  # "any", "fault" or "limit"
        kind = filters["errors"]
        select = select.where(d.errors.isnot(None))
        select = select if kind == "any" else select.where(d.errors.contains(f'"kind":"{kind}"'))
    # A guard in warn or audit mode: what it would have answered (``would``, compact JSON).
    entry = {name: filters[name] for name in ("guard", "mode") if filters.get(name) is not None}
    if entry:
        select = select.where(WouldEntry(entry))
    if filters.get("pack") is not None:
        dm = m.decision_matches.c
        select = select.where(
            sa.exists().where(dm.decision_seq == d.seq, dm.pack == filters["pack"])
        )
    return select


class WouldEntry(ColumnElement[bool]):
    """True when one entry of the record's ``would`` list has every field of ``fields``
    equal: both filters must hold of the same guard's answer, which a text match over the
    stored JSON cannot tell (guard A warns, guard B audits). Compiled per database."""

    type = sa.Boolean()
    inherit_cache = False

    def __init__(self, fields: dict[str, str]) -> None:
        self.fields = fields


def _would_entry(element: WouldEntry, compiler: Any, table: str, value: str, **kw: Any) -> str:
    column = compiler.process(m.decisions.c.would, **kw)
    # The field names are ours ("guard", "mode"); the values are bound parameters.
    tests = " AND ".join(
        value.format(name) + " = " + compiler.process(sa.bindparam(None, wanted, unique=True), **kw)
        for name, wanted in element.fields.items()
    )
    return f"EXISTS (SELECT 1 FROM {table.format(column)} AS w WHERE {tests})"


@compiles(WouldEntry)
def _would_entry_sqlite(element: WouldEntry, compiler: Any, **kw: Any) -> str:
    return _would_entry(element, compiler, "json_each({})", "json_extract(w.value, '$.{}')", **kw)


@compiles(WouldEntry, "postgresql")
def _would_entry_postgresql(element: WouldEntry, compiler: Any, **kw: Any) -> str:
    table = "jsonb_array_elements(CAST({} AS jsonb))"
    return _would_entry(element, compiler, table, "w.value ->> '{}'", **kw)


def would_per_day(conn: Connection, **window: Any) -> list[dict]:
    """``[{day, guard, mode, would, count}]``: per UTC day of the decision, how many records of
    the window (``since``, ``until``) hold a would-be answer of that guard, in that mode."""
    import json

    d = m.decisions.c
    select = decision_filters(sa.select(d.time, d.would).where(d.would.isnot(None)), **window)
    counts: dict[tuple[str, str, str, str], int] = {}
    for time, would in conn.execute(select):
        day = utc(time).date().isoformat()
        # A record counts once per guard, mode and answer, however many patterns gave it.
        seen = {(day, w.get("guard"), w.get("mode"), w.get("would")) for w in json.loads(would)}
        for key in seen:
            counts[key] = counts.get(key, 0) + 1
    fields = ("day", "guard", "mode", "would")
    return [dict(zip(fields, key, strict=True), count=n) for key, n in sorted(counts.items())]


CURSOR_PATTERN = r"(-?[0-9]{1,18})_([0-9]{1,10})"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def record_out(r: sa.Row, matches: list[dict], with_input: bool) -> dict:
    """A decision record as the API shows it, from its row (``Store.query_decisions``) and its
    matches; without ``with_input`` the input is withheld (the row holds only whether one
    exists)."""
    return {
        "decision_id": r.decision_id,
        "time": utc(r.time),
        "host": r.host,
        "event": r.event,
        "session_id": r.session_id,
        "tool_name": r.tool_name,
        "outcome": r.outcome,
        "matches": matches,
        "errors": json.loads(r.errors) if r.errors else [],
        "would": json.loads(r.would) if r.would else [],
        "bundle_revision": r.bundle_revision,
        "command": r.command,
        "input": json.loads(r.input) if with_input and r.input is not None else None,
        "input_truncated": r.input_truncated,
        "input_withheld": not with_input and bool(r.input),
        "uploaded_by": r.uploaded_by,
        "token_id": r.token_id,
        "received_at": utc(r.received_at),
        "stream": r.stream,
        "seq": r.stream_seq,
    }


def cursor_of(row: sa.Row) -> str:
    """A page's position as text: the decision time in microseconds since 1970, and seq."""
    return f"{(utc(row.time) - _EPOCH) // _MICROSECOND}_{row.seq}"


def _digits(text: str, most: int) -> bool:
    return 0 < len(text) <= most and text.isascii() and text.isdigit()


def parse_cursor(cursor: str) -> tuple[datetime, int]:
    """``(time, seq)`` of a cursor ``cursor_of`` made; ``ValueError`` for any other text."""
    micros, _, seq = cursor.partition("_")
    try:
        if not (_digits(micros.removeprefix("-"), 18) and _digits(seq, 10)):
            raise ValueError
        return _EPOCH + int(micros) * _MICROSECOND, int(seq)
    except (ValueError, OverflowError):
        raise ValueError("not a cursor this server gave (next_cursor of a page)") from None


# The columns of a decision record as the upload gives them (the uploader's are added).
_RECORD_COLUMNS = {
    "decision_id": "text",
    "time": "timestamptz",
    "host": "text",
    "event": "text",
    "session_id": "text",
    "tool_name": "text",
    "outcome": "text",
    "bundle_revision": "integer",
    "command": "text",
    "input": "text",
    "input_truncated": "boolean",
    "stream": "text",
    "stream_seq": "integer",
    "prev_hash": "text",
    "record_hash": "text",
    "errors": "text",
    "would": "text",
}
_MATCH_COLUMNS = {"decision_id": "text", "position": "integer", "pack": "text"}
_MATCH_COLUMNS |= {"pattern": "text", "rule": "text", "time": "timestamptz", "outcome": "text"}


def _unnest(columns: dict[str, str], prefix: str) -> str:
    arrays = ", ".join(f"CAST(%({prefix}{c})b AS {t}[])" for c, t in columns.items())
    return f"unnest({arrays}) AS {prefix}({', '.join(columns)})"


# One statement a batch, whatever its size: the records and their matches travel as one array
# a column (one parameter each, so nothing is compiled per row; in binary, so no string is
# escaped), the decisions are inserted in the batch's order (seq is arrival order), and the
# matches of those stored join on the ids it returns. A record already stored returns nothing,
# and so do its matches. psycopg's own placeholders: SQLAlchemy cannot ask for binary.
_PG_ADD = f"""WITH stored AS (
    INSERT INTO decisions ({", ".join(_RECORD_COLUMNS)}, uploaded_by, token_id, received_at)
    SELECT r.*, %(uploaded_by)s, %(token_id)s, %(received_at)s FROM {_unnest(_RECORD_COLUMNS, "r")}
    ON CONFLICT (decision_id) DO NOTHING
    RETURNING seq, decision_id
), matched AS (
    INSERT INTO decision_matches (decision_seq, position, pack, pattern, rule, time, outcome)
    SELECT stored.seq, m.position, m.pack, m.pattern, m.rule, m.time, m.outcome
    FROM stored JOIN {_unnest(_MATCH_COLUMNS, "m")} ON m.decision_id = stored.decision_id
)
SELECT count(*) FROM stored"""


def add_rows_pg(conn: Connection, decisions: list[dict], uploader: dict) -> int:
    """PostgreSQL: the batch in one statement (``_PG_ADD``); returns how many were stored."""
    first = {d["decision_id"]: d for d in reversed(decisions)}  # a repeated id: its first
    batch = [first.pop(d["decision_id"]) for d in decisions if d["decision_id"] in first]
    params = {f"r{c}": [d.get(c) for d in batch] for c in _RECORD_COLUMNS}
    params["rinput_truncated"] = [bool(d.get("input_truncated")) for d in batch]
    matches = [(d, i, match) for d in batch for i, match in enumerate(d.get("matches") or [])]
    params["mposition"] = [i for _, i, _ in matches]
    for c in ("decision_id", "time", "outcome"):
        params[f"m{c}"] = [d[c] for d, _, _ in matches]
    for c in ("pack", "pattern", "rule"):
        params[f"m{c}"] = [match.get(c) for _, _, match in matches]
    with conn.connection.driver_connection.cursor() as cursor:  # in conn's transaction
        return cursor.execute(_PG_ADD, params | uploader).fetchone()[0]


def add_rows(conn: Connection, decisions: list[dict], uploader: dict) -> int:
    """Any database: the ids the insert returns are the decisions it stored (a duplicate,
    within the batch or already stored, returns nothing). Executed for many rows, one statement
    compiled once and sent in multi-row batches (SQLAlchemy's insertmanyvalues): a literal
    multi-row VALUES would compile thousands of parameters on every upload."""
    rows = [{k: v for k, v in d.items() if k != "matches"} | uploader for d in decisions]
    stored = [
        row
        for row in conn.execute(
            insert_ignore(conn)(m.decisions)
            .on_conflict_do_nothing(index_elements=["decision_id"])
            .returning(m.decisions.c.seq, m.decisions.c.decision_id),
            rows,
        )
        if row is not None
    ]
    seq_of = {decision_id: seq for seq, decision_id in stored}
    matches = []
    for decision in decisions:
        seq = seq_of.pop(decision["decision_id"], None)  # pop: a repeated id once
        if seq is not None:
            for i, match in enumerate(decision.get("matches") or []):
                copied = {"time": decision["time"], "outcome": decision["outcome"]}
                matches.append({"decision_seq": seq, "position": i, **match} | copied)
    if matches:
        conn.execute(m.decision_matches.insert(), matches)
    return len(stored)


def insert_ignore(conn: Connection) -> Callable:
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert
