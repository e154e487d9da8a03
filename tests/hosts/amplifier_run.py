"""One turn of the real Amplifier kernel (``amplifier-core``) with hookgate's native hook module.

Run by ``test_amplifier.py`` with the Python of a venv holding the pinned kernel (and hookgate
through a .pth line), never inside pytest: the kernel ships a pytest plugin. The session is
built from a mount plan like any Amplifier app's; the orchestrator, context, provider and bash
tool are minimal modules of our own against the kernel's public API, and ``hooks-hookgate`` is
loaded by the kernel's module loader from hookgate's entry point.

    python amplifier_run.py '<shell command>'  →  stdout: JSON {"messages", "ran", "pre"}
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import types

from amplifier_core import AmplifierSession

COMMAND = sys.argv[1]


class Context:
    def __init__(self) -> None:
        self.messages: list[dict] = []

    async def add_message(self, message: dict) -> None:
        self.messages.append(message)

    async def get_messages(self) -> list[dict]:
        return list(self.messages)

    async def get_messages_for_request(self, *args: object, **kwargs: object) -> list[dict]:
        return list(self.messages)

    async def set_messages(self, messages: list[dict]) -> None:
        self.messages = list(messages)

    async def clear(self) -> None:
        self.messages = []


class Provider:
    """The scripted model: call bash with the command, then end the turn once a result is in."""

    name = "scripted"

    async def complete(self, messages: list[dict]) -> dict:
        if any(m.get("role") == "tool" for m in messages):
            return {"text": "Done."}
        return {"tool_call": {"id": "call_1", "name": "bash", "input": {"command": COMMAND}}}


class Bash:
    name = "bash"
    description = "Run a shell command"
    ran: list[str] = []

    async def execute(self, tool_input: dict) -> dict:
        Bash.ran.append(tool_input["command"])
        done = subprocess.run(
            ["bash", "-c", tool_input["command"]], capture_output=True, text=True, timeout=30
        )
        return {"output": done.stdout + done.stderr, "returncode": done.returncode}


class Orchestrator:
    """The shape of Amplifier's basic loop: tool:pre (a deny stops the call and its reason is
    the result), the tool, tool:post (whose result the kernel routes: inject_context)."""

    pre: list[dict] = []

    async def execute(self, prompt, context, providers, tools, hooks, coordinator) -> str:  # noqa: ANN001
        await context.add_message({"role": "user", "content": prompt})
        provider = next(iter(providers.values()))
        for _ in range(4):
            reply = await provider.complete(await context.get_messages())
            call = reply.get("tool_call")
            if call is None:
                await context.add_message({"role": "assistant", "content": reply["text"]})
                return reply["text"]
            await context.add_message({"role": "assistant", "tool_calls": [call]})
            data = {"tool_name": call["name"], "tool_input": call["input"]}
            pre = await hooks.emit("tool:pre", data)
            Orchestrator.pre.append({"action": pre.action, "reason": pre.reason})
            if pre.action == "deny":
                output = f"Denied by hook: {pre.reason}"
            else:
                result = await tools[call["name"]].execute(call["input"])
                output = result["output"]
                post = await hooks.emit("tool:post", {**data, "result": result})
                await coordinator.process_hook_result(post, "tool:post", "hookgate")
            await context.add_message(
                {"role": "tool", "tool_call_id": call["id"], "content": output}
            )
        return ""


def _module(name: str, mount_point: str, build: object) -> None:
    async def mount(coordinator, config=None):  # noqa: ANN001, ANN202
        instance = build()
        if mount_point in ("providers", "tools"):
            await coordinator.mount(mount_point, instance, name=instance.name)
        else:
            await coordinator.mount(mount_point, instance)

    module = types.ModuleType(f"amplifier_module_{name.replace('-', '_')}")
    module.mount = mount
    module.__amplifier_module_type__ = {"session": "orchestrator"}.get(mount_point, mount_point)
    sys.modules[module.__name__] = module


async def main() -> None:
    _module("loop-mini", "orchestrator", Orchestrator)
    _module("context-mini", "context", Context)
    _module("provider-mini", "providers", Provider)
    _module("tool-bash-mini", "tools", Bash)
    plan = {
        "session": {"orchestrator": "loop-mini", "context": "context-mini"},
        "providers": [{"module": "provider-mini"}],
        "tools": [{"module": "tool-bash-mini"}],
        "hooks": [{"module": "hooks-hookgate"}],
    }
    session = AmplifierSession(plan)
    await session.initialize()
    await session.execute("Run the scripted step.")
    context = session.coordinator.get("context")
    messages = await context.get_messages()
    await session.cleanup()
    print(json.dumps({"messages": messages, "ran": Bash.ran, "pre": Orchestrator.pre}))


asyncio.run(main())
# The turn is over and its record printed. amplifier-core's native threads can still be running
# when the interpreter finalizes, which aborts it now and then (PyGILState_Release: "thread state
# must be current when releasing", seen in CI): leave without finalizing.
sys.stdout.flush()
os._exit(0)
