"""The hook's payload as it arrives: stdin, read once and bounded.

Both the launcher (before it asks the warm process) and ``hookgate eval`` read it here; it
imports only ``sys``, since it runs first on every hook call.
"""

from __future__ import annotations

import sys

MAX_PAYLOAD_BYTES = 4 * 1024 * 1024  # the most a hook reads from stdin (the limit + 1 byte)


def read_payload() -> bytes:
    """What ``hookgate eval`` reads of stdin: up to one byte over the limit."""
    return sys.stdin.buffer.read(MAX_PAYLOAD_BYTES + 1)
