"""A longer fuzzing run of the hook path, in process: normalize → evaluate (default pack) →
render, for every host.

    .venv/bin/python bench/fuzz_eval.py [--seconds 60] [--crashes DIR]

With atheris installed (``pip install -e '.[fuzz]'``) the inputs come from libFuzzer's
coverage-guided mutator over hookgate's own code, seeded with each host's example payloads;
without it, from a hypothesis-driven loop (random and mutated payloads) for the same time.

A crash is any of: an exception out of ``Engine.evaluate`` or the renderer, a response that is
not a JSON object with exit code 0, payload content (a marker planted in most inputs) in an
error message or on stderr, or one decision taking longer than ``HANG_FACTOR`` times the
engine's timeout. Each crash is saved under ``--crashes`` as ``<host>-<n>.bin`` (the stdin that
caused it); the run goes on. Prints the engine used, the cases run and the crashes found; exits
1 if there was any.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "tests" / "data" / "hosts" / "payloads"
HOSTS = ("claude", "codex", "copilot", "gemini", "cursor", "amplifier")
MARKER = b"sk-live-FUZZ-marker-0000"
HANG_FACTOR = 2


class Run:
    """The engine under test and what the run found so far."""

    def __init__(self, crashes: Path) -> None:
        from hookgate.engine import TIMEOUT, Engine
        from hookgate.sources import default_pack_path

        self.engine = Engine.from_paths([default_pack_path()])
        self.hang_after = HANG_FACTOR * TIMEOUT
        self.crash_dir = crashes
        self.cases = 0
        self.crashes: dict[str, int] = {}  # kind -> count

    def check(self, host: str, stdin: bytes) -> None:
        """Evaluate one input for ``host``; record a crash if the contract broke."""
        self.cases += 1
        started = time.monotonic()
        try:
            decision = self.engine.evaluate(stdin, host)
            response = decision.response(host)
            json.dumps(response.stdout)
        except Exception as exc:  # the thing being looked for: report it, keep fuzzing
            where = traceback.extract_tb(exc.__traceback__)[-1]
            self._crash(f"{type(exc).__name__} at {where.filename}:{where.lineno}", host, stdin)
            return
        took = time.monotonic() - started
        if response.exit_code != 0 or not isinstance(response.stdout, dict):
            self._crash("invalid response", host, stdin)
        if MARKER.decode() in response.stderr + "\n".join(decision.errors):
            self._crash("payload content in an error", host, stdin)
        if took > self.hang_after:
            self._crash(f"slower than {self.hang_after:g}s", host, stdin)

    def _crash(self, kind: str, host: str, stdin: bytes) -> None:
        self.crashes[kind] = self.crashes.get(kind, 0) + 1
        self.crash_dir.mkdir(parents=True, exist_ok=True)
        path = self.crash_dir / f"{host}-{sum(self.crashes.values())}.bin"
        path.write_bytes(stdin)
        print(f"crash: {kind} ({host}, saved to {path})", file=sys.stderr, flush=True)

    def report(self, engine: str, seconds: float) -> int:
        found = sum(self.crashes.values())
        print(f"engine: {engine}; {seconds:g} s")
        print(f"cases run: {self.cases}")
        print(f"crashes found: {found}")
        for kind, count in sorted(self.crashes.items()):
            print(f"  {count} × {kind}")
        return 1 if found else 0


def seeds() -> list[tuple[str, bytes]]:
    """(host, payload) for every example payload, the host read from its file name."""
    out = []
    for path in sorted(SEEDS.glob("*.json")):
        host = path.name.split("-")[0]
        if host in HOSTS and path.name != "amplifier-native-tool-pre.json":
            out.append((host, path.read_bytes()))
    return out


def planted(data: bytes, at: int) -> bytes:
    """``data`` with the marker inserted at ``at`` (modulo its length)."""
    at = at % (len(data) + 1)
    return data[:at] + MARKER + data[at:]


def run_atheris(run: Run, seconds: float) -> None:
    import atheris

    deadline = time.monotonic() + seconds

    def one_input(data: bytes) -> None:
        if time.monotonic() > deadline:
            # libFuzzer ends with C's exit(), which skips Python's: report, then leave.
            code = run.report("atheris (libFuzzer, coverage-guided)", seconds)
            sys.stdout.flush()
            os._exit(code)
        if len(data) < 2:
            return
        # Byte 0 picks the host; an odd byte 1 plants the marker (at a place it picks), an
        # even one leaves the input whole, so that valid payloads reach the policies.
        host = HOSTS[data[0] % len(HOSTS)]
        stdin = planted(data[2:], data[1] * 7) if data[1] % 2 else data[2:]
        run.check(host, stdin)

    corpus = Path(tempfile.mkdtemp(prefix="hookgate-fuzz-corpus-"))
    for n, (host, payload) in enumerate(seeds()):
        (corpus / f"seed-{n}").write_bytes(bytes([HOSTS.index(host), 0]) + payload)
    argv = [sys.argv[0], str(corpus), f"-max_total_time={int(seconds) + 5}", "-rss_limit_mb=4096"]
    atheris.Setup(argv, one_input)
    atheris.Fuzz()


def run_hypothesis(run: Run, seconds: float) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    examples = seeds()

    @st.composite
    def inputs(draw: st.DrawFn) -> tuple[str, bytes]:
        host, payload = draw(st.sampled_from(examples))
        host = draw(st.sampled_from([host, *HOSTS]))
        noise = st.binary(max_size=200)
        kind = draw(st.sampled_from(["bytes", "cut", "splice", "retype"]))
        if kind == "bytes":
            data = draw(noise)
        elif kind == "cut":
            cut = draw(st.integers(0, len(payload)))
            data = payload[:cut] + draw(noise)
        elif kind == "splice":
            start = draw(st.integers(0, len(payload)))
            end = draw(st.integers(start, len(payload)))
            data = payload[:start] + draw(noise) + payload[end:]
        else:
            return host, retyped(draw, {"x_marker": MARKER.decode(), **json.loads(payload)})
        return host, planted(data, draw(st.integers(0, 1 << 16)))

    deadline = time.monotonic() + seconds

    @settings(
        max_examples=10**9,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=inputs())
    def loop(case: tuple[str, bytes]) -> None:
        if time.monotonic() > deadline:
            raise _Done
        run.check(*case)

    try:
        loop()
    except _Done:
        pass


class _Done(Exception):
    """Ends the hypothesis loop at the deadline."""


def retyped(draw: Any, payload: dict) -> bytes:
    """``payload`` with some fields (at any depth) given a value of another JSON type."""
    from hypothesis import strategies as st

    values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=16),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
        max_leaves=10,
    )

    def walk(value: object) -> object:
        if isinstance(value, dict):
            return {k: draw(values) if draw(st.booleans()) else walk(v) for k, v in value.items()}
        return value

    return json.dumps(walk(payload), allow_nan=True).encode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to fuzz")
    parser.add_argument(
        "--crashes",
        type=Path,
        default=Path(tempfile.gettempdir()) / "hookgate-fuzz-crashes",
        help="where to save the inputs that crashed",
    )
    parser.add_argument(
        "--engine",
        choices=("auto", "atheris", "hypothesis"),
        default="auto",
        help="auto: atheris when installed",
    )
    args = parser.parse_args()
    use_atheris = args.engine == "atheris"
    if args.engine == "auto":
        try:
            import atheris  # noqa: F401
        except ImportError:
            use_atheris = False
        else:
            use_atheris = True
    if use_atheris:
        import atheris

        with atheris.instrument_imports(include=["hookgate"]):
            run = Run(args.crashes)
        run_atheris(run, args.seconds)  # does not return
    run = Run(args.crashes)
    run_hypothesis(run, args.seconds)
    return run.report("hypothesis loop", args.seconds)


if __name__ == "__main__":
    sys.exit(main())
