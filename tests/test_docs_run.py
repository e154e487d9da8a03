"""The tutorials and guides run: every shell block and every policy in docs/getting-started/
and docs/guides/ is run or compiled here, page by page, as a reader would follow it.

Each page runs in a directory of its own with a HOME of its own (no ``HOOKGATE_*`` or ``XDG_*``
variable of the machine), its shell blocks one after another in bash (``set -e -o
pipefail``), each starting where the one before ended: its directory and its exported
variables. ``hookgate`` on ``PATH`` is this environment's. A ``rego`` block compiles on its own
unless it is a file (below); blocks of other languages are shown text unless marked.

An HTML comment on the line before a block (blank lines between allowed) says more, as
``<!-- docs-run: NOTE; NOTE -->``:

- ``skip REASON``: the block does not run here, and why (a reason is required);
- ``file PATH``: the block is written to PATH (relative to the page's directory) before the
  next block runs; a ``.rego`` file is compiled too;
- ``checkout``: the block runs in a copy of this checkout (``pip install .``), then the page
  goes on where it was;
- ``server``: a ``hookgate serve`` of the page's HOME (its default SQLite database, so that
  ``hookgate token create`` finds it) runs from this block to the end of the page, with
  ``$HOOKGATE_SERVER`` its address and ``$HOOKGATE_TOKEN`` an admin token of it;
- ``exit N``: the block must end with status N (else 0);
- ``output``: the block is what the shell block before it prints: JSON compares as JSON,
  text line by line in order (other lines may come between; ``…`` matches anything).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from hookgate.engine import Engine
from hookgate.lang.errors import PolicyError

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from server_process import create_token, serving  # noqa: E402 (bench/ is not a package)

PAGES = sorted((ROOT / "docs" / "getting-started").glob("*.md")) + sorted(
    (ROOT / "docs" / "guides").glob("*.md")
)
SHELLS = {"sh", "bash", "shell"}
NOTE = re.compile(r"<!--\s*docs-run:\s*(.*?)\s*-->")
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
BLOCK_SECONDS = 600  # a pip install of hookgate at the load of a shared CI machine
# What the checkout's copy holds: what `pip install .` needs, and the examples a guide uses.
CHECKOUT_PARTS = ("pyproject.toml", "README.md", "service", "grammar", "policies", "deploy")


@dataclass
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    text: str
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def parse_notes(comment: str, where: str) -> dict[str, str]:
    """``NOTE; NOTE``; a skip's reason is the rest of the comment, semicolons and all."""
    notes, parts = {}, comment.split(";")
    for i, part in enumerate(parts):
        name, _, value = part.strip().partition(" ")
        if not name:
            continue
        if name not in {"skip", "file", "checkout", "server", "exit", "output"}:
            raise ValueError(f"{where}: unknown docs-run note {name!r}")
        if name == "skip":
            value = ";".join([value, *parts[i + 1 :]])
        if name in {"skip", "file", "exit"} and not value.strip():
            raise ValueError(f"{where}: docs-run {name} needs a value")
        notes[name] = value.strip()
        if name == "skip":
            break
    return notes


def blocks(page: Path) -> list[Block]:
    return parse(page.read_text(encoding="utf-8"), page)


def parse(text: str, page: Path) -> list[Block]:
    """The fenced blocks of a page's text, each with the notes of the comment before it."""
    lines = text.splitlines()
    found, pending, i = [], "", 0
    while i < len(lines):
        line = lines[i]
        if note := NOTE.search(line):
            pending = note.group(1)
        elif fence := FENCE.match(line):
            indent, lang, body = fence.group(1), fence.group(2), []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i].removeprefix(indent))
                i += 1
            if i == len(lines):
                raise ValueError(f"{page}:{len(lines)}: a block is not closed")
            where = f"{page.relative_to(ROOT)}:{i}"
            notes = parse_notes(pending, where)
            found.append(Block(page, i - len(body), lang, "\n".join(body) + "\n", notes))
            pending = ""
        elif line.strip():
            pending = ""
        i += 1
    return found


def expect_output(block: Block, printed: str) -> None:
    """``printed`` is what ``block`` (an output block) shows."""
    try:
        expected = json.loads(block.text)
    except ValueError:
        expected = None
    if expected is not None:
        # The JSON the block printed: all of its output, or its last line (after what the
        # commands before it printed).
        try:
            shown = json.loads(printed)
        except ValueError:
            shown = json.loads(printed.strip().splitlines()[-1]) if printed.strip() else None
        assert shown == expected, f"{block.where}: printed {printed}"
        return
    actual = printed.splitlines()
    position = 0
    for wanted in filter(str.strip, block.text.splitlines()):
        pattern = re.compile(".*?".join(map(re.escape, wanted.strip().split("…"))))
        while position < len(actual) and not pattern.fullmatch(actual[position].strip()):
            position += 1
        assert position < len(actual), f"{block.where}: no line {wanted!r} in:\n{printed}"
        position += 1


class Reader:
    """One page followed as a reader would: a directory, a HOME, a shell state, a server."""

    def __init__(self, tmp: Path, stack: ExitStack) -> None:
        self.work, self.home, self.state = tmp / "work", tmp / "home", tmp / "state"
        for d in (self.work, self.home, self.state):
            d.mkdir()
        (self.state / "cwd").write_text(str(self.work))
        (self.state / "env").write_text("")
        self.tmp, self.stack, self.checkout, self.server = tmp, stack, None, None
        bin_dir = str(Path(sys.executable).parent)
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("HOOKGATE_", "XDG_", "VIRTUAL_ENV", "PYTHON"))
        }
        self.env |= {"HOME": str(self.home), "PATH": f"{bin_dir}:{os.environ['PATH']}"}
        self.env |= {"GIT_AUTHOR_NAME": "Docs Reader", "GIT_AUTHOR_EMAIL": "reader@example.com"}
        self.env |= {"GIT_COMMITTER_NAME": "Docs Reader", "GIT_COMMITTER_EMAIL": "r@example.com"}
        stack.callback(self.retire_warm)

    def retire_warm(self) -> None:
        """A wired hook the page ran started a warm process of this HOME: it retires now (on
        SIGUSR1, as when its code changes) rather than idle for ten minutes after the test."""
        code = (
            "import os, signal\nfrom hookgate import warm\n"
            "for pid, _, _ in warm.processes(): os.kill(pid, signal.SIGUSR1)"
        )
        subprocess.run([sys.executable, "-c", code], env=self.env, check=True, timeout=60)

    def start_server(self) -> None:
        # The server's own default database (serve's --db default under this HOME), given
        # explicitly so that bench/server_process makes no other choice.
        state = self.home / ".local" / "state" / "hookgate"
        state.mkdir(parents=True, exist_ok=True)
        db = f"sqlite:///{state / 'server.db'}"
        server = self.stack.enter_context(serving(db, env=self.env, log=self.tmp / "server.log"))
        admin = create_token(db, "admin", "docs-run")
        with open(self.state / "env", "a") as env:
            env.write(f"export HOOKGATE_SERVER={server.url} HOOKGATE_TOKEN={admin}\n")
        self.server = server

    def copy_checkout(self) -> Path:
        if self.checkout is None:
            self.checkout = self.tmp / "hookgate"
            self.checkout.mkdir()
            for part in CHECKOUT_PARTS:
                source = ROOT / part
                if source.is_dir():
                    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
                    shutil.copytree(source, self.checkout / part, ignore=ignore)
                else:
                    shutil.copy(source, self.checkout / part)
        return self.checkout

    def run(self, block: Block) -> str:
        s = self.state
        cwd = self.copy_checkout() if "checkout" in block.notes else None
        save = "" if cwd else f'pwd > "{s}/cwd"; '
        script = (
            "set -e -o pipefail\n"
            f"trap 'export -p > \"{s}/env\"; {save}' EXIT\n"
            f'cd "{cwd or self.cwd()}"\n'
            f'source "{s}/env"\n' + block.text
        )
        result = subprocess.run(
            ["bash", "-c", script],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=BLOCK_SECONDS,
        )
        expected = int(block.notes.get("exit", "0"))
        assert result.returncode == expected, (
            f"{block.where} exited {result.returncode} (expected {expected}):\n"
            f"{block.text}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        )
        return result.stdout

    def cwd(self) -> Path:
        """Where the last shell block ended (``pwd`` wrote it with its newline)."""
        return Path((self.state / "cwd").read_text().rstrip("\n"))

    def write(self, block: Block) -> None:
        path = self.cwd() / block.notes["file"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(block.text, encoding="utf-8")


def compile_alone(block: Block) -> None:
    try:
        Engine.from_sources({f"{block.where}.rego": block.text})
    except PolicyError as exc:
        raise AssertionError(f"{block.where} does not compile:\n{exc}") from None


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT / "docs").as_posix())
def test_the_page_runs(page, tmp_path):
    page_blocks = blocks(page)
    with ExitStack() as stack:
        reader, printed = Reader(tmp_path, stack), None
        for block in page_blocks:
            if "skip" in block.notes:
                continue
            if "output" in block.notes:
                assert printed is not None, f"{block.where}: output of no shell block"
                expect_output(block, printed)
                continue
            printed = None
            if "server" in block.notes and reader.server is None:
                reader.start_server()
            if "file" in block.notes:
                reader.write(block)
                if block.lang == "rego":
                    compile_alone(block)
            elif block.lang in SHELLS:
                printed = reader.run(block)
            elif block.lang == "rego":
                compile_alone(block)


def test_every_page_is_followed():
    """A guide or tutorial added later is run too, and a skip says why."""
    names = {p.relative_to(ROOT / "docs").as_posix() for p in PAGES}
    assert {"getting-started/developer.md", "getting-started/security-team.md"} <= names
    assert "guides/write-a-policy.md" in names
    for page in PAGES:
        for block in blocks(page):
            assert block.notes.get("skip", "x").strip(), f"{block.where}: skip without a reason"


def test_the_runner_reads_notes_and_rejects_unknown_ones():
    page = ROOT / "docs" / "guides" / "probe.md"  # only its name is used
    text = (
        "<!-- docs-run: file a/b.rego -->\n\n```rego\npackage a\n```\n"
        "text\n```sh\necho hi\n```\n"
        "<!-- docs-run: exit 3; skip needs a terminal; and a user -->\n```sh\ntop\n```\n"
    )
    found = parse(text, page)
    assert [(b.lang, b.notes) for b in found] == [
        ("rego", {"file": "a/b.rego"}),
        ("sh", {}),
        ("sh", {"exit": "3", "skip": "needs a terminal; and a user"}),
    ]
    with pytest.raises(ValueError, match="unknown docs-run note 'run'"):
        parse("<!-- docs-run: run -->\n```sh\nx\n```\n", page)
    with pytest.raises(ValueError, match="skip needs a value"):
        parse("<!-- docs-run: skip -->\n```sh\nx\n```\n", page)


def test_output_blocks_compare_json_as_json_and_text_in_order():
    page = ROOT / "docs" / "guides" / "probe.md"
    json_block = Block(page, 1, "json", '{"a": 1, "b": [2]}\n')
    expect_output(json_block, '{"b": [2], "a": 1}')
    expect_output(json_block, 'logged in\n{"b": [2], "a": 1}\n')
    with pytest.raises(AssertionError):
        expect_output(json_block, '{"a": 2, "b": [2]}')
    text_block = Block(page, 1, "text", "hosts:\n  claude (user): … runs …\neverything works\n")
    expect_output(text_block, "hosts:\n  claude (user): x runs y\nserver:\neverything works\n")
    with pytest.raises(AssertionError):
        expect_output(text_block, "everything works\nhosts:\n  claude (user): x runs y\n")


def test_the_readme_s_three_lines_are_the_tutorial_s():
    """The README's "Guard an agent in three lines" are commands the developer tutorial runs
    (comments and pip's -q aside), so the front door cannot drift from what is tested."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Guard an agent in three lines", 1)[1].split("\n## ", 1)[0]
    (block,) = [b for b in parse(section, ROOT / "README.md") if b.lang in SHELLS]
    lines = [line.split("#", 1)[0].strip() for line in block.text.splitlines()]
    tutorial = ROOT / "docs" / "getting-started" / "developer.md"
    ran = " ".join(b.text.replace(" -q", "") for b in blocks(tutorial) if b.lang in SHELLS)
    assert len(lines) == 3
    for line in lines:
        assert line in ran, line


def test_the_readme_is_a_front_door():
    """At most 10 KB, and it leads to both tutorials and to every host's page."""
    readme = (ROOT / "README.md").read_bytes()
    assert len(readme) <= 10 * 1024, f"README.md is {len(readme)} bytes"
    text = readme.decode("utf-8")
    pages = [
        *(ROOT / "docs" / "getting-started").glob("*.md"),
        *(ROOT / "docs" / "hosts").glob("*.md"),
    ]
    assert len(pages) >= 8
    for page in pages:
        assert f"({page.relative_to(ROOT).as_posix()})" in text, page.name
