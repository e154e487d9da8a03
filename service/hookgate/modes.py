"""Guard modes: how a guard's answers take effect, set in the policy data (``data.hookgate.modes``).

``enforce`` (the default) answers as the guard decides. ``warn`` lets the call go ahead unchanged
and gives the agent the guard's reason as context; ``audit`` lets it go ahead and shows nothing.
Either way the decision records what the guard would have done (``Decision.would``).

``data.hookgate.modes`` maps a guard (its package without ``hookgate.``, as ``disabled`` names
it) or one pattern of a guard (``guard/pattern``) to a mode; a pattern's mode wins over its
guard's. The mode lives in the policy data the hook trusts (the signed bundle, a managed
install's root files, the ``--policies`` layers), never in the environment or a user's file.
Self-protection and the oversize answer are not guards for this purpose (``UNMODAL``), nor are
limit and failure-policy answers (the engine applies modes to policy rules only).
"""

from __future__ import annotations

MODES = ("enforce", "warn", "audit")
# Stricter first: a change to a later mode relaxes a guard.
STRENGTH = {mode: rank for rank, mode in enumerate(MODES)}
PATH = ("hookgate", "modes")
# Guards that protect hookgate itself or bound what it can judge: relaxing them would let the
# agent turn off the rest, so no mode applies to them.
UNMODAL = frozenset({"self_protect", "oversize"})


def table(data: object) -> dict[str, str]:
    """``data.hookgate.modes`` as ``{guard or guard/pattern: mode}``, entries that are not a
    known mode or name an unmodal guard left out (``problems`` reports them)."""
    found = _raw(data)
    if not isinstance(found, dict):
        return {}
    return {
        key: mode
        for key, mode in found.items()
        if isinstance(key, str) and mode in MODES and key.split("/", 1)[0] not in UNMODAL
    }


def mode_of(modes: dict[str, str], guard: str, pattern: str) -> str:
    """The mode of ``guard``'s ``pattern``: its own entry, else its guard's, else enforce."""
    return modes.get(f"{guard}/{pattern}") or modes.get(guard) or "enforce"


def problems(data: object, guards: set[str]) -> list[str]:
    """What is wrong with ``data.hookgate.modes`` for a set whose guards are ``guards``: not an
    object, a mode that is none of ``MODES``, a guard not in the set, an unmodal guard."""
    found = _raw(data)
    if found is None:
        return []
    if not isinstance(found, dict):
        return ["data.hookgate.modes must be an object of guard (or guard/pattern) → mode"]
    wrong = []
    for key, mode in found.items():
        guard = key.split("/", 1)[0]
        where = f"data.hookgate.modes.{key}"
        if mode not in MODES:
            wrong.append(f"{where} is {mode!r}: a mode is one of {', '.join(MODES)}")
        elif guard in UNMODAL:
            wrong.append(
                f"{where}: {guard} protects hookgate itself or bounds what it can judge; "
                "it has no mode (turn it off with data.hookgate.disabled, if you must)"
            )
        elif guard not in guards:
            wrong.append(f"{where} names no guard (the guards: {', '.join(sorted(guards))})")
    return wrong


def statement(data: object) -> str | None:
    """The line ``check`` and ``publish --dry-run`` show for guards not enforced, or None."""
    relaxed = {key: mode for key, mode in sorted(table(data).items()) if mode != "enforce"}
    if not relaxed:
        return None
    shown = ", ".join(f"{key} {mode}" for key, mode in relaxed.items())
    return f"guards not enforced (data.hookgate.modes): {shown}"


def relaxed(before: object, after: object, guards: set[str]) -> list[str]:
    """The entries of ``guards`` (the base's guards: relaxing a team's own guard is the team's
    call) whose mode ``after`` is looser than ``before``, as ``key: old → new``."""
    old, new = table(before), table(after)
    found = []
    for key in sorted(set(old) | set(new)):
        if key.split("/", 1)[0] not in guards:
            continue
        was, now = effective(old, key), effective(new, key)
        if STRENGTH[now] > STRENGTH[was]:
            found.append(f"{key}: {was} → {now}")
    return found


def effective(modes: dict[str, str], key: str) -> str:
    """The mode ``modes`` gives ``key`` (a guard, or ``guard/pattern``)."""
    guard, _, pattern = key.partition("/")
    return mode_of(modes, guard, pattern) if pattern else modes.get(guard, "enforce")


def _raw(data: object) -> object:
    for key in PATH:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data
