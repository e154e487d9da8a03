"""How the suite runs in parallel (``pytest -n auto``, pytest-xdist; opt-in, see
docs/evidence/ci.md) without two tests sharing what one of them changes:

- each test file is one unit of distribution (a group): its tests run in order on one worker,
  so module-scoped fixtures (a server, a managed namespace, a browser) start once, as in a
  serial run, and a file's tests may keep sharing what they share today;
- ``tests/hosts`` is one group: its session fixtures install the npm hosts into one cache
  (``~/.cache/hookgate-hosts``) and start one scripted model; two workers would install the
  same packages into the same directory at once;
- each worker gets a PostgreSQL database of its own (``hookgate_test_gw0``…, made on the server
  of ``$HOOKGATE_TEST_PG_URL``): ``server_support.fresh_store`` drops every table of the
  database it is given, so two workers on one database would empty each other's store;
- the slowest files start first, so that the last file to finish is a short one.

It also holds ``engine``, the shipped pack as the hook runs it, for the files that judge calls
through it (a file that needs another engine defines its own).
"""

from __future__ import annotations

import os

import pytest

PG_ENV = "HOOKGATE_TEST_PG_URL"
POLICIES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "policies")


@pytest.fixture(scope="module")
def engine() -> object:
    """The shipped pack (``policies/``), compiled once per test file."""
    from hookgate.engine import Engine

    return Engine.from_paths([POLICIES])


# Paths (from the rootdir, as in node ids) of files sharing state that no per-test isolation
# covers: one group each.
SHARED = {"tests/hosts/": "hosts"}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """With -n: whole groups (a file, or a SHARED group) to a worker. Not xdist's loadgroup
    marks: pytest 9 ignores the node id suffix they work by (each test went its own way)."""
    from xdist.scheduler import LoadScopeScheduling

    class ByGroup(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return next((g for prefix, g in SHARED.items() if path.startswith(prefix)), path)

    return ByGroup(config, log)


def pytest_configure(config: pytest.Config) -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    url = os.environ.get(PG_ENV)
    if worker and url:
        os.environ[PG_ENV] = _worker_database(url, worker)


def _worker_database(url: str, worker: str) -> str:
    """``url`` with the database ``<its name>_<worker>``, created on that server if missing."""
    import sqlalchemy as sa

    base = sa.make_url(url)
    mine = base.set(database=f"{base.database}_{worker}")
    engine = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            exists = conn.execute(
                sa.text("SELECT 1 FROM pg_database WHERE datname = :name"),
                {"name": mine.database},
            ).first()
            if not exists:
                conn.execute(sa.text(f'CREATE DATABASE "{mine.database}"'))
    finally:
        engine.dispose()
    return mine.render_as_string(hide_password=False)
