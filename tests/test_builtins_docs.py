from hookgate.builtins import full_registry
from hookgate.builtins.docs import render

REGISTRY = full_registry()

# The page itself is regenerated and compared by tests/test_docs_reference.py.


def test_every_builtin_is_documented_under_its_family():
    page = render()
    for name, builtin in REGISTRY.items():
        assert f"### `{name}(" in page
        assert builtin.doc.splitlines()[0] in page
