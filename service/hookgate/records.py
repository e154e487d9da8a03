"""Small value classes without ``dataclasses``.

Importing ``dataclasses`` (it imports ``inspect``) and creating a dataclass (it ``exec``s the
generated methods) cost a warm ``hookgate eval`` more than evaluating the policies, so the
classes on the hook's hot path are plain classes with ``__slots__`` and an explicit
``__init__``, and take ``==`` and ``repr`` from these bases. Fields are the names in the class's
own ``__slots__``, in order.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# What frozen records use in __init__: their own __setattr__ refuses.
set_field = object.__setattr__


class Record:
    """``==`` (same class, equal compared fields) and ``repr`` over the fields."""

    __slots__ = ()
    _compare: tuple[str, ...] | None = None  # the fields == looks at; None: all of them
    _hidden: tuple[str, ...] = ()  # fields left out of repr (secrets, large documents)

    def _key(self) -> tuple:
        return tuple(getattr(self, name) for name in self._compare or self.__slots__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == other._key()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable: unhashable, as a dataclass

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={getattr(self, name)!r}" for name in self.__slots__ if name not in self._hidden
        )
        return f"{type(self).__name__}({shown})"


class Frozen(Record):
    """An immutable, hashable ``Record`` (``__init__`` assigns with ``set_field``)."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._key())

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: {type(self).__name__} is frozen")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: {type(self).__name__} is frozen")

    def __reduce__(self) -> tuple:
        return type(self), tuple(getattr(self, name) for name in self.__slots__)


def fields(record: Record) -> dict[str, Any]:
    """``{name: value}`` of every field of ``record``, in order."""
    return {name: getattr(record, name) for name in record.__slots__}
