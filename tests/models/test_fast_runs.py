"""COURSE_FAST=1: the tests' whole-notebook runs train for a moment; without it nothing is cut."""
import time

import torch

from course_lib import train as training
from course_lib.ffnn import FFNNConfig, FFNNLanguageModel


def test_budgeted_gives_every_batch_by_default(monkeypatch):
    monkeypatch.delenv(training.FAST_ENV, raising=False)
    assert list(training.budgeted(iter(range(100)))) == list(range(100))


def test_budgeted_stops_after_the_fast_steps(monkeypatch):
    monkeypatch.setenv(training.FAST_ENV, "1")
    assert list(training.budgeted(range(100))) == list(range(training.FAST_STEPS))


def test_budgeted_starts_no_batch_after_the_fast_seconds(monkeypatch):
    monkeypatch.setenv(training.FAST_ENV, "1")

    def slow():
        for step in range(100):
            time.sleep(training.FAST_SECONDS / 2.5)
            yield step

    given = list(training.budgeted(slow()))
    assert 2 <= len(given) <= 4, given


def test_budgeted_gives_the_first_batch_however_slow(monkeypatch):
    monkeypatch.setenv(training.FAST_ENV, "1")

    def very_slow():
        for step in range(3):
            time.sleep(training.FAST_SECONDS * 1.2)
            yield step

    assert list(training.budgeted(very_slow())) == [0]


def test_train_is_cut_only_with_course_fast(monkeypatch):
    ids = torch.randint(0, 10, (500,))
    draw = training.window_batches(ids.unfold(0, 3, 1)[:-1], ids[3:], batch_size=8)
    config = training.TrainConfig(steps=60, time_budget_s=None, eval_every=1000, progress=False)
    monkeypatch.delenv(training.FAST_ENV, raising=False)
    full = training.train(FFNNLanguageModel(FFNNConfig(vocab_size=10, context_size=3)), draw, config)
    monkeypatch.setenv(training.FAST_ENV, "1")
    cut = training.train(FFNNLanguageModel(FFNNConfig(vocab_size=10, context_size=3)), draw, config)
    assert len(full.train_steps) == 60
    assert 1 <= len(cut.train_steps) <= training.FAST_STEPS


def test_lecture_pace_changes_nothing_outside_a_lecture(monkeypatch):
    monkeypatch.delenv(training.FAST_ENV, raising=False)
    monkeypatch.setenv(training.PACE_ENV, "")  # restored (removed) after the test
    training.lecture_pace(3)
    assert training.os.environ[training.PACE_ENV] == ""
    assert list(training.budgeted(range(100))) == list(range(100))


def test_lecture_pace_gives_every_training_its_seconds_and_uncaps_the_steps(monkeypatch):
    monkeypatch.setenv(training.FAST_ENV, "1")
    monkeypatch.setenv(training.PACE_ENV, "")
    training.lecture_pace(0.4)
    assert training.fast_limits() == (None, 0.4)
    assert list(training.budgeted(range(100))) == list(range(100))  # quick batches: all of them, past FAST_STEPS

    def slow():
        for step in range(100):
            time.sleep(0.1)
            yield step

    assert 3 <= len(list(training.budgeted(slow()))) <= 6
    ids = torch.randint(0, 10, (500,))
    draw = training.window_batches(ids.unfold(0, 3, 1)[:-1], ids[3:], batch_size=8)
    config = training.TrainConfig(steps=60, time_budget_s=None, eval_every=1000, progress=False)
    paced = training.train(FFNNLanguageModel(FFNNConfig(vocab_size=10, context_size=3)), draw, config)
    assert len(paced.train_steps) == 60  # 60 tiny steps fit in 0.4 s: the lecture's pace does not cut them


def test_a_lecture_pace_lasts_one_cell(monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.setenv(training.FAST_ENV, "1")
    monkeypatch.setenv(training.PACE_ENV, "0.5")  # what a lecture's first cell sets
    shell = InteractiveShell.instance()
    try:
        shell.run_cell("from course_lib.train import fast_limits, lecture_pace\nlecture_pace(2)\nduring = fast_limits()")
        shell.run_cell("after = fast_limits()")
        assert shell.user_ns["during"] == (None, 2.0)
        assert shell.user_ns["after"] == (None, 0.5)  # the next cell: the lecture's moment again
    finally:
        InteractiveShell.clear_instance()
