# METADATA
# title: destructive (effects)
# description: Write effects judged like the shell: a whole-file write outside the project is > file; deleting or moving is rm/mv.
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

# dd of=FILE outside the project replaces it as > FILE does (the shell rules of destructive.rego
# judge redirections, tee and truncate; cp, mv and install onto a file outside the project are
# installs, left alone). A path the line does not show ($OUT) is not judged here.
violations contains {"reason": msg, "pattern": "overwrite-file"} if {
	some e in data.hookgate.lib.command_file_effects
	e.by == "dd"
	e.op == "write"
	not contains(e.path, "$")
	unsafe_effect_path(e.path)
	not agent_data(e.path)
	msg := sprintf("`dd` would replace %s (%s). %s", [e.path, place(e.path, data.hookgate.lib.cwd), write_advice])
}

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

# The project itself, or a directory that holds it, moved away (mv proj /tmp/x, Move-Item): its
# files go with it. (rm has the rules above; git rm and git mv refuse to lose uncommitted work.)
violations contains {"reason": msg, "pattern": "delete-project"} if {
	some e in data.hookgate.lib.command_file_effects
	e.op == "delete"
	e.by == "mv"
	is_string(data.hookgate.lib.cwd)
	covers_project(e.path, data.hookgate.lib.cwd)
	msg := sprintf("`%s` would take away %s (%s). %s", [e.by, e.path, place(e.path, data.hookgate.lib.cwd), advice])
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
