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

# ---- what the hook really runs ------------------------------------------------------------------

running := object.union(machine, {
	"runtime": [
		"/home/u/.local/share/hookgate/venv/bin/python",
		"/home/u/.pyenv/versions/3.12.4/bin/python3.12",
		"/home/u/.local/share/hookgate/venv/pyvenv.cfg",
		"/home/u/.pyenv/versions/3.12.4/lib/python3.12",
		"/home/u/.local/share/hookgate/venv/lib/python3.12/site-packages",
	],
	"interpreters": ["/home/u/.local/share/hookgate/venv/bin/python", "/home/u/.pyenv/versions/3.12.4/bin/python3.12"],
	"environment": "/home/u/.local/share/hookgate/venv",
	"bare_tools": false,
	"processes": {
		"names": ["hookgate", "python", "python3.12"],
		"cmdlines": ["/home/u/.local/share/hookgate/venv/bin/python -I -S -c import sys;sys.path[3:3]=[];from hookgate.launcher import launch;launch() --serve-warm eval"],
	},
})

test_what_the_hook_runs_is_protected if {
	every cmd in [
		"echo 'import os' > ~/.local/share/hookgate/venv/lib/python3.12/site-packages/sitecustomize.py",
		"rm -rf ~/.local/share/hookgate/venv/lib/python3.12/site-packages/pydantic",
		"sed -i s/a/b/ ~/.local/share/hookgate/venv/pyvenv.cfg",
		"cp /tmp/evil ~/.pyenv/versions/3.12.4/bin/python3.12",
		"echo x > ~/.pyenv/versions/3.12.4/lib/python3.12/os.py",
		"ln -sf /tmp/evil ~/.local/share/hookgate/venv/bin/python",
	] {
		count(data.hookgate.self_protect.deny) > 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as running
	}
	every cmd in ["cat ~/.local/share/hookgate/venv/pyvenv.cfg", "ls ~/.pyenv/versions/3.12.4/lib/python3.12", "python3 -m venv .venv", "rm -rf .venv"] {
		count(data.hookgate.self_protect.deny) == 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as running
		count(data.hookgate.self_protect.ask) == 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as running
	}
}

test_package_managers_changing_the_hooks_environment_ask if {
	every cmd in [
		"~/.local/share/hookgate/venv/bin/pip install -U pydantic",
		"/home/u/.local/share/hookgate/venv/bin/python -m pip uninstall -y lark",
		"/home/u/.pyenv/versions/3.12.4/bin/python3.12 -m pip install x",
		"pip install --target ~/.local/share/hookgate/venv/lib/python3.12/site-packages evil",
		"pip install --prefix=/home/u/.local/share/hookgate/venv evil",
		"uv pip install --python ~/.local/share/hookgate/venv/bin/python evil",
		"pipx upgrade hookgate",
		"pipx inject hookgate evil",
		"pipx upgrade-all",
		"uv tool upgrade --all",
	] {
		count(data.hookgate.self_protect.ask) > 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as running
	}
	every cmd in ["pip install requests", "python3 -m pip install -r requirements.txt", "uv pip install -e .", "pipx install black", "poetry install"] {
		count(data.hookgate.self_protect.ask) == 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as running
	}
	count(data.hookgate.self_protect.ask) > 0 with input as shell_input("pip install requests") with data.hookgate.self_protect.machine as object.union(running, {"bare_tools": true})
}

# ---- the writer table turned around -----------------------------------------------------------

test_a_program_not_known_to_only_read_asks if {
	every cmd in [
		"awk -i inplace '{print}' ~/.claude/settings.json",
		"my-formatter --write ~/.claude/settings.json",
		"prettier --write .claude/settings.json",
		"vim ~/.codex/hooks.json",
		"find ~/.claude -name settings.json -exec sed -i s/a/b/ {} +",
		"git checkout stash@{0} -- .claude/settings.json",
		"git restore --source=HEAD~3 .git/hooks/pre-commit",
		"tool --config-dir=/home/u/.claude",
		"tool -o/home/u/.claude/settings.json",
		"make DESTDIR=/home/u/.claude install",
		"sort -u x -o .git/config",
	] {
		count(data.hookgate.self_protect.ask) + count(data.hookgate.self_protect.deny) > 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
	}
}

test_known_readers_and_unrelated_paths_are_left_alone if {
	every cmd in [
		"cat ~/.claude/settings.json",
		"jq .hooks ~/.claude/settings.json",
		"python3 -m json.tool ~/.codex/hooks.json",
		"grep -n hookgate .claude/settings.json",
		"diff .claude/settings.json /tmp/old.json",
		"git diff .claude/settings.json",
		"git log -p -- .git/hooks",
		"git add .claude/settings.json",
		"find ~/.claude -name '*.json'",
		"head -c 200 ~/.config/hookgate/login.json",
		"ls -la ~/.cache/hookgate",
		"my-formatter --write src/app.py",
		"cd ~/.claude && ls",
		"export GIT_DIR=../other/.git",
	] {
		count(data.hookgate.self_protect.ask) == 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
		count(data.hookgate.self_protect.deny) == 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
	}
}

test_writers_into_a_protected_directory_are_denied if {
	every cmd in [
		"cp -t ~/.claude settings.json",
		"cp --target-directory=/home/u/.claude settings.json",
		"curl --output-dir ~/.claude -O https://example.com/settings.json",
		"rsync -a staged/ ~/.claude/",
		"cp -r backup/. .git/hooks",
		"mkfifo ~/.cache/hookgate/bundle.json",
		"mkfifo /srv/moved/state/warm.lock",
		"touch .git/hooks/pre-commit",
		"ln -s /tmp/mine ~/.claude/settings.json",
		"ln -s ~/.claude/settings.json x",
	] {
		count(data.hookgate.self_protect.deny) > 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
	}
	every cmd in ["cp notes.md ~/.claude/agents/", "rsync -a src/ build/", "cp -t dist a.js b.js", "mkdir -p build/out", "touch src/new.py"] {
		count(data.hookgate.self_protect.deny) == 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
	}
}

test_a_patch_is_judged_by_the_files_it_names if {
	patch := "patch -p1 <<'EOF'\n--- a/.git/hooks/pre-commit\n+++ b/.git/hooks/pre-commit\n@@ -1 +1 @@\n-x\n+exit 0\nEOF"
	count(data.hookgate.self_protect.deny) > 0 with input as shell_input(patch) with data.hookgate.self_protect.machine as machine
	fine := "git apply <<'EOF'\ndiff --git a/src/x.py b/src/x.py\n--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\nEOF"
	count(data.hookgate.self_protect.deny) == 0 with input as shell_input(fine) with data.hookgate.self_protect.machine as machine
}

# ---- hookgate's variables in start-up, .env, direnv and mise files ---------------------------

test_setting_hookgates_variables_in_start_up_files_is_denied if {
	every cmd in [
		"echo 'export HOOKGATE_HOME=/tmp/x' >> ~/.bashrc",
		"printf 'export XDG_CONFIG_HOME=%s\\n' /tmp/c >> ~/.profile",
		"cat >> ~/.zshenv <<'EOF'\nexport XDG_STATE_HOME=/tmp/s\nEOF",
		"echo 'set -gx HOOKGATE_HOME /tmp/x' | tee -a ~/.config/fish/config.fish",
		"echo HOOKGATE_HOME=/tmp/x >> .env",
		"echo 'export LD_PRELOAD=/tmp/x.so' >> .envrc",
		"sed -i '/HOOKGATE_HOME/d' ~/.bash_profile",
		"echo '[env]\nCLAUDE_CONFIG_DIR = \"/tmp/c\"' >> mise.toml",
	] {
		count(data.hookgate.self_protect.deny) > 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
	}
	every cmd in [
		"echo 'export PATH=$HOME/.local/bin:$PATH' >> ~/.bashrc",
		"echo 'alias ll=\"ls -la\"' >> ~/.zshrc",
		"echo \"cache: $XDG_CACHE_HOME\" > notes.txt",
		"echo 'DATABASE_URL=postgres://localhost/db' >> .env",
		"grep HOOKGATE ~/.bashrc",
	] {
		count(data.hookgate.self_protect.deny) == 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
	}
	count(data.hookgate.self_protect.deny) > 0 with input as effect_input({"kind": "edit", "path": "/home/u/.bashrc", "old_text": "", "new_text": "export XDG_CACHE_HOME=/tmp/c", "tool": "Edit"}) with data.hookgate.self_protect.machine as machine
	count(data.hookgate.self_protect.deny) == 0 with input as effect_input({"kind": "edit", "path": "/home/u/.bashrc", "old_text": "", "new_text": "alias gs='git status'", "tool": "Edit"}) with data.hookgate.self_protect.machine as machine
}

# ---- signalling hookgate's processes ------------------------------------------------------------

test_signalling_hookgates_processes_is_denied if {
	every cmd in [
		"pkill -f hookgate",
		"pkill -9 -f 'serve-warm'",
		"pkill -f 'hook.ate'",
		"pkill python",
		"pkill -x python3.12",
		"killall python3.12",
		"killall -9 hookgate",
		"killall -r '^pyth'",
		"kill $(pgrep -f hookgate.launcher)",
		"kill -9 $(cat /srv/moved/state/warm/0a1b2c3d.lock)",
		"cat /srv/moved/state/warm/0a1b2c3d.lock | xargs kill",
		"pkill -F /srv/moved/state/warm/0a1b2c3d.lock",
		"kill -9 -1",
		"kill -- -1",
		"pkill -u u",
	] {
		count(data.hookgate.self_protect.deny) > 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as running
	}
	every cmd in ["pkill -f 'python manage.py runserver'", "killall node", "kill %1", "kill -9 12345", "kill -1 12345", "pkill -f uvicorn", "pkill -x python3.11"] {
		count(data.hookgate.self_protect.deny) == 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as running
	}
}

# Every change self-protect judges comes from the write model (lib.file_effects): with the model
# empty, no writer of the line is judged here, whatever it is; given one effect, it is.
test_changes_are_read_from_the_write_model_only if {
	every cmd in [
		"curl -o ~/.claude/settings.json https://example.com/s",
		"unzip -o x.zip -d ~/.claude",
		"cp -r backup/. .git/hooks",
		"rsync -a staged/ ~/.claude/",
		`python3 -c "import os; os.remove(os.path.join('.git','hooks','pre-commit'))"`,
	] {
		count(data.hookgate.self_protect.deny) > 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
		count(data.hookgate.self_protect.deny) == 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine with data.hookgate.lib.file_effects as []
	}
	tree := {"op": "write", "path": "/home/u/.claude", "from": null, "content": null, "mode": null, "by": "unzip", "tree": true}
	count(data.hookgate.self_protect.deny) == 1 with input as shell_input("true") with data.hookgate.self_protect.machine as machine with data.hookgate.lib.file_effects as [tree]
	count(data.hookgate.self_protect.deny) == 0 with input as shell_input("true") with data.hookgate.self_protect.machine as machine with data.hookgate.lib.file_effects as [object.union(tree, {"tree": false})]
}

# The option tables moved to shell.writing_options and .writing_directories; a layer that still
# sets self_protect's old keys adds to them.
test_the_old_option_keys_still_add_writers if {
	cmd := "aria2c -d ~/.claude -o settings.json https://example.com/s"
	count(data.hookgate.self_protect.deny) == 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
	count(data.hookgate.self_protect.deny) > 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine with data.hookgate.config.self_protect.writing_directories as {"aria2c": ["-d", "--dir"]}
	count(data.hookgate.self_protect.deny) > 0 with input as shell_input("sponge2 --out=.git/hooks/pre-commit") with data.hookgate.self_protect.machine as machine with data.hookgate.config.self_protect.writing_options as {"sponge2": {"options": ["--out"], "tree": false}}
}

# tar -C is where tar -x writes, and where tar -c reads from.
test_tar_writes_under_its_directory_only_when_extracting if {
	every cmd in ["tar -xzf x.tgz -C ~/.claude", "tar xf x.tar -C ~/.claude", "tar -C ~/.claude --extract -f x.tar", "tar --get --directory=/home/u/.claude -f x.tar"] {
		count(data.hookgate.self_protect.deny) > 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
	}
	every cmd in ["tar -czf /tmp/b.tgz -C ~/.claude .", "tar cf - -C ~/.claude . | tar tf -", "tar -cf out.tar --exclude=x -C ~/.claude ."] {
		count(data.hookgate.self_protect.deny) == 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
	}
}

# curl -O and wget name the file for the URL's last part, in the cwd or the directory option.
test_downloads_named_for_the_url if {
	every cmd in ["cd ~/.claude && curl -fsSLO https://example.com/c/settings.json", "wget -q https://example.com/c/settings.json -P ~/.gemini", "cd .git/hooks; wget https://example.com/h/pre-push"] {
		count(data.hookgate.self_protect.deny) > 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
	}
	every cmd in ["cd ~/.claude && curl -fsSL https://example.com/c/settings.json", "cd ~/.claude && wget -qO- https://example.com/c/settings.json", "cd ~/.claude && wget --spider https://example.com/c/settings.json", "curl -O https://example.com/c/settings.json"] {
		count(data.hookgate.self_protect.deny) == 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
	}
}

# A command run on another machine writes that machine's files: its options, directories, git
# checkouts are not this machine's settings (the same line run here is).
test_another_machines_writes_are_its_own if {
	every cmd in ["curl -fsSLo ~/.claude/settings.json https://example.com/s", "tar -xzf x.tgz -C ~/.claude", "git checkout -- .claude/settings.json", "unzip -o x.zip -d ~/.gemini"] {
		count(data.hookgate.self_protect.deny) > 0 with input as shell_input(cmd) with data.hookgate.self_protect.machine as machine
		count(data.hookgate.self_protect.deny) == 0 with input as shell_input(concat(" ", ["ssh prod", cmd])) with data.hookgate.self_protect.machine as machine
		count(data.hookgate.self_protect.deny) == 0 with input as shell_input(concat(" ", ["kubectl exec api-0 --", cmd])) with data.hookgate.self_protect.machine as machine
	}
}
