"""Time every lecture notebook (lectures/NN_name.ipynb) top to bottom: its slowest cell and its total.

    python benchmarks/lectures.py [NN ...] [--decks]

Each lecture runs as the lecturer's kernel runs it (nbclient, in lectures/, the lecture's own pace:
``COURSE_FAST=1`` unless the environment sets it), one after the other. The budgets are the design's: every
cell within 10 s and a whole lecture within 60 s on a 2-core CPU. Each cell's wall time and its kernel's CPU
time are both kept: on a busy machine the wall time grows with the load and the CPU time hardly does, and a
cell's time on the idle machine is at most the smaller of the two (a cell that keeps both cores busy takes
less wall than CPU time). The budget is judged on that smaller figure (``slowest_cell_s``, ``total_s``). Results go to
benchmarks/results/lectures.json (with the date, the machine and its load); ``python
benchmarks/measured_table.py --write`` shows them in the README. Exit 1 when a lecture is over budget.
``--decks`` also writes each executed lecture's static deck (lectures/html/NN_name.slides.html).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO))
from results_file import load, machine, save  # noqa: E402

from autograder.course import assignments  # noqa: E402
from autograder.lecture_deck import DECKS, cell_seconds, deck_html, run_lecture  # noqa: E402

LECTURE_CELL_S = 10.0  # one lecture cell, on a 2-core CPU
LECTURE_S = 60.0  # one whole lecture


def time_lecture(name: str, deck: bool = False) -> dict:
    cpu: dict[int, float] = {}
    nb, total = run_lecture(name, timeout=600, cpu=cpu)  # a loaded machine still finishes; judged after
    if deck:
        DECKS.mkdir(parents=True, exist_ok=True)
        (DECKS / f"{name}.slides.html").write_text(deck_html(nb, name), encoding="utf-8")
    code = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    # a cell's time on an idle machine is at most its CPU time (one busy thread) and at most its wall time here
    seconds = [(min(cell_seconds(c) or 0.0, cpu.get(i, float("inf"))), i) for i, c in code]
    slowest, index = max(seconds)
    wall_slowest = max(cell_seconds(c) or 0.0 for _, c in code)
    estimate = sum(s for s, _ in seconds)
    first_line = next((line for line in nb.cells[index].source.splitlines()
                       if line.strip() and not line.startswith(("import os", "os.environ"))), "")
    now = machine()
    return {"name": name, "date": now["date"], "load_1min": now["load_1min"], "cells": len(code),
            "wall_total_s": round(total, 1), "wall_slowest_cell_s": round(wall_slowest, 2),
            "cpu_total_s": round(sum(cpu.values()), 1), "slowest_cell_s": round(slowest, 2),
            "total_s": round(min(total, estimate), 1), "slowest_cell": index, "slowest_cell_starts": first_line[:80],
            "within": slowest <= LECTURE_CELL_S and min(total, estimate) <= LECTURE_S}


def main(argv: list[str]) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    decks = "--decks" in argv
    argv = [a for a in argv if a != "--decks"]
    names = [n for n in assignments() if not argv or any(n.startswith(a) for a in argv)]
    meta = machine()
    lectures = []
    for name in names:
        row = time_lecture(name, decks)
        lectures.append(row)
        print(f"{name}: {row['total_s']:.1f} s in all, slowest cell {row['slowest_cell_s']:.1f} s "
              f"(cell {row['slowest_cell']}: {row['slowest_cell_starts']!r}); wall {row['wall_total_s']:.1f} s, "
              f"CPU {row['cpu_total_s']:.1f} s", flush=True)
    meta["load_1min_after"] = machine()["load_1min"]
    earlier = load("lectures") if argv else None  # a run of some lectures keeps the others' rows
    if earlier:
        lectures = sorted([r for r in earlier["lectures"] if r["name"] not in names] + lectures,
                          key=lambda r: r["name"])
    path = save("lectures", {"cell_budget_s": LECTURE_CELL_S, "lecture_budget_s": LECTURE_S,
                             "course_fast": os.environ.get("COURSE_FAST", "1 (the lectures' own)"),
                             "lectures": lectures}, meta)
    print(f"wrote {path}")
    return 0 if all(row["within"] for row in lectures) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
