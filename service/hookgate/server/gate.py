"""The gate: the pure ASGI middleware in front of every route, which authenticates, limits
the body, counts and logs each request before any route sees it (see ``Gate``)."""

import logging
from typing import Any
from urllib.parse import parse_qsl, unquote_plus

import sqlalchemy.exc
from fastapi import Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from hookgate.masking import Masker
from hookgate.server.auth import bearer_token
from hookgate.server.errors import DATABASE_DOWN
from hookgate.server.headers import secure
from hookgate.server.metrics import Metrics
from hookgate.server.store import TOKEN_PREFIX, Store

AUTHENTICATED_PREFIXES = ("/v1/",)  # every route here needs a token
# Query parameters that would carry a bearer token; any value holding a hookgate token counts.
TOKEN_QUERY_KEYS = frozenset({"access_token", "token", "api_key", "apikey", "bearer", "auth"})
# An OpenID provider's answer to the sign-in callback (RFC 6749 4.1.2, OIDC core 3.1.2.5):
# single-use, but a log reader must not get the chance to race the browser for it.
CALLBACK_LOG_KEYS = frozenset({"code", "state", "id_token", "session_state"})
ACCESS_LOG = logging.getLogger("hookgate.access")


class Gate:
    """Pure ASGI middleware in front of every route.

    Every answer gets the security headers (``headers.py``). In order: refuses a token in the query string (400: URLs end up in logs and histories);
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
                secure(scope["path"], message)
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
            path += self.masker.mask("?" + _without_callback_values(query))
        client = scope.get("client")
        where = f"{client[0]}:{client[1]}" if client else "-"
        version = scope.get("http_version", "1.1")
        # uvicorn's logger and argument order, so its formatter (and colours) apply as before.
        ACCESS_LOG.info('%s - "%s %s HTTP/%s" %d', where, scope["method"], path, version, status)


def take_over_access_log() -> None:
    """Hand uvicorn's access handlers (its format and colours) to the app's access log and
    leave uvicorn's own logger without any: uvicorn logs each request itself while that logger
    has a handler, with the URL as sent (a token in a query string, a sign-in code)."""
    uvicorn_log = logging.getLogger("uvicorn.access")
    ACCESS_LOG.handlers, uvicorn_log.handlers = uvicorn_log.handlers, []
    ACCESS_LOG.setLevel(uvicorn_log.level)
    ACCESS_LOG.propagate = False


def _without_callback_values(query: str) -> str:
    """``query`` with the values of CALLBACK_LOG_KEYS replaced by ``***``."""
    pairs = [p.partition("=") for p in query.split("&")]
    return "&".join(
        f"{k}{eq}{'***' if eq and unquote_plus(k).lower() in CALLBACK_LOG_KEYS else v}"
        for k, eq, v in pairs
    )


def _header(scope: dict, name: bytes) -> str | None:
    """The first value of a request header (``name`` in lower case), as Starlette reads it."""
    return next((v.decode("latin-1") for k, v in scope["headers"] if k == name), None)


def _unauthorized(detail: str) -> JSONResponse:
    return JSONResponse({"detail": detail}, 401, headers={"WWW-Authenticate": "Bearer"})
