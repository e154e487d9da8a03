"""Container tools as launchers: what ``docker run``/``exec`` (podman, nerdctl, finch, compose)
runs inside a container, its bind mounts (which host path each container path is) and working
directory, by the [containers] and image sections of ``launchers.txt``.
"""

from __future__ import annotations

from hookgate.shell.launcher_table import TABLES, options_end
from hookgate.shell.words import Word, join_path, normalize_option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def container_runs(name: str, words: list[Word]) -> tuple[Any, int]:
    """``docker run [options] IMAGE cmd…`` and ``docker exec [options] CONTAINER cmd…`` (also
    ``container run``, ``compose run|exec SERVICE cmd…``): the command, the bind mounts (the
    host path each container path is) and the working directory in the container."""
    n = len(words)
    subs = TABLES["container-subcommands"]
    k = options_end(words, 1, subs["globals"])
    if k < n and words[k].text == "container":
        k += 1
    compose = k < n and words[k].text == "compose"
    if compose:
        k = options_end(words, k + 1, subs["compose"])
    if k >= n or words[k].text not in ("run", "exec"):
        return None, n
    sub = words[k].text
    values = TABLES["containers"][name]
    mounts: list[tuple[str, str]] = []
    workdir: str | None = None
    entrypoint: Word | None = None
    j = k + 1
    while j < n:
        a = normalize_option(words[j].text)
        if a == "--" or not a.startswith("-") or a == "-":
            j += a == "--"
            break
        option, eq, value = a.partition("=")
        if not eq and a[:2] in ("-v", "-w") and len(a) > 2:  # -v/:/host, attached
            option, value = a[:2], a[2:]
        elif not eq and option in values and j + 1 < n:
            value = words[j + 1].text
            j += 1
        if option in ("-v", "--volume"):
            mounts += volume(value)
        elif option == "--mount":
            mounts += bind_mount(value)
        elif option in ("-w", "--workdir"):
            workdir = value
        elif option == "--entrypoint":
            entrypoint = Word(value, None, True, [])
        j += 1
    if j >= n:
        return None, n
    inner = words[j + 1 :]
    # the words as a command, and, when the image's entrypoint is a known program, as its
    # arguments too (a local image may carry the same name with another entrypoint)
    runs = [inner] if inner else []
    image = image_name(words[j].text)
    if entrypoint is None and sub == "run":
        program = TABLES["image-entrypoints"].get(image)
        if program is None and inner and inner[0].text.startswith("-"):
            program = TABLES["image-option-programs"].get(image)
        if program is None and not inner:
            program = TABLES["image-commands"].get(image)
        if program:  # one program: a section's entry is "image: program"
            runs.insert(0, [Word(next(iter(program)), None, True, []), *inner])
    elif entrypoint is not None and entrypoint.text:
        runs = [[entrypoint, *inner]]
    if not runs:
        return None, n
    # docker exec and compose: the container's mounts are not on the line
    known = sub == "run" and not compose
    return ("container", runs, mounts if known else None, workdir), j + 1


def image_name(ref: str) -> str:
    """An image reference without its registry, ``library/``, tag and digest
    (``docker.io/alpine/git:v2@sha256:…`` is ``alpine/git``)."""
    name = ref.split("@", 1)[0]
    slash = name.rfind("/")
    if name.rfind(":") > slash:
        name = name[: name.rfind(":")]
    parts = name.split("/")
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        parts = parts[1:]  # a registry host
    if parts[:1] == ["library"]:
        parts = parts[1:]
    return "/".join(parts)


def host_source(src: str, here: str) -> str:
    """A bind mount's host path, ``$PWD``/``$(pwd)``/``.`` being ``here``."""
    for pwd in ("$PWD", "${PWD}", "$(pwd)", "`pwd`", "."):
        if src == pwd or src.startswith(pwd + "/"):
            return join_path(here, src[len(pwd) + 1 :] or ".")
    return join_path(here if here != "." else None, src)


def volume(spec: str) -> list[tuple[str, str]]:
    """``-v SRC:DST[:opts]`` as ``[(DST, SRC)]``; a named volume (no path) mounts no host path."""
    parts = spec.split(":")
    if len(parts) < 2 or not parts[0].startswith(("/", "~", ".", "$", "`")):
        return []
    return [(parts[1], parts[0])]


def bind_mount(spec: str) -> list[tuple[str, str]]:
    """``--mount type=bind,source=SRC,target=DST`` as ``[(DST, SRC)]``."""
    fields = dict(f.partition("=")[::2] for f in spec.split(","))
    source = fields.get("source", fields.get("src"))
    target = fields.get("target", fields.get("destination", fields.get("dst")))
    if fields.get("type") != "bind" or not source or not target:
        return []
    return [(target, source)]
