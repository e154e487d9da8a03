from pathlib import Path

from hookgate.builtins import full_registry
from hookgate.builtins.docs import render

REGISTRY = full_registry()

DOCS = Path(__file__).resolve().parent.parent / "docs" / "builtins.md"


def test_docs_page_is_generated_from_the_registry():
    assert DOCS.read_text() == render(), "run: python -m hookgate.builtins.docs > docs/builtins.md"


def test_every_builtin_is_documented_under_its_family():
    page = render()
    for name, builtin in REGISTRY.items():
        assert f"### `{name}(" in page
        assert builtin.doc.splitlines()[0] in page
