"""Builtin functions available to policies: ``registry`` (the one registry; families register
with ``@builtin``), ``lookup`` (builtins by name, each family module imported when one of its
builtins is first asked for) and one module per family.

Importing this package imports no family. ``hookgate.builtins.REGISTRY`` is the full registry:
reading it imports every family (``full_registry()``).
"""

from __future__ import annotations

from hookgate.builtins.lookup import (
    FAMILIES,
    full_registry,
    get,
    index,
    known,
    opa_builtins,
    use_index,
)
from hookgate.builtins.registry import Builtin, BuiltinError, builtin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def __getattr__(name: str) -> Any:
    # ``from hookgate.builtins import REGISTRY`` keeps meaning the full registry.
    if name == "REGISTRY":
        return full_registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "REGISTRY",
    "Builtin",
    "BuiltinError",
    "builtin",
    "FAMILIES",
    "full_registry",
    "get",
    "known",
    "index",
    "use_index",
    "opa_builtins",
]
