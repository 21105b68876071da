"""The checks of ``bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2)``,
against ``transformers.BertModel(BertConfig(...))`` built on the meta device, and of ALBERT's factorised embedding
(notebook 07).
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import torch

import course_lib.bert as course_bert
from course_lib.checks.common import WRITE_IT_YOURSELF, as_float64
from course_lib.grading.answers import (AnswerError, Banned, call_answer, call_answer_each, case_note, describe_value,
                                report_pass)

# ---------------------------------------------------------------------------
# bert_parameters(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2)


def _parameter_bans() -> list[Banned]:
    from transformers import PreTrainedModel
    from transformers.models.bert import modeling_bert

    return [Banned(modeling_bert.BertModel, "__init__", "transformers' BertModel"),
            Banned(PreTrainedModel, "num_parameters", "transformers' num_parameters"),
            Banned(course_bert.BertModel, "__init__", "course_lib.bert.BertModel")]


def hf_parameter_count(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2) -> int:
    """The number of parameters of ``transformers.BertModel`` (with its pooler), built on the meta device."""
    from transformers import BertConfig as HFBertConfig
    from transformers.models.bert.modeling_bert import BertModel as HFBertModel

    heads = next(h for h in (12, 16, 8, 4, 2, 1) if hidden % h == 0)
    config = HFBertConfig(vocab_size=vocab_size, hidden_size=hidden, num_hidden_layers=layers,
                          num_attention_heads=heads, intermediate_size=intermediate,
                          max_position_embeddings=max_position, type_vocab_size=type_vocab)
    with torch.device("meta"):
        model = HFBertModel(config, add_pooling_layer=True)
    return sum(p.numel() for p in model.parameters())


def plain_bert_parameters(V, H, L, I, P=512, S=2, *, pooler=True, biases=True, norms=True, positions=True,
                          segments=True, attention_matrices=4, ffn_matrices=2):
    """BertModel's parameter count by formula (V vocabulary, H hidden, L layers, I intermediate, P positions,
    S segments), with its pooler; or one known mistake."""
    b = 1 if biases else 0
    embeddings = (V + (P if positions else 0) + (S if segments else 0)) * H + (2 * H if norms else 0)
    attention = attention_matrices * (H * H + b * H) + (2 * H if norms else 0)
    ffn = (H * I + b * I) + (I * H + b * H) if ffn_matrices == 2 else H * I + b * I
    ffn += 2 * H if norms else 0
    return embeddings + L * (attention + ffn) + ((H * H + b * H) if pooler else 0)


def bert_parameters_mistakes() -> list[tuple[str, Callable]]:
    """(message, count) for each known wrong count, ``count`` a function of the configuration."""
    def v(message, **mistake):
        return message, lambda *cfg: plain_bert_parameters(*cfg, **mistake)
    return [
        v("the pooler is missing: BertModel ends with a dense H x H layer (with its bias) on the [CLS] token.",
          pooler=False),
        v("the biases are missing: every nn.Linear has one bias per output.", biases=False),
        v("the LayerNorms are missing: each has 2 H parameters (gamma and beta), one after the embeddings and two in "
          "every layer.", norms=False),
        v("the position embeddings are missing: max_position x H.", positions=False),
        v("the segment (token type) embeddings are missing: type_vocab x H.", segments=False),
        ("the LayerNorm after the embeddings is missing: 2 H (gamma and beta).",
         lambda *cfg: plain_bert_parameters(*cfg) - 2 * cfg[1]),
        v("you counted 3 attention matrices; there are 4 per layer: W_Q, W_K, W_V and the output projection W_O.",
          attention_matrices=3),
        v("the feed-forward network has two linear layers, H -> intermediate and intermediate -> H.", ffn_matrices=1),
        v("the pooler and the biases are missing.", pooler=False, biases=False),
    ]


PARAMETER_CONFIGS = {"BERT-base": (30522, 768, 12, 3072), "BERT-large": (30522, 1024, 24, 4096)}


_COUNT_NAMES = ("vocab_size", "hidden", "layers", "intermediate", "max_position", "type_vocab")


def _bert_parts(vocab_size, hidden, layers, intermediate, max_position=512, type_vocab=2) -> dict[str, int]:
    """Parts of BERT by size, to name a difference in a count (per layer, or in the embeddings and pooler)."""
    H, I = hidden, intermediate
    return {"a LayerNorm (gamma and beta)": 2 * H, "two LayerNorms": 4 * H, "a bias of size hidden": H,
            "the feed-forward biases (intermediate + hidden)": I + H, "the four attention biases": 4 * H,
            "one hidden x hidden matrix": H * H, "the pooler (hidden x hidden and its bias)": H * H + H,
            "one feed-forward matrix (hidden x intermediate)": H * I, "the attention's four matrices": 4 * H * H}


def _count_by_argument(ex: str, bert_parameters: Callable, config: tuple, got: int, expected: int,
                       bans) -> str | None:
    """Grow each argument by one and compare how the count moves: the argument whose step is wrong holds the mistake."""
    grown = [tuple(v + (1 if i == k else 0) for i, v in enumerate(config)) for k in range(len(config))]
    results = call_answer_each(ex, bert_parameters, [(c, {}) for c in grown], banned=bans, reason=WRITE_IT_YOURSELF)
    sentences = []
    for name, bigger, result in zip(_COUNT_NAMES, grown, results):
        if isinstance(result, AnswerError) or not isinstance(result, (int, float)):
            return None
        step, right = int(result) - got, hf_parameter_count(*bigger) - expected
        if step != right:
            per = right - step
            part = " or ".join(label for label, size in _bert_parts(*config).items()
                               if name == "layers" and size == abs(per)) or None
            detail = f" (per layer, {abs(per):,} {'missing' if per > 0 else 'too many'}: {part})" if part else ""
            sentences.append(f"when {name} grows by 1, BertModel gains {right:,} parameters and your count "
                             f"{step:,}{detail}")
    if sentences:
        return "Your count depends wrongly on its arguments: " + "; ".join(sentences) + "."
    gap = expected - got
    part = " or ".join(label for label, size in _bert_parts(*config).items() if size == abs(gap)) or None
    if part:
        return (f"Every argument moves your count rightly, but it is {abs(gap):,} {'short' if gap > 0 else 'over'}: "
                f"{part}.")
    return None


def check_bert_parameters(bert_parameters: Callable, *, configs: Sequence[tuple] | None = None, seed: int = 0) -> None:
    """Against ``transformers.BertModel(BertConfig(...))`` on the meta device (nothing is allocated)."""
    ex = "bert_parameters"
    if configs is None:
        configs = list(PARAMETER_CONFIGS.values())
    bans = _parameter_bans()
    counts = []
    for config in configs:
        expected = hf_parameter_count(*config)
        got = call_answer(ex, bert_parameters, *config, banned=bans, reason=WRITE_IT_YOURSELF)
        if isinstance(got, torch.Tensor) and got.numel() == 1:
            got = got.item()
        if isinstance(got, float) and got.is_integer():
            got = int(got)
        if not isinstance(got, int) or isinstance(got, bool):
            raise AnswerError(ex, f"should return the number of parameters as an int, got {describe_value(got)}.")
        names = ("vocab_size", "hidden", "layers", "intermediate", "max_position", "type_vocab")
        case = ", ".join(f"{n}={c}" for n, c in zip(names, config))
        if got == expected:
            counts.append(got)
            continue
        matched = [message for message, count in bert_parameters_mistakes() if got == count(*config) != expected]
        if len(matched) == 1:
            raise AnswerError(ex, f"{matched[0]}{case_note(case)} (yours {got:,}, transformers' {expected:,})")
        if matched:  # parts of the same size (type_vocab x H and a LayerNorm's 2 H when type_vocab = 2): say each
            raise AnswerError(ex, f"{len(matched)} known mistakes give your count{case_note(case)} (yours {got:,}, "
                                  f"transformers' {expected:,}): " + " Or: ".join(matched))
        found = _count_by_argument(ex, bert_parameters, config, got, expected, bans)
        if found:
            raise AnswerError(ex, f"{got:,} parameters; transformers.BertModel has {expected:,}{case_note(case)}. "
                                  f"{found}")
        raise AnswerError(ex, f"{got:,} parameters; transformers.BertModel has {expected:,}{case_note(case)}.")
    report_pass(ex, "; ".join(f"{c:,}" for c in counts) + " parameters, as transformers.BertModel")


def random_configs(count: int = 5, seed: int = 0) -> list[tuple[int, ...]]:
    """Small random BERT sizes (vocab, hidden, layers, intermediate, max_position, type_vocab)."""
    g = torch.Generator().manual_seed(seed)

    def r(low, high):
        return int(torch.randint(low, high, (1,), generator=g))
    return [(r(50, 5000), 12 * r(1, 20), r(1, 7), r(10, 600), r(16, 1024), r(1, 5)) for _ in range(count)]


# ---------------------------------------------------------------------------
# ALBERT's factorised embedding (the lecture "BERT and Other Language Models")

ALBERT_V, ALBERT_H, ALBERT_E = 30000, 2048, 128


def check_albert_embedding(full_embedding: Any, factorised_embedding: Any) -> None:
    """The lecture "BERT and Other Language Models": V x H = 61 440 000 against V x E + E x H = 4 102 144, exactly."""
    ex = "albert_embedding"
    V, H, E = ALBERT_V, ALBERT_H, ALBERT_E
    full = float(as_float64(ex, full_embedding, (), "full_embedding"))
    factorised = float(as_float64(ex, factorised_embedding, (), "factorised_embedding"))
    if full != V * H:
        if abs(full - 61e6) < 1e6:
            raise AnswerError(ex, f"full_embedding = {full:,.0f} is the slide's rounding; compute V x H exactly.")
        if math.isclose(full * 1e6, V * H, rel_tol=1e-3):
            raise AnswerError(ex, f"full_embedding = {full:g} is V x H in millions; give the exact number of "
                                  "parameters, an int.")
        raise AnswerError(ex, f"full_embedding should be V x H = {V} x {H}, got {full:,.0f}.")
    wrong = {V * E: "factorised_embedding is only V x E; add the E x H matrix that projects up to the hidden size.",
             E * H: "factorised_embedding is only E x H; add the V x E table of small embeddings.",
             V * E * H: "factorised_embedding multiplies V x E x H; the two matrices' sizes add: V x E + E x H.",
             (V + H) * H: "use E, the small embedding size, for the factorised matrices: V x E + E x H."}
    if factorised != V * E + E * H:
        raise AnswerError(ex, wrong.get(int(factorised), f"factorised_embedding should be V x E + E x H, got "
                                                         f"{factorised:,.0f}."))
    report_pass(ex, f"{full:,.0f} against {factorised:,.0f} parameters, {full / factorised:.1f} times fewer")
