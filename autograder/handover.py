"""The sandbox's side of starting a kernel from a zygote (:mod:`autograder.zygote`): ask, then stand in.

The sandbox process (``python -m autograder.sandbox ... --zygote-socket PATH -- python -m
ipykernel_launcher ...``) connects to its worker's zygote, sends its arguments, environment, working
folder and standard streams, and gets back the pid of the forked kernel. It then stays behind as the
kernel's stand-in for nbgrader: it forwards signals (interrupts) to the kernel's process group and
returns when the kernel exits. This module imports neither the sandbox nor the zygote: both use it.
"""
from __future__ import annotations

import json
import os
import select
import signal
import socket
import struct
import sys
from pathlib import Path

#: the byte that lets the forked child go on (sent once its pid is pinned by a pidfd)
GO = b"g"
#: what the stand-in passes on to the kernel's process group
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)


def kernel_kind(command: list[str]) -> str | None:
    """What a forked child can become: an ipykernel, or (for tests) ``python -c CODE``."""
    if len(command) >= 3 and command[1:3] == ["-m", "ipykernel_launcher"]:
        return "ipykernel"
    if len(command) >= 3 and command[1] == "-c":
        return "code"
    return None


def hand_over(socket_path: Path, argv: list[str], command: list[str]) -> bool:
    """Have the zygote at ``socket_path`` start ``command``; wait until it exits. False: start it yourself."""
    if kernel_kind(command) is None:
        return False
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.settimeout(30)
        conn.connect(str(socket_path))
        body = json.dumps({"argv": argv, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
        socket.send_fds(conn, [struct.pack("!I", len(body)) + body], [0, 1, 2])
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = conn.recv(16)
            if not chunk:
                raise ConnectionError("the zygote closed the connection")
            reply += chunk
        pid = int(reply)
        pidfd = os.pidfd_open(pid)
        # forwarding before the kernel runs: an interrupt sent once it has started must reach it, not end this process
        for signum in FORWARDED:
            signal.signal(signum, lambda sig, _frame: signal_group(pid, sig))
        conn.sendall(GO)  # the child waits for this: until now its pid cannot have been reused
    except (OSError, ValueError) as err:
        for signum in FORWARDED:
            signal.signal(signum, signal.SIG_DFL)
        print(f"sandbox: the zygote did not start the kernel ({err}); starting it here", file=sys.stderr)
        return False
    select.select([pidfd], [], [])  # until the kernel exits (pidfd readable; signals do not end the wait)
    return True


def signal_group(pid: int, signum: int) -> None:
    """Send ``signum`` to the kernel's process group (it leads one), or to the kernel alone if it left it."""
    for send in (os.killpg, os.kill):
        try:
            send(pid, signum)
            return
        except OSError:
            continue
