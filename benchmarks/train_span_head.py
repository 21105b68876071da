"""Train the span head that notebook 07 runs ``best_span`` on: a linear layer on frozen MiniLM, for docstring QA.

    OMP_NUM_THREADS=2 python benchmarks/train_span_head.py     # a few minutes on a busy 2-core CPU

The questions are ``course_lib.qa_spans.docstring_qa()`` ("What does NAME return?" over a passage of three
functions' docstring sentences; the held-out questions are about functions of held-out files). MiniLM stays
frozen: its last layer is computed once per question, and a linear layer to a start and an end logit per token
(770 weights) is trained with cross-entropy on the answer's first and last token, over the passage's tokens only
(full batch, Adam, seeded). Exact match: the span ``best_span`` picks (the end not before the start, at most
``MAX_LEN`` tokens, inside the passage) equals the answer's tokens.

Writes ``course_lib/assets/span_head.pt`` (with the exact match and the first 40 held-out questions in it)
and ``benchmarks/results/span_head.json``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results_file import machine, save

from course_lib.bert import load_pretrained_minilm
from course_lib.bert_tasks import frozen_states
from course_lib.qa_spans import SPAN_HEAD_PATH, SpanHead, docstring_qa, encode_qa

MAX_LEN = 16
SHIPPED_QUESTIONS = 40  # the first held-out questions, stored with the head


def spans(start_logits, end_logits, allowed, max_len=MAX_LEN):
    """The best (start, end) per row over allowed positions, end >= start, at most max_len tokens (batched)."""
    T = start_logits.shape[-1]
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    ok = (j >= i) & (j - i < max_len)  # (T, T)
    scores = start_logits[:, :, None] + end_logits[:, None, :]  # (B, T, T)
    ok = ok & allowed[:, :, None] & allowed[:, None, :]
    flat = scores.masked_fill(~ok, -float("inf")).flatten(1).argmax(-1)
    return flat // T, flat % T


def padded(states, rows):
    T = max(len(s) for s in states)
    x = torch.zeros(len(states), T, states[0].shape[-1])
    allowed = torch.zeros(len(states), T, dtype=torch.bool)
    for b, (s, (_, types, _, _)) in enumerate(zip(states, rows)):
        x[b, :len(s)] = s
        allowed[b, :len(s)] = torch.tensor(types, dtype=torch.bool)
        allowed[b, len(s) - 1] = False  # the final [SEP]
    return x, allowed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    torch.manual_seed(args.seed)
    bert, tokenizer = load_pretrained_minilm()
    train, valid = docstring_qa()
    rows = {"train": [encode_qa(e, tokenizer) for e in train], "valid": [encode_qa(e, tokenizer) for e in valid]}
    data = {}
    for split, encoded in rows.items():
        states = frozen_states(bert, [r[0] for r in encoded], [r[1] for r in encoded])
        x, allowed = padded(states, encoded)
        data[split] = (x, allowed, torch.tensor([r[2] for r in encoded]), torch.tensor([r[3] for r in encoded]))
    head = SpanHead(bert.config.hidden_size)
    optimizer = torch.optim.Adam(head.parameters(), lr=1e-2)
    x, allowed, starts, ends = data["train"]
    for step in range(args.steps):
        start_logits, end_logits = head(x)
        start_logits = start_logits.masked_fill(~allowed, -1e4)
        end_logits = end_logits.masked_fill(~allowed, -1e4)
        loss = F.cross_entropy(start_logits, starts) + F.cross_entropy(end_logits, ends)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    head.eval()
    measured = {}
    with torch.no_grad():
        for split, (x, allowed, starts, ends) in data.items():
            i, j = spans(*head(x), allowed)
            measured[split] = float(((i == starts) & (j == ends)).float().mean())
    meta = machine()
    results = {"exact_match": measured, "questions": {"train": len(train), "valid": len(valid)}, "steps": args.steps,
               "max_len": MAX_LEN, "final_loss": round(loss.item(), 4), "seconds": round(time.perf_counter() - started),
               "date": meta["date"], "machine": f"{meta['cpu']}, {meta['cores']} cores, 1-min load {meta['load_1min']}"}
    examples = [list(e) for e in valid[:SHIPPED_QUESTIONS]]  # so that notebook 07 need not parse the library
    torch.save({"hidden_size": bert.config.hidden_size, "state_dict": head.state_dict(),
                "meta": {**results, "held_out_examples": examples}}, SPAN_HEAD_PATH)
    save("span_head", results, meta)
    print(results)


if __name__ == "__main__":
    main()
