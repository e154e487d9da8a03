"""Console sessions opened by OpenID Connect sign-in: such a session has no API token, so it
keeps the person's subject (``name``, e.g. ``oidc:<sub>``) and the role mapped from their
groups at sign-in; ``token_id`` becomes optional.

Revision ID: 0027
Revises: 0026
"""

import sqlalchemy as sa
from alembic import op

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("console_sessions") as batch:
        batch.alter_column("token_id", existing_type=sa.Integer, nullable=True)
        batch.add_column(sa.Column("name", sa.String(255), nullable=True))
        batch.add_column(sa.Column("role", sa.String(16), nullable=True))


def downgrade() -> None:
    op.execute("DELETE FROM console_sessions WHERE token_id IS NULL")
    with op.batch_alter_table("console_sessions") as batch:
        batch.drop_column("role")
        batch.drop_column("name")
        batch.alter_column("token_id", existing_type=sa.Integer, nullable=False)
