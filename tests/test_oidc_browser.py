"""Single sign-on as a person does it, in Debian's headless Chromium against the real OpenID
provider (oidc_support.py): the console's sign-in page → the provider's login form → back in
the console, signed in with the role the person's groups map to → sign-out ends the session.
The console is opened as ``localhost`` and the provider as ``127.0.0.1``: two sites, as in
production, so the way back is a cross-site navigation (the session cookie is SameSite=Strict).
Skipped locally without Chromium or Node; a failure under CI=true."""

from __future__ import annotations

import pytest
from browser_support import chromium, live_server, page_reader
from oidc_support import real_provider
from server_support import fresh_store, seeded

from hookgate.server.app import create_app
from hookgate.server.console import COOKIE


@pytest.fixture
def browser():
    with chromium("1200,900") as driver:
        yield driver


def test_sign_in_with_the_provider_then_sign_out(tmp_path, browser):
    from selenium.webdriver.common.by import By

    store = fresh_store("sqlite", tmp_path)
    seeded(store)
    app = create_app(store)
    wait, shows = page_reader(browser)
    with live_server(app) as address:
        public_url = address.replace("127.0.0.1", "localhost")
        with real_provider([public_url]) as provider:
            app.state.public_url = public_url
            app.state.oidc = provider.relying_party(public_url)
            browser.get(public_url + "/console/policies")
            wait.until(lambda b: b.current_url.endswith("/console/login"))
            browser.find_element(By.ID, "sso-sign-in").click()
            wait.until(lambda b: b.current_url.startswith(provider.issuer))
            browser.find_element(By.NAME, "login").send_keys("alice")
            browser.find_element(By.NAME, "password").send_keys("any password")
            browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
            wait.until(lambda b: b.current_url == public_url + "/console/policies")
            shows("header", "oidc:alice (editor)")  # staff → viewer, hookgate-editors → editor
            session_id = browser.get_cookie(COOKIE)["value"]
            assert app.state.sessions.principal(session_id).role == "editor"

            browser.find_element(By.XPATH, "//button[text()='Sign out']").click()
            wait.until(lambda b: b.current_url.endswith("/console/login"))
            assert app.state.sessions.principal(session_id) is None
            browser.get(public_url + "/console/policies")
            wait.until(lambda b: b.current_url.endswith("/console/login"))
            assert browser.get_cookie(COOKIE) is None
