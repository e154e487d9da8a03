"""``/v1/bundle`` (agent): the signed active set, and the key that verifies it."""

from typing import Annotated

from fastapi import FastAPI, Header, Response
from fastapi.responses import JSONResponse

from hookgate import bundle_format
from hookgate.server import models as api
from hookgate.server.auth import Agent
from hookgate.server.bundle import Bundler


def add_routes(app: FastAPI) -> None:
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
