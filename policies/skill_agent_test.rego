package hookgate.skill_agent_test

import rego.v1

# host.agents/host.skills read the disk; tests/test_pack.py covers the rule with real files.

test_agent_that_is_not_a_skill if {
	data.hookgate.skill_agent.agent_not_skill("architect", ["architect", "reviewer"], ["pdf"])
}

test_name_that_is_both_is_a_skill if {
	not data.hookgate.skill_agent.agent_not_skill("pdf", ["pdf"], ["pdf"])
}

test_unknown_name_passes if {
	not data.hookgate.skill_agent.agent_not_skill("other", ["architect"], ["pdf"])
}

test_requested_from_skill_or_name if {
	data.hookgate.skill_agent.requested == "architect" with input as {"tool_input": {"skill": "architect"}}
	data.hookgate.skill_agent.requested == "architect" with input as {"tool_input": {"name": "architect"}}
}

test_skill_tool_recognized if {
	data.hookgate.skill_agent.skill_call with input as {"tool_kind": "skill"}
	data.hookgate.skill_agent.skill_call with input as {"tool_name": "Skill", "tool_kind": "other"}
	not data.hookgate.skill_agent.skill_call with input as {"tool_name": "Bash", "tool_kind": "shell"}
}

test_message_guides_to_agent_tool if {
	msg := data.hookgate.skill_agent.message("architect")
	contains(msg, "Agent tool")
	contains(msg, "subagent_type")
}
