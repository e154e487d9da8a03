"""``hookgate init DIR``: start a team's policy repository, a layer over the built-in pack.

Writes one example guard (its own package, ``hookgate.team.example``) with its tests, a data
overrides file holding only the keys that differ from the defaults, a GitHub Actions workflow
(check, test, impact, publish on main) and a short README. A directory holding anything is
refused unless ``--force``, and even then no existing file is overwritten without it: the
starter files are named, so the refusal says which.

``hookgate init --set OUT DIR`` writes the whole set DIR's layer makes over the built-in pack
(every policy with the pack's tests, the deep-merged data) in the shape ``hookgate publish``
and ``hookgate impact`` read: the server's active set is a whole set, so the workflow
publishes this, never the team's files alone (which would delete the pack). Exit codes: 0
written, 1 the layer does not compose (the file named), 2 usage (the directory).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

OK, INVALID, USAGE = 0, 1, 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", metavar="DIR", help="the policy repository to start")
    parser.add_argument(
        "--force",
        action="store_true",
        help="write into a non-empty DIR, replacing files of the same names",
    )
    parser.add_argument(
        "--set",
        metavar="OUT",
        dest="set_out",
        help="instead: write the whole set DIR's layer makes over the built-in pack to OUT "
        "(what publish and impact take)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        if args.set_out:
            return _write_set(args.directory, args.set_out, force=args.force)
        return _init(args.directory, force=args.force)
    except _Refused as exc:
        print(f"hookgate init: {exc}", file=sys.stderr)
        return exc.code


class _Refused(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def _init(directory: str, *, force: bool) -> int:
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise _Refused(USAGE, f"{directory}: not a directory")
    held = sorted(os.listdir(directory)) if os.path.isdir(directory) else []
    if held and not force:
        raise _Refused(
            USAGE,
            f"{directory} is not empty ({held[0]}, …): start in an empty directory, or --force "
            "to add the starter files (replacing files of the same names)",
        )
    files = starter_files()
    for relative, text in files.items():
        path = os.path.join(directory, *relative.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
    print(f"started a policy repository in {directory}:")
    for relative in files:
        print(f"  {relative}")
    print(f"next: hookgate test {directory}   (the built-in pack's guards stay on underneath)")
    return OK


def _write_set(layer: str, out: str, *, force: bool) -> int:
    """The set ``layer`` makes over the built-in pack, written to ``out`` in publish's shape."""
    from hookgate import layers
    from hookgate.commands.client import CommandError
    from hookgate.commands.export import _set_files, layout
    from hookgate.lang.errors import PolicyError

    if not os.path.isdir(layer):
        raise _Refused(USAGE, f"{layer}: not a directory")
    try:
        composed = layers.compose([layer], include_tests=True)
    except PolicyError as exc:
        raise _Refused(INVALID, exc.render() if hasattr(exc, "render") else str(exc)) from None
    policies: dict[str, str] = {}
    where: dict[str, str] = {}
    # The pack's tests too: the server stores the pack with them (the seed's shape), so a set
    # without them would delete them on publish.
    for file, text in [*composed.base_sources.items(), *composed.sources.items()]:
        name = os.path.basename(file)
        if name in where and policies[name] != text:
            raise _Refused(
                INVALID,
                f"{file}: the server names a policy by its file name, and {name} is also "
                f"{where[name]}; rename the team's file",
            )
        policies[name], where[name] = text, file
    try:
        files = layout(policies, composed.data)
    except CommandError as exc:
        raise _Refused(USAGE, str(exc)) from None
    inside = os.path.commonpath([os.path.abspath(layer), os.path.abspath(out)])
    if inside == os.path.abspath(layer):
        # The next `hookgate test DIR` would read the set as part of the layer.
        raise _Refused(USAGE, f"{out} is inside {layer}: write the set outside the layer")
    if os.path.exists(out) and not os.path.isdir(out):
        raise _Refused(USAGE, f"{out}: not a directory")
    if os.path.isdir(out) and os.listdir(out) and not force:
        raise _Refused(USAGE, f"{out} exists and is not empty: give a new directory, or --force")
    try:
        stale = _set_files(out)
    except CommandError as exc:
        raise _Refused(USAGE, str(exc)) from None
    for path in stale:  # --force: nothing of an earlier set is published with this one
        os.remove(path)
    for relative, text in files.items():
        path = os.path.join(out, *relative.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    print(f"wrote {len(policies)} policies and {len(composed.data)} data documents to {out}")
    return OK


def starter_files() -> dict[str, str]:
    """Relative path → text of every file ``init`` writes."""
    return {
        "team_example.rego": EXAMPLE_GUARD,
        "team_example_test.rego": EXAMPLE_TEST,
        "data.json": json.dumps(OVERRIDES, indent=2) + "\n",
        ".github/workflows/hookgate.yml": WORKFLOW,
        "README.md": README,
    }


# The guard reads the pack's own reading of the shell line (data.hookgate.lib.commands: every
# simple command, through pipes, substitutions and interpreter one-liners), so `cd x && npm
# publish` and `bash -c "npm publish"` are caught as well as the plain line.
EXAMPLE_GUARD = """\
# METADATA
# title: team-example
# description: Deny publishing packages from an agent session (npm publish, twine upload, …).
package hookgate.team.example

import rego.v1

deny contains {"reason": msg, "pattern": "package-publish"} if {
\tsome c in data.hookgate.lib.commands
\tsome rule in data.team.example.blocked
\tc.name == rule.program
\trule.subcommand in c.argv
\tmsg := sprintf("%s %s publishes a package; releases go through CI, not an agent session.", [rule.program, rule.subcommand])
}
"""

EXAMPLE_TEST = """\
package hookgate.team.example_test

import rego.v1

import data.hookgate.team.example

shell(cmd) := {
\t"hook_event_name": "PreToolUse",
\t"tool_name": "Bash",
\t"tool_kind": "shell",
\t"tool_input": {"command": cmd},
\t"cwd": "/home/u/proj",
}

test_publishing_is_denied if {
\tsome cmd in ["npm publish", "cd pkg && npm publish --tag next", "twine upload dist/*", "bash -c 'cargo publish'"]
\tcount(example.deny) == 1 with input as shell(cmd)
}

test_every_blocked_command_is_denied if {
\tevery rule in data.team.example.blocked {
\t\tcount(example.deny) == 1 with input as shell(concat(" ", [rule.program, rule.subcommand]))
\t}
}

test_everyday_work_is_allowed if {
\tevery cmd in ["npm install", "npm test", "twine check dist/*", "cargo build", "echo npm publish"] {
\t\tcount(example.deny) == 0 with input as shell(cmd)
\t}
}
"""

# Only what differs from the built-in pack's data (policies/data.json): deep-merged over it.
OVERRIDES = {
    "hookgate": {"config": {"force_push": {"on_force": "deny"}}},
    "team": {
        "example": {
            "blocked": [
                {"program": "npm", "subcommand": "publish"},
                {"program": "twine", "subcommand": "upload"},
                {"program": "cargo", "subcommand": "publish"},
            ]
        }
    },
}

WORKFLOW = """\
# hookgate: check and test the team's layer on every change; on a pull request show the impact
# on recorded decisions and dry-run the publish; on main publish.
#
# The repository is a layer over hookgate's built-in pack. The server holds a whole set, so
# impact and publish take the set this layer makes (`hookgate init --set OUT .`, OUT outside the
# repository), never the layer alone (that would delete the built-in guards: refused).
#
# Exit codes:
#   hookgate check    0 ok; 1 a policy does not parse/compile or a pack fails its tests
#   hookgate test     0 all tests pass; 1 a test fails or errs; 2 usage
#   hookgate impact   0 no recorded decision would change; 6 some would (shown, not fatal here);
#                     1 does not compile; 2 usage; 4 token missing or role too low; 5 server error
#   hookgate publish  0 published, nothing to change, or a dry-run that passed; 1 refused (does
#                     not compile, a test fails); 2 usage; 3 --expect-revision stale; 4 token;
#                     5 server error; 7 refused as weaker (removes or disables a guard, or turns
#                     recorded denies/asks into allows): needs a reviewed --allow-weaker
name: hookgate
on:
  pull_request:
  push:
    branches: [main]
jobs:
  policies:
    runs-on: ubuntu-latest
    env:
      HOOKGATE_TOKEN: ${{ secrets.HOOKGATE_EDITOR_TOKEN }}
      HOOKGATE_SERVER: ${{ vars.HOOKGATE_SERVER }}
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install hookgate (pin the version your hooks run)
        run: pip install hookgate
      - name: Check
        run: hookgate check .
      - name: Test
        run: hookgate test -v .
      - name: The whole set this layer makes (outside the layer)
        run: hookgate init --set "$RUNNER_TEMP/set" .
      - name: Impact on recorded decisions (exit 6 = some would change; shown, not fatal)
        if: github.event_name == 'pull_request'
        run: hookgate impact "$RUNNER_TEMP/set" --server "$HOOKGATE_SERVER" --limit 10000 || [ $? -eq 6 ]
      - name: Dry-run the publish (exit 7 = weaker; fails the check)
        if: github.event_name == 'pull_request'
        run: >-
          hookgate publish "$RUNNER_TEMP/set" --server "$HOOKGATE_SERVER" --dry-run
          -m "PR ${{ github.event.number }}"
      - name: Publish
        if: github.event_name == 'push' && github.ref == 'refs/heads/main'
        run: >-
          hookgate publish "$RUNNER_TEMP/set" --server "$HOOKGATE_SERVER"
          -m "${{ github.sha }}"
"""

README = """\
# Policy repository for hookgate

This repository is a **layer over hookgate's built-in pack**: every built-in guard stays on,
and what is here adds to it.

- `team_example.rego`, `team_example_test.rego`: an example guard (package
  `hookgate.team.example`, denies `npm publish` and the like) with its tests. Add a guard by
  adding a `.rego` file with a `_test.rego`.
- `data.json`: only the keys that differ from the built-in pack's data. It is deep-merged over
  the defaults: objects merge key by key, arrays and scalars replace, a different JSON type is
  an error. A built-in guard is turned off only by naming it in `hookgate.disabled`.
- `.github/workflows/hookgate.yml`: check and test on every change, impact and a publish
  dry-run on pull requests, publish on `main` (exit codes explained in the file). Set the
  secret `HOOKGATE_EDITOR_TOKEN` and the variable `HOOKGATE_SERVER`.

Locally:

```sh
hookgate test -v .                        # the team's tests, over the built-in pack
hookgate check .
echo '{"tool_name":"Bash","tool_input":{"command":"npm publish"}}' \\
    | hookgate eval --host claude --policies .
hookgate init --set /tmp/hookgate-set .   # the whole set, as publish and impact take it
```
"""
