# METADATA
# title: block-writes
# description: Deny changing files under the project's listed paths, by file tools and by the shell.
package hookgate.team.block_writes

import rego.v1

cfg := data.team.block_writes

# File tools of every host (Write, Edit, apply_patch, MCP file tools): their effects.
deny contains {"reason": message(p), "pattern": "write-under-path"} if {
	some e in input.effects
	e.kind in {"write", "edit", "delete", "move"}
	some p in [e.path, object.get(e, "to", null)]
	blocked(p)
}

# The shell: redirections (> f, >> f) and the operands of the commands that change them.
deny contains {"reason": message(p), "pattern": "write-under-path"} if {
	some c in data.hookgate.lib.commands
	some target in array.concat(array.concat(c.writes, c.appends), changed_operands(c))
	p := shell.resolve(directory(c), target)
	blocked(p)
}

# What a command changes (data.team.block_writes.changes): every operand (rm, mv, touch, …),
# the last one (cp, ln, install: the sources are only read), or every operand when it edits in
# place (sed -i); anything else reads.
changed_operands(c) := shell.operands(c) if {
	cfg.changes[c.name] == "all"
} else := [ops[count(ops) - 1]] if {
	cfg.changes[c.name] == "last"
	ops := shell.operands(c)
	count(ops) > 0
} else := shell.operands(c) if {
	cfg.changes[c.name] == "in_place"
	some flag in ["-i", "--in-place"]
	shell.has_flag(c, flag)
} else := []

# The directory a command runs in: the payload's cwd with the line's cd applied.
directory(c) := shell.resolve(data.hookgate.lib.cwd, c.cwd) if is_string(c.cwd)

else := data.hookgate.lib.cwd

blocked(p) if {
	is_string(p)
	is_string(data.hookgate.lib.cwd)
	some prefix in cfg.paths
	root := shell.resolve(data.hookgate.lib.cwd, prefix)
	under(p, root)
}

under(p, root) if p == root

under(p, root) if startswith(p, concat("", [trim_suffix(root, "/"), "/"]))

message(p) := sprintf("%s is under a path this team keeps out of agent sessions (%s): change it through a reviewed pull request.", [p, concat(", ", cfg.paths)])
