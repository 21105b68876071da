"""A student's first session, in a real browser: JupyterLab from the README's command, notebook 01 run in full.

Debian's chromium and chromium-driver drive JupyterLab headless (nothing downloads a browser). The test opens
the blank student notebook, runs every cell from the Run menu, and checks that a plot appears, that the
n/k widget renders and redraws its chart when a slider moves, that a "check my answer" cell says in one line
that the exercise is not implemented yet, and that nbgrader's Validate button reports the failing tests.
Screenshots for a person to look at go to test-artifacts/browser/ (CI keeps them as artifacts).
Skipped where /usr/bin/chromium or /usr/bin/chromedriver is missing (CI installs them: .ci/run).
"""
from __future__ import annotations

import re
import time

import pytest

from lab_session import (ARTIFACTS, chromium, code_prompts, kernel_idle, missing_browser, run_everything, running_lab,
                     screenshot, truncated_widget_labels, wait_for)

NOTEBOOK = "01_ngrams.ipynb"

pytestmark = pytest.mark.skipif(bool(missing_browser()), reason=missing_browser() or "browser available")


def test_student_session_in_jupyterlab(tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    started = time.monotonic()
    for old in ARTIFACTS.glob("0[1-4]_*.png"):  # this test's screenshots of an earlier run
        old.unlink()
    with running_lab(tmp_path, [NOTEBOOK]) as url, chromium(1400, 1000) as driver:
        driver.get(f"{url}/lab/tree/{NOTEBOOK}")
        wait_for(lambda: len(code_prompts(driver)) > 5, 60, "the notebook's cells")
        wait_for(lambda: kernel_idle(driver), 60, "the kernel to start (status Idle)")
        screenshot(driver, "01_notebook_opened")
        page = driver.find_element(By.TAG_NAME, "body").text
        assert "Create Assignment" not in page, "the instructors' Create Assignment panel is shown to students"

        # Run → Run All Cells (and on past the check cells that fail on the blank stubs).
        runs = run_everything(driver)
        print(f"ran every cell in {runs} runs from the Run menu")

        # (c) a "check my answer" cell says in one line that the exercise is not implemented yet.
        outputs = driver.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel .jp-OutputArea-output")
        feedback = [o for o in outputs if "not implemented yet" in o.text]
        assert feedback, "no check cell output says 'not implemented yet'"
        assert "✘ count_ngrams" in feedback[0].text
        assert "Traceback" not in feedback[0].text, feedback[0].text
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", feedback[0])
        screenshot(driver, "02_after_run_all_check_cell")

        # Demo cells that call a blank stub directly say so in one line too, without a traceback.
        tracebacks = [o.text[:200] for o in outputs if "NotImplementedError" in o.text and "not implemented yet" not in o.text]
        assert not tracebacks, f"a blank stub shows a traceback: {tracebacks[0]}"

        # (a) a matplotlib plot appears (a PNG in an output area).
        images = driver.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel .jp-OutputArea-output img")
        assert images, "no plot (img) in any output area"
        assert images[0].get_attribute("src").startswith("data:image/png"), images[0].get_attribute("src")[:40]

        # (b) the n/k widget renders, and its chart changes when the n slider moves.
        widget = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, ".jp-NotebookPanel .widget-interact"),
                          30, "the interact widget")
        sliders = widget.find_elements(By.CSS_SELECTOR, ".widget-slider")
        assert len(sliders) == 2, f"expected the n and log10 k sliders, found {len(sliders)}"

        def chart_src():
            imgs = widget.find_elements(By.CSS_SELECTOR, ".widget-output img")
            return imgs[0].get_attribute("src") if imgs else ""

        before = wait_for(chart_src, 30, "the widget's chart")
        readout = sliders[0].find_element(By.CSS_SELECTOR, ".widget-readout")
        assert readout.text.strip() == "2"
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", widget)
        handle = sliders[0].find_element(By.CSS_SELECTOR, ".noUi-handle")
        handle.click()
        handle.send_keys(Keys.ARROW_RIGHT)
        wait_for(lambda: readout.text.strip() == "3", 10, "the n slider to read 3")
        after = wait_for(lambda: (s := chart_src()) and s != before and s, 30, "the widget's chart to be redrawn")
        assert after != before
        assert not truncated_widget_labels(driver), f"widget labels cut short: {truncated_widget_labels(driver)}"
        screenshot(driver, "03_widget_after_moving_n")

        # (d) nbgrader's Validate button (toolbar) reports the failing tests in a dialog.
        buttons = driver.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel-toolbar .jp-ToolbarButtonComponent")
        button = next((b for b in buttons if b.text.strip() == "Validate"), None)
        assert button is not None, f"no Validate button in the notebook toolbar: {[b.text for b in buttons]}"
        button.click()
        dialog = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, ".jp-Dialog .jp-Dialog-content"),
                          90, "nbgrader's validation dialog")
        text = dialog.text
        screenshot(driver, "04_validate_dialog")
        print("validate dialog:", text[:500].replace("\n", " | "))
        assert re.search(r"NotImplementedError|failed", text, flags=re.I), text[:2000]
        assert "Cannot" not in text and "Version Mismatch" not in text, text[:2000]
        dialog.find_element(By.CSS_SELECTOR, ".jp-Dialog-footer button").click()
        wait_for(lambda: not driver.find_elements(By.CSS_SELECTOR, ".jp-Dialog"), 10, "the dialog to close")

    print(f"browser test took {time.monotonic() - started:.1f} s")


BERT_NOTEBOOK = "07_bert.ipynb"


def test_bert_attention_views_and_widget_in_jupyterlab(tmp_path):
    """Notebook 07 as a student runs it: bertviz's views draw from the course's own JavaScript (nothing
    fetched beyond JupyterLab itself), and the "bank"/"apple" widget redraws when the word changes."""
    from selenium.webdriver.common.by import By

    with running_lab(tmp_path, [BERT_NOTEBOOK], fast=True) as url, chromium(1400, 1000) as driver:  # no fine-tuning
        driver.get(f"{url}/lab/tree/{BERT_NOTEBOOK}")
        wait_for(lambda: len(code_prompts(driver)) > 5, 60, "the notebook's cells")
        wait_for(lambda: kernel_idle(driver), 60, "the kernel to start (status Idle)")
        runs = run_everything(driver, timeout=600)
        print(f"ran every cell of {BERT_NOTEBOOK} in {runs} runs")

        views = driver.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel .jp-OutputArea-output svg")
        texts = [[t.get_attribute("textContent") for t in v.find_elements(By.CSS_SELECTOR, "text")] for v in views]
        head = next((v for v, t in zip(views, texts) if "[CLS]" in t and "tired" in t), None)
        assert head is not None, f"no head view drawn; svg texts found: {[t[:5] for t in texts]}"
        model = next((v for v, t in zip(views, texts) if "Heads" in t and "Layers" in t), None)
        assert model is not None, f"no model view drawn; svg texts found: {[t[:5] for t in texts]}"
        assert not driver.find_elements(By.CSS_SELECTOR, "[id^=course-fallback]"), \
            "a static fallback picture is still shown: the view's script did not run"
        fetched = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        outside = [name for name in fetched if not name.startswith(url) and not name.startswith("data:")]
        assert not outside, f"the page fetched from outside JupyterLab: {outside[:5]}"
        driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", head)
        time.sleep(0.5)
        screenshot(driver, "07_bert_head_view")
        driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", model)
        time.sleep(0.5)
        screenshot(driver, "07_bert_model_view")

        widget = next(w for w in driver.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel .widget-interact")
                      if w.find_elements(By.CSS_SELECTOR, ".widget-toggle-buttons"))

        def chart_src():
            imgs = widget.find_elements(By.CSS_SELECTOR, ".widget-output img")
            return imgs[0].get_attribute("src") if imgs else ""

        before = wait_for(chart_src, 30, "the similarity widget's chart")
        assert not truncated_widget_labels(driver), f"widget labels cut short: {truncated_widget_labels(driver)}"
        driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", widget)
        apple = next(b for b in widget.find_elements(By.CSS_SELECTOR, "button") if b.text.strip() == "apple")
        apple.click()
        wait_for(lambda: (s := chart_src()) and s != before, 60, "the chart to be redrawn for 'apple'")
        time.sleep(0.5)
        screenshot(driver, "07_bert_similarity_widget_apple")
