"""Whether every guard pack of a policy set works, before the set is used: the packs' tests
(``*_test.rego``) pass, and no pack fails (a fault or a limit) on the smoke payloads: those kept
with the policies, ``data.hookgate.smoke`` (name → a hook payload in any host's shape), over the
default pack's own (its ``smoke.json``), so a team's pack is always tried on ordinary calls.

The prompt-injection guard's patterns are tried on their own examples and counterexamples, and a
pattern RE2 refuses is named (the scan would pass over it). So is every other setting the guards
read as a pattern that RE2 or the glob syntax refuses, and every setting of a fixed set of values
given another (``data.hookgate.setting_types``): the guard reading it would act on nothing,
silently. ``hookgate check`` reports these problems locally, ``hookgate install --policies``
names those of the settings; the server refuses (422) to activate a change that has any. Pack
isolation keeps a pack that fails at run time from taking the others down; this keeps such a
pack from being activated at all.
"""

from __future__ import annotations

from hookgate.engine import LIMIT_ACTIONS, Engine
from hookgate.lang import load

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from hookgate.lang import PolicySet

SMOKE_PATH = ("hookgate", "smoke")
# Per test and per smoke payload, in wall time. Not the hook's 2 s: on a busy server (workers
# run at nice 10) a pack that decides in milliseconds can take seconds, and a pack must not be
# refused for the server's load. The step budget, which does not depend on the machine, still
# stops a pack that does too much.
TIMEOUT = 20.0


class PackCheckError(Exception):
    """The set's packs have ``problems`` (each ``{pack, input, message}``)."""

    def __init__(self, problems: list[dict]) -> None:
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(
            f"pack {first['pack']} fails on {first['input']}: {first['message']}{more}"
        )
        self.problems = problems


def problems(sources: Mapping[str, str], data: Mapping) -> list[dict]:
    """Every problem of the packs in ``sources`` (test modules included) with ``data``: a
    failing test, a pack failing on a smoke payload, an invalid limit action. Raises
    ``PolicyError`` when the sources do not compile."""
    return check(sources, data)[0]


def check(sources: Mapping[str, str], data: Mapping) -> tuple[list[dict], int]:
    """``(problems, tests passed)``: ``problems``, and how many of the packs' tests passed. A
    failing test's problem also says where the test is (``file``, ``line``) and how it failed
    (``outcome``: ``FAIL``, or ``ERROR`` with the error in ``message``)."""
    policy_set = load(dict(sources), data=dict(data))
    engine = Engine(policy_set, origin="pack check", timeout=TIMEOUT)
    shipped = _shipped_set(sources) if not _is_default(data) else None
    tests, passed = _test_problems(policy_set, engine.pack_names, shipped)
    problems = (
        _config_problems(data)
        + _disabled_problems(sources, data)
        + _pattern_problems(data)
        + setting_problems(data)
    )
    return problems + tests + _smoke_problems(engine, data), passed


def _shipped_set(sources: Mapping[str, str]) -> tuple[set[str], PolicySet] | None:
    """The built-in pack's own tests among ``sources`` (``layers.shipped_tests``) and the set
    they run in: the built-in pack with its default configuration, so a team's setting
    (``force_push.on_force: deny``) never fails a shipped test. None when there are none."""
    from hookgate.layers import shipped_tests
    from hookgate.sources import default_pack_sources

    global _shipped_pack
    shipped = shipped_tests(dict(sources))
    if not shipped:
        return None
    if _shipped_pack is None:  # the installed pack does not change while a process runs
        pack, default = default_pack_sources(include_tests=True)
        _shipped_pack = default, load(pack, data=default, cache_dir=_cache_dir())
    return shipped, _shipped_pack[1]


_shipped_pack: tuple[dict, PolicySet] | None = None


def _cache_dir() -> str | None:
    """The compile cache for the built-in pack's set: a server worker compiles it once per
    machine, not once per change checked (``lang.load`` ignores a directory it cannot trust)."""
    from hookgate.paths import compiled_dir

    try:
        return str(compiled_dir())
    except OSError:
        return None


def _is_default(data: Mapping) -> bool:
    """Whether ``data`` is the built-in pack's own: its shipped tests then run in the set
    itself (the common case, with no second compilation)."""
    from hookgate.sources import default_pack_sources

    if _shipped_pack is not None:
        return data == _shipped_pack[0]
    return data == default_pack_sources()[1]


def smoke_payloads(data: Mapping) -> dict:
    """The smoke payloads for a set with ``data``: the default pack's, then the set's own."""
    import os

    from hookgate.sources import default_pack_path, load_paths

    _, default = load_paths([os.path.join(default_pack_path(), "smoke.json")])
    return {**_smoke(default), **_smoke(data)}


def _smoke(data: Mapping) -> dict:
    node = _at(data, SMOKE_PATH)
    return node if isinstance(node, dict) else {}


def _config_problems(data: Mapping) -> list[dict]:
    limits = _at(data, ("hookgate", "config", "limits"))
    action = limits.get("action", "ask") if isinstance(limits, dict) else "ask"
    if action in LIMIT_ACTIONS:
        return []
    message = f"data.hookgate.config.limits.action must be one of {', '.join(LIMIT_ACTIONS)}"
    return [_problem("data.hookgate.config.limits.action", message)]


XPIA_PATTERNS = ("hookgate", "config", "xpia", "patterns")


def _pattern_problems(data: Mapping) -> list[dict]:
    """The prompt-injection guard's patterns (``data.hookgate.config.xpia.patterns``), each
    as the guard reads it: one RE2 refuses finds nothing (the scan passes over it, so the rest
    still work), and one that misses an example it gives, or finds a counterexample it gives,
    does not do what it was written for. Each problem names the pattern by place and id."""
    from hookgate.builtins.xpia import refusal, scan

    node = _at(data, XPIA_PATTERNS)
    patterns = list(node.values()) if isinstance(node, dict) else node
    if not isinstance(patterns, list):
        return []
    found = []
    for i, pattern in enumerate(patterns):
        if not isinstance(pattern, dict) or not isinstance(pattern.get("pattern"), str):
            continue  # (the scan refuses the whole library: the pack's tests fail)
        where = f"data.{'.'.join(XPIA_PATTERNS)}[{i}] ({pattern.get('id')})"
        reason = refusal(pattern["pattern"])
        messages = [f"RE2 refuses the pattern ({reason}): it would find nothing"] if reason else []
        if reason is None:
            examples = [t for t in pattern.get("examples") or () if isinstance(t, str)]
            counter = [t for t in pattern.get("counterexamples") or () if isinstance(t, str)]
            messages += [f"misses its example {t!r}" for t in examples if not scan(t, [pattern])]
            messages += [f"finds its counterexample {t!r}" for t in counter if scan(t, [pattern])]
        found += [{"pack": "xpia", "input": where, "message": m} for m in messages]
    return found


SETTING_TYPES = ("hookgate", "setting_types")
PATTERN_TYPES = {"re2": "RE2", "glob": "the glob syntax"}


def setting_problems(data: Mapping) -> list[dict]:
    """The settings whose values the guards read in one way only (``data.hookgate.setting_types``:
    a data path → ``re2``, ``glob`` or the array of the values it may take; a team declares its
    own guards' settings there too), each a string or an array of strings: one that RE2 or the
    glob syntax refuses, or a value the guard does not know. Either compiles and the guard then
    matches nothing there, without a word: a typo in ``protected_branches`` would leave every
    branch unprotected, ``no_verify.action: "block"`` the guard off. Cheap (no evaluation):
    ``hookgate install`` runs it too."""
    from hookgate.builtins.regex import refusal

    node = _at(data, SETTING_TYPES)
    where = "data." + ".".join(SETTING_TYPES)
    if node is None:
        return []
    if not isinstance(node, dict):
        return [_problem(where, "must be an object: a data path → re2, glob or its values")]
    found = []
    for path, kind in node.items():
        values = kind if isinstance(kind, list) and all(isinstance(v, str) for v in kind) else None
        if not values and (not isinstance(kind, str) or kind not in PATTERN_TYPES):
            message = f"must be re2, glob or the array of the values it may take, not {kind!r}"
            found.append(_problem(f"{where}[{path!r}]", message))
            continue
        value = _at(data, tuple(path.split(".")))
        if value is None:
            found.append(_problem(f"{where}[{path!r}]", f"data.{path} is not set"))
            continue
        texts = [(f"data.{path}", value)] if isinstance(value, str) else None
        if isinstance(value, list):
            texts = [(f"data.{path}[{i}]", text) for i, text in enumerate(value)]
        what = "one of " + ", ".join(values) if values else f"a {kind} pattern"
        if texts is None or not all(isinstance(text, str) for _, text in texts):
            found.append(_problem(f"data.{path}", f"must be {what} or an array of them"))
            continue
        for place, text in texts:
            if values:
                if text not in values:
                    message = f"{text!r} is not {what}: the guard reading it would not act on it"
                    found.append(_problem(place, message))
                continue
            reason = refusal(kind, text)
            if reason is not None:
                message = (
                    f"{PATTERN_TYPES[kind]} refuses {text!r} ({reason}): the guards reading "
                    "it would match nothing"
                )
                found.append(_problem(place, message))
    return found


def _at(data: object, path: tuple[str, ...]) -> object:
    """The value at ``path`` in ``data``, or None."""
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _problem(where: str, message: str) -> dict:
    return {"pack": "hookgate", "input": where, "message": message}


def _disabled_problems(sources: Mapping[str, str], data: Mapping) -> list[dict]:
    """``data.hookgate.disabled`` names guards of the set (``hookgate.layers``): a misspelt
    name would leave the guard on while its author believes it off, or the reverse."""
    from hookgate.layers import guard_names

    names = _at(data, ("hookgate", "disabled"))
    if names is None:
        return []
    where = "data.hookgate.disabled"
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return [_problem(where, f"{where} must be guard names")]
    known = guard_names(dict(sources))
    unknown = [name for name in names if name not in known]
    if not unknown:
        return []
    message = (
        f"{where} names no guard: {', '.join(unknown)} (the guards: {', '.join(sorted(known))})"
    )
    return [_problem(where, message)]


def _test_problems(
    policy_set: PolicySet,
    pack_names: Mapping[tuple[str, ...], str],
    shipped: tuple[set[str], PolicySet] | None = None,
) -> tuple[list[dict], int]:
    from hookgate.lang.testing import discover, explain, one_line, run_test

    found, passed = [], 0
    for test in discover(policy_set.modules):
        runs_in = policy_set
        if shipped is not None and test.file in shipped[0]:
            runs_in = shipped[1]  # queried by name: the test's file name may differ there
        result = run_test(runs_in, test, timeout=TIMEOUT)
        if result.outcome == "PASS":
            passed += 1
            continue
        explain(runs_in, [result], timeout=TIMEOUT)  # only failures pay for it
        failed = "; ".join(one_line(f) for f in result.failures)
        package = tuple(test.name.split(".")[1:-1])
        tested = (*package[:-1], package[-1].removesuffix("_test"))
        found.append(
            {
                "pack": pack_names.get(tested, ".".join(package)),
                "input": f"test {test.name}",
                "message": f"error: {result.error}"
                if result.error
                else f"the test fails: {failed}"
                if failed
                else "the test fails",
                "file": test.file,
                "line": test.line,
                "outcome": result.outcome,
            }
        )
    return found, passed


def _smoke_problems(engine: Engine, data: Mapping) -> list[dict]:
    found = []
    for name, payload in sorted(smoke_payloads(data).items()):
        # Facts are given (none): the check never reads this machine's disk.
        decision = engine.evaluate(payload, facts={})
        for error in decision.errors:
            found.append(
                {
                    "pack": error["pack"] or "(every pack)",
                    "input": f"smoke payload {name}",
                    "message": f"{error['source']}: {error['message']} ({error['kind']})",
                }
            )
    return found
