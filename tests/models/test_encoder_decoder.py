"""course_lib.encoder_decoder: the encoder-decoder Transformer against PyTorch's layers, its decoding and its FLOPs."""
import json
from pathlib import Path

import pytest
import torch
from torch import nn

from course_lib import seq2seq
from course_lib.encoder_decoder import (ENCODER_DECODER_ASSET, EncoderDecoderConfig, TransformerSeq2Seq,
                                        load_comparison, mean_training_flops, training_flops)
from course_lib.transformer import copy_from_torch, positional_encoding

ROOT = Path(__file__).resolve().parents[2]
CONFIG = EncoderDecoderConfig(num_symbols=6, d_model=16, num_heads=2, d_ff=24, num_layers=2, max_len=20)


def torch_twin(model: TransformerSeq2Seq):
    """PyTorch's encoder and decoder layers with fresh weights, copied into ``model``'s blocks."""
    torch.manual_seed(1)
    c = model.config
    layers = [nn.TransformerEncoderLayer(c.d_model, c.num_heads, c.d_ff, dropout=0.0, batch_first=True)
              for _ in range(c.num_layers)]
    decoders = [nn.TransformerDecoderLayer(c.d_model, c.num_heads, c.d_ff, dropout=0.0, batch_first=True)
                for _ in range(c.num_layers)]
    for ours, theirs in zip(list(model.encoder) + list(model.decoder), layers + decoders):
        copy_from_torch(ours, theirs)
    return [m.eval() for m in layers], [m.eval() for m in decoders]


def test_teacher_forced_logits_equal_pytorchs_layers_with_the_same_weights():
    torch.manual_seed(0)
    model = TransformerSeq2Seq(CONFIG).eval()
    encoders, decoders = torch_twin(model)
    source, target = seq2seq.reversal_batch(3, 7, CONFIG.num_symbols, torch.Generator().manual_seed(2))
    pe = positional_encoding(7, CONFIG.d_model)
    with torch.no_grad():
        memory = model.source_embedding(source) + pe
        for layer in encoders:
            memory = layer(memory)
        previous = torch.cat([torch.full((3, 1), CONFIG.num_symbols), target[:, :-1]], dim=1)  # start symbol first
        x = model.target_embedding(previous) + pe
        blocked = torch.ones(7, 7, dtype=torch.bool).triu(1)  # PyTorch's convention: True = may not attend
        for layer in decoders:
            x = layer(x, memory, tgt_mask=blocked)
        expected = model.output(x)
        logits, loss = model(source, target)
    torch.testing.assert_close(logits, expected, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(loss, nn.functional.cross_entropy(expected.reshape(-1, 6), target.reshape(-1)))


def test_greedy_decoding_equals_a_step_by_step_loop_and_its_weights_are_distributions():
    torch.manual_seed(0)
    model = TransformerSeq2Seq(CONFIG).eval()
    source, _ = seq2seq.reversal_batch(4, 5, CONFIG.num_symbols, torch.Generator().manual_seed(3))
    with torch.no_grad():
        logits, weights = model.decode(source, need_weights=True)
        previous, stepwise = torch.full((4, 1), CONFIG.num_symbols), []
        memory = model.encode(source)
        for _ in range(5):  # one step at a time, reading back the argmax
            step_logits, _ = model.run_decoder(previous, memory)
            stepwise.append(step_logits[:, -1])
            previous = torch.cat([previous, step_logits[:, -1:].argmax(-1)], dim=1)
    torch.testing.assert_close(logits, torch.stack(stepwise, dim=1), atol=1e-5, rtol=1e-5)
    assert weights.shape == (CONFIG.num_layers, 4, CONFIG.num_heads, 5, 5)
    torch.testing.assert_close(weights.sum(-1), torch.ones(CONFIG.num_layers, 4, CONFIG.num_heads, 5))


def test_decoder_block_with_weights_computes_the_same_output_as_forward():
    torch.manual_seed(0)
    block = TransformerSeq2Seq(CONFIG).decoder[0].eval()
    x, memory = torch.randn(2, 4, 16), torch.randn(2, 6, 16)
    causal = torch.ones(4, 4, dtype=torch.bool).tril()
    out, weights = block.forward_with_cross_weights(x, memory, causal)
    torch.testing.assert_close(out, block(x, memory, causal))
    assert weights.shape == (2, 2, 4, 6)


def test_a_custom_encoder_block_is_used():
    calls = []

    class Recording(nn.Module):
        def forward(self, x, mask):
            calls.append(mask)
            return x

    model = TransformerSeq2Seq(CONFIG, make_encoder_block=Recording)
    model(torch.zeros(2, 3, dtype=torch.long), torch.zeros(2, 3, dtype=torch.long))
    assert calls == [None, None]  # two encoder blocks, no mask on the source


def test_training_flops_count_every_matrix_product_forward_and_backward():
    # a model with one known matrix product: the output layer, (B*T, d) @ (d, V), 2 FLOPs per multiply-add;
    # backward computes two products of the same size (the input's and the weight's gradients)
    class Linear(nn.Module):
        def __init__(self):
            super().__init__()
            self.config = seq2seq.Seq2SeqConfig(num_symbols=5)
            self.output = nn.Linear(3, 5)
            self.embed = nn.Embedding(5, 3)

        def forward(self, source, targets):
            logits = self.output(self.embed(source))
            return logits, nn.functional.cross_entropy(logits.reshape(-1, 5), targets.reshape(-1))

    assert training_flops(Linear(), batch_size=4, length=6) == 3 * (2 * 4 * 6 * 3 * 5)


def test_flops_grow_with_the_batch_and_the_mean_is_over_lengths():
    model = TransformerSeq2Seq(CONFIG)
    assert training_flops(model, 4, 3) == 2 * training_flops(model, 2, 3)
    assert mean_training_flops(model, 2, [2, 3]) == (training_flops(model, 2, 2) + training_flops(model, 2, 3)) / 2
    gru = seq2seq.Seq2Seq(seq2seq.Seq2SeqConfig(6, hidden_size=4, score="additive"))
    assert training_flops(gru, 2, 3) > 0  # the GRU's products are counted too


@pytest.mark.slow
def test_it_learns_to_reverse_a_little():
    from course_lib.device import torch_threads
    from course_lib.train import TrainConfig, train

    torch.manual_seed(0)
    model = TransformerSeq2Seq(EncoderDecoderConfig(4, d_model=32, num_heads=2, d_ff=64, num_layers=1))
    with torch_threads(1):
        history = train(model, seq2seq.reversal_batches([3, 4], 64, 4),
                        TrainConfig(steps=150, lr=5e-3, progress=False))
    assert sum(history.train_loss[-10:]) / 10 < 0.5 * history.train_loss[0]
    assert seq2seq.reversal_accuracy(model, 3, n=100)["symbols"] > 0.6


def test_shipped_results_are_the_benchmarks_and_say_what_the_notebook_reads():
    shipped = load_comparison()
    assert shipped == json.loads((ROOT / "benchmarks" / "results" / "encoder_decoder.json").read_text())
    assert ENCODER_DECODER_ASSET.parent.name == "assets"
    for run in shipped["models"].values():
        points = run["checkpoints"]
        assert [p["steps"] for p in points] == sorted(p["steps"] for p in points)
        assert {"10", "12"} <= set(points[-1]["symbols"])
        assert points[-1]["flops"] == pytest.approx(shipped["budget_flops"], rel=0.05)
    example = shipped["models"]["Transformer"]["example"]
    assert len(example["source"]) == shipped["task"]["example"]["length"]


@pytest.mark.slow
def test_the_benchmark_script_quick(tmp_path):
    """--quick: both models get the same compute, every test length is decoded, the example's maps are saved."""
    import subprocess
    import sys

    out = tmp_path / "encoder_decoder.json"
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "encoder_decoder.py"), "--quick", "--out", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(out.read_text())
    budgets = [run["checkpoints"][-1]["flops"] for run in result["models"].values()]
    assert max(budgets) / min(budgets) < 1.1  # equal compute, up to one step
    for run in result["models"].values():
        assert set(run["checkpoints"][-1]["symbols"]) == {str(n) for n in result["task"]["test_lengths"]}
        assert len(run["example"]["output"]) == result["task"]["example"]["length"]
