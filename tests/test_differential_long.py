"""The long differential run (bench/differential.py) in the suite's slow tier: the fixed 3,000
programs (seeds 0..2999 of tests/rego_gen.py, each with the builtin calls of
tests/differential_builtins.py) on hookgate, regorus and rego-cpp, compared query by query.

No query may have both oracles agree against hookgate, or hookgate give neither oracle's
answer, unless ``bench/differential.py``'s ``ALLOWED`` explains it with the OPA source or docs
that make hookgate's answer OPA's. A few minutes on two cores (docs/evidence/differential.md
has the measured time); it runs under CI (``CI=true``) or with ``HOOKGATE_SLOW_TESTS=1``, and is
skipped otherwise; ``-m "not slow"`` leaves it out.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

SLOW_TIER = os.environ.get("CI") == "true" or os.environ.get("HOOKGATE_SLOW_TESTS") == "1"

pytest.importorskip("regorus")
if importlib.util.find_spec("regopy") is None:  # never imported here: see regocpp_worker.py
    pytest.skip("regopy (rego-cpp) is not installed", allow_module_level=True)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import differential  # noqa: E402


@pytest.mark.slow
@pytest.mark.skipif(not SLOW_TIER, reason="slow tier: set HOOKGATE_SLOW_TESTS=1 (CI=true runs it)")
def test_three_thousand_programs_query_by_query() -> None:
    result = differential.run(differential.PROGRAMS, 0, jobs=os.cpu_count() or 1)
    unexplained = [f for f in result["findings"] if not f["allowed"]]
    print(dict(result["queries"]))
    assert not unexplained, "\n\n".join(
        f"seed {f['seed']} {f['rule']}: {f['verdict']}\n{f['source']}\n{f['answers']}"
        for f in unexplained[:5]
    )
    # The run compares, not only refuses: most queries get an answer both oracles share.
    queries = result["queries"]
    assert queries["agree"] >= 0.7 * sum(queries.values())


def test_the_allow_list_explains_only_what_it_names() -> None:
    """Each entry's test picks out its own kind of query and no other."""
    subset = 'b0 := object.subset({"a": 1}, [2])'
    both_false = {"hookgate": "undefined", "regorus": "false", "rego-cpp": "false"}
    assert differential.allowed_reason(subset, both_false).startswith("object.subset")
    same_kind = 'b0 := object.subset({"a": 1}, {"b": 2})'
    assert differential.allowed_reason(same_kind, both_false) is None
    chained = 'b0 := strings.replace_n({"a": "X", "b": "\u00e9", "\u00e9": "ab"}, "aba\u00e9")'
    oracles = {"hookgate": '"X\\u00e9Xab"', "regorus": '"XabXab"', "rego-cpp": '"XabXab"'}
    assert differential.allowed_reason(chained, oracles).startswith("strings.replace_n")
    wrong = dict(oracles, hookgate='"XXab"')
    assert differential.allowed_reason(chained, wrong) is None
    sprintf = 'r0 := sprintf("%s", [1])'
    assert differential.allowed_reason(sprintf, {"hookgate": '"1"', "regorus": "x"}) is None
