"""Issue 31, the server's half of layers: the stored documents are the team's layer and the
built-in pack is the base under it. A server that runs a new hookgate runs the new base at start
(a new bundle revision, in the base's history); databases of the code that stored whole sets
migrate without losing anything (migration 0025)."""

from __future__ import annotations

import json
import re

import httpx
import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from server_support import GUARD, auth, client_for
from test_server_cli import Server

from hookgate import layers
from hookgate.server import tables
from hookgate.server.compilation import compile_set
from hookgate.server.store import BASE_KIND, Store, canonical_json, make_engine
from hookgate.sources import default_pack_path, directory_documents

OLD = "0.0.1+000000000000"  # what an older hookgate wrote as its base


@pytest.fixture
def env(tmp_path):
    import os

    return {**os.environ, "HOOKGATE_HOME": str(tmp_path / "home"), "HOOKGATE_DB_URL": ""}


def _as_if_last_run_by_an_older_hookgate(url: str, version: str = OLD) -> None:
    engine = make_engine(url)
    r, d = tables.revisions.c, tables.documents.c
    with engine.begin() as conn:
        head = conn.execute(
            sa.select(d.head).where(d.kind == BASE_KIND, d.key == layers.BASE_NAME)
        ).scalar_one()
        conn.execute(
            tables.revisions.update()
            .where(r.kind == BASE_KIND, r.key == layers.BASE_NAME, r.number == head)
            .values(content=version)
        )
    engine.dispose()


def test_a_server_upgraded_runs_the_new_base_as_a_new_bundle_revision(tmp_path, env):
    db = f"sqlite:///{tmp_path / 'server.db'}"
    server = Server(db, env)
    try:
        admin = next(line.split()[-1] for line in server.lines if "Admin token" in line)
        h = {"Authorization": f"Bearer {admin}"}
        first = httpx.get(f"{server.url}/v1/bundle", headers=h).json()
        assert first["revision"] == 1 and first["base"]["version"] == layers.base_version()
        base = httpx.get(f"{server.url}/v1/base", headers=h).json()
        assert base["version"] == layers.base_version() and base["replaced"] is False
        assert {"force_push", "destructive", "no_verify"} <= set(base["guards"])
    finally:
        server.stop()
    _as_if_last_run_by_an_older_hookgate(db)
    server = Server(db, env)
    try:
        said = "".join(server.lines)
        assert f"Base layer {OLD} -> {layers.base_version()}: a new bundle revision" in said
        bundle = httpx.get(f"{server.url}/v1/bundle", headers=h).json()
        assert bundle["revision"] == 2  # clients pull it
        assert bundle["base"]["version"] == layers.base_version()
        assert "force_push.rego" in bundle["policies"]
        history = httpx.get(f"{server.url}/v1/base/revisions", headers=h).json()["revisions"]
        assert [(r["author"], r["content"], r["bundle_revision"]) for r in history] == [
            ("seed", OLD, 1),
            ("hookgate", layers.base_version(), 2),
        ]
        assert history[1]["message"] == (
            f"base {layers.BASE_NAME} {layers.base_version()} (was {OLD})"
        )
    finally:
        server.stop()
    server = Server(db, env)  # the same version again: nothing to do
    try:
        assert "Base layer" not in "".join(server.lines)
        assert httpx.get(f"{server.url}/v1/bundle", headers=h).json()["revision"] == 2
    finally:
        server.stop()


def _stored_as_an_old_server_would(db: str, key: str, text: str) -> None:
    """A team data document written straight into the database, with no check of today's."""
    engine = make_engine(db)
    store = Store(engine)
    with engine.begin() as conn:
        store._write(
            conn, "data", key, None, text, "put", "old", "m", 1, store.active_set().updated_at
        )
    engine.dispose()


def test_an_upgrade_names_the_teams_settings_nothing_reads(tmp_path, env):
    # A pack that renames a setting the team overrides (xpia.instruction_files became
    # xpia.instruction_channels): the override changes nothing, and the server says so.
    db = f"sqlite:///{tmp_path / 'server.db'}"
    Server(db, env).stop()
    _as_if_last_run_by_an_older_hookgate(db)
    _stored_as_an_old_server_would(db, "hookgate/config/xpia", '{"instruction_files":["RULES.md"]}')
    server = Server(db, env)
    said = "".join(server.lines)
    server.stop()
    assert "Base layer " in said
    assert (
        "warning: data/hookgate/config/xpia: data.hookgate.config.xpia.instruction_files is a "
        f"setting the base {layers.BASE_NAME} {layers.base_version()} does not have and no "
        "policy reads: it changes nothing"
    ) in said


def test_an_upgrade_the_team_layer_cannot_compose_over_is_refused_at_start(tmp_path, env):
    db = f"sqlite:///{tmp_path / 'server.db'}"
    Server(db, env).stop()
    _as_if_last_run_by_an_older_hookgate(db)
    # The team's setting has another type than the new base's (written as an old server would).
    _stored_as_an_old_server_would(db, "hookgate/config", '{"protected_branches":"main"}')
    import subprocess
    import sys

    started = subprocess.run(
        [sys.executable, "-m", "hookgate.cli", "serve", "--port", "0", "--db", db],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert started.returncode == 1
    assert "data.hookgate.config.protected_branches is a string here" in started.stderr


def test_a_server_older_than_the_databases_base_refuses_to_start(tmp_path, env):
    # Two server processes of different versions on one database: the older one must not move
    # every client back to its pack at each start (nor flip it with the newer one).
    import subprocess
    import sys

    db = f"sqlite:///{tmp_path / 'server.db'}"
    Server(db, env).stop()
    newer = "99.0.0+000000000000"
    _as_if_last_run_by_an_older_hookgate(db, newer)
    started = subprocess.run(
        [sys.executable, "-m", "hookgate.cli", "serve", "--port", "0", "--db", db],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert started.returncode == 1, started.stdout + started.stderr
    assert f"the database's base is {layers.BASE_NAME} {newer}, newer than this" in started.stderr
    assert "never moves the base back" in started.stderr
    store = Store(make_engine(db))
    assert store.active_set().revision == 1  # untouched
    assert store.head(BASE_KIND, layers.BASE_NAME).content == newer


@pytest.mark.parametrize(
    ("stored", "written"),
    [
        ("99.0.0+000000000000", False),  # a newer release
        ("not-a-version", False),  # no order: never guessed older
        (f"{layers.base_version().split('+')[0]}.post1+000000000000", False),
        ("0.0.1+000000000000", True),  # an older release: the upgrade
        (f"{layers.base_version().split('+')[0]}rc1+000000000000", True),  # its pre-release
        (f"{layers.base_version().split('+')[0]}+000000000000", True),  # another build of it
    ],
)
def test_the_base_moves_only_forward(tmp_path, stored, written):
    from hookgate.server.store import BaseNewer, migrate

    url = f"sqlite:///{tmp_path / 'server.db'}"
    store = Store(make_engine(url))
    migrate(store.engine)
    store.seed({}, {}, validate=compile_set, base=True)
    _as_if_last_run_by_an_older_hookgate(url, stored)
    if written:
        assert store.sync_base(validate=compile_set) == (stored, layers.base_version())
        assert store.active_set().revision == 2
    else:
        with pytest.raises(BaseNewer, match="never moves the base back"):
            store.sync_base(validate=compile_set)
        assert store.active_set().revision == 1


def test_the_consoles_history_lists_the_base_and_its_upgrades(tmp_path):
    from hookgate.server.store import migrate

    url = f"sqlite:///{tmp_path / 'server.db'}"
    store = Store(make_engine(url))
    migrate(store.engine)
    store.seed({}, {}, validate=compile_set, base=True)
    _as_if_last_run_by_an_older_hookgate(url)
    store.sync_base(validate=compile_set)
    viewer = store.create_token("viewer", "v")
    with client_for(store) as client:
        client.post("/console/login", data={"token": viewer})
        listed = client.get("/console/policies").text
        link = f"/console/revisions?kind=base&amp;id={layers.BASE_NAME}"
        assert f'href="{link}"' in listed
        page = client.get(link.replace("&amp;", "&"))
        assert page.status_code == 200
        rows = re.findall(r'<td class="version">([^<]*)</td>', page.text)
        assert rows == [layers.base_version(), OLD]  # newest first
        assert f"base {layers.BASE_NAME} {layers.base_version()} (was {OLD})" in page.text
        assert "Roll back" not in page.text and "/console/edit?kind=base" not in page.text
        assert client.get("/console/revisions?kind=bogus&id=x").status_code == 404


def test_a_put_of_the_bases_own_content_keeps_no_copy_in_the_team_layer(tmp_path):
    # A stored copy of a pack file pinned the old text and stopped the next upgrade; publish
    # already dropped such copies, the per-document API and the console now do too.
    from hookgate.server.console import COOKIE, csrf_token
    from hookgate.server.store import migrate

    url = f"sqlite:///{tmp_path / 'server.db'}"
    store = Store(make_engine(url))
    migrate(store.engine)
    store.seed({}, {}, validate=compile_set, base=True)
    editor = store.create_token("editor", "e")
    pack = directory_documents(default_pack_path())[0]
    h = auth(editor)
    with client_for(store) as client:
        put = client.put("/v1/policies/force_push.rego", content=pack["force_push.rego"], headers=h)
        assert put.status_code == 200, put.text
        assert put.json() == {
            "id": "force_push.rego",
            "unchanged": True,
            "message": "policy force_push.rego is identical to the built-in pack's file "
            f"({layers.BASE_NAME} {layers.base_version()}): the team layer keeps no copy, "
            "the base holds it",
        }
        assert store.head("policy", "force_push.rego") is None
        assert store.active_set().revision == 1  # no bundle revision for no change
        # A data document equal to the pack's data at its path: the same.
        branches = "/v1/data/hookgate/config/protected_branches"
        put = client.put(branches, json=["main", "master"], headers=h)
        assert put.status_code == 200 and put.json()["unchanged"] is True, put.text
        assert store.head("data", "hookgate/config/protected_branches") is None
        # Unless the team's own shallower document sets it otherwise: then it is a change.
        put = client.put(
            "/v1/data/hookgate/config", json={"protected_branches": ["trunk"]}, headers=h
        )
        assert put.status_code == 201, put.text
        put = client.put(branches, json=["main", "master"], headers=h)
        assert put.status_code == 201, put.text
        assert store.active_set().data["hookgate"]["config"]["protected_branches"] == [
            "main",
            "master",
        ]
        # A team override set back to the pack's value is deleted from the layer, said so.
        client.delete("/v1/data/hookgate/config", headers={**h, "If-Match": "*"})
        head = store.head("data", "hookgate/config/protected_branches")
        put = client.put(branches, json=["main", "master"], headers={**h, "If-Match": head.etag})
        assert put.status_code == 200 and put.json()["op"] == "delete", put.text
        assert "identical to the built-in pack's data there" in put.json()["message"]
        assert store.active_set().layer == {} and store.active_set().documents == {}
        # A setting the pack does not have (it renamed it) is stored, and the answer says so.
        put = client.put("/v1/data/hookgate/config/xpia", json={"instruction_files": []}, headers=h)
        assert put.status_code == 201, put.text
        assert put.json()["warnings"] == [
            "data/hookgate/config/xpia: data.hookgate.config.xpia.instruction_files is a setting "
            f"the base {layers.BASE_NAME} {layers.base_version()} does not have and no policy "
            "reads: it changes nothing (renamed in the pack, or misspelled?)"
        ]
        put = client.put(
            "/v1/data/hookgate/config/xpia",
            json={"pre_action": "deny"},
            headers={**h, "If-Match": put.headers["ETag"]},
        )
        assert put.status_code == 200 and put.json()["warnings"] == [], put.text
        client.delete("/v1/data/hookgate/config/xpia", headers={**h, "If-Match": "*"})
        # The console says it and writes nothing.
        client.post("/console/login", data={"token": editor})
        csrf = csrf_token(client.cookies[COOKIE])  # the console session's, not the token's
        revision = store.active_set().revision
        sent = client.post(
            "/console/publish",
            data={"csrf": csrf, "kind": "policy", "id": "destructive.rego",
                  "content": pack["destructive.rego"]},
        )  # fmt: skip
        assert sent.status_code == 200 and 'id="unchanged"' in sent.text, sent.text
        assert "destructive.rego is identical to the built-in pack" in sent.text
        assert store.head("policy", "destructive.rego") is None
        assert store.active_set().revision == revision


def test_a_replaced_base_is_never_upgraded_under_the_team(tmp_path):
    store = Store(make_engine(f"sqlite:///{tmp_path / 'server.db'}"))
    from hookgate.server.store import migrate

    migrate(store.engine)
    store.seed({"git_hooks.rego": GUARD}, {}, validate=compile_set, base=False)
    assert store.sync_base(validate=compile_set) is None
    active = store.active_set()
    assert (active.revision, active.base, active.policies) == (1, None, {"git_hooks.rego": GUARD})
    (replaced,) = store.revisions(BASE_KIND, layers.BASE_NAME)
    assert replaced.op == "delete" and "replaced" in replaced.message


def test_every_consumer_sees_the_composed_set(tmp_path):
    from server_support import ROLES

    store = Store(make_engine(f"sqlite:///{tmp_path / 'server.db'}"))
    from hookgate.server.store import migrate

    migrate(store.engine)
    config = {"protected_branches": ["trunk"], "force_push": {"on_force": "deny"}}
    admin = store.seed({}, {"hookgate/config": config}, validate=compile_set, base=True)
    tokens = {role: store.create_token(role, role) for role in ROLES if role != "admin"}
    payload = {
        "session_id": "s", "cwd": "/repo", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "git push --force origin feature"},
    }  # fmt: skip
    with client_for(store) as client:
        bundle = client.get("/v1/bundle", headers=auth(admin)).json()
        assert "force_push.rego" in bundle["policies"]
        assert bundle["data"]["hookgate"]["config"]["protected_branches"] == ["trunk"]
        assert "self_protect" in bundle["data"]["hookgate"]["config"]  # the base's, kept
        # The base's force-push guard with the team's setting (the default rewrites).
        answer = client.post("/v1/evaluate", json={"payload": payload}, headers=auth(admin))
        decision = answer.json()["decision"]
        assert decision["outcome"] == "deny", decision
        assert [m["pack"] for m in decision["matches"]] == ["force-push"]
        # The document routes list the layer: the team's documents, not the pack's files.
        listed = client.get("/v1/policies", headers=auth(admin)).json()["revisions"]
        assert listed == []
        # A PUT is checked against the composed set: an edited base file is refused.
        pack = directory_documents(default_pack_path())[0]
        edited = pack["force_push.rego"].replace("deny contains", "ask contains", 1)
        put = client.put(
            "/v1/policies/force_push.rego", content=edited, headers=auth(tokens["editor"])
        )
        assert put.status_code == 422 and "edited copy" in put.text and "--replace-base" in put.text
        # The console lists the layer and states its base.
        client.post("/console/login", data={"token": tokens["viewer"]})
        page = client.get("/console/policies").text
        assert f"{layers.BASE_NAME} {layers.base_version()}" in page


# ---------------------------------------------------------------- migrating whole stored sets


def _old_database(tmp_path, edits) -> Store:
    """A database as the code before layers made it: migrated to 0024, seeded with the whole
    pack (policy id = file name, tests included; one data document per top-level key) as
    revision 1, then ``edits`` (``(kind, key, content or None)``) each a bundle revision."""
    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    config = Config()
    config.set_main_option("script_location", "hookgate.server:migrations")
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0024")
    store = Store(engine)
    policies, documents = directory_documents(default_pack_path())
    old_pack = {**policies, "no_verify.rego": policies["no_verify.rego"] + "\n# an older pack\n"}
    with engine.begin() as conn:
        import datetime

        now = datetime.datetime.now(datetime.UTC)
        conn.execute(tables.state.insert().values(id=1, revision=1, updated_at=now))
        seeded = [("policy", k, v) for k, v in sorted(old_pack.items())]
        seeded += [("data", k, canonical_json(v)) for k, v in sorted(documents.items())]
        for kind, key, content in seeded:
            store._write(conn, kind, key, None, content, "put", "seed", "default pack", 1, now)
        for number, (kind, key, content) in enumerate(edits, start=2):
            conn.execute(tables.state.update().values(revision=number, updated_at=now))
            head = store._head(conn, kind, key)
            op = "put" if content is not None else "delete"
            store._write(conn, kind, key, head, content, op, "team", "edit", number, now)
    return store


def _whole_set(store: Store) -> tuple[dict, dict]:
    """The active set as the code before layers read it: every stored head, data merged."""
    with store.engine.connect() as conn:
        policies = {r.key: r.content for r in store._heads(conn, "policy")}
        documents = {r.key: r.value() for r in store._heads(conn, "data")}
    return policies, layers.place_documents(documents)


def _migrate(store: Store) -> None:
    from hookgate.server.store import migrate

    migrate(store.engine)


NO_CURL = 'package hookgate.no_curl\n\nimport rego.v1\n\ndeny contains "no" if input.x == "curl"\n'
CONFIG = '{"protected_branches":["main","release/*"]}'


def test_an_unedited_pack_is_dropped_from_the_layer_and_the_teams_documents_kept(tmp_path):
    store = _old_database(
        tmp_path, [("policy", "no_curl.rego", NO_CURL), ("data", "hookgate/config", CONFIG)]
    )
    _migrate(store)
    active = store.active_set()
    assert active.revision == 4  # one new bundle revision: clients pull the composed set
    assert active.layer == {"no_curl.rego": NO_CURL}
    assert active.documents == {"hookgate/config": json.loads(CONFIG)}
    assert active.base == layers.base_version()
    pack, data = directory_documents(default_pack_path())
    # The base is the running pack: the older seed's unedited no_verify.rego is today's now.
    assert active.policies == {**pack, "no_curl.rego": NO_CURL}
    assert active.data["hookgate"]["config"]["protected_branches"] == ["main", "release/*"]
    assert (
        active.data["hookgate"]["config"]["force_push"]
        == (data["hookgate"]["config"]["force_push"])
    )
    dropped = store.revisions("policy", "force_push.rego")[-1]
    assert (dropped.op, dropped.author, dropped.set_revision) == ("delete", "migration", 4)
    (base,) = store.revisions(BASE_KIND, layers.BASE_NAME)
    assert base.content == layers.base_version() and base.author == "migration"


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        (("policy", "force_push.rego", "package hookgate.force_push\n"), "force_push.rego"),
        (("policy", "force_push_test.rego", None), "force_push_test.rego"),
        (("data", "hookgate", '{"config":{}}'), "data/hookgate"),
    ],
    ids=["edited", "deleted", "data-edited"],
)
def test_an_edited_pack_keeps_the_whole_set_as_a_replaced_base(tmp_path, edit, named):
    store = _old_database(tmp_path, [("policy", "no_curl.rego", NO_CURL), edit])
    before = _whole_set(store)
    _migrate(store)
    active = store.active_set()
    assert (active.policies, active.data) == before  # nothing lost, nothing added
    assert active.base is None and active.layer == before[0]
    (base,) = store.revisions(BASE_KIND, layers.BASE_NAME)
    assert base.op == "delete" and base.author == "migration"
    assert "replaced" in base.message and named in base.message
    with client_for(store) as client:
        token = store.create_token("viewer", "v")
        bundle = client.get("/v1/bundle", headers=auth(token)).json()
        assert bundle["base"]["policies"] == "replaced" and bundle["revision"] == 4


def test_a_layer_that_does_not_compose_keeps_the_whole_set_too(tmp_path):
    store = _old_database(tmp_path, [("data", "hookgate/config", '{"protected_branches":"x"}')])
    before = _whole_set(store)
    assert before[1]["hookgate"]["config"]["protected_branches"] == "x"  # the deeper one won
    _migrate(store)
    active = store.active_set()
    assert (active.policies, active.data, active.base) == (*before, None)
    (base,) = store.revisions(BASE_KIND, layers.BASE_NAME)
    assert "does not compose" in base.message and "protected_branches" in base.message
    # Not even as the whole set: the documents are stored merged, as the old code merged them.
    assert "merged per top-level key" in base.message
    assert active.documents == {"hookgate": before[1]["hookgate"]}
    merged = store.revisions("data", "hookgate/config")[-1]
    assert (merged.op, merged.author) == ("delete", "migration")


def test_downgrading_stores_the_base_whole_again(tmp_path):
    store = _old_database(tmp_path, [("data", "hookgate/config", CONFIG)])
    _migrate(store)
    composed = store.active_set()
    config = Config()
    config.set_main_option("script_location", "hookgate.server:migrations")
    with store.engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0024")
    assert _whole_set(store) == (composed.policies, composed.data)
    assert store.head(BASE_KIND, layers.BASE_NAME) is None


def test_the_console_refuses_a_setting_of_another_type_naming_the_key(tmp_path):
    from hookgate.server.console import COOKIE, csrf_token
    from hookgate.server.store import migrate

    store = Store(make_engine(f"sqlite:///{tmp_path / 'server.db'}"))
    migrate(store.engine)
    store.seed({}, {}, validate=compile_set, base=True)
    editor = store.create_token("editor", "e")
    with client_for(store) as client:
        client.post("/console/login", data={"token": editor})
        form = {
            "kind": "data", "id": "hookgate/config", "content": '{"protected_branches": "main"}',
            "csrf": csrf_token(client.cookies[COOKIE]),
        }  # fmt: skip
        refused = client.post("/console/publish", data=form)
        assert refused.status_code == 422 and "Not published" in refused.text
        assert (
            "data.hookgate.config.protected_branches is a string here but an array in the "
            "layers below" in refused.text
        )
        assert store.current_revision() == 1
        form["content"] = '{"protected_branches": ["main", "trunk"]}'
        published = client.post("/console/publish", data=form, follow_redirects=False)
        assert published.status_code == 303, published.text
    config = store.active_set().data["hookgate"]["config"]
    assert config["protected_branches"] == ["main", "trunk"] and "self_protect" in config
