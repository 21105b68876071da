"""course_lib: reference implementations and helpers for "From n-grams to BERT".

One module per concept; later modules import earlier ones. Every module, with one line each
(``tests/models/test_package_docstring.py`` checks that this list names every module):

Foundations
- ``device``: one ``get_device()`` honouring ``COURSE_DEVICE=cpu|cuda|mps|auto``.
- ``validation``: input checks that answer a wrong input with one sentence, made once at a model's entry.
- ``weights``: copying PyTorch's or Hugging Face's weights into the course's modules, shape by shape.
- ``data``: the four corpora (cat/dog grammar, docstring prose, Python source characters, gap task).
- ``loss``: the language models' loss, mean cross-entropy over the counted target tokens.
- ``train``: the model contract ``logits, loss = model(idx, targets=None)``, one training loop,
  one evaluation (loss, perplexity, bits) and one sampler for every language model.

Models
- ``ngram``: counting n-gram language model with add-k smoothing.
- ``ffnn``: Bengio's feed-forward neural language model.
- ``skipgram``: word2vec's skip-gram with negative sampling, neighbours and analogies, MiniLM's input table as a
  static embedding.
- ``rnn``: the simple (Elman) recurrent cell and language model in the lecture's notation.
- ``lstm``: the LSTM cell gate by gate, stacked and bidirectional encoders, the LSTM language model.
- ``tagging``: Python tokens tagged by ``tokenize``'s categories (names by role) and snippets by module, for the
  LSTM tagger and many-to-one classifier.
- ``attention``: reference scaled dot-product attention and causal masks.
- ``seq2seq``: an encoder-decoder GRU whose decoder attends over the encoder's states with a given score
  function (dot, scaled dot, bilinear, additive); the reversal task.
- ``transformer``: positional encoding, multi-head attention, blocks, a decoder-only LM.
- ``encoder_decoder``: the whole Transformer (encoder, decoder, cross-attention) on the reversal task.
- ``bert``: BERT's embeddings, encoder and pretraining heads, the pretrained MiniLM, fill-mask.
- ``bert_pretrain``: the script that pretrains the course's small BERT on docstrings.
- ``course_gpt``: the course's small GPT, the left-to-right twin of the course's small BERT.
- ``bert_tasks``: notebook 08's fine-tuning tasks built offline (token tagging, name/docstring pairs), frozen
  features and their probe.
- ``qa_spans``: extractive questions on standard-library docstrings and the span head ``best_span`` runs on.
- ``wordpiece``: learning a WordPiece vocabulary from text by likelihood merges (or by frequency, as BPE).

Instruments
- ``gradients``: the gradient-through-time instrument (vanishing and exploding gradients).
- ``interpret``: which units of a trained character LSTM track which property of the text.
- ``complexity``: how a layer's time and memory grow with the sequence length.
- ``output_layer``: the output layer's cost against the vocabulary size, and the sampled softmax.
- ``crossover_summary``: notebook 06's sentences about the crossover, written from its results file.
- ``compare``: every language model of the course on one character corpus, one training budget each.
- ``viz``: small plotting helpers shared by the notebooks.
- ``attention_view``: bertviz's attention views, working offline.
- ``decks``: the lecture decks, by the titles the notebooks and checks cite.

Grading (the machinery the notebooks' checks are built on, and the grader's calls into a student's kernel)
- ``grading``: a package of its own (its modules are listed in its docstring).
- ``checks``: one module of exercise checks per notebook, built on ``grading``.
"""

__version__ = "0.1.0"
