"""The central policy server (FastAPI): versioned policies and data, dry-runs, signed bundles,
decision logs, tokens. ``create_app(store)`` builds it; ``hookgate serve`` runs it.

The app keeps no state of its own beyond caches keyed by the bundle revision (the compiled
active set, the signed bundle), so any number of processes can share one database.
"""

import asyncio
import contextlib
import hashlib
import logging
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Annotated, Any
from urllib.parse import parse_qsl

import anyio.from_thread
import pydantic_core
import re2  # request paths are untrusted: linear-time matching, as everywhere else
import sqlalchemy.exc
from fastapi import Body, Depends, FastAPI, Header, Path, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.routing import APIRoute
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException as StarletteHTTPException

from hookgate import __version__, bundle_format, jsonio, packcheck, recorded
from hookgate.lang.errors import Diagnostic, PolicyError
from hookgate.masking import Masker
from hookgate.server import changesets, console, dryrun, impact
from hookgate.server import models as api
from hookgate.server.auth import Admin, Agent, Editor, Viewer, bearer_token
from hookgate.server.bundle import Bundler
from hookgate.server.metrics import CONTENT_TYPE, Metrics
from hookgate.server.store import (
    CURSOR_PATTERN,
    TOKEN_PREFIX,
    ActiveSet,
    Principal,
    QuotaExceeded,
    Revision,
    Store,
    StoreError,
    canonical_json,
    merge_documents,
    parse_cursor,
)
from hookgate.server.workers import SET_LIMITS, WorkerLimitError, WorkerPool

DEFAULT_MAX_BODY_BYTES = 1024 * 1024
DEFAULT_DECISION_QUOTA = 200_000  # records per token per hour: ~55/s, far above one developer
AUTHENTICATED_PREFIXES = ("/v1/",)  # every route here needs a token
# Query parameters that would carry a bearer token; any value holding a hookgate token counts.
TOKEN_QUERY_KEYS = frozenset({"access_token", "token", "api_key", "apikey", "bearer", "auth"})
ACCESS_LOG = logging.getLogger("uvicorn.access")
RETENTION_INTERVAL_SECONDS = 3600
DEFAULT_RETENTION_DAYS = 90
DEFAULT_DRY_RUNS_PER_TOKEN = 2  # at once; the worker pool is shared by every token
DATABASE_DOWN = "database unavailable; nothing was changed"
MAX_DATA_DEPTH = 64  # nesting of a data document, its path's segments included
MAX_INT = api.MAX_INT
POLICY_ID = re2.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
DATA_SEGMENT = re2.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
RESERVED_SEGMENTS = {"revisions", "rollback"}  # route words after a data path

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


def compile_set(policies: dict[str, str], data: dict) -> Any:
    """Compile a policy set with the real engine; ``PolicyError`` when it does not compile."""
    from hookgate.engine import Engine

    return Engine.from_sources(policies, data, origin="server")


async def check_in_workers(workers: WorkerPool, policies: dict[str, str], data: dict) -> None:
    """``compile_set`` in the worker pool, under its limits: ``PolicyError`` when the set does
    not compile, ``WorkerLimitError`` when compiling it reached a limit."""
    found = await workers.run(dryrun.check, set_key(policies, data), policies, data)
    if found:
        fields = ("file", "line", "col", "message", "hint", "severity")
        raise PolicyError([Diagnostic(**{f: d[f] for f in fields if f in d}) for d in found])


def compile_in_workers(workers: WorkerPool, policies: dict[str, str], data: dict) -> None:
    """``check_in_workers`` from a route's thread (a change's validation runs in its database
    transaction, on the thread pool)."""
    anyio.from_thread.run(check_in_workers, workers, policies, data)


class ActiveSets:
    """The active set and its key for the workers' compile cache, read again when the bundle
    revision moves (compiled only in the workers)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._cached: tuple[ActiveSet, str] | None = None

    def get(self) -> tuple[ActiveSet, str]:
        revision = self._store.current_revision(cached_ok=True)
        cached = self._cached
        if cached is not None and cached[0].revision == revision:
            return cached
        with self._lock:
            if self._cached is None or self._cached[0].revision != revision:
                active = self._store.active_set()
                self._cached = (active, set_key(active.policies, active.data))
            return self._cached


def set_key(policies: dict[str, str], data: dict) -> str:
    """What identifies a policy set's compiled form: the hash of its sources and data."""
    text = canonical_json({"policies": policies, "data": data})
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class DryRunSlots:
    """At most ``per_token`` dry-runs in flight per token in this process; more get 429 (the
    worker pool is shared by everyone, so one token cannot hold all of it)."""

    def __init__(self, per_token: int) -> None:
        self.per_token = per_token
        self._running: dict[object, int] = {}

    @contextlib.contextmanager
    def hold(self, principal: Principal) -> Iterator[None]:
        key = principal.token_id or principal.name
        if self._running.get(key, 0) >= self.per_token:
            raise TooManyDryRuns(
                f"this token already has {self.per_token} dry-runs running; retry when one ends"
            )
        self._running[key] = self._running.get(key, 0) + 1
        try:
            yield
        finally:
            self._running[key] -= 1
            if not self._running[key]:
                del self._running[key]


class TooManyDryRuns(StoreError):
    status = 429


class _Gate:
    """Pure ASGI middleware in front of every route.

    In order: refuses a token in the query string (400: URLs end up in logs and histories);
    authenticates ``/v1/`` requests from the Authorization header alone (401 before a byte of
    the body is read, so an unauthenticated client cannot make the server read or parse
    anything); refuses bodies over the limit with 413 before any handler reads them; counts
    every request by route template and status; and writes the access log line itself, with secrets
    in the query string masked (uvicorn's own access log would print the URL as sent).
    """

    def __init__(
        self,
        app: Any,
        store: Store,
        max_body_bytes: int,
        metrics: Metrics,
        masker: Masker,
        access_log: bool,
    ) -> None:
        self.app = app
        self.store = store
        self.max_body_bytes = max_body_bytes
        self.metrics = metrics
        self.masker = masker
        self.access_log = access_log

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        status = {"code": 500}

        async def send_counted(message: dict) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            refused = await self._refusal(scope)
            if refused is not None:
                await refused(scope, receive, send_counted)
                return
            body = await self._read_body(scope, receive)
            if body is None:
                detail = f"request body larger than {self.max_body_bytes} bytes"
                await JSONResponse({"detail": detail}, 413)(scope, receive, send_counted)
                return
            replayed = False

            async def replay() -> dict:
                nonlocal replayed
                if replayed:
                    return await receive()
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}

            await self.app(scope, replay, send_counted)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            self.metrics.request(scope["method"], template, status["code"])
            if self.access_log:
                self._log(scope, status["code"])

    async def _refusal(self, scope: dict) -> Response | None:
        """The answer to a request refused before its body is read, else ``None``."""
        query = scope.get("query_string", b"").decode("latin-1")
        if query:
            for name, value in parse_qsl(query, keep_blank_values=True):
                if name.lower() in TOKEN_QUERY_KEYS or TOKEN_PREFIX in value:
                    detail = [
                        {
                            "loc": ["query", name],
                            "msg": "tokens go in the Authorization header, never in the URL",
                            "type": "value_error",
                            "field": f"query.{name}",
                        }
                    ]
                    return JSONResponse({"detail": detail}, 400)
        if not scope["path"].startswith(AUTHENTICATED_PREFIXES):
            return None
        token = bearer_token(_header(scope, b"authorization"))
        if token is None:
            return _unauthorized("missing bearer token (Authorization: Bearer …)")
        if self.store.cached_principal(token) is None:
            try:
                principal = await run_in_threadpool(self.store.authenticate, token)
            except (sqlalchemy.exc.OperationalError, sqlalchemy.exc.InterfaceError):
                return JSONResponse({"detail": DATABASE_DOWN}, 503)
            if principal is None:
                return _unauthorized("unknown or revoked token")
        return None  # the route's dependency checks the role (and finds the token cached)

    async def _read_body(self, scope: dict, receive: Any) -> bytes | None:
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            return None
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                return None
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        return b"".join(chunks)

    def _log(self, scope: dict, status: int) -> None:
        path = scope.get("root_path", "") + scope["path"]
        query = scope.get("query_string", b"").decode("latin-1")
        if query:
            path += self.masker.mask("?" + query)
        client = scope.get("client")
        where = f"{client[0]}:{client[1]}" if client else "-"
        version = scope.get("http_version", "1.1")
        # uvicorn's logger and argument order, so its formatter (and colours) apply as before.
        ACCESS_LOG.info('%s - "%s %s HTTP/%s" %d', where, scope["method"], path, version, status)


def _header(scope: dict, name: bytes) -> str | None:
    """The first value of a request header (``name`` in lower case), as Starlette reads it."""
    return next((v.decode("latin-1") for k, v in scope["headers"] if k == name), None)


def _unauthorized(detail: str) -> JSONResponse:
    return JSONResponse({"detail": detail}, 401, headers={"WWW-Authenticate": "Bearer"})


def create_app(
    store: Store,
    *,
    masker: Masker | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    decision_quota: int = DEFAULT_DECISION_QUOTA,
    access_log: bool = False,
    workers: WorkerPool | None = None,
    dry_runs_per_token: int = DEFAULT_DRY_RUNS_PER_TOKEN,
    retention_days: int = 0,
) -> FastAPI:
    """The API over ``store`` (already migrated). ``decision_quota``: decision records one
    token may upload per hour (0: no quota). ``access_log``: a line per request on uvicorn's
    access logger, secrets masked."""
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
    app.state.workers = workers or WorkerPool(initializer=dryrun.warm_up)
    app.state.dry_runs = DryRunSlots(dry_runs_per_token)
    app.router.on_shutdown.append(app.state.workers.close)
    if retention_days:
        _add_retention(app, store, retention_days)
    _add_error_handlers(app)
    # Starlette tries routes in order: the hot ones (hooks, dry-runs) first.
    _add_bundle_routes(app)
    _add_decision_routes(app)
    _add_evaluation_routes(app)
    _add_health_routes(app, store, metrics)
    _add_document_routes(app, "policy", "/v1/policies", "{id}", _policy_content)
    _add_document_routes(app, "data", "/v1/data", "{path:path}", _data_content)
    _add_token_routes(app)
    app.include_router(changesets.router)
    app.include_router(impact.router)
    app.include_router(console.router)
    app.add_middleware(
        _Gate,
        store=store,
        max_body_bytes=max_body_bytes,
        metrics=metrics,
        masker=app.state.masker,
        access_log=access_log,
    )
    return app


def _add_retention(app: FastAPI, store: Store, days: int) -> None:
    """Delete decision records older than ``days`` at start and every hour (every instance
    does; deleting what another already deleted costs one indexed query)."""
    task: list[asyncio.Task] = []

    async def purge_forever() -> None:
        while True:
            before = datetime.now(UTC) - timedelta(days=days)
            try:
                await run_in_threadpool(store.purge_decisions, before)
            except sqlalchemy.exc.SQLAlchemyError:
                logging.getLogger("hookgate.server").warning("decision retention: database error")
            await asyncio.sleep(RETENTION_INTERVAL_SECONDS)

    async def start() -> None:
        task.append(asyncio.create_task(purge_forever()))

    async def stop() -> None:
        for t in task:
            t.cancel()

    app.router.on_startup.append(start)
    app.router.on_shutdown.append(stop)


# -- errors ----------------------------------------------------------------------------------


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 405:
            # Each method of a path is its own route, so Starlette's Allow names only one.
            allowed = ", ".join(sorted(_allowed_methods(request)))
            exc = StarletteHTTPException(405, exc.detail, {"Allow": allowed})
        return await http_exception_handler(request, exc)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        # pydantic's errors carry the offending input; it may hold secrets, so it is dropped.
        items = [
            {
                "loc": [str(p) if not isinstance(p, int) else p for p in error["loc"]],
                "msg": error["msg"],
                "type": error["type"],
                "field": ".".join(str(p) for p in error["loc"]),
            }
            for error in exc.errors()
        ]
        return JSONResponse({"detail": items}, 422)

    @app.exception_handler(StoreError)
    async def refused(_request: Request, exc: StoreError) -> JSONResponse:
        headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, QuotaExceeded) else {}
        return JSONResponse({"detail": exc.message}, exc.status, headers=headers)

    @app.exception_handler(packcheck.PackCheckError)
    async def pack_fails(_request: Request, exc: packcheck.PackCheckError) -> JSONResponse:
        detail = f"a guard pack would fail: {exc}; nothing was changed"
        return JSONResponse({"detail": detail, "packs": exc.problems}, 422)

    @app.exception_handler(PolicyError)
    async def does_not_compile(_request: Request, exc: PolicyError) -> JSONResponse:
        detail = "the policy set would not compile; nothing was changed"
        return JSONResponse({"detail": detail, "diagnostics": dryrun.diagnostics(exc)}, 422)

    @app.exception_handler(WorkerLimitError)
    async def stopped(_request: Request, exc: WorkerLimitError) -> JSONResponse:
        return JSONResponse({"detail": f"the dry-run {exc}", "limit": exc.limit}, 422)

    async def database_down(_request: Request, _exc: Exception) -> JSONResponse:
        return JSONResponse({"detail": DATABASE_DOWN}, 503)

    # Unreachable, refusing or locked: the request can be retried. Other database errors are
    # bugs, and stay 500s.
    app.add_exception_handler(sqlalchemy.exc.OperationalError, database_down)
    app.add_exception_handler(sqlalchemy.exc.InterfaceError, database_down)


def _allowed_methods(request: Request) -> set[str]:
    """The methods of every route that serves this URL (a data path holding a route word
    such as ``revisions`` names no document, so that reading of the URL does not count)."""
    allowed = set()
    for route in request.app.routes:
        match = isinstance(route, APIRoute) and route.path_regex.match(request.url.path)
        data_path = match and match.groupdict().get("path")
        if match and not (data_path and RESERVED_SEGMENTS & set(data_path.split("/"))):
            allowed |= route.methods
    return allowed


def _invalid(field: str, message: str) -> RequestValidationError:
    loc = tuple(field.split("."))
    return RequestValidationError([{"loc": loc, "msg": message, "type": "value_error"}])


# -- health ----------------------------------------------------------------------------------


def _add_health_routes(app: FastAPI, store: Store, metrics: Metrics) -> None:
    @app.get("/healthz", tags=["health"], summary="The process is up (no authentication)")
    def healthz() -> dict:
        return {"status": "ok"}

    @app.get(
        "/readyz",
        tags=["health"],
        summary="The database is reachable (no authentication)",
        responses={503: {"model": api.ErrorOut}},
    )
    def readyz() -> dict:
        store.ping()
        return {"status": "ready"}

    @app.get(
        "/metrics",
        tags=["health"],
        summary="Prometheus metrics (no authentication)",
        response_class=PlainTextResponse,
    )
    def metrics_text() -> PlainTextResponse:
        return PlainTextResponse(metrics.render(), media_type=CONTENT_TYPE)


# -- policies and data -----------------------------------------------------------------------


def _check_key(kind: str, key: str, field: str) -> str:
    """``key`` if it is a valid policy id or data path; else a 422 naming ``field``."""
    if kind == "policy":
        if not POLICY_ID.match(key):
            raise _invalid(field, "policy id: letters, digits, _ . - (at most 128)")
        return key
    segments = key.split("/")
    if len(segments) > 8 or not all(DATA_SEGMENT.match(s) for s in segments):
        raise _invalid(field, "data path: 1-8 identifiers ([A-Za-z_][A-Za-z0-9_]*) joined by /")
    if RESERVED_SEGMENTS & set(segments):
        raise _invalid(field, "data path: 'revisions' and 'rollback' are reserved")
    return key


# Path parameters as dependencies, so they are checked before any body is read.
def _policy_id(id: Annotated[str, Path(description="Policy id, e.g. no_verify.rego")]) -> str:
    return _check_key("policy", id, "path.id")


def _data_path(
    request: Request,
    path: Annotated[
        str, Path(description="Data path, e.g. hookgate/config (data.hookgate.config)")
    ],
) -> str:
    if RESERVED_SEGMENTS & set(path.split("/")):
        # A route word, not a document: PUT /v1/data/x/revisions is a wrong method (405, the
        # handler lists Allow); GET /v1/data/revisions/revisions/1 names nothing (404).
        if _allowed_methods(request):
            raise StarletteHTTPException(405, "Method Not Allowed")
        raise StarletteHTTPException(404, f"data {path}: 'revisions', 'rollback' are route words")
    return _check_key("data", path, "path.path")


async def _policy_content(request: Request) -> str:
    try:
        text = (await request.body()).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _invalid("body", f"policy text is not UTF-8 (byte {exc.start})") from None
    if not text.strip():
        raise _invalid("body", "policy text is empty")
    return text


def _check_depth(path: str, value: object, field: str) -> None:
    """A 422 naming ``field`` when ``value`` placed at data ``path`` nests deeper than
    ``MAX_DATA_DEPTH``: the bundle and every answer that carries it must stay writable."""
    limit = MAX_DATA_DEPTH - path.count("/") - 1
    stack = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            message = f"data nested deeper than {MAX_DATA_DEPTH} levels (its path included)"
            raise _invalid(field, message)
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))


async def _data_content(request: Request) -> str:
    try:
        value = jsonio.loads((await request.body()).decode("utf-8"))
        _check_depth(request.path_params["path"], value, "body")
        text = canonical_json(value)
        text.encode("utf-8")  # JSON's "\ud800" parses to a lone surrogate, which cannot be stored
        return text
    except jsonio.DecodeError as exc:  # NaN and infinities too: a bundle could not carry them
        message = f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        raise _invalid("body", message) from None
    except UnicodeDecodeError as exc:
        raise _invalid("body", f"not UTF-8 (byte {exc.start})") from None
    except UnicodeEncodeError:
        raise _invalid(
            "body", "a string holds a lone surrogate (\\ud800 without its pair)"
        ) from None
    except RecursionError:
        raise _invalid("body", "JSON nested too deeply") from None


IfMatch = Annotated[
    str | None,
    Header(description="The ETag you read (or *); required to change an existing document"),
]
Message = Annotated[str, Query(max_length=2000, description="Why; kept with the revision")]
_CHANGE_ERRORS: dict = {
    412: {"model": api.ErrorOut, "description": "If-Match is stale: read it again."},
    428: {"model": api.ErrorOut, "description": "If-Match is required to change it."},
}


def _revision_out(revision: Revision, with_content: bool = True) -> dict:
    return {
        "id": revision.key,
        "revision": revision.number,
        "op": revision.op,
        "content": revision.value() if with_content else None,
        "content_hash": revision.content_hash,
        "author": revision.author,
        "message": revision.message,
        "created_at": revision.created_at,
        "bundle_revision": revision.set_revision,
        "etag": revision.etag,
    }


def _add_document_routes(app: FastAPI, kind: str, base: str, param: str, content: Any) -> None:
    """GET/PUT/DELETE, list, revisions and rollback of one kind of document; policies and data
    share everything but the body's media type."""
    store: Store = app.state.store
    item = f"{base}/{param}"
    tags = ["policies" if kind == "policy" else "data"]
    Key = Annotated[str, Depends(_policy_id if kind == "policy" else _data_path)]
    if kind == "policy":
        media = {"text/plain": {"schema": {"type": "string"}, "example": api.POLICY_EXAMPLE}}
    else:
        media = {
            "application/json": {
                "schema": {},
                "example": {"protected_branches": ["main", "release/*"]},
            }
        }
    body_doc = {"requestBody": {"required": True, "content": media}}

    workers: WorkerPool = app.state.workers

    def validate(policies: dict[str, str], data: dict) -> None:
        # Compiles the set (PolicyError: 422 with diagnostics), then runs its packs' tests and
        # smoke payloads (PackCheckError: 422 naming the failing pack and input), both in the
        # worker pool: a change's policies are user-supplied code.
        compile_in_workers(workers, policies, data)
        found = anyio.from_thread.run(
            partial(workers.run, packcheck.problems, policies, data, limits=SET_LIMITS)
        )
        if found:
            raise packcheck.PackCheckError(found)

    def change(key: str, principal: Principal, **kwargs: Any) -> Revision:
        return store.change(kind, key, author=principal.name, validate=validate, **kwargs)

    def etag_response(revision: Revision, response: Response) -> dict:
        response.headers["ETag"] = revision.etag
        return _revision_out(revision)

    @app.get(
        base,
        tags=tags,
        summary=f"List the current {kind} documents (without content)",
        response_model=api.RevisionList,
    )
    def list_documents(_: Viewer) -> dict:
        return {"revisions": [_revision_out(r, False) for r in store.list(kind)]}

    @app.get(
        f"{item}/revisions",
        tags=tags,
        summary="Every revision, oldest first",
        response_model=api.RevisionList,
    )
    def list_revisions(_: Viewer, key: Key) -> dict:
        found = store.revisions(kind, key)
        return {"revisions": [_revision_out(r) for r in found]}

    @app.get(
        f"{item}/revisions/{{number}}",
        tags=tags,
        summary="One revision",
        response_model=api.RevisionOut,
    )
    def get_revision(_: Viewer, key: Key, number: Annotated[int, Path(ge=1, le=MAX_INT)]) -> dict:
        return _revision_out(store.revision(kind, key, number))

    @app.post(
        f"{item}/rollback",
        tags=tags,
        summary="Make an earlier revision's content current again (a new revision)",
        response_model=api.RevisionOut,
        responses=_CHANGE_ERRORS,
    )
    def rollback(
        principal: Editor,
        response: Response,
        body: api.RollbackIn,
        key: Key,
        if_match: IfMatch = None,
    ) -> dict:
        message = body.message or f"rollback to revision {body.revision}"
        revision = change(
            key,
            principal,
            content=None,
            if_match=if_match,
            message=message,
            rollback_to=body.revision,
        )
        return etag_response(revision, response)

    @app.get(
        item,
        tags=tags,
        summary="The current content, with its ETag",
        response_model=api.RevisionOut,
    )
    def get_document(_: Viewer, response: Response, key: Key) -> dict:
        return etag_response(store.get(kind, key), response)

    @app.put(
        item,
        tags=tags,
        summary="Create, or change with If-Match",
        response_model=api.RevisionOut,
        openapi_extra=body_doc,
        responses={201: {"model": api.RevisionOut}, **_CHANGE_ERRORS},
    )
    def put_document(
        principal: Editor,
        response: Response,
        key: Key,
        text: Annotated[str, Depends(content)],
        message: Message = "",
        if_match: IfMatch = None,
    ) -> dict:
        revision = change(key, principal, content=text, if_match=if_match, message=message)
        response.status_code = 201 if revision.number == 1 else 200
        return etag_response(revision, response)

    @app.delete(
        item,
        tags=tags,
        summary="Delete with If-Match (a new revision; the history stays)",
        response_model=api.RevisionOut,
        responses=_CHANGE_ERRORS,
    )
    def delete_document(
        principal: Editor, key: Key, message: Message = "", if_match: IfMatch = None
    ) -> dict:
        revision = change(key, principal, content=None, if_match=if_match, message=message)
        return _revision_out(revision)


# -- dry-runs --------------------------------------------------------------------------------


def _with_drafts(
    active: ActiveSet, policies: dict[str, str | None] | None, data: dict[str, Any] | None
) -> tuple[dict[str, str], dict]:
    """The active set with draft policies and data documents laid over it."""
    merged_policies = dict(active.policies)
    for key, text in (policies or {}).items():
        _check_key("policy", key, f"body.policies.{key}")
        if text is None:
            merged_policies.pop(key, None)
        else:
            merged_policies[key] = text
    documents = dict(active.documents)
    for path, value in (data or {}).items():
        field = f"body.data.{path}"
        _check_depth(_check_key("data", path, field), value, field)
        documents[path] = value
    return merged_policies, merge_documents(documents.items())


# The response's decision: what EvaluateOut documents of a Decision (never its input document
# or explain trace, which have their own fields or none).
DECISION_FIELDS = tuple(api.DecisionOut.model_fields)


class FastJSONResponse(JSONResponse):
    """JSON encoded by pydantic's serializer (the one FastAPI uses for response models, so the
    bytes are the same; NaN and infinities become null), several times faster than
    ``json.dumps`` and without a dependency of its own."""

    def render(self, content: Any) -> bytes:
        try:
            return pydantic_core.to_json(content, inf_nan_mode="null")
        except pydantic_core.PydanticSerializationError:
            # A payload's JSON may hold a lone surrogate ("\ud800"), and a decision can echo
            # it: no UTF-8 can carry one, so it is answered as U+FFFD.
            return pydantic_core.to_json(_scrubbed(content), inf_nan_mode="null")


def _scrubbed(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings replaced by U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {_scrubbed(k): _scrubbed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrubbed(v) for v in value]
    return value


def _draft_set(
    active: ActiveSet, key: str, body: api.EvaluateIn | api.CheckIn
) -> tuple[str, dict[str, str], dict]:
    """The policy set a dry-run evaluates, with its key: the active set, drafts laid over."""
    if body.policies is None and body.data is None:
        return key, active.policies, active.data
    policies, data = _with_drafts(active, body.policies, body.data)
    return set_key(policies, data), policies, data


def _add_evaluation_routes(app: FastAPI) -> None:
    metrics: Metrics = app.state.metrics
    active_sets: ActiveSets = app.state.active
    workers: WorkerPool = app.state.workers
    slots: DryRunSlots = app.state.dry_runs

    @app.post(
        "/v1/evaluate",
        tags=["dry-run"],
        summary="Evaluate a hook payload against the active set (and drafts)",
        response_model=api.EvaluateOut,
        responses=_DRY_RUN_ERRORS,
    )
    async def evaluate(
        principal: Viewer,
        body: Annotated[api.EvaluateIn, Body(openapi_examples=api.EVALUATE_EXAMPLES)],
    ) -> Response:
        with slots.hold(principal):
            active, key = await run_in_threadpool(active_sets.get)
            key, policies, data = _draft_set(active, key, body)
            request = body.model_dump(include={"payload", "host", "facts", "explain"})
            answer = await workers.run(
                dryrun.evaluate, key, policies, data, request, DECISION_FIELDS
            )
        if "diagnostics" in answer:
            detail = "the policy set would not compile"
            return JSONResponse({"detail": detail, "diagnostics": answer["diagnostics"]}, 422)
        metrics.evaluation(answer["took_ms"] / 1000)
        metrics.decision(answer["decision"]["outcome"], "evaluate")
        # Built as plain JSON data: FastAPI then skips validating it against EvaluateOut (the
        # worker made it to that shape). The model still documents it.
        draft = body.policies is not None or body.data is not None
        answer |= {"bundle_revision": active.revision, "draft": draft}
        return FastJSONResponse(answer)

    @app.post(
        "/v1/check",
        tags=["dry-run"],
        summary="Diagnostics for draft policies, checked with the rest of the active set",
        response_model=api.CheckOut,
        responses=_DRY_RUN_ERRORS,
    )
    async def check(
        principal: Viewer,
        body: Annotated[api.CheckIn, Body(openapi_examples=api.CHECK_EXAMPLES)],
    ) -> dict:
        with slots.hold(principal):
            active, key = await run_in_threadpool(active_sets.get)
            found = await workers.run(dryrun.check, *_draft_set(active, key, body))
        return {"ok": not found, "diagnostics": found}


_DRY_RUN_ERRORS: dict = {
    429: {"model": api.ErrorOut, "description": "Too many dry-runs of this token at once."},
    422: {
        "model": api.ErrorOut,
        "description": "Invalid request, drafts that do not compile, or a dry-run stopped at "
        "its CPU, wall-time or memory limit (`limit` names it).",
    },
}


# -- bundles ---------------------------------------------------------------------------------


def _add_bundle_routes(app: FastAPI) -> None:
    bundler: Bundler = app.state.bundler

    @app.get(
        "/v1/bundle",
        tags=["bundle"],
        summary="The signed active set (ETag / If-None-Match → 304)",
        response_model=api.BundleOut,
        responses={304: {"description": "Unchanged since the ETag you sent."}},
    )
    def bundle(_: Agent, if_none_match: Annotated[str | None, Header()] = None) -> Response:
        current = bundler.bundle()
        etag = f'"{current["digest"]}"'
        headers = {"ETag": etag, "Cache-Control": "no-cache"}
        headers[bundle_format.FRESHNESS_HEADER] = bundler.freshness(current)
        if if_none_match is not None and etag in [t.strip() for t in if_none_match.split(",")]:
            return Response(status_code=304, headers=headers)
        return JSONResponse(current, headers=headers)

    @app.get(
        "/v1/bundle/key",
        tags=["bundle"],
        summary="The public key that verifies bundle signatures",
        response_model=api.KeyOut,
    )
    def bundle_key(_: Agent) -> dict:
        return bundler.public_key()


# -- decision logs ---------------------------------------------------------------------------


RECORD_FIELDS = tuple(api.DecisionRecordIn.model_fields)


def _add_decision_routes(app: FastAPI) -> None:
    store: Store = app.state.store
    masker: Masker = app.state.masker
    metrics: Metrics = app.state.metrics

    @app.post(
        "/v1/decisions",
        tags=["decisions"],
        summary="Upload a batch of decision records (idempotent on decision_id)",
        response_model=api.DecisionBatchOut,
    )
    def upload(principal: Agent, body: api.DecisionBatchIn) -> dict:
        rows = []
        current = None
        for i, record in enumerate(body.decisions):
            if record.bundle_revision is not None:
                current = current or store.current_revision(cached_ok=True)
                if record.bundle_revision > current:
                    field = f"body.decisions.{i}.bundle_revision"
                    raise _invalid(field, f"no such bundle revision yet (the latest is {current})")
            # A plain dict of the fields (model_dump would copy the input document too).
            row = {name: getattr(record, name) for name in RECORD_FIELDS}
            row["decision_id"] = str(record.decision_id)
            row["matches"] = [dict(match) for match in record.matches]
            row["command"] = masker.mask(record.command)  # masked again: never trust the client
            row["input"], truncated = recorded.keep_json(record.input, masker.mask)
            row["input_truncated"] = record.input_truncated or truncated
            rows.append(row)
        accepted, duplicates = store.add_decisions(
            rows,
            principal.name,
            token_id=principal.token_id,
            hourly_quota=app.state.decision_quota,
        )
        for row in rows:
            metrics.decision(row["outcome"], "upload")
        return {"accepted": accepted, "duplicates": duplicates}

    @app.get(
        "/v1/decisions",
        tags=["decisions"],
        summary="Decision records, newest first, filtered and paginated",
        response_model=api.DecisionPage,
    )
    def list_decisions(
        _: Viewer,
        since: Annotated[api.UTCDateTime | None, Query(description="Decision time ≥ this")] = None,
        until: Annotated[api.UTCDateTime | None, Query(description="Decision time < this")] = None,
        outcome: api.Outcome | None = None,
        pack: Annotated[str | None, Query(max_length=255)] = None,
        host: Annotated[str | None, Query(max_length=64)] = None,
        session_id: Annotated[str | None, Query(max_length=255)] = None,
        token_id: Annotated[
            int | None, Query(ge=1, le=MAX_INT, description="The uploading token's id")
        ] = None,
        limit: Annotated[int, Query(ge=1, le=500)] = 100,
        cursor: Annotated[
            str | None,
            Query(pattern=f"^{CURSOR_PATTERN}$", description="next_cursor of the last page"),
        ] = None,
    ) -> dict:
        if cursor is not None:
            try:
                parse_cursor(cursor)
            except ValueError as exc:
                raise _invalid("query.cursor", str(exc)) from None
        items, next_cursor = store.query_decisions(
            since=since,
            until=until,
            outcome=outcome,
            pack=pack,
            host=host,
            session_id=session_id,
            token_id=token_id,
            limit=limit,
            cursor=cursor,
        )
        return {"decisions": items, "next_cursor": next_cursor}


# -- tokens ----------------------------------------------------------------------------------


def _add_token_routes(app: FastAPI) -> None:
    store: Store = app.state.store

    @app.post(
        "/v1/tokens",
        tags=["tokens"],
        summary="Create a token (shown once)",
        status_code=201,
        response_model=api.NewTokenOut,
    )
    def create_token(_: Admin, body: api.TokenIn) -> dict:
        return {
            "name": body.name,
            "role": body.role,
            "token": store.create_token(body.role, body.name),
        }

    @app.get(
        "/v1/tokens",
        tags=["tokens"],
        summary="Every token (never the token itself)",
        response_model=api.TokenList,
    )
    def list_tokens(_: Admin) -> dict:
        return {"tokens": store.list_tokens()}

    @app.delete(
        "/v1/tokens/{token_id}",
        tags=["tokens"],
        summary="Revoke a token",
        status_code=204,
    )
    def revoke_token(token_id: Annotated[int, Path(ge=1, le=MAX_INT)], _: Admin) -> Response:
        store.revoke_token(token_id)
        return Response(status_code=204)


__all__ = ["DEFAULT_MAX_BODY_BYTES", "create_app"]
