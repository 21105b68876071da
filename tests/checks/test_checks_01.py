"""Notebook 01's checks beyond the common ones in test_checks.py: log of zero, wrong return types."""
import pytest

from course_lib.grading.answers import AnswerError


def test_log_of_zero_without_smoothing_is_explained():
    from course_lib.checks.ngrams import check_sentence_logprob

    def naive(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
        import math
        padded = ["<s>"] * (n - 1) + list(tokens) + ["</s>"]
        return sum(math.log(counts_n.get(tuple(padded[i - n + 1:i + 1]), 0) / counts_n_minus_1[tuple(padded[i - n + 1:i])])
                   for i in range(n - 1, len(padded)))

    with pytest.raises(AnswerError, match="-math.inf"):
        check_sentence_logprob(naive)


def test_wrong_return_types_are_explained():
    from course_lib.checks.ngrams import check_count_ngrams, check_ngram_prob, check_perplexity

    with pytest.raises(AnswerError, match="return"):
        check_count_ngrams(lambda tokens, n: None)
    with pytest.raises(AnswerError, match="Counter"):
        check_count_ngrams(lambda tokens, n: [tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)])
    with pytest.raises(AnswerError, match="number"):
        check_ngram_prob(lambda *a, **k: "0.5")
    with pytest.raises(AnswerError, match="sign|at least 1"):
        check_perplexity(lambda s, c, cc, n, k=0.0, vocab_size=None: 1 / check_perplexity_value(s, c, cc, n, k, vocab_size))


def check_perplexity_value(sentences, counts_n, counts_n_minus_1, n, k, V):
    import math
    from course_lib.checks.ngrams import plain_sentence_logprob
    total = sum(plain_sentence_logprob(s, counts_n, counts_n_minus_1, n, k, V) for s in sentences)
    return math.exp(-total / sum(len(s) + 1 for s in sentences))
