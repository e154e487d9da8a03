# METADATA
# title: no-verify
# description: Deny skipping git hooks (--no-verify/-n, core.hooksPath overrides, HUSKY=0).
package hookgate.no_verify

import rego.v1

cfg := data.hookgate.config.no_verify

deny contains r if {
	some r in violations # first: most calls have none, and skip the rule without running it
	cfg.action == "deny"
}

ask contains r if {
	some r in violations # first: most calls have none, and skip the rule without running it
	cfg.action == "ask"
}

deny contains r if {
	some r in unknown_config # first: most calls have none, and skip the rule without running it
	cfg.on_unknown_config == "deny"
}

ask contains r if {
	some r in unknown_config # first: most calls have none, and skip the rule without running it
	cfg.on_unknown_config == "ask"
}

# The git commands the rules below on git commands read (all but --no-verify's): those with
# something that may skip hooks besides a flag (a core.hooksPath, configuration of their own, a
# git config change, an environment, words the line does not show, the line's assignments).
# Most git commands (git status, git add, a plain commit or push) have none, and those rules do
# not run for them. One pass over the commands, not one per rule.
git_commands := [x | some x in data.hookgate.lib.git_commands; not plain(x)]

# A command with none of those: every test in one body, so that a plain command, which passes
# them all, costs one call (a function of one test per definition or else costs one call per
# test). A field missing from a hand-made command (a test's) keeps it out of the plain ones.
plain(x) if {
	not is_string(x.git.hooks_path)
	count(x.git.config) == 0
	count(x.cmd.git_config) == 0
	count(x.cmd.env) == 0
	x.git.config_change == null
	count(x.git.unknown) == 0
	not x.guessed
	count(data.hookgate.lib.assignments) == 0
}

# ---- core.hooksPath as git's effective configuration has it ----------------------------------
# The value a commit (push, merge, …) really runs with: the system, global (~/.gitconfig, the
# XDG file, GIT_CONFIG_GLOBAL), repository and config.worktree files and their includes, what
# the line wrote into them or set with git config, then -c and GIT_CONFIG_*. Pointing anywhere
# but the repository's own hooks directory, a hooks directory of the project (hooks_dirs) or one
# the team trusts (trusted_hooks_paths), or at a directory that is not there, means no hook runs.
violations contains {"reason": msg, "pattern": "git-hooks-path-config"} if {
	some x in git_commands
	value := x.git.hooks_path # first: most commands run with none set
	is_string(value)
	not x.defined
	x.git.subcommand in cfg.hook_subcommands
	not x.git.config["core.hookspath"] # on the command line: git-hooks-path-override says so
	dir := git.hooks_dir(data.hookgate.lib.git_target(x.git), value)
	not hooks_run_from(dir, value)
	msg := sprintf("git %s would run no hooks: git's configuration sets core.hooksPath to %s (%s), not the repository's hooks directory. Remove that setting (git config --show-origin core.hooksPath shows where it is). %s", [x.git.subcommand, value, hooks_dir_state(dir), advice])
}

# The hooks directory git's configuration names where the hook runs (a fleet's managed or a
# team's trusted hooks in the system or global file), dropped for one command by pointing git at
# other files: GIT_CONFIG_GLOBAL=/dev/null (or an empty file), HOME= or XDG_CONFIG_HOME= a
# directory without that setting, GIT_CONFIG_NOSYSTEM=1. git then finds another core.hooksPath,
# or none and runs .git/hooks: not the hooks the configuration set up. (x.git.hooks_path is
# what git reads under the line's environment, git.config what it reads under the hook's.)
violations contains {"reason": msg, "pattern": "git-hooks-path-config"} if {
	some x in git_commands
	not x.defined
	x.git.subcommand in cfg.hook_subcommands
	reads_other_config(x) # first: most commands read git's own files, and skip the read below
	not x.git.config["core.hookspath"] # on the command line: git-hooks-path-override says so
	target := data.hookgate.lib.git_target(x.git)
	values := object.get(git.config(target), "core.hookspath", [])
	count(values) > 0
	current := values[count(values) - 1]
	current != ""
	object.get(x.git, "hooks_path", null) != current
	hooks_run_from(git.hooks_dir(target, current), current)
	msg := sprintf("git %s would not run the hooks git's configuration names (core.hooksPath %s): the line points git at other configuration files (GIT_CONFIG_GLOBAL, HOME, XDG_CONFIG_HOME, GIT_CONFIG_NOSYSTEM) that do not set it. Run it with git's own configuration. %s", [x.git.subcommand, current, advice])
}

# A command whose configuration may differ from what git.config reads under the hook's
# environment: the line changes what git reads for it (GIT_CONFIG_GLOBAL, HOME=, an earlier git
# config, a file the line wrote: the command's git_config; -c and GIT_CONFIG_*: the parse's
# config), or its parse did not read the files at all (a guessed subcommand). For every other
# command the parse's hooks_path is git.config's value, so the rule above cannot hold.
# (one definition with elses: a function of several definitions runs each of them on every call)
reads_other_config(x) := true if {
	count(x.cmd.git_config) > 0
} else := true if {
	count(x.git.config) > 0
} else := true if {
	x.guessed
}

hooks_run_from(dir, _) if dir.own

# (what the line writes into that directory is judged as hook files are: echo 'npm test' >
# .husky/pre-commit && git commit stays allowed where core.hooksPath is .husky)
hooks_run_from(dir, value) if {
	dir.exists
	project_hooks_dir(value)
}

hooks_run_from(dir, value) if {
	dir.exists
	some trusted in cfg.trusted_hooks_paths
	trusted in {value, dir.path}
}

hooks_dir_state(dir) := "no directory is there" if not dir.exists

hooks_dir_state(dir) := sprintf("%s, outside the project's hooks directories", [dir.path]) if dir.exists

# A hook-running command whose configuration hookgate could not read in full (a symlinked
# ~/.gitconfig, a FIFO, a file past the size or include bounds, what the line wrote in a way it
# does not show): core.hooksPath may be set there.
unknown_config contains {"reason": msg, "pattern": "git-config-unknown"} if {
	some x in data.hookgate.lib.git_commands
	count(object.get(x.git, "config_unknown", [])) > 0 # first: most configurations read in full
	not x.defined
	x.git.subcommand in cfg.hook_subcommands
	msg := sprintf("git %s runs the hooks core.hooksPath names, and hookgate could not read all of git's configuration: %s. Make those files plain, readable files (or write the line's configuration out), then run it again. %s", [x.git.subcommand, data.hookgate.lib.config_unknown_text(x.git), advice])
}

advice := "Hooks run the repository's checks (formatting, linting, tests, secret scanning); fix what the hook reports and run the command again without skipping them."

violations contains {"reason": msg, "pattern": "git-no-verify"} if {
	some x in data.hookgate.lib.git_commands
	x.git.subcommand in cfg.hook_subcommands
	shell.has_flag(x.git, "--no-verify")
	msg := sprintf("git %s --no-verify skips the git hooks. %s", [x.git.subcommand, advice])
}

violations contains {"reason": msg, "pattern": "git-hooks-path-override"} if {
	some x in git_commands
	some key in cfg.bypass_config
	value := x.git.config[key]
	not hooks_dir_kept(key, value)
	msg := sprintf("Overriding %s on the git command line replaces the repository's hooks. %s", [key, advice])
}

# A hooks directory kept on the command line (-c core.hooksPath=.git/hooks, GIT_CONFIG_*) where
# the repository's configuration names another one (husky's .husky/_): that command runs the
# other directory's hooks, or none, instead of the ones the repository set up.
violations contains {"reason": msg, "pattern": "git-hooks-path-override"} if {
	some x in git_commands
	value := x.git.config["core.hookspath"] # first: set on the command line by few commands
	x.git.subcommand in cfg.hook_subcommands
	hooks_dir_kept("core.hookspath", value)
	some current in object.get(git.config(data.hookgate.lib.git_target(x.git)), "core.hookspath", [])
	current != ""
	moves_away({"op": "set", "value": value}, current)
	msg := sprintf("Overriding core.hooksPath on the git command line (%s) skips the hooks the repository's configuration points to (%s). %s", [value, current, advice])
}

# ... or at a hooks directory of the project that is not there: git runs no hook from it.
violations contains {"reason": msg, "pattern": "git-hooks-path-override"} if {
	some x in git_commands
	value := x.git.config["core.hookspath"] # first: set on the command line by few commands
	x.git.subcommand in cfg.hook_subcommands
	hooks_dir_kept("core.hookspath", value)
	dir := git.hooks_dir(data.hookgate.lib.git_target(x.git), value)
	is_object(dir)
	not dir.exists
	msg := sprintf("git %s -c core.hooksPath=%s would run no hooks: no directory is there. %s", [x.git.subcommand, value, advice])
}

# git config in any spelling (set, --global, -f file, --add, --replace-all); unsetting it
# restores .git/hooks (see below for a repository whose hooks live elsewhere).
violations contains {"reason": msg, "pattern": "git-config-hooks-path"} if {
	some x in git_commands
	change := x.git.config_change
	change.op != "unset"
	change.key in cfg.bypass_config
	not hooks_dir_kept(change.key, change.value)
	not outranked(x.git, change, change.key)
	msg := sprintf("Setting %s with git config disables the repository's hooks. %s", [change.key, advice])
}

# Unsetting or changing core.hooksPath where the repository's configuration sets it (husky's
# .husky/_, a .githooks directory) switches those hooks off: git falls back to .git/hooks, which
# such a repository leaves empty, or runs the other directory's.
violations contains {"reason": msg, "pattern": "git-config-hooks-path"} if {
	some x in git_commands
	change := x.git.config_change
	change != null # first: most commands are no git config
	changes_hooks_path(change)
	some current in repo_hooks_paths[data.hookgate.lib.git_target(x.git)]
	current != ""
	moves_away(change, current)
	not outranked(x.git, change, "core.hookspath")
	msg := sprintf("Unsetting or changing core.hooksPath switches off the hooks it points to (%s). %s", [current, advice])
}

# A change in a scope git reads before the one whose value decides (git config --global
# --unset core.hooksPath where the repository's own config sets it: local wins) leaves the
# effective value as it is, unless the deciding value lives in the very file the change writes
# (a local include of ~/.gitconfig). Not when the reader gave up on a file.
outranked(g, change, key) if {
	read := git.config_read(data.hookgate.lib.git_target(g))
	count(read.unknown) == 0
	origins := read.origins[key]
	last := origins[count(origins) - 1]
	scope_rank[last[0]] > scope_rank[change.scope]
	last[1] != read.writes[change.scope]
}

scope_rank := {"system": 0, "global": 1, "local": 2, "worktree": 3}

changes_hooks_path(change) if change.key == "core.hookspath"

# git config --remove-section core (or --rename-section core x) drops core.hooksPath with it.
changes_hooks_path(change) if {
	change.op == "remove-section"
	change.key == "core"
}

# The core.hooksPath values each repository a git config command of the line targets has now.
repo_hooks_paths[dir] := object.get(git.config(dir), "core.hookspath", []) if {
	some x in data.hookgate.lib.git_commands
	changes_hooks_path(x.git.config_change)
	dir := data.hookgate.lib.git_target(x.git)
}

moves_away(change, _) if change.op in {"unset", "remove-section"}

moves_away(change, current) if {
	change.op != "unset"
	trim_suffix(trim_prefix(change.value, "./"), "/") != trim_suffix(trim_prefix(current, "./"), "/")
}

# Pointing core.hooksPath at the project's own hooks directory (git config core.hooksPath
# .githooks, husky's .husky/_) moves the hooks rather than switching them off, as long as this
# line does not write that directory itself: a relative path inside the repository named like
# a hooks directory (config no_verify.hooks_dirs). /dev/null, an empty value, an absolute or
# home path, a path out of the repository, or one the line fills (echo 'exit 0' > d/pre-commit)
# turns them off.
hooks_dir_kept(key, value) if {
	key == "core.hookspath"
	project_hooks_dir(value)
	not line_writes_under(trim_suffix(trim_prefix(value, "./"), "/"))
}

project_hooks_dir(value) if {
	dir := trim_suffix(trim_prefix(value, "./"), "/")
	dir != ""
	not startswith(dir, "/")
	not startswith(dir, "~")
	not contains(dir, "$")
	not ".." in split(dir, "/")
	some pattern in cfg.hooks_dirs
	glob.match(pattern, ["/"], dir)
}

# What the line writes into that directory, from the write model (lib.file_effects, paths
# placed after the line's cd): a file written, appended, edited, copied, moved or linked at or
# under it (mkdir -p .githooks, echo 'exit 0' > .githooks/pre-commit, cp -r /tmp/h/. .githooks/,
# tar -xf h.tgz -C .githooks), or a tree written into a directory that holds it, whose entries
# the line does not name (tar -xf h.tgz -C ., cp -r src/. ., unzip -d .). The value is placed
# against the payload's cwd, as git places it against the top of the work tree.
line_writes_under(dir) if {
	path := shell.resolve(data.hookgate.lib.cwd, dir)
	some e in data.hookgate.lib.file_effects
	e.op in fills
	fills_dir(e, path)
}

# (a delete or a mode change leaves nothing of the line's own to run)
fills := {"write", "append", "edit", "copy", "move", "link"}

fills_dir(e, path) if under(e.path, path)

fills_dir(e, path) if {
	e.tree
	under(path, e.path)
}

under(t, dir) if trim_suffix(t, "/") == trim_suffix(dir, "/")

under(t, dir) if startswith(t, concat("", [trim_suffix(dir, "/"), "/"]))

# A word the line does not show ($FLAGS) among a commit's options may be --no-verify.
violations contains {"reason": msg, "pattern": "git-unknown-option"} if {
	some x in git_commands
	count(x.git.unknown) > 0 # first: most commands show every word
	x.git.subcommand in cfg.unknown_subcommands
	msg := sprintf("git %s with %s cannot be checked: its value is not in the command, and it may be --no-verify. Write the options out. %s", [x.git.subcommand, concat(" ", x.git.unknown), advice])
}

# A variable of no_verify.bypass_env in a hook-running command's own prefix (HUSKY=0 git
# commit) ...
violations contains {"reason": bypass_message(name, value), "pattern": "hook-bypass-env"} if {
	some x in git_commands
	some name, value in x.cmd.env # first: most commands have no prefix
	values := cfg.bypass_env[name]
	x.git.subcommand in cfg.hook_subcommands
	bypasses(value, values)
}

# ... or among the line's assignments for later commands (export HUSKY=0; git commit): each
# assignment split, not searched for each variable of bypass_env. The assignments before the
# subcommand: most lines make none.
violations contains {"reason": bypass_message(name, value), "pattern": "hook-bypass-env"} if {
	some x in git_commands
	some a in data.hookgate.lib.assignments
	i := indexof(a, "=")
	name := substring(a, 0, i)
	values := cfg.bypass_env[name]
	x.git.subcommand in cfg.hook_subcommands
	value := substring(a, i + 1, -1)
	bypasses(value, values)
}

bypass_message(name, value) := sprintf("%s=%s turns the git hooks off for this command. %s", [name, value, advice])

# A hook framework's own uninstaller (no_verify.hook_uninstallers: pre-commit uninstall, husky
# uninstall, lefthook uninstall, overcommit --uninstall, also through npx and the like): it
# removes the hooks it installed, or the core.hooksPath that runs them, so every later commit
# runs no check, as --no-verify does for one.
violations contains {"reason": msg, "pattern": "hook-uninstall"} if {
	some c in data.hookgate.lib.commands
	words := cfg.hook_uninstallers[c.name] # first: most programs are none
	some w in words
	w in c.argv
	msg := sprintf("%s %s removes the git hooks it installed: later commits would run none of the repository's checks. %s", [c.name, w, advice])
}

# "*" in the configured values matches any value.
bypasses(value, values) if value in values

bypasses(_, values) if "*" in values

# ---- the hook frameworks' own files in the work tree ------------------------------------------
# husky's .husky/pre-commit, .githooks/*, pre-commit's and lefthook's configuration
# (no_verify.hook_files): deleting, moving, emptying or un-executing one, or making it do nothing
# (exit 0), switches the checks off for every later commit, as --no-verify does for one. Writing
# real content into them (echo "npm test" > .husky/pre-commit) is everyday setup.
# Each pattern at the top of the work tree and in any directory (built once, not per path).
hook_globs := [g | some pattern in cfg.hook_files; some g in [pattern, concat("", ["**/", pattern])]]

# What a hook file is left as by each write effect (lib.file_effects: a file tool, a patch, the
# shell, git rm/mv, PowerShell, MCP): inert when nothing it holds runs a check any more.
violations contains {"reason": msg, "pattern": "hook-files-disabled"} if {
	some e in data.hookgate.lib.file_effects
	# a hook file: its path relative to the work tree (relative(e.path)), without "./", matches
	# a pattern; written out, not a function called for every effect of every call
	hook_path := trim_prefix(trim_prefix(e.path, work_prefix), "./")
	some pattern in hook_globs
	glob.match(pattern, ["/"], hook_path)
	inert(e)
	msg := sprintf("%s would %s %s, which switches the git hook it defines off for every later commit. %s", [e.by, inert_verbs[e.op], e.path, advice])
}

# An edit in place whose result the call does not show (an edit without content: sed -i,
# perl -pi) of a hook file: it may leave the hook running nothing (sed -i '1a exit 0', sed -i
# '/npm test/d'), which hookgate cannot read, as it cannot read a configuration it does not
# see: asked (no_verify.on_unknown_config). Writing the hook's whole text (Write, echo … >, an
# Edit that shows its new lines) is judged above. Only commands edit unseen (a file tool's edit
# shows its text), so only the commands' effects are read: a file tool's call skips the rule.
unknown_config contains {"reason": msg, "pattern": "hook-files-unknown-edit"} if {
	some e in data.hookgate.lib.line_file_effects
	e.op == "edit"
	not is_string(e.content)
	hook_path := trim_prefix(trim_prefix(e.path, work_prefix), "./")
	some pattern in hook_globs
	glob.match(pattern, ["/"], hook_path)
	msg := sprintf("%s would change %s in place in a way this call does not show, and it may leave the git hook it defines running no check. Write the hook's whole new text instead, so that it can be read. %s", [e.by, e.path, advice])
}

inert_verbs := {"delete": "remove", "write": "leave nothing that runs a check in", "edit": "put an early exit into", "copy": "copy nothing that runs a check onto", "move": "move nothing that runs a check onto", "link": "link nothing that runs a check at", "mode": "make non-executable"}

# A path of the work tree relative to the call's cwd (the top of the work tree, as the payload
# gives it): what no_verify.hook_files' patterns are matched against.
relative(p) := trim_prefix(p, work_prefix)

work_prefix := concat("", [input.cwd, "/"]) if {
	is_string(input.cwd)
} else := ""

inert(e) if e.op == "delete"

inert(e) if {
	e.op in {"write", "copy", "move", "link"}
	is_string(e.content)
	inert_text(e.content)
}

inert(e) if {
	e.op in {"copy", "move", "link"}
	e.from in cfg.inert_sources # /dev/null, /bin/true
}

# An edit that puts an exit line in: the checks after it no longer run.
inert(e) if {
	e.op == "edit"
	is_string(e.content)
	some line in split(e.content, "\n")
	exit_line(trim_space(line))
}

# chmod -x, a-x, u=rw, 644: a hook its owner cannot execute is skipped by git; +x, g-w and
# 755 keep it running.
inert(e) if {
	e.op == "mode"
	is_string(e.mode) # chown, chattr, setfacl: no chmod mode
	regex.match(`^([ugoa]*[ua][ugoa]*)?-[rwXst]*x|^([ugoa]*[ua][ugoa]*)?=[rwst]*$|^[0-7]*[0246][0-7][0-7]$`, e.mode)
}

# Text that runs no check: nothing but idle lines (below), or an exit before the first line that
# runs anything (set, export and husky's loader come first in real hooks).
inert_text(text) if idle_text(text)

inert_text(text) if {
	lines := command_lines(text)
	count(lines) > 0
	exit_line(lines[0])
}

# Text every command of which ignores its failure (npm test || true, make check || :): the hook
# always succeeds, so no check stops a commit (no_verify.ignored_failure_pattern).
inert_text(text) if {
	lines := command_lines(text)
	count(lines) > 0
	every l in lines {
		regex.match(cfg.ignored_failure_pattern, l)
	}
}

# The lines of a hook's text that run something, in order.
command_lines(text) := [l |
	some raw in split(replace(text, "\\n", "\n"), "\n")
	l := trim_space(raw)
	not noop_line(l)
]

exit_line(l) if regex.match(cfg.exit_pattern, l)

# A line before the exit that runs no check: an idle line that does not exit (blank, comment,
# true), or a prelude (no_verify.prelude_pattern: set -e, export, husky's loader).
noop_line(l) if {
	idle_line(l)
	not exit_line(l)
}

noop_line(l) if regex.match(cfg.prelude_pattern, l)

# Text that runs no check: blank, comments and a shebang, and lines of no_verify.idle_lines.
idle_text(text) if {
	every line in split(replace(text, "\\n", "\n"), "\n") {
		idle_line(trim_space(line))
	}
}

idle_line(line) if line == ""

idle_line(line) if startswith(line, "#")

idle_line(line) if line in cfg.idle_lines

# ---- a line that changes git's configuration files without a commit after it --------------
# (echo '[core]hooksPath=/dev/null' >> ~/.gitconfig, cat x > .git/config.worktree, sed -i …):
# judged by the configuration a commit of this repository would then run with, read as if one
# followed the line (the line's writes are in what it sees; what the line does not show of
# them is unknown). Only a line whose commands name such a file pays for the second reading.
violations contains {"reason": msg, "pattern": "git-config-file-hooks-path"} if {
	x := later_commit
	value := x.git.hooks_path
	is_string(value)
	dir := git.hooks_dir(data.hookgate.lib.git_target(x.git), value)
	not hooks_run_from(dir, value)
	msg := sprintf("This line writes git's configuration so that core.hooksPath is %s (%s): later commits would run no hooks. Leave core.hooksPath alone. %s", [value, hooks_dir_state(dir), advice])
}

unknown_config contains {"reason": msg, "pattern": "git-config-file-unknown"} if {
	x := later_commit
	count(x.git.config_unknown) > 0
	msg := sprintf("This line changes git's configuration in a way hookgate cannot read (%s), and core.hooksPath there would switch the hooks off for later commits. Use git config with the setting written out. %s", [data.hookgate.lib.config_unknown_text(x.git), advice])
}

later_commit := {"cmd": c, "git": g} if {
	names_git_config_file
	probe := concat("\n", [input.tool_input.command, "git commit"])
	cmds := data.hookgate.lib.script_commands(probe)
	c := cmds[count(cmds) - 1]
	c.argv == ["git", "commit"]
	first := git.parse(c)
	g := git.configure(first, c, data.hookgate.lib.repository_config(data.hookgate.lib.git_target(first)))
}

names_git_config_file if {
	some c in data.hookgate.lib.line_commands
	not c.name in {"git", "cat", "less", "head", "tail", "grep", "rg", "ls", "stat", "diff"}
	# every word of every command of every shell call meets this: one test that nearly every word
	# fails first, on the words as they are (an operand is one of argv's), so that the operands
	# are picked out only for a command with such a word; then the names (a loop, not a
	# function of three rules)
	some w in array.concat(array.concat(c.writes, c.appends), c.argv)
	contains(w, "config")
	some t in array.concat(array.concat(c.writes, c.appends), shell.operands(c))
	contains(t, "config")
	some suffix in git_config_suffixes
	endswith(t, suffix)
}

# The names git's configuration files end in: ~/.gitconfig, $XDG_CONFIG_HOME/git/config and
# .git/config, .git/config.worktree.
git_config_suffixes := [".gitconfig", "git/config", ".git/config.worktree"]
