"""The README's "Measured" section is rendered from benchmarks/results/, never typed by hand."""
import json
import subprocess
import sys

import pytest
from notebook_runner import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

import budgets
import measured_table
import results_file


def test_readme_section_is_the_committed_results():
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks" / "measured_table.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_committed_results_were_judged_against_todays_budgets():
    latest = results_file.load("latest")
    assert latest is not None, "benchmarks/results/latest.json is missing: run `make benchmark`"
    for row in latest["rows"]:
        if row["what"].startswith("solution notebook"):
            assert row["budget_s"] == budgets.notebook_budget(row["what"].split()[-1]), row
        assert row["ok"] == (row["seconds"] <= row["budget_s"]), row


@pytest.fixture
def results(tmp_path, monkeypatch):
    monkeypatch.setattr(results_file, "RESULTS", tmp_path)
    meta = {"date": "2030-01-02T03:04", "cpu": "Test CPU", "cores": 2, "load_1min": 0.5, "torch": "9.9", "cuda": False}

    def write(name, data):
        (tmp_path / f"{name}.json").write_text(json.dumps({"meta": meta, **data}))
    return write


def test_section_shows_each_measurement_with_its_budget_and_machine(results):
    results("latest", {"rows": [
        {"what": "solution notebook 07_bert", "seconds": 95.5, "budget_s": 90.0, "ratio": 1.06, "ok": False},
        {"what": "solution notebook 01_ngrams", "seconds": 4.31, "budget_s": 60.0, "ratio": 0.07, "ok": True}],
        "models": [{"model": "FFNN, cat/dog world", "metric": "validation perplexity", "value": 2.235, "floor": 2.186,
                    "ratio_to_floor": 1.0224, "ok": True}],
        "char_models": [{"model": "RNN", "setting": "s", "parameters": 1000, "steps": 7, "bits_per_char": 2.5, "uniform_bits": 6.5},
                        {"model": "n-gram", "setting": "k", "parameters": 5, "steps": 0, "bits_per_char": 1.5, "uniform_bits": 6.5}],
        "char_budget_s": 30.0, "gpu": None})
    results("class_of_200", {"notebook": "05_self_attention", "kinds": {"solution": 150, "blank": 50}, "jobs": 2,
                             "class_of_200_s": 400.0, "s_per_submission": 2.0})
    section = measured_table.render()
    assert "2030-01-02 03:04 on Test CPU (2 cores, 1-min load 0.5 when saved), torch 9.9" in section
    assert "| solution notebook 07_bert | ≤ 90.0 s | 95.5 s | 1.06 | NO |" in section
    assert "| solution notebook 01_ngrams | ≤ 60.0 s | 4.3 s | 0.07 | yes |" in section
    budget = f"≤ {budgets.CLASS_OF_200_S / 60:.1f} min"
    assert budget in section and "6.7 min (2.00 s per submission)" in section
    assert ("| NO |" in section.split("class of 200")[1].splitlines()[0]) == (400.0 > budgets.CLASS_OF_200_S)
    assert "2.235 (+2.2%)" in section
    assert section.index("| n-gram |") < section.index("| RNN |"), "best model first"


def test_without_results_the_section_says_how_to_make_them(results):
    assert "run `make benchmark`" in measured_table.render()


def test_writing_replaces_only_the_section():
    text = f"before\n{measured_table.BEGIN}\nold numbers\n{measured_table.END}\nafter\n"
    assert measured_table.with_section(text, "new") == f"before\n{measured_table.BEGIN}\nnew\n{measured_table.END}\nafter\n"
