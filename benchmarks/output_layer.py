"""The output layer's cost against the vocabulary size, and the sampled softmax trained against the full one.

1. Cost: ``course_lib.output_layer.measure_output_layer`` for V = 1,000 to 300,000 (d = 256, 32
   tokens, the best of 5 forward + backward passes, one thread): seconds for the full softmax
   cross-entropy and for the sampled softmax (K = 256, uniform proposal, sparse gradient), the bytes
   autograd keeps for the backward pass and the bytes of W and b.
2. A small trained case: a neural bigram model of English words (the standard library's docstrings,
   ``course_lib.data.docstring_sentences``; words seen at least twice, the others <unk>):
   ``logits = E[previous word] W^T + b``, d = 64, batches of 256 word pairs. One model trains with the
   full softmax (Adam), others with the sampled softmax (K = 64 and 256 words drawn from the training
   words' unigram distribution; Adam for E and b, SparseAdam for W, whose gradient is sparse), the
   same steps, the same batches. Every checkpoint scores the held-out sentences (whole modules that
   no training sentence comes from) with the FULL softmax: the loss that matters.

    python benchmarks/output_layer.py            # about a minute of one CPU core
    python benchmarks/output_layer.py --quick    # seconds: for the tests (writes nothing unless --out)

Writes ``benchmarks/results/output_layer.json`` and the copy notebook 06 reads,
``course_lib/assets/output_layer.json``.
"""
from __future__ import annotations

import argparse
import collections
import dataclasses
import sys
import time
from pathlib import Path

import torch

from course_lib import data
from course_lib.output_layer import (OUTPUT_LAYER_ASSET, draw_samples, full_softmax_loss, measure_output_layer,
                                     sampled_softmax_loss)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results_file import RESULTS, machine, write_result

VOCAB_SIZES = [1_000, 3_000, 10_000, 30_000, 100_000, 300_000]


def word_pairs(sentences, stoi) -> torch.Tensor:
    """(N, 2) pairs (previous word, next word), each sentence between <s> and </s>; unknown words -> <unk>."""
    pairs = []
    for sentence in sentences:
        ids = [stoi["<s>"]] + [stoi.get(w, stoi["<unk>"]) for w in data.tokenize(sentence)] + [stoi["</s>"]]
        pairs += list(zip(ids[:-1], ids[1:]))
    return torch.tensor(pairs)


def train_bigram(train_pairs, valid_pairs, V, proposal, num_sampled, steps, eval_every, seed=0) -> list[dict]:
    """Train logits = E[prev] W^T + b; the full softmax if num_sampled is None. Returns the held-out curve."""
    torch.manual_seed(seed)
    d = 64
    E = torch.nn.Parameter(torch.randn(V, d) * 0.1)
    W = torch.nn.Parameter(torch.randn(V, d) * 0.1)
    b = torch.nn.Parameter(torch.zeros(V))
    if num_sampled is None:
        optimizers = [torch.optim.Adam([E, W, b], lr=1e-2)]
    else:
        optimizers = [torch.optim.Adam([E, b], lr=1e-2), torch.optim.SparseAdam([W], lr=1e-2)]
    batches = torch.Generator().manual_seed(seed)
    samples = torch.Generator().manual_seed(seed + 1)
    curve, seconds = [], 0.0

    def held_out() -> float:
        with torch.no_grad():
            return float(full_softmax_loss(E[valid_pairs[:, 0]], valid_pairs[:, 1], W, b))

    curve.append({"steps": 0, "seconds": 0.0, "valid_nats": round(held_out(), 4)})
    for step in range(1, steps + 1):
        start = time.perf_counter()
        rows = torch.randint(len(train_pairs), (256,), generator=batches)
        hidden, targets = E[train_pairs[rows, 0]], train_pairs[rows, 1]  # (256, d), (256,)
        if num_sampled is None:
            loss = full_softmax_loss(hidden, targets, W, b)
        else:
            sampled = draw_samples(proposal, num_sampled, samples)
            loss = sampled_softmax_loss(hidden, targets, W, b, sampled, proposal, sparse_gradient=True)
        for optimizer in optimizers:
            optimizer.zero_grad(set_to_none=True)
        loss.backward()
        for optimizer in optimizers:
            optimizer.step()
        seconds += time.perf_counter() - start
        if step % eval_every == 0 or step == steps:
            curve.append({"steps": step, "seconds": round(seconds, 3), "valid_nats": round(held_out(), 4)})
    return curve


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes and few steps, for the tests")
    parser.add_argument("--out", type=Path, help="write the results here instead")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    started, cpu_started = time.perf_counter(), time.process_time()
    sizes, repeats, steps, eval_every = ((VOCAB_SIZES, 5, 800, 50) if not args.quick else
                                         (VOCAB_SIZES[:2], 1, 20, 10))
    cost = measure_output_layer(sizes, d_model=256, tokens=32, repeats=repeats, num_sampled=256)
    for V, full, sampled in zip(cost.vocab_sizes, cost.seconds, cost.sampled_seconds):
        print(f"V = {V:>7,}: full {full * 1e3:8.2f} ms, sampled {sampled * 1e3:6.2f} ms", flush=True)

    train_sentences, valid_sentences = data.docstring_sentences()
    counts = collections.Counter(w for s in train_sentences for w in data.tokenize(s))
    words = ["<unk>", "<s>", "</s>"] + sorted(w for w, n in counts.items() if n >= 2)
    stoi = {w: i for i, w in enumerate(words)}
    train_pairs, valid_pairs = word_pairs(train_sentences, stoi), word_pairs(valid_sentences, stoi)
    unigram = torch.bincount(train_pairs[:, 1], minlength=len(words)).double()
    proposal = (unigram / unigram.sum()).float()
    runs = {}
    for name, k in (("full softmax", None), ("sampled softmax, K = 64", 64), ("sampled softmax, K = 256", 256)):
        runs[name] = {"num_sampled": k, "curve": train_bigram(train_pairs, valid_pairs, len(words), proposal, k,
                                                             steps, eval_every)}
        last = runs[name]["curve"][-1]
        print(f"{name}: held-out {last['valid_nats']:.3f} nats after {last['steps']} steps, {last['seconds']:.1f} s",
              flush=True)
    valid_unigram = float(-(proposal.double()[valid_pairs[:, 1]]).clamp_min(1e-12).log().mean())
    result = {
        "meta": machine(),
        "command": "python benchmarks/output_layer.py" + (" --quick" if args.quick else ""),
        "wall_seconds": round(time.perf_counter() - started, 1),
        "cpu_seconds": round(time.process_time() - cpu_started, 1),
        "threads": 1,
        "cost": dataclasses.asdict(cost),
        "bigram": {"vocab_size": len(words), "train_pairs": len(train_pairs), "valid_pairs": len(valid_pairs),
                   "d_model": 64, "batch_size": 256, "learning_rate": 1e-2, "proposal": "unigram of the training words",
                   "valid_unigram_nats": round(valid_unigram, 4), "runs": runs},
    }
    shipped = [RESULTS / "output_layer.json", OUTPUT_LAYER_ASSET]
    write_result(result, [args.out] if args.out else ([] if args.quick else shipped))
    return result


if __name__ == "__main__":
    main()
