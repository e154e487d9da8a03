package hookgate.team.team_override_test

import rego.v1

# The team's tests run against its effective configuration: the default (rewrite the force
# push into a normal push) is now a deny.
shell(cmd) := {"tool_kind": "shell", "tool_input": {"command": cmd}, "cwd": "/home/u/proj", "effects": []}

test_a_force_push_is_denied_instead_of_rewritten if {
	data.hookgate.config.force_push.on_force == "deny"
	count(data.hookgate.force_push.deny) > 0 with input as shell("git push -f origin feature")
	count(data.hookgate.force_push.rewrite) == 0 with input as shell("git push -f origin feature")
}

test_the_rest_of_the_setting_keeps_its_defaults if {
	data.hookgate.config.force_push.action == "deny"
	count(data.hookgate.force_push.deny) == 0 with input as shell("git push origin feature")
}
