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

# ---- the write model: every file a call changes, from every channel, in one shape -------------
# {"op", "path", "from", "content", "mode", "by"} and, for a directory written into whose
# entries the line does not name (unzip -d DIR, cp -r src/. DIR, code naming .claude), "tree":
# true (effects/model.py's FILE_OPS, documented in
# docs/reference/effects.md): op is write (content replaces the file), append, edit (changed in
# place: content is the new text where known), delete, move (path is where it arrives, from where
# it was; its source end is a delete of its own), copy, link (from is the link's target), mode
# (chmod's mode). path is absolute where the call's cwd is known (a ~ path is left for each guard
# to place), content null where the call does not show it, by the tool or command it comes from.
# Every guard on files (self-protect, the instruction-file scan, hook files, destructive) reads
# these, not the channels.
file_effects := array.concat(tool_file_effects, line_file_effects)

# What the call's commands write: the shell model's files and writing options, git's work tree
# changes, patches, interpreter code. Most lines write nothing (npm test, git push --force): one
# test of facts the analysis already has (line_writes) spares them the five rules.
default line_file_effects := []

line_file_effects := array.concat(array.concat(command_file_effects, git_file_effects), array.concat(code_file_effects, array.concat(patch_file_effects, code_delete_effects))) if {
	runs_commands # a file tool's call runs no command: [] without looking (lang/relevance.py)
	line_writes
}

# Whether a rule of line_file_effects (or remote_file_effects) may have a member: a command with
# files of the shell model's (of this machine or another), a program whose options, operands or
# input write (writing_options, writing_directories, remote_names, content copiers, patch), an
# interpreter, a git command that changes the work tree. Each of those rules starts from one of
# these, so a line none of them holds for has none; a rule added to them must too, or add its
# own test here (tests/test_line_writes.py checks both on the corpora).
# (One definition with elses: a line that writes stops at the first test that holds.)
line_writes := true if {
	some c in commands
	some _ in object.get(c, "files", [])
} else := true if {
	count(command_names & line_writers) > 0
} else := true if {
	count(interpreter_commands) > 0
} else := true if {
	some g in git_commands
	g.git.subcommand in {"rm", "mv", "checkout", "restore", "apply", "am"}
} else := true if {
	some g in git_commands
	some _ in g.git.writes
}

line_writers := writing_programs | {"patch"}

tool_file_effects := array.concat([{"op": op, "path": e.path, "from": null, "content": object.get(e, "content", object.get(e, "new_text", null)), "mode": null, "by": object.get(e, "tool", "the call")} |
	some e in object.get(input, "effects", [])
	op := file_ops[e.kind]
	is_string(e.path)
], move_targets)

# The write effects' op of each file effect kind of input.effects (a move's source is deleted).
file_ops := {"write": "write", "edit": "edit", "delete": "delete", "move": "delete"}

# A move is a delete of its source (above) and a move onto its target, with what a patch adds.
move_targets := [file_effect("move", e.to, e.path, object.get(e, "content", null), object.get(e, "tool", "the call")) |
	some e in object.get(input, "effects", [])
	e.kind == "move"
	is_string(e.to)
]

file_effect(op, path, from, content, by) := {"op": op, "path": path, "from": from, "content": content, "mode": null, "by": by}

# What the shell model (shell/files.py) and the PowerShell reading record for each command: its
# paths are relative to the payload's cwd (a cd, pushd or Set-Location before it is in them).
# (A file tool's call runs no command: its commands are not worked out for nothing.)
default command_file_effects := []

command_file_effects := array.concat([object.union(f, {"path": shell.resolve(cwd, f.path), "from": placed(f.from), "by": c.name}) |
	some c in commands
	some f in object.get(c, "files", [])
	not f.machine
], option_file_effects) if runs_commands

# A file of another machine ("machine": "remote": ssh host cmd, kubectl exec, launchers.txt's
# [remote-runners]) or of a container that no bind mount maps here ("container"): its path as
# that machine names it (never placed against this cwd), in no guard's file_effects (a remote
# .claude or .git/hooks is not this project's). Destructive judges the remote deletes on their own.
default remote_file_effects := []

remote_file_effects := [object.union(f, {"by": c.name}) |
	some c in commands
	some f in object.get(c, "files", [])
	f.machine == "remote"
] if {
	runs_commands
	line_writes # most lines write nothing
}

# A shell tool's call, or any call with a run effect (an MCP tool's command, a Codex argument
# vector). (One definition with an else: a shell call, most of those that run commands, is not
# asked for its effects too.)
runs_commands := true if {
	input.tool_kind == "shell"
} else := true if {
	some e in object.get(input, "effects", [])
	e.kind == "run"
}

# The programs the line runs: a rule whose effects need one program's parse asks for its name
# here, once, rather than once per command of the line (a complete rule's body with a solution
# per command would work its value out again for each).
command_names contains c.name if {
	runs_commands
	some c in commands
}

# The commands whose write effects the shell model reads (shell/files.py: FILE_COMMANDS and the
# copies, moves, links and stdin writers it models); tests/test_write_matrix.py keeps the two equal.
file_writers := {"rm", "unlink", "shred", "rmdir", "truncate", "chmod", "chown", "chgrp", "chattr", "setfacl", "touch", "mkdir", "mkfifo", "mknod", "sed", "perl", "ruby", "cp", "mv", "ln", "link", "install", "rsync", "tee", "dd", "sponge", "find", "tar", "gtar", "bsdtar", "rimraf", "del", "del-cli", "premove", "rmrf"}

# The commands whose write makes a directory or a special file, which holds no text (shell/files.py:
# FILE_COMMANDS' "create" and "node"; tests/test_write_matrix.py keeps the two equal).
contentless_writers := {"mkdir", "mkfifo", "mknod"}

placed(p) := shell.resolve(cwd, p) if is_string(p)

placed(p) := null if not is_string(p)

# git rm, git mv, git checkout/restore of paths: what they do to the work tree; and the file
# an output option writes (git diff --output=F, git archive -o F: the parse's writes).
# (git's parse, only for a line that runs git.)
default git_file_effects := []

git_file_effects := array.concat([x |
	some g in git_commands
	not g.cmd.machine # another machine's work tree (ssh host git …): not this one's
	g.git.subcommand in {"rm", "mv", "checkout", "restore"}
	some x in git_effects(g.git)
], [file_effect("write", work_path(g.git, p), null, null, concat(" ", ["git", g.git.subcommand])) |
	some g in git_commands
	not g.cmd.machine
	some p in g.git.writes
]) if "git" in command_names

git_effects(g) := [file_effect("delete", work_path(g, p), null, null, "git rm") | some p in g.operands] if {
	g.subcommand == "rm"
	not "--cached" in g.args
}

git_effects(g) := array.concat([file_effect("delete", work_path(g, p), null, null, "git mv") | some p in sources], [file_effect("move", work_path(g, t), work_path(g, p), null, "git mv") |
	some p in sources
	some t in [dest, concat("/", [dest, base_name(p)])]
]) if {
	g.subcommand == "mv"
	count(g.operands) > 1
	dest := g.operands[count(g.operands) - 1]
	sources := array.slice(g.operands, 0, count(g.operands) - 1)
}

# A path as git reads it: from where the command runs, then its -C DIRs (the parse's dir): git -C
# web diff --output=../d.diff writes d.diff here, git -C .claude rm settings.json deletes
# .claude/settings.json.
work_path(g, p) := shell.resolve(cwd, shell.resolve(g.dir, p)) if {
	is_string(g.dir)
} else := shell.resolve(cwd, p)

# git checkout [tree] -- paths, git restore paths: the files are written from the index or tree,
# from the repository's own copy of each (from: the path itself).
git_effects(g) := [file_effect("write", work_path(g, p), work_path(g, p), null, concat(" ", ["git", g.subcommand])) | some p in restored(g)] if g.subcommand in {"checkout", "restore"}

restored(g) := array.slice(g.args, i + 1, count(g.args)) if {
	g.subcommand == "checkout"
	some i, a in g.args
	a == "--"
}

restored(g) := g.operands if g.subcommand == "restore"

git_path(c, p) := shell.resolve(cwd, shell.resolve(c.cwd, p)) if is_string(c.cwd)

git_path(c, p) := shell.resolve(cwd, p) if not is_string(c.cwd)

base_name(p) := parts[count(parts) - 1] if parts := split(trim_suffix(p, "/"), "/")

# patch, git apply and git am of a patch file the line names but does not show (git apply
# fix.patch, patch -p1 -i fix.patch, git apply < fix.patch, cat fix.patch | git apply): what the
# file holds on the disk now, bounded (hookgate.patch_effects, as the shell model reads a diff
# given in the line). A patch file the line does not place (~/x.patch, $P) is not read.
default patch_file_effects := []

patch_file_effects := [file_effect(x.op, git_path(p.cmd, x.path), null, x.content, p.by) |
	some p in patch_commands
	not is_string(p.cmd.stdin) # a diff in the line: the shell model's (command_file_effects)
	some f in patch_files(p)
	some x in hookgate.patch_effects(f)
] if count(command_names & {"patch", "git"}) > 0

patch_commands contains {"cmd": c, "by": "patch"} if {
	some c in commands
	not c.machine
	c.name == "patch"
	not "--dry-run" in c.argv
}

patch_commands contains {"cmd": g.cmd, "by": concat(" ", ["git", g.git.subcommand])} if {
	some g in git_commands
	not g.cmd.machine
	g.git.subcommand in {"apply", "am"}
	not only_reports(g.cmd.argv)
}

# git apply --check, --stat, --numstat, --summary: reports on the patch, applies nothing
# (unless --apply is given too).
only_reports(argv) if {
	some a in argv
	a in {"--check", "--stat", "--numstat", "--summary"}
	not "--apply" in argv
}

patch_files(p) := array.concat([shell.resolve(cwd, p.cmd.stdin_file) | is_string(p.cmd.stdin_file)], [git_path(p.cmd, f) |
	some f in shell.operands(p.cmd)
	not f in {"apply", "am"}
])

# Interpreter code that writes files (python3 -c "open('.husky/pre-commit', 'w').write('exit
# 0')", lib.code_writes): each literal that names a file may be what it writes, and what it
# writes there is among its other literals (mode strings such as 'w' and 'a' aside), their \n
# escapes as new lines, as lib.interpreter_shell_lines reads a script the code writes.
default code_file_effects := []

code_file_effects := [e |
	some x in interpreter_code
	not x.cmd.machine
	code_writes(x.code)
	literals := code_literals(x.code)
	some file in literals
	not regex.match(`^[~/.]*$`, file) # "/".join(…), "~", ".": no file of their own
	texts := [replace(l, `\n`, "\n") |
		some l in literals
		l != file
		not regex.match(`^[A-Za-z_][\w.+]*$`, l) # a mode ('w'), a module ('fs'), a name
	]
	some content in code_contents(x.code, texts)
	some e in code_effects(git_path(x.cmd, file), content, x.cmd.name, regex.match(`^[\w.~/-]*[./][\w.~/-]*$`, file))
] if {
	runs_commands
	count(interpreter_commands) > 0 # most lines run no interpreter
}

# Each literal may be a directory the code writes into (os.path.join(".claude", "settings.json")
# names .claude; cd .git && python3 -c "…join('hooks', 'pre-commit')…" names hooks): a tree; one
# that looks like a file's path (a dot or a slash) may be the file itself.
code_effects(path, content, by, true) := [file_effect("write", path, null, content, by), code_tree(path, content, by)]

code_effects(path, content, by, false) := [code_tree(path, content, by)]

code_tree(path, content, by) := object.union(file_effect("write", path, null, content, by), {"tree": true})

# What the code may write: its other literals; and, when it also reads a file, stdin or the network
# (interpreters.read_patterns and fetch_patterns: shutil.copy('/tmp/x', 'CLAUDE.md'),
# open(p, 'w').write(urlopen(u).read())), text it does not show (null) besides.
code_contents(code, texts) := [code_text(texts), null] if {
	regex.match(concat("|", array.concat(config.interpreters.read_patterns, config.interpreters.fetch_patterns)), code)
} else := [code_text(texts)]

# No literal left: what the code writes comes from elsewhere (sys.stdin.read()), not shown.
code_text(texts) := concat("\n", texts) if count(texts) > 0

code_text(texts) := null if count(texts) == 0

# ---- deletes that interpreter code makes (destructive's block, issue 32) ----------------------
# shutil.rmtree(x), fs.rmSync(x, {recursive}), FileUtils.rm_rf x, remove_tree(x)
# (destructive.code_delete_patterns: group 1 is the target expression): a delete of the whole
# tree ("tree": true, "how": "code"), at the string literal's path, or at "$(EXPR)" for any other
# expression, a path computed when the code runs (lib.normalized_code reads the home directory's
# spellings as "~").
default code_delete_effects := []

code_delete_effects := [object.union(file_effect("delete", code_path(x.cmd, trim_space(m[1])), null, null, x.cmd.name), {"tree": true, "how": "code"}) |
	some x in interpreter_code
	some pattern in config.destructive.code_delete_patterns
	some m in regex.find_all_string_submatch_n(pattern, x.code, -1)
] if {
	runs_commands
	count(interpreter_commands) > 0 # most lines run no interpreter
}

code_path(c, arg) := git_path(c, m[1]) if {
	some m in regex.find_all_string_submatch_n(`^[rbfuRBFU]?["'\x60]([^"'\x60]*)["'\x60]$`, arg, 1)
} else := concat("", ["$(", arg, ")"])

# ---- writes an option names, and directories written into --------------------------------------
# curl -o FILE, wget -O FILE, sort -o FILE write the option's value (shell.writing_options; with
# "tree", unzip -d DIR and tar -C DIR, a directory anything under which may be written); curl
# --output-dir DIR and wget -P DIR write into the directory the option names
# (shell.writing_directories). What they write there the line does not show: content null.
# (The tables were self_protect.writing_options and .writing_directories: a layer that still
# sets those keys adds to these.)
writing_options := object.union(config.shell.writing_options, object.get(config.self_protect, "writing_options", {}))

writing_directories := object.union(config.shell.writing_directories, object.get(config.self_protect, "writing_directories", {}))

default option_file_effects := []

option_file_effects := array.concat(array.concat(value_effects, directory_effects), array.concat(contents_effects, remote_name_effects)) if {
	runs_commands # a file tool's call runs no command: [] without looking (lang/relevance.py)
	count(command_names & writing_programs) > 0 # most lines run none of them
}

writing_programs := {n | some n, _ in writing_options} | {n | some n, _ in writing_directories} | {n | some n, _ in config.shell.remote_names} | content_copiers

value_effects := [tree_effect(git_path(c, v), null, c.name, object.get(spec, "tree", false)) |
	some c in commands
	not c.machine # run on another machine: its paths are not this one's
	spec := writing_options[c.name]
	writes_now(c.argv, object.get(spec, "when", []))
	some i, a in c.argv
	some v in option_values(c.argv, i, a, spec.options)
	v != "-" # curl -o -, wget -O -: standard output
]

directory_effects := [tree_effect(git_path(c, v), null, c.name, true) |
	some c in commands
	not c.machine # run on another machine: its paths are not this one's
	options := writing_directories[c.name]
	some i, a in c.argv
	some v in option_values(c.argv, i, a, options)
]

# curl -O URL, wget URL (shell.remote_names): the file is named for the URL's last part, in the
# directory the command's writing_directories option names (curl --output-dir, wget -P) or the
# cwd: `cd .git/hooks && curl -fsSLO https://x/pre-commit` writes .git/hooks/pre-commit. "when":
# only with one of these options; "unless": not with one (wget -O names the file itself).
remote_name_effects := [file_effect("write", git_path(c, concat("/", [dir, url_file(url)])), null, null, c.name) |
	some c in commands
	not c.machine # run on another machine: its paths are not this one's
	spec := config.shell.remote_names[c.name]
	writes_now(c.argv, object.get(spec, "when", []))
	not named_option(c.argv, object.get(spec, "unless", []))
	dir := remote_directory(c)
	some url in array.slice(c.argv, 1, count(c.argv))
	regex.match(`^(?i)(https?|ftps?)://[^?#]*/[^/?#]+`, url)
]

remote_directory(c) := dirs[count(dirs) - 1] if {
	dirs := [v |
		some i, a in c.argv
		some v in option_values(c.argv, i, a, object.get(writing_directories, c.name, []))
	]
	count(dirs) > 0
} else := "."

url_file(url) := parts[count(parts) - 1] if parts := split(split(split(url, "?")[0], "#")[0], "/")

named_option(argv, options) if {
	some a in array.slice(argv, 1, count(argv))
	some o in options
	option_named(a, o)
}

# "when": the option writes only with one of these options (tar -C reads the files it archives
# with -c from DIR; with -x, --extract or --get it writes into DIR): given alone, in a bundle
# (-xzf), or as tar's first word without a dash (tar xzf a.tgz).
writes_now(_, []) := true

writes_now(argv, when) if {
	count(when) > 0
	named_option(argv, when)
}

writes_now(argv, when) if {
	count(argv) > 1
	regex.match(`^[A-Za-z]+$`, argv[1])
	some o in when
	count(o) == 2
	contains(argv[1], substring(o, 1, 1))
}

# The option given alone, with =VALUE, or in a bundle of short options up to it (-xzf, -qO-).
option_named(a, o) if a == o

option_named(a, o) if startswith(a, concat("", [o, "="]))

option_named(a, o) if {
	count(o) == 2
	regex.match(concat("", [`^-[A-Za-z]*`, substring(o, 1, 1)]), a)
}

tree_effect(path, from, by, true) := {"op": "write", "path": path, "from": from, "content": null, "mode": null, "by": by, "tree": true}

tree_effect(path, from, by, false) := file_effect("write", path, from, null, by)

# cp -r src/. DEST, cp -rT src DEST, rsync -a src/ DEST: a directory's contents, whose names the
# line does not show, go into DEST: a copy onto the tree DEST from src (the shell model's copy of
# src onto DEST names DEST alone).
content_copiers := {"cp", "install", "rsync", "mv"}

contents_effects := [object.union(file_effect("copy", git_path(c, dest), copy_source(c, trim_suffix(trim_suffix(src, "."), "/")), null, c.name), {"tree": true}) |
	some c in commands
	not c.machine # run on another machine: its paths are not this one's
	content_copiers[c.name]
	ops := shell.operands(c)
	count(ops) > 1
	dest := ops[count(ops) - 1]
	not remote_destination(c, dest) # rsync's host:path: another machine's (the shell model's)
	some src in array.slice(ops, 0, count(ops) - 1)
	copies_contents(c, src)
]

# rsync's host:path source: another machine's file, no path here (from null, as the shell model).
copy_source(c, src) := null if remote_destination(c, src)

copy_source(c, src) := git_path(c, src) if not remote_destination(c, src)

# host:path, user@host:path, rsync://host/path (shell/reach.py's remote: a / before the colon
# is a local path).
remote_destination(c, dest) if {
	c.name == "rsync"
	regex.match(`^[^/:]*:`, dest)
}

copies_contents(_, src) if endswith(src, "/.")

copies_contents(c, src) if {
	c.name == "rsync"
	endswith(src, "/")
}

# cp/mv/install -T (--no-target-directory): DEST is the copy of the directory itself (rsync's
# -T is --temp-dir).
copies_contents(c, _) if {
	c.name != "rsync"
	some a in c.argv
	no_target_directory(a)
}

no_target_directory(a) if a == "--no-target-directory"

no_target_directory(a) if {
	startswith(a, "-")
	not startswith(a, "--")
	contains(a, "T")
}

# An option's values in argv at i: -o FILE, --output FILE, --output=FILE, -oFILE and a bundle of
# short options ending with one that takes a value (curl -sSLo FILE).
option_values(argv, i, a, options) := array.concat(next_word(argv, i, a, options), [v |
	some o in options
	some v in attached(a, o)
])

attached(a, o) := [substring(a, count(o) + 1, -1)] if startswith(a, concat("", [o, "="]))

# -oFILE, and a bundle whose option takes the rest as its value (curl -sSLoFILE)
attached(a, o) := [m[0][1]] if {
	count(o) == 2
	startswith(a, "-")
	not startswith(a, "--")
	not contains(a, "=")
	m := regex.find_all_string_submatch_n(concat("", [`^-[A-Za-z]*?`, substring(o, 1, 1), `(.+)$`]), a, 1)
	count(m) == 1
}

next_word(argv, i, a, options) := [argv[i + 1]] if {
	takes_next(a, options)
	i + 1 < count(argv)
} else := []

takes_next(a, options) if a in options

takes_next(a, options) if {
	not startswith(a, "--")
	some o in options
	count(o) == 2
	regex.match(`^-[A-Za-z]+$`, a)
	endswith(a, substring(o, 1, 1))
}
