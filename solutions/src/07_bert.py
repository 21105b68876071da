# ---
# cell_timeout: 120
# ---

# %% [markdown]
# # 07 · BERT
#
# Notebook 06 built the Transformer's encoder block. **BERT** (Devlin et al., 2018: "Bidirectional
# Encoder Representations from Transformers") is a stack of those blocks, with no causal mask: every
# word sees the whole sentence, left and right. It is trained on plain text by two tasks that need
# no labels (seeds 000–004):
#
# - **masked language modelling (MLM)**: hide 15% of the words and predict them from both sides;
# - **next sentence prediction (NSP)**: given two sentences A and B, did B follow A in the text?
#
# Then the same network is **fine-tuned** on a task with a small head on top. Its outputs are
# **contextual embeddings**: the vector of "bank" depends on the sentence it is in.
#
# In this notebook you will write BERT's input side (WordPiece tokens, sentence pairs, embeddings)
# and its masking recipe, each checked against the real thing: the tokenizer and the weights of
# **all-MiniLM-L6-v2**, a real pretrained BERT (6 layers, hidden size 384, 12 heads, bert-base-uncased's
# vocabulary of 30522 WordPieces) that ships with the course and loads without a network. Then you will
# look inside it (contextual embeddings, attention), use it (the four ways, extractive QA) and count
# its parameters.
#
# **How the exercises work.** As before: fill in the cells with `# YOUR CODE HERE`, then run the
# read-only `"""Check my answer ..."""` cell after it. When graded, the checks run again with hidden
# cases. The notebook runs in about a minute on a laptop CPU.

# %% [setup] id=setup
import math

import matplotlib.pyplot as plt
import torch
from torch import nn

from course_lib.bert import BertConfig, BertModel, copy_from_hf
from course_lib.checks import bert as checks

torch.set_printoptions(precision=4, sci_mode=False)
hf_model, tokenizer = checks.hf_minilm()  # transformers' BertModel and BertTokenizerFast of all-MiniLM-L6-v2
vocab = checks.real_vocab()  # the 30522 WordPieces, a set of strings
print(f"all-MiniLM-L6-v2: {hf_model.config.num_hidden_layers} layers, hidden size {hf_model.config.hidden_size}, "
      f"{len(vocab)} WordPieces")

# %% [markdown]
# ## 1. WordPiece: words into pieces
#
# A vocabulary of whole words is either huge or full of holes: every new name, typo or inflection
# would be unknown. BERT's **WordPiece** vocabulary (seed 002) holds 30522 pieces: frequent words
# whole ("the", "bank"), and pieces of rarer ones. A piece that continues a word starts with `##`:

# %% [demo]
for word in ["the", "bank", "unaffable", "tokenisation", "embeddings", "xylophonist"]:
    print(f"{word:>14} -> {tokenizer.tokenize(word)}")

# %% [markdown]
# The tokenizer first lower-cases the text and splits it into words and punctuation; then each word
# is split **greedily, longest match first**:
#
# 1. a word longer than 100 characters becomes `["[UNK]"]` (BERT does not even try);
# 2. from the start of the word, find the **longest** prefix that is in the vocabulary; that is the
#    first piece;
# 3. from where it ended, find the longest piece again, this time looked up **with `##` in front**
#    (`"##ffa"`), and so on until the word is used up;
# 4. if at some point no piece matches (not even a single character), the **whole word** becomes
#    `["[UNK]"]`, not only the rest of it.
#
# For "unaffable": "unaffable", "unaffabl", ... are not pieces, "una" is; then from "ffable":
# "##ffable", ... , "##ffa" is; then "##ble". Write `wordpiece(word, vocab)` for one lower-cased word
# and the vocabulary `vocab` (a set of strings: test a piece with `piece in vocab`), returning the
# list of pieces. The check compares it with the real tokenizer on about 3000 words; the tokenizer is
# switched off while it is graded.

# %% [answer] id=wordpiece
def wordpiece(word, vocab):
    """Greedy longest-match-first WordPiece of one word: a list of pieces, continuations with '##', or ['[UNK]']."""
    ### BEGIN SOLUTION
    if len(word) > 100:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        piece = None
        while end > start:  # the longest piece first
            candidate = word[start:end] if start == 0 else "##" + word[start:end]
            if candidate in vocab:
                piece = candidate
                break
            end -= 1
        if piece is None:  # nothing matches here: the whole word is unknown
            return ["[UNK]"]
        pieces.append(piece)
        start = end
    return pieces
    ### END SOLUTION

# %% [tests] id=check_wordpiece points=3
"""Check my answer: every word of the course's docstrings, made-up words and very long ones, against BERT's WordPiece."""
checks.check_wordpiece(wordpiece)
### BEGIN HIDDEN TESTS
checks.check_wordpiece(wordpiece, vocab="toy")
checks.check_wordpiece(wordpiece, vocab="letters")
### END HIDDEN TESTS

# %% [markdown]
# A whole sentence, your pieces against the tokenizer's (which also splits off punctuation first):

# %% [demo]
sentence = "Tokenisers split unfamiliar words like WordPiece into subwords."
words = tokenizer.backend_tokenizer.pre_tokenizer.pre_tokenize_str(sentence.lower())
mine = [piece for word, _ in words for piece in wordpiece(word, vocab)]
print(mine)
print("same as the tokenizer:", mine == tokenizer.tokenize(sentence))

# %% [markdown]
# ## 2. Two sentences in one input
#
# For NSP and for tasks on sentence pairs (does B answer A? does B follow from A?) BERT reads both
# sentences at once, with two special tokens: **[CLS]** at the start (its output vector stands for
# the whole input: the classification heads read it) and **[SEP]** after each sentence:
#
# `[CLS] A A A [SEP] B B [SEP]`
#
# Each token also gets a **segment id** (`token_type_ids`): 0 for [CLS], sentence A and its [SEP],
# 1 for sentence B and the final [SEP]. Write `nsp_pair(sentence_a, sentence_b, cls_id, sep_id)`:
# `sentence_a` and `sentence_b` are lists of token ids (already WordPieces); return the pair
# `(input_ids, token_type_ids)` as two lists of ints. Do not change the lists you are given. The
# check compares with the real tokenizer's `tokenizer(a, b)`.

# %% [answer] id=nsp_pair
def nsp_pair(sentence_a, sentence_b, cls_id, sep_id):
    """[CLS] A [SEP] B [SEP] and its segment ids (0 up to the first [SEP], 1 after): two lists of ints."""
    ### BEGIN SOLUTION
    input_ids = [cls_id] + list(sentence_a) + [sep_id] + list(sentence_b) + [sep_id]
    token_type_ids = [0] * (len(sentence_a) + 2) + [1] * (len(sentence_b) + 1)
    return input_ids, token_type_ids
    ### END SOLUTION

# %% [tests] id=check_nsp_pair points=2
"""Check my answer: 40 pairs of consecutive docstring sentences, against tokenizer(a, b)."""
checks.check_nsp_pair(nsp_pair)
### BEGIN HIDDEN TESTS
checks.check_nsp_pair(nsp_pair, pairs=checks.nsp_sentences(10, seed=3), special_ids=(2, 3))
checks.check_nsp_pair(nsp_pair, pairs=[("a", "b"), ("the bank.", "of the river!")])
### END HIDDEN TESTS

# %% [demo]
a, b = "The cat sat on the mat.", "It was happy."
ids, types = nsp_pair(tokenizer.encode(a, add_special_tokens=False), tokenizer.encode(b, add_special_tokens=False),
                      tokenizer.cls_token_id, tokenizer.sep_token_id)
for token, segment in zip(tokenizer.convert_ids_to_tokens(ids), types):
    print(f"{token:>8} {segment}")

# %% [markdown]
# For NSP, half of the training pairs are two sentences that followed each other in the text (label
# `IsNext`), half take B from a random place (`NotNext`); a small head on the [CLS] output learns to
# tell them apart. (RoBERTa later found NSP unnecessary and dropped it, seed 004.)
#
# ## 3. The embedding layer
#
# BERT's input vector for token $t$ at position $p$ in segment $s$ is the sum of three learned
# embeddings, then a LayerNorm:
#
# $$x = \mathrm{LayerNorm}\big(E_{word}[t] + E_{position}[p] + E_{segment}[s]\big)$$
#
# Unlike notebook 06's sines, the position vectors are learned, one per position up to 512. The
# LayerNorm is notebook 06's (mean and variance over the hidden dimension, dividing by $H$), with
# BERT's $\epsilon = 10^{-12}$, scale `gamma` and shift `beta`.
#
# Write `bert_embeddings(input_ids, token_type_ids, weights)` for (B, T) integer tensors, returning
# (B, T, H). `weights` holds `word_embeddings` (V, H), `position_embeddings` (512, H),
# `token_type_embeddings` (2, H), `gamma` and `beta` (H,). The check gives you all-MiniLM-L6-v2's real
# weights and compares with its embedding layer in `transformers`; `F.layer_norm` and `nn.LayerNorm`
# are switched off while it is graded.

# %% [answer] id=bert_embeddings
def bert_embeddings(input_ids, token_type_ids, weights):
    """(B, T) ids and segments -> (B, T, H): word + position + segment embeddings, LayerNorm (eps 1e-12)."""
    ### BEGIN SOLUTION
    T = input_ids.shape[1]
    positions = torch.arange(T, device=input_ids.device)  # 0, 1, ..., T-1 in every sequence
    x = (weights["word_embeddings"][input_ids]  # (B, T, H)
         + weights["position_embeddings"][positions]  # (T, H), broadcast over the batch
         + weights["token_type_embeddings"][token_type_ids])  # (B, T, H)
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return weights["gamma"] * (x - mean) / torch.sqrt(var + 1e-12) + weights["beta"]
    ### END SOLUTION

# %% [tests] id=check_bert_embeddings points=3
"""Check my answer: three real sentence pairs (padded), against all-MiniLM-L6-v2's embedding layer in transformers."""
checks.check_bert_embeddings(bert_embeddings)
### BEGIN HIDDEN TESTS
checks.check_bert_embeddings(bert_embeddings, count=4, seed=7, dtype=torch.float64)
### END HIDDEN TESTS

# %% [markdown]
# On top of the embeddings come the encoder blocks of notebook 06, post-norm with GELU. The course's
# `BertModel` is built from exactly those blocks; with MiniLM's weights copied in, every layer's
# output equals `transformers`' (we use it in the rest of the notebook):

# %% [demo]
bert = copy_from_hf(BertModel(BertConfig.from_hf(hf_model.config)), hf_model).eval()
encoded = tokenizer("The bank of the river was muddy.", "She sat down.", return_tensors="pt")
with torch.no_grad():
    ours = bert(encoded["input_ids"], encoded["token_type_ids"], output_hidden_states=True).hidden_states
    theirs = hf_model(**encoded, output_hidden_states=True).hidden_states
w = {name: t for name, t in zip(checks.EMBEDDING_KEYS, (hf_model.embeddings.word_embeddings.weight,
     hf_model.embeddings.position_embeddings.weight, hf_model.embeddings.token_type_embeddings.weight,
     hf_model.embeddings.LayerNorm.weight, hf_model.embeddings.LayerNorm.bias))}
with torch.no_grad():
    print(f"your embeddings vs transformers: {(bert_embeddings(encoded['input_ids'], encoded['token_type_ids'], w) - theirs[0]).abs().max():.2e}")
for layer, (a, b) in enumerate(zip(ours, theirs)):
    print(f"layer {layer}: largest difference from transformers.BertModel {(a - b).abs().max():.2e}")

# %% [markdown]
# ## 4. Masked language modelling: 80/10/10
#
# A left-to-right LM cannot look right; a bidirectional model that sees the whole sentence could
# simply copy the word it must predict. BERT's way out: **hide** some words and predict them. The
# recipe (seeds 002, 004), for every sequence in a batch:
#
# 1. select each ordinary token with probability **15%**; never [CLS], [SEP] or padding
#    (`special_mask` is True there);
# 2. of the selected tokens, **80%** become [MASK], **10%** become a **random** token of the
#    vocabulary, **10%** stay **unchanged**; draw one number $u$ per token: [MASK] if $u < 0.8$,
#    random if $0.8 \le u < 0.9$, unchanged otherwise;
# 3. the labels are the **original** id at every selected position (all three kinds are
#    predicted) and **-100** everywhere else (the loss ignores -100).
#
# Write `mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id)` for (B, T) tensors,
# returning `(inputs, labels)`, both (B, T) with the dtype of `input_ids`. Draw every random number
# from `generator` (`torch.rand(shape, generator=generator)`, `torch.randint(vocab_size, shape,
# generator=generator)`), so that the same seed gives the same masks; do not change `input_ids`.
# The check runs it on 200 000 tokens and tests the invariants exactly and the rates statistically.

# %% [answer] id=mask_tokens
def mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id):
    """BERT's masked-LM corruption: (inputs, labels), each (B, T); labels are -100 where nothing is predicted."""
    ### BEGIN SOLUTION
    shape, device = input_ids.shape, input_ids.device
    selected = (torch.rand(shape, generator=generator, device=device) < 0.15) & ~special_mask
    u = torch.rand(shape, generator=generator, device=device)  # which of the three, per token
    random_ids = torch.randint(vocab_size, shape, generator=generator, device=device, dtype=input_ids.dtype)
    inputs = torch.where(selected & (u < 0.8), torch.full_like(input_ids, mask_id), input_ids)
    inputs = torch.where(selected & (u >= 0.8) & (u < 0.9), random_ids, inputs)
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, -100))
    return inputs, labels
    ### END SOLUTION

# %% [tests] id=check_mask_tokens points=3
"""Check my answer: 200 000 tokens with [CLS], [SEP] and padding: 15% selected, 80/10/10, specials untouched, seeded."""
checks.check_mask_tokens(mask_tokens)
### BEGIN HIDDEN TESTS
checks.check_mask_tokens(mask_tokens, rows=250, length=600, vocab_size=5000, mask_id=4, seed=11)
### END HIDDEN TESTS

# %% [markdown]
# One sentence through your masking, a few times (the seed changes): `[MASK]`, a random piece, or the
# word itself with a label under it.

# %% [demo]
encoded = tokenizer("The quick brown fox jumps over the lazy dog while the bank of the river floods.",
                    return_tensors="pt")
ids = encoded["input_ids"]
special = torch.isin(ids, torch.tensor(tokenizer.all_special_ids))
for seed in range(3):
    inputs, labels = mask_tokens(ids, special, torch.Generator().manual_seed(seed), len(vocab), tokenizer.mask_token_id)
    shown = [tok if label == -100 else f"{tok}<{tokenizer.convert_ids_to_tokens(int(label))}>"
             for tok, label in zip(tokenizer.convert_ids_to_tokens(inputs[0].tolist()), labels[0])]
    print(" ".join(shown))

# %% [markdown]
# **Question (graded by your instructor).** Why not replace every selected token by [MASK]? What goes
# wrong at fine-tuning time if the model only ever has to predict at [MASK] positions, and what do the
# 10% random and 10% unchanged tokens make the model do? Two or three sentences.

# %% [written] id=why_80_10_10 points=2
# *Model answer (instructors only).* [MASK] never occurs in the text BERT is fine-tuned and used on,
# so a model trained only to predict at [MASK] positions would learn good representations for
# [MASK] and need not bother with the real tokens: a mismatch between pretraining and use. Because
# a selected token may also be a random word (10%) or the true word (10%), and the model cannot tell
# which positions are selected, it must keep a good contextual representation of every input token
# and check whether each word fits its context; the random tokens also teach it not to trust the
# input blindly. (Only 1.5% of all tokens are random, which does not hurt its language
# understanding.)
#
# *Marking:* 1 point for "[MASK] is absent at fine-tuning: pretrain/fine-tune mismatch"; 1 point for
# "the model cannot know which tokens are corrupted, so it must represent (and check) every token".

# %% [markdown]
# **Fill in the blank.** all-MiniLM-L6-v2 was trained further for sentence similarity and has no MLM
# head, so the course pretrained its own small BERT (2 layers of 128, about a minute of MLM + NSP on
# the standard library's docstrings, `python -m course_lib.bert_pretrain`). It is tiny and knows only
# the docstrings' world, but it has learned what kind of word goes where:

# %% [demo]
from course_lib.bert import fill_mask, load_course_bert

try:
    course_bert = load_course_bert()
except (FileNotFoundError, ValueError) as error:
    course_bert = None
    print(f"the course BERT is not available here ({error}); skipping the fill-mask demo.")
if course_bert is not None:
    for text in ["Return the [MASK] of the list.", "Raise a [MASK] if the file does not exist.",
                 "If [MASK] is None, the default is used.", "This function is [MASK] by the module."]:
        guesses = fill_mask(text, top_k=5, model=course_bert[0], vocab=course_bert[1])[0]
        print(f"{text:45} " + ", ".join(f"{word} {p:.2f}" for word, p in guesses))

# %% [markdown]
# ## 5. Contextual embeddings: which "bank"?
#
# A word embedding table (notebook 02, word2vec) gives "bank" one vector. BERT's vector of "bank"
# depends on the sentence (seeds 003, 004). Below, "bank" in three river sentences and three money
# sentences goes through MiniLM; at every layer we compare the vectors of "bank" by cosine similarity:
# same sense against different sense.

# %% [demo]
river = ["We sat on the bank of the river.", "The river overflowed its bank after the storm.",
         "Fish swam near the muddy bank of the stream."]
money = ["She deposited the money in the bank.", "The bank approved my loan.",
         "He works at a bank in the city centre."]
bank_id = tokenizer.convert_tokens_to_ids("bank")


def bank_vectors(sentences):
    """(layers + 1, len(sentences), H): the hidden state of 'bank' after the embeddings and after every layer."""
    vectors = []
    for text in sentences:
        encoded = tokenizer(text, return_tensors="pt")
        position = encoded["input_ids"][0].tolist().index(bank_id)
        with torch.no_grad():
            states = bert(encoded["input_ids"], output_hidden_states=True).hidden_states
        vectors.append(torch.stack([h[0, position] for h in states]))  # (layers + 1, H)
    return torch.stack(vectors, dim=1)


def mean_cosine(a, b, same=False):
    """Mean cosine similarity between the vectors of a and of b (n, H), per layer; same=True skips pairs i = j."""
    sims = nn.functional.cosine_similarity(a[:, :, None], b[:, None, :], dim=-1)  # (layers + 1, n, m)
    if same:
        off_diagonal = ~torch.eye(a.shape[1], dtype=torch.bool)
        return sims[:, off_diagonal].mean(dim=1)
    return sims.flatten(1).mean(dim=1)


river_vectors, money_vectors = bank_vectors(river), bank_vectors(money)
same_sense = (mean_cosine(river_vectors, river_vectors, same=True) + mean_cosine(money_vectors, money_vectors, same=True)) / 2
other_sense = mean_cosine(river_vectors, money_vectors)
plt.figure(figsize=(6, 3.5))
plt.plot(same_sense, "o-", label="same sense (river-river, money-money)")
plt.plot(other_sense, "o-", label="different sense (river-money)")
plt.xticks(range(len(same_sense)), ["embeddings"] + [f"layer {i}" for i in range(1, len(same_sense))], rotation=30)
plt.ylabel("mean cosine similarity of 'bank'")
plt.legend()
plt.tight_layout()
plt.show()
for layer, (s, o) in enumerate(zip(same_sense, other_sense)):
    print(f"layer {layer}: same sense {s:.3f}, different sense {o:.3f}")

# %% [markdown]
# At the embedding layer every "bank" is almost the same vector (only the position differs, so the
# similarity is close to 1 for both). Layer by layer the context flows in through attention and the
# two senses move apart: in the upper layers a "bank" is clearly closer to a "bank" of the same sense.
# (All the similarities stay high: BERT's vectors share a few large common directions, so it is the
# gap between the two curves that carries the meaning, not the values themselves.) Which layer to use is a choice: for
# named-entity recognition (seed 001–002) concatenating the last four layers worked best.
#
# ## 6. What attention looks at
#
# **bertviz**'s `head_view(attention, tokens)` draws every head's attention interactively, but it
# loads its JavaScript from the internet. The same information, offline, as heatmaps: the weights of
# a few of MiniLM's heads on one sentence, from the course's `MultiHeadAttention` with
# `need_weights=True`. (With bertviz installed and online: `hf_model(**encoded, output_attentions=True)`
# gives the attentions it wants.)

# %% [demo]
text = "The cat sat on the mat because it was tired."
encoded = tokenizer(text, return_tensors="pt")
tokens = tokenizer.convert_ids_to_tokens(encoded["input_ids"][0].tolist())
with torch.no_grad():
    states = bert(encoded["input_ids"], output_hidden_states=True).hidden_states
    # every layer's weights: the layer's input through its attention, asking for the weights (1, heads, T, T)
    attention = torch.stack([layer.self_attention(h, h, h, need_weights=True)[1][0]
                             for layer, h in zip(bert.layers, states)])  # (layers, heads, T, T)
T = len(tokens)
previous = attention[:, :, torch.arange(1, T), torch.arange(T - 1)].mean(-1)  # weight on the token just before
specials = attention[:, :, :, [0, T - 1]].sum(-1).mean(-1)  # weight on [CLS] and [SEP]
it, cat = tokens.index("it"), tokens.index("cat")
picks = {"previous token": divmod(int(previous.argmax()), attention.shape[1]),
         "[CLS] and [SEP]": divmod(int(specials.argmax()), attention.shape[1]),
         "'it' -> 'cat'": divmod(int(attention[:, :, it, cat].argmax()), attention.shape[1])}
fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
for ax, (what, (layer, head)) in zip(axes, picks.items()):
    ax.imshow(attention[layer, head], cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(T), tokens, rotation=90)
    ax.set_yticks(range(T), tokens)
    ax.set(title=f"layer {layer + 1}, head {head + 1}: {what}", xlabel="attends to")
plt.tight_layout()
plt.show()

# %% [markdown]
# Each row is one token's attention over the sentence (it sums to 1). Out of MiniLM's 72 heads, the
# three above were picked by what they do: one that mostly looks at the previous token, one that puts
# most of its weight on [CLS] and [SEP] (a "nothing to do here" sink, common in BERT), and the one in
# which "it" looks most at "cat". Heads specialise, but a single head is rarely a clean linguistic rule:
# in the third, every word looks at "cat", not only "it". Attention weights show where information
# may flow, not why.
#
# ## 7. Four ways to use BERT
#
# After pretraining, a task adds a small layer on the outputs and fine-tunes everything (seed 003):
#
# | task | input | what is read | head |
# |---|---|---|---|
# | sentence-pair classification (MNLI, QQP) | [CLS] A [SEP] B [SEP] | the [CLS] vector (B, H) | linear H → classes |
# | single-sentence classification (SST-2, CoLA) | [CLS] A [SEP] | the [CLS] vector (B, H) | linear H → classes |
# | extractive question answering (SQuAD) | [CLS] question [SEP] paragraph [SEP] | every token (B, T, H) | linear H → 2: start and end logits |
# | token tagging (NER) | [CLS] A [SEP] | every token (B, T, H) | linear H → tags |
#
# The shapes, with untrained heads on MiniLM:

# %% [demo]
encoded = tokenizer(["Is the bank open?", "A dog is walking in a bedroom."],
                    ["The bank opens at nine.", "A cat is walking in a kitchen."], padding=True, return_tensors="pt")
with torch.no_grad():
    hidden = bert(encoded["input_ids"], encoded["token_type_ids"], encoded["attention_mask"]).last_hidden_state
H = hidden.shape[-1]
print("token outputs:", tuple(hidden.shape), "  [CLS] outputs:", tuple(hidden[:, 0].shape))
print("pair/sentence classification, 3 classes:", tuple(nn.Linear(H, 3)(hidden[:, 0]).shape))
print("token tagging, 9 tags:", tuple(nn.Linear(H, 9)(hidden).shape))
start_end = nn.Linear(H, 2)(hidden)  # (B, T, 2)
print("QA start and end logits:", tuple(start_end[..., 0].shape), tuple(start_end[..., 1].shape))

# %% [markdown]
# **A small classification task on real text.** Fine-tuning all of BERT takes minutes on a laptop CPU,
# so here is its cheap cousin, the *feature-based* approach (seed 001): keep MiniLM frozen, average a
# layer's token vectors into one sentence vector, and train only a linear classifier on top. The task,
# in the spirit of CoLA (is this sentence acceptable English?): tell a real docstring sentence from the
# same words shuffled. The two have exactly the same words, so a bag of words cannot do it; we train one
# classifier per layer, on 70% of the sentences (each with its shuffled copy), and test on the rest.

# %% [demo]
sentences = sorted({s for pair in checks.nsp_sentences(200, seed=1) for s in pair if len(s.split()) <= 25})[:240]
g = torch.Generator().manual_seed(0)
shuffled = [" ".join(s.split()[i] for i in torch.randperm(len(s.split()), generator=g).tolist()) for s in sentences]
texts, labels = sentences + shuffled, torch.tensor([1] * len(sentences) + [0] * len(shuffled))
print("real:    ", sentences[0], "\nshuffled:", shuffled[0])
layer_features = []
with torch.no_grad():
    for i in range(0, len(texts), 60):
        enc = tokenizer(texts[i:i + 60], padding=True, truncation=True, max_length=48, return_tensors="pt")
        states = bert(enc["input_ids"], attention_mask=enc["attention_mask"], output_hidden_states=True).hidden_states
        real = enc["attention_mask"][..., None].float()  # (B, T, 1): average over the real tokens only
        layer_features.append(torch.stack([(h * real).sum(1) / real.sum(1) for h in states]))  # (layers + 1, B, H)
layer_features = torch.cat(layer_features, dim=1)  # (layers + 1, 2n, H)
n = len(sentences)
order = torch.randperm(n, generator=g)
train = torch.cat([order[:int(0.7 * n)], order[:int(0.7 * n)] + n])  # a sentence and its shuffle stay together
test = torch.cat([order[int(0.7 * n):], order[int(0.7 * n):] + n])
for layer, X in enumerate(layer_features):
    X = (X - X[train].mean(0)) / X[train].std(0)
    torch.manual_seed(0)
    classifier = nn.Linear(X.shape[1], 2)
    optimiser = torch.optim.Adam(classifier.parameters(), lr=1e-2, weight_decay=0.1)
    for step in range(300):
        loss = nn.functional.cross_entropy(classifier(X[train]), labels[train])
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    accuracy = (classifier(X[test]).argmax(-1) == labels[test]).float().mean()
    print(f"{'embeddings' if layer == 0 else f'layer {layer}':>10}: test accuracy {accuracy:.0%}")

# %% [markdown]
# The embedding layer is at chance: averaged over the sentence, word + position vectors are almost the
# same for any order of the words. The contextual layers know whether the words fit together, with
# nothing trained but one linear layer, and the middle layers know it best: MiniLM's last layer was
# trained further for sentence similarity, where word order matters less. Which layer to read is a
# real choice (seed 002's table of F1 scores per layer makes the same point for NER). Fine-tuning (training all of BERT's weights with the
# classifier, a few epochs at a small learning rate such as $2 \cdot 10^{-5}$) does better still; it is
# what the GLUE results in the decks report.

# %% [markdown]
# **Extractive QA.** The answer is a span of the paragraph. The model gives every token a start logit
# $s_i$ and an end logit $e_j$; the span's score is $s_i + e_j$. The answer is the span with the best
# score among those that make sense: the end not before the start, and not too long. Write
# `best_span(start_logits, end_logits, max_len)` for 1-D tensors of length T, returning `(start, end)`
# (ints, the end included) maximising `start_logits[start] + end_logits[end]` with
# `start <= end` and `end - start + 1 <= max_len`. (Taking the two argmaxes separately is not enough:
# the best end may come before the best start.)

# %% [answer] id=best_span
def best_span(start_logits, end_logits, max_len):
    """(start, end) with start <= end, end - start + 1 <= max_len, maximising start_logits[start] + end_logits[end]."""
    ### BEGIN SOLUTION
    T = start_logits.shape[0]
    scores = start_logits[:, None] + end_logits[None, :]  # (T, T): scores[i, j] = s_i + e_j
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    allowed = (j >= i) & (j - i + 1 <= max_len)
    flat = scores.masked_fill(~allowed, float("-inf")).argmax()
    return int(flat // T), int(flat % T)
    ### END SOLUTION

# %% [tests] id=check_best_span points=2
"""Check my answer: 36 cases (random logits, ties, max_len 1 and beyond T), against a brute force over all spans."""
checks.check_best_span(best_span)
### BEGIN HIDDEN TESTS
checks.check_best_span(best_span, seed=5, count=60)
### END HIDDEN TESTS

# %% [demo]
question, paragraph = "Where did the cat sit?", "The cat sat on the mat near the door."
#                        [CLS] the   cat   sat   on   the  mat  near  the  door   .   [SEP]
start_logits = torch.tensor([-5.0, -1.0, -1.0, -1.0, 2.5, 3.0, 0.2, 0.1, -1.0, -1.0, -5.0, -5.0])  # made up
end_logits = torch.tensor([-5.0, -1.0, -1.0, -1.0, -1.0, 0.3, 2.0, 0.2, -1.0, 2.5, -1.0, -5.0])
paragraph_tokens = ["[CLS]"] + tokenizer.tokenize(paragraph) + ["[SEP]"]
for max_len in (2, 6):
    start, end = best_span(start_logits, end_logits, max_len)
    print(f"max_len {max_len}: tokens {start}..{end}: {' '.join(paragraph_tokens[start:end + 1])}")
print("the two argmaxes separately:", int(start_logits.argmax()), int(end_logits.argmax()))

# %% [markdown]
# ## 8. How big is BERT?
#
# Count the parameters of a BERT encoder with its pooler (what `transformers.BertModel` holds), for
# vocabulary size $V$, hidden size $H$, $L$ layers, feed-forward width $I$, $P$ positions and $S$
# segment types:
#
# - embeddings: $(V + P + S) \cdot H$, and a LayerNorm ($2H$: gamma and beta);
# - each layer: the four attention projections $W_Q, W_K, W_V, W_O$ ($H \times H$ and a bias each),
#   a LayerNorm, the feed-forward network ($H \to I \to H$, with biases), another LayerNorm;
# - the pooler: a dense $H \times H$ layer with its bias, applied to [CLS].
#
# (The number of heads does not matter: the heads split $H$.) Write
# `bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2)`
# returning an int. The check builds `transformers.BertModel` of the same sizes (on PyTorch's "meta"
# device, so that nothing is allocated) and counts.

# %% [answer] id=bert_parameters
def bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2):
    """The number of parameters of BertModel (embeddings, layers, pooler)."""
    ### BEGIN SOLUTION
    H, I = hidden, intermediate
    embeddings = (vocab_size + max_position + type_vocab) * H + 2 * H
    attention = 4 * (H * H + H) + 2 * H
    feed_forward = (H * I + I) + (I * H + H) + 2 * H
    pooler = H * H + H
    return embeddings + layers * (attention + feed_forward) + pooler
    ### END SOLUTION

# %% [tests] id=check_bert_parameters points=2
"""Check my answer: BERT-base and BERT-large against transformers.BertModel."""
checks.check_bert_parameters(bert_parameters)
### BEGIN HIDDEN TESTS
checks.check_bert_parameters(bert_parameters, configs=checks.random_configs(6, seed=4))
### END HIDDEN TESTS

# %% [demo]
print(f"{'model':12} {'layers':>6} {'hidden':>6} {'heads':>5} {'parameters':>14}")
for name, (V, H, L, I, heads) in {"BERT-base": (30522, 768, 12, 3072, 12), "BERT-large": (30522, 1024, 24, 4096, 16),
                                  "MiniLM-L6": (30522, 384, 6, 1536, 12)}.items():
    print(f"{name:12} {L:>6} {H:>6} {heads:>5} {bert_parameters(V, H, L, I):>14,}")
print(f"MiniLM as loaded: {sum(p.numel() for p in hf_model.parameters()):,} parameters")

# %% [markdown]
# The decks' 110M and 340M, and a lesson: in BERT-base the embedding table alone is
# $30522 \times 768 \approx 23$M parameters, a fifth of the model.
#
# **ALBERT** (seed 004) shrinks it by **factorising** the embedding: words get small vectors of size
# $E$, and one $E \times H$ matrix projects them up to the hidden size. Seed 004's numbers: $V = 30000$,
# $H = 2048$, $E = 128$. Compute `full_embedding` (the $V \times H$ table) and
# `factorised_embedding` ($V \times E$ plus $E \times H$), as exact numbers.

# %% [answer] id=albert_embedding
V, H, E = 30000, 2048, 128
### BEGIN SOLUTION
full_embedding = V * H
factorised_embedding = V * E + E * H
### END SOLUTION
print(f"V x H = {full_embedding:,}; V x E + E x H = {factorised_embedding:,}")

# %% [tests] id=check_albert_embedding points=1
"""Check my answer: seed 004's embedding sizes, exactly."""
checks.check_albert_embedding(full_embedding, factorised_embedding)

# %% [markdown]
# About 61M parameters become about 4M. ALBERT also shares one layer's weights across all layers.
# Other ways to a smaller BERT: **DistilBERT** (6 layers trained to imitate BERT-base: 40% smaller,
# 97% of its GLUE score, seed 003) and MiniLM itself, distilled from a larger model's attention.
#
# ## Summary
#
# - WordPiece splits each word greedily, longest piece first, with `##` on continuations; a word
#   that cannot be split is one [UNK].
# - BERT's input is `[CLS] A [SEP] B [SEP]` with segment ids 0 and 1; its embedding is word +
#   position + segment, then LayerNorm.
# - Pretraining: 15% of the tokens are selected, 80% of them become [MASK], 10% random, 10%
#   unchanged, and all are predicted; plus next-sentence prediction from [CLS].
# - The outputs are contextual: one word, different vectors in different sentences, more so in
#   higher layers.
# - One pretrained network, four kinds of tasks, each with a small head: [CLS] for sentences and
#   pairs, every token for tagging and for QA's start and end.
# - BERT-base has 110M parameters, BERT-large 340M; ALBERT factorises the embeddings.
