"""The check of ``wordpiece(word, vocab)`` (notebook 07): every word against the Rust WordPiece model of Hugging Face
``tokenizers`` (the one inside the real ``BertTokenizerFast``), on the real bert-base-uncased vocabulary and on small
made-up ones.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from course_lib.checks.bert_common import corpus_words, real_vocab, tokenizer, tokenizer_bans
from course_lib.checks.common import WRITE_IT_YOURSELF
from course_lib.grading.answers import AnswerError, Variant, call_answer_each, describe_value, report_pass

UNK = "[UNK]"
MAX_CHARS = 100  # BERT's max_input_chars_per_word


# ---------------------------------------------------------------------------
# wordpiece(word, vocab)


def plain_wordpiece(word: str, vocab, *, longest=True, hash_rest=True, hash_first=False, partial=None,
                    max_chars: int | None = MAX_CHARS, unk=(UNK,)) -> list[str]:
    """Greedy WordPiece in plain Python, correct or with one known mistake (used for the catalogue)."""
    if max_chars is not None and len(word) > max_chars:
        return list(unk)
    pieces, start = [], 0
    while start < len(word):
        ends = range(len(word), start, -1) if longest else range(start + 1, len(word) + 1)
        found = None
        for end in ends:
            piece = word[start:end]
            if (start > 0 and hash_rest) or hash_first:
                piece = "##" + piece
            if piece in vocab:
                found, start = piece, end
                break
        if found is None:
            if partial == "stop":
                return pieces
            if partial == "unk_piece":
                return pieces + [UNK]
            if partial == "skip_char":
                start += 1
                continue
            return list(unk)
        pieces.append(found)
    return pieces


def wordpiece_mistakes(vocab) -> list[Variant]:
    """The known wrong WordPieces for ``vocab``, each a function of the word."""
    def v(name, message, **mistake):
        return Variant(name, message, lambda word: plain_wordpiece(word, vocab, **mistake))
    return [
        v("shortest_first", "you take the shortest matching piece first; WordPiece is greedy longest-match-first: from "
          "each position, try the longest remaining substring, then shorter ones.", longest=False),
        v("no_hashes", "continuation pieces must start with '##' (look up '##' + piece for every piece after the "
                       "first); "
          "yours have no '##'.", hash_rest=False),
        v("hash_on_first", "you put '##' on the first piece too; only the pieces after the first (continuations) start "
          "with '##'.", hash_first=True),
        v("partial_pieces", "when the rest of the word cannot be split you return the pieces found so far; BERT "
          "gives up on the whole word: return ['[UNK]'].", partial="stop"),
        v("unk_for_rest", "when the rest of the word cannot be split you add '[UNK]' after the pieces found so far; "
          "BERT replaces the whole word by a single '[UNK]': return ['[UNK]'].", partial="unk_piece"),
        v("skips_characters", "you skip the characters that match no piece; BERT gives up on the whole word: "
          "return ['[UNK]'].", partial="skip_char"),
        v("no_length_limit", f"words longer than {MAX_CHARS} characters must give ['[UNK]'] (as BERT does), "
          "before any splitting.", max_chars=None),
        v("length_limit_off_by_one", f"a word of exactly {MAX_CHARS} characters is still split; only words longer "
          f"than {MAX_CHARS} characters give ['[UNK]'] (use len(word) > {MAX_CHARS}).", max_chars=MAX_CHARS - 1),
        v("empty_for_unknown", "a word that cannot be split must give ['[UNK]'], not an empty list.", unk=()),
    ]


#: made-up words, words with characters outside the vocabulary, and BERT's length limit
ODD_WORDS = ("unaffable", "xylophonist", "qwrtzp", "wordpieces", "tokenisation", "huggingface", "bertology",
             "abc\u2603def", "caf\u00e9s", "na\u00efve", "\U0001F642", "z" * 30, "a" * MAX_CHARS, "a" * (MAX_CHARS + 1),
             "ab" * 60, "x", "q")


def wordpiece_reference(word: str, vocab) -> list[str]:
    """The real WordPiece (Hugging Face ``tokenizers``, in Rust) for ``vocab``: what BertTokenizerFast does."""
    return [token.value for token in _rust_wordpiece(vocab).tokenize(word)]


_RUST_MODELS: dict[frozenset, Any] = {}


def _rust_wordpiece(vocab):
    key = vocab if isinstance(vocab, frozenset) else frozenset(vocab)
    if key not in _RUST_MODELS:
        from tokenizers.models import WordPiece

        if key == real_vocab():
            _RUST_MODELS[key] = tokenizer().backend_tokenizer.model
        else:
            ordered = sorted(key)
            _RUST_MODELS[key] = WordPiece({t: i for i, t in enumerate(ordered)}, unk_token=UNK,
                                          max_input_chars_per_word=MAX_CHARS)
    return _RUST_MODELS[key]


def toy_vocabularies() -> dict[str, frozenset]:
    """Small made-up vocabularies where the greedy choice and the '##' matter (and the real tokenizer is useless)."""
    return {
        "toy": frozenset({UNK, "un", "una", "##aff", "##ff", "##able", "##a", "##ble", "aff", "able", "play",
                          "##ing", "##in", "##g", "p", "##l", "##a", "##y", "run", "##ner", "##s", "s", "##un",
                          "b", "##b"}),
        "letters": frozenset({UNK, *"abcdefghij", *("##" + c for c in "abcdefghij"), "abc", "##bcd", "##de",
                              "##cdefg", "ghij", "##hij"}),
    }


def _as_pieces(ex: str, got: Any, word: str) -> list[str]:
    if isinstance(got, str):
        raise AnswerError(ex, f"should return a list of strings, got the string {got!r} (word: {word!r}); "
                              "for a word that cannot be split, return ['[UNK]'].")
    if not isinstance(got, (list, tuple)) or not all(isinstance(p, str) for p in got):
        raise AnswerError(ex, f"should return a list of strings (the pieces), got {describe_value(got)} (word: "
                              f"{word!r}).")
    return list(got)


def _one_piece_or_many(words: Sequence[str], answers: list, pieces_of) -> str:
    """A sentence when only the words of one piece, or only those of several, are wrong; else ""."""
    single = multi = bad_single = bad_multi = 0
    for w, a in zip(words, answers):
        ref = wordpiece_reference(w, pieces_of)
        ok = not isinstance(a, AnswerError) and list(a) == ref if isinstance(a, (list, tuple)) else False
        if len(ref) == 1:
            single, bad_single = single + 1, bad_single + (not ok)
        else:
            multi, bad_multi = multi + 1, bad_multi + (not ok)
    if single and multi and not bad_single and bad_multi:
        return (f" Words that are one piece are all right; {bad_multi} of the {multi} words of several pieces are "
                "wrong: look at how you continue after the first piece (## pieces, and the longest match first).")
    if single and multi and bad_single and not bad_multi:
        return f" Words of several pieces are right; {bad_single} of the {single} words that are one piece are wrong."
    return ""


def check_wordpiece(wordpiece: Callable, *, vocab: str = "real", words: Sequence[str] | None = None) -> None:
    """Every word against the real WordPiece; ``vocab`` is "real" (bert-base-uncased) or a key of
    :func:`toy_vocabularies`; ``words`` defaults to the corpus's words plus :data:`ODD_WORDS`."""
    ex = "wordpiece"
    pieces_of = real_vocab() if vocab == "real" else toy_vocabularies()[vocab]
    if words is None:
        words = corpus_words() + ODD_WORDS if vocab == "real" else toy_words(pieces_of)
    bans = tokenizer_bans()
    given = frozenset(pieces_of)
    answers = call_answer_each(ex, wordpiece, [((word, given), {}) for word in words], banned=bans,
                               reason=WRITE_IT_YOURSELF)
    for word, got in zip(words, answers):
        if isinstance(got, AnswerError):
            raise AnswerError(ex, f"{got.message} (word: {word!r})")
        got = _as_pieces(ex, got, word)
        expected = wordpiece_reference(word, pieces_of)
        if got == expected:
            continue
        for variant in wordpiece_mistakes(pieces_of):
            wrong = variant.compute(word)
            if wrong == got and wrong != expected:
                raise AnswerError(ex, f"{variant.message} (word: {word!r}: yours {got}, BERT's {expected})")
        if vocab != "real" and got == wordpiece_reference(word, real_vocab()):
            raise AnswerError(ex, f"your pieces for {word!r} come from BERT's own vocabulary, not from the `vocab` you "
                                  "were given: look every piece up in `vocab`.")
        plain = lambda pieces: "".join(p[2:] if p.startswith("##") else p for p in pieces)  # noqa: E731
        if UNK in got and UNK not in expected and any(len(p.removeprefix("##")) == 1 for p in expected):
            raise AnswerError(ex, f"the word {word!r} gives {got}; BERT's WordPiece gives {expected}: pieces of a "
                                  "single character are in the vocabulary too, so try every length down to one "
                                  "character before giving up with [UNK].")
        if UNK not in got and UNK not in expected and plain(got) == plain(expected) and len(got) != len(expected):
            first = next(i for i, (a, b) in enumerate(zip(got, expected)) if a != b)
            raise AnswerError(ex, f"the word {word!r} gives {got}; BERT's WordPiece gives {expected}: from piece "
                                  f"{first} on yours are {'shorter' if len(got) > len(expected) else 'longer'} than "
                                  "the longest piece in the vocabulary. At each position try the whole remaining "
                                  "string first, then shorter and shorter ones, and take the first (longest) that is "
                                  "in the vocabulary.")
        raise AnswerError(ex, f"the word {word!r} gives {got}; BERT's WordPiece gives {expected}"
                              f"{' (vocabulary: ' + vocab + ')' if vocab != 'real' else ''}."
                              f"{_one_piece_or_many(words, answers, pieces_of)}")
    where = "bert-base-uncased's 30522 pieces" if vocab == "real" else f"the {vocab!r} vocabulary"
    report_pass(ex, f"{len(words)} words equal to BERT's WordPiece with {where}")


def toy_words(vocab) -> tuple[str, ...]:
    """The words a check splits with one of :func:`toy_vocabularies` (chosen for its greedy and '##' traps)."""
    if "play" in vocab:
        return ("unaffable", "unable", "playing", "play", "plays", "runners", "run", "runs", "pl", "unaff", "bb", "bbb",
                "aable", "unx", "xun", "able", "una", "s", "sun", "b" * (MAX_CHARS + 1), "b" * MAX_CHARS,
                "un" + "b" * 99)
    return ("abcdefghij", "abcde", "aghij", "abcdefg", "jihgfedcba", "abk", "k", "ghij", "cdefg", "a" * 101,
            "a" * 100, "bcdefg", "abcdefgh")
