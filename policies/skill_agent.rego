# METADATA
# title: skill-agent
# description: Redirect Skill tool calls that name a sub-agent to the Agent (Task) tool.
package hookgate.skill_agent

import rego.v1

cfg := data.hookgate.config.skill_agent

skill_call if input.tool_kind == "skill"

skill_call if lower(input.tool_name) == "skill"

# Each definition first reads its field: a call whose input has neither (every call but a
# skill's) makes this guard's rules empty without running them (hookgate.lang.relevance).
requested := skill if {
	skill := input.tool_input.skill
	is_string(skill)
}

requested := name if {
	name := input.tool_input.name
	is_string(name)
	not is_string(input.tool_input.skill)
}

# A name that is a sub-agent and not a skill (a name that is both is a skill).
agent_not_skill(name, agents, skills) if {
	name in agents
	not name in skills
}

message(name) := sprintf("%q is a sub-agent, not a skill, so the Skill tool cannot run it. Delegate to it with the Agent tool (called Task in older versions) using subagent_type %q and a prompt that describes the task.", [name, name])

# The project whose .claude directory is read (the user's home is always read too).
project := input.cwd if is_string(input.cwd)

project := "" if not is_string(input.cwd)

violations contains {"reason": message(name), "pattern": "skill-is-agent"} if {
	pre_tool_use
	name := requested # before skill_call: the cheap test most calls fail (see requested)
	skill_call
	agent_not_skill(name, host.agents(project), host.skills(project))
}

pre_tool_use if input.hook_event_name == "PreToolUse"

deny contains r if {
	some r in violations # first: most calls have none, and skip the rule without running it
	cfg.action == "deny"
}

ask contains r if {
	some r in violations # first: most calls have none, and skip the rule without running it
	cfg.action == "ask"
}
