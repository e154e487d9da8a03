# METADATA
# title: oversize
# description: Ask about shell commands too long for the other guards to analyse, instead of letting them through unread.
package hookgate.oversize

import rego.v1

cfg := data.hookgate.config.oversize

# violations first: most calls have none, and then nothing else is read.
deny contains r if {
	some r in violations
	cfg.action == "deny"
}

ask contains r if {
	some r in violations
	cfg.action == "ask"
}

# Padding a command past what shell analysis reads would otherwise hide whatever it runs.
# The length compared before it is named: three tests of the input that hookgate.lang.relevance
# reads as one, so a short command does not run the rule.
violations contains {"reason": msg, "pattern": "command-too-long"} if {
	input.tool_kind == "shell"
	is_string(input.tool_input.command)
	count(input.tool_input.command) > data.hookgate.lib.max_command_chars
	n := count(input.tool_input.command)
	msg := sprintf("This command is %d characters long; hookgate's guards read at most %d, so they cannot tell what it runs. Split it into shorter commands, or write long content to a file with the editing tool first.", [n, data.hookgate.lib.max_command_chars])
}
