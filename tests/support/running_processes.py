"""The processes running now, read from /proc: for the tests that check what a grading left behind."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable


def running(matches: Callable[[Path], bool]) -> dict[int, str]:
    """pid -> command line of every process but this one whose /proc folder ``matches``; a process that ends
    while it is read, or whose files this one may not read, is left out (a zombie has an empty command line)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if matches(entry):
                found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
    return found


def with_environment(variable: str) -> dict[int, str]:
    """The processes whose environment holds ``variable`` ("NAME=value"), as :func:`running` gives them."""
    needle = f"\0{variable}\0".encode()
    return running(lambda entry: needle in b"\0" + (entry / "environ").read_bytes())
