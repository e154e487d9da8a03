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

# ---- what the call changes: {"path", "how", "tree"} ------------------------------------------
# tree: the change reaches everything under the path (deleting or moving a directory), so a
# parent of a protected file counts too. (An effect's tool and kind are strings: concat, the
# cheaper builtin, writes them as sprintf's %s would, for every file tool call.)

changed contains {"path": e.path, "how": concat(" ", [e.tool, "would", e.kind]), "tree": e.kind in {"delete", "move"}} if {
	pre
	some e in input.effects
	e.kind in {"write", "edit", "delete", "move"}
	is_string(e.path)
}

changed contains {"path": e.to, "how": concat(" ", [e.tool, "would move a file onto"]), "tree": false} if {
	pre
	some e in input.effects
	e.kind == "move"
	is_string(e.to)
}

# Redirections (> f, >> f, 2> f, exec 3> f): the shell opens the file for writing.
changed contains {"path": absolute(c, p), "how": "a redirection would write", "tree": false} if {
	pre
	some c in data.hookgate.lib.commands
	some p in c.writes
}

changed contains {"path": absolute(c, p), "how": "a redirection would write", "tree": false} if {
	pre
	some c in data.hookgate.lib.commands
	some p in c.appends
}

# rm, mv, cp, ln, chmod, truncate, tee, sed -i, dd of=…: the paths the command changes (each
# with whether the change takes the whole tree under it: rm -r, mv and chmod -R do).
changed contains {"path": absolute(c, t.path), "how": sprintf("`%s` would change", [c.name]), "tree": t.tree} if {
	pre
	some c in data.hookgate.lib.commands
	which := cfg.commands[c.name]
	some t in targets(c, which)
}

# git rm deletes its paths from the work tree too (not with --cached).
changed contains {"path": absolute(r.cmd, r.path), "how": "`git rm` would delete", "tree": true} if {
	pre
	some r in data.hookgate.lib.git_removed
}

# Interpreter code that writes, deletes or moves files (lib.code_writes): every path its string
# literals name may be what it changes, with what is under it (os.path.join(".claude",
# "settings.json") names .claude). Code that only reads names paths freely.
changed contains {"path": absolute(x.cmd, p), "how": sprintf("this %s code, which writes or deletes files, would change", [x.cmd.name]), "tree": true} if {
	some x in data.hookgate.lib.interpreter_code
	data.hookgate.lib.code_writes(x.code)
	some p in data.hookgate.lib.code_literals(x.code)
	not regex.match(`^[~/.]*$`, p) # "/".join(…), "~", ".": no file of their own
}

# curl -o FILE, wget -O FILE, unzip -d DIR, tar -C DIR (self_protect.writing_options): the
# option's value is written (a directory: anything under it may be).
changed contains {"path": absolute(c, v), "how": sprintf("`%s` would write", [c.name]), "tree": spec.tree} if {
	pre
	some c in data.hookgate.lib.commands
	spec := cfg.writing_options[c.name]
	some i, a in c.argv
	some v in option_values(c.argv, i, a, spec.options)
}

option_values(argv, i, a, options) := array.concat(next_word(argv, i, a, options), [v |
	some o in options
	some v in attached(a, o)
])

# --output=FILE, -oFILE
attached(a, o) := [substring(a, count(o) + 1, -1)] if startswith(a, concat("", [o, "="]))

attached(a, o) := [substring(a, 2, -1)] if {
	count(o) == 2
	startswith(a, o)
	count(a) > 2
	not startswith(a, "--")
	not contains(a, "=")
}

next_word(argv, i, a, options) := [argv[i + 1]] if {
	takes_next(a, options)
	i + 1 < count(argv)
} else := []

takes_next(a, options) if a in options

# a bundle of short options ending with one that takes a value (curl -sSLo FILE)
takes_next(a, options) if {
	not startswith(a, "--")
	some o in options
	count(o) == 2
	regex.match(`^-[A-Za-z]+$`, a)
	endswith(a, substring(o, 1, 1))
}

targets(c, which) := [{"path": p, "tree": true} | some p in shell.operands(c)] if which == "all"

targets(c, which) := [{"path": p, "tree": false} | some p in shell.operands(c)] if which == "links"

targets(c, which) := [{"path": p, "tree": true} | some p in array.slice(ops, 1, count(ops))] if {
	which == "after_first"
	ops := shell.operands(c)
}

# cp/install/rsync SRC… DEST: DEST itself, and DEST/<name of each source> (DEST a directory).
targets(c, which) := into(shell.operands(c)) if which == "last"

# mv SRC… DEST: the sources go away with everything under them, and DEST is written.
targets(c, which) := array.concat([{"path": p, "tree": true} | some p in array.slice(ops, 0, count(ops) - 1)], into(ops)) if {
	which == "move"
	ops := shell.operands(c)
}

into(ops) := array.concat([{"path": dest, "tree": false}], [{"path": concat("/", [dest, base_name(s)]), "tree": false} | some s in array.slice(ops, 0, count(ops) - 1)]) if {
	count(ops) > 1
	dest := ops[count(ops) - 1]
}

targets(c, which) := [{"path": substring(a, 3, -1), "tree": false} | some a in c.argv; startswith(a, "of=")] if which == "of"

# sed -i, perl -i, ruby -i: edits its file operands in place (the script is no protected path).
targets(c, which) := [{"path": p, "tree": false} | some p in shell.operands(c)] if {
	which == "in_place"
	some a in c.argv
	regex.match(`^(-[a-zA-Z]*i.*|--in-place(=.*)?)$`, a)
}

base_name(p) := parts[count(parts) - 1] if parts := split(trim_suffix(p, "/"), "/")

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

# Paths are compared lower-cased (protected ones are stored so): the file systems of macOS and
# Windows ignore case by default, so .Claude/Settings.json is the hook settings file there.
folded contains {"path": x.path, "key": lower(x.path), "how": x.how, "tree": x.tree} if {
	some x in changed
}

hits contains {"path": x.path, "how": x.how, "what": p.what} if {
	some x in folded
	near_protected(x)
	some p in protected
	covers(x, p)
}

# Whether covers(x, p) can hold for some p, in three lookups, so that a call changing no
# protected path (most calls) never walks the protected list. The sets below do not depend on
# the call: they are computed once per policy set and environment, like `protected`.
near_protected(x) if x.key in protected_paths

near_protected(x) if strings.any_prefix_match(x.key, protected_prefixes)

near_protected(x) if {
	x.tree
	strings.any_prefix_match(protected_parents, slash(x.key))
}

protected_paths := {p.path | some p in protected}

protected_prefixes := {p.prefix | some p in protected; is_string(p.prefix)}

protected_parents := {concat("", [p.path, "/"]) | some p in protected}

# A path as a directory: with one trailing slash.
slash(path) := concat("", [trim_suffix(path, "/"), "/"])

covers(x, p) if x.key == p.path

covers(x, p) if {
	is_string(p.prefix)
	startswith(x.key, p.prefix)
}

# Deleting or moving a parent takes the protected path with it.
covers(x, p) if {
	x.tree
	startswith(concat("", [p.path, "/"]), slash(x.key))
}

# The same files in any directory: another repository's .git/hooks, a project's host settings.
# Every such pattern starts with a dot directory: other paths skip the matching altogether.
anywhere_patterns := [{"bare": bare, "tail": concat("", ["/", bare]), "middle": middle, "heads": heads, "what": what} |
	some pattern, what in cfg.anywhere
	bare := lower(trim_suffix(pattern, "/"))
	middle := {true: concat("", ["/", bare, "/"]), false: null}[endswith(pattern, "/")]
	parts := split(bare, "/")
	heads := [concat("/", array.slice(parts, 0, n)) | some n in numbers.range(1, count(parts) - 1); n < count(parts)]
]

hits contains {"path": x.path, "how": x.how, "what": a.what} if {
	some x in folded
	dotted(x)
	wrapped := concat("", ["/", x.key, "/"])
	some a in anywhere_patterns
	anywhere(x, wrapped, a)
}

dotted(x) if contains(x.key, "/.")

dotted(x) if startswith(x.key, ".")

# wrapped: the path between slashes, /path/.
anywhere(x, _, a) if x.key == a.bare

anywhere(x, _, a) if endswith(x.key, a.tail)

anywhere(_, wrapped, a) if {
	is_string(a.middle)
	contains(wrapped, a.middle)
}

# Deleting or moving .git, .claude, .github/… takes the protected file with it.
anywhere(x, _, a) if {
	x.tree
	some head in a.heads
	ends_with_part(trim_suffix(x.key, "/"), head)
}

ends_with_part(path, tail) if path == tail

ends_with_part(path, tail) if endswith(path, concat("", ["/", tail]))

# One reason per path and way of changing it (chmod and cp of one file are two reasons).
violations contains {"reason": msg, "pattern": "self-protect"} if {
	some change in {{"path": h.path, "how": h.how} | some h in hits}
	what := concat("; ", sort({h.what | some h in hits; h.path == change.path}))
	msg := sprintf("%s %s, which holds %s. An agent must not change the guard that checks it, or the hooks and settings that run it: if this change is really needed, ask the user to make it themselves.", [change.how, change.path, what])
}

deny contains r if {
	cfg.action == "deny"
	some r in violations
}

ask contains r if {
	cfg.action == "ask"
	some r in violations
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
	uninstalls(c)
	msg := "This command would uninstall hookgate, the guard that checks this agent's tool calls. Only the user decides that: ask them."
}

ask contains r if {
	cfg.uninstall_action == "ask"
	some r in uninstall
}

deny contains r if {
	cfg.uninstall_action == "deny"
	some r in uninstall
}
