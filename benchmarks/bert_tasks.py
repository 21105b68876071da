"""Notebook 08's two tasks over several seeds: a baseline, frozen MiniLM + a linear layer, and MiniLM fine-tuned.

    OMP_NUM_THREADS=2 python benchmarks/bert_tasks.py     # minutes on a 2-core CPU, more on a busy one

Writes ``course_lib/assets/bert_tasks.json`` (which the notebook reads and plots) and the same numbers with the
machine's description to ``benchmarks/results/bert_tasks.json``.

The tasks are those of ``course_lib.bert_tasks``: tagging the tokens of held-out Python lines (9 tags) and telling
whether a docstring sentence belongs to a function's name (pairs, half of them 1). For each seed, ``--train``
examples are drawn (seeded) from the training files; the held-out examples are the same for every seed (the first
``--valid`` of the held-out files). Three contenders per task and seed:

- the baseline: the most frequent tag of each word in the drawn training lines; for pairs, "a word of the name
  occurs in the sentence";
- frozen MiniLM + linear: the last layer at each word's first piece (tagging) or averaged over the pair (pairs),
  and a ridge-regression classifier (``course_lib.bert_tasks.ridge_probe``), as in the notebook;
- fine-tuned MiniLM: the top two of MiniLM's six layers and a linear head trained together (AdamW, lr 1e-4 for
  the layers and 1e-3 for the head, batches of 32, ``--epochs`` passes, dropout as in BERT); the lower four layers
  and the embeddings frozen (their outputs are computed once), so that it runs on a CPU in minutes.

The labels are aligned with the fast tokenizer's ``word_ids()`` (the rule notebook 08's ``align_labels`` writes).
"""
from __future__ import annotations

import argparse
import copy
import json
import re
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results_file import machine, save

from course_lib.bert import load_pretrained_minilm
from course_lib.bert_tasks import (CODE_TAGS, TASK_RESULTS, code_tagging, docstring_pairs,
                                   most_frequent_tags, pad_rows, ridge_probe)

FROZEN_LAYERS = 4
IGNORE = -100


@torch.no_grad()
def lower_states(bert, rows, types=None, batch_size=64):
    """The output of the first FROZEN_LAYERS layers for each row: a list of (T_i, H)."""
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
    out = [None] * len(rows)
    for start in range(0, len(order), batch_size):
        chosen = order[start:start + batch_size]
        ids, mask = pad_rows([rows[i] for i in chosen], 0)
        segments = None if types is None else pad_rows([types[i] for i in chosen], 0)[0]
        hidden = bert(ids, segments, mask, output_hidden_states=True).hidden_states[FROZEN_LAYERS]  # (B, T, H)
        for b, i in enumerate(chosen):
            out[i] = hidden[b, :len(rows[i])].clone()
    return out


def top(layers, states):
    """The top layers on a batch of lower states: (B, T, H) and the mask of real positions (B, T)."""
    length = max(len(s) for s in states)
    x = torch.zeros(len(states), length, states[0].shape[-1])
    keep = torch.zeros(len(states), length, dtype=torch.bool)
    for b, s in enumerate(states):
        x[b, :len(s)], keep[b, :len(s)] = s, True
    for layer in layers:
        x = layer(x, key_padding_mask=keep)
    return x, keep


def fine_tune(bert, train_states, train_targets, valid_states, classes, per_token, seed, epochs):
    """Train copies of the top layers and a linear head; returns the held-out predictions (a list per example)."""
    torch.manual_seed(seed)
    layers = nn.ModuleList(copy.deepcopy(layer) for layer in bert.layers[FROZEN_LAYERS:]).train()
    layers.requires_grad_(True)  # the copies of frozen layers: trained here
    head = nn.Linear(bert.config.hidden_size, classes)
    optimizer = torch.optim.AdamW([{"params": layers.parameters(), "lr": 1e-4},
                                   {"params": head.parameters(), "lr": 1e-3}], weight_decay=0.01)
    g = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        for batch in torch.randperm(len(train_states), generator=g).split(32):
            x, keep = top(layers, [train_states[i] for i in batch.tolist()])
            if per_token:
                targets = pad_rows([train_targets[i] for i in batch.tolist()], IGNORE)[0]  # (B, T)
                loss = F.cross_entropy(head(x).flatten(0, 1), targets.flatten(), ignore_index=IGNORE)
            else:
                pooled = (x * keep[..., None]).sum(1) / keep.sum(1, keepdim=True)  # (B, H)
                loss = F.cross_entropy(head(pooled), torch.tensor([train_targets[i] for i in batch.tolist()]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    layers.eval()
    predictions = []
    with torch.no_grad():
        for start in range(0, len(valid_states), 64):
            x, keep = top(layers, valid_states[start:start + 64])
            if per_token:
                predictions += [head(x[b, :len(s)]).argmax(-1) for b, s in enumerate(valid_states[start:start + 64])]
            else:
                pooled = (x * keep[..., None]).sum(1) / keep.sum(1, keepdim=True)
                predictions += head(pooled).argmax(-1).tolist()
    return predictions


def aligned(tokenizer, words, tags):
    encoded = tokenizer(list(words), is_split_into_words=True)
    labels, previous = [], None
    for word in encoded.word_ids():
        labels.append(IGNORE if word is None or word == previous else tags[word])
        previous = word
    return encoded["input_ids"], labels


def name_in_sentence(name, sentence):
    words = {w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", name) if len(w) >= 3}
    return int(bool(words & set(re.findall(r"[a-z]+", sentence.lower()))))


def tagging_runs(bert, tokenizer, seeds, n_train, n_valid, epochs):
    train_lines, valid_lines = code_tagging()
    valid_lines = valid_lines[:n_valid]
    valid = [aligned(tokenizer, line.words, list(line.tags)) for line in valid_lines]
    valid_lower = lower_states(bert, [ids for ids, _ in valid])
    valid_y = torch.cat([torch.tensor(labels)[torch.tensor(labels) != IGNORE] for _, labels in valid])
    out = {"most frequent tag": [], "frozen MiniLM + linear": [], "fine-tuned MiniLM (top 2 layers)": []}
    for seed in seeds:
        chosen = np.random.default_rng(seed).permutation(len(train_lines))[:n_train]
        lines = [train_lines[i] for i in chosen]
        table, commonest = most_frequent_tags(tuple(lines))
        baseline = torch.tensor([table.get(w, commonest) for line in valid_lines for w in line.words])
        out["most frequent tag"].append(float((baseline == valid_y).float().mean()))
        train = [aligned(tokenizer, line.words, list(line.tags)) for line in lines]
        train_lower = lower_states(bert, [ids for ids, _ in train])
        with torch.no_grad():
            def last(states):
                return [top(bert.layers[FROZEN_LAYERS:], [s])[0][0] for s in states]
            train_last, valid_last = last(train_lower), last(valid_lower)
        pick = [torch.tensor(labels) != IGNORE for _, labels in train]
        probe = ridge_probe(torch.cat([s[m] for s, m in zip(train_last, pick)]),
                            torch.cat([torch.tensor(labels)[m] for (_, labels), m in zip(train, pick)]), len(CODE_TAGS))
        valid_pick = [torch.tensor(labels) != IGNORE for _, labels in valid]
        frozen = probe(torch.cat([s[m] for s, m in zip(valid_last, valid_pick)]))
        out["frozen MiniLM + linear"].append(float((frozen == valid_y).float().mean()))
        tuned = fine_tune(bert, train_lower, [labels for _, labels in train], valid_lower, len(CODE_TAGS), True, seed,
                          epochs)
        tuned = torch.cat([p[m] for p, m in zip(tuned, valid_pick)])
        out["fine-tuned MiniLM (top 2 layers)"].append(float((tuned == valid_y).float().mean()))
        print(f"tagging, seed {seed}: " + ", ".join(f"{k} {v[-1]:.3f}" for k, v in out.items()), flush=True)
    return out


def pair_runs(bert, tokenizer, seeds, n_train, n_valid, epochs, max_length=32):
    train_pairs, valid_pairs = docstring_pairs()
    valid_pairs = valid_pairs[:n_valid]

    def encode(pairs):
        enc = [tokenizer(p.name.replace("_", " "), p.sentence, truncation=True, max_length=max_length) for p in pairs]
        return [e["input_ids"] for e in enc], [e["token_type_ids"] for e in enc]

    valid_ids, valid_types = encode(valid_pairs)
    valid_lower = lower_states(bert, valid_ids, valid_types)
    valid_y = torch.tensor([p.label for p in valid_pairs])
    out = {"name in sentence": [], "frozen MiniLM + linear": [], "fine-tuned MiniLM (top 2 layers)": []}
    baseline = torch.tensor([name_in_sentence(p.name, p.sentence) for p in valid_pairs])
    for seed in seeds:
        chosen = np.random.default_rng(seed).permutation(len(train_pairs))[:n_train]
        pairs = [train_pairs[i] for i in chosen]
        out["name in sentence"].append(float((baseline == valid_y).float().mean()))
        train_lower = lower_states(bert, *encode(pairs))
        with torch.no_grad():
            def pooled(states):
                return torch.stack([top(bert.layers[FROZEN_LAYERS:], [s])[0][0].mean(0) for s in states])
            probe = ridge_probe(pooled(train_lower), torch.tensor([p.label for p in pairs]), 2)
            frozen = probe(pooled(valid_lower))
        out["frozen MiniLM + linear"].append(float((frozen == valid_y).float().mean()))
        tuned = torch.tensor(fine_tune(bert, train_lower, [p.label for p in pairs], valid_lower, 2, False, seed,
                                       epochs))
        out["fine-tuned MiniLM (top 2 layers)"].append(float((tuned == valid_y).float().mean()))
        print(f"pairs, seed {seed}: " + ", ".join(f"{k} {v[-1]:.3f}" for k, v in out.items()), flush=True)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
    parser.add_argument("--train", type=int, default=400)
    parser.add_argument("--valid", type=int, default=300)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    bert, tokenizer = load_pretrained_minilm()
    bert.requires_grad_(False)
    tasks = {"tagging Python tokens": tagging_runs(bert, tokenizer, args.seeds, args.train, args.valid, args.epochs),
             "name and docstring pairs": pair_runs(bert, tokenizer, args.seeds, args.train, args.valid, args.epochs)}
    meta = machine()
    results = {"date": meta["date"],
               "machine": f"{meta['cpu']}, {meta['cores']} cores, 1-min load {meta['load_1min']}",
               "seeds": args.seeds, "train_examples": args.train, "valid_examples": args.valid, "epochs": args.epochs,
               "seconds": round(time.perf_counter() - started), "tasks": tasks}
    TASK_RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    save("bert_tasks", results, meta)
    print(f"{results['seconds']} s; wrote {TASK_RESULTS}")


if __name__ == "__main__":
    main()
