"""bertviz's attention views, working offline, with a static picture where scripts cannot run.

bertviz's ``head_view`` and ``model_view`` draw every head's attention interactively, but their
HTML loads require.js, d3 and jQuery from a CDN, so on a laptop without a network (or in a class
behind a firewall) they show nothing. :func:`head_view` and :func:`model_view` here take the same
attention, ask bertviz for its HTML, and return it with d3 and jQuery inlined from
``course_lib/assets/js`` (the npm packages' own files) and a tiny stand-in for require.js, so
nothing is fetched.

Under the interactive view lies a static picture of the same weights (a PNG mosaic: layers down,
heads across), which the view's script removes once it has drawn. Where scripts do not run (a
notebook opened but not run, so JupyterLab does not trust its output; a notebook viewer on the
web), the picture is what the reader sees.
"""
from __future__ import annotations

import base64
import functools
import io
import json
import re
import uuid
from pathlib import Path
from typing import Sequence

import torch

JS_DIR = Path(__file__).parent / "assets" / "js"
LIBRARIES = ("d3-5.7.0.min.js", "jquery-3.7.1.min.js")

__all__ = ["head_view", "model_view", "attention_mosaic_png", "offline_html"]


@functools.lru_cache(maxsize=1)
def _libraries() -> str:
    """d3 and jQuery, each run with no module system in sight, so that each sets its global."""
    parts = []
    for name in LIBRARIES:
        code = (JS_DIR / name).read_text(encoding="utf-8")
        parts.append(f"(function (define, module, exports) {{\n{code}\n}}).call(window);")
    return "\n".join(parts)


def _as_layers(attention, tokens: Sequence[str]) -> torch.Tensor:
    """Check the weights and return them as one (layers, heads, T, T) float tensor on the CPU."""
    if isinstance(attention, (tuple, list)):
        if not attention or not all(isinstance(a, torch.Tensor) for a in attention):
            raise TypeError("attention must be a (layers, heads, T, T) tensor or a tuple of (1, heads, T, T) "
                            "tensors, one per layer (what a Hugging Face model returns with output_attentions=True).")
        attention = torch.cat([a if a.dim() == 4 else a[None] for a in attention])
    if not isinstance(attention, torch.Tensor):
        raise TypeError(f"attention must be a torch.Tensor, got {type(attention).__name__}.")
    if attention.dim() != 4 or attention.shape[-1] != attention.shape[-2]:
        raise ValueError(f"attention must have shape (layers, heads, T, T), got {tuple(attention.shape)}.")
    if len(tokens) != attention.shape[-1]:
        raise ValueError(f"there are {len(tokens)} tokens but the attention covers T = {attention.shape[-1]} "
                         "positions.")
    return attention.detach().float().cpu()


def attention_mosaic_png(attention: torch.Tensor, gap: int = 2, pixels_per_cell: int = 4) -> bytes:
    """A PNG of every head's weights, layers down and heads across, white gaps between them (dark = high)."""
    import matplotlib.pyplot as plt

    layers, heads, T, _ = attention.shape
    step = T + gap
    mosaic = torch.full((layers * step - gap, heads * step - gap), float("nan"))
    for layer in range(layers):
        for head in range(heads):
            mosaic[layer * step:layer * step + T, head * step:head * step + T] = attention[layer, head]
    cmap = plt.get_cmap("Blues").with_extremes(bad="white")
    rgba = cmap(mosaic.numpy() / max(float(attention.max()), 1e-9))
    buffer = io.BytesIO()
    big = torch.from_numpy(rgba).repeat_interleave(pixels_per_cell, 0).repeat_interleave(pixels_per_cell, 1)
    plt.imsave(buffer, big.numpy(), format="png")
    return buffer.getvalue()


def offline_html(bertviz_html: str, fallback_png: bytes, caption: str) -> str:
    """bertviz's HTML with its CDN loads replaced by inlined libraries, over a static fallback picture."""
    fallback_id = f"course-fallback-{uuid.uuid4().hex}"
    html = re.sub(r'<script src="https://[^"]*require[^"]*"></script>', "", bertviz_html)
    script_start = html.index('<script type="text/javascript">') + len('<script type="text/javascript">')
    script_end = html.rindex("</script>")
    view_js = html[script_start:script_end]
    wrapped = (
        "(function () {\n"
        f"{_libraries()}\n"
        "var $ = window.jQuery.noConflict(true), d3 = window.d3;\n"
        "var require = {config: function () {}};\n"
        "var requirejs = function (names, run) { run($, d3); };\n"
        f"{view_js}\n"
        f"var fallback = document.getElementById({json.dumps(fallback_id)}); if (fallback) fallback.remove();\n"
        "})();\n"
    )
    picture = base64.b64encode(fallback_png).decode("ascii")
    fallback = (f'<div id="{fallback_id}" style="font-family:sans-serif;font-size:13px;color:#444">'
                f"<p>{caption} (a static picture: run the cell to get the interactive view)</p>"
                f'<img src="data:image/png;base64,{picture}" style="max-width:100%;image-rendering:pixelated"></div>')
    return fallback + html[:script_start] + wrapped + html[script_end:]


def _view(kind: str, attention, tokens: Sequence[str], **options):
    from IPython.display import HTML

    weights = _as_layers(attention, tokens)  # (layers, heads, T, T)
    layers, heads = weights.shape[:2]
    caption = f"attention of {layers} layers (down) x {heads} heads (across), {len(tokens)} tokens"
    png = attention_mosaic_png(weights)
    try:
        import bertviz
    except ImportError as error:  # the picture alone
        picture = base64.b64encode(png).decode("ascii")
        return HTML(f"<p>bertviz is not installed ({error}); {caption}:</p>"
                    f'<img src="data:image/png;base64,{picture}" style="max-width:100%">')
    as_bertviz = tuple(layer[None] for layer in weights)  # bertviz wants one (1, heads, T, T) per layer
    view = getattr(bertviz, kind)(as_bertviz, list(tokens), html_action="return", **options)
    return HTML(offline_html(view.data, png, caption))


def head_view(attention, tokens: Sequence[str], **options):
    """bertviz's head view (one layer at a time, lines from each token to the ones it attends to), offline.

    ``attention``: (layers, heads, T, T) weights, or the tuple of (1, heads, T, T) a Hugging Face
    model returns; ``tokens``: the T token strings. Other keywords go to ``bertviz.head_view``.
    """
    return _view("head_view", attention, tokens, **options)


def model_view(attention, tokens: Sequence[str], **options):
    """bertviz's model view (a thumbnail per layer and head; click one to enlarge it), offline."""
    return _view("model_view", attention, tokens, **options)
