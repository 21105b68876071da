# ---
# cell_timeout: 120
# checks: course_lib.checks.bert
# ---

# %% [markdown]
# # 07 · BERT
#
# Notebook 06 built the Transformer's encoder block. **BERT** (Devlin et al., 2018: "Bidirectional
# Encoder Representations from Transformers") is a stack of those blocks, with no causal mask: every
# word sees the whole sentence, left and right. It is trained on plain text by two tasks that need
# no labels (every lecture of the course teaches them):
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
import copy
import math  # noqa: F401 (for the students' answers)
import re
import time

import ipywidgets as widgets
import matplotlib.pyplot as plt
import torch
from torch import nn

from course_lib.bert import BertConfig, BertModel, copy_from_hf
from course_lib.checks import bert as checks
checks.install_notebook_hooks()  # an answer not written yet says so in one line, not a traceback

torch.set_printoptions(precision=4, sci_mode=False)
hf_model, tokenizer = checks.hf_minilm()  # transformers' BertModel and BertTokenizerFast of all-MiniLM-L6-v2
vocab = checks.real_vocab()  # the 30522 WordPieces, a set of strings
print(f"all-MiniLM-L6-v2: {hf_model.config.num_hidden_layers} layers, hidden size {hf_model.config.hidden_size}, "
      f"{len(vocab)} WordPieces")

# %% [markdown]
# ## 1. WordPiece: words into pieces
#
# A vocabulary of whole words is either huge or full of holes: every new name, typo or inflection
# would be unknown. BERT's **WordPiece** vocabulary (the lecture "LSTMs & Transformers") holds 30522
# pieces: frequent words whole ("the", "bank"), and pieces of rarer ones. A piece that continues a
# word starts with `##`:

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
"""Check my answer: every word of the course's docstrings, made-up words and very long ones, against BERT's
WordPiece."""
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
# ### Where the pieces come from: learning a WordPiece vocabulary
#
# BERT's 30522 pieces were learned from text before BERT itself was trained. The lecture
# "LSTMs & Transformers" says how in one line: WordPiece *learns to merge characters based on which
# pairs maximise the likelihood of the training data if added to the vocabulary*. The recipe:
#
# 1. split every word of the training text into characters, every character after the first with
#    `##`: "lower" becomes `l ##o ##w ##e ##r`; the vocabulary starts as these characters;
# 2. for every pair of neighbouring pieces (a, b), work out how much merging it everywhere would
#    raise the **likelihood** of the training text under the simplest model of its pieces, a
#    unigram model: each piece drawn independently with its relative frequency count(p)/N, where
#    count(p) is how often the piece p occurs in the split text and N the number of pieces, so
#
#    $$\log L = \sum_p \text{count}(p)\,\log\frac{\text{count}(p)}{N};$$
#
# 3. merge the pair with the largest gain in $\log L$ into one piece everywhere (`l` + `##o` becomes
#    `lo`, `##o` + `##w` becomes `##ow`: the `##` of the second piece is dropped) and add the new
#    piece to the vocabulary;
# 4. repeat from 2 until the vocabulary has the size you want.
#
# The exact gain needs the counts after the merge. A short cut, the score that Hugging Face's NLP
# course gives for WordPiece, is the ratio
#
# $$\text{score}(a, b) = \frac{\text{count}(ab)}{\text{count}(a)\cdot\text{count}(b)}$$
#
# where count(ab) is how often a is directly followed by b inside a word. count(ab)/N is how often
# the pair occurs among the N pieces; (count(a)/N)(count(b)/N) is how often it would occur if a and
# b were placed independently; the score is their ratio (up to the constant N), high when a and b
# are rarely seen apart. It is an **approximation**: when the pair is rare next to its pieces, each
# of its count(ab) merged occurrences raises $\log L$ by about $\log(N\cdot\text{score}(a, b)) - 1$,
# so the gain is about count(ab) times that. The ratio ranks pairs by the gain *per occurrence* and
# leaves out the factor count(ab): a pair seen once can score as high as a pair seen a thousand
# times. Counting alone (merge the most frequent pair) is the rule of BPE, byte-pair encoding; it
# would first merge common pairs such as `##e ##s` whose pieces are frequent everywhere anyway. You
# will compute the ratio, then compare all three rules on real text.
#
# Write `pair_scores(splits)`. `splits` is a dict from a split word, a tuple of pieces such as
# `("l", "##o", "##w")`, to how many times that word occurs in the text. Return a dict from every
# pair `(a, b)` of neighbouring pieces (a tuple of two strings) to its ratio score (a float). Count every
# occurrence: a piece or a pair that occurs twice in a word counts twice, and a word that occurs 5
# times counts 5 times. For the four words below, count(##e) = 2 + 2·6 + 3 = 17, count(##s) = 9 and
# count(##e ##s) = 9, so score(##e, ##s) = 9 / (17 · 9) = 1/17; `##i` and `##d` occur only together,
# 3 times: score(##i, ##d) = 3 / (3 · 3) = 1/3. The check compares your scores with exact fractions
# on this corpus and on others. Do not change `splits`.
#
# ```python
# splits = {("l", "##o", "##w"): 5, ("l", "##o", "##w", "##e", "##r"): 2,
#           ("n", "##e", "##w", "##e", "##s", "##t"): 6, ("w", "##i", "##d", "##e", "##s", "##t"): 3}
# ```

# %% [answer] id=pair_scores
def pair_scores(splits):
    """{(a, b): count(ab) / (count(a) * count(b))} for every pair of neighbouring pieces in the split words."""
    ### BEGIN SOLUTION
    pieces, pairs = {}, {}
    for split, count in splits.items():
        for piece in split:
            pieces[piece] = pieces.get(piece, 0) + count
        for a, b in zip(split, split[1:]):  # every neighbouring pair, repeats included
            pairs[a, b] = pairs.get((a, b), 0) + count
    return {(a, b): n / (pieces[a] * pieces[b]) for (a, b), n in pairs.items()}
    ### END SOLUTION

# %% [tests] id=check_pair_scores points=2
"""Check my answer: the corpus above and made-up ones with repeated pieces, against exact fractions."""
checks.check_pair_scores(pair_scores)
### BEGIN HIDDEN TESTS
checks.check_pair_scores(pair_scores, corpora=checks.pair_score_corpora(seed=3, count=4))
### END HIDDEN TESTS

# %% [markdown]
# Your scores on the four words, best first: `w ##i` and `##i ##d` win though each occurs only 3
# times, because their pieces never occur apart, while `##e ##s` and `##s ##t` (9 times each) score
# low: `##e` is everywhere. Learning a vocabulary is this step again and again: merge the best pair, count, score,
# merge. `course_lib.wordpiece.learn_wordpiece` does it (it updates the counts of the words that
# changed instead of counting everything again), with one of three rules: `score="ratio"`, your
# score; `score="likelihood"`, the exact gain in $\log L$ of each merge
# (`course_lib.wordpiece.likelihood_gain`, tested against $\log L$ recomputed from scratch before and
# after every possible merge); `score="frequency"`, the most frequent pair, BPE's rule. The merges
# of each, in order:

# %% [demo]
from course_lib.wordpiece import learn_wordpiece, merge_pieces, word_counts

splits = {("l", "##o", "##w"): 5, ("l", "##o", "##w", "##e", "##r"): 2,
          ("n", "##e", "##w", "##e", "##s", "##t"): 6, ("w", "##i", "##d", "##e", "##s", "##t"): 3}
for (a, b), score in sorted(pair_scores(splits).items(), key=lambda item: -item[1])[:5]:
    print(f"{a:>3} {b:<4} score {score:.4f}")
toy = {"".join(piece.removeprefix("##") for piece in split): n for split, n in splits.items()}  # {"low": 5, ...}
for rule in ("ratio", "likelihood", "frequency"):
    learned = learn_wordpiece(toy, vocab_size=18, score=rule)  # [UNK], 11 characters, 6 merges
    print(f"{rule:>10} merges: " + ", ".join(merge_pieces(a, b) for a, b in learned.merges))

# %% [markdown]
# **On real text, and against Hugging Face's trainer.** The words of the standard library's
# docstrings (the course's prose corpus of `course_lib.data`; every fourth module, to keep this fast),
# a vocabulary of 300 pieces: about 50 characters (`a`, ..., `##a`, ...) and 250 merges, learned by
# each of the three rules. Beside them, the vocabulary that the `WordPieceTrainer` of Hugging Face
# `tokenizers` learns from the same words with the same size. (A tie between pairs of equal score
# goes to the more frequent pair, then to the pair whose pieces joined the vocabulary first.)

# %% [demo]
from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from course_lib.data import module_sentences, stdlib_sources

modules = stdlib_sources()  # the standard library's modules, sorted by name
train_text = [sentence for path in modules[1::4] for sentence in module_sentences(path, 4, 40)]
held_out_text = [sentence for path in modules[::10] for sentence in module_sentences(path, 4, 40)]  # other modules
counts = word_counts(train_text)  # Counter: lower-cased word (letters a-z) -> how often it occurs
VOCAB_SIZE = 300
started = time.perf_counter()
RULES = {"ratio": "ratio count(ab) / (count(a) count(b))", "likelihood": "likelihood gain",
         "frequency": "frequency count(ab), BPE"}
learned = {rule: learn_wordpiece(counts, VOCAB_SIZE, score=rule) for rule in RULES}
seconds = time.perf_counter() - started
hf = Tokenizer(models.WordPiece(unk_token="[UNK]"))
hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()  # our words, so that both learners count the same words
hf.train_from_iterator([" ".join(re.findall(r"[a-z]+", text.lower())) for text in train_text],
                       trainers.WordPieceTrainer(vocab_size=VOCAB_SIZE, special_tokens=["[UNK]"], show_progress=False))
hf_order = sorted(hf.get_vocab(), key=hf.get_vocab().get)  # the order in which the trainer added them
hf_vocab = set(hf_order)
print(f"{sum(counts.values()):,} words ({len(counts):,} different); our three vocabularies in {seconds:.1f} s")
for rule, result in learned.items():
    print(f"ours, {rule} rule: {len(set(result.tokens) & hf_vocab)} of {VOCAB_SIZE} tokens also in HF's vocabulary")
    print("   first merges:", ", ".join(merge_pieces(a, b) for a, b in result.merges[:14]))
print("HF WordPieceTrainer, first merges:", ", ".join([t for t in hf_order[1:] if len(t.removeprefix("##")) > 1][:14]))

# %% [markdown]
# How often the merged pair occurred when it was merged, merge by merge:

# %% [demo]
plt.figure(figsize=(7.5, 3))
for rule, result in learned.items():
    plt.plot(result.pair_counts, ".", markersize=3, label=RULES[rule])
plt.yscale("log")
plt.xlabel("merge number")
plt.ylabel("count(ab) in the training words")
plt.title("how common the pairs are that each rule merges")
plt.legend(loc="upper right", fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# Now split the words of held-out modules (every tenth, none of them learned from) with **your**
# `wordpiece` and each vocabulary (and, for scale, BERT's 30522 pieces): how many tokens does a word
# need?

# %% [demo]
held_out = word_counts(held_out_text)
vocabularies = {**{f"ours ({rule})": set(result.tokens) for rule, result in learned.items()},
                "HF WordPieceTrainer": hf_vocab, "BERT, 30522 pieces": vocab}
total = sum(held_out.values())
tokens_per_word = {}
for name, pieces in vocabularies.items():
    split_words = {word: wordpiece(word, pieces) for word in held_out}
    tokens_per_word[name] = sum(len(split_words[word]) * n for word, n in held_out.items()) / total
    unknown = sum(n for word, n in held_out.items() if split_words[word] == ["[UNK]"]) / total
    print(f"{name:>20}: {tokens_per_word[name]:.2f} tokens per word, {unknown:.2%} of the words [UNK]")
same = all(wordpiece(word, hf_vocab) == [t.value for t in hf.model.tokenize(word)] for word in held_out)
print(f"your wordpiece with HF's vocabulary = HF's own WordPiece model, on all {len(held_out):,} words: {same}")
for word in ["returning", "subprocess", "directories", "unicode", "tokenisation"]:
    print(f"{word:>13}: " + "   ".join(f"{rule} {' '.join(wordpiece(word, set(result.tokens)))}"
                                       for rule, result in learned.items()))

from IPython.display import Markdown, display

ratio, gain, bpe = (tokens_per_word[f"ours ({rule})"] for rule in ("ratio", "likelihood", "frequency"))
seen_once = {rule: sum(n == 1 for n in result.pair_counts) for rule, result in learned.items()}
display(Markdown(
    f"On the held-out words the ratio rule needs {ratio:.2f} tokens per word, the likelihood rule {gain:.2f} and "
    f"BPE's frequency rule {bpe:.2f}. Of the {len(learned['ratio'].merges)} merges, the ratio rule spends "
    f"{seen_once['ratio']} on pairs seen once, the likelihood rule {seen_once['likelihood']}, BPE "
    f"{seen_once['frequency']}. "
    + (f"So the ratio's extra tokens ({ratio - bpe:.2f} per word more than BPE) are the approximation's doing, not "
       f"the likelihood rule's: the exact gain, which counts every occurrence of the pair, ends "
       f"{abs(gain - bpe):.2f} tokens per word {'above' if gain > bpe else 'below'} BPE."
       if abs(gain - bpe) < abs(ratio - bpe) / 2 else
       f"Here the exact likelihood rule is no closer to BPE than the ratio: {gain - bpe:+.2f} tokens per word "
       f"against {ratio - bpe:+.2f}.")))

# %% [markdown]
# **Why the two vocabularies differ.** Hugging Face's `WordPieceTrainer` does not use the WordPiece
# score. Its documentation says only "Trainer capable of training a WordPiece model"; its source
# (`tokenizers/src/models/wordpiece/trainer.rs`) shows what it does: it builds a **BPE** trainer with
# the continuation prefix `##`, trains it, and converts the result with `WordPiece::from_bpe`. So its
# merges are chosen by BPE's rule, the most frequent pair count(ab) (ties broken by the trainer's
# internal token ids); then the merges are thrown away and only the vocabulary is kept, in a
# `WordPiece` model, which splits words greedily, longest match first, as your `wordpiece` does (the
# cell above checks it on every held-out word). "WordPiece" in `tokenizers` names how a vocabulary
# splits words (and `decoders.WordPiece`, which glues `##` pieces back into words when decoding), not
# how the vocabulary is learned. The cells above show it by behaviour as well: our learner with the
# frequency rule, breaking ties as HF's trainer does (the pair whose pieces joined the vocabulary
# first), finds HF's vocabulary token for token (the counts of shared tokens above).
#
# Where the rules part: the frequency rule starts with what most words share (`th`, `the`, `##er`,
# `##ing`); the ratio starts with pieces that are seldom apart (`##bj` from "object", `ex`, `qu`),
# and soon with rarities such as `gz` or `xb`: a pair whose two pieces occur once each, and only
# together, scores 1, the highest ratio there is, however rare the pair. That is the factor
# count(ab) that the ratio leaves out of the likelihood gain: merging a pair seen once removes one
# piece from the text, merging a pair seen a thousand times removes a thousand. The exact rule
# weighs both, how often the pair occurs and how seldom its pieces occur apart, so its first merges
# (printed above) are common pairs, like BPE's, with a preference for pairs that belong together.
# With only about 250 merges, spending them on rarities costs a lot, which is what the sentence
# under the counts measures. (The trainer behind BERT's vocabulary was never published; Schuster and
# Nakajima describe the likelihood rule, with a language model of the text as the likelihood.)

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
# tell them apart. (RoBERTa later found NSP unnecessary and dropped it; see the
# lecture "BERT and Other Language Models".)
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
for layer, (a, b) in enumerate(zip(ours, theirs)):
    print(f"layer {layer}: largest difference from transformers.BertModel {(a - b).abs().max():.2e}")
with torch.no_grad():
    print("your embeddings vs transformers:",
          f"{(bert_embeddings(encoded['input_ids'], encoded['token_type_ids'], w) - theirs[0]).abs().max():.2e}")

# %% [markdown]
# ## 4. Masked language modelling: 80/10/10
#
# A left-to-right LM cannot look right; a bidirectional model that sees the whole sentence could
# simply copy the word it must predict. BERT's way out: **hide** some words and predict them. The
# recipe (the lectures "LSTMs & Transformers" and "BERT and Other Language Models"), for every sequence in a batch:
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
# the docstrings' world. Has it learned what kind of word goes where? Its five likeliest words for
# each blank, with a tick on those that fit it (the words that could fit each blank are listed in
# the cell, `FITS`):

# %% [demo]
from IPython.display import Markdown, display

from course_lib.bert import fill_mask, load_course_bert

try:
    course_bert = load_course_bert()
except (FileNotFoundError, ValueError) as error:
    course_bert = None
    print(f"the course BERT is not available here ({error}); skipping the fill-mask demo.")
FITS = {  # words a docstring could have in the blank
    "Return the [MASK] of the list.": {"length", "size", "sum", "number", "index", "value", "values", "first", "last",
                                       "items", "elements", "copy", "contents", "maximum", "minimum", "count", "end",
                                       "start", "head", "tail", "sorted", "average", "mean", "total", "position"},
    "Raise a [MASK] if the file does not exist.": {"error", "exception", "valueerror", "oserror", "ioerror", "warning",
                                                   "typeerror", "keyerror", "runtimeerror", "filenotfounderror"},
    "If [MASK] is None, the default is used.": {"it", "this", "value", "name", "key", "path", "default", "argument",
                                                "arg", "timeout", "encoding", "mode", "size", "file", "obj", "object",
                                                "x", "s", "n", "data", "filename", "prefix", "sep", "func", "type"},
    "This function is [MASK] by the module.": {"called", "used", "defined", "provided", "imported", "exported",
                                               "replaced", "implemented", "wrapped", "invoked", "overridden",
                                               "exposed", "registered", "generated", "created", "supported"},
}
if course_bert is not None:
    tops = {}
    for text, fits in FITS.items():
        guesses = fill_mask(text, top_k=5, model=course_bert[0], vocab=course_bert[1])[0]
        tops[text] = guesses[0]
        print(f"{text:45} " + ", ".join(f"{word}{' ✓' if word in fits else ''} {p:.2f}" for word, p in guesses))
    fitting = [text for text, (word, _) in tops.items() if word in FITS[text]]
    missing = [text for text in FITS if text not in fitting]
    display(Markdown(
        f"The first guess fits the blank in {len(fitting)} of {len(FITS)} sentences"
        + (" (" + "; ".join(f"*{text}*: {tops[text][0]}" for text in fitting) + ")" if fitting else "")
        + (". It does not in " + "; ".join(f"*{text}*: {tops[text][0]}" for text in missing) if missing else "")
        + f". No first guess gets more than {max(p for _, p in tops.values()):.0%} of the probability: "
        + ("the model has learned what kind of word goes where, though with little confidence."
           if not missing else
           "it has learned the docstrings' frequent words, and only in part what kind of word goes where.")))

# %% [markdown]
# ## 5. Contextual embeddings: which "bank"?
#
# A word embedding table (notebook 02, word2vec) gives "bank" one vector. BERT's vector of "bank"
# depends on the sentence (the lectures "Pre-trained NLP Model: BERT" and "BERT and Other Language Models").
# Below, "bank" in three river sentences and three money sentences goes through MiniLM, and so does
# the "apple" of the lecture "Pre-trained NLP Model: BERT", the fruit and the company; at every
# layer we compare the vectors of the word by cosine similarity: same sense against different sense.

# %% [demo]
SENSES = {
    "bank": {"river": ["We sat on the bank of the river.", "The river overflowed its bank after the storm.",
                       "Fish swam near the muddy bank of the stream."],
             "money": ["She deposited the money in the bank.", "The bank approved my loan.",
                       "He works at a bank in the city centre."]},
    "apple": {"fruit": ["I ate a crisp apple after lunch.", "She baked an apple pie for the party.",
                        "The apple fell from the tree in the garden."],
              "company": ["Apple released a new phone this autumn.", "Shares of Apple rose after the announcement.",
                          "He bought a laptop made by Apple."]},
}


def word_vectors(sentences, word):
    """(layers + 1, len(sentences), H): the hidden state of `word` after the embeddings and after every layer."""
    word_id = tokenizer.convert_tokens_to_ids(word)
    vectors = []
    for text in sentences:
        encoded = tokenizer(text, return_tensors="pt")
        ids = encoded["input_ids"][0].tolist()
        if word_id not in ids:
            raise ValueError(f"{word!r} is not one WordPiece of {text!r}: {tokenizer.tokenize(text)}")
        with torch.no_grad():
            states = bert(encoded["input_ids"], output_hidden_states=True).hidden_states
        vectors.append(torch.stack([h[0, ids.index(word_id)] for h in states]))  # (layers + 1, H)
    return torch.stack(vectors, dim=1)


def mean_cosine(a, b, same=False):
    """Mean cosine similarity between the vectors of a and of b (n, H), per layer; same=True skips pairs i = j."""
    sims = nn.functional.cosine_similarity(a[:, :, None], b[:, None, :], dim=-1)  # (layers + 1, n, m)
    if same:
        off_diagonal = ~torch.eye(a.shape[1], dtype=torch.bool)
        return sims[:, off_diagonal].mean(dim=1)
    return sims.flatten(1).mean(dim=1)

# %% [markdown]
# For each word, layer by layer: how similar its vectors are within one sense, and across the two senses.

# %% [demo]
fig, axes = plt.subplots(1, 2, figsize=(12, 3.8), sharey=True)
for ax, (word, senses) in zip(axes, SENSES.items()):
    (name_a, a_sentences), (name_b, b_sentences) = senses.items()
    a, b = word_vectors(a_sentences, word), word_vectors(b_sentences, word)
    same_sense = (mean_cosine(a, a, same=True) + mean_cosine(b, b, same=True)) / 2
    other_sense = mean_cosine(a, b)
    ax.plot(same_sense, "o-", label=f"same sense ({name_a}-{name_a}, {name_b}-{name_b})")
    ax.plot(other_sense, "o-", label=f"different sense ({name_a}-{name_b})")
    ax.set_xticks(range(len(same_sense)), ["embeddings"] + [f"layer {i}" for i in range(1, len(same_sense))],
                  rotation=30)
    ax.set(title=f'"{word}"', ylabel="mean cosine similarity")
    ax.legend(fontsize=9)
    print(f'"{word}", gap between same and different sense per layer:',
          " ".join(f"{gap:.3f}" for gap in same_sense - other_sense))
plt.tight_layout()
plt.show()

# %% [markdown]
# At the embedding layer every "bank" is almost the same vector (only the position differs, so the
# similarity is close to 1 for both). Layer by layer the context flows in through attention and the
# two senses move apart: in the upper layers a "bank" is clearly closer to a "bank" of the same sense,
# and an "apple" you eat to another apple you eat. (All the similarities stay high: BERT's vectors share
# a few large common directions, so it is the gap between the two curves that carries the meaning, not
# the values themselves.)
#
# Try your own sentences: the widget shows, for one layer, the cosine similarity of the word's
# vectors in every pair of sentences (the three of one sense, then the three of the other, then
# yours). Type a sentence that contains the word (lower or upper case) and press Enter: which block
# does it join? Move the layer down to the embeddings and watch the two blocks disappear.

# %% [demo]
def show_similarities(word, layer, sentence):
    sentences = [text for texts in SENSES[word].values() for text in texts]
    if word in tokenizer.tokenize(sentence):
        sentences.append(sentence)
    elif sentence.strip():
        print(f'"{word}" is not a word of your sentence; showing the six sentences only.')
    vectors = word_vectors(sentences, word)[layer]  # (n, H)
    sims = nn.functional.cosine_similarity(vectors[:, None], vectors[None, :], dim=-1)  # (n, n)
    fig, ax = plt.subplots(figsize=(8.5, 4.6))
    image = ax.imshow(sims, cmap="viridis", vmin=float(sims.min()), vmax=1)
    labels = [text if len(text) < 42 else text[:40] + "..." for text in sentences]
    ax.set_yticks(range(len(sentences)), labels)
    ax.set_xticks(range(len(sentences)), [str(i + 1) for i in range(len(sentences))])
    for i in range(len(sentences)):
        for j in range(len(sentences)):
            ax.text(j, i, f"{sims[i, j]:.2f}", ha="center", va="center", fontsize=8,
                    color="black" if sims[i, j] > (sims.min() + 1) / 2 else "white")
    ax.set_title(f'"{word}" at {"the embedding layer" if layer == 0 else f"layer {layer}"}: cosine similarity')
    fig.colorbar(image, ax=ax, fraction=0.04)
    plt.tight_layout()
    plt.show()


widgets.interact(show_similarities, word=widgets.ToggleButtons(options=list(SENSES), value="bank"),
                 layer=widgets.IntSlider(value=len(bert.layers), min=0, max=len(bert.layers), continuous_update=False),
                 sentence=widgets.Text(value="", placeholder="your sentence with the word, e.g. The bank of the canal "
                                       "was covered in moss.", continuous_update=False,
                                       layout=widgets.Layout(width="60%")));

# %% [markdown]
# **Which layer to use?** For a task that tags every token, such as named-entity recognition, BERT's
# authors fed the vectors of one layer, or of several combined, to a tagger (the
# lectures "Machine Learning, Big Data and AI: Block 6" and "LSTMs & Transformers"; dev F1 on
# CoNLL-2003): the embeddings 91.0, the last layer 94.9, the second-to-last 95.6, the sum of all
# twelve layers 95.5, the sum of the last four 95.9, the last four concatenated 96.1. Here is the
# same idea on a tiny tagging task where only the context tells the answer: is a word used as
# a **noun** or as a **verb**? "book", "watch", "swim", "dream" ... are both ("the book was long" /
# "we book every day"). A linear *probe* (a classifier with no hidden layer, so it can only read
# what is already there; fit in one step by ridge regression) is trained on the word's vector in 15
# words x 8 sentences, and tested on 15 *other* words in 8 *other* sentence frames, so neither the
# word nor the frame can be memorised.

# %% [demo]
BOTH = ["book", "run", "play", "watch", "drink", "walk", "fish", "park", "light", "cook", "train", "ship", "ring",
        "plant", "dance", "paint", "call", "dream", "rest", "visit", "smile", "kiss", "swim", "shop", "race",
        "climb", "jump", "hope", "fight", "sail"]
AS_NOUN = ["the {} was very long .", "my {} is over there .", "after lunch the {} started .", "i liked that {} a lot .",
           "her {} was in the box .", "everyone talked about the {} for weeks .", "is your {} ready ?",
           "what a {} it was !"]
AS_VERB = ["we {} every single day .", "they often {} with their friends .", "i want to {} when it is warm .",
           "you should {} in the morning .", "birds {} near the lake .", "people like to {} on the weekend .",
           "did you {} yesterday ?", "let us {} together !"]


def tagging_set(words, noun_frames, verb_frames):
    """(layers + 1, N, H) the word's vector at every layer, and (N,) its tag: 0 noun, 1 verb."""
    texts = [frame.format(w) for w in words for frame in noun_frames + verb_frames]
    tags = torch.tensor([0] * len(noun_frames) + [1] * len(verb_frames)).repeat(len(words))  # (N,)
    targets = torch.tensor([tokenizer.convert_tokens_to_ids(w) for w in words]).repeat_interleave(
        len(noun_frames) + len(verb_frames))  # (N,): every word is one WordPiece
    encoded = tokenizer(texts, padding=True, return_tensors="pt")
    with torch.no_grad():
        states = bert(encoded["input_ids"], attention_mask=encoded["attention_mask"],
                      output_hidden_states=True).hidden_states
    where = (encoded["input_ids"] == targets[:, None]).int().argmax(dim=1)  # (N,) position of the word
    return torch.stack([h[torch.arange(len(texts)), where] for h in states]), tags


shuffled = [BOTH[i] for i in torch.randperm(len(BOTH), generator=torch.Generator().manual_seed(0))]
train_states, train_tags = tagging_set(shuffled[:15], AS_NOUN[:4], AS_VERB[:4])
test_states, test_tags = tagging_set(shuffled[15:], AS_NOUN[4:], AS_VERB[4:])

# %% [markdown]
# Six ways to turn the layers into one feature vector per word (the choices of the
# lecture "LSTMs & Transformers"), each scored by the same linear probe on the held-out words and
# frames; then every layer on its own:

# %% [demo]
# the choices of the lecture "LSTMs & Transformers"; `states` is (layers + 1, N, H), states[0] the embedding layer
COMBINATIONS = {
    "embeddings": lambda states: states[0],
    "last layer": lambda states: states[-1],
    "second-to-last layer": lambda states: states[-2],
    "sum of all layers": lambda states: states[1:].sum(0),
    "sum of last four": lambda states: states[-4:].sum(0),
    "concat last four": lambda states: torch.cat(list(states[-4:]), dim=-1),
}


def probe_accuracy(train_x, train_y, test_x, test_y, ridge=100.0):
    """Test accuracy of a linear classifier fit in one step: ridge regression of the one-hot classes on the features."""
    mean, std = train_x.mean(0), train_x.std(0) + 1e-6
    X, X_test = ((train_x - mean) / std).double(), ((test_x - mean) / std).double()  # (N, D), (M, D)
    targets = nn.functional.one_hot(train_y).double()  # (N, classes)
    prior = targets.mean(0)
    # W = (X^T X + ridge I)^-1 X^T (targets - prior), computed as X^T (X X^T + ridge I)^-1 (...): N < D here
    W = X.T @ torch.linalg.solve(X @ X.T + ridge * torch.eye(len(X), dtype=X.dtype), targets - prior)  # (D, classes)
    return float(((X_test @ W + prior).argmax(-1) == test_y).float().mean())


probe_results = {name: probe_accuracy(pick(train_states), train_tags, pick(test_states), test_tags)
                 for name, pick in COMBINATIONS.items()}
for layer in range(1, len(bert.layers) + 1):
    accuracy = probe_accuracy(train_states[layer], train_tags, test_states[layer], test_tags)
    print(f"layer {layer} alone: {accuracy:.1%}")
plt.figure(figsize=(7.5, 2.8))
bars = plt.barh(list(probe_results)[::-1], list(probe_results.values())[::-1], color="tab:blue")
plt.bar_label(bars, fmt="{:.0%}", padding=3, fontsize=9)
plt.axvline(0.5, color="grey", linestyle=":", label="chance")
plt.xlim(0.4, 1.05)
plt.xlabel(f"noun/verb accuracy on {len(test_tags)} held-out uses")
plt.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
plt.tight_layout()
plt.show()

# %% [markdown]
# The embedding layer is at chance: "watch" has one input vector whether it is a noun or a verb,
# and the probe has never seen "watch". Every contextual layer does far better, because attention has
# mixed in "the" or "we", "to", "should". As in the paper's table, the last layer is not the best choice
# (MiniLM's last layer was trained further for sentence similarity, which needs less syntax), the
# second-to-last is better, and the sums and the concatenation come close to the best single layer
# without your having to know which layer that is. With 120 test cases, differences of a few points
# are noise; the lesson is the order: the embeddings, then the last layer, then the rest, and that
# *which layers to read* is a choice you test.
#
# ## 6. What attention looks at
#
# **bertviz** (Vig, 2019) draws attention interactively: the *head view* shows one layer, a colour
# per head, with lines from each token (left) to the tokens it attends to (right), thicker for more
# weight; hover over a token to see only its lines, click a colour to show or hide a head. The *model
# view* shows every layer and head at once as thumbnails; click one to enlarge it. bertviz loads its
# JavaScript from the internet; `course_lib.attention_view` ships it with the course, so the views
# below work offline. (In a notebook you have just opened, JupyterLab does not run the output's
# JavaScript until you run the cell yourself; until then you see a static picture of the same weights.)
#
# The weights come from the course's `MultiHeadAttention` with `need_weights=True`, layer by layer.

# %% [demo]
from course_lib.attention_view import head_view, model_view

text = "The cat sat on the mat because it was tired."
encoded = tokenizer(text, return_tensors="pt")
tokens = tokenizer.convert_ids_to_tokens(encoded["input_ids"][0].tolist())
with torch.no_grad():
    states = bert(encoded["input_ids"], output_hidden_states=True).hidden_states
    # every layer's weights: the layer's input through its attention, asking for the weights (1, heads, T, T)
    attention = torch.stack([layer.self_attention(h, h, h, need_weights=True)[1][0]
                             for layer, h in zip(bert.layers, states)])  # (layers, heads, T, T)
head_view(attention, tokens, layer=2)

# %% [demo]
model_view(attention, tokens)

# %% [markdown]
# Three heads picked by what they do, as heat maps (rows: the attending token; each row sums to 1):

# %% [demo]
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
# After pretraining, a task adds a small layer on the outputs and fine-tunes everything (the
# lecture "Pre-trained NLP Model: BERT"):
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
# **Fine-tuning on a small task of real text.** Which part of the Python standard library does a
# docstring sentence come from: numbers and dates, files and archives, network and mail, threads and
# processes, or debugging and code? 150 sentences of each, 70% to train, 30% to test. Three contenders:
#
# 1. a **bag of words**: a linear classifier on word counts (it knows "socket" and "thread", nothing
#    of word order or of words it has not seen in training);
# 2. **frozen MiniLM features**: the average of the last layer's token vectors, and a linear classifier
#    (the feature-based approach, the lecture "Machine Learning, Big Data and AI: Block 6");
# 3. **fine-tuning**: the same classifier on the same average, but now MiniLM's six layers (their
#    weights are counted below) are trained with it, for two epochs, at a small learning rate (the
#    lecture "Pre-trained NLP Model: BERT"). The embedding table (more than half of the model) stays
#    as it is: it would cost time and, with 525 training sentences, move only the rows of the words
#    that happen to occur.

# %% [demo]
from course_lib.data import docstring_topics
from course_lib.train import budgeted

sentences, topic_labels, topic_names = docstring_topics(per_topic=150, seed=0)
topic_labels = torch.tensor(topic_labels)  # (N,)
train, test = slice(0, int(0.7 * len(sentences))), slice(int(0.7 * len(sentences)), None)
for label, name in enumerate(topic_names):
    print(f"{name:>22}: {sentences[topic_labels.tolist().index(label)]}")


def word_counts(texts, vocabulary):
    """(len(texts), len(vocabulary)) counts of each known lower-cased word."""
    counts = torch.zeros(len(texts), len(vocabulary))
    for row, text in enumerate(texts):
        for word in re.findall(r"[a-z]+", text.lower()):
            if word in vocabulary:
                counts[row, vocabulary[word]] += 1
    return counts


train_words = sorted({w for text in sentences[train] for w in re.findall(r"[a-z]+", text.lower())})
bags = word_counts(sentences, {word: i for i, word in enumerate(train_words)})  # (N, words seen in training)
topic_results = {"bag of words": probe_accuracy(bags[train], topic_labels[train], bags[test], topic_labels[test])}

# %% [markdown]
# MiniLM as a sentence encoder: the average of its last layer over the real tokens (padding left out).
# Frozen, its vectors feed the same linear probe as the bag of words:

# %% [demo]
class SentenceClassifier(nn.Module):
    """BERT, the average of its last layer over the real tokens, and a linear layer to the classes."""

    def __init__(self, bert, classes):
        super().__init__()
        self.bert, self.head = bert, nn.Linear(bert.config.hidden_size, classes)

    def sentence_vectors(self, ids, real):
        hidden = self.bert(ids, attention_mask=real).last_hidden_state  # (B, T, H)
        weights = real[..., None].float()  # (B, T, 1): 1 for real tokens, 0 for padding
        return (hidden * weights).sum(1) / weights.sum(1)  # (B, H)

    def forward(self, ids, real):
        return self.head(self.sentence_vectors(ids, real))  # (B, classes)


encoded = tokenizer(list(sentences), padding=True, truncation=True, max_length=32, return_tensors="pt")
ids, real = encoded["input_ids"], encoded["attention_mask"]  # (N, T) each
with torch.no_grad():
    frozen = SentenceClassifier(bert, len(topic_names)).eval().sentence_vectors(ids, real)  # (N, H)
topic_results["frozen MiniLM + linear"] = probe_accuracy(frozen[train], topic_labels[train], frozen[test],
                                                         topic_labels[test])

# %% [markdown]
# Fine-tuning: the same encoder with a linear head, every weight but the embeddings trained together.

# %% [demo]
torch.manual_seed(0)
classifier = SentenceClassifier(copy.deepcopy(bert), len(topic_names)).train()  # a copy: `bert` stays as it is
classifier.bert.embeddings.requires_grad_(False)
optimiser = torch.optim.AdamW([p for p in classifier.parameters() if p.requires_grad], lr=2e-4, weight_decay=0.01)
train_ids, train_real, train_labels = ids[train], real[train], topic_labels[train]
started, losses = time.perf_counter(), []
passes = (batch for epoch in range(2) for batch in torch.randperm(len(train_ids)).split(32))  # 2 shuffled passes
for batch in budgeted(passes):  # every batch (the course's tests, with COURSE_FAST=1, stop after a few)
    length = int(train_real[batch].sum(1).max())  # cut the batch's padding
    loss = nn.functional.cross_entropy(classifier(train_ids[batch, :length], train_real[batch, :length]),
                                       train_labels[batch])
    optimiser.zero_grad()
    loss.backward()
    optimiser.step()
    losses.append(loss.item())
classifier.eval()
with torch.no_grad():
    predicted = classifier(ids[test], real[test]).argmax(-1)
topic_results["fine-tuned MiniLM"] = float((predicted == topic_labels[test]).float().mean())
trained = sum(p.numel() for p in classifier.parameters() if p.requires_grad)
frozen = sum(p.numel() for p in classifier.bert.embeddings.parameters())
print(f"fine-tuning: {len(losses)} steps in {time.perf_counter() - started:.0f} s, "
      f"loss {losses[0]:.2f} -> {losses[-1]:.2f}; {trained / 1e6:.1f}M weights trained, the embeddings' "
      f"{frozen / 1e6:.1f}M ({frozen / (trained + frozen):.0%}) frozen")
for name, accuracy in topic_results.items():
    print(f"{name:>24}: test accuracy {accuracy:.1%} (chance {1 / len(topic_names):.0%})")

# %% [markdown]
# The bag of words gets a good part of the way on topic words alone. MiniLM's frozen sentence vectors,
# with the same kind of linear classifier, bring what pretraining learned: words the classifier never
# saw in training are close to words it did ("packet" near "socket"). Fine-tuning moves the whole
# network towards the task, after two passes over the training sentences. But one run on a few
# hundred test sentences is one draw: a point of accuracy is a couple of sentences, and another seed
# (other sentences, another split, another order of batches) moves every number.
# `benchmarks/topic_seeds.py` repeats the three contenders with this cell's settings over several
# seeds (seed 0 is the run above):

# %% [demo]
import json
from pathlib import Path

import course_lib

n_test = len(topic_labels[test])
this_gap = topic_results["fine-tuned MiniLM"] - topic_results["frozen MiniLM + linear"]
noise = (topic_results["fine-tuned MiniLM"] * (1 - topic_results["fine-tuned MiniLM"]) / n_test) ** 0.5
verdict = (f"In this run fine-tuning is {100 * this_gap:+.1f} points against frozen features: "
           f"{round(this_gap * n_test):+d} of {n_test} test sentences, where one run's accuracy has a sampling error "
           f"of about {100 * noise:.1f} points ({noise * n_test:.0f} sentences). ")
seeds_file = Path(course_lib.__file__).parent / "assets" / "topic_seeds.json"
if seeds_file.exists():  # written by benchmarks/topic_seeds.py
    seeds = json.loads(seeds_file.read_text(encoding="utf-8"))
    runs = seeds["runs"]
    for run in runs:
        print(f"seed {run['seed']}: " + ", ".join(f"{name} {accuracy:.1%}" for name, accuracy in run["accuracy"].items()))
    gaps = [run["accuracy"]["fine-tuned MiniLM"] - run["accuracy"]["frozen MiniLM + linear"] for run in runs]
    ahead = sum(gap > 0 for gap in gaps)
    verdict += (
        f"Over {len(runs)} seeds: "
        + ", ".join(f"{name} {seeds['mean'][name]:.1%} ± {seeds['stdev'][name]:.1%}" for name in seeds["mean"])
        + f" (mean ± standard deviation); fine-tuning is ahead of frozen features in {ahead} of {len(runs)} seeds, "
        f"the difference ranging from {100 * min(gaps):+.1f} to {100 * max(gaps):+.1f} points. "
        + ("So on this task fine-tuning does beat frozen features, by a margin the seeds agree on."
           if ahead == len(runs) and min(gaps) > noise else
           "So on this task fine-tuning is ahead in every seed, but by about one run's sampling error: a small edge."
           if ahead == len(runs) else
           "So the seeds do not support a ranking of fine-tuning and frozen features on this task: the difference "
           "is within the spread from seed to seed."))
elif abs(this_gap) < 2 * noise:
    verdict += "One run with a difference this small does not say which is better on this task."
display(Markdown(verdict))

# %% [markdown]
# This is the recipe of every GLUE row in the decks: pretrain once, add a small head, fine-tune all.
#
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
"""Check my answer: 37 cases (random logits, all negative, ties, max_len 1 and beyond T), against a brute force
over all spans."""
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
# Those logits were made up. Real ones come from a **span head**: a linear layer from BERT's last
# layer to two numbers per token, the start logit and the end logit. The course ships one
# (`course_lib.qa_spans`, 770 weights) trained by `benchmarks/train_span_head.py` on MiniLM, which
# stayed frozen, for questions built offline from the standard library: every function whose
# docstring starts "Return(s) X." gives the question "What does NAME return?", asked over a passage of
# three functions' first sentences, each after its name. The answer is X, in the sentence of the
# function the question names; the held-out questions are about functions of modules the head never
# saw. Your `best_span` reads the head's logits over the passage's tokens:

# %% [demo]
from course_lib.qa_spans import QAExample, encode_qa, load_span_head

span_head, span_results = load_span_head()
held_out_questions = [QAExample(*example) for example in span_results["held_out_examples"]]  # stored with the head


def answer_question(example, max_len=16):
    """Your best_span on the span head's logits over the passage: (predicted tokens, the answer's tokens)."""
    ids, types, answer_start, answer_end = encode_qa(example, tokenizer)
    with torch.no_grad():
        hidden = bert(torch.tensor([ids]), torch.tensor([types])).last_hidden_state  # (1, T, H)
        start_logits, end_logits = (logits[0] for logits in span_head(hidden))  # (T,) each
    outside = torch.tensor(types) == 0  # (T,): the question and [CLS] cannot be the answer, nor the last [SEP]
    outside[-1] = True
    start, end = best_span(start_logits.masked_fill(outside, -1e4), end_logits.masked_fill(outside, -1e4), max_len)
    tokens = tokenizer.convert_ids_to_tokens(ids)
    return tokens[start:end + 1], tokens[answer_start:answer_end + 1]


for example in held_out_questions[:3]:
    predicted, answer = answer_question(example)
    print(f"{example.passage}\n  Q: {example.question}\n  best span: {' '.join(predicted)!r}   answer: "
          f"{' '.join(answer)!r}\n")
exact = sum(predicted == answer for predicted, answer in map(answer_question, held_out_questions[:12]))
print(f"exact match with your best_span: {exact} of the first 12 held-out questions; the training script measured "
      f"{span_results['exact_match']['valid']:.0%} on all {span_results['questions']['valid']} held-out questions "
      f"({span_results['exact_match']['train']:.0%} on its {span_results['questions']['train']} training questions)")

# %% [markdown]
# Your `best_span` turns real logits into a span that respects the rules, and on some questions it is
# the answer. On most it is not: this head is one linear layer on MiniLM's frozen vectors, so each
# token's start and end logits come from that token's vector alone, and nothing was trained to make
# the vectors of the right sentence depend on the name in the question. The exact-match figures
# above are the measure of that, far below the training questions' own. Models trained for SQuAD
# fine-tune the whole encoder together with the head, which this notebook cannot afford on a CPU.

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
# The decks give these sizes rounded, and not all the same way. Here are the counts of `transformers`
# itself, independent of your function: its `BertModel` built from a configuration on PyTorch's
# "meta" device (every weight's shape, no memory and nothing to download), next to what the decks say.

# %% [demo]
from transformers import AlbertConfig, AlbertModel, BertForPreTraining, DistilBertConfig, DistilBertModel
from transformers import BertConfig as HFBertConfig
from transformers import BertModel as HFBertModel


def count(model):
    """The number of parameters (a weight shared by two layers counted once)."""
    return sum(p.numel() for p in model.parameters())


BERT_SIZES = {
    "BERT-base": dict(hidden_size=768, num_hidden_layers=12, intermediate_size=3072, num_attention_heads=12),
    "BERT-large": dict(hidden_size=1024, num_hidden_layers=24, intermediate_size=4096, num_attention_heads=16),
}
with torch.device("meta"):
    bert_counts = {name: count(HFBertModel(HFBertConfig(**size))) for name, size in BERT_SIZES.items()}
    # the ALBERT paper's table counts BERT with ALBERT's vocabulary of 30000 pieces and without the pooler
    albert_paper_way = {name: count(HFBertModel(HFBertConfig(vocab_size=30000, **size), add_pooling_layer=False))
                        for name, size in BERT_SIZES.items()}
    large_pretraining = count(BertForPreTraining(HFBertConfig(**BERT_SIZES["BERT-large"])))  # + the MLM and NSP heads
DECKS_SAY = {"BERT-base": '110M ("Pre-trained NLP Model: BERT"), 108M ("BERT and Other Language Models")',
             "BERT-large": '340M and 345M ("Pre-trained NLP Model: BERT"), 334M ("BERT and Other Language Models")'}
for name in BERT_SIZES:
    n = bert_counts[name]
    print(f"{name:>10}: {n:>12,} parameters ({n / 1e6:.1f}M); the decks: {DECKS_SAY[name]}")
    print(f"{'':>10}  {albert_paper_way[name]:>12,} with a vocabulary of 30000 and no pooler, as ALBERT's table counts")
print(f"BERT-large with its pretraining heads (MLM, NSP): {large_pretraining:,}")
embedding_table = 30522 * 768
print(f"BERT-base's embedding table: 30522 x 768 = {embedding_table:,}, "
      f"{embedding_table / bert_counts['BERT-base']:.0%} of the model")
assert bert_counts == {"BERT-base": 109_482_240, "BERT-large": 335_141_888}  # the numbers the text below quotes

# %% [markdown]
# Said plainly: BERT-base has **109,482,240** parameters; the lecture "Pre-trained NLP Model: BERT"
# rounds it to 110M, and the table of the lecture "BERT and Other Language Models" (copied from the
# ALBERT paper) says 108M because it counts a vocabulary of 30000 and leaves out the pooler (108.5M
# that way). BERT-large has **335,141,888**: the ALBERT table's 334M is the same way of counting
# (333.6M), but the 340M (the BERT paper's number) and the 345M of the lecture
# "Pre-trained NLP Model: BERT" are too high, and even the pretraining heads add only about 1M. And a
# lesson: in BERT-base the embedding table alone is about a fifth of the model (printed above).
#
# **ALBERT** (the lecture "BERT and Other Language Models") shrinks it by **factorising** the
# embedding: words get small vectors of size $E$, and one $E \times H$ matrix projects them up to
# the hidden size. The lecture's numbers: $V = 30000$, $H = 2048$, $E = 128$. Compute
# `full_embedding` (the $V \times H$ table) and `factorised_embedding` ($V \times E$ plus
# $E \times H$), as exact numbers.

# %% [answer] id=albert_embedding
V, H, E = 30000, 2048, 128
### BEGIN SOLUTION
full_embedding = V * H
factorised_embedding = V * E + E * H
### END SOLUTION
print(f"V x H = {full_embedding:,}; V x E + E x H = {factorised_embedding:,}")

# %% [tests] id=check_albert_embedding points=1
"""Check my answer: the embedding sizes of the lecture "BERT and Other Language Models", exactly."""
checks.check_albert_embedding(full_embedding, factorised_embedding)

# %% [markdown]
# About 61M parameters become about 4M (the exact numbers are printed above).
#
# **BERT's descendants** (the lectures "Pre-trained NLP Model: BERT" and "BERT and Other Language Models")
# keep the encoder and change the training or the size:
#
# | model | what changes from BERT | what it buys |
# |---|---|---|
# | RoBERTa | more data, bigger batches, longer training; no NSP; longer sequences; the masked positions drawn anew each time a sentence is seen (*dynamic* masking) | better scores from the same architecture (and BERT's size): BERT was under-trained |
# | ALBERT | factorised embeddings ($V \times E + E \times H$); **one** layer's weights shared by all layers; NSP replaced by sentence-order prediction | far fewer parameters; the same compute per token (every layer still runs) |
# | DistilBERT | 6 layers instead of 12, trained to imitate BERT-base's outputs (knowledge distillation) | smaller; by its paper's measurements 60% faster with 97% of BERT-base's GLUE score |
# | MiniLM (this notebook) | 6 layers, hidden 384, distilled from a larger model's attention; this one further trained for sentence similarity | small enough to fine-tune on a laptop CPU |
#
# Their sizes, counted from their configurations in `transformers` (on the meta device again), next to
# the table of the lecture "BERT and Other Language Models":

# %% [demo]
# hidden size, layers, feed-forward width; every ALBERT has embeddings of 128 and a vocabulary of 30000
ALBERT_SIZES = {"ALBERT-base": (768, 12, 3072), "ALBERT-large": (1024, 24, 4096), "ALBERT-xlarge": (2048, 24, 8192),
                "ALBERT-xxlarge": (4096, 12, 16384)}
with torch.device("meta"):
    sizes = {name: count(AlbertModel(AlbertConfig(vocab_size=30000, embedding_size=128, hidden_size=H,
                                                  num_hidden_layers=L, intermediate_size=I, num_attention_heads=16)))
             for name, (H, L, I) in ALBERT_SIZES.items()}
    sizes["DistilBERT"] = count(DistilBertModel(DistilBertConfig()))  # 6 layers like BERT-base's, no segments/pooler
sizes.update({**bert_counts, "MiniLM-L6": count(hf_model)})
TABLE_SAYS = {"ALBERT-base": "12M", "ALBERT-large": "18M", "ALBERT-xlarge": "59M", "ALBERT-xxlarge": "233M",
              "BERT-base": "108M", "BERT-large": "334M"}
for name, n in sizes.items():
    print(f"{name:>14}: {n:>12,} ({n / 1e6:6.1f}M)   the lecture's table: {TABLE_SAYS.get(name, '-')}")
print(f"DistilBERT is {1 - sizes['DistilBERT'] / sizes['BERT-base']:.0%} smaller than BERT-base")

# %% [markdown]
# The table's ALBERT sizes are its configurations' counts rounded, except one: ALBERT-xxlarge, with
# the 12 layers, hidden size 4096 and embedding size 128 the same table gives, has 222.6M parameters,
# not 233M.
#
# ALBERT's sharing shows that parameters and computation are different budgets: ALBERT-xxlarge has
# fewer parameters than BERT-large but is slower (the table of the lecture "BERT and Other Language Models":
# a speed-up of 1.2x against BERT-large's 3.8x, both relative to BERT-xlarge).
#
# ## Summary
#
# - WordPiece splits each word greedily, longest piece first, with `##` on continuations; a word
#   that cannot be split is one [UNK].
# - A WordPiece vocabulary is learned by merging pieces, each time the pair whose merge most raises
#   the likelihood of the text (here under a unigram model of the pieces). The ratio
#   count(ab) / (count(a) count(b)) approximates that gain per occurrence of the pair and leaves out
#   how often the pair occurs, so it spends merges on rare pairs; section 1 compares the three rules
#   on held-out words. Hugging Face's `WordPieceTrainer` merges the most frequent pair (BPE's rule).
# - BERT's input is `[CLS] A [SEP] B [SEP]` with segment ids 0 and 1; its embedding is word +
#   position + segment, then LayerNorm.
# - Pretraining: 15% of the tokens are selected, 80% of them become [MASK], 10% random, 10%
#   unchanged, and all are predicted; plus next-sentence prediction from [CLS].
# - The outputs are contextual: one word, different vectors in different sentences, more so in
#   higher layers.
# - Which layers to read is a choice to test: on a noun/verb probe the embeddings are at chance,
#   the upper layers and their combinations near perfect.
# - One pretrained network, four kinds of tasks, each with a small head: [CLS] for sentences and
#   pairs, every token for tagging and for QA's start and end.
# - On a topic task of real docstrings, frozen features and fine-tuning are compared over several
#   seeds, not one: a few hundred test sentences make a point of accuracy a couple of sentences.
# - BERT-base has 109.5M parameters, BERT-large 335.1M (the decks round to 110M and 340M or 345M);
#   ALBERT factorises the embeddings.
