# METADATA
# title: mcp-allowlist
# description: Allow only the listed MCP servers, and on each only the listed tools.
package hookgate.team.mcp_allowlist

import rego.v1

servers := data.team.mcp_allowlist.servers

deny contains {"reason": msg, "pattern": "mcp-not-listed"} if {
	input.tool_kind == "mcp"
	not listed(input.tool_name)
	msg := sprintf("The MCP tool %s is not on this team's list (%s).", [input.tool_name, concat(", ", [s | some s, _ in servers])])
}

# mcp__<server>__<tool> (Claude Code, Codex): the only spelling that names its server
# unambiguously, so another (Gemini's mcp_srv_tool, Cursor's MCP:tool) is never listed.
listed(name) if {
	startswith(name, "mcp__")
	parts := split(trim_prefix(name, "mcp__"), "__")
	count(parts) == 2
	tools := servers[parts[0]]
	some allowed in tools
	allowed in {"*", parts[1]}
}
