"""course_lib.compare: the five character models under one budget, scored on the same held-out characters."""
import math

import matplotlib
import numpy as np
import pytest
import torch

matplotlib.use("Agg")

from course_lib.compare import (MODELS, CharNGram, CompareConfig, compare_char_models, main, markdown_table,
                                plot_comparison, sliding_windows)
from course_lib.data import char_vocab, stdlib_source_text
from course_lib.train import IGNORE_INDEX

MAX_CHARS = 30_000


@pytest.fixture(scope="module")
def results():
    """About 1 s of training per neural model on a small corpus, on the CPU.

    One torch thread: on a machine busy with other jobs, two threads waiting for each other at every
    small operation can make a step a hundred times slower, and a 1 s budget would then be one step.
    """
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield compare_char_models(CompareConfig(budget_s=1.0, max_chars=MAX_CHARS), device="cpu")
    finally:
        torch.set_num_threads(threads)


def test_every_model_is_there_and_beats_uniform_guessing(results):
    assert [r.model for r in results] == list(MODELS)
    vocab_size = len(char_vocab(stdlib_source_text(MAX_CHARS, 0))[0])
    for r in results:
        assert r.vocab_size == vocab_size
        assert math.isfinite(r.bits_per_char), r
        assert 0 < r.bits_per_char < math.log2(vocab_size), r
        assert r.parameters > 0
        assert r.train_seconds > 0 and r.chars_per_second > 0
        if r.model != "n-gram":
            assert r.steps >= 1
            assert r.train_seconds < 5  # the budget stops training (1 s, plus the last step)
            assert isinstance(r.trained, torch.nn.Module) and not r.trained.training  # ready to sample from


def test_every_model_is_scored_on_the_same_held_out_characters(results):
    held_out = MAX_CHARS - int(MAX_CHARS * 0.9)
    assert {r.scored_chars for r in results} == {held_out}


def test_table_and_plot(results):
    table = markdown_table(results).splitlines()
    assert len(table) == 2 + len(MODELS) + 1  # header, rule, one row per model, the uniform guess
    for name, line in zip(MODELS, table[2:]):
        assert line.startswith(f"| {name} |")
    ax = plot_comparison(results)
    assert [t.get_text() for t in ax.get_xticklabels()] == list(MODELS)
    assert ax.lines[0].get_ydata()[0] == pytest.approx(results[0].uniform_bits)
    import matplotlib.pyplot as plt
    plt.close(ax.figure)


def test_ngram_bits_by_hand():
    """Train "aabab" (a=0, b=1, c=2), order 2, discount 1/2; score "b" after "a" and "c" after "b".

    Bigrams aa, ab, ba, ab. Continuation counts (distinct characters before each character):
    a <- {a, b}: 2, b <- {a}: 1, c: 0; 3 in all, 2 types, so
    P(a) = (2 - 1/2)/3 + (1/2)(2/3)(1/3) = 11/18, P(b) = (1 - 1/2)/3 + 1/9 = 5/18, P(c) = 1/9.
    After "a": N(ab) = 2 of N(a.) = 3, T(a) = 2 types:  P(b|a) = (2 - 1/2)/3 + (1/2)(2/3) P(b) = 16/27.
    After "b": N(bc) = 0 of N(b.) = 1, T(b) = 1:        P(c|b) = 0 + (1/2)(1/1) P(c) = 1/18.
    """
    model = CharNGram(2, 3, discount=0.5).fit([0, 0, 1, 0, 1])
    bits = model.target_bits([0, 1, 2], first_target=1)
    np.testing.assert_allclose(bits, [-math.log2(16 / 27), -math.log2(1 / 18)], rtol=1e-12)
    assert model.bits_per_char([0, 1, 2], 1) == pytest.approx((-math.log2(16 / 27) - math.log2(1 / 18)) / 2)
    # the unigram level alone (what a context never seen in training gets)
    unigram = CharNGram(1, 3, discount=0.5).fit([0, 0, 1, 0, 1])  # raw counts at the top: 3 a, 2 b
    backoff = 0.5 * 2 / 5 / 3  # D T() / N(.) * 1/V
    np.testing.assert_allclose(unigram.target_bits([0, 1, 2], 0),
                               [-math.log2(2.5 / 5 + backoff), -math.log2(1.5 / 5 + backoff), -math.log2(backoff)],
                               rtol=1e-12)


@pytest.mark.parametrize("order", [1, 2, 3, 5])
def test_ngram_distributions_sum_to_one(order):
    rng = np.random.default_rng(order)
    model = CharNGram(order, 5).fit(rng.integers(0, 5, 400))
    for context in ([0, 1, 2, 3], [4, 4, 4, 4], [3, 1, 0, 2]):
        probs = [2.0 ** -model.target_bits(context + [c], 4)[0] for c in range(5)]
        assert sum(probs) == pytest.approx(1.0, abs=1e-12)
        assert min(probs) > 0


def test_sliding_windows_score_each_target_once_with_enough_context():
    ids = torch.arange(1000, 1103)
    first, window, stride = 16, 16, 5
    x, y = sliding_windows(ids, first, window, stride)
    scored = y[y != IGNORE_INDEX]
    assert scored.tolist() == list(range(1000 + first, 1103))  # each target once, in order
    for row_x, row_y in zip(x, y):
        assert torch.equal(row_x[1:], ids[row_x[0] - 1000 + 1:row_x[0] - 1000 + window])  # contiguous text
        keep = (row_y != IGNORE_INDEX).nonzero().flatten()
        assert keep.min() >= window - stride  # each scored target sees at least window - stride + 1 chars
        for t in keep.tolist():
            assert row_y[t] == row_x[t] + 1  # the target is the character after the input


def test_cli_prints_the_table(capsys):
    main(["--budget", "0.1", "--max-chars", "5000", "--models", "n-gram", "--device", "cpu"])
    out = capsys.readouterr().out
    assert "| n-gram | order" in out and "| uniform guess |" in out
