# METADATA
# title: self-protect
# description: Deny tool calls that change hookgate's own files, the host settings that run it, or git hooks; ask before uninstalling it.
package hookgate.self_protect

import rego.v1

cfg := data.hookgate.config.self_protect

pre if input.hook_event_name == "PreToolUse"

# hookgate's and the hosts' directories on this machine, from hookgate's own configuration
# (HOOKGATE_HOME, XDG_*, CLAUDE_CONFIG_DIR, CODEX_HOME, …): a moved state directory stays
# protected. null on the server, which reads no disk: the "anywhere" paths still apply there.
machine := hookgate.paths()

# ---- what the call changes: {"path", "how", "tree", "holder"} --------------------------------
# tree: the change reaches everything under the path (deleting or moving a directory, writing
# into one whose entries the line does not name), so a parent of a protected file counts too.
# holder: the path is named by a program that is not a known reader (below), so the directory
# that holds a protected file counts too. "how" is the words of the text that says what the call
# does (the effect's tool or program, then its verb): hookgate.protected_hits joins them only
# for a hit, and most calls hit nothing.

# Every write effect of the call, whatever its channel (lib.file_effects: file tools, patches,
# redirections, rm/cp/mv/ln/chmod/tee/dd/sed -i…, curl -o, unzip -d, cp -r src/., interpreter
# code, git rm/mv/checkout, PowerShell, MCP). Deleting or moving a path away, or changing modes,
# takes the tree under it, as does writing into a directory whose entries the line does not name;
# a link made to a protected path (from) counts too: a later write through the link writes it.
# Each is an entry of hookgate.protected_hits with its path as the disk resolves it now ("real",
# below), built in one pass over the effects, links aside (an array: a set of objects would be
# frozen and sorted on every write for nothing). The event is tested in place, not through pre:
# for a file tool's call no other rule here needs pre, which would be computed for this test.
changed := array.concat([{"path": p, "real": hookgate.on_disk(p), "how": [e.by, c.how], "tree": c.tree, "holder": false, "tag": "changed"} |
	some e in data.hookgate.lib.file_effects
	input.hook_event_name == "PreToolUse"
	is_string(e.path)
	c := change_of(e)
	p := placed(e.path)
], [{"path": p, "real": hookgate.on_disk(p), "how": [e.by, "would make a link to"], "tree": false, "holder": false, "tag": "changed"} |
	some e in data.hookgate.lib.file_effects
	input.hook_event_name == "PreToolUse"
	e.op == "link"
	is_string(e.from)
	p := placed(e.from)
])

# What an effect does to its path, and whether that takes the tree under it.
change_of(e) := {"how": "would change files under", "tree": true} if {
	e.tree
} else := effect_changes[e.op]

# (No input: computed once per policy set.)
effect_changes := {op: {"how": concat(" ", ["would", verb]), "tree": op in {"delete", "mode"}} | some op, verb in effect_verbs}

# A write effect's path is absolute already, unless it starts with ~ or $HOME.
placed(p) := p if {
	startswith(p, "/")
} else := expand(p)

effect_verbs := {"write": "write", "append": "append to", "edit": "edit", "delete": "delete", "move": "move a file onto", "copy": "copy a file onto", "link": "make a link at", "mode": "change the mode of"}

# A command's path made absolute: ~ and $HOME from this machine, then its cd chain and the cwd.
absolute(c, p) := shell.resolve(directory(c), expand(p))

directory(c) := shell.resolve(object.get(input, "cwd", null), expand(c.cwd)) if is_string(c.cwd)

directory(c) := object.get(input, "cwd", null) if not is_string(c.cwd)

expand(p) := concat("", [machine.home, substring(p, count(prefix), -1)]) if {
	is_string(machine.home)
	some prefix in ["~", "$HOME", "${HOME}"]
	home_prefixed(p, prefix)
} else := p

home_prefixed(p, prefix) if p == prefix

home_prefixed(p, prefix) if startswith(p, concat("", [prefix, "/"]))

# ---- the writer table turned around ---------------------------------------------------------
# A command that names a protected path (an operand, an option's value, attached or not) is
# presumed to write it, unless it is a known reader (self_protect.readers) or a writer the
# tables above judge exactly: what it does to the path is not known, so it asks.

named contains {"path": absolute(c, w), "how": sprintf("`%s` names", [c.name])} if {
	pre
	some c in data.hookgate.lib.commands
	words := hookgate.path_words(c.argv)
	count(words) > 0 # most commands name no path: the tables below are not consulted
	not known_program(c)
	some w in words
}

# git: by subcommand (git diff/log/show/status read; git checkout, apply, restore … may write).
named contains {"path": absolute(x.cmd, w), "how": sprintf("`git %s` names", [sub])} if {
	pre
	some x in data.hookgate.lib.git_commands
	sub := object.get(x.git, "subcommand", "")
	not sub in cfg.git_readers
	some w in hookgate.path_words(x.cmd.argv)
}

known_program(c) if c.name == "git" # judged by subcommand above

known_program(c) if c.name == "" # a bare redirection: judged as one

known_program(c) if cfg.commands[c.name]

known_program(c) if data.hookgate.lib.writing_options[c.name]

known_program(c) if data.hookgate.lib.writing_directories[c.name]

known_program(c) if reader(c, cfg.readers[program_name(c.name)])

# python3.12 is python, perl5.36 is perl (string builtins: no regular expression on every call)
program_name(name) := trimmed if {
	trimmed := trim_right(name, "0123456789.")
	trimmed in {"python", "pypy", "perl", "ruby", "node", "php", "pip"}
} else := name

reader(c, spec) if {
	not spec.if
	not writes_by_option(c, object.get(spec, "unless", []))
}

# A reader only with one of these words (python -c: the code is judged as code; python -m json.tool).
reader(c, spec) if {
	some w in spec.if
	w in c.argv
	not writes_by_option(c, object.get(spec, "unless", []))
}

writes_by_option(c, options) if {
	some a in c.argv
	some o in options
	option_is(a, o)
}

option_is(a, o) if a == o

option_is(a, o) if startswith(a, concat("", [o, "="]))

# -i.bak, -ni: a short option attached or bundled
option_is(a, o) if {
	count(o) == 2
	startswith(a, "-")
	not startswith(a, "--")
	contains(substring(a, 1, -1), substring(o, 1, 1))
}

# (hookgate.path_words: the operands and option values that may be paths, with a / or a leading
# ~ or dot, as shell.operands reads them, and the value of --option=VALUE, NAME=VALUE and -tDIR.)

# ---- what is protected ----------------------------------------------------------------------

# Absolute protected paths on this machine: {"path", "prefix" (path/ for a directory, else
# null), "what"}.
protected contains {"path": path, "prefix": concat("", [path, "/"]), "what": "hookgate's own configuration, state and cache"} if {
	some d in ["config", "state", "cache"]
	is_string(machine[d])
	path := lower(machine[d])
}

# The installed hookgate package every hook runs (not a source checkout: see hookgate.paths).
protected contains {"path": path, "prefix": concat("", [path, "/"]), "what": "hookgate's own program"} if {
	is_string(machine.program)
	path := lower(machine.program)
}

# What the hook really runs (hookgate.paths().runtime): its interpreter as named and resolved,
# pyvenv.cfg, ._pth files and every directory on its sys.path, hookgate's dependencies among them.
protected contains {"path": path, "prefix": concat("", [path, "/"]), "what": "the Python that runs hookgate, or its dependencies"} if {
	some p in machine.runtime
	path := lower(p)
}

protected contains {"path": path, "prefix": dir_prefix(path, spec.dir), "what": spec.what} if {
	some spec in host_file_specs
	dir := machine.hosts[spec.host]
	path := lower(concat("/", [dir, spec.file]))
}

protected contains {"path": spec.file, "prefix": dir_prefix(spec.file, spec.dir), "what": "the hosts' managed settings"} if {
	some spec in system_file_specs
}

# The data's file lists in the form matching needs (no input: computed once per policy set).
host_file_specs := [{"host": host, "file": lower(trim_suffix(f, "/")), "dir": endswith(f, "/"), "what": sprintf("%s's hook settings", [spec.name])} |
	some host, spec in cfg.host_files
	some f in spec.files
]

system_file_specs := [{"file": lower(trim_suffix(f, "/")), "dir": endswith(f, "/")} | some f in cfg.system_files]

dir_prefix(path, true) := concat("", [path, "/"])

dir_prefix(_, false) := null

# The protected set and the data's path tables in one object: computed once per policy set and
# environment (it reads no input), so hookgate.protected_hits compiles its lookup tables once
# (an array: a set of objects cannot be handed to a builtin of every Rego engine).
# Paths are compared lower-cased (protected ones are stored so): the file systems of macOS and
# Windows ignore case by default, so .Claude/Settings.json is the hook settings file there. The
# "anywhere" paths (another repository's .git/hooks, a project's host settings) are matched in
# any directory.
index := {"protected": [p | some p in protected], "anywhere": cfg.anywhere, "environment": cfg.environment_files}

# What the paths the call changes or names touch, each path as written and as the disk resolves
# it now (hookgate.on_disk: the links of its deepest existing ancestor followed): a write
# through a link into a protected directory writes the protected path. Deleting or moving a
# parent takes the protected path with it (tree); naming the directory that holds a protected
# file, as a destination whose names the line does not show or as a word of a program that is
# not a known reader, counts too (holder).
# (Most calls change or name no path: nothing to look at; most of the others name none: no
# entry built for the paths named.)
matches := hookgate.protected_hits(changed, index) if {
	count(changed) > 0
	count(named) == 0
} else := hookgate.protected_hits(entries, index) if {
	count(named) > 0
	entries := array.concat(changed, [{"path": x.path, "real": hookgate.on_disk(x.path), "how": x.how, "holder": true, "tag": "named"} | some x in named])
} else := []

hits contains h if {
	some h in matches
	h.kind == "protected"
	h.tag == "changed"
}

# One reason per path and way of changing it (chmod and cp of one file are two reasons).
violations contains {"reason": msg, "pattern": "self-protect"} if {
	some change in hits # (a rule, not a comprehension, first: nothing is built for most calls)
	what := concat("; ", sort({h.what | some h in hits; h.path == change.path}))
	msg := sprintf("%s %s, which holds %s. An agent must not change the guard that checks it, or the hooks and settings that run it: if this change is really needed, ask the user to make it themselves.", [change.how, change.path, what])
}

deny contains r if {
	some r in violations # first: most calls have none, and skip the rule without running it
	cfg.action == "deny"
}

ask contains r if {
	some r in violations # first: most calls have none, and skip the rule without running it
	cfg.action == "ask"
}

# Not a known reader, not a known writer: asked, not denied (reading is the common case, and
# the readers table may lack a program that only reads).
unknown contains {"reason": msg, "pattern": "self-protect-unknown-writer"} if {
	some change in matches
	change.kind == "protected"
	change.tag == "named"
	not change.path in {h.path | some h in hits}
	what := concat("; ", sort({h.what | some h in matches; h.kind == "protected"; h.tag == "named"; h.path == change.path}))
	msg := sprintf("%s %s, which holds %s, and is not a program known only to read files (self_protect.readers): it may change it. An agent must not change the guard that checks it, or the hooks and settings that run it: if this only reads it, the user can allow it.", [change.how, change.path, what])
}

ask contains r if {
	some r in unknown # first: most calls have none, and skip the rule without running it
	cfg.unknown_action == "ask"
}

deny contains r if {
	some r in unknown # first: most calls have none, and skip the rule without running it
	cfg.unknown_action == "deny"
}

# ---- hookgate's environment set in shell start-up, .env, direnv and mise files ----------------
# The file as a whole is the user's; a line in it that sets or unsets a variable the hook's
# process honours (HOOKGATE_HOME, XDG_*, PYTHONPATH, LD_PRELOAD, CLAUDE_CONFIG_DIR, …) moves
# hookgate's configuration, or what the hook runs, in the next session. Judged by the text the
# call writes where it shows it (a file tool's content, an edit's old and new text, the line).

sets_variable(text) if regex.match(cfg.environment_files.variables, text)

# The environment files a file tool writes or edits (by the path the tool names, "of"), and
# those the line changes or names (hookgate.protected_hits' "environment" kind).
violations contains env_violation(h) if {
	some h in matches
	h.kind == "environment"
	h.tag == "changed"
	some e in input.effects
	e.path == h.of
	e.kind in {"write", "edit"}
	some field in ["content", "old_text", "new_text"]
	sets_variable(object.get(e, field, ""))
}

violations contains env_violation(h) if {
	some h in matches
	h.kind == "environment"
	sets_variable(line_text)
}

line_text := concat("\n", [t |
	some t in [object.get(input.tool_input, "command", ""), concat("\n", [r.command | some r in input.effects; r.kind == "run"; is_string(r.command)])]
	is_string(t)
])

env_violation(change) := {"reason": msg, "pattern": "self-protect-environment"} if {
	msg := sprintf("%s %s with a line that sets a variable hookgate's hook reads (self_protect.environment_files.variables): that would move hookgate's configuration or change what the hook runs in the next session. Ask the user to make this change themselves.", [change.how, change.path])
}

# ---- signalling hookgate's processes ----------------------------------------------------------
# kill, pkill, killall of the hook or its warm process: by a name or pattern that matches them
# (hookgate.paths().processes: their names and command lines), by every process of the user, or
# by a pid read from hookgate's own files.

signal_lines contains c if {
	pre
	some c in data.hookgate.lib.commands
	c.name in cfg.signals.commands
}

# pkill/pgrep PATTERN: an extended regular expression searched in the process name, or with -f
# in the whole command line; -x anchors it, -i ignores case.
kills contains {"cmd": c, "why": sprintf("its pattern %q matches hookgate's processes", [p])} if {
	some c in signal_lines
	c.name in {"pkill", "pgrep", "skill"}
	some p in signal_patterns(c, cfg.signals.pkill_value_options)
	some target in process_targets(c)
	pattern_matches(c, p, target)
}

# killall NAME: the process name exactly (-r: a regular expression).
kills contains {"cmd": c, "why": sprintf("the name %q is a name of hookgate's processes", [p])} if {
	some c in signal_lines
	c.name == "killall"
	some p in signal_patterns(c, cfg.signals.killall_value_options)
	some name in machine.processes.names
	killall_matches(c, p, name)
}

# pkill -u me, killall -u me, kill -1: every process of the user, hookgate's among them.
kills contains {"cmd": c, "why": "it signals every process of a user, hookgate's among them"} if {
	some c in signal_lines
	c.name in {"pkill", "killall"}
	count(signal_patterns(c, cfg.signals.pkill_value_options)) == 0
	some a in c.argv
	a in {"-u", "-U", "--euid", "--uid", "--user"}
}

# kill -9 -1, kill -- -1 (a lone -1 first is a signal number: kill -1 PID is SIGHUP).
kills contains {"cmd": c, "why": "pid -1 is every process the user may signal, hookgate's among them"} if {
	some c in signal_lines
	c.name == "kill"
	some i, a in c.argv
	a == "-1"
	i >= 2
}

# A pid read from hookgate's files or found by its name: kill $(cat ~/.local/state/hookgate/…),
# pkill -F <hookgate's file>, cat …/hookgate/… | xargs kill, kill $(pgrep -f hookgate).
kills contains {"cmd": c, "why": sprintf("%q names hookgate", [w])} if {
	some c in signal_lines
	some w in array.slice(c.argv, 1, count(c.argv))
	regex.match(`(?i)hookgate`, w)
}

kills contains {"cmd": c, "why": sprintf("it reads its pids from %s, hookgate's own", [w])} if {
	some c in signal_lines
	some other in data.hookgate.lib.commands
	some w in array.slice(other.argv, 1, count(other.argv))
	names_hookgate_file(other, w)
}

kills contains {"cmd": c, "why": sprintf("its pids come from %q, which matches hookgate's processes", [concat(" ", finder.argv)])} if {
	some c in signal_lines
	c.name == "kill"
	some finder in data.hookgate.lib.commands
	finder.name in {"pgrep", "pidof"}
	some p in signal_patterns(finder, cfg.signals.pkill_value_options)
	some target in process_targets(finder)
	pattern_matches(finder, p, target)
}

names_hookgate_file(c, w) if {
	some d in ["config", "state", "cache"]
	is_string(machine[d])
	some v in hookgate.path_words([c.name, w])
	startswith(concat("", [lower(absolute(c, v)), "/"]), concat("", [lower(machine[d]), "/"]))
}

signal_patterns(c, value_options) := [a |
	some i, a in c.argv
	i > 0
	not startswith(a, "-")
	not c.argv[i - 1] in value_options
]

process_targets(c) := machine.processes.cmdlines if full_line(c)

process_targets(c) := machine.processes.names if not full_line(c)

full_line(c) if {
	some a in c.argv
	option_is(a, "-f")
	not startswith(a, "--")
}

full_line(c) if "--full" in c.argv

pattern_matches(c, p, target) if {
	pattern := concat("", [ignore_case(c), anchored(c, p)])
	regex.is_valid(pattern)
	regex.match(pattern, target)
}

ignore_case(c) := "(?i)" if {
	some a in c.argv
	option_is(a, "-i")
	not startswith(a, "--")
} else := ""

anchored(c, p) := concat("", ["^(?:", p, ")$"]) if {
	some a in c.argv
	option_is(a, "-x")
	not startswith(a, "--")
} else := p

killall_matches(c, p, name) if {
	not "-r" in c.argv
	not "--regexp" in c.argv
	lower(p) == lower(name)
}

killall_matches(c, p, name) if {
	some r in ["-r", "--regexp"]
	r in c.argv
	regex.is_valid(p)
	regex.match(p, name)
}

deny contains {"reason": msg, "pattern": "self-protect-signal"} if {
	"signal" in watched # most lines signal nothing: kills is not evaluated
	some k in kills
	msg := sprintf("`%s` would signal hookgate's own processes (the hook or its warm process): %s. An agent must not stop the guard that checks it; name the process you mean more exactly.", [concat(" ", k.cmd.argv), k.why])
}

# ---- package managers that change the environment the hook runs -------------------------------
# pip/uv/pipx/poetry/conda install, uninstall, upgrade… run with the hook's interpreter, in its
# environment (a bare pip when PATH or VIRTUAL_ENV makes it the hook's), or with a --target,
# --prefix or --python that names it.

package_commands contains c if {
	pre
	some c in data.hookgate.lib.commands
	program_name(c.name) in cfg.package_managers.programs
	some a in c.argv
	a in cfg.package_managers.verbs
}

package_commands contains c if {
	pre
	some c in data.hookgate.lib.commands
	program_name(c.name) == "python"
	some i, a in c.argv
	a in {"-m", "-mpip"}
	some b in c.argv
	b in cfg.package_managers.verbs
	pip_module(c.argv, i, a)
}

# Which of the sections above a line needs, by one lookup per command of its name without a
# version (pip3, python3.12): the rules of a section are evaluated only for a line that needs it.
watched contains kind if {
	pre
	some c in data.hookgate.lib.commands
	kind := watched_names[trim_right(c.name, "0123456789.")]
}

watched_names := object.union({trim_right(p, "0123456789."): "package" | some p in array.concat(cfg.package_managers.programs, ["python"])}, {n: "signal" | some n in cfg.signals.commands})

pip_module(_, _, "-mpip") := true

pip_module(argv, i, "-m") if argv[i + 1] in {"pip", "ensurepip", "uv"}

# the command word itself is the hook's interpreter or a program of its environment
hook_environment(c) if {
	word := absolute(c, c.argv[0])
	some p in array.concat(machine.interpreters, [concat("", [machine.environment, "/"])])
	startswith(lower(word), lower(p))
}

hook_environment(c) if {
	machine.bare_tools
	not contains(c.argv[0], "/")
}

hook_environment(c) if {
	some i, a in c.argv
	some v in data.hookgate.lib.option_values(c.argv, i, a, cfg.package_managers.path_options)
	some h in hookgate.protected_hits([{"path": absolute(c, v), "holder": true}], index)
	h.what == "the Python that runs hookgate, or its dependencies"
}

hook_environment(c) if {
	some i, a in c.argv
	some v in data.hookgate.lib.option_values(c.argv, i, a, cfg.package_managers.path_options)
	is_string(machine.environment)
	lower(trim_suffix(absolute(c, v), "/")) == lower(machine.environment)
}

# pipx and uv tool manage hookgate's own environment by its name: pipx upgrade hookgate,
# pipx upgrade-all, uv tool upgrade --all.
hook_environment(c) if {
	c.name in {"pipx", "uv"}
	some a in c.argv
	regex.match(`^(?i)(hookgate([<>=!~\[].*)?|--all|[a-z]+-all)$`, a)
}

ask contains {"reason": msg, "pattern": "self-protect-environment"} if {
	"package" in watched # most lines run no package manager
	some c in package_commands
	not uninstalls(c) # asked once, as uninstalling
	hook_environment(c)
	msg := sprintf("`%s` would change the Python environment hookgate's hook runs in (its interpreter, hookgate or a dependency). Only the user decides that: ask them.", [concat(" ", c.argv)])
}

# ---- uninstalling hookgate --------------------------------------------------------------------

uninstalls(c) if {
	c.name == "hookgate"
	"uninstall" in c.argv
}

# pip/pip3/pipx/uv pip uninstall hookgate, python -m pip uninstall hookgate, poetry/uv remove.
uninstalls(c) if {
	some verb in {"uninstall", "remove"}
	verb in c.argv # one lookup: most commands stop here
	some i, a in c.argv
	a == verb
	some b in array.slice(c.argv, i + 1, count(c.argv))
	regex.match(`^(?i)hookgate([<>=!~\[ ].*)?$`, b)
}

uninstall contains {"reason": msg, "pattern": "self-protect-uninstall"} if {
	pre
	some c in data.hookgate.lib.commands
	some verb in ["uninstall", "remove"] # cheap test first: both ways of uninstalling need one
	verb in c.argv
	uninstalls(c)
	msg := "This command would uninstall hookgate, the guard that checks this agent's tool calls. Only the user decides that: ask them."
}

ask contains r if {
	some r in uninstall # first: most calls have none, and skip the rule without running it
	cfg.uninstall_action == "ask"
}

deny contains r if {
	some r in uninstall # first: most calls have none, and skip the rule without running it
	cfg.uninstall_action == "deny"
}
