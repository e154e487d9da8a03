package hookgate.git_plumbing_test

import rego.v1

shell_input(cmd) := {
	"hook_event_name": "PreToolUse",
	"tool_name": "Bash",
	"tool_kind": "shell",
	"tool_input": {"command": cmd},
	"cwd": "/home/u/proj",
}

denied(cmd) if count(data.hookgate.destructive.deny) > 0 with input as shell_input(cmd)

test_plumbing_that_discards_work_is_denied if {
	denied("git checkout HEAD src")
	denied("git checkout feature src/app.py src/lib.py")
	denied("git read-tree -u --reset HEAD")
	denied("git read-tree --reset -u HEAD~1")
	denied("git checkout-index -f -a")
	denied("git checkout-index --all --force --no-create")
	denied("git rm -r -f .")
	denied("git rm --force src/app.py")
	denied("git worktree remove --force ../wt")
	denied("git worktree remove -f ../wt")
	denied("git prune --expire=now")
	denied("git prune --expire now")
}

test_what_keeps_work_is_left_alone if {
	not denied("git checkout -b feature/login reference")
	not denied("git checkout --track origin/feature/login")
	not denied("git checkout feature/login")
	not denied("git read-tree -m feature/login feature/login")
	not denied("git read-tree --reset HEAD")
	not denied("git checkout-index --all")
	not denied("git checkout-index -a -f --prefix src/export_directory/")
	not denied("git rm -r .")
	not denied("git rm --cached -f src/app.py")
	not denied("git worktree remove ../wt")
	not denied("git prune --verbose")
	not denied("git prune -n --expire=now")
}

test_reasons_name_the_command if {
	some r in data.hookgate.destructive.deny with input as shell_input("git worktree remove --force ../wt")
	contains(r.reason, "worktree remove --force")
}
