"""Console sessions are server-side objects (issue 33): the cookie is a random session id, not
the API token; sign-out, the lifetime, the idle timeout and the token's revocation end it, in
every process; each sign-in opens a new one. API tokens still work for machines."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from server_support import auth, client_for, database_params, store_fixture, tokens_fixture

from hookgate.server import tables as m
from hookgate.server.console import COOKIE, csrf_token
from hookgate.server.sessions import Sessions
from hookgate.server.store import hash_token

store = store_fixture(database_params())
tokens = tokens_fixture()


def sign_in(client, token: str) -> str:
    answer = client.post("/console/login", data={"token": token}, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return client.cookies[COOKIE]


def signed_in(client) -> bool:
    return client.get("/console/policies", follow_redirects=False).status_code == 200


def test_the_cookie_is_a_stored_session_id_and_never_the_token(store, tokens):
    with client_for(store) as client:
        session_id = sign_in(client, tokens["viewer"])
        assert session_id != tokens["viewer"] and len(session_id) >= 43
        with store.engine.connect() as conn:
            stored = conn.execute(sa.select(m.console_sessions.c.id_hash)).scalars().all()
        assert stored == [hash_token(session_id)]  # only its hash is stored
        assert signed_in(client)
    # The token as a cookie is no session: what a leaked old-style cookie held.
    with client_for(store) as other:
        other.cookies.set(COOKIE, tokens["viewer"], path="/console")
        assert not signed_in(other)


def test_sign_out_revokes_the_session_everywhere_its_cookie_is(store, tokens):
    with client_for(store) as client, client_for(store) as copy:
        session_id = sign_in(client, tokens["editor"])
        copy.cookies.set(COOKIE, session_id, path="/console")  # a stolen copy of the cookie
        assert signed_in(copy)
        out = client.post("/console/logout", data={"csrf": csrf_token(session_id)})
        assert out.status_code in (200, 303)
        assert not signed_in(copy)
        assert not signed_in(client)


def test_each_sign_in_opens_a_new_session_and_ends_the_previous_one(store, tokens):
    with client_for(store) as client, client_for(store) as planted:
        first = sign_in(client, tokens["viewer"])
        planted.cookies.set(COOKIE, first, path="/console")
        second = sign_in(client, tokens["viewer"])
        assert second != first
        assert signed_in(client) and not signed_in(planted)


def test_expiry_and_the_idle_timeout_end_a_session(store, tokens):
    sessions = Sessions(store.engine, lifetime=timedelta(hours=1), idle=timedelta(minutes=5))
    with client_for(store, sessions=sessions) as client:
        session_id = sign_in(client, tokens["viewer"])
        assert (
            f"Max-Age={3600}"
            in client.post(
                "/console/login", data={"token": tokens["viewer"]}, follow_redirects=False
            ).headers["set-cookie"]
        )
        session_id = client.cookies[COOKIE]
        row = m.console_sessions.c.id_hash == hash_token(session_id)
        now = datetime.now(UTC)

        def age(**values) -> None:
            with store.engine.begin() as conn:
                conn.execute(m.console_sessions.update().where(row).values(**values))

        age(last_seen_at=now - timedelta(minutes=4))
        assert signed_in(client)  # within the idle timeout, and the request counts as activity
        with store.engine.connect() as conn:
            seen = conn.execute(sa.select(m.console_sessions.c.last_seen_at).where(row)).scalar()
        assert seen.replace(tzinfo=UTC) > now - timedelta(minutes=1)
        age(last_seen_at=now - timedelta(minutes=6))
        assert not signed_in(client)  # idle too long
        age(last_seen_at=now, expires_at=now - timedelta(seconds=1))
        assert not signed_in(client)  # past its lifetime, however active


def test_revoking_the_token_ends_its_sessions_and_tokens_still_work_for_machines(store, tokens):
    with client_for(store) as client:
        sign_in(client, tokens["editor"])
        assert client.get("/v1/policies", headers=auth(tokens["editor"])).status_code == 200
        principal = store.authenticate(tokens["editor"])
        store.revoke_token(principal.token_id)
        assert not signed_in(client)


def test_the_server_takes_the_lifetime_and_idle_timeout_as_options(store):
    import argparse

    from hookgate.commands import serve
    from hookgate.server.sessions import DEFAULT_IDLE, DEFAULT_LIFETIME, console_sessions

    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    args = parser.parse_args(["--session-hours", "2", "--session-idle-minutes", "10"])
    given = console_sessions(store.engine, args.session_hours, args.session_idle_minutes)
    assert (given.lifetime, given.idle) == (timedelta(hours=2), timedelta(minutes=10))
    default = console_sessions(store.engine, None, None)
    assert (default.lifetime, default.idle) == (DEFAULT_LIFETIME, DEFAULT_IDLE)


def test_a_sign_in_sent_from_another_site_is_refused(store, tokens):
    """Login CSRF: another site's page posts its own token to the sign-in form."""
    with client_for(store) as client:
        base = "http://testserver"
        for headers in (
            {"Origin": "https://attacker.example"},
            {"Origin": "null"},  # a sandboxed frame or a data: page
            {"Origin": "http://testserver:8080"},  # another origin of the same host
            {"Sec-Fetch-Site": "cross-site"},
            {"Sec-Fetch-Site": "same-site", "Origin": base},  # a sibling subdomain's page
        ):
            forged = client.post(
                "/console/login", data={"token": tokens["viewer"]}, headers=headers,
                follow_redirects=False,
            )  # fmt: skip
            assert forged.status_code == 403, headers
            assert "set-cookie" not in forged.headers and COOKIE not in client.cookies
        for headers in ({"Origin": base, "Sec-Fetch-Site": "same-origin"}, {}):
            assert sign_in_with(client, tokens["viewer"], headers).status_code == 303, headers


def sign_in_with(client, token: str, headers: dict):
    return client.post(
        "/console/login", data={"token": token}, headers=headers, follow_redirects=False
    )


def test_every_answer_carries_the_security_headers(store, tokens):
    from hookgate.server.headers import CONSOLE_POLICY

    with client_for(store) as client:
        sign_in(client, tokens["admin"])
        answers = {
            "login": client.get("/console/login"),
            "page": client.get("/console/decisions"),
            "redirect": client.get("/console/", follow_redirects=False),
            "static": client.get("/console/static/console.css"),
            "decisions": client.get("/v1/decisions", headers=auth(tokens["viewer"])),
            "unauthorized": client.get("/v1/decisions"),
            "bundle": client.get("/v1/bundle", headers=auth(tokens["agent"])),
            "docs": client.get("/docs"),
        }
    for name, answer in answers.items():
        assert answer.headers["x-content-type-options"] == "nosniff", name
        assert answer.headers["x-frame-options"] == "DENY", name
        assert answer.headers["referrer-policy"] == "same-origin", name
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"], name
    for name in ("login", "page", "redirect", "static"):
        assert answers[name].headers["content-security-policy"] == CONSOLE_POLICY.decode()
    for name in ("login", "page", "redirect", "decisions", "unauthorized", "docs"):
        assert answers[name].headers["cache-control"] == "no-store", name
    # A route's own caching stands: the bundle revalidates by ETag, static files are cached.
    assert answers["bundle"].headers["cache-control"] == "no-cache"
    assert answers["static"].headers["cache-control"].startswith("public")


def test_the_public_url_makes_the_cookie_secure_and_its_origin_may_sign_in(store, tokens):
    public = "https://hookgate.example"
    with client_for(store, public_url=public) as client:  # TLS ends at a proxy: plain http here
        answer = sign_in_with(client, tokens["viewer"], {"Origin": public})
        assert answer.status_code == 303
        assert "secure" in answer.headers["set-cookie"].lower()
    with client_for(store) as client:
        answer = sign_in_with(client, tokens["viewer"], {})
        assert "secure" not in answer.headers["set-cookie"].lower()
