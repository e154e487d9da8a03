"""Single sign-on (OpenID Connect) against a real provider, over HTTP: the console's sign-in
journey, and each way a sign-in must fail (state, nonce, PKCE verifier, audience, expiry,
signature, unmapped groups, an unreachable provider, bad settings). The browser journey is in
test_oidc_browser.py; the provider in oidc_support.py."""

from __future__ import annotations

import base64
import hashlib
import json
import time
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from oidc_support import CLIENT_ID, OTHER_CLIENT, free_port, log_in, real_provider
from server_support import client_for, fresh_store, seeded

from hookgate.cli import main
from hookgate.server.console import COOKIE
from hookgate.server.console.signon import FLOW_COOKIE
from hookgate.server.oidc import CALLBACK_PATH, Flow, OidcConfigError, SignInError, load_settings

PUBLIC = "http://testserver"


@pytest.fixture(scope="module")
def provider():
    with real_provider([PUBLIC]) as running:
        yield running


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    store = fresh_store("sqlite", tmp_path_factory.mktemp("oidc"))
    seeded(store)
    return store


def _client(store, relying_party, **kwargs):
    return client_for(store, public_url=PUBLIC, oidc=relying_party, **kwargs)


def _start(client) -> tuple[str, Flow]:
    answer = client.get("/console/oidc/start", follow_redirects=False)
    assert answer.status_code == 303, answer.text
    flow = Flow.from_cookie(client.cookies.get(FLOW_COOKIE))
    assert flow is not None
    return answer.headers["location"], flow


def _callback(client, back: str):
    parts = urlsplit(back)
    return client.get(f"{parts.path}?{parts.query}", follow_redirects=False)


def _sign_in(client, login: str):
    url, _ = _start(client)
    return _callback(client, log_in(url, login, PUBLIC + CALLBACK_PATH))


def test_a_mapped_person_gets_a_session_with_their_highest_role_and_sign_out_ends_it(
    provider, store
):
    with _client(store, provider.relying_party(PUBLIC)) as client:
        answer = _sign_in(client, "alice")  # staff (viewer) and hookgate-editors (editor)
        assert answer.status_code == 200, answer.text
        assert "/console/policies" in answer.text
        session_id = client.cookies.get(COOKIE)
        assert session_id and client.cookies.get(FLOW_COOKIE) is None  # the flow is used up
        page = client.get("/console/policies")
        assert page.status_code == 200
        assert "oidc:alice (editor)" in page.text
        principal = client.app.state.sessions.principal(session_id)
        assert (principal.name, principal.role, principal.token_id) == (
            "oidc:alice",
            "editor",
            None,
        )
        csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
        assert client.post("/console/logout", data={"csrf": csrf}, follow_redirects=False).status_code == 303  # fmt: skip
        assert client.app.state.sessions.principal(session_id) is None
        client.cookies.set(COOKIE, session_id, path="/console")
        again = client.get("/console/policies", follow_redirects=False)
        assert again.status_code == 303 and again.headers["location"] == "/console/login"


def test_signing_in_again_rotates_the_session(provider, store):
    with _client(store, provider.relying_party(PUBLIC)) as client:
        assert _sign_in(client, "bob").status_code == 200
        first = client.cookies.get(COOKIE)
        assert client.app.state.sessions.principal(first).role == "viewer"
        assert _sign_in(client, "bob").status_code == 200
        second = client.cookies.get(COOKIE)
        assert second != first
        assert client.app.state.sessions.principal(first) is None


def test_the_authorization_request_carries_pkce_s256_state_and_nonce(provider, store):
    with _client(store, provider.relying_party(PUBLIC)) as client:
        url, flow = _start(client)
    query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
    assert url.startswith(provider.issuer + "/")  # the discovered authorization endpoint
    assert query["code_challenge_method"] == "S256"
    digest = hashlib.sha256(flow.verifier.encode()).digest()
    assert query["code_challenge"] == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    assert (query["state"], query["nonce"]) == (flow.state, flow.nonce)
    assert query["redirect_uri"] == PUBLIC + CALLBACK_PATH and query["client_id"] == CLIENT_ID


def test_a_person_in_no_mapped_group_is_refused_with_a_clear_page(provider, store):
    with _client(store, provider.relying_party(PUBLIC)) as client:
        answer = _sign_in(client, "mallory")
        assert answer.status_code == 403
        assert "none of your groups" in answer.text and "mallory" in answer.text
        assert client.cookies.get(COOKIE) is None


def _tampered(client, provider, login: str, **changes: str):
    """A sign-in whose flow cookie is changed (``state``, ``nonce``, ``verifier``) after the
    browser was sent to the provider."""
    url, flow = _start(client)
    back = log_in(url, login, PUBLIC + CALLBACK_PATH)
    values = {"state": flow.state, "nonce": flow.nonce, "verifier": flow.verifier, **changes}
    client.cookies.set(FLOW_COOKIE, Flow(**values).cookie(), path="/console/oidc")
    return _callback(client, back)


def test_a_callback_for_another_flow_is_refused(provider, store):
    """Login CSRF: an attacker's own code and state, delivered to a victim's browser."""
    with _client(store, provider.relying_party(PUBLIC)) as client:
        answer = _tampered(client, provider, "alice", state=Flow.new().state)
        assert answer.status_code == 400 and "not started in this browser" in answer.text
        assert client.cookies.get(COOKIE) is None
    with _client(store, provider.relying_party(PUBLIC)) as attacker:
        url, _ = _start(attacker)
        back = log_in(url, "alice", PUBLIC + CALLBACK_PATH)
    with _client(store, provider.relying_party(PUBLIC)) as victim:
        answer = _callback(victim, back)
        assert answer.status_code == 400 and victim.cookies.get(COOKIE) is None


def test_a_wrong_nonce_is_refused(provider, store):
    with _client(store, provider.relying_party(PUBLIC)) as client:
        answer = _tampered(client, provider, "alice", nonce=Flow.new().nonce)
        assert answer.status_code == 401 and "nonce" in answer.text
        assert client.cookies.get(COOKIE) is None


def test_the_pkce_verifier_is_required(provider, store):
    with _client(store, provider.relying_party(PUBLIC)) as client:
        answer = _tampered(client, provider, "alice", verifier=Flow.new().verifier)
        assert answer.status_code == 401 and "invalid_grant" in answer.text
        assert client.cookies.get(COOKIE) is None


def _real_id_token(provider, client_id: str, secret: str) -> tuple[str, str]:
    """An ID token the provider issued to ``client_id``, and its nonce."""
    relying_party = provider.relying_party(PUBLIC, client_id=client_id, client_secret=secret)
    url, flow = relying_party.start()
    back = log_in(url, "alice", PUBLIC + CALLBACK_PATH)
    code = parse_qs(urlsplit(back).query)["code"][0]
    return relying_party._token_request(code, flow.verifier)["id_token"], flow.nonce


def test_a_real_id_token_for_another_application_is_refused(provider):
    token, nonce = _real_id_token(provider, OTHER_CLIENT, "another-secret")
    with pytest.raises(SignInError, match="aud"):
        provider.relying_party(PUBLIC).validate_id_token(token, nonce)
    # The same token passes for the application it was issued to: the check is the audience.
    other = provider.relying_party(PUBLIC, client_id=OTHER_CLIENT)
    assert other.validate_id_token(token, nonce)["sub"] == "alice"


def _claims(provider, **changes: object) -> dict:
    now = int(time.time())
    claims = {"iss": provider.issuer, "aud": CLIENT_ID, "sub": "alice", "nonce": "n-1",
              "iat": now, "exp": now + 300}  # fmt: skip
    claims.update(changes)
    return {k: v for k, v in claims.items() if v is not None}


def _signed(provider, claims: dict, key: object = None, alg: str = "RS256") -> str:
    from joserfc import jwt

    key = key or provider.key
    return jwt.encode({"alg": alg, "kid": "test-key"}, claims, key, algorithms=[alg])


@pytest.mark.parametrize(
    "changes, reason",
    [
        ({"exp": int(time.time()) - 120}, "expired"),
        ({"aud": "another-app"}, "aud"),
        ({"aud": [CLIENT_ID, "another-app"]}, "azp"),
        ({"iss": "https://idp.example.com"}, "iss"),
        ({"nonce": "n-2"}, "nonce"),
        ({"nonce": None}, "nonce"),
        ({"exp": None}, "exp"),
    ],
    ids=[
        "expired",
        "audience",
        "several-audiences-no-azp",
        "issuer",
        "nonce",
        "no-nonce",
        "no-exp",
    ],
)
def test_id_tokens_signed_with_the_providers_key_but_wrong_are_refused(provider, changes, reason):
    relying_party = provider.relying_party(PUBLIC)
    assert relying_party.validate_id_token(_signed(provider, _claims(provider)), "n-1")
    with pytest.raises(SignInError, match=reason):
        relying_party.validate_id_token(_signed(provider, _claims(provider, **changes)), "n-1")


def test_unsigned_and_wrongly_signed_id_tokens_are_refused(provider):
    from joserfc.jwk import OctKey, RSAKey

    relying_party = provider.relying_party(PUBLIC)
    claims = _claims(provider)
    header = base64.urlsafe_b64encode(b'{"alg":"none"}').rstrip(b"=").decode()
    body = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    stranger = RSAKey.generate_key(2048, parameters={"kid": "test-key"})
    secret = OctKey.import_key(b"a-client-secret-of-the-test-long-enough-for-hs256!")
    for token in (
        f"{header}.{body}.",  # unsigned
        _signed(provider, claims, stranger),  # another key under the provider's key id
        _signed(provider, claims, secret, "HS256"),  # a shared secret instead of its key
    ):
        with pytest.raises(SignInError, match="refused"):
            relying_party.validate_id_token(token, "n-1")


@pytest.mark.parametrize(
    "token", ["", "x", "a.b.c", "e30.e30.", "e30." * 4, "\u00e9.\u00e9.\u00e9"]
)
def test_malformed_id_tokens_are_refused_not_a_crash(provider, token):
    with pytest.raises(SignInError, match="refused"):
        provider.relying_party(PUBLIC).validate_id_token(token, "n-1")


def test_an_unreachable_provider_is_a_clear_page_not_a_500(provider, store):
    gone = provider.relying_party(PUBLIC, issuer=f"http://127.0.0.1:{free_port()}")
    with _client(store, gone) as client:
        answer = client.get("/console/oidc/start", follow_redirects=False)
        assert answer.status_code == 502 and "cannot be reached" in answer.text


def test_token_sign_in_can_be_turned_off_and_tokens_still_work_for_machines(provider, store):
    tokens = store.create_token("editor", "machine")
    relying_party = provider.relying_party(PUBLIC, token_sign_in=False)
    with _client(store, relying_party) as client:
        form = client.get("/console/login")
        assert "Sign in with Test IdP" in form.text and 'name="token"' not in form.text
        answer = client.post("/console/login", data={"token": tokens}, follow_redirects=False)
        assert answer.status_code == 403 and "turned off" in answer.text
        assert client.cookies.get(COOKIE) is None
        api = client.get("/v1/policies", headers={"Authorization": f"Bearer {tokens}"})
        assert api.status_code == 200
    with _client(store, provider.relying_party(PUBLIC)) as client:
        form = client.get("/console/login")
        assert "Sign in with Test IdP" in form.text and 'name="token"' in form.text


def test_a_change_made_after_single_sign_on_names_the_oidc_subject(provider, store):
    with _client(store, provider.relying_party(PUBLIC)) as client:
        assert _sign_in(client, "alice").status_code == 200
        page = client.get("/console/policies")
        csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
        form = {"csrf": csrf, "kind": "data", "id": "oidc_audit", "content": '{"on": true}',
                "message": "by single sign-on"}  # fmt: skip
        answer = client.post("/console/publish", data=form, follow_redirects=False)
        assert answer.status_code in (200, 303), answer.text[:500]
    (revision,) = store.revisions("data", "oidc_audit")
    assert revision.author == "oidc:alice" and revision.message == "by single sign-on"


def _settings_file(tmp_path, text: str):
    path = tmp_path / "oidc.toml"
    path.write_text(text)
    return path


GOOD = """issuer = "https://idp.example.com"
client_id = "hookgate"
client_secret_file = "{secret}"
[roles]
"hookgate-admins" = "admin"
"""


@pytest.mark.parametrize(
    "text, public_url, setting",
    [
        (GOOD.replace('issuer = "https://idp.example.com"\n', ""), PUBLIC, "issuer: required"),
        (GOOD.replace("https://idp", "http://idp"), PUBLIC, "issuer"),
        (GOOD.replace('"admin"', '"agent"'), PUBLIC, "roles.hookgate-admins"),
        (GOOD.replace("[roles]", 'client_secret = "x"\n[roles]'), PUBLIC, "client_secret"),
        (GOOD + "grups_claim = 1\n", PUBLIC, "roles.grups_claim"),
        (GOOD.replace("[roles]", 'grups_claim = "g"\n[roles]'), PUBLIC, "grups_claim: unknown"),
        (GOOD.replace('client_id = "hookgate"\n', 'client_id = ""\n'), PUBLIC, "client_id"),
        (GOOD, None, "--public-url"),
        (GOOD.replace("{secret}", "/nonexistent/secret"), PUBLIC, "client_secret_file"),
        ('issuer = "https://idp.example.com\n', PUBLIC, "line 1"),
        (GOOD.replace("[roles]", 'token_sign_in = "no"\n[roles]'), PUBLIC, "token_sign_in"),
        (GOOD.replace("[roles]", 'scopes = ["profile"]\n[roles]'), PUBLIC, "scopes"),
    ],
)
def test_bad_settings_are_an_error_naming_the_setting(tmp_path, text, public_url, setting):
    secret = tmp_path / "secret"
    secret.write_text("s3cret\n")
    path = _settings_file(tmp_path, text.replace("{secret}", str(secret)))
    with pytest.raises(OidcConfigError, match=setting.replace(".", r"\.")):
        load_settings(path, public_url, env={})


def test_the_client_secret_comes_from_a_file_or_the_environment(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("from-the-file\n")
    path = _settings_file(tmp_path, GOOD.replace("{secret}", str(secret)))
    settings = load_settings(path, PUBLIC, env={})
    assert settings.client_secret == "from-the-file"
    assert settings.redirect_uri == PUBLIC + CALLBACK_PATH
    assert dict(settings.roles) == {"hookgate-admins": "admin"}
    no_file = _settings_file(tmp_path, GOOD.replace('client_secret_file = "{secret}"\n', ""))
    env = {"HOOKGATE_OIDC_CLIENT_SECRET": "from-env"}
    assert load_settings(no_file, PUBLIC, env=env).client_secret == "from-env"
    with pytest.raises(OidcConfigError, match="client_secret_file: required"):
        load_settings(no_file, PUBLIC, env={})


def test_serve_stops_at_start_naming_the_bad_setting(tmp_path, capsys):
    path = _settings_file(tmp_path, GOOD.replace('"admin"', '"owner"'))
    code = main(["serve", "--db", f"sqlite:///{tmp_path / 's.db'}", "--port", "0",
                 "--public-url", "https://hookgate.example.com", "--oidc-config", str(path)])  # fmt: skip
    assert code == 1
    err = capsys.readouterr().err
    assert "--oidc-config" in err and "roles.hookgate-admins" in err and "'owner'" in err


def test_sessions_opened_before_the_upgrade_keep_working_and_downgrade_drops_only_sso_ones(
    tmp_path,
):
    """Migration 0027 makes a session's token optional; a token's session opened at 0026 is
    still signed in after it, and going back to 0026 removes only the single sign-on ones."""
    import sqlalchemy as sa
    from alembic import command
    from alembic.config import Config

    from hookgate.server import tables
    from hookgate.server.sessions import Sessions
    from hookgate.server.store import Principal, hash_token, make_engine

    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    config = Config()
    config.set_main_option("script_location", "hookgate.server:migrations")

    def to(revision: str, step=command.upgrade) -> None:
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            step(config, revision)

    to("0026")
    now = datetime.now(UTC)
    with engine.begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO tokens (name, role, token_hash, created_at) VALUES ('ed', 'editor', 'h', :now)"
        ), {"now": now})  # fmt: skip
        token_id = conn.execute(sa.text("SELECT id FROM tokens")).scalar_one()
        conn.execute(sa.text(
            "INSERT INTO console_sessions (id_hash, token_id, created_at, last_seen_at, expires_at)"
            " VALUES (:h, :t, :now, :now, :later)"
        ), {"h": hash_token("old-session"), "t": token_id, "now": now,
            "later": now + timedelta(hours=1)})  # fmt: skip
    to("head")
    sessions = Sessions(engine)
    assert sessions.principal("old-session") == Principal("ed", "editor", token_id)
    sso = sessions.open(Principal("oidc:alice", "admin"))
    assert sessions.principal(sso) == Principal("oidc:alice", "admin")
    to("0026", command.downgrade)
    with engine.connect() as conn:
        left = conn.execute(sa.select(tables.console_sessions.c.id_hash)).scalars().all()
    assert left == [hash_token("old-session")]
