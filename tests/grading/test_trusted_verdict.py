"""The verdict is computed in the grader: plain data out of the kernel, checks run here, cells repaired.

The kernel is stood in for by a namespace in this process (``InProcessKernel``), or by a kernel that
lies (``LyingKernel``): whatever it sends back, only data of the agreed form is accepted, and the
check, not the kernel, decides.
"""
from __future__ import annotations

import copy
import json
import math
import subprocess
import sys
from collections import Counter
from unittest import mock

import nbformat
import pytest
import torch

from autograder import cell_repair, verdict
from autograder.grade import read_submission
from autograder.worker import grader_only_config
from course_lib.grading import answer_wire, remote_answer
from course_lib.grading import answers as grading
from course_lib.grading.answer_wire import WireError, encode, read_reply
from notebook_runner import REPO, SolutionKernel, grade_ids

SELF_ATTENTION = "course_lib.checks.self_attention"


class InProcessKernel(remote_answer.Channel):
    """A student's kernel played by a namespace of this process: the kernel's end runs here, on ``ns``."""

    def __init__(self, ns: dict):
        super().__init__()
        self.ns, self.requests = ns, []

    def send(self, entry: str, argument: str) -> str:
        self.requests.append((entry, len(argument)))
        published = []
        with mock.patch.object(remote_answer, "_user_namespace", lambda: self.ns), \
                mock.patch.object(remote_answer, "_publish", lambda reply: published.append(json.dumps(encode(reply)))):
            getattr(remote_answer, entry)(argument)
        return published[-1]


class LyingKernel(remote_answer.Channel):
    """A hostile kernel: says every name is a function, and answers every call with ``reply``."""

    def __init__(self, reply: str):
        super().__init__()
        self.reply = reply

    def send(self, entry: str, argument: str) -> str:
        if entry == "describe_names":
            return json.dumps(encode({n: {"kind": "callable", "class": False} for n in argument.split(",")}))
        return self.reply


def outputs_text(outputs) -> tuple[str, str]:
    printed = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    errors = " ".join(o.traceback[0] for o in outputs if o.output_type == "error")
    return printed, errors


@pytest.fixture(scope="module")
def solution05():
    return SolutionKernel("05_self_attention").ns


# ---------------------------------------------------------------------------
# plain data


def test_plain_data_round_trips():
    values = [None, True, 3, -2**70, 1.5, math.inf, "text", (1, "a"), [1, [2, 3]], {("a", "b"): 2, 3: "x"},
              Counter({("the", "cat"): 4}), torch.float64, torch.device("cpu")]
    for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int8, torch.uint8,
                  torch.bool):
        values.append((torch.arange(12).reshape(3, 4) % 3).to(dtype))
    for value in values:
        back = read_reply(json.dumps(encode(value)))
        if isinstance(value, torch.Tensor):
            assert back.dtype == value.dtype and torch.equal(back, value), value.dtype
        else:
            assert back == value and type(back) is type(value), value
    nan = read_reply(json.dumps(encode(float("nan"))))
    assert math.isnan(nan)
    grad = torch.ones(2, requires_grad=True)
    assert read_reply(json.dumps(encode(grad))).requires_grad


def test_anything_else_travels_as_its_type_name_only():
    class Sneaky:
        def __eq__(self, other):
            return True

    back = read_reply(json.dumps(encode(Sneaky())))
    assert isinstance(back, answer_wire.Opaque) and type(back).__name__ == "Sneaky"
    assert back != 1 and back != back.__class__()  # plain object identity: it claims nothing


class ClaimsEquality(torch.Tensor):
    def __eq__(self, other):
        return True


def test_a_tensor_subclass_arrives_as_a_plain_tensor():
    value = torch.zeros(3).as_subclass(ClaimsEquality)
    back = read_reply(json.dumps(encode(value)))
    assert type(back) is torch.Tensor and torch.equal(back, torch.zeros(3))


@pytest.mark.parametrize("reply", [
    '{"__tensor__": {"dtype": "float32", "shape": [4], "data": "AAAA"}}',          # 3 bytes for 4 floats
    '{"__tensor__": {"dtype": "object", "shape": [1], "data": ""}}',               # no such dtype
    '{"__tensor__": {"dtype": "float32", "shape": [-1], "data": ""}}',
    '{"__pickle__": "gASVAAAAAAAAAAAu"}',                                          # not a form of plain data
    '{"__dict__": [[[1], 2]]}',                                                     # an unhashable key
    '{"__float__": "1e400"}',
    "[" * 5000 + "]" * 5000,                                                        # nesting
    "not json",
])
def test_what_is_not_plain_data_is_refused(reply):
    with pytest.raises(WireError):
        read_reply(reply)


def test_a_reply_too_large_is_refused():
    with pytest.raises(WireError, match="size"):
        read_reply(" " * (answer_wire.MAX_REPLY_CHARS + 1))


# ---------------------------------------------------------------------------
# test cells run here, the student's functions there


def test_a_correct_answer_passes_and_a_wrong_one_is_named(solution05):
    printed, errors = outputs_text(verdict.run_test_cell("checks.check_softmax(softmax)", SELF_ATTENTION,
                                                         InProcessKernel(solution05)))
    assert "✔ softmax: correct" in printed and not errors
    wrong = {**solution05, "softmax": lambda x, dim=-1: torch.exp(x) / torch.exp(x).sum()}  # sums over everything
    printed, errors = outputs_text(verdict.run_test_cell("checks.check_softmax(softmax)", SELF_ATTENTION,
                                                         InProcessKernel(wrong)))
    assert "✘" in errors and "softmax" in errors and "✔" not in printed


def test_a_missing_answer_and_a_blank_stub(solution05):
    ns = {k: v for k, v in solution05.items() if k != "softmax"}
    _, errors = outputs_text(verdict.run_test_cell("checks.check_softmax(softmax)", SELF_ATTENTION, InProcessKernel(ns)))
    assert "softmax is not defined yet" in errors

    def stub(x, dim=-1):
        raise NotImplementedError()

    _, errors = outputs_text(verdict.run_test_cell("checks.check_softmax(softmax)", SELF_ATTENTION,
                                                   InProcessKernel({**ns, "softmax": stub})))
    assert "not implemented yet" in errors


def test_values_the_notebook_defines_come_back_as_data(solution05):
    source = 'checks.check_machines_step("z", z_machines, exact=True)'
    printed, errors = outputs_text(verdict.run_test_cell(source, SELF_ATTENTION, InProcessKernel(solution05)))
    assert "✔" in printed and not errors
    ns = {**solution05, "z_machines": torch.zeros(2).as_subclass(ClaimsEquality)}
    printed, errors = outputs_text(verdict.run_test_cell(source, SELF_ATTENTION, InProcessKernel(ns)))
    assert errors and "✔" not in printed


@pytest.mark.parametrize("reply", [
    '"✔ softmax: correct."',                                             # a string for a tensor
    json.dumps(encode([{"value": "✔", "changed": []}])),                  # the wrong type of value
    json.dumps(encode([{"value": torch.zeros(2, 3), "changed": []}])),    # the wrong shape
    json.dumps(encode([{"value": torch.zeros(1), "changed": [], "extra": 1}] * 40)),  # too many results
    "{not json",
    json.dumps(encode([{"changed": []}])),                                 # no value
])
def test_a_lying_kernel_earns_nothing(reply):
    printed, errors = outputs_text(verdict.run_test_cell("checks.check_softmax(softmax)", SELF_ATTENTION,
                                                         LyingKernel(reply)))
    assert errors and "✔" not in printed


def test_only_modules_of_checks_run_as_checks():
    with pytest.raises(ValueError):
        verdict.run_test_cell("pass", "os", LyingKernel(""))


def test_large_arguments_reach_the_kernel_once(solution05):
    kernel = InProcessKernel(solution05)
    big = torch.randn(128, 256)  # 32768 elements: sent by digest after the first time
    for _ in range(2):
        remote_answer.call_in_kernel(kernel, "softmax", remote_answer.KernelName("softmax", kernel),
                                     [((big,), {"dim": -1})], banned=[], reason="", substitutes=None)
    first, second = kernel.requests[-2][1], kernel.requests[-1][1]
    assert second < first / 10, (first, second)


@pytest.fixture(scope="module")
def solution03():
    return SolutionKernel("03_rnn_vanishing").ns


def test_changes_made_in_place_come_back(solution03):
    """clip_grad_norm rescales .grad in place, and one case passes the parameters as a generator."""
    printed, errors = outputs_text(verdict.run_test_cell("checks.check_clip_grad_norm(clip_grad_norm)",
                                                         "course_lib.checks.rnn", InProcessKernel(solution03)))
    assert "✔" in printed and not errors, errors
    forgets = {**solution03, "clip_grad_norm": lambda parameters, max_norm: 1.0}
    _, errors = outputs_text(verdict.run_test_cell("checks.check_clip_grad_norm(clip_grad_norm)",
                                                   "course_lib.checks.rnn", InProcessKernel(forgets)))
    assert errors


def test_a_module_class_is_checked_where_it_lives():
    ns = SolutionKernel("06_transformer").ns
    printed, errors = outputs_text(verdict.run_test_cell("checks.check_mha_module(MultiHeadAttention)",
                                                         "course_lib.checks.transformer", InProcessKernel(ns)))
    assert "✔" in printed and not errors, errors

    class IgnoresValue(ns["MultiHeadAttention"]):  # attends over the keys' projections of the keys
        def forward(self, query, key, value, mask=None):
            return super().forward(query, key, key, mask)

    _, errors = outputs_text(verdict.run_test_cell("checks.check_mha_module(MultiHeadAttention)",
                                                   "course_lib.checks.transformer",
                                                   InProcessKernel({**ns, "MultiHeadAttention": IgnoresValue})))
    assert "cross" in errors, errors


# ---------------------------------------------------------------------------
# cells the student copied, deleted, retyped or re-tagged


@pytest.fixture(scope="module")
def release05():
    return nbformat.read(REPO / "notebooks" / "05_self_attention.ipynb", as_version=4)


def test_cells_are_put_back_as_released(release05):
    nb = copy.deepcopy(release05)
    cells = grade_ids(nb)
    nb.cells.append(copy.deepcopy(cells["check_softmax"]))                  # a test cell pasted twice
    nb.cells.append(copy.deepcopy(cells["softmax"]))                        # an answer cell pasted twice
    cells["check_attention_scores"].metadata["nbgrader"]["grade"] = False   # re-tagged
    brown = cells["check_brown_dog"]
    nb.cells[nb.cells.index(brown)] = nbformat.v4.new_markdown_cell(brown.source, metadata=brown.metadata)  # retyped
    nb.cells.remove(cells["check_causal_mask"])                             # deleted
    stray = nbformat.v4.new_code_cell("x = 1", metadata={"nbgrader": {"grade_id": "mine", "grade": True, "points": 9}})
    nb.cells.append(stray)                                                  # a graded cell of the student's own
    notes = cell_repair.repair(nb, release05)
    repaired = [c for c in nb.cells if "nbgrader" in c.metadata]
    released = [c for c in release05.cells if "nbgrader" in c.metadata]
    assert [c.metadata.nbgrader["grade_id"] for c in repaired] == [c.metadata.nbgrader["grade_id"] for c in released]
    assert all(a.metadata.nbgrader == b.metadata.nbgrader and a.cell_type == b.cell_type
               for a, b in zip(repaired, released))
    assert len(notes) == 4, notes
    assert any("copy of the check cell check_softmax was ignored" in n for n in notes)
    assert any("check_causal_mask was missing" in n for n in notes)
    assert "nbgrader" not in stray.metadata


def test_pasted_cells_keep_their_place_in_grading(tmp_path, release05):
    nb = copy.deepcopy(release05)
    nb.cells.append(copy.deepcopy(grade_ids(nb)["softmax"]))  # same cell id twice, as a JupyterLab paste can make
    path = tmp_path / "pasted.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    graded, problem = read_submission(path)
    assert graded is not None and problem == ""
    assert len({c.id for c in graded.cells}) == len(graded.cells)


def test_the_checks_module_and_the_test_sources_come_from_the_notebooks(release05):
    assert verdict.checks_module_of(release05) == SELF_ATTENTION
    source = nbformat.read(REPO / "solutions" / "05_self_attention.ipynb", as_version=4)
    tests = verdict.test_sources(source)
    assert set(tests) == {gid for gid, c in grade_ids(release05).items() if c.cell_type == "code"
                          and c.metadata.nbgrader.get("grade") and not c.metadata.nbgrader.get("solution")}
    assert all("BEGIN HIDDEN TESTS" in text for text in tests.values())  # the instructors' version


# ---------------------------------------------------------------------------
# configuration a student could have written is never read


def test_a_planted_configuration_does_not_run(tmp_path, monkeypatch):
    home, marker = tmp_path / "home", tmp_path / "ran.txt"
    for folder in (home / ".jupyter", home / ".ipython" / "profile_default" / "startup"):
        folder.mkdir(parents=True)
    plant = f"open({str(marker)!r}, 'w').write('ran')\n"
    (home / ".jupyter" / "nbgrader_config.py").write_text(plant)
    (home / ".jupyter" / "jupyter_config.py").write_text(plant)
    (home / ".ipython" / "profile_default" / "startup" / "00-plant.py").write_text(plant)
    monkeypatch.setenv("HOME", str(home))
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "IPYTHONDIR"):
        monkeypatch.delenv(name, raising=False)
    probe = [sys.executable, "-m", "nbgrader", "db", "student", "list"]  # an nbgrader app loads its configuration
    subprocess.run(probe, capture_output=True, timeout=120, cwd=tmp_path)
    assert marker.exists(), "the plant must run without the grader's settings, or this test proves nothing"
    marker.unlink()
    with grader_only_config(tmp_path / "settings"):
        subprocess.run(probe, capture_output=True, timeout=120, cwd=tmp_path)
        subprocess.run([sys.executable, "-c", "import IPython; IPython.start_ipython(argv=['-c', 'pass'])"],
                       capture_output=True, timeout=120)
    assert not marker.exists()


def test_a_loop_of_calls_raises_its_first_mistake_in_one_trip():
    seen = []

    def answer(x):
        seen.append(x)
        if x == 2:
            raise NotImplementedError()
        if x == 3:
            raise ValueError("three")
        return 10 * x

    assert grading.call_answer_all("answer", answer, [((1,), {}), ((4,), {})]) == [10, 40]
    with pytest.raises(grading.AnswerError, match="not implemented yet"):
        grading.call_answer_all("answer", answer, [((1,), {}), ((2,), {}), ((3,), {})])
    with pytest.raises(grading.AnswerError, match="raised ValueError at `raise ValueError\\(\"three\"\\)`: «three»"):
        grading.call_answer_all("answer", answer, [((3,), {}), ((2,), {})])


@pytest.fixture(scope="module")
def solution01():
    return SolutionKernel("01_ngrams").ns


def test_a_check_of_hundreds_of_cases_is_one_trip_to_the_kernel(solution01):
    kernel = InProcessKernel(solution01)
    printed, errors = outputs_text(verdict.run_test_cell("checks.check_ngram_prob(ngram_prob, n=2)",
                                                         "course_lib.checks.ngrams", kernel))
    assert "✔ ngram_prob: correct (144 (context, word) pairs" in printed and not errors
    # one trip for the 144 pairs, one for the calls without vocab_size: two, not one per pair
    assert [entry for entry, _ in kernel.requests].count("serve") == 2
    wrong = {**solution01, "ngram_prob": lambda gn, gm, context, word, k=0.0, vocab_size=None:
             solution01["ngram_prob"](gn, gm, context, word, k, vocab_size) * (0.5 if word == "</s>" else 1.0)}
    kernel = InProcessKernel(wrong)
    _, errors = outputs_text(verdict.run_test_cell("checks.check_ngram_prob(ngram_prob, n=2)",
                                                   "course_lib.checks.ngrams", kernel))
    assert "✘" in errors and "ngram_prob" in errors
    assert [entry for entry, _ in kernel.requests].count("serve") <= 2  # the table, then perhaps one probe
