"""Baseline (a): the least a Python hook can do — parse stdin, one regex search, print."""

import json
import re
import sys

payload = json.load(sys.stdin)
command = payload.get("tool_input", {}).get("command", "")
print("{}" if not re.search(r"--no-verify", command) else '{"decision": "block"}')
