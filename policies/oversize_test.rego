package hookgate.oversize_test

import rego.v1

shell_input(cmd) := {
	"hook_event_name": "PreToolUse",
	"tool_kind": "shell",
	"tool_input": {"command": cmd},
	"cwd": "/home/u/proj",
}

# A line of n characters: a long echo, then a dangerous command the guards would deny.
padded(n) := concat("", [concat("", [x | some _ in numbers.range(1, n - 32); x := "x"]), "; git commit --no-verify -m x 12"])

test_a_line_over_the_limit_is_asked_about if {
	some r in data.hookgate.oversize.ask with input as shell_input(padded(65537))
		with data.hookgate.lib.max_command_chars as 65536
	r.pattern == "command-too-long"
	contains(r.reason, "65537 characters long; hookgate's guards read at most 65536")
}

test_a_line_at_the_limit_is_left_to_the_other_guards if {
	count(data.hookgate.oversize.ask) == 0 with input as shell_input(padded(200))
		with data.hookgate.lib.max_command_chars as 200
	count(data.hookgate.no_verify.deny) > 0 with input as shell_input(padded(200))
		with data.hookgate.lib.max_command_chars as 200
}

test_over_the_limit_the_other_guards_do_not_analyse if {
	count(data.hookgate.no_verify.deny) == 0 with input as shell_input(padded(201))
		with data.hookgate.lib.max_command_chars as 200
	count(data.hookgate.oversize.ask) > 0 with input as shell_input(padded(201))
		with data.hookgate.lib.max_command_chars as 200
}

test_deny_when_configured if {
	count(data.hookgate.oversize.deny) > 0 with input as shell_input(padded(201))
		with data.hookgate.lib.max_command_chars as 200
		with data.hookgate.config.oversize.action as "deny"
}

test_other_tools_are_left_alone if {
	doc := {"hook_event_name": "PreToolUse", "tool_kind": "edit", "tool_input": {"content": padded(201)}}
	count(data.hookgate.oversize.ask) == 0 with input as doc
		with data.hookgate.lib.max_command_chars as 200
}
