"""course_lib.interpret: the source scanner, the cell states, the correlations and the probe."""
import numpy as np
import pytest
import torch

from course_lib.interpret import best_units, lstm_cell_states, probe_r2, source_features, unit_correlations
from course_lib.lstm import LSTMConfig, LSTMLanguageModel
from course_lib.viz import coloured_text


def _marked(text: str, feature: np.ndarray) -> str:
    """The characters where a 0/1 feature is 1."""
    return "".join(ch for ch, on in zip(text, feature) if on)


def test_strings_and_comments_are_found_exactly():
    text = 'x = "a#b"  # note "q"\ny = \'\'\'doc\n# not a comment\'\'\' + r"\\"" + \'it\\\'s\'\n'
    f = source_features(text)
    assert _marked(text, f["inside a comment"]) == '# note "q"'
    assert _marked(text, f["inside a string"]) == '"a#b"' + "'''doc\n# not a comment'''" + '"\\""' + "'it\\'s'"


def test_unclosed_one_line_string_ends_at_the_newline():
    f = source_features('s = "open\nx = 1\n')
    assert f["inside a string"][:9].tolist() == [0, 0, 0, 0, 1, 1, 1, 1, 1]
    assert f["inside a string"][10:].sum() == 0


def test_indentation_and_position_in_line():
    text = "def f():\n    return 1\nx"
    f = source_features(text)
    line2 = text.index("return")
    assert f["indentation"][line2] == 4 and f["indentation"][0] == 0 and f["indentation"][-1] == 0
    assert f["position in line"][line2] == 4 and f["position in line"][-1] == 0
    assert all(len(v) == len(text) for v in f.values())


def test_cell_states_match_the_models_own_final_state():
    torch.manual_seed(0)
    model = LSTMLanguageModel(LSTMConfig(vocab_size=9, embed_dim=4, hidden_dim=5, num_layers=2)).double()
    ids = torch.randint(9, (17,))
    _, (h_n, c_n) = model.forward_with_state(ids[None])
    for layer in range(2):
        cells = lstm_cell_states(model, ids, layer=layer)
        assert cells.shape == (17, 5)
        torch.testing.assert_close(cells[-1], c_n[layer, 0])
    with pytest.raises(ValueError, match="one sequence"):
        lstm_cell_states(model, ids[None])
    with pytest.raises(ValueError, match="layer must be"):
        lstm_cell_states(model, ids, layer=2)


def test_correlations_equal_numpys_and_best_unit_is_found():
    rng = np.random.default_rng(0)
    feature = rng.normal(size=300)
    states = rng.normal(size=(300, 6))
    states[:, 4] = -2 * feature + 0.1 * rng.normal(size=300)
    r = unit_correlations(states, feature)
    expected = [np.corrcoef(states[:, k], feature)[0, 1] for k in range(6)]
    np.testing.assert_allclose(r, expected, atol=1e-12)
    unit, corr = best_units(states, {"f": feature})["f"]
    assert unit == 4 and corr < -0.99


def test_probe_reads_a_linear_feature_and_not_noise():
    rng = np.random.default_rng(1)
    states = rng.normal(size=(2000, 10))
    linear = states @ rng.normal(size=10)
    assert probe_r2(states, linear) > 0.99
    assert probe_r2(states, rng.normal(size=2000)) < 0.05
    with pytest.raises(ValueError, match="T >= 2 \\* block"):
        probe_r2(states[:100], linear[:100])


def test_coloured_text_has_one_span_per_character():
    out = coloured_text("ab\n<c", [0.0, 1.0, -1.0, 0.5, 0.0], title="unit 3")
    assert out.data.count("<span") == 5 and "&lt;" in out.data and "unit 3" in out.data
    with pytest.raises(ValueError, match="one value per character"):
        coloured_text("abc", [1.0, 2.0])


def test_a_saved_character_lstm_loads_back_the_same(tmp_path):
    from course_lib.interpret import load_char_lstm, save_char_lstm

    torch.manual_seed(0)
    model = LSTMLanguageModel(LSTMConfig(vocab_size=5, embed_dim=4, hidden_dim=6, num_layers=2))
    path = save_char_lstm(model, list("abcde"), tmp_path / "lstm.pt", {"steps": 3})
    loaded, itos, info = load_char_lstm(path)
    ids = torch.tensor([[0, 3, 1, 4, 2]])
    assert itos == list("abcde") and info == {"steps": 3} and not loaded.training
    assert torch.equal(loaded(ids)[0], model.eval()(ids)[0])
    with pytest.raises(ValueError, match="vocabulary"):
        save_char_lstm(model, list("abc"), tmp_path / "short.pt")
    with pytest.raises(FileNotFoundError, match="train_char_lstm.py"):
        load_char_lstm(tmp_path / "missing.pt")


def test_the_shipped_character_lstms_are_what_their_script_measured():
    """Both checkpoints load from the package, and score on notebook 04's validation text what
    benchmarks/results/char_lstm.json says (the shipped model better than 300 steps of the notebook's)."""
    import json
    import math
    from pathlib import Path

    from course_lib import data
    from course_lib.interpret import CHAR_LSTM_PATH, STACKED_CHAR_LSTM_PATH, load_char_lstm
    from course_lib.train import evaluate

    measured = json.loads((Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "char_lstm.json").read_text())
    text = data.stdlib_source_text(max_chars=400_000, seed=0)  # notebook 04's corpus, section 5
    itos, stoi = data.char_vocab(text)
    ids = torch.tensor([stoi[ch] for ch in text])
    valid_ids = ids[int(0.9 * len(ids)):]
    n = (len(valid_ids) - 1) // 128 * 128
    valid = [(valid_ids[:n].reshape(-1, 128)[:64], valid_ids[1:n + 1].reshape(-1, 128)[:64])]
    model, shipped_itos, info = load_char_lstm(CHAR_LSTM_PATH)
    assert shipped_itos == itos
    loss = evaluate(model, valid)["loss"]
    assert math.isclose(loss, measured["shipped"]["valid_loss"], abs_tol=2e-3), loss
    assert loss < measured["notebook"]["valid_loss"] < measured["untrained"]["valid_loss"]
    stacked, _, stacked_info = load_char_lstm(STACKED_CHAR_LSTM_PATH)
    assert stacked.config.num_layers == 3 and [row["layers"] for row in stacked_info["depth"]] == [1, 2, 3]
