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

__all__ = ["REGIONS", "code_regions", "source_features",
           "lstm_cell_states", "unit_correlations", "best_units", "probe_r2",
           "CHAR_LSTM_PATH", "STACKED_CHAR_LSTM_PATH", "BILM_FORWARD_PATH",
           "BILM_BACKWARD_PATH", "load_char_lstm", "save_char_lstm"]

CHAR_LSTM_PATH = Path(__file__).resolve().parent / "assets" / "char_lstm.pt"  # one layer, trained for minutes
STACKED_CHAR_LSTM_PATH = CHAR_LSTM_PATH.with_name("char_lstm_stacked.pt")  # three layers, about a minute
#: ELMo's biLM in miniature (``benchmarks/train_bilm.py``): a forward and a backward character LM, two layers each
BILM_FORWARD_PATH = CHAR_LSTM_PATH.with_name("char_bilm_forward.pt")
BILM_BACKWARD_PATH = CHAR_LSTM_PATH.with_name("char_bilm_backward.pt")

_TRIPLE_QUOTES = ('"""', "'''")


#: what :func:`code_regions` calls each character
REGIONS = ("code", "one-line string", "triple-quoted string", "comment")


def code_regions(text: str) -> np.ndarray:
    """Where each character of Python source stands, as an int array of len(text): an index into :data:`REGIONS`
    (code; a string in single or double quotes on one line; a triple-quoted string, docstrings included; a
    comment from ``#`` to the end of its line). Quotes belong to their string; a backslash escapes the next
    character; an unclosed one-line string ends at its line's end. A small scanner, not Python's tokenizer: it
    copes with text cut in the middle of a file."""
    if not isinstance(text, str):
        raise TypeError(f"code_regions takes a string of source code, got {type(text).__name__}.")
    n = len(text)
    region = np.zeros(n, dtype=np.int64)
    state = None  # None: code; "#": a comment; otherwise the quote that opened the current string
    i = 0
    while i < n:
        ch = text[i]
        if state is None:
            if ch == "#":
                state, region[i] = "#", 3
            elif ch in "\"'":
                state = text[i:i + 3] if text[i:i + 3] in _TRIPLE_QUOTES else ch
                kind = 2 if len(state) == 3 else 1
                region[i:i + len(state)] = kind
                i += len(state)
                continue
        elif state == "#":
            if ch == "\n":
                state = None
            else:
                region[i] = 3
        else:  # inside a string opened by `state`
            region[i] = kind
            if ch == "\\":
                region[i:i + 2] = kind
                i += 2
                continue
            if text.startswith(state, i):
                region[i:i + len(state)] = kind
                i += len(state)
                state = None
                continue
            if ch == "\n" and len(state) == 1:  # an unclosed one-line string: Python would stop here too
                state = None
        i += 1
    return region


def source_features(text: str) -> dict[str, np.ndarray]:
    """Per-character properties of Python source, each a float array of len(text).

    - ``"inside a string"``: 1 on the quotes and everything between them (single, double, triple
      quotes; a backslash escapes the next character; a one-line string ends at the line's end);
    - ``"inside a comment"``: 1 from ``#`` (outside strings) to the end of the line;
    - ``"indentation"``: the number of leading spaces of the character's line;
    - ``"position in line"``: how many characters precede it on its line.

    The first two come from :func:`code_regions`.
    """
    if not isinstance(text, str):
        raise TypeError(f"source_features takes a string of source code, got {type(text).__name__}.")
    n = len(text)
    region = code_regions(text)
    in_string, in_comment = np.isin(region, (1, 2)).astype(float), (region == 3).astype(float)
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


def region_profile(values: torch.Tensor | np.ndarray, regions: np.ndarray) -> dict[str, float]:
    """A unit's mean value in each of :data:`REGIONS`, in standard deviations from its mean over all characters
    (``values`` (T,), ``regions`` (T,) from :func:`code_regions`); a region with no character is left out."""
    v = np.asarray(values, dtype=np.float64)
    z = (v - v.mean()) / (v.std() + 1e-12)
    return {name: float(z[regions == k].mean()) for k, name in enumerate(REGIONS) if (regions == k).any()}


def _listed(items: list[str]) -> str:
    return "nothing" if not items else items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def cell_findings(abs_r: dict[str, dict[str, float]], r2: dict[str, dict[str, float]],
                  string_unit: tuple[int, float, dict[str, float]] | None = None) -> list[str]:
    """Sentences that say what the interpretable-cells table shows, computed from it so that they cannot drift.

    ``abs_r[kind][property]``: the best single unit's |r|; ``r2[kind][property]``: the linear readout's R^2; kinds
    ``"shipped"`` (trained longer), ``"yours"`` and ``"untrained"``. ``string_unit``: (unit, r, its
    :func:`region_profile`) of the shipped model's best "inside a string" unit.
    """
    names = list(r2["shipped"])
    n = len(names)

    def pairs(table, a, b, pick):
        return [f"{p} {table[a][p]:.2f} → {table[b][p]:.2f}" for p in names if pick(table[a][p], table[b][p])]

    trained = {kind: [p for p in names if r2[kind][p] > r2["untrained"][p]] for kind in ("yours", "shipped")}
    sentences = [f"Against the untrained control, the linear readout's R² is higher on {len(trained['yours'])} of {n} "
                 f"properties for your model and on {len(trained['shipped'])} of {n} for the shipped one"
                 + (": training puts these properties, which help predict the next character, into the state."
                    if all(len(t) == n for t in trained.values()) else ".")]
    rose, fell = pairs(r2, "yours", "shipped", lambda a, b: b > a), pairs(r2, "yours", "shipped", lambda a, b: b < a)
    sentences.append(f"Longer training (yours → shipped) raised the R² on {len(rose)} of {n} properties "
                     f"({_listed(rose)}) and lowered it on {len(fell)} ({_listed(fell)}): a model that predicts "
                     "better does not have to keep every property more linearly readable.")
    deltas = {p: abs_r["shipped"][p] - abs_r["yours"][p] for p in names}
    up = [f"{p} {abs_r['yours'][p]:.2f} → {abs_r['shipped'][p]:.2f}" for p in names if deltas[p] > 0]
    down = [f"{p} {abs_r['yours'][p]:.2f} → {abs_r['shipped'][p]:.2f}" for p in names if deltas[p] < 0]
    sentences.append(f"The best single unit's |r| rose on {len(up)} of {n} properties ({_listed(up)})"
                     + (f" and fell on {len(down)} ({_listed(down)})" if down else "")
                     + f"; the largest change is {max(deltas.values(), key=abs):+.2f}. The highest |r| of any "
                     f"best unit is {max(abs_r['shipped'].values()):.2f}"
                     + (", far from the clean |r| = 1 of a unit that does one job." if max(abs_r["shipped"].values())
                        < 0.8 else "."))
    position = "position in line"
    if position in names and abs_r["untrained"][position] >= 0.5 * abs_r["yours"][position]:
        sentences.append(f"The untrained network's best {position} unit already has |r| = "
                         f"{abs_r['untrained'][position]:.2f} (yours {abs_r['yours'][position]:.2f}): much of that "
                         "is arithmetic (a unit summing its input along the line), not learning.")
    if string_unit is not None:
        unit, r, profile = string_unit
        top = max(profile, key=profile.get)
        said = ", ".join(f"{value:+.2f} in {region}s" if region != "code" else f"{value:+.2f} in code"
                         for region, value in profile.items())
        prose_like = ("comment" in profile and "triple-quoted string" in profile and profile["comment"] > 0
                      and profile["comment"] >= 0.75 * profile["triple-quoted string"])
        sentences.append(f"The shipped model's best 'inside a string' unit (unit {unit}, r = {r:+.2f}) is, in standard "
                         f"deviations from its mean, {said}. It is highest in {top}s"
                         + (", and it is as high in comments as in docstrings: it marks text that is not code, "
                            "comments included, more than the inside of quotes alone." if prose_like else
                            "; it is lower in comments than in strings, so it does separate strings from comments."))
    return sentences
