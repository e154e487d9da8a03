"""``hookgate install --managed HOST…`` / ``uninstall --managed HOST…``: the root-run install
(``hookgate.integrations.managed`` holds the layout; this module is the command's steps and
printing). ``--dry-run`` lists every file it would write and the diff of each, and changes
nothing; it is the one form a non-root user may run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys


def run(args: argparse.Namespace) -> int:
    from hookgate.integrations import managed

    removing = args.command == "uninstall"
    root = os.path.abspath(args.root)
    prefix = os.path.abspath(args.prefix)
    if os.geteuid() != 0 and not args.dry_run:
        print(
            f"hookgate {args.command} --managed: run it as root (its files must be root's); "
            "--dry-run shows what it would write",
            file=sys.stderr,
        )
        return 1
    if args.server and not args.bundle_key or args.bundle_key and not args.server:
        print(f"hookgate {args.command}: --server and --bundle-key go together", file=sys.stderr)
        return 2
    if args.token_file and not args.server:
        print(f"hookgate {args.command}: --token-file goes with --server", file=sys.stderr)
        return 2
    from hookgate.integrations.hostconfig import MANAGED

    if not removing and not any(MANAGED[host].hooks_file for host in args.hosts):
        for host in args.hosts:
            print(f"NOT ENFORCEABLE: {host}: {MANAGED[host].residual}")
        print(f"hookgate {args.command} --managed: nothing to install", file=sys.stderr)
        return 1
    from hookgate.anchors import AnchorError

    try:
        manifest = managed.load_manifest(root)
        if removing:
            changes, code_steps = _uninstall(args, root, prefix, manifest)
            notes: list[str] = []
        else:
            changes, code_steps, notes = _install(args, root, prefix, manifest)
    except (managed.ManagedError, AnchorError, OSError) as exc:
        print(f"hookgate {args.command} --managed: {exc}", file=sys.stderr)
        return 1
    changes = [c for c in changes if _differs(c, root)]
    if args.dry_run:
        changes += [c for c in [managed.manifest_change(manifest)] if _differs(c, root)]
        if not changes and not code_steps:
            state = "not" if removing else "already"
            print(f"hookgate is {state} installed (managed) for {', '.join(args.hosts)}")
        _print_plan(changes, code_steps, root)
        if not removing:
            _print_after_plan(root, prefix)
        _print_notes(notes)
        return 0
    try:
        for step in code_steps:
            print(step[0])
            step[1]()
        managed.apply(changes, root, manifest)
        # Last, once the directories the files needed (its own too) are recorded in it.
        if manifest["hosts"]:
            managed.make_dirs(managed.CONFIG_DIR, root, manifest)
        record = managed.manifest_change(manifest)
        if _differs(record, root):
            managed.apply([record], root, manifest)
            changes.append(record)
    except (managed.ManagedError, OSError) as exc:
        print(f"hookgate {args.command} --managed: {exc}", file=sys.stderr)
        return 1
    for change in changes:
        verb = "removed" if change.content is None else "wrote"
        print(
            f"{verb} {managed.staged(root, change.path)}"
            + (f" ({change.what})" if change.what else "")
        )
    if not changes and not code_steps:
        print(
            f"hookgate is {'not' if removing else 'already'} installed (managed) for {', '.join(args.hosts)}"
        )
    _print_notes(notes)
    if removing:
        return 0
    return _after_install(root, prefix)


def _after_install(root: str, prefix: str) -> int:
    """Enable root's pull (started at once where systemd runs, else the exact commands), then
    run the first pull, so that the first hook has the signed bundle and the compiled pack
    (the default pack's, when there is no server or the pull failed). Exit 3 when the first
    pull failed: the install stands, on the compiled default pack, and says so."""
    from hookgate.integrations import managed_deploy as deploy

    if deploy.enable_timer(root):
        print(f"enabled {deploy.TIMER} ({managed_staged(root, deploy.TIMER_LINK)})")
    if deploy.systemd_running(root):
        failed = deploy.start_timer()
        if failed:
            print(f"hookgate install --managed: {failed}", file=sys.stderr)
        else:
            print(f"started {deploy.TIMER}")
    else:
        for line in deploy.timer_instructions(root):
            print(line)
    argv = " ".join(deploy.pull_argv(prefix))
    if root not in ("", "/"):
        print(
            f"first pull: not run in a staging root; {deploy.TIMER} runs it a minute after boot, "
            f"or run as root: {argv}"
        )
        return 0
    print(f"first pull: {argv}")
    code, output = deploy.first_pull(prefix)
    for line in output.splitlines():
        print(f"  {line}")
    if code != 0:
        print(
            f"hookgate install --managed: FIRST PULL FAILED (exit {code}); hookgate is installed "
            "and its hooks run the built-in default pack until a pull succeeds "
            f"({deploy.TIMER} retries every five minutes; run `{argv}` to retry now)",
            file=sys.stderr,
        )
        return 3
    return 0


def managed_staged(root: str, path: str) -> str:
    from hookgate.integrations import managed

    return managed.staged(root, path)


def _install(
    args: argparse.Namespace, root: str, prefix: str, manifest: dict
) -> tuple[list, list, list[str]]:
    import hookgate
    from hookgate.integrations import managed

    steps = []
    installed = managed.code_installed(prefix, root)
    if args.source or installed != hookgate.__version__:
        source = args.source or managed.default_source()
        python = managed.base_python(args.python)
        where = managed.staged(root, prefix)
        steps.append(
            (
                f"creating {where}: {python} -m venv, then pip install {source} (root-owned, "
                "not group/world-writable)",
                lambda: managed.install_code(prefix, root, source, python),
            )
        )
        if installed is None and "prefix_created" not in manifest:
            manifest["prefix_created"] = prefix
            if not args.dry_run:  # /opt itself may be missing in a staging root
                managed.make_dirs(os.path.dirname(prefix), root, manifest, secure=False)
        manifest["prefix"] = prefix
    if args.dry_run and steps:
        version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
        dirs = [os.path.join(prefix, "lib", version, "site-packages")]
    elif steps:
        for _, step in steps:  # the hook command names the venv's real directories
            step()
        steps = []
        dirs = managed.launcher_dirs(prefix, root)
    else:
        dirs = managed.launcher_dirs(prefix, root)
    commands = {
        host: managed.managed_command(prefix, dirs, host, args.rewrite) for host in args.hosts
    }
    from hookgate.integrations import managed_deploy as deploy

    changes, notes = managed.plan_install(args.hosts, root, commands, args.managed_only, manifest)
    # The anchors are written whatever was given: their presence is what puts the machine in
    # managed mode (root's compile cache, HOOKGATE_HOME and XDG_* ignored), server or not.
    config: dict = {}
    if args.server:
        config = {"server": args.server, "public_key": args.bundle_key}
    changes.append(managed.write_config(root, config))
    manifest["config"] = True
    if args.token_file:  # copied: the pull reads /etc/hookgate/token, config's default
        changes.append(deploy.token_change(args.token_file))
        manifest["token"] = True
    changes += deploy.deploy_changes(prefix)
    manifest["deploy"] = True
    if os.path.isdir(managed.staged(root, prefix)):
        changes.append(deploy.checksums_change(prefix, root))
        manifest["checksums"] = True
    return changes, steps, notes


def _uninstall(
    args: argparse.Namespace, root: str, prefix: str, manifest: dict
) -> tuple[list, list]:
    from hookgate.integrations import managed

    changes = managed.plan_uninstall(args.hosts, root, manifest)
    steps = []
    if not manifest["hosts"]:
        from hookgate.integrations import managed_deploy as deploy

        # Nothing managed is left: the code and the anchors this install created go too.
        if manifest.pop("config", False):
            changes.append(managed.Change(managed.CONFIG_FILE, None, 0o644, "trust anchors"))
        if manifest.pop("token", False):
            changes.append(managed.Change(deploy.TOKEN_FILE, None, 0o600, "root's API token"))
        if manifest.pop("checksums", False):
            changes.append(managed.Change(deploy.CHECKSUMS, None, 0o644, "checksums"))
        if manifest.pop("deploy", False):
            changes += [
                managed.Change(c.path, None, 0o644, c.what) for c in deploy.deploy_changes(prefix)
            ]
            steps.append((f"disabling {deploy.TIMER}", lambda: _disable_timer(root)))
        created = manifest.pop("prefix_created", None)
        manifest.pop("prefix", None)
        if created and os.path.isdir(managed.staged(root, created)):
            target = managed.staged(root, created)

            def remove() -> None:
                shutil.rmtree(target)
                managed.remove_empty_dirs(os.path.dirname(created), root, manifest)

            steps.append((f"removing {target}", remove))
    return changes, steps


def _disable_timer(root: str) -> None:
    from hookgate.integrations import managed_deploy as deploy

    if deploy.systemd_running(root):
        import subprocess

        subprocess.run(["systemctl", "stop", deploy.TIMER], capture_output=True, check=False)
    deploy.disable_timer(root)


def _print_after_plan(root: str, prefix: str) -> None:
    """What ``install --managed`` does after writing its files, as --dry-run lists it."""
    from hookgate.integrations import managed
    from hookgate.integrations import managed_deploy as deploy

    if not os.path.isdir(managed.staged(root, prefix)):
        print(f"would write {managed.staged(root, deploy.CHECKSUMS)} (checksums of {prefix})")
    print(f"would enable {deploy.TIMER} ({managed.staged(root, deploy.TIMER_LINK)})")
    if deploy.systemd_running(root):
        print("would run: " + " && ".join(" ".join(argv) for argv in deploy.START_TIMER))
    else:
        for line in deploy.timer_instructions(root):
            print(f"would print: {line}")
    if root in ("", "/"):
        print(f"would run the first pull: {' '.join(deploy.pull_argv(prefix))}")
    else:
        print("would not run the first pull (a staging root)")


def _differs(change: object, root: str) -> bool:
    from hookgate.integrations import managed

    path = managed.staged(root, change.path)
    try:
        with open(path, "rb") as handle:
            return handle.read() != change.content
    except FileNotFoundError:
        return change.content is not None


def _print_plan(changes: list, steps: list, root: str) -> None:
    import difflib

    from hookgate.integrations import managed

    for text, _ in steps:
        print(f"would run: {text}")
    for change in changes:
        path = managed.staged(root, change.path)
        if change.content is None:
            print(f"would remove {path}")
            continue
        print(f"would write {path} (root:root {change.mode:04o}; {change.what})")
        if change.mode & 0o077 == 0:  # root's alone (the token): its content is not shown
            continue
        try:
            with open(path, encoding="utf-8") as handle:
                old = handle.read().splitlines(keepends=True)
        except FileNotFoundError:
            old = []
        new = change.content.decode("utf-8").splitlines(keepends=True)
        sys.stdout.writelines(difflib.unified_diff(old, new, path if old else "/dev/null", path))


def _print_notes(notes: list[str]) -> None:
    for note in notes:
        print(f"NOT ENFORCEABLE: {note}")
