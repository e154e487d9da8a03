"""The shell state that assignments and builtins change, as the symbolic run tracks it:
variables, arrays and positional parameters (``x=$y``, ``a+=(z)``, ``export``, ``declare -n``,
``set --``, ``shift``, ``unset``, ``read``) and the working directory (``cd``, ``cd -``,
``pushd``, ``popd``).
"""

from __future__ import annotations

from hookgate.shell.expansion import UNKNOWN_VARIABLE, Expander, Value
from hookgate.shell.output import printf_output
from hookgate.shell.parser import assignment
from hookgate.shell.words import Command, Word, join_path

# Builtins that change what later words expand to (variables, positional parameters).
STATE_BUILTINS = frozenset(
    "export declare typeset readonly local set shift unset read mapfile readarray getopts printf".split()
)


class ShellState:
    """The variables and directories part of ``analysis.Run`` (a mixin: the run is one object
    per script). Its state, set by the run: ``vars`` (name → value; ``@`` and ``0`` the
    positional parameters), ``namerefs`` (``declare -n r=x``: r → x), ``cwd`` (None: the
    payload's directory), ``dirs`` (pushd's stack), ``oldpwd`` (False: not set yet) and the
    ``expander`` that expands words with ``vars``."""

    vars: dict[str, Value]
    namerefs: dict[str, str]
    cwd: str | None
    dirs: list[str | None]
    oldpwd: str | None | bool
    expander: Expander

    def assigned(self, w: Word) -> tuple[str, Value]:
        """The variable and value an assignment word gives (``x=$y``, ``a=(p q)``, ``a[1]=p``,
        ``x+=y``, ``a+=(r)``), expanded as bash expands it (no splitting but in ``(…)``)."""
        name, _ = assignment(w)  # type: ignore[misc]
        eq = w.text.find("=")
        if w.items is not None:
            made = [x for item in w.items for x in self.expander.word(item)]
            unknown = [x.kind for x in made if x.kind is not None]
            value = Value([x.text for x in made], unknown[0] if unknown else None)
        else:
            marks = [(a - eq - 1, b - eq - 1, True) for a, b, _ in w.marks or () if a > eq]
            value = self.expander.assigned(w.text[eq + 1 :], marks)
        old = self.vars.get(name)
        bracket = w.text.find("[", 0, eq)
        if bracket > 0:  # a[k]=v: one element of an array
            index = w.text[bracket + 1 : w.text.find("]", bracket)]
            if old is None or not index.isdigit() or int(index) > len(old.items):
                return name, Value([w.text], UNKNOWN_VARIABLE)
            items = list(old.items)
            items[int(index) : int(index) + 1] = [value.text]
            return name, Value(items, old.kind or value.kind)
        if w.text[eq - 1] == "+":  # x+=y, a+=(z)
            if old is None:
                return name, Value([w.text], UNKNOWN_VARIABLE)
            if w.items is not None:
                return name, Value(old.items + value.items, old.kind or value.kind)
            first = (old.items[0] if old.items else "") + value.text
            return name, Value([first, *old.items[1:]], old.kind or value.kind)
        return name, value

    def forget_namerefs(self, assigned: dict) -> None:
        """Assigned variables that are namerefs (and what they name) become unknown."""
        for var in assigned:
            if var in self.namerefs:
                self.vars.pop(var, None)
                self.vars.pop(self.namerefs[var], None)

    def builtin_state(self, name: str, written: list[Word], words: list[Word]) -> None:
        """What ``export x=…``, ``set -- a b``, ``shift``, ``unset x`` and ``read x`` do to the
        variables and positional parameters later words see."""
        if name in ("export", "declare", "typeset", "readonly", "local"):
            # declare -n r=x: r names x (reads and writes go to x), which this model does not
            # follow: both become unknown, and so does x whenever r is assigned later
            nameref = any(w.text[:1] == "-" and "n" in w.text[1:] for w in words[1:])
            for w in written[1:]:
                if assignment(w) is not None:
                    var, value = self.assigned(w)
                    self.vars[var] = value
                    if nameref:
                        self.namerefs[var] = value.text
                    self.forget_namerefs({var: value})
        elif name == "set":
            args = words[1:]
            texts = [w.text for w in args]
            if "--" in texts:
                args = args[texts.index("--") + 1 :]
            elif not texts or texts[0].startswith(("-", "+")):
                return
            kinds = [w.kind for w in args if w.kind is not None]
            self.vars["@"] = Value([w.text for w in args], kinds[0] if kinds else None)
        elif name == "shift":
            pos = self.vars.get("@")
            n = words[1].text if len(words) > 1 else "1"
            if pos is not None and n.isdigit():
                self.vars["@"] = Value(pos.items[int(n) :], pos.kind)
            else:
                self.vars.pop("@", None)
        elif name == "printf":
            self.printf_assigned(words)
        elif name == "unset":
            for w in words[1:]:
                if w.text.isidentifier():
                    self.vars[w.text] = Value([""])
        else:  # read, mapfile, readarray, getopts: values the line does not show
            for w in words[1:]:
                if w.text.isidentifier():
                    self.vars.pop(w.text, None)

    def printf_assigned(self, words: list[Word]) -> None:
        """``printf -v VAR FORMAT ARGS`` (also ``-vVAR``): VAR holds what printf would print;
        unknown when the line does not show it. Any other printf sets nothing."""
        first = words[1].text if len(words) > 1 else ""
        if first == "-v" and len(words) > 2:
            var, rest = words[2].text, words[3:]
        elif first.startswith("-v") and len(first) > 2:
            var, rest = first[2:], words[2:]
        else:
            return
        known = var.isidentifier() and rest and all(w.kind is None for w in rest)
        text = printf_output([w.text for w in rest], self.expander.charge) if known else None
        if text is None:  # printf -v 'a[1]' …, or what it prints is not shown: unknown
            self.vars.pop(var.split("[", 1)[0], None)
        else:
            self.vars[var] = Value([text])

    def change_dir(self, cmd: Command) -> None:
        """The directory ``cd``, ``cd -``, ``pushd`` and ``popd`` move later commands to (and
        ``$OLDPWD``); a ``cd`` bash would refuse (``popd`` of an empty stack) changes nothing."""
        args = [w.text for w in cmd.words[1:] if not (w.text[:1] == "-" and len(w.text) > 1)]
        old = self.cwd
        if cmd.name == "popd":
            if not self.dirs:
                return
            if args and args[0][:1] in "+-":  # popd +N drops an entry, the directory stays
                self.dirs.pop(0 if args[0][:1] == "+" else -1)
                return
            self.cwd = self.dirs.pop()
        elif cmd.name == "pushd":
            if not args or args[0][:1] in "+-":  # swap or rotate the stack
                if not self.dirs:
                    return
                self.cwd, self.dirs[-1] = self.dirs[-1], self.cwd
            else:
                self.dirs.append(old)
                self.cwd = join_path(old, args[0])
        elif args[:1] == ["-"]:
            if self.oldpwd is False:
                return  # OLDPWD not set: cd - fails
            self.cwd = self.oldpwd  # type: ignore[assignment]
        else:
            self.cwd = _cd_target(cmd, old)
        self.oldpwd = old
        if old is None:
            self.vars.pop("OLDPWD", None)  # the payload's directory: not known in the line
        else:
            self.vars["OLDPWD"] = Value([old])


def _cd_target(cmd: Command, cwd: str | None) -> str | None:
    args = [w.text for w in cmd.words[1:] if not (w.text.startswith("-") and len(w.text) > 1)]
    if not args:
        return "~"
    if args[0] == "-":
        return cwd
    return join_path(cwd, args[0])
