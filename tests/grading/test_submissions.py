"""Finding and reading submissions: flat LMS folders, nbgrader submitted/ trees, and files that are not notebooks."""
import json

import nbformat

from autograder.grade import find_submissions, read_submission


def test_flat_folder_and_nbgrader_tree(tmp_path):
    nb = nbformat.v4.new_notebook()
    nbformat.write(nb, tmp_path / "alice.ipynb")
    tree = tmp_path / "bob" / "05_self_attention"
    tree.mkdir(parents=True)
    nbformat.write(nb, tree / "05_self_attention.ipynb")
    (tmp_path / "carol" / "06_transformer").mkdir(parents=True)
    nbformat.write(nb, tmp_path / "carol" / "06_transformer" / "06_transformer.ipynb")
    found = find_submissions(tmp_path, "05_self_attention")
    assert set(found) == {"alice", "bob"}


def test_reasons_for_files_that_are_not_notebooks(tmp_path):
    cases = {
        "empty.ipynb": ("", "empty"),
        "json.ipynb": ("[1, 2", "invalid JSON"),
        "v3.ipynb": (json.dumps({"nbformat": 3, "nbformat_minor": 0, "worksheets": []}), "unsupported notebook format 3"),
        "cells.ipynb": (json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": "x"}), "malformed"),
    }
    for name, (text, reason) in cases.items():
        (tmp_path / name).write_text(text)
        nb, problem = read_submission(tmp_path / name)
        assert nb is None and reason in problem, (name, problem)
    nbformat.write(nbformat.v4.new_notebook(), tmp_path / "ok.ipynb")
    nb, problem = read_submission(tmp_path / "ok.ipynb")
    assert nb is not None and problem == ""
