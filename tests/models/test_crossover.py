"""The crossover curves: training compute, where one curve goes below another, the shipped results, the script."""
import json
import math
import subprocess
import sys
from pathlib import Path

import matplotlib
from torch import nn

matplotlib.use("Agg")

from course_lib.compare import (CROSSOVER_ASSET, MODELS, CompareConfig, ModelResult, bits_at, build_model, crossover_table,
                                flops_per_char, load_crossover, ngram_fit_operations, ngram_search_operations, overtakes,
                                plot_crossover)

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


def test_the_shipped_curves_are_the_benchmarks_results():
    shipped = load_crossover()
    assert shipped == json.loads((ROOT / "benchmarks" / "results" / "crossover.json").read_text(encoding="utf-8"))
    assert CROSSOVER_ASSET.parent.name == "assets"
    assert set(shipped["curves"]) == set(MODELS)
    assert shipped["command"].startswith("python benchmarks/crossover.py")
    for key in ("date", "cpu", "cores", "torch"):
        assert shipped["meta"][key], key
    assert shipped["meta"]["torch_threads"] == 1
    for name, curve in shipped["curves"].items():
        assert len(curve) >= 5, name
        flops = [p["flops"] for p in curve]
        assert flops == sorted(flops) and len(set(flops)) == len(flops), name
        for p in curve:
            assert 0 < p["bits_per_char"] < shipped["uniform_bits"], (name, p)
    # the n-gram's last fit counts all the training text
    assert shipped["curves"]["n-gram"][-1]["train_chars"] == shipped["corpus"]["train_chars"]


def test_plot_crossover_with_live_points():
    data = load_crossover()
    live = [ModelResult("LSTM", "64 chars", 1000, 10, 1.0, 1000.0, 3.0, 100, 96, train_flops=1e10),
            ModelResult("n-gram", "order 8", 1000, None, 1.0, 1000.0, 1.6, 100, 96, train_flops=1e9)]
    ax = plot_crossover(data, live=live)
    assert ax.get_xscale() == "log"
    labels = [line.get_label() for line in ax.get_lines()]
    assert "LSTM: this run" in labels and "n-gram: this run" in labels
    assert all(f"{name} (measured)" in labels for name in MODELS)
    matplotlib.pyplot.close("all")
    table = crossover_table(data, live)
    assert len(table.splitlines()) == 2 + len(MODELS)
    assert "| LSTM |" in table and "1.0e+10, 3.000 |" in table


def test_the_script_quick(tmp_path):
    """--quick: a small corpus and a few steps per model; every model gets a curve with its compute."""
    out = tmp_path / "crossover.json"
    env = {"PATH": str(Path(sys.executable).parent), "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1",
           "COURSE_FAST": "1"}  # the script must not be shortened by the notebooks' setting
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "crossover.py"), "--quick", "--out", str(out)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    assert set(result["curves"]) == set(MODELS)
    assert result["command"] == f"python benchmarks/crossover.py --quick --out {out}"
    assert result["curves"]["LSTM"][-1]["steps"] == 20  # all its steps: COURSE_FAST did not cut it
    for name, curve in result["curves"].items():
        assert all(math.isfinite(p["flops"]) and p["flops"] > 0 for p in curve), name
