"""Text a student wrote (a file name, an exception's message), made safe for the places people read it.

A submission's name and what its code raises reach the instructor's terminal, ``grades.csv``,
``lms_grades.csv`` and ``report.md``, and the grader quotes them in verdicts. Each is passed through one
of these first: control characters and terminal escapes removed, a spreadsheet formula neutralised, Markdown
and HTML escaped.
"""
from __future__ import annotations

import html
import re

#: terminal escape sequences (CSI, OSC and the rest) and every other control character
_ESCAPES = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[@-Z\\-_])")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: a spreadsheet reads a cell that starts with one of these as a formula
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def one_line(text: object, limit: int = 300) -> str:
    """``text`` on one line: terminal escapes and control characters gone, at most ``limit`` characters."""
    flat = _CONTROLS.sub(" ", _ESCAPES.sub("", str(text)))
    flat = re.sub(r" {2,}", " ", flat).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


def csv_cell(value: object) -> object:
    """A value for a CSV cell: numbers as they are; text on one line, a leading formula character quoted away."""
    if isinstance(value, (int, float)):
        return value
    text = one_line(value, limit=1000)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def markdown_cell(text: object, limit: int = 300) -> str:
    """Text for a Markdown table cell or list item: one line, HTML escaped, and no link, image, code span or column."""
    escaped = html.escape(one_line(text, limit), quote=True)
    return re.sub(r"([\\`\[\]|])", r"\\\1", escaped)


def quoted(text: object, limit: int = 200) -> str:
    """A student's text inside a grader's sentence: on one line, in guillemets, so that it reads as a quotation."""
    inner = one_line(text, limit).replace("\u00ab", "\u2039").replace("\u00bb", "\u203a")  # it cannot close the quote
    return "\u00ab" + inner + "\u00bb"
