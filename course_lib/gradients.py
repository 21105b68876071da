"""Vanishing and exploding gradients, measured: how much does the last step's loss feel each h_t?

Run a recurrent network over T steps, put a loss L on the LAST hidden state only, and ask for
||dL/dh_t|| at every step t. Going one step back multiplies the gradient by the Jacobian
dh_{t+1}/dh_t, which for the simple RNN is diag(tanh'(a_{t+1})) W. Without the tanh:

    dL/dh_t = (W^T)^(T-1-t) dL/dh_(T-1)

so the norm shrinks or grows like rho^k with k = T-1-t steps, rho the spectral radius of W:
it vanishes for rho < 1 and explodes for rho > 1 (Pascanu et al., 2013). The tanh only makes
vanishing worse (tanh' <= 1). Along the LSTM's cell state the factor is the forget gate instead,
so with forget gates near 1 (a high forget bias) the gradient survives many more steps.

- :func:`gradient_norms_through_time`: the instrument, for any step function.
- :func:`rnn_gradient_norms` and :func:`lstm_gradient_norms`: random networks with a chosen
  recurrent scale, ready for the notebooks' plots.
- :func:`plot_gradient_norms`: the curves on a log scale against the distance from the last step.

The loss of the two builders is L = sum over the batch of g . h_(T-1) with one fixed random unit
vector g, so dL/dh_(T-1) = g for every sequence and the curve starts at norm 1.
"""
from __future__ import annotations

from typing import Callable

import torch

from course_lib.lstm import lstm_cell
from course_lib.rnn import NONLINEARITIES, rnn_step
from course_lib.validation import require_choice, require_number, require_positive_ints, require_sequence

__all__ = ["gradient_norms_through_time", "scaled_orthogonal", "rnn_gradient_norms", "lstm_gradient_norms",
           "plot_gradient_norms"]

State = torch.Tensor | tuple[torch.Tensor, ...]  # h, or (h, c, ...) with h first


def _as_leaf(x: torch.Tensor) -> torch.Tensor:
    return x.detach().requires_grad_(True)


def gradient_norms_through_time(step: Callable[[torch.Tensor, State], State], x: torch.Tensor, state: State,
                                loss_fn: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
    """||dL/dh_t|| for t = 0 .. T-1, where L = loss_fn(h_(T-1)) depends on the last hidden state only.

    ``step(x_t, state) -> state`` advances the network by one step; x is (B, T, D); a state is the
    hidden state h (B, H) or a tuple whose first element is h (the LSTM's (h, c)). Returns a tensor
    of length T, index = time step: the norm over the hidden units of dL/dh_t, averaged over the batch.
    (Like calling ``h_t.retain_grad()`` on every h_t, then ``L.backward()`` and reading ``h_t.grad``.)
    """
    require_sequence("x", x)
    if not callable(step) or not callable(loss_fn):
        raise TypeError("step and loss_fn must be functions: step(x_t, state) -> state and loss_fn(h_last) -> scalar.")
    if not (isinstance(state, torch.Tensor) or (isinstance(state, (tuple, list)) and state
                                                and all(isinstance(s, torch.Tensor) for s in state))):
        raise TypeError(f"state must be the first hidden state h0 (B, H) or a tuple of tensors like (h0, c0), "
                        f"got {type(state).__name__}.")
    with torch.enable_grad():
        # fresh leaves that require grad, so that every h_t is part of the graph even when the weights are not
        x = _as_leaf(x)
        state = _as_leaf(state) if isinstance(state, torch.Tensor) else tuple(_as_leaf(s) for s in state)
        hs = []
        for t in range(x.shape[1]):
            state = step(x[:, t], state)
            h = state if isinstance(state, torch.Tensor) else state[0]  # (B, H)
            if not isinstance(h, torch.Tensor):
                raise TypeError(f"step must return h (B, H) or a tuple starting with h, got {type(state).__name__}.")
            hs.append(h)
        loss = loss_fn(hs[-1])
        if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
            raise ValueError(f"loss_fn must return a scalar tensor, got {loss!r:.80}.")
        grads = torch.autograd.grad(loss, hs, allow_unused=True, materialize_grads=True)  # T tensors (B, H)
    return torch.stack(grads, dim=1).norm(dim=-1).mean(dim=0).detach()  # (T,)


# ---------------------------------------------------------------------------
# random networks


def scaled_orthogonal(n: int, scale: float, generator: torch.Generator, dtype: torch.dtype = torch.float64
                      ) -> torch.Tensor:
    """scale * Q, Q a random orthogonal (n, n) matrix: every eigenvalue and singular value has modulus ``scale``.

    So its spectral radius is exactly ``scale`` and ||(W^T)^k g|| = scale^k ||g|| for every vector g.
    """
    q, r = torch.linalg.qr(torch.randn(n, n, generator=generator, dtype=torch.float64))
    q = q * torch.sign(torch.diagonal(r))  # makes Q uniformly distributed over the orthogonal matrices
    return (scale * q).to(dtype)


def _check_builder(seq_len, hidden_dim, weight_scale, input_scale, batch_size) -> None:
    require_positive_ints("the gradient experiment", seq_len=seq_len, hidden_dim=hidden_dim, batch_size=batch_size)
    require_number("weight_scale", weight_scale, non_negative=True)
    require_number("input_scale", input_scale, non_negative=True)


def _random_inputs(generator, seq_len, hidden_dim, input_scale, batch_size, dtype):
    """The probe g (H,), a unit vector, and inputs x (B, T, D) with D = H and entries N(0, input_scale^2)."""
    g = torch.randn(hidden_dim, generator=generator, dtype=torch.float64)
    x = input_scale * torch.randn(batch_size, seq_len, hidden_dim, generator=generator, dtype=torch.float64)
    return (g / g.norm()).to(dtype), x.to(dtype)


def rnn_gradient_norms(seq_len: int, hidden_dim: int = 32, weight_scale: float = 1.0, *, nonlinearity: str = "tanh",
                       input_scale: float = 1.0, batch_size: int = 8, seed: int = 0, dtype: torch.dtype = torch.float64,
                       device: torch.device | str | None = None) -> torch.Tensor:
    """||dL/dh_t|| (length T) for a random simple RNN whose W has spectral radius ``weight_scale``.

    W = weight_scale * Q (see :func:`scaled_orthogonal`), U has N(0, 1/H) entries, b = 0, h0 = 0.
    With ``nonlinearity="identity"`` the result is exactly weight_scale^(T-1-t): pure (W^T)^k.
    With tanh, small inputs (``input_scale``) keep the pre-activations in tanh's linear part.
    """
    _check_builder(seq_len, hidden_dim, weight_scale, input_scale, batch_size)
    require_choice("nonlinearity", nonlinearity, NONLINEARITIES)
    generator = torch.Generator().manual_seed(seed)
    g, x = _random_inputs(generator, seq_len, hidden_dim, input_scale, batch_size, dtype)
    W = scaled_orthogonal(hidden_dim, weight_scale, generator, dtype)
    U = (torch.randn(hidden_dim, hidden_dim, generator=generator, dtype=torch.float64) / hidden_dim ** 0.5).to(dtype)
    U, W, g, x = (t.to(device) for t in (U, W, g, x))
    b = W.new_zeros(hidden_dim)
    h0 = W.new_zeros(batch_size, hidden_dim)
    return gradient_norms_through_time(lambda x_t, h: rnn_step(x_t, h, U, W, b, nonlinearity), x, h0,
                                       lambda h_last: (h_last @ g).sum())


def lstm_gradient_norms(seq_len: int, hidden_dim: int = 32, weight_scale: float = 1.0, *, forget_bias: float = 3.0,
                        input_scale: float = 1.0, batch_size: int = 8, seed: int = 0,
                        dtype: torch.dtype = torch.float64, device: torch.device | str | None = None) -> torch.Tensor:
    """||dL/dh_t|| (length T) for a random LSTM whose four recurrent blocks W_hi, W_hf, W_hg, W_ho each
    have spectral radius ``weight_scale``; the forget gate's bias is ``forget_bias`` (others 0).

    sigmoid(3) = 0.95, so with the default the forget gates start near 1 and the cell keeps most of
    its content, and most of the gradient, from one step to the next. W_ih has N(0, 1/H) entries.
    """
    _check_builder(seq_len, hidden_dim, weight_scale, input_scale, batch_size)
    require_number("forget_bias", forget_bias)
    generator = torch.Generator().manual_seed(seed)
    g, x = _random_inputs(generator, seq_len, hidden_dim, input_scale, batch_size, dtype)
    W_hh = torch.cat([scaled_orthogonal(hidden_dim, weight_scale, generator, dtype) for _ in range(4)])  # (4H, H)
    W_ih = (torch.randn(4 * hidden_dim, hidden_dim, generator=generator, dtype=torch.float64)
            / hidden_dim ** 0.5).to(dtype)  # (4H, D)
    b_ih = torch.zeros(4 * hidden_dim, dtype=dtype)
    b_ih[hidden_dim:2 * hidden_dim] = forget_bias  # the f block, in the order i, f, g, o
    W_ih, W_hh, b_ih, g, x = (t.to(device) for t in (W_ih, W_hh, b_ih, g, x))
    b_hh = torch.zeros_like(b_ih)
    zeros = W_hh.new_zeros(batch_size, hidden_dim)
    return gradient_norms_through_time(lambda x_t, s: lstm_cell(x_t, s[0], s[1], W_ih, W_hh, b_ih, b_hh), x,
                                       (zeros, zeros), lambda h_last: (h_last @ g).sum())


# ---------------------------------------------------------------------------
# plotting


def plot_gradient_norms(norms_by_label: dict[str, torch.Tensor], ax=None,
                        title: str = "gradient of the last step's loss"):
    """One curve per label: ||dL/dh_t|| on a log scale against the distance T-1-t from the last step."""
    import matplotlib.pyplot as plt  # plotting is optional for measuring

    if not isinstance(norms_by_label, dict) or not norms_by_label:
        raise TypeError("norms_by_label must be a non-empty dict {label: tensor of norms, one per time step}.")
    for label, norms in norms_by_label.items():
        if not isinstance(norms, torch.Tensor) or norms.dim() != 1:
            got = tuple(norms.shape) if isinstance(norms, torch.Tensor) else type(norms).__name__
            raise ValueError(f"norms_by_label[{label!r}] must be a 1-D tensor of norms, one per time step, got {got}.")
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5))
    for label, norms in norms_by_label.items():
        distance = torch.arange(len(norms))  # 0 = the last step
        ax.plot(distance.numpy(), norms.detach().flip(0).double().cpu().numpy(), label=label)
    ax.set_yscale("log")
    ax.set_xlabel("distance from the last step (T-1-t)")
    ax.set_ylabel("||dL/dh_t||")
    ax.set_title(title)
    ax.legend()
    return ax
