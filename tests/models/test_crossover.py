"""The crossover curves: training compute, where one curve goes below another, the shipped results, the sentences
notebook 06 writes from them, the script."""
import copy
import importlib.util
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import matplotlib
import pytest
import torch
from torch import nn

matplotlib.use("Agg")

from course_lib.compare import (CROSSOVER_ASSET, CROSSOVER_SPLITS, MODELS, CompareConfig, ModelResult, bits_at,
                                build_model, crossover_curve, crossover_table, flops_per_char, load_crossover,
                                ngram_baseline, ngram_fit_operations, ngram_search_operations, overtakes,
                                plot_crossover)
from course_lib.crossover_summary import crossover_summary, ranking
from course_lib.data import stdlib_source_text, stdlib_sources

ROOT = Path(__file__).resolve().parents[2]


def test_flops_per_char_is_six_times_the_non_embedding_weights():
    config = CompareConfig()
    for name in ("FFNN", "RNN", "LSTM"):
        model = build_model(name, config.settings(name), 50)
        embedding = sum(p.numel() for m in model.modules() if isinstance(m, nn.Embedding) for p in m.parameters())
        assert embedding > 0
        n = sum(p.numel() for p in model.parameters()) - embedding
        assert flops_per_char(model) == 6 * n
    settings = config.settings("Transformer")
    model = build_model("Transformer", settings, 50)
    embedding = sum(p.numel() for m in model.modules() if isinstance(m, nn.Embedding) for p in m.parameters())
    n = sum(p.numel() for p in model.parameters()) - embedding
    attention = 6 * settings.sizes["num_layers"] * settings.context * settings.sizes["d_model"]
    assert flops_per_char(model, settings.context) == 6 * n + attention


def test_ngram_operations_grow_with_order_and_text():
    assert ngram_fit_operations(3, 1024) == 1024 * (3 * 4 + 2 * 3 * 10)
    assert ngram_fit_operations(4, 1024) > ngram_fit_operations(3, 1024)
    assert ngram_fit_operations(3, 2048) > 2 * ngram_fit_operations(3, 1024)
    search = ngram_search_operations((2, 3), 1000, 0.1, best=3)
    assert search == ngram_fit_operations(2, 900) + ngram_fit_operations(3, 900) + ngram_fit_operations(3, 1000)


def _curve(points):
    return [{"flops": x, "bits_per_char": y} for x, y in points]


def test_overtakes():
    ngram = _curve([(1e6, 3.0), (1e8, 1.5)])
    neural = _curve([(1e10, 2.0), (1e11, 1.6), (1e12, 1.4), (1e13, 1.3)])
    assert overtakes(neural, ngram) is None  # beyond the n-gram's last point nothing is compared ...
    assert overtakes(neural, ngram, hold_last=True) == 1e12  # ... unless its last value is held
    assert overtakes(_curve([(1e10, 2.0), (1e11, 1.4), (1e12, 1.6)]), ngram, hold_last=True) is None  # not for good
    slow = _curve([(1e10, 3.0), (1e11, 2.0), (1e12, 1.8)])
    fast = _curve([(1e10, 2.5), (1e11, 2.2), (1e12, 1.7)])
    assert overtakes(fast, slow) == 1e12  # below at 1e10, above at 1e11, below from 1e12 on
    assert bits_at(slow, 1e11) == 2.0 and bits_at(slow, 1e9) == 3.0 and abs(bits_at(slow, 10 ** 10.5) - 2.5) < 1e-12
    assert overtakes(slow, fast) is None
    assert overtakes(_curve([(3e10, 2.4)]), slow) == 3e10  # interpolated in log compute: 3.0 - 0.477 = 2.52


def _script():
    spec = importlib.util.spec_from_file_location("crossover_script", ROOT / "benchmarks" / "crossover.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NEURAL = [m for m in MODELS if m != "n-gram"]


def test_the_shipped_curves_are_the_benchmarks_results():
    shipped = load_crossover()
    assert shipped == json.loads((ROOT / "benchmarks" / "results" / "crossover.json").read_text(encoding="utf-8"))
    assert CROSSOVER_ASSET.parent.name == "assets"
    assert set(shipped["curves"]) == set(NEURAL)
    assert shipped["command"].startswith("python benchmarks/crossover.py")
    for key in ("date", "cpu", "cores", "torch"):
        assert shipped["meta"][key], key
    assert shipped["meta"]["torch_threads"] == 1
    budget = shipped["budget_flops"]
    for name, curve in shipped["curves"].items():
        assert len(curve) >= 5, name
        flops = [p["flops"] for p in curve]
        assert flops == sorted(flops) and len(set(flops)) == len(flops), name
        # every neural model gets the same compute: its last checkpoint is the budget, within half a step
        per_step = shipped["models"][name]["flops_per_char"] * curve[-1]["train_chars"] / curve[-1]["steps"]
        assert abs(flops[-1] - budget) <= per_step / 2, name
        assert curve[-1]["steps"] == shipped["models"][name]["steps"]
        assert shipped["models"][name]["lr"] in shipped["schedule"]["lr_grid"]
        assert len(shipped["models"][name]["lr_search_dev_bits"]) == len(shipped["schedule"]["lr_grid"])
        for p in curve:
            assert set(p["bits_per_char"]) == set(CROSSOVER_SPLITS)
            assert all(0 < b < shipped["uniform_bits"] for b in p["bits_per_char"].values()), (name, p)
    # the n-gram's last fit counts all the training text
    assert shipped["ngram"]["points"][-1]["train_chars"] == shipped["corpus"]["train_chars"]


def test_the_held_out_files_are_whole_files_never_trained_on():
    shipped = load_crossover()
    files, chars = shipped["corpus"]["files"], shipped["corpus"]["chars"]
    assert not set(files["held_out_files"]) & set(files["training"])
    assert not set(files["dev"]) & (set(files["training"]) | set(files["held_out_files"]))
    assert files["continuation"][:1] == files["training"][-1:]  # the old split: the rest of the last training file
    start = chars["held_out_start"]
    assert start >= shipped["corpus"]["max_chars"]
    text = stdlib_source_text(start + 200, shipped["corpus"]["seed"])
    first = next(f for f in stdlib_sources() if f.name == files["held_out_files"][0])
    assert text[start:start + 200] == first.read_text(encoding="utf-8").replace("\t", "    ")[:200]


def test_lr_schedule_warms_up_then_decays():
    script = _script()
    total = 1000
    factors = [script.lr_factor(step, total) for step in range(1, total + 1)]
    warmup = round(script.WARMUP_FRACTION * total)
    assert factors[0] == 1 / warmup and factors[warmup - 1] == 1.0
    assert all(a <= b for a, b in zip(factors[:warmup], factors[1:warmup]))
    assert all(a >= b for a, b in zip(factors[warmup:], factors[warmup + 1:]))
    assert abs(factors[-1] - script.FINAL_LR_FRACTION) < 1e-12
    model = nn.Linear(2, 1)
    optimizer = script.scheduled_adamw(model, 0.01, 10)
    seen = []
    for _ in range(10):
        seen.append(optimizer.param_groups[0]["lr"])
        model(torch.ones(1, 2)).sum().backward()
        optimizer.step()
    assert seen == [0.01 * script.lr_factor(step, 10) for step in range(1, 11)]


def test_plot_and_table():
    data = load_crossover()
    live = [ModelResult("LSTM", "64 chars", 1000, 10, 1.0, 1000.0, 3.0, 100, 96, train_flops=1e10),
            ModelResult("n-gram", "order 8", 1000, None, 1.0, 1000.0, 1.6, 100, 96, train_flops=1e9)]
    axes = plot_crossover(data, live=live)
    assert len(axes) == 2 and all(ax.get_xscale() == "log" for ax in axes)
    labels = [line.get_label() for line in axes[1].get_lines()]
    assert "LSTM: this notebook's run" in labels and "n-gram: this notebook's run" not in labels
    assert all(name in labels for name in NEURAL)
    baselines = [line for line in axes[0].get_lines() if line.get_label().startswith("n-gram, all")]
    assert len(baselines) == 1 and set(baselines[0].get_ydata()) == {ngram_baseline(data, "held_out_files")}
    matplotlib.pyplot.close("all")
    table = crossover_table(data)
    assert len(table.splitlines()) == 2 + len(MODELS)
    lstm = data["curves"]["LSTM"][-1]["bits_per_char"]
    assert f"| {lstm['held_out_files']:.3f} | {lstm['continuation']:.3f} |" in table


def test_summary_is_written_from_the_results():
    """Every number the notebook says about the crossover comes from the results: change one, the prose follows."""
    data = load_crossover()
    text = crossover_summary(data)
    for split in CROSSOVER_SPLITS:
        for name in NEURAL:
            assert f"{name} {data['curves'][name][-1]['bits_per_char'][split]:.2f}" in text
        assert f"{ngram_baseline(data, split):.2f}" in text
    assert f"{data['budget_flops']:.1e} FLOPs" in text
    assert data["corpus"]["files"]["continuation"][0] in text
    changed = copy.deepcopy(data)
    changed["curves"]["Transformer"][-1]["bits_per_char"]["held_out_files"] = 0.123
    changed["ngram"]["points"][-1]["bits_per_char"]["continuation"] = 0.456
    new = crossover_summary(changed)
    assert "Transformer 0.12" in new and "n-gram's 0.46" in new and new != text
    assert ranking(changed, "held_out_files")[0] == ("Transformer", 0.123)
    # and the notebook types none of them: its crossover section's Markdown has no measured number in it
    source = (ROOT / "solutions" / "src" / "06_transformer.py").read_text(encoding="utf-8")
    start = source.index("### Seconds are not the whole story")
    section = source[start:source.index("\n# ## ", start)]
    assert "crossover_summary(" in section
    prose = "\n".join(line for line in section.splitlines() if line.startswith("# "))
    assert not re.findall(r"\b\d\.\d\d\b|\d\.\de[+-]?\d+", prose), "a measured number typed into the prose"


@pytest.mark.slow
def test_the_script_quick(tmp_path):
    """--quick: a small corpus and budget; every neural model gets the same compute and both splits are scored."""
    out = tmp_path / "crossover.json"
    env = {"PATH": str(Path(sys.executable).parent), "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1",
           "COURSE_FAST": "1"}  # the script must not be shortened by the notebooks' setting
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "crossover.py"), "--quick", "--out", str(out)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    assert set(result["curves"]) == set(NEURAL)
    assert result["command"] == f"python benchmarks/crossover.py --quick --out {out}"
    for name in NEURAL:
        curve = crossover_curve(result, name, "held_out_files")
        assert all(math.isfinite(p["flops"]) and p["flops"] > 0 for p in curve), name
        assert result["curves"][name][-1]["steps"] == result["models"][name]["steps"]  # COURSE_FAST did not cut it
        per_step = result["models"][name]["flops_per_char"] * result["curves"][name][-1]["train_chars"] / \
            result["models"][name]["steps"]
        assert abs(curve[-1]["flops"] - result["budget_flops"]) <= per_step / 2, name
