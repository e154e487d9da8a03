"""``/healthz``, ``/readyz`` and ``/metrics``: for load balancers and Prometheus, without
authentication."""

from fastapi import FastAPI
from fastapi.responses import PlainTextResponse

from hookgate.server import models as api
from hookgate.server.metrics import CONTENT_TYPE, Metrics
from hookgate.server.store import Store


def add_routes(app: FastAPI) -> None:
    store: Store = app.state.store
    metrics: Metrics = app.state.metrics

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
