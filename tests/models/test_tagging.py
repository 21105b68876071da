"""course_lib.tagging: tags from Python's tokenize, padding, and the backward LSTM's reversal within lengths,
checked against hand-tagged lines and PyTorch's packed bidirectional LSTM."""
import pytest
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from course_lib import tagging


def test_tags_of_a_hand_tagged_line():
    source = "def area(self, r):  # doc\n    return math.pi * self.scale(r) ** 2\n"
    lines = tagging.tagged_lines(source)
    assert lines == [
        [("def", "keyword"), ("area", "definition"), ("(", "operator"), ("self", "name"), (",", "operator"),
         ("r", "name"), (")", "operator"), (":", "operator"), ("# doc", "comment")],
        [("return", "keyword"), ("math", "name"), (".", "operator"), ("pi", "attribute"), ("*", "operator"),
         ("self", "name"), (".", "operator"), ("scale", "call"), ("(", "operator"), ("r", "name"),
         (")", "operator"), ("**", "operator"), ("2", "number")],
    ]


def test_strings_classes_and_long_lines():
    lines = tagging.tagged_lines("class A(B):\n    x = 'a' + \"b\"\n" + "y = [" + "1, " * 30 + "]\n", max_len=40)
    assert lines[0][:2] == [("class", "keyword"), ("A", "definition")]
    assert lines[0][3] == ("B", "name")
    assert [tag for _, tag in lines[1]] == ["name", "operator", "string", "operator", "string"]
    assert [len(line) for line in lines[2:]] == [40, 24]  # 64 tokens cut into pieces of at most 40
    assert tagging.tagged_lines("f(1,\n") == []  # tokenize cannot finish an unclosed bracket


def test_split_is_by_file_and_tags_are_known():
    train, valid, train_files, valid_files = tagging.tagging_split(n_train_files=3, n_valid_files=2)
    assert not set(train_files) & set(valid_files)
    assert len(train_files) == 3 and len(valid_files) == 2
    assert {tag for line in train + valid for _, tag in line} <= set(tagging.TAGS)
    assert all(1 <= len(line) <= 40 for line in train + valid)


def test_vocab_pads_and_unknown_shapes():
    vocab = tagging.TokenVocab([["x", "x", "x", "=", "=", "="]], min_count=3)
    assert vocab.itos[0] == "<pad>"
    ids = vocab.encode(["x", "never_seen", "42", "'s'", "# c", "@@"])
    assert ids[0] == vocab.stoi["x"]
    assert [vocab.itos[i] for i in ids[1:]] == ["<name>", "<number>", "<string>", "<comment>", "<other>"]
    padded, lengths = tagging.pad_batch([[5, 6, 7], [8]], pad=0)
    assert padded.tolist() == [[5, 6, 7], [8, 0, 0]] and lengths.tolist() == [3, 1]


def test_baseline_takes_each_tokens_most_frequent_tag():
    train = [[("f", "call"), ("(", "operator")], [("f", "call")], [("f", "name")], [("'a'", "string")]]
    guess = tagging.most_frequent_tag(train)
    assert guess("f") == "call"
    assert guess("'zzz'") == "string"  # unseen: the most frequent tag of its shape


def test_reversal_within_lengths_gives_packed_bidirectional_lstm():
    torch.manual_seed(0)
    B, T, D, H = 3, 6, 4, 5
    x = torch.randn(B, T, D)
    lengths = torch.tensor([6, 2, 4])
    bi = nn.LSTM(D, H, batch_first=True, bidirectional=True)
    packed_out, _ = bi(pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False))
    expected, _ = pad_packed_sequence(packed_out, batch_first=True)  # (B, T, 2H), zeros after each length
    backward = nn.LSTM(D, H, batch_first=True)
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(backward, f"{name}_l0").copy_(getattr(bi, f"{name}_l0_reverse"))
    states, _ = backward(tagging.reverse_within_lengths(x, lengths))
    ours = tagging.reverse_within_lengths(states, lengths)  # (B, T, H)
    real = torch.arange(T)[None] < lengths[:, None]
    assert torch.allclose(ours[real], expected[..., H:][real], atol=1e-6)
    naive, _ = backward(x.flip(1))  # flipping the padded batch starts the backward LSTM on the padding
    assert not torch.allclose(naive.flip(1)[1, :2], expected[1, :2, H:], atol=1e-3)


def test_snippets_are_labelled_windows():
    train, train_labels, valid, valid_labels = tagging.module_snippets(per_module=20, seed=1)
    assert len(train) == len(train_labels) == 6 * 16 and len(valid) == len(valid_labels) == 6 * 4
    assert all(5 <= len(s) <= 40 for s in train + valid)
    assert sorted(set(train_labels)) == list(range(len(tagging.SNIPPET_MODULES)))


def test_a_module_too_short_for_its_windows_is_named():
    with pytest.raises(ValueError, match="the module argparse gives .* tokens .* too few for windows of up to"):
        tagging.module_snippets(modules=("argparse",), per_module=5, max_len=10 ** 6)
