"""Authenticated freshness: every bundle response, 304 included, carries a statement
(revision, digest, time) signed with the bundle key; the CLI records when freshness was last
proven and ``doctor`` reports that; with no cache a bundle the server vouched for longer ago
than the maximum age is refused; ``login`` refuses plain http:// except to loopback."""

from __future__ import annotations

import base64
import json
import re
import time

import pytest
from sync_helpers import TamperingProxy, run_hookgate, server_fixture

from hookgate import bundle_format, sync

server = server_fixture()


@pytest.fixture
def home(tmp_path, monkeypatch):
    path = tmp_path / "user"
    path.mkdir()
    monkeypatch.setenv("HOOKGATE_HOME", str(path))
    monkeypatch.delenv("HOOKGATE_MAX_BUNDLE_AGE", raising=False)
    return path


def cached(home) -> dict:
    return json.loads((home / "cache" / "bundle.json").read_text())


def signed_statement(server, revision: int, digest: str, at: int) -> str:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    seed, _ = server.store.signing_key()
    statement = bundle_format.freshness_bytes(revision, digest, at)
    signature = Ed25519PrivateKey.from_private_bytes(seed).sign(statement)
    return base64.b64encode(statement).decode() + "." + base64.b64encode(signature).decode()


def test_every_bundle_response_carries_a_signed_statement(server):
    key = server.request("GET", "/v1/bundle/key")[2]["public_key"]
    status, headers, bundle = server.request("GET", "/v1/bundle")
    statement = bundle_format.verify_freshness(headers["hookgate-freshness"], key)
    assert (statement["revision"], statement["digest"]) == (bundle["revision"], bundle["digest"])
    assert abs(statement["time"] - time.time()) < 60
    etag = headers["etag"]
    import urllib.error

    with pytest.raises(urllib.error.HTTPError) as not_modified:
        server.request("GET", "/v1/bundle", headers={"If-None-Match": etag})
    assert not_modified.value.code == 304
    again = bundle_format.verify_freshness(not_modified.value.headers["hookgate-freshness"], key)
    assert again["digest"] == bundle["digest"]
    forged = headers["hookgate-freshness"].replace(".", ".A", 1)
    with pytest.raises(bundle_format.BundleError, match="not a valid signed statement"):
        bundle_format.verify_freshness(forged, key)


def test_an_unsigned_304_proves_nothing_and_doctor_says_so(server, home):
    proxy = TamperingProxy(server)
    try:
        sync.login(proxy.url, server.agent_token)
        sync.pull()
        proven = cached(home)["proven_at"]
        doctor = run_hookgate(home, "doctor", "--timeout", "2").stdout
        assert re.search(r"proven current \d+s ago by the server's signed freshness", doctor)

        proxy.forward_headers = False  # something on the way answers 304 without a statement
        with pytest.raises(sync.SyncError, match="freshness not proven: no Hookgate-Freshness"):
            sync.pull()
        assert cached(home)["proven_at"] == proven
    finally:
        proxy.close()


def test_without_a_cache_a_bundle_vouched_for_long_ago_is_refused(server, home, monkeypatch):
    sync.login(server.url, server.agent_token)
    assert not (home / "cache" / "bundle.json").exists()  # login alone pulls nothing
    _, _, bundle = server.request("GET", "/v1/bundle")
    two_days_ago = int(time.time()) - 2 * 86400
    replayed = signed_statement(server, bundle["revision"], bundle["digest"], two_days_ago)
    monkeypatch.setattr(
        sync, "http_json", lambda *a, **k: (200, {"Hookgate-Freshness": replayed}, bundle)
    )
    with pytest.raises(sync.SyncError, match="more than the maximum age of 24.0 h"):
        sync.pull()
    assert not (home / "cache" / "bundle.json").exists()
    monkeypatch.setenv("HOOKGATE_MAX_BUNDLE_AGE", str(3 * 86400))
    assert sync.pull().status == "updated"


def test_a_statement_older_than_the_last_proven_is_a_replay(server, home, monkeypatch):
    sync.login(server.url, server.agent_token)
    sync.pull()
    bundle = cached(home)
    old = signed_statement(server, bundle["revision"], bundle["digest"], int(time.time()) - 600)
    monkeypatch.setattr(sync, "http_json", lambda *a, **k: (304, {"hookgate-freshness": old}, None))
    with pytest.raises(sync.SyncError, match="older than the last one proven"):
        sync.pull()


def test_a_statement_for_another_bundle_does_not_prove_this_one(server, home, monkeypatch):
    sync.login(server.url, server.agent_token)
    sync.pull()
    bundle = cached(home)
    other = signed_statement(server, bundle["revision"], "sha256:" + "0" * 64, int(time.time()))
    monkeypatch.setattr(
        sync, "http_json", lambda *a, **k: (304, {"Hookgate-Freshness": other}, None)
    )
    with pytest.raises(sync.SyncError, match="freshness statement for another bundle"):
        sync.pull()


@pytest.mark.parametrize(
    "url", ["http://hookgate.example.invalid", "http://10.1.2.3:8080", "http://[fe80::1]/"]
)
def test_login_refuses_plain_http_to_another_machine(home, url):
    with pytest.raises(sync.SyncError, match="plain http:// to another machine"):
        sync.login(url, "token")
    assert not (home / "config" / "login.json").exists()


def test_login_with_insecure_tries_plain_http(home):
    with pytest.raises(sync.ServerUnreachable):  # it tried: nothing answers there
        sync.login("http://hookgate.example.invalid", "token", insecure=True, timeout=2)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.0.1", "localhost", "[::1]"])
def test_login_allows_plain_http_to_loopback(home, host):
    assert sync._loopback(f"http://{host}:8080")
