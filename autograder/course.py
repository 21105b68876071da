"""The course on disk, and nbgrader course directories made from it.

    solutions/src/NN_name.py   the single source (see ``notebook_source``)
    solutions/NN_name.ipynb    instructors' nbgrader source notebook (built, committed)
    notebooks/NN_name.ipynb    students' notebook (built by nbgrader, committed)
    lectures/NN_name.ipynb     lecturer's slides (RISE), built by ``autograder.lecture`` (committed)

nbgrader works on a course directory (``source/``, ``release/``, a gradebook). The
course never keeps one in the repository: :func:`make_course_dir` builds a fresh one in
a temporary folder whenever nbgrader is needed. Building one takes nbgrader about 10 s, so the
grader takes its copy from :func:`cached_course_dir`: built once per notebook source and nbgrader
version, in the user's cache folder.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import nbformat

from .lecture import build_lecture
from .notebook_source import build_notebook, cell_timeout

REPO = Path(__file__).resolve().parents[1]
SOURCES = REPO / "solutions" / "src"
SOLUTIONS = REPO / "solutions"
NOTEBOOKS = REPO / "notebooks"
LECTURES = REPO / "lectures"
COURSE_ID = "ngrams-to-bert"
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"


def assignments() -> list[str]:
    """Every notebook of the course, by name (e.g. '05_self_attention')."""
    return sorted(p.stem for p in SOURCES.glob("[0-9][0-9]_*.py"))


def resolve_assignment(name: str) -> str:
    """Accept '05_self_attention', '05' or 'self_attention'."""
    names = assignments()
    if name in names:
        return name
    matches = [n for n in names if n.startswith(name + "_") or n.split("_", 1)[1] == name]
    if len(matches) == 1:
        return matches[0]
    raise SystemExit(f"unknown assignment {name!r}; the course has: {', '.join(names)}")


def nbgrader_env() -> dict[str, str]:
    """Environment for nbgrader subprocesses: this Python's bin/ first (nbgrader calls alembic)."""
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    return env


def write_config(root: Path, timeout: int) -> None:
    """An nbgrader_config.py for a course directory."""
    (root / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.CourseDirectory.root = {str(root)!r}\n"
        f"c.CourseDirectory.course_id = {COURSE_ID!r}\n"
        f"c.ClearSolutions.code_stub = {{'python': {CODE_STUB!r}}}\n"
        "c.ClearSolutions.text_stub = 'YOUR ANSWER HERE'\n"
        f"c.Execute.timeout = {int(timeout)}\n"
        "c.Execute.interrupt_on_timeout = True\n"
        "c.Execute.allow_errors = True\n"
        "c.Execute.extra_arguments = ['--HistoryManager.enabled=False']\n"
        "c.LimitOutput.max_lines = 200\n"
        "c.LimitOutput.max_traceback = 40\n"
        "c.GenerateAssignment.create_assignment = True\n",
        encoding="utf-8",
    )


def run_nbgrader(root: Path, *args: str, timeout: float | None = None) -> subprocess.CompletedProcess:
    """Run ``nbgrader ARGS`` in a course directory; raise with its log on failure."""
    proc = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args, "--log-level=WARN"],
        cwd=root, env=nbgrader_env(), capture_output=True, text=True, timeout=timeout,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def make_course_dir(root: Path, name: str, timeout: int | None = None) -> Path:
    """Build an nbgrader course directory for one assignment and generate its release.

    Returns the released student notebook's path.
    """
    nb = build_notebook(SOURCES / f"{name}.py")
    root.mkdir(parents=True, exist_ok=True)
    write_config(root, timeout if timeout is not None else cell_timeout(nb))
    source_dir = root / "source" / name
    source_dir.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, source_dir / f"{name}.ipynb")
    run_nbgrader(root, "generate_assignment", name, "--force")
    return root / "release" / name / f"{name}.ipynb"


#: how many built course directories the cache keeps (the most recently used ones)
CACHE_KEPT = 40


def cache_folder() -> Path:
    """The folder of cached course directories: ``$COURSE_CACHE_DIR``, else the user's cache folder."""
    if os.environ.get("COURSE_CACHE_DIR"):
        return Path(os.environ["COURSE_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "from-ngrams-to-bert" / "course-dirs"


def _build_key(name: str, nb: nbformat.NotebookNode) -> str:
    """What a built course directory depends on: the notebook, nbgrader and this build code (the timeout is
    only in nbgrader_config.py, written anew for each copy)."""
    import nbgrader

    digest = hashlib.sha256()
    for part in (name, json.dumps(nb, sort_keys=True), nbgrader.__version__,
                 Path(__file__).read_text(encoding="utf-8"),
                 (Path(__file__).parent / "notebook_source.py").read_text(encoding="utf-8")):
        digest.update(part.encode("utf-8") + b"\0")
    return digest.hexdigest()[:24]


def cached_course_dir(root: Path, name: str, timeout: int | None = None) -> Path:
    """:func:`make_course_dir` at ``root``, copied from the cache when it holds this build (else built and kept).

    The cache is only a shortcut: where it cannot be read or written, the directory is built in place.
    """
    nb = build_notebook(SOURCES / f"{name}.py")
    timeout = timeout if timeout is not None else cell_timeout(nb)
    try:
        folder = cache_folder()
        entry = folder / _build_key(name, nb)
        if not (entry / "release" / name / f"{name}.ipynb").is_file():
            folder.mkdir(parents=True, exist_ok=True)
            building = folder / f"building-{uuid.uuid4().hex}"
            try:
                make_course_dir(building, name, timeout)
                os.rename(building, entry)  # atomic; another grader may have kept the same build first
            except OSError:
                if not entry.is_dir():
                    raise
            finally:
                shutil.rmtree(building, ignore_errors=True)
            for old in sorted(folder.iterdir(), key=lambda p: p.stat().st_mtime)[:-CACHE_KEPT]:
                shutil.rmtree(old, ignore_errors=True)
        shutil.copytree(entry, root, dirs_exist_ok=True)
        os.utime(entry)  # recently used: kept
    except OSError:
        shutil.rmtree(root, ignore_errors=True)  # a copy cut short
        return make_course_dir(root, name, timeout)
    write_config(root, timeout)  # its root is this folder
    return root / "release" / name / f"{name}.ipynb"


def canonical(nb: nbformat.NotebookNode) -> str:
    """The committed text of a notebook: no outputs, no execution counts, stable key order."""
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def built_files(name: str) -> dict[Path, str]:
    """The solution, student and lecture notebooks that ``name``'s source builds, as committed text."""
    with tempfile.TemporaryDirectory(prefix="course-build-") as tmp:
        release = cached_course_dir(Path(tmp), name)
        student = nbformat.read(release, as_version=4)
    return {
        SOLUTIONS / f"{name}.ipynb": canonical(build_notebook(SOURCES / f"{name}.py")),
        NOTEBOOKS / f"{name}.ipynb": canonical(student),
        LECTURES / f"{name}.ipynb": canonical(build_lecture(SOURCES / f"{name}.py")),
    }


def build(names: list[str] | None = None, check: bool = False) -> list[Path]:
    """Write (or, with ``check``, compare) the built notebooks; return the paths that differ."""
    differing = []
    for name in names or assignments():
        for path, text in built_files(name).items():
            current = path.read_text(encoding="utf-8") if path.exists() else None
            if current != text:
                differing.append(path)
                if not check:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(text, encoding="utf-8")
    return differing
