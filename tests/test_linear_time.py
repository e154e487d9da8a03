"""Shell analysis, rewriting and the default pack take steps linear in the command's length.

Not timed (the machine is shared): the steps are the Python and C function calls one decision
makes, counted with ``sys.setprofile``. For every adversarial construct of
``bench/linear_time.py`` a command four times as long may take at most 4 × 1.25 times the steps
beyond those of a trivial command. Past the analysis bounds a ``LimitError`` stops the decision
(the engine answers ask), in a bounded number of steps.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from hookgate.builtins.shell import MAX_COMMAND_CHARS
from hookgate.engine import Engine
from hookgate.hostio.normalize import normalize
from hookgate.sources import default_pack_path

_spec = importlib.util.spec_from_file_location(
    "linear_time", Path(__file__).parent.parent / "bench" / "linear_time.py"
)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


@pytest.fixture(scope="module")
def engine() -> Engine:
    engine = Engine.from_paths([default_pack_path()])
    engine.timeout = 600.0  # steps are counted, not time
    return engine


def steps(engine: Engine, command: str) -> tuple[int, str]:
    """Function calls made deciding ``command``, and the outcome (or the limit reached)."""
    hook_input = normalize(bench.payload(command))
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        decision = engine.decide(hook_input)
    finally:
        sys.setprofile(None)
    # A limit reached in a pack is that pack's answer (ask), recorded in the decision's errors.
    limits = [e["limit"] for e in decision.errors if e.get("kind") == "limit"]
    outcome = "limit " + limits[0] if limits else decision.outcome
    return count, outcome


@pytest.mark.parametrize("construct", sorted(bench.CONSTRUCTS))
def test_steps_grow_linearly(engine, construct):
    build = bench.CONSTRUCTS[construct]
    # warm (compiled patterns, builtin families) with another line: analyses are cached by text
    steps(engine, build(512))
    base, _ = steps(engine, "git status; rm -rf ~")
    small, _ = steps(engine, build(1024))
    large, outcome = steps(engine, build(4096))
    assert outcome != "allow"
    if outcome.startswith("limit") and small < base:
        # the analysis stops at a bound (read once per decision, not once per pack): the steps
        # are at most those of lexing the line, linear in its length (deep nesting stops within
        # the first KiB, a wrapper chain is one simple command lexed in full)
        assert large <= 4 * 1.25 * small, (construct, small, large)
    else:
        assert large - base <= 4 * 1.25 * (small - base), (construct, base, small, large)


@pytest.mark.parametrize("construct", ["pushes", "written-scripts", "heredoc-to-shell"])
def test_past_the_bounds_the_analysis_stops_early(engine, construct):
    # At 64 KiB each of these runs thousands of commands: the analysis stops at its bound,
    # and its steps are no more than those of a line a quarter as long.
    command = bench.CONSTRUCTS[construct](MAX_COMMAND_CHARS)
    quarter = bench.CONSTRUCTS[construct](MAX_COMMAND_CHARS // 4)
    full_steps, outcome = steps(engine, command)
    quarter_steps, _ = steps(engine, quarter)
    assert outcome == "limit analysis-size"
    assert full_steps <= 1.25 * quarter_steps
