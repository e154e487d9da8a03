"""``hookgate install HOST`` / ``hookgate uninstall HOST``: wire hookgate into a coding agent.

Install merges hookgate's pre- and post-tool hooks into the host's configuration file (keeping
every other hook, setting and comment), is idempotent, and backs the old file up as
``<file>.bak-<UTC time>``. Uninstall removes exactly the entries install added. ``--dry-run``
prints the unified diff and changes nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from hookgate.integrations.hostconfig import MANAGED_HOSTS
    from hookgate.integrations.managed import PREFIX

    parser.add_argument(
        "hosts", metavar="HOST", nargs="+", choices=MANAGED_HOSTS, help="the coding agent(s)"
    )
    parser.add_argument(
        "--scope",
        choices=("user", "project"),
        default="user",
        help="user: your home configuration (default); project: the project's own files",
    )
    parser.add_argument(
        "--project-dir", type=Path, help="the project for --scope project (default: current dir)"
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="print every file it would write, change nothing"
    )
    parser.add_argument(
        "--rewrite",
        choices=("allow", "ask"),
        default="allow",
        help="what a rewritten call answers: allow (run it unasked; default) or ask (the host "
        "asks about the rewritten call, or hookgate denies it and names it where the host cannot)",
    )
    parser.add_argument(
        "--trust",
        action="store_true",
        help="also record hookgate's hooks in the host's own trust store (Copilot, project "
        "scope: trustedFolders; Codex: done by default at user scope)",
    )
    parser.add_argument(
        "--no-trust",
        action="store_true",
        help="Codex at user scope: do not record the hooks as trusted (Codex then skips them "
        "until you trust them in its /hooks)",
    )
    parser.add_argument(
        "--policies",
        action="append",
        metavar="DIR",
        help="a team's policies and data, laid over the built-in pack in every hook command "
        "written (repeatable, in order; written as absolute paths)",
    )
    parser.add_argument(
        "--no-default-pack",
        action="store_true",
        help="with --policies: the hook commands replace the built-in pack with them",
    )
    managed = parser.add_argument_group("managed install (as root)")
    managed.add_argument(
        "--managed",
        action="store_true",
        help="wire the hosts' administrator settings, with hookgate's code in a root-owned "
        "prefix: nothing running as the agent's user can change it",
    )
    managed.add_argument(
        "--root",
        default="/",
        help="staging root the files are written under, as DESTDIR (an image being built); "
        "the files name the final paths (default /)",
    )
    managed.add_argument(
        "--prefix", default=PREFIX, help=f"the root-owned venv for the code (default {PREFIX})"
    )
    managed.add_argument(
        "--from",
        dest="source",
        help="what pip installs in the prefix: a wheel, a source tree or a requirement "
        "(default: this hookgate's source tree, or hookgate==<this version>)",
    )
    managed.add_argument(
        "--python",
        help="the interpreter the prefix's venv is made from; every user must be able to run "
        "it and only root to change it (default: this Python's, else /usr/bin/python3)",
    )
    managed.add_argument(
        "--managed-only",
        action="store_true",
        help="only managed hooks run (Claude/Copilot allowManagedHooksOnly, Codex "
        "allow_managed_hooks_only): the user's and the project's own hooks are ignored",
    )
    managed.add_argument(
        "--server", help="the policy server (written to /etc/hookgate/config.json)"
    )
    managed.add_argument(
        "--bundle-key",
        help="the bundle signing key to pin, base64 as GET /v1/bundle/key gives it (with --server)",
    )
    managed.add_argument(
        "--token-file",
        help="a file holding root's API token, copied to /etc/hookgate/token (root, 0600), which "
        "the pull reads (with --server)",
    )


def run(args: argparse.Namespace) -> int:
    if getattr(args, "managed", False):
        from hookgate.commands import install_managed

        return install_managed.run(args)
    from hookgate.integrations import hostconfig

    hosts = getattr(args, "hosts", None) or [args.host]
    code = 0
    for host in hosts:
        if host not in hostconfig.SPECS:
            print(
                f"hookgate {args.command}: {host} has no hook settings file to wire (Amplifier "
                "mounts the hooks-hookgate module from its own bundle)",
                file=sys.stderr,
            )
            code = 1
            continue
        args.host = host
        code = max(code, _run_one(args))
    if args.command == "install" and not args.dry_run and code == 0:
        code = compile_pack(args)
    return code


def compile_pack(args: argparse.Namespace) -> int:
    """Compile the policies the written hook commands run into the compile cache the hook
    reads, so that the first hook is as fast as the rest (it would otherwise compile them, about
    1.5 s). The same choice as ``active.local_engine``: the ``--policies`` layers (over the
    built-in pack unless ``--no-default-pack``), else the last good pulled bundle, else the
    built-in pack. A project-scope command names no layers, so it runs the bundle or the pack.
    Without starting the background refresh a hook would: installing pulls nothing."""
    from hookgate import anchors, packcheck, progress, sync
    from hookgate.engine import Engine
    from hookgate.paths import compiled_dir
    from hookgate.sources import default_pack_path

    if anchors.present():  # managed: root's pull compiles into root's cache, the hook's
        return 0
    compiled = compiled_dir()  # the compile cache creates it (0700), as for the hook
    layers = [] if args.scope == "project" else getattr(args, "policies", None) or []
    layers = [os.path.abspath(layer) for layer in layers]
    try:
        with progress.Progress("compiling the pack for the first hook", ticking=True):
            if layers and not getattr(args, "no_default_pack", False):
                engine = Engine.from_layers(layers, cache_dir=compiled)
            elif layers:
                engine = Engine.from_paths(layers, cache_dir=compiled)
            else:
                bundle = sync.active_bundle()
                if bundle is not None:
                    origin = f"bundle revision {bundle.revision}"
                    engine = Engine.from_sources(
                        bundle.policies, bundle.data, cache_dir=compiled, origin=origin
                    )
                else:
                    pack = [default_pack_path()]
                    engine = Engine.from_paths(pack, cache_dir=compiled, origin="default pack")
    except Exception as exc:  # the compiler's own failures too: the hook would meet them
        what = " ".join(layers) if layers else "the active policies"
        first = str(exc).strip().splitlines()[:1]
        print(
            f"hookgate install: {what} do not compile ({type(exc).__name__}: "
            f"{' '.join(first)}): the hook answers every call with a fault until they do; "
            "run hookgate check",
            file=sys.stderr,
        )
        return 1
    print("compiled the pack: the first hook runs as fast as the rest")
    # A layer's setting no guard can act on (a refused pattern, an unknown action) compiles,
    # and the guard reading it then does nothing there: said here, where local tuning is used.
    refused = packcheck.setting_problems(engine.policy_set.data)
    for problem in refused:
        print(f"hookgate install: {problem['input']}: {problem['message']}", file=sys.stderr)
    if refused:
        print(
            "hookgate install: fix the settings above (hookgate check names them too)",
            file=sys.stderr,
        )
    return 1 if refused else 0


def _run_one(args: argparse.Namespace) -> int:
    from hookgate.integrations import hostconfig

    removing = args.command == "uninstall"
    path = hostconfig.config_path(args.host, args.scope, args.project_dir)
    try:
        # Bytes, not read_text: universal newlines would turn a file's CRLF into LF.
        old = path.read_bytes().decode("utf-8") if path.exists() else None
        if removing:
            new = old if old is None else hostconfig.uninstall_text(old, args.host, str(path))
        else:
            rewrite = getattr(args, "rewrite", "allow")
            if args.scope == "project":
                # Shared through the repository: no path of this machine's (see hostconfig).
                if layer_options(args):
                    raise LookupError(
                        "--policies with --scope project would write a path of this machine "
                        "into the project's shared settings: install the layers at user scope"
                    )
                settings = hostconfig.project_relative(args.host)
                command = hostconfig.project_command(args.host, settings, rewrite)
            else:
                command = hostconfig.hook_command(hook_program(), args.host, rewrite)
                command += layer_options(args)
            new = hostconfig.install_text(old, args.host, command, str(path))
    except (OSError, UnicodeDecodeError, hostconfig.HostConfigError, LookupError) as exc:
        print(f"hookgate {args.command}: {exc}", file=sys.stderr)
        return 1
    if new == old:
        state = "not installed in" if removing else "already installed in"
        print(f"hookgate is {state} {path}")
        return 0 if removing else _check_trust(args, path)
    if args.dry_run:
        sys.stdout.writelines(_diff(path, old, new))
        return 0
    try:
        backup = _write(path, old, new)
    except OSError as exc:
        print(f"hookgate {args.command}: {path}: {exc}", file=sys.stderr)
        return 1
    if backup:
        print(f"backed up {path} to {backup.name}")
    if new is None:
        print(f"removed {path} (it held only hookgate's hooks)")
    else:
        print(f"{'removed hookgate from' if removing else 'installed hookgate in'} {path}")
    if not removing:
        for note in hostconfig.notes(args.host, args.scope):
            print(note)
        if args.scope == "project":
            print(
                "the command is portable (hookgate from each developer's PATH); where hookgate "
                "is missing, it blocks each call and says why"
            )
            _on_path()
        _twice(args)
        return _check_trust(args, path)
    return 0


def _on_path() -> None:
    """Warn when this shell's PATH has no hookgate: the project's hook would block every call
    here (a venv's hookgate run by its path, the venv not activated)."""
    import shutil

    from hookgate.integrations import hostconfig

    if shutil.which(hostconfig.PROJECT_PROGRAM) is None:
        print(
            "warning: hookgate is not on your PATH, so the project's hook blocks every call "
            "for you until it is (put the directory of this hookgate on PATH, or pipx install "
            "hookgate)"
        )


def _twice(args: argparse.Namespace) -> None:
    """Say so when the host now runs hookgate from more than one of these files."""
    from hookgate.integrations import hostconfig

    files = hostconfig.wired_files(args.host, args.project_dir or Path.cwd())
    if len(files) > 1:
        named = " and ".join(str(path) for _, _, path in files)
        print(
            f"warning: {args.host} now runs hookgate twice, from {named}; keep one "
            f"(hookgate uninstall {args.host} --scope user|project)"
        )


def layer_options(args: argparse.Namespace) -> str:
    """The ``eval`` options that give the hook the layers named at install: each ``--policies``
    as an absolute path (hosts start hooks in any directory), then ``--no-default-pack``."""
    import shlex

    words = []
    for layer in getattr(args, "policies", None) or []:
        if not os.path.exists(layer):
            raise LookupError(f"--policies {layer}: no such file or directory")
        words += ["--policies", os.path.abspath(layer)]
    if getattr(args, "no_default_pack", False):
        if not words:
            raise LookupError("--no-default-pack needs --policies: the hook would run no guard")
        words.append("--no-default-pack")
    return " " + shlex.join(words) if words else ""


def _check_trust(args: argparse.Namespace, path: Path) -> int:
    """Trust the hooks when asked; then say what still keeps the host from running them (the
    same findings as ``hookgate doctor``)."""
    from hookgate.integrations import trust

    project = args.project_dir or Path.cwd()
    try:
        # Installing the hook is the user's own act, so at user scope it is trusted as Codex's
        # /hooks review would (Codex otherwise skips it without a word); --no-trust opts out.
        wanted = args.trust or (
            args.host == "codex" and args.scope == "user" and not getattr(args, "no_trust", False)
        )
        if wanted and not args.dry_run:
            for change in trust.trust(args.host, args.scope, path, project):
                print(change)
        found = trust.problems(args.host, args.scope, path, project)
    except trust.TrustError as exc:
        print(f"hookgate {args.command}: {exc}", file=sys.stderr)
        return 1
    for problem in found:
        print(f"NOT PROTECTED YET: {problem}")
    return 0


def hook_program() -> str | list[str]:
    """What the hook command starts: this Python through the fast launcher when hookgate and
    its dependencies are plain directories of its site-packages (a regular install), else the
    ``hookgate`` executable (an editable install needs ``site`` to find its sources)."""
    import sysconfig

    import hookgate
    from hookgate.integrations import hostconfig

    paths = sysconfig.get_paths()
    dirs = list(dict.fromkeys(os.path.abspath(paths[k]) for k in ("purelib", "platlib")))
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(hookgate.__file__)))
    if package_dir in dirs and os.path.isfile(sys.executable):
        return hostconfig.launcher_argv(os.path.abspath(sys.executable), dirs)
    return hookgate_executable()


def hookgate_executable() -> str:
    """The absolute path of the ``hookgate`` command being run (or the one installed beside
    this Python), so the host runs the very install the user chose."""
    import shutil

    argv0 = Path(sys.argv[0])
    if argv0.name == "hookgate" and argv0.exists():
        return os.path.abspath(argv0)
    beside = Path(sys.executable).parent / "hookgate"
    if beside.exists():
        return os.path.abspath(beside)
    found = shutil.which("hookgate")
    if found:
        return os.path.abspath(found)
    raise LookupError(
        "cannot find the hookgate executable; install hookgate so that `hookgate` is on PATH"
    )


def _diff(path: Path, old: str | None, new: str | None) -> list[str]:
    import difflib

    before = (old or "").splitlines(keepends=True)
    after = (new or "").splitlines(keepends=True)
    label_old = str(path) if old is not None else "/dev/null"
    label_new = str(path) if new is not None else "/dev/null"
    return list(difflib.unified_diff(before, after, label_old, label_new))


def _write(path: Path, old: str | None, new: str | None) -> Path | None:
    """Back ``path`` up (when it existed), then write ``new`` atomically (None: delete)."""
    import shutil
    import time

    from hookgate.files import atomic_write

    backup = None
    mode = 0o644
    path = path.resolve()  # a symlinked settings file (dotfiles) stays a symlink
    if old is not None:
        mode = path.stat().st_mode & 0o777
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        backup = path.with_name(f"{path.name}.bak-{stamp}")
        counter = 1
        while backup.exists():
            backup = path.with_name(f"{path.name}.bak-{stamp}-{counter}")
            counter += 1
        shutil.copy2(path, backup)
    if new is None:
        path.unlink()
    else:
        atomic_write(path, new.encode("utf-8"), mode)
    return backup
