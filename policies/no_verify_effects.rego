# METADATA
# title: no-verify (effects)
# description: The git-hook bypass through file tools: writing under .git/hooks, setting core.hooksPath in .git/config.
package hookgate.no_verify

import rego.v1

# Any change under a repository's .git/hooks, whatever its channel (lib.file_effects: Write,
# Edit, apply_patch, MCP, a redirection, rm/cp/mv/ln/chmod/tee/truncate…, git apply, PowerShell,
# interpreter code), and a link made to a hook (a later write through the link changes it):
# emptying, replacing or removing an installed hook switches it off as --no-verify does.
# (The path and a link's target each in a definition of its own: a function asked for every
# effect of every call would cost more than the second definition.)
violations contains v if {
	some e in data.hookgate.lib.file_effects
	is_string(e.path)
	contains(lower(concat("", ["/", e.path, "/"])), "/.git/hooks/") # .GIT/Hooks on macOS too
	v := hooks_changed(e, e.path)
}

violations contains v if {
	some e in data.hookgate.lib.file_effects
	e.op == "link"
	is_string(e.from)
	contains(lower(concat("", ["/", e.from, "/"])), "/.git/hooks/")
	v := hooks_changed(e, e.from)
}

hooks_changed(e, p) := {"reason": msg, "pattern": "git-hooks-modified"} if {
	msg := sprintf("%s would change %s, an installed git hook (or the hooks directory), which can switch the repository's checks off. %s", [e.by, p, advice])
}

# core.hooksPath written into a repository's .git/config (or any git config file) by a file tool.
violations contains {"reason": msg, "pattern": "git-config-hooks-path"} if {
	some e in input.effects
	e.kind in {"write", "edit"}
	contains(lower(e.path), "config") # first: the name of every git configuration file holds it, most paths do not
	git_config_file(e.path)
	text := lower(object.get(e, "new_text", object.get(e, "content", "")))
	some key in cfg.bypass_config
	contains(text, split(key, ".")[1])
	msg := sprintf("%s would set %s in %s, which replaces the repository's hooks. %s", [e.tool, key, e.path, advice])
}

git_config_file(p) if endswith(lower(p), "/.git/config")

git_config_file(p) if endswith(lower(p), "/.git/config.worktree")

git_config_file(p) if endswith(p, "/.gitconfig")

git_config_file(p) if endswith(p, "/git/config") # $XDG_CONFIG_HOME/git/config

# A tree deleted with everything under it (rm -rf .husky, rm -r .git/hooks, Remove-Item -Recurse
# .githooks, rimraf .husky: the write model's "tree") takes every hook in it: a directory that
# no_verify.hook_files puts hook files in (.husky, .husky/_, .githooks, .lefthook), or one that is
# or holds the directory git runs this repository's hooks from (core.hooksPath, else .git/hooks).
# husky's generated .husky/_ is such a directory: git runs no hook from a hooks path that is
# gone, until husky is installed again. (A tree with no hooks in it, node_modules or build, is
# everyday work.)
violations contains {"reason": msg, "pattern": "hooks-dir-deleted"} if {
	some e in data.hookgate.lib.file_effects
	e.op == "delete"
	e.tree
	holds_hooks(e.path)
	msg := sprintf("%s would delete %s and the git hooks in it, which switches the repository's checks off for every later commit. %s", [object.get(e, "how", e.by), e.path, advice])
}

# What the tree holds ("x" in it) is where a hook file pattern puts its files.
holds_hooks(path) if {
	some pattern in hook_globs
	glob.match(pattern, ["/"], concat("/", [relative(path), "x"]))
}

holds_hooks(path) if {
	hooks := active_hooks_dir.path
	some dir in [hooks, concat("", [hooks, "/"])]
	startswith(dir, concat("", [trim_suffix(path, "/"), "/"]))
}

# Where core.hooksPath makes git run this repository's hooks from (read only for a line that
# deletes a tree). Without it git runs .git/hooks, which the rule on .git/hooks above and
# destructive's on .git already guard.
active_hooks_dir := git.hooks_dir(input.cwd, paths[count(paths) - 1]) if {
	is_string(input.cwd)
	paths := object.get(git.config(input.cwd), "core.hookspath", [])
	count(paths) > 0
}
