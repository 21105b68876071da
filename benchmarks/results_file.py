"""Where a benchmark keeps what it measured: ``benchmarks/results/<name>.json``, with the machine and the date.

The README's "Measured" section is rendered from these files (``benchmarks/measured_table.py``), so a
number in it always names the run that produced it.
"""
from __future__ import annotations

import datetime
import json
import os
import platform
from pathlib import Path

import torch

RESULTS = Path(__file__).resolve().parent / "results"


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict:
    """The date, the machine and how busy it was (the 1-minute load average) when this is called."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {"date": datetime.datetime.now().isoformat(timespec="minutes"), "cpu": cpu_name(), "cores": os.cpu_count(),
            "load_1min": round(load, 2) if load is not None else None, "torch": torch.__version__,
            "cuda": torch.cuda.is_available()}


def save(name: str, measured: dict, meta: dict | None = None) -> Path:
    """Write ``{"meta": ..., **measured}`` to benchmarks/results/<name>.json; returns the path."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps({"meta": meta or machine(), **measured}, indent=1) + "\n", encoding="utf-8")
    return path


def write_result(result: dict, paths) -> None:
    """Write a benchmark's ``result`` as JSON to each of ``paths`` (its results file and the copy a notebook reads);
    then say where, and the run's wall and CPU seconds."""
    text = json.dumps(result, indent=1) + "\n"
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    print(f"{result['wall_seconds']} s wall, {result['cpu_seconds']} s CPU")


def load(name: str) -> dict | None:
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
