"""Decision-log retention: records older than the configured number of days are deleted at
start and every hour, by every server process (deleting what another already deleted costs one
indexed query)."""

import asyncio
import logging
from datetime import UTC, datetime, timedelta

import sqlalchemy.exc
from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool

from hookgate.server.store import Store

RETENTION_INTERVAL_SECONDS = 3600


def add_retention(app: FastAPI, store: Store, days: int) -> None:
    """Delete decision records older than ``days`` at start and every hour."""
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
