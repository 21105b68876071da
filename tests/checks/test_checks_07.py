"""Notebook 07's checks beyond the common ones in test_checks.py: references, catalogues, built-ins restored, odd answers."""
from fractions import Fraction

import pytest
import torch
import torch.nn.functional as F

import course_lib.bert as course_bert
from course_lib.checks import bert as checks
from course_lib.grading.answers import AnswerError
from nb07_answers import CHEATS, NOTEBOOK
from notebook_runner import SolutionKernel


@pytest.fixture(scope="module")
def kernel():
    return SolutionKernel(NOTEBOOK)


def test_banned_tokenizer_and_builtins_are_restored_after_the_checks(kernel):
    tokenizer = checks.tokenizer()
    before = (type(tokenizer).__call__, F.layer_norm, course_bert.mask_tokens, course_bert.minilm_tokenizer)
    kernel.fail_with(CHEATS, "switched off")
    assert (type(tokenizer).__call__, F.layer_norm, course_bert.mask_tokens, course_bert.minilm_tokenizer) == before
    assert tokenizer.tokenize("unaffable") == ["una", "##ffa", "##ble"]


def test_the_wordpiece_catalogue_agrees_with_the_real_tokenizer():
    """The check's plain-Python WordPiece is BERT's on every corpus word, and every variant is a real mistake."""
    vocab = checks.real_vocab()
    words = checks.corpus_words() + checks.ODD_WORDS
    assert len(words) > 2000
    assert all(checks.plain_wordpiece(w, vocab) == checks.wordpiece_reference(w, vocab) for w in words)
    for name, toy in checks.toy_vocabularies().items():
        for w in checks.toy_words(toy):
            assert checks.plain_wordpiece(w, toy) == checks.wordpiece_reference(w, toy), (name, w)
    for variant in checks.wordpiece_mistakes(vocab):
        assert any(variant.compute(w) != checks.wordpiece_reference(w, vocab) for w in words), variant.name


def test_an_answer_that_ignores_vocab_is_caught_by_the_toy_vocabularies():
    real = checks.wordpiece_reference

    def uses_bert_vocabulary(word, vocab):
        return real(word, checks.real_vocab())

    checks.check_wordpiece(uses_bert_vocabulary)  # indistinguishable on BERT's own vocabulary...
    with pytest.raises(AnswerError, match="not from the `vocab` you were given"):
        checks.check_wordpiece(uses_bert_vocabulary, vocab="toy")


def test_wordpiece_wrong_kinds_get_a_sentence():
    with pytest.raises(AnswerError, match="got the string"):
        checks.check_wordpiece(lambda w, v: "[UNK]")
    with pytest.raises(AnswerError, match="list of strings"):
        checks.check_wordpiece(lambda w, v: None)
    with pytest.raises(AnswerError, match="raised KeyError.*word:"):
        checks.check_wordpiece(lambda w, v: {}[w])


def test_the_recipe_passes_the_statistical_check_on_several_seeds(capsys):
    for seed in range(3):
        checks.check_mask_tokens(checks_copy, seed=seed)
    assert capsys.readouterr().out.count("\u2714") == 3


def checks_copy(ids, special, generator, vocab_size, mask_id):
    """The recipe, written out (course_lib.bert.mask_tokens is switched off during the check)."""
    selected = (torch.rand(ids.shape, generator=generator) < 0.15) & ~special
    u = torch.rand(ids.shape, generator=generator)
    random_ids = torch.randint(vocab_size, ids.shape, generator=generator)
    inputs = torch.where(selected & (u < 0.8), mask_id, ids)
    inputs = torch.where(selected & (u >= 0.8) & (u < 0.9), random_ids, inputs)
    return inputs, torch.where(selected, ids, -100)


def test_masking_batch_and_bounds_are_not_flaky():
    """The rates of the correct recipe sit well inside the 6-sigma bounds over many seeds."""
    ids, special = checks.masking_batch()
    n = int((~special).sum())
    assert n > 140_000 and bool(special[:, 0].all())
    for seed in range(20):
        g = torch.Generator().manual_seed(seed)
        _, labels = checks_copy(ids, special, g, 30522, 103)
        rate = float((labels != -100).sum()) / n
        assert checks.within_sigmas(rate, 0.15, n, sigmas=4.5)
    assert not checks.within_sigmas(0.16, 0.15, n) and not checks.within_sigmas(0.14, 0.15, n)


def test_mask_tokens_wrong_kinds():
    with pytest.raises(AnswerError, match="pair"):
        checks.check_mask_tokens(lambda ids, s, g, v, m: ids)
    with pytest.raises(AnswerError, match="in place"):
        def in_place(ids, special, generator, vocab_size, mask_id):
            inputs, labels = checks_copy(ids, special, generator, vocab_size, mask_id)
            ids.copy_(inputs)
            return inputs, labels
        checks.check_mask_tokens(in_place)


def test_nsp_reference_is_the_tokenizer_and_specials_are_renumbered(capsys):
    tok = checks.tokenizer()
    ids = tok("the cat sat.", "it was happy.")
    a, b = tok.encode("the cat sat.", add_special_tokens=False), tok.encode("it was happy.", add_special_tokens=False)
    assert checks.plain_nsp_pair(a, b, 101, 102) == (ids["input_ids"], ids["token_type_ids"])
    checks.check_nsp_pair(lambda a, b, c, s: checks.plain_nsp_pair(a, b, c, s), special_ids=(7, 9))
    with pytest.raises(AnswerError, match="101 and 102"):
        checks.check_nsp_pair(lambda a, b, c, s: checks.plain_nsp_pair(a, b, 101, 102), special_ids=(7, 9))
    with pytest.raises(AnswerError, match="list of ints"):
        checks.check_nsp_pair(lambda a, b, c, s: ("x", "y"))


def test_embeddings_reference_and_variants_differ():
    ids, types = checks.embedding_batch()
    assert bool((types == 1).any()), "the batch must contain segment B"
    w = checks.minilm_embedding_weights()
    with torch.no_grad():
        expected = checks.hf_minilm()[0].embeddings(input_ids=ids, token_type_ids=types)
    torch.testing.assert_close(checks.plain_bert_embeddings(ids, types, w), expected, rtol=1e-4, atol=1e-5)
    for variant in checks.bert_embeddings_mistakes():
        assert not torch.allclose(variant.compute(ids, types, w), expected, rtol=1e-4, atol=1e-5), variant.name


def test_embeddings_on_the_gpu_or_cpu_device(capsys):
    checks.check_bert_embeddings(lambda i, t, w: checks.plain_bert_embeddings(i, t, w), device="cpu")
    assert "\u2714" in capsys.readouterr().out


def test_span_reference_and_edge_cases():
    cases = checks.span_cases(seed=1, count=12)
    for start, end, max_len in cases:
        i, j = checks.best_span_reference(start, end, max_len)
        assert 0 <= i <= j < len(start) and j - i + 1 <= max_len
    with pytest.raises(AnswerError, match="pair of ints"):
        checks.check_best_span(lambda s, e, m: None)
    with pytest.raises(AnswerError, match="not a span"):
        checks.check_best_span(lambda s, e, m: (0, len(s)))
    # ties: any best span counts, e.g. the last one instead of the first
    def last_best(s, e, m):
        best, answer = None, None
        for i in range(len(s)):
            for j in range(i, min(len(s), i + m)):
                score = float(s[i] + e[j])
                if best is None or score >= best:
                    best, answer = score, (i, j)
        return answer
    checks.check_best_span(last_best)


def test_parameter_counts_match_the_decks_and_transformers():
    base = checks.hf_parameter_count(*checks.PARAMETER_CONFIGS["BERT-base"])
    large = checks.hf_parameter_count(*checks.PARAMETER_CONFIGS["BERT-large"])
    assert 105e6 < base < 115e6 and 330e6 < large < 345e6  # the decks' 110M and 340M
    for config in checks.random_configs(5) + list(checks.PARAMETER_CONFIGS.values()):
        assert checks.plain_bert_parameters(*config) == checks.hf_parameter_count(*config), config
        for message, count in checks.bert_parameters_mistakes():
            assert count(*config) != checks.plain_bert_parameters(*config), message
    minilm = checks.hf_minilm()[0]
    c = minilm.config
    minilm_config = (c.vocab_size, c.hidden_size, c.num_hidden_layers, c.intermediate_size, c.max_position_embeddings,
                     c.type_vocab_size)
    assert checks.plain_bert_parameters(*minilm_config) == sum(p.numel() for p in minilm.parameters())


def test_parameter_answers_of_other_types():
    with pytest.raises(AnswerError, match="as an int"):
        checks.check_bert_parameters(lambda *a, **k: "110M")
    checks.check_bert_parameters(lambda V, H, L, I, P=512, S=2: float(checks.plain_bert_parameters(V, H, L, I, P, S)))
    checks.check_bert_parameters(lambda V, H, L, I, P=512, S=2: torch.tensor(checks.plain_bert_parameters(V, H, L, I, P, S)))


def test_albert_values():
    checks.check_albert_embedding(61_440_000, 4_102_144)
    with pytest.raises(AnswerError, match="E x H"):
        checks.check_albert_embedding(61_440_000, 30000 * 128)
    with pytest.raises(AnswerError, match="is still `...`"):
        checks.check_albert_embedding(..., 4_102_144)


def test_course_bert_loads_or_the_demo_says_why(kernel):
    """The fill-mask demo's guard: load_course_bert works here (the checkpoint is committed)."""
    model, vocab = course_bert.load_course_bert()
    assert vocab.mask_id in vocab.special_ids


def test_pair_scores_reference_and_catalogue():
    """The check's exact fractions equal course_lib.wordpiece.pair_scores; the notebook's numbers; every variant wrong."""
    from course_lib.wordpiece import pair_scores

    exact = checks.exact_pair_scores(checks.LOW_NEWEST)
    assert exact[("##e", "##s")] == Fraction(1, 17) and exact[("##i", "##d")] == Fraction(1, 3)
    corpora = checks.pair_score_corpora(seed=0) + checks.pair_score_corpora(seed=3, count=4)
    for corpus in corpora:
        exact = checks.exact_pair_scores(corpus)
        ours = pair_scores(corpus)
        assert set(ours) == set(exact) and all(abs(ours[p] - float(exact[p])) < 1e-12 for p in exact)
    for variant in checks.pair_scores_mistakes():
        assert any(set(variant.compute(c)) != set(checks.exact_pair_scores(c)) or any(
            abs(variant.compute(c)[p] - float(x)) > 1e-9 for p, x in checks.exact_pair_scores(c).items())
            for c in checks.pair_score_corpora(seed=0)), variant.name


def test_pair_scores_wrong_kinds_get_a_sentence():
    right = checks.plain_pair_scores
    with pytest.raises(AnswerError, match="should return a dict"):
        checks.check_pair_scores(lambda splits: list(right(splits).items()))
    with pytest.raises(AnswerError, match="should be a float"):
        checks.check_pair_scores(lambda splits: {p: Fraction(v).limit_denominator() for p, v in right(splits).items()})
    with pytest.raises(AnswerError, match="keys must be pairs"):
        checks.check_pair_scores(lambda splits: {" ".join(p): v for p, v in right(splits).items()})

    def mutates(splits):
        scores = right(splits)
        splits.clear()
        return scores
    with pytest.raises(AnswerError, match=r"changed its argument `splits` in place: its key .* was removed"):
        checks.check_pair_scores(mutates)
    # tensors and numpy numbers are fine
    checks.check_pair_scores(lambda splits: {p: torch.tensor(v, dtype=torch.float64) for p, v in right(splits).items()})


def test_pair_scores_uncatalogued_mistakes_are_described():
    right = checks.plain_pair_scores
    with pytest.raises(AnswerError, match="not a pair of neighbouring pieces"):
        checks.check_pair_scores(lambda s: {**right(s), ("##zz", "##q"): 0.5})
    with pytest.raises(AnswerError, match=r"e\.g\. \(.*right count\(ab\)"):
        checks.check_pair_scores(lambda s: {p: v * (2 if p[0] == "l" else 1) for p, v in right(s).items()})
