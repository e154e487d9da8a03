"""Baseline (b): a Python hook evaluating hookgate's default pack on regorus (Rust).

The pack's modules and data are loaded into regorus, hookgate's domain builtins (shell, git,
xpia, host, hookgate) are registered as regorus extensions, and each guard package's decision rules are
queried. The input document is built the least way that lets the pack work (tool_kind for the
shell tool), since regorus does not normalize host payloads.
"""

from __future__ import annotations

import json
import sys

SHELL_TOOLS = {"bash", "shell", "run_shell_command", "powershell"}
DECISION_RULES = ("deny", "ask", "rewrite", "context")


def regorus_engine():
    """The loaded regorus engine and the decision rules the pack defines (probed once, since a
    query of an undefined rule path raises)."""
    import regorus

    from hookgate.builtins import full_registry
    from hookgate.sources import default_pack_sources

    REGISTRY = full_registry()

    sources, data = default_pack_sources()
    engine = regorus.Engine()
    for name, builtin in REGISTRY.items():
        if builtin.family in ("shell", "git", "xpia", "host", "hookgate"):
            engine.add_extension(name, builtin.arity, builtin.func)
    for filename, text in sources.items():
        engine.add_policy(filename, text)
    engine.add_data(data)
    engine.set_input({})
    rules = []
    for package in engine.get_packages():
        for rule in DECISION_RULES if package.startswith("data.hookgate.") else ():
            try:
                engine.eval_rule(f"{package}.{rule}")
            except RuntimeError:
                continue
            rules.append(f"{package}.{rule}")
    return engine, rules


def regorus_decide(loaded, payload: dict) -> dict:
    engine, rules = loaded
    document = dict(payload)
    tool = payload.get("tool_name", "").lower()
    document["tool_kind"] = "shell" if tool in SHELL_TOOLS else "other"
    engine.set_input(document)
    # As JSON text: regorus cannot hand a set of objects back as Python values.
    return {rule: engine.eval_rule_as_json(rule) for rule in rules}


if __name__ == "__main__":
    decided = regorus_decide(regorus_engine(), json.load(sys.stdin))
    print(json.dumps({"decided": len(decided)}))
