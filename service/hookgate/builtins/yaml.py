"""YAML: ``yaml.marshal``, ``yaml.unmarshal``, ``yaml.is_valid`` (PyYAML, imported on first
use: a policy that never calls ``yaml.*`` never loads it).

As OPA (which converts YAML to JSON first), values are JSON values: timestamps stay strings,
keys are strings, and a stream of several documents is valid when each is.
"""

from __future__ import annotations

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.builtins.types import want_str
from hookgate.lang.values import to_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_loader: Any = None


def _load_all(text: str) -> list:
    """Every document of ``text`` as JSON values (``yaml.YAMLError`` when it is not YAML)."""
    global _loader
    import yaml

    if _loader is None:

        class Loader(yaml.SafeLoader):
            """YAML 1.1 as Go's yaml.v2 reads it, timestamps left as strings."""

        Loader.yaml_implicit_resolvers = {
            first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
            for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
        }
        _loader = Loader
    return [_json(doc) for doc in yaml.load_all(text, Loader=_loader)]


def _json(v: Any) -> Any:
    if isinstance(v, dict):
        return {(k if type(k) is str else _key(k)): _json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_json(x) for x in v]
    if isinstance(v, bytes):
        raise BuiltinError("yaml.unmarshal: binary values have no JSON form")
    return v


def _key(k: Any) -> str:
    if k is None:
        return "null"
    if type(k) is bool:
        return "true" if k else "false"
    return str(k)


@builtin("yaml.unmarshal", "yaml", 1)
def unmarshal(s: Any) -> Any:
    """The value of the (first) YAML document in ``s``; an empty document is null."""
    import yaml

    try:
        docs = _load_all(want_str("yaml.unmarshal", 1, s))
    except yaml.YAMLError as exc:
        raise BuiltinError(f"yaml.unmarshal: {str(exc).splitlines()[0]}") from None
    return docs[0] if docs else None


@builtin("yaml.is_valid", "yaml", 1)
def is_valid(s: Any) -> bool:
    """True if ``s`` is a string holding valid YAML (every document of it)."""
    import yaml

    if type(s) is not str:
        return False
    try:
        _load_all(s)
    except (yaml.YAMLError, BuiltinError):
        return False
    return True


@builtin("yaml.marshal", "yaml", 1)
def marshal(x: Any) -> str:
    """``x`` as YAML text (block style, keys sorted, sets as sorted arrays)."""
    import yaml

    return yaml.safe_dump(to_json(x), default_flow_style=False, sort_keys=True, allow_unicode=True)
