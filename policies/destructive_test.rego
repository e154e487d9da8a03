package hookgate.destructive_test

import rego.v1

shell_input(cmd) := {
	"hook_event_name": "PreToolUse",
	"tool_kind": "shell",
	"tool_input": {"command": cmd},
	"cwd": "/home/u/proj",
}

denied := [
	"rm -rf /",
	"rm -rf ~",
	"rm -rf ~/",
	"rm -rf $HOME",
	"rm -rf \"$HOME\"/*",
	"rm -rf /etc",
	"rm -rf /usr/lib",
	"rm -fr /var",
	"rm -r -f /",
	"rm --recursive --force /",
	"rm -Rf /opt",
	"rm -rf /tmp/../etc",
	"rm -rf /tmp",
	"rm -rf ..",
	"rm -rf ../",
	"rm -rf .",
	"rm -rf /home/u/proj",
	"rm -rf /home/u",
	"rm -rf ./*",
	"rm -rf ../other-project",
	"cd .. && rm -rf proj",
	"TMPDIR=/etc; rm -rf $TMPDIR/x",
	"export TMPDIR=/; rm -rf \"$TMPDIR\"/x",
	"rm -rf $SOME_VAR/",
	"sudo rm -rf /",
	"\"rm\" -rf /",
	"r\\m -rf /",
	"/bin/rm -rf /",
	"rm \u2010rf /",
	"bash -c 'rm -rf /'",
	"echo / | xargs rm -rf",
	"find / -maxdepth 1 -exec rm -rf {} +",
	"find /etc -name '*.conf' -delete",
	"parallel rm -rf ::: /etc /usr",
	"ssh host rm -rf /",
	"ssh host 'rm -rf ~'",
	"echo $(rm -rf /)",
	"git reset --hard",
	"git reset --hard HEAD~1",
	"git reset --merge",
	"git \"reset\" --hard",
	"sudo \"/bin/git\" reset --hard",
	"git checkout HEAD -- file.txt",
	"git restore -W file.txt",
	"rm -rf $TMPDIR/../etc",
	"rm -rf \"${TMPDIR}/../etc\"",
	"rm -rf /var/tmp/../etc",
	"rm -rf /tmp/",
	"echo hi | bash -c \"rm -rf /\"",
	"env FOO=1 bash -c \"rm -rf /\"",
	"node <<EOF\nconst fs = require('fs');\nfs.rmSync('/etc', { recursive: true });\nEOF\n",
	"ruby <<EOF\nrequire \"fileutils\"\nFileUtils.rm_rf(\"/\")\nEOF\n",
	"perl <<EOF\nsystem(\"rm -rf /\");\nEOF\n",
	"python3 - <<< \"import shutil; shutil.rmtree('/usr')\"",
	"node -e \"require('child_process').execSync('rm -rf /')\"",
	"git -C repo reset --hard",
	"git clean -fd",
	"git clean -f -x",
	"git clean --force",
	"git checkout -- .",
	"git checkout -- src/app.py",
	"git checkout .",
	"git checkout -f main",
	"git restore src/app.py",
	"git restore .",
	"git restore --staged --worktree a",
	"git switch -f main",
	"git switch --discard-changes main",
	"git branch -D feature",
	"git branch --delete --force feature",
	"git stash drop",
	"git stash clear",
	"mkfs.ext4 /dev/sda1",
	"mkfs -t ext4 /dev/sdb",
	"dd if=/dev/zero of=/dev/sda bs=1M",
	"chmod -R 777 /",
	"sudo chown -R me /usr",
	":(){ :|:& };:",
	"bomb() { bomb | bomb & }; bomb",
	"python -c \"import shutil; shutil.rmtree('/')\"",
	"python3 -c 'import os; os.system(\"rm -rf ~\")'",
	"node -e \"require('fs').rmSync('/etc', {recursive: true})\"",
	"ruby -e 'require \"fileutils\"; FileUtils.rm_rf(\"/usr\")'",
]

allowed := [
	"rm -rf build/",
	"rm -rf build dist node_modules",
	"rm -rf ./build",
	"rm -rf /home/u/proj/build",
	"rm -rf /tmp/x",
	"rm -rf /tmp/build-123/",
	"rm -rf /var/tmp/cache",
	"rm -rf $TMPDIR/x",
	"rm -rf \"${TMPDIR}/work\"",
	"cd sub && rm -rf out",
	"rm -r /etc/foo",
	"rm -f /etc/foo.lock",
	"rm -rf",
	"echo rm -rf /",
	"grep -r 'rm -rf /' docs",
	"git commit -m 'rm -rf / is dangerous'",
	"cat <<'EOF'\nrm -rf /\nEOF",
	"find . -name '*.pyc' -delete",
	"find . -name __pycache__ -exec rm -rf {} +",
	"find build -type d | xargs rm -rf",
	"git reset --soft HEAD~1",
	"git reset HEAD file",
	"git clean -n",
	"git clean -nd",
	"git clean -fn",
	"git checkout -b feature",
	"git checkout main",
	"git restore --staged a",
	"git switch main",
	"git switch -c feature",
	"git branch -d feature",
	"git stash",
	"git stash pop",
	"git stash list",
	"dd if=/dev/zero of=disk.img bs=1M count=10",
	"dd if=x of=/dev/null",
	"chmod -R 755 build",
	"chmod 777 /tmp/x",
	"python -c \"import shutil; shutil.rmtree('build')\"",
	"python -c 'print(1)'",
	"rm -rf /tmp/foo..bar",
	"git checkout --orphan gh-pages",
	"git restore -S file.txt",
	"git clean --dry-run",
	"git reset --mixed HEAD",
	"node <<EOF\nconsole.log(\"hello\");\nEOF\n",
	"python3 script.py <<EOF\nshutil.rmtree('/')\nEOF",
	"git tag -m \"Document rm -rf /\" v1.2.3",
	"bd create --description=\"This pattern blocks rm -rf /\"",
	"rg -n \"rm -rf /\" src/main.rs",
	"node -e \"console.log('rm -rf /')\"",
	"git help reset",
	"digit reset --hard",
	"ssh host rm -rf build",
]

test_denied if {
	every cmd in denied {
		count(data.hookgate.destructive.deny) > 0 with input as shell_input(cmd)
	}
}

test_allowed if {
	every cmd in allowed {
		count(data.hookgate.destructive.deny) == 0 with input as shell_input(cmd)
	}
}

test_reason_offers_alternative if {
	some r in data.hookgate.destructive.deny with input as shell_input("rm -rf /")
	r.pattern == "rm-recursive-force"
	contains(r.reason, "rm -rf ./build")
}

test_ask_when_configured if {
	count(data.hookgate.destructive.ask) > 0 with input as shell_input("git reset --hard")
		with data.hookgate.config.destructive.action as "ask"
	count(data.hookgate.destructive.deny) == 0 with input as shell_input("git reset --hard")
		with data.hookgate.config.destructive.action as "ask"
}

test_unknown_cwd_judges_relative_paths_safe if {
	count(data.hookgate.destructive.deny) == 0 with input as object.remove(shell_input("rm -rf build"), ["cwd"])
	count(data.hookgate.destructive.deny) > 0 with input as object.remove(shell_input("rm -rf ../x"), ["cwd"])
}
