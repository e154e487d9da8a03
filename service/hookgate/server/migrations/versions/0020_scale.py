"""Decision records bound to the uploading token, its hourly quota, indexes for every filter.

Revision ID: 0020
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("decisions") as batch:
        batch.add_column(sa.Column("token_id", sa.Integer, nullable=True))
    op.create_index("ix_decisions_session_id", "decisions", ["session_id"])
    op.create_index("ix_decisions_token_id", "decisions", ["token_id"])
    op.create_index("ix_decisions_outcome_time", "decisions", ["outcome", "time"])
    op.drop_index("ix_decision_matches_pack", "decision_matches")
    op.create_index("ix_decision_matches_pack_seq", "decision_matches", ["pack", "decision_seq"])
    op.create_table(
        "token_usage",
        sa.Column("token_id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("hour_start", sa.DateTime(timezone=True), primary_key=True),
        sa.Column("records", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("token_usage")
    op.drop_index("ix_decision_matches_pack_seq", "decision_matches")
    op.create_index("ix_decision_matches_pack", "decision_matches", ["pack"])
    op.drop_index("ix_decisions_outcome_time", "decisions")
    op.drop_index("ix_decisions_token_id", "decisions")
    op.drop_index("ix_decisions_session_id", "decisions")
    with op.batch_alter_table("decisions") as batch:
        batch.drop_column("token_id")
