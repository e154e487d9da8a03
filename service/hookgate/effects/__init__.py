"""What a tool call does, in one vocabulary for every host's tools: its *effects*.

Policies reason about effects, not tool names: a Claude ``Write``, a Gemini ``write_file``, a
Copilot ``create``, an ``*** Add File`` in a Codex patch and an MCP filesystem tool all write a
file. Each effect is a JSON object with a ``kind``:

- ``run``: ``{"dialect": "sh" | "powershell", "command"}``, a command line a shell will run;
- ``write`` / ``edit`` / ``delete`` / ``read``: ``{"path"}`` (absolute when the call's ``cwd``
  is known), ``write`` with ``content`` and ``empty``, ``edit`` with ``old_text``/``new_text``;
- ``move``: ``{"path", "to"}`` (a patch's "Move to" also with ``content``: the lines it adds);
- ``fetch``: ``{"url", "prompt"}``; ``search``: ``{"query", "path"}``;
- ``prompt``: ``{"to": "agent" | "mcp" | "skill", "text"}``, text another model will read;
- every effect also carries ``tool``: the tool name it came from.

This runs on every hook call (the input document's ``effects``), so it imports only ``os`` and
does work proportional to the tool input. The modules: ``tools`` (the hosts' known tools, and
``effects``), ``mcp`` (MCP tools read by their arguments), ``patch`` (Codex patches),
``model`` (the effect objects, and ``resolve`` for their paths).
"""

from __future__ import annotations

from hookgate.effects.model import resolve
from hookgate.effects.tools import effects

__all__ = ["effects", "resolve"]
