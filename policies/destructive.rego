# METADATA
# title: destructive
# description: Deny commands that destroy data outside the project or discard uncommitted work.
package hookgate.destructive

import rego.v1

cfg := data.hookgate.config.destructive

deny contains r if {
	cfg.action == "deny"
	some r in violations
}

ask contains r if {
	cfg.action == "ask"
	some r in violations
}

remote(c) if "ssh" in c.via

# The project directory a command's relative paths are judged against (unknown over ssh).
project(c) := data.hookgate.lib.cwd if not remote(c)

project(c) := null if remote(c)

# The directory a command runs in: the payload's cwd with the line's cd/env -C applied.
base(c) := shell.resolve(project(c), expand_home(c, c.cwd)) if is_string(c.cwd)

base(c) := project(c) if not is_string(c.cwd)

tmpdir_reassigned if {
	some c in data.hookgate.lib.commands
	"TMPDIR" in object.keys(c.env)
}

tmpdir_reassigned if {
	some c in data.hookgate.lib.commands
	c.name in {"export", "declare", "typeset", "readonly", "local", "env", "set"}
	some a in c.argv
	startswith(a, "TMPDIR=")
}

temp_dirs contains d if some d in cfg.temp_dirs

temp_dirs contains d if {
	not tmpdir_reassigned
	some d in {"$TMPDIR", "${TMPDIR}"}
}

# A path (already resolved) that a recursive delete may touch: never the project itself or a
# parent of it; strictly inside the project (unless the "project" is the home or a top-level
# directory) or inside a temp directory; a relative path when the directory is unknown.
safe_path(path, proj) if {
	not climbs(path)
	not covers_project(path, proj)
	within_allowed(path, proj)
}

covers_project(path, proj) if path == proj

covers_project(path, proj) if parent_of(path, proj)

within_allowed(path, proj) if {
	is_string(proj)
	not broad(proj)
	startswith(path, concat("", [proj, "/"]))
	path != concat("", [proj, "/*"])
}

within_allowed(path, _) if {
	some d in temp_dirs
	startswith(path, concat("", [d, "/"]))
}

within_allowed(path, proj) if {
	not is_string(proj)
	not substring(path, 0, 1) in {"/", "~", "$"}
}

# A working directory too broad to count as a project: /, a top-level directory, the home.
# (String functions rather than regexes throughout: this runs for every rm -rf.)
broad(proj) if {
	startswith(proj, "/")
	count(split(trim_suffix(proj, "/"), "/")) <= 2
}

broad(proj) if proj == home

# A ".." left after resolving: it climbs out of a directory hookgate cannot know ($TMPDIR/..).
climbs(path) if contains(concat("", ["/", path, "/"]), "/../")

parent_of(path, proj) if {
	is_string(proj)
	startswith(proj, concat("", [trim_suffix(path, "/"), "/"]))
}

# What an unsafe path is, for the reason text.
place(path, proj) := "the project directory itself" if {
	path == proj
} else := "a parent of the project directory" if {
	parent_of(path, proj)
} else := "a whole temp directory" if {
	path in temp_dirs
} else := "inside the home or a top-level directory, too broad to be a project" if {
	is_string(proj)
	broad(proj)
	startswith(path, concat("", [proj, "/"]))
} else := "outside the project directory and the temp directories"

# The user's home, when the payload's cwd shows it (/home/<user>/…, /Users/<user>/…, /root/…).
home := concat("/", ["", parts[1], parts[2]]) if {
	parts := cwd_parts
	parts[1] in {"home", "Users"}
	count(parts) > 2
	parts[2] != ""
}

home := "/root" if cwd_parts[1] == "root"

cwd_parts := split(data.hookgate.lib.cwd, "/") if startswith(data.hookgate.lib.cwd, "/")

# ~/x, $HOME/x and ${HOME}/x under the known home; as written when the home is unknown
# (an unknown home is never a safe place to delete from) or the command runs over ssh.
expand_home(c, path) := concat("", [home, substring(path, count(prefix), -1)]) if {
	some prefix in ["~", "$HOME", "${HOME}"]
	begins_with_dir(path, prefix)
	is_string(home)
	not remote(c)
} else := path

# $PWD/x and ${PWD}/x under the directory the command runs in.
expand_pwd(c, path) := concat("", [base(c), substring(path, count(prefix), -1)]) if {
	some prefix in ["$PWD", "${PWD}"]
	begins_with_dir(path, prefix)
	is_string(base(c))
} else := path

# path is dir itself or below it.
begins_with_dir(path, dir) if path == dir

begins_with_dir(path, dir) if startswith(path, concat("", [dir, "/"]))

unsafe_target(c, target) := paths[0] if {
	paths := [path |
		some alternative in defaults(target)
		path := resolved(c, alternative)
		not safe_path(path, project(c))
	]
	count(paths) > 0
}

# What a target may be: ${V:-WORD}/x (or ${V-WORD}/x) with V not set by the line is $V/x when
# the environment sets V, else WORD/x (${TMPDIR:-/tmp}/build): both must be safe.
defaults(t) := [concat("", ["${", name, "}", rest]), concat("", [word, rest])] if {
	startswith(t, "${")
	end := indexof(t, "}")
	inner := substring(t, 2, end - 2)
	dash := indexof(inner, "-")
	dash > 0
	name := trim_suffix(substring(inner, 0, dash), ":")
	regex.match(`^[A-Za-z_][A-Za-z0-9_]*$`, name)
	word := substring(inner, dash + 1, -1)
	not contains(word, "$")
	not contains(word, "{")
	rest := substring(t, end + 1, -1)
} else := [t]

# A target as the command's shell would resolve it: ~, $HOME and $PWD expanded, against its cwd.
resolved(c, target) := shell.resolve(base(c), expand_pwd(c, expand_home(c, target)))

recursive(c) if {
	some f in {"-r", "-R", "--recursive"}
	shell.has_flag(c, f)
}

forced(c) if {
	some f in {"-f", "--force"}
	shell.has_flag(c, f)
}

# What an rm deletes: its operands, or for an rm fed by find/xargs/parallel ({} or no
# operands) the paths the line gives those (echo/printf arguments, find roots, ::: lists).
rm_targets(c) := ts if {
	ts := {t | some t in shell.operands(c); t != "{}"}
	count(ts) > 0
}

rm_targets(c) := fed_paths if {
	count({t | some t in shell.operands(c); t != "{}"}) == 0
	count(c.via) > 0
}

fed_paths contains p if {
	some c in data.hookgate.lib.commands
	c.name in {"echo", "printf"}
	some p in shell.operands(c)
}

fed_paths contains found_under(root) if {
	some c in data.hookgate.lib.commands
	some root in data.hookgate.lib.find_roots(c)
}

# What find hands on: the entries under a starting point (the point itself may be the project).
found_under(root) := concat("/", [root, "{}"])

fed_paths contains a if {
	some c in data.hookgate.lib.commands
	c.name == "parallel"
	some i, a in c.argv
	some j, sep in c.argv
	sep in {":::", "::::"}
	i > j
}

advice := "Delete only what you created inside the project (for example rm -rf ./build) or under /tmp; if it really has to go, ask the user to run it themselves."

# Found once for the rules below, which each look at every one: rm -r, and programs that only
# delete recursively (npx rimraf ~, del-cli; destructive.deleting_programs).
recursive_rms := [c |
	some c in data.hookgate.lib.commands
	deletes_recursively(c)
]

deletes_recursively(c) if {
	c.name == "rm"
	recursive(c)
}

deletes_recursively(c) if c.name in cfg.deleting_programs

# -f or not: an agent's shell has no terminal, so rm -r deletes without asking either way.
violations contains {"reason": msg, "pattern": rm_pattern(c)} if {
	some c in recursive_rms
	some t in rm_targets(c)
	path := unsafe_target(c, t)
	msg := sprintf("%s %s would delete %s (%s). %s", [rm_words(c), t, path, place(path, project(c)), advice])
}

# rm -rf fed by xargs with nothing on the line that shows what it reads (cat list | xargs rm -rf,
# xargs rm -rf < list): its targets are unknown, judged as an unknown $VAR is.
violations contains {"reason": msg, "pattern": rm_pattern(c)} if {
	some c in recursive_rms
	"xargs" in c.via
	count(rm_targets(c)) == 0
	msg := sprintf("%s through xargs deletes whatever paths it reads, which hookgate cannot see. %s", [rm_words(c), advice])
}

rm_pattern(c) := "rm-recursive-force" if {
	forced(c)
} else := "rm-recursive"

rm_words(c) := c.name if {
	c.name != "rm"
} else := "rm -rf" if {
	forced(c)
} else := "rm -r"

# Deleting a repository's .git throws away every commit not pushed, the stashes and the reflog
# (agents do it to "start over" with git init). Inside the project, so the rule above allows it.
violations contains {"reason": msg, "pattern": "git-history-destroy"} if {
	some c in recursive_rms
	some t in rm_targets(c)
	endswith(trim_suffix(t, "/"), ".git") # cheap test first: this looks at every rm -r
	endswith(concat("", ["/", trim_suffix(resolved(c, t), "/")]), "/.git")
	not unsafe_target(c, t)
	msg := sprintf("%s %s deletes the repository's history: %s", [rm_words(c), t, history_advice])
}

# find .git -delete (or any find that deletes, rooted at the repository's .git) does the same.
violations contains {"reason": msg, "pattern": "git-history-destroy"} if {
	some c in data.hookgate.lib.commands
	data.hookgate.lib.find_deletes(c)
	some t in data.hookgate.lib.find_roots(c)
	endswith(concat("", ["/", trim_suffix(resolved(c, t), "/")]), "/.git")
	not unsafe_target(c, found_under(t))
	msg := sprintf("find %s %s deletes the repository's history: %s", [t, find_action(c), history_advice])
}

# shutil.rmtree(".git") and the like (code_deletes) do the same.
violations contains {"reason": msg, "pattern": "git-history-destroy"} if {
	some [c, arg] in code_deletes
	t := code_literal(arg)
	endswith(concat("", ["/", trim_suffix(resolved(c, t), "/")]), "/.git")
	not unsafe_target(c, t)
	msg := sprintf("This %s code deletes %s, the repository's history: %s", [c.name, t, history_advice])
}

# How a find deletes: -delete, or the program its -exec runs.
find_action(c) := "-delete" if {
	"-delete" in c.argv
} else := "-exec rm"

history_advice := "commits not pushed, stashes and the reflog. Leave .git alone; if the repository really has to start over, ask the user."

# rsync --delete (--del, --delete-after, …) deletes whatever in the destination the source lacks:
# judged as rm -rf of the destination (into the project itself, it empties the project).
violations contains {"reason": msg, "pattern": "rsync-delete"} if {
	some c in data.hookgate.lib.commands
	c.name == "rsync"
	some a in c.argv
	startswith(a, "--del")
	ops := shell.operands(c)
	count(ops) > 1
	t := ops[count(ops) - 1]
	not remote_path(t)
	path := unsafe_target(c, t)
	msg := sprintf("rsync --delete into %s would delete files in %s (%s) that the source does not have. %s", [t, path, place(path, project(c)), advice])
}

# host:path and user@host:path (a / before the colon makes it a local path).
remote_path(t) if {
	parts := split(t, ":")
	count(parts) > 1
	not contains(parts[0], "/")
}

violations contains {"reason": msg, "pattern": "find-delete"} if {
	some c in data.hookgate.lib.commands
	data.hookgate.lib.find_deletes(c)
	some t in data.hookgate.lib.find_roots(c)
	unsafe_target(c, found_under(t))
	root := shell.resolve(base(c), expand_home(c, t))
	msg := sprintf("find %s %s would delete files under %s (%s). %s", [t, find_action(c), root, place(root, project(c)), advice])
}

# tar --remove-files deletes what it archives, directories and all: judged as rm -rf of its
# inputs (the operands other than the archive and option values; -C moves the later ones).
violations contains {"reason": msg, "pattern": "tar-remove-files"} if {
	some c in data.hookgate.lib.commands
	c.name in {"tar", "gtar", "bsdtar"}
	some a in c.argv
	startswith(a, "--rem")
	some t in tar_inputs(c)
	path := unsafe_target(c, t)
	msg := sprintf("tar --remove-files deletes %s after archiving it (%s). Archive without --remove-files, then delete only what is inside the project. %s", [path, place(path, project(c)), advice])
}

tar_inputs(c) := {tar_input(c, i, a) |
	some i, a in c.argv
	i > 0
	not startswith(a, "-")
	not tar_value(c, i)
	not old_style_bundle(c, i)
}

# A word that is an option's value: after -f/--file, -C, -T, … or a short bundle ending in f.
tar_value(c, i) if c.argv[i - 1] in {"-f", "--file", "-C", "--directory", "-T", "--files-from", "-X", "--exclude-from", "-g", "--listed-incremental", "-N", "--newer", "--exclude", "-b", "-H", "--format", "-I", "--use-compress-program", "--transform", "--xform", "-V", "--label", "--owner", "--group", "--mode", "--mtime", "-K", "--starting-file"}

tar_value(c, i) if {
	prev := c.argv[i - 1]
	regex.match(`^-[A-Za-z]*f$`, prev)
}

# tar cf x.tar dir: the first word is a bundle without a dash; its f takes the next word.
old_style_bundle(c, 1) if regex.match(`^[A-Za-z]+$`, c.argv[1])

tar_value(c, 2) if {
	old_style_bundle(c, 1)
	contains(c.argv[1], "f")
}

# An input under the directory the last -C before it names.
tar_input(c, i, a) := concat("/", [c.argv[j + 1], a]) if {
	not substring(a, 0, 1) in {"/", "~", "$"}
	js := [j | some j, o in c.argv; o in {"-C", "--directory"}; j < i - 1]
	count(js) > 0
	j := max(js)
} else := a

violations contains {"reason": msg, "pattern": "recursive-chmod"} if {
	some c in data.hookgate.lib.commands
	c.name in {"chmod", "chown", "chgrp"}
	recursive(c)
	ops := shell.operands(c)
	some t in array.slice(ops, 1, count(ops))
	path := unsafe_target(c, t)
	path != project(c) # changing the project's own permissions destroys nothing
	msg := sprintf("A recursive %s of %s (%s) can break the system or expose files. Change only the files you need, inside the project.", [c.name, path, place(path, project(c))])
}

# Code that deletes recursively (shutil.rmtree, fs.rmSync(…, {recursive}), FileUtils.rm_rf,
# remove_tree): judged by its target where the code shows it (a literal, or the home directory as
# lib.normalized_code reads it), else as an unknown target, which may be anything.
code_deletes contains [x.cmd, trim_space(m[1])] if {
	some x in data.hookgate.lib.interpreter_code
	some pattern in cfg.code_delete_patterns
	some m in regex.find_all_string_submatch_n(pattern, x.code, -1)
}

violations contains {"reason": msg, "pattern": "interpreter-delete"} if {
	some [c, arg] in code_deletes
	path := unsafe_target(c, code_literal(arg))
	msg := sprintf("This %s code deletes %s recursively (%s). %s", [c.name, path, place(path, project(c)), advice])
}

violations contains {"reason": msg, "pattern": "interpreter-delete"} if {
	some [c, arg] in code_deletes
	not code_literal(arg)
	msg := sprintf("This %s code deletes %s recursively, a path computed when it runs, which hookgate cannot check. %s", [c.name, arg, advice])
}

# The text of a string literal ("build", r'/tmp/x', `dist`), undefined for any other expression.
code_literal(arg) := m[1] if {
	some m in regex.find_all_string_submatch_n(`^[rbfuRBFU]?["'\x60]([^"'\x60]*)["'\x60]$`, arg, 1)
}

# A file of the user's home outside the project removed on its own (rm ~/.ssh/id_rsa, unlink
# ~/.bashrc): the same loss as shredding it. Elsewhere (rm -f /etc/foo.lock) and for a target the
# line does not show (rm "$OUT", everyday work) only recursive deletes are judged.
violations contains {"reason": msg, "pattern": "rm-outside-project"} if {
	some c in data.hookgate.lib.commands
	c.name in {"rm", "unlink"}
	not deletes_recursively(c)
	some t in shell.operands(c)
	not unknown_variable(t)
	path := unsafe_target(c, t)
	under_home(path)
	not startswith(path, concat("", [project(c), "/"])) # a session started in the home: its own files
	not disposable(path)
	msg := sprintf("%s %s would delete %s (%s). %s", [c.name, t, path, place(path, project(c)), advice])
}

# Under ~/.cache (destructive.disposable_home_dirs) or where hosts keep their working files.
disposable(path) if {
	some dir in array.concat(cfg.disposable_home_dirs, cfg.agent_data_dirs)
	startswith(path, concat("/", ["~", dir]))
}

# (apart: a payload whose cwd does not show the home leaves home undefined)
disposable(path) if {
	some dir in array.concat(cfg.disposable_home_dirs, cfg.agent_data_dirs)
	startswith(path, concat("/", [home, dir]))
}

under_home(path) if startswith(path, "~/")

under_home(path) if startswith(path, concat("", [home, "/"]))

# shred, truncate and tee (without -a) destroy a file's contents in place: judged by where the
# file is, as rm.
violations contains {"reason": msg, "pattern": "overwrite-file"} if {
	some c in data.hookgate.lib.commands
	c.name in {"shred", "truncate", "tee"}
	not appends(c)
	some t in shell.operands(c)
	path := unsafe_target(c, t)
	msg := sprintf("%s %s would destroy the contents of %s (%s). %s", [c.name, t, path, place(path, project(c)), write_advice])
}

# cp /dev/null f empties f, as > f does; so do install /dev/null f and ln -sf /dev/null f (f
# becomes a link to nothing).
violations contains {"reason": msg, "pattern": "overwrite-file"} if {
	some c in data.hookgate.lib.commands
	empties_with_dev_null(c)
	ops := shell.operands(c)
	ops[0] == "/dev/null"
	t := ops[count(ops) - 1]
	path := unsafe_target(c, t)
	msg := sprintf("%s /dev/null %s would empty %s (%s). %s", [c.name, t, path, place(path, project(c)), write_advice])
}

empties_with_dev_null(c) if c.name in {"cp", "install"}

empties_with_dev_null(c) if {
	c.name == "ln" # without -f, ln refuses to replace a file
	some f in {"-f", "--force"}
	shell.has_flag(c, f)
}

appends(c) if {
	c.name == "tee"
	some f in {"-a", "--append"}
	shell.has_flag(c, f)
}

# A redirection that empties a file (> f, >| f, &> f; appending with >> keeps it).
violations contains {"reason": msg, "pattern": "overwrite-file"} if {
	some c in data.hookgate.lib.commands
	some t in c.writes
	not stream(t)
	not unknown_variable(t)
	path := unsafe_target(c, t)
	msg := sprintf("The redirection > %s would empty %s (%s). %s", [t, path, place(path, project(c)), write_advice])
}

write_advice := "Write new files inside the project or under /tmp (append with >> or tee -a to keep what is there); if this file really has to be replaced, ask the user to do it."

stream(t) if t in {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"}

stream(t) if startswith(t, "/dev/fd/")

# "> $LOG": a variable set outside the line, as scripts name their logs (rm -rf $X is judged
# unsafe instead: deleting an unknown directory is worse than writing an unknown log).
unknown_variable(t) if {
	startswith(t, "$")
	not known_variable(t)
}

known_variable(t) if {
	some prefix in ["$HOME", "${HOME}", "$PWD", "${PWD}", "$TMPDIR", "${TMPDIR}"]
	begins_with_dir(t, prefix)
}

violations contains {"reason": msg, "pattern": "mkfs"} if {
	some c in data.hookgate.lib.commands
	formats_device(c.name)
	msg := sprintf("%s formats a device and erases everything on it. Never run it from an agent; ask the user.", [c.name])
}

formats_device(name) if startswith(name, "mkfs")

formats_device(name) if name in {"mke2fs", "mkswap", "wipefs"}

violations contains {"reason": msg, "pattern": "dd-to-device"} if {
	some c in data.hookgate.lib.commands
	c.name == "dd"
	some a in c.argv
	startswith(a, "of=/dev/")
	not a in {"of=/dev/null", "of=/dev/stdout", "of=/dev/stderr", "of=/dev/zero"}
	msg := "dd writing to a device overwrites it block by block (partitions and file systems included). Write to a regular file instead, or ask the user."
}

violations contains {"reason": msg, "pattern": "fork-bomb"} if {
	input.tool_kind == "shell"
	contains(input.tool_input.command, "()") # cheap checks first: the regexes below are not
	contains(input.tool_input.command, "&") # needed for ordinary commands
	squeezed := regex.replace(input.tool_input.command, `\s+`, "")
	some m in regex.find_all_string_submatch_n(`([A-Za-z_:.][A-Za-z0-9_:.]*)\(\)\{`, squeezed, -1)
	contains(squeezed, concat("", [m[1], "|", m[1], "&"]))
	msg := "This is a fork bomb: it spawns processes until the machine stops responding."
}

gits := [x.git | some x in data.hookgate.lib.git_commands]

stash_advice := "Keep the work instead: git stash push (it can be restored), or commit it on a branch."

violations contains {"reason": msg, "pattern": "git-reset-hard"} if {
	some g in gits
	g.subcommand == "reset"
	some mode in {"--hard", "--merge"}
	shell.has_flag(g, mode)
	msg := sprintf("git reset %s discards uncommitted changes irrecoverably. %s Use git reset --keep to move the branch while keeping local changes.", [mode, stash_advice])
}

violations contains {"reason": msg, "pattern": "git-clean-force"} if {
	some g in gits
	g.subcommand == "clean"
	shell.has_flag(g, "--force")
	not shell.has_flag(g, "--interactive")
	msg := "git clean -f deletes untracked files, which git cannot restore. Run git clean -n (without -f) to see what would go, and remove only specific paths."
}

violations contains {"reason": msg, "pattern": "git-checkout-discard"} if {
	some g in gits
	g.subcommand == "checkout"
	discards_checkout(g)
	msg := sprintf("This git checkout overwrites uncommitted changes in the working tree. %s", [stash_advice])
}

discards_checkout(g) if "--" in g.args

discards_checkout(g) if shell.has_flag(g, "--force")

discards_checkout(g) if g.operands == ["."]

violations contains {"reason": msg, "pattern": "git-restore-worktree"} if {
	some g in gits
	g.subcommand == "restore"
	restores_worktree(g)
	msg := sprintf("git restore without --staged discards uncommitted changes in the working tree. %s To unstage only, use git restore --staged <path>.", [stash_advice])
}

restores_worktree(g) if not shell.has_flag(g, "--staged")

restores_worktree(g) if shell.has_flag(g, "--worktree")

violations contains {"reason": msg, "pattern": "git-switch-discard"} if {
	some g in gits
	g.subcommand == "switch"
	some f in {"--force", "--discard-changes"}
	shell.has_flag(g, f)
	msg := sprintf("git switch -f/--discard-changes throws away uncommitted changes. %s", [stash_advice])
}

violations contains {"reason": msg, "pattern": "git-branch-force-delete"} if {
	some g in gits
	g.subcommand == "branch"
	force_deletes_branch(g)
	msg := "git branch -D deletes a branch even if it is not merged, losing its commits. Use git branch -d, which refuses to delete unmerged work."
}

force_deletes_branch(g) if {
	some o in g.options
	o.name == "-D"
}

force_deletes_branch(g) if {
	shell.has_flag(g, "--delete")
	shell.has_flag(g, "--force")
}

# What undoes a git mistake is the reflog and the objects nothing points to any more: these
# commands throw them away, or rewrite every commit.
violations contains {"reason": msg, "pattern": "git-history-destroy"} if {
	some g in gits
	destroys_history(g)
	msg := sprintf("git %s removes commits or references that git could otherwise recover (the reflog and unreachable objects are what undo a mistake). Leave it to the user: ask them to run it.", [g.subcommand])
}

destroys_history(g) if g.subcommand in {"filter-branch", "filter-repo"}

destroys_history(g) if {
	g.subcommand == "update-ref"
	shell.has_flag(g, "-d")
}

destroys_history(g) if {
	g.subcommand == "reflog"
	g.operands[0] == "delete"
}

destroys_history(g) if {
	g.subcommand == "reflog"
	g.operands[0] == "expire"
	some o in g.options
	o.name in {"--expire", "--expire-unreachable"}
	o.value in {"now", "all", "0"}
}

destroys_history(g) if {
	g.subcommand == "gc"
	some o in g.options
	o.name == "--prune"
	o.value in {"now", "all"}
}

violations contains {"reason": msg, "pattern": "git-stash-drop"} if {
	some g in gits
	g.subcommand == "stash"
	g.operands[0] in {"drop", "clear"}
	msg := sprintf("git stash %s deletes stashed work for good. Leave the stash in place (git stash list shows it) or apply it first with git stash apply.", [g.operands[0]])
}
