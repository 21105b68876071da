"""A student's function that changes what it was given fails, with a sentence that names the argument and how."""
from collections import Counter

import pytest
import torch

from course_lib.grading.argument_changes import first_change, snapshot
from course_lib.grading.answers import AnswerError, call_answer, hidden_cases


def _change(func, *args, **kwargs):
    kept = snapshot(args, kwargs)
    func(*args, **kwargs)
    return first_change(func, args, kwargs, kept)


def _subtract_row_max(logits, targets):
    logits -= logits.max(dim=-1, keepdim=True).values
    return logits.logsumexp(-1).mean()


def _scale_queries(Q, K):
    Q /= 2.0
    return Q @ K.transpose(-2, -1)


def _mask_in_place(scores, mask):
    scores.masked_fill_(~mask, float("-inf"))
    return scores.softmax(-1)


def _zero_state(x, h0):
    h0.zero_()
    return torch.tanh(x + h0)


def _pad_tokens(tokens, n):
    tokens.insert(0, "<s>")
    return len(tokens)


def _sort_tokens(tokens):
    tokens.sort()
    return tokens[0]


def _count_missing(grams, contexts):
    grams[("a", "b")] += 1
    return 0.0


def _transpose_weight(x, weights):
    weights["W_q"] = weights["W_q"].T
    return x


def _scale_weight(x, weights):
    weights["W_q"].mul_(2)
    return x


def _extend_first_sentence(sentences):
    sentences[0].append("</s>")
    return sentences


def _nudge_module(model):
    with torch.no_grad():
        model.weight.add_(1.0)
    return model.weight.sum()


CHANGES = [
    (_subtract_row_max, (torch.randn(3, 5), torch.tensor([1, 2, 3])), "logits", "subtracted"),
    (_scale_queries, (torch.randn(3, 4), torch.randn(3, 4)), "Q", "divided or multiplied"),
    (_mask_in_place, (torch.randn(3, 3), torch.ones(3, 3, dtype=torch.bool).tril()), "scores", "set to -inf"),
    (_zero_state, (torch.randn(4), torch.randn(4)), "h0", "every entry was set to 0"),
    (_pad_tokens, (["a", "b"], 2), "tokens", "length went from 2 to 3"),
    (_sort_tokens, (["b", "a", "c"],), "tokens", "reordered"),
    (_count_missing, (Counter({("a", "c"): 1}), Counter()), "grams", "the key ('a', 'b') was added"),
    (_transpose_weight, (torch.randn(2), {"W_q": torch.randn(2, 3)}), "weights", "replaced by another value"),
    (_scale_weight, (torch.randn(2), {"W_q": torch.randn(2, 3)}), "weights['W_q']", "divided or multiplied"),
    (_extend_first_sentence, ([["a"], ["b"]],), "sentences[0]", "length went from 1 to 2"),
    (_nudge_module, (torch.nn.Linear(2, 2),), "model.weight", "added"),
]


@pytest.mark.parametrize("func,args,where,how", CHANGES, ids=[c[0].__name__ for c in CHANGES])
def test_each_in_place_change_is_named(func, args, where, how):
    change = _change(func, *args)
    assert change is not None and change.where == where and how in change.how, change


def _pure(logits, targets, weights=None, tokens=()):
    shifted = logits - logits.max(dim=-1, keepdim=True).values
    return shifted.logsumexp(-1).mean() + len(list(tokens) + ["x"])


def test_a_function_that_leaves_its_arguments_alone_passes():
    logits = torch.tensor([[float("nan"), 1.0], [2.0, 3.0]])  # NaN stays NaN: not a change
    assert _change(_pure, logits, torch.tensor([0, 1]), weights={"W": torch.ones(2)}, tokens=["a"]) is None


def test_gradients_are_not_values():
    w = torch.randn(3, requires_grad=True)
    (w * 2).sum().backward()

    def clip(parameters, max_norm):
        for p in parameters:
            p.grad.mul_(0.5)

    assert _change(clip, [w], 1.0) is None


def test_call_answer_fails_with_the_argument_and_the_operation():
    logits = torch.randn(3, 5)
    with pytest.raises(AnswerError, match=r"changed its argument `logits` in place: a number was subtracted") as err:
        call_answer("cross_entropy", _subtract_row_max, logits, torch.tensor([1, 2, 3]))
    assert "`logits = logits - m` rather than `logits -= m`" in err.value.message
    with pytest.raises(AnswerError, match=r"changed its argument `tokens` in place: its length went from 2 to 3 "
                                          r"\(`append`, `extend`, `insert` or `\+=`\)\. .*`tokens.copy\(\)`"):
        call_answer("count_ngrams", _pad_tokens, ["a", "b"], 2)


def test_a_hidden_case_names_the_argument_but_not_the_change():
    with hidden_cases(), pytest.raises(AnswerError) as err:
        call_answer("count_ngrams", _count_missing, Counter({("a", "c"): 1}), Counter())
    assert "`grams` in place" in err.value.message and "'a'" not in err.value.message, err.value.message
