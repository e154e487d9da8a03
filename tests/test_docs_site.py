"""mkdocs.yml's navigation and docs/ agree: every entry is a page that exists, and every
Markdown page under docs/ is in the navigation once (a page left out of it would be built but
unreachable). mkdocs itself is not installed by the test extra: this reads the same YAML and
needs nothing beyond PyYAML, a dependency already."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def nav_pages(nav: list) -> list[str]:
    """Every page path of a mkdocs ``nav``, in order (sections flattened)."""
    pages = []
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += nav_pages(value) if isinstance(value, list) else [value]
    return pages


def site(root: Path = ROOT) -> tuple[Path, list[str]]:
    config = yaml.safe_load((root / "mkdocs.yml").read_text())
    return root / config.get("docs_dir", "docs"), nav_pages(config["nav"])


def problems(root: Path = ROOT) -> list[str]:
    docs, pages = site(root)
    found = [f"in the nav, no such page: {p}" for p in pages if not (docs / p).is_file()]
    found += [f"in the nav twice: {p}" for p in sorted({p for p in pages if pages.count(p) > 1})]
    listed = set(pages)
    found += [
        f"not in the nav: {path.relative_to(docs)}"
        for path in sorted(docs.rglob("*.md"))
        if str(path.relative_to(docs)) not in listed
    ]
    return found


def test_nav_and_pages_agree():
    assert not problems(), "mkdocs.yml nav:\n" + "\n".join(problems())


def test_the_check_finds_a_missing_an_unlisted_and_a_repeated_page(tmp_path):
    (tmp_path / "docs/a").mkdir(parents=True)
    (tmp_path / "docs/index.md").write_text("# Home\n")
    (tmp_path / "docs/a/b.md").write_text("# B\n")
    (tmp_path / "mkdocs.yml").write_text(
        "nav:\n  - Home: index.md\n  - S:\n      - X: gone.md\n      - Again: index.md\n"
    )
    assert problems(tmp_path) == [
        "in the nav, no such page: gone.md",
        "in the nav twice: index.md",
        "not in the nav: a/b.md",
    ]
