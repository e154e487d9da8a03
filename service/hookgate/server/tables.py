"""The server's tables (SQLAlchemy Core). Alembic's migrations create exactly these; a test
compares the migrated schema with this metadata, so change both together.

Policies and data documents share one versioning scheme: ``documents`` holds each document's
head, ``revisions`` every immutable change. ``state`` is a single row whose ``revision`` counts
the changes of the active set (the bundle revision); every write updates it first, which also
serializes concurrent writers on both SQLite and PostgreSQL.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    false,
)

metadata = MetaData()

state = Table(
    "state",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("revision", Integer, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

documents = Table(
    "documents",
    metadata,
    Column("kind", String(16), primary_key=True),  # "policy" or "data"
    Column("key", String(255), primary_key=True),  # policy id or data path
    Column("head", Integer, nullable=False),  # the number of its latest revision
    Column("deleted", Boolean, nullable=False),
)

revisions = Table(
    "revisions",
    metadata,
    Column("kind", String(16), primary_key=True),
    Column("key", String(255), primary_key=True),
    Column("number", Integer, primary_key=True, autoincrement=False),
    Column("op", String(16), nullable=False),  # put, delete, rollback
    Column("content", Text, nullable=True),  # null for a delete
    Column("content_hash", String(71), nullable=True),  # sha256:<hex>
    Column("author", String(255), nullable=False),
    Column("message", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("set_revision", Integer, nullable=False),  # the bundle revision this change made
)

tokens = Table(
    "tokens",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(255), nullable=False),
    Column("role", String(16), nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),  # sha256 hex, never the token
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("revoked_at", DateTime(timezone=True), nullable=True),
)

signing_keys = Table(
    "signing_keys",
    metadata,
    Column("key_id", String(16), primary_key=True),
    Column("private_key", Text, nullable=False),  # base64 of the raw 32-byte Ed25519 seed
    Column("public_key", Text, nullable=False),  # base64 of the raw 32-byte public key
    Column("created_at", DateTime(timezone=True), nullable=False),
)

decisions = Table(
    "decisions",
    metadata,
    Column("seq", Integer, primary_key=True),  # arrival order; the pagination cursor
    Column("decision_id", String(64), nullable=False, unique=True),
    Column("time", DateTime(timezone=True), nullable=False),
    Column("host", String(64), nullable=True),
    Column("event", String(64), nullable=True),
    Column("session_id", String(255), nullable=True),
    Column("tool_name", String(255), nullable=True),
    Column("outcome", String(16), nullable=False),
    Column("bundle_revision", Integer, nullable=True),
    Column("command", Text, nullable=True),  # masked before it is stored
    Column("uploaded_by", String(255), nullable=False),  # the token's name
    # The input document the policies saw, masked and bounded (hookgate.recorded), as compact
    # JSON; replayed by POST /v1/impact. Added by migration 0021.
    Column("input", Text, nullable=True),
    Column("input_truncated", Boolean, nullable=False, server_default=false()),
    Column("received_at", DateTime(timezone=True), nullable=False),
    Column("token_id", Integer, nullable=True),  # the uploading token (null: before 0020)
    # The record's place in its machine's log (migration 0023; null: an older client): the
    # stream (`<machine id>:<uid>`), its seq, the hash of the record before it that it names,
    # and its own hash, computed here from the bytes received.
    Column("stream", String(128), nullable=True),
    Column("stream_seq", Integer, nullable=True),
    Column("prev_hash", String(64), nullable=True),
    Column("record_hash", String(64), nullable=True),
    # The decision's faults and limits as compact JSON (migration 0024; null: none, or an
    # older client).
    Column("errors", Text, nullable=True),
    # What guards in warn or audit mode would have answered, as compact JSON (migration 0028;
    # null: none, or an older client).
    Column("would", Text, nullable=True),
    # Pages are newest first by (time, seq) from a keyset cursor: every filter's index ends
    # with (time, seq), so a page is one index range read in order, however many records
    # the window holds (migration 0022).
    Index("ix_decisions_time_seq", "time", "seq"),
    Index("ix_decisions_outcome_time_seq", "outcome", "time", "seq"),
    Index("ix_decisions_host_time_seq", "host", "time", "seq"),
    Index("ix_decisions_session_time_seq", "session_id", "time", "seq"),
    Index("ix_decisions_token_time_seq", "token_id", "time", "seq"),
    Index("ix_decisions_stream_seq", "stream", "stream_seq"),
)

decision_matches = Table(
    "decision_matches",
    metadata,
    Column("id", Integer, primary_key=True),
    Column(
        "decision_seq", Integer, ForeignKey("decisions.seq", ondelete="CASCADE"), nullable=False
    ),
    Column("position", Integer, nullable=False),
    Column("pack", String(255), nullable=True),
    Column("pattern", String(255), nullable=True),
    Column("rule", String(255), nullable=True),
    # The decision's time and outcome, copied (migration 0022; null only if written before):
    # a page of one pack is then one range of an index, in page order.
    Column("time", DateTime(timezone=True), nullable=True),
    Column("outcome", String(16), nullable=True),
    Index("ix_decision_matches_pack_time", "pack", "time", "decision_seq"),
    Index("ix_decision_matches_pack_outcome_time", "pack", "outcome", "time", "decision_seq"),
    Index("ix_decision_matches_decision_seq", "decision_seq"),
)

# Decision records each token offered per hour (the upload quota), shared by every process.
token_usage = Table(
    "token_usage",
    metadata,
    Column("token_id", Integer, primary_key=True, autoincrement=False),
    Column("hour_start", DateTime(timezone=True), primary_key=True),  # UTC
    Column("records", Integer, nullable=False),
)

# Console sign-ins (``sessions.py``): the cookie holds a random session id, stored only hashed.
# A session acts with its token's role and ends with it (revoked token, sign-out, expiry, idle).
console_sessions = Table(
    "console_sessions",
    metadata,
    Column("id_hash", String(64), primary_key=True),  # sha256 hex, never the session id
    # A token sign-in's token; none for an OpenID Connect sign-in, which keeps name and role.
    Column("token_id", Integer, ForeignKey("tokens.id"), nullable=True),
    Column("name", String(255), nullable=True),
    Column("role", String(16), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_seen_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("revoked_at", DateTime(timezone=True), nullable=True),
    Index("ix_console_sessions_expires_at", "expires_at"),
)
