"""How the API writes answers: a revision as JSON data, and a JSON response encoded by
pydantic's serializer for the answers built as plain data on the hot routes."""

from typing import Any

import pydantic_core
from fastapi.responses import JSONResponse

from hookgate.server.store import Revision


class FastJSONResponse(JSONResponse):
    """JSON encoded by pydantic's serializer (the one FastAPI uses for response models, so the
    bytes are the same; NaN and infinities become null), several times faster than
    ``json.dumps`` and without a dependency of its own."""

    def render(self, content: Any) -> bytes:
        try:
            return pydantic_core.to_json(content, inf_nan_mode="null")
        except pydantic_core.PydanticSerializationError:
            # A payload's JSON may hold a lone surrogate ("\ud800"), and a decision can echo
            # it: no UTF-8 can carry one, so it is answered as U+FFFD.
            return pydantic_core.to_json(scrubbed(content), inf_nan_mode="null")


def scrubbed(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings replaced by U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {scrubbed(k): scrubbed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrubbed(v) for v in value]
    return value


def revision_out(revision: Revision, with_content: bool = True) -> dict:
    """A revision as ``RevisionOut`` data (its content left out for lists)."""
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
