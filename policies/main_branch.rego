# METADATA
# title: main-branch
# description: Deny commits (git commit, merge, cherry-pick, revert, am, pull) on a protected branch.
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
	makes_commit(x.git)
	branch := branch_of(x)
	data.hookgate.lib.protected_branch(branch)
}

# A subcommand that makes commits (config main_branch.commit_subcommands: the options that
# stop it from committing, "unless", and those it needs to commit at all, "only_with": a plain
# git pull fast-forwards or refuses, git pull --no-rebase merges).
makes_commit(g) if {
	spec := cfg.commit_subcommands[g.subcommand]
	not some_flag(g, object.get(spec, "unless", []))
	needs_met(g, spec)
}

needs_met(g, spec) if not spec.only_with

needs_met(g, spec) if some_flag(g, spec.only_with)

some_flag(g, flags) if {
	some f in flags
	shell.has_flag(g, f)
}

# The branch the command runs on: the one an earlier command of the line switched to (git switch
# -c feature && git commit), else the repository's current branch on disk.
branch_of(x) := x.cmd.branch if is_string(x.cmd.branch)

branch_of(x) := git.branch(data.hookgate.lib.git_target(x.git)) if not is_string(x.cmd.branch)

message(branch) := sprintf("Committing directly to the protected branch %q is not allowed. Use the feature-branch workflow: create a branch (git switch -c <feature-name>), commit there, push it and open a pull request to merge into %q.", [branch, branch])
