"""docs/reference/input.md shows what the code does: its example document is the normalizer's
output for its example payload, its field table names every top-level field, and its worked
policy compiles over the default pack and decides as the page says."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hookgate.engine import Engine
from hookgate.hostio.normalize import normalize

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs/reference/input.md").read_text()
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", PAGE, re.S)
DOCUMENT, PAYLOAD = (json.loads(text) for lang, text in BLOCKS if lang == "json")
POLICY = next(text for lang, text in BLOCKS if lang == "rego")


def test_example_document_is_what_normalize_makes_of_the_example_payload():
    assert normalize(PAYLOAD).document() == DOCUMENT


def test_field_table_names_every_top_level_field():
    table = set(re.findall(r"^\| `(\w+)` \|", PAGE.split("## Top-level fields")[1], re.M))
    assert set(DOCUMENT) <= table


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    layer = tmp_path_factory.mktemp("team")
    (layer / "terraform.rego").write_text(POLICY)
    return Engine.from_layers([layer])


@pytest.mark.parametrize(
    ("command", "denied"),
    [
        ("cd infra && terraform destroy -auto-approve", True),
        ("sudo terraform destroy", True),
        ("bash -c 'terraform destroy'", True),
        ("t=terraform; $t destroy", True),
        ("echo terraform destroy", False),
        ('git commit -m "terraform destroy"', False),
    ],
)
def test_worked_policy_decides_as_the_page_says(guarded, command, denied):
    payload = dict(PAYLOAD, tool_input={"command": command})
    decision = guarded.evaluate(payload)
    assert (decision.outcome == "deny") is denied, decision
    if denied:
        assert "terraform destroy removes real infrastructure" in " ".join(decision.reasons)
        assert f"`{command}`" in PAGE
