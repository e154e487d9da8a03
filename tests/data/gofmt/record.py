"""Writes recorded.jsonl: generated sprintf cases (tests/gofmt_cases.py, seeds 0..N-1) with
Go's answers, for tests/test_sprintf_go.py to check on machines without Go.

    python tests/data/gofmt/record.py [N]     # needs the go command; N defaults to 400
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

import gofmt_cases  # noqa: E402


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    cases = [gofmt_cases.case(random.Random(seed)) for seed in range(n)]
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "oracle"
        env_cache = {"GOCACHE": str(Path(tmp) / "cache"), "GOPATH": str(Path(tmp) / "gopath")}
        subprocess.run(
            ["go", "build", "-o", str(exe), str(HERE / "oracle.go")],
            check=True,
            env={**os.environ, **env_cache},
        )
        text = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases)
        out = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True)
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    with open(HERE / "recorded.jsonl", "w", encoding="utf-8") as f:
        for c, want in zip(cases, answers, strict=True):
            f.write(json.dumps({**c, "want": want}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
