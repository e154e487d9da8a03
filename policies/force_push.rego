# METADATA
# title: force-push
# description: Rewrite force pushes into normal pushes; deny pushes that cannot be made safe.
package hookgate.force_push

import rego.v1

cfg := data.hookgate.config.force_push

force_options := {"--force", "--force-with-lease", "--force-if-includes"}

reason := "Stripped --force/-f/--force-with-lease flags because force-pushing can overwrite remote history and lose commits; a normal push is safer."

# git push and its plumbing, git send-pack (same options, same refspecs after the remote).
push_subcommands := {"push", "send-pack"}

# Each push of the call, with its command (x.cmd), worked out once: every rule below reads this
# list instead of walking the call's git commands again.
push_commands := [x | some x in data.hookgate.lib.git_commands; x.git.subcommand in push_subcommands]

pushes := [x.git | some x in push_commands]

# The option names of a parse are git's long names (-f is --force, --force-w is
# --force-with-lease), whether the line or configuration gives them. (One definition with
# else: a push forced by its flag is not searched for a +refspec too.)
forced(g) := true if {
	some o in g.options
	o.name in force_options
} else := true if {
	some i, ref in g.operands
	i > 0 # a refspec: an operand after the remote
	startswith(ref, "+")
}

# The forced pushes of the call. One rule, so that what follows runs once per call, not once
# per forced push (a line of many pushes would cost quadratic time).
forced_pushes := [x | some x in push_commands; forced(x.git)]

forced_push if count(forced_pushes) > 0

# The command line with every push made normal, when that removes every force.
safe_command := cmd if {
	forced_push
	not forced_outside_the_text
	removal := git.force_removal(input.tool_input.command, shell_context)
	cmd := removal.command
	cmd != input.tool_input.command # a rewrite that removes nothing grants the force push
	not still_forced(removal)
}

# How the pack reads a line (lib.script_commands), without the session's files: a line that
# depends on them is read anew (still_forced).
shell_context := {"substitutions": data.hookgate.lib.substitutions, "cwd": data.hookgate.lib.cwd}

# A force push that an interpreter one-liner runs (python -c "os.system('git push -f')") is not
# in the line's text, so no rewrite of the text can remove it.
forced_outside_the_text if {
	some x in forced_pushes
	x.cmd.span == null
	x.git.subcommand == "push"
}

# A push forced by configuration (remote.<r>.push = +refs/…, an alias defined as push --force)
# or through send-pack, which the rewrite does not edit, has no flag in the text to remove.
forced_outside_the_text if {
	some x in forced_pushes
	not_in_text(x.git)
}

# (one definition with elses: a function of several definitions runs each of them on every call)
not_in_text(g) := true if {
	is_string(g.alias)
} else := true if {
	g.subcommand != "push"
} else := true if {
	some o in g.options
	o.name in force_options
	is_string(o.config)
}

# A push of the rewritten line that still forces (an alias, a spelling the rewrite leaves as
# written). git.force_removal parses the rewritten pushes from the line's analysis, so the
# line is not analysed again; only where that cannot tell (pushes null: words the line does not
# show as written, such as what xargs is fed or a file the line runs) is it read anew.
still_forced(removal) if {
	is_array(removal.pushes)
	some g in removal.pushes
	not g.help
	forced(g)
}

still_forced(removal) if {
	removal.pushes == null
	some c in data.hookgate.lib.script_commands(removal.command)
	c.name == "git"
	g := git.parse(c)
	g.subcommand == "push"
	not g.help
	forced(g)
}

rewrite contains {"tool_input": {"command": cmd}, "reason": reason, "pattern": "strip-force-push-flags"} if {
	cfg.on_force == "rewrite"
	cmd := safe_command
}

# Each finding with the action data gives it: action for an unsafe push, on_unknown_config for
# a configuration hookgate could not read.
findings contains {"action": cfg.action, "r": r} if {
	some r in unsafe
}

# A push, or a name git may read as an alias, whose configuration hookgate could not read in
# full: an alias or a remote's push refspec there may force it.
findings contains {"action": cfg.on_unknown_config, "r": r} if {
	some x in data.hookgate.lib.git_commands
	count(object.get(x.git, "config_unknown", [])) > 0 # first: most configurations read in full
	not x.defined
	config_decides(x.git)
	msg := sprintf("Whether this git %s force-pushes depends on git's configuration (aliases, remote.<name>.push, remote.<name>.mirror), and hookgate could not read all of it: %s. Make those files plain, readable files (or write the line's configuration out), then run it again.", [x.git.subcommand, data.hookgate.lib.config_unknown_text(x.git)])
	r := {"reason": msg, "pattern": "push-config-unknown"}
}

deny contains x.r if {
	some x in findings
	x.action == "deny"
}

ask contains x.r if {
	some x in findings
	x.action == "ask"
}

# A force push is answered as on_force says: rewritten (above), denied or asked. Not one of the
# findings: a force push that is rewritten then builds and hashes no finding.
deny contains force_finding if {
	forced_push
	cfg.on_force == "deny"
}

ask contains force_finding if {
	forced_push
	cfg.on_force == "ask"
}

force_finding := {"reason": "Force-pushing can overwrite remote history and lose commits. Push without --force/-f/--force-with-lease/--force-if-includes and without +refspecs; if the remote has moved, fetch and integrate it first.", "pattern": "force-push"}

config_decides(g) if g.subcommand in push_subcommands

config_decides(g) if g.may_be_alias

unsafe contains {"reason": msg, "pattern": "push-mirror"} if {
	some g in pushes
	some o in g.options # git's long names, as forced(g) reads them
	o.name == "--mirror"
	msg := sprintf("git push --mirror%s makes the remote an exact copy of this repository, deleting and overwriting remote branches. Push the branches you mean explicitly (git push origin <branch>).", [configured(g, "--mirror")])
}

# Words the line does not show ($OPTS, "$BRANCH", $(cmd)) may hold --force, a +refspec or :main
# wherever they stand (git reads options after operands too), so the push cannot be checked.
unsafe contains {"reason": msg, "pattern": "push-unknown-word"} if {
	some g in pushes
	count(g.unknown) > 0
	msg := sprintf("git %s with %s cannot be checked: its value is not in the command, and it may be --force, a +refspec or :<protected branch>. Write the options and refspecs out (a branch from $(git branch --show-current) is fine).", [g.subcommand, concat(" ", g.unknown)])
}

unsafe contains {"reason": msg, "pattern": "push-forced-by-config"} if {
	some g in pushes
	some o in g.options
	is_string(o.config) # first: few options come from configuration
	o.name in force_options
	msg := sprintf("This git %s is a force push: the configuration %s forces it (a + refspec), which can overwrite remote history and lose commits. Push an explicit refspec without + (git push origin <branch>), and leave the remote's push configuration alone.", [g.subcommand, o.config])
}

# " (set by remote.origin.mirror)" when configuration implies the flag, else "".
configured(g, flag) := sprintf(" (set by %s)", [o.config]) if {
	some o in g.options
	o.name == flag
	is_string(o.config)
} else := ""

unsafe contains {"reason": delete_message(branch), "pattern": "delete-protected-branch"} if {
	some g in pushes
	some o in g.options
	o.name == "--delete"
	some i, ref in g.operands
	i > 0 # a refspec: an operand after the remote
	branch := data.hookgate.lib.ref_branch(ref)
	data.hookgate.lib.protected_branch(branch)
}

unsafe contains {"reason": delete_message(branch), "pattern": "delete-protected-branch"} if {
	some g in pushes
	some i, ref in g.operands
	i > 0 # a refspec: an operand after the remote
	startswith(ref, ":")
	branch := data.hookgate.lib.ref_branch(ref)
	data.hookgate.lib.protected_branch(branch)
}

# A branch of a remote repository that a service deletes (an MCP tool of the GitHub API).
unsafe contains {"reason": delete_message(e.branch), "pattern": "delete-protected-branch"} if {
	some e in input.effects
	e.kind == "push"
	e.delete
	data.hookgate.lib.protected_branch(e.branch)
}

unsafe contains {"reason": msg, "pattern": "force-push-not-rewritable"} if {
	forced_push # first: most calls have none, and skip the rule without running it
	cfg.on_force == "rewrite"
	not safe_command
	msg := "This force push is written in a way hookgate cannot rewrite safely (for example inside an escaped nested script, run by an interpreter one-liner, made by an MCP tool, or defined as a git alias). Push without --force/-f/--force-with-lease/+refspec: force-pushing can overwrite remote history and lose commits."
}

delete_message(branch) := sprintf("Deleting the protected branch %q on the remote is not allowed: it removes the shared history others build on. Delete feature branches only, or ask a maintainer.", [branch])
