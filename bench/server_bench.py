"""Throughput and latency of the server's POST /v1/evaluate under concurrent loopback clients,
against a bare FastAPI endpoint returning a constant JSON, both served by uvicorn with the same
settings in the same run. Target: hookgate at least 0.7x the bare endpoint's throughput.

    .venv/bin/python bench/server_bench.py [--seconds 10] [--clients 16] [--processes 2]
        [--traffic corpus everyday] [--policies DIR]

Each server runs in its own process (one uvicorn worker, the same loop and HTTP
implementation, access log off); both run at once and take the load in alternating rounds, so
that whatever else the machine is doing weighs on both alike. The load comes from separate
client processes, each with persistent HTTP/1.1 connections written on raw sockets
(http.client parses headers with the email package and would spend more CPU than the bare
server it measures, on the same cores). Besides throughput and latency, the servers' own CPU
time per request is reported: it depends least on how the clients share the cores with them.
Two request mixes are measured, each against both servers: the guard corpus's command lines
(tests/data/guards/corpus.json: deny, rewrite and allow cases, shell commands chosen to exercise
the guards, the heaviest evaluations the default pack makes), and everyday traffic (ordinary
shell commands and file reads, searches and edits, half and half: an assumption, stated in
EVERYDAY_COMMANDS). Each is sent as Claude Code, Codex, Copilot, Gemini and Cursor payloads, a
quarter of them with the explain trace; every connection cycles through the same bodies from a
different start. Both servers receive the same bodies and the same viewer token. The hookgate
server uses a fresh SQLite database seeded with the default pack; authentication is included.
The target must hold for both mixes.

For scale, it also times the evaluation alone in process, hookgate's engine against regorus
(Rust) loaded with the same pack, data and domain builtins, on the Claude-shaped bodies, and
prints how much server CPU the 0.7 target leaves for everything hookgate adds to a request.
"""

import argparse
import importlib.util
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import BinaryIO

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "guards" / "corpus.json"
# Identical for both servers; uvicorn's defaults otherwise (one worker, h11/asyncio unless
# httptools/uvloop are installed: the first line of the output says which ran).
UVICORN = {"host": "127.0.0.1", "log_level": "warning", "access_log": False}
KINDS = ("bare", "hookgate")
WARM_UP_SECONDS = 2.0
ROUND_SECONDS = 2.0


# Everyday traffic: what an agent mostly asks to do, none of it anything a guard stops. An
# assumption (no host publishes its tool-call mix): half ordinary shell commands, half reading,
# searching and editing files, each in every host's shape.
EVERYDAY_COMMANDS = (
    "ls -la",
    "git status",
    "git diff --stat",
    "git log --oneline -n 10",
    "npm test",
    "pytest -q tests/test_parser.py",
    "cat package.json",
    "grep -rn 'TODO' src",
    "make build",
    "python -m pip install -r requirements.txt",
    "git add -A && git commit -m 'Fix the parser for empty input'",
    "cd web && npm run lint",
)


def everyday_tools(cwd: str) -> list[tuple[str, dict]]:
    """File tools as (Claude tool name, tool input), as many as the everyday commands."""
    path = f"{cwd}/src/parser.py"
    edit = {"file_path": path, "old_string": "if not text:", "new_string": "if not text.strip():"}
    return [
        ("Read", {"file_path": path}),
        ("Read", {"file_path": f"{cwd}/README.md", "offset": 1, "limit": 200}),
        ("Grep", {"pattern": "def parse", "path": cwd, "output_mode": "content"}),
        ("Glob", {"pattern": "src/**/*.py"}),
        ("Edit", edit),
        ("Edit", {**edit, "replace_all": True}),
        ("Write", {"file_path": f"{cwd}/tests/test_empty.py", "content": EMPTY_TEST}),
        ("Read", {"file_path": f"{cwd}/tests/test_parser.py"}),
        ("Grep", {"pattern": "import", "glob": "*.py"}),
        ("Glob", {"pattern": "**/package.json"}),
        (
            "Edit",
            {"file_path": f"{cwd}/CHANGELOG.md", "old_string": "## 1.2", "new_string": "## 1.3"},
        ),
        ("Read", {"file_path": f"{cwd}/pyproject.toml"}),
    ]


EMPTY_TEST = "from parser import parse\n\n\ndef test_empty():\n    assert parse('') == []\n"
# Each Claude file tool under the name another host gives it (HOSTS.md's tool table). Codex
# reads and searches through its shell, and edits through apply_patch.
OTHER_NAMES = {
    "gemini": {"Read": "read_file", "Grep": "grep_search", "Glob": "glob", "Edit": "replace"},
    "copilot": {"Read": "view", "Grep": "grep", "Glob": "glob", "Edit": "edit", "Write": "create"},
    "cursor": {"Glob": "Grep"},
}
CODEX_READS = {
    "Read": lambda t: f"sed -n '1,200p' {t['file_path']}",
    "Grep": lambda t: f"rg -n '{t['pattern']}'",
    "Glob": lambda t: f"rg --files -g '{t['pattern']}'",
}


def tool_call(host: str, cwd: str, name: str, tool: dict) -> dict:
    """One pre-tool call of tool ``name`` with input ``tool``, in ``host``'s payload shape."""
    if host == "copilot":
        return {"sessionId": "bench", "cwd": cwd, "toolName": name, "toolArgs": json.dumps(tool)}
    if host == "cursor":
        return {
            "hook_event_name": "preToolUse",
            "conversation_id": "bench",
            "workspace_roots": [cwd],
            "tool_name": name,
            "tool_input": tool,
            "cwd": cwd,
        }
    event = "BeforeTool" if host == "gemini" else "PreToolUse"
    call = {"session_id": "bench", "cwd": cwd, "hook_event_name": event, "tool_name": name}
    if host == "codex":
        call["turn_id"] = "t1"
    return {**call, "tool_input": tool}


def payloads(traffic: str = "corpus") -> list[tuple[dict, str]]:
    """One tool call per command (and, for everyday traffic, per file tool) and host, in each
    host's own payload shape: the guard corpus's command lines, or everyday traffic."""
    document = json.loads(CORPUS.read_text())
    cwd = document["cwd"]
    if traffic == "everyday":
        commands = list(EVERYDAY_COMMANDS)
    else:
        commands = [case["command"] for case in document["cases"]]
    shapes = []
    for command in commands:
        tool = {"command": command}
        shapes += [
            (tool_call("claude", cwd, "Bash", tool), "claude"),
            (tool_call("codex", cwd, "Bash", tool), "codex"),
            (tool_call("copilot", cwd, "bash", tool), "copilot"),
            (tool_call("gemini", cwd, "run_shell_command", tool), "gemini"),
            # Cursor sends shell commands to a hook of their own.
            (
                {
                    "hook_event_name": "beforeShellExecution",
                    "conversation_id": "bench",
                    "workspace_roots": [cwd],
                    "command": command,
                    "cwd": cwd,
                },
                "cursor",
            ),
        ]
    if traffic == "everyday":
        shapes += file_tool_payloads(cwd)
    return shapes


def file_tool_payloads(cwd: str) -> list[tuple[dict, str]]:
    """The everyday file tools, in each host's shape."""
    shapes = []
    for name, tool in everyday_tools(cwd):
        if name in CODEX_READS:
            codex = tool_call("codex", cwd, "Bash", {"command": CODEX_READS[name](tool)})
        else:
            target = tool["file_path"].removeprefix(cwd + "/")
            patch = f"*** Begin Patch\n*** Update File: {target}\n@@\n-a\n+b\n*** End Patch"
            codex = tool_call("codex", cwd, "apply_patch", {"command": patch})
        shapes += [
            (tool_call("claude", cwd, name, tool), "claude"),
            (codex, "codex"),
            (tool_call("copilot", cwd, OTHER_NAMES["copilot"].get(name, name), tool), "copilot"),
            (
                tool_call("gemini", cwd, OTHER_NAMES["gemini"].get(name, "write_file"), tool),
                "gemini",
            ),
            (tool_call("cursor", cwd, OTHER_NAMES["cursor"].get(name, name), tool), "cursor"),
        ]
    return shapes


def bodies(traffic: str = "corpus") -> list[dict]:
    """The request bodies, in the order every connection cycles through them."""
    return [
        {"payload": payload, "host": host, "explain": i % 4 == 0}
        for i, (payload, host) in enumerate(payloads(traffic))
    ]


def serve(kind: str, port: int, db: str) -> None:
    """Run one server (``hookgate`` or ``bare``) in this process."""
    import uvicorn

    if kind == "bare":
        from fastapi import FastAPI, Request

        app = FastAPI()

        @app.post("/v1/evaluate")
        async def constant(request: Request) -> dict:
            await request.body()
            return {"decision": {"outcome": "allow"}}
    else:
        from hookgate.server.app import create_app
        from hookgate.server.store import Store, make_engine, migrate

        engine = make_engine(db)
        migrate(engine)
        app = create_app(Store(engine))
    uvicorn.run(app, port=port, **UVICORN)


def pack(policies: str | None) -> tuple[dict[str, str], dict]:
    """The policies and data the server is seeded with: the default pack, or a directory's."""
    from hookgate.server.store import seed_policies
    from hookgate.sources import load_paths

    if policies is None:
        return seed_policies()
    sources, data = load_paths([policies])
    return {Path(name).name: text for name, text in sources.items()}, data


def prepare_db(db: str, policies: str | None) -> str:
    """Seed the database and return a viewer token."""
    from hookgate.server.compilation import compile_set
    from hookgate.server.store import Store, make_engine, migrate

    engine = make_engine(db)
    migrate(engine)
    store = Store(engine)
    store.seed(*pack(policies), validate=compile_set)
    token = store.create_token("viewer", "bench")
    engine.dispose()
    return token


def engine_alone(seconds: float, traffic: str, policies: str | None) -> float:
    """Mean seconds per evaluation of the same bodies by the engine in this process, one
    thread: what the evaluate endpoint cannot do without."""
    from hookgate.server.compilation import compile_set

    engine = compile_set(*pack(policies))
    return per_evaluation(
        lambda b: engine.evaluate(b["payload"], b["host"], facts={}, explain=b["explain"]),
        bodies(traffic),
        seconds,
    )


def per_evaluation(evaluate, cases: list, seconds: float) -> float:
    """Mean seconds per ``evaluate(case)``, cycling through ``cases`` for ``seconds``."""
    count = 0
    stop_at = time.perf_counter() + seconds
    started = time.perf_counter()
    while time.perf_counter() < stop_at:
        evaluate(cases[count % len(cases)])
        count += 1
    return (time.perf_counter() - started) / count


def against_regorus(seconds: float) -> tuple[float, float]:
    """Seconds per evaluation of the Claude-shaped bodies by hookgate's engine and by regorus
    (Rust) loaded with the same pack, data and domain builtins (bench/regorus_hook.py): what
    any Rego engine spends on this pack, HTTP aside."""
    from regorus_hook import regorus_decide, regorus_engine

    from hookgate.server.compilation import compile_set
    from hookgate.server.store import seed_policies

    engine = compile_set(*seed_policies())
    rego = regorus_engine()
    payloads = [b["payload"] for b in bodies() if b["host"] == "claude"]
    ours = per_evaluation(lambda p: engine.evaluate(p, "claude", facts={}), payloads, seconds)
    theirs = per_evaluation(lambda p: regorus_decide(rego, p), payloads, seconds)
    return ours, theirs


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"server on port {port} did not start")


def http_requests(port: int, token: str, traffic: str) -> list[bytes]:
    """Every body as a complete, pre-encoded HTTP/1.1 request."""
    encoded = []
    for body in bodies(traffic):
        data = json.dumps(body).encode()
        head = (
            f"POST /v1/evaluate HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n"
        )
        encoded.append(head.encode() + data)
    return encoded


def exchange(reader: BinaryIO, sock: socket.socket, request: bytes) -> bool:
    """Send one request and read its whole response; True for a 200."""
    sock.sendall(request)
    status = reader.readline()
    if not status:
        raise ConnectionError("closed by the server")
    length = None
    while (line := reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    if length is None:
        raise ConnectionError("response without Content-Length")
    reader.read(length)
    return status.split(b" ", 2)[1] == b"200"


def client_worker(args: tuple) -> tuple[list[float], int]:
    """One load process: ``threads`` of the ``connections`` persistent connections, for
    ``seconds``."""
    port, token, seconds, threads, first, connections, traffic = args
    requests = http_requests(port, token, traffic)
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def connect() -> tuple[socket.socket, BinaryIO]:
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock, sock.makefile("rb")

    def loop(start: int) -> None:
        sock, reader = connect()
        mine: list[float] = []
        failed, i = 0, start
        while time.monotonic() < stop_at:
            request = requests[i % len(requests)]
            i += 1
            started = time.perf_counter()
            try:
                ok = exchange(reader, sock, request)
            except OSError:
                failed += 1
                sock.close()
                sock, reader = connect()
                continue
            if ok:
                mine.append(time.perf_counter() - started)
            else:
                failed += 1
        sock.close()
        with lock:
            latencies.extend(mine)
            errors[0] += failed

    # Each connection starts at its own place in the cycle.
    starts = [(first + t) * len(requests) // connections for t in range(threads)]
    workers = [threading.Thread(target=loop, args=(start,)) for start in starts]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return latencies, errors[0]


def implementations() -> str:
    """The event loop and HTTP parser uvicorn's defaults pick in this environment."""
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    http = "httptools" if importlib.util.find_spec("httptools") else "h11"
    return f"{loop}, {http}"


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (Linux's /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def start_server(kind: str, db: str) -> tuple[int, subprocess.Popen]:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", kind, "--port", str(port), "--db", db],
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    wait_ready(port)
    return port, server


def measure(db: str, token: str, options: argparse.Namespace) -> dict[str, dict[str, dict]]:
    """Both servers under each traffic mix, loaded in alternating rounds of ``ROUND_SECONDS``
    (after a warm-up each), so that whatever else the machine does weighs on all alike."""
    servers: dict[str, tuple[int, subprocess.Popen]] = {}
    per_process = max(1, options.clients // options.processes)

    def jobs(port: int, seconds: float, traffic: str) -> list[tuple]:
        return [
            (port, token, seconds, per_process, p * per_process, options.clients, traffic)
            for p in range(options.processes)
        ]

    totals = {
        traffic: {k: {"latencies": [], "errors": 0, "elapsed": 0.0, "cpu": 0.0} for k in KINDS}
        for traffic in options.traffic
    }
    try:
        for kind in KINDS:
            servers[kind] = start_server(kind, db)
        with multiprocessing.Pool(options.processes) as pool:
            for port, _ in servers.values():
                pool.map(client_worker, jobs(port, WARM_UP_SECONDS, options.traffic[0]))
            for _ in range(max(1, round(options.seconds / ROUND_SECONDS))):
                for traffic in options.traffic:
                    for kind, (port, server) in servers.items():
                        cpu_before = cpu_seconds(server.pid)
                        started = time.perf_counter()
                        results = pool.map(client_worker, jobs(port, ROUND_SECONDS, traffic))
                        total = totals[traffic][kind]
                        total["elapsed"] += time.perf_counter() - started
                        total["cpu"] += cpu_seconds(server.pid) - cpu_before
                        for latencies, errors in results:
                            total["latencies"] += latencies
                            total["errors"] += errors
    finally:
        for _, server in servers.values():
            server.terminate()
            server.wait(timeout=30)
    return {
        traffic: {kind: summary(kind, total) for kind, total in by_kind.items()}
        for traffic, by_kind in totals.items()
    }


def summary(kind: str, total: dict) -> dict:
    latencies = sorted(total["latencies"])
    if not latencies:
        raise RuntimeError(f"{kind}: no request succeeded")
    return {
        "server": kind,
        "requests": len(latencies),
        "errors": total["errors"],
        "throughput_rps": len(latencies) / total["elapsed"],
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "server_cpu_us": total["cpu"] / len(latencies) * 1e6,
    }


TRAFFIC = {
    "corpus": "the guard corpus: shell commands the guards deny, rewrite or allow",
    "everyday": "everyday traffic: ordinary shell commands and file tools",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="per server and traffic")
    parser.add_argument("--clients", type=int, default=16, help="concurrent connections in all")
    parser.add_argument("--processes", type=int, default=2, help="load-generating processes")
    parser.add_argument(
        "--traffic", nargs="+", choices=TRAFFIC, default=list(TRAFFIC), help="request mixes"
    )
    parser.add_argument(
        "--policies", metavar="DIR", help="seed the server with these instead of the default pack"
    )
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--serve", choices=KINDS, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        serve(options.serve, options.port, options.db)
        return 0

    with tempfile.TemporaryDirectory(prefix="hookgate-bench-") as tmp:
        db = f"sqlite:///{Path(tmp) / 'server.db'}"
        token = prepare_db(db, options.policies)
        measured = measure(db, token, options)
    print(
        f"{options.clients} concurrent clients, {options.seconds:g} s per server and traffic in "
        f"rounds of {ROUND_SECONDS:g} s after {WARM_UP_SECONDS:g} s of warm-up, loopback, "
        f"1 uvicorn worker ({implementations()}), {os.cpu_count()} CPUs"
    )
    results: dict[str, dict] = {}
    for traffic, servers in measured.items():
        results[traffic] = report(traffic, servers["bare"], servers["hookgate"], options)
    if "corpus" in measured and options.policies is None:
        ours, theirs = against_regorus(min(options.seconds, 5.0) / 2)
        results["claude_corpus_bodies_us"] = {"hookgate": ours * 1e6, "regorus": theirs * 1e6}
        print(
            f"the corpus's Claude-shaped bodies alone, in process: hookgate {ours * 1e6:.0f} µs, "
            f"regorus (Rust, the same pack and builtins) {theirs * 1e6:.0f} µs per evaluation"
        )
    if options.json:
        Path(options.json).write_text(json.dumps(results))
    met = all(
        results[t]["ratio"] >= 0.7 and results[t]["hookgate"]["errors"] == 0 for t in measured
    )
    return 0 if met else 1


def report(traffic: str, bare: dict, hookgate: dict, options: argparse.Namespace) -> dict:
    """Print one traffic mix's figures; return them."""
    ratio = hookgate["throughput_rps"] / bare["throughput_rps"]
    evaluation = engine_alone(min(options.seconds, 5.0), traffic, options.policies)
    print(f"\n{TRAFFIC[traffic]} ({len(bodies(traffic))} distinct bodies)")
    print(
        f"{'server':10} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'requests':>9} {'errors':>7} "
        f"{'server CPU µs/req':>18}"
    )
    for r in (bare, hookgate):
        print(
            f"{r['server']:10} {r['throughput_rps']:9.0f} {r['p50_ms']:8.2f} "
            f"{r['p99_ms']:8.2f} {r['requests']:9d} {r['errors']:7d} {r['server_cpu_us']:18.0f}"
        )
    # The server's own CPU time per request does not depend on how the clients share the
    # cores with it: what hookgate adds to a bare request, and the evaluation's part of it.
    added = hookgate["server_cpu_us"] - bare["server_cpu_us"]
    budget = bare["server_cpu_us"] / 0.7 - bare["server_cpu_us"]
    print(
        f"hookgate adds {added:.0f} µs of server CPU per request (0.7x leaves {budget:.0f}); the "
        f"engine alone (in process, same bodies, no HTTP) takes {evaluation * 1e6:.0f} µs per "
        f"evaluation"
    )
    verdict = "meets" if ratio >= 0.7 else "misses"
    print(f"hookgate / bare throughput: {ratio:.2f} ({verdict} the 0.7 target)")
    return {
        "bare": bare,
        "hookgate": hookgate,
        "ratio": ratio,
        "engine_us_per_evaluation": evaluation * 1e6,
    }


if __name__ == "__main__":
    sys.exit(main())
