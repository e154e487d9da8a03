"""PowerShell command lines for policies: a thin wrapper of ``hookgate.shell.powershell``."""

from __future__ import annotations

from hookgate.builtins.registry import BuiltinError, builtin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_COMMAND_CHARS = 65536  # as shell.commands: a longer line is the oversize guard's


@builtin("powershell.commands", "powershell", 1)
def commands(line: Any) -> list[dict]:
    """The simple commands of a PowerShell command line, in ``shell.commands``' shape.

    Cmdlets and aliases act as the POSIX command that does the same, so the guards written
    for sh apply: ``Remove-Item``/``rm``/``del``/``rd``/``ri``/``erase`` with ``-Recurse``
    and ``-Force`` (any unambiguous prefix) are ``rm -r -f``; ``Move-Item`` is ``mv``;
    ``Copy-Item`` is ``cp``; ``Set-Content``/``Clear-Content``/``Out-File`` list their file
    in ``writes`` (``Add-Content``, ``Out-File -Append``, ``>>`` in ``appends``);
    ``New-Item -ItemType SymbolicLink`` is ``ln -s``; ``$env:X = v`` is a command with an empty
    name and ``env`` ``{X: v}``, and ``X`` is in every later command's ``env``;
    ``Set-Location``/``Push-Location``/``Pop-Location`` set later commands' ``cwd``; .NET file
    and directory calls (``[System.IO.File]::WriteAllText(p, t)``, ``[IO.Directory]::Delete(p,
    $true)``) are the commands that do the same; ``@name`` splats a hashtable the line set; each
    command's ``files`` are its write effects (docs/reference/effects.md). What ``Invoke-Expression``/``iex`` (of a string or a variable
    set on the line), a script block, ``&``, ``Start-Process``, ``powershell -Command`` and
    ``cmd /c`` run are commands too (``via`` names the runner; their ``span`` is null).
    ``Invoke-Expression`` of what a download returns (``irm u | iex``, ``iex (iwr u).Content``,
    ``$s = irm u; iex $s``, a ``WebClient``'s ``DownloadString``) is an ``iex`` command whose
    ``fed_by`` is ``["curl"]``, as ``curl … | sh``'s shell's is; every other ``fed_by`` is
    empty.
    Windows paths become POSIX ones: ``$HOME``, ``$env:USERPROFILE``, ``C:\\Users\\<name>``
    are ``~``, ``\\`` is ``/``. Errors on lines longer than 65,536 characters.
    """
    if not isinstance(line, str):
        raise BuiltinError("powershell.commands: operand 1 must be a string")
    if len(line) > MAX_COMMAND_CHARS:
        raise BuiltinError("powershell.commands: unsupported: command longer than 65536 characters")
    from hookgate.shell import powershell

    return powershell.commands(line)
