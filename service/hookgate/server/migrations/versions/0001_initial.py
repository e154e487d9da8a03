"""Initial schema: versioned documents, the bundle state, tokens, signing keys, decisions.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_tz = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "state",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("revision", sa.Integer, nullable=False),
        sa.Column("updated_at", _tz, nullable=False),
    )
    op.create_table(
        "documents",
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("head", sa.Integer, nullable=False),
        sa.Column("deleted", sa.Boolean, nullable=False),
    )
    op.create_table(
        "revisions",
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("number", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("op", sa.String(16), nullable=False),
        sa.Column("content", sa.Text, nullable=True),
        sa.Column("content_hash", sa.String(71), nullable=True),
        sa.Column("author", sa.String(255), nullable=False),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("created_at", _tz, nullable=False),
        sa.Column("set_revision", sa.Integer, nullable=False),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", _tz, nullable=False),
        sa.Column("revoked_at", _tz, nullable=True),
    )
    op.create_table(
        "signing_keys",
        sa.Column("key_id", sa.String(16), primary_key=True),
        sa.Column("private_key", sa.Text, nullable=False),
        sa.Column("public_key", sa.Text, nullable=False),
        sa.Column("created_at", _tz, nullable=False),
    )
    op.create_table(
        "decisions",
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("decision_id", sa.String(64), nullable=False, unique=True),
        sa.Column("time", _tz, nullable=False),
        sa.Column("host", sa.String(64), nullable=True),
        sa.Column("event", sa.String(64), nullable=True),
        sa.Column("session_id", sa.String(255), nullable=True),
        sa.Column("tool_name", sa.String(255), nullable=True),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("bundle_revision", sa.Integer, nullable=True),
        sa.Column("command", sa.Text, nullable=True),
        sa.Column("uploaded_by", sa.String(255), nullable=False),
        sa.Column("received_at", _tz, nullable=False),
    )
    op.create_index("ix_decisions_time", "decisions", ["time"])
    op.create_index("ix_decisions_outcome", "decisions", ["outcome"])
    op.create_index("ix_decisions_host", "decisions", ["host"])
    op.create_table(
        "decision_matches",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "decision_seq",
            sa.Integer,
            sa.ForeignKey("decisions.seq", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("pack", sa.String(255), nullable=True),
        sa.Column("pattern", sa.String(255), nullable=True),
        sa.Column("rule", sa.String(255), nullable=True),
    )
    op.create_index("ix_decision_matches_pack", "decision_matches", ["pack"])
    op.create_index("ix_decision_matches_decision_seq", "decision_matches", ["decision_seq"])


def downgrade() -> None:
    tables = ("decision_matches", "decisions", "signing_keys", "tokens", "revisions")
    for table in (*tables, "documents", "state"):
        op.drop_table(table)
