package hookgate.self_protect_test

import rego.v1

machine := {
	"config": "/home/u/.config/hookgate",
	"state": "/srv/moved/state",
	"cache": "/home/u/.cache/hookgate",
	"home": "/home/u",
	"hosts": {"claude": "/home/u/.claude", "codex": "/opt/codex-home", "copilot": "/home/u/.copilot", "gemini": "/home/u/.gemini", "cursor": "/home/u/.cursor", "amplifier": "/home/u/.amplifier"},
}

shell_input(cmd) := {
	"hook_event_name": "PreToolUse",
	"tool_name": "Bash",
	"tool_kind": "shell",
	"tool_input": {"command": cmd},
	"cwd": "/home/u/proj",
	"effects": [{"kind": "run", "dialect": "sh", "command": cmd, "tool": "Bash"}],
}

effect_input(effect) := {
	"hook_event_name": "PreToolUse",
	"tool_name": effect.tool,
	"tool_kind": "edit",
	"tool_input": {},
	"cwd": "/home/u/proj",
	"effects": [effect],
}

denied_commands := [
	"echo '{}' > ~/.Claude/Settings.json",
	"rm -rf /SRV/moved/State",
	"rm .GIT/hooks/pre-commit",
	"echo '{}' > .CLAUDE/settings.local.JSON",
	"echo '{}' > ~/.claude/settings.json",
	"rm -rf /srv/moved/state",
	"rm -rf /srv/moved",
	"rm ~/.cache/hookgate/compiled/x",
	"chmod 000 ~/.config/hookgate",
	"truncate -s0 /opt/codex-home/hooks.json",
	"cp /tmp/evil.toml /opt/codex-home/config.toml",
	"cp /tmp/config.toml /opt/codex-home/",
	"mv ~/.gemini/settings.json /tmp/",
	"ln -sf /dev/null .git/hooks/pre-commit",
	"sed -i 's/hookgate/true/' .claude/settings.json",
	"tee .github/hooks/hookgate.json < /dev/null",
	"dd if=/dev/null of=.cursor/hooks.json",
	"cd sub && rm .git/config",
	"rm -rf other/repo/.git/hooks",
	"mv .github /tmp/x",
	"cat x >> ~/.copilot/hooks/hookgate.json",
	"python3 -c \"import os; os.system('rm /home/u/.claude/settings.local.json')\"",
]

allowed_commands := [
	"cat ~/.claude/settings.json",
	"cp .claude/settings.json /tmp/backup.json",
	"ls .git/hooks",
	"git config --get core.hooksPath",
	"cp notes.txt ~/",
	"mv build.log /tmp/",
	"npm test > test.log",
	"echo settings.json > names.txt",
	"sed 's/a/b/' .git/config",
	"rm -rf build",
]

test_shell_changes_to_protected_paths_are_denied if {
	every cmd in denied_commands {
		count(data.hookgate.self_protect.deny) > 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
	}
}

test_reading_and_ordinary_writes_are_allowed if {
	every cmd in allowed_commands {
		count(data.hookgate.self_protect.deny) == 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
	}
}

denied_effects := [
	{"kind": "write", "path": "/home/u/.claude/settings.json", "content": "{}", "empty": false, "tool": "Write"},
	{"kind": "edit", "path": "/home/u/proj/.git/config", "old_text": "", "new_text": "hooksPath = /dev/null", "tool": "Edit"},
	{"kind": "write", "path": "/home/u/proj/.git/hooks/pre-push", "content": "exit 0", "empty": false, "tool": "apply_patch"},
	{"kind": "delete", "path": "/home/u/.cache/hookgate/bundle.json", "tool": "Delete"},
	{"kind": "move", "path": "/home/u/proj/a", "to": "/home/u/.gemini/settings.json", "tool": "mcp__fs__move_file"},
	{"kind": "move", "path": "/home/u/proj/.git", "to": "/tmp/g", "tool": "mcp__fs__move_file"},
	{"kind": "write", "path": "C:/Users/x/.claude/settings.json", "content": "", "empty": true, "tool": "create"},
	{"kind": "edit", "path": "/srv/moved/state/telemetry.jsonl", "old_text": "", "new_text": "", "tool": "replace"},
]

test_file_tools_changing_protected_paths_are_denied if {
	every e in denied_effects {
		count(data.hookgate.self_protect.deny) > 0 with input as effect_input(e) with data.hookgate.self_protect.machine as machine
	}
}

test_reading_protected_paths_is_allowed if {
	count(data.hookgate.self_protect.deny) == 0 with input as effect_input({"kind": "read", "path": "/home/u/.claude/settings.json", "tool": "Read"}) with data.hookgate.self_protect.machine as machine
}

test_without_this_machines_paths_the_anywhere_paths_still_hold if {
	count(data.hookgate.self_protect.deny) > 0 with input as shell_input("echo x > ~/.claude/settings.json") with data.hookgate.self_protect.machine as null
	count(data.hookgate.self_protect.deny) == 0 with input as shell_input("rm -rf /srv/moved/state") with data.hookgate.self_protect.machine as null
}

test_one_reason_per_path if {
	reasons := data.hookgate.self_protect.deny with input as shell_input("rm ~/.claude/settings.json") with data.hookgate.self_protect.machine as machine
	count(reasons) == 1
	some r in reasons
	contains(r.reason, "Claude Code's hook settings")
}

test_uninstalling_hookgate_asks if {
	every cmd in ["hookgate uninstall claude", "pip uninstall -y hookgate", "python3 -m pip uninstall hookgate", "uv pip uninstall hookgate==0.1", "pipx uninstall hookgate"] {
		count(data.hookgate.self_protect.ask) == 1 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
	}
	count(data.hookgate.self_protect.ask) == 0 with input as shell_input("pip uninstall requests") with data.hookgate.self_protect.machine as machine
}

test_the_action_is_configurable if {
	count(data.hookgate.self_protect.ask) == 1 with input as shell_input("rm .git/config") with data.hookgate.self_protect.machine as machine with data.hookgate.config.self_protect.action as "ask"
}

# Two commands changing one protected file: a reason for each, never a failed evaluation.
test_two_ways_of_changing_one_file_are_both_denied if {
	reasons := data.hookgate.self_protect.deny with input as shell_input("chmod 600 ~/.claude/settings.json; cp /tmp/x ~/.claude/settings.json") with data.hookgate.self_protect.machine as machine
	count(reasons) == 2
}

installed := object.union(machine, {"program": "/home/u/.local/pipx/venvs/hookgate/lib/python3.12/site-packages/hookgate"})

test_the_installed_program_is_protected if {
	every cmd in [
		"sed -i s/deny/allow/ ~/.local/pipx/venvs/hookgate/lib/python3.12/site-packages/hookgate/engine.py",
		"rm -rf ~/.local/pipx/venvs/hookgate/lib/python3.12/site-packages",
		"cp /dev/null /home/u/.local/pipx/venvs/hookgate/lib/python3.12/site-packages/hookgate/cli.py",
	] {
		count(data.hookgate.self_protect.deny) > 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as installed
	}
}

test_reading_or_a_source_checkout_is_not_protected if {
	count(data.hookgate.self_protect.deny) == 0 with input as shell_input("cat ~/.local/pipx/venvs/hookgate/lib/python3.12/site-packages/hookgate/cli.py") with data.hookgate.self_protect.machine as installed
	count(data.hookgate.self_protect.deny) == 0 with input as shell_input("sed -i s/a/b/ service/hookgate/engine.py") with data.hookgate.self_protect.machine as machine
}

test_programs_that_write_where_an_option_says if {
	every cmd in [
		"curl -o ~/.claude/settings.json https://example.com/s",
		"curl -sSLo .git/hooks/pre-commit https://example.com/h",
		"curl --output=.git/hooks/pre-push https://example.com/h",
		"wget -qO .git/hooks/pre-commit https://example.com/h",
		"unzip -o x.zip -d ~/.claude",
		"tar -xf x.tar -C .git/hooks",
		"git rm .claude/settings.json",
		"git rm -r -f .github/hooks",
	] {
		count(data.hookgate.self_protect.deny) > 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
	}
	every cmd in ["curl -sSLo out.json https://example.com", "tar -xzf dist.tgz -C build", "wget -O - https://example.com", "git rm --cached .claude/settings.local.json", "git rm src/old.py"] {
		count(data.hookgate.self_protect.deny) == 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
	}
}

test_interpreter_code_that_writes_a_protected_file if {
	every cmd in [
		`python3 -c "open('.claude/settings.json','w').write('{}')"`,
		`python3 -c "import os; os.remove(os.path.join('.git','hooks','pre-commit'))"`,
		`python3 -c "import shutil; shutil.copy('/dev/null', '.git/hooks/pre-commit')"`,
		`python3 -c "import os; os.chmod('.git/hooks/pre-commit', 0o644)"`,
		`python3 -c "from pathlib import Path; (Path.home() / '.claude' / 'settings.json').write_text('{}')"`,
		"python3 - <<'EOF'\nimport json\np = '.claude/settings.json'\nd = json.load(open(p))\nd['hooks'] = {}\njson.dump(d, open(p, 'w'))\nEOF",
		`node -e "require('fs').unlinkSync('.git/hooks/pre-commit')"`,
		`node -e "const fs=require('fs'),os=require('os'),path=require('path'); fs.writeFileSync(path.join(os.homedir(),'.codex','hooks.json'),'{}')"`,
		`perl -e 'unlink ".claude/settings.json"'`,
		`perl -e 'open(my $f, ">", ".git/hooks/pre-commit"); print $f "exit 0"'`,
		`ruby -e 'File.write(File.expand_path("~/.codex/hooks.json"), "{}")'`,
		`php -r "file_put_contents('.git/config', '');"`,
	] {
		count(data.hookgate.self_protect.deny) > 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
	}
}

test_interpreter_code_that_only_reads_or_writes_elsewhere if {
	every cmd in [
		`python3 -c "import json; print(json.load(open('.claude/settings.json')))"`,
		`node -e "console.log(require('fs').readFileSync('.git/config','utf8'))"`,
		`python3 -c "open('out.txt','w').write('/'.join(['a','b']))"`,
		`python3 -c "import os; print(os.path.exists('.git'))"`,
		`python3 -c "import os; d = os.listdir('.'); d.remove('.git'); print(d)"`,
		`ruby -e 'puts File.read(".git/HEAD")'`,
		`python3 -c "import json; json.dump({'a': 1}, open('build/out.json', 'w'))"`,
	] {
		count(data.hookgate.self_protect.deny) == 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
	}
}
