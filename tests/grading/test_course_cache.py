"""The grader's cache of built course directories: the same directory as a fresh build, built once."""
import filecmp
import os
import time
from pathlib import Path

import nbformat
import pytest

from autograder import course

NAME = "01_ngrams"


def same_tree(a: Path, b: Path) -> list[str]:
    """Files that differ between two trees (nbgrader_config.py and the gradebook left out: they name their folder)."""
    differ = []
    for path in sorted(p for p in a.rglob("*") if p.is_file()):
        relative = path.relative_to(a)
        if relative.name in {"nbgrader_config.py", "gradebook.db"}:
            continue
        if not (b / relative).is_file() or not filecmp.cmp(path, b / relative, shallow=False):
            differ.append(str(relative))
    return differ + [str(p.relative_to(b)) for p in b.rglob("*") if p.is_file() and not (a / p.relative_to(b)).exists()]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_cached_copy_is_the_fresh_build_and_the_second_is_quick(tmp_path, cache):
    fresh = course.make_course_dir(tmp_path / "fresh", NAME, 30)
    first = course.cached_course_dir(tmp_path / "first", NAME, 30)
    started = time.monotonic()
    second = course.cached_course_dir(tmp_path / "second", NAME, 30)
    quick = time.monotonic() - started
    assert len(list(cache.iterdir())) == 1
    for copy in (first, second):
        assert nbformat.read(copy, as_version=4) == nbformat.read(fresh, as_version=4)
        root = copy.parents[2]
        assert same_tree(tmp_path / "fresh", root) == []
        assert f"c.CourseDirectory.root = {str(root)!r}" in (root / "nbgrader_config.py").read_text(encoding="utf-8")
    assert quick < 3, f"the second copy took {quick:.1f} s: it was built again"


def test_another_timeout_is_the_same_build_with_its_own_configuration(tmp_path, cache):
    course.cached_course_dir(tmp_path / "a", NAME, 30)
    course.cached_course_dir(tmp_path / "b", NAME, 45)
    assert len(list(cache.iterdir())) == 1
    assert "c.Execute.timeout = 30" in (tmp_path / "a" / "nbgrader_config.py").read_text(encoding="utf-8")
    assert "c.Execute.timeout = 45" in (tmp_path / "b" / "nbgrader_config.py").read_text(encoding="utf-8")


def test_a_changed_source_is_another_build(tmp_path, cache, monkeypatch):
    course.cached_course_dir(tmp_path / "a", NAME, 30)
    built = course.build_notebook

    def edited(path):
        nb = built(path)
        nb.cells.append(nbformat.v4.new_markdown_cell("A sentence added since."))
        return nb

    monkeypatch.setattr(course, "build_notebook", edited)
    release = course.cached_course_dir(tmp_path / "b", NAME, 30)
    assert len(list(cache.iterdir())) == 2
    assert nbformat.read(release, as_version=4).cells[-1].source == "A sentence added since."


def test_an_unwritable_cache_builds_in_place(tmp_path, monkeypatch):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache would go", encoding="utf-8")
    monkeypatch.setenv("COURSE_CACHE_DIR", str(blocked / "cache"))
    release = course.cached_course_dir(tmp_path / "course", NAME, 30)
    assert release.is_file() and blocked.is_file()
    assert os.path.exists(tmp_path / "course" / "gradebook.db")
