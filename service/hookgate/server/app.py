"""The central policy server (FastAPI): versioned policies and data, dry-runs, signed bundles,
decision logs, tokens. ``create_app(store)`` builds it; ``hookgate serve`` runs it.

The app keeps no state of its own beyond caches keyed by the bundle revision (the compiled
active set, the signed bundle), so any number of processes can share one database. This module
only assembles it: the routes are in ``routes/`` (and ``console/``), the checks they share in
``deps.py``, the middleware in front of them in ``gate.py``.
"""

from functools import partial

import anyio.to_thread
from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

from hookgate import __version__
from hookgate.masking import Masker
from hookgate.server import console, dryrun
from hookgate.server import models as api
from hookgate.server.bundle import Bundler
from hookgate.server.compilation import ActiveSets
from hookgate.server.console import signon
from hookgate.server.deps import data_content, policy_content
from hookgate.server.errors import add_error_handlers
from hookgate.server.gate import Gate
from hookgate.server.metrics import Metrics
from hookgate.server.oidc import Provider
from hookgate.server.retention import add_retention
from hookgate.server.routes import (
    bundle,
    changesets,
    decisions,
    documents,
    evaluation,
    health,
    impact,
    modes,
    tokens,
)
from hookgate.server.sessions import Sessions
from hookgate.server.store import Store
from hookgate.server.workers import WorkerPool

DEFAULT_MAX_BODY_BYTES = 1024 * 1024
DEFAULT_DECISION_QUOTA = 200_000  # records per token per hour: ~55/s, far above one developer
DEFAULT_RETENTION_DAYS = 90
DEFAULT_DRY_RUNS_PER_TOKEN = 2  # evaluations at once; the worker pool is shared by every token
DEFAULT_WORKER_QUEUE = 8  # evaluations waiting for a worker; more get 429
# Request threads that no evaluation can hold while it waits for a worker (at most the pool's
# size plus its queue wait, each on a thread): the agents' bundle polls and uploads, sign-ins.
RESERVED_THREADS = 16

DESCRIPTION = """\
Policies and data for every developer's hookgate, in one place.

* **Authorize** with an API token (`hookgate token create --role viewer`). Roles, each with the
  rights of those before it: `agent` (bundle, key, decision upload) < `viewer` (read, dry-run)
  < `editor` (policies, data) < `admin` (tokens).
* Changes are immutable revisions. To change or delete an existing document, send `If-Match`
  with the `ETag` you read (or `*`): a stale one gets **412**, none at all **428**. A change
  that would break compilation of the active set is refused with **422** and diagnostics.
* `POST /v1/evaluate` is a dry-run: try the examples, or send draft policies with them.
"""


def create_app(
    store: Store,
    *,
    masker: Masker | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    decision_quota: int = DEFAULT_DECISION_QUOTA,
    access_log: bool = False,
    workers: WorkerPool | None = None,
    dry_runs_per_token: int = DEFAULT_DRY_RUNS_PER_TOKEN,
    worker_queue: int = DEFAULT_WORKER_QUEUE,
    retention_days: int = 0,
    sessions: Sessions | None = None,
    public_url: str | None = None,
    oidc: Provider | None = None,
    recorded_role: str = "editor",
) -> FastAPI:
    """The API over ``store`` (already migrated). ``decision_quota``: decision records one
    token may upload per hour (0: no quota). ``access_log``: a line per request on uvicorn's
    access logger, secrets masked. ``sessions``: the console's (default lifetime and idle
    timeout). ``oidc``: the console's single sign-on provider, if any. ``recorded_role``: the
    least role that reads recorded inputs and output (and replays them in impact); lower roles
    see decisions without them. ``dry_runs_per_token``, ``worker_queue``: the admission limits
    of the worker pool made when no ``workers`` is given (``workers.py``)."""
    app = FastAPIOffline(
        title="hookgate",
        version=__version__,
        description=DESCRIPTION,
        swagger_ui_parameters={"persistAuthorization": True, "displayRequestDuration": True},
        responses={
            400: {"model": api.ErrorOut, "description": "A body that cannot be parsed."},
            401: {"model": api.ErrorOut, "description": "No token, or an unknown one."},
            403: {"model": api.ErrorOut, "description": "The token's role is too low."},
            404: {"model": api.ErrorOut, "description": "No such document, revision or token."},
            413: {"model": api.ErrorOut, "description": "The request body is too large."},
            422: {
                "model": api.ErrorOut,
                "description": "Invalid request (the field is named), or policies that do not "
                "compile (with file:line:col diagnostics).",
            },
            503: {"model": api.ErrorOut, "description": "The database is unreachable."},
        },
    )
    metrics = Metrics()
    app.state.store = store
    app.state.metrics = metrics
    app.state.masker = masker or Masker()
    app.state.decision_quota = decision_quota
    app.state.bundler = Bundler(store)
    app.state.active = ActiveSets(store)
    app.state.workers = workers or WorkerPool(
        initializer=dryrun.warm_up, per_owner=dry_runs_per_token, max_queue=worker_queue
    )
    app.state.sessions = sessions or Sessions(store.engine)
    app.state.public_url = public_url
    app.state.oidc = oidc
    app.state.recorded_role = recorded_role
    app.router.on_startup.append(partial(_reserve_threads, app.state.workers))
    app.router.on_shutdown.append(app.state.workers.close)
    if retention_days:
        add_retention(app, store, retention_days)
    add_error_handlers(app)
    # Starlette tries routes in order: the hot ones (hooks, dry-runs) first.
    bundle.add_routes(app)
    decisions.add_routes(app)
    evaluation.add_routes(app)
    health.add_routes(app)
    documents.add_routes(app, "policy", "/v1/policies", "{id}", policy_content)
    documents.add_routes(app, "data", "/v1/data", "{path:path}", data_content)
    documents.add_base_routes(app)
    modes.add_routes(app, documents.validator(app))
    tokens.add_routes(app)
    app.include_router(changesets.router)
    app.include_router(impact.router)
    app.include_router(console.router)
    app.include_router(signon.router)
    app.add_middleware(
        Gate,
        store=store,
        max_body_bytes=max_body_bytes,
        metrics=metrics,
        masker=app.state.masker,
        access_log=access_log,
    )
    return app


async def _reserve_threads(workers: WorkerPool) -> None:
    """Grow the request thread pool so that ``RESERVED_THREADS`` stay free however many
    evaluations wait on the worker pool (sync routes and the console's checks wait on threads)."""
    limiter = anyio.to_thread.current_default_thread_limiter()
    needed = workers.size + workers.max_queue + RESERVED_THREADS
    limiter.total_tokens = max(limiter.total_tokens, needed)


__all__ = ["DEFAULT_MAX_BODY_BYTES", "create_app"]
