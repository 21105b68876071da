"""Helpers for tests/browser/test_browser.py: JupyterLab started as the README says, driven by Debian's Chromium.

Nothing here downloads a browser: selenium is pointed at /usr/bin/chromedriver, so selenium-manager never runs.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from notebook_runner import REPO

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ARTIFACTS = REPO / "test-artifacts" / "browser"


def missing_browser() -> str:
    """Why the browser test cannot run here ("" when it can)."""
    absent = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if absent:
        return f"{' and '.join(absent)} not installed (apt-get install chromium chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed"
    return ""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_lab(tmp_path: Path, notebooks: list[str], timeout: float = 240, source: str = "notebooks",
                fast: bool = False) -> Iterator[str]:
    """`make lab` (the README's command) on a free local port with an empty token; yields its base URL.

    Lab's Validate button saves the notebook, and notebooks/ must stay as it is, so `make lab` runs the
    repository's Makefile from a scratch folder that holds copies of ``notebooks`` (taken from the
    repository's ``source`` folder: notebooks/ or solutions/) in notebooks/ and links to the repository's
    .venv and pyproject.toml (`make install` in the repository first makes sure the scratch `make lab`
    finds the course installed and installs nothing itself). ``fast``: the kernels run with COURSE_FAST=1,
    their training cut to a moment (course_lib.train), for a test that looks at something else.
    """
    subprocess.run(["make", "--quiet", "install"], cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    course = tmp_path / "course"
    (course / "notebooks").mkdir(parents=True)
    for name in (".venv", "pyproject.toml", "Makefile"):
        (course / name).symlink_to(REPO / name)
    for name in notebooks:
        shutil.copy(REPO / source / name, course / "notebooks" / name)
    port = free_port()
    env = dict(os.environ)
    if fast:
        env["COURSE_FAST"] = "1"
    env.pop("MPLBACKEND", None)  # in-process notebook tests set Agg; a student's kernel draws inline
    for var in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR", "MPLCONFIGDIR"):
        env[var] = str(tmp_path / var.lower())  # this Lab's own: no workspace restored from an earlier Lab
    args = f"--port={port} --ip=127.0.0.1 --no-browser --ServerApp.token= --ServerApp.password="
    with serving(["make", "lab", f"LAB_ARGS={args}"], course, env, tmp_path / "lab.log",
                 f"http://127.0.0.1:{port}", "/api/contents", "JupyterLab", timeout) as url:
        yield url


@contextlib.contextmanager
def serving(command: list[str], cwd: Path, env: dict, log_path: Path, url: str, probe: str, what: str,
            timeout: float) -> Iterator[str]:
    """A Jupyter server ``command`` started in its own session; yields ``url`` once ``url + probe`` answers JSON,
    and stops the whole session afterwards (its log in ``log_path``)."""
    log = open(log_path, "w+b")
    proc = subprocess.Popen(command, cwd=cwd, env=env, start_new_session=True, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{url}{probe}", timeout=5) as response:
                    json.load(response)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError(f"{what} did not answer:\n" + log.read().decode(errors="replace")[-4000:])
                time.sleep(0.5)
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()


@contextlib.contextmanager
def chromium(width: int = 1400, height: int = 1000) -> Iterator:
    """A headless Debian Chromium driven through /usr/bin/chromedriver, with a fresh profile."""
    os.environ["SE_AVOID_STATS"] = "true"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--disable-dev-shm-usage", "--no-first-run",
                    f"--user-data-dir={profile}", f"--window-size={width},{height}"):
            options.add_argument(arg)
        driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
        try:
            driver.set_window_size(width, height)
            yield driver
        finally:
            driver.quit()


def wait_for(condition: Callable[[], object], timeout: float, what: str, interval: float = 0.25):
    """Poll ``condition`` until it returns something truthy; fail with ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = condition()
            if value:
                return value
        except Exception as err:  # noqa: BLE001 (stale elements while Lab re-renders)
            last_error = err
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}" + (f" ({last_error!r})" if last_error else ""))


def screenshot(driver, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    driver.save_screenshot(str(path))
    print(f"screenshot: {path}")
    return path


def code_prompts(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('.jp-NotebookPanel .jp-CodeCell .jp-InputArea-prompt'))"
        ".map(e => e.textContent.trim())")


def kernel_idle(driver) -> bool:
    return bool(driver.execute_script(
        "const s = document.querySelector('.jp-NotebookPanel .jp-Notebook-ExecutionIndicator');"
        "return s !== null && /idle/i.test(s.getAttribute('data-status') || '');"))


def run_menu(driver, command: str) -> None:
    """Run menu → the item for ``command`` (its data-command), as a student would click it."""
    from selenium.webdriver.common.by import By

    menu = next(e for e in driver.find_elements(By.CSS_SELECTOR, ".lm-MenuBar-item") if e.text.strip() == "Run")
    menu.click()
    item = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, f".lm-Menu-item[data-command='{command}']"),
                    10, f"the Run menu item {command}")
    item.click()


def run_everything(driver, timeout: float = 120) -> int:
    """Run All Cells; where a failing cell stops the run, go on with "Run Selected Cell and All Below"
    from the next cell, until every code cell has an execution count. Returns how many runs it took."""
    from selenium.webdriver.common.by import By

    deadline = time.monotonic() + timeout
    runs = 0
    while True:
        prompts = code_prompts(driver)
        todo = [i for i, p in enumerate(prompts) if p in ("[ ]:", "")]
        if not todo:
            return runs
        assert time.monotonic() < deadline, f"cells still not run after {timeout} s: {prompts}"
        first = todo[0]
        if runs == 0:
            run_menu(driver, "runmenu:run-all")
        else:
            cell = driver.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel .jp-CodeCell")[first]
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", cell)
            cell.find_element(By.CSS_SELECTOR, ".jp-InputArea-prompt").click()  # selects it, command mode
            run_menu(driver, "notebook:run-all-below")
        runs += 1

        def settled():
            now = code_prompts(driver)
            return re.fullmatch(r"\[\d+\]:", now[first]) and "[*]:" not in now and kernel_idle(driver)

        wait_for(settled, max(1.0, deadline - time.monotonic()), f"run {runs} (from code cell {first}) to finish")


def truncated_widget_labels(driver) -> list[str]:
    """The widget labels (slider names and the like) that Lab cuts short with an ellipsis."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('.jp-NotebookPanel .widget-label, .jp-NotebookPanel .widget-label-basic'))"
        ".filter(e => e.scrollWidth > e.clientWidth).map(e => e.textContent.trim())")
