"""Look at the notebooks as a student does: each one run in JupyterLab (headless Chromium), a screenshot per output.

    python tests/browser/browser_tour.py                      # the seven student notebooks, blank, as released
    python tests/browser/browser_tour.py --solutions 02 06    # solution notebooks 02 and 06, every plot drawn

For each notebook it starts `make lab` (as tests/browser/test_browser.py does), runs every cell from the Run menu
(going on past failing cells), then scrolls to each cell with an output and saves a screenshot of it to
test-artifacts/browser/tour/<notebooks|solutions>/<NN>_cell<index>.png for a person to look through.
It prints what a student would stumble on: errors shown with a traceback, anything printed on stderr
(warnings), outputs longer than notebook_runner.LONGEST_OUTPUT characters, and widget labels cut short. Exits 1 when it found any. Not a pytest test (it takes a few
minutes): run it after changing a notebook's figures, widgets or prose.
"""
from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))  # run as a script

from lab_session import (ARTIFACTS, REPO, chromium, code_prompts, kernel_idle, missing_browser, run_everything, running_lab,
                         truncated_widget_labels, wait_for)
from notebook_runner import LONGEST_OUTPUT


def tour(driver, url: str, name: str, folder: Path) -> list[str]:
    """Run notebook ``name`` in the open Lab, screenshot each cell with output; return what a student would stumble on."""
    from selenium.webdriver.common.by import By

    started = time.monotonic()
    for attempt in (1, 2):
        driver.get(f"{url}/lab/tree/{name}")
        wait_for(lambda: len(code_prompts(driver)) > 0, 60, "the notebook's cells")
        wait_for(lambda: kernel_idle(driver), 90, "the kernel to start (status Idle)")
        runs = run_everything(driver, timeout=600)
        if any(re.fullmatch(r"\[\d+\]:", prompt) for prompt in code_prompts(driver)):
            break
        print(f"{name}: no cell ran (attempt {attempt}); prompts seen: {code_prompts(driver)[:8]}", flush=True)
    else:
        return ["no cell ran: the notebook never started running from the Run menu"]
    time.sleep(2)  # widgets draw their first chart after the kernel is idle
    problems = [f"widget label cut short: {label!r}" for label in truncated_widget_labels(driver)]
    shots = 0
    for index, cell in enumerate(driver.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel .jp-Cell")):
        outputs = cell.find_elements(By.CSS_SELECTOR, ".jp-OutputArea-child")
        if not outputs:
            continue
        driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", cell)
        time.sleep(0.2)
        cell.screenshot(str(folder / f"{name[:2]}_cell{index:03d}.png"))
        shots += 1
        for output in outputs:
            if len(output.text) > LONGEST_OUTPUT:
                problems.append(f"cell {index}: a wall of {len(output.text)} characters of output: {output.text[:120]}")
        for stderr in cell.find_elements(By.CSS_SELECTOR, "[data-mime-type='application/vnd.jupyter.stderr']"):
            text = stderr.text.strip()
            if "Traceback" in text or text.count("\n") > 2:
                problems.append(f"cell {index}: an error with a traceback: {text[:300]}")
            elif not text.startswith("✘"):
                problems.append(f"cell {index}: printed on stderr: {text[:300]}")
    print(f"{name}: every cell run in {runs} run(s), {shots} screenshots, {time.monotonic() - started:.0f} s", flush=True)
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="notebook numbers or names (default: all seven)")
    parser.add_argument("--solutions", action="store_true", help="the instructors' solution notebooks, not the blank releases")
    args = parser.parse_args(argv)
    if missing_browser():
        print(f"cannot run: {missing_browser()}", file=sys.stderr)
        return 2
    source = "solutions" if args.solutions else "notebooks"
    available = sorted(p.name for p in (REPO / source).glob("*.ipynb"))
    names = [n for n in available if not args.names or any(n.startswith(a) or n == a for a in args.names)]
    folder = ARTIFACTS / "tour" / source
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    found = {}
    with chromium(1400, 1800) as driver:
        for name in names:  # one Lab per notebook: a fresh kernel and a single open notebook
            with tempfile.TemporaryDirectory(prefix="tour-") as scratch, running_lab(Path(scratch), [name], source=source) as url:
                found[name] = tour(driver, url, name, folder)
    print(f"\nscreenshots: {folder}")
    for name, problems in found.items():
        for problem in problems:
            print(f"{name}: {problem}")
    return 1 if any(found.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
