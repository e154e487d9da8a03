"""Builtin functions available to policies: ``registry`` (the one registry; families register
with ``@builtin``), ``lookup`` (builtins by name, each family module imported when one of its
builtins is first asked for) and one module per family.

Importing this package imports no family; ``full_registry()`` imports every family and returns
the full registry (for the checker, the docs and the server).
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

__all__ = [
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
