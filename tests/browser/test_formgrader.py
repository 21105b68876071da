"""An instructor marks a written answer in nbgrader's formgrader, in a real browser, after the course's grader.

A course directory of notebook 05 with two students (the solution's answers and the blank release) is graded
into by the course's ``grade``. A Jupyter server with nbgrader's server extensions is started at the course
directory (formgrader reads the ``nbgrader_config.py`` in its working folder), and headless Chromium opens
formgrader's manual-grading page for the solution's submission: the written answer ``why_scale`` shows the
student's text with an empty score box, the test cells show their verdicts and the points the grader gave, and a
mark typed into the score box lands in the gradebook. The gradebook overview then lists both students with their
scores. Screenshots for a person to look at go to test-artifacts/browser/formgrader_*.png.

Formgrader's pages load MathJax 2 from cdnjs; the course's tests run offline, so the browser is told not to fetch
it. Formgrader then shows the TeX of an answer as typed, and its page script stops at ``MathJax`` (its keyboard
shortcuts are not set up); the score boxes and their saving do not depend on it.
Skipped where /usr/bin/chromium or /usr/bin/chromedriver is missing (CI installs them: .ci/run).
"""
from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder import cells, course, course_results
from lab_session import ARTIFACTS, chromium, free_port, missing_browser, screenshot, serving, wait_for
from course_dir_grading import grade_course, submit
from notebook_runner import REPO

pytestmark = [pytest.mark.skipif(bool(missing_browser()), reason=missing_browser() or "browser available"),
              pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]  # nbgrader's API, writing the gradebook

NAME = "05_self_attention"
WRITTEN = "why_scale"
STUDENTS = ("ada", "blank")  # the solution's answers; the notebook as released
#: a sentence of the solution's model answer for ``why_scale``, as the page shows it (lines joined)
SENTENCE = "the softmax puts nearly all its weight on one key: it saturates and becomes almost one-hot"
MARK = 1.5


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def graded_course(tmp_path_factory):
    """A course directory of notebook 05 with ada's and blank's submissions, graded into it; its results."""
    root = tmp_path_factory.mktemp("course")
    course.make_course_dir(root, NAME)
    release = nbformat.read(root / "release" / NAME / f"{NAME}.ipynb", as_version=4)
    solution = cells.answers(nbformat.read(REPO / "solutions" / f"{NAME}.ipynb", as_version=4))
    assert SENTENCE in words(solution[WRITTEN])
    for student, nb in zip(STUDENTS, (cells.with_answers(release, solution), release)):
        submit(root, NAME, student, nb)
    results = grade_course(root, NAME)
    assert {s: r.status for s, r in results.items()} == dict.fromkeys(STUDENTS, "graded")
    return root, results


@contextlib.contextmanager
def running_formgrader(course_dir: Path, tmp_path: Path, timeout: float = 60) -> Iterator[str]:
    """`jupyter server` rooted at ``course_dir`` and started in it, as an instructor starts it for formgrader
    (nbgrader's server extensions are enabled in .venv); empty token, free port. Yields its base URL."""
    port = free_port()
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")  # nbgrader calls alembic
    for var in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR", "MPLCONFIGDIR"):
        env[var] = str(tmp_path / var.lower())
    command = [str(Path(sys.executable).parent / "jupyter"), "server", f"--port={port}", "--ip=127.0.0.1",
               "--no-browser", "--allow-root", "--ServerApp.token=", "--ServerApp.password=",
               f"--ServerApp.root_dir={course_dir}"]
    with serving(command, course_dir, env, tmp_path / "formgrader.log", f"http://127.0.0.1:{port}",
                 "/formgrader/api/assignments", "formgrader", timeout) as url:
        yield url


def in_view(driver, element) -> bool:
    """The element is on screen and nothing (formgrader's fixed navigation bar) lies over its middle."""
    return bool(driver.execute_script(
        "const e = arguments[0], r = e.getBoundingClientRect();"
        "if (r.width === 0 || r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) return false;"
        "return document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2) === e;", element))


def below_the_bar(driver, element) -> bool:
    """All of the element lies between formgrader's fixed navigation bar and the bottom of the window."""
    return bool(driver.execute_script(
        "const r = arguments[0].getBoundingClientRect(), bar = document.querySelector('.navbar-fixed-top');"
        "return r.top >= bar.getBoundingClientRect().bottom && r.bottom <= innerHeight;", element))


def page_errors(driver) -> list[str]:
    """The browser's errors, but for MathJax's: its CDN is blocked, and formgrade.js stops where it uses it."""
    return [e["message"] for e in driver.get_log("browser")
            if e["level"] == "SEVERE" and "mathjax" not in e["message"].lower()]


def test_instructor_marks_the_written_answer_in_formgrader(graded_course, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    root, results = graded_course
    ada = results["ada"]
    db = course_results.db_url(root)
    with Gradebook(db) as gb:
        submission_id = gb.find_submission_notebook(NAME, NAME, "ada").id
        written = gb.find_grade(WRITTEN, NAME, NAME, "ada")
        assert written.needs_manual_grade
        written_max = written.max_score
    for old in ARTIFACTS.glob("formgrader_*.png"):
        old.unlink()

    started = time.monotonic()
    with running_formgrader(root, tmp_path) as url, chromium(1400, 1000) as driver:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*cdnjs.cloudflare.com*"]})

        # 1. the manual-grading page of ada's submission, once formgrader has put the grades in its score boxes
        driver.get(f"{url}/formgrader/submissions/{submission_id}/")
        wait_for(lambda: driver.execute_script("return formgrader.grades.loaded && formgrader.comments.loaded"),
                 30, "formgrader to load the submission's grades and comments")
        # formgrader numbers the submissions in the order the gradebook returns them (no ORDER BY): 1 or 2
        assert re.search(r"Submission [12] / 2", driver.find_element(By.CSS_SELECTOR, ".panel-title").text)

        score = driver.find_element(By.ID, WRITTEN)
        answer = score.find_element(By.XPATH, "./ancestor::div[contains(@class, 'nbgrader_cell')]")
        assert "Student's answer" in answer.text
        assert SENTENCE in words(answer.find_element(By.CSS_SELECTOR, ".text_cell_render").text)
        assert score.get_attribute("value") == "" and score.get_attribute("placeholder") == ""  # not marked yet
        assert "needs_manual_grade" in score.get_attribute("class").split()
        heading = words(answer.find_element(By.CSS_SELECTOR, ".panel-heading").text)
        assert heading.endswith(f"/ {written_max:.1f} + (extra credit)"), heading
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", answer)
        assert in_view(driver, score), "the written answer's score box is hidden or off screen"
        assert below_the_bar(driver, answer), "the written answer is cut off in the window"
        screenshot(driver, "formgrader_written_answer")

        # the test cells: each shows its verdict under it and, in its score box, the points the grader gave
        shown = {}
        for test in (c for c, points in ada.cells.items() if c != WRITTEN):
            box = driver.find_element(By.ID, test)
            cell = box.find_element(By.XPATH, "./ancestor::div[contains(concat(' ', @class, ' '), ' code_cell ')]")
            verdict = cell.find_element(By.CSS_SELECTOR, ".output_area").text
            assert verdict.startswith("✔") and "correct" in verdict, (test, verdict)
            assert box.get_attribute("value") == ""  # nothing to mark by hand
            shown[test] = float(box.get_attribute("placeholder"))
        assert shown == {c: p for c, p in ada.cells.items() if c != WRITTEN}
        assert sum(shown.values()) == pytest.approx(ada.score) and ada.score > 0

        # 2. the instructor types a mark and leaves the box: formgrader saves it in the gradebook
        score.click()
        score.send_keys(str(MARK))
        score.send_keys(Keys.TAB)

        def saved():
            with Gradebook(db) as gb:
                return gb.find_grade(WRITTEN, NAME, NAME, "ada").manual_score == MARK

        wait_for(saved, 15, f"the gradebook to hold {MARK} for {WRITTEN}")
        with Gradebook(db) as gb:
            mark = gb.find_grade(WRITTEN, NAME, NAME, "ada")
            assert not mark.needs_manual_grade and mark.auto_score is None
            assert gb.find_submission(NAME, "ada").score == pytest.approx(ada.score + MARK)
        assert score.get_attribute("value") == str(MARK)
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", answer)
        assert in_view(driver, score) and below_the_bar(driver, answer)
        screenshot(driver, "formgrader_after_mark")
        assert page_errors(driver) == []

        # 3. the gradebook's overview of the notebook: both students, with their scores
        driver.get(f"{url}/formgrader/gradebook/{NAME}/{NAME}")
        wait_for(lambda: driver.execute_script("return models !== undefined && models.loaded"), 30,
                 "the gradebook's list of submissions")
        driver.find_element(By.ID, "toggle_names").click()  # "Show All Names"
        rows = {}
        for row in driver.find_elements(By.CSS_SELECTOR, "#main-table tr"):
            name = row.find_element(By.CSS_SELECTOR, "td.name a.name-shown")
            assert name.is_displayed()
            rows[name.text] = [row.find_element(By.CSS_SELECTOR, f"td.{column}").text
                               for column in ("score", "written-score")]
        total, written = f"{ada.max_score:g}", f"{written_max:g}"
        assert rows == {"ada": [f"{ada.score + MARK:g} / {total}", f"{MARK:g} / {written}"],
                        "blank": [f"{results['blank'].score:g} / {total}", f"0 / {written}"]}
        screenshot(driver, "formgrader_gradebook")
        assert page_errors(driver) == []
    print(f"formgrader in Chromium: {time.monotonic() - started:.1f} s")
