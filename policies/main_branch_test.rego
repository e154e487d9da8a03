package hookgate.main_branch_test

import rego.v1

# git.branch reads the disk; these tests cover the rule's logic with fixed facts and paths.
# tests/test_pack.py runs the whole rule against real repositories.

shell_input(cmd) := {
	"hook_event_name": "PreToolUse",
	"tool_kind": "shell",
	"tool_input": {"command": cmd},
	"cwd": "/home/u/proj",
}

target(cmd) := data.hookgate.lib.git_target(x.git) if {
	some x in data.hookgate.lib.git_commands with input as shell_input(cmd)
}

test_target_is_payload_cwd if {
	target("git commit -m x") == "/home/u/proj" with input as shell_input("git commit -m x")
}

test_target_follows_dash_c if {
	target("git -C ../other commit") == "/home/u/other" with input as shell_input("git -C ../other commit")
	target("git -C /srv/r -C sub commit") == "/srv/r/sub" with input as shell_input("git -C /srv/r -C sub commit")
}

test_target_follows_cd if {
	target("cd api && git commit") == "/home/u/proj/api" with input as shell_input("cd api && git commit")
	target("cd /srv/r; git -C sub commit") == "/srv/r/sub" with input as shell_input("cd /srv/r; git -C sub commit")
}

test_target_prefers_git_dir if {
	target("git --git-dir=/srv/r/.git commit") == "/srv/r/.git" with input as shell_input("git --git-dir=/srv/r/.git commit")
}

test_protected_defaults if {
	data.hookgate.lib.protected_branch("main")
	data.hookgate.lib.protected_branch("master")
	not data.hookgate.lib.protected_branch("feature/main")
	not data.hookgate.lib.protected_branch("mainline")
	not data.hookgate.lib.protected_branch(null)
}

test_protected_globs if {
	data.hookgate.lib.protected_branch("release/1.2") with data.hookgate.config.protected_branches as ["release/*"]
	not data.hookgate.lib.protected_branch("release/1.2/hotfix") with data.hookgate.config.protected_branches as ["release/*"]
	not data.hookgate.lib.protected_branch("main") with data.hookgate.config.protected_branches as ["release/*"]
}

test_message_explains_workflow if {
	msg := data.hookgate.main_branch.message("main")
	contains(msg, "git switch -c")
	contains(msg, "pull request")
}

test_no_repository_passes if {
	# no repository exists at this path, so git.branch is null and nothing is denied
	count(data.hookgate.main_branch.deny) == 0 with input as shell_input("git -C /nonexistent/hookgate-test commit -m x")
}

test_ref_branch if {
	data.hookgate.lib.ref_branch(":main") == "main"
	data.hookgate.lib.ref_branch("+HEAD:refs/heads/master") == "master"
	data.hookgate.lib.ref_branch("feature") == "feature"
}
