"""The API under schemathesis, authenticated as admin: generated requests against every
operation of /openapi.json never get a 5xx, and every response matches its documented status,
content type and schema."""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from server_support import auth, fresh_store

from hookgate.server.app import create_app
from hookgate.server.compilation import compile_set

# Built at import: schemathesis generates one test per operation when the module is collected
# (its lazy fixture loader relies on pytest internals that pytest 9 removed).
_home = tempfile.TemporaryDirectory(prefix="hookgate-schemathesis-")
_store = fresh_store("sqlite", Path(_home.name))
ADMIN = _store.seed({}, {}, validate=compile_set, base=True)
schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(_store))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@schema.parametrize()
@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,  # the same cases every run: a failure here is reproducible
)
def test_api_conforms_to_its_schema(case):
    case.call_and_validate(headers=auth(ADMIN), checks=CHECKS)
