package diff.features

import rego.v1

default allow := false

allow if {
	input.user.role in {"admin", "owner"}
	not blocked
}

blocked if {
	some t in input.tags
	startswith(t, "blocked:")
}

names contains upper(u.name) if some u in input.users

by_role[r] := [u.name | some u in input.users; u.role == r] if some r in roles

roles := {u.role | some u in input.users}

first_admin := u.name if {
	some i
	u := input.users[i]
	u.role == "admin"
	every j in numbers.range(0, i - 1) { input.users[j].role != "admin" }
}

level := "high" if count(input.users) > 3
else := "mid" if count(input.users) > 1
else := "low"

stats := {
	"total": count(input.users),
	"sum": sum([u.age | some u in input.users]),
	"max": max([u.age | some u in input.users]),
	"sorted": sort([u.name | some u in input.users]),
	"avg": sum([u.age | some u in input.users]) / count(input.users),
}

msg := sprintf("%s has %d users: %v", [input.team, count(input.users), sort(names)])

pairs := [[k, v] | some k, v in input.labels]

split_path := split(trim_prefix(input.path, "/"), "/")

has_secret if regex.match(`(?i)(password|secret)\s*=`, input.text)

glob_hit if glob.match("*.example.com", [], input.host)

merged := object.union(input.labels, {"extra": "1"})

encoded := base64.encode(json.marshal(input.labels))
