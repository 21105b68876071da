"""Looking inside a trained character model: which units track which property of the text (notebook 04).

Karpathy, Johnson and Fei-Fei (2015), "Visualizing and Understanding Recurrent Networks", found
single LSTM cells that switch on inside quotes or comments, or count along a line. The recipe here
is theirs, made measurable:

1. :func:`source_features`: for every character of Python source, properties we can compute
   exactly: inside a string, inside a comment, the line's indentation, the position in the line.
2. :func:`lstm_cell_states`: the cell state c_t of every LSTM unit at every character.
3. :func:`best_units`: for each property, the unit whose cell state correlates most with it.

``course_lib.viz.coloured_text`` then shows a unit's value as the colour behind each character.

:func:`load_char_lstm` loads the course's character LSTM, trained for a few minutes by
``benchmarks/train_char_lstm.py`` on the same corpus as notebook 04 and shipped with the package.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from course_lib.lstm import LSTMConfig, LSTMLanguageModel
from course_lib.train import model_device
from course_lib.validation import require_token_ids
from course_lib.weights import read_checkpoint

__all__ = ["source_features", "lstm_cell_states", "unit_correlations", "best_units", "probe_r2",
           "CHAR_LSTM_PATH", "STACKED_CHAR_LSTM_PATH", "BILM_FORWARD_PATH",
           "BILM_BACKWARD_PATH", "load_char_lstm", "save_char_lstm"]

CHAR_LSTM_PATH = Path(__file__).resolve().parent / "assets" / "char_lstm.pt"  # one layer, trained for minutes
STACKED_CHAR_LSTM_PATH = CHAR_LSTM_PATH.with_name("char_lstm_stacked.pt")  # three layers, about a minute
#: ELMo's biLM in miniature (``benchmarks/train_bilm.py``): a forward and a backward character LM, two layers each
BILM_FORWARD_PATH = CHAR_LSTM_PATH.with_name("char_bilm_forward.pt")
BILM_BACKWARD_PATH = CHAR_LSTM_PATH.with_name("char_bilm_backward.pt")

_TRIPLE_QUOTES = ('"""', "'''")


def source_features(text: str) -> dict[str, np.ndarray]:
    """Per-character properties of Python source, each a float array of len(text).

    - ``"inside a string"``: 1 on the quotes and everything between them (single, double, triple
      quotes; a backslash escapes the next character; a one-line string ends at the line's end);
    - ``"inside a comment"``: 1 from ``#`` (outside strings) to the end of the line;
    - ``"indentation"``: the number of leading spaces of the character's line;
    - ``"position in line"``: how many characters precede it on its line.

    A small scanner, not Python's tokenizer: it copes with text cut in the middle of a file.
    """
    if not isinstance(text, str):
        raise TypeError(f"source_features takes a string of source code, got {type(text).__name__}.")
    n = len(text)
    in_string, in_comment = np.zeros(n), np.zeros(n)
    state = None  # None: code; "#": a comment; otherwise the quote that opened the current string
    i = 0
    while i < n:
        ch = text[i]
        if state is None:
            if ch == "#":
                state, in_comment[i] = "#", 1
            elif ch in "\"'":
                state = text[i:i + 3] if text[i:i + 3] in _TRIPLE_QUOTES else ch
                in_string[i:i + len(state)] = 1
                i += len(state)
                continue
        elif state == "#":
            if ch == "\n":
                state = None
            else:
                in_comment[i] = 1
        else:  # inside a string opened by `state`
            in_string[i] = 1
            if ch == "\\":
                in_string[i:i + 2] = 1
                i += 2
                continue
            if text.startswith(state, i):
                in_string[i:i + len(state)] = 1
                i += len(state)
                state = None
                continue
            if ch == "\n" and len(state) == 1:  # an unclosed one-line string: Python would stop here too
                state = None
        i += 1
    indentation, position = np.zeros(n + 1), np.zeros(n + 1)  # one spare slot: the last line may lack its \n
    start = 0
    for line in text.split("\n"):
        end = start + len(line)
        indentation[start:end + 1] = len(line) - len(line.lstrip(" "))
        position[start:end + 1] = np.arange(end + 1 - start)
        start = end + 1
    return {"inside a string": in_string, "inside a comment": in_comment,
            "indentation": indentation[:n], "position in line": position[:n]}


@torch.no_grad()
def lstm_cell_states(model: LSTMLanguageModel, ids: torch.Tensor, layer: int = 0) -> torch.Tensor:
    """The cell state c_t (T, H) of one layer of ``model`` while it reads ``ids`` (T,) left to right.

    From a zero state. The hidden states h_t come from PyTorch's fused kernel; given them, every step's
    gates follow at once (:func:`course_lib.lstm.lstm_cell`'s arithmetic), and the cell's recursion
    c_t = f_t * c_{t-1} + i_t * g_t is run step by step.
    """
    if not isinstance(model, LSTMLanguageModel):
        raise TypeError(f"lstm_cell_states takes an LSTMLanguageModel, got {type(model).__name__}.")
    require_token_ids("ids", ids)
    if ids.dim() != 1:
        raise ValueError(f"ids must be one sequence of token ids (T,), got shape {tuple(ids.shape)}.")
    if not 0 <= layer < model.config.num_layers:
        raise ValueError(f"layer must be in [0, {model.config.num_layers}), got {layer}.")
    x = model.embedding(ids.to(model_device(model)))  # (T, E)
    for l in range(layer):  # the layers below: only their outputs are needed
        x = model.encoder.layers[l][0](x[None])[0][0]  # (T, H): the next layer's input
    lstm = model.encoder.layers[layer][0]
    W_ih, W_hh, b_ih, b_hh = lstm.params
    hs = lstm(x[None])[0][0]  # (T, H): h_t from PyTorch's fused kernel
    h_prev = torch.cat([hs.new_zeros(1, hs.shape[1]), hs[:-1]])  # (T, H): h_{t-1}, zeros before the first step
    a = x @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh  # (T, 4H): every step's gates at once, given h_{t-1}
    a_i, a_f, a_g, a_o = a.chunk(4, dim=-1)  # (T, H) each, order i, f, g, o (lstm_cell's arithmetic)
    f, written = torch.sigmoid(a_f), torch.sigmoid(a_i) * torch.tanh(a_g)  # forget gate; i * g
    cells = torch.empty_like(f)
    c = f.new_zeros(f.shape[1])
    for t in range(len(f)):  # only the cell's own recursion is left to do step by step
        c = torch.addcmul(written[t], f[t], c)  # c_t = f_t * c_{t-1} + i_t * g_t
        cells[t] = c
    return cells.cpu()  # (T, H)


def unit_correlations(states: torch.Tensor | np.ndarray, feature: np.ndarray) -> np.ndarray:
    """Pearson correlation of every unit (column of ``states`` (T, H)) with ``feature`` (T,): (H,)."""
    s = np.asarray(states, dtype=np.float64)
    f = np.asarray(feature, dtype=np.float64)
    if s.ndim != 2 or f.shape != (s.shape[0],):
        raise ValueError(f"states must be (T, H) and feature (T,), got {s.shape} and {f.shape}.")
    s = s - s.mean(0)
    f = f - f.mean()
    denominator = np.sqrt((s ** 2).sum(0) * (f ** 2).sum())
    return np.divide(s.T @ f, denominator, out=np.zeros(s.shape[1]), where=denominator > 0)


def best_units(states: torch.Tensor | np.ndarray, features: dict[str, np.ndarray]) -> dict[str, tuple[int, float]]:
    """For each feature, (unit, correlation) of the unit whose state correlates most with it (by |r|)."""
    found = {}
    for name, feature in features.items():
        r = unit_correlations(states, feature)
        unit = int(np.abs(r).argmax())
        found[name] = (unit, float(r[unit]))
    return found


def probe_r2(states: torch.Tensor | np.ndarray, feature: np.ndarray, ridge: float = 1e-2, block: int = 200) -> float:
    """How much of ``feature`` a linear readout of all units explains, on characters it was not fit on.

    A ridge regression from ``states`` (T, H) to ``feature`` (T,), fit on alternate blocks of
    ``block`` characters and scored on the blocks in between: R^2 = 1 - residual variance / variance
    (1: read off exactly; 0: no better than the mean; below 0: worse).
    """
    s = np.asarray(states, dtype=np.float64)
    f = np.asarray(feature, dtype=np.float64)
    if s.ndim != 2 or f.shape != (s.shape[0],) or s.shape[0] < 2 * block:
        raise ValueError(f"states must be (T, H) and feature (T,) with T >= 2 * block = {2 * block}, "
                         f"got {s.shape} and {f.shape}.")
    fit = (np.arange(len(s)) // block) % 2 == 0  # (T,): True on even blocks
    mean, scale = s[fit].mean(0), s[fit].std(0) + 1e-8
    X = np.hstack([(s - mean) / scale, np.ones((len(s), 1))])  # (T, H + 1): standardised units and a bias
    A = X[fit].T @ X[fit] + ridge * fit.sum() * np.eye(X.shape[1])
    w = np.linalg.solve(A, X[fit].T @ f[fit])  # (H + 1,)
    test = ~fit
    residual = f[test] - X[test] @ w
    variance = ((f[test] - f[test].mean()) ** 2).sum()
    return float(1 - (residual ** 2).sum() / variance) if variance > 0 else float("nan")


def save_char_lstm(model: LSTMLanguageModel, itos: list[str], path: str | Path = CHAR_LSTM_PATH,
                   info: dict | None = None) -> Path:
    """Write ``model`` (float32 weights), its character vocabulary ``itos`` and ``info`` to ``path``."""
    if not isinstance(model, LSTMLanguageModel) or len(itos) != model.config.vocab_size:
        raise ValueError("save_char_lstm takes an LSTMLanguageModel and its vocabulary (one character per id).")
    c = model.config
    config = {"vocab_size": c.vocab_size, "embed_dim": c.embed_dim, "hidden_dim": c.hidden_dim,
              "num_layers": c.num_layers}
    state = {name: t.detach().float().cpu().contiguous() for name, t in model.state_dict().items()}
    path = Path(path)
    torch.save({"config": config, "itos": "".join(itos), "state_dict": state, "info": dict(info or {})}, path)
    return path


def load_char_lstm(path: str | Path = CHAR_LSTM_PATH) -> tuple[LSTMLanguageModel, list[str], dict]:
    """(the course's trained character LSTM in eval mode, its vocabulary itos, what its training measured).

    Written by ``benchmarks/train_char_lstm.py``; reads only the local file (no download).
    """
    checkpoint = read_checkpoint(path, "character LSTM", "python benchmarks/train_char_lstm.py")
    model = LSTMLanguageModel(LSTMConfig(**checkpoint["config"]))
    model.load_state_dict(checkpoint["state_dict"])
    return model.eval(), list(checkpoint["itos"]), dict(checkpoint.get("info", {}))
