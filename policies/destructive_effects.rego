# METADATA
# title: destructive (effects)
# description: File tools judged like the shell: a whole-file write outside the project is > file; deleting or moving is rm/mv.
package hookgate.destructive

import rego.v1

# A file tool that replaces a whole file (Write, write_file, create, an Add File in a patch, an
# MCP write) outside the project and the temp directories: what > file does in the shell.
violations contains {"reason": msg, "pattern": "overwrite-file"} if {
	some e in input.effects
	e.kind == "write"
	unsafe_effect_path(e.path)
	not agent_data(e.path)
	verb := {true: "empty", false: "replace"}[e.empty]
	msg := sprintf("%s would %s %s (%s). %s", [e.tool, verb, e.path, place(e.path, data.hookgate.lib.cwd), write_advice])
}

# Deleting a file or directory (Cursor's Delete, a patch's Delete File, an MCP delete) outside
# the project: judged by where it is, as rm -rf is.
violations contains {"reason": msg, "pattern": "delete-path"} if {
	some e in input.effects
	e.kind == "delete"
	unsafe_effect_path(e.path)
	msg := sprintf("%s would delete %s (%s). %s", [e.tool, e.path, place(e.path, data.hookgate.lib.cwd), advice])
}

# Moving a path away is deleting it where it was; moving onto a path replaces what is there.
violations contains {"reason": msg, "pattern": "move-path"} if {
	some e in input.effects
	e.kind == "move"
	some p in [e.path, e.to]
	is_string(p)
	unsafe_effect_path(p)
	msg := sprintf("%s would move %s to %s: %s is %s. %s", [e.tool, e.path, e.to, p, place(p, data.hookgate.lib.cwd), advice])
}

unsafe_effect_path(p) if {
	is_string(p)
	not stream(p)
	not safe_path(p, data.hookgate.lib.cwd)
}

# Where agent hosts keep their own working files outside the project (plans, memory, todos).
agent_data(p) if {
	some d in cfg.agent_data_dirs
	contains(p, concat("", ["/", d]))
}
