"""POST /v1/evaluate's shortcut (answered before routing) against the route itself: the same
answers, and every request the shortcut cannot answer alone still gets the route's answer.
Also the evaluation latency histogram the hot path feeds."""

from __future__ import annotations

import json
import threading

import pytest
from server_support import GUARD_V2, NO_VERIFY, auth, client_for, fresh_store, seeded

from hookgate.server import app as server_app
from hookgate.server.metrics import LATENCY_BUCKETS, Metrics
from hookgate.server.store import REVISION_CACHE_SECONDS, seed_policies


def _payloads() -> list[dict]:
    """Each host's shape, deny / rewrite / allow commands, with and without the trace."""
    cwd = "/home/u/proj"
    requests = []
    for i, command in enumerate(["git commit -n -m x", "git push --force origin main", "ls"]):
        tool = {"command": command}
        pre = {"session_id": "s", "cwd": cwd, "hook_event_name": "PreToolUse"}
        shapes = [
            ({**pre, "tool_name": "Bash", "tool_input": tool}, "claude"),
            ({**pre, "turn_id": "t", "tool_name": "Bash", "tool_input": tool}, "codex"),
            (
                {"sessionId": "s", "cwd": cwd, "toolName": "bash", "toolArgs": json.dumps(tool)},
                None,
            ),
            (
                {"hook_event_name": "beforeShellExecution", "command": command, "cwd": cwd},
                "cursor",
            ),
        ]
        for j, (payload, host) in enumerate(shapes):
            request = {"payload": payload, "explain": (i + j) % 2 == 0}
            if host is not None:
                request["host"] = host
            requests.append(request)
    requests.append({"payload": json.dumps(NO_VERIFY), "facts": {"git.branch": {"/r": "main"}}})
    return requests


@pytest.fixture
def store(tmp_path):
    store = fresh_store("sqlite", tmp_path)
    yield store
    store.engine.dispose()


@pytest.fixture
def tokens(store):
    return seeded(store, *seed_policies())


@pytest.fixture
def answered(monkeypatch):
    """How many requests the shortcut answered itself."""
    counts = {"answered": 0}
    real = server_app._evaluate_shortcut

    def counting(app):
        shortcut = real(app)

        def wrapped(scope, body):
            answer = shortcut(scope, body)
            counts["answered"] += answer is not None
            return answer

        return wrapped

    monkeypatch.setattr(server_app, "_evaluate_shortcut", counting)
    return counts


def _without_time(response) -> tuple:
    body = response.json()
    if isinstance(body, dict):
        body.pop("took_ms", None)
    return response.status_code, response.headers["content-type"], body


def test_the_shortcut_answers_as_the_route_does(store, tokens, answered, monkeypatch):
    h = auth(tokens["viewer"])
    with client_for(store) as fast:
        fast_answers = [fast.post("/v1/evaluate", json=r, headers=h) for r in _payloads()]
    assert answered["answered"] == len(fast_answers) - 1  # the first checks the token
    monkeypatch.setattr(server_app, "_evaluate_shortcut", lambda app: lambda scope, body: None)
    with client_for(store) as routed:
        routed_answers = [routed.post("/v1/evaluate", json=r, headers=h) for r in _payloads()]
    assert [_without_time(r) for r in fast_answers] == [_without_time(r) for r in routed_answers]
    outcomes = {r.json()["decision"]["outcome"] for r in fast_answers}
    assert outcomes == {"deny", "rewrite", "allow"}
    assert any(r.json()["explain"] for r in fast_answers)


def test_what_the_shortcut_declines_gets_the_routes_answer(store, tokens, answered):
    viewer, agent = auth(tokens["viewer"]), auth(tokens["agent"])
    good = {"payload": NO_VERIFY}
    with client_for(store) as client:
        assert client.post("/v1/evaluate", json=good, headers=viewer).status_code == 200
        assert client.get("/v1/bundle", headers=agent).status_code == 200  # agent now cached
        before = answered["answered"]

        assert client.post("/v1/evaluate", json=good, headers=agent).status_code == 403
        assert client.post("/v1/evaluate", json=good).status_code == 401
        basic = {"Authorization": f"Basic {tokens['viewer']}"}
        assert client.post("/v1/evaluate", json=good, headers=basic).status_code == 401
        invalid = client.post("/v1/evaluate", json=good | {"bogus": 1}, headers=viewer)
        assert invalid.status_code == 422
        assert invalid.json()["detail"][0]["field"] == "body.bogus"
        as_text = viewer | {"Content-Type": "text/plain"}
        text = client.post("/v1/evaluate", content=json.dumps(good), headers=as_text)
        assert text.status_code == 422
        broken = client.post("/v1/evaluate", content=b'{"payload": ', headers=viewer)
        assert broken.status_code == 422
        draft = good | {"policies": {"no_verify.rego": None}}
        drafted = client.post("/v1/evaluate", json=draft, headers=viewer).json()
        assert drafted["draft"] is True and drafted["decision"]["outcome"] == "allow"
        assert answered["answered"] == before

        viewer_id = next(t["id"] for t in store.list_tokens() if t["name"] == "test-viewer")
        revoked = client.delete(f"/v1/tokens/{viewer_id}", headers=auth(tokens["admin"]))
        assert revoked.status_code == 204
        assert client.post("/v1/evaluate", json=good, headers=viewer).status_code == 401
        assert answered["answered"] == before

        metrics = client.get("/metrics").text
    counted = 'hookgate_http_requests_total{method="POST",route="/v1/evaluate",status="200"} 2'
    assert counted in metrics


def test_a_revision_just_past_its_freshness_is_read_again_once_in_the_background(
    tmp_path, monkeypatch
):
    store = fresh_store("sqlite", tmp_path)
    seeded(store)
    clock = [1000.0]
    monkeypatch.setattr("hookgate.server.store.time.monotonic", lambda: clock[0])
    active = server_app.ActiveEngine(store)
    first = active.get()
    assert first[0].revision == 1 and active.cached() is first

    reads, go, done = [], threading.Event(), threading.Event()
    real_read = store.current_revision

    def slow_read(cached_ok=False):
        reads.append(cached_ok)
        go.wait(10)
        try:
            return real_read(cached_ok)
        finally:
            done.set()

    monkeypatch.setattr(store, "current_revision", slow_read)
    clock[0] += REVISION_CACHE_SECONDS
    # Past its freshness: still answered, while a single read runs (not one per request).
    assert [active.cached() for _ in range(5)] == [first] * 5
    assert reads == [False]

    other_process = type(store)(store.engine)
    etag = other_process.get("policy", "git_hooks.rego").etag
    other_process.change(
        "policy", "git_hooks.rego", GUARD_V2, if_match=etag, author="t", message="m",
        validate=server_app.compile_set,
    )  # fmt: skip
    go.set()
    assert done.wait(10)
    assert active.cached() is None  # the read found revision 2: the route recompiles
    monkeypatch.setattr(store, "current_revision", real_read)
    assert active.get()[0].revision == 2

    # No read has succeeded for twice the freshness: the route decides, nothing is guessed.
    clock[0] += 2 * REVISION_CACHE_SECONDS
    monkeypatch.setattr(store, "current_revision", slow_read)
    assert active.cached() is None
    assert reads == [False]
    store.engine.dispose()


def test_latency_histogram_buckets_are_inclusive_and_cumulative():
    metrics = Metrics()
    for seconds in (LATENCY_BUCKETS[0], LATENCY_BUCKETS[0] * 1.01, LATENCY_BUCKETS[-1] * 2):
        metrics.evaluation(seconds)
    lines = metrics.render().splitlines()
    buckets = [int(line.rsplit(" ", 1)[1]) for line in lines if "_seconds_bucket" in line]
    assert buckets == [1] + [2] * (len(LATENCY_BUCKETS) - 1) + [3]
    assert "hookgate_evaluation_seconds_count 3" in lines
