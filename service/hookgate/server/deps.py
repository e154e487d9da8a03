"""Request checks shared by the routes: policy ids and data paths (as path-parameter
dependencies, so they are checked before any body is read), the nesting limit of data, the
request bodies of policies and data, and the 422 that names the offending field."""

from typing import Annotated

import re2  # request paths are untrusted: linear-time matching, as everywhere else
from fastapi import Path, Request
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException

from hookgate import jsonio
from hookgate.server.store import canonical_json

MAX_DATA_DEPTH = 64  # nesting of a data document, its path's segments included
POLICY_ID = re2.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
DATA_SEGMENT = re2.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
RESERVED_SEGMENTS = {"revisions", "rollback"}  # route words after a data path


def invalid(field: str, message: str) -> RequestValidationError:
    """The 422 answer naming ``field`` (``body.x.y``), as FastAPI's own validation gives."""
    loc = tuple(field.split("."))
    return RequestValidationError([{"loc": loc, "msg": message, "type": "value_error"}])


def check_key(kind: str, key: str, field: str) -> str:
    """``key`` if it is a valid policy id or data path; else a 422 naming ``field``."""
    if kind == "policy":
        if not POLICY_ID.match(key):
            raise invalid(field, "policy id: letters, digits, _ . - (at most 128)")
        return key
    segments = key.split("/")
    if len(segments) > 8 or not all(DATA_SEGMENT.match(s) for s in segments):
        raise invalid(field, "data path: 1-8 identifiers ([A-Za-z_][A-Za-z0-9_]*) joined by /")
    if RESERVED_SEGMENTS & set(segments):
        raise invalid(field, "data path: 'revisions' and 'rollback' are reserved")
    return key


def check_depth(path: str, value: object, field: str) -> None:
    """A 422 naming ``field`` when ``value`` placed at data ``path`` nests deeper than
    ``MAX_DATA_DEPTH``: the bundle and every answer that carries it must stay writable."""
    limit = MAX_DATA_DEPTH - path.count("/") - 1
    stack = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            message = f"data nested deeper than {MAX_DATA_DEPTH} levels (its path included)"
            raise invalid(field, message)
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))


def allowed_methods(request: Request) -> set[str]:
    """The methods of every route that serves this URL (a data path holding a route word
    such as ``revisions`` names no document, so that reading of the URL does not count)."""
    allowed = set()
    for route in request.app.routes:
        match = isinstance(route, APIRoute) and route.path_regex.match(request.url.path)
        data_path = match and match.groupdict().get("path")
        if match and not (data_path and RESERVED_SEGMENTS & set(data_path.split("/"))):
            allowed |= route.methods
    return allowed


# Path parameters as dependencies, so they are checked before any body is read.
def policy_id(id: Annotated[str, Path(description="Policy id, e.g. no_verify.rego")]) -> str:
    return check_key("policy", id, "path.id")


def data_path(
    request: Request,
    path: Annotated[
        str, Path(description="Data path, e.g. hookgate/config (data.hookgate.config)")
    ],
) -> str:
    if RESERVED_SEGMENTS & set(path.split("/")):
        # A route word, not a document: PUT /v1/data/x/revisions is a wrong method (405, the
        # handler lists Allow); GET /v1/data/revisions/revisions/1 names nothing (404).
        if allowed_methods(request):
            raise StarletteHTTPException(405, "Method Not Allowed")
        raise StarletteHTTPException(404, f"data {path}: 'revisions', 'rollback' are route words")
    return check_key("data", path, "path.path")


async def policy_content(request: Request) -> str:
    """The body of a policy change: UTF-8 text, not blank."""
    try:
        text = (await request.body()).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise invalid("body", f"policy text is not UTF-8 (byte {exc.start})") from None
    if not text.strip():
        raise invalid("body", "policy text is empty")
    return text


async def data_content(request: Request) -> str:
    """The body of a data change, as the canonical JSON that is stored."""
    try:
        value = jsonio.loads((await request.body()).decode("utf-8"))
        check_depth(request.path_params["path"], value, "body")
        text = canonical_json(value)
        text.encode("utf-8")  # JSON's "\ud800" parses to a lone surrogate, which cannot be stored
        return text
    except jsonio.DecodeError as exc:  # NaN and infinities too: a bundle could not carry them
        message = f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        raise invalid("body", message) from None
    except UnicodeDecodeError as exc:
        raise invalid("body", f"not UTF-8 (byte {exc.start})") from None
    except UnicodeEncodeError:
        raise invalid(
            "body", "a string holds a lone surrogate (\\ud800 without its pair)"
        ) from None
    except RecursionError:
        raise invalid("body", "JSON nested too deeply") from None
