# METADATA
# title: lib (effects)
# description: The commands of a call's run effects that are not its shell tool's own command line.
package hookgate.lib

import rego.v1

# A call without a shell line of its own (an MCP tool, a file tool) still runs its effects'
# commands: lib.commands is defined for every call.
default line_commands := []

# A shell tool call whose line is PowerShell (Copilot's powershell tool, Claude's PowerShell):
# its commands come from effect_commands, read as PowerShell, not from line_commands.
powershell_line if {
	some e in input.effects
	e.kind == "run"
	e.dialect == "powershell"
}

# Commands that input.effects runs besides the tool's own sh line: an MCP tool's command
# argument, a Codex argument vector, a PowerShell line. Their spans are not offsets into
# input.tool_input.command, so they are null: nothing rewrites them in place.
effect_commands := [object.union(c, {"span": null}) |
	some e in other_runs
	some c in run_commands(e)
]

# The run effects other than the shell tool's own line (xpia_effects.rego scans them too).
other_runs := [e |
	some e in object.get(input, "effects", [])
	e.kind == "run"
	not own_line(e)
]

own_line(e) if {
	e.dialect == "sh"
	input.tool_kind == "shell"
	e.command == input.tool_input.command
}

run_commands(e) := script_commands(e.command) if {
	e.dialect == "sh"
	count(e.command) <= max_command_chars
}

run_commands(e) := powershell.commands(e.command) if {
	e.dialect == "powershell"
	count(e.command) <= max_command_chars
}
