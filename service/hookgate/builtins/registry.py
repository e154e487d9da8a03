"""The one registry of builtin functions, grouped by family.

Each family module (``strings.py``, ``regex.py``, ``shell.py``, ``git.py``, ``xpia.py``, …)
registers its functions with ``@builtin``; ``docs/reference/builtins.md`` is generated from this registry
(``python -m hookgate.builtins.docs``), so each function's docstring is its documentation.

Values passed to and returned from builtins are the interpreter's values: ``None``, ``bool``,
``int``/``float``, ``str``, ``list`` (array), ``dict`` (object) and the interpreter's set type
(iterable, supports ``in`` and ``len``). A builtin signals a type or domain error by raising
``BuiltinError``; the evaluator applies Rego's semantics to it (the expression is undefined, or
an error under strict builtin errors).
"""

from __future__ import annotations

from contextvars import ContextVar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class BuiltinError(Exception):
    """A builtin was called with arguments it cannot handle (``operand 1 must be string``)."""


class Builtin:
    """One registered function (a plain class: ``dataclasses`` costs a warm eval too much)."""

    __slots__ = ("name", "family", "func", "arity", "doc", "reads_host", "environment")

    def __init__(
        self,
        name: str,  # as written in policies: "startswith", "shell.commands"
        family: str,  # "strings", "regex", "shell", "git", "xpia", …
        func: Callable[..., Any],
        arity: int,
        doc: str,
        # Reads facts from the local machine (files under a payload's cwd); the server must
        # supply such facts from the request instead of running the builtin against its disk.
        reads_host: bool = False,
        # Of those, reads only the process environment (variables, home directory), without
        # arguments, and answers the same object while it is unchanged: rules built on its
        # answer are computed once per environment, not per decision (``Group.memo_env``).
        environment: bool = False,
    ) -> None:
        self.name = name
        self.family = family
        self.func = func
        self.arity = arity
        self.doc = doc
        self.reads_host = reads_host
        self.environment = environment

    def __repr__(self) -> str:
        return f"Builtin({self.name!r}, family={self.family!r}, arity={self.arity})"


# The facts of the evaluation under way (its ``Ctx.shared``, set by ``PolicySet.query_many``), or
# None outside one. A builtin reading the host may keep there what one call found for another
# call of the same evaluation (``git.config_read``'s branch for ``git.branch``): never across
# evaluations, since the disk changes between calls. A mock replaces the builtin, so it is
# never answered from here.
EVALUATION: ContextVar[dict | None] = ContextVar("hookgate_evaluation", default=None)

# Filled as family modules are imported: ``lookup.full_registry()`` imports them all.
REGISTRY: dict[str, Builtin] = {}


def builtin(
    name: str, family: str, arity: int, *, reads_host: bool = False, environment: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``func`` as the builtin ``name`` taking ``arity`` arguments."""

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        if name in REGISTRY:
            raise ValueError(f"builtin {name} registered twice")
        doc = (func.__doc__ or "").strip()
        if not doc:
            raise ValueError(f"builtin {name} has no docstring")
        if environment and (arity != 0 or not reads_host):
            raise ValueError(f"builtin {name}: an environment builtin reads the host, no arguments")
        REGISTRY[name] = Builtin(name, family, func, arity, doc, reads_host, environment)
        return func

    return register
