"""Every byte a grading kernel sends the grader, counted on its way: a relay between the kernel's sockets and the
grader's.

The kernel binds its ZeroMQ sockets in a folder of its own (``sockets/``); the grader's kernel client connects
to the relay's sockets instead, in a folder only the grader can write (``relay/``). For each connection the
grader makes, the relay connects to the kernel's socket of the same channel and copies the bytes both ways as
they are (ZeroMQ's handshake and frames pass through untouched). Everything from the kernel is counted as it
streams, before ZeroMQ on the grader's side assembles it into a message; past the submission's allowance the
relay stops forwarding and says so, and the grader stops the kernel. So a message of any size, in any number of
parts, on any channel, costs the grader no more memory than the allowance.
"""
from __future__ import annotations

import os
import selectors
import socket
import threading
import time
from pathlib import Path
from typing import Callable

RELAY = "relay"          # the relay's folder in the kernel's folder (the grader's only)
CHUNK = 1 << 16


class Relay:
    """The relay of one kernel: listens at ``relay_dir/k-N`` for each port N, forwards to ``kernel_prefix-N``.

    ``count(nbytes)`` is called for every block read from the kernel; it returns False once the submission's
    allowance is spent, and the relay then closes that connection. ``refused()`` is called when the grader's side
    closes a connection before the grader said it would (:meth:`closing`): its ZeroMQ refused what the kernel sent
    (a message part over its ``MAXMSGSIZE``, or bytes that are not ZeroMQ's), and the messages after them are lost.
    That holds whether the relay sees the close while sending (an error) or while waiting for the kernel's next
    bytes (the end of the grader's stream): which comes first depends on how fast the kernel sends.
    """

    def __init__(self, relay_dir: Path, kernel_prefix: str, ports: list[int], count: Callable[[int], bool],
                 connect_seconds: float = 60, refused: Callable[[], object] = lambda: None):
        self.relay_dir, self.kernel_prefix, self.count = Path(relay_dir), kernel_prefix, count
        self.refused = refused
        self.connect_seconds = connect_seconds
        self.selector = selectors.DefaultSelector()
        self.listeners: list[socket.socket] = []
        self.peers: dict[socket.socket, socket.socket] = {}
        self.stopping = threading.Event()
        self.grader_closing = threading.Event()  # the grader closes its connections now: no refusal any more
        self.relay_dir.mkdir(mode=0o700, exist_ok=True)
        for port in ports:
            path = self.relay_dir / f"k-{port}"
            path.unlink(missing_ok=True)
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(str(path))
            listener.listen(8)
            listener.setblocking(False)
            self.selector.register(listener, selectors.EVENT_READ, ("accept", port))
            self.listeners.append(listener)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def prefix(self) -> str:
        """What the grader's connection info names as the kernel's ``ip`` (ZeroMQ adds ``-N`` per channel)."""
        return str(self.relay_dir / "k")

    def closing(self) -> None:
        """The grader is about to close its connections (the kernel is shut down or restarted): they still
        forward until then, and a close is no longer the grader's ZeroMQ refusing a message."""
        self.grader_closing.set()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=5)
        for sock in [*self.listeners, *self.peers]:
            try:
                sock.close()
            except OSError:
                pass
        self.selector.close()

    def _connect_kernel(self, port: int) -> socket.socket | None:
        """The kernel's socket of this channel (it may still be starting: tried for a while)."""
        deadline = time.monotonic() + self.connect_seconds
        while not self.stopping.is_set() and time.monotonic() < deadline:
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                upstream.connect(f"{self.kernel_prefix}-{port}")
                upstream.setblocking(False)
                return upstream
            except OSError:
                upstream.close()
                time.sleep(0.05)
        return None

    def _pair(self, listener: socket.socket, port: int) -> None:
        try:
            grader, _ = listener.accept()
        except OSError:
            return
        upstream = self._connect_kernel(port)
        if upstream is None:
            grader.close()
            return
        grader.setblocking(False)
        self.peers[grader], self.peers[upstream] = upstream, grader
        self.selector.register(grader, selectors.EVENT_READ, ("grader", port))
        self.selector.register(upstream, selectors.EVENT_READ, ("kernel", port))

    def _drop(self, sock: socket.socket) -> None:
        for end in (sock, self.peers.get(sock)):
            if end is None:
                continue
            self.peers.pop(end, None)
            try:
                self.selector.unregister(end)
            except (KeyError, ValueError):
                pass
            end.close()

    def _forward(self, source: socket.socket, from_kernel: bool) -> None:
        try:
            data = source.recv(CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data and not from_kernel:
            self._grader_left()
        if not data or (from_kernel and not self.count(len(data))):
            self._drop(source)
            return
        target = self.peers.get(source)
        try:
            target.setblocking(True)  # a slow reader slows the writer: nothing piles up here
            target.settimeout(30)
            target.sendall(data)
            target.setblocking(False)
        except OSError:
            if from_kernel:
                self._grader_left()
            self._drop(source)

    def _grader_left(self) -> None:
        """The grader's side closed a connection: unless the grader said it would, its ZeroMQ refused it."""
        if not (self.stopping.is_set() or self.grader_closing.is_set()):
            self.refused()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            for key, _ in self.selector.select(timeout=0.2):
                kind, port = key.data
                if kind == "accept":
                    self._pair(key.fileobj, port)
                elif key.fileobj in self.peers:
                    self._forward(key.fileobj, kind == "kernel")


def kernel_connection(grader_connection: dict, kernel_prefix: str) -> dict:
    """The connection file the kernel gets: the grader's, with the kernel's own socket prefix."""
    return {**grader_connection, "ip": kernel_prefix}


def remove(relay_dir: Path) -> None:
    for path in Path(relay_dir).glob("k-*"):
        try:
            os.unlink(path)
        except OSError:
            pass
