"""A long differential run: random programs (tests/rego_gen.py) on hookgate, regorus and
rego-cpp; prints how many agree, how many the oracles disagree on (OPA's semantics decide, see
tests/test_differential_random.py), and any program where hookgate alone differs.

    .venv/bin/python bench/differential.py [--programs 2000] [--start 0]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import differential_engines  # noqa: E402
import rego_gen  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--programs", type=int, default=2000)
    ap.add_argument("--start", type=int, default=0)
    args = ap.parse_args()
    counts: Counter = Counter()
    for seed in range(args.start, args.start + args.programs):
        source, inp = rego_gen.program(seed)
        kind, answers = differential_engines.classify(source, inp)
        counts[kind] += 1
        if kind in ("ours", "third answer", "oracles differ"):
            print(f"seed {seed}: {kind}: {answers}")
    print(f"{args.programs} programs: " + ", ".join(f"{k} {v}" for k, v in counts.most_common()))


if __name__ == "__main__":
    main()
