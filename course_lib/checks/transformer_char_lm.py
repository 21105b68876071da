"""The check of the character language model built from the student's blocks (notebook 06; a demo's check: it prints
a verdict, it is not graded): causal, and a held-out loss below the unigram entropy.
"""
from __future__ import annotations

import math

import torch
from torch import nn

import course_lib.train as course_train
from course_lib.grading.answers import AnswerError, describe_value, report_pass

#: nats per character below the unigram entropy that a language model must reach to have learnt context
LEARNS_MARGIN = 0.5


# ---------------------------------------------------------------------------
# a language model built from the student's blocks (a demo's check: it prints a verdict, it is not graded)


def check_char_lm(model: nn.Module, valid_loss: float, unigram_nats: float, *, margin: float = LEARNS_MARGIN,
                  seed: int = 0) -> None:
    """The model is causal (changing the last character of a window changes no earlier position's logits) and its
    held-out loss ``valid_loss`` (nats per character) is at least ``margin`` nats below ``unigram_nats``, the loss of
    knowing only how often each character occurs (not judged when ``COURSE_FAST=1`` cut the training short)."""
    ex = "CharTransformer"
    if not isinstance(model, nn.Module):
        raise AnswerError(ex, f"expected the trained model (an nn.Module), got {describe_value(model)}.")
    for name, value in (("valid_loss", valid_loss), ("unigram_nats", unigram_nats)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise AnswerError(ex, f"{name} should be a finite number of nats, got {describe_value(value)}.")
    vocab_size = model.head.out_features if isinstance(getattr(model, "head", None), nn.Linear) else None
    length = getattr(model, "block_size", 16)
    if vocab_size is None:
        raise AnswerError(ex, "the model needs a linear output layer `head` (d_model -> vocabulary).")
    first = next(model.parameters())
    g = torch.Generator().manual_seed(seed)
    idx = torch.randint(vocab_size, (2, length), generator=g).to(first.device)
    changed = idx.clone()
    changed[:, -1] = (changed[:, -1] + 1) % vocab_size
    was_training = model.training
    model.eval()
    with torch.no_grad():
        before, _ = model(idx)
        after, _ = model(changed)
    model.train(was_training)
    if not torch.allclose(before[:, :-1], after[:, :-1], rtol=1e-4, atol=1e-5):
        raise AnswerError(ex, "the logits at earlier positions change when only the LAST character changes, so the "
                              "model sees the future it predicts: your encoder_block (or multi_head_attention) does "
                              "not apply the causal mask (True = may attend, masked scores set to -inf before the "
                              "softmax).")
    if course_train.fast_run():  # training was cut to a few steps: only the structure is judged
        report_pass(ex, f"causal; held-out loss {valid_loss:.3f} nats per character after training shortened by "
                        f"{course_train.FAST_ENV}=1, so how far it learnt is not judged")
        return
    if valid_loss > unigram_nats - margin:
        raise AnswerError(ex, f"the held-out loss {valid_loss:.3f} nats per character is not {margin:g} nats below the "
                              f"unigram entropy {unigram_nats:.3f} nats: the model has learnt little beyond how often "
                              "each character occurs. Check that your positional_encoding and encoder_block pass their "
                              "checks, then train it again.")
    report_pass(ex, f"causal; held-out loss {valid_loss:.3f} nats per character, {unigram_nats - valid_loss:.2f} below "
                    f"the unigram entropy {unigram_nats:.3f}")
