# METADATA
# title: no-verify (effects)
# description: The git-hook bypass through file tools: writing under .git/hooks, setting core.hooksPath in .git/config.
package hookgate.no_verify

import rego.v1

# Write, Edit, apply_patch, an MCP filesystem tool…: any change under a repository's .git/hooks.
violations contains {"reason": msg, "pattern": "git-hooks-modified"} if {
	some e in input.effects
	e.kind in {"write", "edit", "delete", "move"}
	some p in [e.path, object.get(e, "to", null)]
	is_string(p)
	contains(lower(concat("", ["/", p, "/"])), "/.git/hooks/") # .GIT/Hooks on macOS too
	msg := sprintf("%s would change %s, an installed git hook (or the hooks directory), which can switch the repository's checks off. %s", [e.tool, p, advice])
}

# core.hooksPath written into a repository's .git/config (or any git config file) by a file tool.
violations contains {"reason": msg, "pattern": "git-config-hooks-path"} if {
	some e in input.effects
	e.kind in {"write", "edit"}
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

# The hook frameworks' own files (no_verify.hook_files): deleted, moved, written with nothing to
# run, or edited to exit first.
violations contains {"reason": msg, "pattern": "hook-files-disabled"} if {
	some e in input.effects
	some p in [e.path, object.get(e, "to", null)]
	is_string(p)
	hook_file(relative(p))
	disables(e)
	msg := sprintf("%s would switch off the git hook %s defines for every later commit. %s", [e.tool, p, advice])
}

relative(p) := trim_prefix(p, concat("", [input.cwd, "/"])) if is_string(input.cwd)

relative(p) := p if not is_string(input.cwd)

disables(e) if e.kind in {"delete", "move"}

disables(e) if {
	e.kind == "write"
	idle_text(e.content)
}

disables(e) if {
	e.kind == "edit"
	some line in split(object.get(e, "new_text", ""), "\n")
	trim_space(line) in {"exit", "exit 0"}
}
