"""The shell model's answers for every shell line of the corpora, pinned: a change made for speed
must not change any of them.

``tests/data/shell_golden.json`` holds a hash of what ``shell.commands``,
``shell.commands_with`` (the pack's substitutions, ``"files": "unread"``) and
``powershell.commands`` answer for each line ``bench/shell_dump.py`` collects (made with
``python bench/shell_dump.py --golden``). A change meant to change answers regenerates it and
says which lines changed and why (``bench/shell_dump.py --compare`` of a dump made before).
"""

from __future__ import annotations

import gc
import importlib.util
import json
from pathlib import Path

from hookgate.builtins.shell import _VALUES
from hookgate.shell.analysis import _ANALYSED

_spec = importlib.util.spec_from_file_location(
    "shell_dump", Path(__file__).parent.parent / "bench" / "shell_dump.py"
)
shell_dump = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(shell_dump)


def test_answers_are_the_golden_ones():
    pinned = json.loads(shell_dump.GOLDEN.read_text())
    now = shell_dump.golden()
    # the corpora and tests may gain and lose lines; most pinned ones are still there
    kept = [line for line in pinned if line in now]
    assert len(kept) >= 0.9 * len(pinned), (len(kept), len(pinned))
    changed = [line for line in kept if now[line] != pinned[line]]
    assert not changed, (
        f"{len(changed)} of {len(kept)} lines are analysed differently: "
        "bench/shell_dump.py --compare shows which"
    )


def test_an_analysis_leaves_no_reference_cycle():
    """What an analysis made is freed when its last user drops it, not by the garbage
    collector: a cycle (the run holding itself) kept every fresh line's objects alive until a
    collection, and cost a new line's analysis as much again."""
    substitutions = shell_dump._substitutions()
    lines = shell_dump.lines()
    gc.collect()
    gc.disable()
    try:
        for line in lines:
            shell_dump.analyses(line, substitutions, None)
        _VALUES.clear()
        _ANALYSED.clear()
        assert gc.collect() == 0
    finally:
        gc.enable()
