"""`hookgate install --managed` / `uninstall --managed` / `doctor`: hookgate in root-owned files.

Run as root (CI does): the install chowns to root and the last test creates a user. Most tests
write under a staging root (``--root``, as an image builder would); the last one installs into
the real ``/etc`` and ``/opt`` paths inside a private mount namespace (an overlay the rest of the
machine never sees) and checks, as an unprivileged user made for it, that the user can change
nothing the hook depends on. The verified file shapes are in tests/data/managed/ (README there).
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tomllib
import uuid
from pathlib import Path

import pytest

from hookgate import anchors
from hookgate.integrations import hostconfig, jsonc, managed

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="a managed install writes root-owned files: run as root (CI does)"
)

DATA = Path(__file__).parent / "data" / "managed"
HOSTS = ("claude", "codex", "copilot", "gemini")
FORCE_PUSH = {
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "git push --force origin main"},
    "session_id": "s1",
    "cwd": "/tmp",
}


@pytest.fixture(autouse=True, scope="module")
def own_state(tmp_path_factory) -> None:
    # The administrator's own hookgate state (telemetry the doctor reports) is this machine's:
    # its records of other runs would be reported as problems here.
    global STATE
    STATE = str(tmp_path_factory.mktemp("admin-state"))


STATE = ""


def hookgate(*argv: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKGATE_")}
    env["XDG_STATE_HOME"] = STATE
    done = subprocess.run(
        [sys.executable, "-m", "hookgate.cli", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    if check:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def code_tree(tmp_path_factory) -> Path:
    """One managed prefix, installed once (python -m venv + pip install of this source tree);
    each test copies it so that its own install finds the code in place."""
    root = tmp_path_factory.mktemp("code-root")
    hookgate("install", "--managed", "--root", str(root), "claude")
    assert (root / "opt/hookgate/bin/python").exists()
    return root / "opt"


@pytest.fixture
def root(tmp_path, code_tree) -> Path:
    staging = tmp_path / "root"
    staging.mkdir()
    shutil.copytree(code_tree, staging / "opt", symlinks=True)
    return staging


def files_under(top: Path) -> list[Path]:
    return sorted(p for p in top.rglob("*"))


def leaves(value: object, path: tuple = ()) -> dict[tuple, object]:
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in leaves(item, (*path, key)).items()}
    if isinstance(value, list):
        return {k: v for i, item in enumerate(value) for k, v in leaves(item, (*path, i)).items()}
    return {path: value}


def load(path: Path) -> object:
    if path.suffix == ".toml":
        return tomllib.loads(path.read_text())
    return jsonc.parse(path.read_text(), str(path)).root.value


def test_dry_run_lists_every_file_and_writes_nothing(tmp_path):
    done = hookgate("install", "--managed", "--dry-run", "--root", str(tmp_path), *HOSTS)
    out = done.stdout
    assert f"would run: creating {tmp_path}/opt/hookgate:" in out and "pip install" in out
    for spec in (hostconfig.MANAGED[h] for h in HOSTS):
        assert f"would write {tmp_path}{spec.hooks_file} (root:root 0644" in out
    assert f"would write {tmp_path}/etc/hookgate/install.json" in out
    assert "/opt/hookgate/bin/python -I -S -c" in out
    assert "NOT ENFORCEABLE: gemini" in out
    assert "NOT ENFORCEABLE: claude: without --managed-only" in out
    assert files_under(tmp_path) == []
    only = hookgate(
        "install", "--managed", "--managed-only", "--dry-run", "--root", str(tmp_path), "claude"
    )
    assert "NOT ENFORCEABLE" not in only.stdout


def test_install_writes_the_verified_shapes_root_owned(root):
    done = hookgate("install", "--managed", "--managed-only", "--root", str(root), *HOSTS, "cursor")
    assert "NOT ENFORCEABLE: cursor: Cursor has no verified administrator channel" in done.stdout
    assert "NOT ENFORCEABLE: gemini: Gemini CLI cannot be enforced" in done.stdout
    assert "pip install" not in done.stdout  # the code was already in the prefix
    written = {
        "claude-managed-settings.json": "etc/claude-code/managed-settings.d/hookgate.json",
        "codex-requirements.toml": "etc/codex/requirements.toml",
        "gemini-settings.json": "etc/gemini-cli/settings.json",
        "copilot-policy.json": "etc/github-copilot/policy.d/hookgate.json",
        "copilot-managed-settings.json": "etc/github-copilot/managed-settings.json",
    }
    for sample, relative in written.items():
        ours = leaves(load(root / relative))
        for key, value in leaves(load(DATA / sample)).items():
            if key[-1] == "matcher":
                assert ours[key] == "*", (relative, key)  # hookgate judges every tool
            elif value == "<HOOK_CMD>":
                words = hostconfig.command_words(ours[key])
                assert words[:3] == ["/opt/hookgate/bin/python", "-I", "-S"], ours[key]
                dirs = hostconfig.launcher_dirs(ours[key])
                assert dirs and all(d.startswith("/opt/hookgate/lib/") for d in dirs), dirs
            else:
                assert ours.get(key) == value, (relative, key)
    claude = load(root / written["claude-managed-settings.json"])
    assert claude["env"] == hostconfig.managed_env() and claude["env"]["LD_PRELOAD"] == ""
    assert set(claude["hooks"]) == set(hostconfig.SPECS["claude"].events)
    # Every file and directory written: root's, and no one else may write it.
    for path in [*files_under(root / "etc"), *files_under(root / "opt")]:
        info = path.lstat()
        assert info.st_uid == 0 and info.st_gid == 0, path
        if not stat.S_ISLNK(info.st_mode):
            assert not info.st_mode & 0o022, path
    assert not (root / "opt/hookgate/bin/pip").exists()  # nothing in the prefix installs anything
    manifest = json.loads((root / "etc/hookgate/install.json").read_text())
    assert sorted(manifest["hosts"]) == sorted(HOSTS)


def test_merges_into_shared_files_idempotently_and_uninstall_restores_them(root):
    etc = root / "etc"
    shared = {
        etc / "codex/requirements.toml": (
            '# fleet policy\nallowed_sandbox_modes = ["read-only"]\n\n[features]\n'
            "web_search = true\n"
        ),
        etc / "gemini-cli/settings.json": (
            '{\n  // fleet\n  "general": {"vimMode": true},\n  "hooksConfig": {"enabled": false},\n'
            '  "hooks": {"BeforeTool": [{"matcher": "x", "hooks": [{"type": "command", '
            '"command": "/usr/local/bin/audit"}]}]}\n}\n'
        ),
        etc / "github-copilot/managed-settings.json": '{"sandbox": {"enabled": true}}\n',
        etc / "claude-code/managed-settings.json": '{"permissions": {"deny": ["WebFetch"]}}\n',
    }
    for path, text in shared.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (etc / "github-copilot").chmod(0o777)  # Copilot would skip everything under it
    args = ("--managed", "--managed-only", "--root", str(root), *HOSTS)
    hookgate("install", *args)
    snapshot = {p: p.read_bytes() for p in files_under(etc) if p.is_file()}
    again = hookgate("install", *args)
    assert "already installed" in again.stdout
    assert {p: p.read_bytes() for p in files_under(etc) if p.is_file()} == snapshot

    codex = load(etc / "codex/requirements.toml")
    assert codex["allowed_sandbox_modes"] == ["read-only"]
    assert codex["features"] == {"web_search": True, "hooks": True}
    assert codex["allow_managed_hooks_only"] is True
    assert "# fleet policy" in (etc / "codex/requirements.toml").read_text()
    gemini = load(etc / "gemini-cli/settings.json")
    assert gemini["general"] == {"vimMode": True} and gemini["hooksConfig"]["enabled"] is True
    assert [g["matcher"] for g in gemini["hooks"]["BeforeTool"]] == ["x", "*"]
    assert load(etc / "github-copilot/managed-settings.json") == {
        "sandbox": {"enabled": True},
        "allowManagedHooksOnly": True,
    }
    assert stat.S_IMODE((etc / "github-copilot").stat().st_mode) == 0o755
    assert (etc / "claude-code/managed-settings.json").read_text() == shared[
        etc / "claude-code/managed-settings.json"
    ]

    hookgate("uninstall", "--managed", "--root", str(root), *HOSTS)
    for path, text in shared.items():
        assert path.read_text() == text, path
    # What install created is gone; what was there before stays.
    assert not (etc / "claude-code/managed-settings.d").exists()
    assert not (etc / "github-copilot/policy.d").exists()
    assert not (etc / "hookgate").exists()
    assert (root / "opt/hookgate").exists()  # it was there before this install: not ours


def test_uninstall_of_everything_removes_all_it_created(tmp_path, code_tree):
    root = tmp_path / "root"
    root.mkdir()
    hookgate("install", "--managed", "--root", str(root), "claude", "--from", str(_wheel(tmp_path)))
    hookgate("install", "--managed", "--root", str(root), "copilot", "--managed-only")
    hookgate("uninstall", "--managed", "--root", str(root), "claude")
    assert (root / "etc/github-copilot/policy.d/hookgate.json").exists()
    assert (root / "opt/hookgate").exists()
    hookgate("uninstall", "--managed", "--root", str(root), "copilot")
    assert files_under(root) == []


def _wheel(tmp_path: Path) -> Path:
    """A wheel of this source tree (what a fleet would ship to its machines)."""
    source = managed.default_source()
    out = tmp_path / "wheel"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), source],
        check=True,
        capture_output=True,
    )
    (wheel,) = out.glob("hookgate-*.whl")
    return wheel


def test_doctor_reports_the_mode_modes_and_pins(root):
    hookgate("install", "--managed", "--root", str(root), *HOSTS)
    doctor = ("doctor", "--root", str(root), "--user", "nobody", "--timeout", "0.1")
    out = hookgate(*doctor, check=False).stdout
    assert "mode: managed" in out
    for host in HOSTS:
        assert (
            f"{host}: {root}{hostconfig.MANAGED[host].hooks_file} runs /opt/hookgate/bin/python"
            in out
        )
    assert "claude: the user and project hooks run too" in out  # no --managed-only
    assert "gemini: NOT ENFORCEABLE" in out and "cursor: NOT ENFORCEABLE" in out
    changeable = out.split("can change:\n", 1)[1].split("\nserver:", 1)[0]
    assert changeable.strip() == "none", out  # nobody's home does not exist: nothing to create
    assert "PROBLEM" not in out, out

    policy = root / "etc/github-copilot/policy.d/hookgate.json"
    policy.chmod(0o664)
    out = hookgate(*doctor, check=False).stdout
    assert (
        f"PROBLEM: copilot: {policy} is group- or world-writable (mode 0664): copilot skips" in out
    )
    policy.chmod(0o644)
    os.chown(root / "etc/github-copilot/policy.d", 65534, 0)
    out = hookgate(*doctor, check=False).stdout
    assert f"PROBLEM: copilot: {root}/etc/github-copilot/policy.d is owned by uid 65534" in out
    assert (
        f"PROBLEM: {policy} (copilot's managed settings): {root}/etc/github-copilot/policy.d" in out
    )
    os.chown(root / "etc/github-copilot/policy.d", 0, 0)

    requirements = root / "etc/codex/requirements.toml"
    requirements.write_text(requirements.read_text().replace("hooks = true", "hooks = false"))
    out = hookgate(*doctor, check=False).stdout
    assert "PROBLEM: codex: features.hooks is not true in /etc/codex/requirements.toml" in out
    dropin = root / "etc/claude-code/managed-settings.d/hookgate.json"
    value = json.loads(dropin.read_text())
    del value["env"]["LD_PRELOAD"]
    dropin.write_text(json.dumps(value))
    out = hookgate(*doctor, check=False).stdout
    assert "PROBLEM: claude: the managed env does not pin LD_PRELOAD" in out

    # root's file, mode 0644, but an ACL (setfacl -m u:nobody:rw) lets the user write it
    import struct

    entries = [(0x01, 6, -1), (0x02, 6, 65534), (0x04, 4, -1), (0x10, 6, -1), (0x20, 4, -1)]
    blob = struct.pack("<I", 2) + b"".join(
        struct.pack("<HHI", t, p, i & 0xFFFFFFFF) for t, p, i in entries
    )
    try:
        os.setxattr(dropin, "system.posix_acl_access", blob)
    except OSError:
        pytest.skip("no POSIX ACLs on this file system")
    out = hookgate(*doctor, check=False).stdout
    assert f"PROBLEM: {dropin} (claude's managed settings): {dropin} is writable by the user" in out


@pytest.fixture
def open_root(code_tree):
    """A staging root other users can reach (pytest's tmp_path is root's alone)."""
    import tempfile

    top = Path(tempfile.mkdtemp(prefix="hgm-"))
    top.chmod(0o755)
    shutil.copytree(code_tree, top / "root" / "opt", symlinks=True)
    yield top
    shutil.rmtree(top)


def test_the_managed_hook_ignores_the_users_python_environment(open_root):
    root, tmp_path = open_root / "root", open_root
    hookgate("install", "--managed", "--root", str(root), "claude")
    settings = json.loads((root / "etc/claude-code/managed-settings.d/hookgate.json").read_text())
    command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    command = command.replace("/opt/hookgate", f"{root}/opt/hookgate")
    # A planted hookgate that would answer "allow" to anything, on every path the user controls.
    fake = tmp_path / "fake"
    (fake / "hookgate").mkdir(parents=True)
    for name in ("__init__.py", "launcher.py", "cli.py"):
        (fake / "hookgate" / name).write_text(
            "import sys\nprint('{}')\nsys.exit(0)\ndef launch(): pass\n"
        )
    for path in (fake, fake / "hookgate", *(fake / "hookgate").iterdir()):
        path.chmod(0o755)
    env = {
        "HOME": str(tmp_path),
        "PATH": f"{fake}:/usr/bin:/bin",
        "PYTHONPATH": str(fake),
        "PYTHONHOME": str(fake),
        "PYTHONSTARTUP": str(fake / "hookgate" / "cli.py"),
    }
    done = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sh", "-c", command],
        input=json.dumps(FORCE_PUSH),
        capture_output=True,
        text=True,
        env=env,
        cwd="/",
        timeout=60,
    )
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["updatedInput"] == {"command": "git push origin main"}, done.stdout
    # The command itself turns the warm process off: none of the user's was left behind.
    assert command.startswith("HOOKGATE_WARM=0 ")
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        assert not (b"--serve-warm" in argv and str(root).encode() in b" ".join(argv)), argv


NAMESPACE_SCRIPT = r"""
set -u
mount -t overlay hgm-etc -o "lowerdir=/etc,upperdir=$1/etc-up,workdir=$1/etc-work" /etc || exit 97
mount -t tmpfs hgm-opt /opt || exit 97
mount -t tmpfs -o mode=0755 hgm-var /var/lib || exit 97
cp -a "$2/hookgate" /opt/hookgate
USER_NAME=$3; HG="$4"
echo "== install"; $HG install --managed --managed-only claude codex copilot gemini $6 2>&1
echo "install-exit=$?"
ls /var/lib/hookgate/compiled/ | sed 's/^[0-9a-f]\{64\}/HASH/'
readlink /etc/systemd/system/timers.target.wants/hookgate-pull.timer
as_user() { setpriv --reuid="$USER_NAME" --regid="$USER_NAME" --init-groups \
  env -i HOME="/home/$USER_NAME" USER="$USER_NAME" PATH=/usr/bin:/bin "$@"; }
for f in /etc/claude-code/managed-settings.d/hookgate.json /etc/codex/requirements.toml \
         /etc/github-copilot/policy.d/hookgate.json /etc/github-copilot/managed-settings.json \
         /etc/gemini-cli/settings.json /etc/hookgate/install.json \
         /opt/hookgate/lib/python3.11/site-packages/hookgate/launcher.py /opt/hookgate/pyvenv.cfg; do
  if as_user /bin/sh -c "echo x >> '$f'" 2>/dev/null; then echo "WROTE $f"; else echo "DENIED $f"; fi
  if as_user /bin/sh -c "mv '$f' '$f.moved'" 2>/dev/null; then echo "MOVED $f"; fi
done
for d in /etc/claude-code/managed-settings.d /etc/github-copilot/policy.d /opt/hookgate/bin; do
  if as_user /bin/sh -c "touch '$d/planted'" 2>/dev/null; then echo "CREATED in $d"; else echo "DENIED $d"; fi
done
echo "== hook"
CMD=$(/opt/hookgate/bin/python -I -c 'import json; print(json.load(open("/etc/claude-code/managed-settings.d/hookgate.json"))["hooks"]["PreToolUse"][0]["hooks"][0]["command"])')
# As Claude Code starts it: /bin/sh -c (the command turns the warm process off itself).
echo "$5" | as_user /bin/sh -c "cd /tmp && $CMD"
echo
echo "== doctor"
as_user HOOKGATE_WARM= /opt/hookgate/bin/python -I -m hookgate.cli doctor --timeout 0.1
echo "== tampered"
echo "# edited" >> /opt/hookgate/lib/python3.11/site-packages/hookgate/launcher.py
touch /opt/hookgate/lib/python3.11/site-packages/hookgate/planted.py
as_user HOOKGATE_WARM= /opt/hookgate/bin/python -I -m hookgate.cli doctor --timeout 0.1
echo "== uninstall"
$HG uninstall --managed claude codex copilot gemini || exit 91
for d in /etc/claude-code /etc/codex /etc/github-copilot /etc/gemini-cli /etc/hookgate \
         /etc/systemd/system/hookgate-pull.timer /etc/systemd/system/timers.target.wants/hookgate-pull.timer; do
  [ -e "$d" ] && echo "LEFT $d"
done
ls -A /opt
exit 0
"""


@pytest.mark.parametrize("server", [False, True], ids=["no-server", "unreachable-server"])
def test_real_paths_in_a_private_namespace_as_an_unprivileged_user(tmp_path, code_tree, server):
    """As root at the real paths (in a private mount namespace), then as an unprivileged user.
    With a server that does not answer, the first pull fails: install says so (exit 3) and the
    install works on the compiled default pack all the same."""
    extra = ""
    if server:
        token = tmp_path / "token"
        token.write_text("hgt_not_a_real_token\n")
        key = base64.b64encode(bytes(range(32))).decode()
        extra = f"--server http://127.0.0.1:9 --bundle-key {key} --token-file {token}"
    if not shutil.which("unshare") or not shutil.which("useradd"):
        pytest.skip("needs unshare and useradd")
    name = f"hgm{uuid.uuid4().hex[:8]}"
    for directory in ("etc-up", "etc-work"):
        (tmp_path / directory).mkdir()
    before = {d: os.path.exists(d) for d in ("/etc/hookgate", "/opt/hookgate", "/etc/codex")}
    subprocess.run(["useradd", "-m", "-s", "/bin/bash", name], check=True)
    try:
        hg = f"{sys.executable} -m hookgate.cli"
        done = subprocess.run(
            [
                "unshare",
                "--mount",
                "--propagation",
                "private",
                "--",
                "/bin/bash",
                "-c",
                NAMESPACE_SCRIPT,
                "hgm",
                str(tmp_path),
                str(code_tree),
                name,
                hg,
                json.dumps(FORCE_PUSH),
                extra,
            ],
            capture_output=True,
            text=True,
            timeout=300,
            env={k: v for k, v in os.environ.items() if not k.startswith("HOOKGATE_")},
        )
    finally:
        _end_processes_of(name)
        subprocess.run(["userdel", "-r", name], capture_output=True, check=False)
    out = done.stdout
    if done.returncode == 97:
        pytest.skip(f"this kernel refuses the overlay/tmpfs mounts: {done.stderr}")
    assert done.returncode == 0, out + done.stderr
    assert "WROTE" not in out and "MOVED" not in out and "CREATED" not in out, out
    assert out.count("DENIED") == 11, out
    hook = out.split("== hook\n", 1)[1].split("== doctor", 1)[0]
    assert json.loads(hook)["hookSpecificOutput"]["updatedInput"] == {
        "command": "git push origin main"
    }
    install = out.split("== install\n", 1)[1].split("== hook", 1)[0]
    if server:
        assert "install-exit=3" in install, install
        assert "FIRST PULL FAILED (exit 1); hookgate is installed and its hooks run the " in install
        assert "127.0.0.1:9" in install  # the pull's own message: which server it could not reach
        assert "hgt_not_a_real_token" not in out
    else:
        assert "install-exit=0" in install, install
    # the first pull compiled the pack and wrote the hook's module file, as root
    assert "first pull: /opt/hookgate/bin/python -I -B -m hookgate.cli pull" in install
    assert "HASH.code\n" in install and "modules-cpython-311.code" in install, install
    assert "/etc/systemd/system/hookgate-pull.timer\n" in install  # the timer, enabled
    assert "systemctl daemon-reload && systemctl start hookgate-pull.timer" in install
    assert "install -o root -g root -m 0644 /etc/hookgate/hookgate-pull.cron" in install
    doctor = out.split("== doctor\n", 1)[1].split("== tampered", 1)[0]
    assert "code in /opt/hookgate: as installed" in doctor, doctor
    tampered = out.split("== tampered\n", 1)[1].split("== uninstall", 1)[0]
    site = "/opt/hookgate/lib/python3.11/site-packages/hookgate"
    assert f"PROBLEM: code in /opt/hookgate: {site}/launcher.py: changed" in tampered, tampered
    assert f"PROBLEM: code in /opt/hookgate: {site}/planted.py: added (sha256)" in tampered
    assert "mode: managed" in doctor
    assert "claude: only managed hooks run" in doctor
    for host in HOSTS:
        assert (
            f"{host}: {hostconfig.MANAGED[host].hooks_file} runs /opt/hookgate/bin/python" in doctor
        )
    changeable = doctor.split("can change:\n", 1)[1].split("\nserver:", 1)[0]
    # Nothing under /etc or /opt: the only paths left are the per-user directories the hook's
    # code itself reports it keeps its files in (the managed runtime moves them out of reach).
    for line in changeable.splitlines():
        assert "/etc/" not in line and "/opt/" not in line, line
        assert line.strip() == "none" or f"/home/{name}/" in line, line
    assert "managed settings" not in changeable and "interpreter" not in changeable
    after = out.split("== uninstall\n", 1)[1]
    assert "LEFT" not in after, after
    assert after.rstrip().endswith("hookgate")  # /opt: the copied prefix was not this install's
    # The namespace is gone: the real /etc and /opt never saw any of it; the user is gone too.
    assert {d: os.path.exists(d) for d in before} == before
    assert subprocess.run(["id", name], capture_output=True).returncode != 0
    assert not os.path.exists(f"/home/{name}") and not os.path.exists(f"/var/mail/{name}")


def _end_processes_of(name: str) -> None:
    """End what this test started as its user (userdel refuses a user with processes)."""
    import pwd
    import signal

    uid = pwd.getpwnam(name).pw_uid
    for entry in Path("/proc").iterdir():
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        uids = next(
            (line.split()[1:] for line in status.splitlines() if line.startswith("Uid:")), []
        )
        if str(uid) in uids:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except (OSError, ValueError):
                pass


def test_installing_again_without_managed_only_undoes_it(root):
    hookgate("install", "--managed", "--managed-only", "--root", str(root), *HOSTS)
    hookgate("install", "--managed", "--root", str(root), *HOSTS)
    claude = load(root / "etc/claude-code/managed-settings.d/hookgate.json")
    assert "allowManagedHooksOnly" not in claude and claude["hooks"]
    codex = load(root / "etc/codex/requirements.toml")
    assert "allow_managed_hooks_only" not in codex and codex["features"]["hooks"] is True
    assert not (root / "etc/github-copilot/managed-settings.json").exists()
    manifest = json.loads((root / "etc/hookgate/install.json").read_text())
    assert [p["keys"] for p in manifest["pins"]] == [
        ["features", "hooks"],
        ["hooksConfig", "enabled"],
    ]


def test_a_user_who_is_not_root_gets_only_the_dry_run(open_root):
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    argv = [sys.executable, "-m", "hookgate.cli", "install", "--managed", "--root"]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(open_root)}
    refused = subprocess.run(
        [*as_nobody, *argv, str(open_root / "root"), "claude"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert refused.returncode == 1 and "run it as root" in refused.stderr
    dry = subprocess.run(
        [*as_nobody, *argv, str(open_root / "root"), "claude", "--dry-run"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert dry.returncode == 0 and "would write" in dry.stdout, dry.stderr
    assert not (open_root / "root" / "etc").exists()


def test_hosts_without_an_administrator_channel_install_nothing(tmp_path):
    done = hookgate(
        "install", "--managed", "--root", str(tmp_path), "cursor", "amplifier", check=False
    )
    assert done.returncode == 1 and "nothing to install" in done.stderr
    assert "NOT ENFORCEABLE: cursor: Cursor has no verified administrator channel" in done.stdout
    assert "NOT ENFORCEABLE: amplifier: Amplifier has no administrator channel" in done.stdout
    assert files_under(tmp_path) == []


def test_trust_anchors_go_to_etc_hookgate_only_when_given(root):
    lone = ("install", "--managed", "--root", str(root), "claude", "--server", "https://x")
    refused = hookgate(*lone, check=False)
    assert refused.returncode == 2 and "--server and --bundle-key go together" in refused.stderr
    hookgate("install", "--managed", "--root", str(root), "claude")
    config = root / "etc/hookgate/config.json"
    # without a server, the anchors hold no server: the machine is managed all the same (root's
    # compile cache, the default pack), not left to the user's environment
    assert json.loads(config.read_text()) == {}
    assert stat.S_IMODE((root / "etc/hookgate").stat().st_mode) == 0o755
    bad = hookgate(*lone, "--bundle-key", "ed25519:abc", check=False)
    assert bad.returncode == 1 and "public_key: not the base64 of a raw 32-byte" in bad.stderr
    assert json.loads(config.read_text()) == {}
    key = base64.b64encode(bytes(range(32))).decode()
    hookgate(*lone, "--bundle-key", key)
    # The shape the managed runtime reads (hookgate.anchors), which refuses unknown keys.
    assert json.loads(config.read_text()) == {"server": "https://x", "public_key": key}
    assert anchors.parse(config.read_bytes())["public_key"] == key
    info = config.stat()
    assert info.st_uid == 0 and stat.S_IMODE(info.st_mode) == 0o644
    hookgate("uninstall", "--managed", "--root", str(root), "claude")
    assert not (root / "etc/hookgate").exists()


@pytest.mark.parametrize(
    "original",
    [
        'allowed_approval_policies = ["on-request"]\n',
        '# fleet\n\n[hooks]\nmanaged_dir = "/srv/hooks"\n\n',
        "allow_managed_hooks_only = false\n[features]\nhooks = false\n",
    ],
    ids=["no-tables", "hooks-table-blank-end", "pins-set-otherwise"],
)
def test_codex_requirements_come_back_byte_for_byte(root, original):
    path = root / "etc/codex/requirements.toml"
    path.parent.mkdir(parents=True)
    path.write_text(original)
    hookgate("install", "--managed", "--managed-only", "--root", str(root), "codex")
    value = load(path)
    assert value["features"]["hooks"] is True and value["allow_managed_hooks_only"] is True
    (command,) = [g["hooks"][0]["command"] for g in value["hooks"]["PreToolUse"]]
    assert hostconfig.command_words(command)[:3] == ["/opt/hookgate/bin/python", "-I", "-S"]
    hookgate("uninstall", "--managed", "--root", str(root), "codex")
    assert path.read_text() == original


# What only the server and the commands talking to it read (never a hook's process).
NOT_THE_HOOKS = (
    "server/",
    "commands/serve.py",
    "commands/client.py",
    "commands/publish.py",
    "commands/impact.py",
    "commands/token.py",
    "commands/login.py",
    "commands/init.py",  # the CI workflow it writes names the team's secrets
)


def test_every_hookgate_variable_the_hooks_code_reads_is_pinned():
    """A new HOOKGATE_* setting that the hook honours is pinned in the managed env block too,
    or a user's settings could set it for the managed hook."""
    package = Path(hostconfig.__file__).resolve().parents[1]
    read = set()
    for path in package.rglob("*.py"):
        if not str(path.relative_to(package)).startswith(NOT_THE_HOOKS):
            read |= set(re.findall(r"HOOKGATE_[A-Z_]+", path.read_text()))
    assert read, "the scan found no variable: it would prove nothing"
    assert sorted(read - set(hostconfig.managed_env())) == []


def test_token_units_timer_and_checksums_in_a_staging_root(root, tmp_path):
    """``--token-file`` is copied to /etc/hookgate/token (root, 0600, never shown); the pull's
    units and cron line are written naming the prefix, the timer enabled as systemctl enable
    does, and what systemd would need printed; the first pull is left for the boot; every file
    of the prefix is recorded with its checksum; uninstall takes all of it away."""
    token = tmp_path / "provisioned-token"
    token.write_text("hgt_secret_value\n")
    key = base64.b64encode(bytes(range(32))).decode()
    argv = ["install", "--managed", "--root", str(root), "claude", "--server", "https://x"]
    argv += ["--bundle-key", key, "--token-file", str(token)]
    refused = hookgate(
        "install",
        "--managed",
        "--root",
        str(root),
        "claude",
        "--token-file",
        str(token),
        check=False,
    )
    assert refused.returncode == 2 and "--token-file goes with --server" in refused.stderr

    dry = hookgate(*argv, "--dry-run")
    assert f"would write {root}/etc/hookgate/token (root:root 0600;" in dry.stdout
    assert "hgt_secret_value" not in dry.stdout  # the token itself is never printed
    assert f"would write {root}/etc/systemd/system/hookgate-pull.service" in dry.stdout
    assert f"would write {root}/etc/systemd/system/hookgate-pull.timer" in dry.stdout
    assert f"would write {root}/etc/hookgate/hookgate-pull.cron" in dry.stdout
    assert f"would write {root}/etc/hookgate/checksums.json" in dry.stdout
    assert "would enable hookgate-pull.timer" in dry.stdout
    assert "would not run the first pull (a staging root)" in dry.stdout
    assert not (root / "etc").exists()

    done = hookgate(*argv)
    copied = root / "etc/hookgate/token"
    assert copied.read_text() == "hgt_secret_value\n"
    info = copied.stat()
    assert (info.st_uid, stat.S_IMODE(info.st_mode)) == (0, 0o600)
    assert "hgt_secret_value" not in done.stdout
    assert "token_file" not in json.loads((root / "etc/hookgate/config.json").read_text())
    unit = (root / "etc/systemd/system/hookgate-pull.service").read_text()
    assert "ExecStart=/opt/hookgate/bin/python -I -B -m hookgate.cli pull" in unit
    link = root / "etc/systemd/system/timers.target.wants/hookgate-pull.timer"
    assert os.readlink(link) == "/etc/systemd/system/hookgate-pull.timer"
    assert "systemctl daemon-reload && systemctl start hookgate-pull.timer" in done.stdout
    assert "install -o root -g root -m 0644 /etc/hookgate/hookgate-pull.cron" in done.stdout
    assert "first pull: not run in a staging root" in done.stdout
    sums = json.loads((root / "etc/hookgate/checksums.json").read_text())
    assert sums["prefix"] == "/opt/hookgate"
    launcher = next(k for k in sums["entries"] if k.endswith("site-packages/hookgate/launcher.py"))
    assert sums["entries"][launcher].startswith("sha256:")
    assert sums["entries"]["bin/python"].startswith("link:")

    doctor = ("doctor", "--root", str(root), "--user", "nobody", "--timeout", "0.1")
    assert "code in /opt/hookgate: as installed" in hookgate(*doctor, check=False).stdout
    (root / "opt/hookgate" / launcher).unlink()
    (root / "opt/hookgate/bin/extra").write_text("#!/bin/sh\n")
    out = hookgate(*doctor, check=False).stdout
    assert f"PROBLEM: code in /opt/hookgate: /opt/hookgate/{launcher}: removed" in out
    assert "PROBLEM: code in /opt/hookgate: /opt/hookgate/bin/extra: added (sha256)" in out

    hookgate("uninstall", "--managed", "--root", str(root), "claude")
    assert not (root / "etc/hookgate").exists()
    assert not os.path.lexists(link)
    assert not (root / "etc/systemd/system/hookgate-pull.service").exists()


def test_the_units_ship_in_the_wheel(tmp_path):
    """deploy/ is package data: a wheel (what the prefix installs) carries the units."""
    import zipfile

    wheel = _wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    for name in ("hookgate-pull.service", "hookgate-pull.timer", "hookgate-pull.cron"):
        assert f"hookgate/deploy/{name}" in names, names
