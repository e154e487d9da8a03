"""Security headers on every answer the server gives (added by the gate as a response starts).

- ``X-Content-Type-Options: nosniff``; ``X-Frame-Options: DENY`` and CSP ``frame-ancestors
  'none'``, so no other page can frame the signed-in console (clickjacking);
  ``Referrer-Policy: same-origin``, so a console URL (its filters) leaks to no other site
  (not ``no-referrer``: under it browsers send ``Origin: null`` on the console's own form
  posts, and the sign-in's origin check could not tell them from another site's).
- The console's pages get a Content-Security-Policy they work under: their scripts and styles
  are the console's own files (``static/``), plus the inline ``style`` attributes the templates
  and htmx use; nothing else loads, forms post only to the console, no ``<base>``.
- ``Cache-Control: no-store`` unless the route set its own (the bundle's ``no-cache`` with its
  ETag, the static files' ``max-age``): console pages and API answers carry recorded decisions,
  tool output and tokens, which no browser or proxy cache should keep.
"""

from __future__ import annotations

CONSOLE_POLICY = (
    b"default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    b"img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; "
    b"base-uri 'none'"
)
_EVERY = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
)
_CONSOLE = (*_EVERY, (b"content-security-policy", CONSOLE_POLICY))
_OTHER = (*_EVERY, (b"content-security-policy", b"frame-ancestors 'none'"))
_NO_STORE = (b"cache-control", b"no-store")


def secure(path: str, message: dict) -> None:
    """Add the security headers to ``message`` (an ``http.response.start`` of ``path``)."""
    headers = list(message.get("headers", ()))
    headers.extend(_CONSOLE if path.startswith("/console") else _OTHER)
    if not any(name.lower() == b"cache-control" for name, _ in headers):
        headers.append(_NO_STORE)
    message["headers"] = headers
