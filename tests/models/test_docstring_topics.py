"""course_lib.data.docstring_topics: a sentence-classification task made from the standard library's docstrings."""
from collections import Counter

import pytest

from course_lib import data


def test_balanced_distinct_and_each_sentence_from_its_topic():
    sentences, labels, names = data.docstring_topics(per_topic=40, seed=3)
    assert names == tuple(data.DOCSTRING_TOPICS)
    assert Counter(labels) == {label: 40 for label in range(len(names))}
    assert len(set(sentences)) == len(sentences) == 40 * len(names)
    root = data.stdlib_sources()[0].parent
    for label, modules in enumerate(data.DOCSTRING_TOPICS.values()):
        from_topic = {s for m in modules if (root / f"{m}.py").exists() for s in data.module_sentences(root / f"{m}.py", 4, 40)}
        mine = [s for s, l in zip(sentences, labels) if l == label]
        assert set(mine) <= from_topic
    assert sorted(labels) != list(labels), "the topics are shuffled together"


def test_seeded():
    assert data.docstring_topics(30, seed=1) == data.docstring_topics(30, seed=1)
    assert data.docstring_topics(30, seed=1)[0] != data.docstring_topics(30, seed=2)[0]


def test_asking_for_too_many_says_how_many_there_are():
    with pytest.raises(ValueError, match=r"only \d+ sentences for the topic .* ask for per_topic <= \d+"):
        data.docstring_topics(per_topic=100_000)
