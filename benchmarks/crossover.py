"""Where the course's language models cross: held-out bits per character against training compute.

Notebook 06's table gives every model the same few seconds. This script gives every neural model of
``course_lib.compare`` (FFNN, RNN, LSTM, Transformer) the SAME training compute, ``--budget`` FLOPs
(``course_lib.compare.flops_per_char`` x training characters: about 6 x the weights that multiply
each character, plus the Transformer's attention), and scores it at checkpoints along the way (1/128,
1/64, ... of the budget, then all of it), so that each run is a curve on one x axis, training FLOPs.

Fair training, the same for every neural model:

- ``compare``'s sizes, contexts and batches; AdamW, gradients clipped at 1;
- one learning-rate schedule: a linear warm-up over the first 5% of the steps, then a cosine decay to
  10% of the peak at the budget (the checkpoints are snapshots of that one run);
- the peak learning rate chosen from the same grid for every model (1e-3, 3e-3, 1e-2), each tried in
  a run of 1/8 of the budget with the same schedule, scored on development files (below).

The text is ``course_lib.data.stdlib_source_text``'s: the standard library's files, shuffled, end to
end. Training: its first 360,000 characters, as in ``compare``. Two validation splits, both 40,000
characters, score every checkpoint:

- ``held_out_files``: whole files that no training character comes from, starting at a file boundary
  after the training text (and after the rest of the file that the training text cuts);
- ``continuation``: the next 40,000 characters after the training text, ``compare``'s split: the rest
  of the file whose start ends the training text, so a model that recalls that file's names gains.

The peak learning rates are chosen on 20,000 characters of other whole files (``dev``), after the
held-out ones. The n-gram is not trained by gradient steps: it is fitted (``compare.run_ngram``: order
search, then counts) on growing prefixes of the training text, halves down to 1/128 of it, then all
of it, and scored on both splits. Its compute is not FLOPs; the notebook draws its all-the-text score
as a count-based baseline line, not as a point on the FLOPs axis. Seconds (one torch thread) are
recorded too.

    python benchmarks/crossover.py            # about 15 minutes of one CPU core
    python benchmarks/crossover.py --quick    # a few seconds, a small corpus and budget: for the tests

Writes ``benchmarks/results/crossover.json`` (with the command, the date, the machine, torch) and the
copy that ships with the package for notebook 06, ``course_lib/assets/crossover.json`` (``--quick``
writes neither unless given ``--out``).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import torch

from course_lib.compare import (CROSSOVER_ASSET, MODELS, CROSSOVER_SPLITS, CompareConfig, Corpus, build_model,
                                crossover_curve, flops_per_char, overtakes, run_ngram, scoring_rows,
                                training_batches)
from course_lib.data import char_vocab, stdlib_source_text, stdlib_sources
from course_lib.train import TrainConfig, evaluate, iterate_batches, train

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results_file import RESULTS, machine, write_result

NEURAL = tuple(m for m in MODELS if m != "n-gram")
BUDGET_FLOPS, QUICK_BUDGET_FLOPS = 2e12, 2e10
LR_GRID = (1e-3, 3e-3, 1e-2)
WARMUP_FRACTION, FINAL_LR_FRACTION, SEARCH_FRACTION = 0.05, 0.1, 1 / 8
CHECKPOINTS, QUICK_CHECKPOINTS = 8, 4  # budget / 2^k for k = n-1 .. 0


# ---------------------------------------------------------------------------
# the corpus: training text, two validation splits, development files


def file_lengths(seed: int, until: int) -> list[tuple[str, int]]:
    """(name, length in stdlib_source_text) of its files, in its order, until their lengths add up past ``until``.

    stdlib_source_text turns CRLF into LF and a tab into 4 spaces, and replaces other characters one
    for one, so a file's length there is that of its text after the first two changes.
    """
    import numpy as np  # the same shuffle as stdlib_source_text

    files = stdlib_sources()
    out, total = [], 0
    for i in np.random.default_rng(seed).permutation(len(files)):
        try:
            text = files[i].read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        n = len(text.replace("\r\n", "\n").replace("\t", "    "))
        out.append((files[i].name, n))
        total += n
        if total > until:
            break
    return out


def crossover_corpus(max_chars: int, seed: int, dev_chars: int, context: int) -> dict:
    """The training ids and a Corpus for each of ``continuation``, ``held_out_files`` and ``dev`` (see above)."""
    train_end = int(max_chars * 0.9)
    valid_chars = max_chars - train_end
    lengths = file_lengths(seed, 10 ** 9)
    starts = [0]
    for _, n in lengths:
        starts.append(starts[-1] + n)

    def file_boundary_at_or_after(position: int) -> int:
        return min(s for s in starts if s >= position)

    held_start = file_boundary_at_or_after(max_chars)
    dev_start = file_boundary_at_or_after(held_start + valid_chars)
    end = dev_start + dev_chars
    text = stdlib_source_text(end, seed)
    assert len(text) == end and text[:max_chars] == stdlib_source_text(max_chars, seed)
    itos, stoi = char_vocab(text)
    ids = torch.tensor([stoi[c] for c in text], dtype=torch.long)

    def files_in(a: int, b: int) -> list[str]:
        return [name for (name, _), s, e in zip(lengths, starts, starts[1:]) if s < b and e > a]

    def split(a: int, b: int) -> Corpus:  # targets a..b-1, each with the characters before it as context
        return Corpus(ids[:train_end], ids[a - context:b], context, itos)

    return {"train_ids": ids[:train_end], "itos": itos,
            "splits": {"held_out_files": split(held_start, held_start + valid_chars),
                       "continuation": split(train_end, max_chars),
                       "dev": split(dev_start, end)},
            "files": {"training": files_in(0, train_end), "continuation": files_in(train_end, max_chars),
                      "held_out_files": files_in(held_start, held_start + valid_chars),
                      "dev": files_in(dev_start, end)},
            "chars": {"training": train_end, "continuation": max_chars - train_end, "held_out_files": valid_chars,
                      "dev": dev_chars, "held_out_start": held_start, "dev_start": dev_start}}


# ---------------------------------------------------------------------------
# the neural models


def lr_factor(step: int, total: int) -> float:
    """The schedule's factor of the peak learning rate at optimiser step ``step`` (1-based) of ``total``:
    linear warm-up over the first WARMUP_FRACTION of the steps, then a cosine decay to FINAL_LR_FRACTION."""
    warmup = max(1, round(WARMUP_FRACTION * total))
    if step <= warmup:
        return step / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return FINAL_LR_FRACTION + (1 - FINAL_LR_FRACTION) * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))


def scheduled_adamw(model: torch.nn.Module, peak: float, total: int) -> torch.optim.Optimizer:
    """AdamW whose learning rate follows :func:`lr_factor`: set before each of its steps by a hook."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=peak * lr_factor(1, total), weight_decay=0.0)
    done = [0]

    def next_lr(opt, args, kwargs):
        done[0] += 1
        for group in opt.param_groups:
            group["lr"] = peak * lr_factor(done[0] + 1, total)

    optimizer.register_step_post_hook(next_lr)
    return optimizer


def chars_per_step(name: str, config: CompareConfig) -> int:
    settings = config.settings(name)
    return settings.batch_size * (1 if name == "FFNN" else settings.context)


def run_neural(name: str, config: CompareConfig, data: dict, peak: float, budget: float, checkpoints: int,
               scored: tuple[str, ...], verbose: bool = True) -> dict:
    """Train ``name`` for ``budget`` FLOPs at peak learning rate ``peak``; bits per character on the ``scored``
    splits at each checkpoint (budget / 2^k)."""
    settings = config.settings(name)
    torch.manual_seed(config.seed)
    model = build_model(name, settings, len(data["itos"]))
    per_char = flops_per_char(model, settings.context)
    per_step = per_char * chars_per_step(name, config)
    total = max(1, round(budget / per_step))
    marks = sorted({max(1, round(budget / 2 ** k / per_step)) for k in range(checkpoints)})
    draw = training_batches(name, settings, data["train_ids"])
    rows = {s: scoring_rows(name, settings, data["splits"][s]) for s in scored}
    optimizer = scheduled_adamw(model, peak, total)
    points, done, chars, seconds = [], 0, 0, 0.0
    for k, step in enumerate(marks):
        history = train(model, draw, TrainConfig(steps=step - done, lr=peak, seed=config.seed * 1000 + k,
                                                 progress=False), optimizer=optimizer)
        done += len(history.train_steps)
        chars += history.tokens
        seconds += history.seconds
        bits = {s: round(evaluate(model, iterate_batches(x, y, batch_size=256))["bits_per_token"], 4)
                for s, (x, y) in rows.items()}
        points.append({"steps": done, "train_chars": chars, "flops": per_char * chars, "seconds": round(seconds, 2),
                       "bits_per_char": bits})
        if verbose:
            print(f"  {name:11s} lr {peak:.0e} step {done:5d}/{total}  {per_char * chars:9.2e} FLOPs  "
                  f"{seconds:6.1f} s  " + "  ".join(f"{s} {b:.3f}" for s, b in bits.items()), flush=True)
    return {"points": points, "parameters": sum(p.numel() for p in model.parameters()), "flops_per_char": per_char,
            "steps": total}


def neural_curve(name: str, config: CompareConfig, data: dict, budget: float, checkpoints: int) -> dict:
    search = {}
    for peak in LR_GRID:
        run = run_neural(name, config, data, peak, budget * SEARCH_FRACTION, 1, ("dev",), verbose=False)
        search[f"{peak:g}"] = run["points"][-1]["bits_per_char"]["dev"]
        print(f"  {name:11s} lr {peak:.0e}: {search[f'{peak:g}']:.3f} bits/char on the development files after "
              f"{run['points'][-1]['flops']:.2e} FLOPs", flush=True)
    peak = float(min(search, key=search.get))
    run = run_neural(name, config, data, peak, budget, checkpoints, ("held_out_files", "continuation"))
    settings = config.settings(name)
    return {"points": run.pop("points"), **run, "lr": peak, "lr_search_dev_bits": search,
            "settings": {"context": settings.context, "batch_size": settings.batch_size, **settings.sizes}}


# ---------------------------------------------------------------------------
# the n-gram


def ngram_curve(config: CompareConfig, data: dict, smallest: int) -> dict:
    train_ids = data["train_ids"]
    sizes, size = [], len(train_ids)
    while size >= smallest:
        sizes.append(size)
        size //= 2
    points = []
    held, cont = data["splits"]["held_out_files"], data["splits"]["continuation"]
    for size in reversed(sizes):
        result = run_ngram(config, train_ids[:size], held.stream, held.first_target, len(data["itos"]))
        bits = {"held_out_files": round(result.bits_per_char, 4),
                "continuation": round(float(result.trained.bits_per_char(cont.stream.numpy(), cont.first_target)), 4)}
        points.append({"train_chars": size, "seconds": round(result.train_seconds, 2), "setting": result.setting,
                       "parameters": result.parameters, "bits_per_char": bits})
        print(f"  n-gram      {size:7d} chars  {result.train_seconds:6.1f} s  ({result.setting})  "
              + "  ".join(f"{s} {b:.3f}" for s, b in bits.items()), flush=True)
    return {"points": points, "settings": {"orders": list(config.ngram_orders), "prefixes": "halves of the training "
                                           "text down to " + str(smallest) + " characters, then all of it"}}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python benchmarks/crossover.py", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small corpus and budget (for the tests)")
    parser.add_argument("--budget", type=float, default=None, help="training FLOPs of every neural model "
                        f"(default {BUDGET_FLOPS:.0e}; --quick: {QUICK_BUDGET_FLOPS:.0e})")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None,
                        help="where to write the json (default: benchmarks/results/crossover.json and the "
                             "package's copy; --quick: nothing)")
    args = parser.parse_args(argv)
    os.environ.pop("COURSE_FAST", None)  # the curves need the whole run, not the notebooks' shortened one
    torch.set_num_threads(1)  # small models gain little from more threads; a shared CPU loses much
    budget = args.budget or (QUICK_BUDGET_FLOPS if args.quick else BUDGET_FLOPS)
    checkpoints = QUICK_CHECKPOINTS if args.quick else CHECKPOINTS
    config = CompareConfig(max_chars=30_000 if args.quick else CompareConfig.max_chars, seed=args.seed)
    context = max(config.settings(m).context for m in NEURAL)
    data = crossover_corpus(config.max_chars, config.seed, 4_000 if args.quick else 20_000, context)
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    print(f"{data['chars']}; {len(data['itos'])} symbols; the continuation split continues "
          f"{data['files']['continuation']}; held-out files {data['files']['held_out_files']}; "
          f"{budget:.1e} FLOPs per neural model; one torch thread", flush=True)
    ngram = ngram_curve(config, data, 4_000 if args.quick else 1_500)
    curves, models = {}, {}
    for name in NEURAL:
        run = neural_curve(name, config, data, budget, checkpoints)
        curves[name] = run.pop("points")
        models[name] = run
    command = "python benchmarks/crossover.py" + (" " + " ".join(argv if argv is not None else sys.argv[1:])).rstrip()
    result = {
        "command": command.strip(),
        "meta": {**machine(), "torch_threads": torch.get_num_threads(), "python": sys.version.split()[0]},
        "wall_seconds": round(time.perf_counter() - start_wall, 1),
        "cpu_seconds": round(time.process_time() - start_cpu, 1),
        "corpus": {"text": "course_lib.data.stdlib_source_text", "max_chars": config.max_chars, "seed": config.seed,
                   "train_chars": data["chars"]["training"], "vocab_size": len(data["itos"]),
                   "chars": data["chars"], "files": data["files"]},
        "splits": {
            "held_out_files": "whole files that no training character comes from (from a file boundary after the "
                              "training text and the rest of the file it cuts)",
            "continuation": "the characters right after the training text: the rest of the file whose start ends "
                            "the training text (course_lib.compare's split)",
            "dev": "other whole files, after the held-out ones: only to choose each neural model's peak learning "
                   "rate"},
        "uniform_bits": round(math.log2(len(data["itos"])), 4),
        "budget_flops": budget,
        "compute_measure": ("training FLOPs = course_lib.compare.flops_per_char (6 x non-embedding weights, "
                            "+ 6 x layers x context x d_model for the Transformer's attention) x training "
                            "characters; the n-gram's counting is not measured in FLOPs"),
        "schedule": {"optimizer": "AdamW, weight decay 0, gradients clipped at norm 1",
                     "warmup_fraction": WARMUP_FRACTION, "final_lr_fraction": FINAL_LR_FRACTION,
                     "decay": "cosine", "lr_grid": list(LR_GRID), "search_budget_fraction": SEARCH_FRACTION},
        "models": models,
        "curves": curves,
        "ngram": ngram,
    }
    for split in CROSSOVER_SPLITS:
        line = ngram["points"][-1]["bits_per_char"][split]
        order = {n: crossover_curve(result, n, split)[-1]["bits_per_char"] for n in NEURAL}
        print(f"{split}: n-gram (all the text) {line:.3f}; at the budget " + json.dumps(order)
              + "; below the n-gram from " + json.dumps({n: overtakes(crossover_curve(result, n, split),
                                                                     [{"flops": 1.0, "bits_per_char": line}],
                                                                     hold_last=True) for n in NEURAL}))
    shipped = [RESULTS / "crossover.json", CROSSOVER_ASSET]
    write_result(result, [args.out] if args.out else ([] if args.quick else shipped))
    return result


if __name__ == "__main__":
    main()
