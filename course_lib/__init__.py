"""course_lib: reference implementations and helpers for "From n-grams to BERT".

One module per concept; later modules import earlier ones.

- ``device``: one ``get_device()`` honouring ``COURSE_DEVICE=cpu|cuda|mps|auto``.
- ``attention``: reference scaled dot-product attention and causal masks.
- ``grading``: answer checks whose messages name the mistake.
- ``checks``: one module of exercise checks per notebook.
- ``viz``: small plotting helpers shared by the notebooks.
"""

__version__ = "0.1.0"
