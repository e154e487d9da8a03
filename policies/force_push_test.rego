package hookgate.force_push_test

import rego.v1

shell_input(cmd) := {
	"hook_event_name": "PreToolUse",
	"tool_name": "Bash",
	"tool_kind": "shell",
	"tool_input": {"command": cmd, "description": "Push", "timeout": 60000},
	"cwd": "/home/u/proj",
}

reason := "Stripped --force/-f/--force-with-lease flags because force-pushing can overwrite remote history and lose commits; a normal push is safer."

rewritten(cmd) := r.tool_input.command if {
	some r in data.hookgate.force_push.rewrite with input as shell_input(cmd)
}

# [command, the safe command it must become]
rewrites := [
	["git push --force origin main", "git push origin main"],
	["git push -f origin main", "git push origin main"],
	["git push --force-with-lease origin main", "git push origin main"],
	["git push --force-with-lease=origin/main origin main", "git push origin main"],
	["git push --force-if-includes --force-with-lease origin main", "git push origin main"],
	["git push -fu origin feature", "git push -u origin feature"],
	["git push -uf origin feature", "git push -u origin feature"],
	["git push origin +feature", "git push origin feature"],
	["git push origin +HEAD:feature main", "git push origin HEAD:feature main"],
	["git push origin feature --force", "git push origin feature"],
	["git -C repo push -f origin feature", "git -C repo push origin feature"],
	["git -c push.default=current push -f", "git -c push.default=current push"],
	["git push \"--force\" origin feature", "git push origin feature"],
	["\"git\" push -f", "\"git\" push"],
	["g'i't push -f", "g'i't push"],
	["\\git push -f", "\\git push"],
	["/usr/bin/git push -f x", "/usr/bin/git push x"],
	["GIT push -f x", "GIT push x"],
	["git push \u2010\u2010force x", "git push x"],
	["sudo git push -f", "sudo git push"],
	["bash -c \"git push --f\\orce origin\"", "bash -c \"git push origin\""],
	["FOO=1 git push -f", "FOO=1 git push"],
	["bash -c 'git push --force origin main'", "bash -c 'git push origin main'"],
	["((git push -f origin main))", "((git push origin main))"],
	["a=git; b=push; $a $b -f origin main", "a=git; b=push; $a $b origin main"],
	["sh -lc \"git push -f\"", "sh -lc \"git push\""],
	["make test && git push -f && echo done", "make test && git push && echo done"],
	["rm -f x.lock; git push -f", "rm -f x.lock; git push"],
	["git push -f origin a\ngit push -f origin b", "git push origin a\ngit push origin b"],
	["(cd repo && git push --force)", "(cd repo && git push)"],
	["echo $(git push -f)", "echo $(git push)"],
	["G=git; $G push -f origin x", "G=git; $G push origin x"],
	["git rebase -x 'git push -f' main", "git rebase -x 'git push' main"],
]

not_rewritten := [
	"git push origin main",
	"git push -u origin feature",
	"git push --follow-tags",
	"echo git push --force",
	"git commit -m 'git push --force later'",
	"git log --format=%H -f",
	"git fetch -f origin",
	"git help push",
	"git push --help",
	"grep -e --force README",
	"digit push -f",
	"cp -f a b",
	"git push origin feature:refs/heads/feature",
]

test_rewrites if {
	every pair in rewrites {
		rewritten(pair[0]) == pair[1]
	}
}

test_rewrite_reason_and_pattern if {
	some r in data.hookgate.force_push.rewrite with input as shell_input("git push -f origin main")
	r.reason == reason
	r.pattern == "strip-force-push-flags"
	object.keys(r.tool_input) == {"command"}
}

test_not_rewritten if {
	every cmd in not_rewritten {
		count(data.hookgate.force_push.rewrite) == 0 with input as shell_input(cmd)
		count(data.hookgate.force_push.deny) == 0 with input as shell_input(cmd)
	}
}

denied := [
	"git push --mirror",
	"git push --mirror backup",
	"git push origin --delete main",
	"git push -d origin master",
	"git push origin :main",
	"git push origin :refs/heads/master",
	"git push origin --delete release/1.0",
	"bash -c 'git push origin :main'",
	"bash -c $'git push --forc\\x65 origin'",
	# printed by echo and run: the push is not in the text to rewrite, so it is denied
	"eval \"$(echo git push -f origin main)\"",
	"source <(echo git push --force origin main)",
	"echo 'git push -f origin main' | xargs -I{} sh -c '{}'",
	"echo --force | xargs git push origin main",
	"F=--force; git push $F origin main",
	"git push $(echo --force) origin main",
	"git push `echo -f` origin main",
	"git${IFS}push${IFS}--force${IFS}origin${IFS}main",
	# an alias defined to force-push (run by a later command)
	"git config alias.p 'push --force'",
	"git config set --global alias.pf \"push -f origin main\"",
	# made by an expansion: nothing to edit in place (a rewrite once cut other characters)
	"eval $(echo git push -f origin main)",
	"x='git push -f origin main'; eval \"$x\"",
	# a script the line writes and then runs
	"cat > push.sh <<'EOF'\ngit push --force origin main\nEOF\nbash push.sh",
	# run by an interpreter one-liner: not in the text to rewrite, so denied
	"python3 -c \"import os; os.system('git push --force origin main')\"",
	"python -c \"import subprocess; subprocess.run(['git', 'push', '-f', 'origin', 'main'])\"",
	"git push -f origin main; perl -e 'system(\"git push --force origin main\")'",
]

test_interpreter_commands_carry_the_interpreter_and_no_span if {
	cmds := data.hookgate.lib.commands with input as shell_input("python3 -c \"import os; os.system('git push -f')\"")
	some c in cmds
	c.name == "git"
	c.via == ["python3"]
	c.span == null
	some r in data.hookgate.force_push.deny with input as shell_input("python3 -c \"import os; os.system('git push -f')\"")
	r.pattern == "force-push-not-rewritable"
}

test_denied if {
	every cmd in denied {
		count(data.hookgate.force_push.deny) > 0 with input as shell_input(cmd)
			with data.hookgate.config.protected_branches as ["main", "master", "release/*"]
	}
}

test_feature_branch_delete_allowed if {
	count(data.hookgate.force_push.deny) == 0 with input as shell_input("git push origin --delete feature/x")
	count(data.hookgate.force_push.deny) == 0 with input as shell_input("git push origin :feature")
}

test_force_denied_or_asked_when_configured if {
	doc := shell_input("git push -f origin main")
	count(data.hookgate.force_push.rewrite) == 0 with input as doc with data.hookgate.config.force_push.on_force as "deny"
	some r in data.hookgate.force_push.deny with input as doc with data.hookgate.config.force_push.on_force as "deny"
	r.pattern == "force-push"
	count(data.hookgate.force_push.ask) == 1 with input as doc with data.hookgate.config.force_push.on_force as "ask"
}

test_unsafe_pushes_ask_when_configured if {
	count(data.hookgate.force_push.ask) == 1 with input as shell_input("git push --mirror") with data.hookgate.config.force_push.action as "ask"
	count(data.hookgate.force_push.deny) == 0 with input as shell_input("git push --mirror") with data.hookgate.config.force_push.action as "ask"
}

test_a_force_flag_a_brace_expansion_makes_is_denied_not_rewritten if {
	some r in data.hookgate.force_push.deny with input as shell_input("git push -{f,} origin main")
	r.pattern == "force-push-not-rewritable"
	count(data.hookgate.force_push.rewrite) == 0 with input as shell_input("git push --{force,verbose} origin main")
}

test_a_brace_made_command_word_keeps_its_rewrite if {
	# bash runs git push -f origin main; the -f is written in the line, so it is taken out
	some r in data.hookgate.force_push.rewrite with input as shell_input("{git,push} -f origin main")
	r.tool_input.command == "{git,push} origin main"
}

# -- git's own channels: configuration, aliases, plumbing, words the line does not show --------

fp_denied(cmd) if count(data.hookgate.force_push.deny) > 0 with input as shell_input(cmd)

test_configuration_that_forces_a_plain_push_is_denied if {
	fp_denied("git config remote.origin.push '+refs/heads/*:refs/heads/*' && git push")
	fp_denied("git config --add remote.origin.push +feature:feature; git push origin")
	fp_denied("git -c remote.origin.push=+feature:feature push origin")
	fp_denied("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.push GIT_CONFIG_VALUE_0=+a:a git push")
	fp_denied("GIT_CONFIG_PARAMETERS=\"'remote.origin.push'='+a:a'\" git push origin")
	fp_denied("git config remote.origin.mirror true && git push origin")
	not fp_denied("git -c remote.origin.push=+a:a push origin main")
	not fp_denied("git config push.default current && git push origin feature")
}

test_a_push_forced_by_configuration_is_not_rewritten if {
	count(data.hookgate.force_push.rewrite) == 0 with input as shell_input("git -c remote.origin.push=+a:a push origin")
	some r in data.hookgate.force_push.deny with input as shell_input("git -c remote.origin.push=+a:a push origin")
	r.pattern == "push-forced-by-config"
	contains(r.reason, "remote.origin.push")
}

test_aliases_are_what_they_run if {
	fp_denied("git config alias.pf 'push --force' && git pf origin feature")
	fp_denied("git config alias.a pf && git config alias.pf 'push -f' && git a origin feature")
	fp_denied("A='push --force' git --config-env=alias.p=A p origin feature")
	fp_denied("git config -f /tmp/g alias.pf 'push -f' && GIT_CONFIG_GLOBAL=/tmp/g git pf origin x")
	not fp_denied("git config alias.pu 'push -u' && git pu origin feature")
}

test_send_pack_is_a_push if {
	fp_denied("git send-pack --force ../remote.git feature")
	fp_denied("git send-pack ../remote.git +feature")
	fp_denied("git send-pack --mirror ../remote.git")
	not fp_denied("git send-pack ../remote.git feature")
}

test_words_the_line_does_not_show_may_be_force if {
	fp_denied("git push $OPTS origin feature")
	fp_denied("git push origin \"$BRANCH\"")
	fp_denied("git push origin -- \"$REF\"")
	some r in data.hookgate.force_push.deny with input as shell_input("git push $OPTS origin feature")
	r.pattern == "push-unknown-word"
	contains(r.reason, "$OPTS")
	not fp_denied("git push origin \"$(git branch --show-current)\"")
	not fp_denied("git push -u origin \"$(git rev-parse --abbrev-ref HEAD)\"")
	not fp_denied("BRANCH=$(git branch --show-current); git push -u origin \"$BRANCH\"")
}

# A subcommand the line does not show may be push: git $SUB -f is never rewritten to itself.
test_an_unknown_subcommand_may_be_a_push if {
	fp_denied("git $SUB -f origin main")
	fp_denied("G=$(cat f); git $G --force")
	fp_denied("git \"$(cat f)\" origin main")
	not fp_denied("git status")
	not fp_denied("git $SUB -f origin main") with data.hookgate.config.git.unknown_subcommand_as as ["commit"]
	count(data.hookgate.force_push.rewrite) == 0 with input as shell_input("git $SUB -f origin main")
}

# A rewrite that leaves a force behind is not made: the pushes git.force_removal reports for the
# rewritten line (a spelling it cannot edit in place, a second push through an alias), or the
# line read again where the report cannot tell (words made by an expansion, what xargs is fed).
not_rewritable(cmd) if {
	count(data.hookgate.force_push.rewrite) == 0 with input as shell_input(cmd)
	some r in data.hookgate.force_push.deny with input as shell_input(cmd)
	r.pattern == "force-push-not-rewritable"
}

test_a_force_the_rewrite_leaves_is_not_rewritten if {
	not_rewritable("git push -f\"u\" origin main")
	not_rewritable("git push -f origin main; git push -f\"u\" origin dev")
	not_rewritable("git push -f origin \"+main\"")
	not_rewritable("X=-f; git push $X origin main")
	not_rewritable("X=+main; git push -f origin $X")
	rewritten("git push --force-with-lease origin +main --force-if-includes") == "git push origin main"
	rewritten("git push -f origin main && git push origin +dev") == "git push origin main && git push origin dev"
	rewritten("git -c push.default=current push --force origin") == "git -c push.default=current push origin"
	rewritten("echo main | xargs git push -f origin") == "echo main | xargs git push origin"
}

remote_branch_delete(branch) := {
	"hook_event_name": "PreToolUse",
	"tool_kind": "mcp",
	"tool_input": {},
	"cwd": "/home/u/proj",
	"effects": [{"kind": "push", "branch": branch, "repository": "o/r", "delete": true, "tool": "mcp__github__delete_branch"}],
}

test_remote_delete_of_protected_branch if {
	some r in data.hookgate.force_push.unsafe with input as remote_branch_delete("master")
	r.pattern == "delete-protected-branch"
	count(data.hookgate.force_push.unsafe) == 0 with input as remote_branch_delete("old-feature")
}

# A push whose configuration hookgate could not read in full (a symlinked ~/.gitconfig): an alias
# or a remote's push refspec there may force it, so it gets force_push.on_unknown_config.
unreadable_push := {
	"cmd": {"name": "git", "argv": ["git", "push"], "env": {}, "span": [0, 8]},
	"git": {"subcommand": "push", "options": [], "operands": [], "unknown": [], "config_unknown": [{"path": "/home/u/.gitconfig", "why": "a symlink"}]},
}

test_a_push_whose_configuration_is_unreadable_asks if {
	doc := {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_kind": "shell", "tool_input": {"command": "git push"}, "cwd": "/home/u/proj"}
	some r in data.hookgate.force_push.ask with input as doc with data.hookgate.lib.git_commands as [unreadable_push]
	r.pattern == "push-config-unknown"
	contains(r.reason, "/home/u/.gitconfig (a symlink)")
	count(data.hookgate.force_push.deny) == 0 with input as doc with data.hookgate.lib.git_commands as [unreadable_push]
	some d in data.hookgate.force_push.deny with input as doc with data.hookgate.lib.git_commands as [unreadable_push]
		with data.hookgate.config.force_push.on_unknown_config as "deny"
	d.pattern == "push-config-unknown"
}
