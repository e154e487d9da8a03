"""How the suite runs in parallel (pytest-xdist, ``-n auto --dist loadgroup`` in pyproject.toml)
without two tests sharing what one of them changes:

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
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

HERE = Path(__file__).parent
PG_ENV = "HOOKGATE_TEST_PG_URL"

# Files (relative to tests/) sharing state no per-test isolation covers, one group each.
SHARED = {"hosts/": "hosts"}

# The files that take longest on CI (docs/evidence/ci.md), slowest first: started first.
SLOW_FIRST: list[str] = []


def _file(item: pytest.Item) -> str:
    """The item's file, relative to tests/ when it is under it."""
    path = Path(str(item.path))
    return path.relative_to(HERE).as_posix() if HERE in path.parents else str(path)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    for item in items:
        name = _file(item)
        group = next((g for prefix, g in SHARED.items() if name.startswith(prefix)), name)
        item.add_marker(pytest.mark.xdist_group(group))
    # A stable sort: each file's tests keep their order, whole files move.
    items.sort(key=lambda item: rank.get(_file(item), len(rank)))


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
