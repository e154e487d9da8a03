# METADATA
# title: main-branch
# description: Deny commits (git commit, merge, cherry-pick, revert, am, pull) on a protected branch.
package hookgate.main_branch

import rego.v1

cfg := data.hookgate.config.main_branch

deny contains r if {
	some r in violations # first: most calls have none, and skip the rule without running it
	cfg.action == "deny"
}

ask contains r if {
	some r in violations # first: most calls have none, and skip the rule without running it
	cfg.action == "ask"
}

# The git commands of the call that make commits, picked out once for the rules below (an alias
# defined here commits where it is run, not here).
commits := [x |
	some x in data.hookgate.lib.git_commands
	not x.defined
	makes_commit(x.git)
]

violations contains {"reason": message(branch), "pattern": "commit-on-protected-branch"} if {
	some x in commits
	branch := branch_of(x)
	data.hookgate.lib.protected_branch(branch)
}

# A commit a service makes on a branch it is told, in a remote repository (an MCP tool of the
# GitHub API: create_or_update_file, push_files, delete_file): no local git runs; the commit
# effect names the branch.
violations contains {"reason": message(e.branch), "pattern": "commit-on-protected-branch"} if {
	some e in input.effects
	e.kind == "commit"
	data.hookgate.lib.protected_branch(e.branch)
}

# A commit a service makes on a branch the call does not name (GitHub's merge_pull_request merges
# into the pull request's base branch, which only the pull request says): it may be a protected
# branch, as a push to it would be.
violations contains {"reason": msg, "pattern": "commit-on-unknown-branch"} if {
	some e in input.effects
	e.kind == "commit"
	not is_string(e.branch)
	msg := sprintf("%s makes a commit in %s on a branch the call does not name (a pull request's base branch), which may be a protected one (%s): merging into it is pushing to it. Ask the user to merge, or merge into a feature branch you named.", [e.tool, object.get(e, "repository", "a remote repository"), concat(", ", data.hookgate.config.protected_branches)])
}

# A commit in a repository the line does not show (git -C "$DIR" commit, --git-dir=$X): its
# branch cannot be read, and it may be a protected one.
violations contains {"reason": msg, "pattern": "commit-on-unknown-branch"} if {
	some x in commits
	x.git.target_known == false
	not is_string(x.cmd.branch)
	msg := sprintf("git %s runs in a repository named by a value the command does not show, so hookgate cannot tell whether it commits to a protected branch (%s). Write the directory out, or cd into the repository first; commit on a feature branch (git switch -c <feature-name>).", [x.git.subcommand, concat(", ", data.hookgate.config.protected_branches)])
}

# Plumbing that moves a protected branch to a commit it names (git update-ref refs/heads/main
# "$(git commit-tree …)"), or HEAD while HEAD is a protected branch; git branch -f/-M/-C onto it.
violations contains {"reason": msg, "pattern": "move-protected-branch"} if {
	some x in data.hookgate.lib.git_commands
	x.git.subcommand in {"update-ref", "branch"} # first: only these move a branch (moved_branch)
	some branch in moved_branches(x)
	data.hookgate.lib.protected_branch(branch)
	msg := sprintf("git %s moves the protected branch %q directly, making commits on it without review. Use the feature-branch workflow: create a branch (git switch -c <feature-name>), commit there, push it and open a pull request to merge into %q.", [x.git.subcommand, branch, branch])
}

moved_branch(x) := trim_prefix(x.git.operands[0], "refs/heads/") if {
	x.git.subcommand == "update-ref"
	new_value_given(x)
	not update_ref_deletes(x.git)
	startswith(x.git.operands[0], "refs/heads/")
}

new_value_given(x) if count(x.git.operands) >= 2

# xargs adds the words it reads (… | xargs git update-ref refs/heads/main)
new_value_given(x) if "xargs" in x.cmd.via

moved_branches(x) := {b | b := moved_branch(x)} | stdin_moved_branches(x)

# git update-ref --stdin reads "update|create <ref> <new> [<old>]" lines (a here-document or
# here-string the line shows).
stdin_moved_branches(x) := {trim_prefix(words[1], "refs/heads/") |
	x.git.subcommand == "update-ref"
	"--stdin" in x.git.args
	is_string(x.cmd.stdin)
	some line in split(x.cmd.stdin, "\n")
	words := [w | some w in split(trim_space(line), " "); w != ""]
	words[0] in {"update", "create"}
	startswith(words[1], "refs/heads/")
}

moved_branch(x) := branch_of(x) if {
	x.git.subcommand == "update-ref"
	count(x.git.operands) >= 2
	not update_ref_deletes(x.git)
	x.git.operands[0] == "HEAD"
	not "--no-deref" in x.git.args
}

# git branch -f main <rev> resets main; git branch -M/-C other main overwrites it (with one
# operand, -M renames the current branch: git branch -M main after git init is everyday work).
moved_branch(x) := x.git.operands[0] if {
	x.git.subcommand == "branch"
	shell.has_flag(x.git, "--force")
	not branch_renames(x.git)
	not shell.has_flag(x.git, "--delete")
	not shell.has_flag(x.git, "-D")
	count(x.git.operands) >= 1
}

moved_branch(x) := x.git.operands[1] if {
	x.git.subcommand == "branch"
	branch_renames(x.git)
	count(x.git.operands) == 2
}

branch_renames(g) if shell.has_flag(g, "-M")

branch_renames(g) if shell.has_flag(g, "-C")

branch_renames(g) if {
	shell.has_flag(g, "--force")
	some f in ["--move", "--copy"]
	shell.has_flag(g, f)
}

update_ref_deletes(g) if "-d" in g.args

# A subcommand that makes commits (config main_branch.commit_subcommands: the options that
# stop it from committing, "unless", and those it needs to commit at all, "only_with": a plain
# git pull fast-forwards or refuses, git pull --no-rebase merges).
makes_commit(g) if {
	spec := cfg.commit_subcommands[g.subcommand]
	not some_flag(g, object.get(spec, "unless", []))
	needs_met(g, spec)
}

# (one definition with else: a function of several definitions runs each of them on every call)
needs_met(g, spec) := true if {
	not spec.only_with
} else := true if {
	some_flag(g, spec.only_with)
}

some_flag(g, flags) if {
	some f in flags
	shell.has_flag(g, f)
}

# The branch the command runs on: the one an earlier command of the line switched to (git switch
# -c feature && git commit), else the repository's current branch on disk (git.branch: asked,
# not read from the configuration's answer, so that a test's `with git.branch as …` decides;
# after git.config_read of the same directory it searches for no repository again).
# (one definition with else: a function of several definitions runs each of them on every call)
branch_of(x) := x.cmd.branch if {
	is_string(x.cmd.branch)
} else := git.branch(data.hookgate.lib.git_target(x.git))

message(branch) := sprintf("Committing directly to the protected branch %q is not allowed. Use the feature-branch workflow: create a branch (git switch -c <feature-name>), commit there, push it and open a pull request to merge into %q.", [branch, branch])
