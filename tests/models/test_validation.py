"""course_lib.validation: each kind of check answers a wrong input with one sentence, a model checks its inputs
once (not again in each layer), and the token range costs one read, made only on the CPU."""
import sys

import pytest
import torch

from course_lib.bert import BertConfig, BertModel
from course_lib.ffnn import FFNNConfig, FFNNLanguageModel
from course_lib.lstm import LSTMConfig, LSTMLanguageModel
from course_lib.rnn import RNNConfig, RNNLanguageModel
from course_lib.transformer import TransformerConfig, TransformerLM
from course_lib.validation import (inputs_checked, require, require_float_tensor, require_padding_mask,
                                   require_sequence_ids, require_shape, require_token_ids, require_tuple, require_types)

READS = ("tolist", "item", "__int__", "__bool__", "__float__", "__index__")  # what copies a value to the host


@pytest.fixture
def host_reads(monkeypatch):
    """The number of times a tensor's value was read into Python while the test ran."""
    calls = []
    for name in READS:
        original = getattr(torch.Tensor, name)

        def counted(self, *args, _original=original, **kwargs):
            calls.append(name)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(torch.Tensor, name, counted)
    return calls


def test_the_token_range_is_one_read(host_reads):
    ids = torch.randint(0, 11, (4, 7))
    require_token_ids("idx", ids, 11)
    require_sequence_ids("idx", ids, 11, ids.device, 8)
    assert len(host_reads) == 2  # one per call


@pytest.mark.parametrize("model", [
    lambda: RNNLanguageModel(RNNConfig(11, 4, 6)),
    lambda: LSTMLanguageModel(LSTMConfig(11, 4, 6)),
    lambda: TransformerLM(TransformerConfig(11, 8, d_model=8, num_heads=2, num_layers=1, d_ff=16)),
    lambda: FFNNLanguageModel(FFNNConfig(11, context_size=7)),
])
def test_a_language_model_reads_its_ids_once(model, host_reads):
    built = model()
    host_reads.clear()
    built(torch.randint(0, 11, (4, 7)))
    assert len(host_reads) == 1


def test_bert_reads_ids_segments_and_mask_once_each(host_reads):
    model = BertModel(BertConfig(vocab_size=11, hidden_size=8, num_layers=1, num_heads=2, intermediate_size=16,
                                 max_position=8))
    ids = torch.randint(0, 11, (2, 5))
    host_reads.clear()
    model(ids, torch.zeros_like(ids), torch.ones_like(ids))
    assert len(host_reads) == 3


@pytest.mark.parametrize("call,error,sentence", [
    (lambda: require_float_tensor("x", torch.ones(2, 5, 7), "(batch, time, input_size)", (None, None, 8)),
     ValueError, r"x must have shape (batch, time, input_size) = (*, *, 8), got (2, 5, 7)."),
    (lambda: require_float_tensor("x", torch.ones(2, 5, 8), "(B, T, D)", like={"U": torch.ones(3, 8).double()}),
     TypeError, "x has dtype torch.float32 but U has torch.float64; convert them to one dtype, e.g. "
                "x.to(torch.float64)."),
    (lambda: require_shape("labels", torch.ones(1), "(batch,)", (2,)), ValueError,
     "labels must have shape (batch,) = (2,), got (1,)."),
    (lambda: require_token_ids("idx", torch.tensor([3, -1, 12]), 11), ValueError,
     "idx: token ids must lie in [0, 11), got values from -1 to 12; encode the text with the model's own vocabulary."),
    (lambda: require_sequence_ids("idx", torch.zeros(2, 9, dtype=torch.long), 11, torch.device("cpu"), 8), ValueError,
     "idx must be token ids of shape (batch, T) with 1 <= T <= block_size=8, got shape (2, 9); crop longer inputs "
     "to their last block_size tokens."),
    (lambda: require_tuple("state", [torch.ones(1)], 2, "a pair (h0, c0) or None"), TypeError,
     "state must be a pair (h0, c0) or None, got list of length 1."),
    (lambda: require_types("load_from_torch", (torch.nn.Embedding(2, 2), torch.nn.GRU(2, 2)),
                           (torch.nn.Embedding, torch.nn.RNN)), TypeError,
     "load_from_torch takes (nn.Embedding, nn.RNN), got (Embedding, GRU)."),
])
def test_each_kind_of_check_says_what_was_expected(call, error, sentence):
    with pytest.raises(error) as raised:
        call()
    assert str(raised.value) == sentence


def test_ids_and_masks_off_the_cpu_are_not_read(host_reads):
    ids = torch.zeros(2, 3, dtype=torch.long, device="meta")  # a device whose values cannot be read at all
    require_token_ids("idx", ids, 11)
    require_sequence_ids("idx", ids, 11, ids.device)
    require_padding_mask("attention_mask", torch.ones_like(ids), "input_ids", ids)
    assert host_reads == []


def test_inside_inputs_checked_the_helpers_skip():
    with inputs_checked():
        require(False, "not raised: the caller has checked")
        require_float_tensor("x", "not a tensor", "(B, T, D)")
    with pytest.raises(ValueError, match="raised again"):
        require(False, "raised again once the block is left")


def _helper_calls(model, *args) -> int:
    """How many checks of course_lib.validation ran during one call of the model."""
    calls = []

    def profile(frame, event, arg):
        code = frame.f_code
        if event == "call" and code.co_filename.endswith("validation.py") and code.co_name != "unless_checked":
            calls.append(code.co_name)

    sys.setprofile(profile)
    try:
        model(*args)
    finally:
        sys.setprofile(None)
    return len(calls)


@pytest.mark.parametrize("build", [
    lambda layers: RNNLanguageModel(RNNConfig(11, 4, 6, num_layers=layers)),
    lambda layers: LSTMLanguageModel(LSTMConfig(11, 4, 6, num_layers=layers)),
    lambda layers: TransformerLM(TransformerConfig(11, 8, d_model=8, num_heads=2, num_layers=layers, d_ff=16)),
    lambda layers: BertModel(BertConfig(vocab_size=11, hidden_size=8, num_layers=layers, num_heads=2,
                                        intermediate_size=16, max_position=8)),
])
def test_a_model_checks_its_inputs_once_however_deep(build):
    ids = torch.randint(0, 11, (2, 5))
    assert _helper_calls(build(1), ids) == _helper_calls(build(4), ids) > 0
