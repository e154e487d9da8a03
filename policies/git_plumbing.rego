# METADATA
# title: destructive (git plumbing)
# description: git plumbing and porcelain spellings that discard work the way git reset --hard or git checkout -- do.
package hookgate.destructive

import rego.v1

# git checkout <tree-ish> <path>…, or <path> <path>… (more than one operand, no -b/--orphan):
# git reads the operands as paths and overwrites them, with or without "--" (checked with git).
violations contains {"reason": msg, "pattern": "git-checkout-discard"} if {
	some g in gits
	g.subcommand == "checkout"
	not "--" in g.args
	count(g.operands) >= 2
	not checkout_creates(g)
	msg := sprintf("git checkout %s overwrites uncommitted changes to those paths. %s", [concat(" ", g.operands), stash_advice])
}

checkout_creates(g) if {
	some o in g.options
	o.name in {"-b", "-B", "--orphan"}
}

# git checkout <name> where name is no revision but a file or directory: git restores it from
# the index, discarding its changes (git checkout src).
violations contains {"reason": msg, "pattern": "git-checkout-discard"} if {
	some x in data.hookgate.lib.git_commands
	g := x.git
	g.subcommand == "checkout"
	count(g.operands) == 1
	not "--" in g.args
	not checkout_creates(g)
	git.checkout_target(data.hookgate.lib.git_target(g), g.operands[0]) == "path"
	msg := sprintf("git checkout %s restores that path from the index, discarding its uncommitted changes (%s is not a branch). %s", [g.operands[0], g.operands[0], stash_advice])
}

# Plumbing that writes over the working tree or deletes changed files.
violations contains {"reason": msg, "pattern": "git-plumbing-discard"} if {
	some g in gits
	msg := plumbing_discard(g)
}

# (one definition with elses: a function of several definitions runs each of them for every git
# command; each branch is a different subcommand)
plumbing_discard(g) := sprintf("git read-tree --reset -u overwrites uncommitted changes in the working tree, as git reset --hard does. %s", [stash_advice]) if {
	g.subcommand == "read-tree"
	shell.has_flag(g, "--reset")
	shell.has_flag(g, "-u")
} else := sprintf("git checkout-index --force overwrites uncommitted changes in the working tree. %s (--prefix=<dir>/ writes the files elsewhere.)", [stash_advice]) if {
	g.subcommand == "checkout-index"
	shell.has_flag(g, "--force")
	not shell.has_flag(g, "--prefix")
} else := sprintf("git rm --force deletes files whose changes are not committed (without --force git refuses). %s", [stash_advice]) if {
	g.subcommand == "rm"
	shell.has_flag(g, "--force")
	not shell.has_flag(g, "--cached")
	not shell.has_flag(g, "--dry-run")
} else := sprintf("git worktree remove --force deletes a worktree with its uncommitted and untracked files (without --force git refuses). %s", [stash_advice]) if {
	g.subcommand == "worktree"
	g.operands[0] == "remove"
	shell.has_flag(g, "--force")
}

# git prune --expire=now drops unreachable objects at once: the commits a reset or a deleted
# branch left behind, which the reflog could still bring back.
violations contains {"reason": msg, "pattern": "git-history-destroy"} if {
	some g in gits
	g.subcommand == "prune"
	some o in g.options
	o.name == "--expire"
	o.value in {"now", "all", "0"}
	not shell.has_flag(g, "--dry-run")
	msg := "git prune --expire=now removes unreachable commits that git could otherwise recover (the reflog and unreachable objects are what undo a mistake). Leave it to the user: ask them to run it."
}

# git clean without -f deletes untracked files when clean.requireForce is false: where git's
# configuration could not be read in full (a symlinked ~/.gitconfig, a file past the reader's
# bounds), it may be, so the clean asks whatever destructive.action says.
ask contains {"reason": msg, "pattern": "git-clean-config-unknown"} if {
	some x in data.hookgate.lib.git_commands
	x.git.subcommand == "clean"
	not cleans_nothing(x.git)
	count(object.get(x.git, "config_unknown", [])) > 0
	msg := sprintf("git clean deletes untracked files without -f when clean.requireForce is false, and hookgate could not read all of git's configuration: %s. Run git clean -n to see what would go, or make those files plain, readable files.", [data.hookgate.lib.config_unknown_text(x.git)])
}

cleans_nothing(g) if shell.has_flag(g, "--force") # git-clean-force judges it

cleans_nothing(g) if shell.has_flag(g, "--dry-run")

cleans_nothing(g) if shell.has_flag(g, "--interactive")
