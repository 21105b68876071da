"""The prose and the checks cite the lecture decks by title (course_lib.decks), never as "seed 00N"."""
import re
from pathlib import Path

from course_lib.decks import DECKS, lecture

ROOT = Path(__file__).resolve().parents[2]
#: what a student or a lecturer reads: the notebooks' single source, the built notebooks, the library, the README
#: (course_lib/decks.py, the table itself, is left out)
SOURCES = sorted({*ROOT.glob("solutions/src/*.py"), *ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("solutions/*.ipynb"),
                  *ROOT.glob("course_lib/**/*.py"), ROOT / "README.md"} - {ROOT / "course_lib" / "decks.py"})
#: 'the lecture "A"', 'the lectures "A" and "B"', 'the lectures "A", "B" and "C"'
CITATION = re.compile(r'lectures? ("[^"]+"(?:(?:, | and )"[^"]+")*)')
DECK_NUMBER = re.compile(r"\b(?:seeds?|decks?) 00\d\b", re.IGNORECASE)


def cited_titles(text: str) -> list[str]:
    return [title for group in CITATION.findall(text) for title in re.findall(r'"([^"]+)"', group)]


def test_no_deck_is_cited_by_its_file_number():
    found = [f"{path.relative_to(ROOT)}: {m.group(0)}" for path in SOURCES
             for m in DECK_NUMBER.finditer(path.read_text(encoding="utf-8"))]
    assert found == []


def test_every_cited_lecture_is_a_deck_and_every_deck_is_cited():
    titles = {deck.title for deck in DECKS.values()}
    cited = {path.relative_to(ROOT).as_posix(): cited_titles(path.read_text(encoding="utf-8")) for path in SOURCES}
    unknown = {path: sorted(set(found) - titles) for path, found in cited.items() if set(found) - titles}
    assert unknown == {}
    in_notebooks = {title for path, found in cited.items() if path.startswith("solutions/src/") for title in found}
    assert in_notebooks == titles


def test_citation_pattern_reads_lists_of_lectures():
    text = f'{lecture("000")} and the lectures "{DECKS["002"].title}", "{DECKS["003"].title}" and "{DECKS["004"].title}"'
    assert cited_titles(text) == [DECKS[d].title for d in ("000", "002", "003", "004")]
    assert cited_titles('the lecture "X" works through "The brown dog ran"') == ["X"]
