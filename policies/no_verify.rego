# METADATA
# title: no-verify
# description: Deny skipping git hooks (--no-verify/-n, core.hooksPath overrides, HUSKY=0).
package hookgate.no_verify

import rego.v1

cfg := data.hookgate.config.no_verify

deny contains r if {
	cfg.action == "deny"
	some r in violations
}

ask contains r if {
	cfg.action == "ask"
	some r in violations
}

advice := "Hooks run the repository's checks (formatting, linting, tests, secret scanning); fix what the hook reports and run the command again without skipping them."

violations contains {"reason": msg, "pattern": "git-no-verify"} if {
	some x in data.hookgate.lib.git_commands
	x.git.subcommand in cfg.hook_subcommands
	shell.has_flag(x.git, "--no-verify")
	msg := sprintf("git %s --no-verify skips the git hooks. %s", [x.git.subcommand, advice])
}

violations contains {"reason": msg, "pattern": "git-hooks-path-override"} if {
	some x in data.hookgate.lib.git_commands
	some key in cfg.bypass_config
	key in object.keys(x.git.config)
	msg := sprintf("Overriding %s on the git command line replaces the repository's hooks. %s", [key, advice])
}

violations contains {"reason": msg, "pattern": "git-config-hooks-path"} if {
	some x in data.hookgate.lib.git_commands
	x.git.subcommand == "config"
	count(x.git.operands) > 1
	lower(x.git.operands[0]) in cfg.bypass_config
	msg := sprintf("Setting %s with git config disables the repository's hooks. %s", [lower(x.git.operands[0]), advice])
}

violations contains {"reason": msg, "pattern": "hook-bypass-env"} if {
	some x in data.hookgate.lib.git_commands
	x.git.subcommand in cfg.hook_subcommands
	some name, values in cfg.bypass_env
	some value in env_values(x.cmd, name)
	bypasses(value, values)
	msg := sprintf("%s=%s turns the git hooks off for this command. %s", [name, value, advice])
}

# Emptying, replacing or removing an installed hook (or its execute bit) switches it off just as
# --no-verify does, for every later commit.
violations contains {"reason": msg, "pattern": "git-hooks-modified"} if {
	some c in data.hookgate.lib.commands
	c.name in hook_changers
	some t in shell.operands(c)
	in_hooks_dir(c, t)
	msg := sprintf("%s %s changes the repository's installed git hooks, which can switch their checks off. %s", [c.name, t, advice])
}

violations contains {"reason": msg, "pattern": "git-hooks-modified"} if {
	some c in data.hookgate.lib.commands
	some t in c.writes
	in_hooks_dir(c, t)
	msg := sprintf("The redirection > %s replaces an installed git hook, which can switch its checks off. %s", [t, advice])
}

hook_changers := {"rm", "unlink", "mv", "cp", "ln", "install", "chmod", "truncate", "shred", "tee"}

# t names .git/hooks or something in it, wherever the command runs (cd .git/hooks && rm x).
in_hooks_dir(c, t) if contains(concat("", ["/", shell.resolve(c.cwd, t), "/"]), "/.git/hooks/")

# The values a variable has for a command: its own prefix and the line's assignments.
env_values(c, name) := vs if {
	own := [v | some k, v in c.env; k == name]
	line := [substring(a, count(name) + 1, -1) |
		some a in data.hookgate.lib.assignments
		startswith(a, concat("", [name, "="]))
	]
	vs := array.concat(own, line)
}

# "*" in the configured values matches any value.
bypasses(value, values) if value in values

bypasses(_, values) if "*" in values
