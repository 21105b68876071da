"""One training loop, one evaluation and one sampler for every language model of the course.

The model contract (nanoGPT's): ``logits, loss = model(idx, targets=None)``.

- A window model (the feed-forward LM) takes ``idx`` (B, context) and returns logits (B, V)
  for the one next token; ``targets`` is (B,).
- A sequence model (RNN, LSTM, Transformer) takes ``idx`` (B, T) and returns logits (B, T, V),
  position t predicting token t+1; ``targets`` is (B, T).

Either way ``loss`` is :func:`course_lib.loss.lm_loss` (re-exported here, with ``IGNORE_INDEX``): the
mean cross-entropy in nats over the target tokens, with ``-100`` marking positions that do not
count (padding). Batches are ``(idx, targets)`` pairs of integer tensors; the loop moves them to
the model's device.
"""
from __future__ import annotations

import dataclasses
import math
import os
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import torch
from tqdm.auto import tqdm

from course_lib.loss import IGNORE_INDEX, lm_loss  # re-exported: notebooks import lm_loss from here
from course_lib.validation import require_token_ids

__all__ = ["IGNORE_INDEX", "lm_loss", "TrainConfig", "History", "window_batches", "sequence_batches",
           "iterate_batches", "train", "evaluate", "sample", "model_device", "budgeted", "fast_run",
           "lecture_pace"]

#: ``COURSE_FAST=1`` in the environment: every :func:`train` (and loop over :func:`budgeted`) stops after
#: FAST_STEPS steps or FAST_SECONDS.
#: The test suite sets it where it runs whole notebooks only to see that every cell runs (tests/notebooks,
#: tests/grading/test_offline.py); the default run and ``make benchmark`` train in full, and a lecture sets it and
#: paces each of its training cells (:func:`lecture_pace`).
FAST_ENV, FAST_STEPS, FAST_SECONDS = "COURSE_FAST", 20, 0.5
#: A lecture (lectures/NN_name.ipynb: its first cell sets COURSE_FAST=1) starts each training cell with
#: :func:`lecture_pace`, which puts the seconds every training of that cell may take here; its steps are not cut.
PACE_ENV = "COURSE_FAST_SECONDS"

Batch = tuple[torch.Tensor, torch.Tensor]


def model_device(model: torch.nn.Module) -> torch.device:
    """The device of the model's first parameter (the CPU for a model without parameters)."""
    first = next(model.parameters(), None)
    return first.device if first is not None else torch.device("cpu")


# ---------------------------------------------------------------------------
# batches


def window_batches(contexts: torch.Tensor, targets: torch.Tensor, batch_size: int
                   ) -> Callable[[torch.Generator], Batch]:
    """For window models: a function drawing ``batch_size`` random (context, target) rows.

    contexts (N, context) and targets (N,) are integer tensors.
    """
    require_token_ids("contexts", contexts)
    require_token_ids("targets", targets)
    if contexts.dim() != 2 or targets.shape != contexts.shape[:1] or len(targets) == 0:
        raise ValueError(f"need contexts (N, context) and targets (N,) with N > 0, got {tuple(contexts.shape)} "
                         f"and {tuple(targets.shape)}.")

    def draw(generator: torch.Generator) -> Batch:
        rows = torch.randint(len(targets), (batch_size,), generator=generator)
        return contexts[rows], targets[rows]

    return draw


def sequence_batches(ids: torch.Tensor, block_size: int, batch_size: int) -> Callable[[torch.Generator], Batch]:
    """For sequence models: random blocks of a 1-D id stream, targets shifted by one."""
    require_token_ids("ids", ids)
    if ids.dim() != 1 or len(ids) < block_size + 1:
        raise ValueError(f"need a 1-D stream of at least block_size + 1 = {block_size + 1} ids, "
                         f"got shape {tuple(ids.shape)}.")

    def draw(generator: torch.Generator) -> Batch:
        starts = torch.randint(len(ids) - block_size, (batch_size,), generator=generator)
        offsets = torch.arange(block_size)
        x = ids[starts[:, None] + offsets]  # (B, T)
        y = ids[starts[:, None] + offsets + 1]  # (B, T)
        return x, y

    return draw


def iterate_batches(x: torch.Tensor, y: torch.Tensor, batch_size: int = 1024) -> Iterator[Batch]:
    """Every row of (x, y) once, in order: for evaluation."""
    for start in range(0, len(x), batch_size):
        yield x[start:start + batch_size], y[start:start + batch_size]


# ---------------------------------------------------------------------------
# training


@dataclass
class TrainConfig:
    steps: int = 1000
    lr: float = 3e-3
    weight_decay: float = 0.0
    grad_clip: float | None = 1.0   # max global gradient norm; None: no clipping
    eval_every: int = 100           # steps between validation losses
    time_budget_s: float | None = None  # stop early after this many seconds (benchmarks)
    seed: int = 0
    progress: bool = True           # a tqdm bar


@dataclass
class History:
    """What :func:`train` measured: per-step training loss and periodic validation loss (nats/token)."""

    train_steps: list[int] = field(default_factory=list)
    train_loss: list[float] = field(default_factory=list)
    valid_steps: list[int] = field(default_factory=list)
    valid_loss: list[float] = field(default_factory=list)
    seconds: float = 0.0
    tokens: int = 0

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds else float("nan")

    def __repr__(self) -> str:
        """One line (a cell ending in ``train(...)`` shows this, not every step's loss)."""
        shown = [f"{len(self.train_steps)} steps"]
        if self.train_loss:
            shown.append(f"last training loss {self.train_loss[-1]:.4f}")
        if self.valid_loss:
            shown.append(f"last validation loss {self.valid_loss[-1]:.4f}")
        shown.append(f"{self.seconds:.1f} s")
        return f"History({', '.join(shown)})"

    def plot(self, ax=None, title: str = "training"):
        """Loss curve: the training loss (smoothed) and the validation loss, in nats per token."""
        import matplotlib.pyplot as plt  # plotting is optional for training itself

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.5))
        steps = torch.tensor(self.train_steps, dtype=torch.float64)
        losses = torch.tensor(self.train_loss, dtype=torch.float64)
        ax.plot(steps, losses, color="0.75", lw=0.8, label="train (per step)")
        width = max(1, len(losses) // 50)
        if len(losses) >= width:
            smooth = losses.unfold(0, width, 1).mean(1)
            ax.plot(steps[width - 1:], smooth, color="C0", label=f"train (mean of {width})")
        if self.valid_steps:
            ax.plot(self.valid_steps, self.valid_loss, "o-", color="C1", label="validation")
        ax.set_xlabel("step")
        ax.set_ylabel("loss (nats per token)")
        ax.set_title(title)
        ax.legend()
        return ax


def fast_run() -> bool:
    """True when ``COURSE_FAST=1`` is in the environment: training is cut to a moment."""
    return os.environ.get(FAST_ENV) == "1"


def lecture_pace(seconds: float) -> None:
    """At a lecture's pace (``COURSE_FAST=1``, set by the lecture's first cell): every training of this cell
    stops after ``seconds``, however many steps that is; once the cell has run, trainings are back to the pace
    before it (a lecture's first cell sets 0.5 s; in a script, without IPython's cells, the pace holds until
    changed). Elsewhere (the notebooks, ``COURSE_FAST=0``) nothing changes: the training runs in full."""
    if not fast_run():
        return
    before = os.environ.get(PACE_ENV)
    os.environ[PACE_ENV] = str(seconds)
    from IPython import get_ipython

    shell = get_ipython()
    if shell is not None:
        def end_of_cell(*_):
            if before is None:
                os.environ.pop(PACE_ENV, None)
            else:
                os.environ[PACE_ENV] = before
            shell.events.unregister("post_run_cell", end_of_cell)

        shell.events.register("post_run_cell", end_of_cell)


def fast_limits() -> tuple[int | None, float]:
    """(most steps, most seconds) of one training with ``COURSE_FAST=1``: the tests' FAST_STEPS and
    FAST_SECONDS, or a lecture's seconds (:func:`lecture_pace`) with no cap on the steps."""
    paced = os.environ.get(PACE_ENV)
    return (None, float(paced)) if paced else (FAST_STEPS, FAST_SECONDS)


def shortened(config: TrainConfig) -> TrainConfig:
    """``config`` itself, or with ``COURSE_FAST=1`` cut to :func:`fast_limits`."""
    if not fast_run():
        return config
    steps, seconds = fast_limits()
    budget = min(config.time_budget_s or seconds, seconds)
    if steps is None:
        return dataclasses.replace(config, time_budget_s=budget)
    return dataclasses.replace(config, steps=min(config.steps, steps), time_budget_s=budget,
                               eval_every=min(config.eval_every, steps // 2))


def budgeted(batches: Iterable) -> Iterator:
    """A hand-written training loop's ``batches`` as they come; with ``COURSE_FAST=1`` only as many as
    :func:`fast_limits` allows, none started after its seconds (the first always is)."""
    if not fast_run():
        yield from batches
        return
    steps, seconds = fast_limits()
    start = time.perf_counter()
    for step, batch in enumerate(batches):
        if step == steps or (step and time.perf_counter() - start > seconds):
            return
        yield batch


def train(
    model: torch.nn.Module,
    draw_batch: Callable[[torch.Generator], Batch],
    config: TrainConfig | None = None,
    valid: Callable[[], Iterable[Batch]] | None = None,
    optimizer: torch.optim.Optimizer | None = None,
) -> History:
    """Train ``model`` with AdamW on batches from ``draw_batch(generator)``; returns a :class:`History`.

    ``valid`` returns an iterable of validation batches; it is evaluated every ``eval_every``
    steps and at the end. Batches are moved to the model's device. ``COURSE_FAST=1`` shortens it (:func:`shortened`).
    """
    config = shortened(config or TrainConfig())
    device = model_device(model)
    generator = torch.Generator().manual_seed(config.seed)
    optimizer = optimizer or torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    history = History()
    start = time.perf_counter()
    bar = tqdm(range(1, config.steps + 1), disable=not config.progress, leave=False, mininterval=0.5)
    for step in bar:
        model.train()
        x, y = (t.to(device, non_blocking=True) for t in draw_batch(generator))
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if config.grad_clip is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
        optimizer.step()
        history.train_steps.append(step)
        history.train_loss.append(loss.item())
        history.tokens += int((y != IGNORE_INDEX).sum())
        out_of_time = config.time_budget_s is not None and time.perf_counter() - start > config.time_budget_s
        if valid is not None and (step % config.eval_every == 0 or step == config.steps or out_of_time):
            history.valid_steps.append(step)
            history.valid_loss.append(evaluate(model, valid())["loss"])
            bar.set_postfix(valid_loss=f"{history.valid_loss[-1]:.3f}")
        if out_of_time:
            break
    history.seconds = time.perf_counter() - start
    bar.close()
    model.eval()
    return history


@torch.no_grad()
def evaluate(model: torch.nn.Module, batches: Iterable[Batch]) -> dict[str, float]:
    """Loss over every target token of ``batches``: nats per token, perplexity and bits per token."""
    device = model_device(model)
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    for x, y in batches:
        x, y = x.to(device), y.to(device)
        logits, _ = model(x)
        n = int((y != IGNORE_INDEX).sum())
        if n:
            total += lm_loss(logits, y).item() * n
            count += n
    model.train(was_training)
    if count == 0:
        raise ValueError("evaluate got no target tokens: the validation batches are empty.")
    loss = total / count
    return {"loss": loss, "perplexity": math.exp(loss), "bits_per_token": loss / math.log(2), "tokens": count}


@torch.no_grad()
def sample(
    model: torch.nn.Module,
    prompt: torch.Tensor,
    max_new_tokens: int,
    context_size: int | None = None,
    temperature: float = 1.0,
    top_k: int | None = None,
    stop_id: int | None = None,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Extend ``prompt`` (B, T) token by token; returns (B, T + new).

    ``context_size``: the model sees only the last this many tokens (a window model's
    context, a Transformer's block size); None: the whole sequence. Stops early when
    every row has produced ``stop_id``.
    """
    require_token_ids("prompt", prompt)
    if prompt.dim() != 2:
        raise ValueError(f"prompt must be (batch, length) token ids, got shape {tuple(prompt.shape)}.")
    if temperature <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}.")
    was_training = model.training
    model.eval()
    idx = prompt.to(model_device(model))
    done = torch.zeros(len(idx), dtype=torch.bool, device=idx.device)
    for _ in range(max_new_tokens):
        window = idx if context_size is None else idx[:, -context_size:]
        logits, _ = model(window)
        logits = logits[:, -1, :] if logits.dim() == 3 else logits  # (B, V): the next token
        logits = logits / temperature
        if top_k is not None:
            kth = torch.topk(logits, min(top_k, logits.shape[-1])).values[:, -1:]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        probs = torch.softmax(logits.float(), dim=-1)
        gen = generator if generator is not None and generator.device == probs.device else None
        nxt = torch.multinomial(probs, 1, generator=gen)  # (B, 1)
        if stop_id is not None:
            nxt = nxt.masked_fill(done[:, None], stop_id)
            done |= nxt[:, 0] == stop_id
        idx = torch.cat([idx, nxt], dim=1)
        if stop_id is not None and bool(done.all()):
            break
    model.train(was_training)
    return idx
