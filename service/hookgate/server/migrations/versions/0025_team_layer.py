"""The stored documents become the team's layer over the built-in pack (the base layer).

Before, the server stored the whole active set: the seed wrote every file of the pack (tests
included) and one data document per top-level key, and the team edited, added or deleted
documents among them. Now the base is a document of its own (kind ``base``: its head holds the
pack version the set composes, or is a delete when the team replaced the base) and the other
documents are the team's layer over it (``layers.compose_set``).

This migration changes nothing a team wrote, and loses nothing:

- A policy or data document that is the base's (same id or path as a file or top-level key of
  the pack) and unedited (its content is what the seed wrote, the pack of the version that
  seeded it, or what the running pack holds) is dropped from the layer: a delete revision,
  author ``migration``. The base layer holds it, at the running version.
- When the team edited or deleted any of the base's documents, or its layer does not compose
  over the base (a setting of another type), the whole stored set is kept as it is and the
  base is marked replaced (a delete revision of the base document whose message names the
  documents why): the active set is exactly what it was. Publishing a layer without
  ``--replace-base`` later composes it over the pack again.

Either way the change is one new bundle revision (clients pull it), and the base document's
history says which. A database that was never seeded is left as it is.

Revision ID: 0025
Revises: 0024
"""

import json
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None

state = sa.table(
    "state",
    sa.column("id", sa.Integer),
    sa.column("revision", sa.Integer),
    sa.column("updated_at", sa.DateTime(timezone=True)),
)
documents = sa.table(
    "documents",
    sa.column("kind", sa.String),
    sa.column("key", sa.String),
    sa.column("head", sa.Integer),
    sa.column("deleted", sa.Boolean),
)
revisions = sa.table(
    "revisions",
    sa.column("kind", sa.String),
    sa.column("key", sa.String),
    sa.column("number", sa.Integer),
    sa.column("op", sa.String),
    sa.column("content", sa.Text),
    sa.column("content_hash", sa.String),
    sa.column("author", sa.String),
    sa.column("message", sa.Text),
    sa.column("created_at", sa.DateTime(timezone=True)),
    sa.column("set_revision", sa.Integer),
)
AUTHOR = "migration"


def upgrade() -> None:
    from hookgate import layers
    from hookgate.lang.errors import PolicyError

    conn = op.get_bind()
    row = conn.execute(sa.select(state.c.revision)).first()
    base_kind = "base"
    if row is None or _head(conn, base_kind, layers.BASE_NAME) is not None:
        return
    base = layers.compose_set({}, {}, base=True)
    pack = {"policy": base.base_sources, "data": base.base_data}
    heads = {(kind, key): (number, content) for kind, key, number, content in _heads(conn)}
    seeded = _seeded(conn)
    edited, dropped = [], []
    for (kind, key), (_, content) in sorted(heads.items()):
        if key not in pack[kind]:
            continue  # the team's own document (a deeper data path is too: it overrides)
        same = content == pack[kind][key] if kind == "policy" else _same(content, pack[kind][key])
        if same or (content is not None and content == seeded.get((kind, key))):
            dropped.append((kind, key))
        else:
            edited.append(f"{'data/' if kind == 'data' else ''}{key}")
    layer = {k: c for (kind, k), (_, c) in heads.items() if kind == "policy" and c is not None}
    data = {k: json.loads(c) for (kind, k), (_, c) in heads.items() if kind == "data" and c}
    kept = {k: v for k, v in layer.items() if ("policy", k) not in dropped}
    kept_data = {k: v for k, v in data.items() if ("data", k) not in dropped}
    why = ""
    if edited:
        why = f"the stored set edits or deletes the built-in pack's {', '.join(edited)}"
    else:
        try:
            layers.compose_set(kept, kept_data, base=True)
        except PolicyError as exc:
            why = f"the stored set does not compose over the built-in pack: {exc}"
    now_time = datetime.now(UTC)
    set_revision = row.revision + 1
    conn.execute(state.update().values(revision=set_revision, updated_at=now_time))

    def write(kind: str, key: str, content: str | None, message: str) -> None:
        number = heads.get((kind, key), (0, None))[0] + 1
        _write(conn, kind, key, number, content, message, set_revision, now_time)

    if why:
        try:
            layers.compose_set(layer, data, base=False)
        except PolicyError:
            # Layers type-check a deeper document against a shallower one; the old code let
            # the deeper value win. Its merged data, one document per top-level key, is the
            # same set in a shape that composes (the old documents stay in their history).
            merged = _old_merge(data)
            for key in sorted(data):
                if key not in merged:
                    write("data", key, None, "migration: merged into its top-level document")
            for key, value in sorted(merged.items()):
                if key not in data or data[key] != value:
                    write("data", key, _json(value), "migration: the documents under it, merged")
            why += "; data documents merged per top-level key (their types differ by depth)"
        message = f"migration: base {layers.BASE_NAME} replaced, the stored set kept whole: {why}"
        write(base_kind, layers.BASE_NAME, None, message[:2000])
        return
    for kind, key in dropped:
        write(kind, key, None, "migration: the built-in pack's; the base layer holds it")
    version = layers.base_version()
    write(base_kind, layers.BASE_NAME, version, f"migration: base {layers.BASE_NAME} {version}")


def downgrade() -> None:
    """The base's documents written back into the stored set (the shape the old code stored),
    then the base document removed: the active set stays the same."""
    from hookgate import layers

    conn = op.get_bind()
    row = conn.execute(sa.select(state.c.revision)).first()
    head = _head(conn, "base", layers.BASE_NAME)
    if row is not None and head is not None and head[1] is not None:
        base = layers.compose_set({}, {}, base=True)
        present = {(kind, key) for kind, key, _, content in _heads(conn) if content is not None}
        heads = {(kind, key): number for kind, key, number, _ in _heads(conn)}
        now_time = datetime.now(UTC)
        set_revision = row.revision + 1
        conn.execute(state.update().values(revision=set_revision, updated_at=now_time))
        restored = [("policy", k, text) for k, text in base.base_sources.items()]
        restored += [("data", k, _json(value)) for k, value in base.base_data.items()]
        for kind, key, content in restored:
            if (kind, key) not in present:
                number = heads.get((kind, key), 0) + 1
                message = "migration down: the base layer's, stored whole"
                _write(conn, kind, key, number, content, message, set_revision, now_time)
    conn.execute(revisions.delete().where(revisions.c.kind == "base"))
    conn.execute(documents.delete().where(documents.c.kind == "base"))


def _write(
    conn: sa.Connection,
    kind: str,
    key: str,
    number: int,
    content: str | None,
    message: str,
    set_revision: int,
    now: datetime,
) -> None:
    """A revision (a delete when ``content`` is None) and the document's head, as
    ``Store._write`` writes them."""
    import hashlib

    digest = None if content is None else "sha256:" + hashlib.sha256(content.encode()).hexdigest()
    conn.execute(
        revisions.insert().values(
            kind=kind, key=key, number=number, op="put" if content is not None else "delete",
            content=content, content_hash=digest, author=AUTHOR, message=message,
            created_at=now, set_revision=set_revision,
        )
    )  # fmt: skip
    values = {"head": number, "deleted": content is None}
    if number == 1:
        conn.execute(documents.insert().values(kind=kind, key=key, **values))
    else:
        where = (documents.c.kind == kind) & (documents.c.key == key)
        conn.execute(documents.update().where(where).values(**values))


def _old_merge(documents: dict[str, object]) -> dict:
    """The data as the code before layers merged documents: each placed at its path, shallower
    first; objects merge key by key, a deeper value wins anywhere else."""

    def over(under: object, value: object) -> object:
        if not (isinstance(under, dict) and isinstance(value, dict)):
            return value
        return {**under, **{k: over(under.get(k), v) for k, v in value.items()}}

    data: dict = {}
    for path, document in sorted(documents.items(), key=lambda d: (d[0].count("/"), d[0])):
        placed: object = document
        for key in reversed(path.split("/")):
            placed = {key: placed}
        data = over(data, placed)  # type: ignore[assignment]
    return data


def _same(content: str | None, value: object) -> bool:
    return content is not None and json.loads(content) == value


def _json(value: object) -> str:
    # The server's stored form (``store.canonical_json``): sorted keys, compact, not ASCII.
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _head(conn: sa.Connection, kind: str, key: str) -> tuple[int, str | None] | None:
    found = [(n, content) for k, name, n, content in _heads(conn, (kind,)) if name == key]
    return found[0] if found else None


def _heads(
    conn: sa.Connection, kinds: tuple[str, ...] = ("policy", "data")
) -> list[tuple[str, str, int, str | None]]:
    """The head of every document of ``kinds``: ``(kind, key, number, content)`` (content None:
    deleted)."""
    query = (
        sa.select(revisions.c.kind, revisions.c.key, revisions.c.number, revisions.c.content)
        .select_from(
            revisions.join(
                documents,
                (documents.c.kind == revisions.c.kind)
                & (documents.c.key == revisions.c.key)
                & (documents.c.head == revisions.c.number),
            )
        )
        .where(documents.c.kind.in_(kinds))
    )
    return [tuple(r) for r in conn.execute(query)]


def _seeded(conn: sa.Connection) -> dict[tuple[str, str], str]:
    """What the seed wrote, by ``(kind, key)``: the pack of the version that seeded it."""
    query = sa.select(revisions.c.kind, revisions.c.key, revisions.c.content).where(
        revisions.c.author == "seed", revisions.c.number == 1
    )
    return {(r.kind, r.key): r.content for r in conn.execute(query)}
