"""The Long Short-Term Memory (Hochreiter & Schmidhuber, 1997), gate by gate, checked against PyTorch.

Next to the hidden state h_t, an LSTM keeps a cell state c_t, changed only by elementwise gates:

    i_t = sigmoid(W_ii x_t + b_ii + W_hi h_{t-1} + b_hi)     input gate: how much new content to write
    f_t = sigmoid(W_if x_t + b_if + W_hf h_{t-1} + b_hf)     forget gate: how much of c_{t-1} to keep
    g_t = tanh(W_ig x_t + b_ig + W_hg h_{t-1} + b_hg)        candidate content
    o_t = sigmoid(W_io x_t + b_io + W_ho h_{t-1} + b_ho)     output gate: how much of the cell to show
    c_t = f_t * c_{t-1} + i_t * g_t
    h_t = o_t * tanh(c_t)

Along c the gradient is multiplied by f_t at each step, not by W^T and tanh' as in the simple RNN
(``course_lib.rnn``): with the forget gates near 1 it can cross many steps without vanishing
(``course_lib.gradients`` measures it).

Weights follow PyTorch's layout: the four gates' matrices are stacked in the order i, f, g, o,
so W_ih is (4H, D), W_hh is (4H, H), b_ih and b_hh are (4H,). Shape letters as in ``course_lib.rnn``.

- :func:`lstm_cell` and :func:`lstm_forward`: one step, and a loop over a sequence;
  :func:`fused_lstm_forward`: the same function by PyTorch's fused kernel (what the modules use
  unless told ``fast=False``).
- :class:`LSTMEncoder`: stacked layers, optionally bidirectional (a forward LSTM reading left to
  right and a backward one reading right to left, their states concatenated: ELMo's encoder).
- :class:`LSTMLanguageModel`: a left-to-right LM under ``logits, loss = model(idx, targets=None)``.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Sequence

import torch
from torch import nn

from course_lib.loss import lm_loss
from course_lib.validation import (inputs_checked, require, require_config, require_index, require_pair,
                                   require_positive_ints, require_probability, require_recurrent, require_sequence,
                                   require_sequence_ids, require_tuple, require_type, require_types)

__all__ = ["gates_step", "lstm_cell", "lstm_forward", "fused_lstm_forward", "lstm_weights_from_torch", "LSTMLayer",
           "set_fast_lstm", "LSTMEncoder", "LSTMConfig", "LSTMLanguageModel"]

LSTMState = tuple[torch.Tensor, torch.Tensor]  # (h, c)
WEIGHT_NAMES = ("W_ih", "W_hh", "b_ih", "b_hh")


def gates_step(input_part: torch.Tensor, h_prev: torch.Tensor, c_prev: torch.Tensor, W_hh: torch.Tensor,
               b_hh: torch.Tensor) -> LSTMState:
    """One step, given input_part = W_ih x_t + b_ih (B, 4H), which does not depend on h."""
    a = input_part + h_prev @ W_hh.T + b_hh  # (B, 4H): the four gates' pre-activations side by side
    a_i, a_f, a_g, a_o = a.chunk(4, dim=-1)  # (B, H) each, in PyTorch's order i, f, g, o
    i = torch.sigmoid(a_i)  # input gate
    f = torch.sigmoid(a_f)  # forget gate
    g = torch.tanh(a_g)  # candidate cell content
    o = torch.sigmoid(a_o)  # output gate
    c_t = f * c_prev + i * g  # (B, H): keep part of the old cell, write part of the candidate
    h_t = o * torch.tanh(c_t)  # (B, H)
    return h_t, c_t


def lstm_cell(x_t: torch.Tensor, h_prev: torch.Tensor, c_prev: torch.Tensor, W_ih: torch.Tensor,
              W_hh: torch.Tensor, b_ih: torch.Tensor, b_hh: torch.Tensor) -> LSTMState:
    """One step of the LSTM: x_t (B, D), h_prev and c_prev (B, H) -> (h_t, c_t), each (B, H).

    With W_ih = [W_ii; W_if; W_ig; W_io] (4H, D), W_hh = [W_hi; W_hf; W_hg; W_ho] (4H, H), and the
    biases split the same way:

        i = sigmoid(W_ii x_t + b_ii + W_hi h_{t-1} + b_hi)
        f = sigmoid(W_if x_t + b_if + W_hf h_{t-1} + b_hf)
        g = tanh(W_ig x_t + b_ig + W_hg h_{t-1} + b_hg)
        o = sigmoid(W_io x_t + b_io + W_ho h_{t-1} + b_ho)
        c_t = f * c_{t-1} + i * g
        h_t = o * tanh(c_t)

    the same function as ``nn.LSTMCell`` with those weights.
    """
    weights = dict(zip(WEIGHT_NAMES, (W_ih, W_hh, b_ih, b_hh)))
    require_recurrent({"x_t": x_t, "h_prev": h_prev, "c_prev": c_prev}, weights, gates=4, step=True)
    return gates_step(x_t @ W_ih.T + b_ih, h_prev, c_prev, W_hh, b_hh)


def _start(x: torch.Tensor, state: LSTMState | None, params: Sequence[torch.Tensor]) -> LSTMState:
    """lstm_forward's arguments checked; returns the start state, zeros (B, H) each when None."""
    require_tuple("params", params, 4, "a tuple of the four tensors (W_ih, W_hh, b_ih, b_hh)")
    require_tuple("state", state, 2, "a pair (h0, c0) of (B, H) tensors or None", optional=True)
    h0, c0 = (None, None) if state is None else state
    require_recurrent({"x": x, "h0": h0, "c0": c0}, dict(zip(WEIGHT_NAMES, params)), gates=4)
    zeros = x.new_zeros(x.shape[0], params[1].shape[1])  # (B, H)
    return (zeros, zeros) if state is None else (h0, c0)


def lstm_forward(x: torch.Tensor, state: LSTMState | None, params: Sequence[torch.Tensor]
                 ) -> tuple[torch.Tensor, LSTMState]:
    """Run the LSTM over a sequence: x (B, T, D) -> (hs (B, T, H), (h_T, c_T)).

    ``state`` is (h0, c0), each (B, H), or None for zeros; ``params`` is (W_ih, W_hh, b_ih, b_hh).
    """
    h, c = _start(x, state, params)
    W_ih, W_hh, b_ih, b_hh = params
    input_part = x @ W_ih.T + b_ih  # (B, T, 4H): computed for all steps at once, it does not depend on h
    hs = []
    for t in range(x.shape[1]):
        h, c = gates_step(input_part[:, t], h, c, W_hh, b_hh)  # (B, H) each
        hs.append(h)
    return torch.stack(hs, dim=1), (h, c)  # (B, T, H), ((B, H), (B, H))


def fused_lstm_forward(x: torch.Tensor, state: LSTMState | None, params: Sequence[torch.Tensor]
                       ) -> tuple[torch.Tensor, LSTMState]:
    """:func:`lstm_forward`, computed by PyTorch's fused LSTM kernel (the one ``nn.LSTM`` calls).

    The same function with the same weights, about 8x faster on a CPU for a 128-unit layer, and
    the cuDNN kernel on a GPU. The loop in :func:`lstm_forward` is the one to read.
    """
    h, c = _start(x, state, params)
    # cuDNN keeps what its backward pass needs only in "train" mode: on whenever gradients are recorded
    with warnings.catch_warnings():  # cuDNN would rather have the four weights in one buffer; it copies them
        warnings.filterwarnings("ignore", message="RNN module weights are not part of single contiguous chunk")
        hs, h_n, c_n = torch.lstm(x, (h[None], c[None]), list(params), True, 1, 0.0,
                                  torch.is_grad_enabled(), False, True)
    return hs, (h_n[0], c_n[0])  # (B, T, H), ((B, H), (B, H))


def lstm_weights_from_torch(lstm: nn.LSTM | nn.LSTMCell, layer: int = 0, reverse: bool = False
                            ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(W_ih, W_hh, b_ih, b_hh) of an ``nn.LSTMCell``, or of one layer and direction of an ``nn.LSTM`` (detached)."""
    require_type(lstm, (nn.LSTM, nn.LSTMCell), "lstm_weights_from_torch takes an nn.LSTM or nn.LSTMCell")
    cell = isinstance(lstm, nn.LSTMCell)
    require(lstm.bias and (cell or not lstm.proj_size), "lstm_weights_from_torch needs an LSTM built with bias=True "
            "and proj_size=0.")
    require(cell or not reverse or lstm.bidirectional, "reverse=True asks for the backward direction, but this "
            "nn.LSTM is not bidirectional.")
    require_index("layer", layer, 1 if cell else lstm.num_layers)
    suffix = "" if cell else f"_l{layer}" + ("_reverse" if reverse else "")
    return tuple(getattr(lstm, f"{name}{suffix}").detach() for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"))


# ---------------------------------------------------------------------------
# modules


class LSTMLayer(nn.Module):
    """One layer in one direction, with its own W_ih, W_hh, b_ih, b_hh: x (B, T, D) -> (hs, (h_T, c_T)).

    ``fast``: True or None (the default), PyTorch's fused kernel (:func:`fused_lstm_forward`); False,
    the readable step-by-step loop (:func:`lstm_forward`). Both compute the same function;
    :func:`set_fast_lstm` switches every layer of a model.
    """

    def __init__(self, input_dim: int, hidden_dim: int, fast: bool | None = None):
        super().__init__()
        self.fast = fast
        require_positive_ints("LSTMLayer", input_dim=input_dim, hidden_dim=hidden_dim)
        self.W_ih = nn.Parameter(torch.empty(4 * hidden_dim, input_dim))
        self.W_hh = nn.Parameter(torch.empty(4 * hidden_dim, hidden_dim))
        self.b_ih = nn.Parameter(torch.empty(4 * hidden_dim))
        self.b_hh = nn.Parameter(torch.empty(4 * hidden_dim))
        for p in self.parameters():
            nn.init.uniform_(p, -hidden_dim ** -0.5, hidden_dim ** -0.5)  # nn.LSTM's initialisation

    @property
    def params(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.W_ih, self.W_hh, self.b_ih, self.b_hh

    def forward(self, x: torch.Tensor, state: LSTMState | None = None) -> tuple[torch.Tensor, LSTMState]:
        run = lstm_forward if self.fast is False else fused_lstm_forward
        return run(x, state, self.params)


def set_fast_lstm(model: nn.Module, fast: bool | None) -> nn.Module:
    """Set ``fast`` on every :class:`LSTMLayer` in ``model`` (False: the readable loop); returns the model."""
    for module in model.modules():
        if isinstance(module, LSTMLayer):
            module.fast = fast
    return model


class LSTMEncoder(nn.Module):
    """Stacked, optionally bidirectional LSTM: the same function as ``nn.LSTM(batch_first=True)``.

    ``outputs, (h_n, c_n) = encoder(x, state=None)``: x (B, T, D) -> outputs (B, T, dirs * H), and
    h_n, c_n (num_layers * dirs, B, H) ordered layer by layer, forward before backward, like
    PyTorch's (``state`` has that layout too). With ``bidirectional``, outputs[:, t] is
    [forward h_t ; backward h_t]: a summary of x_1..x_t next to one of x_t..x_T. Layer l+1 reads
    layer l's outputs, both directions, so from the second layer on even the forward half has seen
    the whole sequence (ELMo instead keeps two separate stacks: a forward LM and a backward LM, i.e.
    two one-directional encoders, the second run on ``x.flip(1)``). ``dropout`` is applied between
    layers while training.
    """

    def __init__(self, input_dim: int, hidden_dim: int, num_layers: int = 1, bidirectional: bool = False,
                 dropout: float = 0.0):
        super().__init__()
        require_positive_ints("LSTMEncoder", input_dim=input_dim, hidden_dim=hidden_dim, num_layers=num_layers)
        require_probability("dropout", dropout)
        self.hidden_dim, self.num_layers = hidden_dim, num_layers
        self.num_directions = 2 if bidirectional else 1
        width = self.num_directions * hidden_dim
        self.layers = nn.ModuleList(  # layers[l][0]: left to right; layers[l][1]: right to left
            nn.ModuleList(LSTMLayer(input_dim if l == 0 else width, hidden_dim) for _ in range(self.num_directions))
            for l in range(num_layers))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, state: LSTMState | None = None) -> tuple[torch.Tensor, LSTMState]:
        first = self.layers[0][0].W_ih  # (4H, D)
        require_sequence("x", x, first.shape[1], "W_ih", first)
        require_pair("state", state, ("h0", "c0"), "(num_layers * dirs, B, H)",
                     (self.num_layers * self.num_directions, len(x), self.hidden_dim), like={"W_ih": first})
        h_n, c_n = [], []
        with inputs_checked():  # the layers take what was checked here
            for l, directions in enumerate(self.layers):
                outputs = []
                for d, layer in enumerate(directions):
                    k = l * self.num_directions + d  # this layer and direction's row in the state
                    start = None if state is None else (state[0][k], state[1][k])
                    if d == 0:
                        hs, (h, c) = layer(x, start)  # (B, T, H)
                    else:  # read the sequence backwards, then put the states back in time order
                        hs, (h, c) = layer(x.flip(1), start)
                        hs = hs.flip(1)  # (B, T, H): hs[:, t] has seen x_t .. x_T
                    outputs.append(hs)
                    h_n.append(h)
                    c_n.append(c)
                x = torch.cat(outputs, dim=-1)  # (B, T, dirs * H)
                if l < self.num_layers - 1:
                    x = self.dropout(x)
        return x, (torch.stack(h_n), torch.stack(c_n))

    @torch.no_grad()
    def load_from_torch(self, lstm: nn.LSTM) -> "LSTMEncoder":
        """Copy the weights of an ``nn.LSTM`` of the same sizes into this encoder; returns it."""
        require_type(lstm, nn.LSTM, "LSTMEncoder.load_from_torch takes an nn.LSTM")
        first = self.layers[0][0].W_ih.shape[1]
        theirs = (lstm.input_size, lstm.hidden_size, lstm.num_layers, 1 + lstm.bidirectional)
        ours = (first, self.hidden_dim, self.num_layers, self.num_directions)
        require(theirs == ours, "the nn.LSTM must have this encoder's (input_size, hidden_size, num_layers, "
                f"directions) = {ours}, got {theirs}.")
        for l, directions in enumerate(self.layers):
            for d, layer in enumerate(directions):
                for ours_p, theirs_p in zip(layer.params, lstm_weights_from_torch(lstm, l, reverse=d == 1)):
                    ours_p.copy_(theirs_p)
        return self


@dataclass
class LSTMConfig:
    vocab_size: int
    embed_dim: int = 32
    hidden_dim: int = 64
    num_layers: int = 1
    bidirectional: bool = False  # only for LSTMEncoder: a language model must not see the future
    dropout: float = 0.0  # on the embeddings, between layers and before the head, while training

    def __post_init__(self):
        require_config(self)


class LSTMLanguageModel(nn.Module):
    """``logits, loss = model(idx, targets=None, state=None)``: idx (B, T) -> logits (B, T, V).

    Embedding -> left-to-right ``LSTMEncoder`` -> linear head; position t predicts token t+1.
    ``state`` is (h0, c0), each (num_layers, B, H) like ``nn.LSTM``'s; :meth:`forward_with_state`
    also returns the final state. Dropout (Zaremba et al., 2014) is on the non-recurrent connections:
    the embeddings, between layers, and before the head.
    """

    def __init__(self, config: LSTMConfig):
        super().__init__()
        require_type(config, LSTMConfig, "LSTMLanguageModel takes an LSTMConfig")
        require(not config.bidirectional, "a language model cannot be bidirectional: the right-to-left LSTM would "
                "read the very tokens it has to predict; use LSTMEncoder(bidirectional=True) for a Bi-LSTM encoder.")
        self.config = config
        self.embedding = nn.Embedding(config.vocab_size, config.embed_dim)
        self.encoder = LSTMEncoder(config.embed_dim, config.hidden_dim, config.num_layers, dropout=config.dropout)
        self.dropout = nn.Dropout(config.dropout)
        self.head = nn.Linear(config.hidden_dim, config.vocab_size)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None, state: LSTMState | None = None):
        logits, _ = self.forward_with_state(idx, state)
        loss = None if targets is None else lm_loss(logits, targets)
        return logits, loss

    def forward_with_state(self, idx: torch.Tensor, state: LSTMState | None = None
                           ) -> tuple[torch.Tensor, LSTMState]:
        """idx (B, T), state (h0, c0) or None -> (logits (B, T, V), (h_n, c_n) each (num_layers, B, H))."""
        require_sequence_ids("idx", idx, self.config.vocab_size, self.head.weight.device)
        x = self.dropout(self.embedding(idx))  # (B, T, E)
        hs, final_state = self.encoder(x, state)  # (B, T, H)
        return self.head(self.dropout(hs)), final_state  # (B, T, V)

    @torch.no_grad()
    def load_from_torch(self, embedding: nn.Embedding, lstm: nn.LSTM, head: nn.Linear) -> "LSTMLanguageModel":
        """Copy the weights of nn.Embedding -> nn.LSTM -> nn.Linear into this model; returns it."""
        require_types("load_from_torch", (embedding, lstm, head), (nn.Embedding, nn.LSTM, nn.Linear))
        ours = tuple(self.embedding.weight.shape), tuple(self.head.weight.shape)
        theirs = tuple(embedding.weight.shape), tuple(head.weight.shape)
        require(ours == theirs and head.bias is not None, f"the embedding must be {ours[0]} and the head "
                f"nn.Linear{ours[1][::-1]} with a bias, got {theirs[0]} and nn.Linear{theirs[1][::-1]}.")
        self.encoder.load_from_torch(lstm)
        self.embedding.weight.copy_(embedding.weight)
        self.head.weight.copy_(head.weight)
        self.head.bias.copy_(head.bias)
        return self
