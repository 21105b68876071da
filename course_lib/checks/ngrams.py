"""Checks for notebook 01 (n-gram language models): count_ngrams (:mod:`~course_lib.checks.ngrams_counts`),
ngram_prob (:mod:`~course_lib.checks.ngrams_probabilities`), sentence_logprob and perplexity
(:mod:`~course_lib.checks.ngrams_sentences`); their names the notebook's here.

References are written from scratch with plain loops (:mod:`~course_lib.checks.ngrams_common`; never with
``course_lib.ngram``, which is switched off while an answer is graded), on the lecture's cat/dog sentences.
"""
from course_lib.checks.ngrams_common import (  # noqa: F401
    EXTRA_SENTENCES, LECTURE_GENERALISED, LECTURE_SENTENCES, corpus, corpus_counts, padded, plain_count_ngrams,
    plain_ngram_prob, plain_sentence_logprob, vocab_size)
from course_lib.checks.ngrams_counts import check_count_ngrams  # noqa: F401
from course_lib.checks.ngrams_probabilities import check_ngram_prob  # noqa: F401
from course_lib.checks.ngrams_sentences import LONG_REPEATS, check_perplexity, check_sentence_logprob  # noqa: F401
from course_lib.grading.answers import install_notebook_hooks  # noqa: F401 (the notebook's setup cell calls it)
