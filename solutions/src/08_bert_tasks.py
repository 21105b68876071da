# ---
# cell_timeout: 120
# checks: course_lib.checks.bert_tasks
# ---

# %% [markdown]
# # 08 · BERT at work: tagging, sentence pairs, and what BERT cannot do
#
# Notebook 07 built BERT's input side and fine-tuned MiniLM on one kind of task: a label for a whole
# sentence. The decks show BERT at work on more: a label for **every token** (named entities, parts of
# speech) and a label for **a pair of sentences** (does B follow from A? does B answer A?). This
# notebook fine-tunes the real pretrained MiniLM (all-MiniLM-L6-v2, from its package, offline) on one task of each
# kind, with labels that are real and need no annotator: they are computed from the Python standard
# library's own source code.
#
# 1. **Token classification**: what is each token of a line of Python: a keyword, a string, a number,
#    an operator, a comment, or a name, and if a name, which part does it play (defined, called,
#    an attribute)? The answer for a name depends on its neighbours.
# 2. **Sentence pairs**: a function's name and a docstring sentence: is it that function's own docstring?
# 3. **BERT against GPT**: a masked language model and a left-to-right one of the same size, trained on the
#    same text: what each objective can and cannot do.
#
# Two exercises: aligning word labels to WordPieces, and cutting a sentence pair to fit. Each is
# checked against the real tokenizer. The notebook runs in under a minute on a laptop CPU: MiniLM stays
# frozen here and a linear layer is trained on its outputs; the fine-tuning runs (three seeds each)
# were made by `benchmarks/bert_tasks.py`, whose results this notebook reads.

# %% [setup] id=setup
import time

import matplotlib.pyplot as plt
import torch

from course_lib.bert import load_pretrained_minilm
from course_lib.bert_tasks import (CODE_TAGS, code_tagging, docstring_pairs, frozen_states, most_frequent_tags,
                                   ridge_probe)
from course_lib.checks import bert_tasks as checks
checks.install_notebook_hooks()  # an answer not written yet says so in one line, not a traceback

torch.set_printoptions(precision=4, sci_mode=False)
started = time.perf_counter()
bert, tokenizer = load_pretrained_minilm()  # our BertModel with all-MiniLM-L6-v2's weights, and its tokenizer
print(f"MiniLM: {bert.config.num_layers} layers of {bert.config.hidden_size}, {bert.config.vocab_size} WordPieces")

# %% [markdown]
# ## 1. A tag for every token
#
# `course_lib.bert_tasks.code_tagging()` cuts the standard library's source files into logical lines,
# splits each line into tokens with Python's own `tokenize` module, and tags every token with one of
# nine tags. `keyword`, `string`, `number`, `operator` and `comment` come from `tokenize` itself; a
# name gets `definition` after `def` or `class`, `call` when a `(` follows it, `attribute` after a `.`
# and `name` otherwise. Every fifth file is held out: the validation lines come from modules that
# training never saw.

# %% [demo]
train_lines, valid_lines = code_tagging()
print(f"{len(train_lines)} training lines, {len(valid_lines)} held-out lines, tags: {', '.join(CODE_TAGS)}")
for line in train_lines[5:8]:
    print("  ".join(f"{word}/{CODE_TAGS[tag]}" for word, tag in zip(line.words, line.tags)))

# %% [markdown]
# The words are given; BERT reads WordPieces. A name such as `local_deleted` is three pieces
# (`local`, `_`, `deleted`), a string even more, and the model's input has `[CLS]` in front and
# `[SEP]` at the end. The tagging head gives a prediction at **every position**, so the labels must
# be spread over the positions too. The convention of BERT's paper (and of Hugging Face's examples):
#
# - the **first piece** of each word gets the word's label;
# - every other piece, and `[CLS]` and `[SEP]`, get **-100**, the label that cross-entropy ignores
#   (`ignore_index=-100`), so each word counts once in the loss and once in the accuracy.
#
# ```
# words     [CLS]  def    local_deleted            (     [SEP]
# pieces    [CLS]  def    local  _      deleted    (     [SEP]
# labels    -100   0      2      -100   -100       7     -100
# ```
#
# Write `align_labels(word_labels, word_pieces)`: `word_labels` is a list of ints, one per word;
# `word_pieces` a list with, for each word, the list of its WordPieces (every word has at least
# one). Return the list of labels, one per position of `[CLS] pieces... [SEP]`. The check compares
# with what the real fast tokenizer's `word_ids()` gives, on held-out lines of code and on made-up
# words of many pieces. Do not change the lists you are given.

# %% [answer] id=align_labels
def align_labels(word_labels, word_pieces):
    """One label per position of [CLS] pieces [SEP]: the word's label on its first piece, -100 everywhere else."""
    ### BEGIN SOLUTION
    labels = [-100]  # [CLS]
    for label, pieces in zip(word_labels, word_pieces):
        labels += [label] + [-100] * (len(pieces) - 1)
    return labels + [-100]  # [SEP]
    ### END SOLUTION

# %% [tests] id=check_align_labels points=2
"""Check my answer: 60 held-out lines of the standard library and 9 made-up lines of many pieces, against the fast
tokenizer's word_ids()."""
checks.check_align_labels(align_labels)
### BEGIN HIDDEN TESTS
checks.check_align_labels(align_labels, count=40, seed=7)
### END HIDDEN TESTS

# %% [markdown]
# With your function, the whole data set: each line's input ids from the tokenizer, its labels from
# `align_labels`. To keep the notebook fast, about 400 training lines and 300 held-out lines.

# %% [demo]
def encode_tagged(lines):
    """Input ids (with [CLS] and [SEP]) and aligned labels of each line, from your align_labels."""
    rows, labels = [], []
    for line in lines:
        rows.append(tokenizer(list(line.words), is_split_into_words=True)["input_ids"])
        labels.append(align_labels(list(line.tags), [tokenizer.tokenize(word) for word in line.words]))
        assert len(labels[-1]) == len(rows[-1]), "align_labels gives one label per position"
    return rows, labels


tag_train, tag_valid = train_lines[::12], valid_lines[::4]
train_rows, train_labels = encode_tagged(tag_train)
valid_rows, valid_labels = encode_tagged(tag_valid)
print(f"{len(train_rows)} training lines, {sum(map(len, train_rows))} positions; "
      f"{len(valid_rows)} held-out lines; the longest has {max(map(len, valid_rows))} positions")
print(list(zip(tokenizer.convert_ids_to_tokens(train_rows[0]), train_labels[0])))

# %% [markdown]
# **Two taggers.** The baseline is the classic one: tag each word with the tag it had most often in
# training (a word never seen gets the most frequent tag of all). It knows that `def` is a keyword,
# but `append` gets one tag wherever it is. The second tagger reads MiniLM: the last layer's vector at
# each word's first piece (MiniLM frozen), and a linear layer to the nine tags, fit in one step
# (ridge regression, as the probe of notebook 07). Both learn from the same lines.

# %% [demo]
def word_positions(labels):
    """(positions of the words' first pieces, their labels) in one line's aligned labels."""
    labels = torch.tensor(labels)
    where = (labels != -100).nonzero().flatten()
    return where, labels[where]


def first_piece_features(rows, labels):
    """(the frozen MiniLM vector of every word's first piece (N, H), the words' tags (N,))."""
    states = frozen_states(bert, rows)  # one (T_i, H) per line
    pairs = [(state[where], tags) for state, line in zip(states, labels) for where, tags in [word_positions(line)]]
    return torch.cat([p[0] for p in pairs]), torch.cat([p[1] for p in pairs])


train_x, train_y = first_piece_features(train_rows, train_labels)  # (N, 384), (N,)
valid_x, valid_y = first_piece_features(valid_rows, valid_labels)
tag_with_minilm = ridge_probe(train_x, train_y, len(CODE_TAGS))
minilm_tags = tag_with_minilm(valid_x)  # (M,)

table, commonest = most_frequent_tags(tag_train)
baseline_tags = torch.tensor([table.get(word, commonest) for line in tag_valid for word in line.words])
assert len(baseline_tags) == len(valid_y)
tag_accuracy = {"most frequent tag": float((baseline_tags == valid_y).float().mean()),
                "frozen MiniLM + linear": float((minilm_tags == valid_y).float().mean())}
for name, accuracy in tag_accuracy.items():
    print(f"{name:>24}: {accuracy:.1%} of {len(valid_y)} held-out words")

# %% [markdown]
# Where the difference comes from, tag by tag:

# %% [demo]
fig, ax = plt.subplots(figsize=(9, 3.2))
x = torch.arange(len(CODE_TAGS))
for offset, (name, predicted) in zip((-0.2, 0.2), (("most frequent tag", baseline_tags),
                                                    ("frozen MiniLM + linear", minilm_tags))):
    per_tag = [float((predicted[valid_y == t] == t).float().mean()) if (valid_y == t).any() else float("nan")
               for t in range(len(CODE_TAGS))]
    ax.bar(x + offset, per_tag, width=0.4, label=name)
ax.set_xticks(x, [f"{tag}\n({int((valid_y == t).sum())})" for t, tag in enumerate(CODE_TAGS)], fontsize=8)
ax.set_ylabel("held-out accuracy")
ax.set_title("Tagging held-out Python, per tag (number of held-out words in brackets)")
ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# The baseline can only be right where the word alone decides the tag: a name gets one tag wherever
# it is, and every string or number it has not seen becomes the commonest tag. MiniLM's vector of a
# word is computed from the whole line, so it could know about a `(` after a name or a `.` before it;
# whether a linear layer on the frozen vectors uses that is a question for the data. The same word
# in three lines, tagged by both:

# %% [demo]
def tag_line(words):
    ids = tokenizer(words, is_split_into_words=True)["input_ids"]
    positions = torch.tensor(align_labels([0] * len(words), [tokenizer.tokenize(w) for w in words])) != -100
    return [CODE_TAGS[t] for t in tag_with_minilm(frozen_states(bert, [ids])[0][positions])]


for words in (["items", ".", "append", "(", "value", ")"], ["add", "=", "items", ".", "append"],
              ["def", "append", "(", "self", ",", "value", ")", ":"]):
    print(f"{' '.join(words):>34}:  MiniLM: append/{tag_line(words)[words.index('append')]:<10} "
          f"baseline: append/{CODE_TAGS[table.get('append', commonest)]}")

# %% [markdown]
# Compare the printed tags with the rule (`call` before `(`, `attribute` after `.`, `definition` after
# `def`): where the frozen tagger gives the same tag in all three lines, its vectors plus one linear
# layer did not pick up the role, and the gain in the bars above comes from other words. Training
# the upper layers too (section 3) is the way to make the vectors themselves fit the task.
#
# ## 2. Sentence pairs
#
# `docstring_pairs()` takes every function of the standard library with a docstring and makes two
# pairs: its name with the first sentence of its own docstring (label 1), and its name with the first
# sentence of another function's docstring (label 0). Again every fifth file is held out.

# %% [demo]
pair_train, pair_valid = docstring_pairs()
print(f"{len(pair_train)} training pairs, {len(pair_valid)} held-out pairs")
for pair in pair_train[:4]:
    print(f"{pair.label}  {pair.name:>18} | {pair.sentence}")

# %% [markdown]
# BERT reads a pair as one input, `[CLS] A [SEP] B [SEP]`, with segment ids 0 for `[CLS] A [SEP]` and
# 1 for `B [SEP]` (notebook 07 built it). Here A is the name (`_` read as a space) and B the sentence.
# A model has a longest input (512 positions for BERT, 32 here to stay fast), and a docstring sentence
# can be longer. The tokenizer's default, `truncation="longest_first"`, cuts the pair to fit
# `max_length` positions, **special tokens included**, one token at a time from the end of whichever
# of A and B is longer at that moment: a short name is kept whole and the long sentence gives up its
# end. (When A and B are equally long it does not matter which gives up a token first.)
#
# Write `truncate_pair(a, b, max_length)`: `a` and `b` are lists of token ids without special tokens;
# return the pair `(a, b)` cut so that `[CLS] a [SEP] b [SEP]` has at most `max_length` tokens, each
# the beginning of the original. Do not change the lists you are given. The check compares with
# `tokenizer(a, b, truncation="longest_first", max_length=...)` on names and sentences in both orders.

# %% [answer] id=truncate_pair
def truncate_pair(a, b, max_length):
    """Cut a and b (lists of ids) from the end, always the longer one, until [CLS] a [SEP] b [SEP] fits max_length."""
    ### BEGIN SOLUTION
    a, b = list(a), list(b)  # copies: the lists given stay as they are
    while len(a) + len(b) + 3 > max_length:
        if len(a) > len(b):
            a.pop()
        else:
            b.pop()
    return a, b
    ### END SOLUTION

# %% [tests] id=check_truncate_pair points=2
"""Check my answer: 31 pairs (a function's name and a docstring sentence, both orders; limits from 5 to 32; two
equally long sentences; a pair that fits exactly), against tokenizer(a, b, truncation="longest_first")."""
checks.check_truncate_pair(truncate_pair)
### BEGIN HIDDEN TESTS
checks.check_truncate_pair(truncate_pair, cases=checks.pair_cases(count=16, seed=4))
### END HIDDEN TESTS

# %% [markdown]
# Your cut, with `[CLS]`, the `[SEP]`s and the segment ids, against the tokenizer's own encoding of
# the held-out pairs (names are short, so a pair is cut in its sentence):

# %% [demo]
MAX_LENGTH = 32


def encode_pair(name, sentence):
    a, b = truncate_pair(tokenizer.encode(name.replace("_", " "), add_special_tokens=False),
                         tokenizer.encode(sentence, add_special_tokens=False), MAX_LENGTH)
    ids = [tokenizer.cls_token_id] + a + [tokenizer.sep_token_id] + b + [tokenizer.sep_token_id]
    return ids, [0] * (len(a) + 2) + [1] * (len(b) + 1)


pair_train, pair_valid = pair_train[:300], pair_valid[:200]
encoded_train = [encode_pair(p.name, p.sentence) for p in pair_train]
encoded_valid = [encode_pair(p.name, p.sentence) for p in pair_valid]
same = sum(encode_pair(p.name, p.sentence)[0] == tokenizer(p.name.replace("_", " "), p.sentence, truncation=True,
                                                            max_length=MAX_LENGTH)["input_ids"] for p in pair_valid)
print(f"the tokenizer encodes {same} of the {len(pair_valid)} held-out pairs as your truncate_pair does")
ids, types = encoded_train[0]
print(" ".join(f"{token}/{segment}" for token, segment in zip(tokenizer.convert_ids_to_tokens(ids), types)))

# %% [markdown]
# **Two classifiers.** The baseline looks for the name in the sentence: label 1 when a word of the name
# (split at `_` and at capitals, 3 letters or more, lower-cased) occurs in the sentence. MiniLM reads
# the pair together: the average of its last layer over the pair's positions, and a linear layer to the
# two labels, fit in one step.

# %% [demo]
import re


def name_in_sentence(name, sentence):
    words = {w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", name) if len(w) >= 3}
    return int(bool(words & set(re.findall(r"[a-z]+", sentence.lower()))))


def pair_features(encoded):
    states = frozen_states(bert, [ids for ids, _ in encoded], [types for _, types in encoded])
    return torch.stack([state.mean(0) for state in states])  # (N, H)


pair_train_y = torch.tensor([p.label for p in pair_train])
pair_valid_y = torch.tensor([p.label for p in pair_valid])
classify_pairs = ridge_probe(pair_features(encoded_train), pair_train_y, 2)
pair_accuracy = {
    "name in sentence": float((torch.tensor([name_in_sentence(p.name, p.sentence) for p in pair_valid])
                               == pair_valid_y).float().mean()),
    "frozen MiniLM + linear": float((classify_pairs(pair_features(encoded_valid)) == pair_valid_y).float().mean())}
for name, accuracy in pair_accuracy.items():
    print(f"{name:>24}: {accuracy:.1%} of {len(pair_valid)} held-out pairs (half of them are 1)")

# %% [markdown]
# ## 3. Over several seeds, and fine-tuned
#
# One run on a few hundred examples says little: another sample of training lines gives another
# number. `benchmarks/bert_tasks.py` runs each task with three seeds (three samples of the training
# data, three initialisations of the head) and three contenders: the baseline, frozen MiniLM with a
# linear layer, and MiniLM **fine-tuned**: the top two of its six layers trained with the head (the
# lower four frozen, to keep it within minutes on a CPU). The notebook reads its results file
# (`course_lib/assets/bert_tasks.json`):

# %% [demo]
from course_lib.bert_tasks import load_task_results

results = load_task_results()  # course_lib/assets/bert_tasks.json, written by benchmarks/bert_tasks.py
print(f"{results['machine']}, {results['date']}; {results['train_examples']} training and "
      f"{results['valid_examples']} held-out examples per task, seeds {results['seeds']}")
fig, axes = plt.subplots(1, 2, figsize=(10, 3.2))
for ax, (task, contenders) in zip(axes, results["tasks"].items()):
    names = list(contenders)
    means = [torch.tensor(contenders[n]).mean().item() for n in names]
    spreads = [torch.tensor(contenders[n]).std().item() for n in names]
    ax.bar(range(len(names)), means, yerr=spreads, capsize=6, color=["grey", "tab:blue", "tab:green"])
    for i, n in enumerate(names):
        ax.plot([i] * len(contenders[n]), contenders[n], "k.", ms=4)
    ax.set_xticks(range(len(names)), [n.replace(" (", "\n(").replace(" + ", " +\n") for n in names], fontsize=8)
    ax.set_ylim(min(min(v) for v in contenders.values()) - 0.05, 1.0)
    ax.set_title(f"{task}: held-out accuracy, mean ± std of {len(results['seeds'])} seeds", fontsize=9)
plt.tight_layout()
plt.show()
for task, contenders in results["tasks"].items():
    ranked = sorted(contenders, key=lambda n: -torch.tensor(contenders[n]).mean().item())
    for better, worse in zip(ranked, ranked[1:]):
        b, w = torch.tensor(contenders[better]), torch.tensor(contenders[worse])
        gap, noise = (b.mean() - w.mean()).item(), 2 * max(b.std().item(), w.std().item())
        verdict = "larger than twice the spread" if gap > noise else "NOT larger than twice the spread: no claim"
        print(f"{task}: {better} ({b.mean():.1%}) - {worse} ({w.mean():.1%}) = {gap:+.1%}, {verdict}")

# %% [markdown]
# Only a gap that is larger than twice the spread of the seeds (the printed verdicts) is a difference
# this experiment shows; a smaller one could be the luck of the sample. And a pretrained model is not
# sure to win: where a simple rule captures most of a task (a name's words often occur in its own
# docstring), the rule can beat a model trained on a few hundred pairs; the verdicts above say which
# way it went here.
#
# ## 4. BERT against GPT
#
# BERT is trained to fill in blanks from both sides; GPT to predict the next token from the left
# only (notebook 06). Which one can do what? Two models of the same size (2 layers of 128, the same
# vocabulary of 4446 WordPieces) trained on the same docstring sentences: the course's small BERT of
# notebook 07 (`course_lib.bert_pretrain`) and its twin GPT, a `TransformerLM` (`course_lib.course_gpt`,
# trained on a quarter as many tokens: any advantage is the BERT's).
#
# First, generation. GPT continues a prompt one token at a time. BERT has no "next token": the closest
# it can do is to append a `[MASK]` before the final `[SEP]`, fill it, and repeat.

# %% [demo]
from course_lib.bert import load_course_bert
from course_lib.course_gpt import load_course_gpt
from course_lib.data import docstring_sentences

small_bert, vocab = load_course_bert()
small_gpt, _ = load_course_gpt()
not_special = torch.ones(len(vocab), dtype=torch.bool)
not_special[vocab.special_ids] = False
not_special_gpt = not_special.clone()
not_special_gpt[vocab.sep_id] = True  # GPT may end the sentence


@torch.no_grad()
def gpt_generate(prompt, steps=12):
    ids = [vocab.cls_id] + vocab.encode(prompt)["input_ids"][0, 1:-1].tolist()
    for _ in range(steps):
        logits, _ = small_gpt(torch.tensor([ids[-small_gpt.block_size:]]))
        ids.append(int(logits[0, -1].masked_fill(~not_special_gpt, -float("inf")).argmax()))
        if ids[-1] == vocab.sep_id:
            break
    return " ".join(vocab.tokens(ids[1:])).replace(" ##", "")


@torch.no_grad()
def bert_generate(prompt, steps=12):
    ids = vocab.encode(prompt)["input_ids"][0, :-1].tolist()  # [CLS] prompt
    for _ in range(steps):
        row = torch.tensor([ids + [vocab.mask_id, vocab.sep_id]])
        logits, _ = small_bert(row)
        ids.append(int(logits.mlm[0, -2].masked_fill(~not_special, -float("inf")).argmax()))
    return " ".join(vocab.tokens(ids[1:])).replace(" ##", "")


for prompt in ("Return the", "If the file", "This module provides"):
    print(f"GPT : {gpt_generate(prompt)}")
    print(f"BERT: {bert_generate(prompt)}\n")

# %% [markdown]
# Then, measured: on the first 300 held-out docstring sentences (those of 6 WordPieces or more),
# hide the token in the middle of each and ask for it (top-1, special tokens excluded):
#
# - **BERT, both sides**: `[CLS] left [MASK] right [SEP]`, what it was trained for;
# - **BERT, left only**: `[CLS] left [MASK] [SEP]`, the situation of generation;
# - **GPT, left only**: `[CLS] left` and the next token, what it was trained for. GPT cannot use the
#   right side at all: its causal mask hides it.
#
# And at the end of each sentence, the next token after the whole sentence but its last word.

# %% [demo]
valid_sentences = [s for s in docstring_sentences()[1]][:300]
encoded = [vocab.encode(s)["input_ids"][0, 1:-1][:24] for s in valid_sentences]  # course ids, no specials
encoded = [ids for ids in encoded if len(ids) >= 6]


@torch.no_grad()
def bert_guess(left, right):
    row = torch.cat([torch.tensor([vocab.cls_id]), left, torch.tensor([vocab.mask_id]), right,
                     torch.tensor([vocab.sep_id])])
    logits, _ = small_bert(row[None])
    return int(logits.mlm[0, len(left) + 1].masked_fill(~not_special, -float("inf")).argmax())


@torch.no_grad()
def gpt_guess(left):
    logits, _ = small_gpt(torch.cat([torch.tensor([vocab.cls_id]), left])[None])
    return int(logits[0, -1].masked_fill(~not_special, -float("inf")).argmax())


guesses = {"middle": {"BERT, both sides": [], "BERT, left only": [], "GPT, left only": []},
           "last word": {"BERT, both sides": [], "BERT, left only": [], "GPT, left only": []}}
for ids in encoded:
    for where, p in (("middle", len(ids) // 2), ("last word", len(ids) - 1)):
        target, left, right = int(ids[p]), ids[:p], ids[p + 1:]
        guesses[where]["BERT, both sides"].append(bert_guess(left, right) == target)
        guesses[where]["BERT, left only"].append(bert_guess(left, right[:0]) == target)
        guesses[where]["GPT, left only"].append(gpt_guess(left) == target)
for where, scores in guesses.items():
    print(f"{where} of {len(encoded)} held-out sentences: " +
          ", ".join(f"{name} {sum(s) / len(s):.1%}" for name, s in scores.items()))
print(f"this notebook ran in {time.perf_counter() - started:.0f} s")

# %% [markdown]
# (The last word is followed by the final punctuation in most sentences, so there "both sides" sees
# the `.` after it, which tells little.)
#
# What to read in the numbers and the generations (both models are small and greedy decoding repeats
# itself, so neither writes good prose):
#
# - **BERT, both sides** against **BERT, left only** in the middle of a sentence: the right side is
#   what BERT's objective uses; take it away and BERT, which never saw a blank with nothing after it,
#   is left guessing. GPT has no way to use the right side at all.
# - **GPT, left only** against **BERT, left only**: predicting from the left is the one thing GPT was
#   trained for, and the situation of generation. BERT with appended `[MASK]`s gives stray tokens
#   and never decides to stop; GPT can end a sentence with `[SEP]`, which it learned as the end.
#
# This is the split of the decks' "BERT and Other Language Models": encoders (BERT) to understand a
# text, to tag it and to classify it, decoders (GPT) to write one.
#
# ## Summary
#
# - Token classification puts a head on every position; the labels are aligned to the WordPieces: the
#   first piece of each word gets the word's label, the other pieces and `[CLS]`, `[SEP]` get -100.
# - Sentence-pair tasks read `[CLS] A [SEP] B [SEP]` with segment ids; a pair too long is cut longest
#   first, with room left for the three special tokens.
# - A claim that one method beats another needs several seeds: a gap smaller than the spread is none.
# - Masked language models fill blanks with both sides; left-to-right models generate. Each is weak at
#   the other's task.
