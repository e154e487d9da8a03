"""Builtin functions available to policies, in one registry (see ``registry.py``).

Importing this package registers every family. Families keep expensive imports (``re2``,
``json``) inside the functions that need them so that loading the registry stays cheap.
"""

from hookgate.builtins.registry import REGISTRY, Builtin, BuiltinError, builtin

# Each family module registers its functions on import; add new families here.
FAMILIES: tuple[str, ...] = (
    "types",
    "strings",
    "regex",
    "arrays",
    "objects",
    "sets",
    "aggregates",
    "numbers",
    "encoding",
    "misc",
    "dates",
    "ids",
    "shell",
    "git",
    "xpia",
    "host",
)

for _family in FAMILIES:
    __import__(f"hookgate.builtins.{_family}")

__all__ = ["REGISTRY", "Builtin", "BuiltinError", "builtin", "FAMILIES"]
