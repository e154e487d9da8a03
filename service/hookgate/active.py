"""Which policies this machine's hooks run: the paths given, else the last good pulled bundle,
else the built-in default pack.

Above the engine and the bundle client (``sync``), so that the engine knows nothing of where
its policies come from. On the hook's hot path: the bundle client is imported only when no
paths are given.
"""

from __future__ import annotations

from hookgate.engine import Engine


def local_engine(policies: list[str] | None = None) -> tuple[Engine, int | None]:
    """The engine this machine's hooks use: ``policies`` if given, else the last good pulled
    bundle (starting a background refresh when it is stale), else the built-in default pack.
    Returns the engine and the bundle revision it came from (None if none)."""
    from hookgate import sync
    from hookgate.paths import compiled_dir
    from hookgate.sources import default_pack_path

    compiled = compiled_dir()
    if policies:
        return Engine.from_paths(policies, cache_dir=compiled), None
    bundle = sync.active_bundle()
    sync.refresh_if_stale(bundle)
    if bundle is not None:
        origin = f"bundle revision {bundle.revision}"
        engine = Engine.from_sources(
            bundle.policies, bundle.data, cache_dir=compiled, origin=origin
        )
        return engine, bundle.revision
    pack = [default_pack_path()]
    return Engine.from_paths(pack, cache_dir=compiled, origin="default pack"), None
