"""The general diagnosis of a wrong tensor (course_lib.grading.diagnosis), the probes, hidden cases, and the fixes of the
defects unseen answers found. Each relation is built from a reference by a transformation the test applies itself."""
import math

import pytest
import torch

from course_lib.checks import ffnn as ffnn_checks
from course_lib.checks import lstm as lstm_checks
from course_lib.checks import ngrams as ngram_checks
from course_lib.checks import rnn as rnn_checks
from course_lib.grading.diagnosis import Terms, diagnose, express
from course_lib.grading.answers import (AnswerError, Probe, case_note, compare_answer, describe_value, hidden_cases,
                                report_pass, run_probes)

g = torch.Generator().manual_seed(0)
E = torch.randn(2, 5, 4, generator=g, dtype=torch.float64)  # (batch, time, feature)
AXES = Terms(axes=("batch", "time", "feature"), sizes={"sqrt(d_k)": 2.0, "d_k": 4})


def said(answer, expected=E, terms=AXES):
    sentence = diagnose(answer, expected, terms, "your answer")
    assert sentence, "no relation found"
    return sentence


def test_right_answer_has_no_diagnosis_and_random_one_no_relation():
    assert diagnose(torch.randn(2, 5, 4, generator=g, dtype=torch.float64), E, AXES, partial=False) is None


@pytest.mark.parametrize("factor,named", [(2.0, "sqrt(d_k)"), (0.25, "1 / d_k"), (0.5, "1 / sqrt(d_k)"), (3.7, "")])
def test_constant_factor_named_by_the_exercise_sizes(factor, named):
    sentence = said(E * factor)
    assert f"times {factor:.4g}" in sentence and named in sentence


def test_sign_shift_and_elementwise():
    assert "opposite sign" in said(-E)
    assert "plus 0.5" in said(E + 0.5)
    probs = torch.softmax(E, -1)
    assert "the log of the correct answer" in said(probs.log(), probs)


def test_transposed_and_permuted_axes():
    assert "the time and feature axes are swapped" in said(E.transpose(1, 2))
    square = E[:, :4]
    assert "transposed" in said(square.transpose(1, 2), square)


def test_time_reversed_and_shifted():
    assert "reverse order along the time axis" in said(E.flip(1))
    late = torch.cat([torch.zeros_like(E[:, :1]), E[:, :-1]], 1)
    assert "one step behind" in said(late)


def test_right_on_some_rows_parts_and_the_triangle():
    wrong_rows = E.clone()
    wrong_rows[:, 3:] = torch.randn(2, 2, 4, generator=g, dtype=torch.float64)
    assert "right for time 0, 1, 2 and wrong for time 3, 4" in said(wrong_rows)
    gates = torch.randn(3, 8, generator=g, dtype=torch.float64)
    broken = gates.clone()
    broken[:, 4:6] *= 2  # the third of four blocks
    assert "wrong in the g part" in said(broken, gates, Terms(parts=(-1, ("i", "f", "g", "o"))))
    scores = torch.randn(4, 4, generator=g, dtype=torch.float64)
    future = scores + torch.ones(4, 4, dtype=torch.float64).triu(1)
    assert "above the diagonal" in said(future, scores, Terms())


def test_rows_that_do_not_sum_to_one_and_the_wrong_axis():
    p = torch.softmax(E, -1)
    assert "does not sum to 1 along the feature axis" in said(p * torch.linspace(1, 2, 4, dtype=torch.float64),
                                                               p, Terms(axes=AXES.axes, sums_to_one=-1))
    other = torch.softmax(E, 1)
    assert "sums to 1 along the time axis instead" in said(other, p, Terms(axes=AXES.axes, sums_to_one=-1))


def test_nan_where_and_infinite_expected():
    bad = E.clone()
    bad[1, 2, 3] = float("nan")
    assert "NaN in 1 of 40 entries (the first at batch 1, time 2, feature 3)" in said(bad)
    assert "-inf" in said(torch.tensor([-3.2], dtype=torch.float64), torch.tensor([-math.inf], dtype=torch.float64))


def test_dtype_device_and_shape():
    assert "dtype float32 where float64 is expected" in said(E.float())
    assert "only the last time" in said(E[:, -1])
    assert "summed over the feature axis" in said(E.sum(-1))
    assert "an axis of size 1 is extra" in said(E[:, None])


def test_reference_on_other_inputs():
    other = torch.randn(2, 5, 4, generator=g, dtype=torch.float64)
    assert "computed with the keys as values" in said(other, E, Terms(others={"computed with the keys as values": other}))


def test_express_finds_the_formula_and_not_a_random_number():
    f = 1 / (1 + math.exp(-1.2))
    named = {"f_t": f, "c_(t-1)": 2.0, "h_(t-1)": 1.0, "x_t": 0.2}
    assert express(2 * (1 - f), named) == "(1 - f_t) * c_(t-1)"
    assert express(math.tanh(2 * f), named) == "tanh(f_t * c_(t-1))"
    assert express(0.6173912, named) is None


def right_when_b_is_zero(x, b):
    return torch.tanh(x) + b  # the bias outside the tanh


def test_run_probes_names_the_input_whose_use_is_wrong():
    x, b = torch.randn(3, 4, generator=g), torch.randn(4, generator=g)
    probes = [Probe("when b is zero", (x, torch.zeros_like(b)), hint="look at b"),
              Probe("when x is zero", (torch.zeros_like(x), b), hint="look at x")]
    sentence = run_probes("ex", right_when_b_is_zero, lambda x, b: torch.tanh(x + b), probes, what="h")
    assert sentence == "h is right when b is zero but wrong when x is zero: look at b."


def test_compare_answer_says_where_locate_finds_the_mistake():
    own = torch.Generator().manual_seed(1)
    expected = torch.randn(3, 4, generator=own)
    answer = expected + torch.randn(3, 4, generator=own)  # no relation the general diagnosis knows
    with pytest.raises(AnswerError, match=r"^ex: the mistake is in row 2 \(test case: one\)$"):
        compare_answer("ex", answer, expected, case="one", locate=lambda: "the mistake is in row 2")
    with pytest.raises(AnswerError, match="the right shape but the wrong values"):
        compare_answer("ex", answer, expected, locate=lambda: None)


def test_hidden_cases_keep_their_parameters(capsys):
    assert case_note("n=3, k=0.1") == " (test case: n=3, k=0.1)"
    with hidden_cases():
        assert case_note("n=3, k=0.1") == " (a hidden test case)"
        report_pass("ngram_prob", "12 pairs, n=3, k=0.1")
    assert capsys.readouterr().out.strip() == "\u2714 ngram_prob: correct on a hidden case."


def test_hidden_part_of_a_test_cell_runs_hidden(capsys):
    from autograder.verdict import run_test_cell, test_parts

    source = ('"""Check my answer."""\nchecks.check_causal_mask(lambda n: torch.ones(n, n).tril().bool(), sizes=(3,))\n'
              "### BEGIN HIDDEN TESTS\n"
              "checks.check_causal_mask(lambda n: torch.ones(n, n).triu().bool(), sizes=(5,))\n"
              "### END HIDDEN TESTS\n")
    assert [hidden for hidden, _ in test_parts(source)] == [False, True]
    outputs = run_test_cell(source, "course_lib.checks.self_attention", channel=None)
    text = " ".join(o.get("text", "") + o.get("evalue", "") for o in outputs)
    assert "n in [3]" in text and "(a hidden test case)" in text and "n=5" not in text


# --- the defects the unseen answers found -------------------------------------------------------------------


def test_float32_states_for_float64_inputs_name_the_dtype():
    def rnn_step(x_t, h_prev, U, W, b):
        return torch.tanh(b + h_prev @ W.T + x_t @ U.T).float()

    with pytest.raises(AnswerError, match="dtype float32 where float64 is expected"):
        rnn_checks.check_rnn_step(rnn_step, dtype=torch.float64)


def test_float64_cross_entropy_of_float32_logits_is_accepted(capsys):
    def cross_entropy(logits, targets):
        z = logits.double()
        m = z.max(1, keepdim=True).values
        lse = m.squeeze(1) + (z - m).exp().sum(1).log()
        return (lse - z[torch.arange(len(targets)), targets]).mean()

    ffnn_checks.check_cross_entropy(cross_entropy)
    assert "\u2714" in capsys.readouterr().out


def test_perplexity_without_k_is_told_so_not_a_type_error():
    namespace = {}
    exec("def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):\n"  # noqa: S102 (a student's answer, as its cell defines it)
         "    import math\n"
         "    total = sum(sentence_logprob(s, counts_n, counts_n_minus_1, n) for s in sentences)\n"
         "    return math.exp(-total / sum(len(s) + 1 for s in sentences))\n", namespace)
    with pytest.raises(AnswerError, match="calls sentence_logprob without k"):
        ngram_checks.check_perplexity(namespace["perplexity"], k=0.5)


def test_smoothed_probabilities_that_do_not_sum_to_one_are_told_so():
    def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
        return (counts_n.get(tuple(context) + (word,), 0) + k) / (counts_n_minus_1.get(tuple(context), 0) + k * (vocab_size + 3))

    with pytest.raises(AnswerError, match="sum to"):
        ngram_checks.check_ngram_prob(ngram_prob, n=2, k=0.5)


def test_wrong_forget_gate_in_the_slide_example_is_not_called_typed():
    with pytest.raises(AnswerError) as caught:
        lstm_checks.check_slide_example(0.61739, 1.23478)
    assert "your forget_gate" in caught.value.message and "do not type" not in caught.value.message


def test_labels_of_minus_one_are_named():
    from course_lib.bert import mask_tokens

    def minus_one(input_ids, special_mask, generator, vocab_size, mask_id=103):
        inputs, labels = mask_tokens(input_ids, special_mask, generator=generator, vocab_size=vocab_size, mask_id=mask_id)
        return inputs, labels.masked_fill(labels == -100, -1)

    from course_lib.checks import bert as bert_checks
    with pytest.raises(AnswerError, match="use -100 there"):
        bert_checks.check_mask_tokens(minus_one, rows=50, length=100)


def test_articles():
    assert describe_value(3) == "an int" and describe_value(2.0) == "a float"


def test_feedback_page_wraps_long_verdicts():
    from autograder.feedback import with_wrapped_output

    page = with_wrapped_output("<html><head><title>t</title></head><body><pre>a long verdict</pre></body></html>")
    assert "white-space: pre-wrap" in page and page.index("pre-wrap") < page.index("</head>")


def test_verbs_agree_with_what_is_named():
    from course_lib.grading.diagnosis import verb

    assert [verb(w, "is") for w in ("the returned weights", "the returned loss", "z_machines")] == ["are", "is", "is"]
