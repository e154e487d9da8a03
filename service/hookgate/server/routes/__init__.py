"""The API's routes, one module per resource. ``hookgate.server.app`` adds them in the order
Starlette should try them (the hot ones first)."""
