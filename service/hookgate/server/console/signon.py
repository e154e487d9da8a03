"""The console's single sign-on routes (OpenID Connect, ``oidc.py``): ``/console/oidc/start``
sends the browser to the provider, ``/console/oidc/callback`` takes it back and opens the same
server-side session a token sign-in opens.

The flow's cookie is ``SameSite=Lax``: the provider's redirect back is a top-level navigation
from another site, which a ``Strict`` cookie would not be sent on. For the same reason the
callback answers with a page that moves on to the console itself, rather than a redirect: a
browser sends no ``Strict`` cookie (the session's) on a redirect chain that began on another
site, so the first console page would otherwise ask to sign in again.
"""

from __future__ import annotations

import anyio.to_thread
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse, Response

from hookgate.server.console.pages import login_page, page, secure_cookie, signed_in
from hookgate.server.oidc import FLOW_SECONDS, Flow, Provider, SignInError

FLOW_COOKIE = "hookgate_oidc"
FLOW_PATH = "/console/oidc"
router = APIRouter(prefix=FLOW_PATH, include_in_schema=False)


def _provider(request: Request) -> Provider:
    provider = request.app.state.oidc
    if provider is None:
        raise HTTPException(404, "single sign-on is not set up on this server")
    return provider


@router.get("/start")
async def start(request: Request) -> Response:
    provider = _provider(request)
    try:
        url, flow = await anyio.to_thread.run_sync(provider.start)
    except SignInError as exc:
        return login_page(request, exc.status, exc.message)
    response = RedirectResponse(url, 303)
    response.set_cookie(
        FLOW_COOKIE,
        flow.cookie(),
        max_age=FLOW_SECONDS,
        path=FLOW_PATH,
        httponly=True,
        samesite="lax",
        secure=secure_cookie(request),
    )
    return response


@router.get("/callback")
async def callback(request: Request) -> Response:
    provider = _provider(request)
    flow = Flow.from_cookie(request.cookies.get(FLOW_COOKIE))
    query = dict(request.query_params)
    try:
        principal, _ = await anyio.to_thread.run_sync(provider.finish, flow, query)
    except SignInError as exc:
        response: Response = login_page(request, exc.status, exc.message)
    else:
        response = await signed_in(request, principal, page("signed_in.html", None))
    # One use: a replayed callback finds no flow.
    response.delete_cookie(
        FLOW_COOKIE, path=FLOW_PATH, secure=secure_cookie(request), httponly=True, samesite="lax"
    )
    return response
