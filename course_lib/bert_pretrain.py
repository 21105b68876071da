"""Pretrain the course's small BERT (masked LM + next-sentence prediction) on standard-library docstrings.

    python -m course_lib.bert_pretrain            # writes course_lib/assets/course_bert.pt

The corpus is ``course_lib.data.docstring_sentences()``, tokenised with MiniLM's real WordPiece
tokenizer (bert-base-uncased's vocabulary). To keep the checkpoint small, the model's vocabulary
is only the WordPiece ids that occur in the corpus (train and validation) plus the special tokens:
a :class:`course_lib.bert.CorpusVocab`, whose real ids are saved in the checkpoint.

Each training example is a sentence pair "[CLS] A [SEP] B [SEP]": half the time B is the sentence
that follows A in the corpus (label 0), half the time a random sentence (label 1). Consecutive
sentences mostly come from one docstring; at a docstring's end "the next sentence" is the next
docstring's first one, a little label noise the paper's document-level sampling avoids.
Then :func:`course_lib.bert.mask_tokens` corrupts 15% of the real tokens (80/10/10).

Everything is seeded and runs on one thread, so a run on the same machine and versions writes
the same checkpoint. With the default settings (2 layers of 128, 1600 steps of 64 pairs, about
5.5 minutes on a busy 2-core CPU) the model guesses 24% of the masked tokens of held-out
docstrings right, where always guessing the most frequent token ("the") gets 5%.
"""
from __future__ import annotations

import argparse
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Sequence

import torch
import torch.nn.functional as F

from course_lib.bert import (COURSE_BERT_PATH, BertConfig, BertForPreTraining, CorpusVocab, mask_tokens,
                             minilm_tokenizer, special_tokens_mask)
from course_lib.data import docstring_sentences
from course_lib.loss import IGNORE_INDEX

__all__ = ["PretrainConfig", "corpus_vocab", "encode_sentences", "sentence_pair_batch", "single_sentence_batch",
           "masked_lm_loss", "mlm_accuracy", "pretrain", "save_checkpoint", "main"]


@dataclass
class PretrainConfig:
    hidden_size: int = 128
    num_layers: int = 2
    num_heads: int = 4
    intermediate_size: int = 512
    max_sentence_tokens: int = 24   # WordPieces per sentence, longer ones are cut; a pair has 2 * 24 + 3
    dropout: float = 0.0            # a few epochs on a small model: no dropout needed, and faster
    steps: int = 1600
    batch_size: int = 64
    learning_rate: float = 1e-3
    warmup_steps: int = 100
    weight_decay: float = 0.01
    seed: int = 0
    threads: int = 1                   # fixed, so that a rerun adds up the same numbers in the same order

    def bert_config(self, vocab_size: int) -> BertConfig:
        return BertConfig(vocab_size=vocab_size, hidden_size=self.hidden_size, num_layers=self.num_layers,
                          num_heads=self.num_heads, intermediate_size=self.intermediate_size,
                          max_position=2 * self.max_sentence_tokens + 3, dropout=self.dropout)


def corpus_vocab(sentences: Sequence[str], tokenizer=None) -> CorpusVocab:
    """The :class:`CorpusVocab` of every WordPiece id in ``sentences`` plus the special tokens."""
    tokenizer = tokenizer or minilm_tokenizer()
    used = {i for ids in tokenizer(list(sentences), add_special_tokens=False)["input_ids"] for i in ids}
    return CorpusVocab(sorted(used | set(tokenizer.all_special_ids)), tokenizer)


def encode_sentences(sentences: Sequence[str], vocab: CorpusVocab, max_tokens: int) -> list[torch.Tensor]:
    """Each sentence as a 1-D tensor of our ids, without special tokens, cut to ``max_tokens``."""
    if not sentences:
        return []
    real = vocab.tokenizer(list(sentences), add_special_tokens=False)["input_ids"]
    return [vocab.to_course(torch.tensor(ids[:max_tokens], dtype=torch.long)) for ids in real]


def _pad(rows: list[torch.Tensor], segments: list[torch.Tensor], pad_id: int):
    """Right-pad rows to one length: input_ids, token_type_ids, attention_mask, each (B, T_max)."""
    length = max(len(row) for row in rows)
    input_ids = torch.full((len(rows), length), pad_id, dtype=torch.long)
    token_type_ids = torch.zeros_like(input_ids)
    attention_mask = torch.zeros_like(input_ids)
    for b, (row, segment) in enumerate(zip(rows, segments)):
        input_ids[b, :len(row)], token_type_ids[b, :len(row)], attention_mask[b, :len(row)] = row, segment, 1
    return input_ids, token_type_ids, attention_mask


def sentence_pair_batch(encoded: Sequence[torch.Tensor], batch_size: int, vocab: CorpusVocab,
                        generator: torch.Generator):
    """NSP pairs "[CLS] A [SEP] B [SEP]": (input_ids, token_type_ids, attention_mask, next_sentence_labels).

    A is sentence i; with probability 1/2 B is sentence i + 1 (label 0), else a random other
    sentence (label 1). token_type_ids is 0 on [CLS] A [SEP] and 1 on B [SEP].
    """
    first = torch.randint(len(encoded) - 1, (batch_size,), generator=generator)  # (B,): sentence A
    is_random = torch.randint(2, (batch_size,), generator=generator)  # (B,): 1 = B is a random sentence
    others = torch.randint(len(encoded) - 1, (batch_size,), generator=generator)
    others = others + (others >= first + 1).long()  # a random sentence other than i + 1
    second = torch.where(is_random.bool(), others, first + 1)  # (B,): sentence B
    cls, sep = torch.tensor([vocab.cls_id]), torch.tensor([vocab.sep_id])
    rows, segments = [], []
    for a, b in zip(first.tolist(), second.tolist()):
        part_a, part_b = torch.cat([cls, encoded[a], sep]), torch.cat([encoded[b], sep])
        rows.append(torch.cat([part_a, part_b]))
        segments.append(torch.cat([torch.zeros(len(part_a), dtype=torch.long),
                                   torch.ones(len(part_b), dtype=torch.long)]))
    return (*_pad(rows, segments, vocab.pad_id), is_random)


def single_sentence_batch(encoded: Sequence[torch.Tensor], vocab: CorpusVocab):
    """"[CLS] sentence [SEP]" for every sentence: (input_ids, token_type_ids, attention_mask)."""
    cls, sep = torch.tensor([vocab.cls_id]), torch.tensor([vocab.sep_id])
    rows = [torch.cat([cls, ids, sep]) for ids in encoded]
    return _pad(rows, [torch.zeros(len(row), dtype=torch.long) for row in rows], vocab.pad_id)


def masked_lm_loss(model: BertForPreTraining, input_ids, token_type_ids, attention_mask, labels,
                   next_sentence_labels=None) -> torch.Tensor:
    """The loss of ``model(...)``, computing the vocabulary logits only where labels != -100 (faster)."""
    hidden = model.bert(input_ids, token_type_ids, attention_mask).last_hidden_state  # (B, T, H)
    selected = labels != IGNORE_INDEX  # (B, T)
    loss = F.cross_entropy(model.mlm_head(hidden[selected]), labels[selected])  # over the masked tokens only
    if next_sentence_labels is not None:
        loss = loss + F.cross_entropy(model.nsp_head(hidden), next_sentence_labels)
    return loss


@torch.no_grad()
def mlm_accuracy(model: BertForPreTraining, encoded: Sequence[torch.Tensor], vocab: CorpusVocab, seed: int = 0,
                 batch_size: int = 256) -> tuple[float, torch.Tensor, torch.Tensor]:
    """Masked-token accuracy on single sentences, masked by :func:`mask_tokens` with ``seed``.

    Returns (accuracy, predictions, labels) over the selected tokens, so a baseline can be
    scored on exactly the same positions.
    """
    model.eval()
    device = next(model.parameters()).device
    generator = torch.Generator().manual_seed(seed)  # the masking is drawn on the CPU, the same on every device
    predictions, targets = [], []
    for start in range(0, len(encoded), batch_size):
        input_ids, token_type_ids, attention_mask = single_sentence_batch(encoded[start:start + batch_size], vocab)
        special = special_tokens_mask(input_ids, vocab.special_ids)
        inputs, labels = mask_tokens(input_ids, special, generator, len(vocab), vocab.mask_id)
        logits, _ = model(inputs.to(device), token_type_ids.to(device), attention_mask.to(device))
        selected = labels != IGNORE_INDEX
        predictions.append(logits.mlm[selected.to(device)].argmax(-1).cpu())
        targets.append(labels[selected])
    predictions, targets = torch.cat(predictions), torch.cat(targets)
    return (predictions == targets).float().mean().item(), predictions, targets


def pretrain(config: PretrainConfig, train_sentences: Sequence[str], vocab: CorpusVocab, log_every: int = 200,
             valid_sentences: Sequence[str] = ()) -> tuple[BertForPreTraining, list[tuple[int, float]]]:
    """Train a fresh :class:`BertForPreTraining`; returns it (in eval mode) and (step, loss) pairs."""
    torch.manual_seed(config.seed)
    generator = torch.Generator().manual_seed(config.seed)
    encoded = encode_sentences(train_sentences, vocab, config.max_sentence_tokens)
    valid = encode_sentences(valid_sentences, vocab, config.max_sentence_tokens)
    model = BertForPreTraining(config.bert_config(len(vocab)))
    decay = [p for name, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for name, p in model.named_parameters() if p.dim() < 2]  # biases and LayerNorm gains
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": config.weight_decay},
                                   {"params": no_decay, "weight_decay": 0.0}], lr=config.learning_rate)

    def schedule(step: int) -> float:  # linear warm-up, then cosine decay to 0
        if step < config.warmup_steps:
            return (step + 1) / config.warmup_steps
        progress = (step - config.warmup_steps) / max(1, config.steps - config.warmup_steps)
        return 0.5 * (1 + math.cos(math.pi * progress))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    history, running, start = [], 0.0, time.perf_counter()
    for step in range(config.steps):
        model.train()
        input_ids, token_type_ids, attention_mask, is_random = sentence_pair_batch(
            encoded, config.batch_size, vocab, generator)
        special = special_tokens_mask(input_ids, vocab.special_ids)
        inputs, labels = mask_tokens(input_ids, special, generator, len(vocab), vocab.mask_id)
        loss = masked_lm_loss(model, inputs, token_type_ids, attention_mask, labels, is_random)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        running += loss.item()
        if (step + 1) % log_every == 0 or step + 1 == config.steps:
            count = (step % log_every) + 1
            history.append((step + 1, running / count))
            message = f"step {step + 1:5d}  loss {running / count:.3f}  {time.perf_counter() - start:6.0f} s"
            if valid:
                message += f"  valid MLM accuracy {mlm_accuracy(model, valid, vocab)[0]:.3f}"
            print(message, flush=True)
            running = 0.0
    return model.eval(), history


def save_checkpoint(model: BertForPreTraining, vocab: CorpusVocab, config: PretrainConfig, path: Path,
                    **meta) -> None:
    """float16 weights (the tied decoder weight is stored once), the config and the real ids of the vocabulary."""
    state = {name: tensor.detach().half() for name, tensor in model.state_dict().items()
             if name != "mlm_head.decoder.weight"}
    torch.save({"config": {**model.config.__dict__}, "state_dict": state,
                "real_ids": vocab.real_ids.to(torch.int32), "pretrain_config": asdict(config), "meta": meta}, path)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=PretrainConfig.steps)
    parser.add_argument("--out", type=Path, default=COURSE_BERT_PATH)
    args = parser.parse_args(argv)
    config = PretrainConfig(steps=args.steps)
    torch.set_num_threads(config.threads)
    train_sentences, valid_sentences = docstring_sentences()
    vocab = corpus_vocab(train_sentences + valid_sentences)
    print(f"{len(train_sentences)} training sentences, vocabulary of {len(vocab)} WordPieces", flush=True)
    start = time.perf_counter()
    model, history = pretrain(config, train_sentences, vocab, valid_sentences=valid_sentences)
    seconds = time.perf_counter() - start
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_checkpoint(model, vocab, config, args.out, seconds=round(seconds), history=history,
                    torch_version=str(torch.__version__))
    print(f"{seconds:.0f} s; wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
