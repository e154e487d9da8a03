"""Change sets: make the team layer equal to a given set of policies and data documents
(additions, changes and deletions), and say whether it composes over the built-in pack or
replaces it, as one new bundle revision, all or nothing.

The layer is what a team publishes: its own guards and the data keys it changes. A policy or a
data document identical to the base's (the same text under a base file's id, the same value at a
base data path) is no change and is not stored, so a copy of ``policies/`` publishes as the
layer it adds. ``replace_base`` is the explicit statement that the layer is the whole set
(``hookgate publish --replace-base``, or an exported ``REPLACE-BASE`` file).

``POST /v1/changesets`` (editor, ``routes/changesets.py``) backs ``hookgate publish``. The set is checked as a whole
before anything is written, as a change through the per-document API is (``packcheck``): it
must compile, every ``test_*`` rule in it must pass (a failing test is a diagnostic at its
rule's line), and no pack may fail on a smoke payload. ``expect_revision`` is optimistic
concurrency on the whole set: 412 when the bundle revision has moved since the caller read
it. A dry-run answers the same plan (per-document unified diffs) and the check without
writing. The per-document API stays; both write the same immutable revisions.
"""

from __future__ import annotations

import difflib
import json
from functools import partial
from typing import Any

import anyio.from_thread
import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from hookgate.lang.errors import Diagnostic, PolicyError
from hookgate.server import models as api
from hookgate.server import tables as m
from hookgate.server.store import (
    BASE_KIND,
    ActiveSet,
    PreconditionFailed,
    Store,
    _now,
    canonical_json,
    write_base,
)
from hookgate.server.workers import SET_LIMITS, WorkerPool

MAX_INT = api.MAX_INT


class ChangeSetIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    policies: dict[str, str] = Field(
        description="Every policy of the new team layer by id (test modules included); a "
        "stored policy not named here is deleted."
    )
    data: api.JSONObject = Field(
        default_factory=dict,
        description="Every data document of the new team layer by data path; a stored "
        "document not named here is deleted.",
    )
    replace_base: StrictBool | None = Field(
        None,
        description="True: the layer is the whole set, the built-in pack is not composed "
        "under it. False: the layer composes over the pack (restoring it if it was replaced). "
        "Null keeps the server's statement. `hookgate publish` always sends it.",
    )
    message: str = Field("", max_length=2000, description="Why; kept with every revision.")
    expect_revision: StrictInt | None = Field(
        None, ge=0, le=MAX_INT, description="Refuse with 412 unless the bundle revision is this."
    )
    dry_run: StrictBool = Field(False, description="Plan and check only; change nothing.")


class ChangeOut(BaseModel):
    kind: str = Field(description="policy, data, or base (the built-in pack kept or replaced)")
    id: str
    op: str = Field(description="add, change or delete")
    diff: str = Field(description="Unified diff of the stored content against the new one.")
    revision: int | None = Field(description="The document's new revision (null on a dry-run).")


class TestOut(BaseModel):
    passed: int
    failed: list[str] = Field(description="`file:line: data.pkg.test_x: FAIL|ERROR …` each.")


class ChangeSetOut(BaseModel):
    applied: bool = Field(description="True when a new bundle revision was written.")
    base_revision: int = Field(description="The bundle revision the plan was made against.")
    revision: int = Field(description="The bundle revision now (new when applied).")
    changes: list[ChangeOut]
    ok: bool = Field(
        description="The set compiles, its tests pass and no pack fails on a smoke payload."
    )
    diagnostics: list[api.DiagnosticOut]
    tests: TestOut
    warnings: list[str] = Field(
        default_factory=list,
        description="Settings the team layer sets that the base does not have and no policy "
        "reads (a key the pack renamed, a typo): they change nothing.",
    )


def documents_text(kind: str, value: object) -> str:
    """A document as stored and diffed: policy text, or canonical JSON (pretty in diffs)."""
    return value if kind == "policy" else canonical_json(value)


def team_layer(
    policies: dict[str, str], documents: dict[str, object], *, replace_base: bool
) -> tuple[dict[str, str], dict[str, object]]:
    """``policies`` and ``documents`` without what the base already holds (over the base: a
    copy of one of its files, a document equal to its data at that path)."""
    if replace_base:
        return policies, documents
    from hookgate import layers

    base_sources, base_data, _ = layers.server_base()
    kept = {key: text for key, text in policies.items() if base_sources.get(key) != text}
    missing = object()
    same = {
        path
        for path, value in documents.items()
        if value is not None and layers.value_at(base_data, path, missing) == value
    }
    return kept, {path: value for path, value in documents.items() if path not in same}


def plan(
    active: ActiveSet, policies: dict[str, str], documents: dict[str, object], replace_base: bool
) -> list[dict[str, Any]]:
    """The changes that turn ``active``'s team layer into exactly ``policies`` and
    ``documents`` (``team_layer`` of them) and its base into ``replace_base``'s: the base's
    change first, then kind then id order, each with a unified diff."""
    from hookgate import layers

    changes = []
    if (active.base is None) != replace_base:
        version = layers.base_version()
        line = f"base {layers.BASE_NAME} {active.base or version}"
        op, diff = ("delete", f"-{line}\n") if replace_base else ("add", f"+{line}\n")
        if replace_base:
            diff += "+(replaced: the team layer is the whole set)\n"
        changes.append({"kind": "base", "id": layers.BASE_NAME, "op": op, "diff": diff})
    for kind, old, new in (
        ("policy", active.layer, policies),
        ("data", active.documents, documents),
    ):
        for key in sorted(set(old) | set(new)):
            before = None if key not in old else documents_text(kind, old[key])
            after = None if key not in new else documents_text(kind, new[key])
            if before == after:
                continue
            op = "add" if before is None else "delete" if after is None else "change"
            changes.append({"kind": kind, "id": key, "op": op, "diff": _diff(kind, key, old, new)})
    return changes


def _diff(kind: str, key: str, old: dict, new: dict) -> str:
    def lines(docs: dict) -> list[str]:
        if key not in docs:
            return []
        if kind == "policy":
            return docs[key].splitlines(keepends=True)
        text = json.dumps(docs[key], indent=2, sort_keys=True, ensure_ascii=False)
        return (text + "\n").splitlines(keepends=True)

    name = key if kind == "policy" else f"data/{key}"
    diff = difflib.unified_diff(lines(old), lines(new), f"a/{name}", f"b/{name}")
    return "".join(line if line.endswith("\n") else line + "\n" for line in diff)


def check_set(
    workers: WorkerPool, owner: object, policies: dict[str, str], data: dict
) -> tuple[list[Diagnostic], dict]:
    """Compile the set and run its ``test_*`` rules in the worker pool (user-supplied code) on
    behalf of ``owner`` (a token; ``None`` inside a request admitted already), from a route's
    thread: ``(diagnostics, tests)``, where a failing test is also a diagnostic at its rule's
    line, so one list says why a set is refused."""
    found, tests = anyio.from_thread.run(
        partial(workers.run, _check_set, policies, data, limits=SET_LIMITS, owner=owner)
    )
    return [Diagnostic(**d) for d in found], tests


def _check_set(policies: dict[str, str], data: dict) -> tuple[list[dict], dict]:
    """``check_set``'s work, in a worker (plain data crosses the pipe): the pack check the
    per-document API and ``hookgate check`` run (``packcheck``: tests, smoke payloads, the
    limit action), its problems as diagnostics, a failing test at its rule's line."""
    from hookgate import packcheck

    try:
        problems, passed = packcheck.check(policies, data)
    except PolicyError as exc:
        return [_plain(d) for d in exc.diagnostics], {"passed": 0, "failed": []}
    failed, diagnostics = [], []
    for problem in problems:
        if "file" in problem:
            name = problem["input"].removeprefix("test ")
            error = f" ({problem['message']})" if problem["outcome"] == "ERROR" else ""
            detail = f"{name}: {problem['outcome']}{error}"
            failed.append(f"{problem['file']}:{problem['line']}: {detail}")
            diagnostics.append(
                _plain(Diagnostic(problem["file"], problem["line"], 1, f"test {detail}"))
            )
        else:
            message = f"pack {problem['pack']} fails: {problem['message']}"
            diagnostics.append(_plain(Diagnostic(problem["input"], 1, 1, message)))
    return diagnostics, {"passed": passed, "failed": failed}


def _plain(d: Diagnostic) -> dict:
    fields = ("file", "line", "col", "message", "hint", "source_line", "severity")
    return {f: getattr(d, f) for f in fields}


def apply(
    store: Store,
    policies: dict[str, str],
    documents: dict[str, object],
    *,
    replace_base: bool,
    expect_revision: int | None,
    author: str,
    message: str,
) -> tuple[int, int, list[dict[str, Any]]]:
    """Write the change set in one transaction: ``(base revision, new revision, changes)``.
    Nothing changes (and no revision is made) when the set equals the active one. The caller
    has checked the set: it is the whole new active set, so the check does not depend on what
    is stored now."""
    with store.engine.begin() as conn:
        now = _now()
        # Taking the write lock first (the state row), as Store.change does.
        conn.execute(m.state.update().values(updated_at=m.state.c.updated_at))
        base = conn.execute(sa.select(m.state.c.revision)).scalar() or 0
        if expect_revision is not None and base != expect_revision:
            raise PreconditionFailed(
                f"the bundle revision is {base}, not {expect_revision}: the server moved; "
                "read it again"
            )
        changes = plan(store._active(conn), policies, documents, replace_base)
        if not changes:
            return base, base, []
        revision = base + 1
        if base:
            conn.execute(m.state.update().values(revision=revision, updated_at=now))
        else:
            conn.execute(m.state.insert().values(id=1, revision=revision, updated_at=now))
        for change in changes:
            kind, key = change["kind"], change["id"]
            head = store._head(conn, kind, key)
            if kind == BASE_KIND:
                written = write_base(conn, store, not replace_base, author, revision, now, head)
                change["revision"] = written.number
                continue
            content = None
            if change["op"] != "delete":
                source = policies if kind == "policy" else documents
                content = documents_text(kind, source[key])
            op = "delete" if content is None else "put"
            written = store._write(
                conn, kind, key, head, content, op, author, message, revision, now
            )
            change["revision"] = written.number
    store._revision = None  # this process sees its own change at once
    return base, revision, changes
