"""course_lib.lstm equals PyTorch's nn.LSTMCell and nn.LSTM with the same weights (CPU, and CUDA when present)."""
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from course_lib.lstm import (LSTMConfig, LSTMEncoder, LSTMLanguageModel, LSTMLayer, fused_lstm_forward, lstm_cell,
                             lstm_forward, lstm_weights_from_torch, set_fast_lstm)

TOL = {torch.float32: dict(rtol=1e-4, atol=1e-5), torch.float64: dict(rtol=1e-10, atol=1e-12)}
DTYPES = [pytest.param(torch.float32, id="float32"), pytest.param(torch.float64, id="float64")]
B, T, D, H, V = 3, 7, 5, 6, 11


@pytest.fixture(autouse=True)
def _seed_and_full_float32():
    """Seeded weights; and no TF32 in cuDNN's float32 LSTM kernels, which would miss float32 tolerances."""
    torch.manual_seed(0)
    before = torch.backends.cudnn.allow_tf32
    torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cudnn.allow_tf32 = before


def _randn(*shape, dtype=torch.float32, device="cpu"):
    return torch.randn(*shape, dtype=dtype).to(device)


def _torch_lm(num_layers, device, dtype):
    """nn.Embedding -> nn.LSTM -> nn.Linear, the same architecture from PyTorch's parts."""
    parts = (nn.Embedding(V, D), nn.LSTM(D, H, num_layers=num_layers, batch_first=True), nn.Linear(H, V))
    return [p.to(device, dtype) for p in parts]


def _ids(device, length=T):
    return torch.randint(V, (B, length)).to(device)


# ---------------------------------------------------------------------------
# the cell and the loop


@pytest.mark.parametrize("dtype", DTYPES)
def test_lstm_cell_equals_nn_lstm_cell(dtype, device):
    cell = nn.LSTMCell(D, H).to(device, dtype)
    x_t, h, c = _randn(B, D, dtype=dtype, device=device), _randn(B, H, dtype=dtype, device=device), \
        _randn(B, H, dtype=dtype, device=device)
    h_t, c_t = lstm_cell(x_t, h, c, *lstm_weights_from_torch(cell))
    expected_h, expected_c = cell(x_t, (h, c))
    assert h_t.shape == c_t.shape == (B, H) and h_t.device.type == device.type and h_t.dtype == dtype
    torch.testing.assert_close(h_t, expected_h, **TOL[dtype])
    torch.testing.assert_close(c_t, expected_c, **TOL[dtype])


def test_lstm_cell_follows_the_gate_equations():
    """The docstring's equations, with the weights split by hand into PyTorch's order i, f, g, o."""
    x_t, h, c = _randn(B, D, dtype=torch.float64), _randn(B, H, dtype=torch.float64), _randn(B, H, dtype=torch.float64)
    W_ih, W_hh, b_ih, b_hh = _randn(4 * H, D, dtype=torch.float64), _randn(4 * H, H, dtype=torch.float64), \
        _randn(4 * H, dtype=torch.float64), _randn(4 * H, dtype=torch.float64)
    pre = {gate: x_t @ W_ih[k * H:(k + 1) * H].T + b_ih[k * H:(k + 1) * H] + h @ W_hh[k * H:(k + 1) * H].T
           + b_hh[k * H:(k + 1) * H] for k, gate in enumerate("ifgo")}
    i, f, g, o = torch.sigmoid(pre["i"]), torch.sigmoid(pre["f"]), torch.tanh(pre["g"]), torch.sigmoid(pre["o"])
    expected_c = f * c + i * g
    h_t, c_t = lstm_cell(x_t, h, c, W_ih, W_hh, b_ih, b_hh)
    torch.testing.assert_close(c_t, expected_c, **TOL[torch.float64])
    torch.testing.assert_close(h_t, o * torch.tanh(expected_c), **TOL[torch.float64])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("forward", [lstm_forward, fused_lstm_forward], ids=["loop", "fused"])
def test_lstm_forward_equals_nn_lstm(dtype, forward, device):
    lstm = nn.LSTM(D, H, batch_first=True).to(device, dtype)
    x = _randn(B, T, D, dtype=dtype, device=device)
    h0, c0 = _randn(B, H, dtype=dtype, device=device), _randn(B, H, dtype=dtype, device=device)
    hs, (h_T, c_T) = forward(x, (h0, c0), lstm_weights_from_torch(lstm))
    expected_hs, (expected_h, expected_c) = lstm(x, (h0[None], c0[None]))
    torch.testing.assert_close(hs, expected_hs, **TOL[dtype])
    torch.testing.assert_close(h_T, expected_h[0], **TOL[dtype])
    torch.testing.assert_close(c_T, expected_c[0], **TOL[dtype])
    torch.testing.assert_close(forward(x, None, lstm_weights_from_torch(lstm))[0], lstm(x)[0], **TOL[dtype])


def test_fused_path_equals_the_loop_with_gradients(device):
    """The modules' default (fused) and the readable loop: same outputs and same weight gradients (on a GPU, the
    fused path is cuDNN's kernel, whose backward pass needs its forward run in training mode)."""
    layer = LSTMLayer(D, H).double().to(device)
    x = _randn(B, T, D, dtype=torch.float64, device=device)
    grads = {}
    for fast in (False, True):
        layer.fast = fast
        layer.zero_grad()
        hs, (h, c) = layer(x)
        (hs.sin().sum() + c.sum()).backward()
        grads[fast] = (hs.detach(), [p.grad.clone() for p in layer.params])
    torch.testing.assert_close(grads[True][0], grads[False][0], **TOL[torch.float64])
    for fused, loop in zip(grads[True][1], grads[False][1]):
        torch.testing.assert_close(fused, loop, **TOL[torch.float64])
    assert set_fast_lstm(LSTMLanguageModel(LSTMConfig(vocab_size=V)), False).encoder.layers[0][0].fast is False


# ---------------------------------------------------------------------------
# stacked and bidirectional


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("num_layers,bidirectional", [(1, True), (2, False), (2, True)])
@pytest.mark.parametrize("fast", [False, True], ids=["loop", "fused"])
def test_encoder_equals_nn_lstm(dtype, num_layers, bidirectional, fast, device):
    lstm = nn.LSTM(D, H, num_layers=num_layers, bidirectional=bidirectional, batch_first=True).to(device, dtype)
    encoder = set_fast_lstm(LSTMEncoder(D, H, num_layers, bidirectional).to(device, dtype).load_from_torch(lstm), fast)
    rows = num_layers * (2 if bidirectional else 1)
    x = _randn(B, T, D, dtype=dtype, device=device)
    state = (_randn(rows, B, H, dtype=dtype, device=device), _randn(rows, B, H, dtype=dtype, device=device))
    outputs, (h_n, c_n) = encoder(x, state)
    expected, (expected_h, expected_c) = lstm(x, state)
    assert outputs.shape == (B, T, H * (2 if bidirectional else 1)) and h_n.shape == (rows, B, H)
    torch.testing.assert_close(outputs, expected, **TOL[dtype])
    torch.testing.assert_close(h_n, expected_h, **TOL[dtype])
    torch.testing.assert_close(c_n, expected_c, **TOL[dtype])
    torch.testing.assert_close(encoder(x)[0], lstm(x)[0], **TOL[dtype])


def test_bidirectional_halves_see_the_past_and_the_future():
    """One layer: outputs[:, t, :H] depends on x_1..x_t only, outputs[:, t, H:] on x_t..x_T only."""
    encoder = LSTMEncoder(D, H, num_layers=1, bidirectional=True).double()
    x = _randn(B, T, D, dtype=torch.float64)
    changed = x.clone()
    changed[:, 3] += 1.0
    before, after = encoder(x)[0], encoder(changed)[0]
    forward_moved = (before[..., :H] - after[..., :H]).abs().amax(dim=(0, 2)) > 1e-9  # (T,)
    backward_moved = (before[..., H:] - after[..., H:]).abs().amax(dim=(0, 2)) > 1e-9
    assert forward_moved.tolist() == [t >= 3 for t in range(T)]
    assert backward_moved.tolist() == [t <= 3 for t in range(T)]
    stacked = LSTMEncoder(D, H, num_layers=2, bidirectional=True).double()  # layer 2 reads both directions
    assert bool(((stacked(x)[0] - stacked(changed)[0])[:, 0, :H].abs() > 1e-9).any())


# ---------------------------------------------------------------------------
# the language model


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("num_layers", [1, 2])
@pytest.mark.parametrize("fast", [False, True], ids=["loop", "fused"])
def test_lm_equals_embedding_lstm_linear(dtype, num_layers, fast, device):
    embedding, lstm, head = _torch_lm(num_layers, device, dtype)
    model = LSTMLanguageModel(LSTMConfig(V, D, H, num_layers)).to(device, dtype).load_from_torch(embedding, lstm, head)
    set_fast_lstm(model, fast)
    idx, targets = _ids(device), _ids(device)
    state = (_randn(num_layers, B, H, dtype=dtype, device=device), _randn(num_layers, B, H, dtype=dtype, device=device))
    logits, loss = model(idx, targets, state=state)
    hs, (expected_h, expected_c) = lstm(embedding(idx), state)
    expected_logits = head(hs)
    assert logits.shape == (B, T, V) and logits.device.type == device.type
    torch.testing.assert_close(logits, expected_logits, **TOL[dtype])
    torch.testing.assert_close(loss, F.cross_entropy(expected_logits.reshape(-1, V), targets.reshape(-1)), **TOL[dtype])
    h_n, c_n = model.forward_with_state(idx, state)[1]
    torch.testing.assert_close(h_n, expected_h, **TOL[dtype])
    torch.testing.assert_close(c_n, expected_c, **TOL[dtype])
    assert model(idx)[1] is None


@pytest.mark.parametrize("fast", [False, True], ids=["loop", "fused"])
def test_lm_gradients_equal_pytorchs(fast):
    embedding, lstm, head = _torch_lm(2, "cpu", torch.float64)
    model = LSTMLanguageModel(LSTMConfig(V, D, H, num_layers=2)).double().load_from_torch(embedding, lstm, head)
    set_fast_lstm(model, fast)
    idx, targets = _ids("cpu"), _ids("cpu")
    model(idx, targets)[1].backward()
    F.cross_entropy(head(lstm(embedding(idx))[0]).reshape(-1, V), targets.reshape(-1)).backward()
    tol = TOL[torch.float64]
    for l in range(2):
        for ours, theirs in zip(model.encoder.layers[l][0].params, ("weight_ih", "weight_hh", "bias_ih", "bias_hh")):
            torch.testing.assert_close(ours.grad, getattr(lstm, f"{theirs}_l{l}").grad, **tol)
    torch.testing.assert_close(model.embedding.weight.grad, embedding.weight.grad, **tol)
    torch.testing.assert_close(model.head.weight.grad, head.weight.grad, **tol)


def test_state_carries_over_between_calls():
    model = LSTMLanguageModel(LSTMConfig(V, D, H, num_layers=2)).double()
    idx = _ids("cpu", length=10)
    first, state = model.forward_with_state(idx[:, :4])
    second, _ = model(idx[:, 4:], state=state)
    torch.testing.assert_close(torch.cat([first, second], dim=1), model(idx)[0], **TOL[torch.float64])


def test_dropout_only_while_training():
    model = LSTMLanguageModel(LSTMConfig(V, D, H, num_layers=2, dropout=0.5))
    idx = _ids("cpu")
    assert not torch.equal(model(idx)[0], model(idx)[0])  # a new dropout mask each call
    model.eval()
    torch.testing.assert_close(model(idx)[0], model(idx)[0], rtol=0, atol=0)


# ---------------------------------------------------------------------------
# bad input gets a sentence

x_, h_ = torch.ones(B, D), torch.ones(B, H)
W_ih_, W_hh_, b_ = torch.ones(4 * H, D), torch.ones(4 * H, H), torch.ones(4 * H)


@pytest.mark.parametrize("args,error,match", [
    ((x_, h_, h_, torch.ones(4 * H + 1, D), W_hh_, b_, b_), ValueError, "the four gates' rows stacked"),
    ((x_, h_, h_, W_ih_, torch.ones(4 * H, H + 1), b_, b_), ValueError, r"W_hh must have shape \(4H, H\) = \(24, 6\)"),
    ((x_, h_, h_, W_ih_, W_hh_, b_, torch.ones(H)), ValueError, r"b_hh must have shape \(4H,\) with 4H = 24"),
    ((torch.ones(B, D + 1), h_, h_, W_ih_, W_hh_, b_, b_), ValueError, r"x_t must have shape \(B, D\) with D = 5"),
    ((x_, h_, torch.ones(B, H + 1), W_ih_, W_hh_, b_, b_), ValueError, r"c_prev must have shape \(B, H\)"),
    ((x_, h_, h_.double(), W_ih_, W_hh_, b_, b_), TypeError, "c_prev has dtype torch.float64 but W_ih has torch.float32"),
    ((x_, "h", h_, W_ih_, W_hh_, b_, b_), TypeError, "h_prev must be a torch.Tensor"),
])
def test_lstm_cell_bad_input(args, error, match):
    with pytest.raises(error, match=match):
        lstm_cell(*args)


def test_lstm_forward_bad_input():
    params = (W_ih_, W_hh_, b_, b_)
    with pytest.raises(TypeError, match=r"params must be a tuple of the four tensors \(W_ih, W_hh, b_ih, b_hh\)"):
        lstm_forward(torch.ones(B, T, D), None, params[:3])
    with pytest.raises(TypeError, match=r"state must be a pair \(h0, c0\)"):
        lstm_forward(torch.ones(B, T, D), h_, params)
    with pytest.raises(ValueError, match=r"x must have shape \(B, T, D\) with D = 5"):
        lstm_forward(torch.ones(B, T, D + 1), None, params)


def test_models_bad_input():
    with pytest.raises(ValueError, match="a language model cannot be bidirectional"):
        LSTMLanguageModel(LSTMConfig(V, D, H, bidirectional=True))
    with pytest.raises(ValueError, match=r"LSTMConfig.dropout must be a probability in \[0, 1\)"):
        LSTMConfig(V, D, H, dropout=1.0)
    with pytest.raises(ValueError, match="LSTMEncoder.num_layers must be a positive integer"):
        LSTMEncoder(D, H, num_layers=0)
    model = LSTMLanguageModel(LSTMConfig(V, D, H, num_layers=2))
    with pytest.raises(TypeError, match="idx must be an integer"):
        model(torch.zeros(B, T))
    with pytest.raises(ValueError, match=r"h0 must have shape \(num_layers \* dirs, B, H\) = \(2, 3, 6\)"):
        model(_ids("cpu"), state=(torch.zeros(1, B, H), torch.zeros(1, B, H)))
    with pytest.raises(ValueError, match=r"\(input_size, hidden_size, num_layers, directions\) = \(5, 6, 2, 1\)"):
        model.load_from_torch(nn.Embedding(V, D), nn.LSTM(D, H, num_layers=1), nn.Linear(H, V))
    with pytest.raises(ValueError, match=r"the embedding must be \(11, 5\)"):
        model.load_from_torch(nn.Embedding(V + 1, D), nn.LSTM(D, H, num_layers=2), nn.Linear(H, V))
    with pytest.raises(ValueError, match="this nn.LSTM is not bidirectional"):
        lstm_weights_from_torch(nn.LSTM(D, H), reverse=True)
    with pytest.raises(TypeError, match="takes an nn.LSTM or nn.LSTMCell, got GRU"):
        lstm_weights_from_torch(nn.GRU(D, H))
