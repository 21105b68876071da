"""Checks for notebook 06 (the Transformer): positional encoding, multi-head attention, add & norm, an encoder block,
the ``MultiHeadAttention`` module, a character language model built from the blocks, and drawing the next token with a
temperature and top-k; each exercise's check in a module of its own, its names the notebook's here.

References are independent of ``course_lib.transformer``: the formula of the lecture "Pre-trained NLP Model: BERT"
written out with ``torch.pow`` for the positions (:mod:`~course_lib.checks.transformer_positions`), and PyTorch's own
``nn.MultiheadAttention`` (:mod:`~course_lib.checks.transformer_attention`,
:mod:`~course_lib.checks.transformer_mha_module`), ``F.layer_norm`` and ``nn.TransformerEncoderLayer``
(:mod:`~course_lib.checks.transformer_block`) with copied weights for the rest; the character language model in
:mod:`~course_lib.checks.transformer_char_lm`, the sampling in :mod:`~course_lib.checks.sampling`. The wrong-answer
catalogues are computed with plain tensor operations.

Weights are plain tensors in a dict, in ``nn.Linear``'s convention (y = x @ W.T + b):
``W_q, b_q, W_k, b_k, W_v, b_v`` (d_model, d_model) and (d_model,), the projections of all heads side
by side; ``W_o, b_o`` the output projection; for an encoder block also ``gamma_1, beta_1`` (the
LayerNorm after attention), ``W_1`` (d_ff, d_model), ``b_1``, ``W_2`` (d_model, d_ff), ``b_2``, and
``gamma_2, beta_2`` (the LayerNorm after the feed-forward network).
"""
from course_lib.checks.sampling import check_sample_next, exact_next_token_probs, sample_next_mistakes  # noqa: F401
from course_lib.checks.transformer_attention import (  # noqa: F401
    MHA_KEYS, check_multi_head_attention, mha_weights, multi_head_attention_mistakes, plain_multi_head_attention,
    torch_mha)
from course_lib.checks.transformer_block import (  # noqa: F401
    BLOCK_KEYS, add_norm_mistakes, check_add_norm, check_encoder_block, encoder_block_mistakes, encoder_weights,
    plain_add_norm, plain_encoder_block, torch_encoder_layer)
from course_lib.checks.transformer_char_lm import LEARNS_MARGIN, check_char_lm  # noqa: F401
from course_lib.checks.transformer_mha_module import check_mha_module, run_mha_module  # noqa: F401
from course_lib.checks.transformer_positions import (  # noqa: F401
    check_positional_encoding, plain_positional_encoding, positional_encoding_mistakes)
from course_lib.grading.answers import install_notebook_hooks  # noqa: F401 (the notebook's setup cell calls it)
