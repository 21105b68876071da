"""Blind cases for notebook 07_bert: plausible wrong answers and correct-but-different answers.

Written without reading the checks or the solutions; each wrong answer was compared with the
tester's own correct version on a few inputs (it differs), each alternative too (it agrees).
"""
from blind_case import Blind

NOTEBOOK = "07_bert"

BLIND = [
    # ------------------------------------------------------------------ wordpiece
    Blind(
        name="wordpiece_unk_only_rest",
        cell="wordpiece",
        source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) > 100:
        return ["[UNK]"]
    pieces = []
    start = 0
    while start < len(word):
        end = len(word)
        piece = None
        while start < end:
            candidate = word[start:end]
            if start > 0:
                candidate = "##" + candidate
            if candidate in vocab:
                piece = candidate
                break
            end -= 1
        if piece is None:
            pieces.append("[UNK]")  # the rest cannot be split
            break
        pieces.append(piece)
        start = end
    return pieces
''',
        test_cell="check_wordpiece",
        mistake="When no piece matches part-way through a word, the student keeps the pieces found so far and "
                "appends one [UNK] for the rest, instead of turning the whole word into ['[UNK]'].",
        names_it=(("whole word", "unk"), ("entire word", "unk"), ("unk", "rest"), ("unk", "pieces so far"),
                  ("unk", "only the")),
    ),
    Blind(
        name="wordpiece_no_length_limit",
        cell="wordpiece",
        source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    pieces = []
    start = 0
    while start < len(word):
        end = len(word)
        piece = None
        while start < end:
            candidate = word[start:end]
            if start > 0:
                candidate = "##" + candidate
            if candidate in vocab:
                piece = candidate
                break
            end -= 1
        if piece is None:
            return ["[UNK]"]
        pieces.append(piece)
        start = end
    return pieces
''',
        test_cell="check_wordpiece",
        mistake="Forgot rule 1: a word longer than 100 characters must be ['[UNK]'] without trying to split it; "
                "long words made of known letters get split into many pieces.",
        names_it=(("100",), ("long", "unk"), ("longer than",), ("length", "unk")),
    ),
    Blind(
        name="wordpiece_length_limit_off_by_one",
        cell="wordpiece",
        source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) >= 100:
        return ["[UNK]"]
    pieces = []
    start = 0
    while start < len(word):
        end = len(word)
        piece = None
        while start < end:
            candidate = word[start:end]
            if start > 0:
                candidate = "##" + candidate
            if candidate in vocab:
                piece = candidate
                break
            end -= 1
        if piece is None:
            return ["[UNK]"]
        pieces.append(piece)
        start = end
    return pieces
''',
        test_cell="check_wordpiece",
        mistake="Off by one in the length rule: a word of exactly 100 characters is made [UNK] (>= 100), although "
                "only words longer than 100 characters are.",
        names_it=(("100",), ("longer than",), ("exactly", "characters")),
    ),
    Blind(
        name="wordpiece_no_hashes",
        cell="wordpiece",
        source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) > 100:
        return ["[UNK]"]
    pieces = []
    start = 0
    while start < len(word):
        for end in range(len(word), start, -1):
            if word[start:end] in vocab:
                pieces.append(word[start:end])
                start = end
                break
        else:
            return ["[UNK]"]
    return pieces
''',
        test_cell="check_wordpiece",
        mistake="Continuation pieces are looked up and returned without the '##' prefix, so 'unaffable' is "
                "split with word-initial pieces everywhere.",
        names_it=(("##",),),
    ),
    Blind(
        name="wordpiece_shortest_first",
        cell="wordpiece",
        source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) > 100:
        return ["[UNK]"]
    pieces = []
    start = 0
    while start < len(word):
        prefix = "##" if start > 0 else ""
        for end in range(start + 1, len(word) + 1):
            if prefix + word[start:end] in vocab:
                pieces.append(prefix + word[start:end])
                start = end
                break
        else:
            return ["[UNK]"]
    return pieces
''',
        test_cell="check_wordpiece",
        mistake="The inner loop grows the piece from one character upwards and takes the first match, i.e. the "
                "shortest piece in the vocabulary instead of the longest.",
        names_it=(("longest",), ("shortest",)),
    ),
    Blind(
        name="wordpiece_never_whole_rest",
        cell="wordpiece",
        source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) > 100:
        return ["[UNK]"]
    pieces = []
    start = 0
    while start < len(word):
        prefix = "##" if start > 0 else ""
        for end in range(len(word) - 1, start, -1):
            if prefix + word[start:end] in vocab:
                pieces.append(prefix + word[start:end])
                start = end
                break
        else:
            if prefix + word[start:] in vocab:
                pieces.append(prefix + word[start:])
                break
            return ["[UNK]"]
    return pieces
''',
        test_cell="check_wordpiece",
        mistake="Off by one in the search: the candidate end starts at len(word) - 1, so the whole remaining "
                "string is tried only last (after all shorter pieces) and 'the' becomes ['th', '##e'].",
        names_it=(("longest",), ("whole word",), ("whole remaining",), ("entire word",), ("full word",)),
    ),
    # ------------------------------------------------------------------ nsp_pair
    Blind(
        name="nsp_first_sep_segment_one",
        cell="nsp_pair",
        source='''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
    input_ids = [cls_id] + sentence_a + [sep_id] + sentence_b + [sep_id]
    token_type_ids = [0] * (1 + len(sentence_a)) + [1] * (len(sentence_b) + 2)
    return input_ids, token_type_ids
''',
        test_cell="check_nsp_pair",
        mistake="The [SEP] that closes sentence A is given segment 1 instead of 0 (only [CLS] and A get 0).",
        names_it=(("first [sep]",), ("first sep",), ("[sep]", "segment 0"), ("[sep]", "sentence a"),
                  ("sep", "after a")),
    ),
    Blind(
        name="nsp_no_final_sep",
        cell="nsp_pair",
        source='''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
    input_ids = [cls_id] + sentence_a + [sep_id] + sentence_b
    token_type_ids = [0] * (len(sentence_a) + 2) + [1] * len(sentence_b)
    return input_ids, token_type_ids
''',
        test_cell="check_nsp_pair",
        mistake="Forgot the final [SEP] after sentence B (and its segment id 1).",
        names_it=(("final [sep]",), ("last [sep]",), ("second [sep]",), ("final sep",), ("last sep",),
                  ("[sep]", "end"), ("[sep]", "after b"), ("[sep]", "missing")),
    ),
    Blind(
        name="nsp_mutates_sentence_a",
        cell="nsp_pair",
        source='''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
    input_ids = sentence_a
    input_ids.insert(0, cls_id)
    input_ids.append(sep_id)
    token_type_ids = [0] * len(input_ids)
    input_ids.extend(sentence_b)
    input_ids.append(sep_id)
    token_type_ids += [1] * (len(sentence_b) + 1)
    return input_ids, token_type_ids
''',
        test_cell="check_nsp_pair",
        mistake="Builds the pair in place on sentence_a (insert/append/extend on the caller's list), so the list "
                "the student was given is changed, although the exercise says not to change it.",
        names_it=(("modif",), ("mutat",), ("in place",), ("changed", "list"), ("changes", "list"),
                  ("change", "sentence_a")),
    ),
    Blind(
        name="nsp_returns_tensors",
        cell="nsp_pair",
        source='''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
    a, b = torch.tensor(sentence_a), torch.tensor(sentence_b)
    input_ids = torch.cat([torch.tensor([cls_id]), a, torch.tensor([sep_id]), b, torch.tensor([sep_id])])
    token_type_ids = torch.cat([torch.zeros(len(a) + 2, dtype=torch.long), torch.ones(len(b) + 1, dtype=torch.long)])
    return input_ids, token_type_ids
''',
        test_cell="check_nsp_pair",
        mistake="Right values, wrong type: returns two torch tensors instead of two lists of ints.",
        names_it=(("list", "tensor"), ("not a list",), ("plain list",), ("list of int",)),
    ),
    # ------------------------------------------------------------------ bert_embeddings
    Blind(
        name="embeddings_no_position",
        cell="bert_embeddings",
        source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    x = weights["word_embeddings"][input_ids] + weights["token_type_embeddings"][token_type_ids]  # (B, T, H)
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return weights["gamma"] * (x - mean) / torch.sqrt(var + 1e-12) + weights["beta"]
''',
        test_cell="check_bert_embeddings",
        mistake="Left out the position embeddings: only word + segment are summed before the LayerNorm.",
        names_it=(("position",),),
    ),
    Blind(
        name="embeddings_positions_from_one",
        cell="bert_embeddings",
        source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    B, T = input_ids.shape
    positions = torch.arange(1, T + 1)  # positions 1..T
    x = (weights["word_embeddings"][input_ids] + weights["position_embeddings"][positions]
         + weights["token_type_embeddings"][token_type_ids])
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return weights["gamma"] * (x - mean) / torch.sqrt(var + 1e-12) + weights["beta"]
''',
        test_cell="check_bert_embeddings",
        mistake="Off by one in the positions: numbers them 1..T instead of 0..T-1, so every token gets the "
                "next position's vector.",
        names_it=(("position", "0"), ("position", "zero"), ("position", "off by one"), ("position", "shift"),
                  ("position", "start")),
    ),
    Blind(
        name="embeddings_unbiased_variance",
        cell="bert_embeddings",
        source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    T = input_ids.shape[1]
    x = (weights["word_embeddings"][input_ids] + weights["position_embeddings"][:T]
         + weights["token_type_embeddings"][token_type_ids])
    mean = x.mean(dim=-1, keepdim=True)
    std = x.std(dim=-1, keepdim=True)
    return weights["gamma"] * (x - mean) / torch.sqrt(std ** 2 + 1e-12) + weights["beta"]
''',
        test_cell="check_bert_embeddings",
        mistake="Uses x.std(), PyTorch's unbiased estimate (dividing by H - 1), for the LayerNorm instead of "
                "the biased variance dividing by H.",
        names_it=(("unbiased",), ("n - 1",), ("n-1",), ("h - 1",), ("h-1",), ("bessel",), ("biased",)),
    ),
    Blind(
        name="embeddings_eps_1e5",
        cell="bert_embeddings",
        source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    T = input_ids.shape[1]
    x = (weights["word_embeddings"][input_ids] + weights["position_embeddings"][:T]
         + weights["token_type_embeddings"][token_type_ids])
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, unbiased=False, keepdim=True)
    return weights["gamma"] * (x - mean) / torch.sqrt(var + 1e-5) + weights["beta"]
''',
        test_cell="check_bert_embeddings",
        mistake="Copied notebook 06's LayerNorm with its default eps = 1e-5 instead of BERT's 1e-12.",
        names_it=(("eps",), ("epsilon",), ("1e-12",), ("1e-5",)),
    ),
    Blind(
        name="embeddings_norm_over_time",
        cell="bert_embeddings",
        source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    T = input_ids.shape[1]
    x = (weights["word_embeddings"][input_ids] + weights["position_embeddings"][:T]
         + weights["token_type_embeddings"][token_type_ids])
    mean = x.mean(dim=1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=1, keepdim=True)
    return weights["gamma"] * (x - mean) / torch.sqrt(var + 1e-12) + weights["beta"]
''',
        test_cell="check_bert_embeddings",
        mistake="Wrong axis: the LayerNorm's mean and variance are taken over the tokens (dim=1) instead of over "
                "the hidden dimension (dim=-1).",
        names_it=(("hidden",), ("last dim",), ("axis",), ("dimension",), ("dim=-1",), ("over the tokens",)),
    ),
    Blind(
        name="embeddings_gamma_beta_swapped",
        cell="bert_embeddings",
        source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    T = input_ids.shape[1]
    x = (weights["word_embeddings"][input_ids] + weights["position_embeddings"][:T]
         + weights["token_type_embeddings"][token_type_ids])
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + 1e-12) * weights["beta"] + weights["gamma"]
''',
        test_cell="check_bert_embeddings",
        mistake="Swapped the LayerNorm's scale and shift: multiplies by beta and adds gamma.",
        names_it=(("gamma", "beta"), ("scale", "shift")),
    ),
    # ------------------------------------------------------------------ mask_tokens
    Blind(
        name="mask_labels_only_at_mask",
        cell="mask_tokens",
        source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    shape = input_ids.shape
    selected = (torch.rand(shape, generator=generator) < 0.15) & ~special_mask
    u = torch.rand(shape, generator=generator)
    random_ids = torch.randint(vocab_size, shape, generator=generator, dtype=input_ids.dtype)
    to_mask = selected & (u < 0.8)
    to_random = selected & (u >= 0.8) & (u < 0.9)
    inputs = input_ids.clone()
    inputs[to_mask] = mask_id
    inputs[to_random] = random_ids[to_random]
    labels = torch.full_like(input_ids, -100)
    labels[to_mask] = input_ids[to_mask]  # predict the masked words
    return inputs, labels
''',
        test_cell="check_mask_tokens",
        mistake="Labels only at the positions that became [MASK]; the random and unchanged selected tokens get "
                "-100 although all selected tokens must be predicted.",
        names_it=(("all three",), ("every selected",), ("all selected",), ("unchanged", "label"),
                  ("random", "label"), ("labels", "selected")),
    ),
    Blind(
        name="mask_selects_specials",
        cell="mask_tokens",
        source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    shape = input_ids.shape
    selected = torch.rand(shape, generator=generator) < 0.15
    u = torch.rand(shape, generator=generator)
    random_ids = torch.randint(vocab_size, shape, generator=generator, dtype=input_ids.dtype)
    inputs = input_ids.clone()
    inputs[selected & (u < 0.8)] = mask_id
    to_random = selected & (u >= 0.8) & (u < 0.9)
    inputs[to_random] = random_ids[to_random]
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, -100))
    return inputs, labels
''',
        test_cell="check_mask_tokens",
        mistake="Never uses special_mask: [CLS], [SEP] and padding can be selected, masked and labelled too.",
        names_it=(("special",), ("[cls]",), ("[sep]",), ("padding",)),
    ),
    Blind(
        name="mask_selects_85_percent",
        cell="mask_tokens",
        source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    shape = input_ids.shape
    selected = (torch.rand(shape, generator=generator) > 0.15) & ~special_mask
    u = torch.rand(shape, generator=generator)
    random_ids = torch.randint(vocab_size, shape, generator=generator, dtype=input_ids.dtype)
    inputs = input_ids.clone()
    inputs[selected & (u < 0.8)] = mask_id
    to_random = selected & (u >= 0.8) & (u < 0.9)
    inputs[to_random] = random_ids[to_random]
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, -100))
    return inputs, labels
''',
        test_cell="check_mask_tokens",
        mistake="Comparison the wrong way round: selects a token when rand > 0.15, i.e. 85% of the tokens "
                "instead of 15%.",
        names_it=(("15%",), ("15 %",), ("0.15",), ("selected", "fraction"), ("selected", "rate"),
                  ("selection", "rate"), ("selected", "share")),
    ),
    Blind(
        name="mask_random_rate_of_rest",
        cell="mask_tokens",
        source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    shape = input_ids.shape
    selected = (torch.rand(shape, generator=generator) < 0.15) & ~special_mask
    to_mask = selected & (torch.rand(shape, generator=generator) < 0.8)
    # of the rest, 10% random
    to_random = selected & ~to_mask & (torch.rand(shape, generator=generator) < 0.1)
    random_ids = torch.randint(vocab_size, shape, generator=generator, dtype=input_ids.dtype)
    inputs = input_ids.clone()
    inputs[to_mask] = mask_id
    inputs[to_random] = random_ids[to_random]
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, -100))
    return inputs, labels
''',
        test_cell="check_mask_tokens",
        mistake="Draws a second number for the tokens not masked and makes 10% OF THOSE random, so only 2% of "
                "the selected tokens become random (and 18% stay unchanged) instead of 10%/10%.",
        names_it=(("random", "10%"), ("random", "rate"), ("random", "fraction"), ("random", "proportion"),
                  ("random", "share"), ("random", "too few")),
    ),
    Blind(
        name="mask_labels_from_corrupted",
        cell="mask_tokens",
        source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    shape = input_ids.shape
    selected = (torch.rand(shape, generator=generator) < 0.15) & ~special_mask
    u = torch.rand(shape, generator=generator)
    random_ids = torch.randint(vocab_size, shape, generator=generator, dtype=input_ids.dtype)
    inputs = input_ids.clone()
    inputs[selected & (u < 0.8)] = mask_id
    to_random = selected & (u >= 0.8) & (u < 0.9)
    inputs[to_random] = random_ids[to_random]
    labels = torch.where(selected, inputs, torch.full_like(inputs, -100))
    return inputs, labels
''',
        test_cell="check_mask_tokens",
        mistake="Order of operations: the labels are taken from the corrupted inputs (after masking), so they "
                "hold [MASK] or the random id instead of the original token.",
        names_it=(("original",),),
    ),
    Blind(
        name="mask_changes_input_ids",
        cell="mask_tokens",
        source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    shape = input_ids.shape
    selected = (torch.rand(shape, generator=generator) < 0.15) & ~special_mask
    u = torch.rand(shape, generator=generator)
    random_ids = torch.randint(vocab_size, shape, generator=generator, dtype=input_ids.dtype)
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, -100))
    inputs = input_ids
    inputs[selected & (u < 0.8)] = mask_id
    to_random = selected & (u >= 0.8) & (u < 0.9)
    inputs[to_random] = random_ids[to_random]
    return inputs, labels
''',
        test_cell="check_mask_tokens",
        mistake="No clone: inputs = input_ids and then masked assignment, so the caller's input_ids are changed "
                "in place.",
        names_it=(("modif",), ("mutat",), ("in place",), ("clone",), ("changed", "input_ids"),
                  ("changes", "input_ids"), ("change", "input_ids")),
    ),
    Blind(
        name="mask_global_rng",
        cell="mask_tokens",
        source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    shape = input_ids.shape
    selected = (torch.rand(shape, generator=generator) < 0.15) & ~special_mask
    u = torch.rand(shape, generator=generator)
    random_ids = torch.randint(vocab_size, shape, dtype=input_ids.dtype)
    inputs = input_ids.clone()
    inputs[selected & (u < 0.8)] = mask_id
    to_random = selected & (u >= 0.8) & (u < 0.9)
    inputs[to_random] = random_ids[to_random]
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, -100))
    return inputs, labels
''',
        test_cell="check_mask_tokens",
        mistake="Forgot generator= in torch.randint: the random replacement ids come from the global RNG, so "
                "the same seed does not give the same inputs.",
        names_it=(("generator",), ("seed",), ("reproduc",), ("same result",)),
    ),
    Blind(
        name="mask_float_labels",
        cell="mask_tokens",
        source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    shape = input_ids.shape
    selected = (torch.rand(shape, generator=generator) < 0.15) & ~special_mask
    u = torch.rand(shape, generator=generator)
    random_ids = torch.randint(vocab_size, shape, generator=generator, dtype=input_ids.dtype)
    inputs = input_ids.clone()
    inputs[selected & (u < 0.8)] = mask_id
    to_random = selected & (u >= 0.8) & (u < 0.9)
    inputs[to_random] = random_ids[to_random]
    labels = torch.full(shape, -100.0)
    labels[selected] = input_ids[selected].float()
    return inputs, labels
''',
        test_cell="check_mask_tokens",
        mistake="dtype slip: the labels are built with torch.full(shape, -100.0), a float tensor, instead of "
                "the integer dtype of input_ids.",
        names_it=(("dtype",), ("float",), ("integer",)),
    ),
    # ------------------------------------------------------------------ best_span
    Blind(
        name="span_separate_argmax",
        cell="best_span",
        source='''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    start = int(start_logits.argmax())
    end = int(end_logits[start:start + max_len].argmax()) + start
    return start, end
''',
        test_cell="check_best_span",
        mistake="Half-right: fixes the start at the argmax of the start logits and only searches the end after "
                "it; the best span may start elsewhere.",
        names_it=(("argmax",), ("separately",), ("best start",), ("every start",), ("all spans",),
                  ("sum", "start", "end")),
    ),
    Blind(
        name="span_max_len_off_by_one",
        cell="best_span",
        source='''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    T = len(start_logits)
    best, best_score = (0, 0), -float("inf")
    for start in range(T):
        for end in range(start, T):
            if end - start <= max_len:
                score = float(start_logits[start] + end_logits[end])
                if score > best_score:
                    best, best_score = (start, end), score
    return best
''',
        test_cell="check_best_span",
        mistake="Off by one in the length limit: tests end - start <= max_len, which allows spans of max_len + 1 "
                "tokens.",
        names_it=(("max_len", "long"), ("max_len", "length"), ("too long",), ("longer than",),
                  ("max_len", "token")),
    ),
    Blind(
        name="span_max_len_too_strict",
        cell="best_span",
        source='''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    T = start_logits.shape[0]
    best, best_score = (0, 0), float("-inf")
    for start in range(T):
        for end in range(start, min(T, start + max_len - 1)):
            score = (start_logits[start] + end_logits[end]).item()
            if score > best_score:
                best, best_score = (start, end), score
    return best
''',
        test_cell="check_best_span",
        mistake="Off by one the other way: the end runs up to start + max_len - 2, so spans of exactly max_len "
                "tokens are never considered (with max_len 1 nothing is, and (0, 0) comes back).",
        names_it=(("max_len", "exactly"), ("max_len", "1"), ("max_len", "one"), ("max_len", "long"),
                  ("max_len", "length")),
    ),
    Blind(
        name="span_skips_last_token",
        cell="best_span",
        source='''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    T = len(start_logits)
    best, best_score = None, -math.inf
    for start in range(T - 1):
        for end in range(start, min(start + max_len, T - 1)):
            score = float(start_logits[start]) + float(end_logits[end])
            if score > best_score:
                best, best_score = (start, end), score
    if best is None:
        best = (0, 0)
    return best
''',
        test_cell="check_best_span",
        mistake="Off by one at the end of the sequence: the loops stop at T - 2, so a span that starts or ends at "
                "the last token is never considered.",
        names_it=(("last token",), ("last position",), ("final token",), ("last index",), ("t - 1",),
                  ("t-1",)),
    ),
    Blind(
        name="span_returns_tensors",
        cell="best_span",
        source='''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    T = len(start_logits)
    scores = start_logits[:, None] + end_logits[None, :]  # (T, T): [start, end]
    i = torch.arange(T)
    valid = (i[None, :] >= i[:, None]) & (i[None, :] - i[:, None] + 1 <= max_len)
    flat = scores.masked_fill(~valid, float("-inf")).flatten().argmax()
    return flat // T, flat % T
''',
        test_cell="check_best_span",
        mistake="Right span, wrong type: returns two 0-d tensors (from argmax) instead of Python ints.",
        names_it=(("int", "tensor"), ("python int",), ("integer",)),
    ),
    # ------------------------------------------------------------------ bert_parameters
    Blind(
        name="params_no_pooler",
        cell="bert_parameters",
        source='''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    H, I = hidden, intermediate
    embeddings = (vocab_size + max_position + type_vocab) * H + 2 * H
    per_layer = 4 * (H * H + H) + 2 * H + (H * I + I) + (I * H + H) + 2 * H
    return embeddings + layers * per_layer
''',
        test_cell="check_bert_parameters",
        mistake="Forgot the pooler (the dense H x H layer and its bias on [CLS]).",
        names_it=(("pooler",),),
    ),
    Blind(
        name="params_one_layernorm_per_layer",
        cell="bert_parameters",
        source='''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    H, I = hidden, intermediate
    embeddings = (vocab_size + max_position + type_vocab) * H + 2 * H
    attention = 4 * (H * H + H)
    ffn = H * I + I + I * H + H
    per_layer = attention + ffn + 2 * H  # LayerNorm
    pooler = H * H + H
    return embeddings + layers * per_layer + pooler
''',
        test_cell="check_bert_parameters",
        mistake="Counts one LayerNorm per layer instead of two (after attention and after the feed-forward "
                "network).",
        names_it=(("layernorm",), ("layer norm",)),
    ),
    Blind(
        name="params_ffn_no_biases",
        cell="bert_parameters",
        source='''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    H, I = hidden, intermediate
    embeddings = (vocab_size + max_position + type_vocab) * H + 2 * H
    attention = 4 * (H * H + H)
    ffn = 2 * H * I
    per_layer = attention + ffn + 4 * H
    pooler = H * H + H
    return embeddings + layers * per_layer + pooler
''',
        test_cell="check_bert_parameters",
        mistake="Counts the feed-forward network's two weight matrices but not their biases (I + H per layer).",
        names_it=(("bias",),),
    ),
    Blind(
        name="params_hardcoded_512",
        cell="bert_parameters",
        source='''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    H, I = hidden, intermediate
    embeddings = (vocab_size + 512 + 2) * H + 2 * H
    per_layer = 4 * (H * H + H) + (H * I + I) + (I * H + H) + 4 * H
    return embeddings + layers * per_layer + H * H + H
''',
        test_cell="check_bert_parameters",
        mistake="Half-right: hard-codes BERT's 512 positions and 2 segment types instead of using the "
                "max_position and type_vocab arguments.",
        names_it=(("max_position",), ("type_vocab",), ("position", "argument")),
    ),
    # ------------------------------------------------------------------ albert_embedding
    Blind(
        name="albert_forgot_projection",
        cell="albert_embedding",
        source='''V, H, E = 30000, 2048, 128
full_embedding = V * H
factorised_embedding = V * E
print(f"V x H = {full_embedding:,}; V x E + E x H = {factorised_embedding:,}")
''',
        test_cell="check_albert_embedding",
        mistake="The factorised count leaves out the E x H projection matrix (only V x E).",
        names_it=(("e x h",), ("e × h",), ("e * h",), ("e*h",), ("projection",), ("e \\times h",)),
    ),
    Blind(
        name="albert_in_millions",
        cell="albert_embedding",
        source='''V, H, E = 30000, 2048, 128
full_embedding = V * H / 1e6  # in millions
factorised_embedding = (V * E + E * H) / 1e6
print(f"V x H = {full_embedding:,}; V x E + E x H = {factorised_embedding:,}")
''',
        test_cell="check_albert_embedding",
        mistake="Gives the sizes in millions (floats 61.44 and 4.102) instead of the exact numbers.",
        names_it=(("exact",), ("million",), ("int",)),
    ),
]

ALTERNATIVES = {
    "recursive_and_comprehensions": {
        "wordpiece": '''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) > 100:
        return ["[UNK]"]

    def split(rest, prefix):
        if not rest:
            return []
        for cut in range(len(rest), 0, -1):
            if prefix + rest[:cut] in vocab:
                tail = split(rest[cut:], "##")
                return None if tail is None else [prefix + rest[:cut]] + tail
        return None

    pieces = split(word, "")
    return ["[UNK]"] if pieces is None else pieces
''',
        "nsp_pair": '''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
    first = [cls_id, *sentence_a, sep_id]
    second = [*sentence_b, sep_id]
    return first + second, [0 for _ in first] + [1 for _ in second]
''',
        "best_span": '''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    T = start_logits.shape[0]
    scores = start_logits[:, None] + end_logits[None, :]  # (T, T): scores[start, end]
    allowed = torch.ones(T, T, dtype=torch.bool).triu().tril(max_len - 1)  # 0 <= end - start <= max_len - 1
    flat = int(scores.masked_fill(~allowed, float("-inf")).argmax())
    return flat // T, flat % T
''',
        "bert_parameters": '''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    def linear(n_in, n_out):
        return n_in * n_out + n_out

    def layer_norm(n):
        return 2 * n

    total = vocab_size * hidden + max_position * hidden + type_vocab * hidden + layer_norm(hidden)
    for _ in range(layers):
        total += 4 * linear(hidden, hidden) + layer_norm(hidden)
        total += linear(hidden, intermediate) + linear(intermediate, hidden) + layer_norm(hidden)
    total += linear(hidden, hidden)
    return total
''',
        "albert_embedding": '''V, H, E = 30000, 2048, 128
full_embedding = int(V * H)
factorised_embedding = E * (V + H)
print(f"V x H = {full_embedding:,}; V x E + E x H = {factorised_embedding:,}")
''',
    },
    "explicit_loops": {
        "wordpiece": '''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) > 100:
        return ["[UNK]"]
    output = []
    i = 0
    while i < len(word):
        j = len(word)
        match = None
        while j > i:
            sub = word[i:j]
            if i > 0:
                sub = "##" + sub
            if sub in vocab:
                match = sub
                break
            j -= 1
        if match is None:
            return ["[UNK]"]
        output.append(match)
        i = j
    return output
''',
        "nsp_pair": '''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
    input_ids, token_type_ids = [cls_id], [0]
    for token in sentence_a:
        input_ids.append(int(token))
        token_type_ids.append(0)
    input_ids.append(sep_id)
    token_type_ids.append(0)
    for token in sentence_b:
        input_ids.append(int(token))
        token_type_ids.append(1)
    input_ids.append(sep_id)
    token_type_ids.append(1)
    return input_ids, token_type_ids
''',
        "bert_embeddings": '''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    B, T = input_ids.shape
    H = weights["word_embeddings"].shape[1]
    out = torch.empty(B, T, H, dtype=weights["word_embeddings"].dtype)
    for b in range(B):
        for t in range(T):
            x = (weights["word_embeddings"][input_ids[b, t]] + weights["position_embeddings"][t]
                 + weights["token_type_embeddings"][token_type_ids[b, t]])
            mean = x.sum() / H
            var = ((x - mean) ** 2).sum() / H
            out[b, t] = (x - mean) / (var + 1e-12).sqrt() * weights["gamma"] + weights["beta"]
    return out
''',
        "mask_tokens": '''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    selected = torch.rand(input_ids.shape, generator=generator) < 0.15
    selected &= ~special_mask
    u = torch.rand(input_ids.shape, generator=generator)
    random_ids = torch.randint(vocab_size, input_ids.shape, generator=generator).to(input_ids.dtype)
    inputs = torch.where(selected & (u < 0.8), mask_id, input_ids)
    inputs = torch.where(selected & (u >= 0.8) & (u < 0.9), random_ids, inputs)
    labels = input_ids.masked_fill(~selected, -100)
    return inputs.to(input_ids.dtype), labels
''',
        "best_span": '''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    s, e = start_logits.tolist(), end_logits.tolist()
    best = None
    for end in range(len(e)):
        for start in range(max(0, end - max_len + 1), end + 1):
            if best is None or s[start] + e[end] > best[0]:
                best = (s[start] + e[end], start, end)
    return best[1], best[2]
''',
        "bert_parameters": '''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    counts = {
        "embeddings": (vocab_size + max_position + type_vocab) * hidden,
        "embedding norm": 2 * hidden,
        "attention": layers * 4 * hidden * (hidden + 1),
        "feed-forward": layers * (2 * hidden * intermediate + intermediate + hidden),
        "layer norms": layers * 2 * 2 * hidden,
        "pooler": hidden * (hidden + 1),
    }
    return sum(counts.values())
''',
        "albert_embedding": '''V, H, E = 30000, 2048, 128
full_embedding = V * H
factorised_embedding = V * E + E * H
print(f"V x H = {full_embedding:,}; V x E + E x H = {factorised_embedding:,}")
''',
    },
    "vectorised_keyword_calls": {
        "bert_embeddings": '''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    positions = torch.arange(input_ids.size(1)).expand_as(input_ids)  # (B, T)
    x = (nn.functional.embedding(input_ids, weights["word_embeddings"])
         + nn.functional.embedding(positions, weights["position_embeddings"])
         + nn.functional.embedding(token_type_ids, weights["token_type_embeddings"]))
    var, mean = torch.var_mean(x, dim=-1, keepdim=True, correction=0)
    return torch.addcmul(weights["beta"], weights["gamma"], (x - mean) * torch.rsqrt(var + 1e-12))
''',
        "mask_tokens": '''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    shape = tuple(input_ids.shape)
    chosen = torch.logical_and(torch.rand(size=shape, generator=generator) < 0.15, torch.logical_not(special_mask))
    u = torch.rand(size=shape, generator=generator)
    replacement = torch.full_like(input_ids, fill_value=mask_id)
    random_ids = torch.randint(low=0, high=vocab_size, size=shape, generator=generator, dtype=input_ids.dtype)
    replacement = torch.where(u < 0.8, replacement, torch.where(u < 0.9, random_ids, input_ids))
    inputs = torch.where(chosen, replacement, input_ids)
    labels = torch.where(chosen, input_ids, torch.full_like(input_ids, fill_value=-100))
    return inputs, labels
''',
    },
    "random_ids_only_where_needed": {
        "mask_tokens": '''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    inputs, labels = input_ids.clone(), input_ids.clone()
    selected = torch.rand(input_ids.shape, generator=generator) < 0.15
    selected[special_mask] = False
    labels[~selected] = -100
    u = torch.rand(input_ids.shape, generator=generator)
    inputs[selected & (u < 0.8)] = mask_id
    to_random = selected & (u >= 0.8) & (u < 0.9)
    # one random id per token that needs one
    inputs[to_random] = torch.randint(vocab_size, (int(to_random.sum()),), generator=generator,
                                      dtype=input_ids.dtype)
    return inputs, labels
''',
    },
}
