"""Answers to notebook 08 for testing its checks: right ones written differently, and known mistakes."""
from answer_catalogue import Wrong

NOTEBOOK = "08_bert_tasks"

_ALIGN = '''def align_labels(word_labels, word_pieces):
    labels = {start}
    for label, pieces in zip(word_labels, word_pieces):
        labels += {word}
    return labels{end}
'''


def align_source(start="[-100]", word="[label] + [-100] * (len(pieces) - 1)", end=" + [-100]"):
    return _ALIGN.format(start=start, word=word, end=end)


_TRUNCATE = '''def truncate_pair(a, b, max_length):
    a, b = list(a), list(b)
    while len(a) + len(b) + {specials} > max_length:
        if {condition}:
            a.pop()
        else:
            b.pop()
    return a, b
'''


def truncate_source(specials="3", condition="len(a) > len(b)"):
    return _TRUNCATE.format(specials=specials, condition=condition)


WRONG = [
    Wrong("align_every_piece", "align_labels", align_source(word="[label] * len(pieces)"), "check_align_labels",
          "every piece of a word got the word's label"),
    Wrong("align_no_specials", "align_labels", align_source(start="[]", end=""), "check_align_labels",
          "[CLS] and [SEP] are missing"),
    Wrong("align_no_sep", "align_labels", align_source(end=""), "check_align_labels", "[SEP] at the end is missing"),
    Wrong("align_no_cls", "align_labels", align_source(start="[]"), "check_align_labels",
          "[CLS] at the start is missing"),
    Wrong("align_off_by_one", "align_labels", align_source(start="[]", end=" + [-100, -100]"), "check_align_labels",
          "one position early (off by one)"),
    Wrong("align_late", "align_labels", align_source(start="[-100, -100]", end=""), "check_align_labels",
          "one position late (off by one)"),
    Wrong("align_last_piece", "align_labels", align_source(word="[-100] * (len(pieces) - 1) + [label]"),
          "check_align_labels", "last piece"),
    Wrong("align_rest_zero", "align_labels", align_source(word="[label] + [0] * (len(pieces) - 1)"),
          "check_align_labels", "got 0, which is a real label"),
    Wrong("align_specials_zero", "align_labels", align_source(start="[0]", end=" + [0]"), "check_align_labels",
          "[CLS] and [SEP] got 0"),
    Wrong("align_word_count", "align_labels", '''def align_labels(word_labels, word_pieces):
    return [-100] + list(word_labels) + [-100]
''', "check_align_labels", "one label per word"),
    Wrong("align_too_many_ignored", "align_labels", align_source(word="[label] + [-100] * len(pieces)"),
          "check_align_labels", "one -100 too many per word"),
    Wrong("align_mutates", "align_labels", '''def align_labels(word_labels, word_pieces):
    labels = [-100]
    for label, pieces in zip(word_labels, word_pieces):
        labels.append(label)
        pieces.pop(0)
        labels += [-100] * len(pieces)
    return labels + [-100]
''', "check_align_labels", "changed its argument"),
    Wrong("truncate_no_specials", "truncate_pair", truncate_source(specials="0"), "check_truncate_pair",
          "no room for [CLS] and the two [SEP]s"),
    Wrong("truncate_two_specials", "truncate_pair", truncate_source(specials="2"), "check_truncate_pair",
          "room for 2 special tokens"),
    Wrong("truncate_only_second", "truncate_pair", '''def truncate_pair(a, b, max_length):
    return list(a), list(b)[:max(0, max_length - 3 - len(a))]
''', "check_truncate_pair", "you cut only B"),
    Wrong("truncate_halves", "truncate_pair", '''def truncate_pair(a, b, max_length):
    room = max_length - 3
    if len(a) + len(b) <= room:
        return list(a), list(b)
    return list(a)[:room // 2], list(b)[:room - room // 2]
''', "check_truncate_pair", "cut both to half the room"),
    Wrong("truncate_from_front", "truncate_pair", '''def truncate_pair(a, b, max_length):
    a, b = list(a), list(b)
    while len(a) + len(b) + 3 > max_length:
        if len(a) > len(b):
            a.pop(0)
        else:
            b.pop(0)
    return a, b
''', "check_truncate_pair", "kept the ends"),
    Wrong("truncate_a_first", "truncate_pair", truncate_source(condition="a"),
          "check_truncate_pair", "longest first keeps"),
    Wrong("truncate_mutates", "truncate_pair", '''def truncate_pair(a, b, max_length):
    while len(a) + len(b) + 3 > max_length:
        (a if len(a) > len(b) else b).pop()
    return a, b
''', "check_truncate_pair", "changed its argument"),
]

WRONG += [
    Wrong("truncate_one_too_many", "truncate_pair", truncate_source(specials="4"), "check_truncate_pair",
          "one token too many"),
    Wrong("truncate_excess_halves", "truncate_pair", '''def truncate_pair(a, b, max_length):
    excess = max(0, len(a) + len(b) + 3 - max_length)
    return list(a)[:max(0, len(a) - excess // 2)], list(b)[:max(0, len(b) - (excess - excess // 2))]
''', "check_truncate_pair", "half of the excess"),
    Wrong("truncate_shorter_first", "truncate_pair", truncate_source(condition="len(a) < len(b)"),
          "check_truncate_pair", "you cut the shorter one first"),
    Wrong("truncate_minus_zero", "truncate_pair", '''def truncate_pair(a, b, max_length):
    cut_a = cut_b = 0
    while len(a) - cut_a + len(b) - cut_b + 3 > max_length:
        if len(a) - cut_a > len(b) - cut_b:
            cut_a += 1
        else:
            cut_b += 1
    return a[:-cut_a], b[:-cut_b]
''', "check_truncate_pair", "came back empty"),
]

CHEATS = [
    Wrong("truncate_calls_tokenizer", "truncate_pair", '''def truncate_pair(a, b, max_length):
    out = tokenizer(tokenizer.decode(a), tokenizer.decode(b), truncation=True, max_length=max_length)
    n_a = out["token_type_ids"].count(0) - 2
    return list(a)[:n_a], list(b)[:len(out["input_ids"]) - n_a - 3]
''', "check_truncate_pair", "switched off"),
]

#: Correct answers in other styles.
ALTERNATIVES = {
    "loops": {
        "align_labels": '''def align_labels(word_labels, word_pieces):
    out = [-100]
    for w in range(len(word_pieces)):
        for k in range(len(word_pieces[w])):
            out.append(word_labels[w] if k == 0 else -100)
    out.append(-100)
    return out
''',
        "truncate_pair": '''def truncate_pair(a, b, max_length):
    room = max_length - 3
    n_a, n_b = len(a), len(b)
    while n_a + n_b > room:
        if n_a > n_b:
            n_a -= 1
        else:
            n_b -= 1
    return a[:n_a], b[:n_b]
''',
    },
    "tensors": {
        "align_labels": '''def align_labels(word_labels, word_pieces):
    lengths = torch.tensor([len(p) for p in word_pieces])
    labels = torch.full((int(lengths.sum()) + 2,), -100)
    starts = 1 + torch.cumsum(lengths, 0) - lengths
    labels[starts] = torch.tensor(word_labels, dtype=torch.long)
    return labels
''',
        "truncate_pair": '''def truncate_pair(a, b, max_length):
    room = max(0, max_length - 3)
    short, long_ = sorted((len(a), len(b)))
    if short + long_ <= room:
        return list(a), list(b)
    if 2 * short <= room:
        keep_short, keep_long = short, room - short
    else:
        keep_short, keep_long = room // 2, room - room // 2
    if len(a) <= len(b):
        return list(a[:keep_short]), list(b[:keep_long])
    return list(a[:keep_long]), list(b[:keep_short])
''',
    },
}

#: Answer cells replaced by a stub that raises NotImplementedError, and the test cell that must say so.
STUBS = [("align_labels", "check_align_labels"), ("truncate_pair", "check_truncate_pair")]

#: An answer cell whose infinite loop costs only its own test cell.
LOOP = ("truncate_pair", "check_truncate_pair")
