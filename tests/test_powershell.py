"""hookgate.shell.powershell: PowerShell lines in shell.commands' shape."""

from __future__ import annotations

import pytest

from hookgate.shell.powershell import commands


def brief(line: str) -> list[tuple]:
    return [(c["name"], c["argv"], c["env"], c["writes"], c["appends"]) for c in commands(line)]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Remove-Item -Recurse -Force $HOME", [("rm", ["rm", "-r", "-f", "~"], {}, [], [])]),
        ("ri -rec -fo C:\\Users\\x\\a", [("rm", ["rm", "-r", "-f", "~/a"], {}, [], [])]),
        ("del -Path a,b", [("rm", ["rm", "a", "b"], {}, [], [])]),
        ("erase -LiteralPath 'a b' -Force:$false", [("rm", ["rm", "a b"], {}, [], [])]),
        ("Remove-Item x -Filter *.log", [("rm", ["rm", "x"], {}, [], [])]),
        ("Move-Item .git\\hooks D:\\tmp", [("mv", ["mv", ".git/hooks", "/tmp"], {}, [], [])]),
        ("Copy-Item -Recurse a -Destination b", [("cp", ["cp", "-r", "a", "b"], {}, [], [])]),
        ("Set-Content f.txt 'x'", [("set-content", ["set-content"], {}, ["f.txt"], [])]),
        ("Add-Content f.txt 'x'", [("add-content", ["add-content"], {}, [], ["f.txt"])]),
        (
            "Out-File -Append log.txt -InputObject x",
            [("out-file", ["out-file"], {}, [], ["log.txt"])],
        ),
        ("Out-File -FilePath log.txt", [("out-file", ["out-file"], {}, ["log.txt"], [])]),
        ("echo hi >> $env:USERPROFILE\\.bashrc", [("echo", ["echo", "hi"], {}, [], ["~/.bashrc"])]),
        ("$env:HUSKY = '0'", [("", [], {"HUSKY": "0"}, [], [])]),
        ('git commit -m "a `"b`""', [("git", ["git", "commit", "-m", 'a "b"'], {}, [], [])]),
        (
            '& "C:\\Program Files\\Git\\bin\\git.exe" push -f',
            [("git", ["git", "push", "-f"], {}, [], [])],
        ),
        ("git status # rm -rf ~", [("git", ["git", "status"], {}, [], [])]),
        ("echo 'it''s'", [("echo", ["echo", "it's"], {}, [], [])]),
        ("$p='push'; git $p -f", [("git", ["git", "push", "-f"], {}, [], [])]),
        ('$m = "a b"; git commit -m $m', [("git", ["git", "commit", "-m", "a b"], {}, [], [])]),
        # what a pipeline feeds Remove-Item is what it deletes
        (
            "Get-ChildItem ~ -Recurse | Remove-Item -Force",
            [
                ("get-childitem", ["get-childitem", "~", "-Recurse"], {}, [], []),
                ("rm", ["rm", "-f", "-r", "~/*"], {}, [], []),
            ],
        ),
        (
            "gci build | ri -Recurse -Force",
            [
                ("gci", ["gci", "build"], {}, [], []),
                ("rm", ["rm", "-r", "-f", "build/*"], {}, [], []),
            ],
        ),
        (
            "Get-Content list.txt | Remove-Item",
            [
                ("get-content", ["get-content", "list.txt"], {}, [], []),
                ("rm", ["rm", "$input"], {}, [], []),
            ],
        ),
        (
            "ls ~ ; Remove-Item x",
            [("ls", ["ls", "~"], {}, [], []), ("rm", ["rm", "x"], {}, [], [])],
        ),
    ],
)
def test_cmdlets_read_as_the_posix_command_they_act_as(line, expected):
    assert brief(line) == expected


@pytest.mark.parametrize(
    ("line", "via"),
    [
        ("iex 'git push -f'", ["iex"]),
        ("$c = 'git push -f'; Invoke-Expression $c", ["iex"]),
        ("Start-Process git -ArgumentList 'push','-f'", ["start-process"]),
        ('cmd /c "git push -f"', ["cmd"]),
        ('powershell -NoProfile -Command "git push -f"', ["powershell"]),
        ("1..3 | ForEach-Object { git push -f }", ["foreach-object"]),
    ],
)
def test_what_runners_run_is_read_too(line, via):
    pushes = [c for c in commands(line) if c["name"] == "git"]
    assert [(c["argv"], c["via"], c["span"]) for c in pushes] == [
        (["git", "push", "-f"], via, None)
    ]


def test_cmd_builtins_and_links():
    assert brief('cmd /c "rd /s /q C:\\Users\\x"')[0][1] == ["rm", "-r", "-f", "~"]
    [link] = commands("New-Item -ItemType SymbolicLink -Path .git\\hooks\\pre-push -Target NUL")
    assert link["argv"] == ["ln", "-s", "NUL", ".git/hooks/pre-push"]


def test_spans_locate_top_level_commands():
    line = "git status; git push -f"
    second = commands(line)[1]
    assert line[second["span"][0] : second["span"][1]] == "git push -f"


def test_hostile_input_is_bounded():
    deep = "iex '" * 50 + "git push -f" + "'" * 50
    assert isinstance(commands(deep), list)
    assert isinstance(commands("{" * 5000), list)
    assert isinstance(commands("'" + "x" * 10000), list)


def test_words_the_line_does_not_show_have_kinds():
    [git] = commands("git $sub -f $(Get-Date) $true")
    assert git["kinds"] == [None, "unknown-variable", None, "unknown-output", None]
