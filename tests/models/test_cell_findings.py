"""Notebook 04's sentences about interpretable cells are computed by interpret.cell_findings: here they are made
from the committed results file and every number and every direction they state is checked against that file."""
import json
import re
from pathlib import Path

import numpy as np

from course_lib import interpret

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "char_lstm.json"
KINDS = {"shipped": "shipped", "yours": "notebook", "untrained": "untrained"}


def tables():
    measured = json.loads(RESULTS.read_text())
    abs_r = {k: {p: c["abs_r"] for p, c in measured[v]["cells"].items()} for k, v in KINDS.items()}
    r2 = {k: {p: c["probe_r2"] for p, c in measured[v]["cells"].items()} for k, v in KINDS.items()}
    return abs_r, r2


def test_every_number_said_is_in_the_results_file():
    abs_r, r2 = tables()
    said = " ".join(interpret.cell_findings(abs_r, r2))
    allowed = {f"{v:.2f}" for table in (abs_r, r2) for row in table.values() for v in row.values()}
    allowed |= {f"{abs_r['shipped'][p] - abs_r['yours'][p]:+.2f}" for p in abs_r["shipped"]}
    numbers = re.findall(r"[+-]?\d+\.\d+", said)
    assert numbers
    assert set(numbers) <= allowed | {"1"}, set(numbers) - allowed


def test_directions_said_agree_with_the_results_file():
    abs_r, r2 = tables()
    findings = interpret.cell_findings(abs_r, r2)
    lowered = [p for p in r2["shipped"] if r2["shipped"][p] < r2["yours"][p]]
    raised = [p for p in r2["shipped"] if r2["shipped"][p] > r2["yours"][p]]
    longer = next(s for s in findings if s.startswith("Longer training"))
    assert f"raised the R² on {len(raised)} of 4" in longer and f"lowered it on {len(lowered)}" in longer
    for p in lowered:
        assert f"{p} {r2['yours'][p]:.2f} → {r2['shipped'][p]:.2f}" in longer.split("lowered it on")[1]
    above = sum(r2["shipped"][p] > r2["untrained"][p] for p in r2["shipped"])
    assert f"on {above} of 4 for the shipped one" in findings[0]


def test_region_profile_and_the_string_unit_sentence():
    text = "x = 1  # note\ns = 'ab'\n\"\"\"doc\"\"\"\n"
    regions = interpret.code_regions(text)
    by_char = dict(zip(range(len(text)), regions))
    assert by_char[text.index("#")] == 3 and by_char[text.index("n")] == 3
    assert by_char[text.index("'")] == 1 and by_char[text.index("d")] == 2 and by_char[0] == 0
    values = np.where(regions == 3, 2.0, 0.0)
    profile = interpret.region_profile(values, regions)
    z = (values - values.mean()) / values.std()
    assert abs(profile["comment"] - z[regions == 3].mean()) < 1e-9
    abs_r, r2 = tables()
    prose_like = {"code": -0.5, "one-line string": 1.4, "triple-quoted string": 0.7, "comment": 0.65}
    assert "as high in comments as in docstrings" in interpret.cell_findings(abs_r, r2, (3, -0.3, prose_like))[-1]
    separated = {**prose_like, "comment": -0.4}
    assert "lower in comments than in strings" in interpret.cell_findings(abs_r, r2, (3, -0.3, separated))[-1]
