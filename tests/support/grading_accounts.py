"""Who grades in the red-team tests: root, or an unprivileged account made for the test and removed after it."""
from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from typing import Iterator

import pytest


def free_account_name(stem: str) -> str:
    """The first ``stemN`` that names no account yet."""
    for n in range(100):
        try:
            pwd.getpwnam(f"{stem}{n}")
        except KeyError:
            return f"{stem}{n}"
    raise RuntimeError(f"no free account name like {stem}N")


def grading_account(who: str, stem: str, unreadable: str = "") -> Iterator[str]:
    """For a fixture to ``yield from``: '' when ``who`` is "root", else the name of a fresh account (what the README
    recommends graders use), skipped when the machine cannot make one or ``unreadable`` says why it cannot read
    the repository."""
    if who == "root":
        yield ""
        return
    if shutil.which("useradd") is None or shutil.which("setpriv") is None:
        pytest.skip("useradd and setpriv are needed to grade as an unprivileged account")
    if unreadable:
        pytest.skip(unreadable)
    name = free_account_name(f"{stem}{os.getpid() % 10000}g")
    subprocess.run(["useradd", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin",
                    "--user-group", "--no-log-init", name], check=True, capture_output=True, text=True)
    try:
        yield name
    finally:
        subprocess.run(["userdel", name], capture_output=True, text=True)
