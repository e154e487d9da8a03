"""``/v1/tokens`` (admin): create, list and revoke API tokens."""

from typing import Annotated

from fastapi import FastAPI, Path, Response

from hookgate.server import models as api
from hookgate.server.auth import Admin
from hookgate.server.store import Store


def add_routes(app: FastAPI) -> None:
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
    def revoke_token(token_id: Annotated[int, Path(ge=1, le=api.MAX_INT)], _: Admin) -> Response:
        store.revoke_token(token_id)
        return Response(status_code=204)
