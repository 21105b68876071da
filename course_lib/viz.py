"""Plots shared by the notebooks, so that notebook cells stay short."""
from __future__ import annotations

import math
from typing import Sequence

import matplotlib.pyplot as plt
import torch


def attention_heatmap(
    weights: torch.Tensor,
    query_labels: Sequence[str],
    key_labels: Sequence[str],
    ax: plt.Axes | None = None,
    title: str = "attention weights",
    cmap: str = "Blues",
    vmin: float | None = 0.0,
    vmax: float | None = 1.0,
) -> plt.Axes:
    """A (n_q, n_k) matrix as a heat map with its values written in the cells."""
    values = torch.as_tensor(weights).detach().float().cpu()
    if values.dim() != 2:
        raise ValueError(f"attention_heatmap needs a 2-D (queries x keys) matrix, got shape {tuple(values.shape)}.")
    if ax is None:
        _, ax = plt.subplots(figsize=(1.1 * values.shape[1] + 1.5, 0.9 * values.shape[0] + 1.0))
    shown = values.masked_fill(~torch.isfinite(values), float("nan"))
    image = ax.imshow(shown.numpy(), cmap=cmap, vmin=vmin, vmax=vmax)
    ax.set_xticks(range(len(key_labels)), key_labels)
    ax.set_yticks(range(len(query_labels)), query_labels)
    ax.set_xlabel("key (attended to)")
    ax.set_ylabel("query (attending)")
    ax.set_title(title)
    top = vmax if vmax is not None else float(shown.nan_to_num(0).max())
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            v = float(values[i, j])
            text = "-inf" if v == float("-inf") else f"{v:.2f}"
            dark = math.isfinite(v) and top and v > 0.6 * top
            ax.text(j, i, text, ha="center", va="center", fontsize=9, color="white" if dark else "black")
    plt.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    return ax


def scaling_effect(d_k: int, n_keys: int = 16, samples: int = 2000, seed: int = 0) -> plt.Figure:
    """Why scores are divided by sqrt(d_k): score spread and softmax saturation for random q, k.

    Entries of q and k are independent N(0, 1), so q . k has variance d_k. Left: the
    distribution of raw and scaled scores. Right: the largest softmax weight among
    ``n_keys`` keys, averaged over queries; near 1 the softmax is saturated and its
    gradient is nearly zero.
    """
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(samples, 1, d_k, generator=g)
    k = torch.randn(samples, n_keys, d_k, generator=g)
    raw = (q * k).sum(-1)  # (samples, n_keys)
    scaled = raw / math.sqrt(d_k)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.6))
    bins = torch.linspace(-4 * math.sqrt(d_k), 4 * math.sqrt(d_k), 60).numpy()
    left.hist(raw.flatten().numpy(), bins=bins, alpha=0.6, label=f"q.k  (std {raw.std():.1f})")
    left.hist(scaled.flatten().numpy(), bins=bins, alpha=0.6, label=f"q.k / sqrt(d_k)  (std {scaled.std():.2f})")
    left.set_title(f"scores for d_k = {d_k}")
    left.set_xlabel("score")
    left.legend(loc="upper right", fontsize=9)
    peak_raw = torch.softmax(raw, -1).max(-1).values.mean()
    peak_scaled = torch.softmax(scaled, -1).max(-1).values.mean()
    right.bar(["softmax(q.k)", "softmax(q.k / sqrt(d_k))"], [float(peak_raw), float(peak_scaled)],
              color=["tab:blue", "tab:orange"])
    right.axhline(1 / n_keys, color="grey", linestyle=":", label=f"uniform (1/{n_keys})")
    right.set_ylim(0, 1.05)
    right.set_title(f"mean largest weight among {n_keys} keys")
    right.legend(loc="upper left", fontsize=9)
    fig.tight_layout()
    return fig


def perplexity_bars(labels, values, floor, title="held-out perplexity", ax=None, floor_label=None, relative=False):
    """Bars of perplexities, each with its value, and the corpus's entropy floor exp(H) as a dashed line.

    ``relative=True`` draws how far each is above the floor, in percent, which shows differences
    of a few percent that bars starting at zero hide.
    """
    ax = ax or plt.subplots(figsize=(max(6, 1.5 * len(values)), 3))[1]
    shown = [100 * (v / floor - 1) for v in values] if relative else list(values)
    bars = ax.bar(range(len(values)), shown, color="tab:blue")
    ax.bar_label(bars, [f"{v:.1f}%" if relative else f"{v:.3g}" for v in shown], padding=2, fontsize=9)
    ax.set_xticks(range(len(values)), labels)
    if relative:
        ax.set_ylabel(f"% above the floor {floor:.3f}")
        ax.set_ylim(0, 1.2 * max(max(shown), 1e-9))
    else:
        ax.axhline(floor, color="tab:red", ls="--", label=floor_label or f"entropy floor exp(H) = {floor:.3f}")
        ax.set_ylabel("perplexity")
        ax.set_ylim(0, 1.35 * max(max(values), floor))  # room for the legend above the bars
        ax.legend(loc="upper left")
    ax.set_title(title)
    return ax


def embedding_projection(E, labels, skip=(), title="word embeddings", ax=None):
    """Rows of an embedding table E (V, m) projected on their two principal directions, with labels."""
    E = torch.as_tensor(E).detach().float().cpu()
    if E.dim() != 2 or E.shape[0] != len(labels):
        raise ValueError(f"embedding_projection needs E of shape (len(labels), m), got {tuple(E.shape)} "
                         f"for {len(labels)} labels.")
    keep = [i for i, word in enumerate(labels) if word not in set(skip)]
    X = E[keep] - E[keep].mean(0)  # (n, m), centred
    _, _, Vh = torch.linalg.svd(X, full_matrices=False)
    xy = X @ Vh[:2].T  # (n, 2): coordinates along the two main directions
    ax = ax or plt.subplots(figsize=(8, 6))[1]
    ax.scatter(xy[:, 0], xy[:, 1], s=12, color="tab:blue")
    ax.margins(0.12)  # room for labels next to the outermost points
    ax.autoscale_view()  # fix the limits now: the labels are placed in display space
    place_labels(ax, xy.tolist(), [labels[i] for i in keep], fontsize=9)
    ax.set_xlabel("first principal direction")
    ax.set_ylabel("second principal direction")
    ax.set_title(title)
    return ax


# Where a label may sit around its point: offset in points and alignment; right, left, above, below,
# then the four corners. The first four never overlap each other.
_LABEL_OFFSETS = ((5, 0, "left", "center"), (-5, 0, "right", "center"),
                  (0, 6, "center", "bottom"), (0, -6, "center", "top"),
                  (4, 7, "left", "bottom"), (-4, 7, "right", "bottom"),
                  (4, -7, "left", "top"), (-4, -7, "right", "top"))


def place_labels(ax: plt.Axes, points, labels, fontsize: float = 9) -> list:
    """Write each label next to its (x, y) point where it overlaps no label placed before it.

    Tries the positions in ``_LABEL_OFFSETS`` in order and keeps the first free one (the one overlapping
    least when none is free), so that labels of nearby points stay readable. Returns the annotations.
    """
    renderer = ax.figure.canvas.get_renderer()
    taken = []  # display-space boxes of the labels placed so far
    placed = []
    for (x, y), label in zip(points, labels):
        text = ax.annotate(label, (x, y), xytext=(0, 0), textcoords="offset points", fontsize=fontsize)

        def box_at(dx, dy, ha, va):
            text.set_position((dx, dy))
            text.set_horizontalalignment(ha)
            text.set_verticalalignment(va)
            return text.get_window_extent(renderer)

        def overlap(box):
            return sum(max(0.0, min(box.x1, o.x1) - max(box.x0, o.x0)) * max(0.0, min(box.y1, o.y1) - max(box.y0, o.y0))
                       for o in taken)

        best = next((spot for spot in _LABEL_OFFSETS if overlap(box_at(*spot)) == 0), None)
        if best is None:  # no free spot: the one overlapping least
            best = min(_LABEL_OFFSETS, key=lambda spot: overlap(box_at(*spot)))
        taken.append(box_at(*best))
        placed.append(text)
    return placed


def coloured_text(text: str, values, title: str = "", vmax: float | None = None, cmap: str = "RdBu_r"):
    """``text`` with each character on a background coloured by its value (red high, blue low, white 0).

    For showing what one unit of a model does while it reads: ``values`` is one number per
    character. Returns an ``IPython.display.HTML`` object (shown when it is a cell's last value).
    """
    import html

    import numpy as np
    from IPython.display import HTML

    values = np.asarray(values, dtype=np.float64)
    if values.shape != (len(text),):
        raise ValueError(f"coloured_text needs one value per character: {len(text)} characters, "
                         f"got shape {values.shape}.")
    scale = vmax if vmax is not None else (np.abs(values).max() or 1.0)
    colours = plt.get_cmap(cmap)((np.clip(values / scale, -1, 1) + 1) / 2)  # (T, 4) RGBA in [0, 1]
    spans = []
    for ch, (r, g, b, _) in zip(text, colours):
        shown = "&nbsp;" if ch == " " else ("&#8629;<br>" if ch == "\n" else html.escape(ch))
        spans.append(f'<span style="background:rgb({r * 255:.0f},{g * 255:.0f},{b * 255:.0f})">{shown}</span>')
    heading = f"<div style='font-weight:bold;margin:4px 0'>{html.escape(title)}</div>" if title else ""
    return HTML(f"<div>{heading}<div style='font-family:monospace;font-size:12px;line-height:1.35;color:#000;"
                f"white-space:nowrap;overflow-x:auto'>{''.join(spans)}</div></div>")
