"""Blind wrong answers and alternative correct answers for 07_bert (written without reading the checks)."""
from blind_case import Blind

NOTEBOOK = "07_bert"

BLIND = [
    # ------------------------------------------------------------------ wordpiece
    Blind(
        name="wordpiece_no_hashes",
        cell="wordpiece",
        source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) > 100:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start and word[start:end] not in vocab:
            end -= 1
        if end == start:
            return ["[UNK]"]
        pieces.append(word[start:end])
        start = end
    return pieces
''',
        test_cell="check_wordpiece",
        mistake="Looks up and returns continuation pieces without the '##' prefix, as if every piece could start a word.",
        names_it=(("##",), ("prefix", "continuation"), ("continuation", "pieces")),
    ),
    Blind(
        name="wordpiece_unk_only_rest",
        cell="wordpiece",
        source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) > 100:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        end, piece = len(word), None
        while start < end:
            candidate = ("##" if start > 0 else "") + word[start:end]
            if candidate in vocab:
                piece = candidate
                break
            end -= 1
        if piece is None:
            pieces.append("[UNK]")
            break
        pieces.append(piece)
        start = end
    return pieces
''',
        test_cell="check_wordpiece",
        mistake="When no piece matches, appends [UNK] after the pieces found so far instead of making the whole word a single [UNK].",
        names_it=(("whole word", "[unk]"), ("entire word",), ("rest of the word",), ("single", "[unk]"), ("pieces", "before", "[unk]")),
    ),
    Blind(
        name="wordpiece_shortest_first",
        cell="wordpiece",
        source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) > 100:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        piece = None
        for end in range(start + 1, len(word) + 1):
            candidate = word[start:end] if start == 0 else "##" + word[start:end]
            if candidate in vocab:
                piece = candidate
                break
        if piece is None:
            return ["[UNK]"]
        pieces.append(piece)
        start = end
    return pieces
''',
        test_cell="check_wordpiece",
        mistake="Takes the shortest matching prefix (growing the candidate from one character) instead of the longest one.",
        names_it=(("longest",), ("shortest",), ("greedy",)),
    ),
    Blind(
        name="wordpiece_no_length_limit",
        cell="wordpiece",
        source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    pieces, start = [], 0
    while start < len(word):
        end, piece = len(word), None
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
        mistake="Forgot rule 1: a word longer than 100 characters must become ['[UNK]'] without being split.",
        names_it=(("100",), ("long", "word"), ("longer",)),
    ),
    Blind(
        name="wordpiece_no_single_chars",
        cell="wordpiece",
        source='''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) > 100:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        end, piece = len(word), None
        while end > start + 1:
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
        mistake="Off by one in the inner loop: stops before trying one-character pieces, so words that need a single-character piece become [UNK].",
        names_it=(("single character",), ("one character",), ("single-character",), ("one-character",), ("length 1",)),
    ),
    # ------------------------------------------------------------------ nsp_pair
    Blind(
        name="nsp_first_sep_in_segment_b",
        cell="nsp_pair",
        source='''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
    input_ids = [cls_id] + sentence_a + [sep_id] + sentence_b + [sep_id]
    token_type_ids = [0] * (len(sentence_a) + 1) + [1] * (len(sentence_b) + 2)
    return input_ids, token_type_ids
''',
        test_cell="check_nsp_pair",
        mistake="Gives the first [SEP] segment id 1 (counts it with sentence B) instead of 0.",
        names_it=(("first [sep]",), ("[sep]", "segment 0"), ("[sep]", "sentence a"), ("shifted", "segment")),
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
        mistake="Leaves out the [SEP] after sentence B (and its segment id).",
        names_it=(("final [sep]",), ("last [sep]",), ("[sep]", "end"), ("[sep]", "missing"), ("second [sep]",)),
    ),
    Blind(
        name="nsp_all_segment_zero",
        cell="nsp_pair",
        source='''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
    input_ids = [cls_id] + sentence_a + [sep_id] + sentence_b + [sep_id]
    token_type_ids = [0 for _ in input_ids]
    return input_ids, token_type_ids
''',
        test_cell="check_nsp_pair",
        mistake="Gives every token segment id 0, so sentence B is not marked as segment 1.",
        names_it=(("sentence b", "segment"), ("segment 1",), ("segment id 1",), ("token_type_ids", "1"), ("all zero",), ("all 0",)),
    ),
    Blind(
        name="nsp_changes_input_lists",
        cell="nsp_pair",
        source='''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
    sentence_a.insert(0, cls_id)
    sentence_a.append(sep_id)
    sentence_b.append(sep_id)
    input_ids = sentence_a + sentence_b
    token_type_ids = [0] * len(sentence_a) + [1] * len(sentence_b)
    return input_ids, token_type_ids
''',
        test_cell="check_nsp_pair",
        mistake="Builds the pair by inserting [CLS]/[SEP] into the given lists in place, so the caller's sentence_a and sentence_b are changed.",
        names_it=(("changed", "list"), ("modif",), ("in place",), ("mutat",), ("changes", "input")),
    ),
    # ------------------------------------------------------------------ bert_embeddings
    Blind(
        name="emb_unbiased_variance",
        cell="bert_embeddings",
        source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    T = input_ids.shape[1]
    positions = torch.arange(T, device=input_ids.device)
    x = (weights["word_embeddings"][input_ids] + weights["position_embeddings"][positions]
         + weights["token_type_embeddings"][token_type_ids])
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True)
    return weights["gamma"] * (x - mean) / torch.sqrt(var + 1e-12) + weights["beta"]
''',
        test_cell="check_bert_embeddings",
        mistake="Uses torch.var's default unbiased variance (dividing by H - 1) in the LayerNorm instead of dividing by H.",
        names_it=(("unbiased",), ("h - 1",), ("h-1",), ("n - 1",), ("bessel",), ("correction",)),
    ),
    Blind(
        name="emb_positions_from_one",
        cell="bert_embeddings",
        source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    B, T = input_ids.shape
    positions = torch.arange(1, T + 1)
    x = (weights["word_embeddings"][input_ids] + weights["position_embeddings"][positions]
         + weights["token_type_embeddings"][token_type_ids])
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return weights["gamma"] * (x - mean) / torch.sqrt(var + 1e-12) + weights["beta"]
''',
        test_cell="check_bert_embeddings",
        mistake="Numbers the positions from 1 instead of 0, so every token gets the position vector of the next position.",
        names_it=(("position", "shifted"), ("position", "off by one"), ("position", "from 0"), ("position", "start at 0"), ("positions", "1")),
    ),
    Blind(
        name="emb_no_segment",
        cell="bert_embeddings",
        source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    T = input_ids.shape[1]
    x = weights["word_embeddings"][input_ids] + weights["position_embeddings"][:T]
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return weights["gamma"] * (x - mean) / torch.sqrt(var + 1e-12) + weights["beta"]
''',
        test_cell="check_bert_embeddings",
        mistake="Leaves out the segment (token type) embedding from the sum.",
        names_it=(("segment",), ("token_type",), ("token type",)),
    ),
    Blind(
        name="emb_norm_over_tokens",
        cell="bert_embeddings",
        source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    T = input_ids.shape[1]
    x = (weights["word_embeddings"][input_ids] + weights["position_embeddings"][torch.arange(T)]
         + weights["token_type_embeddings"][token_type_ids])
    mean = x.mean(dim=1, keepdim=True)
    var = x.var(dim=1, unbiased=False, keepdim=True)
    return weights["gamma"] * (x - mean) / torch.sqrt(var + 1e-12) + weights["beta"]
''',
        test_cell="check_bert_embeddings",
        mistake="Takes the LayerNorm's mean and variance over the token axis (dim=1) instead of the hidden dimension.",
        names_it=(("hidden", "dimension"), ("hidden", "axis"), ("over", "tokens"), ("token axis",), ("wrong axis",), ("dim=1",), ("dim=-1",)),
    ),
    Blind(
        name="emb_norm_before_sum",
        cell="bert_embeddings",
        source='''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    T = input_ids.shape[1]
    words = weights["word_embeddings"][input_ids]
    mean = words.mean(dim=-1, keepdim=True)
    var = ((words - mean) ** 2).mean(dim=-1, keepdim=True)
    normed = weights["gamma"] * (words - mean) / torch.sqrt(var + 1e-12) + weights["beta"]
    return normed + weights["position_embeddings"][torch.arange(T)] + weights["token_type_embeddings"][token_type_ids]
''',
        test_cell="check_bert_embeddings",
        mistake="Applies the LayerNorm to the word embeddings only and adds the position and segment embeddings after it.",
        names_it=(("layernorm", "after"), ("layernorm", "sum"), ("normalis", "sum"), ("normaliz", "sum"), ("order",)),
    ),
    # ------------------------------------------------------------------ mask_tokens
    Blind(
        name="mask_labels_only_at_mask",
        cell="mask_tokens",
        source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    inputs = input_ids.clone()
    labels = torch.full_like(input_ids, -100)
    selected = (torch.rand(input_ids.shape, generator=generator) < 0.15) & ~special_mask
    u = torch.rand(input_ids.shape, generator=generator)
    masked = selected & (u < 0.8)
    randomised = selected & (u >= 0.8) & (u < 0.9)
    random_ids = torch.randint(vocab_size, input_ids.shape, generator=generator, dtype=input_ids.dtype)
    inputs[masked] = mask_id
    inputs[randomised] = random_ids[randomised]
    labels[masked] = input_ids[masked]
    return inputs, labels
''',
        test_cell="check_mask_tokens",
        mistake="Puts labels only at the [MASK] positions; the random and unchanged selected tokens get -100 although they must be predicted too.",
        names_it=(("labels", "random"), ("labels", "unchanged"), ("labels", "selected"), ("every selected",), ("all selected",)),
    ),
    Blind(
        name="mask_random_overwrites_mask",
        cell="mask_tokens",
        source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    inputs, labels = input_ids.clone(), input_ids.clone()
    selected = (torch.rand(input_ids.shape, generator=generator) < 0.15) & ~special_mask
    labels[~selected] = -100
    u = torch.rand(input_ids.shape, generator=generator)
    inputs[selected & (u < 0.8)] = mask_id
    random_ids = torch.randint(vocab_size, input_ids.shape, generator=generator, dtype=input_ids.dtype)
    randomised = selected & (u < 0.9)
    inputs[randomised] = random_ids[randomised]
    return inputs, labels
''',
        test_cell="check_mask_tokens",
        mistake="Tests the random branch with u < 0.9 instead of 0.8 <= u < 0.9, so it overwrites the [MASK]s: 90% random, almost no [MASK].",
        names_it=(("80%", "[mask]"), ("[mask]", "rate"), ("random", "90%"), ("too few", "[mask]"), ("0.8",)),
    ),
    Blind(
        name="mask_selects_specials",
        cell="mask_tokens",
        source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    inputs, labels = input_ids.clone(), input_ids.clone()
    selected = torch.rand(input_ids.shape, generator=generator) < 0.15
    labels[~selected] = -100
    u = torch.rand(input_ids.shape, generator=generator)
    random_ids = torch.randint(vocab_size, input_ids.shape, generator=generator, dtype=input_ids.dtype)
    inputs[selected & (u < 0.8)] = mask_id
    to_random = selected & (u >= 0.8) & (u < 0.9)
    inputs[to_random] = random_ids[to_random]
    return inputs, labels
''',
        test_cell="check_mask_tokens",
        mistake="Ignores special_mask, so [CLS], [SEP] and padding can be selected, masked and labelled.",
        names_it=(("special",), ("[cls]",), ("[sep]",), ("padding",)),
    ),
    Blind(
        name="mask_selects_85_percent",
        cell="mask_tokens",
        source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    inputs, labels = input_ids.clone(), input_ids.clone()
    selected = (torch.rand(input_ids.shape, generator=generator) > 0.15) & ~special_mask
    labels[~selected] = -100
    u = torch.rand(input_ids.shape, generator=generator)
    random_ids = torch.randint(vocab_size, input_ids.shape, generator=generator, dtype=input_ids.dtype)
    inputs[selected & (u < 0.8)] = mask_id
    to_random = selected & (u >= 0.8) & (u < 0.9)
    inputs[to_random] = random_ids[to_random]
    return inputs, labels
''',
        test_cell="check_mask_tokens",
        mistake="Compares the draw the wrong way round (rand > 0.15), so 85% of the tokens are selected instead of 15%.",
        names_it=(("15%",), ("85%",), ("0.15",), ("selection rate",), ("selected", "rate")),
    ),
    Blind(
        name="mask_not_seeded",
        cell="mask_tokens",
        source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    inputs, labels = input_ids.clone(), input_ids.clone()
    selected = (torch.rand(input_ids.shape) < 0.15) & ~special_mask
    labels[~selected] = -100
    u = torch.rand(input_ids.shape)
    random_ids = torch.randint(vocab_size, input_ids.shape, dtype=input_ids.dtype)
    inputs[selected & (u < 0.8)] = mask_id
    to_random = selected & (u >= 0.8) & (u < 0.9)
    inputs[to_random] = random_ids[to_random]
    return inputs, labels
''',
        test_cell="check_mask_tokens",
        mistake="Draws the random numbers from torch's global generator instead of `generator`, so the same seed does not give the same masks.",
        names_it=(("generator",), ("seed",), ("reproducib",), ("same masks",)),
    ),
    Blind(
        name="mask_changes_input_ids",
        cell="mask_tokens",
        source='''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    labels = input_ids.clone()
    inputs = input_ids
    selected = (torch.rand(input_ids.shape, generator=generator) < 0.15) & ~special_mask
    labels[~selected] = -100
    u = torch.rand(input_ids.shape, generator=generator)
    random_ids = torch.randint(vocab_size, input_ids.shape, generator=generator, dtype=input_ids.dtype)
    inputs[selected & (u < 0.8)] = mask_id
    to_random = selected & (u >= 0.8) & (u < 0.9)
    inputs[to_random] = random_ids[to_random]
    return inputs, labels
''',
        test_cell="check_mask_tokens",
        mistake="Writes the corruption into input_ids itself (inputs = input_ids without .clone()), so the caller's input_ids are changed.",
        names_it=(("changed", "input_ids"), ("modif",), ("in place",), ("clone",), ("mutat",)),
    ),
    # ------------------------------------------------------------------ best_span
    Blind(
        name="span_max_len_off_by_one",
        cell="best_span",
        source='''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    T = len(start_logits)
    best, best_score = None, float("-inf")
    for start in range(T):
        for end in range(start, min(T, start + max_len + 1)):
            score = float(start_logits[start] + end_logits[end])
            if score > best_score:
                best, best_score = (start, end), score
    return best
''',
        test_cell="check_best_span",
        mistake="Off by one in the length limit: allows spans of max_len + 1 tokens (end - start <= max_len).",
        names_it=(("max_len", "+ 1"), ("max_len + 1",), ("max_len", "too long"), ("longer than", "max_len"), ("max_len", "off by one")),
    ),
    Blind(
        name="span_greedy_start",
        cell="best_span",
        source='''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    start = int(start_logits.argmax())
    window = end_logits[start:start + max_len]
    end = start + int(window.argmax())
    return start, end
''',
        test_cell="check_best_span",
        mistake="Fixes the start at the argmax of the start logits and only searches the end after it; the best pair can have another start.",
        names_it=(("argmax", "start"), ("best start",), ("start", "fixed"), ("jointly",), ("pair",)),
    ),
    Blind(
        name="span_end_exclusive",
        cell="best_span",
        source='''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    T = len(start_logits)
    best, best_score = None, float("-inf")
    for start in range(T):
        for end in range(start, min(T, start + max_len)):
            score = float(start_logits[start] + end_logits[end])
            if score > best_score:
                best, best_score = (start, end + 1), score
    return best
''',
        test_cell="check_best_span",
        mistake="Returns the end as an exclusive slice bound (end + 1) instead of the index of the last token of the span.",
        names_it=(("end", "included"), ("end", "inclusive"), ("end", "exclusive"), ("end", "+ 1"), ("end", "one past")),
    ),
    Blind(
        name="span_misses_last_token",
        cell="best_span",
        source='''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    T = start_logits.shape[0]
    best, best_score = (0, 0), float("-inf")
    for start in range(T):
        for end in range(start, min(T - 1, start + max_len)):
            score = (start_logits[start] + end_logits[end]).item()
            if score > best_score:
                best, best_score = (start, end), score
    return best
''',
        test_cell="check_best_span",
        mistake="Clamps the end with min(T - 1, ...) as an exclusive range bound, so the last token can never be the end (or the start) of the span.",
        names_it=(("last token",), ("last position",), ("end", "t - 1"), ("final token",)),
    ),
    # ------------------------------------------------------------------ bert_parameters
    Blind(
        name="params_no_pooler",
        cell="bert_parameters",
        source='''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    H, I = hidden, intermediate
    embeddings = (vocab_size + max_position + type_vocab) * H + 2 * H
    layer = 4 * (H * H + H) + 2 * H + (H * I + I) + (I * H + H) + 2 * H
    return embeddings + layers * layer
''',
        test_cell="check_bert_parameters",
        mistake="Leaves out the pooler (the dense H x H layer with its bias on [CLS]).",
        names_it=(("pooler",),),
    ),
    Blind(
        name="params_attention_no_bias",
        cell="bert_parameters",
        source='''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    embeddings = (vocab_size + max_position + type_vocab) * hidden + 2 * hidden
    attention = 4 * hidden * hidden
    feed_forward = hidden * intermediate + intermediate + intermediate * hidden + hidden
    layer_norms = 2 * 2 * hidden
    pooler = hidden * hidden + hidden
    return embeddings + layers * (attention + feed_forward + layer_norms) + pooler
''',
        test_cell="check_bert_parameters",
        mistake="Counts the four attention projections as H x H matrices without their biases.",
        names_it=(("attention", "bias"), ("projection", "bias"), ("4h",), ("4 * h",), ("4 biases",)),
    ),
    Blind(
        name="params_one_layernorm_per_layer",
        cell="bert_parameters",
        source='''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    H, I = hidden, intermediate
    embeddings = (vocab_size + max_position + type_vocab) * H + 2 * H
    layer = 4 * (H * H + H) + (H * I + I) + (I * H + H) + 2 * H
    pooler = H * H + H
    return embeddings + layers * layer + pooler
''',
        test_cell="check_bert_parameters",
        mistake="Counts only one LayerNorm (2H) per layer instead of two: the one after attention is missing.",
        names_it=(("layernorm",), ("layer norm",)),
    ),
    Blind(
        name="params_no_position_segment",
        cell="bert_parameters",
        source='''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    H, I = hidden, intermediate
    embeddings = vocab_size * H + 2 * H
    layer = 4 * (H * H + H) + 2 * H + (H * I + I) + (I * H + H) + 2 * H
    pooler = H * H + H
    return embeddings + layers * layer + pooler
''',
        test_cell="check_bert_parameters",
        mistake="Counts only the word embedding table and forgets the position and segment embedding tables ((P + S) x H).",
        names_it=(("position",), ("segment",), ("max_position",), ("type_vocab",)),
    ),
    # ------------------------------------------------------------------ albert_embedding
    Blind(
        name="albert_no_projection",
        cell="albert_embedding",
        source='''V, H, E = 30000, 2048, 128
full_embedding = V * H
factorised_embedding = V * E
print(f"V x H = {full_embedding:,}; V x E + E x H = {factorised_embedding:,}")
''',
        test_cell="check_albert_embedding",
        mistake="Counts only the small V x E table and forgets the E x H projection.",
        names_it=(("e x h",), ("e × h",), ("e * h",), ("projection",)),
    ),
    Blind(
        name="albert_in_millions",
        cell="albert_embedding",
        source='''V, H, E = 30000, 2048, 128
full_embedding = V * H / 1e6
factorised_embedding = (V * E + E * H) / 1e6
print(f"V x H = {full_embedding:,}; V x E + E x H = {factorised_embedding:,}")
''',
        test_cell="check_albert_embedding",
        mistake="Gives both counts in millions (divided by 1e6) instead of the exact numbers of parameters.",
        names_it=(("million",), ("exact",), ("1e6",), ("10^6",)),
    ),
    Blind(
        name="albert_wrong_projection_shape",
        cell="albert_embedding",
        source='''V, H, E = 30000, 2048, 128
full_embedding = V * H
factorised_embedding = V * E + E * E
print(f"V x H = {full_embedding:,}; V x E + E x H = {factorised_embedding:,}")
''',
        test_cell="check_albert_embedding",
        mistake="Writes the projection as E x E instead of E x H.",
        names_it=(("e x h",), ("e × h",), ("e * h",), ("projection",)),
    ),
]

ALTERNATIVES = {
    "loops_and_slices": {
        "wordpiece": '''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    if len(word) > 100:
        return ["[UNK]"]
    out = []
    rest = word
    first = True
    while rest:
        for cut in range(len(rest), 0, -1):
            piece = rest[:cut] if first else "##" + rest[:cut]
            if piece in vocab:
                out.append(piece)
                rest = rest[cut:]
                first = False
                break
        else:
            return ["[UNK]"]
    return out
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
        "best_span": '''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    s, e = start_logits.tolist(), end_logits.tolist()
    candidates = [(s[i] + e[j], -i, -j) for i in range(len(s)) for j in range(i, min(len(s), i + max_len))]
    score, i, j = max(candidates)
    return -i, -j
''',
        "bert_parameters": '''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    def linear(n_in, n_out):
        return n_in * n_out + n_out

    def layer_norm(n):
        return 2 * n

    total = vocab_size * hidden + max_position * hidden + type_vocab * hidden + layer_norm(hidden)
    for _ in range(layers):
        total += sum(linear(hidden, hidden) for _ in range(4)) + layer_norm(hidden)
        total += linear(hidden, intermediate) + linear(intermediate, hidden) + layer_norm(hidden)
    total += linear(hidden, hidden)
    return total
''',
        "albert_embedding": '''V, H, E = 30000, 2048, 128
full_embedding = int(V) * int(H)
factorised_embedding = E * (V + H)
print(f"V x H = {full_embedding:,}; V x E + E x H = {factorised_embedding:,}")
''',
    },
    "tensor_ops": {
        "nsp_pair": '''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
    first = [cls_id, *sentence_a, sep_id]
    second = [*sentence_b, sep_id]
    return first + second, [0 for _ in first] + [1 for _ in second]
''',
        "bert_embeddings": '''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    word_table, position_table, type_table = (weights[k] for k in ("word_embeddings", "position_embeddings",
                                                                   "token_type_embeddings"))
    B, T = input_ids.shape
    positions = torch.arange(T, device=input_ids.device).unsqueeze(0).expand(B, T)
    x = nn.functional.embedding(input_ids, word_table) + nn.functional.embedding(positions, position_table) \\
        + nn.functional.embedding(token_type_ids, type_table)
    centred = x - x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    return centred * torch.rsqrt(var + 1e-12) * weights["gamma"] + weights["beta"]
''',
        "mask_tokens": '''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    shape = input_ids.shape
    selected = torch.rand(shape, generator=generator).lt(0.15).logical_and(special_mask.logical_not())
    u = torch.rand(shape, generator=generator)
    random_ids = torch.randint(0, vocab_size, shape, generator=generator).to(input_ids.dtype)
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, -100))
    inputs = torch.where(selected & (u < 0.8), torch.full_like(input_ids, mask_id), input_ids)
    inputs = torch.where(selected & (u >= 0.8) & (u < 0.9), random_ids, inputs)
    return inputs, labels
''',
        "best_span": '''def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    T = start_logits.shape[0]
    scores = start_logits[:, None] + end_logits[None, :]  # (T, T): rows start, columns end
    i = torch.arange(T)
    allowed = (i[None, :] >= i[:, None]) & (i[None, :] - i[:, None] < max_len)
    scores = scores.masked_fill(~allowed, float("-inf"))
    flat = int(scores.flatten().argmax())
    return flat // T, flat % T
''',
    },
    "hf_style_masking": {
        "mask_tokens": '''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    labels = input_ids.clone()
    inputs = input_ids.clone()
    probability = torch.full(labels.shape, 0.15)
    probability.masked_fill_(special_mask, 0.0)
    selected = torch.bernoulli(probability, generator=generator).bool()
    labels[~selected] = -100
    replaced = torch.bernoulli(torch.full(labels.shape, 0.8), generator=generator).bool() & selected
    inputs[replaced] = mask_id
    randomised = torch.bernoulli(torch.full(labels.shape, 0.5), generator=generator).bool() & selected & ~replaced
    random_words = torch.randint(vocab_size, labels.shape, generator=generator, dtype=input_ids.dtype)
    inputs[randomised] = random_words[randomised]
    return inputs, labels
''',
        "bert_embeddings": '''def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    T = input_ids.shape[-1]
    x = weights["word_embeddings"][input_ids]
    x = x + weights["position_embeddings"][:T].unsqueeze(0)
    x = x + weights["token_type_embeddings"][token_type_ids]
    H = x.shape[-1]
    mean = x.sum(dim=2, keepdim=True) / H
    var = ((x - mean) * (x - mean)).sum(dim=2, keepdim=True) / H
    normed = (x - mean) / (var + 1e-12).sqrt()
    return normed * weights["gamma"] + weights["beta"]
''',
        "albert_embedding": '''V, H, E = 30000, 2048, 128
full_embedding = H * V
word_vectors, projection = V * E, E * H
factorised_embedding = word_vectors + projection
print(f"V x H = {full_embedding:,}; V x E + E x H = {factorised_embedding:,}")
''',
        "bert_parameters": '''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    per_layer = 4 * hidden * hidden + 2 * hidden * intermediate + 9 * hidden + intermediate
    return (vocab_size + max_position + type_vocab + 2) * hidden + layers * per_layer + hidden * hidden + hidden
''',
        "wordpiece": '''def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    chars = list(word)
    if len(chars) > 100:
        return ["[UNK]"]
    tokens, start = [], 0
    while start < len(chars):
        found = None
        for end in reversed(range(start + 1, len(chars) + 1)):
            sub = "".join(chars[start:end])
            if start:
                sub = f"##{sub}"
            if sub in vocab:
                found = (sub, end)
                break
        if found is None:
            return ["[UNK]"]
        tokens.append(found[0])
        start = found[1]
    return tokens
''',
    },
}
