"""What ``hookgate publish`` and ``hookgate impact`` share: their exit codes, the policy
directory read as the server takes it, and one request to the server's API with the token in
``$HOOKGATE_TOKEN``.
"""

from __future__ import annotations

import argparse
import os

from hookgate import jsonio

OK, REFUSED, USAGE, CONFLICT, DENIED, SERVER = 0, 1, 2, 3, 4, 5
WEAKER = 7  # publish: the change removes a guard or turns recorded denies/asks into allows


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


def fetch_set(server: str, timeout: float) -> tuple[dict[str, str], dict[str, object]]:
    """The server's active set as ``read_directory`` gives a directory: policies by id, data
    documents by path. Read document by document, then the lists again: a change that landed
    meanwhile makes it read again (three times at most, then ``CommandError``)."""
    from urllib.parse import quote

    for _ in range(3):
        heads = {kind: _heads(server, base, timeout) for kind, base in KINDS}
        found: dict[str, dict] = {"policy": {}, "data": {}}
        whole = True
        for kind, base in KINDS:
            for key in heads[kind]:
                path = f"{base}/{quote(key, safe='/')}"
                status, answer = request("GET", server, path, None, timeout)
                if status != 200 or not isinstance(answer, dict):
                    whole = False  # deleted since the list was read: read it all again
                    continue
                found[kind][key] = answer.get("content")
        if whole and {kind: _heads(server, base, timeout) for kind, base in KINDS} == heads:
            return found["policy"], found["data"]
    raise CommandError(SERVER, f"{server}: the active set kept changing while it was read")


KINDS = (("policy", "/v1/policies"), ("data", "/v1/data"))


def fetch_base(server: str, timeout: float) -> dict:
    """The server's base layer (``GET /v1/base``): its ``version`` (None when ``replaced``)
    and the base's ``guards``."""
    status, answer = request("GET", server, "/v1/base", None, timeout)
    if status != 200 or not isinstance(answer, dict) or "replaced" not in answer:
        raise CommandError(SERVER, f"GET /v1/base: HTTP {status}: {detail(answer)}")
    return answer


def _heads(server: str, base: str, timeout: float) -> dict[str, int]:
    status, answer = request("GET", server, base, None, timeout)
    if status != 200 or not isinstance(answer, dict):
        raise CommandError(SERVER, f"GET {base}: HTTP {status}: {detail(answer)}")
    return {r["id"]: r["revision"] for r in answer["revisions"] if r.get("op") != "delete"}


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
    data = None if body is None else jsonio.dumps(body, ensure_ascii=False).encode("utf-8")
    url = server.rstrip("/") + path
    sent = urllib.request.Request(url, data=data, method=method)
    if data is not None:
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
