package hookgate.team.remote_scope_test

import rego.v1

import data.hookgate.team.remote_scope

shell(cmd) := {"tool_kind": "shell", "tool_input": {"command": cmd}, "cwd": "/home/u/payments", "effects": []}

origin(url) := {"remote.origin.url": [url]}

test_applying_in_a_scoped_repository_is_denied if {
	every url in ["git@github.com:acme/payments.git", "https://github.com/acme/payments-api", "ssh://git@github.com/acme/payments.git"] {
		count(remote_scope.deny) == 1 with input as shell("cd deploy && terraform apply -auto-approve")
			with git.config as origin(url)
	}
}

test_other_repositories_and_commands_are_allowed if {
	count(remote_scope.deny) == 0 with input as shell("terraform apply") with git.config as origin("git@github.com:acme/website.git")
	count(remote_scope.deny) == 0 with input as shell("terraform apply") with git.config as origin("git@github.com:other/payments.git")
	count(remote_scope.deny) == 0 with input as shell("terraform plan") with git.config as origin("git@github.com:acme/payments.git")
	count(remote_scope.deny) == 0 with input as shell("terraform apply") with git.config as {}
}
