"""How the suite runs in parallel (``-n auto`` in pyproject's ``addopts``: one worker per core;
``-n 0`` runs it serially; docs/evidence/ci.md) without two tests sharing what one of them
changes:

- each test file is one unit of distribution (a group): its tests run in order on one worker,
  so module-scoped fixtures (a server, a managed namespace, a browser) start once, as in a
  serial run, and a file's tests may keep sharing what they share today;
- ``tests/hosts`` is one group: its session fixtures install the npm hosts into one cache
  (``~/.cache/hookgate-hosts``) and start one scripted model; two workers would install the
  same packages into the same directory at once;
- each worker gets a PostgreSQL database of its own (``hookgate_test_gw0``…, made on the server
  of ``$HOOKGATE_TEST_PG_URL``): ``server_support.fresh_store`` drops every table of the
  database it is given, so two workers on one database would empty each other's store;
- the slowest files (``SLOWEST``, measured: docs/evidence/ci.md) start first, so that the last
  file to finish is a short one.

It also holds ``engine``, the shipped pack as the hook runs it, for the files that judge calls
through it (a file that needs another engine defines its own), and compiles hookgate to
bytecode before any worker starts (``_compile_package``).
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


# The files that take longest, longest first (durations of a whole run, docs/evidence/ci.md):
# with -n they are scheduled first; a file not named here keeps its place after them.
SLOWEST = (
    "tests/hosts/",
    "tests/test_faults.py",
    "tests/test_sync.py",
    "tests/test_docs_run.py",
    "tests/test_server_limits.py",
    "tests/test_differential_long.py",
    "tests/test_probes.py",
    "tests/test_agent_caused.py",
    "tests/test_publish_roundtrip.py",
    "tests/test_examples.py",
    "tests/test_server_base.py",
    "tests/test_warm.py",
    "tests/test_xpia_prechecks.py",
    "tests/test_managed_runtime.py",
    "tests/test_progress.py",
    "tests/test_install_managed.py",
)


def _rank(item: pytest.Item) -> int:
    path = item.nodeid.split("::", 1)[0]
    return next((i for i, prefix in enumerate(SLOWEST) if path.startswith(prefix)), len(SLOWEST))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):  # the workers' collection is the queue's order
        items.sort(key=_rank)  # stable: each file's tests keep their order


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """With -n: whole groups (a file, or a SHARED group) to a worker. Not xdist's loadgroup
    marks: pytest 9 ignores the node id suffix they work by (each test went its own way)."""
    from xdist.scheduler import LoadScopeScheduling

    class ByGroup(LoadScopeScheduling):
        def __init__(self, config: pytest.Config, log: object) -> None:
            super().__init__(config, log)
            # The queue keeps the collection's order (pytest_collection_modifyitems), not
            # xdist's largest-count-first: a file's count says little about its time.
            config.option.loadscopereorder = False

        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return next((g for prefix, g in SHARED.items() if path.startswith(prefix)), path)

    return ByGroup(config, log)


def pytest_configure(config: pytest.Config) -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    url = os.environ.get(PG_ENV)
    if worker and url:
        os.environ[PG_ENV] = _worker_database(url, worker)
    if not worker:
        _compile_package()


def _compile_package() -> None:
    """hookgate's bytecode, written once before any worker starts, as an installed wheel has
    it (pip compiles what it installs). The editable checkout has none, and where
    ``PYTHONDONTWRITEBYTECODE`` is set (CI's machine sets it) every hook, CLI and server
    process a test starts would compile the whole package from source again (a warm hook:
    0.05 s with bytecode, 0.21 s without)."""
    import compileall
    from importlib.util import find_spec

    spec = find_spec("hookgate")
    for location in spec.submodule_search_locations if spec else ():
        compileall.compile_dir(location, quiet=1)


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
