"""Checks for notebook 07 (BERT): WordPiece, WordPiece's merge score, MLM masking, NSP pairs, embeddings, QA spans,
parameter counts; each exercise's check in a module of its own, its names the notebook's here.

References are independent of ``course_lib.bert``:

- ``wordpiece`` (:mod:`~course_lib.checks.bert_wordpiece`): the Rust WordPiece model of Hugging Face ``tokenizers``
  (the one inside the real ``BertTokenizerFast``), on the real bert-base-uncased vocabulary and on small made-up ones;
- ``pair_scores`` (:mod:`~course_lib.checks.bert_pair_scores`): exact fractions ``count(ab) / (count(a) count(b))``,
  counted position by position;
- ``mask_tokens`` (:mod:`~course_lib.checks.bert_masking`): statistics and invariants of BERT's 80/10/10 recipe on
  200 000 tokens, with bounds at 6 standard deviations or more (never flaky), not course_lib's output;
- ``nsp_pair`` (:mod:`~course_lib.checks.bert_nsp`): the real tokenizer's pair encoding ``tokenizer(a, b)``;
- ``bert_embeddings`` (:mod:`~course_lib.checks.bert_embedding_layer`): ``transformers.BertModel(...).embeddings``
  of the real all-MiniLM-L6-v2;
- ``best_span`` (:mod:`~course_lib.checks.bert_spans`): a brute force over every (start, end) pair, in float64;
- ``bert_parameters`` (:mod:`~course_lib.checks.bert_parameter_counts`): ``transformers.BertModel(BertConfig(...))``
  built on the meta device; and ALBERT's factorised embedding.

The real model and tokenizer, and the docstrings the checks take their English from, are in
:mod:`~course_lib.checks.bert_common`. Each check tries a catalogue of known wrong answers when the answer is wrong
and names the mistake.
"""
from course_lib.checks.bert_common import (  # noqa: F401
    DOC_MODULES, corpus_words, docstrings, hf_minilm, real_vocab, tokenizer)
from course_lib.checks.bert_embedding_layer import (  # noqa: F401
    EMBEDDING_KEYS, bert_embeddings_mistakes, check_bert_embeddings, embedding_batch, minilm_embedding_weights,
    plain_bert_embeddings)
from course_lib.checks.bert_masking import IGNORE, check_mask_tokens, masking_batch, within_sigmas  # noqa: F401
from course_lib.checks.bert_nsp import check_nsp_pair, nsp_pair_mistakes, nsp_sentences, plain_nsp_pair  # noqa: F401
from course_lib.checks.bert_pair_scores import (  # noqa: F401
    LOW_NEWEST, check_pair_scores, exact_pair_scores, pair_score_corpora, pair_scores_mistakes, plain_pair_scores)
from course_lib.checks.bert_parameter_counts import (  # noqa: F401
    ALBERT_E, ALBERT_H, ALBERT_V, PARAMETER_CONFIGS, bert_parameters_mistakes, check_albert_embedding,
    check_bert_parameters, hf_parameter_count, plain_bert_parameters, random_configs)
from course_lib.checks.bert_spans import best_span_reference, check_best_span, span_cases  # noqa: F401
from course_lib.checks.bert_wordpiece import (  # noqa: F401
    MAX_CHARS, ODD_WORDS, UNK, check_wordpiece, plain_wordpiece, toy_vocabularies, toy_words, wordpiece_mistakes,
    wordpiece_reference)
from course_lib.grading.answers import install_notebook_hooks  # noqa: F401 (the notebook's setup cell calls it)
