"""Third blind set for notebook 01 (n-grams), written from the student notebook only."""
from blind_case import Blind

NOTEBOOK = "01_ngrams"

_INPLACE = (("modif",), ("in place",), ("mutat",), ("caller",), ("changed", "list"))

BLIND = [
    # ---- count_ngrams
    Blind(name="count_off_by_one", cell="count_ngrams", test_cell="check_count_ngrams",
          source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    grams = Counter()
    for i in range(len(tokens) - n):
        grams[tuple(tokens[i:i + n])] += 1
    return grams
''',
          mistake="range(len(tokens) - n) drops the last n-gram: T - n instead of T - n + 1 n-grams",
          names_it=(("last",), ("t - n + 1",), ("missing",), ("too few",), ("off by one",)),
          part="the range of start positions"),
    Blind(name="count_string_keys", cell="count_ngrams", test_cell="check_count_ngrams",
          source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    return Counter(" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
''',
          mistake="keys are space-joined strings, not tuples of n tokens",
          names_it=(("tuple",),),
          part="the type of the keys"),
    Blind(name="count_hardcoded_bigram", cell="count_ngrams", test_cell="check_count_ngrams",
          source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    return Counter(zip(tokens, tokens[1:]))
''',
          mistake="always counts bigrams (zip of tokens with tokens[1:]), whatever n is",
          names_it=(("n = 3",), ("n=3",), ("trigram",), ("unigram",), ("n = 1",), ("n=1",), ("length", "n")),
          part="n ignored: bigrams hard-coded"),
    Blind(name="count_consumes_tokens", cell="count_ngrams", test_cell="check_count_ngrams",
          source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    grams = Counter()
    while len(tokens) >= n:
        grams[tuple(tokens[:n])] += 1
        tokens.pop(0)
    return grams
''',
          mistake="pops tokens off the caller's list while counting: the counts are right but the list is emptied",
          names_it=_INPLACE + (("changed", "tokens"), ("empt",)),
          part="the caller's token list consumed in place"),
    Blind(name="count_distinct_only", cell="count_ngrams", test_cell="check_count_ngrams",
          source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    return Counter(set(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)))
''',
          mistake="counts each distinct n-gram once (a set), not how often it occurs",
          names_it=(("how often",), ("repeat",), ("twice",), ("more than once",), ("count", "occur")),
          part="repeated n-grams counted once"),
    Blind(name="count_plain_dict", cell="count_ngrams", test_cell="check_count_ngrams",
          source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    grams = {}
    for i in range(len(tokens) - n + 1):
        gram = tuple(tokens[i:i + n])
        grams[gram] = grams.get(gram, 0) + 1
    return grams
''',
          mistake="returns a plain dict, not the Counter the exercise asks for (unseen n-grams raise KeyError)",
          names_it=(("counter",),),
          part="the return type"),
    # ---- ngram_prob
    Blind(name="prob_no_kv", cell="ngram_prob", test_cell="check_ngram_prob_smoothed",
          source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    context = tuple(context)
    num = counts_n.get(context + (word,), 0)
    den = counts_n_minus_1.get(context, 0)
    if k > 0:
        return (num + k) / (den + k)
    return num / den if den else 0.0
''',
          mistake="add-k smoothing adds k, not k*V, to the denominator, so the probabilities do not sum to one",
          names_it=(("kv",), ("k v",), ("k*v",), ("k * v",), ("vocab_size",), ("sum to one",), ("sum to 1",), ("denominator",)),
          part="the smoothed denominator"),
    Blind(name="prob_vocab_from_counts", cell="ngram_prob", test_cell="check_ngram_prob_smoothed",
          source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    context = tuple(context)
    num = counts_n.get(context + (word,), 0)
    den = counts_n_minus_1.get(context, 0)
    if k > 0:
        V = len({gram[-1] for gram in counts_n})
        return (num + k) / (den + k * V)
    return num / den if den else 0.0
''',
          mistake="ignores the vocab_size argument and uses the number of distinct words seen after some context instead",
          names_it=(("vocab_size",), ("vocabulary size",), ("argument",)),
          part="V taken from the counts instead of vocab_size"),
    Blind(name="prob_vocab_plus_one", cell="ngram_prob", test_cell="check_ngram_prob_smoothed",
          source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    context = tuple(context)
    num = counts_n.get(context + (word,), 0)
    den = counts_n_minus_1.get(context, 0)
    if k > 0:
        return (num + k) / (den + k * (vocab_size + 1))   # + 1 for </s>
    return num / den if den else 0.0
''',
          mistake="adds one more for </s> although vocab_size already includes it: k(V+1) in the denominator",
          names_it=(("vocab_size",), ("kv",), ("k v",), ("sum to one",), ("sum to 1",), ("denominator",)),
          part="the smoothed denominator's V"),
    Blind(name="prob_word_count_denominator", cell="ngram_prob", test_cell="check_ngram_prob",
          source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    context = tuple(context)
    num = counts_n.get(context + (word,), 0)
    den = counts_n_minus_1.get((word,), 0)
    if k > 0:
        return (num + k) / (den + k * vocab_size)
    return num / den if den else 0.0
''',
          mistake="divides by the count of the word instead of the count of the context",
          names_it=(("context",), ("count(c)",), ("denominator",)),
          part="the denominator's count"),
    Blind(name="prob_always_smoothed", cell="ngram_prob", test_cell="check_ngram_prob",
          source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    context = tuple(context)
    num = counts_n.get(context + (word,), 0)
    den = counts_n_minus_1.get(context, 0)
    return (num + k) / (den + k * vocab_size)
''',
          mistake="always applies the smoothing formula, so with k = 0 and vocab_size None it fails (k * None)",
          names_it=(("vocab_size", "none"), ("k = 0",), ("k=0",), ("without smoothing",), ("typeerror",)),
          part="the k = 0 case"),
    # ---- sentence_logprob
    Blind(name="logprob_no_end", cell="sentence_logprob", test_cell="check_sentence_logprob",
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
          mistake="forgets the end symbol </s>: its probability is not added",
          names_it=(("</s>",), ("end symbol",), ("end of",)),
          part="the </s> term"),
    Blind(name="logprob_extra_start", cell="sentence_logprob", test_cell="check_sentence_logprob",
          source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = ["<s>"] * n + list(tokens) + ["</s>"]
    total = 0.0
    for i in range(n - 1, len(padded)):
        p = ngram_prob(counts_n, counts_n_minus_1, tuple(padded[i - n + 1:i]), padded[i], k, vocab_size)
        if p == 0:
            return -math.inf
        total += math.log(p)
    return total
''',
          mistake="pads with n start symbols instead of n - 1, so p(<s> | <s>) is scored too",
          names_it=(("<s>",), ("start symbol",), ("padding",), ("n - 1",), ("n-1",)),
          part="the number of <s>"),
    Blind(name="logprob_log10", cell="sentence_logprob", test_cell="check_sentence_logprob",
          source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = ["<s>"] * (n - 1) + list(tokens) + ["</s>"]
    total = 0.0
    for i in range(n - 1, len(padded)):
        p = ngram_prob(counts_n, counts_n_minus_1, tuple(padded[i - n + 1:i]), padded[i], k, vocab_size)
        if p == 0:
            return -math.inf
        total += math.log10(p)
    return total
''',
          mistake="uses log base 10 instead of the natural log",
          names_it=(("natural",), ("base",), ("log10",), ("math.log",)),
          part="the logarithm's base"),
    Blind(name="logprob_log_of_product", cell="sentence_logprob", test_cell="check_sentence_logprob",
          source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = ["<s>"] * (n - 1) + list(tokens) + ["</s>"]
    prob = 1.0
    for i in range(n - 1, len(padded)):
        prob *= ngram_prob(counts_n, counts_n_minus_1, tuple(padded[i - n + 1:i]), padded[i], k, vocab_size)
    return math.log(prob) if prob > 0 else -math.inf
''',
          mistake="multiplies the probabilities and takes the log at the end: a long sentence underflows to 0 and gets -inf",
          names_it=(("underflow",), ("product",), ("long",), ("add", "log")),
          part="product instead of a sum of logs"),
    Blind(name="logprob_skip_zero", cell="sentence_logprob", test_cell="check_sentence_logprob",
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
          mistake="skips zero probabilities instead of returning -inf, so an impossible sentence gets a finite score",
          names_it=(("-inf",), ("inf",), ("zero probab",), ("impossible",), ("probability 0",)),
          part="the zero-probability case"),
    Blind(name="logprob_pads_in_place", cell="sentence_logprob", test_cell="check_sentence_logprob",
          source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    tokens[:0] = ["<s>"] * (n - 1)
    tokens.append("</s>")
    total = 0.0
    for i in range(n - 1, len(tokens)):
        p = ngram_prob(counts_n, counts_n_minus_1, tuple(tokens[i - n + 1:i]), tokens[i], k, vocab_size)
        if p == 0:
            return -math.inf
        total += math.log(p)
    return total
''',
          mistake="pads the caller's token list in place: the result is right but the sentence now carries <s> and </s>",
          names_it=_INPLACE + (("changed", "tokens"), ("changed", "sentence")),
          part="the caller's sentence padded in place"),
    Blind(name="logprob_drops_k", cell="sentence_logprob", test_cell="check_sentence_logprob",
          source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = ["<s>"] * (n - 1) + list(tokens) + ["</s>"]
    total = 0.0
    for i in range(n - 1, len(padded)):
        p = ngram_prob(counts_n, counts_n_minus_1, tuple(padded[i - n + 1:i]), padded[i])
        if p == 0:
            return -math.inf
        total += math.log(p)
    return total
''',
          mistake="does not pass k and vocab_size on to ngram_prob, so smoothing never happens",
          names_it=(("smooth",), ("k = 0.5",), ("k=0.5",), ("pass", "k")),
          part="k and vocab_size not passed on"),
    # ---- perplexity
    Blind(name="ppl_no_end_in_n", cell="perplexity", test_cell="check_perplexity",
          source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total = sum(sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size) for s in sentences)
    N = sum(len(s) for s in sentences)
    return math.exp(-total / N)
''',
          mistake="N counts only the words, not one </s> per sentence",
          names_it=(("</s>",), ("number of tokens",), ("end symbol",), ("per sentence",), ("n counts",)),
          part="the token count N"),
    Blind(name="ppl_per_sentence", cell="perplexity", test_cell="check_perplexity",
          source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total = sum(sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size) for s in sentences)
    return math.exp(-total / len(sentences))
''',
          mistake="averages over sentences instead of over tokens",
          names_it=(("per token",), ("number of tokens",), ("sentences", "tokens"), ("divide",)),
          part="the divisor: sentences instead of tokens"),
    Blind(name="ppl_base2", cell="perplexity", test_cell="check_perplexity",
          source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total = sum(sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size) for s in sentences)
    N = sum(len(s) + 1 for s in sentences)
    return 2 ** (-total / N)
''',
          mistake="undoes a natural log with 2 ** instead of exp",
          names_it=(("exp",), ("base",), ("natural",)),
          part="exp replaced by 2 **"),
    Blind(name="ppl_skip_impossible", cell="perplexity", test_cell="check_perplexity",
          source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total, N = 0.0, 0
    for s in sentences:
        lp = sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size)
        if lp == -math.inf:
            continue           # avoid an infinite perplexity
        total += lp
        N += len(s) + 1
    return math.exp(-total / N)
''',
          mistake="skips sentences with probability 0, so k = 0 with an unseen n-gram gives a finite perplexity instead of inf",
          names_it=(("inf",), ("infinite",), ("unseen",), ("k = 0",), ("k=0",)),
          part="impossible sentences skipped"),
    Blind(name="ppl_mean_of_sentence_ppl", cell="perplexity", test_cell="check_perplexity",
          source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    ppls = [math.exp(-sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size) / (len(s) + 1))
            for s in sentences]
    return sum(ppls) / len(ppls)
''',
          mistake="averages the sentences' perplexities instead of pooling the log-probability over all tokens",
          names_it=(("total",), ("all tokens",), ("average", "perplexit"), ("mean",), ("pool",)),
          part="mean of per-sentence perplexities"),
    Blind(name="ppl_appends_end", cell="perplexity", test_cell="check_perplexity",
          source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total, N = 0.0, 0
    for s in sentences:
        total += sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size)
        s.append("</s>")
        N += len(s)
    return math.exp(-total / N)
''',
          mistake="appends </s> to the caller's sentences to count N: the value is right but the sentences are changed",
          names_it=_INPLACE + (("changed", "sentences"),),
          part="the caller's sentences changed in place"),
    Blind(name="ppl_drops_k", cell="perplexity", test_cell="check_perplexity",
          source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total = sum(sentence_logprob(s, counts_n, counts_n_minus_1, n) for s in sentences)
    N = sum(len(s) + 1 for s in sentences)
    return math.exp(-total / N)
''',
          mistake="does not pass k and vocab_size to sentence_logprob, so the smoothed perplexity is the MLE one",
          names_it=(("smooth",), ("k = 0.5",), ("k=0.5",), ("pass", "k")),
          part="k and vocab_size not passed on"),
]

ALTERNATIVES = {
    "loops": {
        "count_ngrams": '''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    counts = Counter()
    for start in range(len(tokens) - n + 1):
        gram = tuple(tokens[start:start + n])
        counts[gram] += 1
    return counts
''',
        "ngram_prob": '''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    gram = tuple(context) + (word,)
    numerator = counts_n[gram] if gram in counts_n else 0
    denominator = counts_n_minus_1[tuple(context)] if tuple(context) in counts_n_minus_1 else 0
    if k > 0:
        numerator += k
        denominator += k * vocab_size
    if denominator == 0:
        return 0.0
    return numerator / denominator
''',
        "sentence_logprob": '''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = ["<s>"] * (n - 1) + list(tokens) + ["</s>"]
    total = 0.0
    for i in range(n - 1, len(padded)):
        context = tuple(padded[i - (n - 1):i])
        p = ngram_prob(counts_n, counts_n_minus_1, context, padded[i], k, vocab_size)
        if p <= 0:
            return -math.inf
        total += math.log(p)
    return total
''',
        "perplexity": '''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total_logprob = 0.0
    num_tokens = 0
    for sentence in sentences:
        total_logprob += sentence_logprob(sentence, counts_n, counts_n_minus_1, n, k, vocab_size)
        num_tokens += len(sentence) + 1
    return math.exp(-total_logprob / num_tokens)
''',
    },
    "functional_keywords": {
        "count_ngrams": '''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    return Counter(zip(*(tokens[i:] for i in range(n))))
''',
        "ngram_prob": '''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    c_w = counts_n.get((*context, word), 0)
    c = counts_n_minus_1.get(tuple(context), 0)
    if k:
        return (c_w + k) / (c + k * vocab_size)
    return c_w / c if c else 0.0
''',
        "sentence_logprob": '''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = pad(tokens, n)
    probs = [ngram_prob(counts_n=counts_n, counts_n_minus_1=counts_n_minus_1, context=tuple(padded[i - n + 1:i]),
                        word=padded[i], k=k, vocab_size=vocab_size) for i in range(n - 1, len(padded))]
    if min(probs) == 0:
        return -math.inf
    return math.fsum(math.log(p) for p in probs)
''',
        "perplexity": '''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    sentences = list(sentences)
    logps = [sentence_logprob(tokens=s, counts_n=counts_n, counts_n_minus_1=counts_n_minus_1, n=n, k=k,
                              vocab_size=vocab_size) for s in sentences]
    N = sum(map(len, sentences)) + len(sentences)
    return float(np.exp(-sum(logps) / N))
''',
    },
    "numpy_and_logs": {
        "count_ngrams": '''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    result = Counter()
    result.update(tuple(tokens[i:i + n]) for i in range(max(len(tokens) - n + 1, 0)))
    return result
''',
        "ngram_prob": '''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    context = tuple(context)
    if k > 0:
        return (counts_n.get(context + (word,), 0) + k) / (counts_n_minus_1.get(context, 0) + k * vocab_size)
    total = counts_n_minus_1.get(context, 0)
    if total == 0:
        return 0.0
    return counts_n.get(context + (word,), 0) / total
''',
        "sentence_logprob": '''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = ("<s>",) * (n - 1) + tuple(tokens) + ("</s>",)
    logp = 0.0
    for gram in zip(*(padded[i:] for i in range(n))):
        p = ngram_prob(counts_n, counts_n_minus_1, gram[:-1], gram[-1], k=k, vocab_size=vocab_size)
        logp += math.log(p) if p > 0 else -math.inf
    return logp
''',
        "perplexity": '''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    logps = np.array([sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size) for s in sentences])
    lengths = np.array([len(s) + 1 for s in sentences])
    return float(np.exp(-logps.sum() / lengths.sum()))
''',
    },
}
