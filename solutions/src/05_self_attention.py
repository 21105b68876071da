# ---
# cell_timeout: 60
# checks: course_lib.checks.self_attention
# ---

# %% [markdown]
# # 05 · Self-attention: queries, keys and values
#
# A recurrent network reads a sentence one word at a time and squeezes everything it has seen
# into one hidden state. To connect "machines" with "Computers" three words back, the
# information has to survive three steps of that squeeze. **Attention** lets a word look at
# other words directly, in one step, and decide how much of each to take. It was invented for
# translation, where a decoder looks back at the source sentence; **self-attention** lets every
# word of one sentence look at every other word of the same sentence.
#
# In this notebook you will:
#
# 1. write the four **score functions** of the lecture (dot, scaled dot, bilinear, MLP) and train an
#    encoder-decoder that attends with them: it learns to reverse sequences where the same network
#    without attention fails, and its alignment is visible;
# 2. fill in the lecture's *"Computers are thinking machines"* table by hand, cell by cell;
# 3. write the same computation in matrix form: `attention_scores`, `softmax`, `self_attention`;
# 4. add a **causal mask** so a word cannot look at the future (the lecture's "I am space invader");
# 5. recompute the lecture's *"brown dog"* example and see why the scores are divided by $\sqrt{d_k}$.
#
# **How the exercises work.** Cells that say `# YOUR CODE HERE` / `raise NotImplementedError()`
# are yours: replace those two lines with your code. The read-only cell right after each exercise,
# starting with `"""Check my answer ..."""`, checks it: run it and it prints `✔ ... correct` or one
# sentence naming what is wrong. When
# your work is graded, the same checks run again together with hidden ones (other shapes, other
# numbers), so solve the general problem, not only the example. Run the cells from top to bottom.

# %% [setup] id=setup
import math

import ipywidgets as widgets
import matplotlib.pyplot as plt
import torch

from course_lib import viz
from course_lib.checks import self_attention as checks
from course_lib.device import get_device
checks.install_notebook_hooks()  # an answer not written yet says so in one line, not a traceback

torch.set_printoptions(precision=4, sci_mode=False)
device = get_device()
print(f"torch {torch.__version__}, running on {device}")

# %% [markdown]
# ## 1. Where attention came from: a decoder that looks back
#
# Before the Transformer, translation was done by an **encoder-decoder** of two RNNs (the lectures
# "Machine Learning, Big Data and AI: Block 6" and "Pre-trained NLP Model: BERT" draw it): the encoder reads the source
# sentence, and its last hidden state, one vector, is all the decoder gets to write the output
# from. A long sentence does not fit through one vector. The lecture "LSTMs & Transformers" asks: *what if the
# decoder, at each step, pays attention to a distribution over **all** of the encoder's hidden
# states?* (Bahdanau et al., 2015).
#
# At each output step the decoder's current state is compared with every encoder state by a
# **score function**; a softmax turns the scores into weights that sum to 1; the weighted average
# of the encoder states, the *context*, goes into the decoder's next prediction. The names used
# for the rest of the course come from retrieval: the decoder's state is the **query**, the
# encoder's states are the **keys** it is compared with and the **values** that are averaged.
#
# The lecture lists three score functions; the fourth is the one the Transformer uses (section 8
# shows why it divides by $\sqrt{d_k}$):
#
# | name | score of query $q$ against key $k$ | parameters |
# |---|---|---|
# | dot | $q^\top k$ | none: $q$ and $k$ have the same length $d$ |
# | scaled dot | $q^\top k \,/\, \sqrt{d_k}$ | none |
# | bilinear (multiplicative) | $q^\top W k$ | $W$ of shape $(d_q, d_k)$: $q$ and $k$ may differ in length |
# | MLP (additive) | $v^\top \tanh(W q + U k)$ | $W$ $(d_a, d_q)$, $U$ $(d_a, d_k)$, $v$ $(d_a,)$: $d_a$ hidden units |
#
# The lecture writes the MLP score as $w_2^\top \tanh(W_1 [q; k])$: $W_1$ applied to $q$ and $k$
# stacked into one vector is the same as $W q + U k$ with $W_1 = [W \; U]$.
#
# **Shapes.** Each score function scores *all* queries against *all* keys at once, with any number
# of leading batch dimensions, like every function in this notebook:
#
# ```
# Q        (..., n_q, d_q)    one query per row
# K        (..., n_k, d_k)    one key per row
# returns  (..., n_q, n_k)    entry [..., i, j] = score(query i, key j)
# ```
#
# In the decoder below, `Q` is one step's state, shape `(batch, 1, d)`, and `K` holds the encoder's
# states, shape `(batch, n_source, d)`. Use `K.transpose(-2, -1)` (not `K.T`, which reverses *every*
# axis of a batched tensor) to swap only the last two axes. PyTorch's attention functions and
# `nn.Bilinear` are switched off while these are graded.
#
# Write `dot_score(Q, K)`: entry `[..., i, j]` is the dot product of query `i` with key `j`. The
# check starts with a case small enough to do by hand: the queries `[[1, 0], [0, 1], [1, 1]]` and
# the keys `[[1, 2], [3, 4], [5, 6]]` give the scores `[[1, 3, 5], [2, 4, 6], [3, 7, 11]]`.

# %% [answer] id=dot_score
def dot_score(Q, K):
    """Dot-product scores q_i . k_j: Q (..., n_q, d), K (..., n_k, d) -> (..., n_q, n_k)."""
    ### BEGIN SOLUTION
    return Q @ K.transpose(-2, -1)                          # (..., n_q, d) @ (..., d, n_k)
    ### END SOLUTION

# %% [tests] id=check_dot_score points=1
"""Check my answer: dot_score against a float64 einsum, on a small example you can check by hand and on a
random batch."""
checks.check_dot_score(dot_score)
### BEGIN HIDDEN TESTS
checks.check_dot_score(dot_score, batch=(2, 3), n_q=4, n_k=6, d=8, dtype=torch.float64, seed=41, seed_table=False)
checks.check_dot_score(dot_score, batch=(), n_q=7, n_k=2, d=5, seed=42, seed_table=False)
### END HIDDEN TESTS

# %% [markdown]
# Write `scaled_dot_score(Q, K)`: the dot scores divided by $\sqrt{d_k}$, where $d_k$ is the length
# of one key (the last axis of `K`, which is also the last axis of `Q`). You may call your
# `dot_score`.

# %% [answer] id=scaled_dot_score
def scaled_dot_score(Q, K):
    """Scaled dot-product scores q_i . k_j / sqrt(d_k): Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k)."""
    ### BEGIN SOLUTION
    return dot_score(Q, K) / math.sqrt(K.shape[-1])
    ### END SOLUTION

# %% [tests] id=check_scaled_dot_score points=1
"""Check my answer: scaled_dot_score against a float64 einsum divided by sqrt(d_k), on the small example and a
random batch."""
checks.check_scaled_dot_score(scaled_dot_score)
### BEGIN HIDDEN TESTS
checks.check_scaled_dot_score(scaled_dot_score, batch=(2, 3), n_q=4, n_k=6, d=8, dtype=torch.float64, seed=43,
                              seed_table=False)
checks.check_scaled_dot_score(scaled_dot_score, batch=(5,), n_q=2, n_k=9, d=3, seed=44, seed_table=False)
### END HIDDEN TESTS

# %% [markdown]
# Write `bilinear_score(Q, K, W)`: $q_i^\top W k_j$ for every query $i$ and key $j$. `W` has shape
# `(d_q, d_k)`, one row per entry of a query and one column per entry of a key, so a query of
# length $d_q$ can be scored against keys of another length $d_k$. For a single query `q` and a
# single key `k` the score is `q @ W @ k`; write it for all pairs at once (follow the shapes).

# %% [answer] id=bilinear_score
def bilinear_score(Q, K, W):
    """Bilinear scores q_i^T W k_j: Q (..., n_q, d_q), K (..., n_k, d_k), W (d_q, d_k) -> (..., n_q, n_k)."""
    ### BEGIN SOLUTION
    return (Q @ W) @ K.transpose(-2, -1)                    # (..., n_q, d_k) @ (..., d_k, n_k)
    ### END SOLUTION

# %% [tests] id=check_bilinear_score points=2
"""Check my answer: bilinear_score against a float64 einsum, with a square W and with d_q != d_k."""
checks.check_bilinear_score(bilinear_score)
### BEGIN HIDDEN TESTS
checks.check_bilinear_score(bilinear_score, batch=(2, 3), n_q=4, n_k=6, d_q=5, d_k=3, dtype=torch.float64, seed=45,
                            square=False)
checks.check_bilinear_score(bilinear_score, batch=(), n_q=2, n_k=7, d_q=6, d_k=6, seed=46, square=False)
### END HIDDEN TESTS

# %% [markdown]
# Write `additive_score(Q, K, W, U, v)`: $v^\top \tanh(W q_i + U k_j)$ for every query $i$ and key
# $j$. As in the formula, `W` has shape `(d_a, d_q)` and `U` has shape `(d_a, d_k)`: $W q$ turns a
# query into $d_a$ numbers and $U k$ turns a key into $d_a$ numbers (with queries as the *rows* of
# `Q`, that is `Q @ W.T`). Each (query, key) pair adds its two vectors of $d_a$ numbers, takes the
# tanh, and the dot product with `v` (shape `(d_a,)`) makes it one number. Broadcasting forms every
# pair at once: a `(..., n_q, 1, d_a)` tensor plus a `(..., 1, n_k, d_a)` tensor is
# `(..., n_q, n_k, d_a)`.

# %% [answer] id=additive_score
def additive_score(Q, K, W, U, v):
    """Additive (MLP) scores v . tanh(W q_i + U k_j): Q (..., n_q, d_q), K (..., n_k, d_k),
    W (d_a, d_q), U (d_a, d_k), v (d_a,) -> (..., n_q, n_k)."""
    ### BEGIN SOLUTION
    queries = (Q @ W.T).unsqueeze(-2)                       # (..., n_q, 1, d_a)
    keys = (K @ U.T).unsqueeze(-3)                          # (..., 1, n_k, d_a)
    return torch.tanh(queries + keys) @ v                   # (..., n_q, n_k, d_a) @ (d_a,) -> (..., n_q, n_k)
    ### END SOLUTION

# %% [tests] id=check_additive_score points=2
"""Check my answer: additive_score against an explicit loop over (query, key) pairs in float64."""
checks.check_additive_score(additive_score)
### BEGIN HIDDEN TESTS
checks.check_additive_score(additive_score, batch=(2, 3), n_q=4, n_k=5, d_q=3, d_k=6, d_a=7, dtype=torch.float64,
                            seed=47, square=False)
checks.check_additive_score(additive_score, batch=(), n_q=6, n_k=2, d_q=2, d_k=2, d_a=9, seed=48, square=False)
### END HIDDEN TESTS

# %% [markdown]
# The four scores side by side, for one query against four keys (the word vectors of the lecture's
# "Computers are thinking machines" example, which section 4 works through), with random weights for
# the bilinear and the MLP score. The dot score and the scaled one rank the keys the same way; the
# scaling only makes the weights less peaked. The other two depend on their weights, which a model
# learns.

# %% [demo]
g = torch.Generator().manual_seed(0)
keys = checks.thinking_machines()                                  # (4, 2): four keys of length 2
query = keys[3:]                                                   # (1, 2): the vector of "machines" as the query
W_bilinear = torch.randn(2, 2, generator=g, dtype=torch.float64)   # (d_q, d_k)
W_add, U_add = (torch.randn(8, 2, generator=g, dtype=torch.float64) for _ in range(2))   # (d_a, d_q), (d_a, d_k)
v_add = torch.randn(8, generator=g, dtype=torch.float64)           # (d_a,)
for name, s in [("dot", dot_score(query, keys)), ("scaled dot", scaled_dot_score(query, keys)),
                ("bilinear", bilinear_score(query, keys, W_bilinear)),
                ("MLP", additive_score(query, keys, W_add, U_add, v_add))]:
    print(f"{name:>10s}  scores {s[0].numpy().round(3)}  weights {torch.softmax(s[0], -1).numpy().round(3)}")

# %% [markdown]
# ## 2. An encoder-decoder that learns to reverse, with your score functions
#
# `course_lib.seq2seq.Seq2Seq` is the model of the attention slides, small. Its recurrences are
# **GRUs** (gated recurrent units, Cho et al., 2014), a lighter cousin of notebook 04's LSTM: no
# separate cell state, and two gates instead of three. The **update gate** $z_t$ decides, number by
# number, how much of the old state to keep; it plays the LSTM's forget and input gates at once, tied
# as $z_t$ and $1 - z_t$. The **reset gate** $r_t$ decides how much of the old state the candidate
# $n_t$ may read. In PyTorch's notation (`nn.GRU`):
#
# $$r_t = \sigma(W_r x_t + U_r h_{t-1} + b_r), \quad z_t = \sigma(W_z x_t + U_z h_{t-1} + b_z), \quad
#   n_t = \tanh\big(W_n x_t + r_t \odot (U_n h_{t-1} + b_{hn}) + b_{in}\big), \quad
#   h_t = (1 - z_t) \odot n_t + z_t \odot h_{t-1}$$
#
# As in the LSTM's cell, the new state is a gated *sum* with the old one, so with $z_t$ near 1 the
# state and its gradient pass through a step almost untouched; and with three weight blocks instead of
# four it is a quarter smaller than an LSTM of the same width. A bidirectional GRU
# **encoder** reads the source symbols and keeps one state per position: these are the keys and the
# values. A GRU **decoder** writes the output one symbol at a time. At each step its state is the
# query: **your score function** scores it against every encoder state, a softmax turns the scores
# into weights, and the weighted average of the encoder states (the *context*) joins the decoder's
# state to predict the next symbol.
#
# The task is one where we know where the model *should* look: **reverse a sequence** of letters,
# `abcdef -> fedcba`. Output symbol $t$ is source symbol $n-1-t$, so the right alignment is the
# anti-diagonal. Two models train for a few seconds each on sequences of 3 to 10 letters, one scoring
# with your `additive_score` (the score of Bahdanau et al., 2015) and one with your `scaled_dot_score`
# (the Transformer's). The seeds are fixed, so every run gives the same numbers.

# %% [demo] pace=2.5
from course_lib import seq2seq
from course_lib.train import TrainConfig, train

NUM_SYMBOLS, LENGTHS = 8, list(range(3, 11))
reversal = seq2seq.reversal_batches(LENGTHS, batch_size=64, num_symbols=NUM_SYMBOLS)
TRAINING = TrainConfig(steps=250, lr=1e-2, progress=False, seed=0)


def train_reverser(score, score_fn=None):
    """A small encoder-decoder (score=None: without attention), trained on the reversal task."""
    torch.manual_seed(0)
    model = seq2seq.Seq2Seq(seq2seq.Seq2SeqConfig(NUM_SYMBOLS, score=score), score_fn=score_fn).to(device)
    history = train(model, reversal, TRAINING)
    test = seq2seq.reversal_accuracy(model, LENGTHS[-1])
    print(f"{score or 'no attention':>12s}: {history.seconds:4.1f} s, last loss {history.train_loss[-1]:.3f}, "
          f"length {LENGTHS[-1]}: {test['symbols']:.1%} of letters and {test['sequences']:.1%} of sequences right")
    return model


reversers = {"additive": train_reverser("additive", additive_score),
             "scaled dot": train_reverser("scaled_dot", scaled_dot_score)}

# %% [markdown]
# Where does the decoder look? Each row of the heat map is one output step, its weights over the
# source letters. The model was never told to reverse anything, only rewarded for the right letters,
# and it found the anti-diagonal: to write output letter $t$ it reads source position $n-1-t$
# (after this short run the additive score's alignment is the sharper of the two).
# This is the picture the lecture "LSTMs & Transformers" shows for translation (Bahdanau et al.'s Fig. 3), where the
# alignment mostly follows the diagonal and bends where the two languages order words differently.

# %% [demo]
source, _ = seq2seq.reversal_batch(1, 9, NUM_SYMBOLS, torch.Generator().manual_seed(7))
fig, axes = plt.subplots(1, 2, figsize=(13, 5.5))
for ax, (name, model) in zip(axes, reversers.items()):
    with torch.no_grad():
        logits, alignment = model.decode(source.to(device))      # (1, T, V), (1, T, S)
    viz.attention_heatmap(alignment[0], seq2seq.symbols(logits[0].argmax(-1)), seq2seq.symbols(source[0]), ax=ax,
                          title=f"{name} score: output (rows) attends to source (columns)")
    ax.set_xlabel("source letter (key)")
    ax.set_ylabel("output letter (query)")
fig.tight_layout()
plt.show()

# %% [markdown]
# ### Without attention, the sentence must fit through one vector
#
# The same network without attention gets only the encoder's final states, 64 numbers, and must
# unpack the whole sequence from them. Short sequences fit; long ones do not. The sweep below
# measures the fraction of letters each model gets right at each length (greedy decoding of 500
# fresh sequences per length).

# %% [demo] pace=2
reversers["no attention"] = train_reverser(None)
fig, ax = plt.subplots(figsize=(7, 4))
for name, model in reversers.items():
    accuracy = [seq2seq.reversal_accuracy(model, n)["symbols"] for n in LENGTHS]
    ax.plot(LENGTHS, accuracy, "o-", label=name)
    print(f"{name:>12s}: " + "  ".join(f"{n}: {a:.2f}" for n, a in zip(LENGTHS, accuracy)))
ax.axhline(1 / NUM_SYMBOLS, color="0.6", ls=":", label="guessing")
ax.set_xlabel("sequence length")
ax.set_ylabel("letters right")
ax.set_ylim(0, 1.02)
ax.set_title("reversal: accuracy against length")
ax.legend()
plt.show()

# %% [markdown]
# With attention most letters come out right at every length; without it, the accuracy falls
# steadily as the sequence grows, because every extra letter has to share the same fixed-size state.
# Attention removes the bottleneck: the decoder reads what it needs from the source when it needs it.
#
# Are the few mistakes at the longest lengths a limit of the model, or of these few seconds?
# `benchmarks/encoder_decoder.py` (in the course's repository; its results ship with `course_lib`)
# trained the same additive model, with the same sizes, batch size and learning rate, for longer:

# %% [demo]
from IPython.display import Markdown, display

from course_lib.encoder_decoder import load_comparison

longer = load_comparison()
gru_run = longer["models"]["GRU with attention"]["checkpoints"]
short = min(gru_run, key=lambda point: abs(point["steps"] - TRAINING.steps))  # the checkpoint nearest this run
long = gru_run[-1]
changes = [(n, short["symbols"][str(n)], long["symbols"][str(n)]) for n in LENGTHS[-3:]]
shrink = all(after >= before for _, before, after in changes)
display(Markdown(
    f"Letters right after {short['steps']} steps (about this notebook's {TRAINING.steps}) and after "
    f"{long['steps']} steps: " + "; ".join(f"length {n}: {before:.3f} → {after:.3f}" for n, before, after in changes)
    + f". Whole sequences of length {LENGTHS[-1]} right: {short['sequences'][str(LENGTHS[-1])]:.1%} → "
    f"{long['sequences'][str(LENGTHS[-1])]:.1%}. "
    + ("The mistakes at the longest lengths shrink with the longer run." if shrink else
       "The longer run does not remove the mistakes at every one of the longest lengths.")
    + f" (Measured {longer['meta']['date'][:10]} on {longer['meta']['cpu']}, one thread.)"))

# %% [markdown]
# ### From here to the Transformer
#
# Look at what the decoder did at each step: its state was a **query**, compared with the encoder's
# states as **keys**, and the weights averaged the same states as **values**. Queries from one
# sequence (the output being written), keys and values from another (the source): that is
# **cross-attention**, and notebook 06 builds it into the Transformer's decoder block, with the
# scaled dot score instead of the additive one and the queries, keys and values made by learned
# matrices. The dot product wins there because it scores all pairs with one matrix product, fast on
# any hardware, where the MLP score needs a hidden layer per pair; and the bilinear score's $W$ is
# what the learned key matrix $W_k$ of section 3 already provides ($q^\top W k = q \cdot (W k)$).
#
# The Transformer's second step was to drop the recurrence altogether: if attention can read any
# position directly, let **every word of one sentence attend to every word of the same sentence**.
# That is **self-attention**, the rest of this notebook.

# %% [markdown]
# ## 3. Self-attention: queries, keys and values from one sentence
#
# The names come from retrieval: *you fire a query, compare it with every key, and get back the
# values whose keys match best*. A dictionary does this with exact matches; attention does it
# softly, with a weighted average.
#
# In section 2 the query was the decoder's state, and the encoder's states were both the keys and
# the values. In self-attention all three come from the same sentence, and each is made by its own
# learned matrix, so that what a word looks for (its query) can differ from what it offers to be
# found by (its key) and from what it passes on (its value). Each word $x_i$ gets three vectors:
#
# $$q_i = W_q\, x_i \qquad k_i = W_k\, x_i \qquad v_i = W_v\, x_i$$
#
# To compute the new representation $z_i$ of word $i$:
#
# 1. **score** word $i$'s query against every key: $s_{ij} = q_i \cdot k_j$;
# 2. **scale** the scores by $1/\sqrt{d_k}$, where $d_k$ is the length of a key (section 8 shows why);
# 3. **softmax** the scaled scores of word $i$, so its weights $a_{ij}$ are positive and sum to 1;
# 4. **weight** each value by its weight, $a_{ij}\, v_j$;
# 5. **sum**: $z_i = \sum_j a_{ij}\, v_j$.
#
# In matrix form, for all words at once:
#
# $$Z = \mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V$$

# %% [markdown]
# ## 4. "Computers are thinking machines", by hand
#
# The lecture's exercise gives each word a one-hot embedding and, to keep the arithmetic small,
# sets $Q = K = V$ (in a trained model the three matrices differ). With one-hot inputs, the
# projection of word $i$ is just row $i$ of the matrix:

# %%
words = checks.WORDS
X = checks.thinking_machines()            # (4 words, d_k = 2), float64
one_hot = torch.eye(4, dtype=X.dtype)     # "Computers" = [1 0 0 0], ...
Q = K = V = one_hot @ X                   # one-hot times the matrix picks out its rows
for word, q in zip(words, Q):
    print(f"{word:>10s}: q = k = v = {q.tolist()}")

# %% [markdown]
# We compute $z$ for **machines**, the fourth word. Its query is $q_4 = [0.7, 0.7]$.
#
# **Step 1 · scores.** Set `machines_scores` to the four dot products $q_{\text{machines}} \cdot k_j$,
# one per word $j$ (a tensor or a list of 4 numbers). The slide's row reads 0.70 0.21 -0.49 0.98.

# %% [answer] id=table_scores
### BEGIN SOLUTION
machines_scores = K @ Q[3]
### END SOLUTION
print(machines_scores)

# %% [tests] id=check_table_scores points=1
"""Check my answer: the four raw dot products q_machines . k_j."""
checks.check_machines_step("scores", machines_scores)
### BEGIN HIDDEN TESTS
checks.check_machines_step("scores", machines_scores, exact=True)
### END HIDDEN TESTS

# %% [markdown]
# **Step 2 · scale.** Divide by $\sqrt{d_k}$. Here keys have two numbers, so $d_k = 2$.

# %% [answer] id=table_scaled
### BEGIN SOLUTION
machines_scaled = machines_scores / math.sqrt(2)
### END SOLUTION
print(machines_scaled)

# %% [tests] id=check_table_scaled points=1
"""Check my answer: the scores divided by sqrt(d_k)."""
checks.check_machines_step("scaled", machines_scaled)
### BEGIN HIDDEN TESTS
checks.check_machines_step("scaled", machines_scaled, exact=True)
### END HIDDEN TESTS

# %% [markdown]
# **Step 3 · softmax.** $a_j = e^{s_j} / \sum_{j'} e^{s_{j'}}$. Use `torch.exp` and a sum (you will
# write a general `softmax` in section 5). The four weights must add up to 1.

# %% [answer] id=table_weights
### BEGIN SOLUTION
exps = torch.exp(machines_scaled)
machines_weights = exps / exps.sum()
### END SOLUTION
print(machines_weights, "sum =", float(machines_weights.sum()))

# %% [tests] id=check_table_weights points=1
"""Check my answer: softmax of the scaled scores."""
checks.check_machines_step("weights", machines_weights)
### BEGIN HIDDEN TESTS
checks.check_machines_step("weights", machines_weights, exact=True)
### END HIDDEN TESTS

# %% [markdown]
# **Step 4 · weight the values.** `machines_weighted_values` has one row per word: row $j$ is
# $a_j\, v_j$ (shape 4 × 2). Broadcasting helps: a `(4, 1)` column times a `(4, 2)` matrix.

# %% [answer] id=table_weighted
### BEGIN SOLUTION
machines_weighted_values = machines_weights[:, None] * V
### END SOLUTION
print(machines_weighted_values)

# %% [tests] id=check_table_weighted points=1
"""Check my answer: each value vector times its weight."""
checks.check_machines_step("weighted_values", machines_weighted_values)
### BEGIN HIDDEN TESTS
checks.check_machines_step("weighted_values", machines_weighted_values, exact=True)
### END HIDDEN TESTS

# %% [markdown]
# **Step 5 · sum.** $z_{\text{machines}}$ is the sum of those rows.

# %% [answer] id=table_z
### BEGIN SOLUTION
z_machines = machines_weighted_values.sum(dim=0)
### END SOLUTION
print(z_machines)

# %% [tests] id=check_table_z points=1
"""Check my answer: z for "machines", exact to four decimals."""
checks.check_machines_step("z", z_machines)
### BEGIN HIDDEN TESTS
checks.check_machines_step("z", z_machines, exact=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Why the slide says [0.23 0.54] in its table and [0.24 0.55] in its text
#
# The exact answer is $z = [0.2331, 0.5464]$. The slide's table rounds every intermediate row
# to two decimals before adding them up, and rounding errors add up too. The cell below redoes
# the computation rounding at different steps: rounding the weights *and* the weighted rows
# gives the table's [0.23 0.54]. No way of rounding the slide's own inputs gives the text's
# [0.24 0.55]; it is a slip. Keep full precision until the end and round only what you print.

# %%
def rounded(t, decimals=2):
    return torch.round(t * 10**decimals) / 10**decimals

for round_weights in (False, True):
    for round_rows in (False, True):
        w = rounded(machines_weights) if round_weights else machines_weights
        rows = w[:, None] * V
        rows = rounded(rows) if round_rows else rows
        z = rows.sum(0)
        print(f"round weights: {round_weights!s:5}  round rows: {round_rows!s:5}  ->  z = [{z[0]:.4f}, {z[1]:.4f}]")

# %% [markdown]
# ## 5. All four words at once: matrix form
#
# The table computed one row of a matrix. Every word does the same thing with its own query, so
# we stack the queries as rows of $Q$ (shape `(n, d_k)`) and compute all scores with one matrix
# product. Your functions must also work with **leading batch and head dimensions**: `Q` may have
# shape `(batch, heads, n, d_k)`. Use `K.transpose(-2, -1)` (not `K.T`) so only the last two
# dimensions swap, and `Q.shape[-1]` for $d_k$.
#
# Write `attention_scores(Q, K)` returning $Q K^\top / \sqrt{d_k}$, shape `(..., n_q, n_k)`.
# It is your `scaled_dot_score` of section 1 under the name the rest of the course uses, so
# `return scaled_dot_score(Q, K)` is a fine answer (the check lends it a correct `scaled_dot_score`,
# so a mistake there costs points only once). PyTorch's own attention functions are switched off
# while this is graded.

# %% [answer] id=attention_scores
def attention_scores(Q, K):
    """Scaled dot-product scores: Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k)."""
    ### BEGIN SOLUTION
    d_k = Q.shape[-1]
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    ### END SOLUTION

# %% [tests] id=check_attention_scores points=2
"""Check my answer: attention_scores on the lecture's table and on a random batch."""
checks.check_attention_scores(attention_scores)
### BEGIN HIDDEN TESTS
checks.check_attention_scores(attention_scores, batch=(2, 3), n_q=4, n_k=6, d_k=8, dtype=torch.float64, seed=11,
                              seed_table=False)
checks.check_attention_scores(attention_scores, batch=(3,), n_q=7, n_k=2, d_k=5, seed=12, seed_table=False)
### END HIDDEN TESTS

# %% [markdown]
# Now `softmax(x, dim=-1)`: exponentiate and divide by the sum **along `dim`** (use
# `keepdim=True` so the sum broadcasts back). One more thing matters in practice: `exp(1000)` is
# infinite in floating point, so a naive softmax returns `nan` for large scores. Because
# $\mathrm{softmax}(x) = \mathrm{softmax}(x - c)$ for any constant $c$, subtract the maximum along
# `dim` first; then the largest exponent is $e^0 = 1$. `torch.softmax` and its relatives are
# switched off while this is graded.

# %% [answer] id=softmax
def softmax(x, dim=-1):
    """Numerically stable softmax of x along dim."""
    ### BEGIN SOLUTION
    shifted = x - x.amax(dim=dim, keepdim=True)
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)
    ### END SOLUTION

# %% [tests] id=check_softmax points=2
"""Check my answer: softmax equals torch.softmax along dim, also for inputs near 1000."""
checks.check_softmax(softmax)
### BEGIN HIDDEN TESTS
checks.check_softmax(softmax, shape=(2, 5, 3), dim=1, dtype=torch.float64, seed=21)
checks.check_softmax(softmax, shape=(4, 6), dim=0, seed=22)
### END HIDDEN TESTS

# %% [markdown]
# With both pieces, all four rows of the table come out of one line. The last row is your
# `z_machines`:

# %%
weights_all = softmax(attention_scores(Q, K), dim=-1)   # (4, 4): row i = weights of word i
Z = weights_all @ V                                      # (4, 2): row i = z_i
print(Z)
print("row 'machines' equals your z_machines:", torch.allclose(Z[3], torch.as_tensor(z_machines, dtype=Z.dtype)))
viz.attention_heatmap(weights_all, words, words, title="Computers are thinking machines")
plt.show()

# %% [markdown]
# Read the heat map row by row: each row is one word's weights and sums to 1. "machines" puts
# most weight on itself and on "Computers", whose vectors point the same way as its own;
# "thinking" points the opposite way and gets the least.
#
# ## 6. `self_attention(Q, K, V, mask=None)`
#
# Put it together. Return a pair `(output, weights)`: `weights` of shape `(..., n_q, n_k)` and
# `output = weights @ V` of shape `(..., n_q, d_v)`. Use your `attention_scores` and `softmax`.
#
# `mask` is optional: a bool tensor that broadcasts to the scores' shape, **True where attention
# is allowed**. Where it is False, set the score to $-\infty$ *before* the softmax
# (`scores.masked_fill(~mask, float("-inf"))`): $e^{-\infty} = 0$, so those positions get weight
# exactly 0 and the rest still sum to 1.

# %% [answer] id=self_attention
def self_attention(Q, K, V, mask=None):
    """Return (output, weights) of scaled dot-product attention; mask is True where allowed."""
    ### BEGIN SOLUTION
    scores = attention_scores(Q, K)                        # (..., n_q, n_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)                      # (..., n_q, n_k)
    return weights @ V, weights                            # (..., n_q, d_v)
    ### END SOLUTION

# %% [tests] id=check_self_attention points=3
"""Check my answer: self_attention against torch's F.scaled_dot_product_attention, with and without a causal mask."""
checks.check_self_attention(self_attention)
### BEGIN HIDDEN TESTS
checks.check_self_attention(self_attention, batch=(2, 3), n=6, d_k=8, d_v=5, dtype=torch.float64, seed=31,
                            masks=("none", "causal", "random"))
checks.check_self_attention(self_attention, batch=(), n=3, d_k=4, d_v=2, seed=32, masks=("random",))
### END HIDDEN TESTS

# %% [markdown]
# ## 7. Masked self-attention: "I am space invader"
#
# A language model predicts the next word, so while it reads word $i$ it must not peek at words
# $i+1, i+2, \dots$. A **causal mask** allows query $i$ to attend to key $j$ only when $j \le i$:
# the lower triangle, diagonal included.
#
# Write `causal_mask(n)` returning an `(n, n)` **bool** tensor, True where attention is allowed.

# %% [answer] id=causal_mask
def causal_mask(n):
    """(n, n) bool tensor, True where query i may attend to key j (j <= i)."""
    ### BEGIN SOLUTION
    return torch.ones(n, n, dtype=torch.bool).tril()
    ### END SOLUTION

# %% [tests] id=check_causal_mask points=1
"""Check my answer: a lower-triangular bool mask, diagonal included."""
checks.check_causal_mask(causal_mask)
### BEGIN HIDDEN TESTS
checks.check_causal_mask(causal_mask, sizes=(2, 3, 10))
### END HIDDEN TESTS

# %% [markdown]
# The lecture "BERT and Other Language Models" shows these attention scores for "I am space invader" and then masks
# the future with $-\infty$. Its slide draws probabilities next to them that are only
# illustrative: they are not the softmax of its own scores. Compute the real ones. Set
# `space_invader_weights` to the `(4, 4)` weights after masking and softmax (your `softmax` and
# `causal_mask` are the tools).

# %%
si_words = checks.SPACE_INVADER_WORDS
si_scores = torch.tensor(checks.SPACE_INVADER_SCORES, dtype=torch.float64)   # (4, 4), already scaled
print(si_scores)

# %% [answer] id=space_invader
### BEGIN SOLUTION
space_invader_weights = softmax(si_scores.masked_fill(~causal_mask(4), float("-inf")), dim=-1)
### END SOLUTION
print(space_invader_weights)

# %% [tests] id=check_space_invader points=1
"""Check my answer: causal softmax of the slide's scores, exact."""
checks.check_space_invader_weights(space_invader_weights)
### BEGIN HIDDEN TESTS
checks.check_space_invader_weights(space_invader_weights, exact=True)
### END HIDDEN TESTS

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
masked_scores = si_scores.masked_fill(~causal_mask(4), float("-inf"))
viz.attention_heatmap(masked_scores, si_words, si_words, ax=left, title="masked scores", cmap="Greys", vmin=0, vmax=1.5)
viz.attention_heatmap(space_invader_weights, si_words, si_words, ax=right, title="weights after softmax")
fig.tight_layout()
plt.show()

# %% [markdown]
# "I" can only attend to itself, so its weight is exactly 1. "am" splits its attention between
# "I" and itself in proportion to $e^{0.19}$ and $e^{0.53}$: 0.42 and 0.58. Every row still sums
# to 1 because the $-\infty$ entries were removed *before* normalising. Had we zeroed the weights
# *after* the softmax instead, row "am" would sum to less than 1.

# %% [markdown]
# ## 8. Why divide by $\sqrt{d_k}$? The "brown dog" example
#
# The lecture "LSTMs & Transformers" works through "The brown dog ran" with keys of length $d_k = 64$. For the word
# "brown" it gives the scores $s = [92, 124, 22, 8]$ and divides them by $\sqrt{64} = 8$ before the
# softmax. Set `brown_dog_weights` to the four weights.

# %%
brown_scores = torch.tensor(checks.BROWN_DOG_SCORES, dtype=torch.float64)
print(checks.BROWN_DOG_WORDS, brown_scores)

# %% [answer] id=brown_dog
### BEGIN SOLUTION
brown_dog_weights = softmax(brown_scores / math.sqrt(checks.BROWN_DOG_DK))
### END SOLUTION
print(brown_dog_weights)

# %% [tests] id=check_brown_dog points=1
"""Check my answer: softmax(s / sqrt(64)) for the word "brown"."""
checks.check_brown_dog_weights(brown_dog_weights)
### BEGIN HIDDEN TESTS
checks.check_brown_dog_weights(brown_dog_weights, exact=True)
### END HIDDEN TESTS

# %% [markdown]
# The slide works through two rows: the query "The" (scores 112, 96, 16, 8) and the query "brown"
# (your exercise). The cell below computes both from the slide's scores and prints them next to
# the weights the slide prints.

# %%
for word, scores in checks.BROWN_DOG_ROWS.items():
    exact = torch.softmax(torch.tensor(scores, dtype=torch.float64) / math.sqrt(checks.BROWN_DOG_DK), dim=-1)
    print(f'query "{word}":')
    for key, s, printed, w in zip(checks.BROWN_DOG_WORDS, scores, checks.BROWN_DOG_SLIDE_WEIGHTS[word], exact):
        print(f"   key {key:>6s}  score {s:5.0f}  / 8 = {s / 8:6.3f}   slide {printed:4.2f}   exact {w:.4f} ({w:.2g})")

# %% [markdown]
# For "The" the slide prints .87, .12, .01 and 0, which add up to 1, but only the .12 is an exact
# weight rounded (0.1192): 0.8808 rounds to .88, not .87, and "dog" gets $5.4 \cdot 10^{-6}$, which
# is .00 to two decimals, not .01 ("ran" gets $2.0 \cdot 10^{-6}$). For "brown" the slide prints
# 0.08, 0.91, 0.01 and 0, which do not follow from its scores at all: after dividing by 8 the scores
# of "The" and "brown" are 11.5 and 15.5, a gap of 4, so "brown" gets $1/(1 + e^{-4}) = 0.9820$ and
# "The" 0.0180. Small gaps between scores become large ratios between weights, because the softmax
# exponentiates.
#
# That is the reason for the scaling. If the entries of $q$ and $k$ are roughly independent with
# variance 1, the dot product $q \cdot k$ is a sum of $d_k$ terms, so its variance is $d_k$. For
# large $d_k$ the raw scores are far apart, the softmax puts almost all weight on one key, and its
# gradient (which is $a_j(1 - a_j)$ on the diagonal) is almost zero: learning stalls. Dividing by
# $\sqrt{d_k}$ brings the variance back to 1 whatever $d_k$ is.
#
# Move the slider: it draws random queries and keys of length $d_k$ and shows the scores before
# and after scaling, and how much of the softmax goes to the single largest key.

# %% [demo]
d_k_slider = widgets.SelectionSlider(options=[2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], value=64,
                                     description="d_k", continuous_update=False)


def show_scaling(d_k):
    viz.scaling_effect(d_k)
    plt.show()


widgets.interact(show_scaling, d_k=d_k_slider);

# %% [markdown]
# **Question (graded by your instructor).** In two or three sentences: what happens to the
# attention weights, and to the gradient that reaches the scores, if you leave out the division by
# $\sqrt{d_k}$ in a model with $d_k = 512$? Use what the slider shows. Write your answer in the
# cell below.

# %% [written] id=why_scale points=2
# *Model answer (instructors only).* Without scaling, $q \cdot k$ has standard deviation
# $\sqrt{512} \approx 22.6$, so the scores of different keys differ by tens and the softmax puts
# nearly all its weight on one key: it saturates and becomes almost one-hot. The softmax's gradient,
# $a_j(\delta_{jk} - a_k)$, is then close to zero everywhere, so almost no gradient reaches the
# queries and keys and training stalls. Dividing by $\sqrt{d_k}$ restores unit variance.
#
# *Marking:* 2 points for saturation (one-hot weights) **and** the vanishing gradient; 1 point for
# only one of them.

# %% [markdown]
# ## 9. Your function against PyTorch's
#
# PyTorch ships the same computation as one fused kernel, `F.scaled_dot_product_attention`, used by
# every Transformer in `torch.nn`. Your `self_attention` should agree with it on batches of heads,
# with a causal mask, on whatever device the course runs on (a GPU when there is one):

# %%
import torch.nn.functional as F

g = torch.Generator().manual_seed(0)
Qb, Kb, Vb = (torch.randn(2, 4, 10, 16, generator=g).to(device) for _ in range(3))   # (batch, heads, n, d)
mask = causal_mask(10).to(device)
mine, my_weights = self_attention(Qb, Kb, Vb, mask=mask)
theirs = F.scaled_dot_product_attention(Qb, Kb, Vb, attn_mask=mask)
print("output shape:", tuple(mine.shape), " largest difference:", float((mine - theirs).abs().max()))

# %% [markdown]
# ## Summary
#
# - Attention was invented for encoder-decoders: the decoder's state (the query) scores every
#   encoder state (the keys) with a dot, bilinear or MLP score, and averages them (the values).
#   Without it, a long sequence must fit through one vector; with it, the alignment is visible.
# - Attention scores every query against every key, turns the scores into weights with a softmax,
#   and returns the weighted average of the values: $\mathrm{softmax}(QK^\top/\sqrt{d_k})V$.
# - Dividing by $\sqrt{d_k}$ keeps the scores' variance near 1, so the softmax does not saturate.
# - A mask sets forbidden scores to $-\infty$ *before* the softmax; a causal mask hides the future.
# - Keep full precision: the slides' rounded tables differ from the exact values in the last digit.
#
# Next, notebook 06 runs several attention heads side by side, adds positions, and stacks the
# result into a Transformer.
