"""The console as a person uses it, in Debian's headless Chromium (``chromium`` +
``chromium-driver``; skipped locally when missing, a failure under CI=true): sign in, open a
policy, introduce an error and see it at its line, fix it, run the tests, see the impact on
recorded decisions, publish, see the new revision and the diff, find a decision in the
explorer. On failure the page's screenshot is saved (the path is printed); with
``$HOOKGATE_CONSOLE_SCREENSHOTS=DIR`` every page is saved there too (the README's images)."""

from __future__ import annotations

import os
import tempfile
import uuid
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from browser_support import chromium, live_server, page_reader
from server_support import GUARD, auth, client_for, fresh_store, input_document, seeded

from hookgate.server.app import create_app

SHOTS = os.environ.get("HOOKGATE_CONSOLE_SCREENSHOTS")
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

GUARD_TEST = """package hookgate.git_hooks_test

import rego.v1

test_no_verify_is_denied if {
\tcount(data.hookgate.git_hooks.deny) == 1 with input as {"tool_kind": "shell", "tool_input": {"command": "git commit --no-verify"}}
}
"""

# Typed into the editor: a rule that denies work-in-progress commits (spaces, not tabs: a tab
# key moves the focus, as it should).
NEW_RULE = (
    '\ndeny contains {"reason": "No wip commits on shared branches.", "pattern": "wip"} if {\n'
    '    input.tool_kind == "shell"\n'
    '    contains(input.tool_input.command, "-m wip")\n'
    "}\n"
)


def _recorded(command: str, outcome: str, session: str, minutes_ago: int) -> dict:
    when = datetime.now(UTC) - timedelta(minutes=minutes_ago)
    return {
        "decision_id": str(uuid.uuid4()),
        "time": when.isoformat(),
        "host": "claude",
        "event": "PreToolUse",
        "session_id": session,
        "tool_name": "Bash",
        "outcome": outcome,
        "bundle_revision": 1,
        "command": command,
        "input": input_document(command, session=session),
        "matches": [{"pack": "hookgate.git_hooks", "pattern": "no-verify", "rule": "deny"}]
        if outcome == "deny"
        else [],
    }


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    store = fresh_store("sqlite", tmp_path_factory.mktemp("console"))
    tokens = seeded(store, {"git_hooks.rego": GUARD, "git_hooks_test.rego": GUARD_TEST})
    records = [
        _recorded("git commit -m wip", "allow", "dev-1", 30),
        _recorded("git commit --no-verify -m x", "deny", "dev-1", 90),
        _recorded(f"GITHUB_TOKEN={SECRET} gh pr create -m wip", "allow", "browser-session", 150),
    ]
    records += [_recorded(f"pytest -q tests/t{n}.py", "allow", "dev-2", n * 37) for n in range(40)]
    # A call a broken pack left to the failure policy: shown as a fault, not as an allow.
    faulted = _recorded("git status", "allow", "fault-session", 20)
    faulted["errors"] = [{"kind": "fault", "source": "evaluation", "pack": "team.release",
                          "message": "conflicting values for data.team.release.level"}]  # fmt: skip
    records.append(faulted)
    with client_for(store) as client:
        answer = client.post(
            "/v1/decisions", json={"decisions": records}, headers=auth(tokens["agent"])
        )
        assert answer.json()["accepted"] == len(records)
    yield store, tokens
    store.engine.dispose()


@pytest.fixture(scope="module")
def server(store):
    with live_server(create_app(store[0])) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium("1400,1100") as driver:
        yield driver


@contextmanager
def screenshot_on_failure(browser, name: str):
    """Save the page a failing step left the browser on (the path is printed)."""
    try:
        yield
    except BaseException:
        directory = Path(os.environ.get("HOOKGATE_TEST_ARTIFACTS") or tempfile.mkdtemp())
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{name}.png"
        browser.save_screenshot(str(path))
        print(f"screenshot of the failing page: {path}")
        raise


def shot(browser, name: str) -> None:
    """Save the page for the README when ``$HOOKGATE_CONSOLE_SCREENSHOTS`` asks for it."""
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(Path(SHOTS) / f"{name}.png"))


def test_edit_check_test_impact_publish_diff_and_explore(server, browser, store):
    with screenshot_on_failure(browser, "console-journey"):
        _journey(server, browser, store)


def _journey(server, browser, store) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    wait, shows = page_reader(browser)
    _, tokens = store

    def text(selector: str) -> str:
        return browser.find_element(By.CSS_SELECTOR, selector).text

    # Sign in (the token is entered once; the cookie keeps the session).
    browser.get(f"{server}/console/policies")
    wait.until(lambda b: b.current_url.endswith("/console/login"))
    shot(browser, "login")
    browser.find_element(By.ID, "token").send_keys(tokens["admin"])
    browser.find_element(By.ID, "sign-in").click()
    shows("h1", "Policies and data")
    assert text("#bundle-revision") == "1"
    shot(browser, "policies")

    # Open a policy; introduce an error and see it at its line; fix it.
    browser.find_element(By.LINK_TEXT, "git_hooks.rego").click()
    shows("#diagnostics", "Compiles with the rest of the active set.")
    editor = browser.find_element(By.ID, "content")
    editor.click()
    editor.send_keys(Keys.CONTROL, Keys.END)
    broken = "\ndeny contains x if {"
    editor.send_keys(broken)
    lines = GUARD.count("\n") + 2  # the typed rule's line
    shows("#diagnostics", f"git_hooks.rego:{lines}:")
    shot(browser, "editor-error")
    # The diagnostic takes the caret to its line.
    browser.find_element(By.CSS_SELECTOR, "#diagnostics a[data-line]").click()
    caret_line = browser.execute_script(
        "const e = document.activeElement;"
        "return e.id === 'content' && e.value.slice(0, e.selectionStart).split('\\n').length;"
    )
    assert caret_line == lines
    editor.send_keys(Keys.CONTROL, Keys.END)
    editor.send_keys(Keys.BACKSPACE * len(broken))
    shows("#diagnostics", "Compiles with the rest of the active set.")

    # A stricter rule, typed in: it compiles, the pack's tests pass, the dry-run shows the
    # decision and the host's exact response, and the impact names the recorded decisions.
    editor.send_keys(NEW_RULE)
    shows("#diagnostics", "Compiles")
    browser.find_element(By.ID, "run-tests").click()
    shows("#tests", "1 passed, 0 failed")
    browser.find_element(By.ID, "run-dryrun").click()
    shows("#dryrun-outcome", "deny")
    assert '"permissionDecision": "deny"' in text("#dryrun-response")
    browser.find_element(By.ID, "run-impact").click()
    shows("#impact-summary", "2 of 44 replayed decisions would change")
    assert "allow→deny" in text("#impact")
    assert "No wip commits on shared branches." in text("#impact")
    shot(browser, "editor")

    # Publish; the new revision and the diff.
    browser.find_element(By.ID, "message").send_keys("deny wip commits")
    browser.find_element(By.ID, "publish").click()
    shows("#published", "Published revision 2.")
    # The textarea sent CRLF (the HTML spec's form submission); the policy keeps its LF.
    stored = store[0].get("policy", "git_hooks.rego").content
    assert "\r" not in stored and stored == GUARD + NEW_RULE
    assert "deny wip commits" in text("table")
    shot(browser, "revisions")
    browser.find_element(By.ID, "show-diff").click()
    shows("#diff", '+deny contains {"reason": "No wip commits on shared branches."')
    shot(browser, "diff")
    browser.get(f"{server}/console/policies")
    assert text("#bundle-revision") == "2"

    # Find a decision in the explorer, with its masked input.
    browser.find_element(By.LINK_TEXT, "Decisions").click()
    shows("h1", "Decisions")
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg rect")) > 3
    shot(browser, "decisions")
    browser.find_element(By.ID, "session").send_keys("browser-session")
    browser.find_element(By.ID, "filter").click()
    wait.until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "tr.decision")) == 1)
    row = browser.find_element(By.CSS_SELECTOR, "tr.decision")
    row.find_element(By.TAG_NAME, "summary").click()
    masked = row.find_element(By.CSS_SELECTOR, "pre.input").text
    assert '"command": "GITHUB_TOKEN=*** gh pr create -m wip"' in masked
    assert SECRET not in browser.page_source

    # A fault shows as a fault, with its pack and message, and can be filtered for.
    session = browser.find_element(By.ID, "session")
    session.clear()
    Select(browser.find_element(By.NAME, "errors")).select_by_value("fault")
    browser.find_element(By.ID, "filter").click()
    # The filtered page, not the one before it (which also had one row).
    wait.until(lambda b: "errors=fault" in b.current_url)
    (cell,) = wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "tr.decision td.outcome-fault"))
    assert len(browser.find_elements(By.CSS_SELECTOR, "tr.decision")) == 1
    assert cell.text.startswith("fault → allow")
    assert "fault in team.release: evaluation: conflicting values" in cell.text
    shot(browser, "decisions-fault")

    # Admins manage tokens.
    browser.find_element(By.LINK_TEXT, "Tokens").click()
    shows("h1", "API tokens")
    browser.find_element(By.ID, "name").send_keys("ci-publisher")
    browser.find_element(By.ID, "create-token").click()
    shows("#new-token", "hg_")
    shot(browser, "tokens")
