"""Running the course for a class: nbgrader's exchange and Zero to JupyterHub.

    nbgrader_config.py  nbgrader's settings for every user's server (exchange root, course id, course directory)
    values.yaml         Zero to JupyterHub's Helm values: images, the exchange volume, the graders group, limits
    Dockerfile          the singleuser images (students: the release bundle; instructors: the whole course)
    __main__.py         python -m autograder.hub course NN: the instructor's nbgrader course directory

tests/grading/test_exchange.py runs the exchange with real accounts; it and tests of values.yaml load these files.
"""
from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIG_FILE = HERE / "nbgrader_config.py"
VALUES_FILE = HERE / "values.yaml"


def nbgrader_settings():
    """The nbgrader configuration this account sees: the nbgrader_config.py files on Jupyter's config path."""
    from jupyter_core.paths import jupyter_config_path
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    config = Config()
    for folder in reversed(jupyter_config_path()):  # highest priority last, as nbgrader loads them
        if (Path(folder) / "nbgrader_config.py").is_file():
            config.merge(PyFileConfigLoader("nbgrader_config.py", path=folder).load_config())
    return config
