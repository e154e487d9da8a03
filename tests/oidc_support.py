"""A real OpenID provider for the single sign-on tests: panva's certified ``oidc-provider``
from npm (pinned, installed once into a cache outside the repository, as tests/hosts installs
the hosts), run by ``tests/oidc/provider.mjs`` on a loopback port. Skipped when Node or npm is
missing, a failure under CI=true. The tests hold the private key the provider signs with (given
to it as its JWKS), so they can also sign tokens the provider never would (expired, for another
audience) with the key its discovery document publishes."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin

import httpx
import pytest

from hookgate.server.oidc import CALLBACK_PATH, OidcSettings, Provider

# Node 20 or newer (oidc-provider 9 needs it): the system's, else Node's own npm package, as
# the real-host tests find it.
sys.path.insert(0, str(Path(__file__).parent / "hosts"))
from realhosts import HostUnavailable, node_dir  # noqa: E402

PACKAGE, VERSION = "oidc-provider", "9.13.3"
CACHE = Path(os.environ.get("HOOKGATE_OIDC_CACHE") or Path.home() / ".cache" / "hookgate-oidc")
SCRIPT = Path(__file__).parent / "oidc" / "provider.mjs"
CI = os.environ.get("CI") == "true"
CLIENT_ID, CLIENT_SECRET = "hookgate-console", "a-client-secret-of-the-test"
OTHER_CLIENT = "another-app"
ROLES = {"hookgate-admins": "admin", "hookgate-editors": "editor", "staff": "viewer"}
ACCOUNTS = {
    "alice": {"groups": ["staff", "hookgate-editors"]},
    "bob": {"groups": ["staff"]},
    "mallory": {"groups": ["contractors"]},
}


def _missing(what: str) -> None:
    if CI:
        pytest.fail(f"{what}: CI must run the single sign-on tests against the real provider")
    pytest.skip(what)


def node() -> str:
    """A ``node`` oidc-provider runs on."""
    if shutil.which("npm") is None:
        _missing("npm is needed for the real OpenID provider")
    try:
        return str(node_dir() / "node")
    except HostUnavailable as exc:
        _missing(f"no Node 20 or newer for the real OpenID provider: {exc}")


def provider_module() -> Path:
    """``oidc-provider``'s entry module, installed from the npm registry on first use."""
    prefix = CACHE / f"{PACKAGE}@{VERSION}"
    module = prefix / "node_modules" / PACKAGE / "lib" / "index.js"
    if not module.exists():
        prefix.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            ["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund",
             "--loglevel=error", f"{PACKAGE}@{VERSION}"],
            capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        if done.returncode != 0 or not module.exists():
            _missing(f"npm install {PACKAGE}@{VERSION} failed: {done.stderr[-2000:]}")
    return module


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class RealProvider:
    issuer: str
    key: object  # the joserfc RSAKey the provider signs ID tokens with

    def settings(self, public_url: str, **changes: object) -> OidcSettings:
        values = dict(
            issuer=self.issuer, client_id=CLIENT_ID, client_secret=CLIENT_SECRET,
            redirect_uri=public_url + CALLBACK_PATH, groups_claim="groups", roles=ROLES,
            scopes=("openid", "profile", "groups"), token_sign_in=True,
            display_name="Test IdP",
        )  # fmt: skip
        values.update(changes)
        return OidcSettings(**values)

    def relying_party(self, public_url: str, **changes: object) -> Provider:
        return Provider(self.settings(public_url, **changes))


@contextmanager
def real_provider(public_urls: list[str]) -> Iterator[RealProvider]:
    """The provider running, with the console's client (redirect URIs under ``public_urls``)
    and another application's client, until the block ends."""
    from joserfc.jwk import RSAKey

    module, runtime = provider_module(), node()
    key = RSAKey.generate_key(2048, parameters={"kid": "test-key", "use": "sig", "alg": "RS256"})
    port = free_port()
    issuer = f"http://127.0.0.1:{port}"
    redirects = [url + CALLBACK_PATH for url in public_urls]
    config = {
        "module": str(module),
        "issuer": issuer,
        "port": port,
        "groupsClaim": "groups",
        "jwks": {"keys": [key.as_dict(private=True)]},
        "accounts": ACCOUNTS,
        "clients": [
            {"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "redirect_uris": redirects,
             "grant_types": ["authorization_code"], "response_types": ["code"],
             "token_endpoint_auth_method": "client_secret_basic"},
            {"client_id": OTHER_CLIENT, "client_secret": "another-secret",
             "redirect_uris": redirects, "grant_types": ["authorization_code"],
             "response_types": ["code"]},
        ],
    }  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="hookgate-oidc-") as folder:
        path = Path(folder) / "config.json"
        path.write_text(json.dumps(config))
        process = subprocess.Popen(
            [runtime, str(SCRIPT), str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        try:
            line = process.stdout.readline()
            if not line.startswith("listening"):
                process.kill()
                raise AssertionError(f"the provider did not start: {line}{process.stderr.read()}")
            yield RealProvider(issuer, key)
        finally:
            process.terminate()
            process.wait(timeout=10)


def log_in(authorization_url: str, login: str, redirect_uri: str) -> str:
    """What a person does at the provider (its devInteractions login form, as ``login``): the
    URL the provider sends the browser back to, ``redirect_uri?code=…&state=…``."""
    with httpx.Client(timeout=30) as browser:
        url = authorization_url
        for _ in range(12):
            if url.startswith(redirect_uri):
                return url
            answer = browser.get(url)
            if answer.is_redirect:
                url = urljoin(url, answer.headers["location"])
                continue
            form = re.search(r'<form[^>]*action="([^"]+)"', answer.text)
            assert form, f"no form at {url}: {answer.status_code} {answer.text[:500]}"
            action = urljoin(url, html.unescape(form.group(1)))
            fields = {"prompt": "login", "login": login, "password": "any"}
            answer = browser.post(action, data=fields)
            assert answer.is_redirect, f"{answer.status_code} {answer.text[:500]}"
            url = urljoin(action, answer.headers["location"])
    raise AssertionError(f"the provider never sent the browser back: {url}")
