"""The README's first command (`make lab`) ends with JupyterLab serving notebooks/."""
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request

from notebook_runner import REPO


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_make_lab_serves_the_student_notebooks(tmp_path):
    port = free_port()
    env = dict(os.environ)
    for var in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR", "MPLCONFIGDIR"):
        env.setdefault(var, str(tmp_path / var.lower()))
    args = f"--port={port} --ip=127.0.0.1 --no-browser --ServerApp.token= --ServerApp.password="
    proc = subprocess.Popen(["make", "lab", f"LAB_ARGS={args}"], cwd=REPO, env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 240
        listing = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents", timeout=5) as response:
                    listing = json.load(response)
                break
            except OSError:
                time.sleep(1)
        assert listing is not None, "JupyterLab did not answer:\n" + (proc.stdout.read().decode() if proc.poll() is not None else "")
        names = {item["name"] for item in listing["content"]}
        assert "05_self_attention.ipynb" in names
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/lab", timeout=10) as response:
            assert response.status == 200 and b"JupyterLab" in response.read()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
