"""hookgate installed as users install it: a wheel built from this checkout in a fresh venv.
Used by the benchmark (``bench/run.py --installed``) and by the real-host stage, whose hosts run
the hook command ``hookgate install`` wires for such an install (the fast launcher), not the one
of the checkout's editable install."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


def installed_python(workdir: str, env: dict, revision: str | None = None) -> str:
    """The python of a fresh venv where hookgate is installed as users install it: the venv's
    stock pip (what ``python -m venv`` bundles), a wheel built from this checkout (or from the
    git ``revision`` of it, for a before/after run), not editable, its dependencies from the
    package index."""
    root = Path(__file__).resolve().parents[1]
    if revision is not None:
        checkout, root = root, Path(workdir, "revision")
        root.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(checkout), "archive", revision],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    source = os.path.join(workdir, "src")  # a copy, so the build leaves nothing in the checkout
    os.makedirs(source)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(root / name, source)
    for name in ("service", "grammar", "policies", "deploy"):
        if not (root / name).is_dir():
            continue  # revisions before deploy/ became package data
        shutil.copytree(
            root / name,
            os.path.join(source, name),
            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"),
        )
    wheels, venv = os.path.join(workdir, "wheels"), os.path.join(workdir, "venv")
    quiet = {"check": True, "capture_output": True}
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", wheels, source], **quiet
    )
    subprocess.run([sys.executable, "-m", "venv", venv], **quiet)
    python = os.path.join(venv, "bin", "python")
    wheel = os.path.join(wheels, os.listdir(wheels)[0])
    subprocess.run([python, "-m", "pip", "install", "-q", wheel], **quiet)
    where = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    purelib = subprocess.run([python, "-c", where], text=True, **quiet).stdout.strip()
    compileall = [python, "-m", "compileall", "-q", os.path.join(purelib, "hookgate")]
    subprocess.run(compileall, env=env, **quiet)
    return python
