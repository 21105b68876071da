"""course_lib.rnn equals PyTorch's nn.RNN with the same weights (CPU, and CUDA when present)."""
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from course_lib.rnn import RNNConfig, RNNLanguageModel, rnn_forward, rnn_step, rnn_weights_from_torch
from course_lib.train import TrainConfig, evaluate, sequence_batches, train

TOL = {torch.float32: dict(rtol=1e-4, atol=1e-5), torch.float64: dict(rtol=1e-10, atol=1e-12)}
DTYPES = [pytest.param(torch.float32, id="float32"), pytest.param(torch.float64, id="float64")]
B, T, D, H, V = 3, 7, 5, 6, 11


@pytest.fixture(autouse=True)
def _seed_and_full_float32():
    """Seeded weights; and no TF32 in cuDNN's float32 RNN kernels, which would miss float32 tolerances."""
    torch.manual_seed(0)
    before = torch.backends.cudnn.allow_tf32
    torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cudnn.allow_tf32 = before


def _torch_lm(num_layers, device, dtype):
    """nn.Embedding -> nn.RNN -> nn.Linear, the same architecture from PyTorch's parts."""
    parts = (nn.Embedding(V, D), nn.RNN(D, H, num_layers=num_layers, batch_first=True), nn.Linear(H, V))
    return [p.to(device, dtype) for p in parts]


def _ids(device, length=T):
    return torch.randint(V, (B, length)).to(device)


# ---------------------------------------------------------------------------
# the cell and the loop


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
def test_rnn_forward_equals_nn_rnn(dtype, nonlinearity, device):
    rnn = nn.RNN(D, H, nonlinearity=nonlinearity, batch_first=True).to(device, dtype)
    x = torch.randn(B, T, D, dtype=dtype).to(device)
    h0 = torch.randn(B, H, dtype=dtype).to(device)
    U, W, b = rnn_weights_from_torch(rnn)
    hs, h_T = rnn_forward(x, h0, U, W, b, nonlinearity)
    expected_hs, expected_h_n = rnn(x, h0[None])
    assert hs.shape == (B, T, H) and hs.dtype == dtype and hs.device.type == device.type
    torch.testing.assert_close(hs, expected_hs, **TOL[dtype])
    torch.testing.assert_close(h_T, expected_h_n[0], **TOL[dtype])
    torch.testing.assert_close(rnn_forward(x, None, U, W, b, nonlinearity)[0], rnn(x)[0], **TOL[dtype])


def test_rnn_step_follows_the_lecture_formula(device):
    """h_t = tanh(b + W h_{t-1} + U x_t), one sequence (one column vector) at a time."""
    x_t, h_prev = torch.randn(B, D, dtype=torch.float64).to(device), torch.randn(B, H, dtype=torch.float64).to(device)
    U, W, b = (torch.randn(*s, dtype=torch.float64).to(device) for s in ((H, D), (H, H), (H,)))
    h_t = rnn_step(x_t, h_prev, U, W, b)
    for row in range(B):
        torch.testing.assert_close(h_t[row], torch.tanh(b + W @ h_prev[row] + U @ x_t[row]), **TOL[torch.float64])


def test_rnn_forward_is_rnn_step_repeated(device):
    x, h = torch.randn(B, T, D, dtype=torch.float64).to(device), torch.randn(B, H, dtype=torch.float64).to(device)
    U, W, b = (torch.randn(*s, dtype=torch.float64).to(device) / 2 for s in ((H, D), (H, H), (H,)))
    hs, h_T = rnn_forward(x, h, U, W, b)
    for t in range(T):
        h = rnn_step(x[:, t], h, U, W, b)
        torch.testing.assert_close(hs[:, t], h, **TOL[torch.float64])
    assert torch.equal(h_T, hs[:, -1])


# ---------------------------------------------------------------------------
# the language model


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("num_layers", [1, 2])
def test_lm_equals_embedding_rnn_linear(dtype, num_layers, device):
    embedding, rnn, head = _torch_lm(num_layers, device, dtype)
    model = RNNLanguageModel(RNNConfig(V, D, H, num_layers)).to(device, dtype).load_from_torch(embedding, rnn, head)
    idx, targets = _ids(device), _ids(device)
    state = torch.randn(num_layers, B, H, dtype=dtype).to(device)
    logits, loss = model(idx, targets, state=state)
    hs, expected_state = rnn(embedding(idx), state)
    expected_logits = head(hs)
    assert logits.shape == (B, T, V) and logits.device.type == device.type
    torch.testing.assert_close(logits, expected_logits, **TOL[dtype])
    torch.testing.assert_close(loss, F.cross_entropy(expected_logits.reshape(-1, V), targets.reshape(-1)), **TOL[dtype])
    torch.testing.assert_close(model.forward_with_state(idx, state)[1], expected_state, **TOL[dtype])
    no_targets = model(idx)
    assert no_targets[1] is None
    torch.testing.assert_close(no_targets[0], head(rnn(embedding(idx))[0]), **TOL[dtype])


def test_gradients_equal_pytorchs(device):
    embedding, rnn, head = _torch_lm(1, device, torch.float64)
    model = RNNLanguageModel(RNNConfig(V, D, H)).to(device, torch.float64).load_from_torch(embedding, rnn, head)
    idx, targets = _ids(device), _ids(device)
    model(idx, targets)[1].backward()
    F.cross_entropy(head(rnn(embedding(idx))[0]).reshape(-1, V), targets.reshape(-1)).backward()
    layer = model.layers[0]
    tol = TOL[torch.float64]
    torch.testing.assert_close(layer.U.grad, rnn.weight_ih_l0.grad, **tol)
    torch.testing.assert_close(layer.W.grad, rnn.weight_hh_l0.grad, **tol)
    torch.testing.assert_close(layer.b.grad, rnn.bias_ih_l0.grad, **tol)  # d(b_ih + b_hh)/d b_ih = 1
    torch.testing.assert_close(model.V.grad, head.weight.grad, **tol)
    torch.testing.assert_close(model.embedding.weight.grad, embedding.weight.grad, **tol)
    assert all(p.grad is not None and bool(p.grad.abs().sum() > 0) for p in model.parameters())


def test_state_carries_over_between_calls():
    model = RNNLanguageModel(RNNConfig(V, D, H, num_layers=2)).double()
    idx = _ids("cpu", length=10)
    whole, _ = model(idx)
    first, state = model.forward_with_state(idx[:, :4])
    second, _ = model(idx[:, 4:], state=state)
    torch.testing.assert_close(torch.cat([first, second], dim=1), whole, **TOL[torch.float64])


def test_learns_a_repeating_sequence():
    ids = torch.arange(4).repeat(200)  # 0 1 2 3 0 1 2 3 ...: each token fixes the next one
    model = RNNLanguageModel(RNNConfig(vocab_size=4, embed_dim=8, hidden_dim=16))
    draw = sequence_batches(ids, block_size=12, batch_size=8)
    before = evaluate(model, [draw(torch.Generator().manual_seed(1))])["loss"]
    train(model, draw, TrainConfig(steps=60, lr=3e-2, progress=False))
    after = evaluate(model, [draw(torch.Generator().manual_seed(1))])["loss"]
    assert before > 1.0 and after < 0.1, (before, after)


# ---------------------------------------------------------------------------
# bad input gets a sentence

x_, h_ = torch.ones(B, D), torch.ones(B, H)
U_, W_, b_ = torch.ones(H, D), torch.ones(H, H), torch.ones(H)


@pytest.mark.parametrize("args,error,match", [
    (([[1.0]], h_, U_, W_, b_), TypeError, "x_t must be a torch.Tensor of shape"),
    ((x_.long(), h_, U_, W_, b_), TypeError, "x_t must hold floating-point numbers"),
    ((torch.ones(B, D + 1), h_, U_, W_, b_), ValueError, r"x_t must have shape \(B, D\) with D = 5"),
    ((x_, torch.ones(B + 1, H), U_, W_, b_), ValueError, r"h_prev must have shape \(B, H\) with B = 3 rows"),
    ((x_, h_, U_, torch.ones(H, H + 1), b_), ValueError, r"W must have shape \(H, H\)"),
    ((x_, h_, U_, W_, torch.ones(H, 1)), ValueError, r"b must have shape \(H,\)"),
    ((x_, h_, U_.double(), W_, b_), TypeError, "W has dtype torch.float32 but U has torch.float64"),
    ((x_, h_, U_, W_, b_, "sigmoid"), ValueError, "nonlinearity must be one of tanh, relu, identity"),
])
def test_rnn_step_bad_input(args, error, match):
    with pytest.raises(error, match=match):
        rnn_step(*args)


@pytest.mark.parametrize("args,error,match", [
    ((torch.ones(B, D), None, U_, W_, b_), ValueError, r"x must have shape \(B, T, D\)"),
    ((torch.ones(B, 0, D), None, U_, W_, b_), ValueError, "at least one time step"),
    ((torch.ones(B, T, D), torch.ones(B, H + 1), U_, W_, b_), ValueError, r"h0 must have shape \(B, H\)"),
    ((torch.ones(B, T, D).double(), None, U_, W_, b_), TypeError, "x has dtype torch.float64 but U has torch.float32"),
])
def test_rnn_forward_bad_input(args, error, match):
    with pytest.raises(error, match=match):
        rnn_forward(*args)


def test_lm_bad_input():
    model = RNNLanguageModel(RNNConfig(V, D, H))
    with pytest.raises(TypeError, match="idx must be an integer"):
        model(torch.zeros(B, T))
    with pytest.raises(ValueError, match=r"token ids of shape \(batch, T\)"):
        model(torch.zeros(T, dtype=torch.long))
    with pytest.raises(ValueError, match=r"token ids must lie in \[0, 11\)"):
        model(torch.full((B, T), V))
    with pytest.raises(ValueError, match=r"state must have shape \(num_layers, B, H\), got shape \(3, 6\)"):
        model(_ids("cpu"), state=torch.zeros(B, H))
    with pytest.raises(ValueError, match=r"state must have shape \(num_layers, B, H\) = \(1, 3, 6\)"):
        model(_ids("cpu"), state=torch.zeros(2, B, H))
    with pytest.raises(ValueError, match="logits .* and targets .* do not match"):
        model(_ids("cpu"), targets=torch.zeros(B, dtype=torch.long))
    with pytest.raises(ValueError, match="RNNConfig.hidden_dim must be a positive integer"):
        RNNConfig(V, D, 0)
    with pytest.raises(TypeError, match="takes an RNNConfig"):
        RNNLanguageModel({"vocab_size": V})


def test_load_from_torch_bad_input():
    model = RNNLanguageModel(RNNConfig(V, D, H))
    embedding, rnn, head = _torch_lm(1, "cpu", torch.float32)
    with pytest.raises(ValueError, match="must have this model's sizes"):
        model.load_from_torch(embedding, nn.RNN(D, H, nonlinearity="relu"), head)
    with pytest.raises(ValueError, match="must have this model's sizes"):
        model.load_from_torch(embedding, nn.RNN(D, H + 1), head)
    with pytest.raises(TypeError, match=r"takes \(nn.Embedding, nn.RNN, nn.Linear\), got \(Embedding, LSTM, Linear\)"):
        model.load_from_torch(embedding, nn.LSTM(D, H), head)
    with pytest.raises(ValueError, match="one-directional nn.RNN with bias=True"):
        rnn_weights_from_torch(nn.RNN(D, H, bidirectional=True))
    with pytest.raises(ValueError, match=r"layer must be an integer in \[0, 1\)"):
        rnn_weights_from_torch(rnn, layer=1)
