# METADATA
# title: remote-scope
# description: In repositories whose origin is one of the listed remotes, deny applying infrastructure changes from a session.
package hookgate.team.remote_scope

import rego.v1

cfg := data.team.remote_scope

deny contains {"reason": msg, "pattern": "apply-in-scoped-repository"} if {
	some c in data.hookgate.lib.commands
	some rule in cfg.denied
	c.name == rule.program
	rule.subcommand in c.argv
	url := scoped_remote(c)
	msg := sprintf("%s %s is not run from agent sessions in %s: apply through the pipeline.", [rule.program, rule.subcommand, url])
}

# The origin URL of the repository the command runs in, read from git's configuration on disk
# (git.config: the repository's files and the global ones), when it matches a listed pattern.
scoped_remote(c) := url if {
	some url in object.get(git.config(directory(c)), "remote.origin.url", [])
	some pattern in cfg.remotes
	regex.match(pattern, url)
}

directory(c) := shell.resolve(data.hookgate.lib.cwd, c.cwd) if is_string(c.cwd)

else := data.hookgate.lib.cwd
