"""Notebook 07's topic task (section 7) over several seeds: bag of words, frozen MiniLM + linear, fine-tuned MiniLM.

The notebook runs one seed: 150 docstring sentences per topic (``course_lib.data.docstring_topics``), 70% to
train, 30% (225 sentences) to test, and three contenders, which this script repeats with the notebook's settings:

- a bag of words: word counts of the words seen in training, and a linear classifier fitted in one step (ridge
  regression of the one-hot classes, ridge 100, the notebook's ``probe_accuracy``);
- frozen MiniLM + linear: the average of MiniLM's last layer over the real tokens, the same classifier;
- fine-tuned MiniLM: the same average and a linear head, every weight but the embeddings trained together, two
  shuffled passes in batches of 32, AdamW (lr 2e-4, weight decay 0.01).

Each seed draws other sentences and another split (``docstring_topics(per_topic=150, seed=seed)``) and another
initial head and batch order (``torch.manual_seed(seed)``). Seed 0 is the notebook's run.

    OMP_NUM_THREADS=2 python benchmarks/topic_seeds.py             # seeds 0-4, a few minutes on 2 cores

Writes ``benchmarks/results/topic_seeds.json`` (with the machine) and the copy notebook 07 reads,
``course_lib/assets/topic_seeds.json``.
"""
from __future__ import annotations

import argparse
import copy
import json
import re
import statistics
import sys
import time
from pathlib import Path

import torch
from torch import nn

from course_lib.bert import BertConfig, BertModel, copy_from_hf
from course_lib.checks import bert as checks
from course_lib.data import docstring_topics

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results_file import RESULTS, machine

ASSET = Path(__file__).resolve().parents[1] / "course_lib" / "assets" / "topic_seeds.json"
CONTENDERS = ("bag of words", "frozen MiniLM + linear", "fine-tuned MiniLM")


def probe_accuracy(train_x, train_y, test_x, test_y, ridge=100.0):
    """Notebook 07's one-step linear classifier: ridge regression of the one-hot classes on standardised features."""
    mean, std = train_x.mean(0), train_x.std(0) + 1e-6
    X, X_test = ((train_x - mean) / std).double(), ((test_x - mean) / std).double()  # (N, D), (M, D)
    targets = nn.functional.one_hot(train_y).double()  # (N, classes)
    prior = targets.mean(0)
    W = X.T @ torch.linalg.solve(X @ X.T + ridge * torch.eye(len(X), dtype=X.dtype), targets - prior)  # (D, classes)
    return float(((X_test @ W + prior).argmax(-1) == test_y).float().mean())


class SentenceClassifier(nn.Module):
    """Notebook 07's: BERT, the average of its last layer over the real tokens, a linear layer to the classes."""

    def __init__(self, bert, classes):
        super().__init__()
        self.bert, self.head = bert, nn.Linear(bert.config.hidden_size, classes)

    def sentence_vectors(self, ids, real):
        hidden = self.bert(ids, attention_mask=real).last_hidden_state  # (B, T, H)
        weights = real[..., None].float()  # (B, T, 1)
        return (hidden * weights).sum(1) / weights.sum(1)  # (B, H)

    def forward(self, ids, real):
        return self.head(self.sentence_vectors(ids, real))  # (B, classes)


def one_seed(seed: int, bert, tokenizer) -> dict:
    sentences, labels, names = docstring_topics(per_topic=150, seed=seed)
    labels = torch.tensor(labels)  # (N,)
    train, test = slice(0, int(0.7 * len(sentences))), slice(int(0.7 * len(sentences)), None)
    train_words = sorted({w for text in sentences[train] for w in re.findall(r"[a-z]+", text.lower())})
    index = {word: i for i, word in enumerate(train_words)}
    bags = torch.zeros(len(sentences), len(index))  # (N, words seen in training)
    for row, text in enumerate(sentences):
        for word in re.findall(r"[a-z]+", text.lower()):
            if word in index:
                bags[row, index[word]] += 1
    result = {"bag of words": probe_accuracy(bags[train], labels[train], bags[test], labels[test])}
    encoded = tokenizer(list(sentences), padding=True, truncation=True, max_length=32, return_tensors="pt")
    ids, real = encoded["input_ids"], encoded["attention_mask"]  # (N, T)
    with torch.no_grad():
        frozen = SentenceClassifier(bert, len(names)).eval().sentence_vectors(ids, real)  # (N, H)
    result["frozen MiniLM + linear"] = probe_accuracy(frozen[train], labels[train], frozen[test], labels[test])
    torch.manual_seed(seed)
    classifier = SentenceClassifier(copy.deepcopy(bert), len(names)).train()
    classifier.bert.embeddings.requires_grad_(False)
    optimiser = torch.optim.AdamW([p for p in classifier.parameters() if p.requires_grad], lr=2e-4,
                                  weight_decay=0.01)
    train_ids, train_real, train_labels = ids[train], real[train], labels[train]
    for epoch in range(2):
        for batch in torch.randperm(len(train_ids)).split(32):
            length = int(train_real[batch].sum(1).max())
            loss = nn.functional.cross_entropy(classifier(train_ids[batch, :length], train_real[batch, :length]),
                                               train_labels[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    classifier.eval()
    with torch.no_grad():
        predicted = classifier(ids[test], real[test]).argmax(-1)
    result["fine-tuned MiniLM"] = float((predicted == labels[test]).float().mean())
    return {"seed": seed, "test_sentences": len(sentences[test]), "accuracy": result}


def summary(runs: list[dict], argv, seconds: float, requested: int) -> dict:
    differences = [r["accuracy"]["fine-tuned MiniLM"] - r["accuracy"]["frozen MiniLM + linear"] for r in runs]
    return {
        "command": ("python benchmarks/topic_seeds.py " + " ".join(argv if argv is not None else sys.argv[1:])).strip(),
        "meta": {**machine(), "torch_threads": torch.get_num_threads()},
        "seconds": round(seconds, 1),
        "seeds_requested": requested,  # more than len(runs): the run was cut short
        "runs": runs,
        "mean": {c: statistics.mean(r["accuracy"][c] for r in runs) for c in CONTENDERS},
        "stdev": {c: statistics.stdev(r["accuracy"][c] for r in runs) for c in CONTENDERS},
        "fine_tuned_minus_frozen": differences,
    }


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python benchmarks/topic_seeds.py", description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None, help="where to write (default: results/ and the asset)")
    args = parser.parse_args(argv)
    hf_model, tokenizer = checks.hf_minilm()
    bert = copy_from_hf(BertModel(BertConfig.from_hf(hf_model.config)), hf_model).eval()
    start = time.perf_counter()
    runs = []
    for seed in range(args.seeds):
        runs.append(one_seed(seed, bert, tokenizer))
        print(json.dumps(runs[-1]), flush=True)
        if len(runs) >= 2:  # written after every seed from the second on: a run cut short keeps what it measured
            result = summary(runs, argv, time.perf_counter() - start, args.seeds)
            text = json.dumps(result, indent=1) + "\n"
            for path in [args.out] if args.out else [RESULTS / "topic_seeds.json", ASSET]:
                path.write_text(text, encoding="utf-8")
            print(f"wrote {len(runs)} seeds", flush=True)
    return result


if __name__ == "__main__":
    main()
