"""Notebook 06's checks beyond the common ones in test_checks.py: built-ins restored, odd answer kinds, references."""
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from course_lib.checks import transformer as checks
from course_lib.grading.answers import AnswerError, hidden_cases
from nb06_answers import CHEATS, NOTEBOOK
from notebook_runner import SolutionKernel


@pytest.fixture(scope="module")
def kernel():
    return SolutionKernel(NOTEBOOK)


def test_banned_builtins_are_restored_after_the_checks(kernel):
    before = (F.scaled_dot_product_attention, F.layer_norm, nn.MultiheadAttention.forward,
              nn.TransformerEncoderLayer.forward, nn.LayerNorm.forward)
    kernel.fail_with(CHEATS, "switched off")
    assert (F.scaled_dot_product_attention, F.layer_norm, nn.MultiheadAttention.forward,
            nn.TransformerEncoderLayer.forward, nn.LayerNorm.forward) == before
    x = torch.randn(2, 3, 4)
    assert F.layer_norm(x, (4,)).shape == x.shape


def test_wrong_kinds_get_a_sentence():
    with pytest.raises(AnswerError, match="should return a tensor"):
        checks.check_positional_encoding(lambda n, d: [[0.0] * d] * n)
    with pytest.raises(AnswerError, match="floating-point"):
        checks.check_positional_encoding(lambda n, d: torch.zeros(n, d, dtype=torch.long))
    with pytest.raises(AnswerError, match="shape"):
        checks.check_positional_encoding(lambda n, d: torch.zeros(n, d + 1))
    with pytest.raises(AnswerError, match="dtype"):
        checks.check_add_norm(lambda x, s, g, b, eps=1e-5: checks.plain_add_norm(x, s, g, b, eps).double())
    with pytest.raises(AnswerError, match="raised TypeError"):
        checks.check_multi_head_attention(lambda q, k, v, w, h: q)  # no mask parameter


def test_references_agree_with_the_course_modules():
    """The check's references (PyTorch modules) and the course's transformer compute the same function."""
    from course_lib.transformer import EncoderBlock, BlockConfig, MultiHeadAttention, copy_from_torch, positional_encoding

    torch.testing.assert_close(positional_encoding(30, 10, dtype=torch.float64), checks.plain_positional_encoding(30, 10))
    w = checks.encoder_weights(8, 16, seed=3)
    layer = checks.torch_encoder_layer(w, 2)
    ours = copy_from_torch(EncoderBlock(BlockConfig(8, 2, 16)), layer).eval()
    x = torch.randn(2, 5, 8)
    with torch.no_grad():
        torch.testing.assert_close(ours(x), layer(x), rtol=1e-4, atol=1e-5)
        mha = copy_from_torch(MultiHeadAttention(8, 2), checks.torch_mha(w, 2)).eval()
        torch.testing.assert_close(mha(x, x, x)[0], checks.plain_multi_head_attention(x, x, x, w, 2), rtol=1e-4, atol=1e-5)


def test_every_variant_differs_from_the_reference():
    """A catalogued mistake that computed the right answer could never be told apart."""
    g = torch.Generator().manual_seed(0)
    w = checks.encoder_weights(8, 16, seed=1)
    x = torch.randn(2, 5, 8, generator=g)
    mask = (torch.rand(2, 5, 5, generator=g) > 0.5) | torch.eye(5, dtype=torch.bool)
    right = checks.plain_multi_head_attention(x, x, x, w, 2, mask)
    for variant in checks.multi_head_attention_mistakes():
        assert not torch.allclose(variant.compute(x, x, x, w, 2, mask), right, atol=1e-4), variant.name
    right = checks.plain_encoder_block(x, w, 2, mask)
    for variant in checks.encoder_block_mistakes():
        assert not torch.allclose(variant.compute(x, w, 2, mask), right, atol=1e-4), variant.name
    for variant in checks.positional_encoding_mistakes(20, 8):
        wrong = variant.compute()
        right = checks.plain_positional_encoding(20, 8)
        assert wrong.shape != (20, 8) or not torch.allclose(wrong, right, atol=1e-4), variant.name


def test_encoder_block_is_graded_even_when_its_helpers_are_missing(capsys):
    """A student whose add_norm cell timed out still gets encoder_block graded on its own merit."""
    namespace = {"torch": torch}
    exec('def encoder_block(x, w, h, mask=None):\n'  # noqa: S102 (a student's answer, as its cell defines it)
         '    x = add_norm(x, multi_head_attention(x, x, x, w, h, mask), w["gamma_1"], w["beta_1"])\n'
         '    f = torch.relu(x @ w["W_1"].T + w["b_1"]) @ w["W_2"].T + w["b_2"]\n'
         '    return add_norm(x, f, w["gamma_2"], w["beta_2"])\n', namespace)
    checks.check_encoder_block(namespace["encoder_block"])
    assert "\u2714 encoder_block" in capsys.readouterr().out
    assert "add_norm" not in namespace and "multi_head_attention" not in namespace  # supplied only during the call


# ---------------------------------------------------------------------------
# sample_next: a check on the distribution of random draws

from course_lib.checks import sampling  # noqa: E402


def _solution_sampler():
    """The notebook's solution, on its own (no kernel needed)."""
    def sample_next(logits, temperature=1.0, top_k=None, generator=None):
        if temperature <= 0:
            raise ValueError("temperature must be positive")
        if top_k is not None and top_k > logits.shape[-1]:
            raise ValueError("top_k is larger than the vocabulary")
        scaled = logits / temperature
        if top_k:
            scaled = scaled.masked_fill(scaled < torch.topk(scaled, top_k, dim=-1).values[..., -1:], float("-inf"))
        return torch.multinomial(torch.softmax(scaled, dim=-1), 1, generator=generator).squeeze(-1)
    return sample_next


def test_exact_distribution_is_softmax_over_the_top_k():
    """The check's float64 formula against torch.softmax and torch.topk (ties at the k-th value all kept)."""
    g = torch.Generator().manual_seed(0)
    z = torch.randn(5, 11, generator=g, dtype=torch.float64)
    order = z[0].argsort(descending=True)
    z[0, order[3:6]] = float(z[0, order[3]])  # the 4th, 5th and 6th largest logits tie
    for temperature, top_k in ((0.5, None), (2.0, 4), (1.0, 0), (1.3, 11), (0.7, 1)):
        expected = torch.softmax(z / temperature, dim=-1)
        if top_k:
            expected = expected * (z >= torch.topk(z, top_k, dim=-1).values[:, -1:])
            expected = expected / expected.sum(-1, keepdim=True)
        torch.testing.assert_close(sampling.exact_next_token_probs(z, temperature, top_k), expected)
    assert int((sampling.exact_next_token_probs(z, 1.0, 4)[0] > 0).sum()) == 6  # 3 above the tie and the 3 tied


def test_the_course_sampler_draws_what_the_check_expects():
    """course_lib.train.sample, one step on fixed logits, passes the same statistical test as the students' draws."""
    from course_lib.train import sample

    rows = torch.tensor(sampling.sampling_cases()[1].rows)  # (3, 8)
    logits = rows.repeat(4000, 1)  # (12000, 8)

    class Fixed(torch.nn.Module):
        def forward(self, idx):
            return logits, None

    out = sample(Fixed(), torch.zeros(len(logits), 1, dtype=torch.long), 1, temperature=2.0, top_k=3,
                 generator=torch.Generator().manual_seed(1))[:, -1]
    exact = sampling.exact_next_token_probs(rows, 2.0, 3)
    for r in range(3):
        assert sampling.draw_counts_fit(torch.bincount(out[r::3], minlength=8), exact[r]), r


def test_a_correct_sampler_passes_for_many_seeds(capsys):
    """A false alarm needs a 5-sigma count: none in 30 seeds and two vocabulary sizes."""
    sample_next = _solution_sampler()
    for seed in range(30):
        sampling.check_sample_next(sample_next, seed=seed, vocab_size=8 if seed < 15 else 13, draws=2000)
    assert capsys.readouterr().out.count("\u2714") == 30


def test_every_sampling_mistake_differs_from_the_exact_distribution():
    """In every default and hidden case, each catalogued mistake is either the right distribution there (and then
    skipped) or detectably different from it in at least one default case."""
    for vocab_size, seed in ((8, 0), (20, 3), (50, 11)):
        cases = sampling.sampling_cases(vocab_size, seed)
        for mistake in sampling.sample_next_mistakes():
            differs = False
            for case in cases:
                x = torch.tensor(case.rows, dtype=torch.float64)
                differs |= not torch.allclose(mistake.probs(x, case.temperature, case.top_k),
                                              sampling.exact_next_token_probs(x, case.temperature, case.top_k),
                                              atol=0.05)
            assert differs, (vocab_size, mistake.name)


def test_sampling_answers_of_the_wrong_kind_get_a_sentence():
    right = _solution_sampler()
    with pytest.raises(AnswerError, match="should return a tensor of token ids"):
        sampling.check_sample_next(lambda z, t=1.0, k=None, g=None: right(z, t, k, g).tolist())
    with pytest.raises(AnswerError, match="integer token ids"):
        sampling.check_sample_next(lambda z, t=1.0, k=None, g=None: right(z, t, k, g).float())
    with pytest.raises(AnswerError, match="int64"):
        sampling.check_sample_next(lambda z, t=1.0, k=None, g=None: right(z, t, k, g).int())
    with pytest.raises(AnswerError, match="0-dimensional"):
        sampling.check_sample_next(lambda z, t=1.0, k=None, g=None: right(z, t, k, g).reshape(z.shape[:-1] or (1,)))
    with pytest.raises(AnswerError, match=r"outside \[0, vocab_size\)"):
        sampling.check_sample_next(lambda z, t=1.0, k=None, g=None: right(z, t, k, g) + 1)
    with pytest.raises(AnswerError, match="did you forget a `return`"):
        sampling.check_sample_next(lambda z, t=1.0, k=None, g=None: None)
    with pytest.raises(AnswerError, match="same id"):  # one uniform number for the whole batch
        sampling.check_sample_next(lambda z, t=1.0, k=None, g=None: right(z, t, k, g)[:1].expand(z.shape[:-1]).clone()
                                   if z.dim() == 2 else right(z, t, k, g))
    with pytest.raises(AnswerError, match="raised TypeError"):
        sampling.check_sample_next(lambda z: right(z))


def test_the_check_refuses_bad_arguments_with_a_sentence():
    z = torch.zeros(2, 5)
    with pytest.raises(ValueError, match="temperature must be positive"):
        sampling.exact_next_token_probs(z, 0.0, None)
    with pytest.raises(ValueError, match="top_k must be None or between 0 and the vocabulary size 5"):
        sampling.exact_next_token_probs(z, 1.0, 6)
    with pytest.raises(ValueError, match="at least 6 tokens"):
        sampling.sampling_cases(4, 1)


def test_sample_next_is_graded_through_the_kernel_wire():
    """While grading, the generator travels into the student's kernel and the ids come back as plain data."""
    import json
    from unittest import mock

    from autograder import verdict
    from course_lib.grading import remote_answer
    from course_lib.grading.answer_wire import encode

    class InProcessKernel(remote_answer.Channel):
        def __init__(self, ns):
            super().__init__()
            self.ns = ns

        def send(self, entry, argument):
            published = []
            with mock.patch.object(remote_answer, "_user_namespace", lambda: self.ns), \
                    mock.patch.object(remote_answer, "_publish", lambda reply: published.append(json.dumps(encode(reply)))):
                getattr(remote_answer, entry)(argument)
            return published[-1]

    def text(outputs):
        printed = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
        return printed, " ".join(o.traceback[0] for o in outputs if o.output_type == "error")

    cell = "checks.check_sample_next(sample_next)"
    printed, errors = text(verdict.run_test_cell(cell, "course_lib.checks.transformer",
                                                 InProcessKernel({"torch": torch, "sample_next": _solution_sampler()})))
    assert "\u2714 sample_next" in printed and not errors, errors
    global_rng = {"torch": torch, "sample_next": lambda z, t=1.0, k=None, g=None: _solution_sampler()(z, t, k, None)}
    _, errors = text(verdict.run_test_cell(cell, "course_lib.checks.transformer", InProcessKernel(global_rng)))
    assert "seeded alike" in errors, errors

    def in_place(z, t=1.0, k=None, g=None):
        z /= t
        return _solution_sampler()(z, 1.0, k, g)

    _, errors = text(verdict.run_test_cell(cell, "course_lib.checks.transformer",
                                           InProcessKernel({"torch": torch, "sample_next": in_place})))
    assert "in place" in errors, errors


def test_the_language_model_check(monkeypatch, capsys):
    """check_char_lm: a causal model that learnt passes; one that sees the future, or learnt nothing, gets a sentence."""
    from course_lib.transformer import TransformerConfig, TransformerLM

    monkeypatch.delenv("COURSE_FAST", raising=False)
    model = TransformerLM(TransformerConfig(vocab_size=12, block_size=8, d_model=16, num_heads=2, num_layers=1, d_ff=32))
    checks.check_char_lm(model, 1.5, 2.4)
    assert "\u2714 CharTransformer: correct (causal" in capsys.readouterr().out
    with pytest.raises(AnswerError, match="learnt little beyond how often each character occurs"):
        checks.check_char_lm(model, 2.2, 2.4)

    class Peeks(torch.nn.Module):  # position t sees the whole window
        block_size = 8

        def __init__(self):
            super().__init__()
            self.embedding, self.head = torch.nn.Embedding(12, 4), torch.nn.Linear(4, 12)

        def forward(self, idx, targets=None):
            return self.head(self.embedding(idx).mean(dim=1, keepdim=True).expand(-1, idx.shape[1], -1)), None

    with pytest.raises(AnswerError, match="sees the future it predicts"):
        checks.check_char_lm(Peeks(), 1.0, 2.4)
    monkeypatch.setenv("COURSE_FAST", "1")
    checks.check_char_lm(model, 2.3, 2.4)  # a shortened training is not judged on how far it learnt
    assert "not judged" in capsys.readouterr().out


def test_a_hidden_case_decides_on_the_exception_type_without_naming_it():
    """In a hidden case the sentence names no exception, but the check still knows that ValueError was raised."""
    right = _solution_sampler()

    def raises_type_error(z, t=1.0, k=None, g=None):
        if t <= 0 or (k is not None and k > z.shape[-1]):
            raise TypeError("bad argument")
        return right(z, t, k, g)

    with hidden_cases():
        sampling.check_sample_next(right, seed=5)
        with pytest.raises(AnswerError, match="raised an exception, not ValueError") as caught:
            sampling.check_sample_next(raises_type_error, seed=5)
    assert "TypeError" not in str(caught.value) and "bad argument" not in str(caught.value)
    with pytest.raises(AnswerError, match=r"raised TypeError at `raise TypeError\(\"bad argument\"\)`, not ValueError"):
        sampling.check_sample_next(raises_type_error, seed=5)
