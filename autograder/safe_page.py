"""A feedback page that runs nothing the student wrote: outputs and Markdown cleaned, and a strict policy.

The page shows the student's own cells as their kernel ran them, and what a kernel outputs can be any
MIME type, any HTML, any metadata. Before nbgrader renders the notebook, :func:`clean_outputs` keeps only
what a page can show without running anything: text, PNG/JPEG/GIF images whose data is plain base64, and
HTML passed through the Ammonia sanitiser (``nh3``: no script, no event handler, no ``javascript:`` link,
no ``<svg>`` or ``<iframe>``). SVG, JavaScript, Markdown, LaTeX, JSON and widget outputs are shown as a
line of text that says what they were. Markdown cells are rendered, then cleaned the same way
(:func:`clean_html`), so raw HTML in a written answer shows as text. The Markdown's formulas become MathML
(:mod:`autograder.page_maths`), cleaned by :func:`clean_mathml` to presentational MathML only (a student's own
``<math>`` markup is cleaned as HTML, and goes). Finally :func:`with_policy` adds a Content-Security-Policy
that lets the page run only the scripts its template put there (by their hashes), load nothing from the
network, and show images only from the page itself.
"""
from __future__ import annotations

import base64
import hashlib
import re

import nh3
from nbformat import NotebookNode

#: image types a page shows as <img src="data:...">, when their data is base64 and nothing else
IMAGES = ("image/png", "image/jpeg", "image/gif")
_BASE64 = re.compile(r"^[A-Za-z0-9+/=\s]*$")
_TAG = re.compile(r"[^A-Za-z0-9_-]")


#: Ammonia's attributes, and the ones nbconvert's Markdown and tables use (heading anchors, classes, alignment)
ATTRIBUTES = {**{tag: set(names) for tag, names in nh3.ALLOWED_ATTRIBUTES.items()},
              "*": {"class", "title", "align"}, **{f"h{n}": {"id"} for n in range(1, 7)}}


def clean_html(fragment: str) -> str:
    """HTML with nothing that runs: Ammonia's safe subset (no script, handler, frame, form, SVG or style attribute)."""
    return nh3.clean(fragment, attributes=ATTRIBUTES, url_schemes={"http", "https", "mailto", "data"},
                     link_rel=None)


#: presentational MathML (what latex2mathml writes and MathML Core typesets): no maction, no mglyph, no link
MATHML_TAGS = {"math", "semantics", "annotation", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msup", "msub",
               "msubsup", "mfrac", "msqrt", "mroot", "mover", "munder", "munderover", "mmultiscripts", "mprescripts",
               "none", "mtable", "mtr", "mtd", "mstyle", "mpadded", "mphantom", "menclose", "merror"}
#: their attributes that only say how the maths looks: no href, src, xlink:*, style, class, id or event handler
MATHML_ATTRIBUTES = {
    "*": {"mathvariant", "mathsize", "mathcolor", "mathbackground", "displaystyle", "scriptlevel", "dir"},
    "math": {"display"},
    "annotation": {"encoding"},
    "mo": {"stretchy", "fence", "separator", "form", "largeop", "movablelimits", "symmetric", "minsize", "maxsize",
           "lspace", "rspace", "accent"},
    "mover": {"accent"}, "munder": {"accentunder"}, "munderover": {"accent", "accentunder"},
    "mfrac": {"linethickness"},
    "mspace": {"width", "height", "depth"},
    "mpadded": {"width", "height", "depth", "lspace", "voffset"},
    "menclose": {"notation"},
    "mtable": {"columnalign", "rowalign", "rowspacing", "columnspacing", "columnlines", "rowlines", "frame"},
    "mtr": {"columnalign", "rowalign"},
    "mtd": {"columnalign", "rowalign", "columnspan", "rowspan"},
}


def clean_mathml(fragment: str) -> str:
    """MathML reduced to :data:`MATHML_TAGS` and their presentational :data:`MATHML_ATTRIBUTES`; any HTML inside
    (a ``<script>``, a link) is dropped, and Ammonia's namespace checks leave no markup that parses otherwise."""
    return nh3.clean(fragment, tags=MATHML_TAGS, attributes=MATHML_ATTRIBUTES, url_schemes=set(), link_rel=None)


def _image(data: object) -> bool:
    return isinstance(data, str) and bool(_BASE64.match(data))


def _shown_as_text(kinds: list[str]) -> str:
    return f"[output of type {', '.join(sorted(kinds))} is not shown in the feedback page; your notebook has it]"


def clean_output(output: NotebookNode) -> None:
    """One output, as a page may show it (edited in place)."""
    if output.get("output_type") not in ("display_data", "execute_result"):
        output.pop("metadata", None)
        return
    data = output.get("data", {})
    kept, dropped = {}, []
    for kind, value in data.items():
        if kind == "text/plain" and isinstance(value, str):
            kept[kind] = value
        elif kind in IMAGES and _image(value):
            kept[kind] = value
        elif kind == "text/html" and isinstance(value, str):
            kept[kind] = clean_html(value)
        else:
            dropped.append(kind)
    if not any(kind in kept for kind in (*IMAGES, "text/html")) and dropped:
        kept["text/plain"] = (kept.get("text/plain", "") + "\n" + _shown_as_text(dropped)).strip()
    output["data"] = kept
    metadata = output.get("metadata", {})
    sizes = {kind: {k: v for k, v in metadata.get(kind, {}).items() if k in ("width", "height") and type(v) is int}
             for kind in IMAGES if isinstance(metadata.get(kind), dict)}
    output["metadata"] = {kind: size for kind, size in sizes.items() if size}


def clean_outputs(nb: NotebookNode) -> None:
    """Every output and attachment of the notebook as a page may show it; cell tags reduced to plain words."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            clean_output(output)
        attachments = cell.get("attachments")
        if attachments:
            cell["attachments"] = {
                name: {kind: value for kind, value in bundle.items() if kind in IMAGES and _image(value)}
                for name, bundle in attachments.items() if isinstance(bundle, dict)}
        tags = cell.get("metadata", {}).get("tags")
        if tags is not None:
            cell.metadata["tags"] = [_TAG.sub("", str(tag))[:40] for tag in tags if isinstance(tag, str)]


_SCRIPT = re.compile(r"<script(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.S | re.I)


def with_policy(page: str) -> str:
    """The page with a Content-Security-Policy that allows only its template's own inline scripts (by hash).

    Call it on a page whose outputs and Markdown were cleaned: every script left is the template's.
    """
    hashes = []
    for match in _SCRIPT.finditer(page):
        attrs = match.group("attrs")
        if "src=" in attrs.lower():
            continue  # a script from elsewhere: the policy does not allow it
        digest = base64.b64encode(hashlib.sha256(match.group("body").encode("utf-8")).digest()).decode("ascii")
        hashes.append(f"'sha256-{digest}'")
    policy = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; "
              f"script-src {' '.join(dict.fromkeys(hashes)) or chr(39) + 'none' + chr(39)}; "
              "base-uri 'none'; form-action 'none'")
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    return re.sub(r"<head([^>]*)>", lambda m: m.group(0) + meta, page, count=1)
