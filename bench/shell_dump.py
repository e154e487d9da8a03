"""Dump the shell analysis of every shell line the repository's corpora hold, to compare a
change of the shell model against the analysis before it (an optimisation must not change any).

The lines: every ``command`` of tests/data/**/*.json (guard corpora, host payloads, effects),
the ``"command"`` strings of policies/*_test.rego, and every string constant of the shell tests.
Each is analysed as ``shell.commands`` reads it, as the default pack reads it
(``shell.commands_with`` with the pack's substitutions, a directory of fixed content and
``"files": "unread"``), and as ``powershell.commands`` reads it.

    python bench/shell_dump.py > before.json   # on the old tree
    python bench/shell_dump.py --compare before.json   # on the new one: the lines that differ

``--golden`` writes tests/data/shell_golden.json, which tests/test_shell_golden.py compares
against: a hash of each line's analyses, without a directory (patterns are not matched against
the disk, whose files differ between machines). Regenerate it when a change of the model's
answers is meant, and say which lines changed and why.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import sys
import tempfile
from pathlib import Path

from hookgate.builtins import powershell, shell

ROOT = Path(__file__).resolve().parent.parent
SHELL_TESTS = (
    "test_shell*.py",
    "test_powershell.py",
    "test_launchers.py",
    "test_launcher.py",
    "test_line_writes.py",
    "test_effects.py",
    "test_parser.py",
)


def _commands(value: object, found: list[str]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "command" and isinstance(v, str):
                found.append(v)
            else:
                _commands(v, found)
    elif isinstance(value, list):
        for v in value:
            _commands(v, found)


def lines() -> list[str]:
    """The corpora's shell lines, each once, in a fixed order."""
    found: list[str] = []
    for path in sorted((ROOT / "tests" / "data").rglob("*.json")):
        try:
            _commands(json.loads(path.read_text()), found)
        except (ValueError, UnicodeDecodeError):
            continue
    rego_string = re.compile(r'"command":\s*("(?:[^"\\]|\\.)*")')
    for path in sorted((ROOT / "policies").glob("*_test.rego")):
        found += [json.loads(m) for m in rego_string.findall(path.read_text())]
    for pattern in SHELL_TESTS:
        for path in sorted((ROOT / "tests").glob(pattern)):
            tree = ast.parse(path.read_text())
            found += [
                n.value
                for n in ast.walk(tree)
                if isinstance(n, ast.Constant) and isinstance(n.value, str)
            ]
    return sorted({line for line in found if 0 < len(line) <= 4096})


def _outcome(call) -> object:
    try:
        return call()
    except Exception as e:  # noqa: BLE001 - the error is part of the analysis's answer
        return {"error": type(e).__name__, "message": str(e)}


GOLDEN = ROOT / "tests" / "data" / "shell_golden.json"


def analyses(line: str, substitutions: list, cwd: str | None) -> dict:
    """The three readings of ``line`` (with ``cwd`` None, the pack's without a directory)."""
    context = {"substitutions": substitutions, "cwd": cwd, "files": "unread"}
    return {
        "commands": _outcome(lambda: shell.commands(line)),
        "pack": _outcome(lambda: shell.commands_with(line, context)),
        "powershell": _outcome(lambda: powershell.commands(line)),
    }


def _substitutions() -> list:
    data = json.loads((ROOT / "policies" / "data.json").read_text())
    return data["hookgate"]["config"]["shell"]["substitutions"]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def golden() -> dict[str, str]:
    """A hash of each line → a hash of its analyses' JSON (no directory: see above)."""
    substitutions = _substitutions()
    return {
        _digest(line): _digest(json.dumps(analyses(line, substitutions, None), sort_keys=True))
        for line in lines()
    }


def dump() -> dict[str, str]:
    """Each line → its analyses' JSON."""
    substitutions = _substitutions()
    out: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        # a directory of fixed content, so that patterns match the same files on any machine
        for name in ("a.txt", "b.py", ".git", "x.sh", "node_modules"):
            (Path(tmp) / name).touch()
        for line in lines():
            text = json.dumps(analyses(line, substitutions, tmp), sort_keys=True)
            out[line] = text.replace(tmp, "<cwd>")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", help="a dump made before: print the lines that differ")
    parser.add_argument("--golden", action="store_true", help=f"write {GOLDEN.name}")
    args = parser.parse_args()
    if args.golden:
        GOLDEN.write_text(json.dumps(golden(), indent=0, sort_keys=True) + "\n")
        return
    now = dump()
    if args.compare is None:
        json.dump(now, sys.stdout, indent=0, sort_keys=True)
        return
    before = json.loads(Path(args.compare).read_text())
    differ = [line for line in before if now.get(line) != before[line]]
    for line in differ:
        print(json.dumps(line))
        print("  before:", before[line][:2000])
        print("  now:   ", str(now.get(line))[:2000])
    print(f"{len(before)} lines, {len(differ)} differ", file=sys.stderr)
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
