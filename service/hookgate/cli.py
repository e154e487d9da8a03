"""The ``hookgate`` command: a thin dispatcher over ``hookgate.commands.<name>``.

Only the module of the command being run is imported, so ``hookgate eval`` (the hook's hot path)
never pays for the server, the parser or anything else it does not use. Each command module
defines ``add_arguments(parser)`` and ``run(args) -> int``, and may define ``parse(argv)``: the
arguments read without argparse, or None to let argparse parse them.
"""

from __future__ import annotations

import sys

# name -> (module, one-line help); kept here so that `hookgate --help` imports nothing else.
COMMANDS: dict[str, tuple[str, str]] = {
    "eval": ("hookgate.commands.eval", "evaluate one hook payload from stdin (the hook itself)"),
    "check": ("hookgate.commands.check", "parse and check policies; file:line:col diagnostics"),
    "test": ("hookgate.commands.test", "run the test_* rules of policies"),
    "fmt": ("hookgate.commands.fmt", "format policies in the canonical layout"),
    "serve": ("hookgate.commands.serve", "run the central policy server"),
    "token": ("hookgate.commands.token", "manage the server's API tokens"),
    "login": ("hookgate.commands.login", "store the central server, token and bundle key"),
    "pull": ("hookgate.commands.pull", "fetch, verify and install the central policy bundle"),
    "publish": ("hookgate.commands.publish", "make the server's policies equal a directory"),
    "impact": ("hookgate.commands.impact", "what a draft would change on recorded decisions"),
    "init": ("hookgate.commands.init", "start a team's policy repository (a layer over the pack)"),
    "export": ("hookgate.commands.export", "write the server's active set to a directory"),
    "install": ("hookgate.commands.install", "wire hookgate into a coding agent's hooks"),
    "uninstall": ("hookgate.commands.install", "remove what `hookgate install` added"),
    "doctor": ("hookgate.commands.doctor", "report the state of this machine's hookgate setup"),
}


def _usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = ["usage: hookgate <command> [options]", "", "commands:"]
    lines += [f"  {name.ljust(width)}  {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "Run `hookgate <command> --help` for a command's options."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage())
        return 0 if argv else 2
    if argv[0] == "--version":
        from hookgate import __version__

        print(f"hookgate {__version__}")
        return 0
    name = argv[0]
    if name not in COMMANDS:
        print(f"hookgate: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    # __import__ rather than importlib.import_module: importing importlib costs a hook ~0.5 ms.
    __import__(COMMANDS[name][0])
    module = sys.modules[COMMANDS[name][0]]
    # A command may read its own well-formed command lines (the hook's hot path does, to skip
    # importing argparse); argparse handles everything else, help and errors included.
    fast = getattr(module, "parse", None)
    args = fast(argv[1:]) if fast is not None else None
    if args is None:
        import argparse

        parser = argparse.ArgumentParser(prog=f"hookgate {name}", description=COMMANDS[name][1])
        module.add_arguments(parser)
        args = parser.parse_args(argv[1:])
    args.command = name  # `install` and `uninstall` share one module
    return int(module.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
