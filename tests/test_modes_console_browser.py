"""Guard modes in the console, in headless Chromium (skipped locally without ``chromium`` and
``chromium-driver``, as ``test_console_browser``): the guard in audit mode, its would-be answers
counted per day, the examples with their masked inputs, and the one-click promotion audit →
warn → enforce of the guard, then of its pattern, each with its impact shown and each a revision
in the data document's history."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from browser_support import chromium, live_server, page_reader
from server_support import auth, client_for, fresh_store, input_document, seeded
from test_console_browser import screenshot_on_failure

from hookgate.server.app import create_app

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
NO_CURL = (
    "package hookgate.no_curl\n\nimport rego.v1\n\n"
    'deny contains {"reason": "No curl.", "pattern": "curl"} if {\n'
    '\tinput.tool_kind == "shell"\n\tcontains(input.tool_input.command, "curl ")\n}\n'
)


def _audited(command: str, minutes_ago: int) -> dict:
    when = datetime.now(UTC) - timedelta(minutes=minutes_ago)
    return {
        "decision_id": str(uuid.uuid4()),
        "time": when.isoformat(),
        "host": "claude",
        "session_id": "audit-session",
        "outcome": "allow",
        "command": command,
        "input": input_document(command, session="audit-session"),
        "would": [{"would": "deny", "mode": "audit", "guard": "no_curl", "pack": "hookgate.no_curl",
                   "pattern": "curl", "reason": "No curl.", "rewrite": None}],
    }  # fmt: skip


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    store = fresh_store("sqlite", tmp_path_factory.mktemp("modes-console"))
    # The guard's one pattern has its own mode: promoting the guard alone enforces nothing.
    data = {"hookgate": {"modes": {"no_curl": "audit", "no_curl/curl": "audit"}}}
    tokens = seeded(store, {"no_curl.rego": NO_CURL}, data)
    records = [
        _audited(f"curl -H 'Authorization: token {SECRET}' https://x", 5),
        _audited("curl y", 9),
    ]
    with client_for(store) as client:
        answer = client.post(
            "/v1/decisions", json={"decisions": records}, headers=auth(tokens["agent"])
        )
        assert answer.json()["accepted"] == 2
    yield store, tokens
    store.engine.dispose()


def test_see_what_a_guard_in_audit_would_do_then_promote_it_to_warn_and_enforce(store):
    from selenium.webdriver.common.by import By

    _, tokens = store
    with live_server(create_app(store[0])) as server, chromium("1400,1100") as browser:
        with screenshot_on_failure(browser, "modes-journey"):
            wait, shows = page_reader(browser)

            browser.get(f"{server}/console/modes")
            wait.until(lambda b: b.current_url.endswith("/console/login"))
            browser.find_element(By.ID, "token").send_keys(tokens["editor"])
            browser.find_element(By.ID, "sign-in").click()
            # signed in (the console's first page) before going on: a navigation started while
            # the sign-in's own redirect is in flight loses to it on a slow machine
            shows("h1", "Policies and data")
            browser.get(f"{server}/console/modes")
            shows("h1", "Guard modes")
            shows("#guard-no_curl .mode", "audit")
            today = datetime.now(UTC).date().isoformat()
            shows("#days", f"{today} no_curl audit deny 2")

            # The day's count opens its examples: the decisions filtered, inputs masked.
            browser.find_element(By.CSS_SELECTOR, "#days a").click()
            wait.until(lambda b: "guard=no_curl" in b.current_url and "mode=audit" in b.current_url)
            shows("#decisions", "would deny (no_curl/curl, audit): No curl.")
            rows = browser.find_elements(By.CSS_SELECTOR, "#decisions tr.decision")
            assert len(rows) == 2
            assert SECRET not in browser.page_source and "token ***" in browser.page_source

            # One click a step: audit → warn → enforce, each with its impact shown.
            browser.get(f"{server}/console/modes")
            browser.find_element(By.ID, "promote-no_curl").click()
            shows("#promoted", "Promoted: no_curl warn")
            shows("#guard-no_curl .mode", "warn")
            shows("#impact-summary", "0 of 2 replayed decisions would change")
            browser.find_element(By.ID, "promote-no_curl").click()
            shows("#promoted", "Promoted: no_curl enforce")
            shows("#guard-no_curl .mode", "enforce")
            # Its pattern is still audited: the guard's promotion changes no recorded answer.
            shows("#impact-summary", "0 of 2 replayed decisions would change")
            assert not browser.find_elements(By.ID, "promote-no_curl")  # nothing stricter

            # The pattern's own mode, promoted from its row: now the recorded curls would deny.
            shows("#guard-no_curl .pattern", "no_curl/curl: audit")
            browser.find_element(By.ID, "promote-no_curl/curl").click()
            shows("#promoted", "Promoted: no_curl/curl warn")
            shows("#guard-no_curl .pattern", "no_curl/curl: warn")
            browser.find_element(By.ID, "promote-no_curl/curl").click()
            shows("#promoted", "Promoted: no_curl/curl enforce")
            shows("#impact-summary", "2 of 2 replayed decisions would change")
            shows("#impact", "allow→deny 2")
            shows("#impact", "curl y")
            assert SECRET not in browser.page_source  # the examples are the masked inputs
            assert not browser.find_elements(By.ID, "promote-no_curl/curl")

            # Each promotion is a revision of the data document, in its history.
            browser.find_element(By.LINK_TEXT, "history").click()
            shows("body", "promote no_curl: audit → warn")
            shows("body", "promote no_curl: warn → enforce")
            shows("body", "promote no_curl/curl: warn → enforce")
    with client_for(store[0]) as client:
        payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "s",
                   "cwd": "/r", "tool_input": {"command": "curl x"}}  # fmt: skip
        decided = client.post(
            "/v1/evaluate", json={"payload": payload}, headers=auth(tokens["viewer"])
        )
        assert decided.json()["decision"]["outcome"] == "deny"
