"""Turn OPA topdown case files (YAML) into tests/data/opa/cases.json.

Input: JSON lines ``{"path": ..., "commit": ..., "text": <the YAML file>}``, one per case file
of open-policy-agent/opa (``v1/test/cases/testdata/v1/**``, Apache-2.0; see LICENSE and
NOTICE here), each with the commit it was read at; or ``"cases": [...]`` in place of ``text``,
the file's cases already parsed (transcribed case by case from the file read at that commit,
for the long files that repeat one template). Run from the repository root:

    python tests/data/opa/convert.py raw.jsonl [more.jsonl ...]

Files already in cases.json are replaced by the newer input; the others are kept. Needs PyYAML
(only this script does; the test reads the JSON).
"""

import json
import sys
from pathlib import Path

import yaml

OUT = Path(__file__).with_name("cases.json")


def main(paths: list[str]) -> None:
    files = {}
    if OUT.exists():
        files = {f["path"]: f for f in json.loads(OUT.read_text("utf-8"))["files"]}
    for p in paths:
        for line in Path(p).read_text("utf-8").splitlines():
            if not line.strip():
                continue
            raw = json.loads(line)
            cases = raw["cases"] if "cases" in raw else yaml.safe_load(raw["text"])["cases"]
            files[raw["path"]] = {"path": raw["path"], "commit": raw["commit"], "cases": cases}
    out = {
        "source": "https://github.com/open-policy-agent/opa (Apache-2.0): "
        "v1/test/cases/testdata/v1, one entry per case file at the commit shown",
        "files": [files[k] for k in sorted(files)],
    }
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", "utf-8")
    print(f"{len(files)} files, {sum(len(f['cases']) for f in files.values())} cases")


if __name__ == "__main__":
    main(sys.argv[1:])
