package hookgate.team.release_branches_test

import rego.v1

# The built-in guards read the setting: no guard of its own is needed.
shell(cmd) := {"tool_kind": "shell", "tool_input": {"command": cmd}, "cwd": "/home/u/proj", "effects": []}

test_committing_on_a_release_branch_is_denied if {
	count(data.hookgate.main_branch.deny) > 0 with input as shell("git commit -m 'PAY-1 hotfix'")
		with git.branch as "release/2.4"
}

test_deleting_a_release_branch_on_the_remote_is_denied if {
	every cmd in ["git push origin --delete release/2.4", "git push origin :release/2.4"] {
		count(data.hookgate.force_push.deny) > 0 with input as shell(cmd)
	}
}

test_moving_a_release_branch_is_denied if {
	count(data.hookgate.main_branch.deny) > 0 with input as shell("git branch -f release/2.4 HEAD~3")
}

test_feature_branches_are_not_protected if {
	count(data.hookgate.main_branch.deny) == 0 with input as shell("git commit -m 'PAY-1 work'")
		with git.branch as "feature/release-notes"
	count(data.hookgate.force_push.deny) == 0 with input as shell("git push origin --delete feature/old")
	count(data.hookgate.main_branch.deny) == 0 with input as shell("git branch -f feature/x HEAD~3")
}
