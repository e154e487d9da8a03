"""One module per schema revision, applied in order by ``hookgate.server.store.migrate``."""
