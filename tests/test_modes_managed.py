"""A guard's mode comes only from the policy data the hook trusts: in a managed install, root's
signed bundle. Nothing the agent's user can write (its own hookgate directories, bundles forged
there, data files where it works, any environment variable) puts a guard into warn or audit
mode. Runs the hook as an unprivileged user, as ``test_managed_runtime`` does (needs root)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import test_managed_runtime as managed
from test_managed_runtime import agent_files, configure, decision_of, hook

from hookgate import anchors, sync

# The managed runtime's fixtures: a relocated root, a live server, the agent's user.
agent, root, server = managed.agent, managed.root, managed.server

RM = "rm -rf ~/projects"
RELAXED = {
    "hookgate": {"modes": {"destructive": "audit", "destructive/rm-recursive-force": "audit"}}
}


def every_hookgate_variable() -> set[str]:
    """Every ``HOOKGATE_*`` name hookgate's code spells, and ones it might have (a mode)."""
    package = Path(anchors.__file__).parent
    names = {"HOOKGATE_MODE", "HOOKGATE_MODES", "HOOKGATE_DATA", "HOOKGATE_POLICIES"}
    for path in package.rglob("*.py"):
        names.update(re.findall(r"HOOKGATE_[A-Z_]+", path.read_text()))
    return names


def pull(root, server) -> None:
    configure(root, server)
    report = sync.refresh()
    assert report.pull_error is None, report.pull_error


def test_no_local_file_or_variable_changes_a_guards_mode(root, server, agent):
    pull(root, server)
    bundle = json.loads((Path(anchors.STATE) / "bundle" / "bundle.json").read_text())
    forged = json.loads(json.dumps(bundle))
    forged["data"] = {**forged.get("data", {}), **RELAXED}
    relaxed = json.dumps(RELAXED)
    # The fixture's home sits in a root-only temporary directory: let the agent reach its own
    # files, as a real agent's user can (else every read of them is a limit, which asks).
    Path(agent.pw_dir).parent.chmod(0o755)
    home = agent_files(
        agent,
        {
            "filled/cache/bundle.json": json.dumps(forged),
            "xdg/hookgate/bundle.json": json.dumps(forged),
            "xdg/hookgate/data.json": relaxed,
            "filled/data.json": relaxed,
            "filled/policies/data.json": relaxed,
            ".hookgate/data.json": relaxed,
            "data.json": relaxed,
            "policies/data.json": relaxed,
        },
    )
    env = {name: "audit" for name in every_hookgate_variable()}
    env |= {
        "HOOKGATE_HOME": str(home / "filled"),
        "XDG_CACHE_HOME": str(home / "xdg"),
        "XDG_CONFIG_HOME": str(home / "xdg"),
        "HOOKGATE_POLICIES": str(home / "policies"),
        "HOOKGATE_DATA": str(home / "data.json"),
        "HOOKGATE_REFRESH_INTERVAL": "0",
        "HOOKGATE_WARM": "0",
        "HOOKGATE_DEADLINE": "60",
        "HOOKGATE_TELEMETRY": str(home / "telemetry.jsonl"),
    }
    response, explain = hook(agent, root, RM, env=env)
    assert decision_of(response) == "deny", response
    assert explain["modes"] == {}


def test_the_mode_in_roots_signed_bundle_is_the_one_the_hook_applies(root, server, agent):
    body = json.dumps({"modes": {"destructive": "warn"}}).encode()
    headers = {"Content-Type": "application/json"}
    server.request("PUT", "/v1/data/hookgate", body, headers)
    pull(root, server)
    response, explain = hook(agent, root, RM)
    assert decision_of(response) is None, response
    context = response["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("hookgate would deny this call (warn mode, not enforced)")
    assert explain["modes"] == {"destructive": "warn"}
