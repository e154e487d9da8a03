"""``hookgate serve``: run the central policy server.

The database is ``--db``, else ``$HOOKGATE_DB_URL``, else a SQLite file in the user's state
directory. Migrations run at start. On an empty database the default guard pack becomes
revision 1 and an admin token is created and printed, once, with the Swagger UI address.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable


def _count(least: int) -> Callable[[str], int]:
    """An argparse type for a whole number of at least ``least`` (argparse names the flag)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value} is less than {least}")
        return value

    return parse


def _public_url(text: str) -> str:
    """An argparse type for ``--public-url``: an http(s) origin, no path, query or fragment."""
    from urllib.parse import urlsplit

    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/"):
        raise argparse.ArgumentTypeError(f"{text!r} is not http(s)://host[:port]")
    if parts.query or parts.fragment or "@" in parts.netloc:
        raise argparse.ArgumentTypeError(f"{text!r} is not http(s)://host[:port]")
    return f"{parts.scheme}://{parts.netloc}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080, help="port (default 8080; 0: any free)")
    parser.add_argument(
        "--db",
        metavar="URL",
        help="sqlite:///path or postgresql+psycopg://user:pw@host/db "
        "(default: $HOOKGATE_DB_URL, else server.db in the state directory)",
    )
    parser.add_argument(
        "--max-body-bytes",
        type=_count(1),
        default=None,
        help="largest request body accepted; larger ones get 413 (default 1 MiB)",
    )
    parser.add_argument(
        "--mask-pattern",
        action="append",
        default=[],
        metavar="RE2",
        help="an extra masking rule for stored command text (repeatable; also "
        "$HOOKGATE_MASK_PATTERNS, one per line)",
    )
    parser.add_argument(
        "--recorded-data-role",
        choices=("viewer", "editor", "admin"),
        default="editor",
        help="the least role that sees recorded tool inputs and output (command output, files "
        "the agent read) and replays them in impact (as publish does before it writes); lower "
        "roles see decisions without them (default editor)",
    )
    parser.add_argument(
        "--decision-quota",
        type=_count(0),
        default=None,
        metavar="N",
        help="decision records one token may upload per hour; past it 429 (default 200000; "
        "0: no quota)",
    )
    parser.add_argument(
        "--retention-days",
        type=_count(0),
        default=None,
        metavar="DAYS",
        help="delete decision records older than this, hourly (default 90; 0: keep all)",
    )
    parser.add_argument(
        "--dry-runs-per-token",
        type=_count(1),
        default=None,
        metavar="N",
        help="evaluations of submitted content (dry-runs, checks, tests, change checks, "
        "impact) one token may have running or waiting at once on this instance; past it 429 "
        "(default 2)",
    )
    parser.add_argument(
        "--worker-queue",
        type=_count(0),
        default=None,
        metavar="N",
        help="evaluations that may wait for a worker on this instance; past it 429 with "
        "Retry-After (default 8)",
    )
    parser.add_argument(
        "--session-hours",
        type=_count(1),
        default=None,
        metavar="H",
        help="a console sign-in ends this long after it began, however active (default 8)",
    )
    parser.add_argument(
        "--session-idle-minutes",
        type=_count(1),
        default=None,
        metavar="MIN",
        help="a console sign-in ends after this long without a request (default 30)",
    )
    parser.add_argument(
        "--public-url",
        type=_public_url,
        default=None,
        metavar="URL",
        help="the address people open, e.g. https://hookgate.example.com behind a TLS proxy: "
        "the console's cookie is Secure when it is https, and sign-ins from it are accepted",
    )
    parser.add_argument(
        "--oidc-config",
        default=None,
        metavar="FILE",
        help="sign in to the console with OpenID Connect, as this TOML file sets up (issuer, "
        "client_id, client_secret_file, roles, ...: docs/guides/single-sign-on.md); needs "
        "--public-url",
    )
    parser.add_argument(
        "--forwarded-allow-ips",
        default=None,
        metavar="IPS",
        help="proxies (comma-separated addresses or networks, * for any) whose "
        "X-Forwarded-Proto/-For are believed (default $FORWARDED_ALLOW_IPS, else 127.0.0.1)",
    )
    parser.add_argument("--log-level", default="info", help="uvicorn's log level (default info)")
    parser.add_argument(
        "--no-access-log",
        action="store_true",
        help="no line per request (saves ~45 µs of each; /metrics still counts requests)",
    )


def open_store(url: str | None) -> object:
    """The migrated store for ``url`` (or the default database); shared with ``token``."""
    from hookgate.server.store import Store, default_db_url, make_engine, migrate

    engine = make_engine(url or default_db_url())
    migrate(engine)
    return Store(engine)


def run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    import sqlalchemy
    import uvicorn

    from hookgate.lang.errors import PolicyError
    from hookgate.masking import MaskError, masker_from_env
    from hookgate.server.app import (
        DEFAULT_DECISION_QUOTA,
        DEFAULT_DRY_RUNS_PER_TOKEN,
        DEFAULT_MAX_BODY_BYTES,
        DEFAULT_RETENTION_DAYS,
        DEFAULT_WORKER_QUEUE,
        create_app,
    )
    from hookgate.server.compilation import compile_set
    from hookgate.server.gate import take_over_access_log
    from hookgate.server.oidc import OidcConfigError, Provider, load_settings
    from hookgate.server.sessions import console_sessions
    from hookgate.server.store import BaseNewer, default_db_url, unread_settings

    url = args.db or default_db_url()
    shown_url = sqlalchemy.engine.make_url(url).render_as_string(hide_password=True)
    try:
        oidc = None
        if args.oidc_config is not None:
            oidc = Provider(load_settings(Path(args.oidc_config), args.public_url))
    except OidcConfigError as exc:
        print(f"hookgate serve: --oidc-config {exc}", file=sys.stderr)
        return 1
    try:
        # Bound before anything else, so a busy port fails first and --port 0 prints the real one.
        listener = _listen(args.host, args.port)
    except OSError as exc:
        print(
            f"hookgate serve: cannot listen on {args.host}:{args.port}: {exc.strerror}",
            file=sys.stderr,
        )
        return 1
    port = listener.getsockname()[1]
    try:
        masker = masker_from_env(args.mask_pattern)
        store = open_store(url)
        # An empty team layer over the built-in pack: the shape a publish stores.
        admin_token = store.seed({}, {}, validate=compile_set, base=True)
        upgraded = store.sync_base(validate=compile_set)
    except (MaskError, PolicyError, BaseNewer) as exc:
        print(f"hookgate serve: {exc}", file=sys.stderr)
        return 1
    except sqlalchemy.exc.SQLAlchemyError as exc:
        print(f"hookgate serve: database {shown_url}: {type(exc).__name__}", file=sys.stderr)
        return 1
    host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    address = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    print(f"hookgate server: database {shown_url}")
    print(f"Swagger UI: {address}/docs   (ReDoc: {address}/redoc)")
    if admin_token is not None:
        print("Seeded an empty team layer over the built-in pack as revision 1.")
        print(f"Admin token (shown only this once; store it now): {admin_token}")
    if oidc is not None:
        print(
            f"Console single sign-on: {oidc.settings.issuer}, back to {oidc.settings.redirect_uri}"
        )
    if upgraded is not None:
        print(f"Base layer {upgraded[0]} -> {upgraded[1]}: a new bundle revision")
    # At every start, so an upgrade that renamed a setting the team overrides says so.
    for line in unread_settings(store.active_set()):
        print(f"warning: {line}")
    sys.stdout.flush()
    quota = DEFAULT_DECISION_QUOTA if args.decision_quota is None else args.decision_quota
    app = create_app(
        store,
        masker=masker,
        max_body_bytes=DEFAULT_MAX_BODY_BYTES
        if args.max_body_bytes is None
        else args.max_body_bytes,
        decision_quota=quota,
        dry_runs_per_token=DEFAULT_DRY_RUNS_PER_TOKEN
        if args.dry_runs_per_token is None
        else args.dry_runs_per_token,
        worker_queue=DEFAULT_WORKER_QUEUE if args.worker_queue is None else args.worker_queue,
        access_log=not args.no_access_log,
        retention_days=DEFAULT_RETENTION_DAYS
        if args.retention_days is None
        else args.retention_days,
        sessions=console_sessions(store.engine, args.session_hours, args.session_idle_minutes),
        public_url=args.public_url,
        oidc=oidc,
        recorded_role=args.recorded_data_role,
    )
    # uvicorn reads X-Forwarded-Proto/-For only from these proxies: the scheme the console sees
    # (Secure cookies, the sign-in's origin check) is the client's, not the proxy's hop.
    config = uvicorn.Config(
        app,
        log_level=args.log_level,
        access_log=not args.no_access_log,
        proxy_headers=True,
        forwarded_allow_ips=args.forwarded_allow_ips,
    )
    # uvicorn has set up its access logger; the app writes the lines itself (with secrets in
    # URLs masked), so uvicorn's own, which prints the URL as sent, is turned off.
    take_over_access_log()
    server = uvicorn.Server(config)
    # The socket itself, not its fd: uvicorn takes an fd for a Unix socket, and asyncio sets
    # TCP_NODELAY only on TCP sockets, so every answer would wait ~40 ms for a delayed ACK.
    server.run(sockets=[listener])
    return 0 if server.started else 1


def _listen(host: str, port: int) -> object:
    import socket

    # The address's own protocol (IPPROTO_TCP): asyncio's TCP_NODELAY check needs it.
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    listener = socket.socket(family, kind, proto)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(address)
    return listener
