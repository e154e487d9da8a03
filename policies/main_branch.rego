# METADATA
# title: main-branch
# description: Deny git commit while the target repository is on a protected branch.
package hookgate.main_branch

import rego.v1

cfg := data.hookgate.config.main_branch

deny contains r if {
	cfg.action == "deny"
	some r in violations
}

ask contains r if {
	cfg.action == "ask"
	some r in violations
}

violations contains {"reason": message(branch), "pattern": "commit-on-protected-branch"} if {
	some x in data.hookgate.lib.git_commands
	x.git.subcommand == "commit"
	branch := git.branch(data.hookgate.lib.git_target(x.git))
	data.hookgate.lib.protected_branch(branch)
}

message(branch) := sprintf("Committing directly to the protected branch %q is not allowed. Use the feature-branch workflow: create a branch (git switch -c <feature-name>), commit there, push it and open a pull request to merge into %q.", [branch, branch])
