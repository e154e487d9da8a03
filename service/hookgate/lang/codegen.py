"""The Python module a policy set compiles to, while the compiler writes it: its functions,
constants and the statements building the ``data`` tree (``GeneratedModule``), one function
at a time (``GeneratedFunction``: its lines, open loops, how a failed literal goes on), and the
error a rule that cannot be compiled raises.
"""

from __future__ import annotations

from typing import Any

from hookgate.lang import ast
from hookgate.lang.documents import Group

# Python refuses more statically nested blocks than this in one function (CO_MAXBLOCKS is 20);
# a body nesting more loops than SPLIT_LOOPS goes on in another function.
_MAX_LOOPS = 18
SPLIT_LOOPS = 12


class CompileError(Exception):
    def __init__(self, message: str, loc: ast.Loc, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.hint = hint


class GeneratedModule:
    """The generated module under construction: its functions, then the statements building
    the data tree (``T``) and attaching each group's functions."""

    def __init__(self) -> None:
        self.functions: list[str] = []
        self.tree_ops: list[Any] = []  # "T.package(...)" lines and groups, in creation order
        self.detached: set[Group] = set()  # groups inside a partial object, not at a node
        self.nested: set[Group] = set()  # partial objects with key paths or rules inside
        self.definitions: dict[Group, tuple[list[str], str | None]] = {}
        self.group_names: dict[Group, str] = {}
        self.node_names: dict[tuple, str] = {}
        self.constants: list[Group] = []
        self.memoized: dict[Group, tuple[str, ...]] = {}
        self.constants_src: dict[str, str] = {}  # Python expression → its module-level name
        self.attached: list[str] = []  # statements run once the tree is built (relevance)
        self.count = 0

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def constant(self, expr: str) -> str:
        """The name of a module-level constant holding ``expr``'s value (an immutable one)."""
        name = self.constants_src.get(expr)
        if name is None:
            name = self.constants_src[expr] = f"K{len(self.constants_src)}"
        return name

    def group(self, group: Group) -> str:
        name = self.group_names.get(group)
        if name is None:
            name = self.group_names[group] = f"G{len(self.group_names)}"
        return name

    def node(self, path: tuple) -> str:
        name = self.node_names.get(path)
        if name is None:
            name = self.node_names[path] = f"N{len(self.node_names)}"
        return name

    def source(self) -> str:
        lines = [f"{name} = {expr}" for expr, name in self.constants_src.items()]
        lines += self.functions
        lines.append("T = Tree()")
        for op in self.tree_ops:
            if isinstance(op, Group):
                lines.append(
                    f"{self.group(op)} = T.group({op.kind!r}, {op.path!r}, {op.name!r}, "
                    f"{op.arity!r}, {op.file!r}, {op.line!r}, {op.col!r}, "
                    f"{op not in self.detached})"
                )
            else:
                lines.append(op)
        for group, (defs, default_def) in self.definitions.items():
            name = self.group(group)
            lines.append(f"{name}.defs = ({''.join(d + ', ' for d in defs)})")
            if default_def is not None:
                lines.append(f"{name}.default_def = {default_def}")
            if group in self.nested:
                lines.append(f"{name}.nested = True")
        for path, name in self.node_names.items():
            lines.append(f"{name} = T.node({path!r})")
        lines.append(f"T.constants = ({''.join(self.group(g) + ', ' for g in self.constants)})")
        for group, env in self.memoized.items():
            lines.append(f"{self.group(group)}.memo_env = {env!r}")
        lines += self.attached
        return "\n".join(lines) + "\n"


class GeneratedFunction:
    """One generated function under construction: its body lines, the current indentation,
    the open loops, the name of the evaluation context in scope (``with`` makes another) and
    how to leave when no solution remains."""

    def __init__(
        self,
        module: GeneratedModule,
        name: str,
        params: str,
        exit: str,
        loc: ast.Loc,
        *,
        stop: str = "",
        acc: str = "acc",
    ) -> None:
        self.module = module
        self.name = name
        self.params = params
        self.exit = exit
        self.stop = stop  # the statement that ends the whole search ("": nothing ends it)
        self.acc = acc  # what the body's terminal adds solutions to
        self.loc = loc  # the rule's, for the one error Python's own limits can cause
        self.lines: list[str] = []
        self.prologue: list[str] = []
        self.depth = 1
        self.loops = 0
        self.temps = 0
        self.ctx = "ctx"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def fail(self, cond: str) -> None:
        """Give up the current solution when ``cond`` holds."""
        self.emit(f"if {cond}: {'continue' if self.loops else self.exit}")

    def loop(self, header: str) -> None:
        """Open ``for header:``; what is emitted next runs once per item."""
        if self.loops >= _MAX_LOOPS:
            raise CompileError(
                f"unsupported: more than {_MAX_LOOPS} nested iterations in one body", self.loc
            )
        self.emit(f"for {header}:")
        self.depth += 1
        self.loops += 1
        # tick(), inline: a call per iteration would cost more than the count.
        self.emit(f"if not next({self.ctx}.budget) & 1023: check_budget({self.ctx})")

    def value(self, expr: str) -> str:
        """A name for the value of ``expr``, giving up the solution when it is undefined (a
        bound variable's slot never is)."""
        if is_slot(expr):
            return expr
        t = self.temp()
        self.fail(f"({t} := {expr}) is UNDEFINED")
        return t

    def temp(self) -> str:
        # Numbered per function: equal names in different functions are one string in the
        # marshaled code, which keeps cache entries small.
        self.temps += 1
        return f"_{self.temps}"

    def finish(self, epilogue: str) -> str:
        """Add the function to the module; returns its name."""
        head = [f"def {self.name}({self.params}):"] + ["    " + p for p in self.prologue]
        self.module.functions.append("\n".join([*head, *self.lines, "    " + epilogue]))
        return self.name


def is_slot(expr: str) -> bool:
    """Whether ``expr`` reads a frame slot (``fr[3]``)."""
    return expr.startswith("fr[") and expr.endswith("]") and expr[3:-1].isdigit()


def index_expr(value: str, keys: tuple) -> str:
    """An expression for ``value`` (an expression) at constant ``keys``: up to three string
    keys as dict lookups (the usual ``input.tool_kind``, ``cfg.action``,
    ``input.tool_input.command``), else ``index_path``."""
    if len(keys) > 3 or any(type(k) is not str for k in keys):
        return f"index_path({value}, {keys!r})"
    for k in keys:  # each lookup's object is the one before it, assigned once that is done
        value = f"(_o.get({k!r}, UNDEFINED) if type(_o := {value}) is dict else index(_o, {k!r}))"
    return value
