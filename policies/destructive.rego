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

# Commands of the shell line, plus those an interpreter one-liner hands to a shell
# (python -c "os.system('rm -rf /')").
all_commands contains c if {
	some c in data.hookgate.lib.commands
}

all_commands contains c if {
	some x in interpreter_code
	some pattern in cfg.code_shell_patterns
	some m in regex.find_all_string_submatch_n(pattern, x.code, -1)
	some c in shell.commands(m[1])
}

interpreter(c) if regex.replace(c.name, `[0-9.]+$`, "") in cfg.interpreters

# Code given to an interpreter on its command line: python -c, node -e, perl -e, ruby -e, php -r.
interpreter_code contains {"cmd": c, "code": c.argv[i + 1]} if {
	some c in data.hookgate.lib.commands
	interpreter(c)
	some i, a in c.argv
	i > 0
	a in {"-c", "-e", "-E", "-p", "-r", "--eval", "--print"}
	count(c.argv) > i + 1
}

# Code fed to an interpreter's stdin by a here-document or here-string (python3 <<EOF … EOF).
interpreter_code contains {"cmd": c, "code": c.stdin} if {
	some c in data.hookgate.lib.commands
	interpreter(c)
	is_string(c.stdin)
	count([a | some a in shell.operands(c); a != "-"]) == 0
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

# A path (already resolved) that a recursive delete may touch: strictly inside the project or
# a temp directory; a relative path when the directory is unknown, unless it climbs out.
safe_path(path, proj) if {
	is_string(proj)
	startswith(path, concat("", [proj, "/"]))
	path != concat("", [proj, "/*"])
	not climbs(path)
}

safe_path(path, _) if {
	some d in temp_dirs
	startswith(path, concat("", [d, "/"]))
	not climbs(path)
}

safe_path(path, proj) if {
	not is_string(proj)
	not regex.match(`^[/~$]`, path)
	not climbs(path)
}

# A ".." left after resolving: it climbs out of a directory hookgate cannot know ($TMPDIR/..).
climbs(path) if regex.match(`(^|/)\.\.(/|$)`, path)

# What an unsafe path is, for the reason text.
place(path, proj) := "the project directory itself" if path == proj

place(path, proj) := "a parent of the project directory" if {
	path != proj
	parent_of(path, proj)
}

place(path, proj) := "a whole temp directory" if {
	path != proj
	not parent_of(path, proj)
	path in temp_dirs
}

place(path, proj) := "outside the project directory and the temp directories" if {
	path != proj
	not parent_of(path, proj)
	not path in temp_dirs
}

parent_of(path, proj) if {
	is_string(proj)
	startswith(proj, concat("", [trim_suffix(path, "/"), "/"]))
}

# The user's home, when the payload's cwd shows it (/home/<user>/…, /Users/<user>/…, /root/…).
home := m[0][1] if {
	is_string(data.hookgate.lib.cwd)
	m := regex.find_all_string_submatch_n(`^(/home/[^/]+|/Users/[^/]+|/root)(/|$)`, data.hookgate.lib.cwd, 1)
	count(m) == 1
}

home_prefix := `^(~|\$HOME|\$\{HOME\})(/|$)`

# ~/x, $HOME/x and ${HOME}/x under the known home; as written when the home is unknown
# (an unknown home is never a safe place to delete from) or the command runs over ssh.
expand_home(c, path) := concat("", [home, regex.replace(path, `^(~|\$HOME|\$\{HOME\})`, "")]) if {
	expandable(c, path)
}

expand_home(c, path) := path if not expandable(c, path)

expandable(c, path) if {
	regex.match(home_prefix, path)
	is_string(home)
	not remote(c)
}

unsafe_target(c, target) := path if {
	path := shell.resolve(base(c), expand_home(c, target))
	not safe_path(path, project(c))
}

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
	some root in find_roots(c)
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

# The starting points of a find command: the words before its first expression.
find_roots(c) := {a |
	c.name == "find"
	some i, a in c.argv
	i > 0
	every j in numbers.range(1, i) {
		not regex.match(`^[-(!]`, c.argv[j])
	}
}

advice := "Delete only what you created inside the project (for example rm -rf ./build) or under /tmp; if it really has to go, ask the user to run it themselves."

violations contains {"reason": msg, "pattern": "rm-recursive-force"} if {
	some c in all_commands
	c.name == "rm"
	recursive(c)
	forced(c)
	some t in rm_targets(c)
	path := unsafe_target(c, t)
	msg := sprintf("rm -rf %s would delete %s (%s). %s", [t, path, place(path, project(c)), advice])
}

violations contains {"reason": msg, "pattern": "find-delete"} if {
	some c in all_commands
	"-delete" in c.argv
	some t in find_roots(c)
	unsafe_target(c, found_under(t))
	root := shell.resolve(base(c), expand_home(c, t))
	msg := sprintf("find %s -delete would delete files under %s (%s). %s", [t, root, place(root, project(c)), advice])
}

violations contains {"reason": msg, "pattern": "recursive-chmod"} if {
	some c in all_commands
	c.name in {"chmod", "chown", "chgrp"}
	recursive(c)
	ops := shell.operands(c)
	some t in array.slice(ops, 1, count(ops))
	path := unsafe_target(c, t)
	msg := sprintf("A recursive %s of %s (%s) can break the system or expose files. Change only the files you need, inside the project.", [c.name, path, place(path, project(c))])
}

violations contains {"reason": msg, "pattern": "interpreter-delete"} if {
	some x in interpreter_code
	some pattern in cfg.code_delete_patterns
	some m in regex.find_all_string_submatch_n(pattern, x.code, -1)
	path := unsafe_target(x.cmd, m[1])
	msg := sprintf("This %s code deletes %s recursively (%s). %s", [x.cmd.name, path, place(path, project(x.cmd)), advice])
}

violations contains {"reason": msg, "pattern": "mkfs"} if {
	some c in all_commands
	regex.match(`^(mkfs(\..*)?|mke2fs|mkswap|wipefs)$`, c.name)
	msg := sprintf("%s formats a device and erases everything on it. Never run it from an agent; ask the user.", [c.name])
}

violations contains {"reason": msg, "pattern": "dd-to-device"} if {
	some c in all_commands
	c.name == "dd"
	some a in c.argv
	startswith(a, "of=/dev/")
	not a in {"of=/dev/null", "of=/dev/stdout", "of=/dev/stderr", "of=/dev/zero"}
	msg := "dd writing to a device overwrites it block by block (partitions and file systems included). Write to a regular file instead, or ask the user."
}

violations contains {"reason": msg, "pattern": "fork-bomb"} if {
	input.tool_kind == "shell"
	squeezed := regex.replace(input.tool_input.command, `\s+`, "")
	some m in regex.find_all_string_submatch_n(`([A-Za-z_:.][A-Za-z0-9_:.]*)\(\)\{`, squeezed, -1)
	contains(squeezed, concat("", [m[1], "|", m[1], "&"]))
	msg := "This is a fork bomb: it spawns processes until the machine stops responding."
}

gits contains x.git if some x in data.hookgate.lib.git_commands

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
	not shell.has_flag(g, "--dry-run")
	not shell.has_flag(g, "--interactive")
	msg := "git clean -f deletes untracked files, which git cannot restore. Run git clean -n first to see what would go, and remove only specific paths."
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

violations contains {"reason": msg, "pattern": "git-stash-drop"} if {
	some g in gits
	g.subcommand == "stash"
	g.operands[0] in {"drop", "clear"}
	msg := sprintf("git stash %s deletes stashed work for good. Leave the stash in place (git stash list shows it) or apply it first with git stash apply.", [g.operands[0]])
}
