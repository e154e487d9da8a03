"""Every route of /openapi.json called with no token, an unknown token and each role."""

from __future__ import annotations

import re

import pytest
from server_support import auth, client_for, fresh_store, seeded

from hookgate.server.store import ROLES

# The minimum role of each operation (None: public). Written out here, independently of the
# app, so a route whose guard changes or a new route without an entry fails this test.
MINIMUM_ROLE = {
    ("GET", "/healthz"): None,
    ("GET", "/readyz"): None,
    ("GET", "/metrics"): None,
    ("GET", "/v1/base"): "viewer",
    ("GET", "/v1/base/revisions"): "viewer",
    ("GET", "/v1/policies"): "viewer",
    ("GET", "/v1/policies/{id}"): "viewer",
    ("PUT", "/v1/policies/{id}"): "editor",
    ("DELETE", "/v1/policies/{id}"): "editor",
    ("GET", "/v1/policies/{id}/revisions"): "viewer",
    ("GET", "/v1/policies/{id}/revisions/{number}"): "viewer",
    ("POST", "/v1/policies/{id}/rollback"): "editor",
    ("GET", "/v1/data"): "viewer",
    ("GET", "/v1/data/{path}"): "viewer",
    ("PUT", "/v1/data/{path}"): "editor",
    ("DELETE", "/v1/data/{path}"): "editor",
    ("GET", "/v1/data/{path}/revisions"): "viewer",
    ("GET", "/v1/data/{path}/revisions/{number}"): "viewer",
    ("POST", "/v1/data/{path}/rollback"): "editor",
    ("POST", "/v1/evaluate"): "viewer",
    ("POST", "/v1/check"): "viewer",
    ("GET", "/v1/bundle"): "agent",
    ("GET", "/v1/bundle/key"): "agent",
    ("POST", "/v1/decisions"): "agent",
    ("GET", "/v1/decisions"): "viewer",
    ("GET", "/v1/decisions/streams"): "viewer",
    ("POST", "/v1/tokens"): "admin",
    ("GET", "/v1/tokens"): "admin",
    ("DELETE", "/v1/tokens/{token_id}"): "admin",
    ("POST", "/v1/changesets"): "editor",
    ("POST", "/v1/impact"): "editor",  # replays recorded data: --recorded-data-role
    ("GET", "/v1/modes"): "viewer",
    ("POST", "/v1/modes/promote"): "editor",
}

PATH_VALUES = {"id": "git_hooks.rego", "path": "hookgate/git", "number": "1", "token_id": "999"}
BODIES = {
    ("PUT", "/v1/policies/{id}"): None,  # raw text, below
    ("POST", "/v1/evaluate"): {"payload": {"tool_name": "Bash", "tool_input": {"command": "ls"}}},
    ("POST", "/v1/check"): {"policies": {}},
    ("POST", "/v1/decisions"): {"decisions": []},
    ("POST", "/v1/tokens"): {"role": "viewer", "name": "t"},
    ("POST", "/v1/changesets"): {"policies": {}, "dry_run": True},
    ("POST", "/v1/impact"): {"limit": 1},
    ("POST", "/v1/modes/promote"): {"guard": "force_push", "mode": "enforce"},
}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    store = fresh_store("sqlite", tmp_path_factory.mktemp("roles"))
    tokens = seeded(store)
    with client_for(store) as client:
        yield client, tokens
    store.engine.dispose()


def operations(client) -> list[tuple[str, str]]:
    spec = client.get("/openapi.json").json()
    return [(m.upper(), path) for path, item in spec["paths"].items() for m in item]


def call(client, method: str, template: str, headers: dict):
    url = re.sub(r"\{(\w+)\}", lambda m: PATH_VALUES[m.group(1)], template)
    kwargs: dict = {"headers": dict(headers)}
    if method in ("PUT", "POST", "DELETE"):
        kwargs["headers"]["If-Match"] = "*"
    if (method, template) == ("PUT", "/v1/policies/{id}"):
        kwargs["content"] = "package hookgate.git_hooks\n"
    elif (method, template) == ("PUT", "/v1/data/{path}"):
        kwargs["json"] = {"protected": ["main"]}
    elif template.endswith("/rollback"):
        kwargs["json"] = {"revision": 1}
    elif (method, template) in BODIES:
        kwargs["json"] = BODIES[(method, template)]
    return client.request(method, url, **kwargs)


def test_the_table_covers_exactly_the_documented_operations(setup):
    client, _ = setup
    assert sorted(operations(client)) == sorted(MINIMUM_ROLE)


@pytest.mark.parametrize("operation", sorted(MINIMUM_ROLE), ids=" ".join)
def test_each_role_is_admitted_or_refused(setup, operation):
    client, tokens = setup
    method, template = operation
    needed = MINIMUM_ROLE[operation]
    anonymous = call(client, method, template, {})
    unknown = call(client, method, template, auth("hg_not-a-real-token"))
    if needed is None:
        assert anonymous.status_code == 200
        return
    assert anonymous.status_code == 401
    assert unknown.status_code == 401
    assert anonymous.headers["www-authenticate"] == "Bearer"
    for role in ROLES:
        status = call(client, method, template, auth(tokens[role])).status_code
        if ROLES.index(role) < ROLES.index(needed):
            assert status == 403, role
        else:
            assert status not in (401, 403), role


def test_authentication_comes_before_any_validation(setup):
    client, _ = setup
    for method, url in (
        ("GET", "/v1/data/0-invalid"),
        ("PUT", "/v1/policies/%20bad"),
        ("POST", "/v1/evaluate"),
        ("PUT", "/v1/data/hookgate/revisions"),
    ):
        assert client.request(method, url, content=b"{not json").status_code == 401, url
