"""environment.yml (conda / Binder) must pin exactly what pyproject.toml pins."""
import re
import subprocess
import sys
import tomllib

from notebook_runner import REPO


def pip_pins() -> dict[str, str]:
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    pins = {}
    for dep in deps:
        name, sep, version = dep.partition("==")
        assert sep, f"pyproject.toml dependency {dep!r} is not pinned with =="
        pins[name.strip().lower()] = version.strip()
    return pins


def conda_pins() -> tuple[dict[str, str], str]:
    text = (REPO / "environment.yml").read_text()
    pins = dict(re.findall(r"^\s+-\s+([A-Za-z0-9_.-]+)==([^\s#]+)\s*$", text, flags=re.M))
    python = re.search(r"^\s+-\s+python=([0-9.]+)\s*$", text, flags=re.M)
    return {k.lower(): v for k, v in pins.items()}, python.group(1) if python else ""


def test_environment_yml_agrees_with_pyproject():
    conda, python = conda_pins()
    assert conda == pip_pins(), "environment.yml and pyproject.toml pin different packages or versions"
    assert python == "3.11"


def test_torch_is_pinned_to_the_cpu_build_on_disk():
    assert pip_pins()["torch"] == "2.13.0"


def test_environment_yml_installs_the_course_itself():
    assert re.search(r"^\s+-\s+-e \.\s*$", (REPO / "environment.yml").read_text(), flags=re.M)


def test_loading_nbformat_compiles_no_grammar():
    """The grader, its workers, nbgrader and the Lab all load nbformat: it must not pull in rfc3987-syntax
    (jsonschema >= 4.25), whose grammars take seconds to build in every one of those processes."""
    loaded = subprocess.run([sys.executable, "-c", "import sys, nbformat; print('rfc3987_syntax' in sys.modules)"],
                            capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "False", "nbformat loads rfc3987_syntax: pin jsonschema below 4.25 (pyproject.toml)"
