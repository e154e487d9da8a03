"""``hookgate init DIR``: start a team's policy repository, a layer over the built-in pack.

Writes one example guard (its own package, ``hookgate.team.example``) with its tests, a data
overrides file holding only the keys that differ from the defaults, a GitHub Actions workflow
(check, test, impact, publish on main) and a short README. A directory holding anything is
refused unless ``--force``, and even then no existing file is overwritten without it: the
starter files are named, so the refusal says which.

The repository is what ``hookgate publish`` sends as is: the server keeps it as the team's
layer over its built-in pack, as ``--policies DIR`` composes it locally. Exit codes: 0 written,
2 usage (the directory).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

OK, USAGE = 0, 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", metavar="DIR", help="the policy repository to start")
    parser.add_argument(
        "--force",
        action="store_true",
        help="write into a non-empty DIR, replacing files of the same names",
    )


def run(args: argparse.Namespace) -> int:
    try:
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
# The repository is a layer over hookgate's built-in pack, and the server keeps it as one: impact
# and publish take the repository as it is, and every built-in guard stays on underneath.
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
      - name: Impact on recorded decisions (exit 6 = some would change; shown, not fatal)
        if: github.event_name == 'pull_request'
        run: hookgate impact . --server "$HOOKGATE_SERVER" --limit 10000 || [ $? -eq 6 ]
      - name: Dry-run the publish (exit 7 = weaker; fails the check)
        if: github.event_name == 'pull_request'
        run: >-
          hookgate publish . --server "$HOOKGATE_SERVER" --dry-run
          -m "PR ${{ github.event.number }}"
      - name: Publish
        if: github.event_name == 'push' && github.ref == 'refs/heads/main'
        run: >-
          hookgate publish . --server "$HOOKGATE_SERVER"
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
hookgate publish . --server "$HOOKGATE_SERVER" --dry-run -m "try"   # the diff, check, impact
```
"""
