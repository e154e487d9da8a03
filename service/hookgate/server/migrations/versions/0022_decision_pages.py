"""Decision pages newest first by (time, seq): every filter's index ends with (time, seq), and
a pack's matches carry their decision's time and outcome, so that a page of one pack (the
usual one: a time window, an outcome) is one index range.

Revision ID: 0022
Revises: 0021
"""

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None

# (old index, its columns) → (new index, its columns)
CHANGES = [
    (("ix_decisions_time", ["time"]), ("ix_decisions_time_seq", ["time", "seq"])),
    (
        ("ix_decisions_outcome_time", ["outcome", "time"]),
        ("ix_decisions_outcome_time_seq", ["outcome", "time", "seq"]),
    ),
    (("ix_decisions_host", ["host"]), ("ix_decisions_host_time_seq", ["host", "time", "seq"])),
    (
        ("ix_decisions_session_id", ["session_id"]),
        ("ix_decisions_session_time_seq", ["session_id", "time", "seq"]),
    ),
    (
        ("ix_decisions_token_id", ["token_id"]),
        ("ix_decisions_token_time_seq", ["token_id", "time", "seq"]),
    ),
]


def upgrade() -> None:
    op.drop_index("ix_decisions_outcome", "decisions")  # a prefix of (outcome, time, seq)
    for (old, _), (new, columns) in CHANGES:
        op.drop_index(old, "decisions")
        op.create_index(new, "decisions", columns)
    with op.batch_alter_table("decision_matches") as batch:
        batch.add_column(sa.Column("time", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("outcome", sa.String(16), nullable=True))
    op.execute(
        "UPDATE decision_matches SET"
        " time = (SELECT time FROM decisions WHERE seq = decision_seq),"
        " outcome = (SELECT outcome FROM decisions WHERE seq = decision_seq)"
    )
    op.drop_index("ix_decision_matches_pack_seq", "decision_matches")
    op.create_index(
        "ix_decision_matches_pack_time", "decision_matches", ["pack", "time", "decision_seq"]
    )
    op.create_index(
        "ix_decision_matches_pack_outcome_time",
        "decision_matches",
        ["pack", "outcome", "time", "decision_seq"],
    )


def downgrade() -> None:
    op.drop_index("ix_decision_matches_pack_outcome_time", "decision_matches")
    op.drop_index("ix_decision_matches_pack_time", "decision_matches")
    op.create_index("ix_decision_matches_pack_seq", "decision_matches", ["pack", "decision_seq"])
    with op.batch_alter_table("decision_matches") as batch:
        batch.drop_column("outcome")
        batch.drop_column("time")
    for (old, columns), (new, _) in CHANGES:
        op.drop_index(new, "decisions")
        op.create_index(old, "decisions", columns)
    op.create_index("ix_decisions_outcome", "decisions", ["outcome"])
