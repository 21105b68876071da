"""The five lecture decks the course teaches from, by the name a student knows them by.

The notebooks and the checks cite a deck by its title (e.g. the lecture "LSTMs & Transformers"),
never by the number of its file: a "seed" numbered 002 next to ``torch.manual_seed(0)`` reads like a
random seed.
This table is the one place that says which title belongs to which deck file;
``tests/notebooks/test_deck_titles.py`` holds every lecture the prose and the checks cite to it.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Deck:
    file: str      # the deck's text, as the course's authors received it
    title: str     # what the prose calls it: the lecture "<title>"
    teaches: str   # what the course takes from it (one line)


DECKS = {
    "000": Deck("000_086de4ea4cad6c44.txt", "Neural Network Language Models & BERT",
                "n-grams, the FFNN and RNN LMs, clipping, the forget-gate example, 'Computers are thinking "
                "machines', Transformer-XL, BERT"),
    "001": Deck("001_34b2ce85d8062a87.txt", "Machine Learning, Big Data and AI: Block 6",
                "embeddings, the RNN equations, LSTM gates, multi-head attention, positional encoding, "
                "add & normalize, training and using BERT"),
    "002": Deck("002_0ac0f8dca0fcfff1.txt", "LSTMs & Transformers",
                "BPTT, the LSTM equations, interpretable cells, Bi-LSTM and ELMo, score functions, 'The brown "
                "dog ran', the complexity table, 80/10/10 masking, WordPiece, which layers to combine"),
    "003": Deck("003_ecead7175141147c.txt", "Pre-trained NLP Model: BERT",
                "sinusoidal positions, 'bank' in context, MLM and NSP, four ways to use BERT, BERT-base and "
                "BERT-large sizes, ALBERT and DistilBERT"),
    "004": Deck("004_fca88c04bf764319.txt", "BERT and Other Language Models",
                "contextual embeddings, ELMo, masked self-attention ('I am space invader'), 80/10/10 masking, "
                "RoBERTa, ALBERT's factorised embeddings"),
}


def lecture(deck_id: str) -> str:
    """How the prose cites a deck: 'the lecture "LSTMs & Transformers"'."""
    return f'the lecture "{DECKS[deck_id].title}"'
