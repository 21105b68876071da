"""The sentences that notebook 06 says about the crossover, written from the results file, not typed.

``benchmarks/crossover.py`` measures the curves (:func:`course_lib.compare.load_crossover` reads
them); :func:`crossover_summary` turns them into Markdown: what was measured and how, what the
validation split does to the n-gram, the order of the neural models at the shared budget on each
split, and where each model of the lectures' sequence (FFNN, RNN, LSTM, Transformer) passes the one
before it. Every number in it is read from the results, so the prose cannot drift from them.
"""
from __future__ import annotations

from typing import Any

from course_lib.compare import CROSSOVER_SPLITS, crossover_curve, ngram_baseline, overtakes

__all__ = ["LECTURE_ORDER", "SPLIT_NAMES", "crossover_summary", "ranking", "passes"]

#: the neural models in the lectures' order: each is said to do better than the one before
LECTURE_ORDER = ("FFNN", "RNN", "LSTM", "Transformer")
SPLIT_NAMES = {"held_out_files": "held-out files", "continuation": "the continuation split"}


def ranking(data: dict[str, Any], split: str) -> list[tuple[str, float]]:
    """(model, bits per character at the budget) on ``split``, best first."""
    last = {name: curve[-1]["bits_per_char"][split] for name, curve in data["curves"].items()}
    return sorted(last.items(), key=lambda item: item[1])


def passes(data: dict[str, Any], a: str, b: str, split: str) -> str:
    """A clause: from what compute model ``a`` stays below model ``b`` on ``split``, or how far behind it ends."""
    at = overtakes(crossover_curve(data, a, split), crossover_curve(data, b, split))
    gap = data["curves"][a][-1]["bits_per_char"][split] - data["curves"][b][-1]["bits_per_char"][split]
    if at is None:
        return f"the {a} ends {gap:.2f} bits above the {b}"
    if at == data["curves"][a][-1]["flops"]:
        return f"the {a} gets below the {b} only at the budget, by {-gap:.3f} bits"
    return f"the {a} is below the {b} from {at:.1e} FLOPs on"


def _bits(pairs: list[tuple[str, float]]) -> str:
    return ", ".join(f"{name} {bits:.2f}" for name, bits in pairs)


def _below_baseline(data: dict[str, Any], split: str) -> str:
    line = ngram_baseline(data, split)
    below = {}
    for name in data["curves"]:
        at = overtakes(crossover_curve(data, name, split), [{"flops": 1.0, "bits_per_char": line}], hold_last=True)
        if at is not None:
            below[name] = at
    if not below:
        return f"no neural model gets below the n-gram's {line:.2f}"
    return (f"{' and '.join(below)} {'go' if len(below) > 1 else 'goes'} below the n-gram's {line:.2f} ("
            + ", ".join(f"the {name} from {at:.1e} FLOPs" for name, at in below.items()) + ")")


def crossover_summary(data: dict[str, Any]) -> str:
    """Markdown: the crossover results of :func:`course_lib.compare.load_crossover`, in sentences."""
    meta, models, files = data["meta"], data["models"], data["corpus"]["files"]
    points = data["ngram"]["points"]
    half, whole = points[-2], points[-1]
    half_bits, whole_bits = half["bits_per_char"], whole["bits_per_char"]
    gain = {split: half_bits[split] - whole_bits[split] for split in CROSSOVER_SPLITS}
    continued = files["continuation"][0]
    lines = [
        f"Measured with `{data['command']}` on {meta['cpu']} ({meta['date']}, one torch thread, 1-minute load "
        f"{meta['load_1min']}; {data['cpu_seconds'] / 60:.0f} minutes of CPU in {data['wall_seconds'] / 60:.0f} of "
        f"wall-clock time on a shared machine). Every neural model trained for the "
        f"same {data['budget_flops']:.1e} FLOPs, with a warm-up and a cosine decay, at the peak learning rate of "
        f"{', '.join(f'{x:g}' for x in data['schedule']['lr_grid'])} that did best on development files: "
        + ", ".join(f"{name} {run['lr']:g} ({run['steps']:,} steps)" for name, run in models.items()) + ".",
        "",
        f"**The split decides the n-gram's score.** The continuation split continues `{continued}`, whose "
        f"first part ends the training text. Counted on half of the training text ({half['train_chars']:,} "
        f"characters) the n-gram scores {half_bits['continuation']:.2f} bits per character there, on all of it "
        f"{whole_bits['continuation']:.2f}: the second half gains {gain['continuation']:.2f} bits. On held-out "
        f"files ({', '.join(f'`{f}`' for f in files['held_out_files'])}), never trained on, the same two fits "
        f"score {half_bits['held_out_files']:.2f} and {whole_bits['held_out_files']:.2f}, a gain of "
        f"{gain['held_out_files']:.2f}"
        + (f": the extra {gain['continuation'] - gain['held_out_files']:.2f} bits on the continuation are what "
           f"having counted the start of `{continued}` is worth there." if gain["continuation"] > gain["held_out_files"]
           else "."),
        "",
    ]
    for split in CROSSOVER_SPLITS:
        order = ranking(data, split)
        lecture = [name for name in LECTURE_ORDER if name in data["curves"]]
        as_lectures = [name for name, _ in order] == lecture[::-1]
        pairs = list(zip(lecture[1:], lecture))  # each model against the one before; the last also two before
        if len(lecture) > 2:
            pairs.append((lecture[-1], lecture[-3]))
        steps = "; ".join(passes(data, later, earlier, split) for later, earlier in pairs)
        lines += [
            f"- On {SPLIT_NAMES[split]}, at the budget (best first): {_bits(order)} bits per character; "
            f"{_below_baseline(data, split)}. "
            + ("This is the lectures' order (each model better than the one before it). " if as_lectures else
               "This is not the lectures' order (" + " < ".join(lecture[::-1]) + "). ")
            + steps[0].upper() + steps[1:] + "."]
    return "\n".join(lines)
