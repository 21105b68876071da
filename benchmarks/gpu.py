"""The GPU lane: the training demos' speed-up over the CPU, and the course's Transformer against PyTorch's.

    python benchmarks/gpu.py [--device cuda] [--seconds 3] [--cpu-threads N]
    python benchmarks/run.py --gpu-only        # the same, inside the benchmark table

- :func:`training_speedups`: each neural model of the character-model comparison
  (``course_lib.compare``: FFNN, RNN, LSTM, Transformer, built by its ``build_model`` from
  ``CompareConfig``'s settings) trained with the course's own loop (``course_lib.train.train``:
  AdamW, gradient clipping, a batch drawn on the CPU and moved to the device, ``loss.item()`` every
  step) for a few seconds on the CPU and on ``device``; steps/s on each and the ratio. At the
  notebooks' batch sizes and, labelled, at a larger batch (``batch_scales``). Goal: 10x.
- :func:`transformer_tokens_per_second`: ``course_lib.transformer.TransformerLM`` against an LM of
  the same size built from PyTorch's modules (:class:`TorchTransformerLM`: ``nn.Embedding`` + the
  same positions + ``nn.TransformerEncoder`` with a causal mask + ``nn.Linear``), the same parameter
  count (checked), on one device: training tokens/s (forward, loss, backward, AdamW step) and
  inference tokens/s (a forward pass without gradients over full blocks), and course / PyTorch.
- :func:`markdown_rows`: both as Markdown tables that name the device.

Timing: warm-up steps first, then as many steps as fit in ``seconds`` (at most ``max_steps``),
with ``torch.cuda.synchronize()`` before starting and before stopping the clock on CUDA. The
models see random token ids: speed does not depend on what the characters are.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable, Sequence

import torch
from torch import nn

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # `python benchmarks/gpu.py` from a checkout without `pip install -e .`
    sys.path.insert(0, str(REPO))

from course_lib.compare import CompareConfig, ModelSettings, build_model  # noqa: E402
from course_lib.device import torch_threads  # noqa: E402
from course_lib.train import TrainConfig, lm_loss, sequence_batches, train, window_batches  # noqa: E402
from course_lib.transformer import TransformerConfig, TransformerLM, positional_encoding  # noqa: E402

__all__ = ["VOCAB_SIZE", "SPEEDUP_GOAL", "TRAINING_MODELS", "device_name", "training_speedups",
           "TorchTransformerLM", "transformer_tokens_per_second", "markdown_rows", "main"]

#: the characters of notebook 04's corpus (the vocabulary of ``compare_char_models``' models)
VOCAB_SIZE = 96
SPEEDUP_GOAL = 10.0
TRAINING_MODELS = ("FFNN", "RNN", "LSTM", "Transformer")


def device_name(device: torch.device | str) -> str:
    """What the tables call the device: the GPU's name (``torch.cuda.get_device_name``), else its type."""
    device = torch.device(device)
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return device.type


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _rate(step: Callable[[], object], device: torch.device, seconds: float, warmup: int, max_steps: int
          ) -> tuple[int, float]:
    """(steps, wall seconds) of calling ``step()``: ``warmup`` calls first, then until ``seconds`` or ``max_steps``."""
    for _ in range(warmup):
        step()
    _synchronize(device)
    start = time.perf_counter()
    steps = 0
    while steps < max_steps and (steps == 0 or time.perf_counter() - start < seconds):
        step()
        steps += 1
    _synchronize(device)
    return steps, time.perf_counter() - start


# ---------------------------------------------------------------------------
# the training demos: steps/s on the CPU and on the device


def _demo_steps_per_second(name: str, settings: ModelSettings, device: torch.device, seconds: float, warmup: int,
                           max_steps: int, vocab_size: int, seed: int) -> tuple[float, int, int]:
    """(steps/s, steps, parameters) of the course's training loop for one model of the comparison on ``device``."""
    torch.manual_seed(seed)
    model = build_model(name, settings, vocab_size).to(device)
    ids = torch.randint(vocab_size, (50_000,), generator=torch.Generator().manual_seed(seed))
    if name == "FFNN":
        draw = window_batches(ids.unfold(0, settings.context, 1)[:-1], ids[settings.context:], settings.batch_size)
    else:
        draw = sequence_batches(ids, settings.context, settings.batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.lr)  # shared by warm-up and timed steps
    if warmup:
        train(model, draw, TrainConfig(steps=warmup, lr=settings.lr, seed=seed, progress=False), optimizer=optimizer)
    _synchronize(device)
    start = time.perf_counter()
    history = train(model, draw, TrainConfig(steps=max_steps, lr=settings.lr, time_budget_s=seconds, seed=seed + 1,
                                             progress=False), optimizer=optimizer)
    _synchronize(device)
    wall = time.perf_counter() - start
    steps = len(history.train_steps)
    return steps / wall, steps, sum(p.numel() for p in model.parameters())


def training_speedups(device: torch.device | str, seconds: float = 3.0, *, models: Iterable[str] = TRAINING_MODELS,
                      batch_scales: Sequence[int] = (1, 8), warmup: int = 5, max_steps: int = 10 ** 6,
                      cpu_threads: int | None = None, config: CompareConfig | None = None,
                      vocab_size: int = VOCAB_SIZE, seed: int = 0) -> list[dict]:
    """Steps/s of the training demos' models on the CPU and on ``device``, and the ratio (goal: 10x).

    ``models``: some of FFNN, RNN, LSTM, Transformer, built as ``course_lib.compare`` builds them
    from ``config`` (default ``CompareConfig()``: the notebooks' sizes, batches and block lengths).
    ``batch_scales``: 1 is the notebooks' batch; 8 (say) a batch 8 times larger, labelled as such.
    Each measurement: ``warmup`` steps, then ``seconds`` of steps (at most ``max_steps``) of
    ``course_lib.train.train``. ``cpu_threads``: torch's CPU threads for the CPU side, and for
    ``device`` when it is the CPU too (None: torch's choice). One dict per (model, batch),
    JSON-ready; ``speedup`` is device steps/s over CPU steps/s.
    """
    device = torch.device(device)
    config = config or CompareConfig()
    cpu = torch.device("cpu")
    rows = []
    for name in models:
        if name not in TRAINING_MODELS:
            raise ValueError(f"models must be some of {', '.join(TRAINING_MODELS)}, got {name!r}.")
        base = config.settings(name)
        for scale in batch_scales:
            if not isinstance(scale, int) or scale < 1:
                raise ValueError(f"batch_scales must be positive integers, got {scale!r}.")
            settings = replace(base, batch_size=base.batch_size * scale)
            with torch_threads(cpu_threads):
                threads = torch.get_num_threads()
                cpu_rate, cpu_steps, parameters = _demo_steps_per_second(name, settings, cpu, seconds, warmup,
                                                                         max_steps, vocab_size, seed)
            with torch_threads(cpu_threads if device.type == "cpu" else None):
                dev_rate, dev_steps, _ = _demo_steps_per_second(name, settings, device, seconds, warmup, max_steps,
                                                                vocab_size, seed)
            shape = f"{settings.batch_size} x {settings.context}" if name != "FFNN" else \
                f"{settings.batch_size} windows of {settings.context}"
            speedup = dev_rate / cpu_rate
            rows.append({"model": name, "batch": settings.batch_size, "context": settings.context,
                         "setting": f"batch {shape}"
                                    + (" (notebooks)" if scale == 1 else f" ({scale}x the notebooks')"),
                         "batch_scale": scale, "parameters": parameters, "cpu_threads": threads,
                         "device": device_name(device), "cpu_steps": cpu_steps, "device_steps": dev_steps,
                         "cpu_steps_per_s": cpu_rate, "device_steps_per_s": dev_rate, "speedup": speedup,
                         "goal": SPEEDUP_GOAL, "ok": speedup >= SPEEDUP_GOAL})
    return rows


# ---------------------------------------------------------------------------
# the course's TransformerLM against the same LM from PyTorch's modules


class TorchTransformerLM(nn.Module):
    """:class:`TransformerLM`'s architecture from PyTorch's modules, under the same call,
    ``logits, loss = model(idx, targets)``.

    nn.Embedding for tokens + the same positions (sinusoidal buffer, or a learned nn.Embedding) ->
    nn.TransformerEncoder of ``num_layers`` nn.TransformerEncoderLayer (batch first, the config's
    norm_first, activation, d_ff and dropout) with a causal mask -> the final LayerNorm of a
    pre-norm model (the encoder's ``norm``) -> nn.Linear head. The same parameters, one for one.
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.config = config
        self.token_embedding = nn.Embedding(config.vocab_size, config.d_model)
        if config.positional == "learned":
            self.position_embedding = nn.Embedding(config.block_size, config.d_model)
        else:
            self.register_buffer("positions", positional_encoding(config.block_size, config.d_model), persistent=False)
            self.position_embedding = None
        self.dropout = nn.Dropout(config.dropout)
        layer = nn.TransformerEncoderLayer(config.d_model, config.num_heads, config.d_ff, config.dropout,
                                           activation=config.activation, batch_first=True,
                                           norm_first=config.norm_first)
        self.encoder = nn.TransformerEncoder(layer, config.num_layers,
                                             norm=nn.LayerNorm(config.d_model) if config.norm_first else None,
                                             enable_nested_tensor=False)
        self.head = nn.Linear(config.d_model, config.vocab_size)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None):
        length = idx.shape[1]
        if self.position_embedding is None:
            positions = self.positions[:length]
        else:
            positions = self.position_embedding(torch.arange(length, device=idx.device))
        x = self.dropout(self.token_embedding(idx) + positions)  # (B, T, d_model)
        mask = nn.Transformer.generate_square_subsequent_mask(length, device=idx.device, dtype=x.dtype)  # -inf above
        logits = self.head(self.encoder(x, mask=mask, is_causal=True))  # (B, T, V)
        return logits, None if targets is None else lm_loss(logits, targets)


def _steps(model: nn.Module, x: torch.Tensor, y: torch.Tensor, lr: float) -> tuple[Callable, Callable]:
    """(one training step, one inference step) of ``model`` on the batch (x, y), already on the model's device."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)

    def train_step():
        model.train()
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    def infer_step():
        model.eval()
        with torch.no_grad():
            model(x)

    return train_step, infer_step


def transformer_tokens_per_second(device: torch.device | str, seconds: float = 2.0, *,
                                  batch_sizes: Sequence[int] = (32, 256), rounds: int = 2, warmup: int = 3,
                                  max_steps: int = 10 ** 6, cpu_threads: int | None = None,
                                  config: TransformerConfig | None = None, lr: float = 1e-2,
                                  seed: int = 0) -> list[dict]:
    """The course's TransformerLM against :class:`TorchTransformerLM` on ``device``: tokens/s, training and inference.

    ``config``: default the Transformer of ``CompareConfig()`` (the notebooks': d_model 64, 4 heads,
    3 layers, d_ff 256, blocks of 64 characters, 96 characters). Both models are built with the
    same seed and have the same parameter count (an AssertionError otherwise). Each batch of
    ``batch_sizes`` is full blocks of ``block_size`` random ids. Each of the four rates (course and
    PyTorch, training and inference) is the best of ``rounds`` measurements of ``seconds / rounds``
    (after ``warmup`` steps), the two models taking turns, so that a busy machine slows both alike.
    One dict per batch size; ``train_ratio`` and ``infer_ratio`` are the course's tokens/s over PyTorch's.
    """
    device = torch.device(device)
    if config is None:
        settings = CompareConfig().transformer
        config = TransformerConfig(vocab_size=VOCAB_SIZE, block_size=settings.context, **settings.sizes)
        lr = settings.lr
    rows = []
    with torch_threads(cpu_threads if device.type == "cpu" else None):
        threads = torch.get_num_threads()
        torch.manual_seed(seed)
        course = TransformerLM(config).to(device)
        torch.manual_seed(seed)
        pytorch = TorchTransformerLM(config).to(device)
        parameters = sum(p.numel() for p in course.parameters())
        torch_parameters = sum(p.numel() for p in pytorch.parameters())
        assert parameters == torch_parameters, \
            f"the course's TransformerLM has {parameters:,} parameters but the PyTorch one {torch_parameters:,}"
        for batch in batch_sizes:
            generator = torch.Generator().manual_seed(seed)
            x = torch.randint(config.vocab_size, (batch, config.block_size), generator=generator).to(device)
            y = torch.randint(config.vocab_size, (batch, config.block_size), generator=generator).to(device)
            steps = {"course": _steps(course, x, y, lr), "torch": _steps(pytorch, x, y, lr)}
            best = {(who, kind): 0.0 for who in steps for kind in (0, 1)}  # kind 0: training, 1: inference
            for round_ in range(rounds):
                for kind in (0, 1):
                    for who in (("course", "torch") if round_ % 2 == 0 else ("torch", "course")):
                        n, wall = _rate(steps[who][kind], device, seconds / rounds, warmup if round_ == 0 else 1,
                                        max_steps)
                        best[who, kind] = max(best[who, kind], n * x.numel() / wall)
            course_train, course_infer = best["course", 0], best["course", 1]
            torch_train, torch_infer = best["torch", 0], best["torch", 1]
            rows.append({"device": device_name(device), "threads": threads if device.type == "cpu" else None,
                         "batch": batch, "block": config.block_size, "tokens_per_step": batch * config.block_size,
                         "parameters": parameters, "torch_parameters": torch_parameters,
                         "course_train_tokens_per_s": course_train, "torch_train_tokens_per_s": torch_train,
                         "train_ratio": course_train / torch_train,
                         "course_infer_tokens_per_s": course_infer, "torch_infer_tokens_per_s": torch_infer,
                         "infer_ratio": course_infer / torch_infer})
    return rows


# ---------------------------------------------------------------------------
# Markdown


def markdown_rows(speedups: Sequence[dict] = (), tokens: Sequence[dict] = ()) -> list[str]:
    """Markdown lines: a table of training speed-ups and one of Transformer tokens/s, each naming the device."""
    lines: list[str] = []
    if speedups:
        lines += ["Training demos (the models and batches of `course_lib.compare`, trained by "
                  "`course_lib.train.train`): "
                  f"steps/s on the CPU and on the device; goal: a speed-up of {SPEEDUP_GOAL:g}x:", "",
                  "| model | setting | parameters | device | CPU steps/s (threads) | device steps/s | speed-up "
                  "| goal met |",
                  "|---|---|---:|---|---:|---:|---:|---|"]
        lines += [f"| {r['model']} | {r['setting']} | {r['parameters']:,} | {r['device']} | "
                  f"{r['cpu_steps_per_s']:,.1f} ({r['cpu_threads']}) | {r['device_steps_per_s']:,.1f} | "
                  f"{r['speedup']:.1f}x | {'yes' if r['ok'] else 'NO'} |" for r in speedups]
    if tokens:
        if lines:
            lines.append("")
        lines += ["Transformer LM, the course's (`course_lib.transformer.TransformerLM`) against the same LM from "
                  "PyTorch's modules (`nn.TransformerEncoder`, causal mask), tokens/s:", "",
                  "| device | batch x block | parameters (each) | training: course | training: PyTorch "
                  "| course / PyTorch | inference: course | inference: PyTorch | course / PyTorch |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        for r in tokens:
            where = r["device"] + (f" ({r['threads']} threads)" if r.get("threads") else "")
            lines.append(f"| {where} | {r['batch']} x {r['block']} | {r['parameters']:,} | "
                         f"{r['course_train_tokens_per_s']:,.0f} | {r['torch_train_tokens_per_s']:,.0f} | "
                         f"{r['train_ratio']:.2f} | {r['course_infer_tokens_per_s']:,.0f} | "
                         f"{r['torch_infer_tokens_per_s']:,.0f} | {r['infer_ratio']:.2f} |")
    return lines


def _rounded(rows: Sequence[dict]) -> list[dict]:
    """Rows for JSON: rates to 4 significant figures."""
    def r(v):
        return float(f"{v:.4g}") if isinstance(v, float) and math.isfinite(v) else v
    return [{k: r(v) for k, v in row.items()} for row in rows]


def gpu_section(device: torch.device | str | None = None, seconds: float = 3.0, cpu_threads: int | None = None
                ) -> tuple[list[str], dict]:
    """What ``benchmarks/run.py`` adds: (Markdown lines, JSON-ready dict).

    With a CUDA device (``device``, default ``cuda`` when torch sees one): the training speed-ups and
    the tokens/s comparison on it (batches of 32 and 256), and the CPU's tokens/s for reference.
    Without one: "GPU benchmarks: skipped: no CUDA." and the tokens/s comparison on the CPU alone
    (the notebooks' batch of 32, about 10 s), on ``cpu_threads`` threads, default one (as the
    character-model comparison: steadier on a machine shared with other jobs). ``cpu_threads``
    None with a GPU: torch's choice, all the cores, for a fair speed-up.
    """
    if device is None and torch.cuda.is_available():
        device = "cuda"
    if device is None:
        tokens = transformer_tokens_per_second("cpu", seconds=min(seconds, 2.0), batch_sizes=(32,),
                                               cpu_threads=1 if cpu_threads is None else cpu_threads)
        lines = ["GPU benchmarks: skipped: no CUDA.", ""] + markdown_rows(tokens=tokens)
        return lines, {"device": None, "skipped": "no CUDA", "speedups": [], "tokens_per_s": _rounded(tokens)}
    device = torch.device(device)
    speedups = training_speedups(device, seconds, cpu_threads=cpu_threads)
    tokens = transformer_tokens_per_second(device, seconds, cpu_threads=cpu_threads)
    if device.type != "cpu":
        tokens += transformer_tokens_per_second("cpu", seconds, cpu_threads=cpu_threads)
    lines = [f"GPU benchmarks on {device_name(device)} ({device}), torch {torch.__version__}:", ""]
    lines += markdown_rows(speedups, tokens)
    return lines, {"device": device_name(device), "torch_device": str(device), "speedups": _rounded(speedups),
                   "tokens_per_s": _rounded(tokens)}


def main(argv: Sequence[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default=None,
                        help="the device to compare with the CPU (default: cuda when torch sees one; "
                             "without it only the CPU's tokens/s comparison runs)")
    parser.add_argument("--seconds", type=float, default=3.0, help="timed seconds per measurement (after warm-up)")
    parser.add_argument("--cpu-threads", type=int, default=None,
                        help="torch CPU threads (default: torch's choice beside a GPU, one without)")
    args = parser.parse_args(argv)
    lines, result = gpu_section(args.device, args.seconds, args.cpu_threads)
    print("\n".join(lines))
    return result


if __name__ == "__main__":
    main()
