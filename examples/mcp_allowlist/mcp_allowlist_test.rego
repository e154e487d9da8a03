package hookgate.team.mcp_allowlist_test

import rego.v1

import data.hookgate.team.mcp_allowlist

mcp(name) := {"tool_kind": "mcp", "tool_name": name, "tool_input": {}, "effects": []}

test_listed_servers_and_tools_are_allowed if {
	every name in ["mcp__github__get_issue", "mcp__github__create_pull_request", "mcp__docs__search", "mcp__docs__fetch_page"] {
		count(mcp_allowlist.deny) == 0 with input as mcp(name)
	}
}

test_others_are_denied if {
	every name in ["mcp__github__delete_repository", "mcp__slack__post_message", "mcp__github__get_issue__x", "mcp_github_get_issue", "MCP:get_issue"] {
		count(mcp_allowlist.deny) == 1 with input as mcp(name)
	}
}

test_other_tools_are_not_judged if {
	count(mcp_allowlist.deny) == 0 with input as {"tool_kind": "shell", "tool_name": "Bash", "tool_input": {"command": "ls"}, "effects": []}
}
