"""Train the character LSTM that notebook 04 looks inside, and measure what depth does.

    OMP_NUM_THREADS=1 python benchmarks/train_char_lstm.py   # about 7 minutes of one core, 4 for the shipped model

Writes ``course_lib/assets/char_lstm.pt`` and ``char_lstm_stacked.pt`` (the 3-layer model of the
depth comparison; both loaded by ``course_lib.interpret.load_char_lstm``) and
``benchmarks/results/char_lstm.json``. Seeded, one thread, deterministic up to the machine's speed
(training runs for a fixed number of seconds, so a faster machine takes more steps).

The data is notebook 04's: ``data.stdlib_source_text`` with seed 0. The notebook trains on the first
90% of its first 400 000 characters and validates on the rest; this script holds out the same
40 000 characters (the notebook's validation text, on which it also measures the cells) and trains
on everything else of the first ``--chars`` characters.

Three things are measured, on the notebook's validation text:

1. the shipped model (a larger LSTM trained for ``--seconds``): validation loss, and for each property
   of ``course_lib.interpret.source_features`` the best single unit's |r| (over all layers) and the R^2
   of a linear readout of all units;
2. the same for the notebook's own model (the same configuration, seed and steps as its section 5:
   ``--notebook-steps``) and for that model untrained;
3. validation loss against depth: 1, 2 and 3 stacked layers with (about) the same number of
   parameters, each trained for ``--layer-seconds``.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
from course_lib import data, interpret  # noqa: E402
from course_lib.lstm import LSTMConfig, LSTMLanguageModel  # noqa: E402
from course_lib.train import TrainConfig, evaluate, sequence_batches, train  # noqa: E402
from results_file import machine, save  # noqa: E402

NOTEBOOK_CHARS, BLOCK, BATCH = 400_000, 128, 32  # notebook 04, section 5


def corpus(chars: int):
    """(text, itos, every character's id, the training ids (all but the notebook's validation text), the
    notebook's training ids, its validation batches, where its validation text starts)."""
    text = data.stdlib_source_text(max_chars=max(chars, NOTEBOOK_CHARS), seed=0)
    notebook_text = text[:NOTEBOOK_CHARS]
    itos, stoi = data.char_vocab(notebook_text)
    ids = torch.tensor([stoi.get(ch, stoi["?"]) for ch in text])
    split = int(0.9 * NOTEBOOK_CHARS)
    valid_ids = ids[split:NOTEBOOK_CHARS]
    n_valid = (len(valid_ids) - 1) // BLOCK * BLOCK
    valid = [(valid_ids[:n_valid].reshape(-1, BLOCK)[:64], valid_ids[1:n_valid + 1].reshape(-1, BLOCK)[:64])]
    train_ids = torch.cat([ids[:split], ids[NOTEBOOK_CHARS:]])  # everything but the notebook's validation text
    return text, itos, ids, train_ids, ids[:split], valid, split


def count(model) -> int:
    return sum(p.numel() for p in model.parameters())


def hidden_for(layers: int, params: int, vocab: int, embed: int) -> int:
    """The hidden size that gives an LSTM LM of ``layers`` layers about ``params`` parameters."""
    def size(h):  # embedding + each layer's W_ih, W_hh, b_ih, b_hh + the head
        return vocab * embed + 4 * h * (embed + h + 2) + (layers - 1) * 4 * h * (2 * h + 2) + (h + 1) * vocab
    return min(range(8, 1024), key=lambda h: abs(size(h) - params))


def cells_report(model, text, ids, split, chars: int) -> dict:
    """For each property: the best unit over all layers (layer, unit, r) and the linear readout's R^2."""
    segment = slice(split, split + chars)
    features = {name: values[segment] for name, values in interpret.source_features(text[:NOTEBOOK_CHARS]).items()}
    states = [interpret.lstm_cell_states(model, ids[segment], layer=l) for l in range(model.config.num_layers)]
    report = {}
    for name, feature in features.items():
        found = [(l, *interpret.best_units(s, {name: feature})[name]) for l, s in enumerate(states)]
        layer, unit, r = max(found, key=lambda f: abs(f[2]))
        report[name] = {"layer": layer, "unit": unit, "r": round(r, 3), "abs_r": round(abs(r), 3),
                        "probe_r2": round(interpret.probe_r2(torch.cat(states, 1), feature), 3)}
    return report


def two_phase(model, batches, seconds: float, lr: float, seed: int):
    """Train for ``seconds``: 80% of them at ``lr``, the rest at lr / 5 (a crude schedule). Returns (steps, seconds)."""
    steps, spent = 0, 0.0
    for share, rate in ((0.8, lr), (0.2, lr / 5)):
        history = train(model, batches, TrainConfig(steps=10**7, lr=rate, eval_every=10**7,
                                                    time_budget_s=share * seconds, seed=seed + steps,
                                                    progress=False))
        steps += len(history.train_steps)
        spent += history.seconds
    return steps, spent


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chars", type=int, default=2_000_000, help="characters of standard-library source")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--embed", type=int, default=32)
    parser.add_argument("--layers", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=240.0, help="training time of the shipped model")
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--notebook-steps", type=int, default=300, help="notebook 04's section 5 training steps")
    parser.add_argument("--layer-seconds", type=float, default=50.0, help="training time per depth (0: skip)")
    parser.add_argument("--layer-params", type=int, default=60_000, help="parameters of each depth's model")
    parser.add_argument("--cells-chars", type=int, default=20_000, help="validation characters for the cells")
    parser.add_argument("--out", type=Path, default=interpret.CHAR_LSTM_PATH)
    parser.add_argument("--no-save", action="store_true", help="measure only")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    meta = machine()
    text, itos, ids, train_ids, notebook_train, valid, split = corpus(args.chars)
    vocab = len(itos)
    command = " ".join(["OMP_NUM_THREADS=1 python benchmarks/train_char_lstm.py",
                        *(sys.argv[1:] if argv is None else argv)])
    results = {"command": command,
               "corpus": {"chars": len(text), "train_chars": len(train_ids), "vocab": vocab,
                          "valid_chars": int(valid[0][1].numel()), "cells_chars": args.cells_chars}}

    # the notebook's own model: section 5's configuration, seed and steps
    torch.manual_seed(0)
    short = LSTMLanguageModel(LSTMConfig(vocab_size=vocab, embed_dim=32, hidden_dim=128))
    untrained = LSTMLanguageModel(LSTMConfig(vocab_size=vocab, embed_dim=32, hidden_dim=128))
    untrained.load_state_dict(short.state_dict())
    history = train(short, sequence_batches(notebook_train, BLOCK, BATCH),
                    TrainConfig(steps=args.notebook_steps, lr=1e-2, eval_every=10**7, progress=False))
    results["untrained"] = {"params": count(untrained), "valid_loss": round(evaluate(untrained, valid)["loss"], 4),
                            "cells": cells_report(untrained, text, ids, split, args.cells_chars)}
    results["notebook"] = {"params": count(short), "steps": args.notebook_steps, "train_s": round(history.seconds, 1),
                           "valid_loss": round(evaluate(short, valid)["loss"], 4),
                           "cells": cells_report(short, text, ids, split, args.cells_chars)}
    print("notebook model:", json.dumps(results["notebook"]), flush=True)

    # the shipped model
    torch.manual_seed(0)
    config = LSTMConfig(vocab_size=vocab, embed_dim=args.embed, hidden_dim=args.hidden, num_layers=args.layers)
    model = LSTMLanguageModel(config)
    steps, seconds = two_phase(model, sequence_batches(train_ids, BLOCK, BATCH), args.seconds, args.lr, seed=1)
    results["shipped"] = {"config": {"embed_dim": args.embed, "hidden_dim": args.hidden, "num_layers": args.layers},
                          "params": count(model), "steps": steps, "train_s": round(seconds, 1),
                          "lr": f"{args.lr} for 80% of the time, then {args.lr / 5}", "batch": [BATCH, BLOCK],
                          "valid_loss": round(evaluate(model, valid)["loss"], 4),
                          "cells": cells_report(model, text, ids, split, args.cells_chars)}
    print("shipped model:", json.dumps(results["shipped"]), flush=True)
    for kind in ("untrained", "notebook", "shipped"):
        results[kind]["valid_bits_per_char"] = round(results[kind]["valid_loss"] / math.log(2), 4)

    # depth at (about) equal parameter count and equal time
    if args.layer_seconds > 0:
        depth = []
        for layers in (1, 2, 3):
            hidden = hidden_for(layers, args.layer_params, vocab, 32)
            torch.manual_seed(0)
            m = LSTMLanguageModel(LSTMConfig(vocab_size=vocab, embed_dim=32, hidden_dim=hidden, num_layers=layers))
            h = train(m, sequence_batches(train_ids, BLOCK, BATCH),
                      TrainConfig(steps=10**7, lr=1e-2, eval_every=10**7, time_budget_s=args.layer_seconds,
                                  progress=False))
            loss = evaluate(m, valid)["loss"]
            depth.append({"layers": layers, "hidden_dim": hidden, "params": count(m), "steps": len(h.train_steps),
                          "train_s": round(h.seconds, 1), "valid_loss": round(loss, 4),
                          "valid_bits_per_char": round(loss / math.log(2), 4)})
            print("depth:", json.dumps(depth[-1]), flush=True)
        results["depth_equal_params_equal_time"] = depth
        if not args.no_save:  # the deepest one: notebook 04 mixes its layers as ELMo does
            interpret.save_char_lstm(m, itos, interpret.STACKED_CHAR_LSTM_PATH,
                                     {"valid_loss": depth[-1]["valid_loss"], "steps": depth[-1]["steps"],
                                      "command": results["command"], "depth": depth})

    if not args.no_save:
        interpret.save_char_lstm(model, itos, args.out, {"valid_loss": results["shipped"]["valid_loss"],
                                                         "steps": steps, "command": results["command"]})
        written = [args.out] + ([interpret.STACKED_CHAR_LSTM_PATH] if args.layer_seconds > 0 else [])
        results["checkpoints"] = [{"path": str(p.relative_to(REPO)) if p.is_relative_to(REPO) else str(p),
                                   "bytes": p.stat().st_size} for p in written]
        save("char_lstm", results, meta)
    return results


if __name__ == "__main__":
    main()
