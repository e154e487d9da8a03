"""Data documents compose by path without changing one another, and the recipe for the pack's
configuration on the server (docs/guides/configure-guards.md) works on a freshly seeded server."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from server_support import NO_VERIFY, auth, client_for, seeded, store_fixture

from hookgate.server.compilation import compile_set
from hookgate.server.store import compose

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "guides" / "configure-guards.md"


store = store_fixture()


def _recipe() -> list[list[str]]:
    """The curl commands of the guide's recipe, as argument lists."""
    text = GUIDE.read_text(encoding="utf-8")
    block = text.split("<!-- recipe: tests/test_server_data.py")[1].split("```sh\n")[1]
    block = block.split("```")[0].replace("\\\n", " ")
    return [shlex.split(line) for line in block.splitlines() if line.startswith("curl ")]


def _method_and_path(argv: list[str]) -> tuple[str, str]:
    method = argv[argv.index("-X") + 1] if "-X" in argv else "GET"
    url = next(a for a in argv if a.startswith("http://"))
    return method, re.sub(r"^http://[^/]+", "", url)


def test_the_guide_s_recipe_changes_the_config_of_a_fresh_and_of_a_published_server(store):
    from hookgate.server.changesets import apply, team_layer
    from hookgate.sources import default_pack_path, directory_documents

    admin = store.seed({}, {}, validate=compile_set, base=True)
    # The seed is an empty team layer, and a copy of the pack is no layer: publishing it
    # changes nothing.
    policies, documents = directory_documents(default_pack_path())
    policies, documents = team_layer(policies, documents, replace_base=False)
    assert (policies, documents) == ({}, {})
    base, revision, changes = apply(
        store, policies, documents, replace_base=False, expect_revision=1, author="ci",
        message="from git",
    )  # fmt: skip
    assert (base, revision, changes) == (1, 1, [])
    create, read, write = _recipe()
    assert _method_and_path(create) == ("PUT", "/v1/data/hookgate/config")
    assert _method_and_path(read) == ("GET", "/v1/data/hookgate/config")
    assert _method_and_path(write) == ("PUT", "/v1/data/hookgate/config")
    assert any(a.startswith("If-Match:") for a in write)
    with client_for(store) as client:
        body = create[create.index("--data") + 1]
        put = client.put(
            _method_and_path(create)[1],
            content=body,
            headers=auth(admin) | {"Content-Type": "application/json"},
        )
        assert put.status_code == 201, put.text
        got = client.get(_method_and_path(read)[1], headers=auth(admin))
        assert got.status_code == 200
        config = got.json()["content"]
        assert config == {"protected_branches": ["main", "release/*"]}
        config["force_push"] = {"on_force": "deny"}  # a shipped test's setting: still accepted
        put = client.put(
            _method_and_path(write)[1],
            json=config,
            headers=auth(admin) | {"If-Match": got.headers["ETag"]},
        )
        assert put.status_code == 200, put.text
        bundle = client.get("/v1/bundle", headers=auth(admin)).json()
        merged = bundle["data"]["hookgate"]["config"]
        assert merged["protected_branches"] == ["main", "release/*"]
        assert merged["force_push"]["on_force"] == "deny"
        assert merged["force_push"]["on_unknown_config"] == "ask"  # the default, kept
        assert "self_protect" in merged


def test_a_deeper_document_overrides_the_matching_part_of_a_shallower_one():
    team = {"sub": {"a": 1, "b": {"c": 2, "d": 3}}, "other": [1]}
    sub = {"b": {"c": 20}, "e": 5}
    documents = {"teamx/sub": sub, "teamx": team}
    merged = compose({}, documents, base=False)[1]
    assert merged == {"teamx": {"sub": {"a": 1, "b": {"c": 20, "d": 3}, "e": 5}, "other": [1]}}
    # Nothing given was changed: merging again gives the same answer.
    assert team == {"sub": {"a": 1, "b": {"c": 2, "d": 3}}, "other": [1]}
    assert sub == {"b": {"c": 20}, "e": 5}
    assert compose({}, documents, base=False)[1] == merged
    # A value that is not an object is replaced as a whole.
    assert compose({}, {"t": {"x": [1, 2]}, "t/x": [3]}, base=False)[1] == {"t": {"x": [3]}}


def test_nested_documents_never_break_checks_or_dry_runs(store):
    tokens = seeded(store)
    editor, viewer = auth(tokens["editor"]), auth(tokens["viewer"])
    with client_for(store) as client:
        assert (
            client.put("/v1/data/teamx", json={"sub": {"a": 1}}, headers=editor).status_code == 201
        )
        assert client.put("/v1/data/teamx/sub", json={"a": 2}, headers=editor).status_code == 201
        for _ in range(3):  # each request merges again: a stored document must stay as it was
            check = client.post("/v1/check", json={"policies": {}}, headers=viewer)
            assert check.json() == {"ok": True, "diagnostics": []}
            draft = {"payload": NO_VERIFY, "data": {"teamx/sub": {"a": 3}}}
            r = client.post("/v1/evaluate", json=draft, headers=viewer)
            assert r.status_code == 200 and r.json()["decision"]["outcome"] == "deny"
        bundle = client.get("/v1/bundle", headers=editor).json()
        assert bundle["data"]["teamx"] == {"sub": {"a": 2}}
        assert client.get("/v1/data/teamx", headers=viewer).json()["content"] == {"sub": {"a": 1}}


def test_a_document_under_a_non_object_is_refused_naming_its_path(store):
    tokens = seeded(store)
    with client_for(store) as client:
        client.put("/v1/data/flat", json={"n": 1}, headers=auth(tokens["editor"]))
        r = client.put("/v1/data/flat/n/deeper", json={}, headers=auth(tokens["editor"]))
    assert r.status_code == 422
    assert r.json()["diagnostics"][0]["file"] == "data/flat/n/deeper"
