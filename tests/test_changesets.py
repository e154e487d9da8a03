"""Change sets (POST /v1/changesets): the active set made equal to a given set, as one bundle
revision, all or nothing; refused as a whole when it does not compile or a test fails."""

from __future__ import annotations

import pytest
from server_support import (
    BROKEN,
    GUARD,
    GUARD_V2,
    auth,
    client_fixture,
    database_params,
    seeded,
    store_fixture,
)

GUARD_TEST = """package hookgate.git_hooks_test

import rego.v1

test_no_verify_denied if {
\tcount(data.hookgate.git_hooks.deny) == 1 with input as {"tool_kind": "shell", "tool_input": {"command": "git commit --no-verify"}}
}
"""

FAILING_TEST = GUARD_TEST.replace("== 1", "== 2")

OTHER = GUARD.replace("git_hooks", "other").replace("--no-verify", "--force")


store = store_fixture(database_params())


@pytest.fixture
def tokens(store):
    return seeded(store, {"git_hooks.rego": GUARD, "old.rego": OTHER}, {"team": {"x": 1}})


client = client_fixture()


def post(client, token, **body):
    return client.post("/v1/changesets", json=body, headers=auth(token))


def test_a_change_set_adds_changes_and_deletes_as_one_bundle_revision(client, tokens, store):
    body = {
        "policies": {"git_hooks.rego": GUARD_V2, "git_hooks_test.rego": GUARD_TEST},
        "data": {"team": {"x": 2}, "hookgate/config": {"mode": "strict"}},
        "message": "from git",
        "expect_revision": 1,
    }
    answer = post(client, tokens["editor"], **body)
    assert answer.status_code == 200, answer.text
    result = answer.json()
    assert (result["applied"], result["base_revision"], result["revision"]) == (True, 1, 2)
    assert result["tests"] == {"passed": 1, "failed": []}
    ops = {(c["kind"], c["id"]): c["op"] for c in result["changes"]}
    assert ops == {
        ("policy", "git_hooks.rego"): "change",
        ("policy", "git_hooks_test.rego"): "add",
        ("policy", "old.rego"): "delete",
        ("data", "team"): "change",
        ("data", "hookgate/config"): "add",
    }
    changed = next(c for c in result["changes"] if c["id"] == "git_hooks.rego")
    assert "-deny contains" in changed["diff"] and "+deny contains" in changed["diff"]
    assert "Git hooks must run." in changed["diff"]

    active = store.active_set()
    assert active.revision == 2
    assert set(active.policies) == {"git_hooks.rego", "git_hooks_test.rego"}
    assert active.data == {"team": {"x": 2}, "hookgate": {"config": {"mode": "strict"}}}
    # Every written revision carries the one bundle revision and the message.
    for key in ("git_hooks.rego", "old.rego"):
        head = store.head("policy", key)
        assert (head.set_revision, head.message, head.author) == (2, "from git", "test-editor")
    assert store.head("policy", "old.rego").op == "delete"

    again = post(client, tokens["editor"], **body | {"expect_revision": 2}).json()
    assert (again["applied"], again["revision"], again["changes"]) == (False, 2, [])


def test_a_set_that_does_not_compile_or_fails_a_test_changes_nothing(client, tokens, store):
    broken = post(client, tokens["editor"], policies={"git_hooks.rego": GUARD, "b.rego": BROKEN})
    assert broken.status_code == 422
    body = broken.json()
    assert body["ok"] is False and body["applied"] is False
    assert any(d["file"] == "b.rego" and d["line"] == 7 for d in body["diagnostics"])

    failing = post(
        client,
        tokens["editor"],
        policies={"git_hooks.rego": GUARD_V2, "git_hooks_test.rego": FAILING_TEST},
    )
    assert failing.status_code == 422
    (diagnostic,) = failing.json()["diagnostics"]
    assert diagnostic["file"] == "git_hooks_test.rego" and diagnostic["line"] == 5
    assert "test_no_verify_denied: FAIL" in diagnostic["message"]
    assert failing.json()["tests"]["failed"][0].startswith("git_hooks_test.rego:5:")

    assert store.current_revision() == 1
    assert store.active_set().policies == {"git_hooks.rego": GUARD, "old.rego": OTHER}


def test_a_change_set_whose_pack_fails_on_a_smoke_payload_is_refused(client, tokens, store):
    """The same pack check as a per-document change (``packcheck``): a pack that faults on an
    ordinary call (here: a complete rule with two values on ``rm``) is refused, naming the
    smoke payload, though it compiles and has no failing test."""
    two_values = (
        "package hookgate.team\n\nimport rego.v1\n\n"
        'level := "low" if input.tool_name == "Bash"\n\n'
        'level := "high" if contains(input.tool_input.command, "rm")\n\n'
        'deny contains "high" if level == "high"\n'
    )
    smoke = {"rm": {"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}}
    refused = post(
        client,
        tokens["editor"],
        policies={"git_hooks.rego": GUARD, "team.rego": two_values},
        data={"hookgate/smoke": smoke},
    )
    assert refused.status_code == 422, refused.text
    messages = [d["message"] for d in refused.json()["diagnostics"]]
    assert any("pack hookgate.team fails" in m for m in messages), messages
    assert any(d["file"] == "smoke payload rm" for d in refused.json()["diagnostics"])
    assert store.current_revision() == 1


def test_expect_revision_is_optimistic_concurrency_on_the_whole_set(client, tokens, store):
    moved = post(client, tokens["editor"], policies={"git_hooks.rego": GUARD}, expect_revision=0)
    assert moved.status_code == 412
    assert "bundle revision is 1" in moved.json()["detail"]
    dry = post(
        client,
        tokens["editor"],
        policies={"git_hooks.rego": GUARD},
        expect_revision=7,
        dry_run=True,
    )
    assert dry.status_code == 412
    assert store.current_revision() == 1


def test_a_dry_run_plans_and_checks_without_writing(client, tokens, store):
    answer = post(
        client,
        tokens["editor"],
        policies={"git_hooks.rego": GUARD, "b.rego": BROKEN},
        data={"team": {"x": 1}},
        dry_run=True,
    )
    assert answer.status_code == 200
    result = answer.json()
    assert (result["applied"], result["ok"], result["revision"]) == (False, False, 1)
    assert [(c["id"], c["op"], c["revision"]) for c in result["changes"]] == [
        ("b.rego", "add", None),
        ("old.rego", "delete", None),
    ]
    assert store.current_revision() == 1


def test_roles_and_bad_keys_are_refused_before_anything_runs(client, tokens):
    assert post(client, tokens["viewer"], policies={}).status_code == 403
    bad = post(client, tokens["editor"], policies={"../x.rego": GUARD})
    assert bad.status_code == 422
    assert bad.json()["detail"][0]["field"] == "body.policies.../x.rego"
    bad_path = post(client, tokens["editor"], policies={"git_hooks.rego": GUARD}, data={"a-b": {}})
    assert bad_path.json()["detail"][0]["field"] == "body.data.a-b"


@pytest.mark.parametrize("path", ["deep", "a/b/c/d/e/f/g/h"])
def test_a_change_set_enforces_the_nesting_limit_that_put_enforces(client, tokens, store, path):
    from hookgate.server.deps import MAX_DATA_DEPTH

    def nested(levels: int) -> dict:
        value: dict = {}
        for _ in range(levels - 1):
            value = {"n": value}
        return value

    # The deepest document PUT accepts at this path, and one level more.
    fits = MAX_DATA_DEPTH - path.count("/") - 1
    editor = tokens["editor"]
    too_deep = client.put(f"/v1/data/{path}", json=nested(fits + 1), headers=auth(editor))
    assert too_deep.status_code == 422
    policies = {"git_hooks.rego": GUARD}
    refused = post(client, editor, policies=policies, data={path: nested(fits + 1)})
    assert refused.status_code == 422, refused.text
    assert refused.json()["detail"][0]["field"] == f"body.data.{path}"
    assert store.active_set().revision == 1
    accepted = post(client, editor, policies=policies, data={path: nested(fits)}, dry_run=True)
    assert accepted.status_code == 200, accepted.text
