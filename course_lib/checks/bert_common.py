"""What the checks of notebook 07 (BERT) share: the real all-MiniLM-L6-v2 and its tokenizer (bert-base-uncased's
vocabulary), loaded once, offline; the tokenizer's methods switched off while WordPiece and NSP are graded; and the
standard library's docstrings, the checks' English words and sentences.
"""
from __future__ import annotations

import functools
import re

import course_lib.bert as course_bert
from course_lib.grading.answers import Banned

# ---------------------------------------------------------------------------
# the real model and tokenizer, loaded once


@functools.lru_cache(maxsize=1)
def hf_minilm():
    """(``transformers.BertModel`` of all-MiniLM-L6-v2 in eval mode, its tokenizer), loaded once, offline."""
    return course_bert.load_hf_minilm()


def tokenizer():
    return course_bert.minilm_tokenizer()


@functools.lru_cache(maxsize=1)
def real_vocab() -> frozenset:
    """bert-base-uncased's 30522 WordPieces, as a set of strings."""
    return frozenset(tokenizer().get_vocab())


def tokenizer_bans() -> list[Banned]:
    """The tokenizer's Python methods and the course's loaders: off while WordPiece and NSP are graded."""
    from transformers import PreTrainedTokenizerBase

    tok_class = type(tokenizer())
    bans = [Banned(course_bert, name, f"course_lib.bert.{name}")
            for name in ("minilm_tokenizer", "load_hf_minilm", "load_pretrained_minilm", "load_course_bert",
                         "fill_mask")]
    for owner in {tok_class, PreTrainedTokenizerBase, *tok_class.__mro__[1:3]}:
        for attr in ("__call__", "tokenize", "encode", "encode_plus", "batch_encode_plus", "_tokenize",
                     "build_inputs_with_special_tokens", "create_token_type_ids_from_sequences", "_encode_plus",
                     "_batch_encode_plus", "from_pretrained"):
            if attr in vars(owner):
                bans.append(Banned(owner, attr, f"the tokenizer's {attr}"))
    return bans


#: standard-library modules whose docstrings give the checks English words and sentences (fast: no parsing)
DOC_MODULES = ("collections", "itertools", "functools", "os", "re", "json", "string", "textwrap", "argparse", "pathlib",
               "inspect", "logging", "random", "statistics", "fractions", "decimal", "datetime", "calendar", "heapq",
               "bisect", "shutil", "tempfile", "csv", "difflib", "unittest", "urllib.parse", "email.message",
               "http.client", "threading", "subprocess", "socket", "zipfile", "tarfile", "pickle", "copy", "enum",
               "dataclasses", "abc", "contextlib")


@functools.lru_cache(maxsize=1)
def docstrings() -> tuple[str, ...]:
    """The docstrings of :data:`DOC_MODULES` and of their public members, in a fixed order."""
    import importlib

    docs = []
    for name in DOC_MODULES:
        module = importlib.import_module(name)
        docs.append(module.__doc__ or "")
        for attr in sorted(dir(module)):
            obj = getattr(module, attr, None) if not attr.startswith("_") else None
            doc = getattr(obj, "__doc__", None)
            if isinstance(doc, str) and getattr(obj, "__module__", None) == name:
                docs.append(doc)
    return tuple(docs)


@functools.lru_cache(maxsize=1)
def corpus_words() -> tuple[str, ...]:
    """Every distinct lower-cased alphabetic word of those docstrings (about 3000)."""
    return tuple(sorted({w for doc in docstrings() for w in re.findall(r"[a-z]+", doc.lower())}))
