package hookgate.team.issue_key_test

import rego.v1

import data.hookgate.team.issue_key

shell(cmd) := {"tool_kind": "shell", "tool_input": {"command": cmd}, "cwd": "/home/u/proj", "effects": []}

test_a_message_without_a_key_is_denied if {
	every cmd in ["git commit -m 'fix the login page'", "git commit -am wip", "cd app && git commit --message='tidy'", "git -C app commit -m 'abc-12 lower case is no key'"] {
		count(issue_key.deny) == 1 with input as shell(cmd)
	}
}

test_a_message_with_a_key_is_allowed if {
	every cmd in ["git commit -m 'PAY-123: fix the login page'", "git commit -m 'fix login' -m 'Refs: OPS-7'", "git commit --amend --no-edit", "git log -m", "echo 'git commit -m x'"] {
		count(issue_key.deny) == 0 with input as shell(cmd)
	}
}
