# METADATA
# title: destructive
# description: Deny what destroys data outside the project (every channel, read from the write model) or discards uncommitted work.
package hookgate.destructive

import rego.v1

cfg := data.hookgate.config.destructive

deny contains r if {
	some r in violations # first: most calls have none, and skip the rule without running it
	cfg.action == "deny"
}

ask contains r if {
	some r in violations # first: most calls have none, and skip the rule without running it
	cfg.action == "ask"
}

# What the call does to files: the write model (lib_effects.rego), whatever the channel (a shell
# line, PowerShell, a file tool, a patch, an MCP tool, interpreter code). Every rule on files
# below reads these, not commands; paths are resolved after the line's cd ("~" left as written).
effects := array.concat(data.hookgate.lib.file_effects, data.hookgate.lib.remote_file_effects)

# The deletes among them, found once for the rules on deletes below.
deletes := [f | some f in effects; f.op == "delete"]

# The project directory relative paths were resolved against.
project := data.hookgate.lib.cwd

# $TMPDIR is a temp directory unless the line points it elsewhere. The expansion model puts a
# value the line gives it into the paths (TMPDIR=/etc; rm -rf $TMPDIR/x deletes /etc/x), but not
# into a child's environment (TMPDIR=/ bash -c 'rm -rf $TMPDIR/x'): a $TMPDIR left in a path of
# such a line is not trusted. (What a variable means, not a file effect: the one rule here that
# reads the line's commands.)
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
	some d in tmpdir_spellings
}

tmpdir_spellings := {"$TMPDIR", "${TMPDIR}"}

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
	some d in cfg.temp_dirs
	startswith(path, concat("", [d, "/"]))
}

# (the line's commands are read only for a path that starts with a variable)
within_allowed(path, _) if {
	startswith(path, "$")
	some d in tmpdir_spellings
	startswith(path, concat("", [d, "/"]))
	not tmpdir_reassigned
}

within_allowed(path, proj) if {
	not is_string(proj)
	not substring(path, 0, 1) in {"/", "~", "$"}
}

# A working directory too broad to count as a project: /, a top-level directory, the home.
# (String functions rather than regexes throughout: this runs for every delete.)
# The home is /home/<user> or /Users/<user> (or /root, a top-level directory, first): those
# first, so that the home is worked out from the payload only for a directory that may be it,
# not for one below it (most projects), each top in a body of its own (a loop over the two costs
# more than both tests). (One definition with elses: a function of one definition is called
# without the loop over definitions.)
broad(proj) if {
	startswith(proj, "/")
	count(split(trim_suffix(proj, "/"), "/")) <= 2
} else if {
	startswith(proj, "/home/")
	count(split(proj, "/")) == 3
	proj == home
} else if {
	startswith(proj, "/Users/")
	count(split(proj, "/")) == 3
	proj == home
}

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
# (String functions, one definition with an else: worked out for every write.)
home := concat("", [top, user]) if {
	is_string(project) # (no cwd: no home)
	some top in ["/home/", "/Users/"]
	startswith(project, top)
	user := split(substring(project, count(top), -1), "/")[0]
	user != ""
} else := "/root" if {
	is_string(project)
	startswith(concat("", [project, "/"]), "/root/")
}

# ~/x, $HOME/x and ${HOME}/x under the known home; as written when the home is unknown (an
# unknown home is never a safe place to delete from).
expand_home(path) := concat("", [home, substring(path, count(prefix), -1)]) if {
	some prefix in ["~", "$HOME", "${HOME}"]
	begins_with_dir(path, prefix)
	is_string(home)
} else := path

# path is dir itself or below it.
begins_with_dir(path, dir) if path == dir

begins_with_dir(path, dir) if startswith(path, concat("", [dir, "/"]))

# The first place an effect's path may be that is not safe, undefined when every one is.
unsafe(f) := paths[0] if {
	not inside_project(f) # a cheap test first: most writes and deletes are inside the project
	proj := project_of(f)
	paths := [path |
		some alternative in defaults(f.path)
		path := shell.resolve(proj, home_of(f, alternative))
		not safe_path(path, proj)
	]
	count(paths) > 0
}

# f's path is strictly inside the project as written, with no empty, "." or ".." component for
# shell.resolve to change: safe_path holds for it (it does not climb, is neither the project nor
# a parent of it, and is within it), which a few string tests show without resolving or placing
# it. (A path that fails them is judged in full.)
inside_project(f) if {
	startswith(f.path, project_prefix)
	not f.machine
	wrapped := concat("", [f.path, "/"])
	not contains(wrapped, "//")
	not contains(wrapped, "/./")
	not contains(wrapped, "/../")
	not endswith(f.path, "/*") # the project's * unexpanded (within_allowed's test), or a deeper one
}

# The project directory with a trailing "/", unless it is too broad to be a project. (The
# payload's cwd, which project is, read directly: for most writes this is all of the project
# the rules read.)
project_prefix := concat("", [input.cwd, "/"]) if {
	is_string(input.cwd)
	not broad(input.cwd)
}

# On another machine (ssh, kubectl exec: lib.remote_file_effects) neither the project nor the
# home is known: a relative path (in its home, or where the line cds to there) may go, an
# absolute or ~ path may not.
project_of(f) := null if {
	f.machine == "remote"
} else := project

home_of(f, path) := path if {
	f.machine == "remote"
} else := expand_home(path)

# What an unsafe path of f is, for the reason text.
where(f, path) := "an absolute or home path on another machine, where hookgate cannot place the project" if {
	f.machine == "remote"
} else := place(path, project)

# What a path may be: ${V:-WORD}/x (or ${V-WORD}/x) with V not set by the line is $V/x when the
# environment sets V, else WORD/x (${TMPDIR:-/tmp}/build): both must be safe.
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

# The words that say what a command did to a path (rm -rf, rsync --delete), else its name.
doer(f) := object.get(f, "how", f.by)

advice := "Delete only what you created inside the project (for example rm -rf ./build) or under /tmp; if it really has to go, ask the user to run it themselves."

# ---- deletes ------------------------------------------------------------------------------

# A delete of a whole tree (rm -r, rimraf, Remove-Item -Recurse, rsync --delete's destination,
# tar --remove-files' inputs, shutil.rmtree): judged by where it is. -f or not: an agent's
# shell has no terminal, so rm -r deletes without asking either way. A tree under a disposable
# home directory (rm -rf ~/.cache/pip) loses nothing its program cannot make again.
violations contains {"reason": tree_reason(f, path), "pattern": tree_pattern(f)} if {
	some f in deletes
	f.tree
	not found(f.path)
	f.path != "$(xargs)"
	path := unsafe(f)
	not disposable(path)
}

tree_pattern(f) := "rm-recursive-force" if {
	f.how == "rm -rf"
} else := "rsync-delete" if {
	f.how == "rsync --delete"
} else := "tar-remove-files" if {
	f.how == "tar --remove-files"
} else := "rsync-remove-source-files" if {
	f.how == "rsync --remove-source-files"
} else := "interpreter-delete" if {
	f.how == "code"
} else := "rm-recursive"

tree_reason(f, path) := sprintf("rsync --delete into %s would delete files in %s (%s) that the source does not have. %s", [f.path, path, where(f, path), advice]) if {
	f.how == "rsync --delete"
} else := sprintf("tar --remove-files deletes %s after archiving it (%s). Archive without --remove-files, then delete only what is inside the project. %s", [path, where(f, path), advice]) if {
	f.how == "tar --remove-files"
} else := sprintf("rsync --remove-source-files deletes every file under %s once it is sent (%s). Copy without --remove-source-files, then delete only what is inside the project. %s", [path, where(f, path), advice]) if {
	f.how == "rsync --remove-source-files"
} else := sprintf("This %s code deletes %s recursively, a path computed when it runs, which hookgate cannot check. %s", [f.by, computed(f.path), advice]) if {
	f.how == "code"
	computed(f.path)
} else := sprintf("This %s code deletes %s recursively (%s). %s", [f.by, path, where(f, path), advice]) if {
	f.how == "code"
} else := sprintf("%s %s would delete %s (%s). %s", [doer(f), f.path, path, where(f, path), advice])

# The expression interpreter code deletes when it is no string literal (lib_effects.rego).
computed(p) := trim_suffix(trim_prefix(p, "$("), ")") if startswith(p, "$(")

# xargs feeding a delete paths the line does not show (cat list | xargs rm -rf, xargs rm -rf <
# list: shell/files.py's $(xargs)): judged as an unknown $VAR is.
violations contains {"reason": msg, "pattern": tree_pattern(f)} if {
	some f in deletes
	f.tree
	f.path == "$(xargs)"
	msg := sprintf("%s through xargs deletes whatever paths it reads, which hookgate cannot see. %s", [doer(f), advice])
}

# What find deletes (-delete, -exec rm {}) is ROOT/{}: whatever it finds under ROOT.
found(p) if endswith(p, "{}")

violations contains {"reason": msg, "pattern": "find-delete"} if {
	some f in deletes
	found(f.path)
	unsafe(f)
	root := found_root(f)
	not disposable(root)
	msg := sprintf("%s would delete what find finds under %s (%s). %s", [finder(f), root, where(f, root), advice])
}

found_root(f) := shell.resolve(project_of(f), home_of(f, root)) if {
	root := trim_suffix(trim_suffix(f.path, "{}"), "/")
	root != ""
} else := "/"

# A path as a reason names it: what find finds under its root, or the path.
shown(f) := sprintf("what find finds under %s", [found_root(f)]) if {
	found(f.path)
} else := f.path

finder(f) := "find -delete" if {
	f.how == "find -delete"
} else := sprintf("%s (run on what find finds)", [doer(f)])

# Deleting a repository's .git throws away every commit not pushed, the stashes and the reflog
# (agents do it to "start over" with git init). Inside the project, so the rules above allow it.
violations contains {"reason": msg, "pattern": "git-history-destroy"} if {
	some f in deletes
	contains(f.path, ".git") # cheap test first: this looks at every delete
	git_dir(f)
	not unsafe(f)
	msg := sprintf("%s %s deletes the repository's history: %s", [doer(f), shown(f), history_advice])
}

git_dir(f) if {
	f.tree
	endswith(concat("", ["/", trim_suffix(home_of(f, f.path), "/")]), "/.git")
}

git_dir(f) if endswith(f.path, "/.git/{}")

history_advice := "commits not pushed, stashes and the reflog. Leave .git alone; if the repository really has to start over, ask the user."

# A file of the user's home outside the project removed on its own (rm ~/.ssh/id_rsa, unlink
# ~/.bashrc, rsync --remove-source-files ~/.ssh/id_rsa b:): the same loss as shredding it. Elsewhere (rm -f /etc/foo.lock) and for a path the
# line does not show (rm "$OUT", everyday work) only whole trees are judged.
violations contains {"reason": msg, "pattern": "rm-outside-project"} if {
	some f in deletes
	not f.tree
	doer(f) in {"rm", "unlink", "rsync --remove-source-files"}
	not found(f.path)
	not unknown_variable(f.path)
	path := unsafe(f)
	under_home(path)
	not in_project(f, path) # a session started in the home: its own files
	not disposable(path)
	msg := sprintf("%s %s would delete %s (%s). %s", [doer(f), f.path, path, where(f, path), advice])
}

# Under ~/.cache (destructive.disposable_home_dirs) or where hosts keep their working files:
# strictly under them (~/.cache itself is every program's cache at once).
disposable(path) if {
	is_string(path) # (what find finds under an unknown directory has no root)
	some dir in array.concat(cfg.disposable_home_dirs, cfg.agent_data_dirs)
	startswith(path, concat("/", ["~", dir]))
}

# (apart: a payload whose cwd does not show the home leaves home undefined)
disposable(path) if {
	is_string(path)
	some dir in array.concat(cfg.disposable_home_dirs, cfg.agent_data_dirs)
	startswith(path, concat("/", [home, dir]))
}

under_home(path) if startswith(path, "~/")

in_project(f, path) if {
	not f.machine
	startswith(path, concat("", [project, "/"]))
}

under_home(path) if startswith(path, concat("", [home, "/"]))

# A file tool's delete (Cursor's Delete, a patch's Delete File, an MCP delete_file) and the source
# end of its move: the tool deletes what it names, judged by where it is, as rm -rf is.
violations contains {"reason": msg, "pattern": "delete-path"} if {
	some f in deletes
	from_tool(f)
	path := unsafe(f)
	msg := sprintf("%s would delete %s (%s). %s", [f.by, path, place(path, project), advice])
}

# A file tool moving onto a path outside the project replaces what is there.
violations contains {"reason": msg, "pattern": "move-path"} if {
	some f in effects
	f.op == "move"
	from_tool(f)
	path := unsafe(f)
	msg := sprintf("%s would move %s to %s: %s is %s. %s", [f.by, f.from, f.path, path, place(path, project), advice])
}

from_tool(f) if f in data.hookgate.lib.tool_file_effects

# The project itself, or a directory that holds it, moved away (mv proj /tmp/x, Move-Item): its
# files go with it. (git rm and git mv refuse to lose uncommitted work.)
violations contains {"reason": msg, "pattern": "delete-project"} if {
	some f in deletes
	f.by == "mv"
	not f.machine
	is_string(project)
	covers_project(f.path, project)
	msg := sprintf("`%s` would take away %s (%s). %s", [f.by, f.path, place(f.path, project), advice])
}

# ---- contents destroyed in place ----------------------------------------------------------

# A file replaced or emptied outside the project and the temp directories: > f, tee, dd of=, a
# file tool's whole-file write, truncate, shred, cp /dev/null f. (cp, mv, install of a real file
# onto one outside the project are installs, left alone, and so are downloads and extractions,
# curl -o, wget -P, tar -x -C: lib.option_file_effects; appends keep what is there.) Each way of
# overwriting is a definition whose first test is of the effect's op, tool or source, which
# lang/relevance.py reads: a call that overwrites in none of these ways (an edit by a file tool,
# most calls) does not run destructive's rules on files at all.
violations contains v if {
	some f in effects
	f.op == "write"
	not inside_project(f) # as overwritten's own first test, without two calls: most writes
	v := overwritten(f) # before the tests below
	not f.by in {"mkdir", "mkfifo", "mknod"} # a new directory or node replaces nothing
	not f.by in {"git checkout", "git restore"} # tracked files of the work tree, from git
	not f.tree # a directory written into, not replaced
	not f in data.hookgate.lib.code_file_effects # a guess among the code's literals
	not f in data.hookgate.lib.option_file_effects
}

# truncate's edit empties the file; shred overwrites the contents before -u (if given) removes
# the file.
violations contains v if {
	some f in effects
	op := in_place_destroyers[f.by]
	f.op == op
	v := overwritten(f)
}

in_place_destroyers := {"truncate": "edit", "shred": "delete"}

# cp /dev/null f and install /dev/null f empty f; so does ln -sf /dev/null f (f becomes a link to
# nothing; without -f, ln refuses to replace a file).
violations contains v if {
	some f in effects
	f.from == "/dev/null"
	empties(f)
	v := overwritten(f)
}

# The reason for an overwrite whose path is outside the project and the temp directories.
overwritten(f) := {"reason": msg, "pattern": "overwrite-file"} if {
	path := unsafe(f) # first: most writes are inside the project
	not stream(f.path)
	not unknown_variable(f.path)
	not agent_data(path)
	msg := sprintf("%s would %s %s (%s). %s", [writer(f), verb(f), path, where(f, path), write_advice])
}

empties(f) if f.op == "copy"

empties(f) if {
	f.op == "link"
	f.how == "ln -f"
}

writer(f) := sprintf("The redirection > %s", [f.path]) if {
	f.how == ">"
} else := sprintf("%s %s", [f.by, f.from]) if {
	f.from == "/dev/null"
} else := f.by

verb(f) := "destroy the contents of" if {
	f.by in {"shred", "truncate", "tee"}
} else := "empty" if {
	f.from == "/dev/null"
} else := "empty" if {
	f.content == ""
} else := "replace"

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
	some prefix in ["$HOME", "${HOME}", "$TMPDIR", "${TMPDIR}"]
	begins_with_dir(t, prefix)
}

# Where agent hosts keep their own working files outside the project (plans, memory, todos).
agent_data(p) if {
	some d in cfg.agent_data_dirs
	contains(p, concat("", ["/", d]))
}

# ---- modes --------------------------------------------------------------------------------

violations contains {"reason": msg, "pattern": "recursive-chmod"} if {
	some f in effects
	f.op == "mode"
	f.tree
	path := unsafe(f)
	path != project # changing the project's own permissions destroys nothing
	msg := sprintf("A recursive %s of %s (%s) can break the system or expose files. Change only the files you need, inside the project.", [f.by, path, where(f, path)])
}

# ---- not files: devices, processes, git's own history --------------------------------------

violations contains {"reason": msg, "pattern": "mkfs"} if {
	some c in data.hookgate.lib.commands
	formats_device(c.name)
	msg := sprintf("%s formats a device and erases everything on it. Never run it from an agent; ask the user.", [c.name])
}

formats_device(name) if startswith(name, "mkfs")

formats_device(name) if name in {"mke2fs", "mkswap", "wipefs"}

# dd of=/dev/sda, any write of dd to a device (not the streams): the disk, block by block.
violations contains {"reason": msg, "pattern": "dd-to-device"} if {
	some f in effects
	f.by == "dd"
	f.op in {"write", "append"}
	startswith(f.path, "/dev/")
	not stream(f.path)
	f.path != "/dev/zero"
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
