# METADATA
# title: lib
# description: Helpers shared by the default guard pack; it makes no decisions of its own.
package hookgate.lib

import rego.v1

config := data.hookgate.config

# The payload's working directory, or null when the host did not send one.
cwd := object.get(input, "cwd", null)

# Every simple command a shell tool call would run (see shell.commands).
commands := shell.commands(input.tool_input.command) if {
	input.tool_kind == "shell"
	is_string(input.tool_input.command)
}

# Every git command of the call with its parse, except those that only print help. An array:
# as a set, each command and parse (large objects) would be hashed on every call.
git_commands := [{"cmd": c, "git": g} |
	some c in commands
	c.name == "git"
	g := git.parse(c)
	not g.help
]

# NAME=value assignments the line makes for later commands (FOO=1; export FOO=1; declare …).
assignments contains concat("=", [name, value]) if {
	some c in commands
	c.name == ""
	some name, value in c.env
}

assignments contains a if {
	some c in commands
	c.name in {"export", "declare", "typeset", "readonly", "local"}
	some a in shell.operands(c)
	contains(a, "=")
}

# The directory a git command works in: --git-dir, else its cd/-C chain, against the cwd.
git_target(g) := shell.resolve(cwd, g.git_dir) if is_string(g.git_dir)

git_target(g) := shell.resolve(cwd, g.dir) if not is_string(g.git_dir)

# A branch name matching one of the protected patterns (globs such as release/*).
protected_branch(branch) if {
	is_string(branch)
	some pattern in config.protected_branches
	glob.match(pattern, ["/"], branch)
}

# The branch a push refspec or --delete operand names: "+src:refs/heads/dst" -> "dst".
ref_branch(ref) := trim_prefix(dst, "refs/heads/") if {
	parts := split(trim_prefix(ref, "+"), ":")
	dst := parts[count(parts) - 1]
}
