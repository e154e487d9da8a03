"""``hookgate export DIR --server URL``: write the server's team layer to a directory, the
shape ``hookgate publish`` reads (``sources.directory_documents``), so that publishing the
directory back changes nothing: the start of a policy repository in git. The built-in pack
under the layer is not written (the server composes it, as ``--policies DIR`` does locally);
when the team replaced it, ``DIR/REPLACE-BASE`` says so, and publish reads that statement.

Each policy is ``DIR/<id>``. The data documents at the top (``hookgate``) are the keys of
``DIR/data.json``; a document at ``a/b`` is ``DIR/a/b/data.json``. A directory that already
holds policy or data files (or a ``REPLACE-BASE``) is refused unless ``--force``, which removes
them first (hidden directories, such as ``.git``, are left alone), so nothing stale is
published with the set.

Exit codes as ``hookgate publish``'s: 0 written, 2 usage (the directory), 4 the token, 5 the
server.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from hookgate.commands.client import (
    OK,
    USAGE,
    CommandError,
    add_server_arguments,
    fetch_base,
    fetch_set,
)
from hookgate.layers import BASE_NAME, REPLACE_BASE_FILE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", metavar="DIR", help="where to write the team layer")
    add_server_arguments(parser)
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace the policy and data files DIR already holds",
    )


def run(args: argparse.Namespace) -> int:
    try:
        return _export(args)
    except CommandError as exc:
        print(f"hookgate export: {exc}", file=sys.stderr)
        return exc.code


def _export(args: argparse.Namespace) -> int:
    policies, documents = fetch_set(args.server, args.timeout)
    base = fetch_base(args.server, args.timeout)
    files = layout(policies, documents)
    if base["replaced"]:
        files[REPLACE_BASE_FILE] = _REPLACED
    existing = _set_files(args.directory)
    if existing and not args.force:
        raise CommandError(
            USAGE,
            f"{args.directory} already holds policy or data files ({existing[0]}, …): "
            "export to an empty directory, or --force to replace them",
        )
    for path in existing:
        os.remove(path)
    os.makedirs(args.directory, exist_ok=True)  # an empty layer is an empty directory
    for relative, text in files.items():
        path = os.path.join(args.directory, *relative.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as out:  # line endings as stored
            out.write(text)
    print(
        f"exported {len(policies)} policies and {len(documents)} data documents to {args.directory}"
    )
    if base["replaced"]:
        print(f"the base {BASE_NAME} is replaced: {REPLACE_BASE_FILE} says so")
    else:
        print(f"over the base {BASE_NAME} {base['version']} (not written: the server adds it)")
    return OK


def layout(policies: dict[str, str], documents: dict[str, object]) -> dict[str, str]:
    """Relative file path → text for the set. ``CommandError`` for an id or path that would
    not come back as itself (a directory part, a hidden name): the server refuses those, so
    one here means the answer is not what the server stores."""
    files: dict[str, str] = {}
    for key, text in policies.items():
        if not _plain_name(key) or not key.endswith(".rego") or not isinstance(text, str):
            raise CommandError(USAGE, f"policy {key!r}: not a file name export can write")
        files[key] = text
    top = {key: value for key, value in documents.items() if "/" not in key}
    if top:
        files["data.json"] = _json(top)
    for path, value in documents.items():
        if "/" in path:
            if not all(_plain_name(part) for part in path.split("/")):
                raise CommandError(USAGE, f"data {path!r}: not a path export can write")
            files[f"{path}/data.json"] = _json(value)
    return files


_REPLACED = f"""This layer replaces the built-in pack ({BASE_NAME}): it is the whole set.

hookgate publish reads this file as --replace-base. Delete it to compose the layer over the
pack again (publish refuses that as weaker only if it removes a guard).
"""


def _plain_name(name: str) -> bool:
    # What sources._walk reads back: no separators, nothing hidden or private.
    return bool(name) and "/" not in name and "\\" not in name and not name.startswith((".", "__"))


def _json(value: object) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _set_files(directory: str) -> list[str]:
    """The files of ``directory`` that ``hookgate publish`` would read."""
    if not os.path.exists(directory):
        return []
    if not os.path.isdir(directory):
        raise CommandError(USAGE, f"{directory}: not a directory")
    from hookgate.sources import _walk

    marker = os.path.join(directory, REPLACE_BASE_FILE)
    return sorted(_walk(directory) + ([marker] if os.path.isfile(marker) else []))
