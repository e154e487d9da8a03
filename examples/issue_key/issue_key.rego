# METADATA
# title: issue-key
# description: Deny a commit whose message (given on the line) names no issue key.
package hookgate.team.issue_key

import rego.v1

cfg := data.team.issue_key

deny contains {"reason": msg, "pattern": "commit-without-issue-key"} if {
	some x in data.hookgate.lib.git_commands
	x.git.subcommand == "commit"
	messages := [o.value | some o in x.git.options; o.name == "--message"]
	count(messages) > 0
	not some_key(messages)
	msg := sprintf("The commit message names no issue key (%s, for example %s): add the issue this commit is for.", [cfg.pattern, cfg.example])
}

# A message from a file or the editor is not on the line: git's commit-msg hook checks that one.
some_key(messages) if {
	some m in messages
	regex.match(cfg.pattern, m)
}
