# ---
# cell_timeout: 120
# checks: course_lib.checks.rnn
# ---

# %% [markdown]
# # 03 · Recurrent networks, and why their gradients vanish
#
# The feed-forward model of notebook 02 reads a **fixed window**: with a window of five words, the
# sixth word back is invisible, however much it matters. A longer window means more weights (the
# concatenated embeddings grow with the window) and still a hard edge. A sentence, a paragraph or a
# Python function has no natural window size.
#
# A **recurrent neural network** (RNN) drops the window. It reads the sequence one token at a time and
# carries a **hidden state** $h_t$ from each step to the next: a fixed-size summary of everything read
# so far. The lecture "Machine Learning, Big Data and AI: Block 6" (after Goodfellow et al., ch. 10) writes one step as
#
# $$a_t = b + W h_{t-1} + U x_t \qquad h_t = \tanh(a_t) \qquad o_t = c + V h_t \qquad \hat y_t = \mathrm{softmax}(o_t)$$
#
# - $x_t$ is the input at step $t$ (the embedding of the $t$-th token), $h_{t-1}$ the previous state;
# - $U$ (input-to-hidden), $W$ (hidden-to-hidden) and $b$ make the new pre-activation $a_t$;
#   $\tanh$ squashes it into $(-1, 1)$;
# - $V$ and $c$ turn the state into logits $o_t$ over the vocabulary: $\hat y_t$ is the model's
#   distribution of the **next** token.
#
# (The slide prints $b_t$ and $\sigma$; the book's model has one bias $b$, the same at every step, and
# uses $\tanh$, which is also PyTorch's default. We follow the book.)
#
# **Unrolling.** Drawn over time, the network is a very deep feed-forward network with one layer per
# token: $h_1 = \tanh(b + W h_0 + U x_1)$, $h_2 = \tanh(b + W h_1 + U x_2)$, and so on. Every layer
# uses the **same** $U$, $W$, $b$ (**parameter sharing**), so the model has the same number of weights
# for a sequence of 5 or 5000 tokens, and what it learns about position 3 applies at position 300.
#
# In this notebook you will
#
# 1. write one step of the cell, equal to PyTorch's `nn.RNNCell` (`rnn_step`);
# 2. run it over a sequence (`rnn_forward`) and see that the state carries information forward;
# 3. backpropagate through time and **measure** how much gradient reaches early steps: it vanishes
#    or explodes, depending on the size of $W$;
# 4. write gradient clipping (`clip_grad_norm`), equal to `torch.nn.utils.clip_grad_norm_`, and watch
#    it rescue a character-level RNN trained on Python source code.
#
# **How the exercises work.** Cells that say `# YOUR CODE HERE` / `raise NotImplementedError()` are
# yours. The read-only cell after each exercise, starting with `"""Check my answer ..."""`, prints
# `✔ ... correct` or one sentence naming what is wrong. When your work is graded the same checks run
# again with hidden cases (other sizes, float64), so solve the general problem. Run the cells from top
# to bottom; the whole notebook takes well under a minute.

# %% [setup] id=setup
import math
import time

import ipywidgets as widgets
import matplotlib.pyplot as plt
import torch
from torch import nn

from course_lib import data
from course_lib.checks import rnn as checks
from course_lib.device import get_device, torch_threads
from course_lib.gradients import gradient_norms_through_time, plot_gradient_norms, rnn_gradient_norms
from course_lib.rnn import RNNConfig, RNNLanguageModel
from course_lib.train import budgeted, evaluate, sample, sequence_batches
checks.install_notebook_hooks()  # an answer not written yet says so in one line, not a traceback

device = get_device()
print("models train on:", device)

# %% [markdown]
# ## 1. One step of the cell
#
# In code, a batch holds $B$ sequences at once, one per **row**: $x_t$ is (B, D) and $h_{t-1}$ is
# (B, H). The weights are stored as (out, in), like `nn.Linear`'s: $U$ is (H, D), $W$ is (H, H), $b$ is
# (H,). So $W h_{t-1}$ for every row at once is `h_prev @ W.T`, and $U x_t$ is `x_t @ U.T`.
#
# Write `rnn_step(x_t, h_prev, U, W, b)`, returning $h_t = \tanh(b + W h_{t-1} + U x_t)$ of shape
# (B, H). It is checked against PyTorch's `nn.RNNCell` given the same weights (`weight_ih` $= U$,
# `weight_hh` $= W$; PyTorch keeps two biases whose sum is $b$). `nn.RNN`, `nn.RNNCell` and the
# course's own RNN are switched off while your answer is graded. Section 3 backpropagates through
# your steps, so $h_t$ must carry gradients back to `h_prev`: no `.detach()`, `.item()` or
# `torch.no_grad()` (the check backpropagates through your step too).

# %% [answer] id=rnn_step
def rnn_step(x_t, h_prev, U, W, b):
    """h_t = tanh(b + W h_prev + U x_t): x_t (B, D), h_prev (B, H), U (H, D), W (H, H), b (H,) -> (B, H)."""
    ### BEGIN SOLUTION
    a_t = b + h_prev @ W.T + x_t @ U.T  # (B, H)
    return torch.tanh(a_t)
    ### END SOLUTION

# %% [tests] id=check_rnn_step points=2
"""Check my answer: against nn.RNNCell with the same weights, for D = H = 4 and for D = 3, H = 5."""
checks.check_rnn_step(rnn_step)
### BEGIN HIDDEN TESTS
checks.check_rnn_step(rnn_step, batch=1, sizes=((2, 7), (6, 6)), seed=3, dtype=torch.float64)
checks.check_rnn_step(rnn_step, batch=5, sizes=((8, 2),), seed=11)
### END HIDDEN TESTS

# %% [markdown]
# Here is the comparison the check makes, out in the open: an `nn.RNNCell` and your function, given
# the same numbers.

# %% [demo]
torch.manual_seed(0)
cell = nn.RNNCell(input_size=3, hidden_size=4)
x_t, h_prev = torch.randn(2, 3), torch.randn(2, 4)
U, W, b = cell.weight_ih.detach(), cell.weight_hh.detach(), (cell.bias_ih + cell.bias_hh).detach()
print("nn.RNNCell:\n", cell(x_t, h_prev).detach())
print("rnn_step:\n", rnn_step(x_t, h_prev, U, W, b))

# %% [markdown]
# ## 2. Over a whole sequence
#
# A sequence is a tensor x of shape (B, T, D): B sequences, T steps, D numbers per step. Starting from
# a given state $h_0$ (B, H), apply the **same** step to $x_1, \dots, x_T$ in order, each time feeding
# the state you just computed into the next step. Return
#
# - `hs`, every state stacked along the time axis, shape (B, T, H): `hs[:, t]` is the state after
#   reading `x[:, t]` ($h_0$ is not part of it);
# - `h_T`, the last state (B, H), from which a later call could continue.
#
# Write `rnn_forward(x, h0, U, W, b)` using your `rnn_step`. (While this is graded, your `rnn_step` is
# replaced by a correct one, so a mistake there is not charged twice.) As in `rnn_step`, gradients
# must flow through every state back to `h0`: do not detach the state between steps.

# %% [answer] id=rnn_forward
def rnn_forward(x, h0, U, W, b):
    """Run rnn_step over x (B, T, D) from h0 (B, H): returns (hs (B, T, H), h_T (B, H))."""
    ### BEGIN SOLUTION
    h, hs = h0, []
    for t in range(x.shape[1]):
        h = rnn_step(x[:, t], h, U, W, b)  # (B, H)
        hs.append(h)
    return torch.stack(hs, dim=1), h
    ### END SOLUTION

# %% [tests] id=check_rnn_forward points=2
"""Check my answer: against nn.RNN (batch_first=True) with the same weights, B=2, T=5, from a random h0."""
checks.check_rnn_forward(rnn_forward)
### BEGIN HIDDEN TESTS
checks.check_rnn_forward(rnn_forward, batch=3, seq_len=1, input_dim=2, hidden_dim=6, seed=4)
checks.check_rnn_forward(rnn_forward, batch=1, seq_len=9, input_dim=5, hidden_dim=3, seed=7, dtype=torch.float64)
### END HIDDEN TESTS

# %% [markdown]
# **The state remembers.** Change only the *first* input of a sequence and watch every later state
# move. A window model would forget the change as soon as it slides out of the window; here it is
# passed along by $W$, step after step, fading as it goes (remember that fading: it is the subject of
# section 3).

# %% [demo]
torch.manual_seed(1)
D, H, T = 8, 16, 25
U, W, b = torch.randn(H, D) / D ** 0.5, torch.randn(H, H) * 0.9 / H ** 0.5, torch.zeros(H)
x = torch.randn(1, T, D)
x_changed = x.clone()
x_changed[:, 0] += 1.0  # only the first input differs
hs, _ = rnn_forward(x, torch.zeros(1, H), U, W, b)
hs_changed, _ = rnn_forward(x_changed, torch.zeros(1, H), U, W, b)
difference = (hs - hs_changed).norm(dim=-1)[0]  # (T,)
plt.figure(figsize=(6, 2.8))
plt.semilogy(range(1, T + 1), difference.numpy(), "o-")
plt.xlabel("time step t")
plt.ylabel("||change in h_t||")
plt.title("a change to x_1 reaches every later state")
plt.show()

# %% [markdown]
# The course's `RNNLanguageModel` is this loop with an embedding in front and $o_t = c + V h_t$ at
# every position. Given the model's weights, your `rnn_forward` reproduces its logits:

# %% [demo]
lm = RNNLanguageModel(RNNConfig(vocab_size=20, embed_dim=8, hidden_dim=12))
idx = torch.randint(20, (2, 7))
layer = lm.layers[0]
with torch.no_grad():
    hs, _ = rnn_forward(lm.embedding(idx), torch.zeros(2, 12), layer.U, layer.W, layer.b)
    logits, _ = lm(idx)
    print("c + V h_t from your rnn_forward equals the model's logits:",
          torch.allclose(lm.c + hs @ lm.V.T, logits, atol=1e-6))

# %% [markdown]
# ## 3. Backpropagation through time
#
# Training an RNN is ordinary backpropagation on the unrolled network, called **backpropagation
# through time** (BPTT): the loss at step $T$ depends on $h_T$, which depends on $h_{T-1}$, ... back
# to $h_1$. Autograd does it for us, as long as we keep the whole chain of states. Below, a loss that
# looks only at the **last** state; `retain_grad()` asks PyTorch to keep $\partial L / \partial h_t$ for
# every intermediate state so that we can look at it.

# %% [demo]
torch.manual_seed(0)
H, T = 32, 40
U, W, b = torch.randn(H, H) / H ** 0.5, torch.randn(H, H) / H ** 0.5, torch.zeros(H)
W.requires_grad_(True)  # we want dL/dW, so autograd records every step
x = 0.5 * torch.randn(4, T, H)
h, states = torch.zeros(4, H), []
for t in range(T):
    h = rnn_step(x[:, t], h, U, W, b)
    h.retain_grad()
    states.append(h)
loss = states[-1].sum()  # a loss on the last step only
loss.backward()
by_hand = torch.stack([s.grad.norm(dim=-1).mean() for s in states])  # ||dL/dh_t||, averaged over the batch
print("||dL/dh_t|| at t = T, T-5, T-10, ...:", [f"{v:.2g}" for v in by_hand.flip(0)[::5].tolist()])

# the same measurement, packaged in course_lib.gradients for any step function
instrument = gradient_norms_through_time(lambda x_t, h: rnn_step(x_t, h, U, W, b), x, torch.zeros(4, H),
                                         lambda h_last: h_last.sum())
print("course_lib.gradients agrees:", torch.allclose(instrument, by_hand))
print("and W got its gradient, a sum of one term per step:", tuple(W.grad.shape))
plot_gradient_norms({"random W, entries N(0, 1/H)": instrument})
plt.show()

# %% [markdown]
# The gradient reaching step $t$ shrinks by roughly the same **factor per step**: a straight line on a
# log scale. Why? Going one step back multiplies the gradient by the transposed **Jacobian** of one
# step. From $h_{t} = \tanh(b + W h_{t-1} + U x_{t})$:
#
# $$\frac{\partial h_{t}}{\partial h_{t-1}} = \mathrm{diag}\big(1 - h_{t}^2\big)\, W
# \qquad\text{so}\qquad
# \frac{\partial L}{\partial h_t} = \Big(\prod_{k=t+1}^{T} \mathrm{diag}(1 - h_k^2)\, W\Big)^{\!\top}
#   \frac{\partial L}{\partial h_T}$$
#
# A product of $T - t$ matrices. Ignore the $\tanh$ for a moment: then the product is $(W^\top)^{T-t}$,
# and a matrix power grows or shrinks like $\rho(W)^{T-t}$, where the **spectral radius** $\rho(W)$ is the
# largest absolute value of $W$'s eigenvalues (Pascanu et al., 2013):
#
# - $\rho(W) < 1$: the gradient **vanishes** exponentially; distant steps get (almost) no learning signal;
# - $\rho(W) > 1$: it can **explode** exponentially; one update can throw the weights far away.
#
# The $\tanh$ only makes things smaller, since $\tanh' = 1 - h^2 \le 1$: a saturated unit ($h$ near
# $\pm 1$) passes almost no gradient. So $\rho(W) < 1$ guarantees vanishing, and $\rho(W) > 1$ makes
# explosion possible, not certain.
#
# And since $W$ is shared, its gradient is a **sum over time steps**, one term per step,
# $\frac{\partial L}{\partial W} = \sum_t \mathrm{diag}(1 - h_t^2)\,\frac{\partial L}{\partial h_t}\, h_{t-1}^\top$.
# When the gradient vanishes, the terms from distant steps are drowned by the nearby ones: the model
# learns short-range patterns and cannot learn that a word 30 steps back matters.
#
# ### The instrument
#
# `rnn_gradient_norms` builds a random RNN whose $W$ is a scaled **orthogonal** matrix: every
# eigenvalue has absolute value exactly `weight_scale`, so $\rho(W)$ = `weight_scale`. It puts a loss on
# the last state and measures $\lVert \partial L/\partial h_t \rVert$ at every step. The dashed line is
# the pure matrix power, `weight_scale`$^{T-1-t}$ (the same network without the $\tanh$).
#
# Things to try: `weight_scale` 0.9 (vanishing), 1.0 (the edge), 1.2 or 1.5 (exploding, then taming
# as the states saturate). Then raise `input_scale` to 1.0: large inputs saturate the $\tanh$ and even
# `weight_scale` 1.5 vanishes. Longer sequences make every effect stronger.

# %% [demo]
def show_gradients(weight_scale=0.9, seq_len=50, input_scale=0.01):
    tanh = rnn_gradient_norms(seq_len, weight_scale=weight_scale, input_scale=input_scale)
    pure = rnn_gradient_norms(seq_len, weight_scale=weight_scale, input_scale=input_scale, nonlinearity="identity")
    ax = plot_gradient_norms({f"tanh RNN, rho(W) = {weight_scale:.2f}": tanh},
                             title=f"T = {seq_len}, input_scale = {input_scale}")
    ax.plot(torch.arange(seq_len).numpy(), pure.flip(0).numpy(), "k--", lw=1, label="rho(W)^k, no tanh")
    ax.axhline(1.0, color="0.6", lw=0.8)
    ax.legend()
    plt.show()
    print(f"gradient reaching the first step: {tanh[0].item():.3g} (tanh), {pure[0].item():.3g} (no tanh)")


FULL_LABEL = {"description_width": "110px"}  # wide enough for each slider's whole name
widgets.interact(show_gradients,
                 weight_scale=widgets.FloatSlider(value=0.9, min=0.5, max=2.0, step=0.05, continuous_update=False,
                                                  style=FULL_LABEL),
                 seq_len=widgets.IntSlider(value=50, min=5, max=150, step=5, continuous_update=False,
                                           style=FULL_LABEL),
                 input_scale=widgets.SelectionSlider(options=[0.001, 0.01, 0.1, 1.0], value=0.01,
                                                     continuous_update=False, style=FULL_LABEL));

# %% [markdown]
# The same measurements as a table, for a sequence of 50 steps with small inputs:

# %% [demo]
print(f"{'rho(W)':>7} {'||dL/dh_1||, tanh':>18} {'rho^49':>10}")
for scale in (0.5, 0.9, 1.0, 1.1, 1.5):
    norms = rnn_gradient_norms(50, weight_scale=scale, input_scale=0.01)
    print(f"{scale:7.2f} {norms[0].item():18.3g} {scale ** 49:10.3g}")

# %% [markdown]
# ## 4. Gradient clipping
#
# Exploding gradients have a simple, blunt fix (the lecture "Neural Network Language Models & BERT": *"The
# exploding gradient problem can be alleviated by clipping large gradient values to some maximum
# number"*). Gradient **norm clipping** (Pascanu et al., 2013) treats all the gradients of the model
# as one long vector $g$ and shrinks it when it is too long:
#
# $$\lVert g \rVert = \sqrt{\textstyle\sum_{p} \lVert \nabla_p \rVert^2}
# \qquad\text{if } \lVert g \rVert > \text{max\_norm}: \quad
#   \nabla_p \leftarrow \nabla_p \cdot \frac{\text{max\_norm}}{\lVert g \rVert} \text{ for every parameter } p$$
#
# The **direction** of the step is kept; only its length is capped. Clipping each tensor separately
# would change the direction.
#
# Write `clip_grad_norm(parameters, max_norm)`:
#
# - `parameters` is an iterable of tensors (for example `model.parameters()`, a generator you can loop
#   over only once); skip those whose `.grad` is `None` (they got no gradient);
# - compute the global norm $\lVert g \rVert$ over all the gradients;
# - if it exceeds `max_norm`, multiply every `.grad` **in place** by `max_norm / total_norm` (PyTorch uses
#   `max_norm / (total_norm + 1e-6)`; either is fine);
# - return the total norm **before** clipping (a 0-dimensional tensor or a float), as
#   `torch.nn.utils.clip_grad_norm_` does: it tells you how large the gradient really was.
#
# `torch.nn.utils.clip_grad_norm_` and its relatives are switched off while this is graded. Norms
# (`tensor.norm()`, `torch.linalg.vector_norm`) are fine, and so is wrapping your loop in
# `with torch.no_grad():`.

# %% [answer] id=clip_grad_norm
def clip_grad_norm(parameters, max_norm):
    """Scale every p.grad in place so that their global L2 norm is at most max_norm; return the norm before."""
    ### BEGIN SOLUTION
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = torch.sqrt(sum((g.detach().double() ** 2).sum() for g in grads))
    if total_norm > max_norm:
        with torch.no_grad():
            for g in grads:
                g.mul_(max_norm / (total_norm.item() + 1e-6))
    return total_norm
    ### END SOLUTION

# %% [tests] id=check_clip_grad_norm points=2
"""Check my answer: against torch.nn.utils.clip_grad_norm_, above and below max_norm, and for a generator."""
checks.check_clip_grad_norm(clip_grad_norm)
### BEGIN HIDDEN TESTS
checks.check_clip_grad_norm(clip_grad_norm, shapes=((7,), (3, 3), (1,), (2, 5)), max_norm=0.25, seed=5)
checks.check_clip_grad_norm(clip_grad_norm, shapes=((4, 2), (6,)), max_norm=5.0, seed=9, dtype=torch.float64)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. Clipping in training: a character-level RNN on Python source
#
# Our corpus: 100 000 characters of the Python standard library's own source code, read from this
# machine's installation (`data.stdlib_source_text`, no download). Every character is a token; code has
# long-range structure (indentation, brackets and quotes that must be closed) that makes it a classic
# test for recurrent models.

# %% [demo]
text = data.stdlib_source_text(max_chars=100_000, seed=0)
itos, stoi = data.char_vocab(text)
ids = torch.tensor([stoi[c] for c in text])
split = int(0.9 * len(ids))
train_ids, valid_ids = ids[:split], ids[split:]
print(f"{len(ids)} characters, vocabulary of {len(itos)}; uniform guessing costs log {len(itos)} = "
      f"{math.log(len(itos)):.2f} nats per character")
print(text[2000:2300])

# %% [markdown]
# We train the same RNN language model twice with plain SGD and a large learning rate, once without
# and once with your `clip_grad_norm` (max_norm = 1). Every batch holds 32 random blocks of 64
# characters: backpropagation through time runs over 64 steps, not over the whole corpus
# (**truncated BPTT**, the lecture "LSTMs & Transformers"). Without clipping we still call
# `clip_grad_norm` with `max_norm=inf`, which never clips, to record the gradient norm. About ten
# seconds in all.

# %% [demo]
BLOCK, BATCH, STEPS, LR = 64, 32, 300, 2.0
valid_x = valid_ids[:-1][: (len(valid_ids) - 1) // BLOCK * BLOCK].reshape(-1, BLOCK)
valid_y = valid_ids[1:][: (len(valid_ids) - 1) // BLOCK * BLOCK].reshape(-1, BLOCK)


def train_rnn(max_norm):
    """SGD on the character RNN; returns the model, the per-step losses and gradient norms (before clipping)."""
    torch.manual_seed(0)
    model = RNNLanguageModel(RNNConfig(vocab_size=len(itos), embed_dim=32, hidden_dim=128)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    draw, generator = sequence_batches(train_ids, BLOCK, BATCH), torch.Generator().manual_seed(0)
    losses, norms = [], []
    for step in budgeted(range(STEPS)):
        x, y = (t.to(device) for t in draw(generator))
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        norms.append(float(clip_grad_norm(model.parameters(), max_norm)))
        optimizer.step()
        losses.append(loss.item())
    return model, torch.tensor(losses), torch.tensor(norms)

# %% [markdown]
# Clipping sits between `loss.backward()`, which fills every `.grad`, and `optimizer.step()`, which
# uses them. Both runs, then their training losses and gradient norms side by side:

# %% [demo] pace=3.5
runs = {}
for label, max_norm in [("no clipping", math.inf), ("clipped at 1.0", 1.0)]:
    start = time.perf_counter()
    with torch_threads(1):  # a model this small: one thread is faster than two competing ones
        model, losses, norms = train_rnn(max_norm)
    valid = evaluate(model, [(valid_x, valid_y)])["loss"]
    runs[label] = (model, losses, norms, valid)
    spikes = int((losses[1:] > losses[:-1] + 0.5).sum())
    print(f"{label:>15}: final training loss {losses[-20:].mean():.3f}, validation loss {valid:.3f} nats/char, "
          f"{spikes} loss spikes (+0.5 nats in one step), largest gradient norm {norms.max():.3g} "
          f"({time.perf_counter() - start:.1f} s)")
clipped_model = runs["clipped at 1.0"][0]

fig, (ax_loss, ax_norm) = plt.subplots(1, 2, figsize=(11, 3.5))
for label, (_, losses, norms, _) in runs.items():
    ax_loss.plot(losses.numpy(), lw=0.8, label=label)
    ax_norm.semilogy(norms.numpy(), lw=0.8, label=label)
ax_loss.axhline(math.log(len(itos)), color="k", ls="--", lw=1, label="uniform guessing")
ax_loss.set(xlabel="step", ylabel="training loss (nats per character)", title=f"SGD, learning rate {LR}")
ax_norm.axhline(1.0, color="k", ls=":", lw=1, label="max_norm")
ax_norm.set(xlabel="step", ylabel="gradient norm before clipping", title="the gradient's size")
ax_loss.legend()
ax_norm.legend()
plt.show()

# %% [markdown]
# Without clipping, a few steps with a huge gradient (an exploding gradient through the 64 steps)
# throw the weights so far that the loss jumps above the cost of uniform guessing, and training
# spends the rest of its time recovering, if it recovers at all. With clipping the same spikes in the
# gradient norm still happen (the right-hand plot shows the norm *before* clipping) but each update
# is at most `LR * max_norm` long, so training keeps going down.
#
# What did the clipped model learn in its training (the plot shows how many steps)? Sampling a few lines
# (it sees the last 64 characters):

# %% [demo]
prompt = torch.tensor([[stoi[c] for c in "def "]])
out = sample(clipped_model, prompt, max_new_tokens=200, context_size=BLOCK, generator=torch.Generator().manual_seed(0))
print("".join(itos[i] for i in out[0].tolist()))

# %% [markdown]
# Indentation, quotes, `._` names, words in capitals: local patterns, and not always real words.
# Whether a bracket opened 40 characters ago gets closed is another matter; that needs the
# long-range gradient that this notebook showed vanishing.
#
# **Question (graded by your instructor).** Clipping fixed the exploding gradients of section 5. In
# two or three sentences, using the product of Jacobians of section 3: why can a similar trick (for
# example scaling the gradient *up* when it is small) **not** fix vanishing gradients?

# %% [written] id=why_clipping_not_vanishing points=2
# *Model answer (instructors only).* Clipping rescales the whole gradient by one number; it keeps its
# direction. With vanishing gradients the problem is not the total length but the mix inside it: the
# gradient of the shared weights is a sum over time steps, and the terms from distant steps have been
# multiplied by a product of many Jacobians diag(1 - h^2) W whose norm decays like rho(W)^k, so they
# are negligible next to the terms from recent steps. Scaling the sum up scales the recent terms just
# as much; the information about long-range dependencies is still missing (and may be below
# floating-point precision). Fixing it needs a different architecture (the LSTM's additive cell
# state with forget gates near 1, notebook 04) or weights whose Jacobians stay near norm 1.
#
# *Marking:* 1 point for "clipping / rescaling multiplies the whole gradient by one factor (keeps its
# direction), so it cannot change the relative size of contributions from different time steps";
# 1 point for "distant contributions are multiplied by a product of Jacobians that shrinks
# exponentially (rho(W) < 1, tanh' <= 1), so they are swamped by nearby ones" (or an equivalent
# argument that the long-range signal is lost, not merely small in total).

# %% [markdown]
# ## Summary
#
# - The simple RNN: $a_t = b + W h_{t-1} + U x_t$, $h_t = \tanh(a_t)$, $o_t = c + V h_t$, with the same
#   weights at every step (parameter sharing). In batch-first code: `tanh(b + h_prev @ W.T + x_t @ U.T)`,
#   equal to `nn.RNNCell` with $b$ = `bias_ih + bias_hh`.
# - The state $h_t$ carries information forward with no fixed window, but every step waits for the
#   previous one.
# - Backpropagation through time multiplies the gradient by $\mathrm{diag}(1 - h_t^2) W$ once per step:
#   it shrinks like $\rho(W)^k$ when $\rho(W) < 1$ (vanishing) and can grow when $\rho(W) > 1$ (exploding).
#   Saturated $\tanh$ units make vanishing worse.
# - Gradient norm clipping caps the length of the whole gradient and keeps its direction: it tames
#   exploding gradients (as in the training run above), but it cannot bring back a vanished one.
#
# Notebook 04 changes the architecture instead: the **LSTM** keeps a cell state that is updated by
# addition, gated by a forget gate, so that along it the gradient is multiplied by the forget gate
# (close to 1) rather than by $W$, and survives many more steps. We will measure it with the same
# instrument.
