package hookgate.no_verify_test

import rego.v1

shell_input(cmd) := {
	"hook_event_name": "PreToolUse",
	"tool_name": "Bash",
	"tool_kind": "shell",
	"tool_input": {"command": cmd},
	"cwd": "/home/u/proj",
}

denied := [
	"env HUSKY=0 git commit -m x",
	"OVERCOMMIT_DISABLE=1 git commit -m x",
	"pre-commit uninstall",
	"pre-commit uninstall -t pre-push",
	"npx husky uninstall",
	"yarn lefthook uninstall",
	"bundle exec overcommit --uninstall",
	"sudo HUSKY=0 git commit -m x",
	"HUSKY=0 nice git commit -m x",
	"rm .GIT/Hooks/pre-commit",
	"find .git/hooks -type f -delete",
	"find .git/hooks -name pre-commit -exec rm {} +",
	"find .git/hooks -type f -execdir chmod -x {} \\;",
	"git config --global alias.c 'commit --no-verify'",
	"node -e \"require('child_process').execSync('git commit --no-verify -m x')\"",
	"python3 -c \"import os; os.system('rm .git/hooks/pre-commit')\"",
	"rm .git/hooks/pre-commit",
	"rm -rf .git/hooks",
	"mv .git/hooks/pre-push /tmp/",
	"chmod -x .git/hooks/pre-commit",
	"cd .git/hooks && rm pre-commit",
	"echo 'exit 0' > .git/hooks/pre-commit",
	"cp /dev/null /home/u/proj/.git/hooks/commit-msg",
	"truncate -s 0 .git/hooks/pre-commit",
	"git -C sub commit -m x; rm sub/.git/hooks/pre-commit",
	"git commit --no-verify",
	"`echo git commit -n`",
	"bash <(echo git commit --no-verify)",
	"git commit -n -m wip",
	"git commit -nm wip",
	"git commit -am wip -n",
	"git commit --no-verif -m x",
	"git push --no-verify origin feature",
	"git push --force --no-verify",
	"git merge --no-verify feature",
	"git pull --no-verify",
	"git rebase --no-verify main",
	"git am --no-verify p.patch",
	"git -C repo commit -n",
	"git -Crepo commit -n",
	"git --git-dir=.git --work-tree=. commit --no-verify",
	"git -c core.hooksPath=/dev/null commit -m x",
	"git -c core.HooksPath=/dev/null push",
	"git config core.hooksPath /dev/null",
	"HUSKY=0 git commit -m x",
	"export HUSKY=0; git commit -m x",
	"HUSKY=0\ngit commit -m x",
	"SKIP=eslint git commit -m x",
	"LEFTHOOK=0 git push",
	"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/x git commit",
	"\"git\" commit --no-verify",
	"g'i't commit --no-verify",
	"\\git commit --no-verify",
	"GIT commit --no-verify",
	"/usr/bin/git commit --no-verify",
	"git commit \u2010\u2010no-verify",
	"FOO=1 git commit -n",
	"sudo -u me git commit -n",
	"env -i PATH=/bin git commit -n",
	"nohup git commit -n &",
	"time git commit -n",
	"bash -c 'git commit --no-verify'",
	"sh -lc \"git commit -n -m x\"",
	"bash <<< 'git commit -n'",
	"make && git commit -n",
	"false || git commit -n",
	"git add . ; git commit -n",
	"git add .\ngit commit -n",
	"echo x | git commit -n -F -",
	"(git commit -n)",
	"{ git commit -n; }",
	"echo $(git commit -n)",
	"echo `git commit -n`",
	"cat <(git commit -n)",
	"git commit -m \"unterminated --no-verify\" -n \"",
	"git -c alias.ci=commit ci -n",
	"xargs git commit -n",
	"G=git; $G commit -n",
	"$(which git) commit -n",
	"git rebase -x 'git commit --amend --no-verify' main",
	"git -c alias.c='!git commit -n' c",
]

allowed := [
	"find .git/hooks -type f",
	"find . -name pre-commit -print",
	"git config alias.lg 'log --oneline --graph'",
	"git config --get alias.c",
	"MSG=\"docs: explain --no-verify\"; git commit -m \"$MSG\"",
	"cat .git/hooks/pre-commit",
	"ls .git/hooks",
	"rm .github/hooks.md",
	"echo x > notes/.git-hooks.txt",
	"git commit -m 'do not use --no-verify'",
	"git commit -m \"explain why -n is bad\"",
	"git commit -m -n",
	"git merge --no-verify-signatures feature",
	"git log -n 5",
	"git push -n origin main",
	"git push --dry-run",
	"echo git commit --no-verify",
	"printf 'git commit -n\\n'",
	"grep -- --no-verify README.md",
	"grep -rn 'no-verify' .",
	"rg --no-verify src",
	"cat <<'EOF'\ngit commit --no-verify\nEOF",
	"cat <<EOF > notes.md\ngit commit --no-verify\nEOF",
	"git help commit",
	"git commit --help",
	"git --no-pager log --grep=--no-verify",
	"git -c core.pager='less -R' log -n 3",
	"less +/--no-verify CONTRIBUTING.md",
	"man git-commit",
	"man git-commit | grep -n -- --no-verify",
	"command -v git",
	"git log --grep=--no-verify",
	"digit commit --no-verify",
	"git-lfs push --no-verify",
	"git commit -m wip",
	"git -c user.name=x commit -m wip",
	"echo '# git commit -n' >> notes.md",
	"HUSKY=1 git commit -m x",
	"HUSKY=0 npm install",
	"OVERCOMMIT_DISABLE=0 git commit -m x",
	"pre-commit install",
	"pre-commit run --all-files",
	"npx husky init",
	"lefthook install",
	"overcommit --install",
	"tee -a log <<< 'git commit --no-verify'",
]

test_denied if {
	every cmd in denied {
		count(data.hookgate.no_verify.deny) > 0 with input as shell_input(cmd)
	}
}

test_allowed if {
	every cmd in allowed {
		count(data.hookgate.no_verify.deny) == 0 with input as shell_input(cmd)
	}
}

test_reason_names_subcommand if {
	some r in data.hookgate.no_verify.deny with input as shell_input("git push --no-verify")
	r.pattern == "git-no-verify"
	startswith(r.reason, "git push --no-verify skips the git hooks.")
}

test_not_shell_tools_ignored if {
	count(data.hookgate.no_verify.deny) == 0 with input as {
		"hook_event_name": "PreToolUse",
		"tool_kind": "edit",
		"tool_input": {"command": "git commit -n"},
	}
}

test_hook_changes_name_their_pattern if {
	some r in data.hookgate.no_verify.deny with input as shell_input("rm .git/hooks/pre-commit")
	r.pattern == "git-hooks-modified"
	startswith(r.reason, "rm would change ")
	contains(r.reason, ".git/hooks/pre-commit, an installed git hook")
}

test_ask_when_configured if {
	count(data.hookgate.no_verify.ask) == 1 with input as shell_input("git commit -n")
		with data.hookgate.config.no_verify.action as "ask"
	count(data.hookgate.no_verify.deny) == 0 with input as shell_input("git commit -n")
		with data.hookgate.config.no_verify.action as "ask"
}

# -- hook paths: moved into the project's hooks directory, or switched off ----------------------

nv_denied(cmd) if count(data.hookgate.no_verify.deny) > 0 with input as shell_input(cmd)

test_hooks_path_to_the_projects_hooks_directory_is_allowed if {
	not nv_denied("git config core.hooksPath .githooks")
	not nv_denied("git config core.hooksPath .husky/_")
	not nv_denied("git config core.hooksPath ./tools/git-hooks/")
	not nv_denied("npx husky install && git config core.hooksPath .husky")
	not nv_denied("git config --unset core.hooksPath")
	not nv_denied("git -c core.hooksPath=.githooks status")
	not nv_denied("git config core.hooksPath .githooks && tar -xzf h.tgz -C build")
	not nv_denied("git config core.hooksPath .githooks && cp -r /tmp/h/. docs/")
	not nv_denied("git config core.hooksPath .githooks && chmod +x .githooks/pre-commit")
}

test_hooks_path_that_switches_hooks_off_is_denied if {
	nv_denied("git config core.hooksPath /dev/null")
	nv_denied("git config core.hooksPath ''")
	nv_denied("git config core.hooksPath ../hooks")
	nv_denied("git config core.hooksPath ~/nohooks")
	nv_denied("git config core.hooksPath src")
	nv_denied("git config --replace-all core.hooksPath /tmp")
	nv_denied("git config set core.hooksPath /dev/null")
	nv_denied("git config --global core.hooksPath /tmp/h")
	nv_denied("mkdir -p .githooks && echo 'exit 0' > .githooks/pre-commit && git config core.hooksPath .githooks")
	nv_denied("git config core.hooksPath .githooks && cp -r /tmp/h/. .githooks/")
	nv_denied("tar -xf h.tgz -C .githooks && git config core.hooksPath .githooks")
	nv_denied("git config core.hooksPath .githooks && tar -xzf h.tgz -C .")
	nv_denied("git config core.hooksPath tools/hooks && unzip -o h.zip -d tools")
	nv_denied("GIT_CONFIG_PARAMETERS=\"'core.hooksPath'='/dev/null'\" git commit -m x")
}

nv_asked(cmd) if count(data.hookgate.no_verify.ask) > 0 with input as shell_input(cmd)

# A hook whose every command ignores its failure always lets the commit through.
test_a_hook_that_ignores_every_failure_is_off if {
	nv_denied("echo 'npm test || true' > .husky/pre-commit")
	nv_denied("printf 'set -e\\nnpx lint-staged || :\\nnpm test || exit 0 # flaky\\n' > .husky/pre-commit")
	not nv_denied("echo 'npm test || exit 1' > .husky/pre-commit")
	not nv_denied("echo 'npm test || exit' > .husky/pre-commit") # exit: npm test's status
	not nv_denied("printf 'npx lint-staged\\nnpm test || true\\n' > .husky/pre-commit")
}

# An edit in place the call does not show the result of may leave a hook running nothing.
test_a_hook_edited_in_place_unseen_is_asked if {
	nv_asked("sed -i '1a exit 0' .husky/pre-commit")
	nv_asked("perl -pi -e 's/npm test/true/' .githooks/pre-commit")
	not nv_asked("sed -i 's/a/b/' src/app.py")
	not nv_asked("sed -i 's/a/b/' .husky/pre-commit") with data.hookgate.config.no_verify.on_unknown_config as "deny"
	nv_denied("sed -i 's/a/b/' .husky/pre-commit") with data.hookgate.config.no_verify.on_unknown_config as "deny"
}

test_hooks_directories_come_from_data if {
	nv_denied("git config core.hooksPath .githooks") with data.hookgate.config.no_verify.hooks_dirs as []
}

test_an_alias_that_skips_hooks if {
	nv_denied("git config alias.c 'commit -n' && git c -m wip")
	not nv_denied("git config alias.c 'commit -v' && git c -m wip")
}

test_unknown_commit_options_may_skip_hooks if {
	nv_denied("git commit $FLAGS -m wip")
	not nv_denied("git commit -m \"$MSG\"")
	not nv_denied("git commit -F \"$FILE\"")
	not nv_denied("git commit $FLAGS -m wip") with data.hookgate.config.no_verify.unknown_subcommands as []
}

test_an_unknown_subcommand_may_be_a_commit if {
	nv_denied("git $X commit --no-verify")
	nv_denied("for s in commit; do git $s -n -m x; done")
	not nv_denied("git $X commit --no-verify") with data.hookgate.config.git.unknown_subcommand_as as []
}

# husky's hooks live where core.hooksPath points: unsetting it leaves git with .git/hooks.
test_unsetting_a_configured_hooks_path if {
	every cmd in ["git config --unset core.hooksPath", "git config unset core.hooksPath", "git config --local --unset-all core.hooksPath"] {
		count(data.hookgate.no_verify.deny) > 0 with input as shell_input(cmd) with data.hookgate.no_verify.repo_hooks_paths as {"/home/u/proj": [".husky/_"]}
	}
	count(data.hookgate.no_verify.deny) == 0 with input as shell_input("git config --unset core.hooksPath") with data.hookgate.no_verify.repo_hooks_paths as {}
	count(data.hookgate.no_verify.deny) == 0 with input as shell_input("git config --unset user.name") with data.hookgate.no_verify.repo_hooks_paths as {"/home/u/proj": [".husky/_"]}
	count(data.hookgate.no_verify.deny) > 0 with input as shell_input("git config core.hooksPath .git/hooks") with data.hookgate.no_verify.repo_hooks_paths as {"/home/u/proj": [".husky/_"]}
	count(data.hookgate.no_verify.deny) == 0 with input as shell_input("git config core.hooksPath ./.husky/_/") with data.hookgate.no_verify.repo_hooks_paths as {"/home/u/proj": [".husky/_"]}
}

test_hook_framework_files_switched_off if {
	every cmd in [
		"rm .husky/pre-commit",
		"echo 'exit 0' > .husky/pre-commit",
		": > .husky/pre-push",
		"printf '#!/bin/sh\\nexit 0\\n' > .githooks/pre-commit",
		"echo 'repos: []' > .pre-commit-config.yaml",
		"mv lefthook.yml lefthook.yml.bak",
		"chmod -x .husky/pre-commit",
		"git rm .husky/pre-commit",
		"rm web/.husky/pre-commit",
		"cp /dev/null .husky/pre-commit",
		"ln -sf /bin/true .githooks/pre-push",
		"printf '#!/bin/sh\\nset -e\\nexit 0 # off\\nnpm test\\n' > .husky/pre-commit",
		"truncate -s 0 .husky/pre-commit",
		"chmod u=rw .husky/pre-commit",
		"git mv .husky/pre-commit .husky/off",
		"cd .husky && echo 'exec true' > pre-commit",
	] {
		count(data.hookgate.no_verify.deny) > 0 with input as shell_input(cmd)
	}
	every cmd in [
		"echo 'npm test' > .husky/pre-commit",
		"echo 'npx lint-staged' >> .husky/pre-commit",
		"chmod +x .husky/pre-commit",
		"chmod g-w .husky/pre-commit",
		"printf '#!/bin/sh\\nset -e\\nnpm test\\n' > .husky/pre-commit",
		"echo 'exit 0' >> .husky/pre-commit",
		"cat .pre-commit-config.yaml",
		"git rm --cached .husky/pre-commit",
		"rm src/hooks/useAuth.ts",
	] {
		count(data.hookgate.no_verify.deny) == 0 with input as shell_input(cmd)
	}
}

file_input(effect) := {"hook_event_name": "PreToolUse", "tool_kind": "edit", "cwd": "/home/u/proj", "effects": [effect]}

test_hook_framework_files_through_file_tools if {
	every e in [
		{"kind": "write", "tool": "Write", "path": "/home/u/proj/.husky/pre-commit", "content": "#!/bin/sh\n# skip\nexit 0\n"},
		{"kind": "write", "tool": "Write", "path": "/home/u/proj/.pre-commit-config.yaml", "content": "repos: []\n"},
		{"kind": "edit", "tool": "Edit", "path": "/home/u/proj/.husky/pre-commit", "old_text": "npm test", "new_text": "exit 0\nnpm test"},
		{"kind": "delete", "tool": "apply_patch", "path": "/home/u/proj/lefthook.yml"},
	] {
		count(data.hookgate.no_verify.deny) > 0 with input as file_input(e)
	}
	every e in [
		{"kind": "write", "tool": "Write", "path": "/home/u/proj/.husky/pre-commit", "content": "npx lint-staged\n"},
		{"kind": "edit", "tool": "Edit", "path": "/home/u/proj/.pre-commit-config.yaml", "old_text": "rev: v1", "new_text": "rev: v2"},
	] {
		count(data.hookgate.no_verify.deny) == 0 with input as file_input(e)
	}
}

# A tree deleted with everything under it takes the hooks in it (the write model's tree
# deletes): husky's .husky and its generated .husky/_ (git runs no hook from a hooks path that
# is gone), .githooks, a hooks directory of a package. Another machine's or a tree without
# hooks is not this repository's hooks.
test_a_tree_delete_of_the_hooks if {
	every cmd in [
		"rm -rf .husky",
		"rm -fr ./.githooks/",
		"npx rimraf .husky",
		"rm -rf .husky/_",
		"rm -r .git/hooks",
		"rsync -a --remove-source-files .husky/ /tmp/h/",
		"rm -rf packages/web/.husky",
		"cd packages/web && rm -R .husky",
		"python3 -c \"import shutil; shutil.rmtree('.husky')\"",
	] {
		count(data.hookgate.no_verify.deny) > 0 with input as shell_input(cmd)
	}
	every cmd in [
		"rm -rf node_modules",
		"rm -rf build coverage .next",
		"rm -rf .husky-old",
		"rm -rf docs/husky",
		"ssh prod rm -rf .husky",
		"ssh prod rm -rf .git/hooks",
		"docker run --rm node:20 rm -rf /app/.husky",
	] {
		count(data.hookgate.no_verify.deny) == 0 with input as shell_input(cmd)
	}
	some r in data.hookgate.no_verify.deny with input as shell_input("rm -rf .husky")
	r.pattern == "hooks-dir-deleted"
	contains(r.reason, "rm -rf would delete /home/u/proj/.husky and the git hooks in it")
}

# names_git_config_file looks for "config" in a command's words as they are before it picks out
# the operands: it names the same lines as the rule without that first test (below), for
# operands, redirections, options, quoted and expanded words and lines without such a word.
config_file_lines := [
	"echo '[core]hooksPath=/dev/null' >> ~/.gitconfig",
	"sed -i 's/T/U/' ~/.gitconfig",
	"sed -i -e 's/T/U/' -- .git/config.worktree",
	"tee -a $HOME/.config/git/config < x",
	"cp /tmp/x .git/config",
	"install -m 644 x ~/.gitconfig",
	"vim --config=x .git/config",
	"f=.gitconfig; cp x ~/$f",
	"cat ~/.gitconfig",
	"git config core.hooksPath x",
	"npm test -- --watch=false",
	"echo config > notes.txt",
	"cp x ~/.config/app/config",
	"ls",
]

names_without_first_test if {
	some c in data.hookgate.lib.line_commands
	not c.name in {"git", "cat", "less", "head", "tail", "grep", "rg", "ls", "stat", "diff"}
	some t in array.concat(array.concat(c.writes, c.appends), shell.operands(c))
	contains(t, "config")
	some suffix in data.hookgate.no_verify.git_config_suffixes
	endswith(t, suffix)
}

test_names_git_config_file_as_without_its_first_test if {
	named := [line |
		some line in config_file_lines
		data.hookgate.no_verify.names_git_config_file with input as shell_input(line)
	]
	reference := [line |
		some line in config_file_lines
		names_without_first_test with input as shell_input(line)
	]
	named == reference
	count(named) >= 6
}
