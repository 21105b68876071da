"""In a real kernel: a check cell whose answer has not run says so in one sentence; failed checks show no traceback."""
import nbformat
from nbclient import NotebookClient


def test_check_cells_speak_in_sentences():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("from course_lib.checks import self_attention as checks\nchecks.install_notebook_hooks()"),
        nbformat.v4.new_code_cell('checks.check_machines_step("z", z_machines)'),
        nbformat.v4.new_code_cell('checks.check_machines_step("z", [0.24, 0.55])'),
        nbformat.v4.new_code_cell("def f():\n    return undefined_elsewhere\nf()"),
        nbformat.v4.new_code_cell("def count_ngrams(tokens, n):\n    raise NotImplementedError()\ncount_ngrams([], 2)"),
        nbformat.v4.new_code_cell("def g():\n    raise NotImplementedError('a library feature')\ng()"),
        nbformat.v4.new_code_cell("# an answer cell, still blank\nmachines_scores = None\nraise NotImplementedError()"),
        nbformat.v4.new_code_cell("runs = {}\nfor label in ('a', 'b'):\n    print(label)\nz = clipped_model(3)"),
    ]
    NotebookClient(nb, timeout=120, allow_errors=True, kernel_name="python3").execute()
    missing, slide, ordinary, stub, library, answer, upstream = (cell.outputs[-1] for cell in nb.cells[1:])
    assert missing.output_type == "error" and len(missing.traceback) == 1
    assert "z_machines is not defined yet" in missing.traceback[0]
    assert slide.output_type == "error" and len(slide.traceback) == 1
    assert "slide's text value" in slide.traceback[0]
    assert ordinary.output_type == "error" and len(ordinary.traceback) > 1  # the student's own bug keeps its traceback
    assert stub.output_type == "error" and len(stub.traceback) == 1  # a demo cell calling a blank stub
    assert "count_ngrams is not implemented yet" in stub.traceback[0]
    assert library.output_type == "error" and len(library.traceback) > 1  # a NotImplementedError with a message is real
    # an answer cell that raises at its top level: no "<module> is not implemented yet"
    assert answer.output_type == "error" and len(answer.traceback) == 1, answer.traceback
    assert "this answer is not implemented yet" in answer.traceback[0] and "<module>" not in answer.traceback[0]
    # a demo cell whose input a failed cell above never defined: one line naming it and where it is used
    assert upstream.output_type == "error" and len(upstream.traceback) == 1, upstream.traceback
    assert "clipped_model is not defined yet" in upstream.traceback[0]
    assert "line 4: z = clipped_model(3)" in upstream.traceback[0]
