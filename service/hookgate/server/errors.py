"""The API's error answers: validation errors without the offending input (it may hold
secrets), refusals of the store, policy sets that do not compile or whose packs fail, dry-runs
stopped at a limit, 429 when the worker pool refuses more work, and 503 while the database is unreachable."""

import sqlalchemy.exc
from fastapi import FastAPI, Request, Response
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from hookgate import packcheck
from hookgate.lang.errors import PolicyError
from hookgate.server import dryrun
from hookgate.server.deps import allowed_methods
from hookgate.server.store import QuotaExceeded, StoreError
from hookgate.server.workers import Busy, WorkerLimitError

DATABASE_DOWN = "database unavailable; nothing was changed"


def add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 405:
            # Each method of a path is its own route, so Starlette's Allow names only one.
            allowed = ", ".join(sorted(allowed_methods(request)))
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

    @app.exception_handler(Busy)
    async def busy(_request: Request, exc: Busy) -> JSONResponse:
        headers = {"Retry-After": str(exc.retry_after)}
        return JSONResponse({"detail": str(exc), "limit": exc.limit}, 429, headers=headers)

    async def database_down(_request: Request, _exc: Exception) -> JSONResponse:
        return JSONResponse({"detail": DATABASE_DOWN}, 503)

    # Unreachable, refusing or locked: the request can be retried. Other database errors are
    # bugs, and stay 500s.
    app.add_exception_handler(sqlalchemy.exc.OperationalError, database_down)
    app.add_exception_handler(sqlalchemy.exc.InterfaceError, database_down)
