package hookgate.destructive_test

import rego.v1

shell_input(cmd) := {
	"hook_event_name": "PreToolUse",
	"tool_kind": "shell",
	"tool_input": {"command": cmd},
	"cwd": "/home/u/proj",
}

denied := [
	"sudo A=1 rm -rf ~",
	"rm -rf ~/.cache",
	"find ~/.cache -delete",
	"rm -rf ~/.cache/pip/../../.ssh",
	"sudo -E PATH=/x rm -rf /",
	"rm ~/.ssh/id_rsa",
	"unlink ~/.bashrc",
	"rm -f $HOME/.gitconfig",
	"cd .. && rm other/notes.txt",
	"ln -sf /dev/null ~/.bashrc",
	"install /dev/null ~/.ssh/config",
	"find .git -delete",
	"find ./.git -type f -delete",
	"rm -rf /",
	"rm -rf ~",
	"rm -rf ~/",
	"rm -rf ~/Documents",
	"rm -rf ${HOME}/.ssh",
	"cd ~ && rm -rf proj",
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
	"RM -rf /",
	"git reset \u2010\u2010hard",
	"git reset \u2014hard",
	"nohup rm -rf / &",
	"time git reset --hard",
	"env git clean -fd",
	"bash <<< \"git reset --hard\"",
	"sh -lc 'git stash clear'",
	"cat <(git reset --hard)",
	"{ git reset --hard; }",
	"(cd repo && git clean -fdx)",
	"make build\ngit reset --hard",
	"true & git reset --hard",
	"git reset --hard \"",
	"git --git-dir=.git --work-tree=. reset --hard",
	"git -c core.pager=cat reset --hard",
	"xargs git reset --hard",
	"find . -name '*.orig' -exec git checkout -- {} \\;",
	"ssh host git reset --hard",
	"parallel git branch -D ::: a b",
	"eval 'git reset --hard'",
	"echo 'git reset --hard' | sh",
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
	"git clean -nf",
	"git clean -n && git clean -f",
	"git branch -Dv feature",
	"git reset -q --hard",
	"echo ok | git reset --hard",
	"command -- git reset --hard",
	"env -u PATH git reset --hard",
	"GIT CHECKOUT -- file",
	"rm -rf $PWD/../other",
	"( cd ..; rm -rf build )",
	"$( cd ..; rm -rf build )",
	"{ cd ..; rm -rf build; }",
	"pushd .. && rm -rf build",
	"TMPDIR=/Users rm -rf $TMPDIR/test-dir",
	"busybox rm -rf /some/path",
	"python -c \"import os; os.system(\"rm -rf /some/path\")\"",
	"python -c \"import subprocess; subprocess.run(['rm', '-rf', '/etc'])\"",
	"python -c \"import os; os.system('find / -delete')\"",
	"find / -exec echo {} \\; -delete",
	"R=rm; $R -rf /",
	"git submodule foreach 'git reset --hard'",
	"git rebase --exec='rm -rf /' HEAD~3",
	"git bisect run rm -rf ~",
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
	# a script printed by echo or printf and run: eval, a substitution, a process substitution
	"$(echo rm -rf /)",
	"eval \"$(printf 'rm -rf ~')\"",
	"source <(echo rm -rf /)",
	"X='rm -rf /'; eval \"$X\"",
	"echo rm -rf / | sh",
	# contents destroyed in place, outside the project
	"shred -u /etc/passwd",
	"shred -n 3 ~/.ssh/id_ed25519",
	"truncate -s 0 /etc/hosts",
	"sudo truncate --size=0 /var/log/syslog",
	"echo 'nameserver 1.1.1.1' > /etc/resolv.conf",
	"> ~/.bashrc",
	": > $HOME/.ssh/authorized_keys",
	"cat /dev/null >| /var/lib/app/data.db",
	"(echo hi) > /etc/motd",
	"echo x &> ../other-repo/README.md",
	"echo x > /dev/sda",
	"echo 127.0.0.1 x | sudo tee /etc/hosts",
	"sh -c 'echo 1 > /etc/x'",
	# history git could otherwise recover
	"git filter-branch --force --index-filter 'git rm --cached secrets' HEAD",
	"git filter-repo --path secrets --invert-paths",
	"git update-ref -d refs/heads/main",
	"git reflog expire --expire=now --all",
	"git reflog expire --expire-unreachable=now --all && git gc --prune=now",
	"git reflog delete HEAD@{1}",
	"git gc --prune=all",
	"rm -r ~/Documents",
	"rm -R /etc",
	"rm --recursive ~/x",
	"rm -r /etc/foo",
	"cat list | xargs rm -rf",
	"xargs rm -rf < paths.txt",
	"git ls-files -z -o | xargs -0 rm -rf",
	"echo /etc | xargs rm -r",
	"rm -rf .git",
	"rm -rf ./.git/ && git init",
	"rm -rf vendor/x/.git",
	"rsync -a --delete empty/ ~/",
	"rsync -a --delete dist/ /var/www/html/",
	"rsync -a --delete-after empty/ .",
	"cp /dev/null ~/.bashrc",
	"echo 'rm -rf ~' > /tmp/x.sh && chmod +x /tmp/x.sh && /tmp/x.sh",
	"git config alias.nuke '!rm -rf ~'",
	"git config alias.wipe 'reset --hard'",
	# launchers, containers and programs that run other programs
	"docker run --rm -v /:/host alpine rm -rf /host/etc",
	"podman run -v \"$HOME\":/root fedora sh -c 'rm -rf /root/*'",
	"docker run --mount type=bind,source=/,target=/mnt -w /mnt alpine rm -rf usr",
	"npx rimraf ~",
	"pnpm dlx del-cli /etc",
	"npm exec -c 'rm -rf ~'",
	"toybox rm -rf /",
	"awk 'BEGIN { system(\"rm -rf \" ENVIRON[\"HOME\"]) }'",
	"gawk 'BEGIN { print \"rm -rf /\" | \"sh\" }'",
	"printf 'x:\\n\\trm -rf ~\\n' | make -f -",
	"nix-shell --run 'rm -rf ~'",
	"tar --remove-files -cf /tmp/h.tar ~",
	"tar cf /tmp/x.tar --remove-files -C / etc",
	"parallel rm -rf ::: /etc",
	# effects across the line
	"ln -s ~ h && rm -rf h/",
	"mv ~/Documents d && rm -rf d",
	"cd / && cd /tmp && cd - && rm -rf etc",
	"pushd ~ && pushd /tmp && popd && rm -rf ./*",
	# interpreter one-liners, by what they compute
	"python3 -c 'import shutil, pathlib; shutil.rmtree(pathlib.Path.home())'",
	"python3 -c \"import shutil, os; shutil.rmtree(os.path.expanduser('~'))\"",
	"perl -MFile::Path=remove_tree -e 'remove_tree($ENV{HOME})'",
	"node -e \"require('fs').rmSync(require('os').homedir(), {recursive: true})\"",
	"ruby -e 'require \"fileutils\"; FileUtils.rm_rf Dir.home'",
	"python3 -c \"import os; os.system('rm -rf ' + os.path.expanduser('~'))\"",
	"php -r 'system(\"rm -rf \" . getenv(\"HOME\"));'",
	"python3 -c 'import shutil, sys; shutil.rmtree(sys.argv[1])' x",
]

allowed := [
	"rm -f ~/.cache/pip/selfcheck.json",
	"rm -rf ~/.cache/pip",
	"rm -rf ~/.cache/ms-playwright/chromium-1091/",
	"find ~/.cache/huggingface -name '*.lock' -delete",
	"rm -rf ~/.claude/todos/session-1",
	"rm ~/.claude/todos/t.json",
	"rm -f .git/index.lock",
	"rm /tmp/build.log",
	"rm -f \"$OUT\"",
	"rm src/old.py tests/test_old.py",
	"ln -s /dev/null ~/.bashrc",
	"ln -sf /dev/null build/cache.log",
	"ln -sf \"$PWD/bin/tool\" ~/.local/bin/tool",
	"find . -name '*.pyc' -delete",
	"find .git/hooks -type f",
	"rm -rf build/",
	"echo $(echo rm -rf /)",
	"cat <(echo rm -rf /)",
	"rm -rf build dist node_modules",
	"rm -rf ./build",
	"rm -rf /home/u/proj/build",
	"rm -rf /tmp/x",
	"rm -rf /tmp/build-123/",
	"rm -rf /var/tmp/cache",
	"rm -rf $TMPDIR/x",
	"rm -rf \"${TMPDIR}/work\"",
	"cd sub && rm -rf out",
	"rm -f /etc/foo.lock",
	"rm -r build",
	"echo build | xargs rm -r",
	"find . -print0 | xargs -0 rm -rf",
	"rm -f .git/index.lock",
	"rm -rf .github",
	"rsync -a --delete src/ build/",
	"rsync -av --delete-after dist/ host:/srv/www",
	"rsync -a dist/ ~/backup/",
	"rsync -a --delete empty/ /tmp/x/",
	"cp /dev/null build.log",
	"cp a.txt ~/b.txt",
	"echo 'rm -rf ~' > /tmp/x.sh && cat /tmp/x.sh",
	"rm -rf",
	"echo rm -rf /",
	"grep -r 'rm -rf /' docs",
	"git commit -m 'rm -rf / is dangerous'",
	"cat <<'EOF'\nrm -rf /\nEOF",
	"find . -name '*.pyc' -delete",
	"find / -name -delete -print",
	"find / -exec echo -delete \\; -print",
	"rm -rf $PWD/build",
	"rm -rf \"${PWD}/dist\"",
	"git restore --staged .",
	"python -c \"print('ok')\"",
	"bash -c 'echo ok'",
	"find . -name __pycache__ -exec rm -rf {} +",
	"find build -type d | xargs rm -rf",
	"git reset --soft HEAD~1",
	"git reset HEAD file",
	"git clean -n",
	"git clean -nd",
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
	"chmod -R u+w .",
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
	"git reset --help",
	"command -v rm",
	"echo 'git reset --hard' > notes.md",
	"printf '%s\\n' 'rm -rf /'",
	"tee -a log <<< 'git clean -fdx'",
	"git --no-pager log -n 5",
	"git -c core.pager='less -FRX' log --oneline",
	"man git-reset",
	"less +/--hard README.md",
	"git log --grep='reset --hard'",
	"git-lfs prune",
	"digit reset --hard",
	"digit reset --hard",
	"ssh host rm -rf build",
	"rm -rf ~/proj/build",
	"rm -rf $HOME/proj/dist",
	"cd ~/proj && rm -rf build",
	"shred -u secrets.tmp",
	"truncate -s 0 build/app.log",
	"shred -u /tmp/key",
	"git gc",
	"git gc --prune=2.weeks.ago",
	"git reflog expire",
	"git reflog show",
	"git update-ref refs/heads/topic HEAD",
	"make > build.log 2>&1",
	"npm test 2>/dev/null >/dev/stdout",
	"echo x >> ~/.bashrc",
	"echo x | tee -a /etc/hosts",
	"echo x | tee out.txt",
	"npm test > \"$LOG\"",
	"echo x > /tmp/out",
	"echo x > $TMPDIR/out",
	"ls >&2",
	"cd /tmp && echo x > y",
	"docker run --rm -v \"$PWD\":/app -w /app node:20 sh -c 'rm -rf node_modules && npm ci'",
	"docker run --rm alpine rm -rf /var/cache/apk",
	"npx rimraf dist coverage",
	"npx prettier --write .",
	"find . -name '*.pyc' -delete",
	"tar --remove-files -czf logs.tgz logs/",
	"make -f - <<'EOF'\nclean:\n\trm -rf build\nEOF",
	"awk -F: '{ print $1 | \"sort\" }' /etc/passwd",
	"ln -s ~ h && rm -f h",
	"cp -r .git /tmp/g && rm -rf /tmp/g",
	"pushd /tmp && popd && rm -rf build",
	"python -c 'import shutil; shutil.rmtree(\"build\")'",
	"python -c 'print(1)'",
	"python3 -c \"import os; print(os.path.expanduser('~'))\"",
	"node -e \"require('fs').rmSync('dist', {recursive: true, force: true})\"",
]

test_denied if {
	every cmd in denied {
		count(data.hookgate.destructive.deny) > 0 with input as shell_input(cmd)
	}
}

test_a_file_of_a_session_started_in_the_home_is_its_own if {
	count(data.hookgate.destructive.deny) == 0 with input as object.union(shell_input("rm notes.txt"), {"cwd": "/home/u"})
	count(data.hookgate.destructive.deny) > 0 with input as object.union(shell_input("rm .ssh/id_rsa ~/.bashrc"), {"cwd": "/home/u/proj"})
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

pattern_for(cmd) := r.pattern if {
	some r in data.hookgate.destructive.deny with input as shell_input(cmd)
}

test_each_deletion_names_its_pattern if {
	pattern_for("rm -r ~/Documents") == "rm-recursive"
	pattern_for("rm -rf ~/Documents") == "rm-recursive-force"
	pattern_for("cat list | xargs rm -r") == "rm-recursive"
	pattern_for("rm -rf .git") == "git-history-destroy"
	pattern_for("rsync -a --delete empty/ ~/") == "rsync-delete"
	pattern_for("cp /dev/null ~/.bashrc") == "overwrite-file"
	pattern_for("tar --remove-files -cf /tmp/h.tar ~") == "tar-remove-files"
	pattern_for("python3 -c 'import shutil; shutil.rmtree(x)'") == "interpreter-delete"
}

test_reasons_for_launched_deleters if {
	contains(reason_for("npx rimraf ~"), "rimraf ~ would delete /home/u")
	contains(reason_for("python3 -c 'import shutil; shutil.rmtree(x)'"), "deletes x recursively, a path computed when it runs")
	contains(reason_for("docker run -v /:/h a rm -rf /h/etc"), "rm -rf /etc would delete /etc")
}

test_reason_names_the_flags_and_what_is_unknown if {
	contains(reason_for("rm -r /etc"), "rm -r /etc would delete /etc")
	contains(reason_for("xargs rm -rf < list"), "rm -rf through xargs deletes whatever paths it reads")
	contains(reason_for("rsync -a --delete e/ ."), "(the project directory itself)")
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

reason_for(cmd) := r.reason if {
	some r in data.hookgate.destructive.deny with input as shell_input(cmd)
}

test_reason_says_what_the_path_is if {
	contains(reason_for("rm -rf /"), "would delete / (a parent of the project directory)")
	contains(reason_for("rm -rf ."), "would delete /home/u/proj (the project directory itself)")
	contains(reason_for("rm -rf /etc"), "would delete /etc (outside the project directory and the temp directories)")
	contains(reason_for("rm -rf /tmp"), "would delete /tmp (a whole temp directory)")
}

test_reason_when_the_project_is_a_temp_directory if {
	doc := object.union(shell_input("rm -rf /tmp"), {"cwd": "/tmp"})
	some r in data.hookgate.destructive.deny with input as doc
	contains(r.reason, "(the project directory itself)")
	doc2 := object.union(shell_input("rm -rf /tmp"), {"cwd": "/tmp/proj"})
	some r2 in data.hookgate.destructive.deny with input as doc2
	contains(r2.reason, "(a parent of the project directory)")
}

test_unknown_home_is_never_safe if {
	doc := object.union(shell_input("rm -rf ~/proj/build"), {"cwd": "/srv/app"})
	count(data.hookgate.destructive.deny) > 0 with input as doc
}

test_project_itself_and_parents_even_under_tmp if {
	doc := object.union(shell_input("rm -rf ."), {"cwd": "/tmp/work"})
	count(data.hookgate.destructive.deny) > 0 with input as doc
	doc2 := object.union(shell_input("rm -rf build"), {"cwd": "/tmp/work"})
	count(data.hookgate.destructive.deny) == 0 with input as doc2
}

test_home_or_top_level_is_not_a_project if {
	count(data.hookgate.destructive.deny) > 0 with input as object.union(shell_input("rm -rf build"), {"cwd": "/home/u"})
	count(data.hookgate.destructive.deny) > 0 with input as object.union(shell_input("rm -rf build"), {"cwd": "/Users/u"})
	count(data.hookgate.destructive.deny) > 0 with input as object.union(shell_input("rm -rf lib"), {"cwd": "/usr"})
	count(data.hookgate.destructive.deny) == 0 with input as object.union(shell_input("rm -rf build"), {"cwd": "/tmp/project"})
	count(data.hookgate.destructive.deny) > 0 with input as object.union(shell_input("rm -rf x"), {"cwd": "/"})
	count(data.hookgate.destructive.deny) == 0 with input as object.union(shell_input("rm -rf build"), {"cwd": "/home/u/repo"})
}

test_reason_for_a_broad_project if {
	some r in data.hookgate.destructive.deny with input as object.union(shell_input("rm -rf build"), {"cwd": "/home/u"})
	contains(r.reason, "too broad to be a project")
}

# A cwd that does not show the home (/srv/app) leaves the home unknown: ~/.cache is still ~/.cache.
test_disposable_home_files_whatever_the_cwd if {
	count(data.hookgate.destructive.deny) == 0 with input as object.union(shell_input("rm -f ~/.cache/pip/selfcheck.json"), {"cwd": "/srv/app"})
	count(data.hookgate.destructive.deny) > 0 with input as object.union(shell_input("rm -f ~/.ssh/id_rsa"), {"cwd": "/srv/app"})
}

test_find_exec_deletes_as_find_delete if {
	every cmd in ["find ~ -type f -exec rm {} \\;", "find / -name '*.log' -execdir /bin/rm -f {} +", "find .. -ok rm {} \\;"] {
		count(data.hookgate.destructive.deny) > 0 with input as shell_input(cmd)
	}
	every cmd in ["find . -name '*.pyc' -exec rm {} +", "find build -type f -exec rm -f {} +", "find ~ -name '*.txt' -exec grep -l x {} +"] {
		count(data.hookgate.destructive.deny) == 0 with input as shell_input(cmd)
	}
}

# Deletes and writes read from the write model (lib.file_effects), whatever spelling made them:
# tree deletes (tree: true), what xargs is fed, what a printed script or sudo does.
test_the_write_model_reaches_destructive if {
	every cmd in [
		"ls -d ~/.* | xargs -r rm -rf",
		"tar -C ~ -cf /tmp/k.tar --remove-files .ssh",
		"rsync -a --delete-excluded e/ ~/site",
		"echo 'rm -r ~/notes' | bash",
		"printf 'x' | sudo tee ~/.profile",
		"> ~/.ssh/config",
		"find ~ -name '*.bak' | xargs rm -f",
		"python3 -c \"import shutil; shutil.rmtree('.git')\"",
		"rmrf /srv/data",
		"tar --remove-files -cf /tmp/a.tar -T paths.txt",
	] {
		count(data.hookgate.destructive.deny) > 0 with input as shell_input(cmd)
	}
	every cmd in [
		"git ls-files -z -- '*.orig' | xargs -0 rm -f",
		"rsync -a --delete dist/ deploy@web:/srv/www",
		"tar czf /tmp/src.tgz --remove-files -C build out",
		"find build -name '*.o' | xargs rm -f",
		"mkdir -p ~/.config/tool",
		"sudo tee -a /etc/hosts <<< '127.0.0.1 dev'",
	] {
		count(data.hookgate.destructive.deny) == 0 with input as shell_input(cmd)
	}
}

test_reasons_from_the_write_model if {
	contains(reason_for("find / -exec echo {} \\; -delete"), "under / (a parent of the project directory)")
	contains(reason_for("tar -C ~ -cf /tmp/k.tar --remove-files .ssh"), "deletes /home/u/.ssh after archiving it")
	contains(reason_for("ls | xargs rm -r"), "rm -r through xargs deletes whatever paths it reads")
	contains(reason_for("python3 -c \"import shutil; shutil.rmtree('.git')\""), "the repository's history")
	pattern_for("rmrf /srv/data") == "rm-recursive"
	pattern_for("> /etc/motd") == "overwrite-file"
}

# A command run on another machine (ssh, kubectl exec: lib.remote_file_effects) is judged as
# that machine's: its paths are not placed against this cwd (the regression: ssh prod rm -rf
# /home/u/proj/x read as this project's x). A relative path there (its home, or where the line
# cds to there) may go; an absolute or ~ path may not, as before the write model.
test_another_machines_deletes_are_its_own if {
	every cmd in [
		"ssh prod rm -rf /home/u/proj/x",
		"ssh prod 'cd /srv/app && rm -rf releases'",
		"ssh -p 2222 deploy@web1 rm -rf ~/app",
		"cd /tmp && ssh prod rm -rf ~/.config",
		"kubectl exec -it api-0 -- rm -rf /var/lib/app",
		"ssh prod 'echo > /etc/hosts'",
		"ssh prod rm ~/.ssh/authorized_keys",
		"ssh prod rsync -a --remove-source-files /data/ /backup/",
	] {
		count(data.hookgate.destructive.deny) > 0 with input as shell_input(cmd)
	}
	every cmd in [
		"ssh ci rm -rf build-123",
		"cd /etc && ssh ci rm -rf cache",
		"kubectl exec web-0 -- rm -rf tmp/cache",
		"ssh prod rm -rf /tmp/deploy-42",
		"ssh prod 'cd app && rm -rf node_modules'",
	] {
		count(data.hookgate.destructive.deny) == 0 with input as shell_input(cmd)
	}
	contains(reason_for("ssh prod rm -rf /home/u/proj/x"), "an absolute or home path on another machine")
	pattern_for("kubectl exec api-0 -- rm -rf /var/lib/app") == "rm-recursive-force"
}

# Inside a container a path that no bind mount maps here is the container's own; a bind mount's
# path is the host directory it maps to.
test_container_paths_are_the_containers_unless_mounted if {
	every cmd in [
		"docker run --rm -v \"$PWD\":/src alpine rm -rf /src",
		"docker run --rm -v ~/.ssh:/k alpine rm -rf /k",
		"podman run --rm -v /:/host -w /host/etc img rm -rf ssh",
		"docker run --rm --mount type=bind,source=/var/lib,target=/v img rm -rf /v/x",
	] {
		count(data.hookgate.destructive.deny) > 0 with input as shell_input(cmd)
	}
	every cmd in [
		"docker run --rm alpine rm -rf /var/cache/apk",
		"docker run --rm -w /app node:20 rm -rf /usr/local/lib/node_modules/npm",
		"docker run --rm -v \"$PWD\":/src -w /src node:20 rm -rf node_modules",
		"docker run --rm -v data:/d alpine rm -rf /d/old",
	] {
		count(data.hookgate.destructive.deny) == 0 with input as shell_input(cmd)
	}
	contains(reason_for("docker run --rm -v \"$PWD\":/src alpine rm -rf /src"), "the project directory itself")
}

# rsync --remove-source-files deletes what it sent: every file under a source it recurses into.
test_rsync_remove_source_files_deletes_its_sources if {
	every cmd in [
		"rsync -a --remove-source-files ~/Documents/ /mnt/usb/docs/",
		"rsync --remove-source-files ~/.aws/credentials backup:creds/",
		"rsync -a --remove-source-files .git/ /tmp/git-copy/",
		"rsync -r --remove-source-files /var/log/ /tmp/logs/",
	] {
		count(data.hookgate.destructive.deny) > 0 with input as shell_input(cmd)
	}
	every cmd in [
		"rsync -av --remove-source-files dist/ deploy@web:/srv/app/",
		"rsync --remove-source-files build/app.tar /tmp/",
		"rsync --remove-source-files /tmp/app.log logs/",
		"rsync -av --remove-source-files backup:/var/log/ logs/",
		"rsync -a ~/Documents/ /mnt/usb/docs/",
	] {
		count(data.hookgate.destructive.deny) == 0 with input as shell_input(cmd)
	}
	pattern_for("rsync -a --remove-source-files ~/Documents/ /mnt/usb/docs/") == "rsync-remove-source-files"
	contains(reason_for("rsync -a --remove-source-files ~/Documents/ /mnt/usb/docs/"), "deletes every file under /home/u/Documents once it is sent")
	pattern_for("rsync --remove-source-files ~/.aws/credentials backup:creds/") == "rm-outside-project"
	pattern_for("rsync -a --remove-source-files .git/ /tmp/git-copy/") == "git-history-destroy"
}

# unsafe(f)'s cheap first test (inside_project: a path strictly inside the project as written,
# with nothing to resolve) decides nothing the full judgement would decide otherwise: the same
# violations with the test disabled (a project_prefix no path starts with), for paths on both
# sides of every condition it checks, from every kind of project directory.
# A sample: tests/test_destructive_shortcut.py runs the whole product of working directories,
# path spellings and writers (this test runs on every publish of the pack, and is its slowest).
shortcut_cwds := ["/home/u/proj/", "/home/u", "/tmp/w"]

shortcut_paths := ["src/a.py", "", "*", "./a", "a/.", "a/..", "../x", "a//b", "a/", ".git", "a/../../x", "{}"]

shortcut_inputs contains object.union(shell_input(line), {"cwd": cwd}) if {
	some cwd in shortcut_cwds
	some rel in shortcut_paths
	path := concat("/", [trim_suffix(cwd, "/"), rel])
	some line in [
		sprintf("rm -rf %s", [path]),
		sprintf("echo x > %s", [path]),
		sprintf("mv %s /tmp/y", [path]),
		sprintf("ssh h rm -rf %s", [path]),
	]
}

shortcut_inputs contains {
	"hook_event_name": "PreToolUse",
	"tool_name": tool,
	"tool_kind": "edit",
	"tool_input": {},
	"cwd": cwd,
	"effects": [{"kind": kind, "path": path, "tool": tool, "content": "x", "to": "/etc/y"}],
} if {
	some cwd in shortcut_cwds
	some rel in shortcut_paths
	path := concat("/", [trim_suffix(cwd, "/"), rel])
	some tool, kind in {"Write": "write", "Delete": "delete", "Edit": "edit", "Move": "move"}
}

test_the_inside_project_shortcut_changes_no_answer if {
	count(shortcut_inputs) > 250
	every inp in shortcut_inputs {
		fast := data.hookgate.destructive.violations with input as inp
		full := data.hookgate.destructive.violations with input as inp with data.hookgate.destructive.project_prefix as "<none>"
		fast == full
	}
}

test_the_inside_project_shortcut_is_taken if {
	inp := object.union(shell_input("echo x > /home/u/proj/src/a.py"), {"cwd": "/home/u/proj"})
	data.hookgate.destructive.project_prefix == "/home/u/proj/" with input as inp
	some f in data.hookgate.destructive.effects with input as inp
	data.hookgate.destructive.inside_project(f) with input as inp
	not data.hookgate.destructive.inside_project(object.union(f, {"path": "/home/u/proj/a/../../x"})) with input as inp
	not data.hookgate.destructive.inside_project(object.union(f, {"path": "/home/u/proj/*"})) with input as inp
	not data.hookgate.destructive.project_prefix with input as object.union(inp, {"cwd": "/home/u"})
}
