package hookgate.team.block_writes_test

import rego.v1

import data.hookgate.team.block_writes

shell(cmd) := {"tool_kind": "shell", "tool_input": {"command": cmd}, "cwd": "/home/u/proj", "effects": []}

tool(effect) := {"tool_kind": "edit", "tool_input": {}, "cwd": "/home/u/proj", "effects": [effect]}

test_file_tools_under_the_path_are_denied if {
	count(block_writes.deny) == 1 with input as tool({"kind": "write", "path": "/home/u/proj/infra/prod/main.tf", "content": "x", "empty": false, "tool": "Write"})
	count(block_writes.deny) == 1 with input as tool({"kind": "edit", "path": "/home/u/proj/infra/prod/vars.tf", "old_text": "a", "new_text": "b", "tool": "Edit"})
	count(block_writes.deny) == 1 with input as tool({"kind": "move", "path": "/home/u/proj/a.tf", "to": "/home/u/proj/infra/prod/a.tf", "tool": "apply_patch"})
}

test_the_shell_under_the_path_is_denied if {
	every cmd in ["echo x > infra/prod/main.tf", "cd infra && echo x >> prod/vars.tf", "rm -rf infra/prod", "sed -i s/a/b/ infra/prod/vars.tf", "cp main.tf infra/prod/", "mv infra/prod/a.tf old/", "bash -c 'touch infra/prod/new.tf'"] {
		count(block_writes.deny) == 1 with input as shell(cmd)
	}
}

test_everything_else_is_allowed if {
	every cmd in ["cat infra/prod/main.tf", "echo x > infra/staging/main.tf", "rm -rf infra/production-notes", "cp infra/prod/main.tf /tmp/", "sed -n p infra/prod/vars.tf", "terraform plan -chdir=infra/prod"] {
		count(block_writes.deny) == 0 with input as shell(cmd)
	}
	count(block_writes.deny) == 0 with input as tool({"kind": "write", "path": "/home/u/proj/src/app.py", "content": "x", "empty": false, "tool": "Write"})
	count(block_writes.deny) == 0 with input as tool({"kind": "read", "path": "/home/u/proj/infra/prod/main.tf", "tool": "Read"})
}
