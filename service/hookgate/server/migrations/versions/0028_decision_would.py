"""Decision records keep what guards in warn or audit mode would have answered (``would``),
apart from the outcome they did not decide.

Revision ID: 0028
Revises: 0026 (0027 is left to the recorded-data visibility change: whichever lands second
revises the other)
"""

import sqlalchemy as sa
from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("decisions") as batch:
        batch.add_column(sa.Column("would", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("decisions") as batch:
        batch.drop_column("would")
