"""Fourth blind set for notebook 01 (n-gram language models), written from the student notebook only."""
from blind_case import Blind

NOTEBOOK = "01_ngrams"

BLIND = [
    # ---------------------------------------------------------------- count_ngrams
    Blind(name="count_range_off_by_one", cell="count_ngrams", test_cell="check_count_ngrams",
          source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    counts = Counter()
    for i in range(len(tokens) - n):
        counts[tuple(tokens[i:i + n])] += 1
    return counts
''',
          mistake="The loop stops one position early (range(len(tokens) - n) instead of len(tokens) - n + 1), so the last n-gram of the list is never counted.",
          names_it=(("last",), ("t - n + 1",), ("off by one",), ("one too few",), ("missing", "n-gram")),
          part="loop range over start positions"),
    Blind(name="count_list_keys", cell="count_ngrams", test_cell="check_count_ngrams",
          source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    counts = Counter()
    for i in range(len(tokens) - n + 1):
        gram = tokens[i:i + n]
        counts[gram] = counts.get(gram, 0) + 1
    return counts
''',
          mistake="Uses the list slice itself as the Counter key; lists are unhashable, so it crashes with a TypeError instead of using tuples.",
          names_it=(("tuple",), ("unhashable",), ("hashable",)),
          part="the n-gram key type"),
    Blind(name="count_always_bigrams", cell="count_ngrams", test_cell="check_count_ngrams",
          source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    return Counter(zip(tokens, tokens[1:]))
''',
          mistake="Always counts bigrams with zip(tokens, tokens[1:]), ignoring n: unigrams and trigrams are wrong.",
          names_it=(("bigram",), ("ignores n",), ("any n",), ("n consecutive",), ("length n",)),
          part="uses n"),
    Blind(name="count_short_tail_grams", cell="count_ngrams", test_cell="check_count_ngrams",
          source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    counts = Counter()
    for i in range(len(tokens)):
        counts[tuple(tokens[i:i + n])] += 1
    return counts
''',
          mistake="Loops over every position, so the slices at the end are shorter than n and get counted as extra, too-short n-grams.",
          names_it=(("shorter",), ("fewer than n",), ("t - n + 1",), ("too many",), ("extra",)),
          part="loop range over start positions"),
    Blind(name="count_string_keys", cell="count_ngrams", test_cell="check_count_ngrams",
          source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    counts = Counter()
    for i in range(len(tokens) - n + 1):
        counts[" ".join(tokens[i:i + n])] += 1
    return counts
''',
          mistake="Keys the Counter by the n-gram joined into one string ('the cat') instead of by a tuple of tokens.",
          names_it=(("tuple",), ("string", "key")),
          part="the n-gram key type"),

    # ---------------------------------------------------------------- ngram_prob, k = 0
    Blind(name="prob_joint_not_conditional", cell="ngram_prob", test_cell="check_ngram_prob",
          source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    total = sum(counts_n.values())
    if k > 0:
        return (counts_n[tuple(context) + (word,)] + k) / (total + k * vocab_size)
    return counts_n[tuple(context) + (word,)] / total
''',
          mistake="Divides by the total number of n-grams instead of by count(context): this is the joint probability of the n-gram, not p(word | context).",
          names_it=(("count(c)",), ("count of the context",), ("context", "count"), ("joint",), ("total",)),
          part="the denominator"),
    Blind(name="prob_nested_key", cell="ngram_prob", test_cell="check_ngram_prob",
          source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    numerator = counts_n.get((context, word), 0)
    denominator = counts_n_minus_1.get(context, 0)
    if k > 0:
        return (numerator + k) / (denominator + k * vocab_size)
    return numerator / denominator if denominator else 0.0
''',
          mistake="Looks the n-gram up as the nested key (context, word) instead of context + (word,), so the n-gram is never found and every MLE probability is 0.",
          names_it=(("context + (word,)",), ("nested",), ("never found",), ("always 0",), ("key", "n-gram")),
          part="the n-gram lookup key"),
    Blind(name="prob_denominator_word_count", cell="ngram_prob", test_cell="check_ngram_prob",
          source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    gram = tuple(context) + (word,)
    denominator = counts_n_minus_1[tuple(context[1:]) + (word,)]
    if k > 0:
        return (counts_n[gram] + k) / (denominator + k * vocab_size)
    return counts_n[gram] / denominator if denominator else 0.0
''',
          mistake="Divides by the count of the last n-1 words of the n-gram (ending in the predicted word) instead of the count of the context.",
          names_it=(("count(c)",), ("count of the context",), ("denominator", "context")),
          part="the denominator"),

    # ---------------------------------------------------------------- ngram_prob, k > 0
    Blind(name="prob_smoothing_plus_k_only", cell="ngram_prob", test_cell="check_ngram_prob_smoothed",
          source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    c_w = counts_n[tuple(context) + (word,)]
    c = counts_n_minus_1[tuple(context)]
    if k > 0:
        return (c_w + k) / (c + k)
    return c_w / c if c else 0.0
''',
          mistake="Adds k to the denominator instead of k * V, so the smoothed probabilities over the vocabulary no longer sum to one.",
          names_it=(("k v",), ("k * v",), ("kv",), ("vocab_size",), ("sum to one",)),
          part="the smoothed denominator"),
    Blind(name="prob_smoothing_plus_v", cell="ngram_prob", test_cell="check_ngram_prob_smoothed",
          source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    c_w = counts_n[tuple(context) + (word,)]
    c = counts_n_minus_1[tuple(context)]
    if k > 0:
        return (c_w + k) / (c + vocab_size)
    return c_w / c if c else 0.0
''',
          mistake="Adds V to the denominator instead of k * V (Laplace's denominator with add-k's numerator): wrong for every k other than 1.",
          names_it=(("k v",), ("k * v",), ("kv",), ("times k",), ("sum to one",)),
          part="the smoothed denominator"),
    Blind(name="prob_smoothing_len_counts", cell="ngram_prob", test_cell="check_ngram_prob_smoothed",
          source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    gram = tuple(context) + (word,)
    if k > 0:
        V = len(counts_n)
        return (counts_n[gram] + k) / (counts_n_minus_1[tuple(context)] + k * V)
    if counts_n_minus_1[tuple(context)] == 0:
        return 0.0
    return counts_n[gram] / counts_n_minus_1[tuple(context)]
''',
          mistake="Ignores the vocab_size argument and uses the number of distinct n-grams as V in the smoothed denominator.",
          names_it=(("vocab_size",), ("vocabulary size",), ("number of words",), ("size of the vocabulary",)),
          part="V in the smoothed denominator"),

    # ---------------------------------------------------------------- sentence_logprob
    Blind(name="logprob_no_end_symbol", cell="sentence_logprob", test_cell="check_sentence_logprob",
          source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = ["<s>"] * (n - 1) + list(tokens)
    total = 0.0
    for i in range(n - 1, len(padded)):
        p = ngram_prob(counts_n, counts_n_minus_1, tuple(padded[i - n + 1:i]), padded[i], k, vocab_size)
        if p == 0:
            return -math.inf
        total += math.log(p)
    return total
''',
          mistake="Never appends </s>, so the probability of ending the sentence is missing from the sum.",
          names_it=(("</s>",), ("end symbol",), ("end of the sentence",), ("sentence end",)),
          part="padding with </s>"),
    Blind(name="logprob_no_start_padding", cell="sentence_logprob", test_cell="check_sentence_logprob",
          source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = list(tokens) + ["</s>"]
    total = 0.0
    for i in range(n - 1, len(padded)):
        context = tuple(padded[i - n + 1:i])
        p = ngram_prob(counts_n, counts_n_minus_1, context, padded[i], k, vocab_size)
        if p == 0:
            return -math.inf
        total += math.log(p)
    return total
''',
          mistake="Does not put n-1 <s> in front, so the first word is never scored (it has no context) and the start-of-sentence probabilities are missing.",
          names_it=(("<s>",), ("start symbol",), ("first word",)),
          part="padding with <s>"),
    Blind(name="logprob_log10", cell="sentence_logprob", test_cell="check_sentence_logprob",
          source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = ["<s>"] * (n - 1) + list(tokens) + ["</s>"]
    logp = 0.0
    for i in range(n - 1, len(padded)):
        p = ngram_prob(counts_n, counts_n_minus_1, tuple(padded[i - n + 1:i]), padded[i], k, vocab_size)
        if p == 0:
            return -math.inf
        logp += math.log10(p)
    return logp
''',
          mistake="Uses the base-10 logarithm (math.log10) instead of the natural log.",
          names_it=(("natural",), ("log10",), ("base",)),
          part="the logarithm's base"),
    Blind(name="logprob_log_of_product", cell="sentence_logprob", test_cell="check_sentence_logprob",
          source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = ["<s>"] * (n - 1) + list(tokens) + ["</s>"]
    prob = 1.0
    for i in range(n - 1, len(padded)):
        prob *= ngram_prob(counts_n, counts_n_minus_1, tuple(padded[i - n + 1:i]), padded[i], k, vocab_size)
    return math.log(prob)
''',
          mistake="Multiplies the probabilities and takes the log of the product: it crashes with 'math domain error' as soon as one probability is 0 (it must return -inf), and underflows for long sentences.",
          names_it=(("-inf",), ("math.log(0)",), ("domain error",), ("probability is 0",), ("zero", "inf")),
          part="handling a zero probability"),
    Blind(name="logprob_skip_zeros", cell="sentence_logprob", test_cell="check_sentence_logprob",
          source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = ["<s>"] * (n - 1) + list(tokens) + ["</s>"]
    total = 0.0
    for i in range(n - 1, len(padded)):
        p = ngram_prob(counts_n, counts_n_minus_1, tuple(padded[i - n + 1:i]), padded[i], k, vocab_size)
        if p > 0:
            total += math.log(p)
    return total
''',
          mistake="Silently skips the tokens whose probability is 0 instead of returning -inf, so an impossible sentence gets a finite log-probability.",
          names_it=(("-inf",), ("minus infinity",), ("probability is 0", "inf"), ("zero", "inf")),
          part="handling a zero probability"),
    Blind(name="logprob_context_includes_word", cell="sentence_logprob", test_cell="check_sentence_logprob",
          source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = ["<s>"] * (n - 1) + list(tokens) + ["</s>"]
    total = 0.0
    for i in range(n - 1, len(padded)):
        context = tuple(padded[i - n + 2:i + 1])
        p = ngram_prob(counts_n, counts_n_minus_1, context, padded[i], k, vocab_size)
        if p == 0:
            return -math.inf
        total += math.log(p)
    return total
''',
          mistake="The context slice is shifted one position to the right: it ends with the word being predicted instead of the n-1 words before it.",
          names_it=(("previous",), ("context", "before"), ("shifted",), ("off by one",)),
          part="the context slice"),

    # ---------------------------------------------------------------- perplexity
    Blind(name="ppl_no_end_in_N", cell="perplexity", test_cell="check_perplexity",
          source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total = sum(sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size) for s in sentences)
    N = sum(len(s) for s in sentences)
    return math.exp(-total / N)
''',
          mistake="N counts only the words; the one </s> per sentence is left out of the token count.",
          names_it=(("</s>",), ("end symbol",), ("one per sentence",)),
          part="the token count N"),
    Blind(name="ppl_counts_padding", cell="perplexity", test_cell="check_perplexity",
          source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total_logprob = 0.0
    N = 0
    for s in sentences:
        total_logprob += sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size)
        N += len(s) + (n - 1) + 1
    return math.exp(-total_logprob / N)
''',
          mistake="N also counts the n-1 <s> padding symbols of every sentence, which are never predicted.",
          names_it=(("<s>",), ("start symbol",), ("padding",)),
          part="the token count N"),
    Blind(name="ppl_divide_by_sentences", cell="perplexity", test_cell="check_perplexity",
          source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    logps = [sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size) for s in sentences]
    return math.exp(-sum(logps) / len(logps))
''',
          mistake="Averages the log-probability per sentence instead of per token: divides by the number of sentences, not by N.",
          names_it=(("per token",), ("number of tokens",), ("sentences", "tokens")),
          part="the token count N"),
    Blind(name="ppl_mean_of_sentence_ppl", cell="perplexity", test_cell="check_perplexity",
          source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    ppls = []
    for s in sentences:
        lp = sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size)
        ppls.append(math.exp(-lp / (len(s) + 1)))
    return sum(ppls) / len(ppls)
''',
          mistake="Computes a perplexity per sentence and averages those, instead of one exp of the log-probability averaged over all tokens of the set.",
          names_it=(("all tokens",), ("average", "sentence"), ("mean", "sentence"), ("whole test set",)),
          part="where the average is taken"),
    Blind(name="ppl_sign_flipped", cell="perplexity", test_cell="check_perplexity",
          source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total = 0.0
    tokens = 0
    for sentence in sentences:
        total += sentence_logprob(sentence, counts_n, counts_n_minus_1, n, k, vocab_size)
        tokens += len(sentence) + 1
    return math.exp(total / tokens)
''',
          mistake="Forgets the minus sign: exp(+mean log p) is 1 / perplexity, a number below 1.",
          names_it=(("minus",), ("sign",), ("negative",), ("1 / perplexity",)),
          part="the sign in the exponent"),
    Blind(name="ppl_base_two", cell="perplexity", test_cell="check_perplexity",
          source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total = sum(sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size) for s in sentences)
    N = sum(len(s) + 1 for s in sentences)
    return 2 ** (-total / N)
''',
          mistake="Undoes the natural log with 2 ** (...) instead of exp: the base does not match the natural-log probabilities.",
          names_it=(("exp(",), ("base 2",), ("base e",), ("natural",), ("2 **",)),
          part="undoing the log"),
]

VALID = [
    Blind(name="valid_count_zip", cell="count_ngrams", test_cell="check_count_ngrams",
          source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    return Counter(zip(*(tokens[i:] for i in range(n))))
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_prob_get_branches", cell="ngram_prob", test_cell="check_ngram_prob",
          source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    context = tuple(context)
    joint = counts_n.get(context + (word,), 0)
    ctx = counts_n_minus_1.get(context, 0)
    if k == 0:
        if ctx == 0:
            return 0.0
        return joint / ctx
    return (joint + k) / (ctx + k * vocab_size)
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_prob_smoothed_same", cell="ngram_prob", test_cell="check_ngram_prob_smoothed",
          source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    numerator = counts_n[(*context, word)] + k
    denominator = counts_n_minus_1[tuple(context)] + (k * vocab_size if k > 0 else 0)
    return numerator / denominator if denominator > 0 else 0.0
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_logprob_zip_windows", cell="sentence_logprob", test_cell="check_sentence_logprob",
          source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = ["<s>"] * (n - 1) + tokens + ["</s>"]
    probs = [ngram_prob(counts_n, counts_n_minus_1, tuple(padded[j:j + n - 1]), padded[j + n - 1], k, vocab_size)
             for j in range(len(tokens) + 1)]
    if min(probs) == 0:
        return -math.inf
    return sum(math.log(p) for p in probs)
''',
          mistake="", names_it=(), part=""),
    Blind(name="valid_ppl_loop", cell="perplexity", test_cell="check_perplexity",
          source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    log_total, n_tokens = 0.0, 0
    for words in sentences:
        log_total += sentence_logprob(words, counts_n, counts_n_minus_1, n, k=k, vocab_size=vocab_size)
        n_tokens += len(words) + 1  # the words and one </s>
    return math.exp(-log_total / n_tokens)
''',
          mistake="", names_it=(), part=""),
]

# The same valid answers in blind_case.py's ALTERNATIVES layout ({style: {answer_cell: source}}).
ALTERNATIVES = {case.name: {case.cell: case.source} for case in VALID}
