"""Decision records carry their place in their machine's log: the stream, its sequence number,
the hash of the record before it and their own hash, so the server reports gaps and rewritten
records (GET /v1/decisions/streams).

Revision ID: 0023
Revises: 0022
"""

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("decisions") as batch:
        batch.add_column(sa.Column("stream", sa.String(128), nullable=True))
        batch.add_column(sa.Column("stream_seq", sa.Integer, nullable=True))
        batch.add_column(sa.Column("prev_hash", sa.String(64), nullable=True))
        batch.add_column(sa.Column("record_hash", sa.String(64), nullable=True))
    op.create_index("ix_decisions_stream_seq", "decisions", ["stream", "stream_seq"])


def downgrade() -> None:
    op.drop_index("ix_decisions_stream_seq", "decisions")
    with op.batch_alter_table("decisions") as batch:
        batch.drop_column("record_hash")
        batch.drop_column("prev_hash")
        batch.drop_column("stream_seq")
        batch.drop_column("stream")
