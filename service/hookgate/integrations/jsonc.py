"""Minimal, byte-preserving edits of JSON-with-comments files (hosts' settings files).

``parse`` reads JSON plus ``//`` and ``/* */`` comments and trailing commas, keeping the span of
every value. ``append`` and ``remove`` then change one object member or array element and leave
every other byte — comments, indentation, key order — exactly as it was. An edit that would
delete a comment raises ``JsoncError`` rather than lose it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_WORD = re.compile(r"[a-z]+")
_LITERALS = {"true": True, "false": False, "null": None}


class JsoncError(ValueError):
    """Text that is not JSON(C), or an edit that cannot keep the file's comments."""


@dataclass
class Node:
    """A value and its span ``[start, end)``; containers list their entries."""

    kind: str  # "object", "array" or "scalar"
    start: int
    end: int
    value: Any = None
    keys: list[str] = field(default_factory=list)  # objects: member names, in order
    entries: list[Node] = field(default_factory=list)  # member values / array items
    entry_starts: list[int] = field(default_factory=list)  # where each entry's text begins

    def get(self, key: str) -> Node | None:
        """An object's member by name (the last one, as JSON parsers do)."""
        for name, node in zip(reversed(self.keys), reversed(self.entries), strict=True):
            if name == key:
                return node
        return None


@dataclass
class Document:
    text: str
    root: Node
    comments: list[tuple[int, int]]  # spans of every comment

    def has_comment_in(self, start: int, end: int) -> bool:
        return any(start < c_end and c_start < end for c_start, c_end in self.comments)


def parse(text: str, name: str = "<json>") -> Document:
    """Parse ``text``; errors name ``name:line:col``."""
    parser = _Parser(text, name)
    parser.skip()
    root = parser.value()
    parser.skip()
    if parser.pos != len(text):
        parser.fail("unexpected text after the JSON value")
    return Document(text, root, parser.comments)


def append(doc: Document, container: Node, key: str | None, value: Any) -> str:
    """The text with ``value`` added as the last member ``key`` of an object (``key`` None: the
    last item of an array), laid out like its siblings (indent, line endings, one line)."""
    text = doc.text
    newline = "\r\n" if "\r\n" in text else "\n"
    unit = _indent_unit(text)
    if container.entries:
        end = container.entries[-1].end
        if "\n" in text[container.start : container.entry_starts[0]]:
            indent = _line_indent(text, container.entry_starts[-1])
            insert = "," + newline + indent + _render(key, value, indent, unit, newline)
        else:
            insert = ", " + _render(key, value, "", None, newline)
        return text[:end] + insert + text[end:]
    outer = _line_indent(text, container.start)
    indent = outer + unit
    entry = newline + indent + _render(key, value, indent, unit, newline)
    if text[container.start + 1 : container.end - 1].strip():  # only comments: keep them after
        return text[: container.start + 1] + entry + text[container.start + 1 :]
    return text[: container.start + 1] + entry + newline + outer + text[container.end - 1 :]


def remove(doc: Document, container: Node, index: int) -> str:
    """The text without entry ``index`` of ``container`` (its separator and the whitespace
    that went with it removed too)."""
    entries, starts = container.entries, container.entry_starts
    if len(entries) == 1:
        start, end = container.start + 1, container.end - 1
        if doc.has_comment_in(start, end):
            start, end = starts[0], _after_comma(doc.text, entries[0].end)
    elif index == len(entries) - 1:
        start, end = entries[index - 1].end, entries[index].end
    else:
        start, end = starts[index], starts[index + 1]
    if doc.has_comment_in(start, end):
        raise JsoncError("the entry to remove shares its lines with a comment; edit it by hand")
    return doc.text[:start] + doc.text[end:]


def _after_comma(text: str, pos: int) -> int:
    rest = text[pos:]
    stripped = rest.lstrip()
    return pos + len(rest) - len(stripped) + 1 if stripped.startswith(",") else pos


def _render(key: str | None, value: Any, indent: str, unit: str | None, newline: str) -> str:
    if unit is None:
        body = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    else:
        body = json.dumps(value, ensure_ascii=False, indent=unit).replace("\n", newline + indent)
    return body if key is None else json.dumps(key, ensure_ascii=False) + ": " + body


def _line_indent(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    line = text[line_start:pos]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _indent_unit(text: str) -> str:
    match = re.search(r"\n([ \t]+)\S", text)
    if not match:
        return "  "
    return "\t" if match.group(1).startswith("\t") else match.group(1)


class _Parser:
    def __init__(self, text: str, name: str) -> None:
        self.text, self.name, self.pos = text, name, 0
        self.comments: list[tuple[int, int]] = []

    def fail(self, message: str) -> None:
        line = self.text.count("\n", 0, self.pos) + 1
        col = self.pos - (self.text.rfind("\n", 0, self.pos) + 1) + 1
        raise JsoncError(f"{self.name}:{line}:{col}: {message}")

    def skip(self) -> None:
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t\r\n\ufeff":
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                end = len(text) if end < 0 else end
                self.comments.append((self.pos, end))
                self.pos = end
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    self.fail("unterminated /* comment")
                self.comments.append((self.pos, end + 2))
                self.pos = end + 2
            else:
                return

    def value(self) -> Node:
        if self.pos >= len(self.text):
            self.fail("expected a value, found the end of the file")
        char = self.text[self.pos]
        if char in "{[":
            return self.container(char)
        start = self.pos
        if char == '"':
            value = self.string()
        else:
            match = _NUMBER.match(self.text, self.pos)
            word = _WORD.match(self.text, self.pos)
            if match:
                value = json.loads(match.group(0))
                self.pos = match.end()
            elif word and word.group(0) in _LITERALS:
                value = _LITERALS[word.group(0)]
                self.pos += len(word.group(0))
            else:
                self.fail("expected a value")
        return Node("scalar", start, self.pos, value)

    def string(self) -> str:
        try:
            value, self.pos = json.decoder.scanstring(self.text, self.pos + 1)
        except json.JSONDecodeError as exc:
            self.pos = exc.pos
            self.fail(f"bad string: {exc.msg}")
        return value

    def container(self, opening: str) -> Node:
        closing = "}" if opening == "{" else "]"
        node = Node("object" if opening == "{" else "array", self.pos, 0)
        self.pos += 1
        while True:
            self.skip()
            if self.text.startswith(closing, self.pos):
                break
            if node.entries:
                if not self.text.startswith(",", self.pos):
                    self.fail(f"expected ',' or '{closing}'")
                self.pos += 1
                self.skip()
                if self.text.startswith(closing, self.pos):  # a trailing comma
                    break
            node.entry_starts.append(self.pos)
            if opening == "{":
                if not self.text.startswith('"', self.pos):
                    self.fail("expected a member name in double quotes")
                node.keys.append(self.string())
                self.skip()
                if not self.text.startswith(":", self.pos):
                    self.fail("expected ':' after the member name")
                self.pos += 1
                self.skip()
            node.entries.append(self.value())
        self.pos += 1
        node.end = self.pos
        if opening == "{":
            node.value = {k: e.value for k, e in zip(node.keys, node.entries, strict=True)}
        else:
            node.value = [e.value for e in node.entries]
        return node
