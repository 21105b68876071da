"""A lecture run top to bottom, and its static slide deck: one HTML file that needs no kernel and no network.

    python -m autograder lecture-deck 04        lectures/html/04_lstm.slides.html

:func:`run_lecture` executes ``lectures/NN_name.ipynb`` with nbclient in ``lectures/`` (as the Lab runs it) and
times every cell. :func:`write_deck` renders the executed lecture with nbconvert's slides exporter: reveal.js,
its stylesheet and theme come from the copy under ``lectures/html/reveal.js/`` and are written into the page,
the figures are the notebook's own PNGs (data URIs), the maths is MathML made here (``autograder.page_maths``),
and nothing else is loaded: no jQuery, require.js, MathJax or widget manager from a CDN. A widget (a slider
over a plot) cannot move without a kernel: the deck shows the figure it drew when the cell ran, and says so.
"""
from __future__ import annotations

import copy
import datetime
import html
import os
import re
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from . import page_maths
from .course import LECTURES, resolve_assignment

DECKS = LECTURES / "html"
REVEAL = DECKS / "reveal.js"
#: the deck loads nothing: its scripts, styles, figures and fonts are all in the page
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; font-src data:"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"

#: the deck's big type (the live slides' is lectures/rise.css)
DECK_STYLE = """
:root { --jp-content-font-size1: 27px; --jp-code-font-size: 22px; --jp-ui-font-size1: 22px; }
.reveal { font-size: 27px; }
.reveal .slides { text-align: left; }
.reveal .slides section { height: 100%; overflow-y: auto; }
.reveal h1 { font-size: 1.8em; } .reveal h2 { font-size: 1.45em; } .reveal h3 { font-size: 1.2em; }
.reveal h1, .reveal h2, .reveal h3 { text-transform: none; }
.reveal p, .reveal li { line-height: 1.35; }
.jp-InputArea-prompt, .jp-OutputArea-prompt { display: none; }
.jp-CodeCell pre, .jp-OutputArea-output pre { font-size: 19px; line-height: 1.25; white-space: pre-wrap; }
.jp-RenderedHTMLCommon p, .jp-RenderedHTMLCommon li { font-size: 27px; }
.reveal img { max-height: 62vh; max-width: 100%; margin: 0.2em 0; }
.reveal table { font-size: 24px; }
.deck-note { font-size: 20px; color: #555; font-style: italic; }
"""


def lecture_path(name: str) -> Path:
    return LECTURES / f"{resolve_assignment(name)}.ipynb"


def cell_seconds(cell) -> float | None:
    """How long a code cell ran, from the timestamps nbclient records in its metadata."""
    times = cell.get("metadata", {}).get("execution", {})
    try:
        start = datetime.datetime.fromisoformat(times["iopub.execute_input"].replace("Z", "+00:00"))
        end = datetime.datetime.fromisoformat(times["shell.execute_reply"].replace("Z", "+00:00"))
    except KeyError:
        return None
    return (end - start).total_seconds()


def kernel_cpu_seconds(client: NotebookClient) -> float:
    """CPU seconds the client's kernel process (and the children it waited for) has used so far (Linux)."""
    pid = client.km.provisioner.process.pid
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # utime, stime, cutime, cstime


def run_lecture(name: str, timeout: int = 120, cpu: dict | None = None) -> tuple[nbformat.NotebookNode, float]:
    """The lecture executed top to bottom in lectures/ (widget state kept); returns it and the wall seconds.

    A cell that raises stops the run (nbclient's CellExecutionError). ``cpu``, a dict, gets the kernel's CPU
    seconds per code cell index (Linux): unlike the wall time, it hardly grows when the machine is busy."""
    nb = nbformat.read(lecture_path(name), as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=True,
                            resources={"metadata": {"path": str(LECTURES)}})
    if cpu is not None and Path("/proc/self/stat").exists():
        before: dict[int, float] = {}
        client.on_cell_execute = lambda cell, cell_index: before.__setitem__(cell_index, kernel_cpu_seconds(client))
        client.on_cell_executed = lambda cell, cell_index, execute_reply: cpu.__setitem__(
            cell_index, kernel_cpu_seconds(client) - before[cell_index])
    start = time.perf_counter()
    client.execute()
    return nb, time.perf_counter() - start


def widget_outputs(state: dict, model_id: str, seen: set | None = None) -> list:
    """The outputs that the Output widgets under ``model_id`` (a box, an interact) held when the run ended."""
    seen = seen if seen is not None else set()
    if model_id in seen or model_id not in state:
        return []
    seen.add(model_id)
    model = state[model_id].get("state", {})
    found = list(model.get("outputs", [])) if state[model_id].get("model_name") == "OutputModel" else []
    for child in model.get("children", []):
        if isinstance(child, str) and child.startswith("IPY_MODEL_"):
            found += widget_outputs(state, child[len("IPY_MODEL_"):], seen)
    return found


def static_widgets(nb: nbformat.NotebookNode) -> None:
    """Each widget view replaced by what its Output widgets showed, with a note that it is live in the lecture."""
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        outputs = []
        for output in cell.outputs:
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is None:
                outputs.append(output)
                continue
            shown = [nbformat.from_dict(o) for o in widget_outputs(state, view.get("model_id", ""))]
            if not shown:  # a widget that draws nothing of its own (a training run's progress bar)
                continue
            outputs += shown
            outputs.append(nbformat.v4.new_output("display_data", data={"text/html": (
                '<p class="deck-note">A widget: its sliders move in the live lecture (make lecture); '
                "here, what it showed when the cell ran.</p>")}))
        cell.outputs = outputs
    nb.metadata.pop("widgets", None)


def markdown_with_maths(source: str) -> str:
    """A markdown cell as HTML with its formulas in MathML (the deck's ``markdown2html`` filter)."""
    renderer = page_maths.MathsRenderer(source, escape=False)
    return renderer.with_maths(page_maths.markdown_to_html(source, renderer))


def _inline(path: Path) -> str:
    return path.read_text(encoding="utf-8").replace("</script", "<\\/script")


def deck_html(nb: nbformat.NotebookNode, title: str) -> str:
    """The executed lecture as one self-contained reveal.js page."""
    from nbconvert import SlidesExporter

    nb = copy.deepcopy(nb)
    static_widgets(nb)
    exporter = SlidesExporter(exclude_input_prompt=True, exclude_output_prompt=True)
    exporter.register_filter("markdown2html", markdown_with_maths)
    body, _ = exporter.from_notebook_node(nb, resources={"reveal": {"url_prefix": "reveal.js"}})
    slides = re.search(r'<div class="slides">(.*)</div>\s*</div>\s*</main>', body, flags=re.S)
    if slides is None:
        raise RuntimeError("nbconvert's slides template changed: no <div class=\"slides\"> found")
    styles = "\n".join(re.findall(r"<style[^>]*>.*?</style>", body.split("</head>")[0], flags=re.S))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<title>{html.escape(title)} (lecture slides)</title>
<style>{_inline(REVEAL / "reveal.css")}</style>
<style>{_inline(REVEAL / "white.css")}</style>
{styles}
<style>{page_maths.STYLE.replace("<style>", "").replace("</style>", "")}</style>
<style>{DECK_STYLE}</style>
</head>
<body class="jp-Notebook" data-jp-theme-light="true" data-jp-theme-name="JupyterLab Light">
<main><div class="reveal"><div class="slides">{slides.group(1)}</div></div></main>
<script>{_inline(REVEAL / "reveal.js")}</script>
<script>
Reveal.initialize({{controls: true, progress: true, history: true, hash: true, transition: "none",
                    slideNumber: "c/t", width: 1200, height: 750, margin: 0.03, center: false}});
</script>
</body>
</html>
"""


def write_deck(name: str, out: Path | None = None) -> tuple[Path, float]:
    """Run the lecture and write its deck (default lectures/html/NN_name.slides.html); returns it and the seconds."""
    full = resolve_assignment(name)
    nb, seconds = run_lecture(full)
    out = out or DECKS / f"{full}.slides.html"
    out.parent.mkdir(parents=True, exist_ok=True)
    title = nb.cells[0].source.splitlines()[0].lstrip("# ").strip() if nb.cells else full
    out.write_text(deck_html(nb, title), encoding="utf-8")
    return out, seconds
