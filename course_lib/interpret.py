"""Looking inside a trained character model: which units track which property of the text (notebook 04).

Karpathy, Johnson and Fei-Fei (2015), "Visualizing and Understanding Recurrent Networks", found
single LSTM cells that switch on inside quotes or comments, or count along a line. The recipe here
is theirs, made measurable:

1. :func:`source_features`: for every character of Python source, properties we can compute
   exactly: inside a string, inside a comment, the line's indentation, the position in the line.
2. :func:`lstm_cell_states`: the cell state c_t of every LSTM unit at every character.
3. :func:`best_units`: for each property, the unit whose cell state correlates most with it.

``course_lib.viz.coloured_text`` then shows a unit's value as the colour behind each character.
"""
from __future__ import annotations

import numpy as np
import torch

from course_lib.lstm import LSTMLanguageModel, lstm_cell
from course_lib.train import model_device
from course_lib.validation import require_token_ids

__all__ = ["source_features", "lstm_cell_states", "unit_correlations", "best_units"]

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

    Step by step with :func:`course_lib.lstm.lstm_cell`, from a zero state.
    """
    if not isinstance(model, LSTMLanguageModel):
        raise TypeError(f"lstm_cell_states takes an LSTMLanguageModel, got {type(model).__name__}.")
    require_token_ids("ids", ids)
    if ids.dim() != 1:
        raise ValueError(f"ids must be one sequence of token ids (T,), got shape {tuple(ids.shape)}.")
    if not 0 <= layer < model.config.num_layers:
        raise ValueError(f"layer must be in [0, {model.config.num_layers}), got {layer}.")
    x = model.embedding(ids.to(model_device(model)))[:, None]  # (T, 1, E): one sequence, batch of 1
    cells = []
    for l in range(layer + 1):
        params = model.encoder.layers[l][0].params
        h = c = x.new_zeros(1, model.config.hidden_dim)  # (1, H)
        hs = []
        for x_t in x:  # x_t (1, D)
            h, c = lstm_cell(x_t, h, c, *params)
            hs.append(h)
            cells.append(c[0])
        if l < layer:
            x, cells = torch.stack(hs), []  # (T, 1, H): the next layer's input
    return torch.stack(cells).cpu()  # (T, H)


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
