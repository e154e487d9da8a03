"""Builtins looked up by name, importing only the family modules asked for.

``full_registry()`` imports every family and returns the full registry, for the checker, the
compiler, the docs and the server; a warm ``hookgate eval`` imports only the family modules its
compiled policies use (the compile cache records them, see ``hookgate.lang.cache``), so a
decision does not pay for families it never calls.
"""

from __future__ import annotations

from hookgate.builtins.registry import REGISTRY, Builtin

PACKAGE = "hookgate.builtins"

# Each family module registers its functions on import; add new families here.
FAMILIES: tuple[str, ...] = (
    "types",
    "strings",
    "templates",
    "regex",
    "arrays",
    "objects",
    "sets",
    "aggregates",
    "numbers",
    "encoding",
    "yaml",
    "crypto",
    "jwt",
    "schema",
    "versions",
    "net",
    "graph",
    "misc",
    "operators",
    "time",
    "uuid",
    "shell",
    "git",
    "xpia",
    "host",
    "hookgate",
    "powershell",
)


_full = False
# name -> family module, from the compile cache (``use_index``): lets ``get`` import one family.
_index: dict[str, str] | None = None


def full_registry() -> dict[str, Builtin]:
    """The full registry: every family imported."""
    global _full
    if not _full:
        for family in FAMILIES:
            __import__(f"{PACKAGE}.{family}")
        _full = True
    return REGISTRY


def index() -> dict[str, str]:
    """Every builtin's name → the module that registers it (imports every family)."""
    return {name: b.func.__module__ for name, b in full_registry().items()}


def use_index(names: dict[str, str]) -> None:
    """Answer ``get``/``known`` from ``names`` (an ``index()`` saved earlier, e.g. by the compile
    cache), importing a family only when one of its builtins is asked for."""
    global _index
    _index = names


def known(name: str) -> bool:
    """Whether ``name`` is a builtin, without importing its family when an index is in use."""
    if _index is not None and not _full:
        return name in _index
    return name in full_registry()


def get(name: str) -> Builtin | None:
    """The builtin ``name`` (None if there is none), importing only its family when an index is
    in use; an index that does not match the code falls back to the full registry."""
    found = REGISTRY.get(name)
    if found is not None or _full:
        return found
    module = _index.get(name) if _index is not None else None
    if module is not None and module.startswith(f"{PACKAGE}."):
        __import__(module)
        found = REGISTRY.get(name)
    return found if found is not None else full_registry().get(name)


_opa: dict[str, str] | None = None


def opa_builtins() -> dict[str, str]:
    """OPA's builtin names (``opa_builtins.txt``) → why hookgate refuses the builtin on purpose
    (``""`` where it simply does not have it yet). A call to one hookgate lacks is
    ``unsupported:``; a name not in this list is an unknown function."""
    global _opa
    if _opa is None:
        import os

        path = os.path.join(os.path.dirname(__file__), "opa_builtins.txt")
        with open(path, encoding="utf-8") as f:
            entries = [line.partition("#") for line in f if not line.startswith("#")]
        _opa = {name.strip(): reason.strip() for name, _, reason in entries if name.strip()}
    return _opa
