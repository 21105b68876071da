"""A feedback page runs nothing a student wrote: every kind of script payload, graded for real, opened in Chromium.

A submission of notebook 05 whose first answer cell displays each way a page can be made to run code (a script in
HTML, an event handler, SVG with a script, JavaScript output, Markdown with raw HTML, a ``javascript:`` link, a
frame, an image whose data or size breaks out of its attribute, a printed and a raised script) and whose written
answer is raw HTML with scripts and requests to the network. The grader's page is opened in headless Chromium: no
payload may have run (each one would change the title or add an element named ``pwned-N``), nothing may have been
fetched, and the page carries its Content-Security-Policy.
"""
from __future__ import annotations

import http.server
import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest

from autograder.cells import answers, with_answers
from notebook_runner import REPO

NAME = "05_self_attention"

PAYLOADS = r'''
from IPython.display import HTML, SVG, Javascript, Markdown, display
MARK = "var d = document.createElement('div'); d.id = 'pwned-{0}'; document.body.appendChild(d); document.title = 'pwned-{0}';"
display(HTML("<script>" + MARK.format(1) + "</script>"))
display(HTML("<img src=x onerror=\"" + MARK.format(2) + "\">"))
display(SVG('<svg xmlns="http://www.w3.org/2000/svg"><script>' + MARK.format(3) + '</script></svg>'))
display(Javascript(MARK.format(4)))
display(Markdown("<img src=x onerror=\"" + MARK.format(5) + "\">"))
display(HTML('<a href="javascript:' + MARK.format(6) + '">a link</a>'))
display({"text/html": '<iframe srcdoc="<script>parent.document.title=1</script>"></iframe><object data="x"></object>'},
        raw=True)
display({"image/png": '"><script>' + MARK.format(8) + '</script>'}, raw=True)
display({"image/png": "iVBORw0KGgo="}, metadata={"image/png": {"width": '1 onerror="' + MARK.format(9) + '"'}}, raw=True)
display({"text/html": '<style>body { background: url(http://127.0.0.1:PORT/style) }</style><img src="http://127.0.0.1:PORT/i">'
                      .replace("PORT", "{port}")}, raw=True)
display({"application/vnd.jupyter.widget-view+json": {"model_id": "x", "version_major": 2, "version_minor": 0}},
        raw=True)
print("<script>" + MARK.format(10) + "</script>")
'''
WRITTEN = ("<script>document.title = 'pwned-12'</script><img src=x onerror=\"document.title = 'pwned-13'\">"
           "<meta http-equiv=\"refresh\" content=\"0; url=javascript:document.title='pwned-14'\">"
           "<link rel=\"stylesheet\" href=\"http://127.0.0.1:{port}/sheet.css\"><iframe src=\"http://127.0.0.1:{port}/f\"></iframe>"
           "\n\nSo the scores keep unit variance.")

BROWSER_CHECK = """
import json, sys, time
sys.path[:0] = {paths!r}
from lab_session import chromium
with chromium(1200, 900) as driver:
    driver.get("file://" + {page!r})
    time.sleep(2)
    found = driver.execute_script(
        "return {{title: document.title, pwned: document.querySelectorAll('[id^=pwned]').length,"
        " scripts: Array.from(document.querySelectorAll('script')).map(s => s.type || 'javascript'),"
        " javascript_links: document.querySelectorAll('a[href^=javascript]').length,"
        " frames: document.querySelectorAll('iframe, object, embed').length,"
        " policy: (document.querySelector('meta[http-equiv=Content-Security-Policy]') || {{}}).content || ''}}")
    driver.save_screenshot({shot!r})
print(json.dumps(found))
"""


class Recorder(http.server.BaseHTTPRequestHandler):
    """A local server that notes every request: a payload that fetches anything ends up here."""

    hits: list[str] = []

    def do_GET(self):
        Recorder.hits.append(self.path)
        self.send_response(404)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_no_payload_runs_on_the_feedback_page(tmp_path):
    from lab_session import ARTIFACTS, missing_browser

    if missing_browser():
        pytest.skip(missing_browser())
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    source = nbformat.read(REPO / "solutions" / f"{NAME}.ipynb", as_version=4)
    release = nbformat.read(REPO / "notebooks" / f"{NAME}.ipynb", as_version=4)
    chosen = answers(source)
    first = next(gid for gid, text in chosen.items() if "def " in text)
    written = next(gid for gid, cell in ((c.metadata.get("nbgrader", {}).get("grade_id"), c) for c in release.cells)
                   if cell.cell_type == "markdown" and cell.metadata.get("nbgrader", {}).get("solution"))
    chosen = {**chosen, first: chosen[first] + "\n" + PAYLOADS.replace("{port}", str(port)),
              written: WRITTEN.replace("{port}", str(port))}
    subs = tmp_path / "subs"
    subs.mkdir()
    nbformat.write(with_answers(release, chosen), subs / "payloads.ipynb")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", NAME, str(subs), "--out", str(out),
                           "--jobs", "1", "--timeout", "30", "--wall-seconds", "120"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    [result] = json.loads((out / "results.json").read_text())
    assert result["status"] == "graded" and result["score"] > 0, result  # the answers still earn their points
    page = out / "feedback" / "payloads.html"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    here = Path(__file__).resolve().parent
    script = BROWSER_CHECK.format(paths=[str(here), str(here.parent / "support")], page=str(page),
                                  shot=str(ARTIFACTS / "feedback_payloads.png"))
    started = time.monotonic()
    browser = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=180)
    assert browser.returncode == 0, browser.stderr[-3000:]
    found = json.loads(browser.stdout.strip().splitlines()[-1])
    assert found["pwned"] == 0 and not found["title"].startswith("pwned"), found
    assert found["javascript_links"] == 0 and found["frames"] == 0, found
    server.shutdown()
    assert Recorder.hits == [], f"the page fetched {Recorder.hits}"
    assert "default-src 'none'" in found["policy"], found["policy"]
    assert all(kind != "javascript" for kind in found["scripts"]) or "script-src 'sha256-" in found["policy"]
    assert time.monotonic() - started < 120
    raw = page.read_text(encoding="utf-8")
    assert "pwned-10" in raw and "script-src" in raw  # the printed one is shown, as text


# The maths: notebook 04's released page (its LSTM gate equations, an aligned block) with a written answer holding
# formulas and hostile ones, opened from file:// with the network off (a fresh network namespace where unshare can
# make one, and every http(s)/ws request blocked through the DevTools protocol either way).
MATHS_ANSWER = (r"The cell state's gradient is $\frac{\partial c_t}{\partial c_{t-1}} = f_t$, so it is kept when "
                r"$f_t \approx 1$; attention scales by $\sqrt{d_k}$." "\n\n"
                r"$\href{javascript:document.title='pwned-m1'}{x}$ "
                "<math href=\"javascript:document.title='pwned-m2'\"><mi onclick=\"document.title='pwned-m3'\">y</mi></math> "
                r"$x</math><script>document.title='pwned-m4'</script>$ "
                "$\\text{</math><img src=x onerror=\"document.title='pwned-m5'\">}$ "
                r"$\style{background: url(http://127.0.0.1:9/m)}{z}$")

MATHS_CHECK = """
import json, sys, time
sys.path[:0] = {paths!r}
from lab_session import chromium
with chromium(1200, 900) as driver:
    driver.execute_cdp_cmd("Network.enable", {{}})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {{"urls": ["http://*", "https://*", "ws://*", "wss://*", "ftp://*"]}})
    driver.get("file://" + {page!r})
    time.sleep(1)
    found = driver.execute_script(
        "const box = e => {{ const r = e.getBoundingClientRect(); return {{w: r.width, h: r.height, top: r.top, bottom: r.bottom}}; }};"
        "const maths = Array.from(document.querySelectorAll('math'));"
        "const source = m => (m.querySelector('annotation') || {{}}).textContent || '';"
        "const aligned = maths.find(m => source(m).includes('\\\\\\\\begin{{aligned}}'));"
        "const frac = maths.find(m => source(m).includes('\\\\\\\\partial c_t')).querySelector('mfrac');"
        "const sqrt = maths.find(m => source(m) === '\\\\\\\\sqrt{{d_k}}').querySelector('msqrt');"
        "const sub = aligned.querySelector('msub');"
        "aligned.scrollIntoView({{block: 'center'}});"
        "return {{count: maths.length, display: getComputedStyle(aligned).display, aligned: box(aligned),"
        " rows: aligned.querySelectorAll('mtr').length, base: box(sub.children[0]), script: box(sub.children[1]),"
        " numerator: box(frac.children[0]), denominator: box(frac.children[1]), sqrt: box(sqrt),"
        " markdown: Array.from(document.querySelectorAll('.text_cell_render')).map(e => e.innerText).join('\\\\n'),"
        " body: document.body.innerText, requests: performance.getEntriesByType('resource').map(e => e.name),"
        " title: document.title, pwned: document.querySelectorAll('[id^=pwned]').length, scripts: document.scripts.length,"
        " links: document.querySelectorAll('math[href], math [href], [onclick], a[href^=javascript], img').length}}")
    time.sleep(0.3)
    driver.save_screenshot({shot!r})
    driver.execute_script("Array.from(document.querySelectorAll('math')).find(m => m.querySelector('mfrac') &&"
                          " m.closest('.nbgrader_cell')).scrollIntoView({{block: 'center'}})")
    time.sleep(0.3)
    driver.save_screenshot({answer_shot!r})
print(json.dumps(found))
"""


def offline(command: list[str]) -> tuple[list[str], str]:
    """The command in a fresh network namespace with only its own loopback (chromedriver talks to Chromium on it),
    where this machine lets an unprivileged user make one; as it is otherwise. Returns it and which it is."""
    if shutil.which("unshare") and shutil.which("ip") and subprocess.run(
            ["unshare", "-rn", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-rn", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', *command], "network namespace"
    return command, "DevTools blocking only"


def test_the_feedback_pages_maths_is_typeset_with_the_network_off(tmp_path):
    from lab_session import ARTIFACTS, missing_browser

    from autograder import feedback_page
    from autograder.submission import scores

    if missing_browser():
        pytest.skip(missing_browser())
    nb = nbformat.read(REPO / "notebooks" / "04_lstm.ipynb", as_version=4)
    written = next(cell for cell in nb.cells
                   if cell.cell_type == "markdown" and cell.metadata.get("nbgrader", {}).get("solution"))
    written.source = MATHS_ANSWER
    page = tmp_path / "04_lstm.html"
    page.write_text(feedback_page.render(nb, scores(nb), {}, [], "student", "04_lstm"), encoding="utf-8")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    here = Path(__file__).resolve().parent
    script = MATHS_CHECK.format(paths=[str(here), str(here.parent / "support")], page=str(page),
                                shot=str(ARTIFACTS / "feedback_maths.png"),
                                answer_shot=str(ARTIFACTS / "feedback_maths_answer.png"))
    command, isolation = offline([sys.executable, "-c", script])
    print(f"Chromium ran with {isolation}")
    browser = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert browser.returncode == 0, browser.stderr[-3000:]
    found = json.loads(browser.stdout.strip().splitlines()[-1])
    # (Bootstrap's stylesheet names its icon font beside the page, ../fonts/: a file:// request, nothing sent out)
    assert [url for url in found["requests"] if not url.startswith("file:")] == [], found["requests"]
    assert found["count"] >= 70 and found["display"] == "block math", found["display"]  # laid out by MathML Core
    assert found["rows"] == 5 and found["aligned"]["w"] > 300 and found["aligned"]["h"] > 5 * 14, found["aligned"]
    assert found["script"]["top"] > found["base"]["top"] and found["script"]["h"] < found["base"]["h"]  # a subscript
    assert found["numerator"]["bottom"] <= found["denominator"]["top"]  # a fraction: one over the other
    assert found["sqrt"]["w"] > 0 and found["sqrt"]["h"] > 0
    for raw in ("\\begin{aligned}", "\\sqrt", "\\frac", "\\sigma", "$$", "\\href", "\\text"):
        assert raw not in found["markdown"] and raw not in found["body"], raw
    assert found["pwned"] == 0 and not found["title"].startswith("pwned"), found["title"]
    assert found["scripts"] == 0 and found["links"] == 0, found
