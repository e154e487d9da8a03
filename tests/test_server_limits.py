"""One viewer or editor cannot stall the agents (issue 33, part 1): every evaluation of submitted
content runs in the worker pool, which caps each token and bounds its queue (429 with
Retry-After); a change is checked before its write transaction, so an upload never waits on a
compile; impact records are streamed. Timings are orderings with generous margins: the machine
running the tests is noisy."""

from __future__ import annotations

import threading
import time
import uuid

import anyio
import pytest
from server_support import (
    auth,
    client_for,
    database_params,
    input_document,
    store_fixture,
    tokens_fixture,
)

from hookgate.server import impact as server_impact
from hookgate.server.console import COOKIE, csrf_token
from hookgate.server.workers import WorkerPool

store = store_fixture(database_params())
tokens = tokens_fixture()

POLICY = 'package hookgate.{name}\n\nimport rego.v1\n\ndeny contains "x" if input.never\n'


class SlowChecks(WorkerPool):
    """A worker pool whose checks pass, slowly for a set holding ``slow.rego``: a compile that
    takes its time, without a real one's CPU (admission is the real pool's)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(size=1)
        self.seconds = seconds
        self.checking = threading.Event()

    async def run(self, _func, *args, **_options):
        if any(isinstance(a, dict) and "slow.rego" in a for a in args):
            self.checking.set()
            await anyio.sleep(self.seconds)
        return []


def upload(client, token: str, n: int = 5):
    records = [
        {
            "decision_id": str(uuid.uuid4()),
            "time": "2026-12-01T10:00:00Z",
            "host": "claude",
            "session_id": "s1",
            "tool_name": "Bash",
            "command": f"echo {i}",
            "outcome": "allow",
            "input": input_document(f"echo {i}"),
        }
        for i in range(n)
    ]
    return client.post("/v1/decisions", json={"decisions": records}, headers=auth(token))


def in_thread(results: dict, name: str, call) -> threading.Thread:
    def run():
        answer = call()
        results[name] = (answer, time.monotonic())

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def agents_meanwhile(client, tokens: dict, threads: list[threading.Thread]) -> tuple:
    """``/healthz`` and an agent's bundle poll asked while ``threads`` run (after they had
    half a second to start), then the threads joined: ``(health, bundle, started, answered)``."""
    time.sleep(0.5)
    started = time.monotonic()
    health = client.get("/healthz")
    bundle = client.get("/v1/bundle", headers=auth(tokens["agent"]))
    answered = time.monotonic()
    for thread in threads:
        thread.join(300)
    return health, bundle, started, answered


def test_an_edit_being_checked_holds_no_write_lock(store, tokens):
    pool = SlowChecks(seconds=4)
    editor = auth(tokens["editor"])
    results: dict = {}
    with client_for(store, workers=pool) as client:
        put = in_thread(
            results,
            "put",
            lambda: client.put(
                "/v1/policies/slow.rego", content=POLICY.format(name="slow"), headers=editor
            ),
        )
        assert pool.checking.wait(30)
        uploaded = upload(client, tokens["agent"])
        uploaded_at = time.monotonic()
        bundle = client.get("/v1/bundle", headers=auth(tokens["agent"]))
        # Another edit lands while the first is still being checked ...
        other = client.put(
            "/v1/policies/fast.rego", content=POLICY.format(name="fast"), headers=editor
        )
        put.join(60)
    assert uploaded.status_code == 200 and bundle.status_code == 200
    assert other.status_code == 201
    answer, put_done = results["put"]
    assert uploaded_at < put_done  # the upload did not wait for the edit's check
    # ... so the first, checked against the set before it, is refused: nothing written.
    assert answer.status_code == 409 and "moved" in answer.json()["detail"]
    assert store.head("policy", "slow.rego") is None


def test_an_edit_commits_when_nothing_moved_while_it_was_checked(store, tokens):
    with client_for(store, workers=SlowChecks(seconds=0.5)) as client:
        put = client.put(
            "/v1/policies/slow.rego",
            content=POLICY.format(name="slow"),
            headers=auth(tokens["editor"]),
        )
    assert put.status_code == 201 and store.head("policy", "slow.rego").number == 1


def slow_replay(sources, data, records, baseline=None):
    """The replay, slowed: each run holds its worker for seconds (module level: a worker
    process imports it by name)."""
    time.sleep(5)
    return {
        "considered": sum(1 for _ in records),
        "replayed": 0,
        "skipped_without_input": 0,
        "truncated_inputs": 0,
        "rechecked": 0,
        "drifted": 0,
        "changed": 0,
        "transitions": {},
        "by_pack": {},
        "by_pattern": {},
        "examples": [],
    }


def test_an_editor_flooding_impact_gets_429_while_agents_are_served(store, tokens, monkeypatch):
    # Impact replays recorded data: the editor's by default (--recorded-data-role).
    monkeypatch.setattr(server_impact, "replay", slow_replay)
    pool = WorkerPool(size=1, per_owner=2, max_queue=1)
    editor = auth(tokens["editor"])
    other_editor = auth(store.create_token("editor", "another editor"))
    results: dict = {}
    with client_for(store, workers=pool) as client:
        assert upload(client, tokens["agent"]).status_code == 200
        flood = [
            in_thread(
                results,
                f"impact{i}",
                lambda h=h: client.post("/v1/impact", json={}, headers=h),
            )
            for i, h in enumerate([editor] * 4 + [other_editor] * 2)
        ]
        time.sleep(1)
        started = time.monotonic()
        uploaded = upload(client, tokens["agent"])
        bundle = client.get("/v1/bundle", headers=auth(tokens["agent"]))
        agents_took = time.monotonic() - started
        for thread in flood:
            thread.join(300)
    answers = [results[f"impact{i}"] for i in range(6)]
    refused = [a for a, _ in answers if a.status_code == 429]
    served = [(a, at) for a, at in answers if a.status_code == 200]
    assert uploaded.status_code == 200 and bundle.status_code == 200
    # One worker, one waiting: the rest are refused at once, never queued behind.
    assert len(served) <= 3 and len(refused) >= 3
    assert {a.json()["limit"] for a in refused} <= {"per_token", "queue"}
    assert all(int(a.headers["Retry-After"]) >= 1 for a in refused)
    # Each served replay took 5 s of a single worker; the agents were answered meanwhile.
    assert agents_took < 5 and all(at > started + agents_took for _, at in served)
    assert all(a.json()["considered"] in (5, 10) for a, _ in served)  # before or after the upload


def signed_in_console(store, token, **options):
    client = client_for(store, **options)
    answer = client.post("/console/login", data={"token": token}, follow_redirects=False)
    assert answer.status_code == 303
    return client, csrf_token(client.cookies[COOKIE])


@pytest.mark.parametrize("action", ["check", "tests", "dryrun", "impact"])
def test_every_console_evaluation_runs_in_the_pool_and_shows_its_refusal(store, tokens, action):
    # No evaluation at all for this token: each console action must ask the pool, which
    # refuses it; a compile in the server's own process would have answered. (An editor:
    # the console's impact replays recorded data, the editor's by default.)
    client, csrf = signed_in_console(store, tokens["editor"], dry_runs_per_token=0)
    form = {
        "csrf": csrf,
        "kind": "policy",
        "id": "draft.rego",
        "content": POLICY.format(name="draft"),
        "payload": '{"tool_name": "Bash", "tool_input": {"command": "ls"}}',
    }
    with client:
        answer = client.post(f"/console/{action}", data=form)
    assert answer.status_code == 429 and 'id="busy"' in answer.text
    assert "per-token limit" in answer.text and int(answer.headers["Retry-After"]) >= 1


def test_a_console_publish_refused_by_the_pool_keeps_the_text(store, tokens):
    client, csrf = signed_in_console(store, tokens["editor"], dry_runs_per_token=0)
    form = {
        "csrf": csrf,
        "kind": "policy",
        "id": "draft.rego",
        "content": POLICY.format(name="draft"),
    }
    with client:
        answer = client.post("/console/publish", data=form)
    assert answer.status_code == 429 and 'id="busy"' in answer.text
    assert "package hookgate.draft" in answer.text
    assert store.head("policy", "draft.rego") is None


HEAVY = "package hookgate.heavy\n\nimport rego.v1\n\n" + "\n".join(
    f'deny contains "r{i}" if {{\n\tinput.tool_input.command == "c{i}"\n\tcount([x | some x in '
    f"numbers.range(1, {i})]) > 0\n}}"
    for i in range(1500)
)


def test_three_checks_at_once_do_not_stall_healthz_or_a_bundle_poll(store, tokens):
    viewers = [auth(store.create_token("viewer", f"v{i}")) for i in range(3)]
    results: dict = {}
    with client_for(store) as client:
        # A first dry-run starts the pool's workers, so the checks below are what is measured.
        client.post("/v1/check", json={}, headers=viewers[0])
        checks = [
            in_thread(
                results,
                f"check{i}",
                lambda h=h: client.post(
                    "/v1/check", json={"policies": {"heavy.rego": HEAVY}}, headers=h
                ),
            )
            for i, h in enumerate(viewers)
        ]
        health, bundle, started, answered = agents_meanwhile(client, tokens, checks)
    assert health.status_code == 200 and bundle.status_code == 200
    finished = [at for _, at in results.values()]
    assert answered - started < 5 and answered < max(finished)


def rss_mib() -> int:
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1]) // 1024


def test_three_console_checks_of_a_huge_draft_leave_the_server_light_and_responsive(store, tokens):
    # Compiled in the server's own process, a draft this size takes hundreds of MiB and
    # seconds of CPU each, and the memory stays; in the workers it leaves the server as it was.
    sessions = []
    for i in range(3):
        console, csrf = signed_in_console(store, store.create_token("viewer", f"v{i}"))
        sessions.append(({"Cookie": f"{COOKIE}={console.cookies[COOKIE]}"}, csrf))
    form = {"kind": "policy", "id": "heavy.rego", "content": HEAVY}
    results: dict = {}
    with client_for(store) as client:
        client.post("/v1/check", json={}, headers=auth(tokens["viewer"]))  # workers started
        before = rss_mib()
        checks = [
            in_thread(
                results,
                f"check{i}",
                lambda h=h, t=t: client.post("/console/check", data={**form, "csrf": t}, headers=h),
            )
            for i, (h, t) in enumerate(sessions)
        ]
        health, bundle, started, answered = agents_meanwhile(client, tokens, checks)
        grew = rss_mib() - before
    assert health.status_code == 200 and bundle.status_code == 200
    assert answered - started < 5 and answered < max(at for _, at in results.values())
    answers = [answer for answer, _ in results.values()]
    # Checked, stopped at a limit or refused while the others ran: an answer in the panel.
    assert all(a.status_code in (200, 422, 429) for a in answers)
    assert all('id="compiles"' in a.text or 'id="busy"' in a.text for a in answers)
    assert grew < 150, f"the server grew by {grew} MiB"
