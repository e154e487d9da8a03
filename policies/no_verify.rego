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
