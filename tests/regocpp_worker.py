"""rego-cpp (``regopy``) in a process of its own: it links its own RE2 and Abseil, which abort
the process when ``google-re2`` (hookgate's regex engine) is loaded beside them.

Reads JSON lines ``{"source": …, "input": …}`` on stdin, writes one JSON string a line: the
answer as tests/differential_engines.py normalises it."""

from __future__ import annotations

import json
import os
import sys


def answer(source: str, inp: dict) -> str:
    import regopy

    interp = regopy.Interpreter()
    try:
        interp.add_module("g", source)
        interp.set_input_term(json.dumps(inp))
        out = interp.query("data.g")
    except Exception as exc:
        return f"error: {str(exc).strip().splitlines()[0] if str(exc).strip() else '?'}"
    text = str(out)
    if not out.ok():
        return f"error: {text.strip().splitlines()[0] if text.strip() else '?'}"
    if text == "undefined":
        return "undefined"
    return json.dumps(json.loads(text)["expressions"][0], sort_keys=True)


def main() -> None:
    out = os.fdopen(os.dup(1), "w")
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)  # rego-cpp prints its diagnostics itself
    os.dup2(null, 2)
    for line in sys.stdin:
        request = json.loads(line)
        out.write(json.dumps(answer(request["source"], request["input"])) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
