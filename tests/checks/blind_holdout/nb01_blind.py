"""Blind wrong answers and correct alternatives for 01_ngrams (written without reading the checks)."""
from blind_case import Blind

NOTEBOOK = "01_ngrams"

BLIND = [
    # ------------------------------------------------------------------ count_ngrams
    Blind(
        name="count_misses_last_ngram",
        cell="count_ngrams",
        source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    counts = Counter()
    for i in range(len(tokens) - n):
        counts[tuple(tokens[i:i + n])] += 1
    return counts
''',
        test_cell="check_count_ngrams",
        mistake="The loop runs over range(len(tokens) - n) instead of len(tokens) - n + 1, so the last n-gram "
                "of the list is never counted.",
        names_it=(("last",), ("final",), ("t - n + 1",), ("t-n+1",), ("off by one",), ("off-by-one",),
                  ("one too few",), ("one fewer",)),
    ),
    Blind(
        name="count_string_keys",
        cell="count_ngrams",
        source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    counts = Counter()
    for i in range(len(tokens) - n + 1):
        counts[" ".join(tokens[i:i + n])] += 1
    return counts
''',
        test_cell="check_count_ngrams",
        mistake="The n-grams are stored as space-joined strings ('the cat') instead of tuples of tokens.",
        names_it=(("tuple",),),
    ),
    Blind(
        name="count_sets_to_one",
        cell="count_ngrams",
        source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    counts = Counter()
    for i in range(len(tokens) - n + 1):
        counts[tuple(tokens[i:i + n])] = 1
    return counts
''',
        test_cell="check_count_ngrams",
        mistake="Writes counts[gram] = 1 instead of += 1, so an n-gram that occurs several times "
                "(e.g. 'the' twice in the first sentence) is counted once.",
        names_it=(("once",), ("repeat",), ("duplicate",), ("all 1",), ("only 1",), ("set to 1",),
                  ("always 1",), ("+= 1",), ("more than one time",), ("several times",)),
    ),
    Blind(
        name="count_pads_again",
        cell="count_ngrams",
        source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    tokens = pad(tokens, n)   # start and end symbols so the first word has a context
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
''',
        test_cell="check_count_ngrams",
        mistake="Pads the tokens with <s>/</s> inside count_ngrams, although the function should count the "
                "n-grams of exactly the list it is given (the caller pads).",
        names_it=(("pad",), ("<s>",), ("</s>",), ("start symbol",), ("end symbol",)),
    ),
    Blind(
        name="count_always_bigrams",
        cell="count_ngrams",
        source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    return Counter(zip(tokens, tokens[1:]))
''',
        test_cell="check_count_ngrams",
        mistake="Hard-codes pairs with zip(tokens, tokens[1:]) and ignores n: it returns bigrams for every n.",
        names_it=(("ignores", "n"), ("always", "bigram"), ("only", "bigram"), ("bigrams", "n = 3"),
                  ("bigrams", "n=3"), ("bigrams", "n = 1"), ("bigrams", "n=1"), ("pairs",),
                  ("length 2",), ("2 tokens",), ("2-gram",)),
    ),
    # ------------------------------------------------------------------ ngram_prob (MLE)
    Blind(
        name="prob_joint_not_conditional",
        cell="ngram_prob",
        source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    total = sum(counts_n.values())
    num = counts_n.get(tuple(context) + (word,), 0)
    if k > 0:
        return (num + k) / (total + k * vocab_size)
    return num / total
''',
        test_cell="check_ngram_prob",
        mistake="Divides by the total number of n-grams instead of count(context): it computes the joint "
                "probability p(c, w), not p(w | c).",
        names_it=(("total",), ("joint",), ("all bigrams",), ("all n-grams",), ("sum of all",),
                  ("count(c)",), ("number of bigrams",), ("number of n-grams",)),
    ),
    Blind(
        name="prob_divides_by_word_count",
        cell="ngram_prob",
        source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    num = counts_n.get(tuple(context) + (word,), 0)
    den = counts_n_minus_1.get((word,), 0)
    if k > 0:
        num, den = num + k, den + k * vocab_size
    return num / den if den else 0.0
''',
        test_cell="check_ngram_prob",
        mistake="Divides by the count of the predicted word, count(w), instead of the count of the context "
                "count(c): the conditioning is the wrong way round.",
        names_it=(("count(w)",), ("word", "instead", "context"), ("count of the word",), ("word's count",),
                  ("p(c | w)",), ("p(c|w)",), ("p(context | word)",), ("wrong way round",), ("swapped",),
                  ("predicted word",)),
    ),
    Blind(
        name="prob_nested_tuple_key",
        cell="ngram_prob",
        source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    num = counts_n.get((context, word), 0)
    den = counts_n_minus_1.get(context, 0)
    if k > 0:
        num, den = num + k, den + k * vocab_size
    return num / den if den else 0.0
''',
        test_cell="check_ngram_prob",
        mistake="Looks the n-gram up as (context, word), a nested tuple like (('the',), 'cat'), instead of "
                "context + (word,), so the count is never found and every probability is 0.",
        names_it=(("all", "0"), ("all", "zero"), ("always", "0"), ("always", "zero"), ("every", "0"),
                  ("key",), ("nested",), ("lookup",), ("look up",), ("look-up",), ("context + (word,)",)),
    ),
    Blind(
        name="prob_integer_division",
        cell="ngram_prob",
        source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    num = counts_n.get(context + (word,), 0)
    den = counts_n_minus_1.get(context, 0)
    if den == 0 and k == 0:
        return 0.0
    if k > 0:
        return (num + k) / (den + k * vocab_size)
    return num // den
''',
        test_cell="check_ngram_prob",
        mistake="Uses integer division // for the MLE ratio, so every probability below 1 becomes 0.",
        names_it=(("integer",), ("//",), ("floor",), ("rounded down",), ("truncat",)),
    ),
    # ------------------------------------------------------------------ ngram_prob (add-k)
    Blind(
        name="smooth_missing_kV",
        cell="ngram_prob",
        source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    num = counts_n.get(context + (word,), 0) + k
    den = counts_n_minus_1.get(context, 0) + k
    return num / den if den > 0 else 0.0
''',
        test_cell="check_ngram_prob_smoothed",
        mistake="Adds k to the denominator instead of k * V, so the smoothed probabilities over the vocabulary "
                "no longer sum to one.",
        names_it=(("kv",), ("k v",), ("k*v",), ("k * v",), ("k·v",), ("k × v",), ("vocab_size",),
                  ("times v",), ("times the vocabulary",)),
    ),
    Blind(
        name="smooth_v_plus_one",
        cell="ngram_prob",
        source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    num = counts_n.get(context + (word,), 0)
    den = counts_n_minus_1.get(context, 0)
    if k > 0:
        V = vocab_size + 1            # every word in the vocabulary, plus </s>
        num += k
        den += k * V
    return num / den if den > 0 else 0.0
''',
        test_cell="check_ngram_prob_smoothed",
        mistake="Adds one to vocab_size for </s>, although vocab_size already counts </s>: the denominator "
                "uses V + 1 instead of V.",
        names_it=(("v + 1",), ("v+1",), ("vocab_size + 1",), ("vocab_size+1",), ("one too many",),
                  ("</s>", "twice"), ("already", "</s>"), ("extra", "word")),
    ),
    Blind(
        name="smooth_hardcoded_laplace",
        cell="ngram_prob",
        source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    num = counts_n.get(context + (word,), 0)
    den = counts_n_minus_1.get(context, 0)
    if k > 0:
        return (num + 1) / (den + vocab_size)
    return num / den if den > 0 else 0.0
''',
        test_cell="check_ngram_prob_smoothed",
        mistake="Always applies Laplace (add-one) smoothing when k > 0, i.e. uses 1 in place of k.",
        names_it=(("k = 1",), ("k=1",), ("laplace",), ("add-one",), ("add one",), ("ignores k",),
                  ("instead of k",), ("1 instead of",), ("not k",)),
    ),
    Blind(
        name="smooth_only_unseen",
        cell="ngram_prob",
        source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    c = counts_n.get(context + (word,), 0)
    total = counts_n_minus_1.get(context, 0)
    if c == 0:
        # the zero-count problem: give unseen n-grams a little mass
        return k / (total + k * vocab_size) if k > 0 else 0.0
    return c / total
''',
        test_cell="check_ngram_prob_smoothed",
        mistake="Smooths only the unseen n-grams (count 0); seen n-grams keep their MLE probability "
                "count(c, w) / count(c) without + k and + kV.",
        names_it=(("only", "unseen"), ("seen bigrams",), ("seen n-grams",), ("seen ones",), ("also", "seen"),
                  ("nonzero",), ("non-zero",), ("every count",), ("all counts",)),
    ),
    # ------------------------------------------------------------------ sentence_logprob
    Blind(
        name="logprob_without_end_symbol",
        cell="sentence_logprob",
        source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = pad(tokens, n)
    total = 0.0
    for i in range(n - 1, len(padded) - 1):
        p = ngram_prob(counts_n, counts_n_minus_1, tuple(padded[i - n + 1:i]), padded[i], k, vocab_size)
        if p == 0:
            return -math.inf
        total += math.log(p)
    return total
''',
        test_cell="check_sentence_logprob",
        mistake="Stops the loop one position early, so log p(</s> | last words) is never added.",
        names_it=(("</s>",), ("end symbol",), ("end of sentence",), ("end-of-sentence",), ("end token",)),
    ),
    Blind(
        name="logprob_no_padding",
        cell="sentence_logprob",
        source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    total = 0.0
    for i in range(n - 1, len(tokens)):
        p = ngram_prob(counts_n, counts_n_minus_1, tuple(tokens[i - n + 1:i]), tokens[i], k, vocab_size)
        if p == 0:
            return -math.inf
        total += math.log(p)
    return total
''',
        test_cell="check_sentence_logprob",
        mistake="Never pads the sentence: no <s> in front (the first word is not scored) and no </s> at the end.",
        names_it=(("pad",), ("<s>",), ("start symbol",)),
    ),
    Blind(
        name="logprob_log10",
        cell="sentence_logprob",
        source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = pad(tokens, n)
    total = 0.0
    for i in range(n - 1, len(padded)):
        p = ngram_prob(counts_n, counts_n_minus_1, tuple(padded[i - n + 1:i]), padded[i], k, vocab_size)
        if p == 0:
            return -math.inf
        total += math.log10(p)
    return total
''',
        test_cell="check_sentence_logprob",
        mistake="Uses math.log10 instead of the natural log math.log.",
        names_it=(("natural",), ("log10",), ("base 10",), ("base-10",), ("base",), ("ln(10)",)),
    ),
    Blind(
        name="logprob_skips_zero",
        cell="sentence_logprob",
        source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = pad(tokens, n)
    total = 0.0
    for i in range(n - 1, len(padded)):
        p = ngram_prob(counts_n, counts_n_minus_1, tuple(padded[i - n + 1:i]), padded[i], k, vocab_size)
        if p > 0:                      # math.log(0) raises, so leave those out
            total += math.log(p)
    return total
''',
        test_cell="check_sentence_logprob",
        mistake="Skips the zero-probability terms (to avoid math.log(0)) instead of returning -math.inf, so an "
                "impossible sentence gets a finite log-probability.",
        names_it=(("-inf",), ("minus infinity",), ("infinite",), ("infinity",), ("skip",), ("zero probability",),
                  ("probability 0",)),
    ),
    Blind(
        name="logprob_drops_k",
        cell="sentence_logprob",
        source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = pad(tokens, n)
    total = 0.0
    for i in range(n - 1, len(padded)):
        p = ngram_prob(counts_n, counts_n_minus_1, tuple(padded[i - n + 1:i]), padded[i])
        if p == 0:
            return -math.inf
        total += math.log(p)
    return total
''',
        test_cell="check_sentence_logprob",
        mistake="Does not pass k and vocab_size on to ngram_prob, so the sentence is always scored without "
                "smoothing.",
        names_it=(("pass", "k"), ("passes", "k"), ("ignores k",), ("ignore k",), ("unsmoothed",),
                  ("without smoothing",), ("no smoothing",), ("not smoothed",), ("k = 0",), ("k=0",),
                  ("maximum likelihood",), ("mle",)),
    ),
    Blind(
        name="logprob_skips_first_word",
        cell="sentence_logprob",
        source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = pad(tokens, n)
    total = 0.0
    for i in range(n, len(padded)):
        p = ngram_prob(counts_n, counts_n_minus_1, tuple(padded[i - n + 1:i]), padded[i], k, vocab_size)
        if p == 0:
            return -math.inf
        total += math.log(p)
    return total
''',
        test_cell="check_sentence_logprob",
        mistake="Starts the loop at index n instead of n - 1, so the first word (given <s>) is never scored.",
        names_it=(("first word",), ("first token",), ("w_1",), ("first position",), ("skips the first",),
                  ("off by one",), ("off-by-one",)),
    ),
    # ------------------------------------------------------------------ perplexity
    Blind(
        name="ppl_forgets_end_tokens",
        cell="perplexity",
        source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total = sum(sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size) for s in sentences)
    N = sum(len(s) for s in sentences)
    return math.exp(-total / N)
''',
        test_cell="check_perplexity",
        mistake="N counts only the words, not the one </s> per sentence.",
        names_it=(("</s>",), ("end symbol",), ("end of sentence",), ("end-of-sentence",), ("one per sentence",),
                  ("end token",)),
    ),
    Blind(
        name="ppl_divides_by_sentences",
        cell="perplexity",
        source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total = 0.0
    for s in sentences:
        total += sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size)
    return math.exp(-total / len(sentences))
''',
        test_cell="check_perplexity",
        mistake="Averages the log-probability over the number of sentences instead of the number of tokens.",
        names_it=(("number of sentences",), ("per sentence",), ("sentence count",), ("instead of tokens",),
                  ("sentences", "tokens")),
    ),
    Blind(
        name="ppl_missing_minus",
        cell="perplexity",
        source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total = sum(sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size) for s in sentences)
    N = sum(len(s) + 1 for s in sentences)
    return math.exp(total / N)
''',
        test_cell="check_perplexity",
        mistake="Drops the minus sign in exp(-1/N sum log p), so the result is 1 / perplexity (below 1).",
        names_it=(("sign",), ("minus",), ("negative",), ("1/ppl",), ("1 / ppl",), ("reciprocal",), ("inverse",),
                  ("1/perplexity",), ("1 / perplexity",)),
    ),
    Blind(
        name="ppl_mean_of_sentence_ppls",
        cell="perplexity",
        source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    ppls = []
    for s in sentences:
        lp = sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size)
        ppls.append(math.exp(-lp / (len(s) + 1)))
    return sum(ppls) / len(ppls)
''',
        test_cell="check_perplexity",
        mistake="Computes a perplexity for each sentence and averages those, instead of pooling the "
                "log-probabilities and token counts of the whole set.",
        names_it=(("per-sentence",), ("each sentence",), ("per sentence",), ("perplexities",), ("separately",),
                  ("pool",), ("whole set",)),
    ),
    Blind(
        name="ppl_base_two",
        cell="perplexity",
        source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total = sum(sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size) for s in sentences)
    N = sum(len(s) + 1 for s in sentences)
    return 2 ** (-total / N)        # PPL = 2^H
''',
        test_cell="check_perplexity",
        mistake="Raises 2 to the average negative log-probability (PPL = 2^H from the textbook) although the "
                "log-probabilities are natural logs, so it should be exp.",
        names_it=(("base",), ("2 **",), ("2**",), ("2^",), ("power of 2",), ("instead of exp",), ("not exp",),
                  ("natural",)),
    ),
]

ALTERNATIVES = {
    "explicit_loops": {
        "count_ngrams": '''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    counts = Counter()
    i = 0
    while i + n <= len(tokens):
        gram = []
        for j in range(n):
            gram.append(tokens[i + j])
        counts[tuple(gram)] += 1
        i += 1
    return counts
''',
        "ngram_prob": '''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    gram = tuple(context) + (word,)
    count_cw = counts_n[gram] if gram in counts_n else 0
    count_c = counts_n_minus_1[tuple(context)] if tuple(context) in counts_n_minus_1 else 0
    if k == 0:
        if count_c == 0:
            return 0.0
        return count_cw / count_c
    return (count_cw + k) / (count_c + k * vocab_size)
''',
        "sentence_logprob": '''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    words = ["<s>"] * (n - 1) + list(tokens) + ["</s>"]
    logp = 0.0
    for i in range(len(tokens) + 1):
        history = tuple(words[i:i + n - 1])
        target = words[i + n - 1]
        prob = ngram_prob(counts_n, counts_n_minus_1, history, target, k, vocab_size)
        if prob == 0:
            return -math.inf
        logp = logp + math.log(prob)
    return logp
''',
        "perplexity": '''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total_logp = 0.0
    n_tokens = 0
    for sent in sentences:
        total_logp += sentence_logprob(sent, counts_n, counts_n_minus_1, n, k, vocab_size)
        n_tokens += len(sent) + 1
    if total_logp == -math.inf:
        return math.inf
    return math.exp(-total_logp / n_tokens)
''',
    },
    "zip_and_keywords": {
        "count_ngrams": '''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    tokens = list(tokens)
    return Counter(zip(*[tokens[i:] for i in range(n)]))
''',
        "ngram_prob": '''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    V = vocab_size if k > 0 else 0
    numerator = counts_n.get((*context, word), 0) + k
    denominator = counts_n_minus_1.get(tuple(context), 0) + k * V
    return numerator / denominator if denominator else 0.0
''',
        "sentence_logprob": '''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = pad(tokens, n)
    probs = [ngram_prob(counts_n=counts_n, counts_n_minus_1=counts_n_minus_1,
                        context=tuple(padded[i - (n - 1):i]), word=padded[i],
                        k=k, vocab_size=vocab_size)
             for i in range(n - 1, len(padded))]
    if min(probs) <= 0:
        return -math.inf
    return sum(math.log(p) for p in probs)
''',
        "perplexity": '''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    logps = [sentence_logprob(tokens=s, counts_n=counts_n, counts_n_minus_1=counts_n_minus_1,
                              n=n, k=k, vocab_size=vocab_size) for s in sentences]
    N = sum(len(pad(s, 1)) for s in sentences)     # words + one </s> each
    return math.exp(-math.fsum(logps) / N)
''',
    },
    "numpy_inside": {
        "count_ngrams": '''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    arr = np.array(list(tokens), dtype=object)
    counts = Counter()
    for start in np.arange(max(len(arr) - n + 1, 0)):
        counts[tuple(arr[start:start + n].tolist())] += 1
    return counts
''',
        "sentence_logprob": '''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = pad(tokens, n)
    p = np.array([ngram_prob(counts_n, counts_n_minus_1, tuple(padded[i - n + 1:i]), padded[i], k, vocab_size)
                  for i in range(n - 1, len(padded))], dtype=np.float64)
    if np.any(p == 0):
        return -math.inf
    return float(np.log(p).sum())
''',
        "perplexity": '''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    lp = np.array([sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size) for s in sentences])
    lengths = np.array([len(s) + 1 for s in sentences])
    with np.errstate(over="ignore"):
        return float(np.exp(-lp.sum() / lengths.sum()))
''',
    },
    "log_space_prob": {
        "ngram_prob": '''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    context = tuple(context)
    c_cw = float(counts_n[context + (word,)]) if context + (word,) in counts_n else 0.0
    c_c = float(counts_n_minus_1.get(context, 0))
    if k:
        c_cw, c_c = c_cw + k, c_c + k * vocab_size
    if c_cw == 0.0 or c_c == 0.0:
        return 0.0
    return math.exp(math.log(c_cw) - math.log(c_c))
''',
        "perplexity": '''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    sentences = list(sentences)
    N = sum(map(len, sentences)) + len(sentences)
    avg_nll = -sum(sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size) for s in sentences) / N
    return math.exp(avg_nll)
''',
    },
}
