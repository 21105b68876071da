"""Where the course's language models cross: held-out bits per character against training compute.

Notebook 06's table gives every model the same few seconds, and at a few seconds the Kneser-Ney
n-gram wins. This script trains each model of ``course_lib.compare`` far longer, one run per model,
and scores it at checkpoints along the way, so that each run is a curve:

- the neural models (FFNN, RNN, LSTM, Transformer): ``compare``'s sizes, settings and batches,
  trained with ``course_lib.train.train`` for a fixed number of steps (not seconds: the same
  command gives the same curves on any machine), scored after 25, 50, 100, ... steps on every
  held-out character exactly as ``compare_char_models`` scores them. One AdamW optimiser runs
  through the whole run; each segment between two checkpoints draws its batches with its own seed.
- the n-gram: ``compare``'s order search and fit on growing prefixes of the training text
  (halves of it down to 1,500 characters: 1/128, 1/64, ... of the 360,000 training characters, then
  all of them); more compute cannot help it once it has counted all.

Compute, the x axis, does not depend on the machine or its load: for the neural models the
training FLOPs, ``course_lib.compare.flops_per_char`` (6 x the non-embedding weights, plus the
Transformer's attention) x training characters; for the n-gram an operation count of its fits,
``course_lib.compare.ngram_search_operations``. Seconds (one torch thread) are recorded too.

    python benchmarks/crossover.py            # about 12 minutes of one CPU core
    python benchmarks/crossover.py --quick    # a few seconds, a small corpus: for the tests

Writes ``benchmarks/results/crossover.json`` (with the command, the date, the machine, torch)
and the copy that ships with the package for notebook 06, ``course_lib/assets/crossover.json``
(``--quick`` writes neither unless given ``--out``).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch

from course_lib.compare import (CROSSOVER_ASSET, MODELS, CompareConfig, run_ngram, build_model, flops_per_char,
                                overtakes, prepare_corpus, scoring_rows, training_batches)
from course_lib.train import TrainConfig, evaluate, iterate_batches, train

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results_file import RESULTS, machine

#: the last checkpoint (optimiser steps) of each neural model: about 1 to 5 minutes of one core each
MAX_STEPS = {"FFNN": 3200, "RNN": 800, "LSTM": 2400, "Transformer": 1600}
QUICK_STEPS = {"FFNN": 40, "RNN": 20, "LSTM": 20, "Transformer": 20}


def checkpoints(last: int, first: int = 25) -> list[int]:
    """first, 2 first, 4 first, ... below last, then last."""
    steps = []
    while first < last:
        steps.append(first)
        first *= 2
    return steps + [last]


def neural_curve(name: str, config: CompareConfig, corpus, last_step: int, first_step: int) -> dict:
    settings = config.settings(name)
    torch.manual_seed(config.seed)
    model = build_model(name, settings, corpus.vocab_size)
    per_char = flops_per_char(model, settings.context)
    draw = training_batches(name, settings, corpus.train_ids)
    x, y = scoring_rows(name, settings, corpus)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.lr, weight_decay=0.0)  # train()'s own default
    points, done, chars, seconds = [], 0, 0, 0.0
    for k, step in enumerate(checkpoints(last_step, first_step)):
        history = train(model, draw, TrainConfig(steps=step - done, lr=settings.lr, seed=config.seed * 1000 + k,
                                                 progress=False), optimizer=optimizer)
        done += len(history.train_steps)
        chars += history.tokens
        seconds += history.seconds
        scores = evaluate(model, iterate_batches(x, y, batch_size=256))
        points.append({"steps": done, "train_chars": chars, "flops": per_char * chars, "seconds": round(seconds, 2),
                       "bits_per_char": round(scores["bits_per_token"], 4), "setting": f"{settings.context} chars"})
        print(f"  {name:11s} step {done:5d}  {per_char * chars:9.2e} FLOPs  {seconds:6.1f} s  "
              f"{scores['bits_per_token']:.3f} bits/char", flush=True)
    parameters = sum(p.numel() for p in model.parameters())
    return {"points": points, "parameters": parameters, "flops_per_char": per_char,
            "settings": {"context": settings.context, "batch_size": settings.batch_size, "lr": settings.lr,
                         **settings.sizes}}


def ngram_curve(config: CompareConfig, corpus, smallest: int) -> dict:
    n = len(corpus.train_ids)
    sizes, size = [], n
    while size >= smallest:
        sizes.append(size)
        size //= 2
    points = []
    for size in reversed(sizes):
        result = run_ngram(config, corpus.train_ids[:size], corpus.stream, corpus.first_target, corpus.vocab_size)
        points.append({"train_chars": size, "flops": result.train_flops, "seconds": round(result.train_seconds, 2),
                       "bits_per_char": round(result.bits_per_char, 4), "setting": result.setting,
                       "parameters": result.parameters})
        print(f"  n-gram      {size:7d} chars  {result.train_flops:9.2e} ops    {result.train_seconds:6.1f} s  "
              f"{result.bits_per_char:.3f} bits/char ({result.setting})", flush=True)
    return {"points": points, "settings": {"orders": list(config.ngram_orders), "prefixes": "halves of the training "
                                           "text down to " + str(smallest) + " characters"}}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python benchmarks/crossover.py", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small corpus and a few steps (for the tests)")
    parser.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None,
                        help="where to write the json (default: benchmarks/results/crossover.json and the "
                             "package's copy; --quick: nothing)")
    args = parser.parse_args(argv)
    os.environ.pop("COURSE_FAST", None)  # the curves need the whole run, not the notebooks' shortened one
    torch.set_num_threads(1)  # small models gain little from more threads; a shared CPU loses much
    config = CompareConfig(max_chars=30_000 if args.quick else CompareConfig.max_chars, seed=args.seed,
                           models=tuple(args.models))
    corpus = prepare_corpus(config)
    steps = QUICK_STEPS if args.quick else MAX_STEPS
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    print(f"{len(corpus.train_ids):,} training characters, {len(corpus.stream) - corpus.first_target:,} held out, "
          f"{corpus.vocab_size} symbols; one torch thread", flush=True)
    curves, models = {}, {}
    for name in config.models:
        if name == "n-gram":
            run = ngram_curve(config, corpus, 4_000 if args.quick else 1_500)
        else:
            run = neural_curve(name, config, corpus, steps[name], 10 if args.quick else 25)
        curves[name] = run.pop("points")
        models[name] = run
    command = "python benchmarks/crossover.py" + (" " + " ".join(argv if argv is not None else sys.argv[1:])).rstrip()
    result = {
        "command": command.strip(),
        "meta": {**machine(), "torch_threads": torch.get_num_threads(), "python": sys.version.split()[0]},
        "wall_seconds": round(time.perf_counter() - start_wall, 1),
        "cpu_seconds": round(time.process_time() - start_cpu, 1),
        "corpus": {"text": "course_lib.data.stdlib_source_text", "max_chars": config.max_chars, "seed": config.seed,
                   "train_chars": len(corpus.train_ids), "scored_chars": len(corpus.stream) - corpus.first_target,
                   "vocab_size": corpus.vocab_size},
        "uniform_bits": round(float(torch.log2(torch.tensor(float(corpus.vocab_size)))), 4),
        "compute_measure": ("neural models: training FLOPs = course_lib.compare.flops_per_char (6 x non-embedding "
                            "weights, + 6 x layers x context x d_model for the Transformer's attention) x training "
                            "characters; n-gram: course_lib.compare.ngram_search_operations, an operation count of "
                            "its fits (codes and sorts), its order search included"),
        "models": models,
        "curves": curves,
    }
    # where one curve goes below another (printed only: notebook 06 computes it from the curves)
    if "n-gram" in curves:
        print(f"n-gram on all the training text: {curves['n-gram'][-1]['bits_per_char']:.3f} bits/char; below it from: "
              + json.dumps({n: overtakes(c, curves["n-gram"], hold_last=True) for n, c in curves.items()
                            if n != "n-gram"}))
    pairs = [("LSTM", "RNN"), ("Transformer", "LSTM"), ("LSTM", "FFNN"), ("RNN", "FFNN"), ("Transformer", "RNN"),
             ("Transformer", "FFNN")]
    print(json.dumps({f"{a} below {b} from": overtakes(curves[a], curves[b]) for a, b in pairs
                      if a in curves and b in curves}))
    text = json.dumps(result, indent=1) + "\n"
    targets = [args.out] if args.out else ([] if args.quick else [RESULTS / "crossover.json", CROSSOVER_ASSET])
    for path in targets:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    print(f"{result['wall_seconds']} s wall, {result['cpu_seconds']} s CPU")
    return result


if __name__ == "__main__":
    main()
