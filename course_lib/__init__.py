"""course_lib: reference implementations and helpers for "From n-grams to BERT".

One module per concept; later modules import earlier ones.

- ``device``: one ``get_device()`` honouring ``COURSE_DEVICE=cpu|cuda|mps|auto``.
- ``validation``: input checks that answer a wrong input with one sentence.
- ``data``: the cat/dog grammar (exact entropy), the docstring corpus, tokenizer and vocabulary.
- ``ngram``: counting n-gram language model with add-k smoothing.
- ``train``: the model contract ``logits, loss = model(idx, targets=None)``, one training loop,
  one evaluation (loss, perplexity, bits) and one sampler for every language model.
- ``ffnn``: Bengio's feed-forward neural language model.
- ``rnn``, ``lstm``: recurrent cells and language models in the lecture's notation.
- ``gradients``: the gradient-through-time instrument (vanishing and exploding gradients).
- ``attention``: reference scaled dot-product attention and causal masks.
- ``transformer``: positional encoding, multi-head attention, blocks, a decoder-only LM.
- ``grading``: answer checks whose messages name the mistake.
- ``checks``: one module of exercise checks per notebook.
- ``viz``: small plotting helpers shared by the notebooks.
"""

__version__ = "0.1.0"
