"""A long batch's progress on the terminal: submissions done, failed and remaining, and the time left.

    graded 120/5000 (3 failed), 4880 remaining, 2.1 s per submission, about 2 h 51 min left

On a terminal the line is rewritten in place; in a log (stderr not a terminal) a line is written
at most every ``every`` seconds, and once at the end. The time left is the batch's wall time so far
per submission done, times the submissions remaining: it already counts every worker there is.
"""
from __future__ import annotations

import sys
import time
from typing import TextIO


def duration(seconds: float) -> str:
    """'45 s', '12 min', '2 h 51 min'."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


class Progress:
    """Counts the submissions of a batch as their results arrive, and says so on ``stream``."""

    def __init__(self, total: int, stream: TextIO | None = None, every: float = 10.0):
        self.total, self.done, self.failed = total, 0, 0
        self.stream = stream or sys.stderr
        self.every = every
        self.live = self.stream.isatty()
        self.start = self.last_shown = time.monotonic()

    def note(self, line: str) -> None:
        """A line of its own (the dashboard's address, a worker lost) above the progress line."""
        self.stream.write(("\r\x1b[K" if self.live else "") + line + "\n")
        self.stream.flush()

    def line(self) -> str:
        remaining = self.total - self.done
        text = f"graded {self.done}/{self.total} ({self.failed} failed), {remaining} remaining"
        if self.done:
            elapsed = time.monotonic() - self.start
            per = elapsed / self.done
            left = f"about {duration(per * remaining)} left" if remaining else f"done in {duration(elapsed)}"
            text += f", {per:.1f} s per submission, {left}"
        return text

    def count(self, failed: bool) -> None:
        """One more submission done (a zero with a reason counts as failed)."""
        self.done += 1
        self.failed += bool(failed)
        now = time.monotonic()
        if self.live:
            self.stream.write("\r\x1b[K" + self.line() + ("\n" if self.done == self.total else ""))
            self.stream.flush()
        elif now - self.last_shown >= self.every or self.done == self.total:
            self.last_shown = now
            self.note(self.line())
