"""The central policy server (FastAPI): versioned policies and data, dry-runs, signed bundles,
decision logs, tokens. ``create_app(store)`` builds it; ``hookgate serve`` runs it.

The app keeps no state of its own beyond caches keyed by the bundle revision (the compiled
active set, the signed bundle), so any number of processes can share one database.
"""

import json
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any

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

from hookgate import __version__, jsonio, recorded
from hookgate.lang.errors import PolicyError
from hookgate.masking import Masker
from hookgate.server import changesets, console, impact
from hookgate.server import models as api
from hookgate.server.auth import Admin, Agent, Editor, Viewer, admitted_from_cache
from hookgate.server.bundle import Bundler
from hookgate.server.metrics import CONTENT_TYPE, Metrics
from hookgate.server.store import (
    ActiveSet,
    Principal,
    Revision,
    Store,
    StoreError,
    canonical_json,
    merge_documents,
)

DEFAULT_MAX_BODY_BYTES = 1024 * 1024
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


def _diagnostics(error: PolicyError) -> list[dict]:
    return [{**d.to_dict(), "text": d.headline()} for d in error.diagnostics]


class ActiveEngine:
    """The compiled active set, rebuilt when the bundle revision moves."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._reading = threading.Lock()  # held while a background read of the revision runs
        self._cached: tuple[ActiveSet, Any] | None = None

    def cached(self) -> tuple[ActiveSet, Any] | None:
        """The compiled active set when it is known to be current, without any I/O.

        When the revision read is just past its freshness, the set is still answered while one
        background thread reads the revision again: otherwise every request arriving meanwhile
        would go to the database itself, all at once (a thundering herd, every second).
        """
        cached = self._cached
        if cached is None:
            return None
        revision = self._store.cached_revision()
        if revision is None:
            revision = self._store.cached_revision(stale_ok=True)
            if revision is None:  # no read has succeeded for a while: the route decides
                return None
            self._read_revision_in_background()
        return cached if cached[0].revision == revision else None

    def _read_revision_in_background(self) -> None:
        if not self._reading.acquire(blocking=False):
            return  # one read at a time

        def read() -> None:
            try:
                self._store.current_revision()
            except sqlalchemy.exc.SQLAlchemyError:
                pass  # the view goes stale; requests then take the route, which answers 503
            finally:
                self._reading.release()

        threading.Thread(target=read, name="hookgate-revision", daemon=True).start()

    def get(self) -> tuple[ActiveSet, Any]:
        revision = self._store.current_revision(cached_ok=True)
        cached = self._cached
        if cached is not None and cached[0].revision == revision:
            return cached
        with self._lock:
            if self._cached is None or self._cached[0].revision != revision:
                active = self._store.active_set()
                self._cached = (active, compile_set(active.policies, active.data))
            return self._cached


class _LimitsAndMetrics:
    """Pure ASGI middleware: refuses bodies over the limit with 413 before any handler reads
    them, and counts every request by route template and status. Requests that ``shortcut``
    answers (it returns a response, else ``None``) never reach the router."""

    def __init__(
        self,
        app: Any,
        max_body_bytes: int,
        metrics: Metrics,
        shortcut: Callable[[dict, bytes], Response | None],
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.metrics = metrics
        self.shortcut = shortcut

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        status = {"code": 500}

        async def send_counted(message: dict) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
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

            answer = self.shortcut(scope, body)
            await (self.app if answer is None else answer)(scope, replay, send_counted)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            self.metrics.request(scope["method"], template, status["code"])

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


def create_app(
    store: Store,
    *,
    masker: Masker | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
) -> FastAPI:
    """The API over ``store`` (already migrated)."""
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
    app.state.bundler = Bundler(store)
    app.state.engine = ActiveEngine(store)
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
    shortcut = _evaluate_shortcut(app)
    app.add_middleware(
        _LimitsAndMetrics, max_body_bytes=max_body_bytes, metrics=metrics, shortcut=shortcut
    )
    return app


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
        return JSONResponse({"detail": exc.message}, exc.status)

    @app.exception_handler(PolicyError)
    async def does_not_compile(_request: Request, exc: PolicyError) -> JSONResponse:
        detail = "the policy set would not compile; nothing was changed"
        return JSONResponse({"detail": detail, "diagnostics": _diagnostics(exc)}, 422)

    async def database_down(_request: Request, _exc: Exception) -> JSONResponse:
        return JSONResponse({"detail": "database unavailable; nothing was changed"}, 503)

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


async def _data_content(request: Request) -> str:
    try:
        return canonical_json(jsonio.loads((await request.body()).decode("utf-8")))
    except jsonio.DecodeError as exc:  # NaN and infinities too: a bundle could not carry them
        message = f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        raise _invalid("body", message) from None
    except UnicodeDecodeError as exc:
        raise _invalid("body", f"not UTF-8 (byte {exc.start})") from None
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

    def validate(policies: dict[str, str], data: dict) -> None:
        compile_set(policies, data)

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
        documents[_check_key("data", path, f"body.data.{path}")] = value
    return merged_policies, merge_documents(documents.items())


# The response's decision: what EvaluateOut documents of a Decision (never its input document
# or explain trace, which have their own fields or none).
DECISION_FIELDS = tuple(api.DecisionOut.model_fields)


class FastJSONResponse(JSONResponse):
    """JSON encoded by pydantic's serializer (the one FastAPI uses for response models, so the
    bytes are the same; NaN and infinities become null), several times faster than
    ``json.dumps`` and without a dependency of its own."""

    def render(self, content: Any) -> bytes:
        return pydantic_core.to_json(content, inf_nan_mode="null")


def _evaluation(
    metrics: Metrics, body: api.EvaluateIn, active: ActiveSet, engine: Any, draft: bool
) -> Response:
    """The dry-run's answer: ``body``'s payload evaluated by ``engine``."""
    started = time.perf_counter()
    # Facts are always given (empty by default), so the engine never reads this disk.
    decision = engine.evaluate(
        body.payload, body.host, facts=body.facts or {}, explain=body.explain
    )
    took = time.perf_counter() - started
    metrics.evaluation(took)
    metrics.decision(decision.outcome, "evaluate")
    response = decision.response(body.host)
    explained = getattr(decision, "explain", None) or {}
    # Built as plain JSON data and returned as a response: FastAPI then skips validating it
    # against EvaluateOut (the dict is made to its shape here), which cost more than everything
    # else on this path but the evaluation. The model still documents it.
    return FastJSONResponse(
        {
            "decision": {name: getattr(decision, name) for name in DECISION_FIELDS},
            "host": body.host or decision.host,
            "response": response.stdout or {},
            "exit_code": response.exit_code,
            "explain": explained.get("rules") if body.explain else None,
            "prints": explained.get("prints") or [],
            "took_ms": round(took * 1000, 3),
            "bundle_revision": active.revision,
            "draft": draft,
        }
    )


def _header(scope: dict, name: bytes) -> str | None:
    """The first value of a request header (``name`` in lower case), as Starlette reads it."""
    return next((v.decode("latin-1") for k, v in scope["headers"] if k == name), None)


def _evaluate_shortcut(app: FastAPI) -> Callable[[dict, bytes], Response | None]:
    """The answer to a common dry-run without the router: FastAPI's routing, dependency solving
    and exception layers cost a dry-run about 60 µs of CPU, more than a whole bare FastAPI
    request in process (about 50 µs; see bench/server_bench.py for the server as a whole).

    It answers only what POST /v1/evaluate would answer the same way with nothing but the
    caches: a token of the viewer role checked in the last seconds, a JSON body that is a
    valid ``EvaluateIn`` without drafts, and the compiled active set current. Anything else
    (no or unknown token, another media type, an invalid body, drafts, a cold cache) returns
    ``None`` and goes through the route, which answers it, errors included.
    """
    store: Store = app.state.store
    metrics: Metrics = app.state.metrics
    active_engine: ActiveEngine = app.state.engine
    route = next(r for r in app.routes if isinstance(r, APIRoute) and r.name == "evaluate")

    def shortcut(scope: dict, body: bytes) -> Response | None:
        if scope["path"] != route.path or scope["method"] != "POST":
            return None
        if _header(scope, b"content-type") != "application/json":
            return None
        if admitted_from_cache(store, _header(scope, b"authorization"), "viewer") is None:
            return None
        current = active_engine.cached()
        if current is None:
            return None
        try:
            # As the route reads it: Starlette's json.loads, then the model.
            request = api.EvaluateIn.model_validate(json.loads(body))
        except (ValueError, RecursionError):  # pydantic's ValidationError is a ValueError
            return None
        if request.policies is not None or request.data is not None:
            return None
        scope["route"] = route  # counted in the metrics under its template, as routed
        return _evaluation(metrics, request, *current, draft=False)

    return shortcut


def _add_evaluation_routes(app: FastAPI) -> None:
    metrics: Metrics = app.state.metrics
    active_engine: ActiveEngine = app.state.engine

    @app.post(
        "/v1/evaluate",
        tags=["dry-run"],
        summary="Evaluate a hook payload against the active set (and drafts)",
        response_model=api.EvaluateOut,
    )
    async def evaluate(
        _: Viewer,
        body: Annotated[api.EvaluateIn, Body(openapi_examples=api.EVALUATE_EXAMPLES)],
    ) -> Response:
        # _evaluate_shortcut answers the common case before routing; this answers the rest.
        # Database reads and compilation go to the thread pool; the evaluation itself runs
        # here: it is CPU-bound and bounded by the engine's budget, so under the GIL a thread
        # would not finish it sooner, and the hop costs more than a typical evaluation.
        current = active_engine.cached() or await run_in_threadpool(active_engine.get)
        active, engine = current
        draft = body.policies is not None or body.data is not None
        if draft:
            merged = _with_drafts(active, body.policies, body.data)
            engine = await run_in_threadpool(compile_set, *merged)
        return _evaluation(metrics, body, active, engine, draft)

    @app.post(
        "/v1/check",
        tags=["dry-run"],
        summary="Diagnostics for draft policies, checked with the rest of the active set",
        response_model=api.CheckOut,
    )
    def check(
        _: Viewer,
        body: Annotated[api.CheckIn, Body(openapi_examples=api.CHECK_EXAMPLES)],
    ) -> dict:
        active, _engine = active_engine.get()
        try:
            compile_set(*_with_drafts(active, body.policies, body.data))
        except PolicyError as exc:
            return {"ok": False, "diagnostics": _diagnostics(exc)}
        return {"ok": True, "diagnostics": []}


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
        for record in body.decisions:
            row = record.model_dump()
            row["decision_id"] = str(record.decision_id)
            row["time"] = _as_utc(record.time)
            row["command"] = masker.mask(record.command)  # masked again: never trust the client
            kept, truncated = recorded.keep(record.input, masker.mask)
            row["input"] = None if kept is None else canonical_json(kept)
            row["input_truncated"] = record.input_truncated or truncated
            rows.append(row)
        accepted, duplicates = store.add_decisions(rows, principal.name)
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
        since: Annotated[datetime | None, Query(description="Decision time ≥ this")] = None,
        until: Annotated[datetime | None, Query(description="Decision time < this")] = None,
        outcome: api.Outcome | None = None,
        pack: Annotated[str | None, Query(max_length=255)] = None,
        host: Annotated[str | None, Query(max_length=64)] = None,
        limit: Annotated[int, Query(ge=1, le=500)] = 100,
        cursor: Annotated[
            int | None, Query(ge=1, le=MAX_INT, description="next_cursor of the last page")
        ] = None,
    ) -> dict:
        items, next_cursor = store.query_decisions(
            since=since and _as_utc(since),
            until=until and _as_utc(until),
            outcome=outcome,
            pack=pack,
            host=host,
            limit=limit,
            cursor=cursor,
        )
        return {"decisions": items, "next_cursor": next_cursor}


def _as_utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


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
