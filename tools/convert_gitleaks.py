"""Convert gitleaks' default configuration (config/gitleaks.toml, MIT) into the masking rule
data hookgate ships: service/hookgate/data/gitleaks_rules.json (rules that RE2 compiles, with
the licence and what was dropped) and gitleaks_keywords.txt (the hook's pre-filter).

    .venv/bin/python tools/convert_gitleaks.py gitleaks.toml LICENSE COMMIT
"""

import json
import sys
import tomllib
from pathlib import Path

import re2

OUT = Path(__file__).resolve().parent.parent / "service" / "hookgate" / "data"


def main(toml_path: str, license_path: str, commit: str) -> None:
    config = tomllib.loads(Path(toml_path).read_text(encoding="utf-8"))
    rules, dropped = [], []
    for rule in config["rules"]:
        regex = rule.get("regex")
        if not regex:
            dropped.append({"id": rule["id"], "why": "matches file paths only, not text"})
            continue
        try:
            re2.compile(regex)
        except re2.error as exc:
            dropped.append({"id": rule["id"], "why": f"RE2 refuses it: {exc}"})
            continue
        rules.append(
            {
                "id": rule["id"],
                "regex": regex,
                "secret_group": rule.get("secretGroup", 0),
                "entropy": rule.get("entropy", 0),
                "keywords": sorted({k.lower() for k in rule.get("keywords", [])}),
            }
        )
    data = {
        "source": "https://github.com/gitleaks/gitleaks config/gitleaks.toml",
        "commit": commit,
        "license": Path(license_path).read_text(encoding="utf-8"),
        "dropped": dropped,
        "rules": rules,
    }
    (OUT / "gitleaks_rules.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    keywords = sorted({k for r in rules for k in r["keywords"]})
    (OUT / "gitleaks_keywords.txt").write_text("\n".join(keywords) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:])
