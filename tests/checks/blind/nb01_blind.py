"""Blind wrong answers and alternative correct answers for notebook 01_ngrams.

Written from the notebook's instructions only, without reading or running the checks.
"""
from blind_case import Blind

NOTEBOOK = "01_ngrams"

BLIND = [
    # ------------------------------------------------------------------ count_ngrams
    Blind(
        name="count_off_by_one_range",
        cell="count_ngrams",
        source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    counts = Counter()
    for i in range(len(tokens) - n):
        counts[tuple(tokens[i:i + n])] += 1
    return counts
''',
        test_cell="check_count_ngrams",
        mistake="Loops over range(len(tokens) - n) instead of range(len(tokens) - n + 1), so the last n-gram "
                "of every list is never counted.",
        names_it=(("last",), ("off-by-one",), ("off by one",), ("too few",), ("t - n + 1",), ("t-n+1",)),
    ),
    Blind(
        name="count_unigrams_as_strings",
        cell="count_ngrams",
        source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    if n == 1:
        return Counter(tokens)
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
''',
        test_cell="check_count_ngrams",
        mistake="Special-cases n = 1 and counts the bare words, so unigram keys are strings like 'cat' "
                "instead of 1-tuples like ('cat',).",
        names_it=(("tuple",),),
    ),
    Blind(
        name="count_includes_short_tail",
        cell="count_ngrams",
        source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    counts = Counter()
    for i in range(len(tokens)):
        counts[tuple(tokens[i:i + n])] += 1
    return counts
''',
        test_cell="check_count_ngrams",
        mistake="Slides the window over every position, so the slices near the end are shorter than n and "
                "are counted as extra, truncated 'n-grams'.",
        names_it=(("shorter",), ("fewer than",), ("too many",), ("extra",), ("t - n + 1",), ("t-n+1",),
                  ("incomplete",), ("partial",), ("truncated",)),
    ),
    Blind(
        name="count_always_bigrams",
        cell="count_ngrams",
        source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    return Counter(zip(tokens, tokens[1:]))
''',
        test_cell="check_count_ngrams",
        mistake="Hard-codes bigrams with zip(tokens, tokens[1:]) and never uses n, so unigrams and trigrams "
                "come out as bigrams.",
        names_it=(("unigram",), ("trigram",), ("n = 1",), ("n=1",), ("n = 3",), ("n=3",), ("length n",),
                  ("only bigrams",), ("always", "bigram")),
    ),
    Blind(
        name="count_pads_inside",
        cell="count_ngrams",
        source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    tokens = ["<s>"] * (n - 1) + list(tokens) + ["</s>"]
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
''',
        test_cell="check_count_ngrams",
        mistake="Adds the <s> and </s> padding inside count_ngrams, although the function should count the "
                "tokens it is given as they are (padding is pad()'s job).",
        names_it=(("pad",), ("<s>",), ("</s>",), ("start symbol",), ("end symbol",)),
    ),
    Blind(
        name="count_set_of_ngrams",
        cell="count_ngrams",
        source='''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    grams = set(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
    return Counter(grams)
''',
        test_cell="check_count_ngrams",
        mistake="Collects the n-grams in a set before counting, so an n-gram that occurs several times "
                "(like ('the',) in 'the cat is walking in the bedroom') gets count 1.",
        names_it=(("once",), ("repeat",), ("how often",), ("duplicate",), ("occurrences",), ("more than one",),
                  ("twice",)),
    ),
    # ------------------------------------------------------------------ ngram_prob, k = 0
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
        mistake="Divides by the total number of n-grams instead of the count of the context, which gives the "
                "joint probability p(c, w) rather than p(w | c).",
        names_it=(("joint",), ("conditional",), ("count(c)",), ("context count",), ("count of the context",),
                  ("all n-grams",), ("all bigrams",), ("total count",), ("total number",)),
    ),
    Blind(
        name="prob_word_before_context",
        cell="ngram_prob",
        source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    gram = (word,) + tuple(context)
    num = counts_n.get(gram, 0)
    den = counts_n_minus_1.get(tuple(context), 0)
    if k > 0:
        num += k
        den += k * vocab_size
    return num / den if den else 0.0
''',
        test_cell="check_ngram_prob",
        mistake="Builds the n-gram key as (word,) + context, i.e. the word before its context, so it looks up "
                "count(w, c) instead of count(c, w).",
        names_it=(("wrong order",), ("reverse",), ("swapped",), ("context first",), ("word first",),
                  ("word last",), ("(c, w)",), ("context + (word",), ("before the context",),
                  ("after the context",)),
    ),
    Blind(
        name="prob_integer_division",
        cell="ngram_prob",
        source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    context = tuple(context)
    num = counts_n.get(context + (word,), 0)
    den = counts_n_minus_1.get(context, 0)
    if k > 0:
        return (num + k) / (den + k * vocab_size)
    if den == 0:
        return 0.0
    return num // den
''',
        test_cell="check_ngram_prob",
        mistake="Uses integer (floor) division // for the MLE ratio of two integer counts, so most "
                "probabilities come out as 0 (or 1).",
        names_it=(("integer division",), ("//",), ("floor division",), ("truncat",), ("rounded",),
                  ("integer",)),
    ),
    # ------------------------------------------------------------------ ngram_prob, k > 0
    Blind(
        name="smooth_denominator_plus_k",
        cell="ngram_prob",
        source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    context = tuple(context)
    num = counts_n.get(context + (word,), 0)
    den = counts_n_minus_1.get(context, 0)
    if k > 0:
        num += k
        den += k
    return num / den if den > 0 else 0.0
''',
        test_cell="check_ngram_prob_smoothed",
        mistake="Adds k to the denominator instead of k * V, so the smoothed probabilities no longer sum "
                "to one.",
        names_it=(("kv",), ("k v",), ("k*v",), ("k * v",), ("k·v",), ("vocab",), ("times v",),
                  ("sum to one",), ("sum to 1",)),
    ),
    Blind(
        name="smooth_numerator_only",
        cell="ngram_prob",
        source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    context = tuple(context)
    num = counts_n.get(context + (word,), 0) + k
    den = counts_n_minus_1.get(context, 0)
    return num / den if den > 0 else 0.0
''',
        test_cell="check_ngram_prob_smoothed",
        mistake="Adds k to the numerator but leaves the denominator as count(c), forgetting the + k V.",
        names_it=(("denominator",), ("kv",), ("k v",), ("k*v",), ("k * v",), ("k·v",), ("sum to one",),
                  ("sum to 1",)),
    ),
    Blind(
        name="smooth_add_one_not_k",
        cell="ngram_prob",
        source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    context = tuple(context)
    num = counts_n.get(context + (word,), 0)
    den = counts_n_minus_1.get(context, 0)
    if k > 0:
        num += 1
        den += vocab_size
    return num / den if den > 0 else 0.0
''',
        test_cell="check_ngram_prob_smoothed",
        mistake="Always does Laplace (add-one) smoothing when k > 0: adds 1 and V instead of k and k V.",
        names_it=(("instead of k",), ("laplace",), ("add-one",), ("add one",), ("+1",), ("+ 1",),
                  ("k = 0.5",), ("k=0.5",), ("value of k",), ("use k",), ("uses k",)),
    ),
    Blind(
        name="smooth_vocab_plus_one",
        cell="ngram_prob",
        source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    context = tuple(context)
    num = counts_n.get(context + (word,), 0)
    den = counts_n_minus_1.get(context, 0)
    if k > 0:
        V = vocab_size + 1          # + 1 for </s>
        num += k
        den += k * V
    return num / den if den > 0 else 0.0
''',
        test_cell="check_ngram_prob_smoothed",
        mistake="Adds one more for </s> to vocab_size, although the V it is given already includes </s>; "
                "the denominator uses k (V + 1).",
        names_it=(("vocab_size + 1",), ("v + 1",), ("v+1",), ("vocab_size",), ("already includes",),
                  ("</s>", "twice"), ("as given",)),
    ),
    Blind(
        name="smooth_only_unseen",
        cell="ngram_prob",
        source='''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    context = tuple(context)
    num = counts_n.get(context + (word,), 0)
    den = counts_n_minus_1.get(context, 0)
    if k > 0 and num == 0:
        # only the unseen n-grams need smoothing
        return k / (den + k * vocab_size)
    return num / den if den > 0 else 0.0
''',
        test_cell="check_ngram_prob_smoothed",
        mistake="Applies add-k only to unseen n-grams and keeps the plain MLE for seen ones, so seen "
                "n-grams do not get + k on top and + k V below.",
        names_it=(("every bigram",), ("every n-gram",), ("seen bigram",), ("seen n-gram",), ("all bigrams",),
                  ("all n-grams",), ("only", "unseen"), ("also", "seen"), ("observed",)),
    ),
    # ------------------------------------------------------------------ sentence_logprob
    Blind(
        name="logprob_forgets_eos",
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
        mistake="Stops the loop one token early (len(padded) - 1), so log p(</s> | ...) is never added.",
        names_it=(("</s>",), ("end symbol",), ("end token",), ("end-of-sentence",), ("end of sentence",)),
    ),
    Blind(
        name="logprob_n_start_symbols",
        cell="sentence_logprob",
        source='''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = ["<s>"] * n + list(tokens) + ["</s>"]
    total = 0.0
    for i in range(n - 1, len(padded)):
        context = tuple(padded[i - n + 1:i])
        p = ngram_prob(counts_n, counts_n_minus_1, context, padded[i], k, vocab_size)
        if p == 0:
            return -math.inf
        total += math.log(p)
    return total
''',
        test_cell="check_sentence_logprob",
        mistake="Pads with n start symbols instead of n - 1, so an extra term p(<s> | <s>) is scored "
                "(0 without smoothing, making every sentence -inf).",
        names_it=(("n-1",), ("n - 1",), ("one <s>",), ("too many",), ("extra", "<s>"), ("start symbol",),
                  ("<s>",)),
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
        if p == 0:
            continue            # math.log(0) raises an error
        total += math.log(p)
    return total
''',
        test_cell="check_sentence_logprob",
        mistake="Skips tokens whose probability is 0 to avoid math.log(0), instead of returning -math.inf "
                "for an impossible sentence.",
        names_it=(("-inf",), ("-math.inf",), ("infinity",), ("minus inf",), ("negative inf",),
                  ("zero probability",), ("probability 0",), ("probability of 0",), ("impossible",)),
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
        names_it=(("natural",), ("log10",), ("base 10",), ("base",), ("math.log(",)),
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
        mistake="Does not pass k and vocab_size on to ngram_prob, so the sentence is always scored "
                "without smoothing (the k = 0.5 check fails).",
        names_it=(("smooth",), ("pass k",), ("passes k",), ("k to ngram_prob",), ("ignore", "k"),
                  ("k = 0.5",), ("k=0.5",)),
    ),
    # ------------------------------------------------------------------ perplexity
    Blind(
        name="ppl_no_eos_in_N",
        cell="perplexity",
        source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total = sum(sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size) for s in sentences)
    N = sum(len(s) for s in sentences)
    return math.exp(-total / N)
''',
        test_cell="check_perplexity",
        mistake="Counts only the words in N and forgets the one </s> per sentence.",
        names_it=(("</s>",), ("end symbol",), ("end token",), ("one per sentence",), ("end-of-sentence",),
                  ("end of sentence",)),
    ),
    Blind(
        name="ppl_counts_padding_in_N",
        cell="perplexity",
        source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total = 0.0
    N = 0
    for s in sentences:
        total += sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size)
        N += len(pad(s, n))
    return math.exp(-total / N)
''',
        test_cell="check_perplexity",
        mistake="Takes N as the length of the padded sentences, so the n - 1 start symbols <s> (which are "
                "never predicted) are counted as tokens too.",
        names_it=(("<s>",), ("start symbol",), ("padding",), ("padded",), ("n-1",), ("n - 1",)),
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
        mistake="Drops the minus sign in the exponent, returning exp(+mean log p) = 1 / perplexity "
                "(a number below 1).",
        names_it=(("minus",), ("sign",), ("negative",), ("1/",), ("1 /",), ("inverse",), ("reciprocal",),
                  ("below 1",), ("less than 1",), ("at least 1",), (">= 1",)),
    ),
    Blind(
        name="ppl_divide_by_sentences",
        cell="perplexity",
        source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total = sum(sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size) for s in sentences)
    return math.exp(-total / len(sentences))
''',
        test_cell="check_perplexity",
        mistake="Averages the log-probability per sentence (divides by the number of sentences) instead of "
                "per token.",
        names_it=(("tokens", "sentences"), ("number of sentences",), ("per token",), ("per sentence",)),
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
        mistake="Computes a perplexity for each sentence and averages them, instead of pooling the "
                "log-probabilities and token counts of the whole set.",
        names_it=(("average", "sentence"), ("mean", "sentence"), ("each sentence",), ("per sentence",),
                  ("per token",), ("all tokens",), ("whole set",), ("pool",)),
    ),
    Blind(
        name="ppl_drops_k",
        cell="perplexity",
        source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total = sum(sentence_logprob(s, counts_n, counts_n_minus_1, n) for s in sentences)
    N = sum(len(s) + 1 for s in sentences)
    return math.exp(-total / N)
''',
        test_cell="check_perplexity",
        mistake="Does not pass k and vocab_size to sentence_logprob, so the model is unsmoothed and the "
                "perplexity of sentences with an unseen bigram is infinite.",
        names_it=(("smooth",), ("pass k",), ("passes k",), ("k = 0.5",), ("k=0.5",), ("vocab_size",),
                  ("infinite",)),
    ),
    Blind(
        name="ppl_base_two",
        cell="perplexity",
        source='''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total = sum(sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size) for s in sentences)
    N = sum(len(s) + 1 for s in sentences)
    return 2 ** (-total / N)
''',
        test_cell="check_perplexity",
        mistake="Undoes the natural log with 2 ** instead of exp (mixing up the base-2 textbook formula "
                "with natural-log probabilities).",
        names_it=(("math.exp",), ("exp(",), ("base",), ("natural",), ("e **",), ("e^",), ("2 **",)),
    ),
]


ALTERNATIVES = {
    "explicit_loops": {
        "count_ngrams": '''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    counts = Counter()
    tokens = list(tokens)
    for end in range(n, len(tokens) + 1):
        gram = []
        for j in range(end - n, end):
            gram.append(tokens[j])
        counts[tuple(gram)] += 1
    return counts
''',
        "ngram_prob": '''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    context = tuple(context)
    gram = context + (word,)
    if gram in counts_n:
        numerator = counts_n[gram]
    else:
        numerator = 0
    if context in counts_n_minus_1:
        denominator = counts_n_minus_1[context]
    else:
        denominator = 0
    if k > 0:
        numerator = numerator + k
        denominator = denominator + k * vocab_size
    if denominator == 0:
        return 0.0
    return numerator / denominator
''',
        "sentence_logprob": '''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    history = ["<s>"] * (n - 1)
    total = 0.0
    for w in list(tokens) + ["</s>"]:
        context = tuple(history[len(history) - (n - 1):]) if n > 1 else ()
        p = ngram_prob(counts_n, counts_n_minus_1, context, w, k, vocab_size)
        if p <= 0:
            return -math.inf
        total = total + math.log(p)
        history.append(w)
    return total
''',
        "perplexity": '''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    total_logp = 0.0
    n_tokens = 0
    for s in sentences:
        total_logp += sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size)
        n_tokens += len(s)      # the words
        n_tokens += 1           # and one </s>
    return math.exp(-total_logp / n_tokens)
''',
    },
    "zip_numpy": {
        "count_ngrams": '''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    tokens = list(tokens)
    return Counter(zip(*[tokens[i:] for i in range(n)]))
''',
        "sentence_logprob": '''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = pad(tokens, n)
    probs = np.array([ngram_prob(counts_n, counts_n_minus_1, tuple(padded[i:i + n - 1]), padded[i + n - 1],
                                 k, vocab_size)
                      for i in range(len(padded) - n + 1)])
    if np.any(probs == 0):
        return -math.inf
    return float(np.sum(np.log(probs)))
''',
        "perplexity": '''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    logps = np.array([sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size) for s in sentences])
    lengths = np.array([len(s) + 1 for s in sentences])
    return float(np.exp(-logps.sum() / lengths.sum()))
''',
    },
    "keywords_and_lookups": {
        "count_ngrams": '''def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    counts = Counter()
    counts.update(tuple(tokens[i - n + 1:i + 1]) for i in range(n - 1, len(tokens)))
    return counts
''',
        "ngram_prob": '''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    c_cw = counts_n.get((*context, word), 0)
    c_c = counts_n_minus_1.get(tuple(context), 0)
    smoothing_den = k * vocab_size if k > 0 else 0.0
    den = c_c + smoothing_den
    return (c_cw + k) / den if den > 0 else 0.0
''',
        "sentence_logprob": '''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    padded = pad(tokens, n)
    logps = []
    for prev_end in range(n - 1, len(padded)):
        p = ngram_prob(counts_n=counts_n, counts_n_minus_1=counts_n_minus_1,
                       context=tuple(padded[prev_end - (n - 1):prev_end]), word=padded[prev_end],
                       k=k, vocab_size=vocab_size)
        logps.append(math.log(p) if p > 0 else -math.inf)
    return sum(logps)
''',
        "perplexity": '''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    sentences = list(sentences)
    N = sum(len(s) for s in sentences) + len(sentences)
    avg_nll = -sum(sentence_logprob(tokens=s, counts_n=counts_n, counts_n_minus_1=counts_n_minus_1, n=n,
                                    k=k, vocab_size=vocab_size) for s in sentences) / N
    return math.exp(avg_nll)
''',
    },
}
