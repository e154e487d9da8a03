"""What the browser tests share: the app served by uvicorn on loopback, and Debian's headless
Chromium driven through chromedriver (never a downloaded browser or driver)."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

CI = os.environ.get("CI") == "true"


def need(what: str, found: object) -> None:
    """Skip when ``what`` is missing, except under CI, which must run the browser tests."""
    if not found:
        if CI:
            pytest.fail(f"{what} is missing: CI must run the browser test")
        pytest.skip(f"{what} is missing")


@contextmanager
def live_server(app: object) -> Iterator[str]:
    """``app`` served on a free loopback port; yields its base URL."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    runner = uvicorn.Server(config)
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not runner.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert runner.started
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        runner.should_exit = True
        thread.join(timeout=10)


@contextmanager
def chromium(window_size: str) -> Iterator[object]:
    """A selenium driver of headless Chromium in a fresh profile, ``window_size`` "W,H"."""
    binary = os.environ.get("HOOKGATE_TEST_CHROMIUM") or shutil.which("chromium")
    driver_path = os.environ.get("HOOKGATE_TEST_CHROMEDRIVER") or shutil.which("chromedriver")
    need("chromium", binary)
    need("chromedriver", driver_path)
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        need("selenium", None)
    profile = tempfile.mkdtemp(prefix="hookgate-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", f"--window-size={window_size}", f"--user-data-dir={profile}",
    ):  # fmt: skip
        options.add_argument(flag)
    # Service with an explicit path: selenium never tries to download a driver.
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def page_reader(browser: object, seconds: float = 60) -> tuple[object, object]:
    """A wait of ``seconds`` and ``shows(selector, words)``, which waits until the elements
    matching ``selector`` read ``words``.

    A page load or an htmx swap can replace an element between finding and reading it. Selenium
    calls that stale; Chromium, when the whole document went, answers "Node with given id does
    not belong to the document" as a plain WebDriverException. Both mean "read again"."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, seconds, ignored_exceptions=(StaleElementReferenceException,))

    def read(selector: str) -> str | None:
        try:
            return " ".join(e.text for e in browser.find_elements(By.CSS_SELECTOR, selector))
        except WebDriverException as error:
            if "does not belong to the document" in str(error.msg):
                return None
            raise

    def shows(selector: str, words: str) -> bool:
        return wait.until(lambda _: words in (read(selector) or ""))

    return wait, shows
