"""Console sign-in sessions as server-side objects.

Signing in with an API token opens a session: a random 256-bit id in the console's cookie,
stored only as its SHA-256 in ``console_sessions``, never the token itself. A session ends at
the first of: its lifetime since sign-in, an idle gap longer than the idle timeout, sign-out
(revoked at once, in every process, as the row is read on each request), or the revocation of
the token it was opened with. An OpenID Connect sign-in (``oidc.py``) has no token: its
session keeps the person's name and the role their groups mapped to at sign-in. Each sign-in
opens a new session (and ends the one the browser held), so an id fixed in a browser before
sign-in never becomes a signed-in one.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from hookgate.server import tables as m
from hookgate.server.decisionrows import utc
from hookgate.server.store import Principal, hash_token

DEFAULT_LIFETIME = timedelta(hours=8)  # a working day; OWASP: absolute timeouts of 4-8 hours
DEFAULT_IDLE = timedelta(minutes=30)  # OWASP: 15-30 minutes idle for low-risk applications
# How often a request moves ``last_seen_at``: the idle clock is this coarse, and a page's many
# requests (htmx, static files) cost one write a minute rather than one each.
TOUCH_EVERY = timedelta(minutes=1)


class Sessions:
    """The console's sessions in the server's database (any process may serve any request)."""

    def __init__(
        self, engine: Engine, lifetime: timedelta = DEFAULT_LIFETIME, idle: timedelta = DEFAULT_IDLE
    ) -> None:
        self.engine = engine
        self.lifetime = lifetime
        self.idle = idle

    def open(self, principal: Principal, replacing: str | None = None) -> str:
        """A new session for ``principal`` (a token's, or a single sign-on's without a token),
        its id to set in the cookie; the session ``replacing`` (the browser's before) ends, and
        long-expired rows are removed."""
        who = (
            {"token_id": principal.token_id}
            if principal.token_id is not None
            else {"name": principal.name[:255], "role": principal.role}
        )
        session_id = secrets.token_urlsafe(32)
        now = datetime.now(UTC)
        s = m.console_sessions
        with self.engine.begin() as conn:
            conn.execute(s.delete().where(s.c.expires_at < now - timedelta(days=1)))
            if replacing:
                conn.execute(_end(replacing, now))
            conn.execute(
                s.insert().values(
                    id_hash=hash_token(session_id), **who, created_at=now,
                    last_seen_at=now, expires_at=now + self.lifetime,
                )
            )  # fmt: skip
        return session_id

    def principal(self, session_id: str) -> Principal | None:
        """Who the session ``session_id`` acts for, ``None`` when it is unknown or has ended;
        the request counts as activity for the idle timeout."""
        s, t = m.console_sessions.c, m.tokens.c
        query = (
            sa.select(
                s.last_seen_at,
                s.expires_at,
                s.name.label("sso_name"),
                s.role.label("sso_role"),
                t.id,
                t.name,
                t.role,
            )
            .select_from(m.console_sessions.outerjoin(m.tokens, t.id == s.token_id))
            .where(s.id_hash == hash_token(session_id), s.revoked_at.is_(None))
            # A token's session ends with the token; a single sign-on's has none.
            .where(s.token_id.is_(None) | t.revoked_at.is_(None))
        )
        now = datetime.now(UTC)
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        if row is None or now >= utc(row.expires_at) or now - utc(row.last_seen_at) > self.idle:
            return None
        if now - utc(row.last_seen_at) >= TOUCH_EVERY:
            with self.engine.begin() as conn:
                where = m.console_sessions.c.id_hash == hash_token(session_id)
                conn.execute(m.console_sessions.update().where(where).values(last_seen_at=now))
        if row.id is None:
            return Principal(row.sso_name, row.sso_role)
        return Principal(row.name, row.role, row.id)

    def close(self, session_id: str) -> None:
        """Sign-out: the session ends now, wherever its cookie is."""
        with self.engine.begin() as conn:
            conn.execute(_end(session_id, datetime.now(UTC)))


def console_sessions(engine: Engine, hours: int | None, idle_minutes: int | None) -> Sessions:
    """The sessions ``hookgate serve`` was given (``None``: the default)."""
    lifetime = DEFAULT_LIFETIME if hours is None else timedelta(hours=hours)
    idle = DEFAULT_IDLE if idle_minutes is None else timedelta(minutes=idle_minutes)
    return Sessions(engine, lifetime, idle)


def _end(session_id: str, now: datetime) -> sa.Update:
    s = m.console_sessions
    where = (s.c.id_hash == hash_token(session_id)) & s.c.revoked_at.is_(None)
    return s.update().where(where).values(revoked_at=now)
