"""The compile cache a machine has after its first hook calls, built once per test run and
copied into each new HOOKGATE_HOME that asks for it, so that a test waits for no compile of the
default pack (about a second of CPU per home). Entries are keyed by content, so a policy set
that a test writes or changes is still compiled for real; what a first call does with an empty
cache is tested by the tests that give their home none (tests/test_agent_caused.py,
tests/test_faults.py, tests/test_explain.py)."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

_TEMPLATE: list[Path] = []


def _template() -> Path:
    if not _TEMPLATE:
        from hookgate.engine import Engine
        from hookgate.server.store import compose
        from hookgate.sources import default_pack_path

        template = Path(tempfile.mkdtemp(prefix="hookgate-compiled-")) / "compiled"
        Engine.from_paths([default_pack_path()], cache_dir=template)
        Engine.from_sources(*compose({}, {}, base=True), cache_dir=template)
        atexit.register(shutil.rmtree, template.parent, True)
        _TEMPLATE.append(template)
    return _TEMPLATE[0]


def seed_compile_cache(compiled: Path) -> None:
    """Give ``compiled`` (a compile cache directory, e.g. ``$HOOKGATE_HOME/cache/compiled``)
    the default pack and the server's seed set, compiled; nothing if it exists already."""
    if compiled.exists():
        return
    compiled.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    shutil.copytree(_template(), compiled)
