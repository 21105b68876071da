"""benchmarks/gpu.py, the GPU lane's benchmark: a fast smoke test on the CPU, and the GPU's speed-up when CUDA is present.

The CPU tests time a step or two of each model (the numbers are meaningless, the structure is not);
``test_gpu_is_faster_on_the_transformer`` runs only with CUDA (``COURSE_DEVICE=cuda python -m pytest tests/``).
"""
import importlib.util
from pathlib import Path

import pytest
import torch

from course_lib.transformer import TransformerConfig, TransformerLM, copy_from_torch

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "gpu.py"
_spec = importlib.util.spec_from_file_location("benchmarks_gpu", _PATH)
gpu = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gpu)

pytestmark = pytest.mark.usefixtures("seeded_one_thread")
QUICK = dict(seconds=0.01, warmup=1, max_steps=2)


def test_tokens_per_second_on_the_cpu():
    rows = gpu.transformer_tokens_per_second("cpu", batch_sizes=(2, 4), rounds=2, **QUICK)
    assert [r["batch"] for r in rows] == [2, 4]
    for r in rows:
        assert r["device"] == "cpu" and r["threads"] == 1
        assert r["parameters"] == r["torch_parameters"] == 162_464  # notebook 04's Transformer, 96 characters
        assert r["block"] == 64 and r["tokens_per_step"] == r["batch"] * 64
        for key in ("course_train_tokens_per_s", "torch_train_tokens_per_s", "course_infer_tokens_per_s",
                    "torch_infer_tokens_per_s"):
            assert r[key] > 0, key
        assert r["train_ratio"] == r["course_train_tokens_per_s"] / r["torch_train_tokens_per_s"]
        assert r["infer_ratio"] == r["course_infer_tokens_per_s"] / r["torch_infer_tokens_per_s"]


@pytest.mark.parametrize("norm_first,positional", [(True, "sinusoidal"), (False, "learned")])
def test_the_pytorch_lm_is_the_same_model(norm_first, positional):
    """With PyTorch's weights copied into the course's LM, both give the same logits: the comparison is like for like."""
    config = TransformerConfig(vocab_size=11, block_size=8, d_model=16, num_heads=4, num_layers=2, d_ff=32,
                               norm_first=norm_first, positional=positional)
    theirs, ours = gpu.TorchTransformerLM(config), TransformerLM(config)
    assert sum(p.numel() for p in theirs.parameters()) == sum(p.numel() for p in ours.parameters())
    with torch.no_grad():
        ours.token_embedding.weight.copy_(theirs.token_embedding.weight)
        if positional == "learned":
            ours.position_embedding.weight.copy_(theirs.position_embedding.weight)
        for block, layer in zip(ours.blocks, theirs.encoder.layers):
            copy_from_torch(block, layer)
        if norm_first:
            ours.final_norm.load_state_dict(theirs.encoder.norm.state_dict())
        ours.head.load_state_dict(theirs.head.state_dict())
    idx = torch.randint(11, (3, 8))
    expected, _ = theirs(idx)  # autograd on: PyTorch's plain path
    got, _ = ours(idx)
    torch.testing.assert_close(got, expected, rtol=1e-4, atol=1e-5)
    theirs.eval()
    with torch.no_grad():  # PyTorch's fused inference path, as timed
        torch.testing.assert_close(ours(idx)[0], theirs(idx)[0], rtol=1e-4, atol=1e-5)


def test_training_speedups_on_the_cpu():
    rows = gpu.training_speedups("cpu", batch_scales=(1, 2), cpu_threads=1, **QUICK)
    assert [(r["model"], r["batch_scale"]) for r in rows] == [
        (m, s) for m in ("FFNN", "RNN", "LSTM", "Transformer") for s in (1, 2)]
    notebooks = {"FFNN": 256, "RNN": 32, "LSTM": 32, "Transformer": 32}  # CompareConfig's batches
    for r in rows:
        assert r["batch"] == notebooks[r["model"]] * r["batch_scale"]
        assert ("(notebooks)" in r["setting"]) == (r["batch_scale"] == 1)
        assert r["device"] == "cpu" and r["cpu_threads"] == 1 and r["parameters"] > 0
        assert 1 <= r["cpu_steps"] <= 2 and 1 <= r["device_steps"] <= 2
        assert r["cpu_steps_per_s"] > 0 and r["device_steps_per_s"] > 0
        assert r["speedup"] == r["device_steps_per_s"] / r["cpu_steps_per_s"]
        assert r["goal"] == 10 and r["ok"] == (r["speedup"] >= 10)
    with pytest.raises(ValueError, match="models must be some of"):
        gpu.training_speedups("cpu", models=("GPT-5",), **QUICK)


def test_markdown_rows_name_the_device():
    speedups = gpu.training_speedups("cpu", models=("FFNN",), batch_scales=(1,), **QUICK)
    tokens = gpu.transformer_tokens_per_second("cpu", batch_sizes=(2,), rounds=1, **QUICK)
    lines = gpu.markdown_rows(speedups, tokens)
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("| model") and
            not line.startswith("| device")]
    assert len(rows) == 2
    assert rows[0].startswith("| FFNN | batch 256 windows of 16 (notebooks) | 92,000 | cpu |")
    assert rows[1].startswith("| cpu (1 threads) | 2 x 64 | 162,464 |")
    assert gpu.markdown_rows() == []


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_without_cuda_the_section_says_skipped_and_compares_on_the_cpu():
    lines, result = gpu.gpu_section(None, seconds=0.02, cpu_threads=1)
    assert lines[0] == "GPU benchmarks: skipped: no CUDA."
    assert result["skipped"] == "no CUDA" and result["speedups"] == []
    assert [r["device"] for r in result["tokens_per_s"]] == ["cpu"]
    assert any(line.startswith("| cpu (1 threads) | 32 x 64 |") for line in lines)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_gpu_is_faster_on_the_transformer():
    """At 8x the notebooks' batch (256 blocks of 64), the GPU trains the course's Transformer faster than the CPU."""
    rows = gpu.training_speedups("cuda", seconds=1.0, models=("Transformer",), batch_scales=(8,), warmup=3)
    assert rows[0]["device"] == torch.cuda.get_device_name() and rows[0]["batch"] == 256
    assert rows[0]["speedup"] > 1, rows[0]
    tokens = gpu.transformer_tokens_per_second("cuda", seconds=1.0, batch_sizes=(256,))
    assert tokens[0]["parameters"] == tokens[0]["torch_parameters"]
    assert tokens[0]["course_train_tokens_per_s"] > 0 and tokens[0]["torch_train_tokens_per_s"] > 0
