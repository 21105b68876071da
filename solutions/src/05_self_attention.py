# ---
# cell_timeout: 60
# checks: course_lib.checks.self_attention
# ---

# %% [markdown]
# # 05 · Self-attention: queries, keys and values
#
# A recurrent network reads a sentence one word at a time and squeezes everything it has seen
# into one hidden state. To connect "machines" with "Computers" three words back, the
# information has to survive three steps of that squeeze. **Self-attention** lets every word
# look at every other word directly, in one step, and decide how much of each to take.
#
# In this notebook you will:
#
# 1. fill in the lecture's *"Computers are thinking machines"* table by hand, cell by cell;
# 2. write the same computation in matrix form: `attention_scores`, `softmax`, `self_attention`;
# 3. add a **causal mask** so a word cannot look at the future (the lecture's "I am space invader");
# 4. recompute the lecture's *"brown dog"* example and see why the scores are divided by $\sqrt{d_k}$.
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

torch.set_printoptions(precision=4, sci_mode=False)
device = get_device()
print(f"torch {torch.__version__}, running on {device}")

# %% [markdown]
# ## 1. Queries, keys and values
#
# The names come from retrieval: *you fire a query, compare it with every key, and get back the
# values whose keys match best*. A dictionary does this with exact matches; attention does it
# softly, with a weighted average.
#
# Each word $x_i$ gets three vectors, made by three learned matrices:
#
# $$q_i = W_q\, x_i \qquad k_i = W_k\, x_i \qquad v_i = W_v\, x_i$$
#
# To compute the new representation $z_i$ of word $i$:
#
# 1. **score** word $i$'s query against every key: $s_{ij} = q_i \cdot k_j$;
# 2. **scale** the scores by $1/\sqrt{d_k}$, where $d_k$ is the length of a key (section 6 shows why);
# 3. **softmax** the scaled scores of word $i$, so its weights $a_{ij}$ are positive and sum to 1;
# 4. **weight** each value by its weight, $a_{ij}\, v_j$;
# 5. **sum**: $z_i = \sum_j a_{ij}\, v_j$.
#
# In matrix form, for all words at once:
#
# $$Z = \mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V$$

# %% [markdown]
# ## 2. "Computers are thinking machines", by hand
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
# write a general `softmax` in section 3). The four weights must add up to 1.

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
# ## 3. All four words at once: matrix form
#
# The table computed one row of a matrix. Every word does the same thing with its own query, so
# we stack the queries as rows of $Q$ (shape `(n, d_k)`) and compute all scores with one matrix
# product. Your functions must also work with **leading batch and head dimensions**: `Q` may have
# shape `(batch, heads, n, d_k)`. Use `K.transpose(-2, -1)` (not `K.T`) so only the last two
# dimensions swap, and `Q.shape[-1]` for $d_k$.
#
# Write `attention_scores(Q, K)` returning $Q K^\top / \sqrt{d_k}$, shape `(..., n_q, n_k)`.
# (PyTorch's own attention functions are switched off while this is graded.)

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
# ## 4. `self_attention(Q, K, V, mask=None)`
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
# ## 5. Masked self-attention: "I am space invader"
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
# ## 6. Why divide by $\sqrt{d_k}$? The "brown dog" example
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
# The slide prints 0.08, 0.91, 0.01 and 0. Those numbers do not follow from its scores: after
# dividing by 8 the scores are 11.5 and 15.5 for "The" and "brown", a gap of 4, so "brown" gets
# $1/(1 + e^{-4}) \approx 0.98$ and "The" about 0.02. Small gaps between scores become large
# ratios between weights, because the softmax exponentiates.
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
# ## 7. Other ways to score a query against a key
#
# The dot product is one choice of score function. The lecture "LSTMs & Transformers" lists three, from the attention
# models that came before the Transformer:
#
# | name | score $s(q, k)$ | parameters |
# |---|---|---|
# | dot | $q^\top k$ | none: $q$ and $k$ must have the same length |
# | bilinear (multiplicative) | $q^\top W k$ | $W$: lets $q$ and $k$ differ in length |
# | MLP (additive) | $v^\top \tanh(W_1 q + W_2 k)$ | $W_1, W_2, v$: a one-hidden-layer network |
#
# The dot product wins in the Transformer because it is one matrix product for all pairs, fast on
# any hardware; the bilinear form is the dot product after projecting $k$ by $W$ (which is what
# $W_k$ already does), and the MLP score needs a hidden layer per pair.

# %%
torch.manual_seed(0)
d = 2
W = torch.randn(d, d, dtype=torch.float64)
W1, W2 = torch.randn(8, d, dtype=torch.float64), torch.randn(8, d, dtype=torch.float64)
v = torch.randn(8, dtype=torch.float64)
q = Q[3]                                                       # the query of "machines"
dot_scores = K @ q                                             # (4,)
bilinear_scores = K @ (W.T @ q)                                # q^T W k_j for every j
mlp_scores = torch.tanh(q @ W1.T + K @ W2.T) @ v               # v^T tanh(W1 q + W2 k_j)
for name, s in [("dot", dot_scores), ("bilinear", bilinear_scores), ("MLP", mlp_scores)]:
    print(f"{name:>8s} scores {s.numpy().round(3)}  weights {softmax(s).numpy().round(3)}")

# %% [markdown]
# ## 8. Your function against PyTorch's
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
# - Attention scores every query against every key, turns the scores into weights with a softmax,
#   and returns the weighted average of the values: $\mathrm{softmax}(QK^\top/\sqrt{d_k})V$.
# - Dividing by $\sqrt{d_k}$ keeps the scores' variance near 1, so the softmax does not saturate.
# - A mask sets forbidden scores to $-\infty$ *before* the softmax; a causal mask hides the future.
# - Keep full precision: the slides' rounded tables differ from the exact values in the last digit.
#
# Next, notebook 06 runs several attention heads side by side, adds positions, and stacks the
# result into a Transformer.
