"""Alembic's environment: runs on the connection ``hookgate.server.store.migrate`` hands over
(no alembic.ini, no URL of its own)."""

from alembic import context

from hookgate.server.tables import metadata

context.configure(
    connection=context.config.attributes["connection"],
    target_metadata=metadata,
    render_as_batch=True,  # SQLite cannot ALTER most things; batch mode copies the table
)
with context.begin_transaction():
    context.run_migrations()
