"""Bearer-token authentication and role checks for the API.

Roles are ordered agent < viewer < editor < admin, each with the rights of those before it:
agent (bundle, key, decision upload), viewer (read, dry-run), editor (policies, data), admin
(tokens). Recorded data (the input documents of decision records: commands' output, files the
agent read, tool inputs) needs its own role, ``hookgate serve --recorded-data-role`` (editor by
default: editors measure their changes on it, and ``hookgate publish`` replays it): below it a token sees decisions without their inputs, and cannot replay them (impact),
since a draft's reasons could print what it replays. No token, an unknown or a revoked one → 401; a role too low → 403. Tokens are never
logged: they travel only in the Authorization header, which nothing here records.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException
from fastapi.concurrency import run_in_threadpool
from fastapi.security import HTTPBearer
from fastapi.security.utils import get_authorization_scheme_param
from starlette.requests import HTTPConnection

from hookgate.server.store import Principal

_CHALLENGE = {"WWW-Authenticate": "Bearer"}


class RoleBearer(HTTPBearer):
    """A dependency that admits bearer tokens of ``role`` or a higher one and returns who it
    is. One dependency rather than a role check depending on ``HTTPBearer``: each level of
    FastAPI's dependency solving costs about 15 µs of CPU per request. The OpenAPI security
    scheme stays ``HTTPBearer``."""

    def __init__(self, role: str) -> None:
        super().__init__(
            scheme_name="HTTPBearer",
            description="An API token (`hookgate token create --role …`), sent as "
            "`Bearer <token>`.",
            auto_error=False,
        )
        self.role = role

    async def __call__(self, request: HTTPConnection) -> Principal:
        token = bearer_token(request.headers.get("Authorization"))
        if token is None:
            raise HTTPException(401, "missing bearer token (Authorization: Bearer …)", _CHALLENGE)
        store = request.app.state.store
        # A recently checked token costs no database round trip and no thread hop.
        principal = store.cached_principal(token)
        if principal is None:
            principal = await run_in_threadpool(store.authenticate, token)
        if principal is None:
            raise HTTPException(401, "unknown or revoked token", _CHALLENGE)
        role = self.required(request)
        if not principal.has(role):
            raise HTTPException(403, f"this needs the {role} role; the token's is {principal.role}")
        return principal

    def required(self, request: HTTPConnection) -> str:
        return self.role


class RecordedBearer(RoleBearer):
    """``RoleBearer`` for the role the server lets read recorded data (``sees_recorded``)."""

    def __init__(self) -> None:
        super().__init__("editor")  # the role is the app's, read per request

    def required(self, request: HTTPConnection) -> str:
        return request.app.state.recorded_role


def sees_recorded(request: HTTPConnection, principal: Principal) -> bool:
    """Whether ``principal`` may read recorded inputs and output, or replay them."""
    return principal.has(request.app.state.recorded_role)


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header value, else ``None``."""
    scheme, token = get_authorization_scheme_param(authorization)
    return token if token and scheme.lower() == "bearer" else None


# Endpoint parameter types: `principal: Editor` admits editors and admins.
Agent = Annotated[Principal, Depends(RoleBearer("agent"))]
Viewer = Annotated[Principal, Depends(RoleBearer("viewer"))]
Editor = Annotated[Principal, Depends(RoleBearer("editor"))]
Admin = Annotated[Principal, Depends(RoleBearer("admin"))]
RecordedReader = Annotated[Principal, Depends(RecordedBearer())]
