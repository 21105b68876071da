"""course_lib.bert equals transformers' BERT (real MiniLM weights and random small ones), its
masking follows BERT's 80/10/10 recipe by statistics, and the committed small BERT learned something.

The reference is always an independent implementation (``transformers``), the real tokenizer, or
a number computed here (frequencies, a unigram baseline); never course_lib's own output.
"""
import copy
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import transformers

from course_lib.bert import (COURSE_BERT_PATH, BertConfig, BertForPreTraining, BertModel, CorpusVocab, copy_from_hf,
                             fill_mask, load_course_bert, load_hf_minilm, load_pretrained_minilm, mask_tokens,
                             special_tokens_mask)
from course_lib.bert_pretrain import (PretrainConfig, corpus_vocab, encode_sentences, masked_lm_loss, mlm_accuracy,
                                      pretrain, sentence_pair_batch)
from course_lib.data import docstring_sentences
from course_lib.train import IGNORE_INDEX
from course_lib.transformer import set_fast_attention

REPO = Path(__file__).resolve().parents[2]
PAIRS = [("The river bank was muddy after the rain.", "We sat on the bank and watched the water."),
         ("Return the length of the list.", "Raise ValueError if it is empty."),
         ("She deposited the money at the bank.", "Interest is paid monthly."),
         ("Short one.", "Tiny.")]  # the last pair is much shorter, so the batch has padding
SMALL = dict(vocab_size=53, hidden_size=32, num_layers=2, num_heads=4, intermediate_size=48, max_position=20)


pytestmark = pytest.mark.usefixtures("seeded_one_thread")


@pytest.fixture(scope="module")
def minilm():
    """(transformers.BertModel, tokenizer, our BertModel with the same weights), loaded once."""
    hf_model, tokenizer = load_hf_minilm()
    ours, ours_tokenizer = load_pretrained_minilm()
    assert isinstance(ours_tokenizer, transformers.BertTokenizerFast)
    return hf_model, tokenizer, ours


@pytest.fixture(scope="module")
def course_bert():
    return load_course_bert()


def _hf_config(**changes):
    settings = dict(vocab_size=SMALL["vocab_size"], hidden_size=SMALL["hidden_size"],
                    num_hidden_layers=SMALL["num_layers"], num_attention_heads=SMALL["num_heads"],
                    intermediate_size=SMALL["intermediate_size"], max_position_embeddings=SMALL["max_position"],
                    hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    settings.update(changes)
    return transformers.BertConfig(**settings)


def _shake(model):
    """Random values in every parameter (biases, LayerNorms, ...), so copying each one matters; ties survive."""
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(0.1 * torch.randn_like(parameter))
    return model.eval()


def _padded_batch(vocab_size, device, lengths=(9, 5, 7)):
    """ids (B, T) with two segments and right padding given by ``lengths``."""
    length = max(lengths)
    ids = torch.randint(1, vocab_size, (len(lengths), length))
    attention_mask = (torch.arange(length)[None] < torch.tensor(lengths)[:, None]).long()
    token_type_ids = ((torch.arange(length)[None] >= 3) & attention_mask.bool()).long()
    return ids.to(device), token_type_ids.to(device), attention_mask.to(device)


# ---------------------------------------------------------------------------
# the real pretrained model


@pytest.mark.parametrize("fast", [None, False], ids=["fused-attention", "readable-attention"])
def test_minilm_hidden_states_equal_transformers_at_every_layer(minilm, fast, device):
    hf_model, tokenizer, ours = minilm
    ours = set_fast_attention(copy.deepcopy(ours).to(device), fast)  # a copy: the fixture stays on the CPU
    first, second = zip(*PAIRS)
    batch = tokenizer(list(first), list(second), padding=True, return_tensors="pt")
    assert (batch["attention_mask"] == 0).any() and (batch["token_type_ids"] == 1).any()  # padding, two segments
    with torch.no_grad():
        expected = hf_model(**batch, output_hidden_states=True).hidden_states
        got = ours(**{name: x.to(device) for name, x in batch.items()}, output_hidden_states=True)
    assert len(got.hidden_states) == len(expected) == 7  # the embeddings, then 6 layers
    real = batch["attention_mask"].bool()
    for layer, (ours_h, theirs_h) in enumerate(zip(got.hidden_states, expected)):
        assert ours_h.shape == theirs_h.shape == (4, batch["input_ids"].shape[1], 384)
        difference = (ours_h.cpu() - theirs_h)[real].abs().max().item()
        assert difference < 1e-4, f"layer {layer}: max abs difference {difference:.2e}"
    torch.testing.assert_close(got.last_hidden_state, got.hidden_states[-1])


def test_minilm_padding_does_not_change_real_tokens(minilm):
    """A sentence alone and the same sentence padded inside a batch get the same hidden states."""
    _, tokenizer, ours = minilm
    alone = tokenizer(PAIRS[3][0], return_tensors="pt")
    batch = tokenizer([PAIRS[3][0], PAIRS[0][0]], padding=True, return_tensors="pt")
    with torch.no_grad():
        single = ours(**alone).last_hidden_state[0]
        padded = ours(**batch).last_hidden_state[0, :single.shape[0]]
    torch.testing.assert_close(padded, single, rtol=1e-4, atol=1e-4)


def test_minilm_contexts_separate_the_two_banks(minilm):
    """The last layer tells river bank from money bank better than the context-free embeddings."""
    _, tokenizer, ours = minilm
    sentences = [PAIRS[0][0], PAIRS[0][1], PAIRS[2][0]]  # river, river, money
    batch = tokenizer(sentences, padding=True, return_tensors="pt")
    bank = tokenizer.convert_tokens_to_ids("bank")
    where = (batch["input_ids"] == bank).int().argmax(dim=1)
    with torch.no_grad():
        states = ours(**batch, output_hidden_states=True).hidden_states
    vectors = [h[torch.arange(3), where] for h in (states[0], states[-1])]  # (3, 384) each
    cos = [torch.cosine_similarity(v[0], v[1], dim=0) - torch.cosine_similarity(v[0], v[2], dim=0) for v in vectors]
    assert cos[1] > cos[0] + 0.05  # river-river minus river-money: grows with context


# ---------------------------------------------------------------------------
# random small configurations


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
def test_small_random_bert_equals_transformers(dtype, device):
    theirs = _shake(transformers.BertModel(_hf_config(), add_pooling_layer=False)).to(dtype)
    ours = copy_from_hf(BertModel(BertConfig(**SMALL, dropout=0.0)), theirs).to(device, dtype).eval()
    ids, segments, mask = _padded_batch(SMALL["vocab_size"], "cpu")
    with torch.no_grad():
        expected = theirs(input_ids=ids, token_type_ids=segments, attention_mask=mask,
                          output_hidden_states=True).hidden_states
        got = ours(ids.to(device), segments.to(device), mask.to(device), output_hidden_states=True).hidden_states
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == torch.float32 else dict(rtol=1e-10, atol=1e-10)
    assert len(got) == SMALL["num_layers"] + 1
    real = mask.bool()
    for ours_h, theirs_h in zip(got, expected):
        torch.testing.assert_close(ours_h.cpu()[real], theirs_h[real], **tol)


def test_pretraining_heads_and_loss_equal_transformers(device):
    theirs = _shake(transformers.BertForPreTraining(_hf_config()))
    assert theirs.cls.predictions.decoder.weight is theirs.bert.embeddings.word_embeddings.weight
    ours = copy_from_hf(BertForPreTraining(BertConfig(**SMALL, dropout=0.0)), theirs).to(device).eval()
    ids, segments, mask = _padded_batch(SMALL["vocab_size"], "cpu")
    labels = torch.full_like(ids, IGNORE_INDEX)
    labels[:, 1:4] = ids[:, 1:4]
    next_sentence = torch.tensor([0, 1, 1])
    with torch.no_grad():
        expected = theirs(input_ids=ids, token_type_ids=segments, attention_mask=mask, labels=labels,
                          next_sentence_label=next_sentence)
        logits, loss = ours(ids.to(device), segments.to(device), mask.to(device), labels=labels.to(device),
                            next_sentence_labels=next_sentence.to(device))
        mlm_only = ours(ids.to(device), segments.to(device), mask.to(device), labels=labels.to(device))[1]
        no_loss = ours(ids.to(device))[1]
    assert logits.mlm.shape == (3, ids.shape[1], SMALL["vocab_size"]) and logits.nsp.shape == (3, 2)
    torch.testing.assert_close(logits.mlm.cpu(), expected.prediction_logits, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(logits.nsp.cpu(), expected.seq_relationship_logits, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(loss.cpu(), expected.loss, rtol=1e-5, atol=1e-5)
    by_hand = torch.nn.functional.cross_entropy(expected.prediction_logits[labels != IGNORE_INDEX],
                                                labels[labels != IGNORE_INDEX])
    torch.testing.assert_close(mlm_only.cpu(), by_hand, rtol=1e-5, atol=1e-5)
    assert no_loss is None


def test_mlm_decoder_is_tied_to_the_word_embeddings():
    model = BertForPreTraining(BertConfig(**SMALL))
    assert model.mlm_head.decoder.weight is model.bert.embeddings.word_embeddings.weight
    assert sum(p.numel() for p in model.parameters()) == sum(
        p.numel() for name, p in model.named_parameters() if name != "mlm_head.decoder.weight")


def test_fresh_model_starts_near_uniform():
    """BERT's N(0, 0.02) initialisation: the first MLM loss is close to log(V), not huge."""
    model = BertForPreTraining(BertConfig(**SMALL)).eval()
    ids, segments, mask = _padded_batch(SMALL["vocab_size"], "cpu")
    _, loss = model(ids, segments, mask, labels=ids)
    assert abs(loss.item() - torch.log(torch.tensor(float(SMALL["vocab_size"])))) < 0.5


def test_training_with_dropout_differs_from_eval_and_eval_is_deterministic():
    model = BertModel(BertConfig(**SMALL, dropout=0.3))
    ids, segments, mask = _padded_batch(SMALL["vocab_size"], "cpu")
    model.eval()
    first, second = model(ids, segments, mask).last_hidden_state, model(ids, segments, mask).last_hidden_state
    torch.testing.assert_close(first, second, rtol=0, atol=0)
    model.train()
    assert not torch.allclose(model(ids, segments, mask).last_hidden_state, first)


# ---------------------------------------------------------------------------
# bad input gets a sentence


def _bad_inputs():
    ids = torch.randint(0, SMALL["vocab_size"], (2, 5))
    return [
        (dict(input_ids=ids.float()), TypeError, "integer"),
        (dict(input_ids=ids + SMALL["vocab_size"]), ValueError, r"lie in \[0, 53\)"),
        (dict(input_ids=ids[0]), ValueError, r"shape \(batch, T\)"),
        (dict(input_ids=torch.zeros(1, 21, dtype=torch.long)), ValueError, "max_position=20"),
        (dict(input_ids=ids, token_type_ids=torch.zeros(2, 4, dtype=torch.long)), ValueError,
         "token_type_ids must have the shape of input_ids"),
        (dict(input_ids=ids, token_type_ids=torch.full_like(ids, 2)), ValueError, r"lie in \[0, 2\)"),
        (dict(input_ids=ids, attention_mask=torch.ones(2, 5)), TypeError, "integer or bool tensor"),
        (dict(input_ids=ids, attention_mask=torch.ones(2, 6, dtype=torch.long)), ValueError,
         "attention_mask must have the shape"),
        (dict(input_ids=ids, attention_mask=torch.full_like(ids, 2)), ValueError, "only 1 .* and 0"),
        (dict(input_ids=ids, attention_mask=torch.tensor([[1, 1, 0, 0, 0], [0, 0, 0, 0, 0]])), ValueError,
         "at least one real token"),
        (dict(input_ids=ids, labels=ids[:, :3]), ValueError, "labels must have the shape"),
        (dict(input_ids=ids, next_sentence_labels=torch.tensor([0, 2])), ValueError, r"lie in \[0, 2\)"),
        (dict(input_ids=ids, next_sentence_labels=torch.tensor([0])), ValueError, r"\(batch,\) = \(2,\)"),
    ]


@pytest.mark.parametrize("inputs, error, match", _bad_inputs())
def test_bad_input_gets_a_sentence(inputs, error, match):
    model = BertForPreTraining(BertConfig(**SMALL))
    with pytest.raises(error, match=match):
        model(**inputs)


def test_bad_configs_and_copies_get_a_sentence():
    with pytest.raises(ValueError, match="d_model=30 must be divisible by num_heads=4"):
        BertConfig(**{**SMALL, "hidden_size": 30})
    with pytest.raises(ValueError, match="activation must be one of"):
        BertConfig(**SMALL, activation="tanh")
    with pytest.raises(ValueError, match="layer_norm_eps must be a positive float"):
        BertConfig(**SMALL, layer_norm_eps=0.0)
    with pytest.raises(TypeError, match="BertModel takes a BertConfig"):
        BertModel(dict(SMALL))
    with pytest.raises(ValueError, match="num_layers=3 but ours 2"):
        copy_from_hf(BertModel(BertConfig(**SMALL)), transformers.BertModel(_hf_config(num_hidden_layers=3)))
    with pytest.raises(ValueError, match="layer_norm_eps=1e-05 but ours 1e-12"):
        copy_from_hf(BertModel(BertConfig(**SMALL)), transformers.BertModel(_hf_config(layer_norm_eps=1e-5)))
    with pytest.raises(TypeError, match="got BertModel into BertForPreTraining"):
        copy_from_hf(BertForPreTraining(BertConfig(**SMALL)), transformers.BertModel(_hf_config()))


def test_model_on_another_device_gets_a_sentence(device):
    if device.type == "cpu":
        pytest.skip("needs a second device")
    model = BertModel(BertConfig(**SMALL)).to(device)
    with pytest.raises(ValueError, match="move one of them"):
        model(torch.zeros(1, 3, dtype=torch.long))


# ---------------------------------------------------------------------------
# masking: BERT's 80/10/10 recipe, by statistics


def _masking_batch(device, vocab_size=1000):
    """(ids, special) (400, 64): [CLS]=1 at 0, [SEP]=2 at the end of each row's length, [PAD]=0 after."""
    generator = torch.Generator().manual_seed(1)
    lengths = torch.randint(10, 65, (400,), generator=generator)
    ids = torch.randint(5, vocab_size, (400, 64), generator=generator)
    positions = torch.arange(64)[None]
    ids[:, 0] = 1
    ids[positions == lengths[:, None] - 1] = 2
    ids[positions >= lengths[:, None]] = 0
    return ids.to(device), (ids < 5).to(device)


def test_mask_tokens_follows_the_80_10_10_recipe(device):
    ids, special = _masking_batch(device)
    generator = torch.Generator(device=device).manual_seed(0)
    inputs, labels = mask_tokens(ids, special, generator, vocab_size=1000, mask_id=4)
    assert inputs.shape == labels.shape == ids.shape and inputs.dtype == labels.dtype == torch.long
    selected = labels != IGNORE_INDEX
    assert not (selected & special).any()  # never [CLS], [SEP] or padding
    assert torch.equal(inputs[special], ids[special])
    assert torch.equal(inputs[~selected], ids[~selected])  # unselected tokens are untouched
    assert torch.equal(labels[selected], ids[selected])  # labels: the original ids where selected
    n_real, n_selected = int((~special).sum()), int(selected.sum())
    assert abs(n_selected / n_real - 0.15) < 0.01, n_selected / n_real
    masked = selected & (inputs == 4)
    kept = selected & (inputs == ids)
    replaced = selected & ~masked & ~kept
    assert abs(int(masked.sum()) / n_selected - 0.8) < 0.02
    assert abs(int(kept.sum()) / n_selected - 0.1) < 0.015  # (plus the rare random draw of the same id)
    assert abs(int(replaced.sum()) / n_selected - 0.1) < 0.015
    random_ids = inputs[replaced].float()
    assert abs(random_ids.mean().item() - 999 / 2) < 40  # uniform over [0, 1000): mean about 499.5


def test_mask_tokens_selects_each_position_independently(device):
    """Every position of a row is chosen about equally often (no "first 15%" shortcut)."""
    ids = torch.randint(5, 100, (4000, 8), device=device)
    special = torch.zeros_like(ids, dtype=torch.bool)
    inputs, labels = mask_tokens(ids, special, torch.Generator(device=device).manual_seed(0), 100, 4)
    rates = (labels != IGNORE_INDEX).float().mean(dim=0)
    assert ((rates - 0.15).abs() < 0.025).all(), rates


def test_mask_tokens_is_reproducible_with_a_seeded_generator(device):
    ids, special = _masking_batch(device)

    def draw(seed):
        return mask_tokens(ids, special, torch.Generator(device=device).manual_seed(seed), 1000, 4)

    first, again, other = draw(0), draw(0), draw(1)
    assert torch.equal(first[0], again[0]) and torch.equal(first[1], again[1])
    assert not torch.equal(first[1], other[1])


def test_mask_tokens_bad_input_gets_a_sentence():
    ids = torch.randint(0, 10, (2, 5))
    with pytest.raises(TypeError, match="special_mask must be a bool tensor"):
        mask_tokens(ids, torch.zeros(2, 5), None, 10, 4)
    with pytest.raises(ValueError, match="special_mask must have the shape of input_ids"):
        mask_tokens(ids, torch.zeros(2, 4, dtype=torch.bool), None, 10, 4)
    with pytest.raises(ValueError, match="mask_prob must be a probability"):
        mask_tokens(ids, torch.zeros(2, 5, dtype=torch.bool), None, 10, 4, mask_prob=1.5)
    with pytest.raises(TypeError, match="integer"):
        mask_tokens(ids.float(), torch.zeros(2, 5, dtype=torch.bool), None, 10, 4)


def test_special_tokens_mask_agrees_with_the_real_tokenizer(minilm):
    _, tokenizer, _ = minilm
    first, second = zip(*PAIRS)
    batch = tokenizer(list(first), list(second), padding=True, return_special_tokens_mask=True, return_tensors="pt")
    ours = special_tokens_mask(batch["input_ids"], tokenizer.all_special_ids)
    assert torch.equal(ours, batch["special_tokens_mask"].bool())


# ---------------------------------------------------------------------------
# the pretraining data and loop


@pytest.fixture(scope="module")
def corpus():
    train, valid = docstring_sentences()
    return train, valid, corpus_vocab(train + valid)


def test_corpus_vocab_maps_real_ids_both_ways(corpus):
    train, _, vocab = corpus
    tokenizer = vocab.tokenizer
    real = torch.tensor(tokenizer(train[0], add_special_tokens=False)["input_ids"])
    assert torch.equal(vocab.to_real(vocab.to_course(real)), real)
    assert vocab.tokens(vocab.to_course(real).tolist()) == tokenizer.convert_ids_to_tokens(real.tolist())
    missing = next(i for i in range(len(tokenizer)) if i not in set(vocab.real_ids.tolist()))
    assert vocab.to_course(torch.tensor([missing])).item() == vocab.unk_id
    assert len(vocab) < len(tokenizer) // 4
    assert vocab.tokens([vocab.cls_id, vocab.sep_id, vocab.pad_id, vocab.mask_id]) == ["[CLS]", "[SEP]", "[PAD]",
                                                                                       "[MASK]"]


def test_sentence_pairs_follow_the_nsp_recipe(corpus):
    train, _, vocab = corpus
    encoded = encode_sentences(train[:300], vocab, 24)
    ids, segments, mask, is_random = sentence_pair_batch(encoded, 400, vocab, torch.Generator().manual_seed(0))
    assert abs(is_random.float().mean().item() - 0.5) < 0.08
    assert (ids[:, 0] == vocab.cls_id).all()
    assert torch.equal(mask.bool(), ids != vocab.pad_id)
    assert ((ids == vocab.sep_id).sum(dim=1) == 2).all()
    assert ((segments == 1) <= mask.bool()).all()  # segment B only on real tokens
    numbers = {}  # a sentence's ids -> where it occurs in the corpus (some sentences occur twice)
    for number, sentence in enumerate(encoded):
        numbers.setdefault(tuple(sentence.tolist()), set()).add(number)
    follows = []
    for row, segment in zip(ids[:100], segments[:100]):
        a = row[(segment == 0) & (row != vocab.pad_id)][1:-1]  # without [CLS] and [SEP]
        b = row[segment == 1][:-1]
        a_numbers, b_numbers = numbers[tuple(a.tolist())], numbers[tuple(b.tolist())]
        follows.append(any(n + 1 in b_numbers for n in a_numbers))
    follows = torch.tensor(follows)
    assert follows[is_random[:100] == 0].all()  # label 0: B is the sentence after A
    assert follows[is_random[:100] == 1].float().mean() < 0.1  # label 1: a random one


def test_fast_masked_lm_loss_equals_the_models_loss(corpus):
    train, _, vocab = corpus
    config = PretrainConfig(num_layers=1, hidden_size=32, intermediate_size=64)
    model = BertForPreTraining(config.bert_config(len(vocab)))
    encoded = encode_sentences(train[:50], vocab, 24)
    generator = torch.Generator().manual_seed(0)
    ids, segments, mask, is_random = sentence_pair_batch(encoded, 16, vocab, generator)
    inputs, labels = mask_tokens(ids, special_tokens_mask(ids, vocab.special_ids), generator, len(vocab), vocab.mask_id)
    _, expected = model(inputs, segments, mask, labels=labels, next_sentence_labels=is_random)
    torch.testing.assert_close(masked_lm_loss(model, inputs, segments, mask, labels, is_random), expected)


def test_pretraining_is_reproducible_and_lowers_the_loss(corpus):
    train, _, vocab = corpus
    config = PretrainConfig(num_layers=1, hidden_size=32, intermediate_size=64, steps=30, warmup_steps=3,
                            batch_size=16, learning_rate=3e-3)
    first, history = pretrain(config, train[:400], vocab, log_every=10)
    second, again = pretrain(config, train[:400], vocab, log_every=10)
    assert history == again
    assert all(torch.equal(a, b) for a, b in zip(first.state_dict().values(), second.state_dict().values()))
    assert history[-1][1] < history[0][1] - 0.5, history


# ---------------------------------------------------------------------------
# the committed small BERT


def test_course_bert_checkpoint_is_small_and_loads(course_bert):
    model, vocab = course_bert
    assert COURSE_BERT_PATH.stat().st_size <= 8 * 2**20
    assert isinstance(model, BertForPreTraining) and isinstance(vocab, CorpusVocab)
    assert model.config.vocab_size == len(vocab) and not model.training
    assert model.mlm_head.decoder.weight is model.bert.embeddings.word_embeddings.weight
    checkpoint = torch.load(COURSE_BERT_PATH, map_location="cpu", weights_only=True)
    assert checkpoint["pretrain_config"]["steps"] >= 100


def test_checkpoint_is_declared_as_package_data():
    """A non-editable install (a wheel) must carry the checkpoint too."""
    import fnmatch
    import tomllib

    package_data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    relative = COURSE_BERT_PATH.relative_to(REPO / "course_lib").as_posix()
    assert any(fnmatch.fnmatch(relative, pattern) for pattern in package_data.get("course_lib", []))


def test_course_bert_beats_a_unigram_baseline_on_held_out_sentences(course_bert, corpus, device):
    """Masked-token accuracy on validation docstrings (modules never trained on) vs always guessing
    the most frequent training token."""
    model, vocab = course_bert
    model = copy.deepcopy(model).to(device)
    train, valid, _ = corpus
    counts = torch.bincount(torch.cat(encode_sentences(train, vocab, 24)), minlength=len(vocab))
    most_frequent = counts.argmax().item()
    accuracy, predictions, targets = mlm_accuracy(model, encode_sentences(valid, vocab, 24), vocab, seed=0)
    baseline = (targets == most_frequent).float().mean().item()
    assert len(targets) > 1000
    assert accuracy > baseline + 0.1, (accuracy, baseline)


def test_fill_mask_suggests_plausible_words(course_bert):
    model, vocab = course_bert
    guesses = fill_mask("Return the [MASK] of the list.", top_k=10, model=model, vocab=vocab)
    assert len(guesses) == 1 and len(guesses[0]) == 10
    words = [word for word, _ in guesses[0]]
    probabilities = [p for _, p in guesses[0]]
    assert probabilities == sorted(probabilities, reverse=True) and 0 < sum(probabilities) <= 1 + 1e-6
    assert not {"[CLS]", "[SEP]", "[PAD]", "[MASK]", "[UNK]"} & set(words)
    plausible = {"length", "number", "size", "index", "sum", "value", "values", "first", "last", "end", "contents",
                 "items", "elements", "position", "name", "type", "copy", "rest", "head", "tail", "result", "count",
                 "order", "start", "beginning", "list", "item", "element", "string", "total", "maximum", "minimum",
                 "average", "mean", "data", "part", "top", "middle", "sequence", "keys", "key"}
    assert len(plausible & set(words[:5])) >= 2, words
    two = fill_mask("The [MASK] is closed by [MASK].", top_k=3, model=model, vocab=vocab)
    assert len(two) == 2 and all(len(g) == 3 for g in two)
    with pytest.raises(ValueError, match="at least one \\[MASK\\]"):
        fill_mask("No blank here.", model=model, vocab=vocab)


def _unshare_works() -> bool:
    return bool(shutil.which("unshare")) and subprocess.run(["unshare", "-rn", "true"],
                                                            capture_output=True).returncode == 0


@pytest.mark.skipif(not _unshare_works(), reason="unprivileged network namespaces are not available")
def test_loaders_work_without_network(tmp_path):
    code = ("from course_lib.bert import load_pretrained_minilm, fill_mask\n"
            "model, tokenizer = load_pretrained_minilm()\n"
            "print(fill_mask('Return the [MASK] of the list.')[0][0][0])\n")
    env = {name: value for name, value in os.environ.items() if not name.startswith("HF_HUB_OFFLINE")}
    proc = subprocess.run(["unshare", "-rn", sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() and not proc.stdout.startswith("[")
