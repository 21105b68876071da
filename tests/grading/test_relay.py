"""The relay between a grading kernel's sockets and the grader's: bytes counted, and a refusal told from a close.

Plain Unix sockets stand in for the two ZeroMQ ends: the "kernel" listens where the relay connects, the
"grader" connects to the relay. The grader's ZeroMQ refuses a message part past its size limit by closing the
connection; the relay must report that however the close reaches it, and must not report the grader's own
closing (a kernel shut down or restarted) or a kernel that went away.
"""
from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest

from autograder.relay import Relay

PORT = 5555


class Ends:
    """A relay with a fake kernel behind it and a fake grader connected to it; counts and refusals recorded."""

    def __init__(self, folder: Path, allowance: int = 1 << 20):
        self.kernel_listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.kernel_listener.bind(str(folder / f"kernel-{PORT}"))
        self.kernel_listener.listen(1)
        self.counted, self.refusals, self.allowance = 0, [], allowance
        self.relay = Relay(folder / "relay", str(folder / "kernel"), [PORT], self._count, connect_seconds=5,
                           refused=lambda: self.refusals.append(time.monotonic()))
        self.grader = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.grader.connect(f"{self.relay.prefix}-{PORT}")
        self.kernel_listener.settimeout(5)
        self.kernel, _ = self.kernel_listener.accept()

    def _count(self, nbytes: int) -> bool:
        self.counted += nbytes
        return self.counted <= self.allowance

    def received(self, nbytes: int) -> bytes:
        self.grader.settimeout(5)
        data = b""
        while len(data) < nbytes:
            block = self.grader.recv(nbytes - len(data))
            assert block, f"the grader's side was closed after {len(data)} of {nbytes} bytes"
            data += block
        return data

    def close(self) -> None:
        self.relay.stop()
        for sock in (self.grader, self.kernel, self.kernel_listener):
            sock.close()


@pytest.fixture()
def ends(tmp_path):
    made = Ends(tmp_path)
    yield made
    made.close()


def wait_for(condition, seconds: float = 3.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_bytes_pass_both_ways_and_the_kernels_are_counted(ends):
    sending = threading.Thread(target=lambda: ends.kernel.sendall(b"k" * 300_000), daemon=True)
    sending.start()  # more than the sockets hold: the kernel waits for the grader to read
    assert ends.received(300_000) == b"k" * 300_000
    sending.join(timeout=5)
    ends.grader.sendall(b"request")
    ends.kernel.settimeout(5)
    assert ends.kernel.recv(100) == b"request"
    assert ends.counted == 300_000
    assert not ends.refusals


def test_a_close_after_the_kernel_paused_is_a_refusal(ends):
    """The close reaches the relay as the end of the grader's stream: the kernel's bytes were all passed on,
    and it sends nothing more yet (a slow kernel on a loaded machine)."""
    ends.kernel.sendall(b"header of a part too large")
    ends.received(10)
    ends.grader.close()
    assert wait_for(lambda: ends.refusals), "the grader's ZeroMQ closing the connection was not reported"


def test_a_close_while_the_kernel_sends_is_a_refusal(ends):
    """The close reaches the relay as an error while it passes the kernel's bytes on."""
    sending = threading.Thread(target=lambda: _send_until_closed(ends.kernel, 8 << 20), daemon=True)
    sending.start()
    ends.received(1000)
    ends.grader.close()
    assert wait_for(lambda: ends.refusals)
    sending.join(timeout=10)


def _send_until_closed(sock: socket.socket, nbytes: int) -> None:
    try:
        sock.sendall(b"x" * nbytes)
    except OSError:
        pass


def test_the_graders_own_closing_is_not_a_refusal(ends):
    ends.kernel.sendall(b"status: idle")
    ends.received(12)
    ends.relay.closing()
    ends.kernel.sendall(b"shutdown reply")
    assert ends.received(14) == b"shutdown reply", "a connection stops forwarding before the grader closes it"
    ends.grader.close()
    time.sleep(0.5)
    assert not ends.refusals


def test_a_kernel_that_goes_away_is_not_a_refusal(ends):
    ends.kernel.close()
    ends.grader.settimeout(5)
    assert ends.grader.recv(10) == b"", "the grader's side stayed open after the kernel's closed"
    time.sleep(0.5)
    assert not ends.refusals


def test_past_the_allowance_the_relay_closes_and_it_is_not_a_refusal(tmp_path):
    ends = Ends(tmp_path, allowance=100_000)
    try:
        sending = threading.Thread(target=lambda: _send_until_closed(ends.kernel, 1 << 20), daemon=True)
        sending.start()
        ends.grader.settimeout(5)
        got = 0
        while block := ends.grader.recv(1 << 16):
            got += len(block)
        assert got <= 100_000 + (1 << 16), f"{got} bytes passed an allowance of 100000"
        assert ends.counted > 100_000
        time.sleep(0.3)
        assert not ends.refusals
        sending.join(timeout=10)
    finally:
        ends.close()
