"""Bash's arithmetic expansion, ``$((…))``, computed from the line's own text.

Integers as bash keeps them (64 bits, wrapping), its operators and their precedence, numbers in
any base it reads (``0x1f``, ``017``, ``2#101``). What the line does not show makes the result
unknown (None): a variable it does not set, an assignment or ``++`` (they change variables), a
division by zero, anything this parser does not read.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_BITS = 1 << 64

# Binary operators by precedence, loosest first (bash's manual, "ARITHMETIC EVALUATION").
_LEVELS: tuple[tuple[str, ...], ...] = (
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!="),
    ("<=", ">=", "<", ">"),
    ("<<", ">>"),
    ("+", "-"),
    ("*", "/", "%"),
)
_SYMBOLS = sorted(
    {op for level in _LEVELS for op in level} | {"**", "!", "~", "(", ")", "?", ":", ","},
    key=len,
    reverse=True,
)
# What makes the expression change a variable (and ``++``/``--`` next to a name): never
# computed here.
_ASSIGNING = ("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=")


class _Unknown(Exception):
    """The expression cannot be computed from the line's text."""


def evaluate(expression: str, variable: Callable[[str], str | None]) -> int | None:
    """The value of ``expression``; ``variable(name)`` gives a variable's text as the line
    sets it (None when the line does not show it). None when it cannot be computed."""
    try:
        tokens = _tokens(expression)
        parser = _Parser(tokens, variable)
        value = parser.comma()
        if parser.i != len(tokens):
            raise _Unknown
        return value
    except (_Unknown, RecursionError):
        return None


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\n":
            i += 1
            continue
        if c.isalnum() or c in "_#@":
            j = i
            while j < n and (text[j].isalnum() or text[j] in "_#@"):
                j += 1
            out.append(text[i:j])
            i = j
            continue
        if text.startswith(("++", "--"), i):
            # bash's readtok: an increment only after a variable's name or before one;
            # otherwise two signs (``0--1`` is 1).
            after = text[i + 2 :].lstrip(" \t\n")
            named = bool(out) and (out[-1][0].isalpha() or out[-1][0] == "_")
            if named or (after[:1].isalpha() or after[:1] == "_"):
                raise _Unknown
            out.append(c)
            i += 1
            continue
        for op in _ASSIGNING:
            if text.startswith(op, i) and not text.startswith(("==", "<=", ">=", "!="), i):
                raise _Unknown
        for op in _SYMBOLS:
            if text.startswith(op, i):
                out.append(op)
                i += len(op)
                break
        else:
            raise _Unknown
    return out


def _wrap(value: int) -> int:
    value %= _BITS
    return value - _BITS if value >= _BITS // 2 else value


def _number(word: str) -> int:
    """A bash integer constant: decimal, ``0x…``, ``0…`` octal, ``base#digits``."""
    try:
        if "#" in word:
            base, digits = word.split("#", 1)
            return int(digits, int(base)) if 2 <= int(base) <= 36 else _fail()
        if word[:2] in ("0x", "0X"):
            return int(word[2:], 16)
        if word.startswith("0") and len(word) > 1:
            return int(word[1:], 8)
        return int(word, 10)
    except ValueError as e:
        raise _Unknown from e


def _fail() -> int:
    raise _Unknown


class _Parser:
    def __init__(self, tokens: list[str], variable: Callable[[str], str | None]) -> None:
        self.tokens = tokens
        self.i = 0
        self.variable = variable
        self.depth = 0

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise _Unknown
        self.i += 1
        return token

    def comma(self) -> int:
        value = self.ternary()
        while self.peek() == ",":
            self.take()
            value = self.ternary()
        return value

    def ternary(self) -> int:
        condition = self.binary(0)
        if self.peek() != "?":
            return condition
        self.take()
        yes = self.comma()
        self.take(":")
        no = self.ternary()
        return yes if condition else no

    def binary(self, level: int) -> int:
        if level == len(_LEVELS):
            return self.power()
        left = self.binary(level + 1)
        while self.peek() in _LEVELS[level]:
            op = self.take()
            right = self.binary(level + 1)
            left = _apply(op, left, right)
        return left

    def power(self) -> int:
        base = self.unary()
        if self.peek() == "**":
            self.take()
            exponent = self.power()  # right-associative
            if exponent < 0 or exponent > 4096:
                raise _Unknown
            return _wrap(base**exponent)
        return base

    def unary(self) -> int:
        token = self.peek()
        if token in ("-", "+", "!", "~"):
            self.take()
            value = self.unary()
            if token == "-":
                return _wrap(-value)
            if token == "!":
                return int(not value)
            if token == "~":
                return _wrap(~value)
            return value
        return self.primary()

    def primary(self) -> int:
        token = self.take()
        if token == "(":
            value = self.comma()
            self.take(")")
            return value
        if token[0].isdigit():
            return _wrap(_number(token))
        if token[0].isalpha() or token[0] == "_":
            return self.variable_value(token)
        raise _Unknown

    def variable_value(self, name: str) -> int:
        text = self.variable(name)
        if text is None:
            raise _Unknown
        text = text.strip()
        if not text:
            return 0
        self.depth += 1  # a variable holding an expression is evaluated in turn, as in bash
        if self.depth > 16:
            raise _Unknown
        inner = _Parser(_tokens(text), self.variable)
        inner.depth = self.depth
        value = inner.comma()
        if inner.i != len(inner.tokens):
            raise _Unknown
        self.depth -= 1
        return value


def _apply(op: str, a: int, b: int) -> int:
    if op in ("/", "%"):
        if b == 0:
            raise _Unknown  # bash: division by 0, the command fails
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)  # C truncates toward 0
        return _wrap(q if op == "/" else a - q * b)
    if op in ("<<", ">>"):
        if not 0 <= b < 64:
            b %= 64
        return _wrap(a << b) if op == "<<" else a >> b
    return _wrap(_OPERATORS[op](a, b))


# The operators whose result is a plain function of both operands (the rest are in _apply).
_OPERATORS: dict[str, Callable[[int, int], int]] = {
    "||": lambda x, y: int(bool(x) or bool(y)),
    "&&": lambda x, y: int(bool(x) and bool(y)),
    "|": lambda x, y: x | y,
    "^": lambda x, y: x ^ y,
    "&": lambda x, y: x & y,
    "==": lambda x, y: int(x == y),
    "!=": lambda x, y: int(x != y),
    "<=": lambda x, y: int(x <= y),
    ">=": lambda x, y: int(x >= y),
    "<": lambda x, y: int(x < y),
    ">": lambda x, y: int(x > y),
    "+": lambda x, y: x + y,
    "-": lambda x, y: x - y,
    "*": lambda x, y: x * y,
}
