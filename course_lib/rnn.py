"""The simple (Elman) recurrent neural network, in the lecture's notation (Goodfellow et al., ch. 10).

One cell is applied at every time step t, with the same weights each time:

    a_t = b + W h_{t-1} + U x_t        (B, H)   W: hidden-to-hidden (H, H), U: input-to-hidden (H, D)
    h_t = tanh(a_t)                    (B, H)   the hidden state: a summary of x_1 .. x_t
    o_t = c + V h_t                    (B, V)   V: hidden-to-output (V, H), the logits
    y_t = softmax(o_t)                          p(next word | words so far)

Unlike the feed-forward LM, which sees a fixed window of n-1 words, h_t can in principle carry
information from any earlier word. The price: every step waits for the previous one, and the
gradient reaching an early step is multiplied by W^T (and tanh') once per step, so it vanishes or
explodes (see ``course_lib.gradients``).

Rows are sequences (batch first), so in code the products read ``h_prev @ W.T``: the same W h_{t-1}
applied to every row at once. Shape letters: B batch, T time steps, D input size, H hidden size,
V vocabulary size. PyTorch's ``nn.RNN`` computes the same function but keeps two biases,
b_ih + b_hh, where the lecture has one b: :func:`rnn_weights_from_torch` adds them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch
from torch import nn

from course_lib.loss import lm_loss
from course_lib.validation import (inputs_checked, require, require_choice, require_config, require_float_tensor,
                                   require_index, require_positive_ints, require_recurrent, require_sequence_ids,
                                   require_type, require_types)

__all__ = ["NONLINEARITIES", "rnn_step", "rnn_forward", "rnn_weights_from_torch", "RNNLayer", "RNNConfig",
           "RNNLanguageModel"]


def _identity(a: torch.Tensor) -> torch.Tensor:
    return a


# "identity" is not a useful model, but shows the pure W^k behaviour of the gradient (course_lib.gradients).
NONLINEARITIES: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "tanh": torch.tanh, "relu": torch.relu, "identity": _identity}


# ---------------------------------------------------------------------------
# the cell and the loop over time


def rnn_step(x_t: torch.Tensor, h_prev: torch.Tensor, U: torch.Tensor, W: torch.Tensor, b: torch.Tensor,
             nonlinearity: str = "tanh") -> torch.Tensor:
    """One time step: h_t = tanh(b + W h_{t-1} + U x_t) (or relu, or no nonlinearity: "identity").

    x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> h_t (B, H).
    """
    require_choice("nonlinearity", nonlinearity, NONLINEARITIES)
    require_recurrent({"x_t": x_t, "h_prev": h_prev}, {"U": U, "W": W, "b": b}, step=True)
    a_t = b + h_prev @ W.T + x_t @ U.T  # (B, H): a_t = b + W h_{t-1} + U x_t for every row
    return NONLINEARITIES[nonlinearity](a_t)


def rnn_forward(x: torch.Tensor, h0: torch.Tensor | None, U: torch.Tensor, W: torch.Tensor, b: torch.Tensor,
                nonlinearity: str = "tanh") -> tuple[torch.Tensor, torch.Tensor]:
    """Run the cell over a sequence: x (B, T, D), h0 (B, H) or None (zeros) -> (hs (B, T, H), h_T (B, H)).

    hs[:, t] is h_t; h_T = hs[:, -1] is what a next call would continue from.
    """
    require_choice("nonlinearity", nonlinearity, NONLINEARITIES)
    require_recurrent({"x": x, "h0": h0}, {"U": U, "W": W, "b": b})
    h0 = x.new_zeros(x.shape[0], W.shape[0]) if h0 is None else h0  # (B, H)
    phi = NONLINEARITIES[nonlinearity]
    # U x_t + b does not depend on h, so it is computed for every step at once; only W h_{t-1}
    # has to wait for the previous step. That wait is why an RNN cannot run its steps in parallel.
    input_part = b + x @ U.T  # (B, T, H)
    h, hs = h0, []
    for t in range(x.shape[1]):
        h = phi(input_part[:, t] + h @ W.T)  # (B, H)
        hs.append(h)
    return torch.stack(hs, dim=1), h  # (B, T, H), (B, H)


def rnn_weights_from_torch(rnn: nn.RNN, layer: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(U, W, b) of one layer of a PyTorch ``nn.RNN``: weight_ih, weight_hh and b = bias_ih + bias_hh (detached)."""
    require_type(rnn, nn.RNN, "rnn_weights_from_torch takes an nn.RNN")
    require(not rnn.bidirectional and rnn.bias, "rnn_weights_from_torch needs a one-directional nn.RNN with bias=True.")
    require_index("layer", layer, rnn.num_layers)
    names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
    U, W, b_ih, b_hh = (getattr(rnn, f"{name}_l{layer}").detach() for name in names)
    return U, W, b_ih + b_hh


# ---------------------------------------------------------------------------
# the language model


class RNNLayer(nn.Module):
    """One recurrent layer with its own U (H, D), W (H, H) and b (H,): x (B, T, D) -> (hs (B, T, H), h_T (B, H))."""

    def __init__(self, input_dim: int, hidden_dim: int, nonlinearity: str = "tanh"):
        super().__init__()
        require_positive_ints("RNNLayer", input_dim=input_dim, hidden_dim=hidden_dim)
        require_choice("nonlinearity", nonlinearity, NONLINEARITIES)
        self.nonlinearity = nonlinearity
        self.U = nn.Parameter(torch.empty(hidden_dim, input_dim))
        self.W = nn.Parameter(torch.empty(hidden_dim, hidden_dim))
        self.b = nn.Parameter(torch.empty(hidden_dim))
        bound = hidden_dim ** -0.5  # nn.RNN's initialisation: uniform in +-1/sqrt(H)
        for p in self.parameters():
            nn.init.uniform_(p, -bound, bound)

    def forward(self, x: torch.Tensor, h0: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        return rnn_forward(x, h0, self.U, self.W, self.b, self.nonlinearity)


@dataclass
class RNNConfig:
    vocab_size: int
    embed_dim: int = 32
    hidden_dim: int = 64
    num_layers: int = 1  # stacked: layer l+1 reads layer l's hidden states as its inputs

    def __post_init__(self):
        require_config(self)


class RNNLanguageModel(nn.Module):
    """``logits, loss = model(idx, targets=None, state=None)``: idx (B, T) -> logits (B, T, V).

    Embedding -> ``num_layers`` tanh RNN layers -> o_t = c + V h_t at every position; position t
    predicts token t+1. ``state`` (num_layers, B, H), like ``nn.RNN``'s h_0, continues from where an
    earlier call stopped (zeros when None); :meth:`forward_with_state` also returns the final state.
    """

    def __init__(self, config: RNNConfig):
        super().__init__()
        require_type(config, RNNConfig, "RNNLanguageModel takes an RNNConfig")
        self.config = config
        embed, hidden, vocab = config.embed_dim, config.hidden_dim, config.vocab_size
        self.embedding = nn.Embedding(vocab, embed)
        self.layers = nn.ModuleList(RNNLayer(embed if i == 0 else hidden, hidden) for i in range(config.num_layers))
        self.V = nn.Parameter(torch.empty(vocab, hidden))  # hidden-to-output weights
        self.c = nn.Parameter(torch.empty(vocab))  # output bias
        nn.init.uniform_(self.V, -hidden ** -0.5, hidden ** -0.5)  # as nn.Linear(H, V)
        nn.init.uniform_(self.c, -hidden ** -0.5, hidden ** -0.5)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None, state: torch.Tensor | None = None):
        logits, _ = self.forward_with_state(idx, state)
        loss = None if targets is None else lm_loss(logits, targets)
        return logits, loss

    def forward_with_state(self, idx: torch.Tensor, state: torch.Tensor | None = None
                           ) -> tuple[torch.Tensor, torch.Tensor]:
        """idx (B, T), state (num_layers, B, H) or None -> (logits (B, T, V), final state (num_layers, B, H))."""
        cfg = self.config
        require_sequence_ids("idx", idx, cfg.vocab_size, self.V.device)
        require_float_tensor("state", state, "(num_layers, B, H)", (cfg.num_layers, len(idx), cfg.hidden_dim),
                             like={"V": self.V}, optional=True)
        x = self.embedding(idx)  # (B, T, E)
        finals = []
        with inputs_checked():  # the layers take what was checked here
            for i, layer in enumerate(self.layers):
                x, h_T = layer(x, None if state is None else state[i])  # (B, T, H), (B, H)
                finals.append(h_T)
        logits = self.c + x @ self.V.T  # (B, T, V): o_t = c + V h_t at every position
        return logits, torch.stack(finals)

    @torch.no_grad()
    def load_from_torch(self, embedding: nn.Embedding, rnn: nn.RNN, head: nn.Linear) -> "RNNLanguageModel":
        """Copy the weights of nn.Embedding -> nn.RNN (tanh) -> nn.Linear into this model; returns it.

        Afterwards both compute the same logits: U = weight_ih, W = weight_hh, b = bias_ih + bias_hh,
        V = head.weight, c = head.bias.
        """
        cfg = self.config
        require_types("load_from_torch", (embedding, rnn, head), (nn.Embedding, nn.RNN, nn.Linear))
        theirs = (embedding.num_embeddings, embedding.embedding_dim, rnn.input_size, rnn.hidden_size, rnn.num_layers,
                  head.in_features, head.out_features, rnn.nonlinearity, head.bias is not None)
        ours = (cfg.vocab_size, cfg.embed_dim, cfg.embed_dim, cfg.hidden_dim, cfg.num_layers,
                cfg.hidden_dim, cfg.vocab_size, "tanh", True)
        require(theirs == ours, "PyTorch's modules must have this model's sizes: (vocab, embed, rnn input, hidden, "
                f"layers, head in, head out, nonlinearity, head bias) = {ours}, got {theirs}.")
        self.embedding.weight.copy_(embedding.weight)
        for i, layer in enumerate(self.layers):
            for ours_p, theirs_p in zip((layer.U, layer.W, layer.b), rnn_weights_from_torch(rnn, i)):
                ours_p.copy_(theirs_p)
        self.V.copy_(head.weight)
        self.c.copy_(head.bias)
        return self
