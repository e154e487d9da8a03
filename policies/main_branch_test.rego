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

# The branch comes from the line itself (git switch main && …): no repository is read, so the
# same tests run on regorus, which cannot replace a builtin with "with".
denied(cmd) if {
	count(data.hookgate.main_branch.deny) > 0 with input as shell_input(concat(" && ", ["git switch main", cmd]))
}

test_commit_making_subcommands_are_denied_on_main if {
	denied("git commit -m x")
	denied("git merge feature")
	denied("git merge --no-ff feature")
	denied("git cherry-pick abc123")
	denied("git revert HEAD")
	denied("git am < fix.patch")
	denied("git pull --no-rebase origin main")
	denied("git pull --no-ff")
	denied("git cherry-pick --continue")
}

test_commands_that_make_no_commit_are_left_alone if {
	not denied("git merge --ff-only feature")
	not denied("git merge --squash feature")
	not denied("git cherry-pick -n abc123")
	not denied("git revert --no-commit HEAD")
	not denied("git pull --rebase origin main")
	not denied("git pull -r")
	not denied("git pull --ff-only")
	not denied("git pull")
	not denied("git pull origin main")
	not denied("git merge --abort")
	not denied("git commit --dry-run")
	not denied("git status && git log")
}

test_a_commit_after_switching_to_a_new_branch_is_not_on_main if {
	not denied("git switch -c fix-typo && git commit -am 'Fix typo'")
	not denied("git checkout -b feature/x; git add . && git commit -m x")
	not denied("git switch --create=wip\ngit commit -m wip")
	not denied("git checkout --detach && git commit -m try")
	not denied("(git switch -c in-a-subshell) && git commit -m x")
}

test_switching_back_to_main_then_committing_is_denied if {
	not denied("git switch -c feature && git commit -m x")
	denied("git switch -c feature && git switch main && git commit -m x")
}

test_a_switch_in_another_repository_does_not_count if {
	# the commit's own repository (/home/u/proj, not on disk) decides: no branch, no denial
	count(data.hookgate.main_branch.deny) == 0 with input as shell_input("git -C ../other switch main && git commit -m x")
	denied("git -C ../other switch -c f && git commit -m x")
}

test_commit_subcommands_come_from_data if {
	not denied("git merge feature") with data.hookgate.config.main_branch.commit_subcommands as {"commit": {}}
	denied("git commit --dry-run") with data.hookgate.config.main_branch.commit_subcommands as {"commit": {}}
}

# -- the branch a command really runs on, and plumbing that moves a protected branch ------------

test_plumbing_that_moves_main_is_denied if {
	denied("git update-ref refs/heads/main \"$(git commit-tree 'HEAD^{tree}' -p HEAD -m wip)\"")
	denied("git update-ref HEAD abc123")
	denied("git switch -c f && git branch -f main f")
	denied("git switch -c f && git branch -M f main")
	not denied("git update-ref refs/heads/feature abc123")
	not denied("git update-ref --no-deref HEAD abc123")
	not denied("git branch -M main")
	not denied("git switch -c f && git branch -f other f")
	not denied("git update-ref -d refs/heads/main")
	denied("git commit-tree 'HEAD^{tree}' -p HEAD -m x | xargs git update-ref refs/heads/main")
	not denied("git rev-parse HEAD | xargs git update-ref refs/heads/feature")
	denied("git update-ref --stdin <<< 'update refs/heads/main abc123'")
	denied("git update-ref --stdin <<EOF\nstart\ncreate refs/heads/x abc\nupdate  refs/heads/main  abc123\ncommit\nEOF")
	not denied("git update-ref --stdin <<< 'update refs/heads/feature abc123'")
}

test_update_ref_of_head_reads_the_branch_head_is_on if {
	not denied("git switch -c f && git update-ref HEAD abc123")
}

test_configuration_that_makes_pull_merge if {
	denied("git config pull.ff false && git pull origin feature")
	denied("git -c pull.rebase=false pull origin feature")
	not denied("git -c pull.rebase=false pull --rebase origin feature")
	not denied("git -c merge.ff=only merge feature")
}

test_aliases_to_commit_are_commits if {
	denied("git config alias.ci commit && git ci -m x")
	denied("git -c alias.ci='!git commit' ci -m x")
	not denied("git switch -c f && git config alias.ci commit && git ci -m x")
	not denied("git config --global alias.ci commit")
	not denied("git config alias.amend 'commit --amend --no-edit'")
}

test_a_repository_the_line_does_not_show if {
	some r in data.hookgate.main_branch.deny with input as shell_input("git -C \"$REPO\" commit -m x")
	r.pattern == "commit-on-unknown-branch"
	count(data.hookgate.main_branch.deny) == 0 with input as shell_input("git -C \"$REPO\" status")
	count(data.hookgate.main_branch.deny) == 0 with input as shell_input("git -C \"$REPO\" switch -c f && git -C \"$REPO\" commit -m x")
}

test_show_toplevel_is_the_same_repository if {
	denied("git -C \"$(git rev-parse --show-toplevel)\" commit -m x")
}

remote_commit(branch) := {
	"hook_event_name": "PreToolUse",
	"tool_kind": "mcp",
	"tool_input": {},
	"cwd": "/home/u/proj",
	"effects": [{"kind": "commit", "branch": branch, "repository": "o/r", "tool": "mcp__github__push_files"}],
}

test_remote_commit_on_protected_branch if {
	some r in data.hookgate.main_branch.violations with input as remote_commit("main")
	r.pattern == "commit-on-protected-branch"
	count(data.hookgate.main_branch.violations) == 0 with input as remote_commit("feature/x")
}

# A commit on a branch the call does not name (merge_pull_request: the pull request's base).
test_remote_commit_on_an_unnamed_branch if {
	some r in data.hookgate.main_branch.violations with input as remote_commit(null)
	r.pattern == "commit-on-unknown-branch"
}
