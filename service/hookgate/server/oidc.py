"""OpenID Connect sign-in for the console: the provider's settings, and the relying party.

The authorization code flow with PKCE (S256), ``state`` and ``nonce`` (OpenID Connect Core 1.0
§3.1; RFC 7636; RFC 9700 §2.1.1). The provider's endpoints come from its discovery document,
whose ``issuer`` must be the configured one exactly (Discovery §4.3). The ID token is checked
with joserfc (signature against the provider's JWKS, asymmetric algorithms only, so neither an
unsigned token nor one "signed" with a public key as an HMAC secret passes; then issuer,
audience and ``azp``, expiry, issue time, nonce). The person's groups (from the ID token, else
from the UserInfo endpoint, whose ``sub`` must match) map to a role; no mapped group, no access.

The flow's secrets (state, nonce, PKCE verifier) wait in a short-lived HttpOnly cookie of the
browser that started the sign-in, so a callback carrying a code for another browser's flow (or
an attacker's own, the login-CSRF) has no matching state and is refused. Everything here runs
in a thread (blocking ``urllib``): it is only on the console's sign-in path.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import threading
import time
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookgate.server.store import ROLES, Principal

CALLBACK_PATH = "/console/oidc/callback"
SECRET_ENV = "HOOKGATE_OIDC_CLIENT_SECRET"
# RFC 7518's and RFC 8037's public-key algorithms: an HMAC one would take the client secret
# (or, from a confused library, a public key) as its key.
SIGNING_ALGORITHMS = (
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
    "Ed25519",
)
CLOCK_LEEWAY = 60  # seconds of clock difference allowed between provider and server
FLOW_SECONDS = 600  # a sign-in not finished in ten minutes starts again
METADATA_SECONDS = 3600  # discovery and keys are read again after an hour (key rotation)
FETCH_TIMEOUT = 10
MAX_RESPONSE = 1 << 20
ROLE_CHOICES = ROLES[1:]  # an agent's role reads bundles only: no console
SETTINGS = {
    "issuer",
    "client_id",
    "client_secret_file",
    "groups_claim",
    "roles",
    "scopes",
    "token_sign_in",
    "display_name",
}


class OidcConfigError(Exception):
    """A setting of the single sign-on configuration that cannot work (the message names it)."""


class SignInError(Exception):
    """A sign-in that failed: the HTTP status and the sentence the sign-in page shows."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class OidcSettings:
    issuer: str
    client_id: str
    client_secret: str
    redirect_uri: str
    groups_claim: str
    roles: Mapping[str, str]  # group → role
    scopes: tuple[str, ...]
    token_sign_in: bool  # whether the console still takes API tokens
    display_name: str


@dataclass(frozen=True)
class Flow:
    """One sign-in's secrets, kept by the browser that started it until the callback."""

    state: str
    nonce: str
    verifier: str

    @classmethod
    def new(cls) -> Flow:
        # 256 bits each; the verifier is 43 characters of RFC 7636's unreserved set.
        return cls(secrets.token_urlsafe(32), secrets.token_urlsafe(32), secrets.token_urlsafe(32))

    def cookie(self) -> str:
        return f"{self.state}.{self.nonce}.{self.verifier}"

    @classmethod
    def from_cookie(cls, value: str | None) -> Flow | None:
        parts = (value or "").split(".")
        if len(parts) != 3 or not all(parts):
            return None
        return cls(*parts)


def load_settings(
    path: Path, public_url: str | None, env: Mapping[str, str] = os.environ
) -> OidcSettings:
    """The settings in the TOML file ``path``; ``OidcConfigError`` naming the setting if one is
    missing or wrong. The client secret is read from ``client_secret_file`` or
    ``$HOOKGATE_OIDC_CLIENT_SECRET``, never from the command line or this file."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise OidcConfigError(f"{path}: cannot read: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise OidcConfigError(f"{path}: {exc}") from None

    def fail(setting: str, message: str) -> OidcConfigError:
        return OidcConfigError(f"{path}: {setting}: {message}")

    for key in raw:
        if key == "client_secret":
            raise fail(key, f"not in this file: use client_secret_file or ${SECRET_ENV}")
        if key not in SETTINGS:
            raise fail(key, f"unknown setting (known: {', '.join(sorted(SETTINGS))})")

    def text(key: str, default: str | None = None) -> str:
        value = raw.get(key, default)
        if not isinstance(value, str) or not value.strip():
            raise fail(
                key, "required, a non-empty string" if value is None else "a non-empty string"
            )
        return value.strip()

    issuer = text("issuer")
    parts = urllib.parse.urlsplit(issuer)
    loopback = parts.hostname in ("localhost", "127.0.0.1", "::1")
    if parts.scheme != "https" and not (parts.scheme == "http" and loopback):
        raise fail("issuer", f"{issuer!r} is not an https URL (http only for localhost)")
    if parts.query or parts.fragment:
        raise fail("issuer", f"{issuer!r} has a query or fragment")
    if public_url is None:
        raise OidcConfigError(
            f"{path}: single sign-on needs --public-url: the provider sends people back to "
            f"<public-url>{CALLBACK_PATH}, registered with it as the redirect URI"
        )
    roles = raw.get("roles")
    if not isinstance(roles, dict) or not roles:
        raise fail("roles", 'required, a table of group = "viewer" | "editor" | "admin"')
    for group, role in roles.items():
        if role not in ROLE_CHOICES:
            raise fail(f"roles.{group}", f"{role!r} is not one of {', '.join(ROLE_CHOICES)}")
    scopes = raw.get("scopes", ["openid", "profile"])
    if not isinstance(scopes, list) or not all(isinstance(s, str) and s for s in scopes):
        raise fail("scopes", "a list of strings")
    if "openid" not in scopes:
        raise fail("scopes", 'must include "openid"')
    token_sign_in = raw.get("token_sign_in", True)
    if not isinstance(token_sign_in, bool):
        raise fail("token_sign_in", "true or false")
    return OidcSettings(
        issuer=issuer,
        client_id=text("client_id"),
        client_secret=_client_secret(raw, env, fail),
        redirect_uri=public_url + CALLBACK_PATH,
        groups_claim=text("groups_claim", "groups"),
        roles=dict(roles),
        scopes=tuple(scopes),
        token_sign_in=token_sign_in,
        display_name=text("display_name", "single sign-on"),
    )


def _client_secret(
    raw: Mapping[str, Any], env: Mapping[str, str], fail: Callable[[str, str], Exception]
) -> str:
    name = raw.get("client_secret_file")
    if name is None:
        secret = env.get(SECRET_ENV, "").strip()
        if not secret:
            raise fail("client_secret_file", f"required (or ${SECRET_ENV})")
        return secret
    if not isinstance(name, str) or not name:
        raise fail("client_secret_file", "a file name")
    try:
        secret = Path(name).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise fail("client_secret_file", f"cannot read {name}: {exc}") from None
    if not secret:
        raise fail("client_secret_file", f"{name} is empty")
    return secret


class Provider:
    """The relying party for one provider; its discovery document and keys cached for an hour
    (and the keys read again at once when a token names a key they lack)."""

    def __init__(self, settings: OidcSettings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._metadata: tuple[float, dict[str, Any]] | None = None
        self._keys: tuple[float, Any] | None = None

    def start(self) -> tuple[str, Flow]:
        """The provider's URL to send the browser to, and the flow to keep in its cookie."""
        flow = Flow.new()
        challenge = base64.urlsafe_b64encode(hashlib.sha256(flow.verifier.encode()).digest())
        query = {
            "response_type": "code",
            "client_id": self.settings.client_id,
            "redirect_uri": self.settings.redirect_uri,
            "scope": " ".join(self.settings.scopes),
            "state": flow.state,
            "nonce": flow.nonce,
            "code_challenge": challenge.rstrip(b"=").decode(),
            "code_challenge_method": "S256",
        }
        endpoint = self._endpoint("authorization_endpoint")
        joiner = "&" if urllib.parse.urlsplit(endpoint).query else "?"
        return endpoint + joiner + urllib.parse.urlencode(query), flow

    def finish(self, flow: Flow | None, query: Mapping[str, str]) -> tuple[Principal, dict]:
        """The principal the provider's answer ``query`` (the callback's) signs in, with the ID
        token's claims; ``SignInError`` with the reason otherwise."""
        if flow is None or not hmac.compare_digest(query.get("state", ""), flow.state):
            raise SignInError(
                400,
                "This sign-in was not started in this browser, or took longer than ten "
                "minutes: sign in again.",
            )
        if "error" in query:
            detail = query.get("error_description") or query["error"]
            raise SignInError(401, f"The sign-in provider refused the sign-in: {detail}")
        code = query.get("code")
        if not code:
            raise SignInError(400, "The provider's answer has no authorization code.")
        tokens = self._token_request(code, flow.verifier)
        id_token = tokens.get("id_token")
        if not isinstance(id_token, str):
            raise SignInError(502, "The provider's token answer has no ID token.")
        claims = self.validate_id_token(id_token, flow.nonce)
        groups = claims.get(self.settings.groups_claim)
        if groups is None and isinstance(tokens.get("access_token"), str):
            groups = self._userinfo(tokens["access_token"], claims["sub"]).get(
                self.settings.groups_claim
            )
        return self.principal(claims["sub"], groups), claims

    def principal(self, subject: str, groups: object) -> Principal:
        """The highest role any of ``groups`` maps to; ``SignInError`` (403) when none does."""
        names = [groups] if isinstance(groups, str) else groups
        if not isinstance(names, list):
            names = []
        roles = [
            self.settings.roles[g] for g in names if isinstance(g, str) and g in self.settings.roles
        ]
        if not roles:
            raise SignInError(
                403,
                f"You signed in as {subject}, but none of your groups (claim "
                f"{self.settings.groups_claim!r}) is given a role on this server: ask its "
                "administrator to map one.",
            )
        return Principal(f"oidc:{subject}"[:255], max(roles, key=ROLES.index))

    def validate_id_token(self, id_token: str, nonce: str) -> dict[str, Any]:
        """The claims of ``id_token`` once its signature, issuer, audience, times and nonce
        are right; ``SignInError`` naming what is wrong otherwise."""
        from joserfc import jwt
        from joserfc.errors import JoseError

        allowed = [
            a
            for a in self.metadata().get("id_token_signing_alg_values_supported", ["RS256"])
            if a in SIGNING_ALGORITHMS
        ]
        if not allowed:
            # An empty list would let joserfc fall back to its defaults, HMAC ones among them.
            raise SignInError(502, "The provider signs ID tokens with no public-key algorithm.")
        try:
            try:
                token = jwt.decode(id_token, self._key_set(), algorithms=allowed)
            except JoseError:
                # A key the provider has rotated in since the keys were read.
                token = jwt.decode(id_token, self._key_set(fresh=True), algorithms=allowed)
            registry = jwt.JWTClaimsRegistry(
                leeway=CLOCK_LEEWAY,
                iss={"essential": True, "value": self.settings.issuer},
                aud={"essential": True, "value": self.settings.client_id},
                sub={"essential": True},
                exp={"essential": True},
                iat={"essential": True},
                nonce={"essential": True, "value": nonce},
            )
            registry.validate(token.claims)
        except (JoseError, ValueError) as exc:
            raise SignInError(401, f"The provider's ID token was refused: {exc}") from None
        claims = token.claims
        audience = claims["aud"]
        # Core §3.1.3.7: with several audiences, the token must be issued to this client.
        if (
            isinstance(audience, list)
            and len(audience) > 1
            and claims.get("azp") != self.settings.client_id
        ):
            raise SignInError(401, "The provider's ID token was refused: azp is not this client")
        if not isinstance(claims["sub"], str):
            raise SignInError(401, "The provider's ID token was refused: sub is not a string")
        return claims

    def metadata(self) -> dict[str, Any]:
        """The provider's discovery document (cached)."""
        with self._lock:
            if self._metadata and time.monotonic() - self._metadata[0] < METADATA_SECONDS:
                return self._metadata[1]
        url = self.settings.issuer.rstrip("/") + "/.well-known/openid-configuration"
        document = _fetch_json(urllib.request.Request(url), "discovery")
        if document.get("issuer") != self.settings.issuer:
            raise SignInError(
                502,
                f"The provider's discovery document names the issuer "
                f"{document.get('issuer')!r}, not the configured {self.settings.issuer!r}.",
            )
        for name in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
            if not isinstance(document.get(name), str):
                raise SignInError(502, f"The provider's discovery document has no {name}.")
        with self._lock:
            self._metadata = (time.monotonic(), document)
        return document

    def _endpoint(self, name: str) -> str:
        return self.metadata()[name]

    def _key_set(self, fresh: bool = False) -> Any:
        from joserfc.errors import JoseError
        from joserfc.jwk import KeySet

        with self._lock:
            if not fresh and self._keys and time.monotonic() - self._keys[0] < METADATA_SECONDS:
                return self._keys[1]
        document = _fetch_json(urllib.request.Request(self._endpoint("jwks_uri")), "keys")
        try:
            keys = KeySet.import_key_set(document)
        except (JoseError, ValueError, KeyError, TypeError) as exc:
            raise SignInError(502, f"The provider's keys (JWKS) cannot be read: {exc}") from None
        with self._lock:
            self._keys = (time.monotonic(), keys)
        return keys

    def _token_request(self, code: str, verifier: str) -> dict[str, Any]:
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": self.settings.redirect_uri,
            "code_verifier": verifier,
        }
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        methods = self.metadata().get(
            "token_endpoint_auth_methods_supported", ["client_secret_basic"]
        )
        if "client_secret_basic" in methods:
            # RFC 6749 §2.3.1: each part form-encoded before the Basic encoding.
            pair = ":".join(
                urllib.parse.quote_plus(v)
                for v in (self.settings.client_id, self.settings.client_secret)
            )
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        else:
            form |= {
                "client_id": self.settings.client_id,
                "client_secret": self.settings.client_secret,
            }
        request = urllib.request.Request(
            self._endpoint("token_endpoint"), urllib.parse.urlencode(form).encode(), headers
        )
        return _fetch_json(request, "token")

    def _userinfo(self, access_token: str, subject: str) -> dict[str, Any]:
        endpoint = self.metadata().get("userinfo_endpoint")
        if not isinstance(endpoint, str):
            return {}
        request = urllib.request.Request(
            endpoint, headers={"Authorization": f"Bearer {access_token}"}
        )
        info = _fetch_json(request, "userinfo")
        if info.get("sub") != subject:  # Core §5.3.2: else the answer may be substituted
            raise SignInError(502, "The provider's UserInfo answer is for another subject.")
        return info


def _fetch_json(request: urllib.request.Request, what: str) -> dict[str, Any]:
    """The JSON object at ``request``; ``SignInError`` saying which of the provider's endpoints
    failed and how (unreachable: 502; a refusal: 401 with the provider's ``error``)."""
    request.add_header("Accept", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT) as answer:
            body = answer.read(MAX_RESPONSE + 1)
    except urllib.error.HTTPError as exc:
        reason = _oauth_error(exc.read(MAX_RESPONSE)) or f"HTTP {exc.code}"
        status = 401 if what == "token" and 400 <= exc.code < 500 else 502
        raise SignInError(
            status, f"The sign-in provider's {what} endpoint refused: {reason}"
        ) from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise SignInError(
            502,
            f"The sign-in provider cannot be reached ({what}: {reason}). Try again later, "
            "or ask the server's administrator.",
        ) from None
    if len(body) > MAX_RESPONSE:
        raise SignInError(502, f"The sign-in provider's {what} answer is over 1 MiB.")
    try:
        document = json.loads(body)
    except ValueError:
        document = None
    if not isinstance(document, dict):
        raise SignInError(502, f"The sign-in provider's {what} answer is not a JSON object.")
    return document


def _oauth_error(body: bytes) -> str | None:
    try:
        document = json.loads(body)
    except ValueError:
        return None
    if not isinstance(document, dict) or not isinstance(document.get("error"), str):
        return None
    return ": ".join(str(document[k]) for k in ("error", "error_description") if document.get(k))
