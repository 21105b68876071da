"""Fourth blind set for notebook 07 (BERT), written from the student notebook only."""
from blind_case import Blind

NOTEBOOK = "07_bert"

BLIND = [
    # ---------------------------------------------------------------- wordpiece
    Blind(name="wp_shortest_first", cell="wordpiece", test_cell="check_wordpiece",
          source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) > 100:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        for end in range(start + 1, len(word) + 1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                pieces.append(piece)
                start = end
                break
        else:
            return ["[UNK]"]
    return pieces
''',
          mistake="Tries the prefixes from the shortest up and takes the first that is in the vocabulary, instead of the longest match first.",
          names_it=(("longest",), ("shortest",)),
          part="longest match first"),
    Blind(name="wp_partial_unk", cell="wordpiece", test_cell="check_wordpiece",
          source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) > 100:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = ("##" if start > 0 else "") + word[start:end]
            if piece in vocab:
                break
            end -= 1
        if end == start:
            pieces.append("[UNK]")
            break
        pieces.append(piece)
        start = end
    return pieces
''',
          mistake="When no piece matches it keeps the pieces found so far and appends [UNK] for the rest; the whole word must become ['[UNK]'].",
          names_it=(("whole word",), ("entire word",), ("only [unk]",)),
          part="a word that cannot be split"),
    Blind(name="wp_no_hash_prefix", cell="wordpiece", test_cell="check_wordpiece",
          source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) > 100:
        return ["[UNK]"]
    pieces, start = [], 0
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
          mistake="Looks continuation pieces up without the '##' prefix (and returns them without it), so 'ffa' is found instead of '##ffa'.",
          names_it=(("##",), ("continuation",)),
          part="the ## prefix"),
    Blind(name="wp_hash_on_first_piece", cell="wordpiece", test_cell="check_wordpiece",
          source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) > 100:
        return ["[UNK]"]
    pieces = []
    rest = word
    while rest:
        for end in range(len(rest), 0, -1):
            candidate = "##" + rest[:end]
            if candidate in vocab:
                pieces.append(candidate)
                rest = rest[end:]
                break
        else:
            return ["[UNK]"]
    return pieces
''',
          mistake="Puts '##' in front of every piece, the first one too; only continuations get '##'.",
          names_it=(("first piece",), ("##", "first"), ("continuation",)),
          part="the ## prefix"),
    Blind(name="wp_no_length_limit", cell="wordpiece", test_cell="check_wordpiece",
          source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    tokens = []
    start = 0
    while start < len(word):
        end = len(word)
        match = None
        while end > start:
            sub = word[start:end] if start == 0 else "##" + word[start:end]
            if sub in vocab:
                match = sub
                break
            end -= 1
        if match is None:
            return ["[UNK]"]
        tokens.append(match)
        start = end
    return tokens
''',
          mistake="Never checks the length: a word longer than 100 characters must become ['[UNK]'] without being split.",
          names_it=(("100 characters",), ("longer than 100",), ("100",)),
          part="the length limit"),
    Blind(name="wp_never_whole_rest", cell="wordpiece", test_cell="check_wordpiece",
          source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) > 100:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        found = None
        for end in range(len(word) - 1, start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                found = end
                break
        if found is None:
            end = start + 1
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece not in vocab:
                return ["[UNK]"]
            found = end
        pieces.append(piece)
        start = found
    return pieces
''',
          mistake="The candidate ends start at len(word) - 1, so the whole remaining word is never tried: 'the' splits as 'th', '##e' although 'the' is a piece.",
          names_it=(("whole",), ("len(word)",), ("off by one",), ("remaining",)),
          part="the longest candidate"),
    Blind(name="wp_lookup_without_hashes", cell="wordpiece", test_cell="check_wordpiece",
          source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) > 100:
        return ["[UNK]"]
    out, i = [], 0
    while i < len(word):
        j = len(word)
        while j > i and word[i:j] not in vocab:
            j -= 1
        if j == i:
            return ["[UNK]"]
        out.append(word[i:j] if i == 0 else "##" + word[i:j])
        i = j
    return out
''',
          mistake="Tests the continuation pieces in the vocabulary without '##' and only adds '##' afterwards, so it matches word-initial pieces where continuation pieces are needed.",
          names_it=(("with ##",), ("##", "look"), ("##", "vocab")),
          part="the lookup of continuation pieces"),

    # ---------------------------------------------------------------- pair_scores
    Blind(name="ps_ignores_word_counts", cell="pair_scores", test_cell="check_pair_scores",
          source='''def pair_scores(splits):
    """{(a, b): count(ab) / (count(a) * count(b))} for every pair of neighbouring pieces in the split words."""
    pieces, pairs = {}, {}
    for split in splits:
        for piece in split:
            pieces[piece] = pieces.get(piece, 0) + 1
        for pair in zip(split, split[1:]):
            pairs[pair] = pairs.get(pair, 0) + 1
    return {pair: n / (pieces[pair[0]] * pieces[pair[1]]) for pair, n in pairs.items()}
''',
          mistake="Counts every split word once, ignoring how many times the word occurs (the dict's values).",
          names_it=(("occur",), ("frequency",), ("times",), ("weight",)),
          part="weighting by the word counts"),
    Blind(name="ps_last_piece_not_counted", cell="pair_scores", test_cell="check_pair_scores",
          source='''def pair_scores(splits):
    """{(a, b): count(ab) / (count(a) * count(b))} for every pair of neighbouring pieces in the split words."""
    piece_count, pair_count = {}, {}
    for split, n in splits.items():
        for a, b in zip(split, split[1:]):
            piece_count[a] = piece_count.get(a, 0) + n
            pair_count[(a, b)] = pair_count.get((a, b), 0) + n
    return {(a, b): c / (piece_count.get(a, 0) * piece_count.get(b, 0)) for (a, b), c in pair_count.items()}
''',
          mistake="Counts the pieces only as the first element of a pair, so the last piece of every word is never counted (and a piece that only ends words has count 0: division by zero).",
          names_it=(("last piece",), ("every piece",), ("count(b)",)),
          part="counting the pieces"),
    Blind(name="ps_sum_in_denominator", cell="pair_scores", test_cell="check_pair_scores",
          source='''def pair_scores(splits):
    """{(a, b): count(ab) / (count(a) * count(b))} for every pair of neighbouring pieces in the split words."""
    single, double = {}, {}
    for split, n in splits.items():
        for piece in split:
            single[piece] = single.get(piece, 0) + n
        for pair in zip(split[:-1], split[1:]):
            double[pair] = double.get(pair, 0) + n
    return {(a, b): c / (single[a] + single[b]) for (a, b), c in double.items()}
''',
          mistake="Divides by count(a) + count(b) instead of the product count(a) * count(b).",
          names_it=(("product",), ("count(a) * count(b)",), ("multipl",)),
          part="the denominator"),
    Blind(name="ps_pair_once_per_word", cell="pair_scores", test_cell="check_pair_scores",
          source='''def pair_scores(splits):
    """{(a, b): count(ab) / (count(a) * count(b))} for every pair of neighbouring pieces in the split words."""
    piece_counts, pair_counts = {}, {}
    for split, n in splits.items():
        for piece in split:
            piece_counts[piece] = piece_counts.get(piece, 0) + n
        for pair in set(zip(split, split[1:])):
            pair_counts[pair] = pair_counts.get(pair, 0) + n
    return {pair: pair_counts[pair] / (piece_counts[pair[0]] * piece_counts[pair[1]]) for pair in pair_counts}
''',
          mistake="Counts each pair once per word (through a set), so a pair that occurs twice in one word counts only once.",
          names_it=(("twice",), ("every occurrence",), ("set",)),
          part="counting repeated pairs"),
    Blind(name="ps_piece_once_per_word", cell="pair_scores", test_cell="check_pair_scores",
          source='''def pair_scores(splits):
    """{(a, b): count(ab) / (count(a) * count(b))} for every pair of neighbouring pieces in the split words."""
    piece_counts, pair_counts = {}, {}
    for split, n in splits.items():
        for piece in set(split):
            piece_counts[piece] = piece_counts.get(piece, 0) + n
        for i in range(len(split) - 1):
            key = (split[i], split[i + 1])
            pair_counts[key] = pair_counts.get(key, 0) + n
    return {pair: c / (piece_counts[pair[0]] * piece_counts[pair[1]]) for pair, c in pair_counts.items()}
''',
          mistake="Counts each piece once per word (set(split)), so a piece that occurs twice in a word (like ##e in 'newest') counts once.",
          names_it=(("twice",), ("every occurrence",), ("set",), ("##e",)),
          part="counting repeated pieces"),
    Blind(name="ps_integer_division", cell="pair_scores", test_cell="check_pair_scores",
          source='''def pair_scores(splits):
    """{(a, b): count(ab) / (count(a) * count(b))} for every pair of neighbouring pieces in the split words."""
    counts, pair_counts = {}, {}
    for split, n in splits.items():
        for piece in split:
            counts[piece] = counts.get(piece, 0) + n
        for a, b in zip(split, split[1:]):
            pair_counts[a, b] = pair_counts.get((a, b), 0) + n
    return {(a, b): c // (counts[a] * counts[b]) for (a, b), c in pair_counts.items()}
''',
          mistake="Uses integer division //, so every score below 1 becomes 0.",
          names_it=(("integer division",), ("//",), ("float",)),
          part="the division"),

    # ---------------------------------------------------------------- nsp_pair
    Blind(name="nsp_first_sep_segment_one", cell="nsp_pair", test_cell="check_nsp_pair",
          source='''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
    input_ids = [cls_id] + sentence_a + [sep_id] + sentence_b + [sep_id]
    token_type_ids = [0] * (1 + len(sentence_a)) + [1] * (len(sentence_b) + 2)
    return input_ids, token_type_ids
''',
          mistake="Gives the first [SEP] segment id 1; it belongs to sentence A (segment 0).",
          names_it=(("first [sep]",), ("[sep]", "segment 0"), ("[sep]", "sentence a")),
          part="the first [SEP]'s segment"),
    Blind(name="nsp_no_final_sep", cell="nsp_pair", test_cell="check_nsp_pair",
          source='''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
    ids = [cls_id, *sentence_a, sep_id, *sentence_b]
    types = [0] * (len(sentence_a) + 2) + [1] * len(sentence_b)
    return ids, types
''',
          mistake="Leaves out the final [SEP] after sentence B.",
          names_it=(("final [sep]",), ("last [sep]",), ("second [sep]",), ("[sep]", "after sentence b")),
          part="the final [SEP]"),
    Blind(name="nsp_changes_arguments", cell="nsp_pair", test_cell="check_nsp_pair",
          source='''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
    sentence_a.insert(0, cls_id)
    sentence_a.append(sep_id)
    sentence_b.append(sep_id)
    input_ids = sentence_a + sentence_b
    token_type_ids = [0] * len(sentence_a) + [1] * len(sentence_b)
    return input_ids, token_type_ids
''',
          mistake="Inserts [CLS] and appends [SEP] into the caller's lists sentence_a and sentence_b (insert/append change them in place).",
          names_it=(("in place",), ("in-place",), ("modif",), ("change",)),
          part="changing the arguments"),
    Blind(name="nsp_all_segment_zero", cell="nsp_pair", test_cell="check_nsp_pair",
          source='''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
    input_ids = [cls_id] + list(sentence_a) + [sep_id] + list(sentence_b) + [sep_id]
    token_type_ids = [0 for _ in input_ids]
    return input_ids, token_type_ids
''',
          mistake="Gives every token segment id 0; sentence B and the final [SEP] need segment 1.",
          names_it=(("segment 1",), ("sentence b",), ("1 for",)),
          part="the segment ids"),
    Blind(name="nsp_types_one_short", cell="nsp_pair", test_cell="check_nsp_pair",
          source='''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
    input_ids = [cls_id] + sentence_a + [sep_id] + sentence_b + [sep_id]
    token_type_ids = [0] * (len(sentence_a) + 1) + [1] * (len(sentence_b) + 1)
    return input_ids, token_type_ids
''',
          mistake="Forgets to count [CLS] in the segment ids: token_type_ids is one shorter than input_ids and the first [SEP] gets segment 1.",
          names_it=(("[cls]",), ("length",), ("one short",), ("same length",)),
          part="the segment ids"),
    Blind(name="nsp_returns_tensors", cell="nsp_pair", test_cell="check_nsp_pair",
          source='''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
    ids = torch.tensor([cls_id] + sentence_a + [sep_id] + sentence_b + [sep_id])
    types = torch.zeros_like(ids)
    types[len(sentence_a) + 2:] = 1
    return ids, types
''',
          mistake="Returns two tensors instead of two lists of ints.",
          names_it=(("list",), ("tensor",)),
          part="the return type"),

    # ---------------------------------------------------------------- bert_embeddings
    Blind(name="be_positions_from_one", cell="bert_embeddings", test_cell="check_bert_embeddings",
          source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    T = input_ids.shape[1]
    positions = torch.arange(1, T + 1, device=input_ids.device)
    x = (weights["word_embeddings"][input_ids] + weights["position_embeddings"][positions]
         + weights["token_type_embeddings"][token_type_ids])
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return weights["gamma"] * (x - mu) / torch.sqrt(var + 1e-12) + weights["beta"]
''',
          mistake="Numbers the positions from 1 instead of 0, so every token gets the next position's embedding.",
          names_it=(("position 0",), ("from 0",), ("start at 0",), ("shifted",), ("off by one",)),
          part="the position ids"),
    Blind(name="be_no_segment", cell="bert_embeddings", test_cell="check_bert_embeddings",
          source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    pos = torch.arange(input_ids.shape[1], device=input_ids.device)
    x = weights["word_embeddings"][input_ids] + weights["position_embeddings"][pos]
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, unbiased=False, keepdim=True)
    return (x - mean) / torch.sqrt(var + 1e-12) * weights["gamma"] + weights["beta"]
''',
          mistake="Leaves out the segment (token type) embeddings.",
          names_it=(("segment",), ("token_type",), ("token type",)),
          part="the segment embeddings"),
    Blind(name="be_unbiased_variance", cell="bert_embeddings", test_cell="check_bert_embeddings",
          source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    positions = torch.arange(input_ids.size(1), device=input_ids.device).expand_as(input_ids)
    x = (weights["word_embeddings"][input_ids] + weights["position_embeddings"][positions]
         + weights["token_type_embeddings"][token_type_ids])
    return weights["gamma"] * (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, keepdim=True) + 1e-12) + weights["beta"]
''',
          mistake="Uses torch.var's default unbiased variance (dividing by H - 1) instead of dividing by H.",
          names_it=(("unbiased",), ("h - 1",), ("dividing by h",), ("biased",)),
          part="the variance"),
    Blind(name="be_normalise_over_tokens", cell="bert_embeddings", test_cell="check_bert_embeddings",
          source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    T = input_ids.shape[1]
    x = (weights["word_embeddings"][input_ids] + weights["position_embeddings"][:T]
         + weights["token_type_embeddings"][token_type_ids])
    mu = x.mean(dim=1, keepdim=True)
    var = ((x - mu) ** 2).mean(dim=1, keepdim=True)
    return weights["gamma"] * (x - mu) / torch.sqrt(var + 1e-12) + weights["beta"]
''',
          mistake="Takes the LayerNorm's mean and variance over the tokens (dim 1) instead of over the hidden dimension (dim -1).",
          names_it=(("hidden dimension",), ("dim=-1",), ("last dimension",), ("axis",)),
          part="the normalisation axis"),
    Blind(name="be_no_layernorm", cell="bert_embeddings", test_cell="check_bert_embeddings",
          source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    T = input_ids.shape[1]
    x = (weights["word_embeddings"][input_ids] + weights["position_embeddings"][:T]
         + weights["token_type_embeddings"][token_type_ids])
    return weights["gamma"] * x + weights["beta"]
''',
          mistake="Applies only gamma and beta: the sum is never normalised (no mean subtracted, no division by the standard deviation).",
          names_it=(("layernorm",), ("normalis",), ("mean", "variance")),
          part="the LayerNorm"),
    Blind(name="be_positions_batch_length", cell="bert_embeddings", test_cell="check_bert_embeddings",
          source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    n = len(input_ids)
    x = weights["word_embeddings"][input_ids] + weights["token_type_embeddings"][token_type_ids]
    x = x + weights["position_embeddings"][:n]
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return weights["gamma"] * (x - mu) / torch.sqrt(var + 1e-12) + weights["beta"]
''',
          mistake="Takes the first len(input_ids) = B position vectors instead of T: the (B, H) block broadcasts against the token axis, a shape error unless B = T (and wrong then).",
          names_it=(("shape[1]",), ("sequence length",), ("t positions",), ("number of tokens",)),
          part="the position ids"),
    Blind(name="be_keepdim_forgotten", cell="bert_embeddings", test_cell="check_bert_embeddings",
          source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    T = input_ids.shape[-1]
    x = (weights["word_embeddings"][input_ids] + weights["position_embeddings"][torch.arange(T)]
         + weights["token_type_embeddings"][token_type_ids])
    mu = x.mean(-1)
    var = x.var(-1, unbiased=False)
    return weights["gamma"] * (x - mu) / torch.sqrt(var + 1e-12) + weights["beta"]
''',
          mistake="Leaves out keepdim=True: the (B, T) mean and variance broadcast against (B, T, H) along the wrong axes, a shape error.",
          names_it=(("keepdim",), ("broadcast",)),
          part="keepdim"),
    Blind(name="be_norm_before_sum", cell="bert_embeddings", test_cell="check_bert_embeddings",
          source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    words = weights["word_embeddings"][input_ids]
    mu = words.mean(-1, keepdim=True)
    var = ((words - mu) ** 2).mean(-1, keepdim=True)
    words = weights["gamma"] * (words - mu) / torch.sqrt(var + 1e-12) + weights["beta"]
    T = input_ids.shape[1]
    return words + weights["position_embeddings"][:T] + weights["token_type_embeddings"][token_type_ids]
''',
          mistake="Normalises only the word embeddings and adds the position and segment embeddings afterwards; the LayerNorm comes after the sum of all three.",
          names_it=(("after the sum",), ("sum of all three",), ("before adding",), ("only the word",)),
          part="where the LayerNorm sits"),

    # ---------------------------------------------------------------- mask_tokens
    Blind(name="mt_selects_specials", cell="mask_tokens", test_cell="check_mask_tokens",
          source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    selected = torch.rand(input_ids.shape, generator=generator) < 0.15
    u = torch.rand(input_ids.shape, generator=generator)
    random_ids = torch.randint(vocab_size, input_ids.shape, generator=generator)
    inputs = input_ids.clone()
    inputs[selected & (u < 0.8)] = mask_id
    swap = selected & (u >= 0.8) & (u < 0.9)
    inputs[swap] = random_ids[swap]
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, -100))
    return inputs, labels
''',
          mistake="Never uses special_mask, so [CLS], [SEP] and padding can be selected and masked.",
          names_it=(("special",), ("[cls]",), ("padding",)),
          part="excluding special tokens"),
    Blind(name="mt_labels_only_at_mask", cell="mask_tokens", test_cell="check_mask_tokens",
          source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    selected = (torch.rand(input_ids.shape, generator=generator) < 0.15) & ~special_mask
    u = torch.rand(input_ids.shape, generator=generator)
    to_mask = selected & (u < 0.8)
    to_random = selected & (u >= 0.8) & (u < 0.9)
    inputs = input_ids.clone()
    inputs[to_mask] = mask_id
    inputs[to_random] = torch.randint(vocab_size, input_ids.shape, generator=generator)[to_random]
    labels = input_ids.clone()
    labels[~to_mask] = -100
    return inputs, labels
''',
          mistake="Puts labels only at the [MASK] positions; the random and unchanged selected tokens must be predicted too (label = original id).",
          names_it=(("all three",), ("every selected",), ("random", "unchanged"), ("all selected",)),
          part="the labels"),
    Blind(name="mt_same_draw_for_both", cell="mask_tokens", test_cell="check_mask_tokens",
          source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    u = torch.rand(input_ids.shape, generator=generator)
    selected = (u < 0.15) & ~special_mask
    inputs = input_ids.clone()
    inputs[selected & (u < 0.8)] = mask_id
    rand = selected & (u >= 0.8) & (u < 0.9)
    inputs[rand] = torch.randint(vocab_size, input_ids.shape, generator=generator)[rand]
    labels = torch.where(selected, input_ids, torch.tensor(-100, dtype=input_ids.dtype))
    return inputs, labels
''',
          mistake="Reuses the selection number u (< 0.15) for the 80/10/10 split, so every selected token has u < 0.8 and becomes [MASK]: no random or unchanged tokens. A second, independent draw is needed.",
          names_it=(("second",), ("independent",), ("same random",), ("new draw",), ("100%",)),
          part="the 80/10/10 draw"),
    Blind(name="mt_random_overwrites_mask", cell="mask_tokens", test_cell="check_mask_tokens",
          source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    selected = (torch.rand(input_ids.shape, generator=generator) < 0.15) & ~special_mask
    u = torch.rand(input_ids.shape, generator=generator)
    inputs = input_ids.clone()
    inputs[selected & (u < 0.8)] = mask_id
    random_positions = selected & (u < 0.9)
    inputs[random_positions] = torch.randint(vocab_size, input_ids.shape, generator=generator)[random_positions]
    labels = torch.full_like(input_ids, -100)
    labels[selected] = input_ids[selected]
    return inputs, labels
''',
          mistake="Draws random tokens where u < 0.9 without the lower bound 0.8, so they overwrite the [MASK] positions: 90% random, almost no [MASK].",
          names_it=(("0.8 <= u",), ("0.8",), ("80%",)),
          part="the 80/10/10 thresholds"),
    Blind(name="mt_changes_input_ids", cell="mask_tokens", test_cell="check_mask_tokens",
          source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    selected = (torch.rand(input_ids.shape, generator=generator) < 0.15) & ~special_mask
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, -100))
    u = torch.rand(input_ids.shape, generator=generator)
    random_ids = torch.randint(vocab_size, input_ids.shape, generator=generator)
    inputs = input_ids
    inputs[selected & (u < 0.8)] = mask_id
    rnd = selected & (u >= 0.8) & (u < 0.9)
    inputs[rnd] = random_ids[rnd]
    return inputs, labels
''',
          mistake="inputs = input_ids does not copy, so the masking writes into the caller's input_ids (no .clone()).",
          names_it=(("clone",), ("in place",), ("copy",), ("modif",)),
          part="changing the argument"),
    Blind(name="mt_no_generator", cell="mask_tokens", test_cell="check_mask_tokens",
          source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    selected = (torch.rand(input_ids.shape) < 0.15) & ~special_mask
    u = torch.rand(input_ids.shape)
    inputs = input_ids.clone()
    inputs[selected & (u < 0.8)] = mask_id
    rnd = selected & (u >= 0.8) & (u < 0.9)
    inputs[rnd] = torch.randint(vocab_size, input_ids.shape)[rnd]
    labels = torch.where(selected, input_ids, -100)
    return inputs, labels
''',
          mistake="Draws the random numbers without passing generator, so the same seed does not give the same masks.",
          names_it=(("generator",), ("seed",)),
          part="using the generator"),
    Blind(name="mt_float_labels", cell="mask_tokens", test_cell="check_mask_tokens",
          source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    selected = (torch.rand(input_ids.shape, generator=generator) < 0.15) & ~special_mask
    u = torch.rand(input_ids.shape, generator=generator)
    inputs = input_ids.clone()
    inputs[selected & (u < 0.8)] = mask_id
    rnd = selected & (u >= 0.8) & (u < 0.9)
    inputs[rnd] = torch.randint(vocab_size, input_ids.shape, generator=generator)[rnd]
    labels = torch.full(input_ids.shape, -100.0)
    labels[selected] = input_ids[selected].float()
    return inputs, labels
''',
          mistake="Creates the labels as a float tensor (torch.full with -100.0) instead of with the dtype of input_ids.",
          names_it=(("dtype",), ("float",), ("int64",), ("long",)),
          part="the labels' dtype"),
    Blind(name="mt_random_ids_shape", cell="mask_tokens", test_cell="check_mask_tokens",
          source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    selected = (torch.rand(input_ids.shape, generator=generator) < 0.15) & ~special_mask
    u = torch.rand(input_ids.shape, generator=generator)
    inputs = input_ids.clone()
    inputs[selected & (u < 0.8)] = mask_id
    rnd = selected & (u >= 0.8) & (u < 0.9)
    inputs[rnd] = torch.randint(vocab_size, input_ids.shape, generator=generator)
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, -100))
    return inputs, labels
''',
          mistake="Assigns a full (B, T) tensor of random ids to the boolean-indexed positions inputs[rnd]; the shapes do not match, so PyTorch raises an error (it needs random_ids[rnd]).",
          names_it=(("[rnd]",), ("shape",), ("same positions",), ("index",)),
          part="drawing the random tokens"),
    Blind(name="mt_labels_everywhere", cell="mask_tokens", test_cell="check_mask_tokens",
          source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    selected = (torch.rand(input_ids.shape, generator=generator) < 0.15) & ~special_mask
    u = torch.rand(input_ids.shape, generator=generator)
    inputs = input_ids.clone()
    inputs[selected & (u < 0.8)] = mask_id
    rnd = selected & (u >= 0.8) & (u < 0.9)
    inputs[rnd] = torch.randint(vocab_size, input_ids.shape, generator=generator)[rnd]
    labels = input_ids.clone()
    labels[special_mask] = -100
    return inputs, labels
''',
          mistake="Keeps the original id as the label at every ordinary token; only the selected positions should have labels, -100 everywhere else.",
          names_it=(("-100",), ("not selected",), ("unselected",), ("only", "selected")),
          part="the labels"),

    # ---------------------------------------------------------------- best_span
    Blind(name="bs_two_argmaxes", cell="best_span", test_cell="check_best_span",
          source='''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    start = int(start_logits.argmax())
    end = int(end_logits.argmax())
    if end < start:
        end = start
    end = min(end, start + max_len - 1)
    return start, end
''',
          mistake="Takes the two argmaxes separately and patches the end; the best valid pair must be searched jointly (the best end may come before the best start).",
          names_it=(("separately",), ("jointly",), ("all spans",), ("every pair",)),
          part="searching the pairs"),
    Blind(name="bs_length_off_by_one", cell="best_span", test_cell="check_best_span",
          source='''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    T = len(start_logits)
    best, best_pair = -float("inf"), (0, 0)
    for s in range(T):
        for e in range(s, min(T, s + max_len + 1)):
            score = float(start_logits[s] + end_logits[e])
            if score > best:
                best, best_pair = score, (s, e)
    return best_pair
''',
          mistake="Lets the end go up to start + max_len, so spans of max_len + 1 tokens are allowed (end - start + 1 <= max_len is violated).",
          names_it=(("too long",), ("off by one",), ("max_len + 1",), ("longer than max_len",)),
          part="the length limit"),
    Blind(name="bs_end_before_start", cell="best_span", test_cell="check_best_span",
          source='''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    T = start_logits.shape[0]
    scores = start_logits[:, None] + end_logits[None, :]
    i, j = torch.meshgrid(torch.arange(T), torch.arange(T), indexing="ij")
    allowed = (j - i).abs() + 1 <= max_len
    scores = scores.masked_fill(~allowed, float("-inf"))
    flat = int(scores.argmax())
    return flat // T, flat % T
''',
          mistake="Bounds only the distance |end - start|, so spans whose end comes before the start are allowed.",
          names_it=(("start <= end",), ("before the start",), ("end < start",), ("order",)),
          part="start <= end"),
    Blind(name="bs_best_initialised_zero", cell="best_span", test_cell="check_best_span",
          source='''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    best_score, best = 0.0, (0, 0)
    T = len(start_logits)
    for start in range(T):
        for end in range(start, min(T, start + max_len)):
            score = start_logits[start].item() + end_logits[end].item()
            if score > best_score:
                best_score, best = score, (start, end)
    return best
''',
          mistake="Starts the best score at 0, so when every span scores below 0 (all-negative logits) it returns (0, 0) instead of the best span; it must start at -inf.",
          names_it=(("-inf",), ("negative",), ("initial",)),
          part="the initial best score"),
    Blind(name="bs_index_past_end", cell="best_span", test_cell="check_best_span",
          source='''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    best, span = None, None
    for start in range(len(start_logits)):
        for end in range(start, start + max_len):
            score = start_logits[start] + end_logits[end]
            if best is None or score > best:
                best, span = score, (start, end)
    return span
''',
          mistake="Lets end run to start + max_len - 1 without stopping at T - 1, so end_logits[end] goes past the end of the tensor (IndexError) near the end or when max_len exceeds T.",
          names_it=(("out of range",), ("out of bounds",), ("t - 1",), ("beyond",), ("indexerror",)),
          part="the loop range"),
    Blind(name="bs_float_mask", cell="best_span", test_cell="check_best_span",
          source='''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    T = len(start_logits)
    ones = torch.ones(T, T)
    allowed = torch.triu(ones) - torch.triu(ones, diagonal=max_len)
    scores = (start_logits[:, None] + end_logits[None, :]).masked_fill(~allowed, float("-inf"))
    best = scores.argmax()
    return int(best // T), int(best % T)
''',
          mistake="Builds the band of allowed spans as a float tensor and applies ~ and masked_fill to it; both need a bool mask, so PyTorch raises an error.",
          names_it=(("bool",), ("dtype",)),
          part="the mask of allowed spans"),
    Blind(name="bs_single_token_excluded", cell="best_span", test_cell="check_best_span",
          source='''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    T = len(start_logits)
    best, best_span_ = -math.inf, (0, 0)
    for i in range(T):
        for j in range(i + 1, min(T, i + max_len)):
            total = start_logits[i].item() + end_logits[j].item()
            if total > best:
                best, best_span_ = total, (i, j)
    return best_span_
''',
          mistake="Starts the end at start + 1, so one-token spans (start == end) are never considered; with max_len = 1 no span is searched at all.",
          names_it=(("start == end",), ("one-token",), ("single",), ("start <= end",)),
          part="one-token spans"),

    # ---------------------------------------------------------------- bert_parameters
    Blind(name="bp_no_pooler", cell="bert_parameters", test_cell="check_bert_parameters",
          source='''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    H, I = hidden, intermediate
    embeddings = (vocab_size + max_position + type_vocab) * H + 2 * H
    per_layer = 4 * (H * H + H) + 2 * H + (H * I + I) + (I * H + H) + 2 * H
    return embeddings + layers * per_layer
''',
          mistake="Leaves out the pooler (a dense H x H layer with its bias).",
          names_it=(("pooler",), ("dense h x h",), ("pooling",)),
          part="the pooler"),
    Blind(name="bp_no_attention_biases", cell="bert_parameters", test_cell="check_bert_parameters",
          source='''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    H, I = hidden, intermediate
    embeddings = (vocab_size + max_position + type_vocab) * H + 2 * H
    attention = 4 * H * H
    ffn = H * I + I + I * H + H
    per_layer = attention + ffn + 2 * (2 * H)
    pooler = H * H + H
    return embeddings + layers * per_layer + pooler
''',
          mistake="Counts the four attention projections without their biases (4 H^2 instead of 4 (H^2 + H)).",
          names_it=(("bias",), ("h^2 + h",), ("4h",)),
          part="the attention projections"),
    Blind(name="bp_one_layernorm_per_layer", cell="bert_parameters", test_cell="check_bert_parameters",
          source='''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    embeddings = (vocab_size + max_position + type_vocab) * hidden + 2 * hidden
    layer = 4 * (hidden * hidden + hidden) + hidden * intermediate + intermediate + intermediate * hidden + hidden + 2 * hidden
    pooler = hidden * hidden + hidden
    return embeddings + layers * layer + pooler
''',
          mistake="Counts one LayerNorm per layer; every layer has two (after attention and after the feed-forward network).",
          names_it=(("two layernorms",), ("second layernorm",), ("layernorm",)),
          part="the LayerNorms per layer"),
    Blind(name="bp_ffn_one_matrix", cell="bert_parameters", test_cell="check_bert_parameters",
          source='''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    H, I = hidden, intermediate
    total = (vocab_size + max_position + type_vocab) * H + 2 * H
    for _ in range(layers):
        total += 4 * (H * H + H)      # W_Q, W_K, W_V, W_O
        total += H * I + I            # feed-forward H -> I
        total += 2 * 2 * H            # two LayerNorms
    total += H * H + H                # pooler
    return total
''',
          mistake="Counts only the first feed-forward layer (H -> I); the second layer I -> H with its bias is missing.",
          names_it=(("i -> h",), ("second", "feed-forward"), ("back to h",), ("i x h",)),
          part="the feed-forward network"),
    Blind(name="bp_hardcoded_12_layers", cell="bert_parameters", test_cell="check_bert_parameters",
          source='''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    H, I = hidden, intermediate
    embeddings = (vocab_size + max_position + type_vocab) * H + 2 * H
    per_layer = 4 * (H * H + H) + (H * I + I) + (I * H + H) + 4 * H
    return embeddings + 12 * per_layer + H * H + H
''',
          mistake="Hard-codes BERT-base's 12 layers instead of using the layers argument, so BERT-large's 24 layers are not counted.",
          names_it=(("layers argument",), ("hard-coded",), ("hardcoded",), ("12 layers",), ("24",)),
          part="the number of layers"),
    Blind(name="bp_no_embedding_layernorm", cell="bert_parameters", test_cell="check_bert_parameters",
          source='''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    H, I = hidden, intermediate
    embeddings = vocab_size * H + max_position * H + type_vocab * H
    layer = 4 * (H * H + H) + 2 * H + H * I + I + I * H + H + 2 * H
    pooler = H * H + H
    return embeddings + layers * layer + pooler
''',
          mistake="Forgets the embeddings' LayerNorm (2H: gamma and beta).",
          names_it=(("layernorm",), ("embedding", "2h")),
          part="the embeddings' LayerNorm"),

    # ---------------------------------------------------------------- albert_embedding
    Blind(name="albert_no_projection", cell="albert_embedding", test_cell="check_albert_embedding",
          source='''V, H, E = 30000, 2048, 128
full_embedding = V * H
factorised_embedding = V * E
print(f"V x H = {full_embedding:,}; V x E + E x H = {factorised_embedding:,}")
''',
          mistake="Counts only the small V x E table and forgets the E x H projection matrix.",
          names_it=(("e x h",), ("e * h",), ("projection",)),
          part="the factorised count"),
    Blind(name="albert_bert_hidden", cell="albert_embedding", test_cell="check_albert_embedding",
          source='''V, H, E = 30000, 2048, 128
full_embedding = V * H
factorised_embedding = V * E + E * 768
print(f"V x H = {full_embedding:,}; V x E + E x H = {factorised_embedding:,}")
''',
          mistake="Uses BERT-base's hidden size 768 for the projection instead of the lecture's H = 2048.",
          names_it=(("2048",), ("h = 2048",), ("768",)),
          part="the factorised count"),
    Blind(name="albert_rounded_millions", cell="albert_embedding", test_cell="check_albert_embedding",
          source='''V, H, E = 30000, 2048, 128
full_embedding = 61_000_000        # "about 61M"
factorised_embedding = 4_000_000   # "about 4M"
print(f"V x H = {full_embedding:,}; V x E + E x H = {factorised_embedding:,}")
''',
          mistake="Types in the rounded sizes from the text (61M, 4M) instead of computing the exact numbers V x H and V x E + E x H.",
          names_it=(("exact",), ("round",), ("61,440,000",), ("61440000",)),
          part="computing the counts"),
]

VALID = [
    Blind(name="valid_wordpiece_recursive", cell="wordpiece", test_cell="check_wordpiece",
          source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) > 100:
        return ["[UNK]"]

    def longest(rest, prefix):
        for end in range(len(rest), 0, -1):
            if prefix + rest[:end] in vocab:
                return prefix + rest[:end], rest[end:]
        return None, rest

    pieces, rest, prefix = [], word, ""
    while rest:
        piece, rest = longest(rest, prefix)
        if piece is None:
            return ["[UNK]"]
        pieces.append(piece)
        prefix = "##"
    return pieces
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_pair_scores_fractions", cell="pair_scores", test_cell="check_pair_scores",
          source='''def pair_scores(splits):
    """{(a, b): count(ab) / (count(a) * count(b))} for every pair of neighbouring pieces in the split words."""
    count = {}
    pair = {}
    for split, n in splits.items():
        for i, piece in enumerate(split):
            count[piece] = count.get(piece, 0) + n
            if i + 1 < len(split):
                key = (piece, split[i + 1])
                pair[key] = pair.get(key, 0) + n
    return {key: float(c) / (count[key[0]] * count[key[1]]) for key, c in pair.items()}
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_nsp_copy", cell="nsp_pair", test_cell="check_nsp_pair",
          source='''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
    first = [cls_id, *sentence_a, sep_id]
    second = [*sentence_b, sep_id]
    return [int(t) for t in first + second], [0] * len(first) + [1] * len(second)
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_bert_embeddings_functional", cell="bert_embeddings", test_cell="check_bert_embeddings",
          source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    B, T = input_ids.shape
    position_ids = torch.arange(T, device=input_ids.device).unsqueeze(0).expand(B, T)
    H = weights["word_embeddings"].shape[1]
    x = (weights["word_embeddings"].index_select(0, input_ids.reshape(-1)).view(B, T, H)
         + weights["position_embeddings"].index_select(0, position_ids.reshape(-1)).view(B, T, H)
         + weights["token_type_embeddings"].index_select(0, token_type_ids.reshape(-1)).view(B, T, H))
    var, mean = torch.var_mean(x, dim=-1, keepdim=True, correction=0)
    return (x - mean) * torch.rsqrt(var + 1e-12) * weights["gamma"] + weights["beta"]
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_mask_tokens_where", cell="mask_tokens", test_cell="check_mask_tokens",
          source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    shape = input_ids.shape
    selected = torch.rand(shape, generator=generator) < 0.15
    selected &= ~special_mask
    u = torch.rand(shape, generator=generator)
    random_ids = torch.randint(vocab_size, shape, generator=generator, dtype=input_ids.dtype)
    inputs = torch.where(selected & (u < 0.8), torch.full_like(input_ids, mask_id), input_ids)
    inputs = torch.where(selected & (u >= 0.8) & (u < 0.9), random_ids, inputs)
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, -100))
    return inputs, labels
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_best_span_matrix", cell="best_span", test_cell="check_best_span",
          source='''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    T = start_logits.shape[0]
    scores = start_logits[:, None] + end_logits[None, :]
    idx = torch.arange(T)
    length = idx[None, :] - idx[:, None] + 1
    allowed = (length >= 1) & (length <= max_len)
    scores = scores.masked_fill(~allowed, float("-inf"))
    flat = int(torch.argmax(scores))
    return flat // T, flat % T
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_bert_parameters_parts", cell="bert_parameters", test_cell="check_bert_parameters",
          source='''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    def dense(n_in, n_out):
        return n_in * n_out + n_out

    def layer_norm(n):
        return 2 * n

    embeddings = (vocab_size + max_position + type_vocab) * hidden + layer_norm(hidden)
    layer = (4 * dense(hidden, hidden) + layer_norm(hidden)
             + dense(hidden, intermediate) + dense(intermediate, hidden) + layer_norm(hidden))
    return embeddings + layers * layer + dense(hidden, hidden)
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_albert_factored", cell="albert_embedding", test_cell="check_albert_embedding",
          source='''V, H, E = 30000, 2048, 128
full_embedding = V * H
factorised_embedding = (V + H) * E
print(f"V x H = {full_embedding:,}; V x E + E x H = {factorised_embedding:,}")
''',
          mistake="", names_it=(), part=""),
]

# The same valid answers in blind_case.py's ALTERNATIVES layout ({style: {answer_cell: source}}).
ALTERNATIVES = {case.name: {case.cell: case.source} for case in VALID}
