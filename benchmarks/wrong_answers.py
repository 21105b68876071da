"""Grading time of wrong answers, where the diagnosis and the probes run.

    python benchmarks/wrong_answers.py [NN ...] [--jobs J]

For each notebook, one submission per wrong answer of both blind sets (``tests/checks/blind/``,
``tests/checks/blind_holdout/``: the solution with that one answer cell replaced) and as many solutions,
graded together through ``python -m autograder grade --jobs J``. Prints, per notebook, the seconds
one submission took in its worker (``results.json``), mean and max, for the solutions and for the
wrong answers, and the batch's wall time per submission, which is what the budget of 10 s per
submission is measured as (``benchmarks/run.py``: set-up included).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests" / "checks" / "blind"), str(REPO / "tests" / "support")]

from budgets import SUBMISSION_S  # noqa: E402
from autograder.cells import answers, with_answers  # noqa: E402
from class_of_200 import grade  # noqa: E402
from measure import blind_module, numbers_in  # noqa: E402
from results_file import save  # noqa: E402

NAMES = {"01": "01_ngrams", "02": "02_ffnn_lm", "03": "03_rnn_vanishing", "04": "04_lstm",
         "05": "05_self_attention", "06": "06_transformer", "07": "07_bert",
         "08": "08_bert_tasks"}


def make_submissions(number: str, folder: Path) -> int:
    """The solution once per wrong answer, and each wrong answer; returns how many wrong answers."""
    name = NAMES[number]
    release = nbformat.read(REPO / "notebooks" / f"{name}.ipynb", as_version=4)
    solution = answers(nbformat.read(REPO / "solutions" / f"{name}.ipynb", as_version=4))
    cases = [case for set_name in ("blind", "blind_holdout") for case in blind_module(number, set_name).BLIND]
    kinds = ([("solution", {}) for _ in cases]
             + [(f"wrong_{i}", {case.cell: case.source}) for i, case in enumerate(cases)])
    for kind, replaced in kinds:
        nb = with_answers(release, {**solution, **replaced})
        nbformat.write(nb, folder / f"{kind}_{len(list(folder.iterdir())):03d}.ipynb")
    return len(cases)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", default=numbers_in("blind"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    print("| notebook | wrong answers | in a worker: solution s, mean / max | wrong answer s, mean / max | "
          "batch wall s | per submission s |")
    print("|---|---|---|---|---|---|")
    worst, measured = 0.0, []
    for number in args.notebooks:
        with tempfile.TemporaryDirectory() as tmp:
            subs, out = Path(tmp) / "subs", Path(tmp) / "out"
            subs.mkdir()
            count = make_submissions(number, subs)
            wall = grade(NAMES[number], subs, out, args.jobs, [])
            if wall is None:
                print(f"| {number} | {count} | grading failed | | |")
                return 1
            rows = json.loads((out / "results.json").read_text())
            right = [r["seconds"] for r in rows if r["student_id"].startswith("solution")]
            wrong = [r["seconds"] for r in rows if r["student_id"].startswith("wrong")]
            per_submission = wall / len(rows)
            worst = max(worst, per_submission)
            measured.append({"notebook": number, "wrong_answers": count, "jobs": args.jobs, "wall_s": round(wall, 1),
                             "s_per_submission": round(per_submission, 2),
                             "solution_worker_s_mean": round(sum(right) / len(right), 2),
                             "wrong_worker_s_mean": round(sum(wrong) / len(wrong), 2)})
            print(f"| {number} | {count} | {sum(right) / len(right):.2f} / {max(right):.2f} | "
                  f"{sum(wrong) / len(wrong):.2f} / {max(wrong):.2f} | {wall:.0f} | {per_submission:.2f} |", flush=True)
    print(f"\nworst batch: {worst:.2f} s per submission (budget {SUBMISSION_S:g} s)")
    save("wrong_answers", {"batches": measured})
    return 0 if worst <= SUBMISSION_S else 1


if __name__ == "__main__":
    sys.exit(main())
