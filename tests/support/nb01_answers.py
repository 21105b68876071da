"""Answers to notebook 01 for testing its checks: right ones written differently, and known mistakes.

Each wrong answer replaces one answer cell (by grade_id) and must fail the given test cell with a
message that names the mistake.
"""
from answer_catalogue import Wrong

NOTEBOOK = "01_ngrams"




_PROB = '''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    context = tuple(context)
    return ({num}) / ({den})
'''


def prob_source(num="counts_n.get(context + (word,), 0) + k", den="counts_n_minus_1.get(context, 0) + k * (vocab_size or 0)"):
    return _PROB.format(num=num, den=den)


_LOGPROB = '''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    padded = ["<s>"] * ({pad}) + list(tokens) + {eos}
    total = 0.0
    for i in range({loop}, len(padded)):
        p = ngram_prob(counts_n, counts_n_minus_1, tuple(padded[{start}:i]), padded[i], {kwargs})
        if p == 0:
            return -math.inf
        total += {log}
    return total
'''


def logprob_source(pad="n - 1", eos='["</s>"]', start="i - n + 1", kwargs="k=k, vocab_size=vocab_size",
                   log="math.log(p)", loop="n - 1"):
    return _LOGPROB.format(pad=pad, eos=eos, start=start, kwargs=kwargs, log=log, loop=loop)


_PPL = '''def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    total = sum(sentence_logprob(s, counts_n, counts_n_minus_1, n, k=k, vocab_size=vocab_size) for s in sentences)
    N = {N}
    return {ret}
'''


def ppl_source(N="sum(len(s) + 1 for s in sentences)", ret="math.exp(-total / N)"):
    return _PPL.format(N=N, ret=ret)


WRONG = [
    Wrong("count_n_minus_1", "count_ngrams",
          "def count_ngrams(tokens, n):\n    return Counter(tuple(tokens[i:i + n - 1]) for i in range(len(tokens) - n + 2))\n",
          "check_count_ngrams", "off-by-one context window"),
    Wrong("count_misses_last", "count_ngrams",
          "def count_ngrams(tokens, n):\n    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n))\n",
          "check_count_ngrams", "miss the last n-gram"),
    Wrong("count_list_keys", "count_ngrams",
          "def count_ngrams(tokens, n):\n    out = {}\n    for i in range(len(tokens) - n + 1):\n"
          "        out[' '.join(tokens[i:i + n])] = out.get(' '.join(tokens[i:i + n]), 0) + 1\n    return out\n",
          "check_count_ngrams", "tuples"),
    Wrong("k_ignored", "ngram_prob", prob_source(num="counts_n.get(context + (word,), 0)", den="counts_n_minus_1[context]"),
          "check_ngram_prob_smoothed", "no smoothing"),
    Wrong("no_kV", "ngram_prob", prob_source(den="counts_n_minus_1.get(context, 0)"),
          "check_ngram_prob_smoothed", "do not sum to one"),
    Wrong("plus_V", "ngram_prob", prob_source(den="counts_n_minus_1.get(context, 0) + vocab_size"),
          "check_ngram_prob_smoothed", "not V", also_fails=("check_ngram_prob",)),  # k * V is also wrong at k = 0
    Wrong("logprob_pads_n", "sentence_logprob", logprob_source(pad="n", start="i - n + 1"),
          "check_sentence_logprob", "off-by-one"),
    Wrong("logprob_context_n", "sentence_logprob", logprob_source(start="i - n"),
          "check_sentence_logprob", "off-by-one context window"),
    Wrong("logprob_no_eos", "sentence_logprob", logprob_source(eos="[]"),
          "check_sentence_logprob", "</s>"),
    Wrong("logprob_log2", "sentence_logprob", logprob_source(log="math.log2(p)"),
          "check_sentence_logprob", "base 2"),
    Wrong("logprob_k_not_passed", "sentence_logprob", logprob_source(kwargs=""),
          "check_sentence_logprob", "log of zero"),
    Wrong("prob_counted_vocabulary", "ngram_prob",
          prob_source(den="counts_n_minus_1.get(context, 0) + k * len({g[-1] for g in counts_n})"),
          "check_ngram_prob_smoothed", "use the vocab_size argument for V"),
    Wrong("prob_nested_key", "ngram_prob", prob_source(num="counts_n.get((context, word), 0) + k"), "check_ngram_prob",
          "tuple(context) + (word,)", also_fails=("check_ngram_prob_smoothed",)),
    Wrong("prob_needs_vocab_size", "ngram_prob", prob_source(den="counts_n_minus_1.get(context, 0) + k * vocab_size"),
          "check_ngram_prob", "vocab_size left out (None)"),
    Wrong("logprob_of_product", "sentence_logprob",
          "def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):\n"
          "    padded = ['<s>'] * (n - 1) + list(tokens) + ['</s>']\n    product = 1.0\n"
          "    for i in range(n - 1, len(padded)):\n"
          "        product *= ngram_prob(counts_n, counts_n_minus_1, tuple(padded[i - n + 1:i]), padded[i], k=k,\n"
          "                              vocab_size=vocab_size)\n"
          "    return math.log(product) if product > 0 else -math.inf\n",
          "check_sentence_logprob", "underflows to 0.0"),
    Wrong("ppl_skips_impossible", "perplexity",
          "def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):\n"
          "    total, N = 0.0, 0\n    for s in sentences:\n"
          "        lp = sentence_logprob(s, counts_n, counts_n_minus_1, n, k=k, vocab_size=vocab_size)\n"
          "        if lp > -math.inf:\n            total, N = total + lp, N + len(s) + 1\n"
          "    return math.exp(-total / N)\n", "check_perplexity", "your answer skipped it"),
    Wrong("ppl_base2", "perplexity", ppl_source(ret="2 ** (-total / N)"), "check_perplexity", "log base"),
    Wrong("ppl_not_divided", "perplexity", ppl_source(ret="math.exp(-total)"), "check_perplexity", "did not divide"),
    Wrong("ppl_per_sentence", "perplexity", ppl_source(N="len(sentences)"), "check_perplexity", "number of sentences"),
    Wrong("ppl_no_eos", "perplexity", ppl_source(N="sum(len(s) for s in sentences)"), "check_perplexity", "</s>"),
]

#: Correct answers in other styles: plain loops and dicts, no helper reuse.
ALTERNATIVES = {
    "loops": {
        "count_ngrams": '''def count_ngrams(tokens, n):
    counts = {}
    for i in range(len(tokens)):
        if i + n <= len(tokens):
            gram = tuple(tokens[j] for j in range(i, i + n))
            counts[gram] = counts.get(gram, 0) + 1
    return counts
''',
        "ngram_prob": '''def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    key = tuple(list(context) + [word])
    top = counts_n[key] if key in counts_n else 0
    bottom = counts_n_minus_1[tuple(context)] if tuple(context) in counts_n_minus_1 else 0
    if k:
        return (top + k) / (bottom + k * vocab_size)
    return top / bottom
''',
        "sentence_logprob": '''def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    history = ["<s>"] * (n - 1)
    logp = 0.0
    for w in list(tokens) + ["</s>"]:
        ctx = tuple(history[len(history) - (n - 1):]) if n > 1 else ()
        top = counts_n.get(ctx + (w,), 0) + k
        bottom = counts_n_minus_1.get(ctx, 0) + k * (vocab_size or 0)
        if top == 0:
            return float("-inf")
        logp += math.log(top / bottom)
        history.append(w)
    return logp
''',
        "perplexity": '''import numpy as np
def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    logps, lengths = [], []
    for s in sentences:
        logps.append(sentence_logprob(s, counts_n, counts_n_minus_1, n, k, vocab_size))
        lengths.append(len(s) + 1)
    return float(np.exp(-np.sum(logps) / np.sum(lengths)))
''',
    },
}

#: Answers that call what the exercise asks the student to write.
CHEATS = [
    Wrong("count_calls_course_lib", "count_ngrams",
          "from course_lib.ngram import count_ngrams as _c\ndef count_ngrams(tokens, n):\n    return _c(tokens, n)\n",
          "check_count_ngrams", "switched off"),
]

#: Answer cells replaced by a stub that raises NotImplementedError, and the test cell that must say so.
STUBS = [("count_ngrams", "check_count_ngrams"), ("ngram_prob", "check_ngram_prob"),
         ("sentence_logprob", "check_sentence_logprob"), ("perplexity", "check_perplexity")]

#: An answer cell whose infinite loop costs only its own test cell.
LOOP = ("perplexity", "check_perplexity")
