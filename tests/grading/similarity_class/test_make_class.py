"""The synthetic class for the copy detector (make_class.py): 40 valid submissions of notebook 05 on the released
scaffold, 5 copied pairs, the same files every time; independent students apart, copies close."""
import io
import itertools
import tokenize

import nbformat

from autograder.cells import answers, grade_id, is_answer

from . import answers_data as data
from .make_class import DISGUISES, MARKER, RELEASE, make_class, submissions


def test_forty_valid_submissions_on_the_released_scaffold(tmp_path):
    made = make_class(tmp_path)
    assert made["students"] == [f"s{n:02d}" for n in range(1, 41)]
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{s}.ipynb" for s in made["students"]]
    release = nbformat.read(RELEASE, as_version=4)
    for sid in made["students"]:
        nb = nbformat.read(tmp_path / f"{sid}.ipynb", as_version=4)
        nbformat.validate(nb)
        assert len(nb.cells) == len(release.cells)
        for mine, released in zip(nb.cells, release.cells):
            if not is_answer(released):
                assert mine == released, (sid, grade_id(released))
            elif released.cell_type == "code":
                compile(mine.source, f"{sid}:{grade_id(mine)}", "exec")
                head = released.source.split(MARKER)[0].rstrip()   # a function's signature and docstring
                assert head in mine.source, (sid, grade_id(mine))


def test_the_same_files_every_time(tmp_path):
    make_class(tmp_path / "a")
    make_class(tmp_path / "b")
    for path in sorted((tmp_path / "a").iterdir()):
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes(), path.name


def test_five_pairs_of_ten_students_far_apart_in_the_ids():
    students, pairs = submissions()
    members = [s for pair in pairs for s in pair]
    assert len(pairs) == 5 and len(set(members)) == 10 and set(members) <= set(students)
    assert all(abs(int(a[1:]) - int(b[1:])) > 1 for a, b in pairs)
    assert len({int(b[1:]) - int(a[1:]) for a, b in pairs}) == 5     # no common offset
    assert any(int(a[1:]) > int(b[1:]) for a, b in pairs)            # the original is not always the lower id


def _code(src: str) -> list[str]:
    """Tokens without comments, blank lines and quote style: what survives the lightest disguise."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            continue
        out.append(tok.string.replace("'", '"') if tok.type == tokenize.STRING else tok.string)
    return out


def test_independent_students_write_most_cells_their_own_way():
    students, pairs = submissions()
    stubs = answers(nbformat.read(RELEASE, as_version=4))
    copied = {frozenset(pair) for pair in pairs}
    for a, b in itertools.combinations(students, 2):
        if frozenset((a, b)) in copied:
            continue
        answered = [c for c in data.NON_TRIVIAL if stubs[c] not in (students[a][c], students[b][c])]
        same = [c for c in answered if students[a][c] == students[b][c]]
        assert len(same) <= 3 and len(same) <= len(answered) / 2, (a, b, same)


def test_copies_keep_the_originals_answers():
    students, pairs = submissions()
    stubs = answers(nbformat.read(RELEASE, as_version=4))
    light = dict(zip([d.name for d in DISGUISES], pairs))["light"]
    original, copy = (students[s] for s in light)
    for cell in data.CELLS[:-1]:
        assert _code(original[cell]) == _code(copy[cell]), cell     # light: only comments, blank lines, quotes
    for disguise, (a, b) in zip(DISGUISES, pairs):
        copied = [c for c in data.CELLS[:-1] if c not in disguise.own and students[a][c] != stubs[c]]
        assert len(copied) >= 7, disguise.name
        # every copied code cell keeps the original's statements: as many lines of code, or one or two fewer
        for cell in copied:
            lines_a = [line for line in students[a][cell].splitlines() if line.strip() and not line.strip().startswith("#")]
            lines_b = [line for line in students[b][cell].splitlines() if line.strip() and not line.strip().startswith("#")]
            assert abs(len(lines_a) - len(lines_b)) <= 2, (disguise.name, cell)
