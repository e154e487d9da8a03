# METADATA
# title: lib
# description: Helpers shared by the default guard pack; it makes no decisions of its own.
package hookgate.lib

import rego.v1

config := data.hookgate.config

substitutions := object.get(object.get(config, "shell", {}), "substitutions", [])

# The payload's working directory, or null when the host did not send one.
cwd := object.get(input, "cwd", null)

# The longest command line shell analysis reads (MAX_COMMAND_CHARS in shell/limits.py). A
# longer line is not analysed: the oversize guard answers for it, where an analysis would fail
# the whole evaluation (and fail open).
max_command_chars := 65536

# The simple commands a shell script runs (see shell.commands), read as the pack reads every
# script: with the known-safe command substitutions of its data ($(mktemp -d), $(git branch
# --show-current), …), file name patterns matched in the payload's directory, and the files the
# session's file tools wrote. A check of a
# rewritten line reads it the same way, so /usr/bin/g[i]t is git there too. The session's files
# are read only for a line whose commands depend on them (one that runs, copies, appends to or
# reads a file it did not write: null without them): reading them costs every shell call a
# file read, and most lines need none.
script_commands(text) := found if {
	found := shell.commands_with(text, {"substitutions": substitutions, "cwd": cwd, "files": "unread"})
	found != null
} else := shell.commands_with(text, {"substitutions": substitutions, "cwd": cwd, "files": session_files})

# Files the session's earlier calls wrote with a file tool (Write x.sh, then bash x.sh), kept
# by path and identity (device, inode, content hash): a line that runs one, under any name, runs
# what it holds (python3 w.py as python3 -c "<w.py>"); one that can no longer be read, was
# forgotten, or that the line changed unseen asks (limit session-file).
session_files := hookgate.session_files(input.session_id) if {
	is_string(input.session_id)
} else := []

# The simple commands of the shell line itself.
line_commands := script_commands(input.tool_input.command) if {
	input.tool_kind == "shell"
	is_string(input.tool_input.command)
	count(input.tool_input.command) <= max_command_chars
	not powershell_line # lib_effects.rego: a PowerShell line is read as PowerShell
}

# Every simple command a shell tool call would run: the line's own, then those an interpreter
# one-liner hands to a shell (python -c "os.system('git push -f')"). Those are not in the line's
# text: their span is null (nothing can edit them in place) and their via starts with the
# interpreter. Arrays rather than sets, here and for the interpreter code: a command is a large
# object, and a set would hash each one on every call.
commands := array.concat(called_commands, config_commands)

called_commands := array.concat(array.concat(line_commands, spawned_commands), effect_commands)

# What git runs through an alias of the repository's configuration, not of the line (alias.z =
# !rm -rf ~ or alias.r = rebase -x "rm -rf ~" in .git/config or a file it includes, then git z):
# each command the guards judge as they judge the line's, not in the line's text (span null), via
# git.
config_commands := [object.union(c, {"span": null, "via": array.concat(["git"], c.via), "cwd": inner_cwd(x.cmd.cwd, c.cwd), "env": object.union(x.cmd.env, c.env)}) |
	some x in line_git_commands
	x.git.alias_from == "configuration" # (first: most git lines have none, and every guard skips this list then)
	some text in x.git.config_runs
	some c in script_commands(text)
]

# Where a command of a script git runs works: its own cd after the git command's.
inner_cwd(outer, inner) := outer if {
	inner == null
} else := shell.resolve(outer, inner)

spawned_commands := [object.union(c, {"span": null, "via": array.concat([s.via], c.via)}) |
	some s in interpreter_shell_lines
	some c in script_commands(s.line)
]

interpreter_shell_lines contains {"via": x.cmd.name, "line": m[1]} if {
	some x in interpreter_code
	some pattern in config.interpreters.shell_patterns
	some m in regex.find_all_string_submatch_n(pattern, x.code, -1)
}

# subprocess.run(["rm", "-rf", "/"]): the list read as a command line.
interpreter_shell_lines contains {"via": x.cmd.name, "line": regex.replace(m[1], `["',]`, " ")} if {
	some x in interpreter_code
	some pattern in config.interpreters.argv_patterns
	some m in regex.find_all_string_submatch_n(pattern, x.code, -1)
}

# A script that interpreter code writes and the line then runs (python3 -c "open('x.sh',
# 'w').write('rm -rf ~')"; bash x.sh): each other string literal of the code may be a line of
# it, its \n escapes as new lines.
interpreter_shell_lines contains {"via": x.cmd.name, "line": replace(text, `\n`, "\n")} if {
	some x in interpreter_code
	code_writes(x.code)
	literals := code_literals(x.code)
	some file in literals
	runs_file(file)
	some text in literals
	text != file
}

# Code that writes, deletes or moves files (config.interpreters.write_patterns).
code_writes(code) if {
	some pattern in config.interpreters.write_patterns
	regex.match(pattern, code)
}

# The texts of the code's string literals, in order.
code_literals(code) := [concat("", array.slice(m, 1, 4)) | some m in regex.find_all_string_submatch_n(`"([^"]*)"|'([^']*)'|\x60([^\x60]*)\x60`, code, -1)]

# A file the line runs as a script: bash x.sh, sh -e x.sh, ./x.sh, source x.sh, . x.sh.
runs_file(file) if {
	some c in line_commands
	c.name in {"bash", "sh", "dash", "zsh", "ksh", "source", "."}
	some a in shell.operands(c)
	trim_prefix(a, "./") == trim_prefix(file, "./")
}

runs_file(file) if {
	some c in line_commands
	trim_prefix(c.argv[0], "./") == trim_prefix(file, "./")
	contains(c.argv[0], "/")
}

# The commands that run an interpreter: python3.12 is python, the version suffix is trimmed
# (no regex: this runs for every command).
interpreter_commands := [c |
	some c in line_commands
	trim_right(c.name, "0123456789.") in config.interpreters.names
]

# Code an interpreter is given on the line, each as {"cmd": the interpreter's command, "code"}.
interpreter_code := array.concat(code_arguments, code_stdin)

# Code given to an interpreter on its command line: python -c, node -e, perl -e, ruby -e, php -r
# (the words after the flag, joined: broken quoting splits the code into several words).
code_arguments := [{"cmd": c, "code": normalized_code(concat(" ", array.slice(c.argv, i + 1, count(c.argv))))} |
	some c in interpreter_commands
	some i, a in c.argv
	i > 0
	a in {"-c", "-e", "-E", "-p", "-r", "--eval", "--print"}
	count(c.argv) > i + 1
]

# Code fed to an interpreter's stdin by a here-document or here-string (python3 <<EOF … EOF).
code_stdin := [{"cmd": c, "code": normalized_code(c.stdin)} |
	some c in interpreter_commands
	is_string(c.stdin)
	count([a | some a in shell.operands(c); a != "-"]) == 0
]

# Code as the guards read it, where what it computes is evident: an expression that computes the
# home directory (Path.home(), $ENV{HOME}, os.homedir(), Dir.home; interpreters.home_expressions)
# is the literal "~", adjacent literals are joined ("rm -rf " + "~"), and a literal joined with a
# value computed when the code runs ends in an unknown ${computed} ("rm -rf " + sys.argv[1]).
normalized_code(code) := replace(computed, "\u001f", "") if {
	homes := regex.replace(code, concat("|", config.interpreters.home_expressions), `"~"`)
	# interpolated in a string ("rm -rf $ENV{HOME}/x", "#{Dir.home}", `${os.homedir()}`,
	# f"{Path.home()}"): part of that string
	interpolated := regex.replace(homes, `[#$]?\{"~"\}|"~"([^\s),;\]}+.])`, "~$1")
	# Each literal is marked (\x1f) where it opens: the patterns below start at a mark, so none
	# takes a closing quote for an opening one (in '/dev/null', '.git' the ', ' is no literal).
	marked := regex.replace(interpolated, `"[^"]*"|'[^']*'`, "\u001f$0")
	# twice: a chain of up to four literals ("a" + "b" + "c")
	joined := regex.replace(regex.replace(marked, literal_join, "\u001f\"$1$2$3$4\""), literal_join, "\u001f\"$1$2$3$4\"")
	computed := regex.replace(joined, computed_join, "\u001f\"$1$2$${computed}\"")
}

literal_join := `\x1f(?:"([^"]*)"|'([^']*)')\s*[+.]\s*\x1f(?:"([^"]*)"|'([^']*)')`

computed_join := `\x1f(?:"([^"]*)"|'([^']*)')\s*[+.]\s*[A-Za-z_$][\w.$]*(?:\([^()]*\)|\[[^\]]*\])*`

# Every git command of the call with its parse, except those that only print help. An array:
# as a set, each command and parse (large objects) would be hashed on every call. The parse
# reads the target repository's configuration (aliases, push refspecs, pull.rebase, …).
git_commands := array.concat(line_git_commands, other_git_commands)

# The git commands the line's stand for besides themselves (the three lists below): none unless
# one of them runs scripts through an alias of the configuration's, defines an alias or has a
# subcommand the line does not show,
# which one pass over them finds out (most lines: then the lists are not built).
default other_git_commands := []

other_git_commands := array.concat(array.concat(config_git_commands, defined_alias_commands), unknown_subcommand_commands) if {
	stands_for_others
}

stands_for_others if {
	some x in line_git_commands
	others(x.git)
}

# (one definition with elses: a function of several definitions runs each of them on every call)
others(g) := true if {
	some _ in g.config_runs
} else := true if {
	g.config_change.alias_argv
} else := true if {
	is_string(g.subcommand_kind)
}

line_git_commands := [{"cmd": c, "git": g} |
	some c in called_commands
	c.name == "git"
	g := configured(c, git.parse(c))
	not g.help
]

# A git command whose subcommand the line does not show (git $SUB -f origin main, a loop's
# variable) may be any: every git guard also reads it as each subcommand of
# config.git.unknown_subcommand_as (push, commit), the unknown word kept after it as a word the
# line does not show (unquoted, it may be several words, or none). Not in the line's text as
# such, so nothing rewrites it (span null).
unknown_subcommand_commands := [{"cmd": c, "git": g, "guessed": true} |
	some x in line_git_commands
	is_string(x.git.subcommand_kind)
	at := count(x.cmd.argv) - count(x.git.args) - 1
	some sub in config.git.unknown_subcommand_as
	argv := array.concat(array.concat(array.slice(x.cmd.argv, 0, at), [sub]), array.slice(x.cmd.argv, at, count(x.cmd.argv)))
	kinds := array.concat(array.concat(array.slice(x.cmd.kinds, 0, at), [null]), array.slice(x.cmd.kinds, at, count(x.cmd.kinds)))
	c := object.union(x.cmd, {"argv": argv, "kinds": kinds, "span": null})
	g := git.parse(c)
	not g.help
]

# What git config alias.p 'push -f' defines, as if run ("defined": true): a later command this
# line may not show runs it (a script, a call whose configuration is not sent to the server).
# Where it would run, and on which branch, is not known.
defined_alias_commands := [{"cmd": c, "git": g, "defined": true} |
	some x in line_git_commands
	argv := x.git.config_change.alias_argv
	c := object.union(x.cmd, {"argv": argv, "span": null, "kinds": [], "git_config": []})
	g := git.parse(c)
	not g.help
]

# The git commands of config_commands (alias.ship = !git push -f origin HEAD, then git ship).
config_git_commands := [{"cmd": c, "git": g} |
	some c in config_commands
	c.name == "git"
	g := configured(c, git.parse(c))
	not g.help
]

# Only a command whose meaning configuration may change (a name that may be an alias, push,
# pull, merge, clean; commit, rebase and am for core.hooksPath) reads the repository's
# configuration, with the files the reader gave up on (the parse's config_unknown). Whether it
# only prints help is judged on that parse: an alias there may give "-h" another meaning
# (alias.ci = commit --no-verify, then git ci -m -h commits).
configured(c, first) := git.configure(first, c, repository_config(git_target(first))) if {
	first.reads_config
} else := first if not first.reads_config

# git.config_read, or on a server given only the older git.config fact, that.
repository_config(dir) := read if {
	read := git.config_read(dir)
	read != null
} else := git.config(dir)

# "a (why); b (why)": the configuration files a git command's parse could not read.
config_unknown_text(g) := concat("; ", [sprintf("%s (%s)", [u.path, u.why]) | some u in g.config_unknown])

# NAME=value assignments the line makes for later commands (FOO=1; export FOO=1; declare …).
assignments contains concat("=", [name, value]) if {
	some c in commands
	c.name == ""
	some name, value in c.env
}

assignments contains a if {
	some c in commands
	c.name in {"export", "declare", "typeset", "readonly", "local"}
	some a in shell.operands(c)
	contains(a, "=")
}

# The directory a git command works in: --git-dir, else its cd/-C chain (the parse's place),
# against the cwd.
git_target(g) := shell.resolve(cwd, g.place)

# A branch name matching one of the protected patterns (globs such as release/*).
protected_branch(branch) if {
	is_string(branch)
	some pattern in config.protected_branches
	glob.match(pattern, ["/"], branch)
}

# The branch a push refspec or --delete operand names: "+src:refs/heads/dst" -> "dst".
ref_branch(ref) := trim_prefix(dst, "refs/heads/") if {
	parts := split(trim_prefix(ref, "+"), ":")
	dst := parts[count(parts) - 1]
}

# find … -delete, where -delete is an action (not the value of -name, -path, …).
find_deletes(c) if {
	c.name == "find"
	some i, a in c.argv
	a == "-delete"
	not c.argv[i - 1] in {"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname", "-newer", "-fprint", "-fprint0", "-fls", "-user", "-group", "-perm", "-type", "-size"}
}

# find … -exec rm {} ; (also -execdir, -ok, -okdir) deletes what it finds, as -delete does; so
# does fd -x rm / -X rm (fd appends the path when the command holds no placeholder).
find_deletes(c) if {
	c.name in finders
	some a in c.argv
	finder_exec(a)
	find_runs({"rm", "unlink", "shred", "rmdir"})
}

finders := {"find", "fd", "fdfind"}

finder_exec(a) if a in {"-exec", "-execdir", "-ok", "-okdir", "-x", "-X", "--exec", "--exec-batch"}

finder_exec(a) if startswith(a, "--exec=")

finder_exec(a) if startswith(a, "--exec-batch=")

# Some command that find -exec (fd -x) runs on what it found is one of names: the command it
# runs is its own entry, run via the finder, with {} for what it found.
find_runs(names) if {
	some d in commands
	d.name in names
	some f in d.via
	f in finders
	some a in d.argv
	contains(a, "{}")
}

# The paths git rm deletes from the work tree (not with --cached), each with its command.
git_removed := [{"cmd": x.cmd, "path": p} |
	some x in git_commands
	x.git.subcommand == "rm"
	not "--cached" in x.git.args
	some p in x.git.operands
]

# fd PATTERN PATH… (and Debian's fdfind): the paths of --search-path (fd then takes no path
# operand), else those after its pattern, else "." (the directory fd works in, which
# --base-directory moves for the commands it runs too: shell analysis gives them that directory).
find_roots(c) := fd_roots(searched, given) if {
	c.name in {"fd", "fdfind"}
	searched := {v | some i, a in c.argv; a == "--search-path"; v := c.argv[i + 1]} | {trim_prefix(a, "--search-path=") | some a in c.argv; startswith(a, "--search-path=")}
	given := {a | some i, a in shell.operands(c); i > 0}
}

fd_roots(searched, given) := searched if {
	count(searched) > 0
} else := given if {
	count(given) > 0
} else := {"."}

# The starting points of a find command: the words before its first expression.
find_roots(c) := {a |
	some i, a in c.argv
	i > 0
	every j in numbers.range(1, i) {
		not substring(c.argv[j], 0, 1) in {"-", "(", "!"}
	}
} if c.name == "find"
