"""``lib.line_writes``, the one test that spares a shell line writing nothing the rules of the
write model (policies/lib_effects.rego), is exact: whenever it does not hold, every rule it
guards is empty, on the everyday and evasion corpora and on lines of every kind of writer; and
each of its tests is needed (without it, some line's effects would be lost)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hookgate.hostio.normalize import normalize
from hookgate.lang import UNDEFINED, load
from hookgate.lang.values import to_json
from hookgate.sources import default_pack_sources

ROOT = Path(__file__).resolve().parent.parent
GUARDS = ROOT / "tests" / "data" / "guards"
CWD = "/home/u/proj"

# The rules line_writes guards (line_file_effects' parts, and another machine's files).
GUARDED = (
    "command_file_effects",
    "git_file_effects",
    "code_file_effects",
    "patch_file_effects",
    "code_delete_effects",
    "remote_file_effects",
)
REFS = ["data.hookgate.lib.line_writes", *(f"data.hookgate.lib.{r}" for r in GUARDED)]

# Lines that write, one or more of each kind line_writes tests for; each has effects.
WRITING = [
    # files of the shell model: redirections, writers, PowerShell, another machine's
    "printf 'v2\\n' >> CHANGES.md",
    "cd docs && touch index.rst",
    "mkdir -p build/out && ln -s ../x build/out/x",
    "tar -czf /tmp/b.tgz --remove-files old/",
    "ssh deploy@web1 'truncate -s 0 /var/log/app.log'",
    "kubectl exec api-0 -- rm -rf /srv/cache",
    # programs whose options or operands write what the line does not show
    "curl -fsS https://example.org/a.json -o vendor/a.json",
    "wget -q --directory-prefix=third_party https://example.org/lib.tar.gz",
    "sort -u -o words.txt words.txt",
    "rsync -a assets/ public/",
    "unzip -q fonts.zip -d static/fonts",
    "cp -a template/. newproj",
    # interpreters
    "python3 -c \"open('VERSION', 'w').write('1.2.0')\"",
    "node -e \"require('fs').rmSync('dist', {recursive: true})\"",
    'ruby -e \'File.write("out.txt", "ok")\'',
    # git changing the work tree, or writing a file an option names
    "git rm --quiet -r legacy",
    "git mv README README.md",
    "git checkout HEAD~2 -- setup.cfg",
    "git restore --source=main src/app.py",
    "git diff --output=review.diff main...HEAD",
    "git -C web archive -o ../release.tgz HEAD",
]

# Lines that write nothing (the everyday mix's and others).
INERT = [
    "npm test -- --watch=false",
    "git push --force origin main",
    "git commit --no-verify -m wip",
    "git log --oneline -5 | cat",
    "ls -la src && grep -rn TODO src",
    "pytest -q tests/test_app.py::test_parse",
    "make -j4 check",
    "docker ps --format '{{.Names}}'",
]


def document(line: str, tool: str = "Bash") -> dict:
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": {"command": line},
        "cwd": CWD,
    }
    return normalize(payload, "claude").document()


def pwsh(line: str) -> dict:
    return document(line, "PowerShell")


def mcp_run(line: str) -> dict:
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "mcp__shell__execute_command",
        "tool_input": {"command": line},
        "cwd": CWD,
    }
    return normalize(payload, "claude").document()


def corpus_lines() -> list[str]:
    lines = []
    for name in ("everyday_tldr.json", "everyday_agent.json"):
        lines += [c["command"] for c in json.loads((GUARDS / name).read_text())["cases"]]
    lines += [r["command"] for r in json.loads((GUARDS / "evasions.json").read_text())["rows"]]
    return lines


def own_documents() -> list[dict]:
    return [
        *(document(line) for line in WRITING + INERT),
        pwsh("Set-Content -Path notes.txt -Value 'done'"),
        pwsh("Get-ChildItem -Recurse | Select-Object Name"),
        mcp_run("echo ok > status.txt"),
        mcp_run("uptime"),
    ]


@pytest.fixture(scope="module")
def pack() -> tuple[dict, dict]:
    return default_pack_sources()


def values(ps, doc: dict) -> dict:
    found = ps.query_many(REFS, input=doc)
    return {ref.rsplit(".", 1)[1]: v for ref, v in zip(REFS, found, strict=True)}


def broken(ps, doc: dict) -> list[str]:
    """The guarded rules with members although line_writes does not hold."""
    v = values(ps, doc)
    if v["line_writes"] is not UNDEFINED:
        return []
    return [r for r in GUARDED if to_json(v[r]) != []]


def test_a_line_writing_nothing_has_no_effects_of_the_rules_it_spares(pack):
    ps = load(*pack)
    docs = [document(line) for line in corpus_lines()] + own_documents()
    assert len(docs) > 1500
    failures = [(d["tool_input"]["command"], b) for d in docs if (b := broken(ps, d))]
    assert failures == []


def test_every_writing_line_here_is_tested_and_has_effects(pack):
    ps = load(*pack)
    for line in WRITING:
        v = values(ps, document(line))
        assert v["line_writes"] is True, line
        assert any(to_json(v[r]) for r in GUARDED), line
    for line in INERT:
        assert values(ps, document(line))["line_writes"] is UNDEFINED, line
    assert values(ps, pwsh("Set-Content -Path notes.txt -Value 'done'"))["line_writes"] is True
    assert values(ps, mcp_run("echo ok > status.txt"))["line_writes"] is True
    assert values(ps, mcp_run("uptime"))["line_writes"] is UNDEFINED


HEAD, ELSE = "line_writes := true if {\n", "\n} else := true if {\n"
RULE = re.compile(re.escape(HEAD) + r"(?:.*\n)*?\}\n(?=\n)")


def test_each_test_of_line_writes_is_needed(pack):
    """Without any one of its branches, some line here would lose effects the write model
    has."""
    sources, data = pack
    name = next(n for n in sources if n.endswith("lib_effects.rego"))
    rule = RULE.search(sources[name]).group(0)
    branches = rule[len(HEAD) : -len("\n}\n")].split(ELSE)
    assert len(branches) == 5
    docs = own_documents()
    for i, branch in enumerate(branches):
        kept = ELSE.join(branches[:i] + branches[i + 1 :])
        ps = load({**sources, name: sources[name].replace(rule, f"{HEAD}{kept}\n}}\n")}, data)
        assert any(broken(ps, d) for d in docs), branch
