"""Measure the course's runtime budgets and print a table (Markdown, also saved as JSON).

    python benchmarks/run.py [--submissions N] [--jobs J] [--skip-install] [--device cuda] [--gpu-only]

- set-up: `make install` in a fresh clone of this repository, with the package cache warm;
- every solution notebook, top to bottom, on this machine;
- autograding: N submissions of each notebook (solutions and blanks) through
  `python -m autograder grade`, seconds per submission and wall time;
- language models against their targets: the FFNN's validation perplexity on the cat/dog world
  against the exact entropy floor, as trained in notebook 02; and every model
  of the course on one character corpus, bits per character under the same training budget
  (``course_lib.compare``);
- the GPU lane (``benchmarks/gpu.py``), when torch sees CUDA: the training demos' speed-up over the
  CPU (goal: 10x) and the course's Transformer LM against the same LM from PyTorch's modules,
  tokens/s, on the GPU and on the CPU; without CUDA, "GPU benchmarks: skipped: no CUDA." and the
  Transformer comparison on the CPU alone. ``--gpu-only`` runs just this part.
The budgets are benchmarks/budgets.py's. Results go to benchmarks/results/latest.{md,json} (with
--gpu-only: gpu.{md,json}); ``python benchmarks/measured_table.py --write`` then rewrites the README's
"Measured" section from them (``make benchmark`` does both).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import torch
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))  # benchmarks/gpu.py, also under `python -m benchmarks.run`
import gpu  # noqa: E402
from results_file import RESULTS, machine, save  # noqa: E402
from budgets import COURSE_S, FFNN_ABOVE_FLOOR, INSTALL_S, SUBMISSION_S, notebook_budget  # noqa: E402


def time_notebook(path: Path) -> float:
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as tmp:
        client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": tmp}})
        start = time.perf_counter()
        client.execute()
        return time.perf_counter() - start


def time_grading(name: str, n: int, jobs: int) -> dict:
    from autograder.cells import answers, with_answers  # nbgrader's: the GPU lane (--gpu-only) runs without it
    source = nbformat.read(REPO / "solutions" / f"{name}.ipynb", as_version=4)
    release = nbformat.read(REPO / "notebooks" / f"{name}.ipynb", as_version=4)
    solution = answers(source)
    with tempfile.TemporaryDirectory() as tmp:
        subs = Path(tmp) / "subs"
        subs.mkdir()
        for i in range(n):
            nb = with_answers(release, solution if i % 2 == 0 else {})
            nbformat.write(nb, subs / f"student{i:03d}.ipynb")
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "autograder", "grade", name, str(subs), "--out", str(Path(tmp) / "out"),
                        "--jobs", str(jobs)], check=True, capture_output=True)
        wall = time.perf_counter() - start
    return {"notebook": name, "submissions": n, "jobs": jobs, "wall_s": round(wall, 1),
            "s_per_submission": round(wall / n, 2)}


def ffnn_cat_dog() -> dict:
    """Notebook 02's FFNN run (same data, config and steps): validation perplexity against the floor."""
    import math

    from course_lib import data
    from course_lib.device import get_device
    from course_lib.ffnn import FFNNConfig, FFNNLanguageModel, context_windows
    from course_lib.train import TrainConfig, evaluate, iterate_batches, train, window_batches

    train_text, valid_text, _ = data.train_valid_split(3000, 500, 100, seed=0)
    vocab = data.Vocab([data.tokenize(s) for s in train_text])
    X, Y = context_windows([vocab.encode(data.tokenize(s)) for s in train_text], 5, 1, 2)
    Xv, Yv = context_windows([vocab.encode(data.tokenize(s)) for s in valid_text], 5, 1, 2)
    torch.manual_seed(0)
    model = FFNNLanguageModel(FFNNConfig(len(vocab), 5, 16, 64)).to(get_device())
    history = train(model, window_batches(X, Y, 128),
                    TrainConfig(steps=2000, lr=3e-3, weight_decay=0.1, progress=False))
    ppl = evaluate(model, iterate_batches(Xv, Yv))["perplexity"]
    floor = math.exp(data.entropy_per_token(without_held_out=True))
    return {"model": "FFNN, cat/dog world", "metric": "validation perplexity", "value": round(ppl, 4),
            "target": round((1 + FFNN_ABOVE_FLOOR) * floor, 4), "floor": round(floor, 4),
            "ratio_to_floor": round(ppl / floor, 4),
            "train_s": round(history.seconds, 1), "ok": ppl <= (1 + FFNN_ABOVE_FLOOR) * floor}


def char_models(budget_s: float) -> list[dict]:
    """Every language model of the course on notebook 04's character corpus, the same training budget each
    (``course_lib.compare``, one thread): validation bits per character."""
    from course_lib.compare import CompareConfig, compare_char_models
    from course_lib.device import torch_threads

    with torch_threads(1):
        results = compare_char_models(CompareConfig(budget_s=budget_s))
    return [{"model": r.model, "setting": r.setting, "parameters": r.parameters, "steps": r.steps,
             "train_s": round(r.train_seconds, 1), "chars_per_s": round(r.chars_per_second),
             "bits_per_char": round(r.bits_per_char, 3), "uniform_bits": round(r.uniform_bits, 3)} for r in results]


def time_install() -> float:
    """Seconds of `make install` (what the README's first command runs before JupyterLab starts) in a fresh
    clone of this repository, with the machine's package cache as it is (warm after any earlier install)."""
    with tempfile.TemporaryDirectory(prefix="course-install-") as tmp:
        clone = Path(tmp) / "course"
        subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
        start = time.perf_counter()
        proc = subprocess.run(["make", "install", f"PYTHON={sys._base_executable}"], cwd=clone,
                              capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if proc.returncode:
            raise SystemExit(f"make install failed in a fresh clone:\n{proc.stdout}\n{proc.stderr}")
        return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--submissions", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--skip-install", action="store_true", help="do not time `make install` in a fresh clone")
    parser.add_argument("--char-budget", type=float, default=30.0,
                        help="training seconds per model in the character-model comparison (0: skip it)")
    parser.add_argument("--gpu-only", action="store_true",
                        help="run only the GPU lane (speed-ups over the CPU, Transformer tokens/s); "
                             "writes benchmarks/results/gpu.{md,json}")
    parser.add_argument("--device", default=None,
                        help="the device the GPU lane compares with the CPU (default: cuda when torch sees one)")
    parser.add_argument("--gpu-seconds", type=float, default=3.0, help="timed seconds per GPU-lane measurement")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    device = os.environ.get("COURSE_DEVICE", "auto")
    if args.gpu_only:
        gpu_lines, gpu_result = gpu.gpu_section(args.device, args.gpu_seconds)
        meta = machine()
        table = "\n".join([f"Measured {meta['date']} on {meta['cpu']} ({meta['cores']} cores), torch {meta['torch']}, "
                           f"CUDA available: {meta['cuda']}.", ""] + gpu_lines)
        print(table)
        save("gpu", {"gpu": gpu_result}, meta)
        (RESULTS / "gpu.md").write_text(table + "\n", encoding="utf-8")
        return
    rows = []
    if not args.skip_install:
        seconds = time_install()
        rows.append({"what": "set-up: `make install` in a fresh clone (warm package cache)",
                     "seconds": round(seconds, 1), "budget_s": INSTALL_S, "ratio": round(seconds / INSTALL_S, 2),
                     "ok": seconds <= INSTALL_S})
    for path in sorted((REPO / "solutions").glob("[0-9][0-9]_*.ipynb")):
        seconds = time_notebook(path)
        budget = notebook_budget(path.stem)
        rows.append({"what": f"solution notebook {path.stem}", "seconds": round(seconds, 1), "budget_s": budget,
                     "ratio": round(seconds / budget, 2), "ok": seconds <= budget})
    total = sum(r["seconds"] for r in rows if r["what"].startswith("solution notebook"))
    rows.append({"what": "whole course (all solution notebooks)", "seconds": round(total, 1), "budget_s": COURSE_S,
                 "ratio": round(total / COURSE_S, 2), "ok": total <= COURSE_S})
    gradings = [time_grading(path.stem, args.submissions, args.jobs)
                for path in sorted((REPO / "solutions").glob("[0-9][0-9]_*.ipynb"))]
    for grading in gradings:
        rows.append({"what": f"autograding {grading['notebook']}, per submission ({grading['submissions']} subs, "
                             f"{grading['jobs']} jobs)", "seconds": grading["s_per_submission"],
                     "budget_s": SUBMISSION_S,
                     "ratio": round(grading["s_per_submission"] / SUBMISSION_S, 2),
                     "ok": grading["s_per_submission"] <= SUBMISSION_S})
    models = [ffnn_cat_dog()]
    chars = char_models(args.char_budget) if args.char_budget > 0 else []
    meta = {**machine(), "device": device}
    lines = [f"Measured {meta['date']} on {meta['cpu']} ({meta['cores']} cores), torch {meta['torch']}, "
             f"COURSE_DEVICE={device}, CUDA available: {meta['cuda']}.", "",
             "| what | seconds | budget (s) | ratio | within budget |", "|---|---|---|---|---|"]
    lines += [f"| {r['what']} | {r['seconds']} | {r['budget_s']:g} | {r['ratio']} | {'yes' if r['ok'] else 'NO'} |"
              for r in rows]
    lines += ["", "| language model | metric | value | target | floor | value / floor | training (s) | met |",
              "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {m['model']} | {m['metric']} | {m['value']} | <= {m['target']} | {m['floor']} | "
              f"{m['ratio_to_floor']} | {m['train_s']} | {'yes' if m['ok'] else 'NO'} |" for m in models]
    if chars:
        lines += ["", f"Character models on notebook 04's corpus (Python source, last 10% held out), "
                      f"{args.char_budget:g} s of training each, one thread:", "",
                  "| model | setting | parameters | steps | training (s) | chars/s | validation bits/char |",
                  "|---|---|---:|---:|---:|---:|---:|"]
        lines += [f"| {c['model']} | {c['setting']} | {c['parameters']:,} | {c['steps'] if c['steps'] else '-'} | "
                  f"{c['train_s']} | {c['chars_per_s']:,} | {c['bits_per_char']} |" for c in chars]
        lines += [f"| uniform guess | | | | | | {chars[0]['uniform_bits']} |"]
    gpu_lines, gpu_result = gpu.gpu_section(args.device, args.gpu_seconds)
    lines += [""] + gpu_lines
    table = "\n".join(lines)
    print(table)
    save("latest", {"rows": rows, "grading": gradings, "models": models, "char_models": chars, "gpu": gpu_result,
                    "char_budget_s": args.char_budget}, meta)
    (RESULTS / "latest.md").write_text(table + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
