"""A scripted model on 127.0.0.1 that speaks each host's model API.

One scenario at a time: while no tool result is in a request's history, the reply calls the
host's shell tool with the scenario's command; once one is, a plain-text reply ends the turn.
Requests without tools (titles, routing, summaries) get a short text, or a JSON object made from
the requested schema. Every request body is recorded: the tool result a host sends back shows
what really ran, and the text around it what hookgate told the model.

APIs: Anthropic Messages (Claude Code, Copilot's BYOK provider; SSE or JSON), OpenAI Responses
(Codex; SSE), Gemini ``generateContent`` / ``streamGenerateContent?alt=sse``.
"""

from __future__ import annotations

import itertools
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SHELL_TOOLS = ("Bash", "bash", "exec_command", "shell", "run_shell_command")
DONE_TEXT = "Done."
_ids = itertools.count(1)


def _new_id(prefix: str) -> str:
    return f"{prefix}_{next(_ids):08x}"


def strings(value: object) -> list[str]:
    """Every string leaf of a JSON value, JSON text inside strings included (hosts nest it)."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
            if item[:1] in "{[":
                try:
                    stack.append(json.loads(item))
                except ValueError:
                    pass
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _command_field(schema: dict) -> str:
    properties = (schema or {}).get("properties") or {}
    for key in ("command", "cmd"):
        if key in properties:
            return key
    raise AssertionError(f"the shell tool's schema has no command field: {sorted(properties)}")


def _from_schema(schema: dict) -> object:
    """A value that satisfies a small JSON schema (routing and classifier calls)."""
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = kind[0]
    kind = str(kind or "object").lower()
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        return {k: _from_schema(v) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        return []
    if kind in ("number", "integer"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    return "ok"


class Model:
    """The scripted model server; ``command`` is what the next turn runs."""

    def __init__(self) -> None:
        self.command = "true"
        self.requests: list[tuple[str, dict]] = []
        self._lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                self._json({"data": [], "models": [], "object": "list"})

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                if self.headers.get("Content-Encoding") == "zstd":
                    raise AssertionError("compressed request bodies are not supported")
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"raw": raw.decode("utf-8", "replace")}
                with model._lock:
                    model.requests.append((self.path, body))
                model._answer(self, self.path, body)

            def _json(self, value: object, status: int = 200) -> None:
                data = json.dumps(value).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def sse(self, events: list[tuple[str | None, dict]]) -> None:
                chunks = []
                for name, data in events:
                    head = f"event: {name}\n" if name else ""
                    chunks.append(f"{head}data: {json.dumps(data)}\n\n")
                payload = "".join(chunks).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> Model:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def reset(self, command: str) -> None:
        with self._lock:
            self.command = command
            self.requests = []

    # What the hosts sent -------------------------------------------------------------------

    def after_tool(self) -> list[dict]:
        """The request bodies that carry a tool result: what the model saw after the call."""
        return [body for _, body in self.requests if _tool_result_in(body)]

    def seen_after_tool(self) -> str:
        """Every string of the history from the tool call on, in the requests that carry a tool
        result: the result and whatever the host added about the call (one text to search)."""
        return "\n".join(s for body in self.after_tool() for s in strings(_from_tool_call(body)))

    def shell_calls(self) -> int:
        """How many replies called the shell tool (the host asked the model at least once)."""
        return sum(
            1 for _, body in self.requests if _shell_tool(body) and not _tool_result_in(body)
        )

    # Replies -------------------------------------------------------------------------------

    def _answer(self, handler: BaseHTTPRequestHandler, path: str, body: dict) -> None:
        if "count_tokens" in path or ":countTokens" in path:
            handler._json({"input_tokens": 10, "totalTokens": 10})
        elif "/messages" in path:
            self._anthropic(handler, body)
        elif "/responses" in path or "/chat/completions" in path:
            self._openai(handler, body)
        elif ":streamGenerateContent" in path or ":generateContent" in path:
            self._gemini(handler, path, body)
        else:
            handler._json({})

    def _tool_call(self, body: dict) -> tuple[str, dict] | None:
        """(tool name, arguments) when this request should get the scenario's shell call."""
        if _tool_result_in(body):
            return None
        tool = _shell_tool(body)
        if tool is None:
            return None
        name, schema = tool
        args = {_command_field(schema): self.command}
        if "description" in (schema.get("properties") or {}):
            args["description"] = "scripted step"
        return name, args

    def _anthropic(self, handler: BaseHTTPRequestHandler, body: dict) -> None:
        call = self._tool_call(body)
        message_id = _new_id("msg")
        if call is not None:
            block = {"type": "tool_use", "id": _new_id("toolu"), "name": call[0], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(call[1])}
            full = {**block, "input": call[1]}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": DONE_TEXT}
            full = {"type": "text", "text": DONE_TEXT}
            stop = "end_turn"
        usage = {"input_tokens": 10, "output_tokens": 5}
        message = {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude-sonnet-4-5"),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        }
        if not body.get("stream"):
            handler._json({**message, "content": [full], "stop_reason": stop})
            return
        handler.sse(
            [
                ("message_start", {"type": "message_start", "message": message}),
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": 0, "content_block": block},
                ),
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": 0, "delta": delta},
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": stop, "stop_sequence": None},
                        "usage": {"output_tokens": 5},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ]
        )

    def _openai(self, handler: BaseHTTPRequestHandler, body: dict) -> None:
        call = self._tool_call(body)
        response_id = _new_id("resp")
        if call is not None:
            item = {
                "type": "function_call",
                "id": _new_id("fc"),
                "call_id": _new_id("call"),
                "name": call[0],
                "arguments": json.dumps(call[1]),
                "status": "completed",
            }
        else:
            text = DONE_TEXT
            schema = ((body.get("text") or {}).get("format") or {}).get("schema")
            if schema:
                text = json.dumps(_from_schema(schema))
            item = {
                "type": "message",
                "id": _new_id("msg"),
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        }
        base = {"id": response_id, "object": "response", "model": body.get("model", "mock")}
        handler.sse(
            [
                (
                    "response.created",
                    {
                        "type": "response.created",
                        "response": {**base, "status": "in_progress", "output": []},
                    },
                ),
                (
                    "response.output_item.added",
                    {"type": "response.output_item.added", "output_index": 0, "item": item},
                ),
                (
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": 0, "item": item},
                ),
                (
                    "response.completed",
                    {
                        "type": "response.completed",
                        "response": {
                            **base,
                            "status": "completed",
                            "output": [item],
                            "usage": usage,
                        },
                    },
                ),
            ]
        )

    def _gemini(self, handler: BaseHTTPRequestHandler, path: str, body: dict) -> None:
        call = self._tool_call(body)
        if call is not None:
            part = {"functionCall": {"name": call[0], "args": call[1]}}
        else:
            config = body.get("generationConfig") or {}
            schema = config.get("responseJsonSchema") or config.get("responseSchema")
            part = {"text": json.dumps(_from_schema(schema)) if schema else DONE_TEXT}
        chunk = {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 5,
                "totalTokenCount": 15,
            },
            "modelVersion": "gemini-2.5-pro",
        }
        if ":streamGenerateContent" in path:
            handler.sse([(None, chunk)])
        else:
            handler._json(chunk)


def _shell_tool(body: dict) -> tuple[str, dict] | None:
    """(name, parameters schema) of the request's shell tool, in any API's spelling."""
    tools = body.get("tools") or []
    declared: list[dict] = []
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        declared.extend(tool.get("functionDeclarations") or tool.get("function_declarations") or [])
        if "function" in tool and isinstance(tool["function"], dict):
            declared.append(tool["function"])
        declared.append(tool)
    for tool in declared:
        if tool.get("name") in SHELL_TOOLS:
            schema = (
                tool.get("input_schema")
                or tool.get("parameters")
                or tool.get("parametersJsonSchema")
                or {}
            )
            return tool["name"], schema
    return None


def _tool_result_in(body: dict) -> bool:
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(
            isinstance(block, dict) and block.get("type") == "tool_result" for block in content
        ):
            return True
    for item in body.get("input") or [] if isinstance(body.get("input"), list) else []:
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            return True
    for content in body.get("contents") or []:
        for part in content.get("parts") or [] if isinstance(content, dict) else []:
            if isinstance(part, dict) and "functionResponse" in part:
                return True
    return False


def _from_tool_call(body: dict) -> list:
    """The history from the first tool call on, in any API's spelling."""
    for key, is_call in (
        (
            "messages",
            lambda m: any(
                isinstance(b, dict) and b.get("type") == "tool_use"
                for b in m.get("content") or []
                if isinstance(m.get("content"), list)
            ),
        ),
        ("input", lambda item: item.get("type") == "function_call"),
        ("contents", lambda c: any("functionCall" in p for p in c.get("parts") or [])),
    ):
        history = body.get(key)
        if isinstance(history, list):
            for index, item in enumerate(history):
                if isinstance(item, dict) and is_call(item):
                    return history[index:]
    return []
