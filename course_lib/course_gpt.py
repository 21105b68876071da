"""The course's small GPT: the twin of the course's small BERT, trained left to right instead of by filling blanks.

    python -m course_lib.course_gpt            # writes course_lib/assets/course_gpt.pt

Same sizes as ``course_bert.pt`` (2 layers of 128, 4 heads, feed-forward 512, GELU), the same vocabulary (the
:class:`course_lib.bert.CorpusVocab` of the BERT checkpoint, so the two models' ids are the same), the same corpus
(``course_lib.data.docstring_sentences()``, sentences cut to 24 WordPieces) and the same kind of schedule (1e-3,
100 warm-up steps, cosine decay). Each sequence is "[CLS] sentence [SEP]": [CLS] stands for the start of a
sentence and [SEP] for its end, and :class:`course_lib.transformer.TransformerLM` learns to predict each next
token. 800 steps of 64 sentences (about 9 minutes on one busy thread) are a quarter of the tokens the BERT was
trained on (1600 steps of 64 sentence pairs), which puts the GPT at a disadvantage, not the BERT. The output
embedding is tied to the input embedding (as in GPT-2), which also keeps the file small. Seeded, one thread.
"""
from __future__ import annotations

import argparse
import math
import time
from pathlib import Path
from typing import Sequence

import torch

from course_lib.bert import ASSETS, CorpusVocab, load_course_bert
from course_lib.bert_pretrain import encode_sentences
from course_lib.data import docstring_sentences
from course_lib.loss import IGNORE_INDEX
from course_lib.transformer import TransformerConfig, TransformerLM
from course_lib.weights import read_checkpoint

__all__ = ["COURSE_GPT_PATH", "MAX_SENTENCE_TOKENS", "sentence_batch", "train_course_gpt", "load_course_gpt", "main"]

COURSE_GPT_PATH = ASSETS / "course_gpt.pt"
MAX_SENTENCE_TOKENS = 24


def sentence_batch(encoded: Sequence[torch.Tensor], rows: Sequence[int], vocab: CorpusVocab):
    """(inputs, targets), each (B, T): "[CLS] sentence" predicting "sentence [SEP]"; padding targets are -100."""
    sequences = [torch.cat([torch.tensor([vocab.cls_id]), encoded[r], torch.tensor([vocab.sep_id])]) for r in rows]
    length = max(len(s) for s in sequences) - 1
    inputs = torch.full((len(rows), length), vocab.pad_id, dtype=torch.long)
    targets = torch.full((len(rows), length), IGNORE_INDEX, dtype=torch.long)
    for b, s in enumerate(sequences):
        inputs[b, :len(s) - 1], targets[b, :len(s) - 1] = s[:-1], s[1:]
    return inputs, targets


def train_course_gpt(steps: int = 800, batch_size: int = 64, learning_rate: float = 1e-3, warmup: int = 100,
                     seed: int = 0) -> tuple[TransformerLM, CorpusVocab, list[tuple[int, float]]]:
    """A fresh tied-embedding TransformerLM trained on the docstring sentences; (model in eval mode, vocab, history)."""
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    bert, vocab = load_course_bert()
    b = bert.config
    config = TransformerConfig(vocab_size=len(vocab), block_size=MAX_SENTENCE_TOKENS + 1, d_model=b.hidden_size,
                               num_heads=b.num_heads, num_layers=b.num_layers, d_ff=b.intermediate_size,
                               positional="learned", activation="gelu")
    model = TransformerLM(config)
    model.head.weight = model.token_embedding.weight  # tied, as in GPT-2
    torch.nn.init.normal_(model.token_embedding.weight, std=0.02)  # N(0, 1) rows would give huge tied logits
    encoded = encode_sentences(docstring_sentences()[0], vocab, MAX_SENTENCE_TOKENS)
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.01)

    def schedule(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, steps - warmup)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    history, running, start = [], 0.0, time.perf_counter()
    for step in range(steps):
        model.train()
        rows = torch.randint(len(encoded), (batch_size,), generator=generator).tolist()
        _, loss = model(*sentence_batch(encoded, rows, vocab))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        running += loss.item()
        if (step + 1) % 200 == 0 or step + 1 == steps:
            count = step % 200 + 1
            history.append((step + 1, running / count))
            print(f"step {step + 1:5d}  loss {running / count:.3f}  {time.perf_counter() - start:6.0f} s", flush=True)
            running = 0.0
    return model.eval(), vocab, history


def load_course_gpt(path: str | Path = COURSE_GPT_PATH) -> tuple[TransformerLM, CorpusVocab]:
    """(the course's small GPT in float32 and eval mode, the course BERT's :class:`CorpusVocab`, which it shares)."""
    checkpoint = read_checkpoint(path, "course GPT", "python -m course_lib.course_gpt")
    model = TransformerLM(TransformerConfig(**checkpoint["config"]))
    model.head.weight = model.token_embedding.weight
    state = {name: tensor.float() for name, tensor in checkpoint["state_dict"].items()}
    state["head.weight"] = state["token_embedding.weight"]
    model.load_state_dict(state)
    return model.eval(), load_course_bert()[1]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=800)
    parser.add_argument("--out", type=Path, default=COURSE_GPT_PATH)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    start = time.perf_counter()
    model, _, history = train_course_gpt(steps=args.steps)
    seconds = time.perf_counter() - start
    state = {n: t.detach().half() for n, t in model.state_dict().items() if n != "head.weight"}
    torch.save({"config": {**model.config.__dict__}, "state_dict": state,
                "meta": {"seconds": round(seconds), "history": history, "steps": args.steps,
                         "torch_version": str(torch.__version__)}}, args.out)
    print(f"{seconds:.0f} s; wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
