"""Decision records keep the masked input document the policies saw (for impact replay).

Revision ID: 0021
Revises: 0020
"""

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # batch_alter_table: SQLite cannot add a NOT NULL column with ALTER TABLE everywhere the
    # server runs; existing records get input NULL and input_truncated false.
    with op.batch_alter_table("decisions") as batch:
        batch.add_column(sa.Column("input", sa.Text, nullable=True))
        batch.add_column(
            sa.Column("input_truncated", sa.Boolean, nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("decisions") as batch:
        batch.drop_column("input_truncated")
        batch.drop_column("input")
