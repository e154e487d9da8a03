"""Build ``everyday_tldr.json`` from the tldr-pages examples of developer tools (CC BY 4.0).

Not run by the tests (they read the JSON it wrote). Run it from a checkout of
https://github.com/tldr-pages/tldr to refresh the data:

    python tests/data/guards/build_everyday.py /path/to/tldr > tests/data/guards/everyday_tldr.json

Each example's ``{{placeholders}}`` become realistic values (a branch ``feature/login``, a file
``src/app.py``, …); option alternatives ``{{[-f|--force]}}`` take the short and the long spelling
in turn. Examples that would really harm the machine or the repository's history (a guard should
fire on them) are kept in ``excluded`` with the reason, by the ``EXCLUDE`` table below.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

# tldr pages (pages/common/<name>.md) of the tools coding agents run every day.
PREFIXES = (
    "git-", "npm", "yarn", "pnpm", "bun", "docker", "kubectl", "helm", "terraform", "gh-",
    "cargo", "go-", "pip", "poetry", "uv", "aws-s3", "gcloud-", "az-", "rustup", "deno", "mvn",
    "gradle", "dotnet",
)  # fmt: skip
PAGES = {
    "git", "gh", "go", "make", "cmake", "ninja", "node", "python", "python3", "pytest", "tox",
    "jq", "yq", "grep", "rg", "find", "fd", "sed", "awk", "tar", "zip", "unzip", "ls", "cat",
    "head", "tail", "wc", "sort", "uniq", "diff", "mkdir", "cp", "mv", "ln", "chmod", "touch",
    "ps", "lsof", "env", "which", "du", "df", "ruff", "black", "mypy", "eslint", "prettier",
    "tsc", "jest", "vitest", "rustc", "rsync", "tmux", "openssl", "base64", "sha256sum", "xargs",
    "tee", "curl", "wget", "ssh", "scp", "pre-commit", "bazel", "psql", "sqlite3", "redis-cli",
    "npx", "pipx", "virtualenv", "pyenv", "nvm", "gem", "bundle", "rake", "composer", "java",
    "javac", "gcc", "clang", "rustfmt", "shellcheck", "watch", "kill", "pkill", "realpath",
    "basename", "dirname", "date", "sleep", "echo", "printf", "export", "file", "stat", "less",
    "tree", "time", "nproc", "uname", "whoami", "hostname", "top", "free", "mktemp", "cut", "tr",
    "rm", "rmdir", "bash", "sh", "ssh-keygen", "ssh-add", "nohup", "sudo",
}  # fmt: skip
# git-extras pages (not commands of git itself) are left out: git would not know them.
GIT_SUBCOMMANDS = set(
    subprocess.run(["git", "help", "-a"], capture_output=True, text=True).stdout.split()
)

# (regex over the final command, reason): examples a guard of the pack must stop, not ignore.
EXCLUDE = [
    (r"^git reset .*--hard", "discards uncommitted work (destructive guard blocks it by design)"),
    (r"^git clean\b.*-\w*[fdx]", "deletes untracked files for good (destructive guard)"),
    (r"^git checkout .*(?:--force|-f\b)", "overwrites local changes (destructive guard)"),
    (r"^git (?:checkout|restore) (?:--? )?\.$", "discards every uncommitted change"),
    (r"^git stash (?:clear|drop)", "drops stashed work for good"),
    (r"^git branch .*(?:-D|--delete --force)", "deletes an unmerged branch"),
    (r"^git push .*--mirror", "mirror push overwrites the remote (force-push guard)"),
    (r"^git filter-branch|^git filter-repo", "rewrites the whole history"),
    (r"^git (?:reflog expire|gc --prune=now|prune --expire)", "drops unreachable commits for good"),
    (r"^git (?:update-ref -d|symbolic-ref --delete)", "deletes a ref directly"),
    (r"^rm .*-\w*r\w* /(?:\s|$)|^rm -rf ~", "deletes the whole system or home"),
    (r"^terraform destroy|^terraform apply .*-destroy", "destroys real infrastructure"),
    (r"^kubectl delete .*--all\b", "deletes every resource of a namespace"),
    (r"^(?:docker|podman) system prune .*(?:-a|--all)", "removes every image and volume"),
    (r"^git restore (?!--staged \S+$)(?!-S )", "discards uncommitted changes (destructive guard)"),
    (r"^git checkout \S+ -- ", "overwrites uncommitted changes to the file (destructive guard)"),
    (
        r"^git checkout-index (?!.*--prefix).*(?:-\w*f\b|--force)",
        "overwrites uncommitted changes in the working tree (destructive guard)",
    ),
    (
        r"(?<!>)> ~/",
        "overwrites a file in the user's home, outside the project (destructive guard)",
    ),
    (
        r"(?:curl|wget) .*\| (?:sudo )?(?:ba)?sh\b",
        "runs a downloaded script unreviewed (xpia: remote code)",
    ),
]


def values_for(page: str) -> dict[str, str]:
    if page.startswith(("npm", "yarn", "pnpm", "bun", "npx")):
        package = "lodash"
    elif page.startswith(("pip", "poetry", "uv", "python", "pipx", "virtualenv")):
        package = "requests"
    elif page.startswith(("cargo", "rust")):
        package = "serde"
    elif page.startswith("go"):
        package = "github.com/spf13/cobra"
    elif page.startswith(("gem", "bundle")):
        package = "rails"
    else:
        package = "widget"
    return {"package": package}


RULES = [
    (r"branch", "feature/login"),
    (r"remote_?(name|repository)?$|^upstream", "origin"),
    (r"url|repository_location|repo", "https://github.com/acme/widgets.git"),
    (r"commit|hash|sha|revision|object|rev\b", "a1b2c3d"),
    (r"tag", "v1.4.2"),
    (r"message|title|description|body|comment|subject", "Fix flaky login test"),
    (r"image", "node:20-alpine"),
    (r"container|pod", "web"),
    (r"port", "8080"),
    (r"version", "1.4.2"),
    (r"package|module|crate|dependency|gem|library|plugin|extension", "{package}"),
    (r"email", "alice@example.com"),
    (r"user|owner|author|login", "alice"),
    (r"password|token|secret|passphrase", "$API_TOKEN"),
    (r"host|server|domain|address|ip", "example.com"),
    (r"namespace", "staging"),
    (r"region", "us-east-1"),
    (r"zone", "us-central1-a"),
    (r"bucket", "acme-artifacts"),
    (r"cluster", "dev-cluster"),
    (r"project", "acme-web"),
    (r"environment|env\b", "staging"),
    (r"key", "user.name"),
    (r"value", "alice"),
    (r"^(n|number|count|amount|lines?|seconds|minutes|days|depth|size|limit|jobs|num.*)$", "3"),
    (r"pattern|regex|search|keyword|query|string|text|word", "TODO"),
    (r"command|cmd", "npm test"),
    (r"script|task|target", "build"),
    (r"date|time", "2024-01-15"),
    (r"\bid\b|_id$", "1234"),
    (r"dir|folder", "build"),
    (r"file", "README.md"),
    (r"name", "widget"),
    (r"workspace", "web"),
    (r"path", "src"),
]


def placeholder_value(inner: str, ctx: dict[str, str], turn: int) -> str:
    if inner.startswith("[") and inner.endswith("]") and "|" in inner:
        alternatives = inner[1:-1].split("|")
        return alternatives[turn % len(alternatives)]
    words = [w for w in inner.split() if w != "..."]
    if len(words) > 1:
        return " ".join(placeholder_value(w, ctx, turn) for w in words)
    if not words:
        return ""
    token = words[0]
    for base, repl in (("~/path/to/", "~/proj/"), ("/path/to/", "/home/u/proj/")):
        if token.startswith(base):
            return repl + re.sub(r"^(file|directory)$", "src", token[len(base) :])
    if token.startswith("path/to/"):
        rest = token[len("path/to/") :]
        if rest in ("directory", "dir", "folder", "file_or_directory"):
            return "build"
        if rest == "file":
            return "src/app.py"
        return "src/" + rest
    low = token.lower()
    if re.fullmatch(r"[\w.-]*\.[a-z0-9]{1,5}", low) or not re.search(r"[a-z]", low):
        return token  # already a concrete value (pod.json, 8080)
    for pattern, value in RULES:
        if re.search(pattern, low):
            return value.format(**ctx)
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", token).strip("_") or "x"


def concrete(command: str, page: str, turn: int) -> str:
    ctx = values_for(page)
    return re.sub(
        r"\{\{(.*?)\}\}(?!\})", lambda m: placeholder_value(m.group(1), ctx, turn), command
    )


def wanted(page: str) -> bool:
    if page.startswith("git-"):
        return page[4:] in GIT_SUBCOMMANDS
    return page in PAGES or page.startswith(PREFIXES)


def main(tldr: str) -> None:
    git = ["git", "-C", tldr]  # a clone or a bare mirror: pages are read from HEAD either way

    def show(path: str) -> str:
        return subprocess.run([*git, "show", f"HEAD:{path}"], capture_output=True, text=True).stdout

    names = subprocess.run(
        [*git, "ls-tree", "--name-only", "HEAD", "pages/common/"], capture_output=True, text=True
    ).stdout.split()
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    kept: list[dict[str, str]] = []
    excluded: list[dict[str, str]] = []
    seen: set[str] = set()
    turn = 0
    for path in sorted(names):
        page = path.rsplit("/", 1)[-1][:-3]
        if not wanted(page):
            continue
        for line in show(path).splitlines():
            if not (line.startswith("`") and line.endswith("`")) or "tldr " in line:
                continue
            turn += 1
            command = concrete(line[1:-1], page, turn)
            if command in seen or "{{" in command:
                continue
            seen.add(command)
            reason = next((r for p, r in EXCLUDE if re.search(p, command)), None)
            row = {"command": command, "page": page}
            if reason:
                excluded.append({**row, "reason": reason})
            else:
                kept.append(row)
    out = {
        "source": "tldr-pages (https://github.com/tldr-pages/tldr) pages/common, commit "
        + commit.strip()
        + "; CC BY 4.0, see LICENSE-tldr-pages.md. Placeholders replaced by build_everyday.py.",
        "cases": kept,
        "excluded": excluded,
    }
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
