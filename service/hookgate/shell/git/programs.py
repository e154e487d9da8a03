"""The programs a git command makes git run through the shell: program settings (``-c
core.editor=…``, ``alias.x='!…'``), ``GIT_EDITOR``-like variables, options naming the other
side of a transport (``--receive-pack``, ``--upload-pack``) and ``ext::`` remotes.
"""

from __future__ import annotations

from hookgate.shell.git.configchange import config_bool

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# Settings whose value is a program git runs (through the shell when it has shell syntax): the
# variable names, for any subsection (diff.<driver>.textconv), and those whose value runs only
# after a "!" (aliases, credential helpers).
_PROGRAM_VARIABLES = frozenset(
    (
        "core.editor", "core.pager", "core.sshcommand", "core.askpass", "core.gitproxy",
        "core.fsmonitor", "sequence.editor", "diff.external", "gpg.program",
        "gpg.ssh.program", "gpg.x509.program", "web.browser", "interactive.difffilter",
        "diff.*.textconv", "diff.*.command", "filter.*.clean", "filter.*.smudge",
        "filter.*.process", "merge.*.driver", "difftool.*.cmd", "mergetool.*.cmd",
        "man.*.cmd", "browser.*.cmd", "remote.*.receivepack",
        "remote.*.uploadpack", "sendemail.sendmailcmd",
        "sendemail.tocmd", "sendemail.cccmd", "sendemail.smtpserver", "uploadpack.packobjectshook",
    )
)  # fmt: skip
_BANG_VARIABLES = frozenset(("credential.helper", "credential.*.helper"))
# Environment variables that name a program git runs.
PROGRAM_ENV = frozenset(
    (
        "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "GIT_SSH_COMMAND", "GIT_SSH",
        "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PROXY_COMMAND", "EDITOR",
        "VISUAL", "PAGER",
    )
)  # fmt: skip


def _shape(key: str) -> str:
    """``diff.foo.textconv`` as ``diff.*.textconv``; a two-part key as it is."""
    first, _, rest = key.partition(".")
    if "." not in rest:
        return key
    return first + ".*." + rest.rpartition(".")[2]


def program_script(key: str, value: str) -> str | None:
    """The shell script a setting makes git run, or None (not a program setting, or a value
    that names no program: ``core.pager=false``, ``core.fsmonitor=true``, a credential helper
    without ``!``, which is ``git credential-<name>``)."""
    shape = _shape(key)
    if key.startswith("alias.") or shape in _BANG_VARIABLES:
        return value[1:] if value.startswith("!") else None
    if (
        key in _PROGRAM_VARIABLES
        or shape in _PROGRAM_VARIABLES
        or (key.startswith("pager.") and key.count(".") == 1)
    ):
        if config_bool(value) is not None and not value.strip().isdigit():
            return None  # pager.log=false, core.fsmonitor=true: no program
        return value if value.strip() else None
    return None


def program_scripts(parsed: dict[str, Any], env: dict[str, Any]) -> list[str]:
    """The scripts a git command's own settings make it run: ``-c``/``--config-env``/
    ``GIT_CONFIG_*`` program settings (``-c core.editor='…'``), ``GIT_EDITOR``-like variables
    and a shell alias (``!…``) from wherever it was defined."""
    out = []
    for key, value in parsed["config"].items():
        if not key.startswith("alias."):
            script = program_script(key, value)
            if script:
                out.append(script)
    for name in sorted(PROGRAM_ENV.intersection(env)):  # (most commands set none of them)
        value = env[name]
        if isinstance(value, str) and value.strip():
            out.append(value)
    if parsed.get("script"):
        out.append(parsed["script"])
    names = _PROGRAM_OPTIONS.get(parsed["subcommand"] or "", ())
    args = parsed["args"]
    for k, a in enumerate(args):
        if a == "--":
            break
        for name in names:
            glued = name + "=" if name.startswith("--") else name
            if a == name and k + 1 < len(args):
                out.append(args[k + 1])
            elif a.startswith(glued) and a != name:
                out.append(a[len(glued) :])
        if a.startswith("ext::"):
            out.append(ext_command(a[5:]))
    return out


# Options whose value is a program git runs through the shell: the other side of a local or
# ssh transport (git push --receive-pack='…' ../repo.git runs it here).
_PROGRAM_OPTIONS = {
    "push": ("--receive-pack", "--exec"),
    "send-pack": ("--receive-pack", "--exec"),
    "fetch": ("--upload-pack",),
    "pull": ("--upload-pack",),
    "ls-remote": ("--upload-pack",),
    "clone": ("--upload-pack", "-u"),
    "archive": ("--exec",),
    "fetch-pack": ("--upload-pack", "--exec"),
}
_EXT_ESCAPES = {" ": " ", "%": "%", "s": "git-upload-pack", "S": "git-upload-pack"}


def ext_command(spec: str) -> str:
    """The command an ``ext::`` remote runs (``ext::sh -c touch% x``), as shell words: blanks
    separate arguments, ``% `` is a blank and ``%%`` a ``%`` in one, ``%s``/``%S`` the service."""
    args: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(spec):
        c = spec[i]
        if c == "%" and i + 1 < len(spec):
            current.append(_EXT_ESCAPES.get(spec[i + 1], ""))
            i += 2
            continue
        if c == " ":
            if current:
                args.append("".join(current))
            current = []
        else:
            current.append(c)
        i += 1
    if current:
        args.append("".join(current))
    return " ".join("'" + a.replace("'", "'\\''") + "'" for a in args)
