"""host.agents / host.skills: sub-agents and skills discovered from .claude directories."""

from __future__ import annotations

import os

import pytest

from hookgate.builtins import BuiltinError, full_registry
from hookgate.builtins import host as host_builtins
from hookgate.builtins.host import agents, frontmatter_name, skills

REGISTRY = full_registry()


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    host_builtins._agents.cache_clear()
    host_builtins._skills.cache_clear()
    yield home
    host_builtins._agents.cache_clear()
    host_builtins._skills.cache_clear()


def write(path, text="x\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_agents_by_frontmatter_name_or_stem(tmp_path, home):
    proj = tmp_path / "proj"
    write(proj / ".claude/agents/a1.md", "---\ndescription: d\nname: architect\n---\nbody\n")
    write(proj / ".claude/agents/reviewer.md", "no frontmatter\n")
    write(proj / ".claude/agents/quoted.md", "---\nname: 'tester'\n---\n")
    write(proj / ".claude/agents/empty-name.md", "---\nname:\n---\n")
    write(proj / ".claude/agents/notes.txt", "---\nname: not-an-agent\n---\n")
    write(home / ".claude/agents/helper.md", "---\nname: helper\n---\n")
    assert agents(str(proj)) == ["architect", "empty-name", "helper", "reviewer", "tester"]


def test_skills_by_frontmatter_name_or_directory(tmp_path, home):
    proj = tmp_path / "proj"
    write(proj / ".claude/skills/pdf/SKILL.md", "---\nname: pdf-tools\n---\n")
    write(proj / ".claude/skills/plain/SKILL.md", "Just text\n")
    write(proj / ".claude/skills/nofile/README.md", "---\nname: x\n---\n")
    write(home / ".claude/skills/mine/SKILL.md", "---\nname: mine\n---\n")
    assert skills(str(proj)) == ["mine", "pdf-tools", "plain"]


def test_a_name_that_is_both_is_listed_in_both(tmp_path, home):
    proj = tmp_path / "proj"
    write(proj / ".claude/agents/pdf.md", "---\nname: pdf\n---\n")
    write(proj / ".claude/skills/pdf/SKILL.md", "---\nname: pdf\n---\n")
    assert "pdf" in agents(str(proj)) and "pdf" in skills(str(proj))


def test_symlinks_are_not_followed(tmp_path, home):
    proj = tmp_path / "proj"
    outside = tmp_path / "outside"
    write(outside / "evil.md", "---\nname: evil\n---\n")
    write(outside / "agents/linked-dir-agent.md", "---\nname: via-dir\n---\n")
    write(outside / "skill/SKILL.md", "---\nname: linked-skill\n---\n")
    (proj / ".claude/agents").mkdir(parents=True)
    os.symlink(outside / "evil.md", proj / ".claude/agents/evil.md")
    (proj / ".claude/skills").mkdir(parents=True)
    os.symlink(outside / "skill", proj / ".claude/skills/linked")
    (home / ".claude").mkdir()
    os.symlink(outside / "agents", home / ".claude/agents")
    assert agents(str(proj)) == []
    assert skills(str(proj)) == []


def test_symlinked_skill_file_is_not_read(tmp_path, home):
    proj = tmp_path / "proj"
    write(tmp_path / "real.md", "---\nname: real\n---\n")
    (proj / ".claude/skills/s").mkdir(parents=True)
    os.symlink(tmp_path / "real.md", proj / ".claude/skills/s/SKILL.md")
    assert skills(str(proj)) == []


def test_scan_is_bounded(tmp_path, home, monkeypatch):
    monkeypatch.setattr(host_builtins, "MAX_ENTRIES", 5)
    proj = tmp_path / "proj"
    for i in range(20):
        write(proj / f".claude/agents/a{i:02}.md")
    assert len(agents(str(proj))) <= 5


def test_frontmatter_read_is_bounded(tmp_path):
    path = write(tmp_path / "big.md", "---\n" + "x: y\n" * 5000 + "name: late\n---\n")
    assert frontmatter_name(str(path)) is None


def test_results_are_cached_per_process(tmp_path, home):
    proj = tmp_path / "proj"
    write(proj / ".claude/agents/one.md")
    assert agents(str(proj)) == ["one"]
    write(proj / ".claude/agents/two.md")
    assert agents(str(proj)) == ["one"]
    host_builtins._agents.cache_clear()
    assert agents(str(proj)) == ["one", "two"]


def test_relative_or_missing_directories(tmp_path, home, monkeypatch):
    write(tmp_path / ".claude/agents/here.md")
    monkeypatch.chdir(tmp_path)
    assert agents(".") == []
    assert agents(str(tmp_path / "missing")) == []
    with pytest.raises(BuiltinError):
        agents(None)
    with pytest.raises(BuiltinError):
        skills(3)


def test_registered_with_docs():
    for name in ("host.agents", "host.skills"):
        b = REGISTRY[name]
        assert b.family == "host" and b.arity == 1 and b.reads_host and len(b.doc) > 80
