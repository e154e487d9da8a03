"""What ``hookgate publish`` and ``hookgate impact`` share: their exit codes, the policy
directory read as the server takes it, and one request to the server's API with the token in
``$HOOKGATE_TOKEN``.
"""

from __future__ import annotations

import argparse
import os

from hookgate import jsonio

OK, REFUSED, USAGE, CONFLICT, DENIED, SERVER = 0, 1, 2, 3, 4, 5


class CommandError(Exception):
    """Stops a command with ``code`` and a message for stderr."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", required=True, help="the central server's base URL")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per request")


def read_directory(directory: str) -> tuple[dict[str, str], dict[str, object]]:
    """``(policies by id, data documents by path)`` of ``directory``
    (``sources.directory_documents``); ``CommandError`` naming the file for anything
    unreadable, invalid or ambiguous."""
    from hookgate.lang.errors import PolicyError
    from hookgate.sources import directory_documents

    if not os.path.isdir(directory):
        raise CommandError(USAGE, f"{directory}: not a directory")
    try:
        return directory_documents(directory)
    except PolicyError as exc:
        raise CommandError(USAGE, exc.render() if hasattr(exc, "render") else str(exc)) from None


def request(
    method: str, server: str, path: str, body: object, timeout: float
) -> tuple[int, object]:
    """``(status, JSON answer)`` for any HTTP status; ``CommandError`` when the token is
    missing or the server unreachable."""
    import urllib.error
    import urllib.request

    token = os.environ.get("HOOKGATE_TOKEN", "").strip()
    if not token:
        raise CommandError(DENIED, "set $HOOKGATE_TOKEN to an API token (editor role to publish)")
    data = jsonio.dumps(body, ensure_ascii=False).encode("utf-8")
    url = server.rstrip("/") + path
    sent = urllib.request.Request(url, data=data, method=method)
    sent.add_header("Content-Type", "application/json")
    sent.add_header("Accept", "application/json")
    sent.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(sent, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise CommandError(SERVER, f"{url}: server unreachable ({reason})") from None
    try:
        answer = jsonio.loads(raw.decode("utf-8")) if raw else None
    except ValueError:
        raise CommandError(SERVER, f"{url}: HTTP {status}, and the answer is not JSON") from None
    if status in (401, 403):
        raise CommandError(DENIED, f"{url}: HTTP {status}: {detail(answer)}")
    return status, answer


def detail(answer: object) -> str:
    detail = answer.get("detail") if isinstance(answer, dict) else answer
    if isinstance(detail, list):  # validation errors: name each field
        return "; ".join(f"{item.get('field')}: {item.get('msg')}" for item in detail)
    return str(detail)
