"""Loaded by every Python process of an offline test (through PYTHONPATH): record any attempt
to reach a non-loopback address in $COURSE_NET_LOG, one line per attempt."""
import os
import sys


def _guard(event, args):
    if event not in ("socket.connect", "socket.sendto", "socket.getaddrinfo"):
        return
    address = args[1] if event != "socket.getaddrinfo" else (args[0], args[1])
    host = address[0] if isinstance(address, tuple) and address else address
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    if not isinstance(host, str) or host.startswith(("127.", "::1", "localhost", "/")) or host in ("", "0.0.0.0", "::"):
        return
    with open(os.environ["COURSE_NET_LOG"], "a", encoding="utf-8") as log:
        log.write(f"{os.getpid()} {event} {address!r} {sys.argv[:2]!r}\n")


if os.environ.get("COURSE_NET_LOG"):
    sys.addaudithook(_guard)
