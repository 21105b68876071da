"""The grader's cache of built course directories: the same directory as a build, built once per notebook."""
import json
from pathlib import Path

import nbformat
import pytest

from autograder import course

NAME = "01_ngrams"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def builds(monkeypatch):
    """nbgrader's build replaced by one that writes a release of the built notebook (a few ms, not 10 s);
    the list holds each build's notebook."""
    made: list[nbformat.NotebookNode] = []

    def build(root: Path, name: str, timeout=None) -> Path:
        nb = course.build_notebook(course.SOURCES / f"{name}.py")
        made.append(nb)
        release = root / "release" / name / f"{name}.ipynb"
        release.parent.mkdir(parents=True)
        nbformat.write(nb, release)
        course.write_config(root, timeout)
        return release

    monkeypatch.setattr(course, "make_course_dir", build)
    return made


def config(root: Path) -> str:
    return (root / "nbgrader_config.py").read_text(encoding="utf-8")


def test_a_cached_copy_is_the_committed_release_with_its_own_configuration(tmp_path, cache):
    first = course.cached_course_dir(tmp_path / "first", NAME, 30)  # nbgrader builds it: about 10 s
    second = course.cached_course_dir(tmp_path / "second", NAME, 45)
    assert len(list(cache.iterdir())) == 1
    committed = nbformat.read(course.NOTEBOOKS / f"{NAME}.ipynb", as_version=4)
    for copy, timeout in ((first, 30), (second, 45)):
        released = nbformat.read(copy, as_version=4)
        assert course.canonical(released) == course.canonical(committed)
        root = copy.parents[2]
        assert f"c.CourseDirectory.root = {str(root)!r}" in config(root)
        assert f"c.Execute.timeout = {timeout}" in config(root)
        assert (root / "gradebook.db").is_file() and (root / "source" / NAME / f"{NAME}.ipynb").is_file()


def test_the_second_copy_is_not_built_again(tmp_path, cache, builds):
    course.cached_course_dir(tmp_path / "a", NAME, 30)
    course.cached_course_dir(tmp_path / "b", NAME, 30)
    assert len(builds) == 1
    assert (tmp_path / "b" / "release" / NAME / f"{NAME}.ipynb").is_file()


def test_a_changed_source_is_another_build(tmp_path, cache, builds, monkeypatch):
    course.cached_course_dir(tmp_path / "a", NAME, 30)
    built = course.build_notebook

    def edited(path):
        nb = built(path)
        nb.cells.append(nbformat.v4.new_markdown_cell("A sentence added since."))
        return nb

    monkeypatch.setattr(course, "build_notebook", edited)
    release = course.cached_course_dir(tmp_path / "b", NAME, 30)
    assert len(builds) == 2 and len(list(cache.iterdir())) == 2
    assert nbformat.read(release, as_version=4).cells[-1].source == "A sentence added since."


def test_an_unwritable_cache_builds_in_place(tmp_path, monkeypatch, builds):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache would go", encoding="utf-8")
    monkeypatch.setenv("COURSE_CACHE_DIR", str(blocked / "cache"))
    release = course.cached_course_dir(tmp_path / "course", NAME, 30)
    assert release == tmp_path / "course" / "release" / NAME / f"{NAME}.ipynb" and release.is_file()
    assert blocked.is_file() and len(builds) == 1
    assert json.loads(release.read_text(encoding="utf-8"))["cells"]
