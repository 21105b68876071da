"""notebooks/ and solutions/*.ipynb are built from solutions/src and committed without outputs."""
import json
import re
import subprocess
import sys

import pytest

from notebook_runner import REPO


def test_committed_notebooks_match_their_source():
    proc = subprocess.run([sys.executable, "-m", "autograder", "build", "--check"], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("path", sorted((REPO / "notebooks").glob("*.ipynb")) + sorted((REPO / "solutions").glob("*.ipynb")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_outputs_or_execution_counts_committed(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


def test_student_notebooks_hold_no_solutions_or_hidden_tests():
    for path in (REPO / "notebooks").glob("*.ipynb"):
        text = path.read_text(encoding="utf-8")
        for marker in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "Model answer (instructors only)"):
            assert marker not in text, f"{path.name} contains {marker!r}"


# The lecturer's copy: lectures/NN_name.ipynb (autograder/lecture.py), RISE slides from the same source.

LECTURES = REPO / "lectures"
SLIDE_TYPES = {"slide", "subslide", "fragment", "skip", "-"}


def test_every_source_has_its_lecture():
    sources = {p.stem for p in (REPO / "solutions" / "src").glob("[0-9][0-9]_*.py")}
    lectures = {p.stem for p in LECTURES.glob("[0-9][0-9]_*.ipynb")}
    assert sources == lectures, f"sources without a lecture: {sources - lectures}; lectures without a source: {lectures - sources}"


@pytest.mark.parametrize("path", sorted(LECTURES.glob("[0-9][0-9]_*.ipynb")), ids=lambda p: p.name)
def test_lecture_is_slides_without_exercise_scaffolding(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert nb["metadata"]["rise"]["scroll"] is True and nb["metadata"]["rise"]["theme"]
    assert nb["cells"][0]["metadata"]["slideshow"]["slide_type"] == "slide"
    text = path.read_text(encoding="utf-8")
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "Model answer (instructors only)",
                   '"""Check my answer', "nbgrader", "YOUR CODE HERE", "NotImplementedError()"):
        assert marker not in text, f"{path.name} contains {marker!r}"
    for cell in nb["cells"]:
        assert cell["metadata"]["slideshow"]["slide_type"] in SLIDE_TYPES
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None
    headings = [c for c in nb["cells"] if c["cell_type"] == "markdown" and c["source"].startswith(("# ", "## "))]
    assert len(headings) >= 3 and all(c["metadata"]["slideshow"]["slide_type"] == "slide" for c in headings), \
        "each # or ## heading opens a slide"
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            assert not re.search(r"\n#{1,6} ", cell["source"]), f"a heading inside a slide's cell: {cell['source'][:80]!r}"
    first_code = next(c for c in nb["cells"] if c["cell_type"] == "code")
    assert 'os.environ.setdefault("COURSE_FAST", "1")' in first_code["source"]
    for cell in nb["cells"]:  # every cell that trains says its pace on its slide
        if cell["cell_type"] == "code" and re.search(r"(?<![\w.])(?:train|budgeted)\(", cell["source"]):
            assert re.search(r"^lecture_pace\(", cell["source"], re.MULTILINE), cell["source"][:120]


def test_the_lecture_moment_is_the_training_moment():
    from autograder import lecture
    from course_lib import train

    assert lecture.MOMENT_S == train.FAST_SECONDS
    assert f'"{train.PACE_ENV}", "{train.FAST_SECONDS:g}"' in "\n".join(lecture.PACE_LINES)


def test_lecture_options_and_slides_from_a_source(tmp_path):
    from autograder.lecture import build_lecture
    from autograder.notebook_source import SourceError

    source = tmp_path / "99_tiny.py"
    source.write_text("\n".join([
        "# ---", "# checks: course_lib.checks.ngrams", "# ---",
        "# %% [markdown]", "# # Title", "#", "# Intro.", "#", "# ## Part one", "#", "# Prose.", "#", "# ### Detail",
        "# %% [setup] id=setup", "from course_lib.checks import ngrams as checks",
        "# %% [answer] id=f", "def f(x):", "    ### BEGIN SOLUTION", "    return 2 * x", "    ### END SOLUTION",
        "# %% [tests] id=test_f points=1", '"""Check my answer: f."""', "checks.check_f(f)",
        "# %% [tests] id=test_g points=1 lecture=keep", "print(f(2))",
        "# %% [written] id=why points=1", "# *Model answer (instructors only).* Because.",
        "# %% [demo] lecture=skip", "print('only in the notebook')",
        "# %% [demo] slide=fragment", "print('a fragment')",
        "# %% [markdown] slide=subslide", "# More prose, on a subslide of its own.",
        "# %% [demo] pace=3", "history = train(model, draw)",
        "# %% [demo]", "for batch in budgeted(batches):", "    step(batch)",
        "# %% [demo]", "def show(n):", "    print(n)", "", "", "widgets.interact(show, n=widgets.IntSlider(2));",
    ]) + "\n", encoding="utf-8")
    nb = build_lecture(source)
    cells = [(c.cell_type, c.metadata["slideshow"]["slide_type"], c.source) for c in nb.cells]
    assert [c[:2] for c in cells] == [("markdown", "slide"), ("markdown", "slide"), ("markdown", "subslide"),
                                      ("code", "-"), ("code", "-"), ("code", "-"), ("code", "fragment"),
                                      ("markdown", "subslide"), ("code", "-"), ("code", "-"), ("code", "-"),
                                      ("code", "subslide")]
    assert cells[0][2] == "# Title\n\nIntro." and cells[2][2] == "### Detail"
    assert cells[3][2].startswith("import os\n") and cells[3][2].endswith("from course_lib.checks import ngrams as checks")
    assert cells[4][2] == "def f(x):\n    return 2 * x"
    assert cells[5][2] == "print(f(2))"
    paced, moment = cells[8][2].split("\n"), cells[9][2].split("\n")  # the trainings' pace, said on the slide
    assert paced[:2] == ["from course_lib.train import lecture_pace", paced[1]] and paced[1].startswith(
        "lecture_pace(3)  # each training here stops after 3 s") and paced[2] == "history = train(model, draw)"
    assert moment[0].startswith("lecture_pace(0.5)  # a moment per training") and moment[1] == "for batch in budgeted(batches):"
    assert cells[10][2] == "def show(n):\n    print(n)"  # a widget's call on a slide of its own
    assert cells[11][2] == "widgets.interact(show, n=widgets.IntSlider(2));"
    text = json.dumps(nb)
    assert "nbgrader" not in text and "Model answer" not in text and "only in the notebook" not in text
    source.write_text(source.read_text().replace("slide=fragment", "slide=sideways"), encoding="utf-8")
    with pytest.raises(SourceError, match="slide= takes"):
        build_lecture(source)
    source.write_text(source.read_text().replace("slide=sideways", "pace=soon"), encoding="utf-8")
    with pytest.raises(SourceError, match="pace= takes the seconds"):
        build_lecture(source)


#: the decks' moments, each a computed slide of its own in its lecture: (lecture, a line of its code cell)
MOMENTS = [
    ("03", "def show_gradients"),          # the vanishing-gradient plot with its slider
    ("04", "checks.slide_inputs()"),        # the forget-gate example
    ("05", "words = checks.WORDS"),         # "Computers are thinking machines"
    ("05", "si_words = checks.SPACE_INVADER_WORDS"),  # "I am space invader"
    ("05", "checks.BROWN_DOG_ROWS"),        # the "brown dog" rows
    ("05", "viz.attention_heatmap"),        # an attention heat map
    ("06", 'comparison["task"]["example"]'),  # the encoder-decoder's cross-attention heat maps
    ("07", "def show_similarities"),        # "bank" per layer, with its widget
]


def slide_groups(nb: dict) -> list[list[dict]]:
    """The lecture's cells cut where a slide or subslide starts."""
    groups: list[list[dict]] = []
    for cell in nb["cells"]:
        if not groups or cell["metadata"]["slideshow"]["slide_type"] in ("slide", "subslide"):
            groups.append([])
        groups[-1].append(cell)
    return groups


@pytest.mark.parametrize("lecture, line", MOMENTS, ids=[f"{n}-{line[:24]}" for n, line in MOMENTS])
def test_each_moment_of_the_decks_is_a_slide_of_its_own(lecture, line):
    path = next(LECTURES.glob(f"{lecture}_*.ipynb"))
    groups = slide_groups(json.loads(path.read_text(encoding="utf-8")))
    holding = [g for g in groups if any(c["cell_type"] == "code" and line in c["source"] for c in g)]
    assert holding, f"{path.name} has no code cell with {line!r}"
    group = holding[0]
    others = [other for n, other in MOMENTS if other != line and n == lecture
              and any(other in c["source"] for c in group)]
    assert not others, f"{line!r} shares its slide with {others}"
    assert sum(c["cell_type"] == "code" for c in group) <= 3, f"{line!r} is on a crowded slide"
