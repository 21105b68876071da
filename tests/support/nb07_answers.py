"""Answers to notebook 07 for testing its checks: right ones written differently, and known mistakes."""
from answer_catalogue import Wrong

NOTEBOOK = "07_bert"

_WORDPIECE = '''def wordpiece(word, vocab):
    if len(word) {limit}:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        piece = None
        while end > start:
            candidate = {candidate}
            if candidate in vocab:
                piece = candidate
                break
            end -= 1
        if piece is None:
            {unknown}
        pieces.append(piece)
        start = end
    return pieces
'''


def wordpiece_source(limit="> 100", candidate='word[start:end] if start == 0 else "##" + word[start:end]',
                     unknown='return ["[UNK]"]'):
    return _WORDPIECE.format(limit=limit, candidate=candidate, unknown=unknown)


_SHORTEST_FIRST = '''def wordpiece(word, vocab):
    if len(word) > 100:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        for end in range(start + 1, len(word) + 1):
            candidate = word[start:end] if start == 0 else "##" + word[start:end]
            if candidate in vocab:
                break
        else:
            return ["[UNK]"]
        pieces.append(candidate)
        start = end
    return pieces
'''

_PAIR_SCORES = '''def pair_scores(splits):
    pieces, pairs = {{}}, {{}}
    for split, count in splits.items():
        for piece in {pieces_of}:
            pieces[piece] = pieces.get(piece, 0) + {piece_weight}
        for a, b in zip(split, split[1:]):
            pairs[a, b] = pairs.get((a, b), 0) + {pair_weight}
    return {{(a, b): {score} for (a, b), n in pairs.items()}}
'''


def pair_scores_source(pieces_of="split", piece_weight="count", pair_weight="count",
                       score="n / (pieces[a] * pieces[b])"):
    return _PAIR_SCORES.format(pieces_of=pieces_of, piece_weight=piece_weight, pair_weight=pair_weight, score=score)


_MASK = '''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    shape, device = input_ids.shape, input_ids.device
    selected = {selected}
    u = {u}
    random_ids = torch.randint({random_high}, shape, generator=generator, device=device, dtype=input_ids.dtype)
    inputs = torch.where(selected & (u < {p_mask}), torch.full_like(input_ids, mask_id), input_ids)
    inputs = torch.where(selected & (u >= {p_mask}) & (u < {p_random}), random_ids, inputs)
    labels = {labels}
    return inputs, labels
'''


def mask_source(selected="(torch.rand(shape, generator=generator, device=device) < 0.15) & ~special_mask",
                u="torch.rand(shape, generator=generator, device=device)", random_high="vocab_size", p_mask="0.8",
                p_random="0.9", labels="torch.where(selected, input_ids, torch.full_like(input_ids, -100))"):
    return _MASK.format(selected=selected, u=u, random_high=random_high, p_mask=p_mask, p_random=p_random,
                        labels=labels)


_NSP = '''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    input_ids = {ids}
    token_type_ids = {types}
    return input_ids, token_type_ids
'''


def nsp_source(ids="[cls_id] + list(sentence_a) + [sep_id] + list(sentence_b) + [sep_id]",
               types="[0] * (len(sentence_a) + 2) + [1] * (len(sentence_b) + 1)"):
    return _NSP.format(ids=ids, types=types)


_EMBEDDINGS = '''def bert_embeddings(input_ids, token_type_ids, weights):
    T = input_ids.shape[1]
    positions = {positions}
    x = weights["word_embeddings"][input_ids] + {position_term} + {type_term}
    mean = x.mean(dim=-1, keepdim=True)
    var = {var}
    return {ret}
'''


def embeddings_source(positions="torch.arange(T)", position_term='weights["position_embeddings"][positions]',
                      type_term='weights["token_type_embeddings"][token_type_ids]',
                      var="((x - mean) ** 2).mean(dim=-1, keepdim=True)",
                      ret='weights["gamma"] * (x - mean) / torch.sqrt(var + 1e-12) + weights["beta"]'):
    return _EMBEDDINGS.format(positions=positions, position_term=position_term, type_term=type_term, var=var, ret=ret)


_SPAN = '''def best_span(start_logits, end_logits, max_len):
    T = start_logits.shape[0]
    best, answer = -float("inf"), None
    for i in range(T):
        for j in range(T):
            if {condition}:
                continue
            score = float(start_logits[i] + end_logits[j])
            if score > best:
                best, answer = score, (i, j)
    return answer
'''


def span_source(condition="j < i or j - i + 1 > max_len"):
    return _SPAN.format(condition=condition)


_PARAMS = '''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    H, I = hidden, intermediate
    embeddings = {embeddings}
    attention = {attention}
    feed_forward = {feed_forward}
    pooler = {pooler}
    return embeddings + layers * (attention + feed_forward) + pooler
'''


def params_source(embeddings="(vocab_size + max_position + type_vocab) * H + 2 * H", attention="4 * (H * H + H) + 2 * H",
                  feed_forward="(H * I + I) + (I * H + H) + 2 * H", pooler="H * H + H"):
    return _PARAMS.format(embeddings=embeddings, attention=attention, feed_forward=feed_forward, pooler=pooler)


def albert_source(full="V * H", factorised="V * E + E * H"):
    return (f"V, H, E = 30000, 2048, 128\nfull_embedding = {full}\nfactorised_embedding = {factorised}\n"
            'print(f"V x H = {full_embedding:,}; V x E + E x H = {factorised_embedding:,}")\n')


WRONG = [
    Wrong("pairs_frequency", "pair_scores", pair_scores_source(score="n"), "check_pair_scores", "BPE's rule"),
    Wrong("pairs_likelihood_gain", "pair_scores", '''def pair_scores(splits):
    import math
    pieces, merges = {}, {}
    for split, count in splits.items():
        for piece in split:
            pieces[piece] = pieces.get(piece, 0) + count
        for pair in set(zip(split, split[1:])):
            k, i = 0, 0
            while i + 1 < len(split):  # left to right, no overlap
                if (split[i], split[i + 1]) == pair:
                    k, i = k + 1, i + 2
                else:
                    i += 1
            merges[pair] = merges.get(pair, 0) + k * count
    total = sum(pieces.values())

    def xlogx(x):
        return x * math.log(x) if x > 0 else 0.0

    scores = {}
    for (a, b), m in merges.items():
        change = {a: -m}
        change[b] = change.get(b, 0) - m
        new = a + b.removeprefix("##")
        change[new] = change.get(new, 0) + m
        gain = sum(xlogx(pieces.get(p, 0) + d) - xlogx(pieces.get(p, 0)) for p, d in change.items())
        scores[a, b] = gain - xlogx(total - m) + xlogx(total)
    return scores
''', "check_pair_scores", "log-likelihood gains of the merges"),
    Wrong("pairs_sum", "pair_scores", pair_scores_source(score="n / (pieces[a] + pieces[b])"), "check_pair_scores",
          "count(a) + count(b)"),
    Wrong("pairs_unweighted", "pair_scores", pair_scores_source(piece_weight="1", pair_weight="1"), "check_pair_scores",
          "you count each word once"),
    Wrong("pairs_pieces_once", "pair_scores", pair_scores_source(pieces_of="set(split)"), "check_pair_scores",
          "count it once per word"),
    Wrong("pairs_last_piece", "pair_scores", pair_scores_source(pieces_of="split[:-1]"), "check_pair_scores",
          "the last one too"),
    Wrong("pairs_conditional", "pair_scores", pair_scores_source(score="n / pieces[a]"), "check_pair_scores",
          "by count(a) only"),
    Wrong("pairs_probabilities", "pair_scores",
          pair_scores_source(score="(n / sum(pieces.values())) / ((pieces[a] / sum(pieces.values())) * "
                                   "(pieces[b] / sum(pieces.values())))"), "check_pair_scores", "times the right one"),
    Wrong("pairs_merged_keys", "pair_scores",
          "def pair_scores(splits):\n"
          "    scores = {}\n"
          "    for (a, b), value in plain(splits).items():\n"
          "        scores[a + b.removeprefix('##')] = value\n"
          "    return scores\n"
          "def plain(splits):\n" + pair_scores_source().split("\n", 1)[1], "check_pair_scores", "keys must be pairs"),
    Wrong("pairs_best_only", "pair_scores",
          "def pair_scores(splits):\n"
          "    scores = plain(splits)\n"
          "    return max(scores, key=scores.get)\n"
          "def plain(splits):\n" + pair_scores_source().split("\n", 1)[1], "check_pair_scores", "the single pair"),
    Wrong("pairs_across_words", "pair_scores", '''def pair_scores(splits):
    text = []
    for word, count in splits.items():
        text.extend(list(word) * count)
    pieces, pairs = {}, {}
    for piece in text:
        pieces[piece] = pieces.get(piece, 0) + 1
    for a, b in zip(text, text[1:]):
        pairs[a, b] = pairs.get((a, b), 0) + 1
    return {(a, b): n / (pieces[a] * pieces[b]) for (a, b), n in pairs.items()}
''', "check_pair_scores", "only with the one right after it in the same word"),
    Wrong("pairs_prefix_stripped", "pair_scores", '''def pair_scores(splits):
    pieces, pairs = {}, {}
    for split, count in splits.items():
        for piece in split:
            pieces[piece.lstrip("#")] = pieces.get(piece.lstrip("#"), 0) + count
        for a, b in zip(split, split[1:]):
            pairs[a, b] = pairs.get((a, b), 0) + count
    return {(a, b): n / (pieces[a.lstrip("#")] * pieces[b.lstrip("#")]) for (a, b), n in pairs.items()}
''', "check_pair_scores", "its '##' form"),
    Wrong("pairs_pieces_from_pairs", "pair_scores", '''def pair_scores(splits):
    pieces, pairs = {}, {}
    for split, count in splits.items():
        for a, b in zip(split, split[1:]):
            pairs[a, b] = pairs.get((a, b), 0) + count
            pieces[a] = pieces.get(a, 0) + count
            pieces[b] = pieces.get(b, 0) + count
    return {(a, b): n / (pieces[a] * pieces[b]) for (a, b), n in pairs.items()}
''', "check_pair_scores", "counts twice (it is in two pairs)"),
    Wrong("pairs_skip_last_pair", "pair_scores", pair_scores_source().replace("zip(split, split[1:])",
                                                                              "zip(split[:-1], split[1:-1])"),
          "check_pair_scores", "pairs of neighbouring pieces are missing"),
    Wrong("wordpiece_shortest_first", "wordpiece", _SHORTEST_FIRST, "check_wordpiece", "shortest matching piece first"),
    Wrong("wordpiece_no_hashes", "wordpiece", wordpiece_source(candidate="word[start:end]"), "check_wordpiece",
          "must start with '##'"),
    Wrong("wordpiece_hash_on_first", "wordpiece", wordpiece_source(candidate='"##" + word[start:end]'),
          "check_wordpiece", "'##' on the first piece too"),
    Wrong("wordpiece_partial", "wordpiece", wordpiece_source(unknown="return pieces"), "check_wordpiece",
          "return the pieces found so far"),
    Wrong("wordpiece_unk_for_rest", "wordpiece", wordpiece_source(unknown='return pieces + ["[UNK]"]'),
          "check_wordpiece", "after the pieces found so far"),
    Wrong("wordpiece_no_limit", "wordpiece", wordpiece_source(limit="> 10 ** 9"), "check_wordpiece",
          "longer than 100 characters must give"),
    Wrong("wordpiece_limit_off_by_one", "wordpiece", wordpiece_source(limit=">= 100"), "check_wordpiece",
          "exactly 100 characters"),
    Wrong("wordpiece_empty_unknown", "wordpiece", wordpiece_source(unknown="return []"), "check_wordpiece",
          "not an empty list"),
    Wrong("nsp_no_last_sep", "nsp_pair", nsp_source(ids="[cls_id] + list(sentence_a) + [sep_id] + list(sentence_b)",
                                                    types="[0] * (len(sentence_a) + 2) + [1] * len(sentence_b)"),
          "check_nsp_pair", "final [SEP] after sentence B is missing"),
    Wrong("nsp_sep_in_b", "nsp_pair", nsp_source(types="[0] * (len(sentence_a) + 1) + [1] * (len(sentence_b) + 2)"),
          "check_nsp_pair", "belongs to segment A"),
    Wrong("nsp_all_zero", "nsp_pair", nsp_source(types="[0] * (len(sentence_a) + len(sentence_b) + 3)"),
          "check_nsp_pair", "every token type is 0"),
    Wrong("nsp_no_cls", "nsp_pair", nsp_source(ids="list(sentence_a) + [sep_id] + list(sentence_b) + [sep_id]",
                                               types="[0] * (len(sentence_a) + 1) + [1] * (len(sentence_b) + 1)"),
          "check_nsp_pair", "[CLS] at the start is missing"),
    Wrong("nsp_mutates", "nsp_pair", "def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):\n"
          "    n_a = len(sentence_a)\n"
          "    sentence_a.insert(0, cls_id)\n    sentence_a.append(sep_id)\n"
          "    ids = sentence_a + sentence_b + [sep_id]\n"
          "    return ids, [0] * (n_a + 2) + [1] * (len(sentence_b) + 1)\n",
          "check_nsp_pair", "changed its argument `sentence_a` in place: its length went"),
    Wrong("nsp_hardcoded_ids", "nsp_pair", nsp_source(ids="[101] + list(sentence_a) + [102] + list(sentence_b) + [102]"),
          "check_nsp_pair", "use the arguments cls_id and sep_id"),
    Wrong("embeddings_no_positions", "bert_embeddings", embeddings_source(position_term="0"), "check_bert_embeddings",
          "position embeddings are missing"),
    Wrong("embeddings_from_one", "bert_embeddings", embeddings_source(positions="torch.arange(1, T + 1)"),
          "check_bert_embeddings", "positions start at 1"),
    Wrong("embeddings_no_segments", "bert_embeddings", embeddings_source(type_term="0"), "check_bert_embeddings",
          "segment (token type) embeddings are missing"),
    Wrong("embeddings_eps", "bert_embeddings",
          embeddings_source(ret='weights["gamma"] * (x - mean) / torch.sqrt(var + 1e-5) + weights["beta"]'),
          "check_bert_embeddings", "eps = 1e-5"),
    Wrong("embeddings_unbiased", "bert_embeddings", embeddings_source(var="x.var(dim=-1, keepdim=True)"),
          "check_bert_embeddings", "unbiased variance"),
    Wrong("embeddings_no_norm", "bert_embeddings", embeddings_source(ret="x"), "check_bert_embeddings",
          "LayerNorm is missing"),
    Wrong("mask_specials", "mask_tokens", mask_source(selected="torch.rand(shape, generator=generator) < 0.15"),
          "check_mask_tokens", "never masked"),
    Wrong("mask_labels_everywhere", "mask_tokens", mask_source(labels="input_ids.clone()"), "check_mask_tokens",
          "must be -100 wherever"),
    Wrong("mask_all_mask", "mask_tokens", mask_source(p_mask="1.01", p_random="1.02"), "check_mask_tokens",
          "every selected token became [MASK]"),
    Wrong("mask_labels_corrupted", "mask_tokens",
          mask_source(labels="torch.where(selected, inputs, torch.full_like(input_ids, -100))"), "check_mask_tokens",
          "labels are the corrupted inputs"),
    Wrong("mask_global_rng", "mask_tokens",
          mask_source(selected="(torch.rand(shape) < 0.15) & ~special_mask", u="torch.rand(shape)"),
          "check_mask_tokens", "from the `generator` argument"),
    Wrong("mask_labels_only_masked", "mask_tokens",
          mask_source(labels="torch.where(inputs == mask_id, input_ids, torch.full_like(input_ids, -100))"),
          "check_mask_tokens", "mark only the positions that became [MASK]"),
    Wrong("mask_independent_draws", "mask_tokens",
          mask_source(p_random="0.82"), "check_mask_tokens", "became random"),
    Wrong("mask_fifteen_percent_of_all", "mask_tokens",
          mask_source(selected="(torch.rand(shape, generator=generator) < 0.15 * special_mask.numel() / "
                               "(~special_mask).sum()) & ~special_mask"),
          "check_mask_tokens", "15% of ALL positions"),
    Wrong("mask_random_range", "mask_tokens", mask_source(random_high="1000"), "check_mask_tokens",
          "uniformly from the whole vocabulary"),
    Wrong("span_argmax", "best_span", "def best_span(start_logits, end_logits, max_len):\n"
          "    return int(start_logits.argmax()), int(end_logits.argmax())\n", "check_best_span",
          "argmax of the start and end logits separately"),
    Wrong("span_ignores_max_len", "best_span", span_source(condition="j < i"), "check_best_span", "you ignore max_len"),
    Wrong("span_one_too_long", "best_span", span_source(condition="j < i or j - i > max_len"), "check_best_span",
          "one more than max_len"),
    Wrong("span_one_too_short", "best_span", span_source(condition="j < i or j - i + 1 >= max_len"), "check_best_span",
          "one short"),
    Wrong("span_end_before_start", "best_span", span_source(condition="abs(j - i) + 1 > max_len"), "check_best_span",
          "before"),
    Wrong("span_disallowed_set_to_zero", "best_span", "def best_span(start_logits, end_logits, max_len):\n"
          "    T = start_logits.shape[0]\n"
          "    scores = start_logits[:, None] + end_logits[None, :]\n"
          "    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]\n"
          "    scores = scores * ((j >= i) & (j - i + 1 <= max_len))  # the disallowed spans become 0, not -inf\n"
          "    flat = scores.argmax()\n"
          "    return int(flat // T), int(flat % T)\n", "check_best_span", "set them to -inf"),
    Wrong("params_no_pooler", "bert_parameters", params_source(pooler="0"), "check_bert_parameters",
          "pooler is missing"),
    Wrong("params_no_biases", "bert_parameters",
          params_source(attention="4 * H * H + 2 * H", feed_forward="2 * H * I + 2 * H", pooler="H * H"),
          "check_bert_parameters", "biases are missing"),
    Wrong("params_three_matrices", "bert_parameters", params_source(attention="3 * (H * H + H) + 2 * H"),
          "check_bert_parameters", "3 attention matrices"),
    Wrong("params_no_norms", "bert_parameters",
          params_source(embeddings="(vocab_size + max_position + type_vocab) * H", attention="4 * (H * H + H)",
                        feed_forward="(H * I + I) + (I * H + H)"),
          "check_bert_parameters", "LayerNorms are missing"),
    Wrong("params_no_positions", "bert_parameters", params_source(embeddings="(vocab_size + type_vocab) * H + 2 * H"),
          "check_bert_parameters", "position embeddings are missing"),
    Wrong("albert_v_times_e", "albert_embedding", albert_source(factorised="V * E"), "check_albert_embedding",
          "only V x E"),
    Wrong("albert_rounded", "albert_embedding", albert_source(full="61_000_000"), "check_albert_embedding",
          "slide's rounding"),
    Wrong("albert_product", "albert_embedding", albert_source(factorised="V * E * H"), "check_albert_embedding",
          "sizes add"),
]

#: Correct answers in other styles: recursion and dicts, numpy, loops.
ALTERNATIVES = {
    "counters": {
        "pair_scores": '''import collections
from fractions import Fraction
def pair_scores(splits):
    unigrams, bigrams = collections.Counter(), collections.Counter()
    for word, freq in splits.items():
        unigrams.update({p: n * freq for p, n in collections.Counter(word).items()})
        bigrams.update({pq: n * freq for pq, n in collections.Counter(zip(word[:-1], word[1:])).items()})
    return {(a, b): float(Fraction(bigrams[a, b], unigrams[a] * unigrams[b])) for (a, b) in bigrams}
''',
    },
    "loops": {
        "pair_scores": '''def pair_scores(splits):
    from collections import Counter
    pieces, pairs = Counter(), Counter()
    for split, count in splits.items():
        for i in range(len(split)):
            pieces[split[i]] += count
            if i + 1 < len(split):
                pairs[(split[i], split[i + 1])] += count
    scores = {}
    for pair in pairs:
        scores[pair] = pairs[pair] / pieces[pair[0]] / pieces[pair[1]]
    return scores
''',
        "wordpiece": '''def wordpiece(word, vocab):
    if len(word) > 100:
        return ["[UNK]"]
    def split(rest, prefix):
        if not rest:
            return []
        for end in range(len(rest), 0, -1):
            if prefix + rest[:end] in vocab:
                tail = split(rest[end:], "##")
                return None if tail is None else [prefix + rest[:end]] + tail
        return None
    pieces = split(word, "")
    return ["[UNK]"] if pieces is None else pieces
''',
        "mask_tokens": '''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    select = torch.rand(input_ids.shape, generator=generator)
    kind = torch.rand(input_ids.shape, generator=generator)
    random_ids = torch.randint(0, vocab_size, input_ids.shape, generator=generator)
    inputs = input_ids.clone()
    labels = torch.full_like(input_ids, -100)
    flat_in, flat_lab = inputs.view(-1), labels.view(-1)
    chosen = ((select < 0.15) & ~special_mask).view(-1).nonzero().flatten().tolist()
    kind, random_ids, original = kind.view(-1), random_ids.view(-1), input_ids.reshape(-1)
    for i in chosen:
        flat_lab[i] = original[i]
        if kind[i] < 0.8:
            flat_in[i] = mask_id
        elif kind[i] < 0.9:
            flat_in[i] = random_ids[i]
    return inputs, labels
''',
        "nsp_pair": '''def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    ids, types = [cls_id], [0]
    for token in sentence_a:
        ids.append(token)
        types.append(0)
    ids.append(sep_id)
    types.append(0)
    for token in sentence_b:
        ids.append(token)
        types.append(1)
    ids.append(sep_id)
    types.append(1)
    return ids, types
''',
        "best_span": span_source(),
        "bert_parameters": '''def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    def linear(n_in, n_out):
        return n_in * n_out + n_out
    def norm(n):
        return 2 * n
    total = (vocab_size + max_position + type_vocab) * hidden + norm(hidden)
    for _ in range(layers):
        total += 4 * linear(hidden, hidden) + norm(hidden)
        total += linear(hidden, intermediate) + linear(intermediate, hidden) + norm(hidden)
    return total + linear(hidden, hidden)
''',
    },
    "numpy": {
        "pair_scores": '''import numpy as np
def pair_scores(splits):
    words = list(splits)
    weights = np.array([splits[w] for w in words], dtype=np.float64)
    names = sorted({p for w in words for p in w})
    index = {p: i for i, p in enumerate(names)}
    piece_counts = np.zeros(len(names))
    pair_counts = np.zeros((len(names), len(names)))
    for w, weight in zip(words, weights):
        np.add.at(piece_counts, [index[p] for p in w], weight)
        for a, b in zip(w, w[1:]):
            pair_counts[index[a], index[b]] += weight
    scores = pair_counts / np.outer(piece_counts, piece_counts)
    return {(names[i], names[j]): np.float64(scores[i, j]) for i, j in zip(*np.nonzero(pair_counts))}
''',
        "bert_embeddings": '''import numpy as np
def bert_embeddings(input_ids, token_type_ids, weights):
    w = {k: v.detach().cpu().numpy() for k, v in weights.items()}
    ids, types = input_ids.cpu().numpy(), token_type_ids.cpu().numpy()
    x = w["word_embeddings"][ids] + w["position_embeddings"][np.arange(ids.shape[1])] + w["token_type_embeddings"][types]
    x = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-12)
    return torch.from_numpy(x * w["gamma"] + w["beta"])
''',
        "best_span": '''import numpy as np
def best_span(start_logits, end_logits, max_len):
    s, e = start_logits.numpy(), end_logits.numpy()
    T = len(s)
    scores = s[:, None] + e[None, :]
    i, j = np.indices((T, T))
    scores[(j < i) | (j - i + 1 > max_len)] = -np.inf
    start, end = np.unravel_index(np.argmax(scores), scores.shape)
    return start, end
''',
        "mask_tokens": '''def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    import numpy as np
    n = int((~special_mask).sum())
    order = torch.randperm(n, generator=generator)
    k = int(round(0.15 * n))
    positions = (~special_mask).view(-1).nonzero().flatten()[order[:k]]
    kinds = torch.rand(k, generator=generator)
    inputs, labels = input_ids.clone().view(-1), torch.full_like(input_ids, -100).view(-1)
    labels[positions] = input_ids.view(-1)[positions]
    inputs[positions[kinds < 0.8]] = mask_id
    rand = positions[(kinds >= 0.8) & (kinds < 0.9)]
    inputs[rand] = torch.randint(vocab_size, (len(rand),), generator=generator)
    return inputs.view_as(input_ids), labels.view_as(input_ids)
''',
        "albert_embedding": albert_source(full="30000 * 2048", factorised="30000 * 128 + 128 * 2048"),
    },
}

#: Answers that call what the exercise asks the student to write.
CHEATS = [
    Wrong("pairs_calls_course_lib", "pair_scores",
          "from course_lib.wordpiece import pair_scores as _scores\n"
          "def pair_scores(splits):\n    return _scores(splits)\n", "check_pair_scores", "switched off"),
    Wrong("wordpiece_calls_tokenizer", "wordpiece",
          "def wordpiece(word, vocab):\n    return tokenizer.tokenize(word)\n", "check_wordpiece", "switched off"),
    Wrong("mask_calls_course_lib", "mask_tokens",
          "from course_lib.bert import mask_tokens as _mask\n"
          "def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):\n"
          "    return _mask(input_ids, special_mask, generator, vocab_size, mask_id)\n",
          "check_mask_tokens", "switched off"),
    Wrong("nsp_calls_tokenizer", "nsp_pair",
          "def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):\n"
          "    out = tokenizer(tokenizer.decode(sentence_a), tokenizer.decode(sentence_b))\n"
          "    return out['input_ids'], out['token_type_ids']\n",
          "check_nsp_pair", "switched off"),
    Wrong("embeddings_calls_layer_norm", "bert_embeddings",
          "def bert_embeddings(input_ids, token_type_ids, weights):\n"
          "    x = weights['word_embeddings'][input_ids] + weights['position_embeddings'][:input_ids.shape[1]]\n"
          "    x = x + weights['token_type_embeddings'][token_type_ids]\n"
          "    return torch.nn.functional.layer_norm(x, x.shape[-1:], weights['gamma'], weights['beta'], 1e-12)\n",
          "check_bert_embeddings", "switched off"),
    Wrong("params_calls_transformers", "bert_parameters",
          "def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):\n"
          "    import transformers\n"
          "    config = transformers.BertConfig(vocab_size=vocab_size, hidden_size=hidden, num_hidden_layers=layers,\n"
          "        num_attention_heads=1, intermediate_size=intermediate, max_position_embeddings=max_position,\n"
          "        type_vocab_size=type_vocab)\n"
          "    with torch.device('meta'):\n"
          "        return sum(p.numel() for p in transformers.BertModel(config).parameters())\n",
          "check_bert_parameters", "switched off"),
]

#: Answer cells replaced by a stub that raises NotImplementedError, and the test cell that must say so.
STUBS = [("wordpiece", "check_wordpiece"), ("pair_scores", "check_pair_scores"), ("nsp_pair", "check_nsp_pair"), ("bert_embeddings", "check_bert_embeddings"),
         ("mask_tokens", "check_mask_tokens"), ("best_span", "check_best_span"),
         ("bert_parameters", "check_bert_parameters")]

#: An answer cell whose infinite loop costs only its own test cell.
LOOP = ("best_span", "check_best_span")
