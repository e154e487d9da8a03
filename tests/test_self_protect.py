"""Self-protection end to end: every file `hookgate install` writes, hookgate's own directories
wherever its configuration puts them, through every host's tools (issue 15 part 4)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from hookgate.engine import Engine
from hookgate.integrations import hostconfig

POLICIES = Path(__file__).resolve().parent.parent / "policies"


@pytest.fixture(scope="module")
def pack():
    return Engine.from_paths([str(POLICIES)])


@pytest.fixture
def engine(pack, tmp_path, monkeypatch):
    """The pack, on a machine whose home and hookgate directories are under tmp_path
    (hookgate.paths() reads the environment on every call)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HOOKGATE_HOME", str(tmp_path / "moved-hookgate"))
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME"):
        monkeypatch.delenv(var, raising=False)
    return pack


def write_call(path: str, cwd: str) -> dict:
    return {
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": path, "content": "{}"},
        "cwd": cwd,
    }


def shell_call(command: str, cwd: str) -> dict:
    return {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": cwd,
    }


@pytest.mark.parametrize("host", hostconfig.HOSTS)
@pytest.mark.parametrize("scope", ["user", "project"])
def test_every_file_install_writes_is_protected(engine, tmp_path, host, scope):
    project = tmp_path / "proj"
    path = str(hostconfig.config_path(host, scope, project))
    decision = engine.evaluate(write_call(path, str(project)))
    assert decision.outcome == "deny", path
    assert any("pack=self-protect" in r for r in decision.reasons)
    assert engine.evaluate(shell_call(f"rm -f '{path}'", str(project))).outcome == "deny"
    read = {"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": path}}
    assert engine.evaluate(read).outcome == "allow"


def test_a_moved_host_home_is_protected(engine, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-elsewhere"))
    path = str(hostconfig.config_path("codex", "user"))
    assert path.startswith(str(tmp_path / "codex-elsewhere"))
    assert engine.evaluate(write_call(path, str(tmp_path))).outcome == "deny"


def test_hookgates_own_directories_are_protected_where_its_configuration_puts_them(
    engine, tmp_path
):
    moved = tmp_path / "moved-hookgate"
    for sub in ("config/login.json", "state/telemetry.jsonl", "cache/bundle.json"):
        call = shell_call(f": > {moved / sub}", str(tmp_path))
        assert engine.evaluate(call).outcome == "deny", sub
    patch = {
        "hook_event_name": "PreToolUse",
        "tool_name": "apply_patch",
        "turn_id": "t",
        "tool_input": {
            "command": f"*** Begin Patch\n*** Delete File: {moved}/cache/bundle.json\n*** End Patch"
        },
        "cwd": str(tmp_path),
    }
    assert engine.evaluate(patch).outcome == "deny"
    # the default location is not protected when the configuration moved it
    default_cache = tmp_path / "home" / ".cache" / "hookgate" / "x"
    assert engine.evaluate(shell_call(f": > {default_cache}", str(tmp_path))).outcome == "allow"


def test_mcp_and_powershell_hosts_tools(engine, tmp_path):
    mcp = {
        "hook_event_name": "PreToolUse",
        "tool_name": "mcp__filesystem__move_file",
        "tool_input": {"source": str(tmp_path / "proj/.git/hooks"), "destination": "/tmp/h"},
        "cwd": str(tmp_path / "proj"),
    }
    assert engine.evaluate(mcp).outcome == "deny"
    gemini = {
        "hook_event_name": "BeforeTool",
        "tool_name": "replace",
        "tool_input": {"file_path": "/r/.git/config", "old_string": "[core]", "new_string": "x"},
        "cwd": "/r",
    }
    assert engine.evaluate(gemini).outcome == "deny"
    copilot = {
        "toolName": "create",
        "toolArgs": json.dumps({"path": "C:\\Users\\x\\.claude\\settings.json", "file_text": ""}),
    }
    assert engine.evaluate(copilot).outcome == "deny"


def test_two_changes_of_one_protected_file_are_denied_without_a_fault(engine, tmp_path):
    """chmod then cp of one settings file: two reasons, not a failed pack (which the failure
    policy would let through)."""
    settings = tmp_path / "home" / ".claude" / "settings.json"
    line = f"chmod 600 {settings}; cp /tmp/x {settings}"
    decision = engine.evaluate(shell_call(line, str(tmp_path / "proj")))
    assert decision.outcome == "deny" and decision.errors == []
    assert sum("pack=self-protect" in r for r in decision.reasons) == 2


def test_the_protected_paths_follow_the_environment_between_calls(engine, tmp_path, monkeypatch):
    """The protected set is computed once per environment, not once per process: moving
    hookgate's directories between two calls of one engine moves the protection."""
    first, second = tmp_path / "first", tmp_path / "second"
    cwd = str(tmp_path / "proj")
    monkeypatch.setenv("HOOKGATE_HOME", str(first))
    assert engine.evaluate(write_call(f"{first}/config/x.json", cwd)).outcome == "deny"
    monkeypatch.setenv("HOOKGATE_HOME", str(second))
    assert engine.evaluate(write_call(f"{first}/config/x.json", cwd)).outcome == "allow"
    assert engine.evaluate(write_call(f"{second}/config/x.json", cwd)).outcome == "deny"
    monkeypatch.setenv("CODEX_HOME", str(first / "codex"))
    assert engine.evaluate(write_call(f"{first}/codex/hooks.json", cwd)).outcome == "deny"


def test_the_program_is_the_installed_package_not_a_source_checkout(monkeypatch):
    from hookgate import paths
    from hookgate.builtins import hookgate as hookgate_builtins

    installed = "/opt/venv/lib/python3.11/site-packages/hookgate"
    monkeypatch.setattr(paths, "__file__", installed + "/paths.py")
    assert hookgate_builtins._installed_program() == installed
    monkeypatch.setattr(paths, "__file__", "/home/u/src/hookgate/service/hookgate/paths.py")
    assert hookgate_builtins._installed_program() is None


# ---- issue 30: what the hook runs, paths on the disk, the writer table turned around, signals ----

CORPUS = json.loads(
    (Path(__file__).resolve().parent / "data" / "guards" / "self_protect.json").read_text()
)["rows"]
_MOVERS = ("HOOKGATE_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "GEMINI_CLI_HOME")
_XDG = ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME")


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """A home (hookgate's directories at their defaults under it) and a project in it."""
    home = tmp_path / "home"
    proj = home / "proj"
    proj.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    for var in (*_MOVERS, *_XDG):
        monkeypatch.delenv(var, raising=False)
    yield home, proj
    for lock in home.glob(".local/state/hookgate/warm/*.lock"):  # sleeps a setup started
        if not lock.is_file() or lock.is_symlink():  # a row's FIFO would block the read
            continue
        try:
            os.kill(int(lock.read_text().strip()), signal.SIGKILL)
        except (ValueError, OSError):
            pass


def _bash(script: str, home: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}
    env.update({"GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x"})
    return subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )


def _runtime_fill(command: str) -> str | None:
    """The row's command with this machine's hook environment put in; None when this hook
    runs from no venv (a row about the venv does not apply)."""
    from hookgate.builtins import hookgate as hb

    machine = hb.hookgate_paths()
    venv = machine["environment"]
    sites = [p for p in machine["runtime"] if p.endswith("-packages")]
    names = ("{site}", "{venv}", "{python}", "{real_python}")
    if not any(name in command for name in names):
        return command
    if venv is None or not sites:
        return None
    for name, value in zip(
        names,
        (sites[0], venv, machine["interpreters"][0], machine["interpreters"][-1]),
        strict=True,
    ):
        command = command.replace(name, value)
    return command


def _outcome(engine, command: str, cwd: Path):
    decision = engine.evaluate(shell_call(command, str(cwd)), host="claude")
    faults = [e for e in decision.errors if e.get("kind") == "fault"]
    return decision.outcome, faults, decision.reasons


@pytest.mark.parametrize("row", CORPUS, ids=[r["id"] for r in CORPUS])
def test_self_protect_corpus_row(pack, sandbox, row):
    """Each row of tests/data/guards/self_protect.json, in a sandbox home after its setup (the
    links and files earlier calls made): attacks denied or asked, everyday work left alone."""
    home, proj = sandbox
    command = _runtime_fill(row["command"])
    if command is None:
        pytest.skip("this hook runs from no venv")
    if "setup" in row:
        done = _bash(row["setup"], home, proj)
        assert done.returncode == 0, done.stderr
    outcome, faults, reasons = _outcome(pack, command, proj)
    expect = row["expect"] if isinstance(row["expect"], list) else [row["expect"]]
    assert faults == []
    assert outcome in expect, (command, outcome, reasons)
    if outcome != "allow":
        assert any("self-protect" in r for r in reasons), reasons


CHECKED = [r for r in CORPUS if "check" in r]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("row", CHECKED, ids=[r["id"] for r in CHECKED])
def test_self_protect_premise_holds_in_real_bash(sandbox, row):
    """What the row says the command does, it does: run for real in the sandbox home with real
    bash (and the real cp, sed, patch, git, kill, mkfifo), then its check holds."""
    home, proj = sandbox
    if "setup" in row:
        assert _bash(row["setup"], home, proj).returncode == 0
    _bash(row["command"], home, proj)
    check = _bash(row["check"], home, proj)
    assert check.returncode == 0, (row["command"], check.stdout, check.stderr)


def test_the_corpus_covers_every_class_both_ways():
    classes = {r["class"] for r in CORPUS}
    assert {"runtime", "environment", "disk", "writers", "signals", "everyday"} <= classes
    for cls in classes - {"everyday"}:
        assert any(r["expect"] != "allow" for r in CORPUS if r["class"] == cls), cls
    assert sum(r["expect"] == "allow" for r in CORPUS) >= 20
    assert all(("check" in r) != ("not_run" in r) for r in CORPUS)


def test_the_protected_set_is_what_this_hook_runs():
    """The interpreter as named and resolved, pyvenv.cfg, and the directories hookgate's
    dependencies are imported from: not only site-packages/hookgate."""
    import sys

    import lark

    from hookgate.builtins import hookgate as hb

    machine = hb.hookgate_paths()
    runtime = machine["runtime"]
    assert os.path.abspath(sys.executable) in runtime
    assert os.path.realpath(sys.executable) in runtime
    assert os.path.realpath(sys.executable) in machine["interpreters"]

    def covered(path: str) -> bool:
        return any(path == p or path.startswith(p.rstrip("/") + "/") for p in runtime)

    assert covered(os.path.dirname(os.path.dirname(lark.__file__)))  # a dependency's directory
    assert covered(os.path.dirname(os.__file__))  # the standard library
    if sys.prefix != sys.base_prefix:
        assert os.path.join(sys.prefix, "pyvenv.cfg") in runtime
        assert machine["environment"] == sys.prefix
    # a source checkout of hookgate (this one, installed editable) is the project, not the hook
    from hookgate import paths

    checkout = os.path.dirname(os.path.dirname(os.path.abspath(paths.__file__)))
    if hb._PROGRAM is None:
        assert checkout not in runtime


def test_the_import_directories_leave_out_the_working_directory_and_the_home(monkeypatch, tmp_path):
    from hookgate.builtins import hookgate as hb

    monkeypatch.setenv("HOME", str(tmp_path))
    site = tmp_path / "venv" / "lib" / "site-packages"
    site.mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "venv")
    dirs = hb._import_dirs(["", str(tmp_path / "venv"), str(tmp_path), "/", str(site), "hook"])
    assert dirs == [str(site)]


def test_a_moved_gemini_home_is_protected(engine, tmp_path, monkeypatch):
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "alt"))
    settings = tmp_path / "alt" / ".gemini" / "settings.json"
    assert engine.evaluate(write_call(str(settings), str(tmp_path))).outcome == "deny"


def test_a_write_through_a_link_is_judged_where_it_lands(engine, tmp_path):
    """A link made by an earlier call (or by anyone) into a protected directory: the path the
    call names compares as text with nothing protected, the file it writes is the settings."""
    claude = tmp_path / "home" / ".claude"
    claude.mkdir(parents=True)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "cfg").symlink_to(claude)
    (proj / "up").symlink_to(tmp_path / "home")
    for path in (proj / "cfg" / "settings.json", proj / "up" / ".claude" / "settings.json"):
        decision = engine.evaluate(write_call(str(path), str(proj)))
        assert decision.outcome == "deny", path
        assert any("on disk" in r for r in decision.reasons)
    mine = proj / "cfg2"
    mine.mkdir()
    assert engine.evaluate(write_call(str(mine / "settings.json"), str(proj))).outcome == "allow"


def test_on_disk_follows_the_existing_prefix_and_never_opens_a_fifo(tmp_path):
    from hookgate.builtins import hookgate as hb

    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    assert hb.on_disk(str(tmp_path / "link" / "a" / "b")) == str(real / "a" / "b")
    os.mkfifo(tmp_path / "fifo")
    done = subprocess.run(  # a hang would time out: realpath only lstat()s and readlink()s
        [
            sys.executable,
            "-c",
            "import sys; from hookgate.builtins.hookgate import on_disk; print(on_disk(sys.argv[1]))",
            str(tmp_path / "fifo" / "x"),
        ],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert done.stdout.strip() == str(tmp_path / "fifo" / "x")
    assert hb.on_disk("relative/path") == "relative/path"
    assert hb.on_disk(None) is None


def test_patch_effects_reads_a_regular_patch_file_only(tmp_path):
    from hookgate.builtins import hookgate as hb

    patch = tmp_path / "p.diff"
    patch.write_text(
        "diff --git a/x b/.claude/settings.json\n--- a/x\n+++ b/.claude/settings.json\n"
        '@@ -1 +1 @@\n-{}\n+{"hooks": {}}\n--- proj/CLAUDE.md\n+++ /dev/null\n'
        "diff --git a/y b/.husky/pre-commit\nrename from y\nrename to .husky/pre-commit\n"
    )
    assert hb.patch_effects(str(patch)) == [
        {"op": "edit", "path": ".claude/settings.json", "content": '{"hooks": {}}'},
        {"op": "write", "path": ".husky/pre-commit", "content": None},
        {"op": "delete", "path": "proj/CLAUDE.md", "content": None},
        {"op": "delete", "path": "CLAUDE.md", "content": None},  # as -p1 reads it
    ]
    os.mkfifo(tmp_path / "fifo.patch")
    assert hb.patch_effects(str(tmp_path / "fifo.patch")) == []  # opened without blocking
    (tmp_path / "l.patch").symlink_to(patch)
    assert hb.patch_effects(str(tmp_path / "l.patch")) == []  # O_NOFOLLOW
    assert hb.patch_effects("p.diff") == []  # a path the hook cannot place is not read


def test_the_warm_process_model_matches_what_warm_and_install_run():
    """The command line self-protection matches pkill -f against is the one the warm process
    runs: the same serve argument and the launcher's code."""
    from hookgate import warm
    from hookgate.builtins import hookgate as hb
    from hookgate.integrations import hostconfig

    assert hb._SERVE == warm.SERVE
    model = hb._processes(sys.executable, sys.executable)["cmdlines"][-1]
    assert "from hookgate.launcher import launch" in hostconfig.LAUNCH_CODE
    assert "from hookgate.launcher import launch" in model and warm.SERVE in model


@pytest.mark.skipif(shutil.which("pkill") is None, reason="needs procps")
def test_pkill_f_matches_the_whole_command_line_as_the_model_says(tmp_path):
    """Premise of the signal rules: pkill -f searches its pattern in the command line with the
    words joined by spaces (pgrep, its read-only twin, shows it)."""
    token = f"probe{os.getpid()}"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-I",
            "-S",
            "-c",
            "import time; time.sleep(60)",
            "--serve-warm",
            "eval",
            token,
        ]
    )
    try:
        found = subprocess.run(
            ["pgrep", "-f", f"sleep\\(60\\) --serve-warm eval {token}"],
            capture_output=True,
            text=True,
        )
        assert str(proc.pid) in found.stdout.split()
    finally:
        proc.kill()
        proc.wait()


# ---- the builtins the guard's path matching runs on every decision ---------------------------


@pytest.mark.parametrize("through_proc", [True, False], ids=["O_PATH", "lstat walk"])
def test_on_disk_resolves_as_realpath_does(tmp_path, monkeypatch, through_proc):
    from hookgate.builtins import hookgate as hb

    if through_proc and not os.path.isdir("/proc/self/fd"):
        pytest.skip("no /proc/self/fd")
    monkeypatch.setattr(hb, "_FD_DIR", [through_proc])
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "f").write_text("")
    (tmp_path / "lnk").symlink_to("a/b")
    (tmp_path / "dang").symlink_to(tmp_path / "nowhere" / "x")
    (tmp_path / "loop1").symlink_to("loop2")
    (tmp_path / "loop2").symlink_to("loop1")
    (tmp_path / "a" / "b" / "up").symlink_to("../..")
    os.mkfifo(tmp_path / "a" / "fifo")
    base = str(tmp_path)
    for tail in [
        "",
        "/lnk",
        "/lnk/f",
        "/lnk/new",
        "/lnk/new/deeper",
        "/dang",  # a link to nothing: written, it creates its target
        "/dang/x",
        "/loop1",
        "/loop1/x",
        "/a/fifo",
        "/a/fifo/x",
        "/a/b/f/x",
        "/lnk/up/lnk/f",
        "/lnk/../x",
        "/./lnk//f",
        "/lnk/",
        "/missing/a/b",
        "/a/b/up/.hidden",
        "/a/b/new",  # a new file in a directory that is there
        "/a/new/deeper",
        "/lnk/up/new",
        "/dang/x/y",
    ]:
        assert hb.on_disk(base + tail) == os.path.realpath(base + tail), tail
    assert hb.on_disk("/") == "/"


def test_path_words_are_the_words_that_may_name_a_file():
    from hookgate.builtins.hookgate import path_words

    assert path_words(["npm", "test", "--", "--watch=false", "-v"]) == []
    assert path_words(["/bin/rm"]) == []
    assert path_words(["cp", "src/a.py", "~", ".env", "x", "src/a.py"]) == ["src/a.py", "~", ".env"]
    assert path_words(["curl", "--output=/tmp/o", "-t/dir", "-t", "-oFILE", "-x=./y"]) == [
        "/tmp/o",
        "/dir",
    ]
    assert path_words(["make", "DESTDIR=~/.claude", "of=/dev/x", "a=b"]) == [
        "DESTDIR=~/.claude",
        "~/.claude",
        "of=/dev/x",
        "/dev/x",
    ]
    assert path_words("src/a.py") == []
    assert path_words(["x", 1, None, "./x"]) == ["./x"]


def _path_words_by_definition(argv: list) -> list[str]:
    """path_words as its docstring defines it, without its quick rejection of plain words."""
    out: list[str] = []
    for a in argv[1:]:
        if type(a) is not str:
            continue
        if a.startswith("--"):
            candidates = [a.partition("=")[2]] if "=" in a else []
        elif a.startswith("-"):
            candidates = [a[2:]] if len(a) > 2 and a[2] in "/~." else []
        else:
            candidates = [a, a.partition("=")[2]] if "=" in a else [a]
        out += [w for w in candidates if ("/" in w or w.startswith(("~", "."))) and w not in out]
    return out


def test_path_words_quick_rejection_changes_no_answer():
    """Every word of up to four characters over the characters path_words looks at, alone and
    after another: the same words as the definition."""
    from itertools import product

    from hookgate.builtins.hookgate import path_words

    alphabet = "-=/~.a"
    words = [""] + ["".join(p) for n in range(1, 5) for p in product(alphabet, repeat=n)]
    for w in words:
        for argv in (["cmd", w], ["cmd", w, "x/" + w], ["cmd", "-t" + w, "--o=" + w, "k=" + w]):
            assert path_words(argv) == _path_words_by_definition(argv), argv


INDEX = {
    "protected": [
        {"path": "/h/.claude/settings.json", "prefix": None, "what": "claude"},
        {"path": "/h/.config/hookgate", "prefix": "/h/.config/hookgate/", "what": "hookgate"},
        {"path": "/etc/codex", "prefix": "/etc/codex/", "what": "managed"},
    ],
    "anywhere": {".git/hooks/": "git hooks", ".claude/settings.json": "project claude"},
    "environment": {
        "names": [".bashrc", ".env"],
        # (tails by their first part: two under one, one of a single part, one without a
        # leading /)
        "paths": ["/.config/fish/config.fish", "/.config/mise/", "/.direnvrc", "etc/profile.d/"],
    },
}


def reference_hits(entry: dict, index: dict) -> set:
    """The matching as the guard's rules wrote it before it became a builtin (self_protect.rego's
    covers/names_protected/anywhere/names_anywhere), path by protected path: what the builtin's
    lookup tables must agree with."""
    found = set()
    keys = [(entry["path"], entry["path"])]
    real = entry.get("real")
    if isinstance(real, str) and real != entry["path"]:
        keys.append((f"{entry['path']} (on disk {real})", real))
    tree, holder = entry.get("tree", False), entry.get("holder", False)
    for shown, raw in keys:
        key = raw.lower()
        bare_key = key[:-1] if key.endswith("/") else key
        for p in index["protected"]:
            if (
                key == p["path"]
                or (p["prefix"] and key.startswith(p["prefix"]))
                or (tree and (p["path"] + "/").startswith(bare_key + "/"))
                or (holder and p["prefix"] is None and bare_key == p["path"].rpartition("/")[0])
            ):
                found.add((shown, p["what"]))
        if "/." in key or key.startswith("."):
            for pattern, what in index["anywhere"].items():
                bare = pattern.lower().rstrip("/")
                parts = bare.split("/")
                heads = ["/".join(parts[:n]) for n in range(1, len(parts))]

                def ends(tail, k=bare_key):
                    return k == tail or k.endswith("/" + tail)

                if (
                    key == bare
                    or key.endswith("/" + bare)
                    or (pattern.endswith("/") and f"/{bare}/" in f"/{key}/")
                    or (tree and any(ends(h) for h in heads))
                    or (holder and heads and ends(heads[-1]))
                ):
                    found.add((shown, what))
        name = key.rpartition("/")[2]
        environment = index["environment"]
        if name in environment["names"] or any(t in key for t in environment["paths"]):
            found.add((shown, None))
    return found


PATHS = [
    "/h/.claude/settings.json",
    "/H/.Claude/Settings.JSON",
    "/h/.claude",
    "/h/.claude/",
    "/h",
    "/",
    "/h/.config/hookgate",
    "/h/.config/hookgate/state/x",
    "/h/.config/hookgatex",
    "/h/.config",
    "/etc/codex/requirements.toml",
    "/etc",
    "/r/.git/hooks/pre-commit",
    "/r/.git/hooks",
    "/r/.git",
    "/r/.gitx/hooks",
    ".git/hooks",
    ".git",
    "/p/.claude/settings.json",
    "/p/.claude",
    "/h/.bashrc",
    "/p/sub/.env",
    "/h/.config/fish/config.fish",
    "/h/.config/mise/config.toml",
    "/h/.config/mise",
    "/h/.configx/mise/x",
    "/h/.direnvrc",
    "/h/.direnvrc.bak",
    "/x/etc/profile.d/a.sh",
    "/x/etc/profile.dx",
    "/tmp/project/src/app.py",
    "relative/file",
]


@pytest.mark.parametrize("tree", [False, True])
@pytest.mark.parametrize("holder", [False, True])
def test_protected_hits_agree_with_the_rules_they_replace(tree, holder):
    from hookgate.builtins.hookgate import protected_hits

    for path in PATHS:
        for real in (None, path, "/h/.claude/settings.json", "/r/.git/hooks/x", "/h/.bashrc"):
            entry = {"path": path, "how": "h", "tree": tree, "holder": holder, "real": real}
            got = {(h["path"], h["what"]) for h in protected_hits([entry], INDEX)}
            assert got == reference_hits(entry, INDEX), (path, real, tree, holder)
    hits = protected_hits(
        [{"path": "/x/link", "real": "/H/.claude/settings.json", "how": "w"}], INDEX
    )
    assert {h["what"] for h in hits} == {"claude", "project claude"}
    for h in hits:
        assert h["path"] == "/x/link (on disk /H/.claude/settings.json)" and h["of"] == "/x/link"
        assert h["kind"] == "protected" and h["how"] == "w"


def test_protected_hits_joins_the_words_of_how_for_a_hit():
    """``changed`` hands its "how" over as words (tool, verb): the text is built only for a hit,
    and is the text concat(" ", words) made in the rule."""
    from hookgate.builtins.hookgate import protected_hits

    words = ["Write", "would write"]
    hits = protected_hits([{"path": "/etc/codex/x", "how": words, "tag": "changed"}], INDEX)
    assert hits and {h["how"] for h in hits} == {"Write would write"}
    assert words == ["Write", "would write"]  # the entry's own array is left as it was
    assert protected_hits([{"path": "/tmp/project/a.py", "how": words}], INDEX) == []
    # a word that is not a string: the rule's concat was undefined, so was the entry
    assert protected_hits([{"path": "/etc/codex/x", "how": ["Write", 3]}], INDEX) == []


def test_protected_hits_builds_its_tables_once_per_index_object():
    from hookgate.builtins import hookgate as hb

    entry = [{"path": "/etc/codex/x", "how": "w"}]
    assert hb.protected_hits(entry, INDEX)
    tables = hb._INDEX[0][1]
    assert hb.protected_hits(entry, INDEX) and hb._INDEX[0][1] is tables
    other = {**INDEX, "protected": []}  # another index (another environment): its own tables
    assert hb.protected_hits(entry, other) == [] and hb._INDEX[0][1] is not tables
    assert hb.protected_hits(entry, None) == []
    assert hb.protected_hits([{"path": 3}, "x", {"how": "w"}], INDEX) == []


def test_the_sections_gate_finds_every_command_the_section_judges():
    """self_protect.rego's `watched` looks a command up by its name without a version
    (trim_right of digits and dots): a signal command or package manager whose own name ended
    in one would never be looked at."""
    config = json.loads((POLICIES / "data.json").read_text())["hookgate"]["config"]
    table = config["self_protect"]
    for name in table["signals"]["commands"]:
        assert name.rstrip("0123456789.") == name, name
    for name in table["package_managers"]["programs"]:
        assert name.rstrip("0123456789.") == name, name


def test_the_paths_answer_survives_a_change_of_directory_unless_a_variable_is_relative(
    tmp_path, monkeypatch
):
    """A warm process's child works in its caller's directory: when no variable is relative,
    the answer (and so every rule built on it, and protected_hits' tables) stays the one the
    warm process computed before the call."""
    from hookgate.builtins.hookgate import hookgate_paths

    monkeypatch.setenv("HOOKGATE_HOME", str(tmp_path / "hg"))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path / "a")
    first = hookgate_paths()
    monkeypatch.chdir(tmp_path / "b")
    assert hookgate_paths() is first
    monkeypatch.setenv("HOOKGATE_HOME", "rel")
    assert hookgate_paths()["state"] == str(tmp_path / "b" / "rel" / "state")
    monkeypatch.chdir(tmp_path / "a")
    assert hookgate_paths()["state"] == str(tmp_path / "a" / "rel" / "state")


@pytest.mark.skipif(sys.prefix == sys.base_prefix, reason="needs the tests to run in a venv")
def test_the_venv_is_found_when_the_hook_runs_without_site(tmp_path):
    # The wired launcher runs `python -I -S`: site.py never points sys.prefix at the venv, yet
    # the venv's pyvenv.cfg and a `python -m pip install --upgrade` into it change the hook.
    service = Path(__file__).resolve().parents[1] / "service"
    code = (
        f"import sys, json; sys.path.insert(0, {str(service)!r});"
        "from hookgate.builtins.hookgate import _runtime;"
        "r = _runtime(); print(json.dumps([r['environment'], r['paths']]))"
    )
    python = os.path.join(sys.prefix, "bin", "python")
    done = subprocess.run([python, "-I", "-S", "-c", code], capture_output=True, text=True)
    environment, found = json.loads(done.stdout)
    assert environment == sys.prefix, done.stderr
    assert os.path.join(sys.prefix, "pyvenv.cfg") in found
