"""Fifth blind set for notebook 08 (BERT at work): aligning word labels to WordPieces and truncating a
sentence pair, written from the student notebook only (no check code read)."""
from blind_case import Blind

NOTEBOOK = "08_bert_tasks"

_AL_SIG = '''def align_labels(word_labels, word_pieces):
    """One label per position of [CLS] pieces [SEP]: the word's label on its first piece, -100 everywhere else."""
'''
_TP_SIG = '''def truncate_pair(a, b, max_length):
    """Cut a and b (lists of ids) from the end, always the longer one, until [CLS] a [SEP] b [SEP] fits max_length."""
'''

BLIND = [
    # ---------------------------------------------------------------- align_labels
    Blind(name="al_every_piece", cell="align_labels", test_cell="check_align_labels",
          source=_AL_SIG + '''    labels = [-100]
    for label, pieces in zip(word_labels, word_pieces):
        labels += [label] * len(pieces)
    return labels + [-100]
''',
          mistake="Gives every piece of a word the word's label, not only the first; the other pieces must be -100.",
          names_it=(("first piece",), ("every piece",), ("other pieces",), ("only the first",)),
          part="the labels of the word's later pieces"),
    Blind(name="al_no_special_tokens", cell="align_labels", test_cell="check_align_labels",
          source=_AL_SIG + '''    labels = []
    for label, pieces in zip(word_labels, word_pieces):
        labels.append(label)
        labels.extend([-100] * (len(pieces) - 1))
    return labels
''',
          mistake="Forgets the positions of [CLS] and [SEP]: the list is two labels short and every label sits one "
                  "position too early.",
          names_it=(("[cls]",), ("[sep]",), ("special",), ("two short",), ("length",)),
          part="the [CLS] and [SEP] positions"),
    Blind(name="al_no_sep", cell="align_labels", test_cell="check_align_labels",
          source=_AL_SIG + '''    labels = [-100]  # [CLS]
    for label, pieces in zip(word_labels, word_pieces):
        labels.append(label)
        labels.extend([-100] * (len(pieces) - 1))
    return labels
''',
          mistake="Adds the -100 of [CLS] but forgets the one of the final [SEP]: one label short.",
          names_it=(("[sep]",), ("one short",), ("length",), ("end",)),
          part="the [SEP] position"),
    Blind(name="al_last_piece", cell="align_labels", test_cell="check_align_labels",
          source=_AL_SIG + '''    labels = [-100]
    for label, pieces in zip(word_labels, word_pieces):
        labels.extend([-100] * (len(pieces) - 1))
        labels.append(label)
    return labels + [-100]
''',
          mistake="Puts the word's label on its last piece instead of its first.",
          names_it=(("first piece",), ("last piece",)),
          part="which piece gets the label"),
    Blind(name="al_ignore_minus_one", cell="align_labels", test_cell="check_align_labels",
          source=_AL_SIG + '''    IGNORE = -1
    labels = [IGNORE]
    for label, pieces in zip(word_labels, word_pieces):
        labels.append(label)
        labels.extend([IGNORE] * (len(pieces) - 1))
    labels.append(IGNORE)
    return labels
''',
          mistake="Uses -1 as the label to ignore; cross-entropy's ignore_index is -100.",
          names_it=(("-100",), ("ignore_index",), ("-1",)),
          part="the ignore value"),
    Blind(name="al_special_tokens_zero", cell="align_labels", test_cell="check_align_labels",
          source=_AL_SIG + '''    labels = [0]  # [CLS] is not a word: the first tag
    for label, pieces in zip(word_labels, word_pieces):
        labels.append(label)
        labels.extend([-100] * (len(pieces) - 1))
    labels.append(0)  # [SEP]
    return labels
''',
          mistake="Labels [CLS] and [SEP] 0 (a real tag) instead of -100, so the loss trains them as words.",
          names_it=(("[cls]",), ("[sep]",), ("special",), ("-100",)),
          part="the labels of [CLS] and [SEP]"),
    Blind(name="al_one_per_word", cell="align_labels", test_cell="check_align_labels",
          source=_AL_SIG + '''    return [-100] + list(word_labels) + [-100]
''',
          mistake="Returns one label per word (plus [CLS] and [SEP]) instead of one per WordPiece: the later pieces "
                  "of a word get no position of their own.",
          names_it=(("per position",), ("per piece",), ("length",), ("pieces",)),
          part="positions of the later pieces"),
    Blind(name="al_extra_ignore_per_word", cell="align_labels", test_cell="check_align_labels",
          source=_AL_SIG + '''    labels = [-100]
    for label, pieces in zip(word_labels, word_pieces):
        labels.append(label)
        labels.extend([-100] * len(pieces))
    labels.append(-100)
    return labels
''',
          mistake="Adds len(pieces) ignore labels after the first piece instead of len(pieces) - 1: one position too "
                  "many per word.",
          names_it=(("len(pieces) - 1",), ("off by one",), ("length",), ("one too many",)),
          part="the number of -100 after the first piece"),
    Blind(name="al_word_index", cell="align_labels", test_cell="check_align_labels",
          source=_AL_SIG + '''    labels = [-100]
    for i, pieces in enumerate(word_pieces):
        labels.append(i)  # like word_ids(): which word this piece starts
        labels.extend([-100] * (len(pieces) - 1))
    return labels + [-100]
''',
          mistake="Writes the word's index (what word_ids() gives) on its first piece instead of the word's label.",
          names_it=(("label",), ("word_labels",), ("index",), ("word_ids",)),
          part="the value on the first piece"),
    Blind(name="al_no_cls_offset", cell="align_labels", test_cell="check_align_labels",
          source=_AL_SIG + '''    n = sum(len(pieces) for pieces in word_pieces) + 2
    labels = [-100] * n
    position = 0
    for label, pieces in zip(word_labels, word_pieces):
        labels[position] = label
        position += len(pieces)
    return labels
''',
          mistake="Counts the first-piece positions from 0, forgetting the [CLS] in front: every label lands one "
                  "position early (the first on [CLS]).",
          names_it=(("[cls]",), ("one position",), ("shift",), ("offset",)),
          part="the position of each first piece"),
    Blind(name="al_hash_prefix", cell="align_labels", test_cell="check_align_labels",
          source=_AL_SIG + '''    labels = [-100]
    remaining = iter(word_labels)
    for piece in [p for pieces in word_pieces for p in pieces]:
        if piece.startswith("##"):
            labels.append(-100)  # a continuation piece
        else:
            labels.append(next(remaining, -100))
    return labels + [-100]
''',
          mistake="Decides from the '##' prefix which piece starts a word; pieces such as local, _, deleted have no "
                  "'##', so labels go to later pieces and drift onto the wrong words.",
          names_it=(("##",), ("word_pieces",), ("first piece",), ("prefix",)),
          part="finding each word's first piece"),
    Blind(name="al_pops_inputs", cell="align_labels", test_cell="check_align_labels",
          source=_AL_SIG + '''    labels = [-100]
    while word_labels:
        label, pieces = word_labels.pop(0), word_pieces.pop(0)
        labels += [label] + [-100] * (len(pieces) - 1)
    labels.append(-100)
    return labels
''',
          mistake="Builds the right labels but empties the lists it was given with pop(0); the notebook says not to "
                  "change them.",
          names_it=(("change",), ("modif",), ("mutat",), ("in place",), ("copy",)),
          part="changing the input lists"),
    Blind(name="al_inserts_into_labels", cell="align_labels", test_cell="check_align_labels",
          source=_AL_SIG + '''    word_labels.insert(0, -100)  # [CLS]
    word_labels.append(-100)  # [SEP]
    pieces_with_specials = [["[CLS]"]] + word_pieces + [["[SEP]"]]
    labels = []
    for label, pieces in zip(word_labels, pieces_with_specials):
        labels += [label] + [-100] * (len(pieces) - 1)
    return labels
''',
          mistake="Returns the right labels but inserts the [CLS] and [SEP] labels into the caller's word_labels list.",
          names_it=(("change",), ("modif",), ("mutat",), ("in place",), ("copy",)),
          part="changing the input lists"),

    # ---------------------------------------------------------------- truncate_pair
    Blind(name="tp_special_tokens_ignored", cell="truncate_pair", test_cell="check_truncate_pair",
          source=_TP_SIG + '''    a, b = list(a), list(b)
    while len(a) + len(b) > max_length:
        if len(a) > len(b):
            a.pop()
        else:
            b.pop()
    return a, b
''',
          mistake="Fits a and b alone into max_length, forgetting the three special tokens [CLS], [SEP], [SEP].",
          names_it=(("special",), ("[cls]",), ("3",), ("three",)),
          part="the special tokens in the budget"),
    Blind(name="tp_two_special_tokens", cell="truncate_pair", test_cell="check_truncate_pair",
          source=_TP_SIG + '''    a, b = list(a), list(b)
    while len(a) + len(b) + 2 > max_length:  # [CLS] and [SEP]
        if len(a) > len(b):
            a.pop()
        else:
            b.pop()
    return a, b
''',
          mistake="Counts only two special tokens; a pair has three: [CLS], and a [SEP] after each sequence.",
          names_it=(("three",), ("3",), ("[sep]",), ("special",)),
          part="the special tokens in the budget"),
    Blind(name="tp_only_second", cell="truncate_pair", test_cell="check_truncate_pair",
          source=_TP_SIG + '''    room = max(max_length - 3 - len(a), 0)
    return list(a), b[:room]
''',
          mistake="Always cuts b (truncation='only_second'), even when a is the longer one.",
          names_it=(("longer",), ("longest_first",), ("only_second",), ("a is",)),
          part="which sequence is cut"),
    Blind(name="tp_decides_once", cell="truncate_pair", test_cell="check_truncate_pair",
          source=_TP_SIG + '''    excess = len(a) + len(b) - (max_length - 3)
    if excess <= 0:
        return list(a), list(b)
    if len(a) > len(b):
        return a[:len(a) - excess], list(b)
    return list(a), b[:len(b) - excess]
''',
          mistake="Cuts the whole excess from whichever sequence is longer at the start, instead of one token at a "
                  "time from whichever is longer at that moment: once it becomes the shorter, the other must give up "
                  "tokens.",
          names_it=(("at that moment",), ("one token at a time",), ("longer",), ("both",)),
          part="re-deciding which sequence is longer"),
    Blind(name="tp_keeps_the_end", cell="truncate_pair", test_cell="check_truncate_pair",
          source=_TP_SIG + '''    a, b = list(a), list(b)
    while len(a) + len(b) + 3 > max_length:
        if len(a) > len(b):
            a.pop(0)
        else:
            b.pop(0)
    return a, b
''',
          mistake="Drops tokens from the beginning instead of the end, so what is kept is not a beginning of the original.",
          names_it=(("end",), ("beginning",), ("start",)),
          part="which end is cut"),
    Blind(name="tp_proportional", cell="truncate_pair", test_cell="check_truncate_pair",
          source=_TP_SIG + '''    budget = max_length - 3
    total = len(a) + len(b)
    if total <= budget:
        return list(a), list(b)
    keep_a = round(len(a) * budget / total)
    return a[:keep_a], b[:budget - keep_a]
''',
          mistake="Shares the room in proportion to the two lengths, which cuts the short name too; longest_first "
                  "only cuts the longer sequence.",
          names_it=(("longer",), ("longest_first",), ("proportion",), ("short",)),
          part="the rule for sharing the cut"),
    Blind(name="tp_cut_equally", cell="truncate_pair", test_cell="check_truncate_pair",
          source=_TP_SIG + '''    excess = len(a) + len(b) + 3 - max_length
    if excess <= 0:
        return list(a), list(b)
    cut_a = excess // 2
    cut_b = excess - cut_a
    return a[:max(len(a) - cut_a, 0)], b[:max(len(b) - cut_b, 0)]
''',
          mistake="Takes half of the excess from each sequence instead of always from the longer one.",
          names_it=(("longer",), ("longest_first",), ("half",), ("equally",)),
          part="the rule for sharing the cut"),
    Blind(name="tp_shorter_first", cell="truncate_pair", test_cell="check_truncate_pair",
          source=_TP_SIG + '''    a, b = list(a), list(b)
    while len(a) + len(b) + 3 > max_length:
        if len(a) < len(b):
            a.pop()
        else:
            b.pop()
    return a, b
''',
          mistake="Compares the wrong way round and cuts the shorter sequence (emptying a short name first).",
          names_it=(("longer",), ("shorter",), ("longest",)),
          part="which sequence is cut"),
    Blind(name="tp_pops_inputs", cell="truncate_pair", test_cell="check_truncate_pair",
          source=_TP_SIG + '''    while len(a) + len(b) + 3 > max_length:
        if len(a) > len(b):
            a.pop()
        else:
            b.pop()
    return a, b
''',
          mistake="Cuts the right tokens, but pops them from the caller's lists; the notebook says not to change them.",
          names_it=(("change",), ("modif",), ("mutat",), ("in place",), ("copy",)),
          part="changing the input lists"),
    Blind(name="tp_minus_zero_slice", cell="truncate_pair", test_cell="check_truncate_pair",
          source=_TP_SIG + '''    cut_a, cut_b = 0, 0
    while len(a) - cut_a + len(b) - cut_b + 3 > max_length:
        if len(a) - cut_a > len(b) - cut_b:
            cut_a += 1
        else:
            cut_b += 1
    return a[:-cut_a], b[:-cut_b]
''',
          mistake="Counts the cuts right but slices a[:-cut]; when a sequence loses nothing, a[:-0] is a[:0], the "
                  "empty list.",
          names_it=(("empty",), ("[:-0]",), ("nothing",), ("whole",)),
          part="slicing off the cut tokens"),
    Blind(name="tp_loop_one_too_many", cell="truncate_pair", test_cell="check_truncate_pair",
          source=_TP_SIG + '''    a, b = list(a), list(b)
    while len(a) + len(b) + 3 >= max_length:
        if len(a) > len(b):
            a.pop()
        else:
            b.pop()
    return a, b
''',
          mistake="Loops while the pair is at least max_length instead of more than it, so it always cuts one token "
                  "too many (and cuts a pair that fits exactly).",
          names_it=(("fits exactly",), ("one too many",), ("at most",), ("off by one",)),
          part="the loop's stopping condition"),
    Blind(name="tp_alternate", cell="truncate_pair", test_cell="check_truncate_pair",
          source=_TP_SIG + '''    a, b = list(a), list(b)
    turn_b = True
    while len(a) + len(b) + 3 > max_length:
        if (turn_b and b) or not a:
            b.pop()
        else:
            a.pop()
        turn_b = not turn_b
    return a, b
''',
          mistake="Takes tokens from b and a in turn instead of always from the one that is longer at that moment.",
          names_it=(("longer",), ("longest_first",), ("in turn",), ("altern",)),
          part="the rule for choosing which sequence to cut"),
    Blind(name="tp_fixed_halves", cell="truncate_pair", test_cell="check_truncate_pair",
          source=_TP_SIG + '''    budget = max_length - 3
    if len(a) + len(b) <= budget:
        return list(a), list(b)
    half = budget // 2
    return a[:half], b[:budget - half]
''',
          mistake="Gives each sequence a fixed half of the room; a short name does not use its half, which the "
                  "longer sequence should get.",
          names_it=(("longer",), ("longest_first",), ("half",), ("room",)),
          part="the rule for sharing the room"),
    Blind(name="tp_returns_encoded", cell="truncate_pair", test_cell="check_truncate_pair",
          source=_TP_SIG + '''    a, b = list(a), list(b)
    while len(a) + len(b) + 3 > max_length:
        if len(a) > len(b):
            a.pop()
        else:
            b.pop()
    return [tokenizer.cls_token_id] + a + [tokenizer.sep_token_id] + b + [tokenizer.sep_token_id]
''',
          mistake="Cuts correctly but returns the whole encoded input [CLS] a [SEP] b [SEP] instead of the pair (a, b).",
          names_it=(("pair",), ("(a, b)",), ("tuple",), ("special",)),
          part="what is returned"),
]


ALTERNATIVES = {
    "loop_over_words": {
        "align_labels": _AL_SIG + '''    labels = [-100]  # [CLS]
    for label, pieces in zip(word_labels, word_pieces):
        labels.append(label)
        labels.extend([-100] * (len(pieces) - 1))
    labels.append(-100)  # [SEP]
    return labels
''',
        "truncate_pair": _TP_SIG + '''    a, b = list(a), list(b)
    while len(a) + len(b) + 3 > max_length:
        if len(a) > len(b):
            a.pop()
        else:
            b.pop()
    return a, b
''',
    },
    "word_ids_like": {
        "align_labels": _AL_SIG + '''    word_ids = [None] + [w for w, pieces in enumerate(word_pieces) for _ in pieces] + [None]
    labels, previous = [], None
    for w in word_ids:
        labels.append(-100 if w is None or w == previous else word_labels[w])
        previous = w
    return labels
''',
        "truncate_pair": _TP_SIG + '''    budget = max_length - 3
    la, lb = len(a), len(b)
    excess = la + lb - budget
    if excess > 0:
        if la > lb:
            step = min(excess, la - lb)
            la -= step
        else:
            step = min(excess, lb - la)
            lb -= step
        excess -= step
        lb -= (excess + 1) // 2  # equally long now: b gives up the first of each two
        la -= excess // 2
    return a[:la], b[:lb]
''',
    },
    "preallocated_positions": {
        "align_labels": _AL_SIG + '''    total = 2 + sum(len(pieces) for pieces in word_pieces)
    labels = [-100] * total
    position = 1  # after [CLS]
    for k, pieces in enumerate(word_pieces):
        labels[position] = word_labels[k]
        position += len(pieces)
    return labels
''',
        "truncate_pair": _TP_SIG + '''    keep_a, keep_b = len(a), len(b)
    while keep_a + keep_b > max_length - 3:
        if keep_a > keep_b:
            keep_a -= 1
        else:
            keep_b -= 1
    return list(a[:keep_a]), list(b[:keep_b])
''',
    },
    "comprehension_ties_to_a": {
        "align_labels": _AL_SIG + '''    body = [label if k == 0 else -100
            for label, pieces in zip(word_labels, word_pieces) for k in range(len(pieces))]
    return [-100, *body, -100]
''',
        # the notebook says that with A and B equally long it does not matter which gives up a token first
        "truncate_pair": _TP_SIG + '''    a, b = a[:], b[:]
    while len(a) + len(b) + 3 > max_length:
        if len(a) >= len(b):
            del a[-1]
        else:
            del b[-1]
    return a, b
''',
    },
}
