"""course_lib.transformer equals PyTorch's own layers with copied weights (CPU, and CUDA when present).

PyTorch's masks mean True = blocked; ours mean True = may attend, so the tests pass ``~mask`` to PyTorch.
PyTorch's layers are run with autograd on, so they take their plain (not the fused inference) path.
"""
import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from course_lib.attention import causal_mask
from course_lib.train import TrainConfig, sample, sequence_batches, train
from course_lib.transformer import (BlockConfig, DecoderBlock, EncoderBlock, MultiHeadAttention, TransformerConfig,
                                    TransformerLM, copy_from_torch, positional_encoding, positional_shift_matrices,
                                    set_fast_attention)

TOL = {torch.float32: dict(rtol=1e-4, atol=1e-5), torch.float64: dict(rtol=1e-10, atol=1e-12)}
DTYPES = [pytest.param(torch.float32, id="float32"), pytest.param(torch.float64, id="float64")]
B, T, S, D_MODEL, HEADS, D_FF = 3, 6, 5, 16, 4, 32


pytestmark = pytest.mark.usefixtures("seeded_one_thread")


def _randn(*shape, dtype=torch.float32, device="cpu"):
    return torch.randn(*shape, dtype=dtype).to(device)


def _keep(lengths, length, device):
    """(B, length) key padding mask, True for the first ``lengths[b]`` (real) tokens of row b."""
    return (torch.arange(length)[None, :] < torch.tensor(lengths)[:, None]).to(device)


def _masks(kind, device, t_q=T, t_k=T):
    """(mask, key_padding_mask) in our convention; at least key 0 stays visible to every query."""
    causal = causal_mask(t_q, device=device) if kind in ("causal", "causal+padding") else None
    padding = _keep([t_k, 2, 4][:B], t_k, device) if kind in ("padding", "causal+padding") else None
    return causal, padding


def _not(mask):
    return None if mask is None else ~mask


# ---------------------------------------------------------------------------
# positional encoding


def test_positional_encoding_follows_the_formula(device):
    pe = positional_encoding(7, 6, device=device, dtype=torch.float64)
    assert pe.shape == (7, 6) and pe.device.type == device.type and pe.dtype == torch.float64
    for pos in range(7):
        for i in range(3):
            angle = pos / 10000 ** (2 * i / 6)
            assert math.isclose(pe[pos, 2 * i].item(), math.sin(angle), abs_tol=1e-12)
            assert math.isclose(pe[pos, 2 * i + 1].item(), math.cos(angle), abs_tol=1e-12)
    assert positional_encoding(3, 4).dtype == torch.float32
    torch.testing.assert_close(positional_encoding(1, 4)[0], torch.tensor([0.0, 1.0, 0.0, 1.0]))


@pytest.mark.parametrize("offset", [1, 5, -3])
def test_shift_matrices_turn_pe_pos_into_pe_pos_plus_k(offset):
    d_model, length = 8, 20
    pe = positional_encoding(length, d_model, dtype=torch.float64)
    M = positional_shift_matrices(offset, d_model)  # (4, 2, 2)
    assert M.shape == (d_model // 2, 2, 2)
    start, stop = max(0, -offset), length - max(0, offset)
    pairs = pe[start:stop].view(-1, d_model // 2, 2)  # (positions, frequency, (sin, cos))
    shifted = torch.einsum("fij,pfj->pfi", M, pairs).reshape(-1, d_model)
    torch.testing.assert_close(shifted, pe[start + offset:stop + offset], rtol=1e-10, atol=1e-12)
    whole = torch.block_diag(*M)  # (d_model, d_model): the same map for every position
    torch.testing.assert_close(pe[start:stop] @ whole.T, pe[start + offset:stop + offset], rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(M @ M.transpose(1, 2), torch.eye(2, dtype=torch.float64).expand_as(M))  # rotations


def test_positional_encoding_refuses_odd_or_bad_sizes():
    with pytest.raises(ValueError, match="d_model must be even"):
        positional_encoding(4, 5)
    with pytest.raises(ValueError, match="max_len must be a positive integer"):
        positional_encoding(0, 4)
    with pytest.raises(TypeError, match="offset must be an integer"):
        positional_shift_matrices(1.5, 4)


# ---------------------------------------------------------------------------
# multi-head attention


def _attention_pair(dtype, device, bias=True):
    theirs = nn.MultiheadAttention(D_MODEL, HEADS, bias=bias, batch_first=True).to(device, dtype)
    ours = copy_from_torch(MultiHeadAttention(D_MODEL, HEADS, bias=bias).to(device, dtype), theirs)
    return ours, theirs


@pytest.mark.parametrize("kind", ["none", "causal", "padding", "causal+padding"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_self_attention_equals_pytorch(kind, dtype, device):
    ours, theirs = _attention_pair(dtype, device)
    x = _randn(B, T, D_MODEL, dtype=dtype, device=device)
    mask, padding = _masks(kind, device)
    out, weights = ours(x, x, x, mask, key_padding_mask=padding, need_weights=True)
    expected, expected_weights = theirs(x, x, x, attn_mask=_not(mask), key_padding_mask=_not(padding),
                                        need_weights=True, average_attn_weights=False)
    torch.testing.assert_close(out, expected, **TOL[dtype])
    torch.testing.assert_close(weights, expected_weights, **TOL[dtype])  # (B, h, T, T)
    _, averaged = ours(x, x, x, mask, key_padding_mask=padding, need_weights=True, average_weights=True)
    _, expected_averaged = theirs(x, x, x, attn_mask=_not(mask), key_padding_mask=_not(padding))
    torch.testing.assert_close(averaged, expected_averaged, **TOL[dtype])  # (B, T, T)
    fast, no_weights = ours(x, x, x, mask, key_padding_mask=padding)
    assert no_weights is None
    torch.testing.assert_close(fast, expected, **TOL[dtype])
    if mask is not None or padding is not None:
        assert bool((weights[~torch.broadcast_to(_combined(mask, padding), weights.shape)] == 0).all())


def _combined(mask, padding):
    full = torch.ones(B, 1, T, T, dtype=torch.bool, device=(mask if mask is not None else padding).device)
    if mask is not None:
        full = full & mask
    return full if padding is None else full & padding[:, None, None, :]


@pytest.mark.parametrize("dtype", DTYPES)
def test_cross_attention_equals_pytorch(dtype, device):
    ours, theirs = _attention_pair(dtype, device)
    query, memory = _randn(B, T, D_MODEL, dtype=dtype, device=device), _randn(B, S, D_MODEL, dtype=dtype, device=device)
    padding = _keep([S, 1, 3], S, device)
    out, weights = ours(query, memory, memory, key_padding_mask=padding, need_weights=True)
    expected, expected_weights = theirs(query, memory, memory, key_padding_mask=~padding, average_attn_weights=False)
    assert out.shape == (B, T, D_MODEL) and weights.shape == (B, HEADS, T, S)
    torch.testing.assert_close(out, expected, **TOL[dtype])
    torch.testing.assert_close(weights, expected_weights, **TOL[dtype])


def test_attention_without_bias_equals_pytorch(device):
    ours, theirs = _attention_pair(torch.float64, device, bias=False)
    x = _randn(B, T, D_MODEL, dtype=torch.float64, device=device)
    assert ours.q_proj.bias is None
    torch.testing.assert_close(ours(x, x, x)[0], theirs(x, x, x)[0], **TOL[torch.float64])


def test_fast_path_equals_plain_path(device):
    mha = MultiHeadAttention(D_MODEL, HEADS).to(device)
    x = _randn(B, T, D_MODEL, device=device)
    g = torch.Generator().manual_seed(1)
    mask = (torch.rand(B, T, T, generator=g) > 0.5) | torch.eye(T, dtype=torch.bool)  # (B, T, T), diagonal kept
    mask = mask.to(device)
    mha.fast = False
    plain, weights = mha(x, x, x, mask)
    assert weights is None  # not asked for
    mha.fast = True
    fast, _ = mha(x, x, x, mask)
    torch.testing.assert_close(fast, plain, **TOL[torch.float32])
    mha.fast = None  # automatic: the fast path, and the plain one when weights are wanted
    auto, auto_weights = mha(x, x, x, mask, need_weights=True)
    torch.testing.assert_close(auto, plain, **TOL[torch.float32])
    assert auto_weights.shape == (B, HEADS, T, T)


def test_mask_shapes_agree(device):
    """A (B, 1, T_k) mask, a (B, 1, 1, T_k) mask and key_padding_mask (B, T_k) all mask the same keys."""
    mha = MultiHeadAttention(D_MODEL, HEADS, fast=False).to(device)
    x = _randn(B, T, D_MODEL, device=device)
    keep = _keep([6, 2, 4], T, device)
    by_padding, _ = mha(x, x, x, key_padding_mask=keep)
    torch.testing.assert_close(mha(x, x, x, keep[:, None, :])[0], by_padding, rtol=0, atol=0)
    torch.testing.assert_close(mha(x, x, x, keep[:, None, None, :])[0], by_padding, rtol=0, atol=0)
    per_head = keep[:, None, None, :].expand(B, HEADS, T, T)
    torch.testing.assert_close(mha(x, x, x, per_head)[0], by_padding, rtol=0, atol=0)
    assert not torch.allclose(mha(x, x, x)[0], by_padding)  # the padding did change something


def _mha_call(mha, **changes):
    x = torch.randn(2, 4, 8)
    args = dict(query=x, key=x, value=x, mask=None)
    args.update(changes)
    return lambda: mha(args.pop("query"), args.pop("key"), args.pop("value"), **args)


@pytest.mark.parametrize(
    "changes,error,match",
    [
        (dict(query=[[1.0]]), TypeError, "query must be a torch.Tensor"),
        (dict(key=torch.ones(2, 4, 8, dtype=torch.long)), TypeError, "key must hold floating-point"),
        (dict(query=torch.randn(4, 8)), ValueError, r"query must have shape \(batch, seq_len, d_model=8\)"),
        (dict(value=torch.randn(2, 4, 6)), ValueError, r"value must have shape \(batch, seq_len, d_model=8\)"),
        (dict(value=torch.randn(2, 5, 8)), ValueError, "key and value the length"),
        (dict(query=torch.randn(2, 4, 8, dtype=torch.float64)), TypeError, "query has dtype torch.float64"),
        (dict(mask=torch.zeros(4, 4)), TypeError, "mask must be a bool tensor with True where attention is allowed"),
        (dict(mask=torch.ones(3, 4, dtype=torch.bool)), ValueError, r"mask must be \(T_q, T_k\)"),
        (dict(mask=torch.ones(5, 2, 4, 4, dtype=torch.bool)), ValueError, "broadcastable"),
        (dict(key_padding_mask=torch.ones(4, dtype=torch.bool)), ValueError, r"key_padding_mask must be \(batch, T_k\)"),
        (dict(key_padding_mask=torch.ones(2, 4)), TypeError, "key_padding_mask must be a bool tensor"),
        (dict(need_weights=True, mask=None), ValueError, "fast path .* cannot return attention weights"),
    ],
)
def test_attention_bad_input_gets_a_sentence(changes, error, match):
    mha = MultiHeadAttention(8, 2, fast=True if changes.get("need_weights") else None)
    with pytest.raises(error, match=match):
        _mha_call(mha, **changes)()


def test_attention_bad_sizes_get_a_sentence():
    with pytest.raises(ValueError, match="d_model=10 must be divisible by num_heads=3"):
        MultiHeadAttention(10, 3)
    with pytest.raises(ValueError, match="num_heads must be a positive integer"):
        MultiHeadAttention(8, 0)
    with pytest.raises(ValueError, match=r"dropout must be a probability in \[0, 1\)"):
        MultiHeadAttention(8, 2, dropout=1.5)


# ---------------------------------------------------------------------------
# encoder and decoder blocks


def _encoder_pair(norm_first, dtype, device, activation="relu"):
    theirs = nn.TransformerEncoderLayer(D_MODEL, HEADS, D_FF, dropout=0.0, activation=activation, batch_first=True,
                                        norm_first=norm_first).to(device, dtype).eval()
    config = BlockConfig(D_MODEL, HEADS, D_FF, norm_first=norm_first, activation=activation)
    ours = copy_from_torch(EncoderBlock(config).to(device, dtype).eval(), theirs)
    return ours, theirs


@pytest.mark.parametrize("kind", ["none", "causal", "padding", "causal+padding"])
@pytest.mark.parametrize("norm_first", [False, True], ids=["post-norm", "pre-norm"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_encoder_block_equals_pytorch(norm_first, kind, dtype, device):
    ours, theirs = _encoder_pair(norm_first, dtype, device)
    x = _randn(B, T, D_MODEL, dtype=dtype, device=device)
    mask, padding = _masks(kind, device)
    out = ours(x, mask, key_padding_mask=padding)
    expected = theirs(x, src_mask=_not(mask), src_key_padding_mask=_not(padding))
    assert out.shape == (B, T, D_MODEL)
    torch.testing.assert_close(out, expected, **TOL[dtype])


def test_encoder_block_with_gelu_equals_pytorch(device):
    ours, theirs = _encoder_pair(True, torch.float64, device, activation="gelu")
    x = _randn(B, T, D_MODEL, dtype=torch.float64, device=device)
    torch.testing.assert_close(ours(x), theirs(x), **TOL[torch.float64])


@pytest.mark.parametrize("masked", [False, True], ids=["no-masks", "causal+padding"])
@pytest.mark.parametrize("norm_first", [False, True], ids=["post-norm", "pre-norm"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_decoder_block_equals_pytorch(norm_first, masked, dtype, device):
    theirs = nn.TransformerDecoderLayer(D_MODEL, HEADS, D_FF, dropout=0.0, batch_first=True,
                                        norm_first=norm_first).to(device, dtype).eval()
    ours = copy_from_torch(DecoderBlock(BlockConfig(D_MODEL, HEADS, D_FF, norm_first=norm_first)).to(device, dtype),
                           theirs).eval()
    x, memory = _randn(B, T, D_MODEL, dtype=dtype, device=device), _randn(B, S, D_MODEL, dtype=dtype, device=device)
    mask, padding = _masks("causal+padding", device) if masked else (None, None)
    memory_padding = _keep([S, 1, 3], S, device) if masked else None
    out = ours(x, memory, mask, key_padding_mask=padding, memory_key_padding_mask=memory_padding)
    expected = theirs(x, memory, tgt_mask=_not(mask), tgt_key_padding_mask=_not(padding),
                      memory_key_padding_mask=_not(memory_padding))
    assert out.shape == (B, T, D_MODEL)
    torch.testing.assert_close(out, expected, **TOL[dtype])
    if masked:  # a memory_mask (T, S) forbidding the last memory position equals padding it away in every row
        no_last = torch.ones(T, S, dtype=torch.bool, device=device)
        no_last[:, -1] = False
        torch.testing.assert_close(ours(x, memory, memory_mask=no_last),
                                   theirs(x, memory, memory_mask=~no_last), **TOL[dtype])


def test_copy_from_torch_refuses_what_does_not_fit():
    encoder = EncoderBlock(BlockConfig(D_MODEL, HEADS, D_FF, norm_first=False))
    with pytest.raises(ValueError, match="norm_first=True into a block with norm_first=False"):
        copy_from_torch(encoder, nn.TransformerEncoderLayer(D_MODEL, HEADS, D_FF, batch_first=True, norm_first=True))
    with pytest.raises(ValueError, match="activation gelu into a block with relu"):
        copy_from_torch(encoder, nn.TransformerEncoderLayer(D_MODEL, HEADS, D_FF, activation="gelu"))
    with pytest.raises(ValueError, match=r"cannot copy feed_forward.expand.weight: PyTorch's has shape \(64, 16\)"):
        copy_from_torch(encoder, nn.TransformerEncoderLayer(D_MODEL, HEADS, 64))
    with pytest.raises(ValueError, match="2 heads into one with 4"):
        copy_from_torch(MultiHeadAttention(D_MODEL, HEADS), nn.MultiheadAttention(D_MODEL, 2))
    with pytest.raises(ValueError, match="same bias setting"):
        copy_from_torch(MultiHeadAttention(D_MODEL, HEADS), nn.MultiheadAttention(D_MODEL, HEADS, bias=False))
    with pytest.raises(TypeError, match="got TransformerEncoderLayer into DecoderBlock"):
        copy_from_torch(DecoderBlock(BlockConfig(D_MODEL, HEADS, D_FF)), nn.TransformerEncoderLayer(D_MODEL, HEADS))


def test_block_configs_refuse_bad_settings():
    with pytest.raises(ValueError, match="d_model=10 must be divisible by num_heads=4"):
        BlockConfig(10, 4, 32)
    with pytest.raises(ValueError, match="activation must be one of relu, gelu"):
        BlockConfig(8, 2, 16, activation="tanh")
    with pytest.raises(TypeError, match="blocks take a BlockConfig"):
        EncoderBlock(dict(d_model=8))


# ---------------------------------------------------------------------------
# the language model


def _lm_config(**changes):
    settings = dict(vocab_size=11, block_size=8, d_model=16, num_heads=4, num_layers=2, d_ff=32)
    settings.update(changes)
    return TransformerConfig(**settings)


@pytest.mark.parametrize("positional", ["sinusoidal", "learned"])
@pytest.mark.parametrize("norm_first", [False, True], ids=["post-norm", "pre-norm"])
def test_lm_is_causal(norm_first, positional, device):
    model = TransformerLM(_lm_config(norm_first=norm_first, positional=positional)).to(device).eval()
    idx = torch.randint(11, (2, 8)).to(device)
    logits, loss = model(idx)
    assert logits.shape == (2, 8, 11) and loss is None
    for t in range(7):
        changed = idx.clone()
        changed[:, t + 1:] = (changed[:, t + 1:] + 1) % 11  # every token after position t
        new_logits, _ = model(changed)
        torch.testing.assert_close(new_logits[:, :t + 1], logits[:, :t + 1], **TOL[torch.float32])
        assert not torch.allclose(new_logits[:, t + 1], logits[:, t + 1])  # the change is seen from t+1 on


def test_lm_loss_is_cross_entropy(device):
    model = TransformerLM(_lm_config()).to(device)
    idx, targets = torch.randint(11, (3, 7)).to(device), torch.randint(11, (3, 7)).to(device)
    logits, loss = model(idx, targets)
    expected = F.cross_entropy(logits.reshape(-1, 11), targets.reshape(-1))
    torch.testing.assert_close(loss, expected, **TOL[torch.float32])
    assert abs(loss.item() - math.log(11)) < 1.5  # an untrained model is close to uniform


def test_lm_fast_path_equals_plain_path(device):
    model = TransformerLM(_lm_config(num_layers=3)).to(device).eval()
    idx = torch.randint(11, (4, 8)).to(device)
    plain, _ = set_fast_attention(model, False)(idx)
    fast, _ = set_fast_attention(model, True)(idx)
    torch.testing.assert_close(fast, plain, **TOL[torch.float32])
    assert all(block.self_attention.fast for block in model.blocks)


def test_tiny_lm_overfits_a_repeated_sequence_and_samples_it(device):
    cycle = torch.randperm(11)  # each token has one successor, so the stream is fully predictable
    stream = cycle.repeat(20)  # (220,)
    model = TransformerLM(_lm_config(num_layers=1, d_model=32, d_ff=64)).to(device)
    history = train(model, sequence_batches(stream, block_size=8, batch_size=16),
                    TrainConfig(steps=100, lr=1e-2, progress=False))
    assert history.train_loss[0] > 1.5 and history.train_loss[-1] < 0.05, history.train_loss[::25]
    prompt = cycle[:1][None].to(device)  # (1, 1)
    out = sample(model, prompt, max_new_tokens=20, context_size=model.block_size, top_k=1)
    assert out.shape == (1, 21)
    assert out[0].tolist() == stream[:21].tolist()  # longer than block_size: the window slides


@pytest.mark.parametrize(
    "idx,error,match",
    [
        (torch.zeros(2, 9, dtype=torch.long), ValueError, r"1 <= T <= block_size=8"),
        (torch.zeros(8, dtype=torch.long), ValueError, r"shape \(batch, T\)"),
        (torch.zeros(2, 4), TypeError, "idx must be an integer"),
        (torch.full((2, 4), 11), ValueError, r"token ids must lie in \[0, 11\)"),
    ],
)
def test_lm_bad_input_gets_a_sentence(idx, error, match):
    with pytest.raises(error, match=match):
        TransformerLM(_lm_config())(idx)


def test_lm_config_refuses_bad_settings():
    with pytest.raises(ValueError, match="positional must be one of sinusoidal, learned"):
        _lm_config(positional="rotary")
    with pytest.raises(ValueError, match="sinusoidal positions need an even d_model"):
        _lm_config(d_model=15, num_heads=3)
    assert _lm_config(d_model=15, num_heads=3, positional="learned").block_config.d_model == 15
    with pytest.raises(ValueError, match="block_size must be a positive integer"):
        _lm_config(block_size=0)
    with pytest.raises(TypeError, match="TransformerLM takes a TransformerConfig"):
        TransformerLM(BlockConfig(8, 2, 16))
