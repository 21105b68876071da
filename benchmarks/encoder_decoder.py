"""Reversal at equal compute: notebook 05's GRU encoder-decoder with attention against the Transformer's.

Both models learn notebook 05's task (``course_lib.seq2seq.reversal_batches``: 8 symbols, lengths
3 to 10, batches of 64 drawn the same way for both) with AdamW and gradients clipped at 1 (the
course's ``train``), for the same TRAINING COMPUTE: floating-point operations of the matrix products
of each training step, forward and backward, counted by ``torch.utils.flop_counter.FlopCounterMode``
(``course_lib.encoder_decoder.mean_training_flops``: the mean over the lengths, which are drawn
equally often). Element-wise work (gates, softmax, LayerNorm) is not counted, for either model.

- GRU: ``Seq2Seq(Seq2SeqConfig(8, score="additive"))``, notebook 05's model, at notebook 05's
  learning rate 1e-2.
- Transformer: ``TransformerSeq2Seq`` with one encoder block and one decoder block (post-norm,
  d_model 32, 2 heads, d_ff 64) and learning rate 5e-3, picked in three runs of 800 steps (d_model 32
  with 4 heads at 1e-2, 32 with 2 heads at 5e-3, 64 with 4 heads at 3e-3; the last learnt about as
  well, at twice the FLOPs per step).

At checkpoints (the budget halved 6 times, then all of it) each model decodes 300 fresh sequences
of each length from 3 to 12 greedily (11 and 12 are longer than any it was trained on). At the end
the GRU's alignment and the Transformer's cross-attention (every head) are saved for notebook 05's
example input (``reversal_batch(1, 9, 8, seed 7)``).

    python benchmarks/encoder_decoder.py            # a few minutes of one CPU core
    python benchmarks/encoder_decoder.py --quick    # seconds: for the tests (writes nothing unless --out)

Writes ``benchmarks/results/encoder_decoder.json`` and the copy notebook 06 reads,
``course_lib/assets/encoder_decoder.json``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

from course_lib import seq2seq
from course_lib.encoder_decoder import (ENCODER_DECODER_ASSET, EncoderDecoderConfig, TransformerSeq2Seq,
                                        mean_training_flops)
from course_lib.train import TrainConfig, train

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results_file import RESULTS, machine, write_result

NUM_SYMBOLS, TRAIN_LENGTHS, BATCH = 8, list(range(3, 11)), 64
TEST_LENGTHS = list(range(3, 13))
EXAMPLE = {"length": 9, "seed": 7}  # notebook 05's alignment plot
LEARNING_RATES = {"GRU with attention": 1e-2, "Transformer": 5e-3}


def build(name: str) -> torch.nn.Module:
    torch.manual_seed(0)
    if name == "GRU with attention":
        return seq2seq.Seq2Seq(seq2seq.Seq2SeqConfig(NUM_SYMBOLS, score="additive"))
    return TransformerSeq2Seq(EncoderDecoderConfig(NUM_SYMBOLS, d_model=32, num_heads=2, d_ff=64, num_layers=1))


def example_maps(model: torch.nn.Module) -> dict:
    """The example's decoded symbols and attention: the GRU's (T, S), the Transformer's per layer and head."""
    source, _ = seq2seq.reversal_batch(1, EXAMPLE["length"], NUM_SYMBOLS,
                                       torch.Generator().manual_seed(EXAMPLE["seed"]))
    with torch.no_grad():
        if isinstance(model, TransformerSeq2Seq):
            logits, weights = model.decode(source, need_weights=True)  # (L, 1, h, T, S)
            weights = weights[:, 0]                                    # (L, h, T, S)
        else:
            logits, weights = model.decode(source)                     # (1, T, S)
            weights = weights[0]                                       # (T, S)
    return {"source": source[0].tolist(), "output": logits[0].argmax(-1).tolist(),
            "weights": [[round(float(w), 4) for w in row] for row in weights.reshape(-1, weights.shape[-1])],
            "weights_shape": list(weights.shape)}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=1.6e11, help="training FLOPs per model")
    parser.add_argument("--checkpoints", type=int, default=7, help="the budget halved checkpoints-1 times, then all")
    parser.add_argument("--quick", action="store_true", help="a tiny budget, for the tests")
    parser.add_argument("--out", type=Path, help="write the results here instead")
    args = parser.parse_args(argv)
    budget, checkpoints, per_length = (args.budget, args.checkpoints, 300) if not args.quick else (2e9, 2, 20)
    torch.set_num_threads(1)
    started, cpu_started = time.perf_counter(), time.process_time()
    grid = [budget / 2 ** k for k in range(checkpoints - 1, -1, -1)]
    draw = seq2seq.reversal_batches(TRAIN_LENGTHS, BATCH, NUM_SYMBOLS)
    models = {}
    for name, lr in LEARNING_RATES.items():
        model = build(name)
        flops_per_step = mean_training_flops(model, BATCH, TRAIN_LENGTHS)
        optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
        points, steps_done, seconds = [], 0, 0.0
        for index, flops in enumerate(grid):
            steps = max(1, round(flops / flops_per_step)) - steps_done
            # segment by segment with one optimizer; each segment's batches drawn with its own seed
            history = train(model, draw, TrainConfig(steps=steps, lr=lr, progress=False, seed=index),
                            optimizer=optimizer)
            steps_done, seconds = steps_done + steps, seconds + history.seconds
            accuracy = {n: seq2seq.reversal_accuracy(model, n, n=per_length) for n in TEST_LENGTHS}
            points.append({"flops": steps_done * flops_per_step, "steps": steps_done, "seconds": round(seconds, 2),
                           "train_loss": round(sum(history.train_loss[-20:]) / len(history.train_loss[-20:]), 4),
                           "symbols": {n: round(a["symbols"], 4) for n, a in accuracy.items()},
                           "sequences": {n: round(a["sequences"], 4) for n, a in accuracy.items()}})
            print(f"{name}: {steps_done} steps, {points[-1]['flops']:.2e} FLOPs, {seconds:.1f} s, letters right at "
                  f"length 10: {points[-1]['symbols'][10]:.3f}", flush=True)
        models[name] = {"learning_rate": lr, "parameters": sum(p.numel() for p in model.parameters()),
                        "flops_per_step": flops_per_step, "checkpoints": points, "example": example_maps(model)}
    result = {
        "meta": machine(),
        "command": "python benchmarks/encoder_decoder.py" + (" --quick" if args.quick else ""),
        "wall_seconds": round(time.perf_counter() - started, 1),
        "cpu_seconds": round(time.process_time() - cpu_started, 1),
        "threads": 1,
        "task": {"num_symbols": NUM_SYMBOLS, "train_lengths": TRAIN_LENGTHS, "batch_size": BATCH,
                 "test_lengths": TEST_LENGTHS, "sequences_per_length": per_length, "example": EXAMPLE},
        "compute_measure": ("FLOPs of the matrix products of one training step (forward and backward), counted by "
                            "torch.utils.flop_counter.FlopCounterMode, mean over the training lengths, times steps; "
                            "element-wise operations not counted"),
        "budget_flops": budget,
        "models": models,
    }
    shipped = [RESULTS / "encoder_decoder.json", ENCODER_DECODER_ASSET]
    write_result(result, [args.out] if args.out else ([] if args.quick else shipped))
    return result


if __name__ == "__main__":
    main()
