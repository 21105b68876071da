"""The README's "Measured" section, rendered from benchmarks/results/ and benchmarks/budgets.py.

    python benchmarks/measured_table.py            print the section
    python benchmarks/measured_table.py --write    rewrite it in README.md (``make benchmark`` does)
    python benchmarks/measured_table.py --check    exit 1 when README.md differs from the results

The section lies between two HTML comments in README.md; nothing in it is typed by hand, so a number
there is always the one the named run measured (tests/notebooks/test_measured_table.py checks).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from budgets import CLASS_OF_200_S, FFNN_ABOVE_FLOOR
from results_file import load

README = Path(__file__).resolve().parents[1] / "README.md"
BEGIN = "<!-- measured: rendered by benchmarks/measured_table.py from benchmarks/results/; do not edit by hand -->"
END = "<!-- end measured -->"


def ran_on(meta: dict) -> str:
    load_1min = f", 1-min load {meta['load_1min']:g} when saved" if meta.get("load_1min") is not None else ""
    return (f"{meta['date'].replace('T', ' ')} on {meta['cpu']} ({meta['cores']} cores{load_1min}), "
            f"torch {meta['torch']}")


def seconds(value: float) -> str:
    return f"{value:.1f} s" if value < 120 else f"{value / 60:.1f} min"


def budget_row(row: dict) -> str:
    return (f"| {row['what']} | ≤ {seconds(row['budget_s'])} | {seconds(row['seconds'])} | {row['ratio']:.2f} | "
            f"{'yes' if row['ok'] else 'NO'} |")


def cluster_lines(run: dict | None) -> list[str]:
    """Grading on a Dask cluster against grading locally (``benchmarks/cluster.py``), and N workers extrapolated."""
    if not run:
        return []
    local, remote, task = run["local"], run["cluster"], run["scheduler_per_task"]
    lines = ["", f"Grading {run['students']} submissions of {run['notebook']} on a Dask cluster of "
                 f"{run['workers']} workers on this machine against `--jobs {run['workers']}` "
                 f"(`benchmarks/cluster.py`, {ran_on(run['meta'])}):", "",
             "| | per submission (marginal) | in its worker | once per batch |", "|---|---:|---:|---:|"]
    for name, r in (("local processes", local), ("Dask cluster", remote)):
        lines.append(f"| {name} | {r['per_submission_s']:.2f} s | {r['in_worker_s']:.2f} s | "
                     f"{r['once_per_batch_s']:.1f} s |")
    lines += ["", f"The cluster's overhead: {run['overhead_per_submission_s']:+.2f} s per submission "
                  f"({run['overhead_fraction']:+.0%}); the scheduler's cost per task {task['nothing_s'] * 1000:.1f} ms "
                  f"(empty), {task['payload_s'] * 1000:.1f} ms (carrying {task['payload_bytes'] / 1000:.0f} kB). "
                  f"A class of {run['class_size']:,} submissions at "
                  f"{run['worker_seconds_per_submission']:.1f} worker-seconds each:", "",
              "| workers | hours | bound by |", "|---:|---:|---|"]
    lines += [f"| {e['workers']} | {e['hours']:.2f} | {e['bound']} |" for e in run["extrapolated"]]
    return lines


def lecture_lines(run: dict | None) -> list[str]:
    """Every lecture run top to bottom at its own pace (``benchmarks/lectures.py``): its slowest cell and its total."""
    if not run:
        return []
    lines = ["", f"Every lecture (`lectures/`, at the lecture's pace: each training stops after a moment or after its "
                 f"cell's `lecture_pace` seconds) run top to bottom by a kernel (`benchmarks/lectures.py`, "
                 f"{ran_on(run['meta'])}); budgets: each cell ≤ {seconds(run['cell_budget_s'])}, each lecture "
                 f"≤ {seconds(run['lecture_budget_s'])}; a time is the smaller of the wall time and the kernel's CPU "
                 "time, and a lecture's is its cells' (the kernel's start, about 2 s, and a static deck's writing are "
                 "not in it). Measure on an idle machine: under load the kernel's two threads spin and both grow (at a "
                 "1-min load of 12, one cell of 04 took 42 s of CPU instead of 2 s; each row's load is in "
                 "benchmarks/results/lectures.json):", "",
             "| lecture | cells | slowest cell | whole lecture | within |", "|---|---:|---:|---:|---|"]
    lines += [f"| {r['name']} | {r['cells']} | {seconds(r['slowest_cell_s'])} | {seconds(r['total_s'])} | "
              f"{'yes' if r['within'] else 'NO'} |" for r in run["lectures"]]
    return lines


def cuda_lecture_lines(run: dict | None) -> list[str]:
    """The same lectures on a lent GPU (``.devlane/lectures.py``; benchmarks/results/lectures_cuda.json)."""
    if not run:
        return []
    meta = run["meta"]
    lines = ["", f"The same lectures on a lent {meta['device']} ({meta['date']}, torch {meta['torch']}, Python "
                 f"{meta['python']}; `COURSE_DEVICE=cuda`; a cell's time from nbclient's timestamps; the first cell "
                 "of each lecture pays for CUDA's start and cold imports):", "",
             "| lecture | slowest cell | cells in all | lecture, kernel start included | note |",
             "|---|---:|---:|---:|---|"]
    lines += [f"| {r['name']} | {seconds(r['slowest_cell_s'])} | {seconds(r['cells_total_s'])} | "
              f"{seconds(r['total_s'])} | {r['note']} |" for r in run["lectures"]]
    return lines


def render() -> str:
    """The section's lines between the markers (empty results say how to make them)."""
    latest, lines = load("latest"), []
    if latest is None:
        return "No measurement yet: run `make benchmark`."
    lines += [f"From `make benchmark` ({ran_on(latest['meta'])}); budgets from `benchmarks/budgets.py`:", "",
              "| what | budget | measured | ratio | within |", "|---|---|---|---|---|"]
    lines += [budget_row(row) for row in latest["rows"]]
    class_of = load("class_of_200")
    if class_of:
        c = class_of
        kinds = ", ".join(f"{n} {k}" for k, n in c["kinds"].items())
        within = "yes" if c["class_of_200_s"] <= CLASS_OF_200_S else "NO"
        lines.append(f"| a class of 200 submissions of notebook {c['notebook']} ({kinds}), "
                     f"{c['jobs']} jobs, `benchmarks/class_of_200.py` ({ran_on(c['meta'])}) | "
                     f"≤ {seconds(CLASS_OF_200_S)} | "
                     f"{seconds(c['class_of_200_s'])} ({c['s_per_submission']:.2f} s per submission) | "
                     f"{c['class_of_200_s'] / CLASS_OF_200_S:.2f} | {within} |")
    for m in latest["models"]:
        lines.append(f"| {m['model']}: {m['metric']} against the exact floor {m['floor']} | "
                     f"≤ {FFNN_ABOVE_FLOOR:.0%} above | "
                     f"{m['value']} ({m['ratio_to_floor'] - 1:+.1%}) | | {'yes' if m['ok'] else 'NO'} |")
    lines += lecture_lines(load("lectures"))
    lines += cuda_lecture_lines(load("lectures_cuda"))
    wrong = load("wrong_answers")
    if wrong:
        lines += ["", f"Grading the blind sets' wrong answers (`benchmarks/wrong_answers.py`, "
                      f"{ran_on(wrong['meta'])}): seconds in a worker for a solution and for a wrong answer, "
                      "and the batch's wall time per submission:", "",
                  "| notebook | wrong answers | solution, in a worker | wrong answer, in a worker | per submission |",
                  "|---|---:|---:|---:|---:|"]
        lines += [f"| {b['notebook']} | {b['wrong_answers']} | {b['solution_worker_s_mean']:.2f} s | "
                  f"{b['wrong_worker_s_mean']:.2f} s | {b['s_per_submission']:.2f} s |" for b in wrong["batches"]]
    lines += cluster_lines(load("cluster"))
    chars = latest.get("char_models") or []
    if chars:
        lines += ["", f"Every language model of the course on notebook 04's character corpus (Python source, last 10% "
                      f"held out), {latest['char_budget_s']:g} s of training each on one thread "
                      "(`course_lib.compare`), "
                      "validation bits per character, best first:", "",
                  "| model | setting | parameters | steps | bits/char |", "|---|---|---:|---:|---:|"]
        lines += [f"| {c['model']} | {c['setting']} | {c['parameters']:,} | {c['steps'] or '-'} | "
                  f"{c['bits_per_char']} |" for c in sorted(chars, key=lambda c: c["bits_per_char"])]
        lines.append(f"| uniform guess | | | | {chars[0]['uniform_bits']} |")
    gpu_run = load("gpu")
    runs = [(latest.get("gpu"), latest["meta"])] + ([(gpu_run["gpu"], gpu_run["meta"])] if gpu_run else [])
    for result, meta in runs:
        if not result:
            continue
        import gpu  # torch and course_lib: only when there is something to draw

        where = ("GPU lane skipped: no CUDA on this machine. " if result.get("skipped")
                 else f"GPU lane on {result['device']}. ")
        lines += ["", where + f"({ran_on(meta)})", ""] + gpu.markdown_rows(result.get("speedups", []),
                                                                             result.get("tokens_per_s", []))
    return "\n".join(lines)


def with_section(text: str, section: str) -> str:
    if BEGIN not in text or END not in text:
        raise SystemExit(f"README.md lacks the markers {BEGIN!r} ... {END!r}")
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    return f"{head}{BEGIN}\n{section}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="rewrite the section in README.md")
    parser.add_argument("--check", action="store_true", help="exit 1 when README.md's section differs")
    args = parser.parse_args(argv)
    section = render()
    text = README.read_text(encoding="utf-8")
    wanted = with_section(text, section)
    if args.write:
        README.write_text(wanted, encoding="utf-8")
    elif args.check:
        if wanted != text:
            print("README.md's Measured section differs from benchmarks/results/: run "
                  "`python benchmarks/measured_table.py --write`", file=sys.stderr)
            return 1
    else:
        print(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
