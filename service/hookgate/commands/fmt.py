"""``hookgate fmt [--check|--diff|-w] PATH...``: print policies in the canonical layout.

Without options the formatted text goes to stdout. ``-w`` rewrites the files that change,
``--diff`` prints a unified diff, ``--check`` lists the files that are not formatted and exits 1
(for CI). A file is only ever rewritten with text that parses to the same AST.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import tempfile
from pathlib import Path

from hookgate.lang.errors import PolicyError
from hookgate.sources import load_paths


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help=".rego files or directories")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if any file is not formatted; change nothing"
    )
    parser.add_argument("--diff", action="store_true", help="print a diff of the changes")
    parser.add_argument("-w", "--write", action="store_true", help="rewrite files in place")


def formatted(source: str, filename: str) -> str:
    """``source`` in the canonical layout; PolicyError if it does not parse (or, as a guard
    against formatter bugs, if the result would not mean the same)."""
    from hookgate.lang.errors import Diagnostic
    from hookgate.lang.fmt import format_module, same_meaning
    from hookgate.lang.parser import parse_module

    module = parse_module(source, filename)
    out = format_module(module, source)
    if not same_meaning(module, parse_module(out, filename)):
        diag = Diagnostic(filename, 1, 1, "internal error: formatting would change the meaning")
        raise PolicyError([diag])
    return out


def _write(path: Path, text: str) -> None:
    """Replace ``path`` atomically, keeping its permissions."""
    mode = path.stat().st_mode
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def run(args: argparse.Namespace) -> int:
    try:
        sources, _ = load_paths(args.paths, include_tests=True)
    except PolicyError as exc:
        print(f"hookgate fmt: {exc}", file=sys.stderr)
        return 2
    failed = unformatted = False
    for name, source in sources.items():
        try:
            out = formatted(source, name)
        except PolicyError as exc:
            print(exc.render(), file=sys.stderr)
            failed = True
            continue
        changed = out != source
        if args.diff and changed:
            diff = difflib.unified_diff(
                source.splitlines(True), out.splitlines(True), f"a/{name}", f"b/{name}"
            )
            sys.stdout.writelines(diff)
        if args.check and changed:
            unformatted = True
            if not args.diff:
                print(f"{name}: not formatted")
        if args.write and changed and not args.check:
            _write(Path(name), out)
            print(f"formatted {name}", file=sys.stderr)
        if not (args.check or args.diff or args.write):
            sys.stdout.write(out)
    return 1 if failed or unformatted else 0
