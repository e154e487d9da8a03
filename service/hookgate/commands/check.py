"""``hookgate check PATH...``: parse, check and compile policies; file:line:col diagnostics.

Runs the same stages as loading a policy set for evaluation (parse → static checks → compile),
so a policy that passes ``check`` loads in ``hookgate eval``. Once it compiles, the guard packs
are checked as the server checks a change before activating it (``hookgate.packcheck``): their
tests pass and no pack fails on the smoke payloads. Exit 1 on any error or failing pack;
warnings (unused imports and assignments) become errors with ``--strict``, like
``opa check --strict``.
"""

from __future__ import annotations

import argparse
import json
import sys

from hookgate.lang.errors import Diagnostic, PolicyError, with_source


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help=".rego and .json files or directories, laid in order over the built-in pack",
    )
    parser.add_argument(
        "--no-default-pack",
        action="store_true",
        help="check the paths alone: they replace the built-in pack instead of adding to it",
    )
    parser.add_argument(
        "--strict", action="store_true", help="report warnings (unused imports, …) as errors"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")


def diagnose(sources: dict[str, str], *, strict: bool = False) -> list[Diagnostic]:
    """Every problem of the policy set, with source lines: the parse errors of each file; once
    all parse, the static checks; once those pass, the compiler's errors."""
    from hookgate.lang.check import check_modules
    from hookgate.lang.parser import parse_module

    diags: list[Diagnostic] = []
    modules = []
    for name, text in sources.items():
        try:
            modules.append(parse_module(text, name))
        except PolicyError as exc:
            diags.extend(exc.diagnostics)
    # Checks across files only once every file parses: a module missing from the set would
    # only add follow-on errors (unknown functions it defines, …) to its own parse error.
    if not diags:
        diags.extend(check_modules(modules, strict=strict))
    if not any(d.severity == "error" for d in diags):
        diags.extend(_compile_errors(sources))
    return sorted(
        (with_source(d, sources[d.file]) if d.file in sources else d for d in diags),
        key=lambda d: (d.file, d.line, d.col),
    )


def _compile_errors(sources: dict[str, str]) -> list[Diagnostic]:
    from hookgate.lang import load

    try:
        load(sources, data={})
    except PolicyError as exc:
        return list(exc.diagnostics)
    return []


def render(diag: Diagnostic) -> str:
    if diag.severity == "error":
        return diag.render()
    shown = Diagnostic(
        diag.file, diag.line, diag.col, "warning: " + diag.message, diag.hint, diag.source_line
    )
    return shown.render()


def run(args: argparse.Namespace) -> int:
    from hookgate import layers, modes

    try:
        layered = layers.compose(args.paths, base=not args.no_default_pack, include_tests=True)
    except PolicyError as exc:
        print(f"hookgate check: {exc}", file=sys.stderr)
        return 2
    sources, data = layered.sources, layered.data
    named = layered.named  # the files counted: the built-in pack's only when named
    diags = diagnose(sources, strict=args.strict)
    errors = sum(d.severity == "error" for d in diags)
    warnings = len(diags) - errors
    # A setting nothing reads (renamed in the pack, misspelled) changes nothing: a warning,
    # an error with --strict, as CI runs it.
    unread = layers.unread_lines(layered)
    unread_as = "error" if args.strict else "warning"
    if args.strict:
        errors += len(unread)
    else:
        warnings += len(unread)
    packs = _pack_problems(sources, data) if not errors else []
    base = _base_line(layered)
    if args.format == "json":
        report = {
            "files": len(named),
            "base": layered.base_version
            and {"name": layers.BASE_NAME, "version": layered.base_version},
            "disabled": layered.disabled,
            "modes": modes.table(layered.data),
            "errors": errors,
            "warnings": warnings,
            "diagnostics": [d.to_dict() for d in diags],
            "unread": [
                {"file": file, "path": path, "severity": unread_as} for file, path in layered.unread
            ],
            "packs": packs,
        }
        print(json.dumps(report, indent=2))
    else:
        print(base)
        for statement in (layers.statement(layered), modes.statement(layered.data)):
            if statement:
                print(statement)
        for diag in diags:
            print(render(diag))
        for line in unread:
            print(f"{unread_as}: {line}")
        for problem in packs:
            print(f"pack {problem['pack']}: {problem['input']}: {problem['message']}")
        print(_summary(len(named), errors, warnings, len(packs)))
    return 1 if errors or packs else 0


def _base_line(layered: object) -> str:
    from hookgate import layers

    if layered.replaced_by is not None:
        return f"base: none ({layered.replaced_by}: the paths replace the built-in pack)"
    if layered.base_version is None:
        return "base: none (--no-default-pack: the paths replace the built-in pack)"
    return f"base: {layers.BASE_NAME} {layered.base_version} (the built-in pack)"


def _pack_problems(sources: dict[str, str], data: dict) -> list[dict]:
    from hookgate import packcheck

    try:
        return packcheck.problems(sources, data)
    except PolicyError as exc:  # the data breaks compilation (diagnose compiles without it)
        return [{"pack": "(every pack)", "input": "data", "message": str(exc)}]


def _summary(files: int, errors: int, warnings: int, packs: int = 0) -> str:
    checked = f"{files} file{'s' if files != 1 else ''} checked"
    if not errors and not warnings and not packs:
        return f"{checked}, no problems"
    parts = [
        f"{n} {word}{'s' if n != 1 else ''}"
        for n, word in ((errors, "error"), (warnings, "warning"), (packs, "failing pack check"))
        if n
    ]
    return f"{checked}, {', '.join(parts)}"
