"""Mutation-based diagnosis: the one small change of the solution that reproduces a wrong answer.

A small notebook of solutions is written to a temporary folder (``$COURSE_SOLUTIONS``); each test writes a wrong
answer a student could write, and checks which change of the solution is said, or that none is.
"""
import math
import textwrap

import pytest
import torch

from course_lib.grading import answers as grading
from course_lib.grading import mutations
from course_lib.grading.answers import AnswerError, close, compare_answer

SOLUTIONS = textwrap.dedent('''
    import math
    import torch

    CONTEXT = 3


    def layer(x, W, b):
        return torch.tanh(x @ W.T + b)


    def layer_norm(x, eps=1e-5):
        mean = x.mean(dim=-1, keepdim=True)
        var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + eps)


    def running(x):
        hs = []
        total = torch.zeros_like(x[:, 0])
        for t in range(x.shape[1]):
            total = 0.5 * total + x[:, t]
            hs.append(total)
        return torch.stack(hs, dim=1)


    def last_windows(ids, context_size):
        return ids.unfold(0, context_size, 1)


    def scores(Q, K):
        return Q @ K.T / math.sqrt(Q.shape[-1])


    def pair(a, b):
        return torch.tanh(a) + torch.tanh(b)


    def halvings(n):
        steps = 0
        while n > 1:
            n = n // 2
            steps += 1
        return torch.tensor(steps)
''')


@pytest.fixture(autouse=True)
def solutions(tmp_path, monkeypatch):
    (tmp_path / "01_toy.py").write_text(SOLUTIONS)
    monkeypatch.setenv(mutations.SOLUTIONS_ENV, str(tmp_path))
    mutations.solution_function.cache_clear()
    yield tmp_path
    mutations.solution_function.cache_clear()


def explain(exercise, inputs, answer_function, **kwargs):
    solution, _ = mutations.solution_function(exercise)
    expected = solution(*inputs)
    return mutations.changes_that_explain(exercise, inputs, answer_function(*inputs), expected, same=close, **kwargs)


def layer_inputs():
    g = torch.Generator().manual_seed(0)
    return torch.randn(4, 3, generator=g), torch.randn(5, 3, generator=g), torch.randn(5, generator=g)


@pytest.mark.parametrize("wrong,said", [
    (lambda x, W, b: torch.relu(x @ W.T + b), ["relu where the solution applies tanh"]),
    (lambda x, W, b: torch.sigmoid(x @ W.T + b), ["sigmoid where the solution applies tanh"]),
    (lambda x, W, b: torch.tanh(x @ W.T), ["`b` not added (the solution adds it: `x @ W.T + b`)"]),
    (lambda x, W, b: x @ W.T + b, ["no tanh (the solution applies tanh to `x @ W.T + b`)"]),
], ids=["relu", "sigmoid", "no_bias", "no_activation"])
def test_an_activation_or_a_term(wrong, said):
    assert explain("layer", layer_inputs(), wrong) == said


def test_an_operand_not_transposed_when_the_shapes_allow_it():
    x, W, b = torch.randn(4, 5), torch.randn(5, 5), torch.randn(5)
    assert explain("layer", (x, W, b), lambda x, W, b: torch.tanh(x @ W + b)) == ["`W` where the solution has `W.T`"]


def test_layer_norm_variants():
    x = torch.randn(2, 6) * 3 + 1
    without_eps = explain("layer_norm", (x, 0.5), lambda x, eps: (x - x.mean(-1, keepdim=True))
                          / torch.sqrt(x.var(-1, unbiased=False, keepdim=True)))
    assert without_eps == ["`eps` not added (the solution adds it: `var + eps`)"]
    not_centred = explain("layer_norm", (x, 0.5), lambda x, eps: (x - x.mean(-1, keepdim=True))
                          / torch.sqrt((x ** 2).mean(-1, keepdim=True) + eps))
    assert len(not_centred) == 1 and not_centred[0].startswith("without `- mean`")

    def mean_over_rows(x, eps):
        m = x.mean(0, keepdim=True)
        return (x - m) / torch.sqrt(((x - m) ** 2).mean(-1, keepdim=True) + eps)

    wrong_axis = explain("layer_norm", (x, 0.5), mean_over_rows)
    assert wrong_axis == ["`mean` over dim 0 where the solution uses dim -1"]


def test_a_loop_backwards_and_a_range_off_by_one():
    x = torch.randn(2, 5)

    def backwards(x):
        hs, total = [], torch.zeros_like(x[:, 0])
        for t in reversed(range(x.shape[1])):
            total = 0.5 * total + x[:, t]
            hs.append(total)
        return torch.stack(hs, dim=1)

    def skips_the_first(x):
        hs, total = [], torch.zeros_like(x[:, 0])
        for t in range(1, x.shape[1]):
            total = 0.5 * total + x[:, t]
            hs.append(total)
        return torch.stack(hs, dim=1)

    assert explain("running", (x,), backwards) == ["the loop over `t` run backwards"]
    assert explain("running", (x,), skips_the_first) == [
        "`range(1, x.shape[1])` where the solution has `range(x.shape[1])`: off by one"]


def test_a_notebook_constant_for_an_argument_and_a_size_from_the_example():
    ids = torch.arange(10)
    assert explain("last_windows", (ids, 4), lambda ids, context_size: ids.unfold(0, 3, 1)) == [
        "the notebook's `CONTEXT` (= 3) where the solution uses the argument `context_size`"]
    Q, K = torch.randn(5, 3), torch.randn(5, 3)
    assert explain("scores", (Q, K), lambda Q, K: Q @ K.T / math.sqrt(2)) == [
        "a fixed 2 where the solution uses `Q.shape[-1]`"]


def test_a_size_from_the_wrong_axis_comes_before_a_fixed_number():
    """x.shape[0] (the batch, 2) for x.shape[1] (the steps): a fixed 2 also reproduces it, and is not said."""
    x = torch.randn(2, 5)

    def batch_as_steps(x):
        hs, total = [], torch.zeros_like(x[:, 0])
        for t in range(x.shape[0]):
            total = 0.5 * total + x[:, t]
            hs.append(total)
        return torch.stack(hs, dim=1)

    assert explain("running", (x,), batch_as_steps) == [
        "`x.shape[0]` where the solution uses `x.shape[1]`: a size read from the wrong axis"]


def test_nothing_is_said_for_a_right_answer_written_differently_a_stub_or_a_mistake_no_change_makes():
    inputs = layer_inputs()
    assert explain("layer", inputs, lambda x, W, b: torch.tanh(torch.addmm(b, x, W.t()))) == []
    assert explain("layer", inputs, lambda x, W, b: torch.zeros(4, 5)) == []
    assert explain("layer", inputs, lambda x, W, b: torch.tanh(x @ W.T + b) ** 3) == []


def test_nothing_is_said_when_the_inputs_are_not_the_functions_own_arguments():
    x, W, b = layer_inputs()
    expected = torch.tanh(x @ W.T + b)
    answer = torch.relu(x @ W.T + b)
    assert mutations.changes_that_explain("layer", (x, W, b), answer, expected, same=close)
    assert mutations.changes_that_explain("layer", (x, W), answer, expected, same=close) == []  # b missing
    assert mutations.changes_that_explain("layer", (x, W, b), answer, expected * 2, same=close) == []


def test_nothing_is_said_without_solutions(monkeypatch, tmp_path):
    monkeypatch.setenv(mutations.SOLUTIONS_ENV, str(tmp_path / "none"))
    mutations.solution_function.cache_clear()
    x, W, b = layer_inputs()
    answer, expected = torch.relu(x @ W.T + b), torch.tanh(x @ W.T + b)
    assert mutations.changes_that_explain("layer", (x, W, b), answer, expected, same=close) == []


def test_the_inputs_are_left_as_they_were():
    x, W, b = layer_inputs()
    before = [t.clone() for t in (x, W, b)]
    explain("layer", (x, W, b), lambda x, W, b: torch.relu(x @ W.T + b))
    assert all(torch.equal(t, u) for t, u in zip((x, W, b), before))


def test_compare_answer_says_the_change_after_the_catalogue_and_only_for_a_wrong_answer(monkeypatch):
    x, W, b = layer_inputs()
    expected = torch.tanh(x @ W.T + b)
    with pytest.raises(AnswerError, match=r"layer: the returned h is what the solution gives with one change: "
                                          r"relu where the solution applies tanh"):
        compare_answer("layer", torch.relu(x @ W.T + b), expected, inputs=(x, W, b), what="the returned h")

    def no_mutations(*args, **kwargs):
        raise AssertionError("a right answer must not run the mutations")

    monkeypatch.setattr(grading, "changes_that_explain", no_mutations)
    compare_answer("layer", expected.clone(), expected, inputs=(x, W, b), what="the returned h")


def test_an_equivalent_change_is_not_said():
    """Doubling b is said; dropping a b of zeros changes nothing, so it is never a change that explains."""
    x, W, b = torch.randn(4, 3), torch.randn(5, 3), torch.randn(5)
    said = mutations.changes_that_explain("layer", (x, W, b), torch.tanh(x @ W.T + 2 * b), torch.tanh(x @ W.T + b),
                                          same=close)
    assert said == ["`b` added twice (the solution has `x @ W.T + b`)"]
    zeros = torch.zeros(5)
    assert mutations.changes_that_explain("layer", (x, W, zeros), torch.relu(x @ W.T), torch.tanh(x @ W.T),
                                          same=close) == ["relu where the solution applies tanh"]


def test_several_changes_that_give_the_same_answer_are_all_said():
    """With a == b, leaving out either tanh gives the same answer: both are said, as alternatives."""
    a = torch.randn(3, 4)
    answer, expected = torch.tanh(a) + a, 2 * torch.tanh(a)
    said = mutations.changes_that_explain("pair", (a, a.clone()), answer, expected, same=close)
    assert said == ["no tanh (the solution applies tanh to `a`)", "no tanh (the solution applies tanh to `b`)"]
    with pytest.raises(AnswerError, match="2 different changes give it; yours is one of: no tanh .*`a`.*; or no tanh"):
        compare_answer("pair", answer, expected, inputs=(a, a.clone()), what="the sum")


def test_an_error_the_solution_raises_with_one_change_is_found():
    """range(T + 1) reads x[:, T]: the solution with that one change raises the same IndexError, with the same words;
    the feedback says it only for messages the rules of error_terms do not read."""
    from course_lib.grading.answers import call_answer
    from notebook_runner import compile_cell

    namespace = {}
    exec(compile_cell("import torch\n"  # noqa: S102 (a student's cell, compiled as IPython does)
                      "def running(x):\n"
                      "    hs, total = [], torch.zeros_like(x[:, 0])\n"
                      "    for t in range(x.shape[1] + 1):\n"
                      "        total = 0.5 * total + x[:, t]\n"
                      "        hs.append(total)\n"
                      "    return torch.stack(hs, dim=1)\n"), namespace)
    x = torch.randn(2, 5)
    assert mutations.changes_that_raise("running", (x,), "IndexError",
                                        "index 5 is out of bounds for dimension 1 with size 5") == [
        "`range(x.shape[1] + 1)` where the solution has `range(x.shape[1])`: off by one"]
    with pytest.raises(AnswerError) as caught:
        call_answer("running", namespace["running"], x)
    assert caught.value.message.startswith("raised IndexError at `total = 0.5 * total + x[:, t]`: «index 5 is out of")
    # PyTorch's message is one the rules read: that is said, and not a change (other mistakes raise the same words)
    assert caught.value.message.endswith("Index 5 along dimension 1, which has 5 entries (0 to 4): off by one, or an "
                                         "index meant for another axis?")
    assert mutations.changes_that_raise("running", (x,), "IndexError", "another message") == []
    assert mutations.changes_that_raise("running", ("not a tensor",), "IndexError", "anything") == []


def test_a_change_that_never_ends_is_stopped():
    """Without `// 2` the loop never ends: the change is cut after its lines run out, the others still tried."""
    import time

    _, mutants = mutations.solution_function("halvings")
    assert "no division by `2` (the solution has `n // 2`)" in [m.change for m in mutants]  # the one that never ends
    start = time.perf_counter()
    said = mutations.changes_that_explain("halvings", (16,), torch.tensor(5), torch.tensor(4), same=close)
    assert time.perf_counter() - start < 1.0
    assert said == []  # no single change counts 5 halvings of 16
