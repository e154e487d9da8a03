"""Shared helpers of the server tests: databases (SQLite, and PostgreSQL from
$HOOKGATE_TEST_PG_URL), a migrated store, tokens per role, a small policy set, and the
fixtures most server test modules use (``store = store_fixture()`` and kin at module level)."""

from __future__ import annotations

import os

import pytest
import sqlalchemy as sa

from hookgate.server import tables
from hookgate.server.app import create_app
from hookgate.server.compilation import compile_set
from hookgate.server.store import ROLES, Store, make_engine, migrate

PG_ENV = "HOOKGATE_TEST_PG_URL"

GUARD = """package hookgate.git_hooks

import rego.v1

deny contains {"reason": "Do not skip git hooks.", "pattern": "no-verify"} if {
\tinput.tool_kind == "shell"
\tcontains(input.tool_input.command, "--no-verify")
}
"""

GUARD_V2 = GUARD.replace("Do not skip git hooks.", "Git hooks must run.")

BROKEN = """package hookgate.broken

import rego.v1

deny contains "x" if {
\tinput.tool_name ==
}
"""

NO_VERIFY = {
    "session_id": "s1",
    "cwd": "/repo",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "git commit --no-verify -m wip"},
}


def input_document(command: str, host: str = "claude", session: str = "s1") -> dict:
    """The input document a hook records for a shell command (a decision record's ``input``)."""
    return {
        "hook_event_name": "PreToolUse",
        "host": host,
        "tool_name": "Bash",
        "tool_kind": "shell",
        "tool_input": {"command": command},
        "tool_result": None,
        "session_id": session,
        "cwd": "/repo",
        "extra": {},
    }


def database_params() -> list:
    """SQLite always; PostgreSQL when $HOOKGATE_TEST_PG_URL is set. Unset under CI=true is a
    failure, not a skip: CI must run the PostgreSQL store tests."""
    pg = os.environ.get(PG_ENV)
    if pg:
        pg_param = pytest.param(pg, id="postgresql")
    elif os.environ.get("CI") == "true":
        pg_param = pytest.param(None, id="postgresql-missing")
    else:
        pg_param = pytest.param(
            None, id="postgresql", marks=pytest.mark.skip(reason=f"{PG_ENV} is not set")
        )
    return [pytest.param("sqlite", id="sqlite"), pg_param]


def fresh_store(url: str | None, tmp_path) -> Store:
    """A migrated, empty store on ``url`` ("sqlite" = a new file under ``tmp_path``)."""
    if url is None:
        pytest.fail(f"CI=true but {PG_ENV} is not set: the PostgreSQL tests must run in CI")
    if url == "sqlite":
        url = f"sqlite:///{tmp_path / 'server.db'}"
    engine = make_engine(url)
    if engine.dialect.name == "postgresql":
        tables.metadata.drop_all(engine)
        with engine.begin() as conn:
            conn.execute(sa.text("DROP TABLE IF EXISTS alembic_version"))
    migrate(engine)
    return Store(engine)


def seeded(store: Store, policies: dict[str, str] | None = None, data: dict | None = None) -> dict:
    """Seed ``store`` with ``policies`` and ``data`` documents as the whole set, the base
    replaced (default: the GUARD policy), and return a token per role."""
    policies = {"git_hooks.rego": GUARD} if policies is None else policies
    admin = store.seed(policies, data or {}, validate=compile_set, base=False)
    assert admin is not None
    tokens = {"admin": admin}
    for role in ROLES:
        if role != "admin":
            tokens[role] = store.create_token(role, f"test-{role}")
    return tokens


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def client_for(store: Store, **kwargs):
    from fastapi.testclient import TestClient

    return TestClient(create_app(store, **kwargs))


def store_fixture(databases: list | None = None):
    """A ``store`` fixture: a fresh migrated store for each test on each of ``databases``
    (``database_params()``; SQLite alone by default), disposed after it."""

    @pytest.fixture(params=databases or [pytest.param("sqlite", id="sqlite")])
    def store(request, tmp_path):
        store = fresh_store(request.param, tmp_path)
        yield store
        store.engine.dispose()

    return store


def tokens_fixture():
    """A ``tokens`` fixture: the ``store`` seeded with the GUARD policy, a token per role."""

    @pytest.fixture
    def tokens(store):
        return seeded(store)

    return tokens


def client_fixture(**options):
    """A ``client`` fixture: a test client of the app over ``store`` (after ``tokens``, so the
    store is seeded), built with ``options`` (``max_body_bytes=…``)."""

    @pytest.fixture
    def client(store, tokens):
        with client_for(store, **options) as client:
            yield client

    return client
