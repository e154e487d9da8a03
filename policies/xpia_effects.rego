# METADATA
# title: xpia (effects)
# description: Prompt injection through channels other than a tool's own fields: instruction files written, MCP arguments, commands of run effects.
package hookgate.xpia

import rego.v1

# Text written into a file an agent reads as instructions, by any host (cfg.instruction_channels:
# CLAUDE.md, AGENTS.md, GEMINI.md, .cursorrules, .github/copilot-instructions.md,
# .claude/agents/*, .cursor/rules/*.mdc, .github/instructions/*): an instruction channel,
# whatever writes it (lib.file_effects: a file tool, a patch, a redirection, tee, a copy, a move
# or a link of a file the line wrote, PowerShell, MCP), on this machine or another (ssh: its text
# instructs the agent there as much).
outgoing_findings contains f if {
	some e in written # first: a call that writes nothing does not run this rule
	pre
	is_string(e.content)
	is_string(e.path) # instruction_file(e.path), without a call for every file a call writes
	regex.match(instruction_path_pattern, e.path)
	some f in instruction_text_findings(e.content)
	f.severity in cfg.pre_severities
	not f.id in cfg.heading_patterns
}

# Text the call does not show, put into an instruction file: written (cat /tmp/x > CLAUDE.md,
# >>, dd if=/tmp/x of=, curl -o, wget -O, base64 -d x >, interpreter code writing what it reads,
# Get-Content x | Set-Content, unzip -d .claude/agents) or made the file by a link (ln -sf
# /tmp/evil.md CLAUDE.md), a copy (cp ~/Downloads/x.md AGENTS.md, install, rsync, Copy-Item, an
# MCP copy) or a move (mv /tmp/x.md CLAUDE.md, git mv, an MCP move_file) of a file from outside
# the project: the agent reads as instructions whatever that text is, and nothing that wrote it
# was an instruction-file write (a file under /tmp or home is the agent's to write). Reading it
# from the disk now would judge only today's text, and a link's target may change after the
# call, so it is judged by where it comes from: asked. A file of the project (ln -s AGENTS.md
# CLAUDE.md, mv docs/draft.md AGENTS.md, git checkout -- CLAUDE.md: its committed text) met
# this scan when it was written; text the line shows (echo … > /tmp/x; cp /tmp/x CLAUDE.md) is
# scanned above. An edit in place (sed -i, a formatter) changes the file's own text, and a
# directory or special file made at the path (lib.contentless_writers: mkdir) holds none.
unknown_instructions contains {"reason": msg, "pattern": pattern} if {
	# first, with its op (lang/relevance.py reads it): a call that writes, appends, links,
	# copies or moves no file (an edit) does not run this rule
	some e in data.hookgate.lib.file_effects
	pattern := unknown_patterns[e.op]
	pre
	not is_string(e.content)
	onto_instructions(e)
	not in_project(e.from)
	not data.hookgate.lib.contentless_writers[e.by]
	msg := sprintf("%s would %s %s, an agent instruction file, %s: the agent would read as instructions whatever that text is, which this call does not show. Ask the user to do this themselves, or write the text into the file so it can be checked.", [e.by, unknown_verbs[e.op], e.path, unknown_source(e.from)])
}

unknown_patterns := {"write": "instruction-file-unknown", "append": "instruction-file-unknown", "link": "instruction-file-link", "copy": "instruction-file-copy", "move": "instruction-file-copy"}

unknown_verbs := {"write": "write", "append": "append to", "link": "make a link at", "copy": "copy a file onto", "move": "move a file onto"}

unknown_source(from) := sprintf("from %s, outside the project", [from]) if is_string(from)

unknown_source(from) := "with text from elsewhere" if not is_string(from)

# A directory written into (lib.file_effects' tree) is an instruction file's when what it holds is
# read as instructions (.claude/agents/: unzip -d .claude/agents x.zip).
onto_instructions(e) if {
	not e.tree
	instruction_file(e.path)
}

onto_instructions(e) if {
	e.tree
	instruction_file(concat("", [e.path, "/"]))
}

ask contains r if {
	some r in unknown_instructions
}

# A relative path without .. is under the call's cwd, as is an absolute path below it.
in_project(p) if {
	is_string(p)
	not startswith(p, "/")
	not startswith(p, "~")
	not startswith(p, "$")
	not contains(concat("", ["/", p, "/"]), "/../")
}

in_project(p) if {
	is_string(p)
	cwd := data.hookgate.lib.cwd
	is_string(cwd)
	startswith(p, concat("", [trim_suffix(cwd, "/"), "/"]))
	not contains(concat("", [p, "/"]), "/../")
}

# What an instruction file's text says. Wording that works only by being read as an instruction
# (cfg.quoted_categories: overrides, role changes, fake system markers) counts outside what the
# text quotes: a code block, `inline code` or a "quoted phrase" in a sentence shows an example
# (a security note, a test fixture described). Commands count anywhere: an agent runs the code
# blocks of its instruction files. An instruction file is markdown: a heading there (### System,
# ## Developer) titles a section of documentation, and is no role marker by itself
# (cfg.heading_patterns); in a prompt it is one, and what a section says is scanned either way.
instruction_text_findings(text) := plain | unquoted_findings(text, found) if {
	found := xpia.scan(text, cfg.patterns)
	plain := {f | some f in found; not f.category in cfg.quoted_categories}
}

# Rescanned without what the text quotes only when such wording is there at all.
unquoted_findings(text, found) := {f |
	some f in xpia.scan(xpia.unquoted(text), cfg.patterns)
	f.category in cfg.quoted_categories
} if {
	some g in found
	g.category in cfg.quoted_categories
} else := set()

# Text sent to an MCP server, and command lines an MCP tool or an argument vector runs (the
# tool's own shell line is scanned through pre_fields).
outgoing_findings contains f if {
	some text in effect_texts # first: most calls send no such text, and this rule is not run
	pre
	some f in xpia.scan(text, cfg.patterns)
	f.severity in cfg.pre_severities
}

effect_texts contains e.text if {
	some e in input.effects
	e.kind == "prompt"
	e.to == "mcp"
}

effect_texts contains e.command if {
	some e in data.hookgate.lib.other_runs
}

# The files written, on this machine and on others (ssh: an instruction file there instructs the
# agent there as much): a call that writes none has none without running anything.
written := array.concat(data.hookgate.lib.file_effects, data.hookgate.lib.remote_file_effects)

instruction_file(p) if {
	is_string(p)
	regex.match(instruction_path_pattern, p)
}

# A path is an instruction file's when its last part is one of cfg.instruction_channels.files
# or it holds /<dir> for one of its dirs: one search of the path (built once from the table,
# which is policy data), not a split and a search per directory for every path written.
instruction_path_pattern := concat("|", alternatives) if {
	names := [concat("", ["(?:^|/)", quoted_meta(name), "$"]) |
		some name, hosts in cfg.instruction_channels.files
		hosts != false # a layer may turn a file off by setting it to false
	]
	dirs := [concat("", ["/", quoted_meta(d)]) | some d, _ in cfg.instruction_channels.dirs]
	alternatives := array.concat(names, dirs)
	count(alternatives) > 0 # an empty pattern would match every path
}

# The text matched as written: every RE2 metacharacter escaped.
quoted_meta(text) := regex.replace(text, `[\\.+*?()|\[\]{}^$]`, `\$0`)
