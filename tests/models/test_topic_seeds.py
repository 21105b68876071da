"""The seeds of notebook 07's topic task (benchmarks/topic_seeds.py): the shipped results are the benchmark's, and
their summary is computed from their runs."""
import json
import statistics
from pathlib import Path

import course_lib

ROOT = Path(__file__).resolve().parents[2]
ASSET = Path(course_lib.__file__).parent / "assets" / "topic_seeds.json"
CONTENDERS = ("bag of words", "frozen MiniLM + linear", "fine-tuned MiniLM")


def test_the_shipped_seeds_are_the_benchmarks_results():
    shipped = json.loads(ASSET.read_text(encoding="utf-8"))
    assert shipped == json.loads((ROOT / "benchmarks" / "results" / "topic_seeds.json").read_text(encoding="utf-8"))
    assert shipped["command"].startswith("python benchmarks/topic_seeds.py")
    for key in ("date", "cpu", "torch"):
        assert shipped["meta"][key], key
    runs = shipped["runs"]
    assert [run["seed"] for run in runs] == list(range(len(runs))) and len(runs) >= 2  # seed 0: the notebook's
    for run in runs:
        assert set(run["accuracy"]) == set(CONTENDERS)
        for accuracy in run["accuracy"].values():  # a whole number of test sentences right
            assert 0 <= accuracy <= 1 and abs(accuracy * run["test_sentences"] - round(accuracy * run["test_sentences"])) < 1e-4
    for name in CONTENDERS:
        values = [run["accuracy"][name] for run in runs]
        assert abs(shipped["mean"][name] - statistics.mean(values)) < 1e-12
        assert abs(shipped["stdev"][name] - statistics.stdev(values)) < 1e-12
    assert shipped["fine_tuned_minus_frozen"] == [
        run["accuracy"]["fine-tuned MiniLM"] - run["accuracy"]["frozen MiniLM + linear"] for run in runs]
