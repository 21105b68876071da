# ---
# cell_timeout: 60
# checks: course_lib.checks.ngrams
# ---

# %% [markdown]
# # 01 · n-gram language models
#
# A **language model** gives a probability to every sentence. The lecture "Neural Network Language Models & BERT"
# lists what that is good for: spelling correction and search-query completion, optical character
# recognition of old books, statistical machine translation, question answering, speech recognition.
# In each case the model ranks candidate outputs: "precipitation falls under *gravity*" is more
# probable than "under *gravy*".
#
# In this notebook you will:
#
# 1. write a sentence's probability with the **chain rule** and cut it down with the **Markov assumption**;
# 2. count n-grams and estimate probabilities by **maximum likelihood** (`count_ngrams`, `ngram_prob`);
# 3. see the **zero-count problem** on the lecture's cat/dog sentences, and fix it with **add-k smoothing**;
# 4. score sentences (`sentence_logprob`) and whole corpora (`perplexity`), and compare with the best
#    perplexity any model can reach on our data;
# 5. generate text from unigram, bigram and trigram models.
#
# **How the exercises work.** Cells that say `# YOUR CODE HERE` / `raise NotImplementedError()`
# are yours. The read-only cell right after each exercise, starting with `"""Check my answer ..."""`,
# prints `✔ ... correct` or one sentence naming what is wrong. When your work is graded the same
# checks run again with hidden cases, so solve the general problem. Run the cells from top to bottom.

# %% [setup] id=setup
import math
from collections import Counter

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np

from course_lib import data, viz
from course_lib.checks import ngrams as checks
from course_lib.ngram import NGramModel, pad
checks.install_notebook_hooks()  # an answer not written yet says so in one line, not a traceback

# %% [markdown]
# ## 1. The chain rule and the Markov assumption
#
# The probability of a sentence $W = w_1 w_2 \dots w_m$ is, exactly, a product of next-word
# probabilities (the **chain rule**):
#
# $$p(w_1, \dots, w_m) = \prod_{i=1}^{m} p(w_i \mid w_1, \dots, w_{i-1})$$
#
# Long histories are almost never seen twice, so we cannot estimate $p(w_i \mid w_1 \dots w_{i-1})$
# from counts. The **Markov assumption** keeps only the last $n-1$ words:
#
# $$p(w_i \mid w_1, \dots, w_{i-1}) \approx p(w_i \mid w_{i-n+1}, \dots, w_{i-1})$$
#
# That is an **n-gram model**: a bigram model ($n=2$) looks at one previous word, a trigram model at
# two. We put $n-1$ start symbols `<s>` in front of each sentence, so the first word has a context
# too, and one end symbol `</s>` after it, so the model also learns where sentences stop.

# %%
print(pad("the cat is walking in the bedroom".split(), 3))

# %% [markdown]
# ## 2. The cat/dog world
#
# The lecture's sentences are *"The cat is walking in the bedroom"* and *"A dog was running in a
# room"*. `course_lib.data` has a small probabilistic grammar that produces sentences like them. Because
# we wrote the grammar, we know the exact probability of every sentence it can produce, and so
# the exact entropy of the language: no model, however clever, can beat that.
#
# The grammar has **agreement** ("the cats are", never "a cats is") and one **longer-range
# constraint**: where an animal is depends on which animal it is. A cat is six times likelier than
# usual to be in the bedroom, a dog in the garden, a mouse in the kitchen, and the room comes five
# words after the animal.
#
# One combination is held out: a mouse is never in the bedroom in the training data, although
# "the mouse was sleeping in the bedroom" is a perfectly sensible sentence.

# %%
grammar = data.CatDogGrammar()
train_text, valid_text, held_out_text = data.train_valid_split(n_train=3000, n_valid=500, n_held_out=100, seed=0)
train = [data.tokenize(s) for s in train_text]
valid = [data.tokenize(s) for s in valid_text]
held_out = [data.tokenize(s) for s in held_out_text]
print(len(grammar.sentences()), "possible sentences; a few training ones:")
for s in train_text[:4]:
    print("  ", s)
print("held out:", held_out_text[0])

# %% [markdown]
# ## 3. Counting n-grams
#
# Write `count_ngrams(tokens, n)`: a `Counter` from each n-gram, as a **tuple** of $n$ consecutive
# tokens, to how often it occurs. A list of $T$ tokens has $T - n + 1$ n-grams.
# (`course_lib.ngram` is switched off while this is graded.)

# %% [answer] id=count_ngrams
def count_ngrams(tokens, n):
    """Counter of the n-grams (tuples of n consecutive tokens) of a list of tokens."""
    ### BEGIN SOLUTION
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
    ### END SOLUTION

# %% [tests] id=check_count_ngrams points=1
"""Check my answer: unigrams, bigrams and trigrams of the lecture's two sentences."""
checks.check_count_ngrams(count_ngrams)
### BEGIN HIDDEN TESTS
checks.check_count_ngrams(count_ngrams, ns=(2, 4, 5), extra=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 4. Maximum likelihood
#
# The **maximum-likelihood estimate (MLE)** of a next-word probability is a ratio of counts:
#
# $$p(w \mid c) = \frac{\mathrm{count}(c, w)}{\mathrm{count}(c)}$$
#
# where $c$ is the context of $n-1$ words and $\mathrm{count}(c)$ counts $c$ as the beginning of an
# n-gram. Write `ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None)`:
# `counts_n` maps n-grams to counts, `counts_n_minus_1` maps contexts (tuples of $n-1$ words) to
# counts, `context` is a tuple of $n-1$ words. Ignore `k` and `vocab_size` for now **only if k = 0**;
# section 6 explains them (you may write that part now or come back).

# %% [answer] id=ngram_prob
def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    """p(word | context) from counts; add-k smoothing when k > 0 (vocab_size = V)."""
    ### BEGIN SOLUTION
    context = tuple(context)
    numerator = counts_n.get(context + (word,), 0) + k
    denominator = counts_n_minus_1.get(context, 0) + k * (vocab_size or 0)
    return numerator / denominator
    ### END SOLUTION

# %% [tests] id=check_ngram_prob points=2
"""Check my answer: MLE bigram probabilities on the lecture's sentences."""
checks.check_ngram_prob(ngram_prob)
### BEGIN HIDDEN TESTS
checks.check_ngram_prob(ngram_prob, n=3, extra=True)
checks.check_ngram_prob(ngram_prob, n=1, extra=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. The zero-count problem
#
# The lecture's point: from *"The cat is walking in the bedroom"* and *"A dog was running in a
# room"* we would like a model to accept *"The cat is running in a room"*. Train a bigram MLE model
# on the two sentences and score it: "is running" never occurs in them, so
# $p(\text{running} \mid \text{is}) = 0$, and one zero in the chain-rule product makes the whole,
# perfectly sensible sentence impossible.

# %%
n = 2
counts2 = Counter()
for s in checks.corpus():
    counts2.update(count_ngrams(pad(s, n), n))
contexts1 = Counter()
for gram, c in counts2.items():
    contexts1[gram[:-1]] += c
sentence = "the cat is running in a room".split()     # sensible, but "is running" never occurs in the two sentences
probs = [ngram_prob(counts2, contexts1, (prev,), w) for prev, w in zip(pad(sentence, n), pad(sentence, n)[1:])]
for (prev, w), p in zip(zip(pad(sentence, n), pad(sentence, n)[1:]), probs):
    print(f"p({w!r:>10} | {prev!r:>9}) = {p:.3f}")
print("p(sentence) =", math.prod(probs))

# %% [markdown]
# ## 6. Add-k smoothing
#
# Pretend every word was seen $k$ more times after every context than it was:
#
# $$p_k(w \mid c) = \frac{\mathrm{count}(c, w) + k}{\mathrm{count}(c) + k\,V}$$
#
# where $V$ is the number of words that can come next (here: every word in the vocabulary, plus
# `</s>`). The $k V$ in the denominator is what keeps the probabilities of all $V$ words summing to
# one. $k = 1$ is Laplace smoothing; small $k$ like $0.01$ usually works better. Make sure your
# `ngram_prob` does this when `k > 0`.

# %% [tests] id=check_ngram_prob_smoothed points=2
"""Check my answer: add-k bigram probabilities (k = 0.5), including unseen bigrams."""
checks.check_ngram_prob(ngram_prob, k=0.5)
### BEGIN HIDDEN TESTS
checks.check_ngram_prob(ngram_prob, n=3, k=0.1, extra=True)
checks.check_ngram_prob(ngram_prob, n=2, k=2.0, extra=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 7. The log-probability of a sentence
#
# Products of many probabilities underflow, so we add **log**-probabilities instead (natural log,
# `math.log`). Write `sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None)`:
# pad the sentence with $n-1$ `<s>` and one `</s>`, and add $\log p(w_i \mid \text{previous } n-1)$ for
# every token after the padding, `</s>` included. Use your `ngram_prob`. When a probability is 0 the
# answer is `-math.inf` (`math.log(0)` raises an error).

# %% [answer] id=sentence_logprob
def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """Natural-log probability of a sentence (a list of words) under an n-gram model."""
    ### BEGIN SOLUTION
    padded = ["<s>"] * (n - 1) + list(tokens) + ["</s>"]
    total = 0.0
    for i in range(n - 1, len(padded)):
        p = ngram_prob(counts_n, counts_n_minus_1, tuple(padded[i - n + 1:i]), padded[i], k=k, vocab_size=vocab_size)
        if p == 0:
            return -math.inf
        total += math.log(p)
    return total
    ### END SOLUTION

# %% [tests] id=check_sentence_logprob points=2
"""Check my answer: bigram log-probabilities of the lecture's sentences, without and with smoothing."""
checks.check_sentence_logprob(sentence_logprob)
checks.check_sentence_logprob(sentence_logprob, k=0.5)
### BEGIN HIDDEN TESTS
checks.check_sentence_logprob(sentence_logprob, n=3, k=0.1, extra=True, sentences=checks.LECTURE_GENERALISED)
checks.check_sentence_logprob(sentence_logprob, n=1, k=0.0, extra=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 8. Perplexity
#
# To compare models we average the log-probability over all $N$ tokens of a test set ($N$ counts
# the words and one `</s>` per sentence) and undo the log:
#
# $$\mathrm{PPL} = \exp\!\Big(-\frac{1}{N} \sum_{\text{sentences } s} \log p(s)\Big)$$
#
# A perplexity of 5 means the model is, on average, as unsure as if it picked among 5 equally likely
# words. Lower is better. Write `perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None)`
# using your `sentence_logprob`.

# %% [answer] id=perplexity
def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
    """exp(- total natural-log probability / number of tokens, </s> included)."""
    ### BEGIN SOLUTION
    total = sum(sentence_logprob(s, counts_n, counts_n_minus_1, n, k=k, vocab_size=vocab_size) for s in sentences)
    n_tokens = sum(len(s) + 1 for s in sentences)
    return math.exp(-total / n_tokens)
    ### END SOLUTION

# %% [tests] id=check_perplexity points=2
"""Check my answer: bigram perplexity (k = 0.5) of the lecture's three new sentences."""
checks.check_perplexity(perplexity)
### BEGIN HIDDEN TESTS
checks.check_perplexity(perplexity, n=3, k=0.1, extra=True)
checks.check_perplexity(perplexity, n=1, k=1.0, sentences=checks.LECTURE_SENTENCES)
### END HIDDEN TESTS

# %% [markdown]
# Now on the cat/dog world. Since we know the grammar, we know the entropy $H$ of its sentences
# per token exactly; $e^{H}$ is the lowest perplexity any model can have on them. (The validation
# sentences, like the training ones, never put a mouse in the bedroom, so their floor is computed
# without those sentences; the held-out ones are all "surprising".)

# %% [demo]
def fit_counts(sentences, n):
    grams = Counter()
    for s in sentences:
        grams.update(count_ngrams(pad(s, n), n))
    ctx = Counter()
    for gram, c in grams.items():
        ctx[gram[:-1]] += c
    return grams, ctx


V = len({w for s in train for w in s}) + 1
floor = math.exp(data.entropy_per_token(grammar, without_held_out=True))
results = {}
for order in (1, 2, 3):
    grams, ctx = fit_counts(train, order)
    results[order] = perplexity(valid, grams, ctx, order, k=0.01, vocab_size=V)
    print(f"n={order}: valid perplexity {results[order]:.3f}   "
          f"held-out perplexity {perplexity(held_out, grams, ctx, order, k=0.01, vocab_size=V):.3f}")
print(f"floor exp(H) = {floor:.3f}")
viz.perplexity_bars([f"n={o}" for o in results], list(results.values()), floor)
plt.show()

# %% [markdown]
# The trigram gets within about 5% of the floor, and no closer however much data it gets: most words
# here depend only on the one or two before them, but the room depends on the animal five words
# back, outside a trigram's window. A 6-gram could see it, but its contexts are so specific that
# most were seen only a few times (try it with the sliders below). Notebook 02's neural model
# closes this gap. Real language has much longer dependencies, and there the gap stays large.
#
# ## 9. Generating text
#
# A language model can also *write*: start from `<s>`, draw the next word from $p(w \mid c)$, append
# it, repeat until `</s>`. The unigram model knows word frequencies only; the bigram and trigram
# models produce sentences of the grammar.

# %% [demo]
rng = np.random.default_rng(0)
for order in (1, 2, 3):
    model = NGramModel(order, k=0.0).fit(train)
    print(f"n={order}:")
    for _ in range(3):
        print("    ", " ".join(model.sample(rng, max_len=12)))

# %% [markdown]
# ## 10. Try it: n and k
#
# Move the sliders: held-out perplexity (mouse in the bedroom) and validation perplexity for an
# n-gram model with add-k smoothing. Large $k$ flattens every distribution towards uniform; $k = 0$
# gives infinite perplexity as soon as one test n-gram was never seen.

# %% [demo]
def show(n=2, log10_k=-2.0):
    k = 10 ** log10_k
    model = NGramModel(n, k=k).fit(train)
    ppl = [model.perplexity(valid), model.perplexity(held_out)]
    viz.perplexity_bars(["valid", "held out"], ppl, floor, title=f"n={n}, k={k:.3g}")
    plt.show()


widgets.interact(show, n=widgets.IntSlider(value=2, min=1, max=5, continuous_update=False),
                 log10_k=widgets.FloatSlider(value=-2.0, min=-4.0, max=1.0, step=0.5, continuous_update=False,
                                             description="log10 k"));

# %% [markdown]
# With $k = 1$ the validation perplexity for $n = 1, \dots, 5$ is about 17.4, 2.76, 2.43, 2.58, 2.88:
# it falls while a longer context helps, then rises again once most longer contexts were seen only
# a few times and smoothing spreads their mass thinly (the U-shape). Notice also that the trigram
# sampler above can still produce "a mouse ... in a bedroom": the two words are five positions
# apart, far outside a trigram's window, so the model cannot know the combination never occurs.
#
# **Question (graded by your instructor).** In two or three sentences: why does the held-out
# perplexity (mouse in the bedroom) stay above the validation perplexity for every $n$ and $k$, and
# what would a model need in order to give "a mouse was sleeping in a bedroom" a sensible
# probability without ever having seen it? Write your answer in the cell below.

# %% [written] id=why_held_out points=2
# *Model answer (instructors only).* An n-gram model only knows the exact word sequences it has
# counted: "mouse" followed within its window by "bedroom" never occurred, so those n-grams get
# only the small smoothed probability, and held-out sentences pay for it at every such position.
# Smoothing treats all unseen n-grams alike; it cannot use the fact that "mouse" behaves like "cat"
# and "dog". A model that represents words by similar vectors (embeddings, notebook 02) can share
# what it learned about cats and dogs in bedrooms with mice.
#
# *Marking:* 1 point for "unseen n-grams get only smoothed mass / counts are exact-match"; 1 point
# for "similar words need shared representations (embeddings / a neural LM)".

# %% [markdown]
# ## Summary
#
# - The chain rule writes $p(W)$ as a product of next-word probabilities; the Markov assumption keeps
#   only the last $n-1$ words of the history.
# - Maximum likelihood is a ratio of counts, and it gives probability 0 to every sensible sentence
#   that contains an unseen n-gram. Add-k smoothing moves a little mass to unseen events
#   ($+k$ on top, $+kV$ below).
# - Perplexity, $\exp$ of the average negative log-probability per token, compares models; on our
#   grammar it cannot go below $e^{H}$.
#
# Next, notebook 02 replaces counts by a neural network, so that "cat" and "dog", which occur in the
# same contexts, share what they learn: the lecture's reason for neural language models.
