"""The project's own promises: the README's two set-up commands, CI running the same test
command, and a wheel that carries the grammar and the default pack."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.S)
    commands = []
    for block in blocks:
        lines = [line for line in block.splitlines() if line and not line.startswith("#")]
        commands.append(" ".join(line.rstrip("\\").strip() for line in lines))
    return commands


def test_quick_start_has_exactly_two_setup_commands():
    setup = [c for c in quick_start_commands() if c.startswith("python3 -m venv")]
    assert len(setup) == 2
    assert "hookgate serve" in setup[0]
    assert "pytest" in setup[1]


def test_ci_runs_the_readme_test_command():
    test_command = [c for c in quick_start_commands() if "pytest" in c][0]
    ci = (ROOT / ".ci" / "run").read_text()
    assert test_command.replace("pip install", "pip install -q") in ci


def test_wheel_ships_grammar_and_default_pack(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("hookgate-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extractall(tmp_path / "site")
    assert "hookgate/grammar/policy.lark" in names
    assert any(n.startswith("hookgate/policies/") and n.endswith(".rego") for n in names)
    assert any(n.startswith("hookgate/server/migrations/") for n in names)
    # Installed elsewhere, the package finds its grammar and pack there, not in this checkout.
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "import hookgate, importlib.resources as r;"
        "from hookgate.sources import default_pack_path;"
        "assert hookgate.__file__.startswith(sys.argv[1]), hookgate.__file__;"
        "assert str(default_pack_path()).startswith(sys.argv[1]);"
        "print(len((r.files('hookgate.grammar') / 'policy.lark').read_text()))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path / "site")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) > 100


def test_every_promise_of_the_cannot_turn_off_table_names_tests_that_exist():
    """Each row of the threat model's table (docs/design/threat-model.md, "what the agent
    cannot turn off") names the tests that cover it: the files exist, and a ``…fragment…`` names
    a test function in one of its row's files."""
    section = (ROOT / "docs/design/threat-model.md").read_text()
    rows = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) > 10
    for row in rows[1:]:
        cells = row.split(" | ")
        tests_cell = cells[-1]
        files = re.findall(r"`(test_[a-z_]+\.py)`|`tests/hosts`", tests_cell)
        named = [f for f in files if f]
        assert named or "tests/hosts" in tests_cell, f"no test named for: {cells[0]}"
        texts = ""
        for name in named:
            path = ROOT / "tests" / name
            assert path.exists(), f"{name} (row: {cells[0]})"
            texts += path.read_text()
        for fragment in re.findall(r"`…([a-z_]+)…`", tests_cell):
            defined = re.findall(r"def (test_\w+)", texts)
            assert any(fragment in d for d in defined), f"…{fragment}… in {named}"
