"""Train the two character language models of notebook 04's ELMo section: a forward LM and a backward LM.

    OMP_NUM_THREADS=1 python benchmarks/train_bilm.py   # a few minutes of one core

ELMo's biLM is two stacked LSTM language models, one reading left to right and one right to left, whose states
are concatenated layer by layer. This script trains both on the same data as ``benchmarks/train_char_lstm.py``
(``data.stdlib_source_text`` with seed 0, notebook 04's validation text held out): each has an embedding of
``--width`` and ``--layers`` LSTM layers of ``--width`` units, so that every layer of the concatenated biLM,
the embedding layer ``[x_t; x_t]`` included, is ``2 * width`` wide, as ELMo's are. The backward LM is the
same model trained on the reversed character stream.

Writes ``course_lib/assets/char_bilm_forward.pt`` and ``char_bilm_backward.pt`` (loaded by
``course_lib.interpret.load_char_lstm``) and ``benchmarks/results/char_bilm.json`` (each direction's steps,
seconds and validation bits per character on the notebook's validation text, read in its direction).
Seeded, one thread, a fixed number of steps.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
from course_lib import interpret  # noqa: E402
from course_lib.lstm import LSTMConfig, LSTMLanguageModel  # noqa: E402
from course_lib.train import TrainConfig, evaluate, sequence_batches, train  # noqa: E402
from results_file import machine, save  # noqa: E402
from train_char_lstm import BATCH, BLOCK, NOTEBOOK_CHARS, corpus, count  # noqa: E402


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chars", type=int, default=2_000_000, help="characters of standard-library source")
    parser.add_argument("--width", type=int, default=64, help="embedding and LSTM width of each direction")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--steps", type=int, default=600, help="training steps of each LM (the last 20%% at lr/5)")
    parser.add_argument("--no-save", action="store_true", help="measure only; write neither weights nor results")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    meta = machine()
    text, itos, ids, train_ids, _, _, split = corpus(args.chars)
    valid_ids = ids[split:NOTEBOOK_CHARS]
    results = {"command": "OMP_NUM_THREADS=1 python benchmarks/train_bilm.py", "width": args.width,
               "layers": args.layers, "steps": args.steps, "directions": {}}
    for direction, path in (("forward", interpret.BILM_FORWARD_PATH), ("backward", interpret.BILM_BACKWARD_PATH)):
        stream, valid = (train_ids, valid_ids) if direction == "forward" else (train_ids.flip(0), valid_ids.flip(0))
        n_valid = (len(valid) - 1) // BLOCK * BLOCK
        valid_batches = [(valid[:n_valid].reshape(-1, BLOCK)[:64], valid[1:n_valid + 1].reshape(-1, BLOCK)[:64])]
        torch.manual_seed(0)
        model = LSTMLanguageModel(LSTMConfig(vocab_size=len(itos), embed_dim=args.width, hidden_dim=args.width,
                                             num_layers=args.layers))
        start = time.perf_counter()
        first = int(0.8 * args.steps)
        for steps, lr, seed in ((first, 1e-2, 0), (args.steps - first, 2e-3, 1)):
            train(model, sequence_batches(stream, BLOCK, BATCH),
                  TrainConfig(steps=steps, lr=lr, eval_every=10 ** 7, seed=seed, progress=False))
        seconds = time.perf_counter() - start
        loss = evaluate(model, valid_batches)["loss"]
        row = {"params": count(model), "steps": args.steps, "train_s": round(seconds, 1),
               "valid_bits_per_char": round(loss / math.log(2), 4)}
        results["directions"][direction] = row
        print(direction, row, flush=True)
        if not args.no_save:
            interpret.save_char_lstm(model, itos, path, {**row, "direction": direction})
    if not args.no_save:
        save("char_bilm", results, meta)
    return results


if __name__ == "__main__":
    main()
