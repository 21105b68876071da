"""The notebooks' modules of checks: importing one changes nothing outside it, and each exports the hooks its
notebook's setup cell installs (``checks.install_notebook_hooks()``)."""
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: in a fresh interpreter, with a stand-in IPython shell that records what is installed in it
PROGRAM = """
import importlib, sys
import IPython

installed = []

class Shell:
    def set_custom_exc(self, exceptions, handler):
        installed.append(tuple(e.__name__ for e in exceptions))

IPython.get_ipython = lambda: Shell()
modules = [importlib.import_module(name) for name in sys.argv[1:]]
print("after import:", installed)
for module in modules:
    module.install_notebook_hooks()
print("after the calls:", installed)
"""


def notebook_modules() -> list[str]:
    """The module of checks each notebook names (the single source's ``# checks:`` line)."""
    found = [re.search(r"^# checks: (\S+)$", path.read_text(encoding="utf-8"), re.M)
             for path in sorted((REPO / "solutions" / "src").glob("[0-9][0-9]_*.py"))]
    return [match.group(1) for match in found if match]


def test_every_notebook_names_a_module():
    assert len(notebook_modules()) == len(list((REPO / "solutions" / "src").glob("[0-9][0-9]_*.py"))) == 8


def test_importing_the_checks_installs_nothing_and_each_module_installs_the_hooks():
    names = ["course_lib.checks", *notebook_modules()]
    done = subprocess.run([sys.executable, "-c", PROGRAM, *names], capture_output=True, text=True, timeout=300,
                          cwd=REPO)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0] == "after import: []"
    assert lines[1] == "after the calls: " + str([("NameError", "NotImplementedError")] * len(names))
