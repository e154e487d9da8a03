"""The console's pages at ``/console``: policies and data with their revisions (diff, rollback), an
editor (diagnostics as you type, the pack's tests, a dry-run, the impact of the draft, then
publish), a decision-log explorer, and token management for admins.

Server-rendered Jinja2 templates with vendored htmx (``static/``; nothing from a CDN, so it works
offline). Signing in takes the same API tokens and roles: the token is entered once and opens a
server-side session (``sessions.py``) whose random id is kept in an HttpOnly, ``SameSite=Strict``
cookie scoped to ``/console``; the token never leaves the sign-in request. Every state-changing
request must also carry the CSRF token (a hidden form field, or the ``X-CSRF-Token`` header htmx
sends), an HMAC of the session id that a page from another site cannot read or compute; SameSite
already keeps the cookie off cross-site requests, the CSRF token covers browsers that ignore it.
"""

from __future__ import annotations

import difflib
import hashlib
import hmac
import json
from collections import Counter
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode

import anyio.to_thread
import sqlalchemy as sa
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape

from hookgate import layers, modes
from hookgate.hostio.hosts import HOSTS
from hookgate.lang.errors import Diagnostic, PolicyError
from hookgate.server import dryrun
from hookgate.server import tables as m
from hookgate.server.changesets import check_set
from hookgate.server.compilation import owner, set_key
from hookgate.server.decisionrows import decision_filters
from hookgate.server.deps import check_key
from hookgate.server.impact import ImpactIn, draft_set, record_batches, run_replay
from hookgate.server.routes.modes import NotAPromotion, Promotion, promote
from hookgate.server.sessions import Sessions
from hookgate.server.store import (
    BASE_KIND,
    NotFound,
    Principal,
    Store,
    StoreError,
    canonical_json,
)
from hookgate.server.workers import Busy, WorkerLimitError

HERE = Path(__file__).parent
COOKIE = "hookgate_console"
STATIC = {
    "htmx.min.js": "text/javascript",
    "console.js": "text/javascript",
    "console.css": "text/css",
}
OUTCOME_COLOURS = {"deny": "#b3261e", "ask": "#b26a00", "rewrite": "#3456a8", "allow": "#2e7d32"}
# The chart counts a call with a fault or a limit as such, not under the outcome it produced.
CHART_COLOURS = {"fault": "#6a1b9a", "limit": "#5d4037", **OUTCOME_COLOURS}
CHART_HOURS = 48
PAGE = 100

templates = Environment(
    loader=FileSystemLoader(HERE / "templates"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)
router = APIRouter(prefix="/console", include_in_schema=False)


def csrf_token(token: str) -> str:
    return hmac.new(b"hookgate-console-csrf", token.encode(), hashlib.sha256).hexdigest()[:32]


class Session:
    """The signed-in user of one request: principal, session id (for the CSRF token), form,
    and the role that reads recorded data (``--recorded-data-role``)."""

    def __init__(
        self, principal: Principal, session_id: str, form: dict[str, str], recorded_role: str
    ) -> None:
        self.principal = principal
        self.session_id = session_id
        self.csrf = csrf_token(session_id)
        self.form = form
        self.recorded_role = recorded_role
        self.sees_recorded = principal.has(recorded_role)


async def session(request: Request, role: str = "viewer") -> Session:
    """The request's session with at least ``role``; a redirect to sign-in without one, 403
    with a lower role, 403 for a state-changing request without the CSRF token."""
    sessions: Sessions = request.app.state.sessions
    session_id = request.cookies.get(COOKIE)
    principal = None
    if session_id:
        principal = await anyio.to_thread.run_sync(sessions.principal, session_id)
    if principal is None or not principal.has("viewer"):
        raise HTTPException(303, "sign in", {"Location": "/console/login"})
    _no_nul(request.query_params)
    form: dict[str, str] = {}
    if request.method == "POST":
        body = (await request.body()).decode("utf-8", "replace")
        form = {k: v[-1] for k, v in parse_qs(body, keep_blank_values=True).items()}
        _no_nul(form)
        sent = request.headers.get("X-CSRF-Token") or form.get("csrf", "")
        if not hmac.compare_digest(sent, csrf_token(session_id)):
            raise HTTPException(403, "missing or wrong CSRF token: reload the page")
    if not principal.has(role):
        raise HTTPException(403, f"this needs the {role} role; yours is {principal.role}")
    return Session(principal, session_id, form, request.app.state.recorded_role)


def _no_nul(fields: Mapping[str, str]) -> None:
    """A 422 naming the first field that holds a NUL: no document, id or filter has one, and
    PostgreSQL cannot even compare text with it."""
    for name, value in fields.items():
        if "\x00" in name or "\x00" in value:
            raise HTTPException(422, f"{name.replace(chr(0), '?')}: holds a NUL character")


def page(name: str, user: Session | None, status: int = 200, **values: Any) -> HTMLResponse:
    html = templates.get_template(name).render(user=user, **values)
    return HTMLResponse(html, status)


# -- sign-in ---------------------------------------------------------------------------------


def login_page(request: Request, status: int = 200, error: str | None = None) -> HTMLResponse:
    """The sign-in page: the API token form unless single sign-on turned it off, and the
    single sign-on link when it is set up (``oidc.py``)."""
    provider = request.app.state.oidc
    return page(
        "login.html",
        None,
        status,
        error=error,
        sso=provider.settings.display_name if provider else None,
        tokens=provider is None or provider.settings.token_sign_in,
    )


@router.get("/login")
def login_form(request: Request) -> HTMLResponse:
    return login_page(request)


def cross_site(request: Request) -> bool:
    """Whether a browser sent this request from a page of another origin (OWASP's check of
    the Fetch Metadata and Origin headers). A sign-in from another site would sign the browser
    into the sender's token (login CSRF); ``SameSite`` does not help, there is no session yet.
    A client that sends neither header is no browser on another site's page: browsers send
    ``Origin`` on every cross-origin POST and ``Sec-Fetch-Site`` on every request."""
    fetched_from = request.headers.get("sec-fetch-site")
    if fetched_from is not None and fetched_from not in ("same-origin", "none"):
        return True  # same-site too: a sibling subdomain is another party
    origin = request.headers.get("origin")
    own = (f"{request.url.scheme}://{request.url.netloc}", request.app.state.public_url)
    return origin is not None and origin not in own


def secure_cookie(request: Request) -> bool:
    """Whether the session cookie is ``Secure``: the public URL is https, or this request came
    over https (as uvicorn sees it: from a trusted proxy, ``X-Forwarded-Proto``)."""
    public_url = request.app.state.public_url
    return request.url.scheme == "https" or (public_url or "").startswith("https:")


@router.post("/login")
async def login(request: Request) -> Response:
    store: Store = request.app.state.store
    provider = request.app.state.oidc
    if provider is not None and not provider.settings.token_sign_in:
        error = f"Signing in with a token is turned off here: use {provider.settings.display_name}."
        return login_page(request, 403, error)
    if cross_site(request):
        error = "This sign-in was sent from another site: sign in here instead."
        return login_page(request, 403, error)
    form = parse_qs((await request.body()).decode("utf-8", "replace"))
    token = (form.get("token") or [""])[-1].strip()
    principal = await anyio.to_thread.run_sync(store.authenticate, token) if token else None
    if principal is None or not principal.has("viewer"):
        error = "Unknown or revoked token." if principal is None else "Agent tokens cannot sign in."
        return login_page(request, 401, error)
    return await signed_in(request, principal, RedirectResponse("/console/policies", 303))


async def signed_in(request: Request, principal: Principal, response: Response) -> Response:
    """``response`` with the cookie of a new session for ``principal``: a new one on every
    sign-in, ending the one the browser held (no session fixation)."""
    sessions: Sessions = request.app.state.sessions
    session_id = await anyio.to_thread.run_sync(
        sessions.open, principal, request.cookies.get(COOKIE)
    )
    response.set_cookie(
        COOKIE,
        session_id,
        httponly=True,
        samesite="strict",
        secure=secure_cookie(request),
        path="/console",
        max_age=int(sessions.lifetime.total_seconds()),
    )
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    user = await session(request)
    await anyio.to_thread.run_sync(request.app.state.sessions.close, user.session_id)
    response = RedirectResponse("/console/login", 303)
    response.delete_cookie(
        COOKIE, path="/console", secure=secure_cookie(request), httponly=True, samesite="strict"
    )
    return response


@router.get("")
@router.get("/")
def home() -> Response:
    return RedirectResponse("/console/policies", 303)


@router.get("/static/{name}")
def static(name: str) -> Response:
    if name not in STATIC:
        raise HTTPException(404, "no such asset")
    headers = {"Cache-Control": "public, max-age=3600"}
    return FileResponse(HERE / "static" / name, media_type=STATIC[name], headers=headers)


# -- policies and data -----------------------------------------------------------------------


def _number(user: Session, name: str, default: int) -> int:
    """The whole-number form field ``name`` (``default`` when blank); 422 naming it else."""
    text = user.form.get(name, "").strip()
    if not text:
        return default
    if not text.isascii() or not text.isdigit() or len(text) > 18:
        raise HTTPException(422, f"{name}: a whole number")
    return int(text)


def _kind(value: str | None) -> str:
    if value not in ("policy", "data"):
        raise HTTPException(404, "kind: policy or data")
    return value


def _text(kind: str, value: object) -> str:
    if kind == "policy":
        return value or ""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@router.get("/policies")
async def documents(request: Request, unchanged: str | None = None) -> HTMLResponse:
    user = await session(request)
    store: Store = request.app.state.store
    policies = await anyio.to_thread.run_sync(store.list, "policy")
    data = await anyio.to_thread.run_sync(store.list, "data")
    revision = await anyio.to_thread.run_sync(store.current_revision)
    active = await anyio.to_thread.run_sync(store.active_set)
    from hookgate.layers import BASE_NAME

    return page(
        "documents.html",
        user,
        policies=policies,
        data=data,
        revision=revision,
        disabled=list(active.disabled),  # guards turned off, shown as a statement
        base=active.base,
        base_name=BASE_NAME,
        unchanged=unchanged,  # a publish of the base's own content, which wrote nothing
    )


@router.get("/edit")
async def edit(request: Request, kind: str, id: str = "") -> HTMLResponse:
    user = await session(request)
    kind = _kind(kind)
    store: Store = request.app.state.store
    head = None
    if id:
        head = await anyio.to_thread.run_sync(store.get, kind, id)
    content = _text(kind, head.value()) if head else ""
    return page(
        "edit.html",
        user,
        kind=kind,
        id=id,
        head=head,
        content=content,
        example=EXAMPLE_PAYLOAD,
        hosts=HOSTS,
    )


def _draft(request: Request, user: Session) -> tuple[dict[str, str], dict]:
    """The active set with the editor's draft laid over it; ``PolicyError`` for a draft data
    document that is not JSON."""
    store: Store = request.app.state.store
    kind, key = _kind(user.form.get("kind")), user.form.get("id", "").strip()
    content = as_sent(user.form.get("content", ""), None)
    if not key:
        raise PolicyError([Diagnostic("draft", 1, 1, "give the document an id (file name)")])
    body = ImpactIn()
    if kind == "policy":
        body.policies = {key: content}
    else:
        try:
            body.data = {key: json.loads(content)}
        except json.JSONDecodeError as exc:
            raise PolicyError([Diagnostic(f"data/{key}", exc.lineno, exc.colno, exc.msg)]) from None
    from fastapi.exceptions import RequestValidationError

    try:
        return draft_set(store.active_set(), body)
    except RequestValidationError as exc:
        message = exc.errors()[0]["msg"]
        raise PolicyError([Diagnostic(key, 1, 1, message)]) from None


def _refused(user: Session, exc: Busy | WorkerLimitError) -> HTMLResponse:
    """The worker pool's refusal (429, with its ``Retry-After``), or a run stopped at a limit
    (422), as a message in the panel that asked (``console.js`` lets htmx swap these in)."""
    if isinstance(exc, WorkerLimitError):
        return page("busy.html", user, 422, message=f"the run {exc}")
    response = page("busy.html", user, 429, message=str(exc))
    response.headers["Retry-After"] = str(exc.retry_after)
    return response


@router.post("/check")
async def check(request: Request) -> HTMLResponse:
    """The editor's diagnostics, debounced as the user types (the same compilation as
    ``POST /v1/check``, in the worker pool)."""
    user = await session(request)
    try:
        policies, data = await anyio.to_thread.run_sync(_draft, request, user)
        key = set_key(policies, data)
        who = owner(user.principal)
        found = await request.app.state.workers.run(dryrun.check, key, policies, data, owner=who)
    except PolicyError as exc:
        found = list(exc.diagnostics)
    except (Busy, WorkerLimitError) as exc:
        return _refused(user, exc)
    return page("diagnostics.html", user, diagnostics=found)


@router.post("/tests")
async def tests(request: Request) -> HTMLResponse:
    user = await session(request)

    def run() -> tuple[list[Diagnostic], dict]:
        try:
            workers = request.app.state.workers
            return check_set(workers, owner(user.principal), *_draft(request, user))
        except PolicyError as exc:
            return list(exc.diagnostics), {"passed": 0, "failed": []}

    try:
        diagnostics, results = await anyio.to_thread.run_sync(run)
    except (Busy, WorkerLimitError) as exc:
        return _refused(user, exc)
    return page("tests.html", user, diagnostics=diagnostics, results=results)


@router.post("/dryrun")
async def dryrun_page(request: Request) -> HTMLResponse:
    """A payload in any host's shape through the draft: the decision, the host's exact
    response and the explain trace (``POST /v1/evaluate``'s work, in the worker pool)."""
    user = await session(request)
    host = user.form.get("host") or None
    try:
        payload = json.loads(user.form.get("payload", ""))
    except json.JSONDecodeError as exc:
        error = f"payload: invalid JSON at line {exc.lineno} column {exc.colno}"
        return page("dryrun.html", user, error=error)
    try:
        policies, data = await anyio.to_thread.run_sync(_draft, request, user)
        call = {"payload": payload, "host": host, "facts": {}, "explain": True}
        answer = await request.app.state.workers.run(
            dryrun.evaluate,
            set_key(policies, data),
            policies,
            data,
            call,
            ("outcome", "reasons"),
            owner=owner(user.principal),
        )
    except PolicyError as exc:
        return page(
            "dryrun.html",
            user,
            error="the draft does not compile: " + exc.diagnostics[0].headline(),
        )
    except (Busy, WorkerLimitError) as exc:
        return _refused(user, exc)
    if "diagnostics" in answer:
        error = "the draft does not compile: " + answer["diagnostics"][0]["text"]
        return page("dryrun.html", user, error=error)
    return page(
        "dryrun.html",
        user,
        decision=answer["decision"],
        response=json.dumps(answer["response"], indent=2, ensure_ascii=False),
        exit_code=answer["exit_code"],
        stderr=answer["stderr"],
        trace=answer["explain"] or [],
    )


@router.post("/impact")
async def impact(request: Request) -> HTMLResponse:
    # Replay reads recorded inputs, and a draft's reasons can print them.
    user = await session(request, request.app.state.recorded_role)
    store: Store = request.app.state.store
    limit = _number(user, "limit", 1000)
    try:
        sources, data = await anyio.to_thread.run_sync(_draft, request, user)
        records = record_batches(store, ImpactIn(limit=max(1, min(limit, 10_000))))
        active = await anyio.to_thread.run_sync(store.active_set)
        baseline = (active.policies, active.data, active.revision)
        report = await run_replay(
            request.app.state.workers, owner(user.principal), sources, data, records, baseline
        )
    except PolicyError as exc:
        return page("impact.html", user, error=exc.diagnostics[0].headline())
    except (Busy, WorkerLimitError) as exc:
        return _refused(user, exc)
    return page("impact.html", user, report=report)


def as_sent(content: str, original: str | None) -> str:
    """The editor's text with the line endings the document had. A textarea submits every
    line break as CRLF (the HTML spec's form submission), whatever the document used, so a
    policy written with LF would otherwise differ from git on every line. CRLF comes back as
    LF, then as CRLF again only when the stored document (``original``) used CRLF for every
    line break; a new document is LF."""
    text = content.replace("\r\n", "\n")
    if original and "\r\n" in original and original.count("\n") == original.count("\r\n"):
        return text.replace("\n", "\r\n")
    return text


async def _change(request: Request, user: Session, write: Any) -> Any:
    """``write`` (a change through ``Store.change``, on a thread) as one request of the user's
    token in the worker pool: past the token's share it waits its turn, as the API's."""
    async with request.app.state.workers.admitted(owner(user.principal), wait=True):
        return await anyio.to_thread.run_sync(write)


def _pack_check(request: Request) -> Any:
    """The check every console change goes through, as the API's: the set compiles, its
    tests pass, no pack fails on a smoke payload (``check_set``, in the worker pool, the
    change admitted by ``_change``)."""

    def validate(policies: dict[str, str], data: dict) -> None:
        diagnostics, _ = check_set(request.app.state.workers, None, policies, data)
        if diagnostics:
            raise PolicyError(diagnostics)

    return validate


@router.post("/publish")
async def publish(request: Request) -> Response:
    user = await session(request, "editor")
    store: Store = request.app.state.store
    kind, key = _kind(user.form.get("kind")), user.form.get("id", "").strip()
    sent = user.form.get("content", "")
    etag = user.form.get("etag") or None

    def write() -> Any:
        check_key(kind, key, "id")
        head = store.head(kind, key)
        content = as_sent(sent, head.content if head else None)
        if kind == "data":
            try:
                content = canonical_json(json.loads(content))
            except json.JSONDecodeError as exc:
                where = Diagnostic(f"data/{key}", exc.lineno, exc.colno, exc.msg)
                raise PolicyError([where]) from None
            except ValueError as exc:
                raise PolicyError([Diagnostic(f"data/{key}", 1, 1, str(exc))]) from None
        return store.change(
            kind,
            key,
            content,
            if_match=etag,
            author=user.principal.name,
            message=user.form.get("message", "")[:2000],
            validate=_pack_check(request),
        )

    def back_to_editor(
        status: int, refused: list, stale: str | None = None, busy: str | None = None
    ) -> HTMLResponse:
        """The editor again, with the text as typed and why it was not published."""
        head = store.head(kind, key)
        conflict = None
        if stale and head is not None and head.content is not None:
            # What the other edit holds against what was typed: publishing again (the
            # editor now carries the new head's ETag) replaces it, having seen this.
            mine = as_sent(sent, head.content).splitlines()
            conflict = list(
                difflib.unified_diff(
                    _text(kind, head.value()).splitlines(),
                    mine if kind == "policy" else _text(kind, _json_or(sent)).splitlines(),
                    f"{key} revision {head.number} (current)",
                    f"{key} (yours)",
                    lineterm="",
                )
            )
        return page(
            "edit.html",
            user,
            status,
            kind=kind,
            id=key,
            head=head if head is not None and head.content is not None else None,
            content=sent,
            example=user.form.get("payload") or EXAMPLE_PAYLOAD,
            hosts=HOSTS,
            refused=refused,
            stale=stale,
            conflict=conflict,
            busy=busy,
        )

    try:
        revision = await _change(request, user, write)
    except PolicyError as exc:
        return await anyio.to_thread.run_sync(back_to_editor, 422, list(exc.diagnostics))
    except (Busy, WorkerLimitError) as exc:
        status, why = (429, str(exc)) if isinstance(exc, Busy) else (422, f"the run {exc}")
        return await anyio.to_thread.run_sync(back_to_editor, status, [], None, why)
    except StoreError as exc:

        def stale(status: int, message: str) -> HTMLResponse:
            # The check the publish would have run, so that the editor shows at once what
            # else stands in the way, not only the other edit.
            try:
                workers = request.app.state.workers
                found, _ = check_set(workers, owner(user.principal), *_draft(request, user))
            except PolicyError as error:
                found = list(error.diagnostics)
            return back_to_editor(status, found, message)

        return await anyio.to_thread.run_sync(stale, exc.status, exc.message)
    if revision is None:  # the base's own content: nothing written (``Store.change``)
        return RedirectResponse(f"/console/policies?{urlencode({'unchanged': key})}", 303)
    query = urlencode({"kind": kind, "id": key, "published": revision.number})
    return RedirectResponse(f"/console/revisions?{query}", 303)


def _json_or(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return text


@router.get("/revisions")
async def revisions(request: Request, kind: str, id: str, published: int | None = None) -> Any:
    user = await session(request)
    # The base document's history too (read only: its revisions are the seed, each server
    # upgrade and each publish that replaced or restored the base; content: the version).
    kind = kind if kind == BASE_KIND else _kind(kind)
    return await _revisions_page(request, user, kind, id, published=published)


async def _revisions_page(
    request: Request, user: Session, kind: str, key: str, status: int = 200, **values: Any
) -> HTMLResponse:
    store: Store = request.app.state.store
    found = await anyio.to_thread.run_sync(store.revisions, kind, key)
    found.reverse()  # newest first
    # The head's ETag goes with every rollback form: a rollback made from this page is refused
    # when the document changed after the page was drawn, as the API's If-Match refuses it.
    # A deleted document has none: restoring it needs no If-Match (and is refused with 428,
    # as the API's, if someone created it again meanwhile).
    etag = found[0].etag if found and found[0].content is not None else ""
    return page(
        "revisions.html", user, status, kind=kind, id=key, revisions=found, etag=etag, **values
    )


@router.get("/diff")
async def diff(request: Request, kind: str, id: str, a: int, b: int) -> HTMLResponse:
    user = await session(request)
    store: Store = request.app.state.store
    kind = _kind(kind)
    old = await anyio.to_thread.run_sync(store.revision, kind, id, a)
    new = await anyio.to_thread.run_sync(store.revision, kind, id, b)
    lines = list(
        difflib.unified_diff(
            _text(kind, old.value()).splitlines(),
            _text(kind, new.value()).splitlines(),
            f"{id} revision {a}",
            f"{id} revision {b}",
            lineterm="",
        )
    )
    return page("diff.html", user, kind=kind, id=id, a=a, b=b, lines=lines)


@router.post("/rollback")
async def rollback(request: Request) -> Response:
    """A rollback goes through what the API's rollback does: the revision precondition (the
    ETag of the head the page showed) and the pack check (compile, tests, smoke payloads)."""
    user = await session(request, "editor")
    store: Store = request.app.state.store
    kind, key = _kind(user.form.get("kind")), user.form.get("id", "")
    try:
        target = int(user.form.get("revision") or 0)
    except ValueError:
        raise HTTPException(422, "revision: a revision number") from None

    def write() -> Any:
        return store.change(
            kind,
            key,
            None,
            if_match=user.form.get("etag") or None,
            author=user.principal.name,
            message=f"rollback to revision {target} (console)",
            validate=_pack_check(request),
            rollback_to=target,
        )

    try:
        revision = await _change(request, user, write)
    except PolicyError as exc:
        refused = list(exc.diagnostics)
        return await _revisions_page(request, user, kind, key, 422, refused=refused, target=target)
    except (Busy, WorkerLimitError) as exc:
        status, why = (429, str(exc)) if isinstance(exc, Busy) else (422, f"the run {exc}")
        return await _revisions_page(request, user, kind, key, status, busy=why, target=target)
    except StoreError as exc:
        return await _revisions_page(
            request, user, kind, key, exc.status, stale=exc.message, target=target
        )
    if revision is None:  # the base's own content: nothing written (``Store.change``)
        return RedirectResponse(f"/console/policies?{urlencode({'unchanged': key})}", 303)
    query = urlencode({"kind": kind, "id": key, "published": revision.number})
    return RedirectResponse(f"/console/revisions?{query}", 303)


# -- decisions -------------------------------------------------------------------------------

FILTERS = ("outcome", "errors", "pack", "guard", "mode", "host", "session_id", "since", "until")
ERROR_FILTERS = ("any", "fault", "limit")
MODE_FILTERS = ("warn", "audit")
TIME_RANGE = (datetime(1970, 1, 1, tzinfo=UTC), datetime(9999, 1, 1, tzinfo=UTC))


def _filters(request: Request) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name in FILTERS:
        value = request.query_params.get(name, "").strip()
        if not value:
            continue
        if name == "errors" and value not in ERROR_FILTERS:
            raise HTTPException(422, f"errors: one of {', '.join(ERROR_FILTERS)}")
        if name == "mode" and value not in MODE_FILTERS:
            raise HTTPException(422, f"mode: one of {', '.join(MODE_FILTERS)}")
        if name in ("since", "until"):
            try:
                value = datetime.fromisoformat(value.replace("Z", "+00:00"))
                # The form asks for UTC and its placeholder has no offset: a naive time is UTC.
                value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
            except (ValueError, OverflowError):
                raise HTTPException(422, f"{name}: not a date and time (ISO 8601)") from None
            # Held within what the chart's window can be computed around (no record is older).
            value = min(max(value, TIME_RANGE[0]), TIME_RANGE[1])
        values[name] = value
    return values


def _decisions(
    store: Store, filters: dict[str, Any], with_input: bool
) -> tuple[list[dict], list[tuple], datetime]:
    """The ``PAGE`` newest records by decision time (with matches, and masked input when
    ``with_input``, else whether one is withheld), the
    matching records of the ``CHART_HOURS`` hours before ``until`` (or now) counted by hour and
    outcome, for the chart (``(hour, outcome, count)``), and that end time."""
    d = m.decisions.c
    columns = [c for c in d if c.name != "input"]
    recorded = d.input if with_input else d.input.isnot(None).label("input")
    rows_query = (
        decision_filters(sa.select(*columns, recorded), **filters)
        .order_by(d.time.desc(), d.seq.desc())
        .limit(PAGE)
    )
    newest = filters.get("until") or datetime.now(UTC)
    since = max(
        filters.get("since") or datetime.min.replace(tzinfo=UTC),
        newest - timedelta(hours=CHART_HOURS),
    )
    with store.engine.connect() as conn:
        # Counted by the database: millions of decisions a day must not travel to draw 48 bars.
        if conn.dialect.name == "postgresql":
            hour = sa.func.date_trunc("hour", sa.func.timezone("UTC", d.time))
        else:  # SQLite stores UTC text
            hour = sa.func.strftime("%Y-%m-%d %H:00:00", d.time)
        shown = sa.case(
            (d.errors.contains('"kind":"fault"'), "fault"),
            (d.errors.contains('"kind":"limit"'), "limit"),
            else_=d.outcome,
        ).label("outcome")
        chart_query = decision_filters(
            sa.select(hour.label("hour"), shown, sa.func.count().label("n")),
            **{**filters, "since": since, "until": newest},
        ).group_by(hour, shown)
        rows = conn.execute(rows_query).all()
        chart = conn.execute(chart_query).all()
        matches: dict[int, list[dict]] = {r.seq: [] for r in rows}
        if rows:
            for r in conn.execute(
                sa.select(m.decision_matches)
                .where(m.decision_matches.c.decision_seq.in_(list(matches)))
                .order_by(m.decision_matches.c.position)
            ):
                matches[r.decision_seq].append({"pack": r.pack, "pattern": r.pattern})
    records = [
        {
            **r._asdict(),
            "matches": matches[r.seq],
            "errors": json.loads(r.errors) if r.errors else [],
            "would": json.loads(r.would) if r.would else [],
            # What the row shows as its result: a fault or limit first (an allow the failure
            # policy gave is not an allow the policies gave), then the outcome it produced.
            "kind": _error_kind(r.errors),
            "input": json.dumps(json.loads(r.input), indent=2, ensure_ascii=False)
            if with_input and r.input is not None
            else None,
            "input_withheld": not with_input and bool(r.input),
        }
        for r in rows
    ]
    points = [(_hour(r.hour), r.outcome, r.n) for r in chart]
    return records, points, newest


def _error_kind(errors: str | None) -> str | None:
    """``fault`` when the record holds a fault, else ``limit`` when it holds a limit, else
    None."""
    kinds = {error.get("kind") for error in json.loads(errors)} if errors else set()
    return next((kind for kind in ("fault", "limit") if kind in kinds), None)


def _hour(value: datetime | str) -> datetime:
    hour = datetime.fromisoformat(value) if isinstance(value, str) else value
    return hour.replace(tzinfo=UTC) if hour.tzinfo is None else hour.astimezone(UTC)


def chart_svg(points: list[tuple[datetime, str, int]], newest: datetime) -> dict:
    """Stacked bars of decisions per hour by outcome (a fault or a limit counted as such) over
    the last ``CHART_HOURS`` hours, as SVG geometry for the template (and the same counts as a
    table for screen readers)."""
    end = newest.astimezone(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    hours = [end - timedelta(hours=CHART_HOURS - i) for i in range(CHART_HOURS)]
    counts: dict[datetime, Counter] = {hour: Counter() for hour in hours}
    for hour, outcome, n in points:
        if hour in counts:
            counts[hour][outcome] += n
    peak = max([sum(c.values()) for c in counts.values()] + [1])
    width, height, bar = 720, 160, 720 / CHART_HOURS
    bars = []
    for i, hour in enumerate(hours):
        y = height
        for outcome, colour in CHART_COLOURS.items():
            n = counts[hour][outcome]
            if n:
                h = n / peak * (height - 10)
                y -= h
                label = f"{hour:%Y-%m-%d %H}:00 UTC: {n} {outcome}"
                bars.append(
                    {"x": i * bar + 1, "y": y, "w": bar - 2, "h": h, "fill": colour, "label": label}
                )
    table = [
        {"hour": f"{hour:%m-%d %H}:00", **{o: counts[hour][o] for o in CHART_COLOURS}}
        for hour in hours
        if counts[hour]
    ]
    return {"width": width, "height": height, "bars": bars, "peak": peak, "table": table,
            "total": sum(n for _, _, n in points), "colours": CHART_COLOURS}  # fmt: skip


@router.get("/decisions")
async def decisions(request: Request) -> HTMLResponse:
    user = await session(request)
    store: Store = request.app.state.store
    filters = _filters(request)
    records, points, newest = await anyio.to_thread.run_sync(
        _decisions, store, filters, user.sees_recorded
    )
    return page(
        "decisions.html",
        user,
        records=records,
        chart=chart_svg(points, newest),
        filters={name: request.query_params.get(name, "") for name in FILTERS},
        outcomes=list(OUTCOME_COLOURS),
        error_filters=ERROR_FILTERS,
        mode_filters=MODE_FILTERS,
    )


# -- guard modes -----------------------------------------------------------------------------


@router.get("/modes")
async def modes_page(request: Request) -> HTMLResponse:
    user = await session(request)
    return await _modes_page(request, user)


async def _modes_page(request: Request, user: Session, status: int = 200, **values: Any) -> Any:
    """Each guard with its mode (and its patterns' own), what those not enforced would have
    answered per day, links to the examples, and the next step of its promotion."""
    store: Store = request.app.state.store
    active = await anyio.to_thread.run_sync(store.active_set)
    days = await anyio.to_thread.run_sync(store.would_per_day)
    table = modes.table(active.data)
    guards = [
        {
            "name": name,
            "mode": modes.effective(table, name),
            "patterns": [
                {"key": k, "pattern": k.partition("/")[2], "mode": v, "next": _NEXT.get(v)}
                for k, v in sorted(table.items())
                if k.startswith(name + "/")
            ],
            "next": _NEXT.get(modes.effective(table, name)),
        }
        for name in sorted(layers.guard_names(active.policies) - modes.UNMODAL)
    ]
    return page("modes.html", user, status, guards=guards, days=days, **values)


_NEXT = {"audit": "warn", "warn": "enforce"}  # a promotion's next step


@router.post("/modes/promote")
async def promote_mode(request: Request) -> Response:
    """The one-click promotion of a guard or one of its patterns: what ``POST
    /v1/modes/promote`` does (``routes.modes.promote``: the impact, its refusal, the revision),
    with the console's check of the would-be set; the page shows the impact."""
    user = await session(request, "editor")
    store: Store = request.app.state.store
    form = user.form
    asked = Promotion(form.get("guard", ""), form.get("pattern") or None, form.get("mode", ""))
    try:
        _, _, report = await promote(
            store,
            request.app.state.workers,
            _pack_check(request),
            asked,
            owner=owner(user.principal),
            author=user.principal.name,
            message="",
            limit=1000,
            examples=user.sees_recorded,
        )
    except NotAPromotion as exc:
        return await _modes_page(request, user, 422, refused=str(exc))
    except PolicyError as exc:
        refused = "; ".join(d.message for d in exc.diagnostics)
        return await _modes_page(request, user, 422, refused=refused)
    except StoreError as exc:
        return await _modes_page(request, user, exc.status, refused=exc.message)
    return await _modes_page(request, user, promoted=f"{asked.key} {asked.mode}", impact=report)


# -- tokens ----------------------------------------------------------------------------------


@router.get("/tokens")
async def tokens(request: Request) -> HTMLResponse:
    user = await session(request, "admin")
    store: Store = request.app.state.store
    found = await anyio.to_thread.run_sync(store.list_tokens)
    return page("tokens.html", user, tokens=found, roles=("agent", "viewer", "editor", "admin"))


@router.post("/tokens")
async def create_token(request: Request) -> HTMLResponse:
    user = await session(request, "admin")
    store: Store = request.app.state.store
    role, name = user.form.get("role", ""), user.form.get("name", "").strip()[:255]
    if not name:
        raise HTTPException(422, "name: required")
    try:
        token = await anyio.to_thread.run_sync(store.create_token, role, name)
    except StoreError as exc:
        raise HTTPException(422, exc.message) from None
    found = await anyio.to_thread.run_sync(store.list_tokens)
    roles = ("agent", "viewer", "editor", "admin")
    created = {"name": name, "role": role, "token": token}
    return page("tokens.html", user, tokens=found, roles=roles, created=created)


@router.post("/tokens/revoke")
async def revoke_token(request: Request) -> Response:
    user = await session(request, "admin")
    store: Store = request.app.state.store
    try:
        await anyio.to_thread.run_sync(store.revoke_token, _number(user, "token_id", 0))
    except NotFound as exc:
        raise HTTPException(404, exc.message) from None
    return RedirectResponse("/console/tokens", 303)


EXAMPLE_PAYLOAD = json.dumps(
    {
        "session_id": "console",
        "cwd": "/home/u/proj",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git commit --no-verify -m wip"},
    },
    indent=2,
)
