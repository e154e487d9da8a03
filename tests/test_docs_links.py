"""Every relative link and #anchor of every Markdown file of the repository resolves: the file
(or directory) exists, and an anchor names a heading of the target as GitHub slugs it (or an
explicit ``<a id>``/``<a name>``). Links inside code (fenced blocks, inline spans) are code, not
links; links to other sites are not fetched.

GitHub's heading anchors are ``hookgate.refdocs.anchor`` (the generated pages link with it); a
repeated anchor gets ``-1``, ``-2``… in the order of the page.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from hookgate.refdocs import anchor

ROOT = Path(__file__).resolve().parents[1]
SKIP_DIRS = {".git", ".venv", "node_modules", "site", "build", "dist"}

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
# [text](target "title") and ![alt](target); the target may be <bracketed>.
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(\S+)")
HTML_ANCHOR = re.compile(r"<a\s[^>]*(?:id|name)=\"([^\"]+)\"", re.I)
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def markdown_files(root: Path = ROOT) -> list[Path]:
    found = []
    for path in sorted(root.rglob("*.md")):
        if not SKIP_DIRS.intersection(path.relative_to(root).parts):
            found.append(path)
    return found


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) outside fenced code blocks, inline code spans blanked."""
    lines, fence = [], None
    for number, line in enumerate(text.splitlines(), 1):
        opened = FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
            continue
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        lines.append((number, INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)))
    return lines


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    text = path.read_text(encoding="utf-8")
    for _, line in _heading_lines(text):
        match = HEADING.match(line)
        base = anchor(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    found.update(HTML_ANCHOR.findall(text))
    return found


def _heading_lines(text: str) -> list[tuple[int, str]]:
    # Headings keep their code spans (the slug keeps code's text), so read the raw lines.
    raw = text.splitlines()
    return [(n, raw[n - 1]) for n, _ in prose_lines(text) if HEADING.match(raw[n - 1])]


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    """Each relative link or anchor of ``path`` that does not resolve, as ``file:line: …``."""
    problems = []
    text = path.read_text(encoding="utf-8")
    for number, line in prose_lines(text):
        targets = [m.group(1) for m in LINK.finditer(line)]
        targets += [m.group(1) for m in REFERENCE.finditer(line)]
        for target in targets:
            target = target.strip("<>")
            if EXTERNAL.match(target) or target.startswith("//"):
                continue
            where = f"{path.relative_to(root)}:{number}: {target}"
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / unquote(file_part)).resolve() if file_part else path
            if not dest.exists():
                problems.append(f"{where}: no such file")
            elif anchor and dest.suffix == ".md" and unquote(anchor) not in anchors(dest):
                problems.append(f"{where}: no heading with this anchor in {dest.name}")
    return problems


def test_every_relative_link_and_anchor_resolves():
    problems = [p for path in markdown_files() for p in broken_links(path)]
    assert not problems, "broken links:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("What the agent cannot turn off", "what-the-agent-cannot-turn-off"),
        ("git's own channels", "gits-own-channels"),
        (
            "Words the line shows, and words it does not",
            "words-the-line-shows-and-words-it-does-not",
        ),
        ("`force_push`", "force_push"),
        ("GET /v1/policies/{id}", "get-v1policiesid"),
        (
            "Managed install: hookgate where the agent's user cannot write",
            "managed-install-hookgate-where-the-agents-user-cannot-write",
        ),
        ("The [console](x.md) — *new*", "the-console--new"),
        (
            "Prompt injection: channels, normalisation, corpora",
            "prompt-injection-channels-normalisation-corpora",
        ),
    ],
)
def test_anchor_follows_githubs_rules(heading, expected):
    assert anchor(heading) == expected


def test_the_checker_finds_a_missing_file_a_missing_anchor_and_ignores_code(tmp_path):
    (tmp_path / "a.md").write_text(
        '# Top\n\n## Same\n\n## Same\n\n<a id="here"></a>\n\n'
        "[ok](b.md#part) [ok2](#same-1) [ok3](#here) [dir](sub) [web](https://example.com/x)\n"
        "[gone](c.md) [bad](b.md#nowhere) [bad2](#same-2)\n"
        "`[code](nowhere.md)`\n\n```md\n[fenced](nowhere.md)\n```\n\n[ref]: missing.md\n"
    )
    (tmp_path / "b.md").write_text("# B\n\n## Part\n")
    (tmp_path / "sub").mkdir()
    problems = broken_links(tmp_path / "a.md", tmp_path)
    assert [p.split(": ", 1)[1] for p in problems] == [
        "c.md: no such file",
        "b.md#nowhere: no heading with this anchor in b.md",
        "#same-2: no heading with this anchor in a.md",
        "missing.md: no such file",
    ]
    assert problems[0].startswith("a.md:10: ")
