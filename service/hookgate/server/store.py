"""The server's storage: versioned policies and data, tokens, the signing key, decision logs.

All state lives in the database (SQLite by default, PostgreSQL for teams), so any number of
server processes can share one. Every change of a policy or data document is an immutable
revision. The stored documents are the team's layer; the active set, which bundles carry, is
that layer composed over the built-in pack (the base layer) by ``layers.compose_set``, the code
``--policies`` layers use. The base is itself a document (kind ``base``): its head holds the
pack version the set runs, or is a delete when the team replaced the base; a server that runs a
new hookgate version writes the new version as a new bundle revision (``Store.sync_base``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from hookgate import jsonio
from hookgate.lang.errors import PolicyError
from hookgate.server import tables as m
from hookgate.server.decisionrows import (
    add_rows,
    add_rows_pg,
    cursor_of,
    decision_filters,
    insert_ignore,
    parse_cursor,
    record_out,
    utc,
    would_per_day,
)

ROLES = ("agent", "viewer", "editor", "admin")  # each role has the rights of those before it
TOKEN_PREFIX = "hg_"
TOKEN_CACHE_SECONDS = 2.0  # how long a process trusts a token it has checked
REVISION_CACHE_SECONDS = 1.0  # how stale the hot path's view of the bundle revision may be

Validator = Callable[[dict[str, str], dict], None]


class StoreError(Exception):
    """A request the store refuses; ``status`` is the HTTP status it maps to."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(StoreError):
    status = 404


class PreconditionFailed(StoreError):
    status = 412


class PreconditionRequired(StoreError):
    status = 428


class RevisionMoved(StoreError):
    """Another change landed while a change was being checked (``Store.change``)."""

    status = 409


class BaseNewer(StoreError):
    """The database's base is a newer hookgate's pack than the one this process runs: a
    server never moves the base back (``Store.sync_base``)."""

    status = 409


class QuotaExceeded(StoreError):
    """A token has uploaded its hourly quota of decision records; ``retry_after`` seconds
    until the next hour starts."""

    status = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class Principal:
    """Who a request is from: the token's name, role and id."""

    name: str
    role: str
    token_id: int | None = None

    def has(self, role: str) -> bool:
        return ROLES.index(self.role) >= ROLES.index(role)


@dataclass(frozen=True)
class Revision:
    kind: str
    key: str
    number: int
    op: str
    content: str | None
    content_hash: str | None
    author: str
    message: str
    created_at: datetime
    set_revision: int

    @property
    def etag(self) -> str:
        tag = self.content_hash[7:23] if self.content_hash else "deleted"
        return f'"{self.number}-{tag}"'

    def value(self) -> object:
        """The document's content: policy text, or the parsed data document."""
        if self.content is None or self.kind != "data":  # a policy's text, a base's version
            return self.content
        return json.loads(self.content)


BASE_KIND = "base"  # the document that says which base the set runs (``Store.sync_base``)


@dataclass(frozen=True)
class ActiveSet:
    revision: int
    updated_at: datetime
    policies: dict[str, str]  # the composed set's modules by id: the base's and the layer's
    data: dict  # the composed data document
    layer: dict[str, str]  # the team layer's policies by id, as stored
    documents: dict[str, object]  # the team layer's data documents by path, as stored
    base: str | None  # the base's version, or None when the team replaced the base
    disabled: tuple[str, ...] = ()  # the guards data.hookgate.disabled turns off


def compose(
    policies: dict[str, str], documents: dict[str, object], *, base: bool
) -> tuple[dict[str, str], dict]:
    """A team layer over the built-in pack (unless ``base`` is false): the set's modules and
    data. ``PolicyError`` naming the document for an edited base file or a mistyped setting."""
    from hookgate import layers

    layered = layers.compose_set(policies, documents, base=base)
    return layered.sources, layered.data


def unread_settings(active: ActiveSet, document: str | None = None) -> list[str]:
    """The team layer's settings nothing reads (``layers.unread_lines``), in one data
    document (its slash path) or in all."""
    from hookgate import layers

    layered = layers.compose_set(active.layer, active.documents, base=active.base is not None)
    return layers.unread_lines(layered, None if document is None else f"data/{document}")


def default_db_url() -> str:
    """``$HOOKGATE_DB_URL``, else a SQLite file in the user's state directory."""
    from hookgate.paths import state_dir

    return os.environ.get("HOOKGATE_DB_URL") or f"sqlite:///{state_dir()}/server.db"


def make_engine(url: str) -> Engine:
    """A SQLAlchemy engine for ``url``; a SQLite file's directory is created owner-only."""
    parsed = sa.engine.make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return sa.create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)
    if parsed.database and parsed.database != ":memory:":
        from hookgate.paths import private_dir

        path = Path(parsed.database).expanduser().resolve()
        private_dir(path.parent)
        # The file holds the bundle signing key: owner-only (SQLite gives its -wal/-shm the same).
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    engine = sa.create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

    @sa.event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: object, _record: object) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")  # readers never wait for the writer
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    return engine


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest migration (Alembic, no alembic.ini needed)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", "hookgate.server:migrations")
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def hash_token(token: str) -> str:
    # Tokens are 256-bit random strings, so a fast hash is enough: there is nothing to brute-force.
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def content_hash(content: str) -> str:
    return "sha256:" + hashlib.sha256(content.encode("utf-8")).hexdigest()


def canonical_json(value: object) -> str:
    """The stored form of a data document; ``ValueError`` for NaN or an infinity."""
    return jsonio.dumps(value, sort_keys=True, compact=True, ensure_ascii=False)


def _now() -> datetime:
    return datetime.now(UTC)


class Store:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # Per-process caches for the hot path (see cached_principal and current_revision);
        # every change made through this store clears them at once.
        self._principals: dict[str, tuple[float, Principal]] = {}
        self._revision: tuple[float, int] | None = None

    # -- health ------------------------------------------------------------------------------

    def ping(self) -> None:
        with self.engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))

    # -- tokens -------------------------------------------------------------------------------

    def create_token(self, role: str, name: str, conn: Connection | None = None) -> str:
        """A new token for ``role``; only its hash is stored, so it can be shown only now."""
        if role not in ROLES:
            raise StoreError(f"role: expected one of {', '.join(ROLES)}")
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        row = {"name": name, "role": role, "token_hash": hash_token(token), "created_at": _now()}
        if conn is not None:
            conn.execute(m.tokens.insert().values(**row))
        else:
            with self.engine.begin() as own:
                own.execute(m.tokens.insert().values(**row))
        return token

    def cached_principal(self, token: str) -> Principal | None:
        """The principal of ``token`` if it authenticated in the last ``TOKEN_CACHE_SECONDS``
        (so a token revoked through another server process stops working within that time)."""
        hit = self._principals.get(hash_token(token))
        if hit is not None and time.monotonic() - hit[0] < TOKEN_CACHE_SECONDS:
            return hit[1]
        return None

    def authenticate(self, token: str) -> Principal | None:
        digest = hash_token(token)
        t = m.tokens.c
        query = sa.select(t.id, t.name, t.role, t.token_hash).where(
            m.tokens.c.token_hash == digest, m.tokens.c.revoked_at.is_(None)
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        # The lookup is by hash; the final comparison is constant-time all the same.
        if row is None or not hmac.compare_digest(row.token_hash, digest):
            self._principals.pop(digest, None)
            return None
        principal = Principal(row.name, row.role, row.id)
        if len(self._principals) >= 4096:  # bounded: unknown tokens are never cached anyway
            self._principals.clear()
        self._principals[digest] = (time.monotonic(), principal)
        return principal

    def list_tokens(self) -> list[dict]:
        query = sa.select(
            m.tokens.c.id, m.tokens.c.name, m.tokens.c.role, m.tokens.c.created_at,
            m.tokens.c.revoked_at,
        ).order_by(m.tokens.c.id)  # fmt: skip
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        return [
            {
                "id": r.id,
                "name": r.name,
                "role": r.role,
                "created_at": utc(r.created_at),
                "revoked_at": r.revoked_at and utc(r.revoked_at),
            }
            for r in rows
        ]

    def revoke_token(self, token_id: int) -> None:
        self._principals.clear()
        with self.engine.begin() as conn:
            result = conn.execute(
                m.tokens.update()
                .where(m.tokens.c.id == token_id, m.tokens.c.revoked_at.is_(None))
                .values(revoked_at=_now())
            )
        if result.rowcount == 0:
            raise NotFound(f"token {token_id}: no such active token")

    # -- first start --------------------------------------------------------------------------

    def seed(
        self,
        policies: dict[str, str],
        documents: dict[str, object],
        *,
        validate: Validator,
        base: bool,
    ) -> str | None:
        """On an empty database: a team layer (``policies`` by id, data ``documents`` by path;
        ``hookgate serve`` seeds an empty one, the shape a publish stores) over the built-in
        pack, or with the base replaced (``base`` false), checked by ``validate``, as revision
        1, author ``seed``, and an admin token, which is returned. ``None`` when the database
        was not empty."""
        with self.engine.begin() as conn:
            if conn.execute(sa.select(m.state.c.id)).first() is not None:
                return None
            validate(*compose(policies, documents, base=base))
            now = _now()
            # Inserting the state row first makes a concurrent second seeder fail on its key.
            conn.execute(m.state.insert().values(id=1, revision=1, updated_at=now))
            stored = [("policy", key, text) for key, text in sorted(policies.items())]
            stored += [("data", key, canonical_json(v)) for key, v in sorted(documents.items())]
            for kind, key, content in stored:
                self._write(conn, kind, key, None, content, "put", "seed", "team layer", 1, now)
            write_base(conn, self, base, "seed", 1, now)
            return self.create_token("admin", "admin", conn)

    def sync_base(self, *, validate: Validator) -> tuple[str, str] | None:
        """Run this hookgate's built-in pack: when the stored base names an older release (the
        server was upgraded) or another build of this one, write this one as a new bundle
        revision (author ``hookgate``), so clients pull it and the base's history shows it.
        Returns ``(old, new)`` versions when it did; ``None`` when the base is current,
        replaced, or the database is not seeded. The team layer must compose over the new base
        (``validate`` and ``compose`` raise otherwise, and nothing is written).

        ``BaseNewer`` when the stored base is a newer release (or no release number): an older
        server next to a newer one on one database would otherwise move every client back to
        the older pack at each start, and the two would flip the base back and forth."""
        from hookgate import layers

        version = layers.base_version()
        with self.engine.begin() as conn:
            # The write lock first (the state row), as every change takes it.
            locked = conn.execute(m.state.update().values(updated_at=m.state.c.updated_at))
            head = self._head(conn, BASE_KIND, layers.BASE_NAME)
            if locked.rowcount == 0 or head is None or head.content in (None, version):
                return None
            stored, running = layers.release_key(head.content), layers.release_key(version)
            if stored is None or running is None or stored > running:
                raise BaseNewer(
                    f"the database's base is {layers.BASE_NAME} {head.content}, newer than this "
                    f"hookgate's {version}: a newer hookgate serves this database; run that "
                    "version here too (a server never moves the base back)"
                )
            active = self._active(conn)
            validate(*compose(active.layer, active.documents, base=True))
            now = _now()
            conn.execute(m.state.update().values(revision=active.revision + 1, updated_at=now))
            write_base(conn, self, True, "hookgate", active.revision + 1, now, head)
        self._revision = None
        return head.content, version

    # -- documents ----------------------------------------------------------------------------

    def head(self, kind: str, key: str) -> Revision | None:
        """The current revision of a document (a deleted one's head is its delete)."""
        with self.engine.connect() as conn:
            return self._head(conn, kind, key)

    def get(self, kind: str, key: str) -> Revision:
        head = self.head(kind, key)
        if head is None or head.content is None:
            raise NotFound(f"{kind} {key}: not found")
        return head

    def list(self, kind: str) -> list[Revision]:
        with self.engine.connect() as conn:
            return [r for r in self._heads(conn, kind) if r.content is not None]

    def revisions(self, kind: str, key: str) -> list[Revision]:
        query = (
            sa.select(m.revisions)
            .where(m.revisions.c.kind == kind, m.revisions.c.key == key)
            .order_by(m.revisions.c.number)
        )
        with self.engine.connect() as conn:
            found = [_revision(r) for r in conn.execute(query)]
        if not found:
            raise NotFound(f"{kind} {key}: not found")
        return found

    def revision(self, kind: str, key: str, number: int) -> Revision:
        query = sa.select(m.revisions).where(
            m.revisions.c.kind == kind, m.revisions.c.key == key, m.revisions.c.number == number
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        if row is None:
            raise NotFound(f"{kind} {key}: no revision {number}")
        return _revision(row)

    def cached_revision(self, stale_ok: bool = False) -> int | None:
        """The bundle revision as read less than ``REVISION_CACHE_SECONDS`` ago (a change made
        through another server process shows within that time); ``None`` if not that fresh.
        ``stale_ok`` accepts a read up to twice that old, for a caller that is reading the
        revision again meanwhile."""
        cached = self._revision
        max_age = REVISION_CACHE_SECONDS * (2 if stale_ok else 1)
        if cached is not None and time.monotonic() - cached[0] < max_age:
            return cached[1]
        return None

    def current_revision(self, cached_ok: bool = False) -> int:
        """The bundle revision, from the database unless ``cached_ok`` and ``cached_revision``
        has it."""
        cached = self.cached_revision() if cached_ok else None
        if cached is not None:
            return cached
        with self.engine.connect() as conn:
            revision = conn.execute(sa.select(m.state.c.revision)).scalar() or 0
        self._revision = (time.monotonic(), revision)
        return revision

    def active_set(self) -> ActiveSet:
        """The active set, consistent with its revision: read again if a change landed while
        it was being read."""
        with self.engine.connect() as conn:
            while True:
                active = self._active(conn)
                if conn.execute(sa.select(m.state.c.revision)).scalar() in (active.revision, None):
                    return active

    def change(
        self,
        kind: str,
        key: str,
        content: str | None,
        *,
        if_match: str | None,
        author: str,
        message: str,
        validate: Validator,
        rollback_to: int | None = None,
    ) -> Revision | None:
        """Put (``content``), delete (``None``) or roll back (``rollback_to``) one document.

        First, outside any transaction: read the bundle revision, check ``if_match`` against the
        head, build the would-be active set and ``validate`` it (its exception aborts the
        change). Then, in one short transaction: take the write lock (the state row) and bump
        the bundle revision, which must be the one read (else the If-Match check again, then
        ``RevisionMoved``, 409: another change landed while this one was checked), and append
        the revision. The write lock is
        never held while a set compiles, so uploads and other writers do not wait on it.

        Content identical to the base's (a pack file's text under its id, a data document
        equal to the pack's data at its path that changes nothing in the set) is no change to
        the team layer, as ``publish`` treats it: a copy stored would pin the old pack's text
        and stop the server at the next upgrade. Nothing is written (``None``), or, when the
        layer holds the document, it is deleted (the base holds the same; the revision's
        message says so).
        """
        try:
            with self.engine.connect() as conn:
                # The revision first: any change after this read moves it, so the commit's
                # check catches a set read half before and half after another change.
                read = conn.execute(sa.select(m.state.c.revision)).scalar() or 0
                head, content, op, message, would_be = self._plan(
                    conn, kind, key, content, if_match, message, rollback_to
                )
        except _SameAsBase:
            return None
        validate(*would_be)
        with self.engine.begin() as conn:
            now = _now()
            bumped = conn.execute(
                m.state.update().values(revision=m.state.c.revision + 1, updated_at=now)
            )
            if bumped.rowcount == 0:  # a database created without seeding
                conn.execute(m.state.insert().values(id=1, revision=1, updated_at=now))
            set_revision = conn.execute(sa.select(m.state.c.revision)).scalar_one()
            if set_revision != read + 1:
                # The same document changed meanwhile: the If-Match answer (412, 428) first.
                _check_precondition(kind, key, self._head(conn, kind, key), if_match)
                raise RevisionMoved(
                    f"the bundle revision moved from {read} to {set_revision - 1} while this "
                    f"change of {kind} {key} was checked; nothing was changed: send it again"
                )
            written = self._write(
                conn, kind, key, head, content, op, author, message, set_revision, now
            )
        self._revision = None  # this process sees its own change at once
        return written

    def _plan(
        self,
        conn: Connection,
        kind: str,
        key: str,
        content: str | None,
        if_match: str | None,
        message: str,
        rollback_to: int | None,
    ) -> tuple[Revision | None, str | None, str, str, tuple[dict[str, str], dict]]:
        """What ``change`` writes: ``(head, content, op, message, would-be set)``."""
        head, op = self._head(conn, kind, key), "put"
        _check_precondition(kind, key, head, if_match)
        if rollback_to is not None:
            r = m.revisions.c
            where = (r.kind == kind) & (r.key == key) & (r.number == rollback_to)
            target = conn.execute(sa.select(m.revisions).where(where)).first()
            if target is None or target.content is None:
                raise NotFound(f"{kind} {key}: no revision {rollback_to} with content")
            content, op = target.content, "rollback"
        elif content is None:
            if head is None or head.content is None:
                raise NotFound(f"{kind} {key}: not found")
            op = "delete"
        active = self._active(conn)
        policies, documents = dict(active.layer), dict(active.documents)
        target_docs = policies if kind == "policy" else documents
        if content is None:
            target_docs.pop(key, None)
        else:
            target_docs[key] = content if kind == "policy" else json.loads(content)
            if active.base is not None and _base_holds(kind, key, policies, documents):
                if head is None or head.content is None:
                    raise _SameAsBase  # nothing written
                del target_docs[key]
                content, op = None, "delete"
                message = "; ".join(filter(None, (message, same_as_base(kind, key))))
        would_be = compose(policies, documents, base=active.base is not None)
        return head, content, op, message, would_be

    def _write(
        self,
        conn: Connection,
        kind: str,
        key: str,
        head: Revision | None,
        content: str | None,
        op: str,
        author: str,
        message: str,
        set_revision: int,
        now: datetime,
    ) -> Revision:
        number = 1 if head is None else head.number + 1
        row = {
            "kind": kind,
            "key": key,
            "number": number,
            "op": op,
            "content": content,
            "content_hash": None if content is None else content_hash(content),
            "author": author,
            "message": message,
            "created_at": now,
            "set_revision": set_revision,
        }
        conn.execute(m.revisions.insert().values(**row))
        where = (m.documents.c.kind == kind) & (m.documents.c.key == key)
        values = {"head": number, "deleted": content is None}
        if head is None:
            conn.execute(m.documents.insert().values(kind=kind, key=key, **values))
        else:
            conn.execute(m.documents.update().where(where).values(**values))
        return Revision(**row)

    def _head(self, conn: Connection, kind: str, key: str) -> Revision | None:
        query = (
            sa.select(m.revisions)
            .join(
                m.documents,
                (m.documents.c.kind == m.revisions.c.kind)
                & (m.documents.c.key == m.revisions.c.key)
                & (m.documents.c.head == m.revisions.c.number),
            )
            .where(m.documents.c.kind == kind, m.documents.c.key == key)
        )
        row = conn.execute(query).first()
        return None if row is None else _revision(row)

    def _heads(self, conn: Connection, kind: str) -> list[Revision]:
        query = (
            sa.select(m.revisions)
            .join(
                m.documents,
                (m.documents.c.kind == m.revisions.c.kind)
                & (m.documents.c.key == m.revisions.c.key)
                & (m.documents.c.head == m.revisions.c.number),
            )
            .where(m.documents.c.kind == kind, m.documents.c.deleted.is_(False))
            .order_by(m.documents.c.key)
        )
        return [_revision(r) for r in conn.execute(query)]

    def _active(self, conn: Connection) -> ActiveSet:
        """The team layer as stored, composed over the base its base document names (the
        running pack: ``sync_base`` keeps the document's version current). A database never
        seeded has no base document, and its set is what it stores."""
        from hookgate import layers

        row = conn.execute(sa.select(m.state.c.revision, m.state.c.updated_at)).first()
        revision, updated = (row.revision, utc(row.updated_at)) if row else (0, _now())
        layer = {r.key: r.content for r in self._heads(conn, "policy")}
        documents = {r.key: r.value() for r in self._heads(conn, "data")}
        base = self._head(conn, BASE_KIND, layers.BASE_NAME)
        on = base is not None and base.content is not None
        layered = layers.compose_set(layer, documents, base=on)
        return ActiveSet(
            revision,
            updated,
            layered.sources,
            layered.data,
            layer,
            documents,
            layered.base_version,
            tuple(layered.disabled),
        )

    # -- the bundle signing key ---------------------------------------------------------------

    def signing_key(self) -> tuple[bytes, bytes]:
        """``(private seed, public key)``, raw 32 bytes each; created on first use and shared
        by every server process through the database."""
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        from hookgate.bundle_format import key_id

        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(m.signing_keys).order_by(m.signing_keys.c.created_at)
            ).first()
        if row is None:
            private = Ed25519PrivateKey.generate()
            raw = serialization.Encoding.Raw
            seed = private.private_bytes(
                raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
            )
            public = private.public_key().public_bytes(raw, serialization.PublicFormat.Raw)
            values = {
                "key_id": key_id(public),
                "private_key": base64.b64encode(seed).decode(),
                "public_key": base64.b64encode(public).decode(),
                "created_at": _now(),
            }
            try:
                with self.engine.begin() as conn:
                    conn.execute(m.signing_keys.insert().values(**values))
            except sa.exc.IntegrityError:
                pass  # another process created one at the same moment: use the first
            return self.signing_key()
        return base64.b64decode(row.private_key), base64.b64decode(row.public_key)

    # -- decision logs ------------------------------------------------------------------------

    def add_decisions(
        self,
        decisions: list[dict],
        uploaded_by: str,
        *,
        token_id: int | None = None,
        hourly_quota: int = 0,
    ) -> tuple[int, int]:
        """Store a batch from the token ``token_id`` named ``uploaded_by``; a decision id
        already stored is a duplicate, not an error. With ``hourly_quota``, a token that would
        pass that many records offered in the current hour gets ``QuotaExceeded`` and nothing
        is stored (counted in the database, so every server process shares the count).
        Returns ``(accepted, duplicates)``."""
        if not decisions:
            return 0, 0
        now = _now()
        with self.engine.begin() as conn:
            if hourly_quota and token_id is not None:
                _count_usage(conn, token_id, now, len(decisions), hourly_quota)
            uploader = {"uploaded_by": uploaded_by, "token_id": token_id, "received_at": now}
            if conn.dialect.name == "postgresql":
                accepted = add_rows_pg(conn, decisions, uploader)
            else:
                accepted = add_rows(conn, decisions, uploader)
        return accepted, len(decisions) - accepted

    def purge_decisions(self, before: datetime, batch: int = 50_000) -> int:
        """Delete the decision records older than ``before`` (decision time), ``batch`` at a
        time (set-based statements, never row by row; short transactions, so uploads are not
        held up); returns how many went."""
        d, dm = m.decisions.c, m.decision_matches.c
        removed = 0
        while True:
            with self.engine.begin() as conn:
                seqs = [
                    seq
                    for (seq,) in conn.execute(
                        sa.select(d.seq).where(d.time < before).order_by(d.seq).limit(batch)
                    )
                ]
                if not seqs:
                    return removed
                low, high = seqs[0], seqs[-1]
                # A range of seq, so each statement is one index range, not a list of ids.
                in_range = d.seq.between(low, high) & (d.time < before)
                old = sa.select(d.seq).where(in_range).scalar_subquery()
                conn.execute(m.decision_matches.delete().where(dm.decision_seq.in_(old)))
                removed += conn.execute(m.decisions.delete().where(in_range)).rowcount

    def would_per_day(
        self, *, since: datetime | None = None, until: datetime | None = None
    ) -> list[dict]:
        """Per day, guard, mode and would-be answer: how many records (``would_per_day``)."""
        with self.engine.connect() as conn:
            return would_per_day(conn, since=since, until=until)

    def query_decisions(
        self,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        outcome: str | None = None,
        pack: str | None = None,
        host: str | None = None,
        session_id: str | None = None,
        token_id: int | None = None,
        errors: str | None = None,
        guard: str | None = None,
        mode: str | None = None,
        limit: int = 100,
        cursor: str | None = None,
        with_input: bool = True,
    ) -> tuple[list[dict], str | None]:
        """Newest first (by decision time, then arrival). Returns the page and the cursor of
        the next page (``None`` at the end); the cursor is a position (time, seq), stable while
        new decisions arrive. ``ValueError`` for a cursor this did not make. Without
        ``with_input`` no input document is read: each record says whether one is withheld."""
        d, dm = m.decisions.c, m.decision_matches.c
        rest = dict(host=host, session_id=session_id, token_id=token_id, errors=errors)
        rest |= dict(guard=guard, mode=mode)
        if pack is None:
            window = dict(since=since, until=until, outcome=outcome)
            keys = decision_filters(sa.select(d.seq, d.time), **window, **rest)
            position = (d.time, d.seq)
        else:
            # A pack's records from its matches, whose index (pack, outcome, time, seq) holds
            # the page in order: one range, however many records the window holds.
            keys = sa.select(dm.decision_seq.label("seq"), dm.time).where(dm.pack == pack)
            keys = keys.where(dm.outcome == outcome) if outcome is not None else keys
            keys = keys.where(dm.time >= utc(since)) if since is not None else keys
            keys = keys.where(dm.time < utc(until)) if until is not None else keys
            if any(value is not None for value in rest.values()):
                keys = decision_filters(keys.join(m.decisions, d.seq == dm.decision_seq), **rest)
            keys = keys.distinct()  # a record with two matches of the pack, once
            position = (dm.time, dm.decision_seq)
        if cursor is not None:
            keys = keys.where(sa.tuple_(*position) < sa.tuple_(*parse_cursor(cursor)))
        # The page's positions first, from an index alone, then its records by seq: the rows
        # the filters pass over are never read from the table.
        keys = keys.order_by(position[0].desc(), position[1].desc()).limit(limit + 1).subquery()
        # With their matches in the same statement (a record per match, in order).
        query = (
            sa.select(
                *(c for c in m.decisions.c if c.name != "input"),
                # Withheld: only whether there is one (the documents never leave the database).
                d.input if with_input else d.input.isnot(None).label("input"),
                dm.position.label("match_position"),
                dm.pack.label("match_pack"),
                dm.pattern.label("match_pattern"),
                dm.rule.label("match_rule"),
            )
            .join(keys, keys.c.seq == d.seq)
            .outerjoin(m.decision_matches, dm.decision_seq == d.seq)
            .order_by(d.time.desc(), d.seq.desc(), dm.position)
        )
        # One statement, so no transaction around it: no BEGIN and ROLLBACK round trips.
        with self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            found: dict[int, tuple[sa.Row, list[dict]]] = {}
            for r in conn.execute(query):
                _, matches = found.setdefault(r.seq, (r, []))
                if r.match_position is not None:  # null: no match (the outer join)
                    matches.append({"pack": r.match_pack, "pattern": r.match_pattern,
                                    "rule": r.match_rule})  # fmt: skip
        rows = list(found.values())
        page = rows[:limit]
        items = [record_out(r, matches, with_input) for r, matches in page]
        next_cursor = cursor_of(page[-1][0]) if len(rows) > limit else None
        return items, next_cursor

    def decision_streams(self, limit: int = 1000) -> tuple[list[dict], bool]:
        """Each stream (a machine and user's decision log) with its records' sequence checked:
        the gaps between the sequence numbers held, and the records held twice or whose
        ``prev`` is not the hash of the record held before them (rewritten). At most ``limit``
        gaps and rewrites in all; the second value says whether more exist."""
        d = m.decisions.c
        chained = sa.and_(d.stream.is_not(None), d.stream_seq.is_not(None))
        window = {"partition_by": d.stream, "order_by": (d.stream_seq, d.seq)}
        ordered = (
            sa.select(
                d.stream,
                d.stream_seq.label("n"),
                d.prev_hash,
                sa.func.lag(d.stream_seq).over(**window).label("before_n"),
            )
            .where(chained)
            .subquery()
        )
        o = ordered.c
        follows = o.n == o.before_n + 1
        # A record whose prev names no record held at seq - 1 (one of them, when a seq is
        # held twice: the other is reported already).
        before = m.decisions.alias("before")
        named = sa.exists().where(
            before.c.stream == o.stream,
            before.c.stream_seq == o.n - 1,
            before.c.record_hash == o.prev_hash,
        )
        broken = sa.or_(o.prev_hash.is_(None), ~named)
        problems = (
            sa.select(o.stream, o.n, o.before_n)
            .where(sa.or_(o.n > o.before_n + 1, o.n == o.before_n, sa.and_(follows, broken)))
            .order_by(o.stream, o.n)
            .limit(limit + 1)
        )
        summary = (
            sa.select(
                d.stream,
                sa.func.count().label("records"),
                sa.func.count(sa.distinct(d.stream_seq)).label("distinct"),
                sa.func.min(d.stream_seq).label("first"),
                sa.func.max(d.stream_seq).label("last"),
                sa.func.max(d.received_at).label("received"),
            )
            .where(chained)
            .group_by(d.stream)
            .order_by(d.stream)
        )
        with self.engine.connect() as conn:
            found = {
                r.stream: {
                    "stream": r.stream,
                    "records": r.records,
                    "first_seq": r.first,
                    "last_seq": r.last,
                    "missing": r.last - r.first + 1 - r.distinct,
                    "gaps": [],
                    "rewritten": [],
                    "last_received_at": utc(r.received),
                }
                for r in conn.execute(summary)
            }
            rows = conn.execute(problems).all()
        for r in rows[:limit]:
            report = found[r.stream]
            if r.n > r.before_n + 1:
                report["gaps"].append({"after": r.before_n, "before": r.n})
            elif not report["rewritten"] or report["rewritten"][-1] != r.n:
                report["rewritten"].append(r.n)
        return list(found.values()), len(rows) > limit


class _SameAsBase(Exception):
    """A put of the base's own content where the team layer holds nothing to delete."""


def same_as_base(kind: str, key: str) -> str:
    """What a change of ``key`` to the base's content says (``Store.change``)."""
    from hookgate import layers

    what = "the built-in pack's file" if kind == "policy" else "the built-in pack's data there"
    return (
        f"{kind} {key} is identical to {what} ({layers.BASE_NAME} {layers.base_version()}): "
        "the team layer keeps no copy, the base holds it"
    )


def _base_holds(
    kind: str, key: str, policies: dict[str, str], documents: dict[str, object]
) -> bool:
    """Whether the base holds the team layer's ``key`` as it is: the pack's file of that id
    with the same text, or the pack's data at that path, equal, and nothing of the team's in
    between (without the document the composed data is the same)."""
    from hookgate import layers

    base_sources, base_data, _ = layers.server_base()
    if kind == "policy":
        return base_sources.get(key) == policies[key]
    missing = object()
    if layers.value_at(base_data, key, missing) != documents[key]:
        return False
    without = {path: value for path, value in documents.items() if path != key}
    try:
        with_it = layers.compose_set(policies, documents, base=True).data
        return layers.compose_set(policies, without, base=True).data == with_it
    except PolicyError:
        return False  # the change's check names the problem


def write_base(
    conn: Connection,
    store: Store,
    on: bool,
    author: str,
    set_revision: int,
    now: datetime,
    head: Revision | None = None,
) -> Revision:
    """Write the base document: the running pack's version (``on``), or a delete that replaces
    the base. Its message says what changed, for the revision history."""
    from hookgate import layers

    version = layers.base_version()
    if on:
        was = f" (was {head.content})" if head is not None and head.content else ""
        message = f"base {layers.BASE_NAME} {version}{was}"
    else:
        message = f"base {layers.BASE_NAME} replaced: the team layer is the whole set"
    content = version if on else None
    op = "put" if on else "delete"
    return store._write(
        conn, BASE_KIND, layers.BASE_NAME, head, content, op, author, message, set_revision, now
    )


def _check_precondition(kind: str, key: str, head: Revision | None, if_match: str | None) -> None:
    """RFC 9110's If-Match, with one addition: changing an existing document without it is
    refused (428), so no client can overwrite an edit it never saw."""
    if head is None or head.content is None:
        if if_match is not None:
            raise PreconditionFailed(f"{kind} {key}: If-Match given, but it does not exist")
        return
    if if_match is None:
        raise PreconditionRequired(
            f"{kind} {key}: exists; send If-Match with the ETag you read (or *) to change it"
        )
    tags = [tag.strip().removeprefix("W/") for tag in if_match.split(",")]
    if "*" not in tags and head.etag not in tags:
        raise PreconditionFailed(
            f"{kind} {key}: changed since you read it (now {head.etag}); read it again"
        )


def _count_usage(conn: Connection, token_id: int, now: datetime, records: int, quota: int) -> None:
    """Add ``records`` to the token's count for this hour; ``QuotaExceeded`` past ``quota``
    (the caller's transaction then rolls the count back with the batch)."""
    window = now.replace(minute=0, second=0, microsecond=0)
    u = m.token_usage
    upsert = insert_ignore(conn)(u).values(token_id=token_id, hour_start=window, records=records)
    total = conn.execute(
        upsert.on_conflict_do_update(
            index_elements=["token_id", "hour_start"],
            set_={"records": u.c.records + upsert.excluded.records},
        ).returning(u.c.records)
    ).scalar_one()
    if total > quota:
        retry_after = 3600 - (now - window).seconds
        raise QuotaExceeded(
            f"this token has uploaded its quota of {quota} decision records this hour",
            retry_after,
        )


def _revision(row: sa.Row) -> Revision:
    return Revision(
        kind=row.kind,
        key=row.key,
        number=row.number,
        op=row.op,
        content=row.content,
        content_hash=row.content_hash,
        author=row.author,
        message=row.message,
        created_at=utc(row.created_at),
        set_revision=row.set_revision,
    )
