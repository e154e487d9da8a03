"""The server's store on SQLite and PostgreSQL: migrations, versioned documents, optimistic
concurrency, tokens, the signing key, decision logs."""

from __future__ import annotations

import threading
import uuid
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from server_support import (
    BROKEN,
    GUARD,
    GUARD_V2,
    database_params,
    fresh_store,
    seeded,
    store_fixture,
)

from hookgate.lang.errors import PolicyError
from hookgate.server import tables
from hookgate.server.compilation import compile_set
from hookgate.server.store import (
    REVISION_CACHE_SECONDS,
    TOKEN_CACHE_SECONDS,
    NotFound,
    PreconditionFailed,
    PreconditionRequired,
    compose,
)

store = store_fixture(database_params())


def put(store, kind, key, content, if_match=None, validate=compile_set):
    return store.change(
        kind, key, content, if_match=if_match, author="tester", message="m", validate=validate
    )


def test_migrations_create_exactly_the_tables_of_the_metadata(store):
    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), tables.metadata)
    assert diff == []


def test_seed_happens_once_and_makes_revision_one(store):
    tokens = seeded(store)
    assert tokens["admin"].startswith("hg_")
    assert store.seed({"other.rego": GUARD}, {}, validate=compile_set, base=False) is None
    active = store.active_set()
    assert active.revision == 1
    assert active.policies == {"git_hooks.rego": GUARD}
    head = store.get("policy", "git_hooks.rego")
    assert (head.author, head.number, head.set_revision) == ("seed", 1, 1)


def test_seed_refuses_a_pack_that_does_not_compile(store):
    with pytest.raises(PolicyError):
        store.seed({"broken.rego": BROKEN}, {}, validate=compile_set, base=False)
    assert store.current_revision() == 0


def test_every_change_is_an_immutable_revision_and_bumps_the_bundle_revision(store):
    seeded(store)
    first = store.get("policy", "git_hooks.rego")
    second = put(store, "policy", "git_hooks.rego", GUARD_V2, if_match=first.etag)
    assert second.number == 2 and second.set_revision == 2
    assert second.content_hash != first.content_hash
    history = store.revisions("policy", "git_hooks.rego")
    assert [r.content for r in history] == [GUARD, GUARD_V2]
    assert store.revision("policy", "git_hooks.rego", 1).content == GUARD
    assert store.active_set().revision == 2


def test_if_match_stale_missing_and_star(store):
    seeded(store)
    first = store.get("policy", "git_hooks.rego")
    put(store, "policy", "git_hooks.rego", GUARD_V2, if_match=first.etag)
    with pytest.raises(PreconditionFailed):
        put(store, "policy", "git_hooks.rego", GUARD, if_match=first.etag)
    with pytest.raises(PreconditionRequired):
        put(store, "policy", "git_hooks.rego", GUARD)
    assert put(store, "policy", "git_hooks.rego", GUARD, if_match="*").number == 3
    with pytest.raises(PreconditionFailed):  # If-Match on something that does not exist
        put(store, "policy", "new.rego", GUARD.replace("git_hooks", "n"), if_match="*")
    assert store.current_revision() == 3  # refused changes left no trace


def test_a_change_that_breaks_compilation_is_refused_and_nothing_changes(store):
    seeded(store)
    before = store.active_set()
    with pytest.raises(PolicyError) as caught:
        put(store, "policy", "broken.rego", BROKEN)
    assert caught.value.diagnostics[0].file == "broken.rego"
    assert store.active_set() == before
    with pytest.raises(NotFound):
        store.get("policy", "broken.rego")


def test_delete_and_rollback(store):
    seeded(store)
    head = store.get("policy", "git_hooks.rego")
    deleted = put(store, "policy", "git_hooks.rego", None, if_match=head.etag)
    assert deleted.op == "delete" and deleted.content is None
    assert store.active_set().policies == {}
    with pytest.raises(NotFound):
        store.get("policy", "git_hooks.rego")
    with pytest.raises(NotFound):
        put(store, "policy", "git_hooks.rego", None)  # deleting twice
    restored = store.change(
        "policy", "git_hooks.rego", None, if_match=None, author="t", message="back",
        validate=compile_set, rollback_to=1,
    )  # fmt: skip
    assert (restored.op, restored.number, restored.content) == ("rollback", 3, GUARD)
    assert store.active_set().policies == {"git_hooks.rego": GUARD}
    with pytest.raises(NotFound):
        store.change(
            "policy", "git_hooks.rego", None, if_match="*", author="t", message="",
            validate=compile_set, rollback_to=2,  # a delete has no content to restore
        )  # fmt: skip


def test_data_documents_merge_by_path(store):
    seeded(store, data={"hookgate": {"limits": {"max": 3}}})
    put(store, "data", "hookgate/git", '{"protected": ["main"]}')
    assert store.active_set().data == {
        "hookgate": {"limits": {"max": 3}, "git": {"protected": ["main"]}}
    }
    assert store.get("data", "hookgate/git").value() == {"protected": ["main"]}


def test_data_under_a_non_object_is_a_conflict_named_by_path():
    with pytest.raises(PolicyError) as caught:
        compose({}, {"a": 1, "a/b": {"c": 2}}, base=False)
    headline = caught.value.diagnostics[0].headline()
    assert headline.startswith("data/a/b:1:1: data.a is an object here but a number"), headline
    assert compose({}, {"a/b": 2, "a": {"x": 1}}, base=False)[1] == {"a": {"x": 1, "b": 2}}


def test_a_data_override_keeps_the_type_of_the_setting_below(store):
    # As layers.overlay checks a --policies layer: the error names the key path and document.
    seeded(store, data={"hookgate": {"config": {"protected_branches": ["main"]}}})
    with pytest.raises(PolicyError) as caught:
        put(store, "data", "hookgate/config", '{"protected_branches": "main"}')
    assert caught.value.diagnostics[0].headline() == (
        "data/hookgate/config:1:1: data.hookgate.config.protected_branches is a string here "
        "but an array in the layers below: a setting keeps its type"
    )
    put(store, "data", "hookgate/config", '{"protected_branches": ["main", "dev"]}')
    assert store.active_set().data["hookgate"]["config"]["protected_branches"] == ["main", "dev"]


def test_racing_editors_exactly_one_wins(store):
    seeded(store)
    etag = store.get("policy", "git_hooks.rego").etag
    results: list[str] = []
    barrier = threading.Barrier(4)

    def edit(n: int) -> None:
        barrier.wait()
        try:
            put(store, "policy", "git_hooks.rego", GUARD.replace("skip", f"skip{n}"), etag)
            results.append("won")
        except PreconditionFailed:
            results.append("412")

    threads = [threading.Thread(target=edit, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["412", "412", "412", "won"]
    assert [r.number for r in store.revisions("policy", "git_hooks.rego")] == [1, 2]


def test_tokens_are_stored_hashed_and_can_be_revoked(store):
    tokens = seeded(store)
    with store.engine.connect() as conn:
        stored = [r.token_hash for r in conn.execute(sa.select(tables.tokens))]
    for token in tokens.values():
        assert token not in stored
        assert store.authenticate(token) is not None
    assert store.authenticate(tokens["viewer"]).role == "viewer"
    assert store.authenticate("hg_unknown") is None
    viewer_id = next(t["id"] for t in store.list_tokens() if t["role"] == "viewer")
    store.revoke_token(viewer_id)
    assert store.authenticate(tokens["viewer"]) is None
    with pytest.raises(NotFound):
        store.revoke_token(viewer_id)


def test_the_signing_key_is_created_once_and_shared(store):
    first = store.signing_key()
    assert len(first[0]) == 32 and len(first[1]) == 32
    assert store.signing_key() == first


def decision(n: int, **fields) -> dict:
    base = {
        "decision_id": str(uuid.UUID(int=n)),
        "time": datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=n),
        "host": "claude",
        "outcome": "allow",
        "matches": [],
    }
    return base | fields


def test_decisions_are_idempotent_on_their_id(store):
    assert store.add_decisions([decision(1), decision(2)], "agent") == (2, 0)
    assert store.add_decisions([decision(2), decision(3), decision(3)], "agent") == (1, 2)
    items, _ = store.query_decisions()
    assert sorted(i["decision_id"] for i in items) == [str(uuid.UUID(int=n)) for n in (1, 2, 3)]


def test_each_decision_of_a_batch_keeps_its_own_matches(store):
    def matched(n: int) -> list[dict]:
        return [{"pack": f"p{n}", "pattern": f"q{n}-{i}", "rule": "deny"} for i in range(n % 3)]

    store.add_decisions([decision(2)], "agent")
    batch = [decision(n, matches=matched(n)) for n in (5, 2, 7, 3, 4, 7)]  # 2 stored, 7 twice
    assert store.add_decisions(batch, "agent") == (4, 2)
    items, _ = store.query_decisions()
    got = {uuid.UUID(i["decision_id"]).int: i["matches"] for i in items}
    assert got == {2: [], 3: [], 4: matched(4), 5: matched(5), 7: matched(7)}


def test_decision_filters_and_pagination(store):
    rows = [decision(n, outcome="deny" if n % 3 == 0 else "allow") for n in range(1, 11)]
    rows[0] = decision(1, matches=[{"pack": "git", "pattern": "force-push", "rule": "deny"}])
    rows[1] = decision(2, host="copilot")
    store.add_decisions(rows, "agent")
    denies, _ = store.query_decisions(outcome="deny")
    assert sorted(i["decision_id"][-1] for i in denies) == ["3", "6", "9"]
    by_pack, _ = store.query_decisions(pack="git")
    assert [i["matches"] for i in by_pack] == [
        [{"pack": "git", "pattern": "force-push", "rule": "deny"}]
    ]
    assert [i["host"] for i in store.query_decisions(host="copilot")[0]] == ["copilot"]
    since = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=8)
    assert len(store.query_decisions(since=since)[0]) == 3
    assert len(store.query_decisions(until=since)[0]) == 7
    seen, cursor = [], None
    while True:
        page, cursor = store.query_decisions(limit=4, cursor=cursor)
        seen += [i["decision_id"] for i in page]
        if cursor is None:
            break
        store.add_decisions([decision(100 + len(seen))], "agent")  # arrivals don't shift pages
    assert len(seen) == 10 and len(set(seen)) == 10


def test_a_token_revoked_elsewhere_stops_working_within_the_cache_time(store, monkeypatch):
    tokens = seeded(store)
    other_process = type(store)(store.engine)
    clock = [1000.0]
    monkeypatch.setattr("hookgate.server.store.time.monotonic", lambda: clock[0])
    assert store.authenticate(tokens["viewer"]).role == "viewer"
    viewer_id = next(t["id"] for t in other_process.list_tokens() if t["role"] == "viewer")
    other_process.revoke_token(viewer_id)
    assert store.cached_principal(tokens["viewer"]) is not None  # within the bound
    clock[0] += TOKEN_CACHE_SECONDS
    assert store.cached_principal(tokens["viewer"]) is None
    assert store.authenticate(tokens["viewer"]) is None


def test_the_revision_seen_by_the_hot_path_is_at_most_a_second_stale(store, monkeypatch):
    seeded(store)
    other_process = type(store)(store.engine)
    clock = [1000.0]
    monkeypatch.setattr("hookgate.server.store.time.monotonic", lambda: clock[0])
    assert store.current_revision(cached_ok=True) == 1
    etag = other_process.get("policy", "git_hooks.rego").etag
    put(other_process, "policy", "git_hooks.rego", GUARD_V2, if_match=etag)
    assert other_process.current_revision(cached_ok=True) == 2  # its own change: at once
    assert store.current_revision(cached_ok=True) == 1
    clock[0] += REVISION_CACHE_SECONDS
    assert store.current_revision(cached_ok=True) == 2


def test_the_sqlite_file_is_private(tmp_path):
    store = fresh_store("sqlite", tmp_path / "state")
    assert (tmp_path / "state" / "server.db").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "state").stat().st_mode & 0o777 == 0o700
    store.engine.dispose()


def test_retention_deletes_old_records_and_their_matches_in_bulk(store):
    match = [{"pack": "git", "pattern": "p", "rule": "deny"}]
    old = [decision(n, matches=match) for n in range(1, 8)]  # 2026-01-01 00:01 … 00:07
    new = [decision(n, matches=match) for n in range(100, 103)]
    store.add_decisions(old + new, "agent")
    cutoff = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=50)
    assert store.purge_decisions(cutoff, batch=3) == 7  # several batches
    assert store.purge_decisions(cutoff) == 0
    page, _ = store.query_decisions(limit=500)
    assert sorted(d["decision_id"] for d in page) == sorted(d["decision_id"] for d in new)
    with store.engine.connect() as conn:
        left = conn.execute(sa.select(sa.func.count()).select_from(tables.decision_matches))
        assert left.scalar() == len(new)
