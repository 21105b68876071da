"""Third blind set for notebook 07 (BERT), written from the student notebook only."""
from blind_case import Blind

NOTEBOOK = "07_bert"

_INPLACE = (("modif",), ("in place",), ("in-place",), ("mutat",), ("caller",), ("do not change",), ("changed",))


def wp(body):
    return ('''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
''' + body)


def ps(body):
    return ('''def pair_scores(splits):
    """{(a, b): count(ab) / (count(a) * count(b))} for every pair of neighbouring pieces in the split words."""
''' + body)


def nsp(body):
    return ('''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
''' + body)


def emb(body):
    return ('''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
''' + body)


def mt(body):
    return ('''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
''' + body)


def bs(body):
    return ('''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
''' + body)


def bp(body):
    return ('''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
''' + body)


def alb(body):
    return ('V, H, E = 30000, 2048, 128\n' + body +
            'print(f"V x H = {full_embedding:,}; V x E + E x H = {factorised_embedding:,}")\n')


def _wp_loop(first_prefix, cont_prefix, unk, limit="len(word) > 100"):
    return wp(f'''    if {limit}:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        end, piece = len(word), None
        while end > start:
            candidate = ({cont_prefix} if start > 0 else {first_prefix}) + word[start:end]
            if candidate in vocab:
                piece = candidate
                break
            end -= 1
        if piece is None:
{unk}
        pieces.append(piece)
        start = end
    return pieces
''')


_UNK_WHOLE = '            return ["[UNK]"]'

_EMB_OK = '''    B, T = input_ids.shape
    positions = torch.arange(T, device=input_ids.device)
    x = (weights["word_embeddings"][input_ids] + weights["position_embeddings"][positions]
         + weights["token_type_embeddings"][token_type_ids])
'''
_EMB_NORM = '''    mu = x.mean(dim=-1, keepdim=True)
    var = ((x - mu) ** 2).mean(dim=-1, keepdim=True)
    return weights["gamma"] * (x - mu) / torch.sqrt(var + 1e-12) + weights["beta"]
'''

_MT_DRAWS = '''    shape = input_ids.shape
    selected = (torch.rand(shape, generator=generator) < 0.15) & ~special_mask
    u = torch.rand(shape, generator=generator)
    random_ids = torch.randint(vocab_size, shape, generator=generator).to(input_ids.dtype)
'''
_MT_APPLY = '''    inputs = input_ids.clone()
    inputs[selected & (u < 0.8)] = mask_id
    to_random = selected & (u >= 0.8) & (u < 0.9)
    inputs[to_random] = random_ids[to_random]
    labels = torch.full_like(input_ids, -100)
    labels[selected] = input_ids[selected]
    return inputs, labels
'''

BLIND = [
    # ---- wordpiece
    Blind(name="wp_no_hashes", cell="wordpiece", test_cell="check_wordpiece",
          source=_wp_loop('""', '""', _UNK_WHOLE),
          mistake="looks continuation pieces up without the '##' prefix",
          names_it=(("##",), ("continuation",)),
          part="the ## prefix of continuations"),
    Blind(name="wp_hashes_on_first", cell="wordpiece", test_cell="check_wordpiece",
          source=_wp_loop('"##"', '"##"', _UNK_WHOLE),
          mistake="puts '##' in front of the first piece too",
          names_it=(("##",), ("first piece",)),
          part="the ## prefix of the first piece"),
    Blind(name="wp_partial_unk", cell="wordpiece", test_cell="check_wordpiece",
          source=_wp_loop('""', '"##"', '''            pieces.append("[UNK]")
            return pieces'''),
          mistake="keeps the pieces found so far and adds [UNK] for the rest, instead of making the whole word [UNK]",
          names_it=(("whole word",), ("[unk]",), ("only the rest",)),
          part="what an unsplittable word becomes"),
    Blind(name="wp_no_length_limit", cell="wordpiece", test_cell="check_wordpiece",
          source=_wp_loop('""', '"##"', _UNK_WHOLE, limit="False"),
          mistake="does not turn words longer than 100 characters into [UNK]",
          names_it=(("100",), ("long",)),
          part="the 100-character limit"),
    Blind(name="wp_limit_off_by_one", cell="wordpiece", test_cell="check_wordpiece",
          source=_wp_loop('""', '"##"', _UNK_WHOLE, limit="len(word) >= 100"),
          mistake="treats a word of exactly 100 characters as too long (>= instead of >)",
          names_it=(("100",), ("long",), ("longer than",)),
          part="the length limit's boundary"),
    Blind(name="wp_shortest_first", cell="wordpiece", test_cell="check_wordpiece",
          source=wp('''    if len(word) > 100:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        piece = None
        for end in range(start + 1, len(word) + 1):
            candidate = ("##" if start > 0 else "") + word[start:end]
            if candidate in vocab:
                piece = candidate
                break
        if piece is None:
            return ["[UNK]"]
        pieces.append(piece)
        start = end
    return pieces
'''),
          mistake="takes the shortest matching piece first instead of the longest",
          names_it=(("longest",), ("greedy",)),
          part="longest vs shortest match"),
    # ---- pair_scores
    Blind(name="ps_ignores_frequency", cell="pair_scores", test_cell="check_pair_scores",
          source=ps('''    pieces, pairs = {}, {}
    for word in splits:
        for p in word:
            pieces[p] = pieces.get(p, 0) + 1
        for pair in zip(word, word[1:]):
            pairs[pair] = pairs.get(pair, 0) + 1
    return {(a, b): n / (pieces[a] * pieces[b]) for (a, b), n in pairs.items()}
'''),
          mistake="counts each split word once, ignoring how many times it occurs",
          names_it=(("times",), ("occurs",), ("frequenc",), ("count",)),
          part="the word counts"),
    Blind(name="ps_set_per_word", cell="pair_scores", test_cell="check_pair_scores",
          source=ps('''    pieces, pairs = {}, {}
    for word, freq in splits.items():
        for p in set(word):
            pieces[p] = pieces.get(p, 0) + freq
        for pair in set(zip(word, word[1:])):
            pairs[pair] = pairs.get(pair, 0) + freq
    return {(a, b): n / (pieces[a] * pieces[b]) for (a, b), n in pairs.items()}
'''),
          mistake="counts a piece or pair once per word even when it occurs twice in it",
          names_it=(("twice",), ("repeat",), ("every occurrence",)),
          part="repeated pieces within a word"),
    Blind(name="ps_consumes_splits", cell="pair_scores", test_cell="check_pair_scores",
          source=ps('''    pieces, pairs = {}, {}
    while splits:
        word, freq = splits.popitem()
        for p in word:
            pieces[p] = pieces.get(p, 0) + freq
        for pair in zip(word, word[1:]):
            pairs[pair] = pairs.get(pair, 0) + freq
    return {(a, b): n / (pieces[a] * pieces[b]) for (a, b), n in pairs.items()}
'''),
          mistake="pops the words off the caller's splits dict; the scores are right but splits is emptied",
          names_it=_INPLACE + (("empt",),),
          part="splits consumed in place"),
    Blind(name="ps_pieces_from_pairs", cell="pair_scores", test_cell="check_pair_scores",
          source=ps('''    pieces, pairs = {}, {}
    for word, freq in splits.items():
        for a, b in zip(word, word[1:]):
            pairs[(a, b)] = pairs.get((a, b), 0) + freq
            pieces[a] = pieces.get(a, 0) + freq
    for (a, b) in pairs:
        pieces.setdefault(b, 0)
    for word, freq in splits.items():
        pieces[word[-1]] += freq
    return {(a, b): n / (pieces[a] * pieces[b]) for (a, b), n in pairs.items()}
'''),
          mistake="counts the pieces only at positions where they start a pair, plus each word's last piece, missing single-piece words",
          names_it=(("count(a)",), ("piece count",), ("single",), ("count of",)),
          part="the piece counts"),
    Blind(name="ps_sum_denominator", cell="pair_scores", test_cell="check_pair_scores",
          source=ps('''    pieces, pairs = {}, {}
    for word, freq in splits.items():
        for p in word:
            pieces[p] = pieces.get(p, 0) + freq
        for pair in zip(word, word[1:]):
            pairs[pair] = pairs.get(pair, 0) + freq
    return {(a, b): n / (pieces[a] + pieces[b]) for (a, b), n in pairs.items()}
'''),
          mistake="divides by count(a) + count(b) instead of the product",
          names_it=(("product",), ("count(a) * count(b)",), ("count(a) count(b)",)),
          part="the score's denominator"),
    # ---- nsp_pair
    Blind(name="nsp_last_sep_segment0", cell="nsp_pair", test_cell="check_nsp_pair",
          source=nsp('''    input_ids = [cls_id] + list(sentence_a) + [sep_id] + list(sentence_b) + [sep_id]
    token_type_ids = [0] * (len(sentence_a) + 2) + [1] * len(sentence_b) + [0]
    return input_ids, token_type_ids
'''),
          mistake="gives the final [SEP] segment 0 instead of 1",
          names_it=(("final [sep]",), ("segment",), ("last [sep]",), ("token_type",)),
          part="the last [SEP]'s segment"),
    Blind(name="nsp_first_sep_segment1", cell="nsp_pair", test_cell="check_nsp_pair",
          source=nsp('''    input_ids = [cls_id] + list(sentence_a) + [sep_id] + list(sentence_b) + [sep_id]
    token_type_ids = [0] * (len(sentence_a) + 1) + [1] * (len(sentence_b) + 2)
    return input_ids, token_type_ids
'''),
          mistake="gives the first [SEP] segment 1: it belongs to sentence A",
          names_it=(("first [sep]",), ("segment",), ("token_type",)),
          part="the first [SEP]'s segment"),
    Blind(name="nsp_mutates", cell="nsp_pair", test_cell="check_nsp_pair",
          source=nsp('''    sentence_a.insert(0, cls_id)
    sentence_a.append(sep_id)
    sentence_b.append(sep_id)
    return sentence_a + sentence_b, [0] * len(sentence_a) + [1] * len(sentence_b)
'''),
          mistake="inserts [CLS] and [SEP] into the caller's lists",
          names_it=_INPLACE,
          part="the given lists changed in place"),
    Blind(name="nsp_no_final_sep", cell="nsp_pair", test_cell="check_nsp_pair",
          source=nsp('''    input_ids = [cls_id] + list(sentence_a) + [sep_id] + list(sentence_b)
    token_type_ids = [0] * (len(sentence_a) + 2) + [1] * len(sentence_b)
    return input_ids, token_type_ids
'''),
          mistake="forgets the [SEP] after sentence B",
          names_it=(("[sep]",), ("final",), ("after b",)),
          part="the final [SEP]"),
    Blind(name="nsp_tensors", cell="nsp_pair", test_cell="check_nsp_pair",
          source=nsp('''    input_ids = torch.tensor([cls_id] + list(sentence_a) + [sep_id] + list(sentence_b) + [sep_id])
    token_type_ids = torch.tensor([0] * (len(sentence_a) + 2) + [1] * (len(sentence_b) + 1))
    return input_ids, token_type_ids
'''),
          mistake="returns tensors instead of the two lists of ints asked for",
          names_it=(("list",),),
          part="the return types"),
    # ---- bert_embeddings
    Blind(name="emb_eps_default", cell="bert_embeddings", test_cell="check_bert_embeddings",
          source=emb(_EMB_OK + '''    mu = x.mean(dim=-1, keepdim=True)
    var = ((x - mu) ** 2).mean(dim=-1, keepdim=True)
    return weights["gamma"] * (x - mu) / torch.sqrt(var + 1e-5) + weights["beta"]
'''),
          mistake="uses notebook 06's eps = 1e-5 instead of BERT's 1e-12",
          names_it=(("eps",), ("1e-12",), ("epsilon",)),
          part="the LayerNorm's eps"),
    Blind(name="emb_no_segments", cell="bert_embeddings", test_cell="check_bert_embeddings",
          source=emb('''    B, T = input_ids.shape
    positions = torch.arange(T, device=input_ids.device)
    x = weights["word_embeddings"][input_ids] + weights["position_embeddings"][positions]
''' + _EMB_NORM),
          mistake="leaves out the segment (token type) embeddings",
          names_it=(("segment",), ("token_type",), ("token type",)),
          part="the segment embeddings"),
    Blind(name="emb_positions_from_one", cell="bert_embeddings", test_cell="check_bert_embeddings",
          source=emb('''    B, T = input_ids.shape
    positions = torch.arange(1, T + 1, device=input_ids.device)
    x = (weights["word_embeddings"][input_ids] + weights["position_embeddings"][positions]
         + weights["token_type_embeddings"][token_type_ids])
''' + _EMB_NORM),
          mistake="numbers the positions from 1 instead of 0",
          names_it=(("position",), ("start at 0",), ("off by one",)),
          part="the position indices"),
    Blind(name="emb_unbiased_var", cell="bert_embeddings", test_cell="check_bert_embeddings",
          source=emb(_EMB_OK + '''    mu = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True)
    return weights["gamma"] * (x - mu) / torch.sqrt(var + 1e-12) + weights["beta"]
'''),
          mistake="uses the unbiased variance (divides by H - 1)",
          names_it=(("h - 1",), ("unbiased",), ("biased",), ("dividing by h",)),
          part="biased vs unbiased variance"),
    Blind(name="emb_ids_as_positions", cell="bert_embeddings", test_cell="check_bert_embeddings",
          source=emb('''    x = (weights["word_embeddings"][input_ids] + weights["position_embeddings"][token_type_ids]
         + weights["token_type_embeddings"][token_type_ids])
''' + _EMB_NORM),
          mistake="indexes the position table with the segment ids instead of the positions 0..T-1",
          names_it=(("position",),),
          part="the position indices"),
    # ---- mask_tokens
    Blind(name="mt_specials_selected", cell="mask_tokens", test_cell="check_mask_tokens",
          source=mt('''    shape = input_ids.shape
    selected = torch.rand(shape, generator=generator) < 0.15
    u = torch.rand(shape, generator=generator)
    random_ids = torch.randint(vocab_size, shape, generator=generator).to(input_ids.dtype)
''' + _MT_APPLY),
          mistake="can select [CLS], [SEP] and padding too (special_mask ignored)",
          names_it=(("special",), ("[cls]",), ("padding",)),
          part="special tokens excluded"),
    Blind(name="mt_labels_everywhere", cell="mask_tokens", test_cell="check_mask_tokens",
          source=mt(_MT_DRAWS + '''    inputs = input_ids.clone()
    inputs[selected & (u < 0.8)] = mask_id
    to_random = selected & (u >= 0.8) & (u < 0.9)
    inputs[to_random] = random_ids[to_random]
    return inputs, input_ids.clone()
'''),
          mistake="labels are the original ids everywhere instead of -100 where nothing is predicted",
          names_it=(("-100",),),
          part="the labels of unselected tokens"),
    Blind(name="mt_labels_only_masked", cell="mask_tokens", test_cell="check_mask_tokens",
          source=mt(_MT_DRAWS + '''    inputs = input_ids.clone()
    masked = selected & (u < 0.8)
    inputs[masked] = mask_id
    to_random = selected & (u >= 0.8) & (u < 0.9)
    inputs[to_random] = random_ids[to_random]
    labels = torch.full_like(input_ids, -100)
    labels[masked] = input_ids[masked]
    return inputs, labels
'''),
          mistake="labels only the [MASK] positions; random and unchanged selections must be predicted too",
          names_it=(("all three",), ("every selected",), ("random", "unchanged"), ("label",)),
          part="which positions get labels"),
    Blind(name="mt_in_place", cell="mask_tokens", test_cell="check_mask_tokens",
          source=mt(_MT_DRAWS + '''    labels = torch.full_like(input_ids, -100)
    labels[selected] = input_ids[selected]
    inputs = input_ids
    inputs[selected & (u < 0.8)] = mask_id
    to_random = selected & (u >= 0.8) & (u < 0.9)
    inputs[to_random] = random_ids[to_random]
    return inputs, labels
'''),
          mistake="writes [MASK] and random ids into the caller's input_ids",
          names_it=_INPLACE + (("input_ids",),),
          part="input_ids changed in place"),
    Blind(name="mt_10_80_10", cell="mask_tokens", test_cell="check_mask_tokens",
          source=mt(_MT_DRAWS + '''    inputs = input_ids.clone()
    inputs[selected & (u < 0.1)] = mask_id
    to_random = selected & (u >= 0.1) & (u < 0.9)
    inputs[to_random] = random_ids[to_random]
    labels = torch.full_like(input_ids, -100)
    labels[selected] = input_ids[selected]
    return inputs, labels
'''),
          mistake="swaps the rates: 10% [MASK] and 80% random",
          names_it=(("80",), ("[mask]",), ("rate",)),
          part="the 80/10/10 thresholds"),
    Blind(name="mt_global_rng", cell="mask_tokens", test_cell="check_mask_tokens",
          source=mt('''    shape = input_ids.shape
    selected = (torch.rand(shape, generator=generator) < 0.15) & ~special_mask
    u = torch.rand(shape, generator=generator)
    random_ids = torch.randint(vocab_size, shape).to(input_ids.dtype)
''' + _MT_APPLY),
          mistake="draws the random replacement tokens from the global RNG instead of generator, so a seed does not fix them",
          names_it=(("generator",), ("seed",), ("same masks",)),
          part="the generator for the random tokens"),
    # ---- best_span
    Blind(name="bs_two_argmaxes", cell="best_span", test_cell="check_best_span",
          source=bs('''    return int(start_logits.argmax()), int(end_logits.argmax())
'''),
          mistake="takes the two argmaxes separately, ignoring start <= end and max_len",
          names_it=(("start <= end",), ("before",), ("max_len",), ("separately",)),
          part="the constraints"),
    Blind(name="bs_max_len_off_by_one", cell="best_span", test_cell="check_best_span",
          source=bs('''    T = len(start_logits)
    best, span = -float("inf"), (0, 0)
    for s in range(T):
        for e in range(s, min(T, s + max_len + 1)):
            score = float(start_logits[s] + end_logits[e])
            if score > best:
                best, span = score, (s, e)
    return span
'''),
          mistake="allows spans of max_len + 1 tokens (end - start <= max_len)",
          names_it=(("max_len",), ("too long",), ("end - start + 1",)),
          part="the length limit"),
    Blind(name="bs_end_before_start", cell="best_span", test_cell="check_best_span",
          source=bs('''    T = len(start_logits)
    best, span = -float("inf"), (0, 0)
    for s in range(T):
        for e in range(T):
            if abs(e - s) + 1 > max_len:
                continue
            score = float(start_logits[s] + end_logits[e])
            if score > best:
                best, span = score, (s, e)
    return span
'''),
          mistake="lets the end come before the start (only the distance is limited)",
          names_it=(("start <= end",), ("before",), ("end not before",)),
          part="the order of start and end"),
    Blind(name="bs_tensor_indices", cell="best_span", test_cell="check_best_span",
          source=bs('''    T = len(start_logits)
    scores = start_logits[:, None] + end_logits[None, :]
    i = torch.arange(T)
    allowed = (i[None, :] >= i[:, None]) & (i[None, :] - i[:, None] + 1 <= max_len)
    flat = scores.masked_fill(~allowed, float("-inf")).argmax()
    return flat // T, flat % T
'''),
          mistake="returns 0-dimensional tensors instead of ints",
          names_it=(("int",),),
          part="the return types"),
    # ---- bert_parameters
    Blind(name="bp_no_pooler", cell="bert_parameters", test_cell="check_bert_parameters",
          source=bp('''    H, I = hidden, intermediate
    embeddings = (vocab_size + max_position + type_vocab) * H + 2 * H
    layer = 4 * (H * H + H) + 2 * H + (H * I + I) + (I * H + H) + 2 * H
    return embeddings + layers * layer
'''),
          mistake="leaves out the pooler",
          names_it=(("pooler",),),
          part="the pooler"),
    Blind(name="bp_one_layernorm", cell="bert_parameters", test_cell="check_bert_parameters",
          source=bp('''    H, I = hidden, intermediate
    embeddings = (vocab_size + max_position + type_vocab) * H + 2 * H
    layer = 4 * (H * H + H) + (H * I + I) + (I * H + H) + 2 * H
    return embeddings + layers * layer + H * H + H
'''),
          mistake="counts one LayerNorm per layer instead of two",
          names_it=(("layernorm",), ("layer norm",)),
          part="the LayerNorms per layer"),
    Blind(name="bp_no_ffn_bias", cell="bert_parameters", test_cell="check_bert_parameters",
          source=bp('''    H, I = hidden, intermediate
    embeddings = (vocab_size + max_position + type_vocab) * H + 2 * H
    layer = 4 * (H * H + H) + 2 * H + 2 * H * I + 2 * H
    return embeddings + layers * layer + H * H + H
'''),
          mistake="forgets the feed-forward network's biases",
          names_it=(("bias",), ("feed-forward",)),
          part="the feed-forward biases"),
    # ---- albert_embedding
    Blind(name="alb_no_projection", cell="albert_embedding", test_cell="check_albert_embedding",
          source=alb('''full_embedding = V * H
factorised_embedding = V * E
'''),
          mistake="leaves out the E x H projection",
          names_it=(("e x h",), ("e × h",), ("projection",), ("factorised",)),
          part="the E x H term"),
    Blind(name="alb_product", cell="albert_embedding", test_cell="check_albert_embedding",
          source=alb('''full_embedding = V * H
factorised_embedding = V * E * H
'''),
          mistake="multiplies V, E and H instead of adding V x E and E x H",
          names_it=(("factorised",), ("v x e + e x h",), ("plus",)),
          part="the factorised count"),
]

ALTERNATIVES = {
    "loops": {
        "wordpiece": _wp_loop('""', '"##"', _UNK_WHOLE),
        "pair_scores": ps('''    from collections import Counter
    pieces, pairs = Counter(), Counter()
    for word, freq in splits.items():
        for p in word:
            pieces[p] += freq
        for i in range(len(word) - 1):
            pairs[(word[i], word[i + 1])] += freq
    return {pair: n / (pieces[pair[0]] * pieces[pair[1]]) for pair, n in pairs.items()}
'''),
        "nsp_pair": nsp('''    input_ids, token_type_ids = [cls_id], [0]
    for t in sentence_a:
        input_ids.append(int(t))
        token_type_ids.append(0)
    input_ids.append(sep_id)
    token_type_ids.append(0)
    for t in sentence_b:
        input_ids.append(int(t))
        token_type_ids.append(1)
    input_ids.append(sep_id)
    token_type_ids.append(1)
    return input_ids, token_type_ids
'''),
        "bert_embeddings": emb(_EMB_OK + _EMB_NORM),
        "mask_tokens": mt(_MT_DRAWS + _MT_APPLY),
        "best_span": bs('''    T = len(start_logits)
    best, span = None, None
    for s in range(T):
        for e in range(s, min(T, s + max_len)):
            score = float(start_logits[s]) + float(end_logits[e])
            if best is None or score > best:
                best, span = score, (s, e)
    return span
'''),
        "bert_parameters": bp('''    H, I = hidden, intermediate
    total = (vocab_size + max_position + type_vocab) * H + 2 * H
    for _ in range(layers):
        total += 4 * (H * H + H)      # Q, K, V, O
        total += 2 * H                # LayerNorm after attention
        total += H * I + I + I * H + H
        total += 2 * H                # LayerNorm after the FFN
    total += H * H + H                # pooler
    return total
'''),
        "albert_embedding": alb('''full_embedding = V * H
factorised_embedding = V * E + E * H
'''),
    },
    "tensor_ops": {
        "wordpiece": wp('''    if len(word) > 100:
        return ["[UNK]"]
    out, rest, prefix = [], word, ""
    while rest:
        for cut in range(len(rest), 0, -1):
            if prefix + rest[:cut] in vocab:
                out.append(prefix + rest[:cut])
                rest, prefix = rest[cut:], "##"
                break
        else:
            return ["[UNK]"]
    return out
'''),
        "pair_scores": ps('''    pieces, pairs = {}, {}
    for word, freq in splits.items():
        for p in word:
            pieces[p] = pieces.get(p, 0) + freq
        for a, b in zip(word[:-1], word[1:]):
            pairs[a, b] = pairs.get((a, b), 0) + freq
    return {(a, b): float(n) / float(pieces[a] * pieces[b]) for (a, b), n in pairs.items()}
'''),
        "nsp_pair": nsp('''    n_a, n_b = len(sentence_a), len(sentence_b)
    return ([cls_id, *map(int, sentence_a), sep_id, *map(int, sentence_b), sep_id],
            [0] * (n_a + 2) + [1] * (n_b + 1))
'''),
        "bert_embeddings": emb('''    T = input_ids.shape[1]
    x = (torch.nn.functional.embedding(input_ids, weights["word_embeddings"])
         + weights["position_embeddings"][:T].unsqueeze(0)
         + torch.nn.functional.embedding(token_type_ids, weights["token_type_embeddings"]))
    var, mu = torch.var_mean(x, dim=-1, unbiased=False, keepdim=True)
    return (x - mu) * torch.rsqrt(var + 1e-12) * weights["gamma"] + weights["beta"]
'''),
        "mask_tokens": mt(_MT_DRAWS + '''    mask_here = selected & (u < 0.8)
    random_here = selected & (u >= 0.8) & (u < 0.9)
    inputs = torch.where(mask_here, torch.full_like(input_ids, mask_id), input_ids)
    inputs = torch.where(random_here, random_ids, inputs)
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, -100))
    return inputs, labels
'''),
        "best_span": bs('''    T = start_logits.shape[0]
    scores = start_logits[:, None] + end_logits[None, :]
    i = torch.arange(T)
    length = i[None, :] - i[:, None] + 1
    allowed = (length >= 1) & (length <= max_len)
    flat = int(scores.masked_fill(~allowed, float("-inf")).argmax())
    return flat // T, flat % T
'''),
        "bert_parameters": bp('''    H, I, L = hidden, intermediate, layers
    embeddings = (vocab_size + max_position + type_vocab + 2) * H
    per_layer = 4 * H * (H + 1) + H * (I + 1) + I * (H + 1) + 4 * H
    pooler = H * (H + 1)
    return int(embeddings + L * per_layer + pooler)
'''),
        "albert_embedding": alb('''full_embedding, factorised_embedding = V * H, E * (V + H)
'''),
    },
    "recursive_and_sorted": {
        "wordpiece": wp('''    if len(word) > 100:
        return ["[UNK]"]

    def split(rest, first):
        if not rest:
            return []
        prefix = "" if first else "##"
        for cut in range(len(rest), 0, -1):
            if prefix + rest[:cut] in vocab:
                tail = split(rest[cut:], False)
                return None if tail is None else [prefix + rest[:cut]] + tail
        return None

    pieces = split(word, True)
    return ["[UNK]"] if pieces is None else pieces
'''),
        "pair_scores": ps('''    from collections import Counter
    pieces = Counter()
    pairs = Counter()
    for word, freq in splits.items():
        pieces.update({p: c * freq for p, c in Counter(word).items()})
        pairs.update({pr: c * freq for pr, c in Counter(zip(word, word[1:])).items()})
    return {pr: pairs[pr] / (pieces[pr[0]] * pieces[pr[1]]) for pr in pairs}
'''),
        "nsp_pair": nsp('''    input_ids = [cls_id] + [int(t) for t in sentence_a] + [sep_id]
    token_type_ids = [0] * len(input_ids)
    second = [int(t) for t in sentence_b] + [sep_id]
    return input_ids + second, token_type_ids + [1] * len(second)
'''),
        "bert_embeddings": emb('''    B, T = input_ids.shape
    pos = torch.arange(T).expand(B, T)
    x = weights["word_embeddings"][input_ids] + weights["position_embeddings"][pos] + weights["token_type_embeddings"][token_type_ids]
    centred = x - x.mean(-1, keepdim=True)
    return weights["gamma"] * centred / torch.sqrt(centred.pow(2).mean(-1, keepdim=True) + 1e-12) + weights["beta"]
'''),
        "mask_tokens": mt('''    selected = torch.rand(input_ids.shape, generator=generator).lt(0.15).logical_and(special_mask.logical_not())
    u = torch.rand(input_ids.shape, generator=generator)
    random_ids = torch.randint(0, vocab_size, input_ids.shape, generator=generator, dtype=input_ids.dtype)
    inputs = input_ids.clone()
    inputs = inputs.masked_fill(selected & (u < 0.8), mask_id)
    swap = selected & (u >= 0.8) & (u < 0.9)
    inputs[swap] = random_ids[swap]
    labels = input_ids.masked_fill(~selected, -100)
    return inputs, labels
'''),
        "best_span": bs('''    T = len(start_logits)
    candidates = [(float(start_logits[s] + end_logits[e]), -s, -e)
                  for s in range(T) for e in range(s, min(T, s + max_len))]
    _, s, e = max(candidates)
    return -s, -e
'''),
        "bert_parameters": bp('''    H, I = hidden, intermediate
    parts = {
        "embeddings": vocab_size * H + max_position * H + type_vocab * H + 2 * H,
        "attention": layers * (4 * H * H + 4 * H + 2 * H),
        "ffn": layers * (2 * H * I + I + H + 2 * H),
        "pooler": H * H + H,
    }
    return sum(parts.values())
'''),
        "albert_embedding": alb('''full_embedding = int(V) * int(H)
factorised_embedding = int(V) * int(E) + int(E) * int(H)
'''),
    },
}
