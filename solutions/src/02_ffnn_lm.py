# ---
# cell_timeout: 120
# checks: course_lib.checks.ffnn
# ---

# %% [markdown]
# # 02 · The feed-forward neural language model
#
# Notebook 01 ended with a problem. An n-gram model knows only the exact word sequences it has
# counted. Having seen *"The cat is walking in the bedroom"*, it has learned nothing at all about
# *"A dog was running in a room"*: to it, "cat" and "dog" are as different as "cat" and "of".
# And the longer its window, the fewer of its contexts it has ever seen: with a vocabulary of
# $V$ words there are $V^{n-1}$ possible contexts (the **curse of dimensionality**).
#
# Bengio et al. (2003) proposed the fix the
# lectures "Neural Network Language Models & BERT" and "Machine Learning, Big Data and AI: Block 6"
# walk through:
#
# 1. give every word a learned vector, an **embedding**, so that words used alike get similar vectors;
# 2. predict the next word with a **neural network** that reads the embeddings of the previous $n-1$ words.
#
# Because the network is a smooth function of the embeddings, what it learns about cats carries over
# to dogs. In this notebook you will build that model piece by piece, train it, and **measure** the
# generalisation that notebook 01 could only describe:
#
# 1. cut sentences into (context, next word) training examples (`make_windows`);
# 2. see that an embedding lookup is a one-hot vector times a matrix (`one_hot`);
# 3. write the model's forward pass in the paper's notation (`ffnn_forward`);
# 4. write the loss, cross-entropy, in a numerically stable way (`cross_entropy`);
# 5. train it on the cat/dog world until its perplexity is within a few percent of the exact floor;
# 6. compare it with n-gram models on contexts and word combinations they never saw;
# 7. look inside the learned embeddings (`nearest_neighbours`), and train on real English.
# 8. learn embeddings the word2vec way, from which words occur near which (`skipgram_pairs`,
#    `negative_distribution`, `draw_negatives`, `sgns_loss`), and compare them with gensim's and with a
#    pretrained model's.
#
# **How the exercises work.** Cells that say `# YOUR CODE HERE` / `raise NotImplementedError()`
# are yours. The read-only cell after each exercise, starting with `"""Check my answer ..."""`, prints
# `✔ ... correct` or one sentence naming what is wrong. When your work is graded the same checks run
# again with hidden cases, so solve the general problem. Run the cells from top to bottom; the
# training cells take a few seconds each.

# %% [setup] id=setup
import math
import time

import ipywidgets as widgets
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F

from course_lib import data, viz
from course_lib.checks import ffnn as checks
from course_lib.device import get_device, torch_threads
from course_lib.ffnn import FFNNConfig, FFNNLanguageModel, context_windows
from course_lib.ngram import NGramModel
from course_lib.train import TrainConfig, evaluate, iterate_batches, sample, train, window_batches
checks.install_notebook_hooks()  # an answer not written yet says so in one line, not a traceback

device = get_device()
print("models train on:", device)

# %% [markdown]
# ## 1. The data: the cat/dog world again
#
# We use notebook 01's grammar. Remember its two features that matter here: **agreement** ("the
# cats are", "a cat is") and a **longer-range constraint**: the room depends on the animal five words
# earlier (cats prefer bedrooms, dogs gardens, mice kitchens). A trigram cannot see that far; we
# saw it stop about 5% above the floor. The mouse is still never in the bedroom during training.
#
# A neural model works with **word ids**, so we build a vocabulary: every training word gets an
# integer, with `<unk>` = 0, `<s>` = 1 and `</s>` = 2.

# %%
grammar = data.CatDogGrammar()
train_text, valid_text, held_out_text = data.train_valid_split(n_train=3000, n_valid=500, n_held_out=100, seed=0)
train_words = [data.tokenize(s) for s in train_text]
valid_words = [data.tokenize(s) for s in valid_text]
held_out_words = [data.tokenize(s) for s in held_out_text]
vocab = data.Vocab(train_words)
BOS, EOS = vocab.index(data.BOS), vocab.index(data.EOS)
floor = math.exp(data.entropy_per_token(grammar, without_held_out=True))

print(len(vocab), "words:", " ".join(vocab.itos))
print(train_text[0], "->", vocab.encode(train_words[0]))
print(f"the perplexity floor exp(H) of these sentences: {floor:.4f}")

# %% [markdown]
# ## 2. Training examples: a window of $n-1$ words and the word after it
#
# The model reads a fixed window of `context_size` $= n - 1$ previous words and predicts the next
# one. As in notebook 01, each sentence gets `context_size` start symbols `<s>` in front, so that the
# first word has a full context, and one `</s>` at the end, so that the model also learns where
# sentences stop. A sentence of $T$ words gives $T + 1$ examples. With `context_size = 2`, "the cat"
# (ids 11, 5) gives
#
# | context | target |
# |---|---|
# | (`<s>`, `<s>`) | the |
# | (`<s>`, the) | cat |
# | (the, cat) | `</s>` |
#
# Write `make_windows(ids, context_size, bos_id, eos_id)`: a list of `(context, target)` pairs, the
# context a tuple of `context_size` ids. (`course_lib.ffnn.context_windows` is switched off while
# this is graded.)

# %% [answer] id=make_windows
def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
    ### BEGIN SOLUTION
    padded = [bos_id] * context_size + list(ids) + [eos_id]
    return [(tuple(padded[t - context_size:t]), padded[t]) for t in range(context_size, len(padded))]
    ### END SOLUTION

# %% [tests] id=check_make_windows points=1
"""Check my answer: windows of the lecture's two sentences for context sizes 1, 2 and 3."""
checks.check_make_windows(make_windows)
### BEGIN HIDDEN TESTS
checks.check_make_windows(make_windows, context_sizes=(4, 5), sentences=[[3], [7, 7, 7, 9, 4, 5]])
### END HIDDEN TESTS

# %% [markdown]
# From now on we use the course's `context_windows`, which does the same for a whole corpus and
# stacks the result into tensors. Our models look at the previous **5 words**: exactly enough to
# see the animal when predicting the room (try to count it on "the cat is walking in the").

# %%
CONTEXT = 5


def windows_of(sentences, context_size=CONTEXT):
    """contexts (N, context_size) and targets (N,) of a list of tokenised sentences."""
    return context_windows([vocab.encode(s) for s in sentences], context_size, BOS, EOS)


X_train, Y_train = windows_of(train_words)
X_valid, Y_valid = windows_of(valid_words)
X_held, Y_held = windows_of(held_out_words)
print("training examples:", tuple(X_train.shape), tuple(Y_train.shape))
for context, target in zip(X_train[:4].tolist(), Y_train[:4].tolist()):
    print(f"  {' '.join(vocab.decode(context)):>40}  ->  {vocab.itos[target]}")

# %% [markdown]
# ## 3. One-hot vectors and embeddings
#
# The lecture writes a word as a **one-hot vector**: length $V$, all zeros except a 1 at the word's
# id. Multiplying a one-hot row vector by a $V \times m$ matrix $E$ picks out one row of $E$, the
# word's $m$-dimensional embedding:
#
# $$\text{one\_hot}(i)\,E = E_{i,:}$$
#
# Write `one_hot(ids, vocab_size)`: for an integer tensor `ids` of any shape, a **float32** tensor of
# shape `ids.shape + (vocab_size,)` with a 1 at each id. (`F.one_hot` is switched off while this is
# graded; `torch.zeros(...)` and indexing or `scatter_` will do, on the device of `ids`.)

# %% [answer] id=one_hot
def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
    ### BEGIN SOLUTION
    out = torch.zeros(*ids.shape, vocab_size, dtype=torch.float32, device=ids.device)
    return out.scatter_(-1, ids.unsqueeze(-1), 1.0)
    ### END SOLUTION

# %% [tests] id=check_one_hot points=1
"""Check my answer: against F.one_hot, for a 1-D and a 2-D batch of ids."""
checks.check_one_hot(one_hot)
### BEGIN HIDDEN TESTS
checks.check_one_hot(one_hot, vocab_size=3, shapes=((4, 1, 2), (1,)), seed=5)
### END HIDDEN TESTS

# %% [markdown]
# Now the point of it: the product and the lookup give the same numbers, but the lookup never builds
# the $V$-wide vectors. With a realistic vocabulary that is the difference between a matrix product
# with mostly zeros and reading a few rows.

# %% [demo]
E = torch.randn(len(vocab), 4)
ids = torch.tensor([vocab.index("cat"), vocab.index("dog"), vocab.index("cat")])
print("one_hot(ids) @ E equals E[ids]:", torch.allclose(one_hot(ids, len(vocab)) @ E, E[ids]))

big_V, batch = 20_000, 512
E_big = torch.randn(big_V, 64)
ids_big = torch.randint(big_V, (batch,))
for name, fn in [("one_hot(ids) @ E", lambda: one_hot(ids_big, big_V) @ E_big), ("E[ids]", lambda: E_big[ids_big])]:
    start = time.perf_counter()
    for _ in range(5):
        fn()
    print(f"{name:>18}: {(time.perf_counter() - start) / 5 * 1e3:7.2f} ms for {batch} words, V = {big_V}")

# %% [markdown]
# That is why PyTorch's `nn.Embedding` is a lookup table: `nn.Embedding(V, m)(ids)` is `E[ids]`,
# and its gradient updates only the rows that were used.
#
# ## 4. The model
#
# Bengio et al.'s network, in the paper's notation (the lecture's figure): the table $C$ ($V \times m$)
# maps each of the $n-1$ context words to its embedding; the embeddings are **concatenated** into
# one vector $x$ of length $(n-1)m$; a hidden layer with weights $H$ and bias $d$ applies $\tanh$; the
# output layer (weights $U$, bias $b$) gives one score, a **logit**, per word of the vocabulary. The
# paper also allows **direct connections** $W$ from the embeddings straight to the output:
#
# $$x = [C(w_{t-n+1}); \dots; C(w_{t-1})] \qquad y = b + W x + U \tanh(d + H x) \qquad
#   p(w_t \mid w_{t-n+1}, \dots, w_{t-1}) = \mathrm{softmax}(y)_{w_t}$$
#
# Write `ffnn_forward(idx, params)`: `idx` is a batch of contexts (B, n-1) of word ids; `params` is a
# dict with `C` (V, m), `H` (h, (n-1)m), `d` (h,), `U` (V, h), `b` (V,) and `W` ((V, (n-1)m), or
# `None` for no direct connections). Return the logits (B, V), **not** the probabilities.
# Weight matrices are stored as (out, in), like `nn.Linear`'s, so $Hx$ for a batch of rows is
# `x @ H.T`.

# %% [answer] id=ffnn_forward
def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
    ### BEGIN SOLUTION
    x = params["C"][idx].flatten(1)  # (B, (n-1) m): the concatenated embeddings
    hidden = torch.tanh(params["d"] + x @ params["H"].T)  # (B, h)
    logits = params["b"] + hidden @ params["U"].T  # (B, V)
    if params["W"] is not None:
        logits = logits + x @ params["W"].T
    return logits
    ### END SOLUTION

# %% [tests] id=check_ffnn_forward points=2
"""Check my answer: against F.embedding and F.linear, with and without direct connections."""
checks.check_ffnn_forward(ffnn_forward)
### BEGIN HIDDEN TESTS
checks.check_ffnn_forward(ffnn_forward, batch=3, vocab_size=17, context_size=5, embed_dim=2, hidden_dim=9,
                          seed=3, dtype=torch.float64)
### END HIDDEN TESTS

# %% [markdown]
# The course's `FFNNLanguageModel` is the same network built from PyTorch layers
# (`nn.Embedding` for $C$, `nn.Linear` for $H, d$ and $U, b$). Your function, given its weights,
# computes its logits:

# %% [demo]
config = FFNNConfig(vocab_size=len(vocab), context_size=CONTEXT, embed_dim=16, hidden_dim=64)
model = FFNNLanguageModel(config)
logits, _ = model(X_train[:8])
print("logits:", tuple(logits.shape), "| parameters:", sum(p.numel() for p in model.parameters()))
print("ffnn_forward equals the model:",
      torch.allclose(ffnn_forward(X_train[:8], model.bengio_parameters()), logits, atol=1e-6))

# %% [markdown]
# ## 5. The loss: cross-entropy
#
# Training maximises the log-probability of each actual next word; equivalently it minimises the
# **cross-entropy**, the mean of $-\log p(\text{target})$ over the batch. With the softmax written out,
# for one example with logits $z$ and target $t$:
#
# $$-\log \mathrm{softmax}(z)_t = -z_t + \log \sum_j e^{z_j}$$
#
# Computed naively, $e^{z_j}$ overflows as soon as a logit is around 90 in float32 ($e^{1000}$ is
# `inf`). The **log-sum-exp trick** subtracts the maximum first, which changes nothing
# mathematically:
#
# $$\log \sum_j e^{z_j} = \max_k z_k + \log \sum_j e^{z_j - \max_k z_k}$$
#
# Write `cross_entropy(logits, targets)`: logits (B, V), targets (B,) integer ids; return the mean
# loss as a 0-dimensional tensor, equal to `F.cross_entropy(logits, targets)`, and finite even for
# logits around 1000. (`F.cross_entropy`, `logsumexp`, `softmax` and `log_softmax` are switched off
# while this is graded.) Hint: `logits[torch.arange(B), targets]` picks each row's target logit.

# %% [answer] id=cross_entropy
def cross_entropy(logits, targets):
    """Mean over the batch of -log softmax(logits)[target], numerically stable."""
    ### BEGIN SOLUTION
    row_max = logits.max(dim=-1, keepdim=True).values  # (B, 1)
    log_sum_exp = row_max.squeeze(-1) + (logits - row_max).exp().sum(dim=-1).log()  # (B,)
    target_logits = logits[torch.arange(len(targets), device=logits.device), targets]  # (B,)
    return (log_sum_exp - target_logits).mean()
    ### END SOLUTION

# %% [tests] id=check_cross_entropy points=2
"""Check my answer: against F.cross_entropy, also for logits around 1000."""
checks.check_cross_entropy(cross_entropy)
### BEGIN HIDDEN TESTS
checks.check_cross_entropy(cross_entropy, batch=1, vocab_size=9, seed=4)
checks.check_cross_entropy(cross_entropy, batch=33, vocab_size=2, seed=5, dtype=torch.float64)
### END HIDDEN TESTS

# %% [markdown]
# An untrained model spreads its probability evenly, so its loss is close to $\log V$. Your loss and
# the model's agree:

# %% [demo]
logits, loss = model(X_train[:256], Y_train[:256])
print(f"your cross_entropy {cross_entropy(logits, Y_train[:256]).item():.4f} | the model's loss "
      f"{loss.item():.4f} | log V = {math.log(len(vocab)):.4f}")

# %% [markdown]
# ## 6. Training
#
# `course_lib.train.train` is the training loop every model of the course uses: draw a random batch,
# compute the loss, backpropagate, clip the gradient, take an AdamW step (with a little weight decay,
# which pulls weights the data does not need towards zero), and now and then measure the loss on the
# validation set. Perplexity is $e^{\text{loss}}$, so we can put it next to the floor. The dashed line
# is the floor's loss, the entropy $H$.

# %% [demo] pace=3
torch.manual_seed(0)
model = FFNNLanguageModel(config).to(device)
history = train(model, window_batches(X_train, Y_train, batch_size=128),
                TrainConfig(steps=2000, lr=3e-3, weight_decay=0.1, eval_every=200),
                valid=lambda: iterate_batches(X_valid, Y_valid))
ffnn_ppl = evaluate(model, iterate_batches(X_valid, Y_valid))["perplexity"]
history.plot(title=f"FFNN on the cat/dog world ({history.seconds:.1f} s on {device})")
plt.axhline(math.log(floor), color="k", ls="--", lw=1, label="floor: the entropy H")
plt.legend()
plt.show()

# %% [markdown]
# Now the comparison with notebook 01's n-gram models, on the same validation sentences:

# %% [demo]
ngram_ppl = {n: NGramModel(n, k=0.01).fit(train_words).perplexity(valid_words) for n in (2, 3, 6)}
names = ["bigram", "trigram", "6-gram", "FFNN (5 words)"]
values = [ngram_ppl[2], ngram_ppl[3], ngram_ppl[6], ffnn_ppl]
for name, value in zip(names, values):
    print(f"{name:>15}: validation perplexity {value:.4f}  ({100 * (value / floor - 1):5.1f}% above the floor)")
print(f"{'floor exp(H)':>15}: {floor:.4f}")
viz.perplexity_bars(names, values, floor, relative=True, title="validation perplexity, 3000 training sentences")
plt.show()

# %% [markdown]
# The FFNN sees five words back, so it can learn that cats prefer bedrooms; the trigram cannot.
# With 3000 sentences the 6-gram has seen almost every context this small grammar can produce, so it
# does well too: counting works when there is enough data for every context. Real language never
# gives you that, which is the next experiment.
#
# The model also *writes* sentences of the grammar, agreement included:

# %% [demo]
prompt = torch.full((6, CONTEXT), BOS)
generated = sample(model, prompt, max_new_tokens=12, context_size=CONTEXT, stop_id=EOS,
                   generator=torch.Generator(device=device).manual_seed(0))
for row in generated.tolist():
    print("  ", " ".join(w for w in vocab.decode(row[CONTEXT:]) if w != data.EOS))

# %% [markdown]
# ## 7. Generalisation, measured
#
# ### 7a. Contexts never seen in training
#
# With little data, most 5-word contexts in new sentences were never seen. Train both kinds of model
# on just **300** sentences and score only the validation positions whose 5-word context never
# occurred in training. Because we know the grammar, we also know the **true** probability of each
# next word there (`data.next_word_distribution`), so we can say how close each model gets.

# %% [demo] pace=3
small_words = [data.tokenize(s) for s in data.train_valid_split(300, 0, 0, seed=10)[0]]
X_small, Y_small = windows_of(small_words)
seen_contexts = {tuple(c) for c in X_small.tolist()}
unseen = torch.tensor([tuple(c) not in seen_contexts for c in X_valid.tolist()])
print(f"{int(unseen.sum())} of {len(unseen)} validation positions have a 5-word context never seen "
      "in the 300 sentences")

torch.manual_seed(0)
small_model = FFNNLanguageModel(config).to(device)
train(small_model, window_batches(X_small, Y_small, batch_size=64), TrainConfig(steps=500, lr=3e-3, weight_decay=0.1))

# %% [markdown]
# Now score each model at exactly those positions, by the probability it gives the word that came
# next, and turn the probabilities into a perplexity. The grammar's own probabilities set the floor.

# %% [demo]
# the true p(next word | the whole sentence so far), in the same order as the windows of X_valid
true_valid = torch.tensor([data.next_word_distribution(words[:t], grammar, without_held_out=True)[word]
                           for words in valid_words for t, word in enumerate(words + [data.EOS])])


def perplexity_at(probs):
    """exp of the mean negative log-probability of a list of probabilities."""
    return math.exp(-sum(math.log(p) for p in probs) / len(probs))


contexts, targets = X_valid[unseen], Y_valid[unseen]
with torch.no_grad():
    ffnn_probs = torch.softmax(small_model(contexts.to(device))[0], -1).cpu()
rows = {
    "true grammar": true_valid[unseen].tolist(),
    "FFNN (5 words)": ffnn_probs[torch.arange(len(targets)), targets].tolist(),
}
for n in (3, 6):
    ngram = NGramModel(n, k=0.01).fit(small_words)
    rows[f"{n}-gram, add-0.01"] = [ngram.prob(vocab.decode(c), vocab.itos[t])
                                   for c, t in zip(contexts.tolist(), targets.tolist())]
unseen_ppl = {name: perplexity_at(p) for name, p in rows.items()}
for name, value in unseen_ppl.items():
    print(f"{name:>18}: perplexity {value:7.3f} on the unseen-context positions")
viz.perplexity_bars(list(unseen_ppl)[1:], list(unseen_ppl.values())[1:], unseen_ppl["true grammar"],
                    title="positions with an unseen 5-word context (300 training sentences)",
                    floor_label=f"true grammar = {unseen_ppl['true grammar']:.3f}")
plt.show()

# %% [markdown]
# The 6-gram has nothing to go on in an unseen context: add-k smoothing gives every word the same
# probability, $1/V$. The trigram falls back on the last two words and ignores the animal. The FFNN
# reads the same five words as the 6-gram, but through embeddings: a context it never saw is *close*
# to contexts it did see, so it lands between the trigram and the truth.
#
# ### 7b. A combination never seen at all: the mouse in the bedroom
#
# The held-out sentences put a mouse in the bedroom, which no training sentence does. The true grammar
# (before we held the pair out) gives the bedroom about 0.12 after a mouse. How much do the models
# give it?

# %% [demo]
context = "the mouse was sleeping in the".split()
window = torch.tensor([vocab.encode(([data.BOS] * CONTEXT + context)[-CONTEXT:])])
with torch.no_grad():
    p_ffnn = torch.softmax(model(window.to(device))[0], -1)[0, vocab.index("bedroom")].item()
six_gram_mle, six_gram_k = NGramModel(6, k=0.0).fit(train_words), NGramModel(6, k=0.01).fit(train_words)
print(f"p(bedroom | {' '.join(context)}):")
print(f"  true grammar     {data.next_word_distribution(context, grammar)['bedroom']:.4f}")
print(f"  FFNN             {p_ffnn:.4f}")
print(f"  6-gram, MLE      {six_gram_mle.prob(context[-5:], 'bedroom'):.4f}")
print(f"  6-gram, add-0.01 {six_gram_k.prob(context[-5:], 'bedroom'):.4f}")
print(f"\nheld-out perplexity: FFNN {evaluate(model, iterate_batches(X_held, Y_held))['perplexity']:.3f}, "
      f"6-gram add-0.01 {six_gram_k.perplexity(held_out_words):.3f}")

# %% [markdown]
# The maximum-likelihood 6-gram gives the sentence probability **zero**. Smoothing gives the bedroom the
# same tiny share as any unseen word. The FFNN is more honest than either, but notice that it is not
# generous: it saw 600 sentences with a mouse, none of them in a bedroom, and it learned that too.
# Generalisation from similar words helps most where data is *sparse* (7a), not where the data
# consistently says no.
#
# ## 8. What the embeddings learned
#
# Words that the model had to treat alike should now have similar embeddings. **Cosine similarity**
# compares directions, not lengths:
#
# $$\cos(u, v) = \frac{u \cdot v}{\lVert u \rVert\,\lVert v \rVert}$$
#
# Write `nearest_neighbours(E, word_id, k)`: the ids of the `k` rows of `E` (V, m) most similar to row
# `word_id` by cosine similarity, most similar first, **without** `word_id` itself. Return a list of ints
# (or a 1-D tensor).

# %% [answer] id=nearest_neighbours
def nearest_neighbours(E, word_id, k):
    """The k word ids whose embeddings are most cosine-similar to E[word_id], most similar first."""
    ### BEGIN SOLUTION
    unit = E / E.norm(dim=-1, keepdim=True)  # (V, m), every row of length 1
    similarity = unit @ unit[word_id]  # (V,)
    similarity[word_id] = -math.inf
    return similarity.argsort(descending=True)[:k].tolist()
    ### END SOLUTION

# %% [tests] id=check_nearest_neighbours points=1
"""Check my answer: random embeddings of different lengths, two words, k = 3."""
checks.check_nearest_neighbours(nearest_neighbours)
### BEGIN HIDDEN TESTS
checks.check_nearest_neighbours(nearest_neighbours, vocab_size=30, dim=8, k=6, word_ids=(29, 1, 13), seed=7)
### END HIDDEN TESTS

# %% [markdown]
# Applied to the trained model's table $C$, leaving out the three special symbols (rows 0-2):

# %% [demo]
C = model.C.weight.detach().cpu()[3:]  # (V - 3, m): the real words
words = vocab.itos[3:]
for word in ["cat", "dogs", "walking", "kitchen", "is", "big"]:
    neighbours = [words[i] for i in nearest_neighbours(C, words.index(word), 3)]
    print(f"{word:>8}: {', '.join(neighbours)}")

# %% [markdown]
# A 2-D picture: project the 16-dimensional embeddings onto their two main directions (principal
# component analysis, done with an SVD). Look for the groups: the animals, singular and plural,
# together; "is", "was", "are", "were" together; "big" and "small" together. Nobody told the model
# what an animal or an auxiliary is: words that predict the same continuations end up close. Not
# every group separates in two of sixteen dimensions (rooms and verbs overlap here).

# %% [demo]
viz.embedding_projection(C, words, title="FFNN word embeddings (PCA)")
plt.show()

# %% [markdown]
# ## 9. Real English: the standard library's docstrings
#
# The cat/dog world is tiny. `data.docstring_sentences()` collects about 6000 sentences of English
# prose from the docstrings of the Python standard library on this machine (no download); every tenth
# module is kept for validation. Words seen fewer than 3 times become `<unk>`. Here no n-gram order is
# good: the trigram's contexts are too rare, the bigram sees too little.

# %% [demo]
doc_train_text, doc_valid_text = data.docstring_sentences()
doc_train = [data.tokenize(s) for s in doc_train_text]
doc_valid = [data.tokenize(s) for s in doc_valid_text]
doc_vocab = data.Vocab(doc_train, min_count=3)
doc_train = [doc_vocab.normalise(s) for s in doc_train]
doc_valid = [doc_vocab.normalise(s) for s in doc_valid]
print(f"{len(doc_train)} training sentences, {sum(map(len, doc_train))} words, vocabulary {len(doc_vocab)}")
print("e.g.:", doc_train_text[5])
doc_ngram = {n: NGramModel(n, k=0.01).fit(doc_train).perplexity(doc_valid) for n in (1, 2, 3)}
print("n-gram validation perplexity (add-0.01):", {n: round(p, 1) for n, p in doc_ngram.items()})

# %% [demo] pace=6
DOC_CONTEXT = 3
doc_X, doc_Y = context_windows([doc_vocab.encode(s) for s in doc_train], DOC_CONTEXT, 1, 2)
doc_Xv, doc_Yv = context_windows([doc_vocab.encode(s) for s in doc_valid], DOC_CONTEXT, 1, 2)
torch.manual_seed(0)
doc_model = FFNNLanguageModel(FFNNConfig(len(doc_vocab), DOC_CONTEXT, embed_dim=32, hidden_dim=128)).to(device)
doc_history = train(doc_model, window_batches(doc_X, doc_Y, batch_size=256),
                    TrainConfig(steps=1000, lr=3e-3, weight_decay=0.01, eval_every=100),
                    valid=lambda: iterate_batches(doc_Xv, doc_Yv, 4096))
doc_ppl = evaluate(doc_model, iterate_batches(doc_Xv, doc_Yv, 4096))["perplexity"]
print(f"FFNN validation perplexity {doc_ppl:.1f} (bigram {doc_ngram[2]:.1f}, trigram {doc_ngram[3]:.1f})")
doc_history.plot(title=f"FFNN on docstrings ({doc_history.seconds:.1f} s on {device})")
plt.show()

# %% [markdown]
# The validation loss bottoms out and then creeps up while the training loss keeps falling: with
# 80 000 words the model starts to memorise. Samples show what it picked up: the register of
# documentation ("return the ...", "if ... is not None"), if not much sense.

# %% [demo]
generated = sample(doc_model, torch.full((6, DOC_CONTEXT), 1), max_new_tokens=25, context_size=DOC_CONTEXT,
                   stop_id=2, generator=torch.Generator(device=device).manual_seed(1))
for row in generated.tolist():
    print("  ", " ".join(w for w in doc_vocab.decode(row[DOC_CONTEXT:]) if w != data.EOS))

# %% [markdown]
# ## 10. Try it: data size and window
#
# Retrain on the cat/dog world with fewer or more sentences and a shorter or longer window, and
# compare the FFNN with an n-gram model of the same window (add-0.01). Each move retrains for a
# couple of seconds. Things to try: a window of 2 (both models stuck above the floor, like a
# trigram); 100 sentences (the n-gram falls apart, the FFNN much less).

# %% [demo] pace=3
def compare_models(n_train=300, context_size=5):
    words = [data.tokenize(s) for s in data.train_valid_split(n_train, 0, 0, seed=11)[0]]
    X, Y = windows_of(words, context_size)
    Xv, Yv = windows_of(valid_words, context_size)
    torch.manual_seed(0)
    net = FFNNLanguageModel(FFNNConfig(len(vocab), context_size, 16, 64)).to(device)
    train(net, window_batches(X, Y, 64), TrainConfig(steps=400, lr=3e-3, weight_decay=0.1, progress=False))
    ppl = [NGramModel(context_size + 1, k=0.01).fit(words).perplexity(valid_words),
           evaluate(net, iterate_batches(Xv, Yv))["perplexity"]]
    viz.perplexity_bars([f"{context_size + 1}-gram", "FFNN"], ppl, floor,
                        title=f"{n_train} sentences, window of {context_size} words")
    plt.show()


FULL_LABEL = {"description_width": "110px"}  # wide enough for each slider's whole name
widgets.interact(compare_models,
                 n_train=widgets.SelectionSlider(options=[30, 100, 300, 1000, 3000], value=300, continuous_update=False,
                                                 style=FULL_LABEL),
                 context_size=widgets.IntSlider(value=5, min=1, max=6, continuous_update=False,
                                                style=FULL_LABEL));

# %% [markdown]
# **Question (graded by your instructor).** The FFNN and the 6-gram model read exactly the same five
# words of context. In two or three sentences: why does the 6-gram model collapse on contexts it has
# not seen (section 7a) while the FFNN does not, and why does the FFNN still give the held-out "mouse
# in the bedroom" much less than its true probability (section 7b)?

# %% [written] id=why_ffnn_generalises points=2
# *Model answer (instructors only).* The 6-gram stores one independent distribution per exact context;
# an unseen context has no counts, so smoothing leaves it uniform. The FFNN computes its prediction
# from the embeddings of the context words with one shared set of weights: words that behaved alike in
# training ("cat", "dog", "mouse"; "is", "was") get nearby vectors, so an unseen context maps to
# nearly the same hidden state as similar seen ones. For the mouse in the bedroom the data is not
# sparse but consistent: hundreds of mouse sentences, none in a bedroom, so maximum likelihood pushes
# that probability down; similarity to cats cannot outweigh direct evidence.
#
# *Marking:* 1 point for "shared weights / embeddings make unseen contexts similar to seen ones (no
# per-context table)"; 1 point for "the held-out pair is contradicted by many training sentences,
# not merely unseen" (or an equivalent argument about maximum likelihood on consistent evidence).

# %% [markdown]
# ## 11. Static word embeddings: word2vec
#
# The FFNN learned its embeddings as a by-product: they were whatever helped it predict the next
# word. The lecture's **distributional hypothesis** (Harris 1954, Firth 1957: "a word is characterized
# by the company it keeps") suggests a cheaper way to get them. If meaning shows in the contexts a word
# occurs in, train the embeddings on exactly that: *which words occur near which*.
#
# **Word2vec's skip-gram** (Mikolov et al. 2013) does it with no hidden layer and no softmax over the
# vocabulary. Every word $w$ has two vectors: $v_w$ when it is the **center** word and $u_w$ when it is
# a **context** word. For a center word $c$ and a word $o$ found within `window` positions of it, the
# model should say "yes, these occur together", and for $k$ random **negative** words $n_1, \dots, n_k$
# it should say "no". With $\sigma(x) = 1 / (1 + e^{-x})$ the loss of one pair is
#
# $$\ell(c, o) = -\log \sigma(u_o \cdot v_c) \;-\; \sum_{i=1}^{k} \log \sigma(-u_{n_i} \cdot v_c)$$
#
# a logistic regression that tells real context words from noise: **skip-gram with negative
# sampling** (SGNS). Its $v$ vectors are the word embeddings. You will write it in four parts: the
# training pairs, the distribution the negatives come from, drawing them, and the loss.
#
# ### 11a. Training pairs
#
# Each word of a sentence is a center once, paired with every word up to `window` positions before and
# after it. With `window = 1`, "open the file" (ids 7, 3, 9) gives the pairs (7, 3), (3, 7), (3, 9)
# and (9, 3): the words at the ends have fewer neighbours, and no word is paired with itself at its own
# position (the *same word* at another position is a real context: in "the file and the path" the
# two "the" are two words).
#
# Write `skipgram_pairs(ids, window)`: for one sentence of word ids, a list of `(center, context)`
# pairs of ints, for every center position and every context position within `window` of it. The
# order of the pairs does not matter (training shuffles them). (`course_lib.skipgram` is switched off
# while this is graded.)

# %% [answer] id=skipgram_pairs
def skipgram_pairs(ids, window):
    """[(center id, context id), ...]: each word with every word up to window positions before and after it."""
    ### BEGIN SOLUTION
    pairs = []
    for i, center in enumerate(ids):
        for j in range(max(0, i - window), min(len(ids), i + window + 1)):
            if j != i:
                pairs.append((center, ids[j]))
    return pairs
    ### END SOLUTION

# %% [tests] id=check_skipgram_pairs points=1
"""Check my answer: windows 1, 2 and 3 on sentences of 1 to 7 words, one with a repeated word."""
checks.check_skipgram_pairs(skipgram_pairs)
### BEGIN HIDDEN TESTS
checks.check_skipgram_pairs(skipgram_pairs, windows=(4, 2), sentences=[[0, 1, 0, 1, 0, 2], [6, 6], [1, 2, 3, 4, 5]])
### END HIDDEN TESTS

# %% [markdown]
# The corpus is section 9's docstrings, as word2vec sees text: lower-case words of letters only, and
# words seen fewer than 5 times dropped from the sentences (`course_lib.skipgram.corpus_words`). The
# pairs of the whole corpus come from the course's `skipgram_pairs`, which does what yours does for a
# list of sentences and returns an (N, 2) tensor.

# %% [demo]
import course_lib.skipgram as sg

WINDOW = 2
sg_sentences, sg_vocab, sg_counts = sg.corpus_words(doc_train_text, min_count=5)
sg_index = {w: i for i, w in enumerate(sg_vocab)}
sg_ids = [[sg_index[w] for w in s] for s in sg_sentences]
sg_pairs = sg.skipgram_pairs(sg_ids, WINDOW)  # (N, 2): center, context
print(f"{len(sg_vocab)} words seen at least 5 times, {int(sg_counts.sum())} words of text, "
      f"{len(sg_pairs)} (center, context) pairs with a window of {WINDOW}")
example = sg_sentences[5][:6]
print(" ".join(example), "->", [(a, b) for a, b in ((sg_vocab[c], sg_vocab[o])
                                                   for c, o in skipgram_pairs([sg_index[w] for w in example], 1))][:6])

# %% [markdown]
# ### 11b. Where the negatives come from
#
# The negatives are drawn from the **unigram distribution** (each word's share of the text), but
# raised to the power $3/4$ and renormalised:
#
# $$P_n(w) = \frac{\text{count}(w)^{3/4}}{\sum_{w'} \text{count}(w')^{3/4}}$$
#
# The power flattens the distribution: "the" is drawn a little less often than its share of the text,
# rare words more often, so the model also learns to reject them. (Mikolov et al. found $3/4$ worked
# best; it is a tuned constant, not a law.)
#
# Write `negative_distribution(counts)`: `counts` is an integer tensor (V,) of word counts; return a
# float tensor (V,) of probabilities that sums to 1.

# %% [answer] id=negative_distribution
def negative_distribution(counts):
    """(V,) float probabilities: count ** 0.75, renormalised to sum to 1."""
    ### BEGIN SOLUTION
    weights = counts.double() ** 0.75  # (V,)
    return weights / weights.sum()
    ### END SOLUTION

# %% [tests] id=check_negative_distribution points=1
"""Check my answer: three sets of counts, one with a word counted 0 times."""
checks.check_negative_distribution(negative_distribution)
### BEGIN HIDDEN TESTS
checks.check_negative_distribution(negative_distribution, counts=[[7, 7, 7, 1], [1000, 1, 0, 0, 30]])
### END HIDDEN TESTS

# %% [markdown]
# Drawing is then one call of `torch.multinomial(probs, n, replacement=True)`, which returns `n`
# indices, each index `i` drawn with probability `probs[i]`. **With** replacement: a frequent word may
# well be drawn twice as a negative for the same pair.
#
# Write `draw_negatives(distribution, num_pairs, k)`: a long tensor of shape (num_pairs, k), one row of
# k word ids for each pair, drawn independently from `distribution` (the output of
# `negative_distribution`, already powered: do not raise it again). The check draws 100 000 words and
# compares how often each comes out with its probability.

# %% [answer] id=draw_negatives
def draw_negatives(distribution, num_pairs, k):
    """(num_pairs, k) word ids, each drawn with probability distribution[id], with replacement."""
    ### BEGIN SOLUTION
    drawn = torch.multinomial(distribution, num_pairs * k, replacement=True)  # (num_pairs * k,)
    return drawn.view(num_pairs, k)
    ### END SOLUTION

# %% [tests] id=check_draw_negatives points=1
"""Check my answer: 20000 pairs with 5 negatives each, counted word by word."""
checks.check_draw_negatives(draw_negatives)
### BEGIN HIDDEN TESTS
checks.check_draw_negatives(draw_negatives, distribution=[0.0, 0.6, 0.1, 0.3], num_pairs=9000, k=7)
### END HIDDEN TESTS

# %% [markdown]
# On the docstrings, the power changes the shares like this:

# %% [demo]
unigram = sg_counts / sg_counts.sum()
powered = negative_distribution(sg_counts)
rare = sg_counts < 10
for word in ["the", "file", "thread", sg_vocab[-1]]:
    i = sg_index[word]
    print(f"{word:>10}: {100 * unigram[i]:6.3f}% of the text, {100 * powered[i]:6.3f}% of the negatives")
print(f"the {int(rare.sum())} words seen fewer than 10 times: {100 * unigram[rare].sum():.1f}% of the text, "
      f"{100 * powered[rare].sum():.1f}% of the negatives")
drawn = draw_negatives(powered, 2000, 5)
print("10 negatives drawn:", " ".join(sg_vocab[i] for i in drawn.flatten()[:10].tolist()))

# %% [markdown]
# ### 11c. The loss
#
# For a batch of $B$ pairs, the model looks up `v_center` (B, d) $= v_c$, `u_context` (B, d) $= u_o$ and
# `u_negative` (B, k, d), the $u$ vectors of each pair's k negatives. The loss is the mean over the batch
# of $\ell(c, o)$ above: the negative terms are **summed** over the k negatives, the pairs are
# **averaged**.
#
# Compute $\log \sigma(x)$ with `F.logsigmoid(x)`, not `torch.log(torch.sigmoid(x))`: for a score of
# $-200$, $\sigma$ rounds to 0 in float32 and its log is $-\infty$; `logsigmoid` never forms $\sigma(x)$
# (it is the log-sum-exp trick of section 5 once more: $\log \sigma(x) = -\log(1 + e^{-x})$). Note the
# minus sign inside the second $\sigma$: a negative word should score *low*.
#
# Write `sgns_loss(v_center, u_context, u_negative)`, returning a 0-dimensional tensor that carries
# gradients. (`F.binary_cross_entropy_with_logits`, which the check compares with, and the other
# binary cross-entropies are switched off while this is graded.) Hint: `(u_negative * v_center[:, None,
# :]).sum(-1)` or `torch.bmm` gives the (B, k) scores.

# %% [answer] id=sgns_loss
def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    ### BEGIN SOLUTION
    positive = (u_context * v_center).sum(-1)  # (B,): u_o . v_c
    negative = (u_negative * v_center[:, None, :]).sum(-1)  # (B, k): u_k . v_c
    return -(F.logsigmoid(positive) + F.logsigmoid(-negative).sum(-1)).mean()
    ### END SOLUTION

# %% [tests] id=check_sgns_loss points=2
"""Check my answer: against F.binary_cross_entropy_with_logits, also for scores of a few hundred, and its gradient."""
checks.check_sgns_loss(sgns_loss)
### BEGIN HIDDEN TESTS
checks.check_sgns_loss(sgns_loss, batch=1, k=6, dim=3, seed=4)
checks.check_sgns_loss(sgns_loss, batch=7, k=1, dim=8, seed=5, dtype=torch.float64)
### END HIDDEN TESTS

# %% [markdown]
# Why is this a sensible loss? Read it as binary classification: the context word is labelled 1, each
# negative 0, the score $u \cdot v_c$ is a logit. Your loss is the binary cross-entropy of that, and
# the course's `SkipGram` model computes the same on a batch of real pairs:

# %% [demo]
torch.manual_seed(0)
sg_model = sg.SkipGram(len(sg_vocab), 50)
torch.nn.init.normal_(sg_model.context.weight, std=0.1)  # not trained: random u vectors, for the comparison only
batch = sg_pairs[:256]
negatives = draw_negatives(powered, len(batch), 5)
with torch.no_grad():
    mine = sgns_loss(sg_model.center(batch[:, 0]), sg_model.context(batch[:, 1]), sg_model.context(negatives))
    theirs = sg_model(batch[:, 0], batch[:, 1], negatives)
print(f"your sgns_loss {mine.item():.5f} | SkipGram's loss {theirs.item():.5f} | (1 + k) log 2 = "
      f"{6 * math.log(2):.5f}, the loss when every score is 0")

# %% [markdown]
# ### 11d. Training, and gensim as the reference
#
# `course_lib.skipgram.train_skipgram` shuffles the pairs, draws 5 negatives per pair, and takes Adam
# steps on batches of the loss you wrote. The reference is **gensim**'s `Word2Vec`, the standard
# implementation (C code, plain SGD with a decaying learning rate, one pair at a time), given the same
# sentences and the same settings: skip-gram (`sg=1`), the same window, dimension, number of negatives
# and epochs, no down-sampling of frequent words (`sample=0`, which gensim would otherwise do by
# default), a fixed window (`shrink_windows=False`), one worker thread and a seed, so that its result is
# the same on every run.

# %% [demo]
DIM, NEGATIVES, EPOCHS = 50, 5, 3
with torch_threads(1):  # small batches of small vectors: one thread is faster than two competing ones
    sg_model, sg_history = sg.train_skipgram(sg_pairs, sg_counts, dim=DIM, negatives=NEGATIVES, epochs=EPOCHS,
                                             batch_size=2048, lr=1e-2, device=device)
print(f"course SkipGram: {sg_history.pairs} pairs in {sg_history.seconds:.1f} s on {device}; mean loss per epoch",
      [round(x, 3) for x in sg_history.epoch_loss])

from gensim.models import Word2Vec  # only this section needs gensim

start = time.perf_counter()
w2v = Word2Vec(sg_sentences, vector_size=DIM, window=WINDOW, negative=NEGATIVES, epochs=EPOCHS, sg=1, min_count=1,
               sample=0, shrink_windows=False, workers=1, seed=0)
gensim_seconds = time.perf_counter() - start
E_ours = sg_model.embeddings()  # (V, d): the center vectors v
E_gensim = torch.tensor(w2v.wv.vectors[[w2v.wv.key_to_index[w] for w in sg_vocab]])  # (V, d), rows in our order
print(f"gensim Word2Vec: {gensim_seconds:.1f} s on one CPU thread")

# %% [markdown]
# ### 11e. Neighbours
#
# Your `nearest_neighbours` from section 8 works on any embedding table. Side by side, the five nearest
# words of a few words in the two models:

# %% [demo]
for word in ["file", "directory", "thread", "socket", "true", "read", "string", "error"]:
    ours = [sg_vocab[i] for i in nearest_neighbours(E_ours, sg_index[word], 5)]
    theirs = [sg_vocab[i] for i in nearest_neighbours(E_gensim, sg_index[word], 5)]
    print(f"{word:>10} | ours: {', '.join(ours):<48} | gensim: {', '.join(theirs)}")

# %% [markdown]
# Two models trained differently (Adam on batches vs SGD one pair at a time, other random numbers)
# cannot give the same vectors, and the coordinates mean nothing on their own; what should agree is
# who is near whom. Measure it: for each of the 300 most frequent words, the share of its 10 nearest
# neighbours that both models list. Two unrelated tables would share about $10/(V-1)$ of them by chance.

# %% [demo]
TOP, K = 300, 10
overlap = sg.neighbour_overlap(E_ours, E_gensim, range(TOP), K)  # sg_vocab is most frequent first
chance = K / (len(sg_vocab) - 1)
print(f"neighbour overlap of the two models: {100 * overlap:.1f}% of the 10 nearest neighbours "
      f"(chance: {100 * chance:.2f}%)")

# %% [markdown]
# Far above chance and far from complete: each table is a noisy estimate from a small corpus, and the two
# agree on the strongest regularities (look for *true* ~ *false*, *read* ~ *reads*, *write*, *error* ~
# *unexpected*, *occurs* above) more than on the rest. Some neighbours are plainly noise.

# %% [markdown]
# ### 11f. Analogies, and what a small corpus cannot do
#
# Mikolov et al.'s famous result: on embeddings trained on billions of words, *king* − *man* +
# *woman* lands nearest to *queen*. Such an analogy "a is to b as c is to ?" is answered with the word
# whose vector is most cosine-similar to $v_b - v_a + v_c$, leaving out a, b and c themselves
# (`sg.analogy`; gensim's `most_similar(positive=[b, c], negative=[a])` is the same).
#
# There is no king or queen in the docstrings, so we build analogies from the corpus' own
# vocabulary: pairs of frequent words whose plural or other form with *-s*, *-ed* or *-ing* is in the
# vocabulary too ("file : files :: name : names", "return : returned :: call : called"), every ordered
# pair of two such pairs (`sg.suffix_analogies`).

# %% [demo]
quads = sg.suffix_analogies(sg_vocab)
quad_ids = [tuple(sg_index[w] for w in q) for q in quads]
acc_ours, acc_gensim = sg.analogy_accuracy(E_ours, quad_ids), sg.analogy_accuracy(E_gensim, quad_ids)
print(f"{len(quads)} analogies; right: ours {100 * acc_ours:.1f}%, gensim {100 * acc_gensim:.1f}% "
      f"(chance: {100 / (len(sg_vocab) - 3):.2f}%)")
for a, b, c, d in quads[::60]:
    guess = sg_vocab[sg.analogy(E_ours, sg_index[a], sg_index[b], sg_index[c])]
    print(f"  {a} : {b} :: {c} : ?  ->  {guess:<12} ({'right' if guess == d else 'wanted ' + d})")

# %% [markdown]
# Both models get most of these analogies wrong, as the accuracies above say; far more than chance, so
# the vectors hold a little of the regularity, but no more. This is what to expect: word2vec's analogies
# were shown on billions of words, and our corpus has the number of words printed in 11a, a
# ten-thousandth of that or less. An offset such as *file* → *files* is the difference of two noisy
# vectors, each estimated from a few hundred occurrences, and the noise swamps it. Neighbours need much
# less data than analogies.
#
# A picture of a few groups of words, projected on their two main directions as in section 8 (the same
# words in both models; a PCA's axes may come out flipped or rotated between models, so compare which
# words sit together, not where). *true*, *false* and *none* form a group apart in both; the rest
# separates less cleanly in two of fifty dimensions.

# %% [demo]
groups = ["file", "files", "directory", "path", "thread", "threads", "lock", "process", "true", "false", "none",
          "read", "write", "open", "close", "string", "bytes", "integer", "list", "tuple", "dict"]
fig, axes = plt.subplots(1, 2, figsize=(13, 5.5))
for ax, E, name in [(axes[0], E_ours, "course SkipGram"), (axes[1], E_gensim, "gensim Word2Vec")]:
    viz.embedding_projection(E[[sg_index[w] for w in groups]], groups, title=f"{name} (PCA)", ax=ax)
plt.tight_layout()
plt.show()

# %% [markdown]
# ### 11g. One vector per word: the foil for contextual embeddings
#
# Word2vec gives every word **one** vector, whatever the sentence: a *type-based* (static) embedding, in
# the lecture's words, like Bengio's. A word with several senses gets one vector that mixes them. A
# large pretrained model shows this clearly. The first layer of MiniLM (the BERT model of notebook 07)
# is a static embedding table too: one row of 384 numbers per WordPiece token, looked up before any
# layer has read the sentence. Its nearest neighbours among the whole-word tokens:

# %% [demo]
table, tokens = sg.minilm_word_embeddings()  # (30522, 384), the pretrained model's input embeddings
whole = [i for i, t in enumerate(tokens) if t.isalpha()]
E_minilm, minilm_words = table[whole], [tokens[i] for i in whole]
for word in ["bank", "apple"]:
    print(f"{word:>6}:", ", ".join(minilm_words[i] for i in nearest_neighbours(E_minilm, minilm_words.index(word), 10)))
unit = E_minilm / E_minilm.norm(dim=-1, keepdim=True)
for word, senses in [("bank", ["money", "river"]), ("apple", ["iphone", "fruit"])]:
    ranks = (unit @ unit[minilm_words.index(word)]).argsort(descending=True).tolist()
    print(f"{word}: " + ", ".join(f"'{s}' is neighbour number {ranks.index(minilm_words.index(s))}" for s in senses))

# %% [markdown]
# The table puts "bank" among money words: its river sense, rarer in the text MiniLM learned from, is
# averaged away (look how far down "river" comes). "apple" is a company and a fruit at once. One vector
# per word cannot tell *"the bank of the river"* from *"the bank raised its rates"*; a model that reads
# the sentence can. That is notebook 07: the same table is MiniLM's first step, and its layers then
# give "bank" a different vector in every sentence (a *token-based*, contextual embedding), which you
# will measure layer by layer.

# %% [markdown]
# ## Summary
#
# - An embedding lookup `E[ids]` is a one-hot vector times a matrix, without building the vector.
# - Bengio's FFNN LM: concatenated embeddings of the $n-1$ previous words, $y = b + Wx + U\tanh(d + Hx)$,
#   softmax. Its size grows linearly with the window, not as $V^{n-1}$.
# - Cross-entropy is $-z_t + \log\sum_j e^{z_j}$; subtract the maximum before exponentiating.
# - On the cat/dog world the FFNN gets within a few percent of the exact entropy floor, where the
#   trigram cannot; on contexts it never saw it stays sensible where the 6-gram gives up.
# - The embeddings organise themselves: cat near dog, walking near running.
# - Word2vec's skip-gram with negative sampling learns embeddings from (center, context) pairs alone:
#   $-\log\sigma(u_o \cdot v_c) - \sum_k \log\sigma(-u_{n_k} \cdot v_c)$, negatives drawn from the unigram
#   distribution to the power 3/4. Neighbours come out well even on a small corpus; analogies need far more
#   text. Every word gets one vector, whatever its sense in a sentence.
#
# Its weakness is the fixed window: a word outside the last $n-1$ is invisible. Notebook 03 removes
# the window with a **recurrent** network that carries a state along the whole sentence.
