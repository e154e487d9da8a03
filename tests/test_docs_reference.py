"""The generated reference pages are what their generators print today: a stale page fails with
the command that regenerates it."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookgate import refdocs

ROOT = Path(__file__).resolve().parents[1]
PAGES = refdocs.pages(ROOT)


@pytest.mark.parametrize("path", sorted(PAGES), ids=lambda p: p.name)
def test_generated_page_is_current(path):
    assert path.read_text() == PAGES[path], (
        f"{path.relative_to(ROOT)} is stale: run `python -m hookgate.refdocs` at the repository root"
    )


def test_cli_page_has_every_command_and_option():
    from hookgate.cli import COMMANDS

    page = PAGES[ROOT / "docs/reference/cli.md"]
    for name in COMMANDS:
        assert f"## hookgate {name}\n" in page
    # Options come from the parser itself, not a copy: a few that users reach for.
    for option in ("--policies", "--host", "--replace-base", "--db"):
        assert option in page
    assert "### hookgate token create" in page


def test_http_api_page_has_every_operation_of_the_openapi_document():
    page = PAGES[ROOT / "docs/reference/http-api.md"]
    for heading in ("## POST /v1/evaluate", "## GET /v1/bundle", "## PUT /v1/policies/{id}"):
        assert heading + "\n" in page
    assert "### ErrorOut" in page


def test_guards_page_lists_every_module_and_every_configuration_key(tmp_path):
    import json

    page = PAGES[ROOT / "docs/reference/guards.md"]
    for rego in (ROOT / "policies").glob("*.rego"):
        assert (f"`policies/{rego.name}`" in page) != rego.name.endswith("_test.rego")
    config = json.loads((ROOT / "policies/data.json").read_text())["hookgate"]["config"]
    for section, keys in config.items():
        for key in keys if isinstance(keys, dict) else [section]:
            name = f"{section}.{key}" if key != section else key
            assert f"| `{name}` |" in page
    assert '| `force_push.on_force` | `"rewrite"` |' in page


def test_guards_page_keeps_its_hand_written_text_and_refuses_a_page_without_markers(tmp_path):
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies/data.json").write_text('{"hookgate": {"config": {"x": {"k": 1}}}}')
    (tmp_path / "policies/x.rego").write_text(
        "# METADATA\n# title: ex\npackage hookgate.x\ny := data.hookgate.config.x.k\n"
    )
    block = refdocs.render_guards_block(tmp_path)
    assert "| `policies/x.rego` | ex | `hookgate.x` |" in block
    assert "Read by: `policies/x.rego`." in block and "| `x.k` | `1` |" in block
    page = f"# Intro\n\nmine\n\n{refdocs.BEGIN}\nstale text\n{refdocs.END}\n\nafter\n"
    new = refdocs._with_block(page, block)
    assert new.startswith("# Intro\n\nmine\n\n") and new.endswith(f"{refdocs.END}\n\nafter\n")
    assert "stale text" not in new
    with pytest.raises(ValueError, match="markers"):
        refdocs._with_block("# no markers\n", block)


def test_check_mode_names_a_stale_page_and_fails(tmp_path, capsys, monkeypatch):
    stale = tmp_path / "docs/reference/cli.md"
    monkeypatch.setattr(refdocs, "pages", lambda root: {stale: "new\n"})
    stale.parent.mkdir(parents=True)
    stale.write_text("old\n")
    assert refdocs.main(["--check", "--root", str(tmp_path)]) == 1
    assert "stale:" in capsys.readouterr().out and stale.read_text() == "old\n"
    assert refdocs.main(["--root", str(tmp_path)]) == 0
    assert stale.read_text() == "new\n"
