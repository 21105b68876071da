"""course_lib.viz: labels that stay readable where points crowd together, and clear errors on bad input."""
from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest
import torch

from course_lib import viz


def overlap_area(a, b) -> float:
    return max(0.0, min(a.x1, b.x1) - max(a.x0, b.x0)) * max(0.0, min(a.y1, b.y1) - max(a.y0, b.y0))


def label_boxes(ax):
    renderer = ax.figure.canvas.get_renderer()
    return {t.get_text(): t.get_window_extent(renderer) for t in ax.texts}


def test_crowded_labels_do_not_overlap():
    # Four words on nearly the same spot (as "kitchen", "bedroom", "room", "garden" end up after training),
    # and a few far away: with the fixed offset of before, the four labels were written on top of each other.
    words = ["kitchen", "bedroom", "room", "garden", "cat", "dog", "mouse"]
    E = torch.tensor([[1.0, 1.0], [1.01, 1.0], [1.0, 1.01], [0.99, 0.995], [-2.0, 0.0], [0.0, -2.0], [2.0, -1.5]])
    ax = viz.embedding_projection(E, words)
    boxes = label_boxes(ax)
    assert sorted(boxes) == sorted(words)
    clashes = [(a, b) for a, b in itertools.combinations(words, 2) if overlap_area(boxes[a], boxes[b]) > 0]
    assert not clashes, f"labels written over each other: {clashes}"
    plt.close(ax.figure)


def test_labels_stay_next_to_their_points():
    points = [(0.0, 0.0), (0.0, 0.0), (5.0, 5.0)]
    _, ax = plt.subplots()
    ax.scatter(*zip(*points))
    ax.autoscale_view()
    texts = viz.place_labels(ax, points, ["a", "b", "c"])
    renderer = ax.figure.canvas.get_renderer()
    for text, (x, y) in zip(texts, points):
        px, py = ax.transData.transform((x, y))
        box = text.get_window_extent(renderer)
        distance = max(box.x0 - px, px - box.x1, box.y0 - py, py - box.y1, 0.0)
        assert distance < 25, f"label {text.get_text()!r} is {distance:.0f} px from its point"
    plt.close(ax.figure)


def test_embedding_projection_names_the_expected_shape():
    with pytest.raises(ValueError, match=r"E of shape \(len\(labels\), m\), got \(3, 4\) for 2 labels"):
        viz.embedding_projection(torch.zeros(3, 4), ["a", "b"])
