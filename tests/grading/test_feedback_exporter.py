"""The feedback page's exporter compiles nbconvert's templates once per grading process, and renders nbconvert's page
with its maths typeset as MathML (no script, nothing fetched), a student's formulas and MathML cleaned."""
import re
import time

import nbformat
import pytest
from nbconvert.exporters import HTMLExporter

from autograder import feedback_page, page_maths, safe_page
from autograder.feedback_page import COMPILED_TEMPLATES, FeedbackExporter
from autograder.submission import Scores

#: nbconvert's MathJax macro as a page has it: the feedback exporter puts the MathML stylesheet in its place
MATHJAX = re.compile(r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->", re.S)

LSTM = r"$$\begin{aligned} i_t &= \sigma(W_i x_t + U_i h_{t-1} + b_i) \\ f_t &= \sigma(W_f x_t + U_f h_{t-1} + b_f) \end{aligned}$$"


def small_notebook(*markdown: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell("print('hello')")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="hello\n")]
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# A page"), cell,
                                           *map(nbformat.v4.new_markdown_cell, markdown)])


def markdown(source: str) -> str:
    """One Markdown cell as the feedback page shows it."""
    page, _ = FeedbackExporter(template_name="feedback", extra_template_basedirs=[feedback_page.TEMPLATES],
                               extra_template_paths=[feedback_page.BOOTSTRAP_CSS]).from_notebook_node(
        small_notebook(source), {"nbgrader": {"notebook": "n", "score": 0, "max_score": 0, "late_penalty": 0}})
    return page[page.index("hello"):]


def test_the_page_is_nbconverts_and_its_templates_are_compiled_once():
    nb = small_notebook()
    plain, _ = HTMLExporter().from_notebook_node(nb)
    first, _ = FeedbackExporter().from_notebook_node(nb)
    compiled = dict(COMPILED_TEMPLATES.compiled)
    assert compiled, "the first page should leave its compiled templates in the cache"
    second, _ = FeedbackExporter().from_notebook_node(nb)  # a new exporter, as nbgrader makes for every page
    assert first == second == MATHJAX.sub(lambda _: page_maths.STYLE, plain)
    assert COMPILED_TEMPLATES.compiled == compiled  # nothing compiled again


def test_formulas_become_mathml_display_and_inline():
    block = page_maths.to_mathml(r"\frac{QK^\top}{\sqrt{d_k}}", True)
    assert block.startswith('<math display="block">') and "<mfrac>" in block and "<msqrt>" in block
    assert "<msup><mi>K</mi><mo>⊤</mo></msup>" in block  # characters, not "&#x...;" references
    inline = page_maths.to_mathml(r"\sqrt{d_k}", False)
    assert inline.startswith('<math display="inline">') and "<msub><mi>d</mi><mi>k</mi></msub>" in inline
    assert '<annotation encoding="application/x-tex">\\sqrt{d_k}</annotation>' in inline  # the source, for copying
    # a function's name and a bare argument apart, as TeX sets them (not "sink"); none before a bracket
    assert "<mi>sin</mi><mspace width=\"0.1667em\"></mspace><mi>k</mi>" in page_maths.to_mathml(r"\sin k\omega", False)
    assert "<mi>tanh</mi><mo" in page_maths.to_mathml(r"\tanh(c_t)", False)


def test_aligned_equations_are_a_table_of_right_and_left_columns():
    mathml = page_maths.to_mathml(LSTM[2:-2], True)
    assert "<mtable" in mathml and mathml.count("<mtr>") == 2
    assert '<mtd columnalign="right"><msub><mi>i</mi><mi>t</mi></msub></mtd><mtd columnalign="left">' in mathml
    assert "<mi>&amp;</mi>" not in mathml  # latex2mathml's sign of an environment it does not know


def test_the_markdown_renderer_leaves_the_latex_whole_for_every_delimiter():
    page = markdown("\n\n".join([LSTM, r"Scaled by $\sqrt{d_k}$, where $W_i x_t$ and $U_i h_{t-1}$ are products.",
                                 r"\(a_{i}\) and \\(b_{j}\\)", r"\[ \frac{1}{1 + e^{-x}} \]",
                                 r"\begin{equation} e_{t} = v^\top \tanh(W_1 h_{t-1}) \end{equation}"]))
    assert page.count('<math display="block">') == 3 and page.count('<math display="inline">') == 5
    assert "<em>" not in page  # no underscore read as emphasis
    for latex in (r"\begin{aligned}", r"\sqrt{d_k}", "h_{t-1}", r"\frac{1}{1 + e^{-x}}", r"v^\top \tanh"):
        assert latex in page  # each whole in its annotation
    visible = re.sub(r"<annotation[^>]*>.*?</annotation>", "", page, flags=re.S)
    assert "$" not in visible and "\\" not in visible  # and nowhere else
    assert "maths-slot" not in page


def test_a_formula_latex2mathml_cannot_convert_stays_as_readable_latex():
    page = markdown(r"Broken $x^$, unknown $\foo{y}$, unclosed $\left( x$ and fine $z_1$.")
    assert r"Broken $x^$, unknown $\foo{y}$, unclosed $\left( x$ and fine <math" in page
    assert page_maths.to_mathml(r"x^", False) is None and page_maths.to_mathml("{" * 5000 + "}" * 5000, True) is None


def test_a_formula_that_defines_a_macro_stays_as_text_and_costs_the_grader_nothing():
    """latex2mathml expands a macro up to 100 times: 4,000 characters would make 400,000 elements (seconds)."""
    started = time.perf_counter()
    assert page_maths.to_mathml(r"\newcommand{\q}{" + "x" * 4000 + "}" + r"\q" * 99, True) is None
    assert page_maths.to_mathml(r"\def\q{x}\q", False) is None
    assert time.perf_counter() - started < 0.5
    assert page_maths.to_mathml(r"\left(x\right) \leq y", False)  # \left, \leq: not definitions


HOSTILE = [r"$\href{javascript:alert(1)}{x}$", r"$\style{background: url(http://127.0.0.1/s)}{x}$",
           r"$\class{pwned}{x}$", r"$x</math><script>alert(2)</script>$", r"$\text{</math><img src=x onerror=alert(3)>}$",
           '<math href="javascript:alert(4)"><mi xlink:href="javascript:alert(5)" onclick="alert(6)">y</mi></math>',
           '<math><maction actiontype="statusline"><mtext>z</mtext></maction><mglyph src="http://127.0.0.1/g"/></math>',
           r"$\unicode{x3C}script\unicode{x3E}$", r"$\text{&lt;script&gt;alert(7)&lt;/script&gt;}$"]


@pytest.mark.parametrize("answer", HOSTILE)
def test_a_hostile_formula_or_answer_yields_no_script_handler_or_link(answer):
    page = markdown(f"My answer: {answer} and $\\sqrt{{2}}$.")
    assert "<math" in page  # the honest formula is still typeset
    tags = re.findall(r"<[a-zA-Z][^>]*>", page)
    assert not [t for t in tags if re.match(r"<(script|img|a|iframe|object|embed|maction|mglyph|style|link)\b", t)], tags
    assert not [t for t in tags if re.search(r"\s(on\w+|href|src|xlink:\w+|style|class|actiontype)=", t)
                and not t.startswith(("<div", "<span", "<p"))], tags
    assert "javascript:" not in re.sub(r"<annotation[^>]*>.*?</annotation>", "", page, flags=re.S)
    assert not re.search(r"<math[^>]*>(?:(?!</math>).)*<(?!/?m|/?semantics|/?annotation|/?none)", page, re.S)


def test_clean_mathml_keeps_presentational_mathml_only():
    cleaned = safe_page.clean_mathml(
        '<math display="block" xmlns="http://www.w3.org/1998/Math/MathML" onload="x()"><mrow href="javascript:x()">'
        '<mi mathvariant="normal" style="background:url(http://x)" class="c" id="i">x</mi>'
        '<maction actiontype="toggle"><mi>a</mi></maction><mo stretchy="false" xlink:href="http://x">(</mo>'
        '<mtext><a href="http://x">link</a><script>alert(1)</script></mtext>'
        '<mspace width="2em" linebreak="newline"/></mrow></math>')
    assert cleaned.startswith('<math display="block"><mrow><mi mathvariant="normal">x</mi>')
    assert '<mo stretchy="false">(</mo>' in cleaned and '<mspace width="2em"></mspace>' in cleaned
    for gone in ("onload", "href", "style", "class", "id=", "maction", "xlink", "<a", "script", "linebreak", "xmlns"):
        assert gone not in cleaned, gone


def test_a_slot_is_filled_only_from_its_own_markdown():
    forged = '<span class="maths-slot maths-0000000000000000-0">forged</span> and $y$'
    page = markdown(forged)
    assert "forged</span>" in page and page.count("<math") == 1


def test_a_feedback_page_fetches_nothing_and_runs_no_script():
    nb = small_notebook(LSTM, r"Inline $\sqrt{d_k}$.")
    page = feedback_page.render(nb, Scores(), {}, ["a note with $x_1$"], "student", "04_lstm")
    assert not re.search(r"cdn|mathjax\.js|<script", page, re.I)
    assert "script-src 'none'" in page and "default-src 'none'" in page
    assert page_maths.STYLE in page and page.count("<math") == 3
