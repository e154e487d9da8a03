"""The console's sign-in, roles, CSRF protection and pages, through TestClient (the browser
test, test_console_browser.py, walks the same pages as a person)."""

from __future__ import annotations

import html
import re
import uuid

from server_support import (
    BROKEN,
    GUARD,
    GUARD_V2,
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


def csrf_of(client) -> str:
    """The CSRF token of the session the client's cookie holds."""
    return csrf_token(client.cookies[COOKIE])


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
        assert cookie.startswith(f"{COOKIE}=") and tokens["viewer"] not in cookie
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
    good = viewer.post("/console/check", data={**form, "csrf": csrf_of(viewer)})
    assert good.status_code == 200 and "Compiles" in good.text
    # A viewer may check, test and dry-run, but not publish or manage tokens.
    csrf = {"csrf": csrf_of(viewer)}
    assert viewer.post("/console/publish", data={**form, **csrf}).status_code == 403
    assert viewer.get("/console/tokens").status_code == 403
    admin = signed_in(store, tokens["admin"])
    other = {"csrf": csrf_of(viewer), "name": "x", "role": "agent"}
    assert admin.post("/console/tokens", data=other).status_code == 403  # someone else's token


def test_diagnostics_name_the_line_and_a_refused_publish_changes_nothing(store, tokens):
    editor = signed_in(store, tokens["editor"])
    csrf = csrf_of(editor)
    page = editor.get("/console/edit?kind=policy&id=git_hooks.rego").text
    etag = html.unescape(re.search(r'name="etag" value="([^"]*)"', page).group(1))
    form = {"kind": "policy", "id": "git_hooks.rego", "content": BROKEN, "etag": etag, "csrf": csrf}
    diagnostics = editor.post("/console/check", data=form).text
    assert 'data-line="7"' in diagnostics and "git_hooks.rego:7:" in diagnostics
    refused = editor.post("/console/publish", data=form)
    assert refused.status_code == 422 and "Not published" in refused.text
    assert store.current_revision() == 1
    stale = editor.post("/console/publish", data={**form, "content": GUARD + "\n", "etag": '"9-x"'})
    assert stale.status_code == 412 and "changed since you read it" in stale.text
    # Stale and broken: both are said at once, the diagnostic at its line.
    both = editor.post("/console/publish", data={**form, "etag": '"9-x"'})
    assert both.status_code == 412 and "changed since you read it" in both.text
    assert "git_hooks.rego:7:" in both.text
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
    admin = signed_in(store, tokens["admin"])
    page = admin.get("/console/decisions?session_id=alpha&until=2026-12-03T12:00:00Z").text
    assert page.count('class="decision"') == 1 and "echo alpha" in page and "ghp_" not in page
    assert "<rect" in page and "10:00 UTC: 1 deny" in page
    # A viewer sees the decision, not the recorded input (test_server_recorded_access).
    viewer = signed_in(store, tokens["viewer"])
    page = viewer.get("/console/decisions?session_id=alpha&until=2026-12-03T12:00:00Z").text
    assert page.count('class="decision"') == 1 and "echo alpha" not in page
    assert "Input recorded; its contents need the editor role." in page
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
        for kind, sessions in (("fault", ["f"]), ("limit", ["l"]), ("any", ["f", "l"])):
            page = client.get(f"/v1/decisions?errors={kind}", headers=auth(tokens["viewer"]))
            assert sorted(d["session_id"] for d in page.json()["decisions"]) == sessions
            with_pack = f"/v1/decisions?errors={kind}&pack=nothing"
            assert client.get(with_pack, headers=auth(tokens["viewer"])).json()["decisions"] == []
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
    # The chart counts them apart from the outcome they produced.
    chart = viewer.get("/console/decisions?until=2026-12-03T12:00:00Z").text
    assert "10:00 UTC: 1 fault" in chart and "10:00 UTC: 1 limit" in chart
    assert "10:00 UTC: 1 allow" in chart and "10:00 UTC: 1 ask" not in chart
    assert viewer.get("/console/decisions?errors=maybe").status_code == 422


def _etag(page: str) -> str:
    return html.unescape(re.search(r'name="etag" value="([^"]*)"', page).group(1))


def test_the_live_check_keeps_one_request_of_an_editor_in_flight(store, tokens):
    # The server runs at most two checks per token at once (server limits): a fast typist's
    # checks must wait for the one in flight, keeping only the newest, not pile up into "busy".
    page = (
        signed_in(store, tokens["editor"]).get("/console/edit?kind=policy&id=git_hooks.rego").text
    )
    checker = re.search(r'<textarea[^>]*hx-post="/console/check"[^>]*>', page).group(0)
    assert 'hx-sync="this:queue last"' in checker


def test_a_stale_publish_returns_to_the_editor_with_the_text_and_the_other_edit(store, tokens):
    alice, bob = signed_in(store, tokens["editor"]), signed_in(store, tokens["admin"])
    csrf_a, csrf_b = csrf_of(alice), csrf_of(bob)
    opened = _etag(alice.get("/console/edit?kind=policy&id=git_hooks.rego").text)
    form = {"kind": "policy", "id": "git_hooks.rego", "etag": opened}
    # Bob publishes first, from the same revision.
    first = bob.post(
        "/console/publish",
        data={**form, "content": GUARD_V2, "csrf": csrf_b},
        follow_redirects=False,
    )
    assert first.status_code == 303
    mine = GUARD.replace("Do not skip git hooks.", "Hooks are not optional.")
    stale = alice.post("/console/publish", data={**form, "content": mine, "csrf": csrf_a})
    assert stale.status_code == 412 and stale.headers["content-type"].startswith("text/html")
    page = html.unescape(stale.text)
    assert 'id="stale"' in page and "changed since you read it" in page
    assert mine in page  # the text as typed, not lost
    conflict = page.split('id="conflict"')[1].split("</pre>")[0]
    assert '-deny contains {"reason": "Git hooks must run."' in conflict  # Bob's
    assert '+deny contains {"reason": "Hooks are not optional."' in conflict  # hers
    assert store.get("policy", "git_hooks.rego").content == GUARD_V2
    # Having seen Bob's edit, publishing again replaces it: the editor carries its ETag now.
    again = alice.post(
        "/console/publish",
        data={**form, "content": mine, "etag": _etag(stale.text), "csrf": csrf_a},
        follow_redirects=False,
    )
    assert again.status_code == 303
    assert store.get("policy", "git_hooks.rego").content == mine


def test_bad_json_in_a_data_document_returns_to_the_editor_at_its_line(store, tokens):
    editor = signed_in(store, tokens["editor"])
    form = {"kind": "data", "id": "team", "csrf": csrf_of(editor), "etag": ""}
    refused = editor.post("/console/publish", data={**form, "content": '{\r\n  "a": ,\r\n}'})
    assert refused.status_code == 422 and "data/team:2:8:" in html.unescape(refused.text)


def test_line_endings_are_kept_as_the_document_had_them(store, tokens):
    editor = signed_in(store, tokens["editor"])
    csrf = csrf_of(editor)

    def publish(key: str, content: str, etag: str = "") -> None:
        form = {"kind": "policy", "id": key, "content": content, "etag": etag, "csrf": csrf}
        answer = editor.post("/console/publish", data=form, follow_redirects=False)
        assert answer.status_code == 303, answer.text

    def as_a_browser_sends(text: str) -> str:  # a textarea submits every line break as CRLF
        return text.replace("\r\n", "\n").replace("\n", "\r\n")

    # An LF document edited in the console stays LF: the textarea's CRLF is not stored.
    etag = _etag(editor.get("/console/edit?kind=policy&id=git_hooks.rego").text)
    publish("git_hooks.rego", as_a_browser_sends(GUARD_V2), etag)
    assert store.get("policy", "git_hooks.rego").content == GUARD_V2
    # A new document is LF.
    other = GUARD.replace("git_hooks", "other")
    publish("other.rego", as_a_browser_sends(other))
    assert store.get("policy", "other.rego").content == other
    # A document that has CRLF (put through the API, byte for byte) keeps CRLF.
    crlf = GUARD.replace("git_hooks", "windows").replace("\n", "\r\n")
    store.change("policy", "windows.rego", crlf, if_match=None, author="t", message="",
                 validate=lambda policies, data: None)  # fmt: skip
    etag = _etag(editor.get("/console/edit?kind=policy&id=windows.rego").text)
    publish("windows.rego", as_a_browser_sends(crlf.replace("skip", "bypass")), etag)
    assert store.get("policy", "windows.rego").content == crlf.replace("skip", "bypass")


GUARD_TEST = """package hookgate.git_hooks_test

import rego.v1

test_the_reason_is_the_new_one if {
\tsome d in data.hookgate.git_hooks.deny with input as {"tool_kind": "shell",
\t\t"tool_input": {"command": "git commit --no-verify"}}
\td.reason == "Git hooks must run."
}
"""


def test_a_rollback_goes_through_the_pack_check_and_the_revision_precondition(store, tokens):
    editor = signed_in(store, tokens["editor"])
    csrf = csrf_of(editor)

    def publish(key: str, content: str) -> None:
        page = editor.get(f"/console/edit?kind=policy&id={key}").text
        etag = _etag(page) if "Revision " in page else ""
        form = {"kind": "policy", "id": key, "content": content, "etag": etag, "csrf": csrf}
        answer = editor.post("/console/publish", data=form, follow_redirects=False)
        assert answer.status_code == 303, answer.text

    publish("git_hooks.rego", GUARD_V2)  # revision 2
    publish("git_hooks_test.rego", GUARD_TEST)  # the pack's test wants revision 2's reason
    page = editor.get("/console/revisions?kind=policy&id=git_hooks.rego").text
    rollback = re.search(r'<form id="rollback-1".*?</form>', page, re.S).group(0)
    etag = _etag(rollback)
    assert etag == store.get("policy", "git_hooks.rego").etag
    form = {"kind": "policy", "id": "git_hooks.rego", "revision": "1", "csrf": csrf}

    # Revision 1 fails the pack's test: refused with the diagnostic, on the page, not as JSON.
    before = store.current_revision()
    refused = editor.post("/console/rollback", data={**form, "etag": etag})
    assert refused.status_code == 422 and refused.headers["content-type"].startswith("text/html")
    text = html.unescape(refused.text)
    assert "Not rolled back to revision 1" in text
    assert "git_hooks_test.rego:5:1: test data.hookgate.git_hooks_test" in text
    assert store.current_revision() == before

    # A page drawn before someone else's change is refused (412), as the API's If-Match is.
    publish("git_hooks.rego", GUARD_V2 + "\n")  # revision 3, after the page was drawn
    back_to_2 = {**form, "revision": "2"}
    stale = editor.post("/console/rollback", data={**back_to_2, "etag": etag})
    assert stale.status_code == 412 and "changed since you read it" in html.unescape(stale.text)
    assert store.get("policy", "git_hooks.rego").number == 3
    # Without the ETag: refused as the API refuses it (428).
    assert editor.post("/console/rollback", data=back_to_2).status_code == 428

    # From the current page, a rollback that passes the check is made.
    page = editor.get("/console/revisions?kind=policy&id=git_hooks.rego").text
    done = editor.post(
        "/console/rollback", data={**back_to_2, "etag": _etag(page)}, follow_redirects=False
    )
    assert done.status_code == 303
    assert store.get("policy", "git_hooks.rego").content == GUARD_V2

    # A deleted document is restored from its page (no ETag to give: it has no content).
    other = GUARD_V2.replace("git_hooks", "other")
    publish("other.rego", other)
    etag = store.get("policy", "other.rego").etag
    store.change("policy", "other.rego", None, if_match=etag, author="t", message="",
                 validate=lambda policies, data: None)  # fmt: skip
    page = editor.get("/console/revisions?kind=policy&id=other.rego").text
    form = {"kind": "policy", "id": "other.rego", "revision": "1", "csrf": csrf}
    rollback = re.search(r'<form id="rollback-1".*?</form>', page, re.S).group(0)
    restored = editor.post(
        "/console/rollback", data={**form, "etag": _etag(rollback)}, follow_redirects=False
    )
    assert restored.status_code == 303, restored.text
    assert store.get("policy", "other.rego").content == other
