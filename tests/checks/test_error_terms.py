"""A runtime error of the student's code is said where it happened and why, in the student's terms.

Each case runs code a student could write, so the message is PyTorch's own (of the installed version), and
checks what the feedback makes of it, through call_answer as a check would call the student's function.
"""
import pytest
import torch

from course_lib.grading.error_terms import error_in_terms, student_line
from course_lib.grading.answers import AnswerError, call_answer, hidden_cases
from notebook_runner import compile_cell

STUDENT = '''
import torch

def softmax(x, dim=-1):
    e = (x - x.max(dim=dim).values).exp()
    return e / e.sum(dim=dim, keepdim=True)

def windows(idx):
    return idx.view(5, 20)

def project(x, W):
    return x @ W

def pick(x):
    return x[:, 5]

def squash(h):
    if h > 0:
        return h
    return -h

def mixed(x):
    return x + torch.ones(3).to("meta")

def mean_over(x):
    return x.mean(dim=3)

def forgot_return(x):
    y = x * 2

def use_forgotten(x):
    return forgot_return(x)[0]

def lookup(counts, word):
    return counts[word] / sum(counts.values())
'''


@pytest.fixture(scope="module")
def student():
    namespace = {}
    exec(compile_cell(STUDENT), namespace)  # noqa: S102 (a student's cell, compiled as IPython does)
    return namespace


def failure(student, name, *args):
    with pytest.raises(AnswerError) as caught:
        call_answer(name, student[name], *args)
    return caught.value.message


@pytest.mark.parametrize("name,args,line,meaning", [
    ("softmax", (torch.randn(3, 4),), "e = (x - x.max(dim=dim).values).exp()",
     "Two tensors whose sizes do not line up: 4 against 3 along dimension 1. A reduction that drops its axis"),
    ("windows", (torch.zeros(5, 3, 4),), "return idx.view(5, 20)",
     "A reshape to (5, 20) needs 100 entries, but the tensor has 60: a size in it is fixed or read from the wrong axis"),
    ("project", (torch.randn(5, 3), torch.randn(4, 6)), "return x @ W",
     "A matrix product of a (5, 3) by a (4, 6): the inner sizes 3 and 4 must be equal. Look at where each"),
    ("pick", (torch.randn(2, 5),), "return x[:, 5]",
     "Index 5 along dimension 1, which has 5 entries (0 to 4): off by one"),
    ("squash", (torch.randn(3),), "if h > 0:",
     "`if`, `and`, `or` or `not` on a tensor of several values: use `.any()` or `.all()`"),
    ("mean_over", (torch.randn(2, 3),), "return x.mean(dim=3)",
     "Dim 3 of a tensor with 2 dimensions (dims -2 to 1)"),
    ("use_forgotten", (torch.randn(2),), "return forgot_return(x)[0]",
     "A value is None: a function that ends without `return` gives None"),
    ("lookup", ({"the": 2}, "cat"), "return counts[word] / sum(counts.values())",
     "A lookup of a key the dictionary does not have"),
], ids=["broadcast", "reshape", "matmul", "index", "ambiguous_if", "dim", "none", "key"])
def test_the_line_and_what_the_message_means(student, name, args, line, meaning):
    message = failure(student, name, *args)
    assert f" at `{line}`: «" in message, message
    assert meaning in message, message


def test_an_error_nobody_translated_still_gets_the_line_and_the_message(student):
    message = failure(student, "mixed", torch.randn(3))
    assert 'at `return x + torch.ones(3).to("meta")`: «' in message
    assert "«" in message


def test_a_hidden_case_says_neither_the_line_nor_the_meaning(student):
    with hidden_cases(), pytest.raises(AnswerError) as caught:
        call_answer("windows", student["windows"], torch.zeros(5, 3, 4))
    assert caught.value.message == "raised an exception."


def test_the_line_is_the_students_not_the_librarys():
    """An error raised inside torch (F.softmax given a bad dim) is placed at the student's call of it."""
    namespace = {}
    exec(compile_cell("import torch\ndef f(x):\n    return torch.softmax(x, dim=2)\n"), namespace)  # noqa: S102 (a student's cell, compiled as IPython does)
    try:
        namespace["f"](torch.randn(3))
    except IndexError as err:
        assert student_line(err) == "return torch.softmax(x, dim=2)"
    else:
        raise AssertionError("softmax over dim 2 of a vector must raise")


def test_unknown_messages_are_not_translated():
    assert error_in_terms("RuntimeError", "something nobody has seen") is None
    assert error_in_terms("ZeroDivisionError", "division by zero").startswith("a division by zero")
