"""docs/reference/environment.md names every environment variable the package reads: a new
``os.environ.get("X")`` (or ``environ["X"]``, ``getenv("X")``, a ``"HOOKGATE_…"`` constant)
without a line on that page fails here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs/reference/environment.md").read_text()
READ = re.compile(
    r"""(?:environ(?:b)?\.get|environ(?:b)?\[|getenv)\(?\s*["']([A-Z][A-Z0-9_]*)["']"""
)
ENV_GET = re.compile(r"""\benv\.get\(\s*["']([A-Z][A-Z0-9_]*)["']""")
OWN = re.compile(r"""["'](HOOKGATE_[A-Z0-9_]+)["']""")


def variables_read(root: Path = ROOT / "service") -> dict[str, str]:
    """Each variable name read in ``root``'s sources → the first file reading it."""
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*.py")):
        text = path.read_text()
        for pattern in (READ, ENV_GET, OWN):
            for name in pattern.findall(text):
                found.setdefault(name, str(path.relative_to(ROOT)))
    return found


def test_every_variable_the_code_reads_is_on_the_page():
    documented = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", PAGE))
    missing = {n: f for n, f in variables_read().items() if n not in documented}
    assert not missing, f"add to docs/reference/environment.md: {missing}"


def test_the_scan_finds_each_spelling(tmp_path):
    (tmp_path / "m.py").write_text(
        'os.environ.get("A_ONE")\nos.environ["B_TWO"]\nos.getenv("C_THREE")\n'
        'env.get("D_FOUR")\nX = "HOOKGATE_FIVE"\nos.environ.get(name)\n'
    )
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        assert set(variables_read(tmp_path)) == {
            "A_ONE",
            "B_TWO",
            "C_THREE",
            "D_FOUR",
            "HOOKGATE_FIVE",
        }
    finally:
        ROOT = saved
