"""course_lib's docstring lists every module of the package, one line each, and nothing that is not one."""
import pkgutil
import re

import course_lib


def _listed() -> list[str]:
    return re.findall(r"^- ``(\w+)``: \S", course_lib.__doc__, flags=re.MULTILINE)


def test_the_package_docstring_lists_every_module_once():
    modules = {module.name for module in pkgutil.iter_modules(course_lib.__path__)}
    listed = _listed()
    assert len(listed) == len(set(listed)), f"listed twice: {sorted({m for m in listed if listed.count(m) > 1})}"
    assert sorted(modules - set(listed)) == [], "modules missing from course_lib's docstring"
    assert sorted(set(listed) - modules) == [], "names in course_lib's docstring that are not modules"
