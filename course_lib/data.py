"""The course's four corpora, each built on this machine (nothing is downloaded), and word-level helpers.

1. The cat/dog world (notebooks 01, 02 and 04): :class:`CatDogGrammar`, a probabilistic grammar whose
   sentences look like the lecture's "the cat is walking in the bedroom" / "a dog was running in a
   room". It has agreement (a plural subject takes "are"/"were" and no "a") and one longer-range
   constraint: where an animal is depends on which animal it is (each animal has a preferred
   room), five words further on, out of reach of a trigram. The grammar enumerates all its
   sentences with their exact probabilities, so :func:`entropy_per_token` gives the exact entropy
   rate: the best perplexity any language model can reach on this data is
   ``exp(entropy_per_token())``. :func:`sample_sentences` and :func:`train_valid_split` draw from it.
2. Docstring prose (notebook 02, the course BERT's pretraining in ``course_lib.bert_pretrain``):
   :func:`docstring_sentences`, English sentences from the docstrings of the Python standard library
   on this machine, split by module into training and validation; :func:`docstring_topics` (notebook
   07) turns the same sentences into a classification task: which part of the library
   (:data:`DOCSTRING_TOPICS`) a sentence comes from.
3. Python source characters (notebooks 03, 04 and 06, ``course_lib.compare``): :func:`stdlib_source_text`,
   the standard library's source files as one string over at most 96 characters
   (:data:`SOURCE_CHARS`), with :func:`char_vocab`.
4. The gap task (notebook 04): :func:`gap_task`, synthetic sequences "key, distractors, query"
   whose answer is the first token, with a gap of chosen length: a long-range dependency that a
   model either bridges or answers by chance.

Word-level helpers: :func:`tokenize` and :class:`Vocab` (with <unk>, <s> and </s>).
:func:`stdlib_sources` and :func:`module_sentences` are the building blocks of corpora 2 and 3.
"""
from __future__ import annotations

import ast
import functools
import itertools
import math
import pathlib
import re
import sysconfig
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

__all__ = ["CatDogGrammar", "sample_sentences", "entropy_per_token", "next_word_distribution", "train_valid_split",
           "docstring_sentences", "docstring_topics", "DOCSTRING_TOPICS", "module_sentences", "stdlib_sources",
           "stdlib_source_text", "char_vocab", "SOURCE_CHARS", "tokenize", "Vocab", "UNK", "BOS", "EOS", "gap_task"]

UNK, BOS, EOS = "<unk>", "<s>", "</s>"

Choices = tuple[tuple[str, float], ...]


def _normalise(name: str, choices: Choices) -> dict[str, float]:
    if not choices:
        raise ValueError(f"the grammar's slot {name!r} has no choices")
    total = float(sum(w for _, w in choices))
    if any(w < 0 for _, w in choices) or total <= 0:
        raise ValueError(f"the weights of slot {name!r} must be non-negative and not all zero")
    return {word: w / total for word, w in choices}


@dataclass(frozen=True)
class CatDogGrammar:
    """det [adjective] animal aux verb in det room.

    Each slot is a list of (word, weight); "" as an adjective means none. The subject is plural
    with probability ``plural``: then it takes ``plural_determiners``, the animal's plural form and
    the plural auxiliary ("the cats are", "some mice were"). The room is drawn from ``rooms`` with
    each weight multiplied by ``room_preference`` for the sentence's animal.
    """

    plural: float = 0.3
    determiners: Choices = (("the", 0.6), ("a", 0.4))
    plural_determiners: Choices = (("the", 0.7), ("some", 0.3))
    adjectives: Choices = (("", 0.7), ("big", 0.2), ("small", 0.1))
    animals: Choices = (("cat", 0.4), ("dog", 0.4), ("mouse", 0.2))
    plurals: tuple[tuple[str, str], ...] = (("cat", "cats"), ("dog", "dogs"), ("mouse", "mice"))
    #: (singular, plural) forms of each tense's auxiliary
    auxiliaries: tuple[tuple[tuple[str, str], float], ...] = ((("is", "are"), 0.5), (("was", "were"), 0.5))
    verbs: Choices = (("walking", 0.4), ("running", 0.3), ("sleeping", 0.3))
    rooms: Choices = (("bedroom", 0.3), ("kitchen", 0.3), ("room", 0.2), ("garden", 0.2))
    #: (animal, room, factor): the room's weight is multiplied by factor after that animal
    room_preference: tuple[tuple[str, str, float], ...] = (
        ("cat", "bedroom", 6.0), ("dog", "garden", 6.0), ("mouse", "kitchen", 6.0))
    #: (animal, room) combinations that never appear in training sentences
    held_out: tuple[tuple[str, str], ...] = (("mouse", "bedroom"),)

    def plural_of(self, animal: str) -> str:
        return dict(self.plurals).get(animal, animal + "s")

    def room_distribution(self, animal: str) -> dict[str, float]:
        """p(room | animal): the base room weights times the animal's preferences, normalised."""
        factor = {(a, r): f for a, r, f in self.room_preference}
        base = _normalise("rooms", self.rooms)
        return _normalise("rooms", tuple((r, p * factor.get((animal, r), 1.0)) for r, p in base.items()))

    def sentences(self) -> list[tuple[tuple[str, ...], float]]:
        """Every sentence (as a tuple of words, no </s>) with its exact probability."""
        if not 0.0 <= self.plural <= 1.0:
            raise ValueError(f"plural is a probability, got {self.plural!r}")
        numbers = {"singular": 1.0 - self.plural, "plural": self.plural}
        dets = {"singular": _normalise("determiners", self.determiners),
                "plural": _normalise("plural_determiners", self.plural_determiners)}
        room_dets = dets["singular"]
        adjectives, animals = _normalise("adjectives", self.adjectives), _normalise("animals", self.animals)
        auxiliaries = _normalise("auxiliaries", self.auxiliaries)
        verbs = _normalise("verbs", self.verbs)
        table: dict[tuple[str, ...], float] = {}
        for number, p_number in numbers.items():
            if p_number == 0:
                continue
            for (det, p1), (adj, p2), (animal, p3), (aux, p4), (verb, p5), (room_det, p6) in itertools.product(
                    dets[number].items(), adjectives.items(), animals.items(), auxiliaries.items(), verbs.items(),
                    room_dets.items()):
                noun = animal if number == "singular" else self.plural_of(animal)
                head = (det, adj, noun, aux[number == "plural"], verb, "in", room_det)
                for room, p7 in self.room_distribution(animal).items():
                    p = p_number * p1 * p2 * p3 * p4 * p5 * p6 * p7
                    if p > 0:
                        words = tuple(w for w in head if w) + (room,)
                        table[words] = table.get(words, 0.0) + p
        return list(table.items())

    def is_held_out(self, words: Sequence[str]) -> bool:
        return any((animal in words or self.plural_of(animal) in words) and room == words[-1]
                   for animal, room in self.held_out)


def entropy_per_token(grammar: CatDogGrammar | None = None, *, without_held_out: bool = False) -> float:
    """Exact entropy in nats per token (words and </s>): -sum p log p / E[tokens].

    ``without_held_out=True``: of the distribution that train/valid sentences come from (the grammar
    conditioned on not containing a held-out pair).
    """
    grammar = grammar or CatDogGrammar()
    table = grammar.sentences()
    if without_held_out:
        table = [(w, p) for w, p in table if not grammar.is_held_out(w)]
        z = sum(p for _, p in table)
        table = [(w, p / z) for w, p in table]
    h = -sum(p * math.log(p) for _, p in table)
    expected_tokens = sum(p * (len(words) + 1) for words, p in table)
    return h / expected_tokens


def next_word_distribution(prefix: Sequence[str], grammar: CatDogGrammar | None = None, *,
                           without_held_out: bool = False) -> dict[str, float]:
    """The exact p(next word | the sentence so far) of the grammar; ``</s>`` ends the sentence.

    ``prefix`` is the sentence's words so far (without ``<s>``). A prefix the grammar cannot
    produce is an error.
    """
    table = _prefix_table(grammar or CatDogGrammar(), without_held_out)
    following = table.get(tuple(prefix))
    if not following:
        raise ValueError(f"the grammar never produces a sentence starting with {' '.join(prefix)!r}")
    total = sum(following.values())
    return {word: p / total for word, p in following.items()}


@functools.lru_cache(maxsize=8)
def _prefix_table(grammar: CatDogGrammar, without_held_out: bool) -> dict[tuple[str, ...], dict[str, float]]:
    """prefix -> {next word: total probability of the sentences continuing that way}."""
    table: dict[tuple[str, ...], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for words, p in grammar.sentences():
        if without_held_out and grammar.is_held_out(words):
            continue
        for i, word in enumerate(words + (EOS,)):
            table[words[:i]][word] += p
    return {prefix: dict(following) for prefix, following in table.items()}


def _draw(table, n: int, seed: int) -> list[str]:
    probs = np.array([p for _, p in table], dtype=np.float64)
    idx = np.random.default_rng(seed).choice(len(table), size=n, p=probs / probs.sum())
    return [" ".join(table[i][0]) for i in idx]


def sample_sentences(n: int, seed: int = 0, grammar: CatDogGrammar | None = None) -> list[str]:
    """``n`` sentences drawn from the grammar (reproducible for a given seed)."""
    if not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    grammar = grammar or CatDogGrammar()
    return _draw(grammar.sentences(), int(n), seed)


def train_valid_split(n_train: int = 2000, n_valid: int = 500, n_held_out: int = 100, seed: int = 0,
                      grammar: CatDogGrammar | None = None) -> tuple[list[str], list[str], list[str]]:
    """(train, valid, held_out): train and valid never contain a held-out (animal, room) pair;
    held_out contains only sentences with one (sensible, but never seen in training)."""
    for name, v in (("n_train", n_train), ("n_valid", n_valid), ("n_held_out", n_held_out)):
        if not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {v!r}")
    grammar = grammar or CatDogGrammar()
    table = grammar.sentences()
    seen = [(w, p) for w, p in table if not grammar.is_held_out(w)]
    unseen = [(w, p) for w, p in table if grammar.is_held_out(w)]
    if n_held_out and not unseen:
        raise ValueError("the grammar has no held-out sentences: set held_out to (animal, room) pairs it can generate")
    held = _draw(unseen, n_held_out, seed + 2) if n_held_out else []
    return _draw(seen, n_train, seed), _draw(seen, n_valid, seed + 1), held


_DOCTEST_OR_CODE = re.compile(r"^\s*(>>>|\.\.\.|\$ |[-=~*]{3,})|[{}\[\]=<>|\\]{1}.*[{}\[\]=<>|\\]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


@functools.lru_cache(maxsize=2)
def docstring_sentences(min_words: int = 4, max_words: int = 40) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """English prose from the docstrings of the Python standard library on this machine: (train, valid).

    The top-level modules' source files are parsed (not imported, so nothing runs); docstrings of
    modules, classes and functions are cut into sentences; doctest examples, indented code and
    lines full of symbols are dropped. Every tenth module (in sorted order) goes to validation,
    so validation prose comes from modules the model has not read. About 2 s, then cached.
    """
    train: list[str] = []
    valid: list[str] = []
    for number, path in enumerate(stdlib_sources()):
        (valid if number % 10 == 0 else train).extend(module_sentences(path, min_words, max_words))
    return tuple(train), tuple(valid)


#: parts of the standard library, by the top-level modules that make them up (sentence classification)
DOCSTRING_TOPICS: dict[str, tuple[str, ...]] = {
    "numbers and dates": ("_pydecimal", "statistics", "random", "numbers", "fractions", "calendar", "datetime"),
    "files and archives": ("shutil", "pathlib", "tarfile", "zipfile", "tempfile", "os", "gzip", "bz2", "lzma",
                           "glob", "fileinput"),
    "network and mail": ("smtplib", "socketserver", "nntplib", "imaplib", "ssl", "ftplib", "socket", "mailbox",
                         "poplib"),
    "threads and processes": ("threading", "subprocess", "queue", "selectors", "sched", "_threading_local"),
    "debugging and code": ("doctest", "bdb", "pdb", "traceback", "dis", "inspect", "code", "timeit"),
}


@functools.lru_cache(maxsize=4)
def docstring_topics(per_topic: int = 150, seed: int = 0) -> tuple[tuple[str, ...], tuple[int, ...], tuple[str, ...]]:
    """A sentence-classification task on real text: which part of the standard library a docstring sentence is from.

    Returns ``(sentences, labels, topic_names)``: ``per_topic`` distinct sentences drawn (seeded) from
    the docstrings of each topic's modules in :data:`DOCSTRING_TOPICS`, shuffled together; ``labels[i]``
    indexes ``topic_names``. Sentences as in :func:`docstring_sentences` (prose only, 4 to 40 words).
    """
    root = stdlib_sources()[0].parent
    rng = np.random.default_rng(seed)
    pairs = []
    for label, modules in enumerate(DOCSTRING_TOPICS.values()):
        found = sorted({s for module in modules if (root / f"{module}.py").exists()
                        for s in module_sentences(root / f"{module}.py", 4, 40)})
        if len(found) < per_topic:
            raise ValueError(f"only {len(found)} sentences for the topic {list(DOCSTRING_TOPICS)[label]!r} "
                             f"in this Python's standard library; ask for per_topic <= {len(found)}.")
        pairs += [(found[i], label) for i in rng.choice(len(found), per_topic, replace=False)]
    order = rng.permutation(len(pairs))
    return (tuple(pairs[i][0] for i in order), tuple(pairs[i][1] for i in order), tuple(DOCSTRING_TOPICS))


def module_sentences(path: pathlib.Path, min_words: int, max_words: int) -> list[str]:
    """The prose sentences of the docstrings of a module and of its classes and functions, in source order."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return []
    sentences = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            sentences.extend(_prose_sentences(ast.get_docstring(node) or "", min_words, max_words))
    return sentences


def stdlib_sources() -> list[pathlib.Path]:
    """The standard library's top-level .py files on this machine, sorted by name."""
    root = pathlib.Path(sysconfig.get_paths()["stdlib"])
    files = sorted(root.glob("*.py"))
    if not files:
        raise FileNotFoundError(f"no Python standard library sources found under {root}")
    return files


def _prose_sentences(docstring: str, min_words: int, max_words: int) -> list[str]:
    sentences = []
    for paragraph in docstring.split("\n\n"):
        lines = paragraph.splitlines()
        if any(line.startswith((" ", "\t")) or _DOCTEST_OR_CODE.search(line) for line in lines):
            continue  # code, doctests, tables, ASCII art
        for sentence in _SENTENCE_END.split(" ".join(line.strip() for line in lines)):
            words = sentence.split()
            letters = sum(c.isalpha() or c.isspace() for c in sentence)
            if min_words <= len(words) <= max_words and letters >= 0.9 * len(sentence):
                sentences.append(sentence)
    return sentences


_WORD = re.compile(r"<unk>|<s>|</s>|[a-z0-9']+|[.,!?;:]")


def tokenize(text: str) -> list[str]:
    """Lower-case words (and punctuation marks) of ``text``."""
    if not isinstance(text, str):
        raise ValueError(f"tokenize expects a string, got {type(text).__name__}")
    return _WORD.findall(text.lower())


class Vocab:
    """Word <-> index, with <unk>, <s> and </s>; words seen fewer than ``min_count`` times become <unk>."""

    def __init__(self, sentences: Iterable[Sequence[str]], min_count: int = 1):
        if min_count < 1:
            raise ValueError(f"min_count must be at least 1, got {min_count}")
        counts = Counter(w for s in sentences for w in s)
        if not counts:
            raise ValueError("cannot build a vocabulary from an empty corpus")
        specials = (UNK, BOS, EOS)
        self.itos = [*specials] + sorted(w for w, c in counts.items() if c >= min_count and w not in specials)
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, word: str) -> bool:
        return word in self.stoi

    def index(self, word: str) -> int:
        return self.stoi.get(word, 0)

    def encode(self, words: Sequence[str]) -> list[int]:
        return [self.index(w) for w in words]

    def decode(self, ids: Sequence[int]) -> list[str]:
        return [self.itos[i] for i in ids]

    def normalise(self, words: Sequence[str]) -> list[str]:
        return [w if w in self.stoi else UNK for w in words]


# ---------------------------------------------------------------------------
# characters of Python source code (notebook 03's character-level RNN)

#: the characters :func:`stdlib_source_text` keeps: printable ASCII and the newline (tabs become 4 spaces)
SOURCE_CHARS = "\n" + "".join(chr(i) for i in range(32, 127))


def stdlib_source_text(max_chars: int = 100_000, seed: int = 0) -> str:
    """``max_chars`` characters of Python source: the standard library's top-level .py files on this machine.

    The files are read as text (not imported, so nothing runs), in an order shuffled with ``seed``
    from their sorted names, and concatenated until ``max_chars``. Tabs become four spaces and any
    character outside :data:`SOURCE_CHARS` (non-ASCII letters, form feeds) becomes "?", so the
    vocabulary is at most 96 characters. Deterministic for a given Python installation; well under 1 s.
    """
    if not isinstance(max_chars, int) or isinstance(max_chars, bool) or max_chars < 1:
        raise ValueError(f"max_chars must be a positive integer, got {max_chars!r}")
    files = stdlib_sources()
    keep = set(SOURCE_CHARS)
    parts: list[str] = []
    total = 0
    for i in np.random.default_rng(seed).permutation(len(files)):
        try:
            text = files[i].read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        text = text.replace("\r\n", "\n").replace("\t", "    ")
        text = "".join(c if c in keep else "?" for c in text)
        parts.append(text)
        total += len(text)
        if total >= max_chars:
            break
    return "".join(parts)[:max_chars]


def char_vocab(text: str) -> tuple[list[str], dict[str, int]]:
    """(itos, stoi) of the distinct characters of ``text``, sorted: itos[i] is a character, stoi[c] its id."""
    if not isinstance(text, str) or not text:
        raise ValueError("char_vocab needs a non-empty string")
    itos = sorted(set(text))
    return itos, {c: i for i, c in enumerate(itos)}



# ---------------------------------------------------------------------------
# a long-range dependency with a tunable gap (notebook 04)


def gap_task(n: int, gap: int, num_keys: int = 4, vocab_size: int = 16, seed: int = 0):
    """``n`` sequences "key, gap distractors, query" and their answers, the key: (inputs (n, gap + 2), targets (n,)).

    The lecture's "I grew up in France ... I speak fluent ___" made synthetic. Token ids: ``0 ..
    num_keys - 1`` are the keys ("France"), ``num_keys`` is the query token ("I speak fluent"), the
    rest are distractors drawn uniformly and independently of the key. ``inputs[:, 0]`` is the key,
    ``inputs[:, 1:gap + 1]`` the distractors, ``inputs[:, -1]`` the query; ``targets == inputs[:, 0]``.
    Nothing after the first token says anything about the key, so a model that cannot see ``gap + 2``
    tokens back can do no better than chance, 1 / num_keys. Reproducible for a given seed.
    """
    for name, value in (("n", n), ("num_keys", num_keys), ("vocab_size", vocab_size)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}.")
    if not isinstance(gap, int) or isinstance(gap, bool) or gap < 0:
        raise ValueError(f"gap must be a non-negative integer, got {gap!r}.")
    if vocab_size < num_keys + 2:
        raise ValueError(f"vocab_size must leave room for {num_keys} keys, the query and at least one distractor: "
                         f"at least {num_keys + 2}, got {vocab_size}.")
    import torch  # the rest of this module does not need torch

    g = torch.Generator().manual_seed(seed)
    keys = torch.randint(num_keys, (n,), generator=g)
    distractors = torch.randint(num_keys + 1, vocab_size, (n, gap), generator=g)
    query = torch.full((n, 1), num_keys, dtype=torch.long)
    return torch.cat([keys[:, None], distractors, query], dim=1), keys.clone()
