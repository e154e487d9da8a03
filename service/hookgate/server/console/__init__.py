"""The console at ``/console``: policies and data with their revisions, an editor with
diagnostics, tests, dry-run and impact, a decision-log explorer, and token management for
admins (``pages.py``; its templates and static files beside it)."""

from hookgate.server.console.pages import COOKIE, csrf_token, router

__all__ = ["COOKIE", "csrf_token", "router"]
