# ---
# cell_timeout: 120
# checks: course_lib.checks.lstm
# ---

# %% [markdown]
# # 04 · Long Short-Term Memory
#
# Notebook 03 ended with a diagnosis: in a simple RNN the gradient reaching step $t$ is multiplied
# by $\mathrm{diag}(1 - h^2)\,W$ once per step, so it vanishes (or explodes) exponentially, and the
# model cannot learn that a word far back matters: *"I grew up in France ... I speak fluent ___"*
# (the lecture "Neural Network Language Models & BERT").
#
# The **LSTM** (Hochreiter & Schmidhuber, 1997) changes the architecture. Next to the hidden state
# $h_t$ it keeps a **cell state** $c_t$ that is changed only by elementwise **gates**, numbers between
# 0 and 1 computed by sigmoids from $[h_{t-1}; x_t]$:
#
# $$\begin{aligned}
# i_t &= \sigma(W_{ii} x_t + b_{ii} + W_{hi} h_{t-1} + b_{hi}) && \text{input gate: how much new content to write}\\
# f_t &= \sigma(W_{if} x_t + b_{if} + W_{hf} h_{t-1} + b_{hf})
#   && \text{forget gate: how much of } c_{t-1} \text{ to keep}\\
# g_t &= \tanh(W_{ig} x_t + b_{ig} + W_{hg} h_{t-1} + b_{hg}) && \text{candidate content}\\
# o_t &= \sigma(W_{io} x_t + b_{io} + W_{ho} h_{t-1} + b_{ho}) && \text{output gate: how much of the cell to show}\\
# c_t &= f_t \odot c_{t-1} + i_t \odot g_t \qquad h_t = o_t \odot \tanh(c_t)
# \end{aligned}$$
#
# ($\odot$, the slides' $*$, is elementwise multiplication.) In this notebook you will
#
# 1. compute the forget-gate example of the lecture "Neural Network Language Models & BERT" exactly (`forget_gate`);
# 2. write a full LSTM step equal to PyTorch's `nn.LSTMCell` (`lstm_cell`);
# 3. measure the gradient through time, RNN against LSTM, with notebook 03's instrument;
# 4. see the difference on a task whose answer lies a tunable number of steps back;
# 5. train a character LSTM on Python source and sample from it;
# 6. look inside it, and inside a longer-trained copy, for cells that track strings, comments and indentation;
# 7. stack LSTM layers and measure what depth changes;
# 8. meet the bidirectional LSTM, the two language models that ELMo is built from, and ELMo's learnt
#    mix of layers;
# 9. tag every token of Python source with a Bi-LSTM (`tag_logits`, and `tag_loss`, which ignores the padding);
# 10. answer once per sequence: which module a snippet comes from (`last_states` of a padded batch).
#
# **How the exercises work.** As in notebook 03: fill in the cells with `# YOUR CODE HERE`, then run
# the read-only `"""Check my answer ..."""` cell after it. When graded, the checks run again with hidden
# cases (other sizes, float64, exact values). The whole notebook runs in about a minute on a laptop CPU.

# %% [setup] id=setup
import copy
import math
import re
import time

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from IPython.display import HTML, display
from torch import nn

from course_lib import data, interpret, tagging
from course_lib.checks import lstm as checks
from course_lib.device import get_device, torch_threads
from course_lib.gradients import lstm_gradient_norms, plot_gradient_norms, rnn_gradient_norms
from course_lib.lstm import LSTMConfig, LSTMEncoder, LSTMLanguageModel
from course_lib.train import TrainConfig, budgeted, evaluate, sample, sequence_batches, train
from course_lib.viz import coloured_text
checks.install_notebook_hooks()  # an answer not written yet says so in one line, not a traceback

# %% [markdown]
# ## 1. The forget gate, by hand
#
# The lecture "Neural Network Language Models & BERT" works one step of the forget gate with a
# single cell ($H = 1$) and a single input number:
#
# - $h_{t-1} = [1]$, $c_{t-1} = [2]$, $x_t = [0.2]$;
# - $w_f = [1 \;\; 1]$, acting on the concatenation $[h_{t-1}; x_t]$, and $b_f = 0$;
# - $f_t = \sigma(w_f [h_{t-1}; x_t] + b_f)$ and $c'_t = c_{t-1} * f_t$: the old cell after forgetting
#   (the input gate's $i_t \odot g_t$ is added to it afterwards).
#
# Write `forget_gate(h_prev, x_t, w_f, b_f)` for any sizes: `h_prev` (H,), `x_t` (D,), `w_f` (H, H + D)
# whose first H columns multiply $h_{t-1}$ and the last D multiply $x_t$, `b_f` (H,). Return $f_t$ (H,).

# %% [answer] id=forget_gate
def forget_gate(h_prev, x_t, w_f, b_f):
    """f_t = sigmoid(w_f [h_prev; x_t] + b_f): h_prev (H,), x_t (D,), w_f (H, H + D), b_f (H,) -> (H,)."""
    ### BEGIN SOLUTION
    return torch.sigmoid(w_f @ torch.cat([h_prev, x_t]) + b_f)
    ### END SOLUTION

# %% [tests] id=check_forget_gate points=1
"""Check my answer: the slide's example (float64), and H = 3, D = 2 against torch.sigmoid."""
checks.check_forget_gate(forget_gate)
### BEGIN HIDDEN TESTS
checks.check_forget_gate(forget_gate, sizes=((1, 4), (5, 1)), seed=7, dtype=torch.float64)
### END HIDDEN TESTS

# %% [markdown]
# Now the slide's numbers. Set `f_slide` to $f_t$ and `c_slide` to $c'_t = c_{t-1} * f_t$, **computed**
# with your `forget_gate` from the tensors below (float64), not typed in.

# %% [answer] id=slide_example
h_prev, c_prev, x_t, w_f, b_f = (checks.slide_inputs()[k] for k in ("h_prev", "c_prev", "x_t", "w_f", "b_f"))
### BEGIN SOLUTION
f_slide = forget_gate(h_prev, x_t, w_f, b_f)
c_slide = f_slide * c_prev
### END SOLUTION
print("f_t =", f_slide, " c'_t =", c_slide)

# %% [tests] id=check_slide_example points=1
"""Check my answer: f_t and c'_t of the slide's example, to four decimals."""
checks.check_slide_example(f_slide, c_slide)
### BEGIN HIDDEN TESTS
checks.check_slide_example(f_slide, c_slide, exact=True)
### END HIDDEN TESTS

# %% [markdown]
# The slide prints $w_f[h_{t-1}, x_t] + b_f = [1.2]$, then $f_t = [\sigma(1.2)] = [0.77]$ and
# $c'_t = [2] * [0.77] = [1.54]$. Exactly, $\sigma(1.2) = 1 / (1 + e^{-1.2}) = 0.768525$ and
# $c'_t = 2 \times 0.768525 = 1.537050$: the slide's 0.77 and 1.54 are these rounded to two decimals
# (and $2 \times 0.77 = 1.54$ happens to agree with the exact value rounded, so rounding $f_t$ first does no
# harm here). About 77% of the cell's content survives this step; with $f_t$ near 1 it would survive
# almost untouched, and that is the point of the next sections.

# %% [demo]
print(f"sigmoid(1.2) = {torch.sigmoid(torch.tensor(1.2, dtype=torch.float64)).item():.6f}, "
      f"times c = 2: {2 * torch.sigmoid(torch.tensor(1.2, dtype=torch.float64)).item():.6f}")

# %% [markdown]
# ## 2. A whole LSTM step
#
# PyTorch keeps the four gates' weights stacked in one matrix, in the order **i, f, g, o**:
# `W_ih` (4H, D) holds $W_{ii}, W_{if}, W_{ig}, W_{io}$ one under the other, `W_hh` (4H, H) the same for
# $h_{t-1}$, and `b_ih`, `b_hh` (4H,) the two biases (both are added). So one matrix product gives all
# four pre-activations side by side, (B, 4H), which `.chunk(4, dim=-1)` cuts into four (B, H) blocks.
#
# Write `lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh)` for a batch: `x_t` (B, D), `h_prev`
# and `c_prev` (B, H). Return the pair `(h_t, c_t)`, each (B, H). It is checked against `nn.LSTMCell`
# with the same weights. `nn.LSTM`, `nn.LSTMCell`, `torch.lstm_cell` and the course's own LSTM are
# switched off while your answer is graded. An LSTM learns by backpropagating through its steps, one
# after another, so both returned states must carry gradients back to `h_prev` and `c_prev` (no
# `.detach()`): the check backpropagates through your cell.

# %% [answer] id=lstm_cell
def lstm_cell(x_t, h_prev, c_prev, W_ih, W_hh, b_ih, b_hh):
    """One LSTM step: x_t (B, D), h_prev and c_prev (B, H) -> (h_t, c_t), each (B, H). Gate order i, f, g, o."""
    ### BEGIN SOLUTION
    a = x_t @ W_ih.T + b_ih + h_prev @ W_hh.T + b_hh  # (B, 4H)
    a_i, a_f, a_g, a_o = a.chunk(4, dim=-1)  # (B, H) each
    i, f, g, o = torch.sigmoid(a_i), torch.sigmoid(a_f), torch.tanh(a_g), torch.sigmoid(a_o)
    c_t = f * c_prev + i * g
    h_t = o * torch.tanh(c_t)
    return h_t, c_t
    ### END SOLUTION

# %% [tests] id=check_lstm_cell points=3
"""Check my answer: against nn.LSTMCell with the same weights, for D = H = 4 and for D = 3, H = 5."""
checks.check_lstm_cell(lstm_cell)
### BEGIN HIDDEN TESTS
checks.check_lstm_cell(lstm_cell, batch=1, sizes=((2, 7), (6, 6)), seed=3, dtype=torch.float64)
checks.check_lstm_cell(lstm_cell, batch=5, sizes=((8, 2),), seed=11)
### END HIDDEN TESTS

# %% [markdown]
# The comparison the check makes, in the open:

# %% [demo]
torch.manual_seed(0)
cell = nn.LSTMCell(input_size=3, hidden_size=2)
x_demo, h_demo, c_demo = torch.randn(2, 3), torch.randn(2, 2), torch.randn(2, 2)
weights = [p.detach() for p in (cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)]
print("nn.LSTMCell:", [t.detach() for t in cell(x_demo, (h_demo, c_demo))])
print("lstm_cell:  ", list(lstm_cell(x_demo, h_demo, c_demo, *weights)))

# %% [markdown]
# ## 3. Gradients through time: RNN against LSTM
#
# Why does this help? Follow the gradient backwards along the cell state. From
# $c_t = f_t \odot c_{t-1} + i_t \odot g_t$, the direct path gives
#
# $$\frac{\partial c_t}{\partial c_{t-1}} = \mathrm{diag}(f_t)
#   \quad(+\text{ terms through } h_{t-1} \text{ in the gates})$$
#
# The update is **additive**: the old cell is scaled by $f_t$ and something is added, with no weight
# matrix and no squashing nonlinearity on the way. Going back $k$ steps along this path multiplies the
# gradient by $f_{t} \odot f_{t-1} \odot \cdots$, a product of numbers the network *controls*: when the
# forget gates are near 1 the product stays near 1 and the gradient crosses many steps. The simple RNN
# has no such path; every step multiplies by $\mathrm{diag}(1 - h^2)\,W$.
#
# Notebook 03's instrument, now side by side. Both networks get recurrent matrices with spectral
# radius `weight_scale`; the LSTM's forget-gate bias is 3, so its forget gates start near
# $\sigma(3) = 0.95$.

# %% [demo]
T = 60
norms = {"simple RNN (tanh)": rnn_gradient_norms(T, weight_scale=0.9, input_scale=1.0),
         "LSTM, forget bias 3": lstm_gradient_norms(T, weight_scale=0.9, forget_bias=3.0, input_scale=1.0),
         "LSTM, forget bias 0": lstm_gradient_norms(T, weight_scale=0.9, forget_bias=0.0, input_scale=1.0)}
plot_gradient_norms(norms, title=f"T = {T}, rho(W) = 0.9")
plt.show()
for label, n in norms.items():
    print(f"{label:>22}: ||dL/dh_1|| / ||dL/dh_T|| = {(n[0] / n[-1]).item():.3g}")

# %% [markdown]
# The RNN's gradient falls by orders of magnitude within a few dozen steps. The LSTM with forget
# gates near 1 keeps a usable gradient at the start of the sequence; with forget bias 0 its gates
# start at about 0.5 and the cell path also fades, more slowly than the RNN. This is why LSTM
# implementations often initialise the forget-gate bias to 1 or more.

# %% [markdown]
# ## 4. A long-range dependency with a tunable gap
#
# `data.gap_task(n, gap)` makes the lecture's *"I grew up in France ... I speak fluent French"*
# synthetic: each sequence starts with one of 4 **key** tokens ("France"), then `gap` random
# **distractor** tokens, then a **query** token ("I speak fluent"); the target is the key. Nothing
# after the first token says anything about it.

# %% [demo]
x_gap, y_gap = data.gap_task(3, gap=5, seed=0)
print(x_gap)
print("targets:", y_gap)

# %% [markdown]
# Three models read each sequence and predict the key from a linear head:
#
# - a **feed-forward** model with a fixed window of the last 8 tokens (notebook 02): it sees the key
#   only when `gap + 2 <= 8`;
# - a simple **RNN** and an **LSTM** (hidden size 32, the head on the last hidden state). The LSTM's
#   forget-gate bias starts at 3. The RNN is PyTorch's `nn.RNN`: notebook 03's `RNNLayer` (the same
#   function, checked by the course's tests) in one fused kernel, as the LSTM uses PyTorch's.
#
# Each is trained with Adam for 100 steps of 128 fresh sequences, then tested on 1000 new ones. Chance
# is 1/4. This takes a few seconds.

# %% [demo]
NUM_KEYS, VOCAB, EMBED, HIDDEN, WINDOW, STEPS, BATCH = 4, 16, 16, 32, 8, 100, 128
GAPS = (2, 5, 10, 20, 40)


class GapReader(nn.Module):
    """Embedding -> FFNN window / RNN / LSTM -> a linear head over the keys."""

    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        self.embedding = nn.Embedding(VOCAB + 1, EMBED)  # one extra id pads the window of short sequences
        if kind == "LSTM":
            self.body = LSTMEncoder(EMBED, HIDDEN)
            with torch.no_grad():
                self.body.layers[0][0].b_ih[HIDDEN:2 * HIDDEN].fill_(3.0)  # the f block (order i, f, g, o)
        elif kind == "RNN":
            self.body = nn.RNN(EMBED, HIDDEN, batch_first=True)  # tanh; (hs, h_T) like RNNLayer
        else:
            self.body = nn.Sequential(nn.Flatten(), nn.Linear(WINDOW * EMBED, HIDDEN), nn.Tanh())
        self.head = nn.Linear(HIDDEN, NUM_KEYS)

    def forward(self, idx):
        if self.kind == "FFNN":  # only the last WINDOW tokens
            window = nn.functional.pad(idx, (WINDOW, 0), value=VOCAB)[:, -WINDOW:]
            return self.head(self.body(self.embedding(window)))
        hs, _ = self.body(self.embedding(idx))  # (B, T, H)
        return self.head(hs[:, -1])

# %% [markdown]
# One reader trained on one gap, then its accuracy on 1000 fresh test sequences; then every reader on
# every gap:

# %% [demo]
def gap_accuracy(kind, gap):
    torch.manual_seed(0)
    model = GapReader(kind)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    x, y = data.gap_task(STEPS * BATCH, gap, NUM_KEYS, VOCAB, seed=gap)
    for step in budgeted(range(STEPS)):
        batch = slice(step * BATCH, (step + 1) * BATCH)
        loss = nn.functional.cross_entropy(model(x[batch]), y[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    x_test, y_test = data.gap_task(1000, gap, NUM_KEYS, VOCAB, seed=1000 + gap)
    with torch.no_grad():
        return (model(x_test).argmax(-1) == y_test).float().mean().item()


start = time.perf_counter()
with torch_threads(1):  # tiny models: one thread is faster than several competing ones
    accuracy = {kind: [gap_accuracy(kind, gap) for gap in GAPS] for kind in ("FFNN", "RNN", "LSTM")}
print(f"{'gap':>5}" + "".join(f"{kind:>8}" for kind in accuracy))
for k, gap in enumerate(GAPS):
    print(f"{gap:>5}" + "".join(f"{accuracy[kind][k]:8.2f}" for kind in accuracy))
print(f"({time.perf_counter() - start:.0f} s)")
plt.figure(figsize=(6, 3.5))
for kind, values in accuracy.items():
    plt.plot(GAPS, values, "o-", label=kind if kind != "FFNN" else f"FFNN, window {WINDOW}")
plt.axhline(1 / NUM_KEYS, color="k", ls="--", lw=1, label="chance")
plt.xscale("log")
plt.xticks(GAPS, [str(g) for g in GAPS])
plt.minorticks_off()
plt.xlabel("gap (distractors between key and query)")
plt.ylabel("test accuracy")
plt.legend()
plt.show()

# %% [markdown]
# The window model is perfect while the key is inside its window and at chance (1/4) as soon as it is
# not: no amount of training helps, the information is simply not in its input. The RNN learns short
# gaps but falls to chance once the gap reaches a couple of dozen steps: the information could be
# carried in $h_t$, but the gradient that would teach it to carry it has vanished. The LSTM, trained
# the same way, still solves gap 40.

# %% [markdown]
# ## 5. A character LSTM on Python source
#
# Notebook 03 trained a character RNN on the standard library's source code. Now an LSTM language
# model, `LSTMLanguageModel` (embedding → LSTM → linear head; position $t$ predicts character $t+1$),
# on 400 000 characters of it. It uses PyTorch's fused LSTM kernel, which computes the same function
# as a loop of your `lstm_cell` (the course's tests check that) about eight times faster. Every batch
# holds 32 random blocks of 128 characters: truncated backpropagation through 128 steps. Here it
# trains for up to 300 steps (the cell prints how long they took; the plot shows how many); section 6
# looks inside a copy of the same network that trained for minutes.

# %% [demo] pace=6
device = get_device()
source = data.stdlib_source_text(max_chars=400_000, seed=0)
itos, stoi = data.char_vocab(source)
ids = torch.tensor([stoi[ch] for ch in source])
split = int(0.9 * len(ids))
train_ids, valid_ids = ids[:split], ids[split:]
BLOCK = 128
n_valid = (len(valid_ids) - 1) // BLOCK * BLOCK
valid_batches = [(valid_ids[:n_valid].reshape(-1, BLOCK)[:64], valid_ids[1:n_valid + 1].reshape(-1, BLOCK)[:64])]

torch.manual_seed(0)
char_lstm = LSTMLanguageModel(LSTMConfig(vocab_size=len(itos), embed_dim=32, hidden_dim=128)).to(device)
untrained_lstm = copy.deepcopy(char_lstm)  # for comparison below


def show_samples(model, title, n=2, length=240):
    prompt = torch.tensor([[stoi[ch] for ch in "def "]] * n)
    out = sample(model, prompt, length, temperature=0.8, generator=torch.Generator().manual_seed(1))
    print(f"--- {title} ---")
    for row in out.tolist():
        print("".join(itos[i] for i in row))
        print("- - -")


show_samples(char_lstm, "before training", n=1, length=120)
history = train(char_lstm, sequence_batches(train_ids, BLOCK, 32),
                TrainConfig(steps=300, lr=1e-2, eval_every=100, progress=False), valid=lambda: valid_batches)
bits = history.valid_loss[-1] / math.log(2)
print(f"{history.seconds:.0f} s, {history.tokens_per_second:,.0f} characters/s; validation loss "
      f"{history.valid_loss[-1]:.3f} nats = {bits:.2f} bits per character (uniform guessing: "
      f"{math.log2(len(itos)):.2f} bits)")
history.plot(title="character LSTM on Python source")
plt.show()
show_samples(char_lstm, "after training")

# %% [markdown]
# Before training the samples are uniform noise over the 96 characters. After a few seconds the
# model has picked up the look of Python: lines and indentation, common keywords, `self.`,
# parentheses, quotes and `#`. It has not learnt to program: names are invented and the logic is
# nonsense. Its bits per character (printed above) are far from a large model's (well under 1 bit),
# but far below the 6.6 bits of uniform guessing too.

# %% [markdown]
# ## 6. Looking inside: cells that track the code
#
# Karpathy, Johnson and Fei-Fei (2015) trained larger character LSTMs (hours on a GPU) on the Linux
# source and found single cells that switch on inside quotes or comments, or count along a line
# ("interpretable cells" in the lecture "LSTMs & Transformers"). Let us look for such cells.
#
# Three hundred steps of training are few, so the course ships the same network (embedding 32, one layer of
# 128 units) trained for a few minutes on more of the standard library by
# `benchmarks/train_char_lstm.py`, with the validation text above held out: `interpret.load_char_lstm()`
# reads it from the installed package, no download. We compare three copies of the network: that
# **shipped** one, the one **you trained** in section 5, and the **untrained** one. The untrained copy is
# the control: whatever it shows comes from the input characters alone, not from learning.
#
# For 20 000 validation characters we compute four properties exactly with a small scanner
# (`course_lib.interpret`): *inside a string*, *inside a comment*, the line's *indentation*, the
# *position in the line*. We record the cell state $c_t$ of all 128 units while each model reads, and
# for each property find the unit whose value correlates best with it.

# %% [demo]
shipped_lstm, shipped_itos, shipped_info = interpret.load_char_lstm()
shipped_stoi = {ch: i for i, ch in enumerate(shipped_itos)}
to_shipped = torch.tensor([shipped_stoi.get(ch, shipped_stoi["?"]) for ch in itos])  # our ids -> its ids
shipped_loss = evaluate(shipped_lstm, [(to_shipped[x], to_shipped[y]) for x, y in valid_batches])["loss"]
print(f"shipped model: {sum(p.numel() for p in shipped_lstm.parameters()):,} parameters, {shipped_info['steps']:,} "
      f"training steps; on the validation text above {shipped_loss / math.log(2):.2f} bits per character "
      f"(yours, {len(history.train_steps)} steps: {history.valid_loss[-1] / math.log(2):.2f})")

segment = slice(split, split + 20_000)
features = {name: values[segment] for name, values in interpret.source_features(source).items()}
shipped_ids = to_shipped[ids[segment]]
cells = {"shipped": interpret.lstm_cell_states(shipped_lstm, shipped_ids),
         "yours": interpret.lstm_cell_states(char_lstm, ids[segment]),
         "untrained": interpret.lstm_cell_states(untrained_lstm, ids[segment])}  # (T, 128) each
best = {kind: interpret.best_units(states, features) for kind, states in cells.items()}
r2 = {kind: {name: interpret.probe_r2(states, f) for name, f in features.items()} for kind, states in cells.items()}
print(f"{'':>17} | {'best single unit: |r|':^38} | {'R² of all units':^26}")
print(f"{'property':>17} | {'shipped':>14} {'yours':>11} {'untrained':>9} | "
      f"{'shipped':>8} {'yours':>7} {'untrained':>9}")
for name in features:
    unit, r = best["shipped"][name]
    print(f"{name:>17} | {f'{abs(r):.2f} (unit {unit})':>14} {abs(best['yours'][name][1]):11.2f} "
          f"{abs(best['untrained'][name][1]):9.2f} | {r2['shipped'][name]:8.2f} {r2['yours'][name]:7.2f} "
          f"{r2['untrained'][name]:9.2f}")

# %% [markdown]
# Two measurements per property. The **best single unit's correlation** $|r|$ asks Karpathy's
# question: does one cell do this job? The **$R^2$ of a linear readout of all 128 cells** (a ridge
# regression fit on half the characters and scored on the other half) asks whether the information
# is in the state at all, spread over units or not. Training should put these properties into the state,
# because they help predict the next character: after `#` comes English; inside a string anything goes until
# the closing quote; after a newline come as many spaces as the block's indentation. The same network, the
# same data: only the training time differs between "yours" and "shipped". What the table shows is said under
# the pictures, in sentences computed from it.
#
# Here is what the shipped model's best units do, character by character: red is a high cell value,
# blue a low one (each unit's sign is flipped if needed so that red means "more of the property").

# %% [demo]
starts = [m.start() + 1 for m in re.finditer("\n", source[segment])]
mixed = max(starts[:-40], key=lambda s: min(features["inside a string"][s:s + 700].mean(),
                                             features["inside a comment"][s:s + 700].mean()))
window = slice(mixed, mixed + 700)  # a stretch with both strings and comments in it
panels = []
for name in features:
    unit, r = best["shipped"][name]
    values = cells["shipped"][window, unit].numpy() * (1 if r > 0 else -1)
    values = values - values.mean()  # white at the unit's average over the stretch
    panels.append(coloured_text(source[segment][window], values, title=f"{name}: unit {unit}, r = {r:+.2f}").data)
display(HTML("<div style='display:grid;grid-template-columns:1fr 1fr;gap:10px'>" + "".join(panels) + "</div>"))

# %% [demo]
regions = interpret.code_regions(source[segment])  # (20000,): code, one-line string, docstring-like, comment
string_unit, string_r = best["shipped"]["inside a string"]
profile = interpret.region_profile(cells["shipped"][:, string_unit].numpy() * (1 if string_r > 0 else -1), regions)
best_abs_r = {kind: {name: abs(r) for name, (_, r) in found.items()} for kind, found in best.items()}
findings = interpret.cell_findings(best_abs_r, r2, (string_unit, string_r, profile))
print("\n\n".join(findings))

# %% [markdown]
# Those sentences are computed from the table above, so they say what this run measured. Karpathy's clean
# quote and comment cells came from networks tens of times bigger, trained for hours on a GPU; ours trained for
# minutes on one CPU core (`benchmarks/results/char_lstm.json` keeps the training script's measurements,
# and `tests/models/test_cell_findings.py` checks these sentences against that file). A unit's correlation
# with a property is a hint, not a proof of what it does: look at where it is high (the pictures, and the
# region profile in the last sentence) before naming it.

# %% [markdown]
# ## 7. Stacked LSTMs: what depth changes
#
# An LSTM layer turns a sequence of vectors into a sequence of vectors, so layers can be **stacked**
# (the lecture "LSTMs & Transformers"): layer $l$ reads layer $l-1$'s hidden states as its input,
#
# $$h^{(l)}_t = \mathrm{LSTM}^{(l)}\big(h^{(l-1)}_t,\; h^{(l)}_{t-1}\big), \qquad h^{(0)}_t = x_t,$$
#
# and the head reads the top layer. Each character now passes through several nonlinear steps before
# the prediction, and each layer keeps its own cell state, at its own pace. `LSTMLanguageModel` stacks
# `num_layers` of them (`LSTMEncoder`, the same function as `nn.LSTM(num_layers=...)`); its final state
# has one row per layer.
#
# Does depth help? A fair comparison fixes the cost. Below, 1, 2 and 3 layers with about the same number of
# parameters (narrower layers when there are more of them), built here to show their sizes and final states.
# Training them long enough to compare takes longer than this notebook may, so `benchmarks/train_char_lstm.py`
# trained each on the data of section 5 for the same time on one core, at about 60 000 parameters; its
# measurements travel with the 3-layer model of that run, and the table after this one reads them.

# %% [demo]
def lstm_with_params(num_layers, params):
    """An LSTM LM with num_layers layers, as wide as gives about `params` parameters."""
    def size(h):  # embedding, then per layer W_ih (4H, input), W_hh (4H, H), two biases (4H,), then the head
        return len(itos) * 32 + 4 * h * (32 + h + 2) + (num_layers - 1) * 4 * h * (2 * h + 2) + (h + 1) * len(itos)
    hidden = min(range(8, 257), key=lambda h: abs(size(h) - params))
    return LSTMLanguageModel(LSTMConfig(vocab_size=len(itos), embed_dim=32, hidden_dim=hidden, num_layers=num_layers))


print(f"{'layers':>6} {'hidden':>6} {'params':>7} {'h_n shape':>12}")
for num_layers in (1, 2, 3):
    torch.manual_seed(0)
    stack = lstm_with_params(num_layers, 60_000)
    _, (h_n, c_n) = stack.forward_with_state(ids[None, :50])
    print(f"{num_layers:>6} {stack.config.hidden_dim:>6} {sum(p.numel() for p in stack.parameters()):>7,} "
          f"{str(tuple(h_n.shape)):>12}")

# %% [markdown]
# The final state has one row per layer (and per direction, for a bidirectional encoder). The training script's
# measurements, the same sizes each trained for the same time:

# %% [demo]
stacked_lstm, _, stacked_info = interpret.load_char_lstm(interpret.STACKED_CHAR_LSTM_PATH)
print(f"{'layers':>6} {'hidden':>6} {'params':>7} {'steps':>6} {'seconds':>7} {'valid bits/char':>15}")
for row in stacked_info["depth"]:
    print(f"{row['layers']:>6} {row['hidden_dim']:>6} {row['params']:>7,} {row['steps']:>6} {row['train_s']:>7} "
          f"{row['valid_bits_per_char']:15.2f}")
depth = stacked_info["depth"]
plt.figure(figsize=(5, 3))
plt.plot([d["layers"] for d in depth], [d["valid_bits_per_char"] for d in depth], "o-")
plt.xticks([1, 2, 3])
plt.xlabel("stacked LSTM layers (same parameters, same time)")
plt.ylabel("validation bits per character")
plt.show()

# %% [demo]
by_bits = sorted(depth, key=lambda d: d["valid_bits_per_char"])
monotone = [d["layers"] for d in by_bits] == sorted(d["layers"] for d in depth)
print(f"Each depth trained for {depth[0]['train_s']:.0f} s on one core; the best is {by_bits[0]['layers']} layer(s) "
      f"({by_bits[0]['valid_bits_per_char']:.2f} bits per character), the worst {by_bits[-1]['layers']} "
      f"({by_bits[-1]['valid_bits_per_char']:.2f}); steps taken: "
      + ", ".join(f"{d['layers']} layer(s) {d['steps']}" for d in depth)
      + (". At this budget every added layer made the model worse." if monotone else "."))

# %% [markdown]
# The sentence above is computed from the table. At the same number of parameters a deeper stack has narrower
# layers; every character must pass through each layer's recursion in turn, so a step takes longer and fewer
# updates fit in the same time (the steps); and the training signal must cross more layers. So this budget
# favours the shallow model, and **we could not run the comparison at a budget where depth could win**: that
# takes far more compute than this course has (the strong LSTM language models of the late 2010s had two to four
# wide layers, ELMo two of 4096 cells, trained for days on GPUs). What the table does show: compare
# architectures at equal cost (parameters and time), else a deeper model wins only by being bigger; and on a
# small budget, spend it on width and steps.

# %% [markdown]
# ## 8. Reading in both directions: the Bi-LSTM and ELMo
#
# A language model must read left to right: it may not see the word it predicts. An **encoder** that
# only has to *represent* each word can read both ways. In *"The poor don't have any money"* (the
# lecture "BERT and Other Language Models"), what "poor" means (the people, not bad quality) is
# settled by the words after it. A **bidirectional LSTM** runs one LSTM left to right and another
# right to left and concatenates their states: the vector for word $t$ summarises
# $x_1 \ldots x_t$ *and* $x_t \ldots x_T$. **ELMo** (the
# lectures "LSTMs & Transformers" and "BERT and Other Language Models") trains a forward LM and a
# backward LM on a large corpus and uses their states, combined over layers, as contextual word
# embeddings.

# %% [demo]
words = "<START> The poor don't have any money <END>".split()
torch.manual_seed(0)
embed = nn.Embedding(len(words), 8)
bi = LSTMEncoder(8, 6, bidirectional=True)
with torch.no_grad():
    states, _ = bi(embed(torch.arange(len(words)))[None])  # (1, T, 2H)
print("outputs:", tuple(states.shape), "= (batch, words, forward H + backward H)")
with torch.no_grad():  # change the last real word: only the backward half of "poor" moves
    changed = torch.arange(len(words))
    changed[-2] = 0
    states_changed, _ = bi(embed(changed)[None])
poor = words.index("poor")
print("change in 'poor', forward half: ", (states - states_changed)[0, poor, :6].norm().item())
print("change in 'poor', backward half:", round((states - states_changed)[0, poor, 6:].norm().item(), 4))

# %% [markdown]
# ELMo's two language models, in miniature. On the cat/dog sentences of notebooks 01 and 02 we train
# a **forward** LSTM LM (left to right, as always) and a **backward** one (the same model on reversed
# sentences, so it predicts each word from the words *after* it), a couple of seconds each. Then we
# ask both about the blank in *"the ___ was sleeping in the bedroom"*. The forward LM has read only
# *"the"*. The backward LM has read *"bedroom the in sleeping was"*, and in this world cats prefer
# bedrooms. The grammar gives the exact answers to compare with (for the training sentences, in which,
# as in notebook 02, a mouse is never in the bedroom).

# %% [demo]
cat_dog_train, _, _ = data.train_valid_split(n_train=3000, n_valid=0, n_held_out=0, seed=0)
cat_dog_words = [data.tokenize(s) for s in cat_dog_train]
words_vocab = data.Vocab(cat_dog_words)
START, END = words_vocab.index(data.BOS), words_vocab.index(data.EOS)


def word_lm(reverse):
    """A small LSTM LM trained on the cat/dog sentences, read left to right or (reverse) right to left."""
    rows = [[START] + words_vocab.encode(w[::-1] if reverse else w) + [END] for w in cat_dog_words]
    width = max(map(len, rows))
    padded = torch.tensor([r + [END] * (width - len(r)) for r in rows])  # (N, width)
    targets = padded[:, 1:].masked_fill(torch.tensor([[k >= len(r) - 1 for k in range(width - 1)] for r in rows]), -100)

    def draw(generator):
        pick = torch.randint(len(rows), (64,), generator=generator)
        return padded[pick, :-1], targets[pick]

    torch.manual_seed(0)
    model = LSTMLanguageModel(LSTMConfig(vocab_size=len(words_vocab), embed_dim=16, hidden_dim=32))
    train(model, draw, TrainConfig(steps=300, lr=1e-2, progress=False))
    return model


def next_word_probabilities(model, context, candidates):
    """p(candidate | context) from the model, renormalised over the candidates."""
    with torch.no_grad():
        logits, _ = model(torch.tensor([[START] + words_vocab.encode(context)]))
    p = torch.softmax(logits[0, -1], -1)[[words_vocab.index(w) for w in candidates]]
    return p / p.sum()

# %% [markdown]
# Both models, asked about the blank, next to the grammar's exact probabilities (in brackets):

# %% [demo]
grammar = data.CatDogGrammar()
animals = ["cat", "dog", "mouse"]
right_context = ["was", "sleeping", "in", "the", "bedroom"]
matching = {a: sum(p for w, p in grammar.sentences() if w == ("the", a, *right_context) and not grammar.is_held_out(w))
            for a in animals}  # over the training distribution: mice are never in the bedroom there
truth_backward = torch.tensor([matching[a] for a in animals]) / sum(matching.values())
truth_forward = torch.tensor([data.next_word_distribution(["the"], without_held_out=True)[a] for a in animals])
truth_forward /= truth_forward.sum()
forward_lm, backward_lm = word_lm(reverse=False), word_lm(reverse=True)
rows = {"forward LM, reads 'the'": (next_word_probabilities(forward_lm, ["the"], animals), truth_forward),
        "backward LM, reads 'was sleeping in the bedroom'": (
            next_word_probabilities(backward_lm, right_context[::-1], animals), truth_backward)}
print(f"{'p(blank = ...)':>48}" + "".join(f"{a:>14}" for a in animals))
for label, (model_p, true_p) in rows.items():
    print(f"{label:>48}" + "".join(f"{m:7.2f} ({t:.2f})" for m, t in zip(model_p, true_p)))
print(f"{'':>48}  model (exact)")

# %% [markdown]
# The forward LM can only give the animals' prior; the backward LM, from the words that follow, puts
# most of its probability on "cat", close to the exact conditional probability. Neither alone has the
# whole sentence. ELMo's embedding of a word concatenates the forward LM's state (the left context)
# with the backward LM's (the right context), from every layer, weighted per task. Unlike a single
# Bi-LSTM, the two are trained as separate language models, so neither ever sees the word it predicts.
# BERT (notebook 07) removes that restriction with masking: one network reads both sides at once.

# %% [markdown]
# ### ELMo's weighted sum of layers
#
# ELMo's language models are stacked (two layers of LSTMs, over a character-based token layer), and
# which layer is most useful depends on the task: lower layers know more about the word itself,
# higher ones more about its context (the lecture "LSTMs & Transformers" shows such a per-layer table
# for BERT too). So ELMo does not pick a layer; each task learns its own **weighted sum** of all of
# them. For token $k$ with layer states $h_{k,0}, \ldots, h_{k,L}$:
#
# $$\mathrm{ELMo}_k^{\text{task}} = \gamma^{\text{task}} \sum_{j=0}^{L} s_j^{\text{task}}\, h_{k,j},
# \qquad s^{\text{task}} = \mathrm{softmax}(w^{\text{task}}),$$
#
# with $L + 2$ numbers per task, $w^{\text{task}}$ and the scale $\gamma^{\text{task}}$, learnt together
# with the task's model while the language model stays frozen. The layer states are the **biLM**'s: at each
# layer $j$, ELMo concatenates the forward LM's state (which has read the tokens up to $k$) with the backward
# LM's (which has read them from the end back to $k$), $h_{k,j} = [\overrightarrow{h}_{k,j};
# \overleftarrow{h}_{k,j}]$.
#
# The same in miniature: a forward and a backward character LM on Python source (two layers of 64 units over a
# 64-wide embedding each, trained for a few minutes by `benchmarks/train_bilm.py` and shipped with the course),
# frozen. Their states, concatenated, give three 128-wide layers: $h_0 = [e^{\rightarrow}; e^{\leftarrow}]$ (the
# two LMs' embeddings of the character; ELMo shares one token layer, ours are two), $h_1$ and $h_2$. Three small
# per-character tasks, each a linear classifier on a learnt mix of the three:
#
# - **this character**: its class (letter, digit, space, newline, other);
# - **end of a name**: is this the last character of a name or a number (the next one is not a letter, digit
#   or `_`)? Only the characters after it can tell;
# - **code, string or comment**: where in the code the character stands.
#
# Each classifier is fit on 3 000 validation characters and tested on the next 3 000. The comparisons: the
# same classifier on one layer alone, the mix over the forward LM's layers only, and always answering the most
# frequent class.

# %% [demo]
class ScalarMix(nn.Module):
    """ELMo's mix: gamma * sum_j softmax(w)_j * layers[j], for layers (L, T, H) -> (T, H)."""

    def __init__(self, num_layers):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(num_layers))  # s = softmax(w): equal weights to start with
        self.gamma = nn.Parameter(torch.ones(()))

    def forward(self, layers):
        s = torch.softmax(self.w, dim=0)  # (L,)
        return self.gamma * (s[:, None, None] * layers).sum(0)  # (T, H)


@torch.no_grad()
def layer_states(model, ids):
    """The embedding and every layer's hidden states of a stacked LSTM LM reading ids (T,): (L + 1, T, H)."""
    x = model.embedding(ids[None])  # (1, T, E), E = H here
    outputs = [x[0]]
    for directions in model.encoder.layers:
        x, _ = directions[0](x)  # (1, T, H): this layer's states, the next layer's input
        outputs.append(x[0])
    return torch.stack(outputs)


def char_class(ch):
    return 0 if ch.isalpha() or ch == "_" else 1 if ch.isdigit() else 2 if ch == " " else 3 if ch == "\n" else 4


forward_lm, bilm_itos, forward_info = interpret.load_char_lstm(interpret.BILM_FORWARD_PATH)
backward_lm, _, backward_info = interpret.load_char_lstm(interpret.BILM_BACKWARD_PATH)
for info in (forward_info, backward_info):
    print(f"{info['direction']} LM: {info['params']:,} parameters, {info['steps']:,} steps, "
          f"{info['valid_bits_per_char']:.2f} bits per character on section 5's validation text, read "
          f"{info['direction']}")
text = source[segment][:6000]
bilm_ids = torch.tensor([bilm_itos.index(ch) if ch in bilm_itos else bilm_itos.index("?") for ch in text])  # (6000,)
forward_layers = layer_states(forward_lm, bilm_ids)  # (3, 6000, 64): read left to right
backward_layers = layer_states(backward_lm, bilm_ids.flip(0)).flip(1)  # (3, 6000, 64): read right to left
layers = torch.cat([forward_layers, backward_layers], dim=-1)  # (3, 6000, 128): ELMo's [forward; backward]
name_char = [ch.isalnum() or ch == "_" for ch in text] + [False]
code_class = torch.tensor([0, 1, 1, 2])[torch.from_numpy(interpret.code_regions(text))]  # code, string, comment
tasks = {"this character": torch.tensor([char_class(ch) for ch in text]),
         "end of a name": torch.tensor([name_char[k] and not name_char[k + 1] for k in range(len(text))]).long(),
         "code, string or comment": code_class}
half = layers.shape[1] // 2


def probe(labels, states, only_layer=None):
    """Fit ScalarMix + a linear classifier on the first half; (mix, test accuracy on the second half)."""
    torch.manual_seed(0)
    mix, classifier = ScalarMix(len(states)), nn.Linear(states.shape[-1], int(labels.max()) + 1)
    if only_layer is not None:  # the same classifier on one layer: s fixed to that layer
        mix.w.data = torch.full((len(states),), -1e4).index_fill_(0, torch.tensor(only_layer), 0.0)
        mix.w.requires_grad_(False)
    optimizer = torch.optim.Adam([p for p in [*mix.parameters(), *classifier.parameters()] if p.requires_grad], lr=0.05)
    for _ in budgeted(range(80)):
        loss = nn.functional.cross_entropy(classifier(mix(states[:, :half])), labels[:half])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        return mix, (classifier(mix(states[:, half:])).argmax(-1) == labels[half:]).float().mean().item()


print(f"{'task':>24} | {'learnt s_0, s_1, s_2':>20} {'gamma':>6} | {'biLM mix':>8} "
      + " ".join(f"{f'layer {l}':>7}" for l in range(len(layers))) + f" {'forward mix':>11} {'most frequent':>13}")
mix_weights, elmo_rows = {}, {}
for task, labels in tasks.items():
    mix, accuracy = probe(labels, layers)
    mix_weights[task] = torch.softmax(mix.w, 0).detach()
    alone = [probe(labels, layers, only_layer=l)[1] for l in range(len(layers))]
    forward_only = probe(labels, forward_layers)[1]
    majority = (labels[half:] == labels[:half].mode().values).float().mean().item()
    elmo_rows[task] = {"mix": accuracy, "layers": alone, "forward": forward_only, "majority": majority}
    print(f"{task:>24} | {', '.join(f'{w:.2f}' for w in mix_weights[task]):>20} {mix.gamma.item():6.2f} | "
          f"{accuracy:8.3f} " + " ".join(f"{a:7.3f}" for a in alone) + f" {forward_only:11.3f} {majority:13.3f}")
plt.figure(figsize=(6, 2.8))
for k, (task, s_task) in enumerate(mix_weights.items()):
    plt.bar(torch.arange(len(s_task)) + (k - 1) * 0.27, s_task, width=0.27, label=task)
plt.xticks(range(len(layers)), ["layer 0 (embeddings)"] + [f"layer {l}" for l in range(1, len(layers))])
plt.ylabel("learnt weight $s_j$")
plt.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1, 1))
plt.show()

# %% [markdown]
# What the table says, in sentences computed from it:

# %% [demo]
for task, row in elmo_rows.items():
    best_layer = max(range(len(row["layers"])), key=lambda l: row["layers"][l])
    gap = row["mix"] - row["layers"][best_layer]
    versus = ("within 0.005 of" if abs(gap) <= 0.005 else f"{gap:+.3f} above" if gap > 0 else f"{-gap:.3f} below")
    print(f"{task}: the mix scores {row['mix']:.3f}, {versus} the best single layer (layer {best_layer}, "
          f"{row['layers'][best_layer]:.3f}), and leans most on layer {int(mix_weights[task].argmax())}; "
          f"the forward LM alone gives {row['forward']:.3f}, the most frequent class {row['majority']:.3f}.")

# %% [markdown]
# The claim behind ELMo's design is the first half of each sentence: without being told which layer suits the
# task, the learnt mix should do about as well as the best single layer, and its weights $s_j$ (the bars) show
# which layers it leans on. Check it against the numbers above rather than taking it on trust. The forward-only
# column shows what the backward LM adds: whether a character ends a name is decided by the character after
# it, which only the backward LM has read. A probe can only read what the representation holds, and these two
# LMs trained for minutes on one core. In ELMo's large LMs the lower layers served syntactic tasks
# (part-of-speech tags) best and the higher ones semantic tasks (word senses); the lecture's per-layer table for
# BERT makes the same point, and notebook 07 probes BERT's layers.

# %% [markdown]
# ## 9. Tagging every token: a Bi-LSTM tagger
#
# So far the LSTMs predicted the next token (many-to-many, left to right) or one answer per sequence (the gap
# task). A **tagger** gives every token a label, and may read the whole sequence to do it: the many-to-many
# use of the Bi-LSTM above. The labels here are exact and free: the standard library's own `tokenize` cuts
# Python source into tokens and says what each is (keyword, name, string, number, operator, comment). We
# split the names by their role, which only the neighbours tell: a **definition** follows `def` or `class`, a
# **call** is followed by `(`, an **attribute** follows `.`. In `self.items.append(x)`, `items` is an
# attribute and `append` a call; the token string alone cannot say which.
#
# `course_lib.tagging` builds the data: one sequence per logical line, tokens and tags from `tokenize`, the
# standard library's files split into training and **validation files**, so every validation line comes from a
# file the tagger never saw. Rare tokens become the id of their shape (`<name>`, `<string>`, ...).

# %% [demo]
train_lines, valid_lines, train_files, valid_files = tagging.tagging_split(n_train_files=12, n_valid_files=6)
token_vocab = tagging.TokenVocab([[token for token, _ in line] for line in train_lines])
TAG_ID = {tag: k for k, tag in enumerate(tagging.TAGS)}


def encode_lines(lines):
    """(token ids, tag ids) of each line."""
    return ([token_vocab.encode([token for token, _ in line]) for line in lines],
            [[TAG_ID[tag] for _, tag in line] for line in lines])


train_x, train_y = encode_lines(train_lines)
valid_x, valid_y = encode_lines(valid_lines)
print(f"training: {len(train_files)} files, {len(train_lines):,} lines, {sum(map(len, train_y)):,} tokens; "
      f"validation: {len(valid_files)} other files ({', '.join(valid_files)}), {sum(map(len, valid_y)):,} tokens; "
      f"{len(token_vocab)} token ids")
example = next(line for line in train_lines if {"call", "attribute"} <= {tag for _, tag in line} and len(line) < 14)
print("  ".join(f"{token}/{tag}" for token, tag in example))

# %% [markdown]
# The tagger: an embedding, a **forward** LSTM reading each line left to right and a **backward** LSTM reading
# it right to left, and a linear head on the two states side by side. `nn.LSTM(bidirectional=True)` returns
# the same two halves concatenated, `[forward h_t; backward h_t]`, (B, T, 2H).
#
# Write `tag_logits(forward_states, backward_states, W, b)`: `forward_states` and `backward_states` (B, T, H),
# both in time order (`backward_states[:, t]` has read tokens t to the end), `W` (C, 2H) whose first H columns
# read the forward state, `b` (C,). Return the logits (B, T, C): for every token, $[\overrightarrow{h}_t;
# \overleftarrow{h}_t]\, W^\top + b$. It is checked against `F.linear` of an `nn.LSTM(bidirectional=True)`'s
# outputs.

# %% [answer] id=tag_logits
def tag_logits(forward_states, backward_states, W, b):
    """Per-token logits: forward_states, backward_states (B, T, H), W (C, 2H), b (C,) -> (B, T, C)."""
    ### BEGIN SOLUTION
    states = torch.cat([forward_states, backward_states], dim=-1)  # (B, T, 2H)
    return states @ W.T + b  # (B, T, C)
    ### END SOLUTION

# %% [tests] id=check_tag_logits points=2
"""Check my answer: against nn.LSTM(bidirectional=True)'s outputs times W^T plus b, for B = 2, T = 5, H = 3, C = 4."""
checks.check_tag_logits(tag_logits)
### BEGIN HIDDEN TESTS
checks.check_tag_logits(tag_logits, sizes=((1, 3, 2, 5), (3, 2, 4, 3)), seed=5, dtype=torch.float64)
### END HIDDEN TESTS

# %% [markdown]
# Lines have different lengths, so a batch is padded to its longest line (`tagging.pad_batch` gives the padded
# ids (B, T) and the `lengths` (B,)). The padding's tags are placeholders, not answers: the loss must average
# the cross-entropy over the **real** tokens only, the first `lengths[b]` of each row. Averaging over the
# padding too teaches the tagger to predict placeholders and dilutes the real tokens' gradient, more in a batch
# with more padding.
#
# Write `tag_loss(logits, tags, lengths)`: `logits` (B, T, C), `tags` (B, T) whose padding holds some tag too,
# `lengths` (B,). Return the mean cross-entropy over the real tokens, a tensor of shape (). It is checked against
# `F.cross_entropy` with the padding's tags set to its `ignore_index`.

# %% [answer] id=tag_loss
def tag_loss(logits, tags, lengths):
    """Mean cross-entropy over the real tokens: logits (B, T, C), tags (B, T), lengths (B,) -> ()."""
    ### BEGIN SOLUTION
    real = torch.arange(tags.shape[1], device=tags.device)[None] < lengths[:, None]  # (B, T)
    return F.cross_entropy(logits[real], tags[real])  # logits[real] is (number of real tokens, C)
    ### END SOLUTION

# %% [tests] id=check_tag_loss points=2
"""Check my answer: against F.cross_entropy with ignore_index on the padding, B = 4 lines of up to 6 tokens."""
checks.check_tag_loss(tag_loss)
### BEGIN HIDDEN TESTS
checks.check_tag_loss(tag_loss, batch=3, steps=5, num_tags=3, lengths=(2, 5, 4), seed=3, dtype=torch.float64)
checks.check_tag_loss(tag_loss, batch=1, steps=4, lengths=(4,), seed=8)
### END HIDDEN TESTS

# %% [markdown]
# Now the tagger, with your two functions. One detail of the backward LSTM: in a padded batch it must start at
# each line's **last real token**, not at the padding after it, so it reads each row reversed within its
# length (`tagging.reverse_within_lengths`; `nn.LSTM` does the same when given a `pack_padded_sequence`).
# Next to it, a forward-only tagger with about as many parameters (one wider LSTM), and the baseline every
# tagger must beat: each token string's most frequent tag in the training files. Each LSTM tagger trains for
# 150 steps of 64 lines (a few seconds); all are scored on the validation files.

# %% [demo] pace=2
class Tagger(nn.Module):
    """Embedding -> forward LSTM (and, if bidirectional, a backward one) -> per-token logits (B, T, C)."""

    def __init__(self, vocab_size, num_tags, hidden_dim, bidirectional, embed_dim=32):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.forward_lstm = nn.LSTM(embed_dim, hidden_dim, batch_first=True)
        self.backward_lstm = nn.LSTM(embed_dim, hidden_dim, batch_first=True) if bidirectional else None
        width = 2 * hidden_dim if bidirectional else hidden_dim
        self.W = nn.Parameter(torch.randn(num_tags, width) / width ** 0.5)  # (C, 2H) or (C, H)
        self.b = nn.Parameter(torch.zeros(num_tags))

    def forward(self, ids, lengths):
        x = self.embedding(ids)  # (B, T, E)
        forward_states, _ = self.forward_lstm(x)  # (B, T, H)
        if self.backward_lstm is None:
            return forward_states @ self.W.T + self.b
        reversed_states, _ = self.backward_lstm(tagging.reverse_within_lengths(x, lengths))  # (B, T, H)
        backward_states = tagging.reverse_within_lengths(reversed_states, lengths)  # back in time order
        return tag_logits(forward_states, backward_states, self.W, self.b)  # (B, T, C)


def train_tagger(bidirectional, hidden_dim, steps=150, batch=64):
    torch.manual_seed(0)
    model = Tagger(len(token_vocab), len(tagging.TAGS), hidden_dim, bidirectional).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    generator = torch.Generator().manual_seed(0)
    for _ in budgeted(range(steps)):
        pick = torch.randint(len(train_x), (batch,), generator=generator).tolist()
        ids, lengths = tagging.pad_batch([train_x[i] for i in pick], device=device)  # (B, T), (B,)
        tags, _ = tagging.pad_batch([train_y[i] for i in pick], device=device)  # (B, T)
        loss = tag_loss(model(ids, lengths), tags, lengths)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model


@torch.no_grad()
def predicted_tags(model, lines):
    ids, lengths = tagging.pad_batch(lines, device=device)
    best = model(ids, lengths).argmax(-1).cpu()  # (B, T)
    return [tag for row, n in zip(best.tolist(), lengths.tolist()) for tag in row[:n]]


gold = torch.tensor([tag for line in valid_y for tag in line])  # (N,): every validation token's tag
baseline = tagging.most_frequent_tag(train_lines)
predictions = {"most frequent tag of the token": torch.tensor([TAG_ID[baseline(token)] for line in valid_lines
                                                               for token, _ in line])}
start = time.perf_counter()
with torch_threads(1):
    taggers = {"forward LSTM (H = 36)": train_tagger(False, 36), "Bi-LSTM (H = 24 + 24)": train_tagger(True, 24)}
for label, model in taggers.items():
    predictions[label] = torch.tensor(predicted_tags(model, valid_x))
print(f"({time.perf_counter() - start:.0f} s; parameters: "
      + ", ".join(f"{label} {sum(p.numel() for p in m.parameters()):,}" for label, m in taggers.items()) + ")")
tag_accuracy = {label: {tag: (p[gold == k] == k).float().mean().item() for k, tag in enumerate(tagging.TAGS)}
                for label, p in predictions.items()}
overall = {label: (p == gold).float().mean().item() for label, p in predictions.items()}
print(f"{'tag':>11} {'share':>6}" + "".join(f"{label:>32}" for label in predictions))
for k, tag in enumerate(tagging.TAGS):
    print(f"{tag:>11} {(gold == k).float().mean().item():6.1%}"
          + "".join(f"{tag_accuracy[label][tag]:32.3f}" for label in predictions))
print(f"{'all tokens':>11} {1:6.0%}" + "".join(f"{overall[label]:32.3f}" for label in predictions))

# %% [markdown]
# Accuracy on the held-out files, per tag and over all tokens (the table). What to expect: the token string says
# what a keyword, an operator, a number, a string or a comment is, so the baseline should be near perfect on
# those, and it cannot separate the three name roles. A forward LSTM has read what comes before a name (`def`,
# `.`), not the `(` after it. What the numbers say, in sentences computed from the table:

# %% [demo]
def role_sentence(label, values):
    good = [tag for tag in roles if values[tag] >= 0.9]
    poor = [tag for tag in roles if values[tag] < 0.9]
    said = ", ".join(f"{tag} {values[tag]:.2f}" for tag in roles)
    if not good:
        return f"{label}: {said}; below 0.9 on all three."
    return f"{label}: {said}; right on {', '.join(good)}" + (f", not on {', '.join(poor)}." if poor else ".")


roles = ("definition", "attribute", "call")
for label in predictions:
    print(role_sentence(label, tag_accuracy[label]))
ranking = sorted(overall, key=overall.get)
print("Over all tokens, from worst to best: " + " < ".join(f"{label} ({overall[label]:.3f})" for label in ranking)
      + f". The Bi-LSTM gets {tag_accuracy['Bi-LSTM (H = 24 + 24)']['call']:.2f} of the calls right, the forward "
      f"LSTM {tag_accuracy['forward LSTM (H = 36)']['call']:.2f}: a call is decided by the token after it.")

# %% [markdown]
# ## 10. One answer per sequence: which module is this?
#
# The other use of an LSTM over a whole sequence is **many-to-one**: read it, then answer once, from the state
# after the last token (the gap task of section 4 did this). Here the sequence is a snippet of 5 to 40
# consecutive tokens from one of six large standard-library modules, and the answer is the module.
# `tagging.module_snippets` takes each module's first 80% for training snippets and its last 20% for
# validation ones (the label is the file, so here the held-out part is the end of each file).
#
# In a padded batch, the state after the last token of row b is at position `lengths[b] - 1`, not at the end
# of the row: `outputs[:, -1]` is, for every snippet shorter than the longest, the state after reading padding.
# Write `last_states(outputs, lengths)`: `outputs` (B, T, H) from a left-to-right LSTM over a padded batch,
# `lengths` (B,). Return (B, H), row b's state at position `lengths[b] - 1`. It is checked against the final
# state `h_n` of `nn.LSTM` run on the same batch packed with `pack_padded_sequence`, which stops each row at its
# length.

# %% [answer] id=last_states
def last_states(outputs, lengths):
    """Each row's state after its last real token: outputs (B, T, H), lengths (B,) -> (B, H)."""
    ### BEGIN SOLUTION
    rows = torch.arange(len(lengths), device=outputs.device)  # (B,)
    return outputs[rows, lengths - 1]  # (B, H)
    ### END SOLUTION

# %% [tests] id=check_last_states points=2
"""Check my answer: against nn.LSTM's h_n over the packed batch, for lengths 6, 3, 1 and 4."""
checks.check_last_states(last_states)
### BEGIN HIDDEN TESTS
checks.check_last_states(last_states, lengths=(2, 5, 3), hidden=4, seed=4, dtype=torch.float64)
checks.check_last_states(last_states, lengths=(3,), hidden=2, seed=9)
### END HIDDEN TESTS

# %% [markdown]
# The classifier: embedding, a left-to-right LSTM over the padded batch, your `last_states`, a linear head. It
# trains for 150 steps of 64 snippets. Two baselines: always answering the most frequent module, and a
# **bag of tokens** (a linear classifier on how often each token occurs, order ignored). And one mistake
# measured: the same trained model read at position -1 instead of at each snippet's end.

# %% [demo] pace=2
snippets, modules, valid_snippets, valid_modules = tagging.module_snippets()
snippet_vocab = tagging.TokenVocab(snippets)
snippet_x, snippet_v = [snippet_vocab.encode(s) for s in snippets], [snippet_vocab.encode(s) for s in valid_snippets]
labels, valid_labels = torch.tensor(modules), torch.tensor(valid_modules)


class ModuleReader(nn.Module):
    """Embedding -> LSTM over the padded batch -> the state at each row's end (or at -1) -> a linear head."""

    def __init__(self, vocab_size, num_classes, hidden_dim=48, embed_dim=32):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.lstm = nn.LSTM(embed_dim, hidden_dim, batch_first=True)
        self.head = nn.Linear(hidden_dim, num_classes)

    def forward(self, ids, lengths, at_minus_one=False):
        outputs, _ = self.lstm(self.embedding(ids))  # (B, T, H): the states go on through the padding
        return self.head(outputs[:, -1] if at_minus_one else last_states(outputs, lengths))  # (B, classes)


def bag_of_tokens(rows):
    counts = torch.zeros(len(rows), len(snippet_vocab))  # (N, V)
    for r, row in enumerate(rows):
        counts[r].index_add_(0, torch.tensor(row), torch.ones(len(row)))
    return counts


with torch_threads(1):
    torch.manual_seed(0)
    reader = ModuleReader(len(snippet_vocab), len(tagging.SNIPPET_MODULES)).to(device)
    optimizer = torch.optim.Adam(reader.parameters(), lr=1e-2)
    generator = torch.Generator().manual_seed(0)
    for _ in budgeted(range(150)):
        pick = torch.randint(len(snippet_x), (64,), generator=generator)
        ids, lengths = tagging.pad_batch([snippet_x[i] for i in pick.tolist()], device=device)
        loss = F.cross_entropy(reader(ids, lengths), labels[pick].to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    bag = nn.Linear(len(snippet_vocab), len(tagging.SNIPPET_MODULES))
    bag_optimizer = torch.optim.Adam(bag.parameters(), lr=1e-2)
    bag_train = bag_of_tokens(snippet_x)
    for _ in budgeted(range(150)):
        loss = F.cross_entropy(bag(bag_train), labels)
        bag_optimizer.zero_grad()
        loss.backward()
        bag_optimizer.step()
with torch.no_grad():
    ids, lengths = tagging.pad_batch(snippet_v, device=device)
    module_accuracy = {
        "most frequent module": (valid_labels == labels.mode().values).float().mean().item(),
        "bag of tokens": (bag(bag_of_tokens(snippet_v)).argmax(-1) == valid_labels).float().mean().item(),
        "LSTM, state at each row's end": (reader(ids, lengths).argmax(-1).cpu() == valid_labels).float().mean().item(),
        "LSTM, state at position -1": (reader(ids, lengths, at_minus_one=True).argmax(-1).cpu() == valid_labels)
        .float().mean().item()}
print(f"{len(snippets)} training and {len(valid_snippets)} validation snippets of {', '.join(tagging.SNIPPET_MODULES)}")
for label, value in module_accuracy.items():
    print(f"{label:>30}: {value:.3f}")
at_end, at_minus_one = module_accuracy["LSTM, state at each row's end"], module_accuracy["LSTM, state at position -1"]
bag_value = module_accuracy["bag of tokens"]
print(f"The LSTM {'beats' if at_end > bag_value else 'does not beat'} the bag of tokens ({at_end:.3f} against "
      f"{bag_value:.3f}); read at position -1 the same trained LSTM scores {at_minus_one:.3f} instead of {at_end:.3f}.")

# %% [markdown]
# The sentence under the table is computed from it. Which module a snippet comes from is mostly a matter of
# vocabulary (`tarinfo`, `parser.add_argument`, `timedelta`), which a bag of tokens counts directly and which
# an LSTM must learn to keep in its state while reading; 150 steps on 1 440 snippets are little for that, so
# compare the two rows before trusting the LSTM on this task. Reading at position -1 hands the head the state
# after the padding: here the padding is the zero vector (`padding_idx=0`), which the state drifts away from
# slowly, so the damage is the difference printed above; with other padding, or a model trained on the correct
# states, it can be far larger, and nothing warns you: the shapes are right either way.

# %% [markdown]
# **Question (graded by your instructor).** In two or three sentences: why does the gradient that flows
# backwards along the LSTM's cell state not vanish when the forget gates are close to 1, while the
# simple RNN's does? Use $\partial c_t / \partial c_{t-1}$ and compare with notebook 03's Jacobian.

# %% [written] id=why_cell_state_gradient points=2
# *Model answer (instructors only).* Along the cell state, c_t = f_t * c_(t-1) + i_t * g_t, so the
# direct path has dc_t/dc_(t-1) = diag(f_t): going back k steps multiplies the gradient by the
# product of the forget gates, with no weight matrix and no tanh' in between. When the gates are near
# 1 this product stays near 1 and the gradient reaches distant steps. In the simple RNN every step
# multiplies by diag(1 - h_t^2) W, whose norm is typically below 1 (rho(W) < 1, tanh' <= 1), so the
# product shrinks exponentially. (The update is additive, so the error signal is carried rather than
# repeatedly squashed; the network learns when to forget.)
#
# *Marking:* 1 point for "dc_t/dc_(t-1) = f_t (elementwise; additive update, no W and no tanh
# derivative on that path), so the product over k steps stays near 1 when f is near 1"; 1 point for
# "the RNN's Jacobian diag(1 - h^2) W is applied at every step and its product decays like rho(W)^k"
# (or an equivalent contrast).

# %% [markdown]
# ## Summary
#
# - The forget gate $f_t = \sigma(w_f[h_{t-1}; x_t] + b_f)$ scales the old cell: in the lecture's
#   example $f_t = \sigma(1.2) = 0.768525$ and $c'_t = 1.537050$ (the slide's 0.77 and 1.54, rounded).
# - An LSTM step, `nn.LSTMCell`'s layout: one product gives the four gates in the order i, f, g, o;
#   $c_t = f \odot c_{t-1} + i \odot g$, $h_t = o \odot \tanh(c_t)$.
# - Along the cell the gradient is multiplied by $f_t$, not by $W$: with forget gates near 1 it
#   survives many steps, and the LSTM learns a dependency 40 steps back that the RNN cannot.
# - A character LSTM learns the look of Python in seconds. Its state holds where it is in the code (string,
#   comment, indentation, position in line): measured by single units' correlations and by a linear
#   readout, against an untrained control. A copy trained for minutes predicts better, but in networks
#   this small no single unit is as clean as the lecture's quote cell.
# - Stacked LSTMs: layer $l$ reads layer $l-1$'s states. At equal parameters and equal time, on the budget we
#   could run, depth did not pay; compare architectures at equal cost.
# - A Bi-LSTM reads both ways; ELMo's contextual embeddings come from a forward and a backward LSTM LM:
#   the backward LM knows from "in the bedroom" what the forward LM cannot. Each task mixes the biLM's layers
#   $[\overrightarrow{h}_j; \overleftarrow{h}_j]$ with its own learnt weights $\gamma\, \mathrm{softmax}(w)_j$.
# - A Bi-LSTM tagger gives every token a tag from both sides of it (`tag_logits`); the loss averages over the
#   real tokens only (`tag_loss`). Telling a call from an attribute needs the token after it.
# - A many-to-one model reads the state after each sequence's last real token (`last_states`), never position
#   -1 of a padded batch; and it is worth only what it gains over a simple baseline (here a bag of tokens).
