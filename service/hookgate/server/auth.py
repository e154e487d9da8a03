"""Bearer-token authentication and role checks for the API.

Roles are ordered agent < viewer < editor < admin, each with the rights of those before it:
agent (bundle, key, decision upload), viewer (read, dry-run), editor (policies, data), admin
(tokens). No token, an unknown or a revoked one → 401; a role too low → 403. Tokens are never
logged: they travel only in the Authorization header, which nothing here records.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from hookgate.server.store import Principal

bearer = HTTPBearer(
    auto_error=False,
    description="An API token (`hookgate token create --role …`), sent as `Bearer <token>`.",
)

_CHALLENGE = {"WWW-Authenticate": "Bearer"}


def require(role: str) -> Callable[..., Principal]:
    """A dependency that admits tokens of ``role`` or a higher one and returns who it is."""

    async def dependency(
        request: Request,
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ) -> Principal:
        if credentials is None:
            raise HTTPException(401, "missing bearer token (Authorization: Bearer …)", _CHALLENGE)
        store = request.app.state.store
        # A recently checked token costs no database round trip and no thread hop.
        principal = store.cached_principal(credentials.credentials)
        if principal is None:
            principal = await run_in_threadpool(store.authenticate, credentials.credentials)
        if principal is None:
            raise HTTPException(401, "unknown or revoked token", _CHALLENGE)
        if not principal.has(role):
            raise HTTPException(403, f"this needs the {role} role; the token's is {principal.role}")
        request.state.principal = principal
        return principal

    return dependency


# Endpoint parameter types: `principal: Editor` admits editors and admins.
Agent = Annotated[Principal, Depends(require("agent"))]
Viewer = Annotated[Principal, Depends(require("viewer"))]
Editor = Annotated[Principal, Depends(require("editor"))]
Admin = Annotated[Principal, Depends(require("admin"))]
