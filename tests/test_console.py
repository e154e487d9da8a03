"""The console's sign-in, roles, CSRF protection and pages, through TestClient (the browser
test, test_console_browser.py, walks the same pages as a person)."""

from __future__ import annotations

import html
import re
import uuid

from server_support import (
    BROKEN,
    GUARD,
    auth,
    client_for,
    database_params,
    store_fixture,
    tokens_fixture,
)

from hookgate.server.console import COOKIE, csrf_token

store = store_fixture(database_params())


tokens = tokens_fixture()


def signed_in(store, token):
    client = client_for(store)
    answer = client.post("/console/login", data={"token": token}, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return client


def test_sign_in_sets_an_httponly_strict_cookie_and_agents_cannot(store, tokens):
    with client_for(store) as client:
        anonymous = client.get("/console/policies", follow_redirects=False)
        assert (anonymous.status_code, anonymous.headers["location"]) == (303, "/console/login")
        refused = client.post("/console/login", data={"token": tokens["agent"]})
        assert refused.status_code == 401 and "Agent tokens cannot sign in." in refused.text
        unknown = client.post("/console/login", data={"token": "hg_nope"})
        assert unknown.status_code == 401
        answer = client.post(
            "/console/login", data={"token": tokens["viewer"]}, follow_redirects=False
        )
        cookie = answer.headers["set-cookie"]
        assert cookie.startswith(f"{COOKIE}={tokens['viewer']};")
        for attribute in ("HttpOnly", "SameSite=strict", "Path=/console"):
            assert attribute.lower() in cookie.lower()
        page = client.get("/console/policies")
        assert page.status_code == 200 and "git_hooks.rego" in page.text
        assert "https://" not in page.text  # no CDN: every asset is the console's own
        assert client.get("/console/static/htmx.min.js").status_code == 200
        assert client.get("/console/static/../__init__.py").status_code == 404


def test_state_changing_requests_need_the_csrf_token_and_the_role(store, tokens):
    viewer = signed_in(store, tokens["viewer"])
    form = {"kind": "policy", "id": "git_hooks.rego", "content": GUARD, "etag": "*"}
    assert viewer.post("/console/check", data=form).status_code == 403  # no CSRF token
    wrong = viewer.post("/console/check", data={**form, "csrf": "0" * 32})
    assert wrong.status_code == 403
    good = viewer.post("/console/check", data={**form, "csrf": csrf_token(tokens["viewer"])})
    assert good.status_code == 200 and "Compiles" in good.text
    # A viewer may check, test and dry-run, but not publish or manage tokens.
    csrf = {"csrf": csrf_token(tokens["viewer"])}
    assert viewer.post("/console/publish", data={**form, **csrf}).status_code == 403
    assert viewer.get("/console/tokens").status_code == 403
    admin = signed_in(store, tokens["admin"])
    other = {"csrf": csrf_token(tokens["viewer"]), "name": "x", "role": "agent"}
    assert admin.post("/console/tokens", data=other).status_code == 403  # someone else's token


def test_diagnostics_name_the_line_and_a_refused_publish_changes_nothing(store, tokens):
    editor = signed_in(store, tokens["editor"])
    csrf = csrf_token(tokens["editor"])
    page = editor.get("/console/edit?kind=policy&id=git_hooks.rego").text
    etag = html.unescape(re.search(r'name="etag" value="([^"]*)"', page).group(1))
    form = {"kind": "policy", "id": "git_hooks.rego", "content": BROKEN, "etag": etag, "csrf": csrf}
    diagnostics = editor.post("/console/check", data=form).text
    assert 'data-line="7"' in diagnostics and "git_hooks.rego:7:" in diagnostics
    refused = editor.post("/console/publish", data=form)
    assert refused.status_code == 422 and "Not published" in refused.text
    assert store.current_revision() == 1
    stale = editor.post("/console/publish", data={**form, "content": GUARD + "\n", "etag": '"9-x"'})
    assert stale.status_code == 412
    new = {**form, "content": GUARD.replace("skip", "bypass"), "message": "reword"}
    published = editor.post("/console/publish", data=new, follow_redirects=False)
    assert published.headers["location"].endswith("published=2")
    diff = editor.get("/console/diff?kind=policy&id=git_hooks.rego&a=1&b=2").text
    assert "+deny contains {&#34;reason&#34;: &#34;Do not bypass git hooks." in diff


def test_the_explorer_filters_by_session_and_shows_the_masked_input(store, tokens):
    records = [
        {
            "decision_id": str(uuid.uuid4()),
            "time": "2026-12-03T10:00:00Z",
            "outcome": outcome,
            "session_id": session,
            "input": {"tool_input": {"command": f"echo {session} GITHUB_TOKEN=ghp_{'a1' * 18}"}},
        }
        for outcome, session in (("deny", "alpha"), ("allow", "beta"))
    ]
    with client_for(store) as client:
        client.post("/v1/decisions", json={"decisions": records}, headers=auth(tokens["agent"]))
    viewer = signed_in(store, tokens["viewer"])
    page = viewer.get("/console/decisions?session_id=alpha&until=2026-12-03T12:00:00Z").text
    assert page.count('class="decision"') == 1 and "echo alpha" in page and "ghp_" not in page
    assert "<rect" in page and "10:00 UTC: 1 deny" in page
    bad = viewer.get("/console/decisions?since=yesterday")
    assert bad.status_code == 422 and "since" in bad.text


def test_a_fault_or_limit_shows_as_such_never_as_a_plain_allow(store, tokens):
    def record(session: str, outcome: str, errors: list[dict]) -> dict:
        return {
            "decision_id": str(uuid.uuid4()),
            "time": "2026-12-03T10:00:00Z",
            "outcome": outcome,
            "session_id": session,
            "errors": errors,
        }

    fault = {"kind": "fault", "source": "policy", "pack": "team.release",
             "message": "eval_conflict_error: functions must not produce multiple outputs"}  # fmt: skip
    limit = {"kind": "limit", "source": "shell", "limit": "nesting", "message": "too deep"}
    records = [record("f", "allow", [fault]), record("l", "ask", [limit]), record("p", "allow", [])]
    with client_for(store) as client:
        answer = client.post(
            "/v1/decisions", json={"decisions": records}, headers=auth(tokens["agent"])
        )
        assert answer.json()["accepted"] == 3
        api = client.get("/v1/decisions?session_id=f", headers=auth(tokens["viewer"])).json()
        assert api["decisions"][0]["errors"][0]["pack"] == "team.release"
    viewer = signed_in(store, tokens["viewer"])

    def row(session: str) -> str:
        page = viewer.get(f"/console/decisions?session_id={session}").text
        (found,) = re.findall(r'<tr class="decision">(.*?)</tr>', page, re.S)
        return html.unescape(found)

    faulted = row("f")
    assert 'class="outcome-fault"' in faulted and "<strong>fault</strong> → allow" in faulted
    assert "fault in team.release: policy: eval_conflict_error" in faulted
    assert 'class="outcome-allow"' not in faulted
    limited = row("l")
    assert 'class="outcome-limit"' in limited and "(limit: nesting)" in limited
    plain = row("p")
    assert 'class="outcome-allow"' in plain and "fault" not in plain
    # Faults are found by filtering for them.
    only = viewer.get("/console/decisions?errors=fault&since=2026-12-03T00:00:00Z").text
    assert only.count('class="decision"') == 1 and "team.release" in only
    either = viewer.get("/console/decisions?errors=any&since=2026-12-03T00:00:00Z").text
    assert either.count('class="decision"') == 2
    assert viewer.get("/console/decisions?errors=maybe").status_code == 422
