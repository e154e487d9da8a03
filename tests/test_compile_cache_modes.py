"""What root writes into root's shared compile cache (managed mode: a root-owned 0755
directory that every user's hook reads) is readable by every user, whichever root process
writes it: a pull, or a hook run as root after it. A user's own cache keeps its files 0600.

Found when the pack compiled faster: a pull whose policy files were a second old recorded no
stamp (``store_stamped``: racily clean), a later root process recorded it 0600, and every
agent's hook then met an unreadable file in root's cache (a limit: every call asked)."""

from __future__ import annotations

import os
import stat

import pytest

from hookgate.lang import cache

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="root's shared cache: run as root")


def _modes(directory) -> dict[str, int]:
    return {p.name: stat.S_IMODE(p.stat().st_mode) for p in directory.iterdir()}


@pytest.mark.parametrize(("dir_mode", "file_mode"), [(0o755, 0o644), (0o700, 0o600)])
def test_entries_and_stamps_are_as_readable_as_roots_directory(tmp_path, dir_mode, file_mode):
    directory = tmp_path / "compiled"
    directory.mkdir(mode=dir_mode)
    os.chmod(directory, dir_mode)
    code = compile("x = 1", "<t>", "exec")
    cache.store(str(directory), "k" * 64, code, [], {})
    stamps = (("/p/a.rego", 1, 2, 3, 0),)  # a file stamped long ago: recorded
    cache.store_stamped(str(directory), stamps, "k" * 64, {})
    modes = _modes(directory)
    assert len(modes) == 2 and set(modes.values()) == {file_mode}, modes
    assert cache.load_stamped(str(directory), stamps) == ("k" * 64, {})


def test_a_directory_of_another_owner_is_not_roots_shared_cache(tmp_path):
    directory = tmp_path / "compiled"
    directory.mkdir(mode=0o755)
    os.chmod(directory, 0o755)
    os.chown(directory, 1234, 1234)
    cache.write_file(str(directory), str(directory / "entry"), b"x")
    assert _modes(directory) == {"entry": 0o600}
