"""data.gap_task: the synthetic "grew up in France ... speaks fluent French" long-range dependency."""
import pytest
import torch

from course_lib import data


def test_shapes_and_layout():
    x, y = data.gap_task(50, gap=7, num_keys=4, vocab_size=16, seed=1)
    assert x.shape == (50, 9) and y.shape == (50,)
    assert x.dtype == y.dtype == torch.long
    assert torch.equal(y, x[:, 0]) and bool((y < 4).all())
    assert bool((x[:, -1] == 4).all())  # the query token
    assert bool((x[:, 1:-1] > 4).all()) and bool((x[:, 1:-1] < 16).all())  # distractors


def test_deterministic_for_a_seed():
    a, b = data.gap_task(20, 5, seed=3), data.gap_task(20, 5, seed=3)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    assert not torch.equal(a[0], data.gap_task(20, 5, seed=4)[0])


def test_only_the_first_token_tells_the_key():
    x, y = data.gap_task(4000, gap=3, num_keys=2, vocab_size=6, seed=0)
    rest = x[:, 1:]
    # the distractors are independent of the key: their distribution is the same for both keys
    for position in range(rest.shape[1]):
        means = [rest[y == k, position].float().mean().item() for k in (0, 1)]
        assert abs(means[0] - means[1]) < 0.1
    assert 0.4 < y.float().mean().item() < 0.6
    assert data.gap_task(3, gap=0)[0].shape == (3, 2)


@pytest.mark.parametrize("kwargs", [dict(n=0, gap=1), dict(n=3, gap=-1), dict(n=3, gap=2, num_keys=5, vocab_size=6)])
def test_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        data.gap_task(**kwargs)
