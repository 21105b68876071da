"""The feedback page's maths, typeset as MathML when the page is rendered: no script runs and nothing is fetched.

nbgrader's feedback template loads MathJax from a CDN, so a page opened offline (or under :mod:`autograder.safe_page`'s
policy, which runs no script from elsewhere) shows every formula as raw LaTeX. Instead each formula of a Markdown
cell is converted to MathML by ``latex2mathml`` while the page is rendered, and the browser's own MathML (MathML Core,
Chromium 109 and later, Firefox, Safari) typesets it: a page that can be moved anywhere (nbgrader's release_feedback
and fetch_feedback copy it) and needs nothing beside it.

nbconvert's Markdown parser already keeps each formula whole (``$...$``, ``$$...$$``, ``\\(...\\)``, ``\\[...\\]``
and ``\\begin{env}...\\end{env}``, before emphasis or escapes can touch underscores and backslashes) and hands its
LaTeX to the renderer. :class:`MathsRenderer` sets each one aside as a slot: a ``<span>`` holding the LaTeX as text,
whose class names the formula. The Markdown's HTML is then cleaned as before (a student's own ``<math>`` markup is
not let through), and :meth:`MathsRenderer.with_maths` fills the slots with the converter's MathML, which
:func:`autograder.safe_page.clean_mathml` has cleaned to presentational MathML. A formula the converter cannot
convert stays as its LaTeX, as readable text.
"""
from __future__ import annotations

import functools
import hashlib
import html
import re
from xml.etree.ElementTree import Element, SubElement, tostring

from latex2mathml.converter import convert_to_element
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath, MathBlockParser, MathInlineParser

from . import safe_page

#: the longest formula converted (a longer one stays as LaTeX text), and the longest whose MathML a worker keeps
LONGEST = 20_000
KEPT = 1_000
#: definitions, which latex2mathml expands (up to 100 times each: a short formula could make a million elements,
#: seconds of the grader's time): a formula that defines anything stays as text (MathJax would keep a definition
#: for the cells after it; one formula at a time cannot)
_DEFINITION = re.compile(r"\\(?:(?:re)?newcommand|providecommand|def|let|(?:re)?newenvironment|DeclareMathOperator)"
                         r"(?![A-Za-z])")

#: environments latex2mathml does not know, as ones it does (a notebook's MathJax numbers no equation)
_ENVIRONMENTS = {"aligned": "align*", "align": "align*", "alignedat": "align*", "alignat": "align*",
                 "alignat*": "align*", "eqnarray": "align*", "eqnarray*": "align*"}
_LINES = ("gather", "gather*", "gathered", "multline", "multline*")  # rows one under another: \displaylines
_UNWRAPPED = ("equation", "equation*", "displaymath", "math")
_ENVIRONMENT = re.compile(r"\\(begin|end)\s*\{([A-Za-z]+\*?)\}")
_ENTITY = re.compile(r"&#x([0-9A-Fa-f]{1,6});")


def _known_environments(latex: str) -> str:
    """The LaTeX with each environment latex2mathml lacks written as one it has."""
    def rename(match: re.Match) -> str:
        begin, name = match.group(1) == "begin", match.group(2)
        if name in _UNWRAPPED:
            return " "
        if name in _LINES:
            return r"\displaylines{" if begin else "}"
        return f"\\{match.group(1)}{{{_ENVIRONMENTS.get(name, name)}}}"
    return _ENVIRONMENT.sub(rename, latex)


def _character(match: re.Match) -> str:
    code = int(match.group(1), 16)
    return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else match.group(0)


def _unconverted(math: Element) -> bool:
    """latex2mathml's signs of LaTeX it did not understand: an unknown command kept as ``<mi>\\name</mi>``,
    an alignment ``&`` outside any table (an environment it does not know)."""
    return any(node.tag == "mi" and (node.text or "").startswith(("\\", "&")) and not _ENTITY.match(node.text)
               for node in math.iter())


#: the elements that take any number of children (a space may go between two); brackets that open an argument
_ROWS = {"math", "mrow", "mtd", "mstyle", "mpadded", "mphantom", "menclose", "msqrt", "merror"}
_OPENING = set("([{|\u2016\u27e8\u2308\u230a")


def _function_name(node: Element) -> bool:
    """``\\sin``, ``\\log``, ``\\tanh`` (latex2mathml's only ``<mi>`` of several letters), scripted or not."""
    if node.tag in ("msub", "msup", "msubsup", "munder", "mover", "munderover") and len(node):
        node = node[0]
    return node.tag == "mi" and len(node.text or "") > 1 and node.text.isalpha() and not node.attrib


def _space_after_function_names(math: Element) -> None:
    """A thin space between a function's name and an argument with no bracket, as TeX sets ``\\sin k\\omega``:
    latex2mathml writes none, and MathML Core adds none, so the page would read "sink ω"."""
    for row in math.iter():
        if row.tag not in _ROWS:
            continue
        children = list(row)
        for i in reversed(range(len(children) - 1)):
            after = children[i + 1]
            if _function_name(children[i]) and not (after.tag == "mo" and (after.text or "")[:1] in _OPENING):
                row.insert(i + 1, Element("mspace", {"width": "0.1667em"}))


def to_mathml(latex: str, display: bool) -> str | None:
    """One formula as cleaned MathML (``display``: a block of its own), or None where it cannot be converted.

    A grading worker renders the same released formulas on every page: the short ones are kept (some 25 MB at most).
    """
    return (_kept if len(latex) <= KEPT else _to_mathml)(latex, display)


def _to_mathml(latex: str, display: bool) -> str | None:
    if len(latex) > LONGEST or not latex.strip() or _DEFINITION.search(latex):
        return None
    try:
        math = convert_to_element(_known_environments(latex), display="block" if display else "inline")
    except Exception:  # noqa: BLE001 - any LaTeX latex2mathml rejects (or recurses on) stays as text
        return None
    if _unconverted(math):
        return None
    # latex2mathml writes characters as "&#x...;" references in the text and unescapes its whole output, so a
    # "<" of a \text{} would come out as markup: here the references become characters and the rest is escaped
    for node in math.iter():
        if node.text:
            node.text = _ENTITY.sub(_character, node.text)
        node.attrib = {name: _ENTITY.sub(_character, value) for name, value in node.attrib.items() if name != "xmlns"}
    _space_after_function_names(math)
    semantics = Element("semantics")
    semantics.extend(list(math))
    SubElement(semantics, "annotation", {"encoding": "application/x-tex"}).text = latex  # the source, for copying
    math[:] = [semantics]
    return safe_page.clean_mathml(tostring(math, encoding="unicode"))


_kept = functools.lru_cache(maxsize=2048)(_to_mathml)


class _MathsBlockParser(MathBlockParser):
    """nbconvert's block parser, a display formula between ``\\[`` and ``\\]`` kept whole as in JupyterLab."""

    SPECIFICATION = {**MathBlockParser.SPECIFICATION, "multiline_math": MathBlockParser.MULTILINE_MATH.replace(
        r"\\\\\[.*?\\\\\]", r"(?<!\\)\\{1,2}\[.*?(?<!\\)\\{1,2}\]")}


class _MathsInlineParser(MathInlineParser):
    """nbconvert's inline parser, with ``\\(...\\)`` and ``\\[...\\]`` maths as JupyterLab reads them: nbconvert
    takes only ``\\\\(...\\\\)`` (a Markdown escape leaves ``\\(`` as a plain bracket), the Lab both."""

    SPECIFICATION = {
        **MathInlineParser.SPECIFICATION,
        "block_math_latex": r"(?s:(?<!\\)\\{1,2}\[(?P<math_block_latex>.*?)(?<!\\)\\{1,2}\])",
        "inline_math_latex": r"(?s:(?<!\\)\\{1,2}\((?P<math_inline_latex>.*?)(?<!\\)\\{1,2}\))",
    }


def markdown_to_html(source: str, renderer: IPythonRenderer) -> str:
    """Markdown as nbconvert renders it (``markdown2html``), maths delimited as JupyterLab delimits it."""
    return MarkdownWithMath(renderer=renderer, block=_MathsBlockParser(),
                            inline=_MathsInlineParser(hard_wrap=False)).render(source)


_SLOT = re.compile(r'<span class="maths-slot (?P<key>maths-[0-9a-f]{16})-(?P<n>[0-9]+)">[^<]*</span>')


def key_of(source: str) -> str:
    """The slots' name for one Markdown source: no text can name its own hash, so a student cannot forge a slot."""
    return "maths-" + hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class MathsRenderer(IPythonRenderer):
    """nbconvert's Markdown renderer with each formula set aside as a slot for :meth:`with_maths` to fill."""

    def __init__(self, source: str, **options):
        super().__init__(**options)
        self.key = key_of(source)
        self.formulas: list[tuple[str, bool, str]] = []  # LaTeX, display, as the page shows it if not converted

    def _slot(self, latex: str, display: bool, shown: str) -> str:
        self.formulas.append((latex, display, shown))
        return f'<span class="maths-slot {self.key}-{len(self.formulas) - 1}">{self.escape_html(shown)}</span>'

    def block_math(self, body: str) -> str:
        return self._slot(body, True, f"$${body}$$")

    def inline_math(self, body: str) -> str:
        return self._slot(body, False, f"${body}$")

    def latex_environment(self, name: str, body: str) -> str:
        latex = f"\\begin{{{name}}}{body}\\end{{{name}}}"
        return self._slot(latex, True, latex)

    def with_maths(self, cleaned: str) -> str:
        """The cleaned HTML with each of this source's slots filled: its MathML, or its LaTeX as text."""
        def fill(match: re.Match) -> str:
            n = int(match.group("n"))
            if match.group("key") != self.key or n >= len(self.formulas):
                return match.group(0)
            latex, display, shown = self.formulas[n]
            return to_mathml(latex, display) or html.escape(shown, quote=False)
        return _SLOT.sub(fill, cleaned)


#: how the page sets its MathML: a maths font where there is one, and the alignment of latex2mathml's tables
#: (MathML Core leaves out columnalign and columnspacing: an aligned equation's columns are set by CSS here)
STYLE = """<style>
math { font-family: "STIX Two Math", "Cambria Math", "Latin Modern Math", "DejaVu Math TeX Gyre", math; }
math[display="block"] { margin: 0.5em 0; overflow-x: auto; overflow-y: hidden; }
mtd[columnalign="left"] { text-align: left; }
mtd[columnalign="right"] { text-align: right; }
mtable[displaystyle="true"] > mtr > mtd[columnalign="right"] { padding-right: 0; }
mtable[displaystyle="true"] > mtr > mtd[columnalign="left"] { padding-left: 0; }
mtable[displaystyle="true"] > mtr > mtd[columnalign="left"] + mtd { padding-left: 2em; }
</style>"""

#: nbconvert's ``mathjax`` macro (the script from a CDN that nbgrader's feedback template loads), as the page's
#: MathML stylesheet instead: the exporter's templates import it under the same name
MACRO = "{%- macro mathjax(url=None) -%}\n" + STYLE + "\n{%- endmacro %}\n"
MACRO_TEMPLATE = "mathjax.html.j2"
