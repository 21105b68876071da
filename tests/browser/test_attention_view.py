"""course_lib.attention_view: bertviz's views with their JavaScript inlined, drawn in a browser with no network."""
from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
import torch

from course_lib import attention_view
from course_lib.attention_view import attention_mosaic_png, head_view, model_view

TOKENS = ["[CLS]", "the", "cat", "sat", "[SEP]"]


def weights(layers=3, heads=4, T=len(TOKENS), seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.softmax(torch.randn(layers, heads, T, T, generator=g), dim=-1)  # (layers, heads, T, T)


@pytest.mark.parametrize("view", [head_view, model_view])
def test_the_html_loads_nothing_and_carries_the_libraries(view):
    html = view(weights(), TOKENS).data
    assert "<script src=" not in html, "a script would be fetched from the network"
    assert "require.min.js" not in html
    for library in attention_view.LIBRARIES:  # the shipped files, inlined verbatim
        assert (attention_view.JS_DIR / library).read_text(encoding="utf-8")[:200] in html
    assert '"left_text": ["[CLS]", "the", "cat", "sat", "[SEP]"]' in html
    assert html.count("data:image/png;base64,") == 1  # the static picture under the view


def test_a_tuple_per_layer_gives_the_same_view_as_one_tensor():
    w = weights()

    def strip_ids(html):
        return re.sub(r"(bertviz|course-fallback)-[0-9a-f]{32}", "ID", html)

    assert strip_ids(head_view(w, TOKENS).data) == strip_ids(head_view(tuple(l[None] for l in w), TOKENS).data)


def test_the_static_picture_shows_every_head():
    w = torch.zeros(2, 3, 4, 4)
    w[1, 2] = torch.eye(4)  # one head of the second layer looks at itself
    image = plt.imread(io.BytesIO(attention_mosaic_png(w, gap=2, pixels_per_cell=1)), format="png")
    assert image.shape[:2] == (2 * 4 + 2, 3 * 4 + 2 * 2)  # layers down, heads across, 2-pixel gaps
    dark = image[..., :3].sum(-1) < 1.5
    assert dark.sum() == 4 and all(dark[6 + i, 12 + i] for i in range(4)), "only that head's diagonal is dark"


@pytest.mark.parametrize("bad, message", [
    (torch.rand(4, 5, 5), r"shape \(layers, heads, T, T\)"),
    (torch.rand(1, 2, 5, 4), r"shape \(layers, heads, T, T\)"),
    (torch.rand(1, 2, 6, 6), r"5 tokens but the attention covers T = 6"),
    ([[0.5, 0.5]], r"tuple of \(1, heads, T, T\)"),
    ("weights", r"must be a torch.Tensor"),
])
def test_bad_input_is_named(bad, message):
    with pytest.raises((TypeError, ValueError), match=message):
        head_view(bad, TOKENS)


def test_without_bertviz_the_picture_alone(monkeypatch):
    monkeypatch.setitem(sys.modules, "bertviz", None)  # import bertviz now raises ImportError
    html = model_view(weights(), TOKENS).data
    assert "bertviz is not installed" in html and "<script" not in html
    assert html.count("data:image/png;base64,") == 1


BROWSER_CHECK = textwrap.dedent("""
    import json, sys, time
    sys.path[:0] = {paths!r}  # lab_session, and the support helpers it imports
    from lab_session import chromium
    found = {{}}
    with chromium(1200, 900) as driver:
        for name, path in {pages!r}.items():
            driver.get("file://" + path)
            time.sleep(1.5)
            found[name] = driver.execute_script(
                "return {{texts: Array.from(document.querySelectorAll('svg text')).map(e => e.textContent),"
                " fallback: document.querySelectorAll('[id^=course-fallback]').length,"
                " fetched: performance.getEntriesByType('resource').map(e => e.name)}}")
            found[name]["errors"] = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
            driver.save_screenshot({artifacts!r} + "/attention_" + name + ".png")
    print(json.dumps(found))
""")


def test_both_views_draw_in_a_browser_with_no_network(tmp_path):
    from lab_session import ARTIFACTS, missing_browser

    if missing_browser():
        pytest.skip(missing_browser())
    if not shutil.which("unshare") or subprocess.run(["unshare", "-rn", "true"]).returncode != 0:
        pytest.skip("unprivileged network namespaces are not available")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pages = {}
    for view in (head_view, model_view):
        page = tmp_path / f"{view.__name__}.html"
        page.write_text(f"<html><body>{view(weights(), TOKENS).data}</body></html>", encoding="utf-8")
        pages[view.__name__] = str(page)
    here = Path(__file__).resolve().parent
    script = BROWSER_CHECK.format(paths=[str(here), str(here.parent / "support")], pages=pages, artifacts=str(ARTIFACTS))
    proc = subprocess.run(["unshare", "-rn", "sh", "-c", 'ip link set lo up; exec "$@"', "sh", sys.executable, "-c", script],
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    import json

    found = json.loads(proc.stdout.strip().splitlines()[-1])
    for name, page in found.items():
        assert page["errors"] == [], f"{name}: {page['errors']}"
        assert page["fetched"] == [], f"{name} fetched {page['fetched']}"
        assert page["fallback"] == 0, f"{name}: the script did not run, the static picture is still there"
    assert found["head_view"]["texts"] == TOKENS + TOKENS  # tokens left and right
    model_texts = found["model_view"]["texts"]  # the axes of the thumbnail grid: 3 layers x 4 heads
    assert {"Heads", "Layers"} <= set(model_texts) and model_texts.count("3") == 1 and model_texts.count("2") == 2, model_texts
