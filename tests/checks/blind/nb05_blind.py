"""Blind wrong answers and correct alternatives for notebook 05_self_attention.

Written from the student notebook only (the checks were never read or run on these cases).
"""
from blind_case import Blind

NOTEBOOK = "05_self_attention"

# phrases reused by several cases
_SCALE = (("sqrt",), ("square root",), ("√",), ("scale",), ("scaling",))
_ROUNDING = (("round",), ("decimal",), ("precision",), ("2 places",), ("two places",))

BLIND = [
    # ---------------------------------------------------------------- table_scores
    Blind(
        name="scores_wrong_query_row",
        cell="table_scores",
        source='machines_scores = K @ Q[2]\nprint(machines_scores)\n',
        test_cell="check_table_scores",
        mistake="Off by one in the row index: used the query of the third word ('thinking', Q[2]) "
                "instead of the fourth word 'machines' (Q[3]).",
        names_it=(("thinking",), ("wrong word",), ("wrong query",), ("wrong row",), ("fourth",),
                  ("q[3]",), ("index 3",), ("row 3",), ("other word",), ("another word",)),
    ),
    Blind(
        name="scores_no_sum",
        cell="table_scores",
        source='machines_scores = Q[3] * K\nprint(machines_scores)\n',
        test_cell="check_table_scores",
        mistake="Multiplied the query and the keys element-wise but never summed over the vector "
                "entries, so the result is a (4, 2) table of products instead of 4 dot products.",
        names_it=(("sum",), ("dot product",), ("elementwise",), ("element-wise",), ("(4, 2)",),
                  ("4 numbers",), ("four numbers",)),
    ),
    Blind(
        name="scores_full_matrix",
        cell="table_scores",
        source='machines_scores = Q @ K.T\nprint(machines_scores)\n',
        test_cell="check_table_scores",
        mistake="Computed the whole 4x4 score matrix for all words instead of only the row of "
                "'machines'.",
        names_it=(("(4, 4)",), ("4 numbers",), ("four numbers",), ("one row",), ("whole matrix",),
                  ("all words",), ("only", "machines")),
    ),
    # ---------------------------------------------------------------- table_scaled
    Blind(
        name="scaled_by_dk_not_sqrt",
        cell="table_scaled",
        source='machines_scaled = machines_scores / 2\nprint(machines_scaled)\n',
        test_cell="check_table_scaled",
        mistake="Divided the scores by d_k = 2 instead of by sqrt(d_k) = 1.414.",
        names_it=_SCALE[:3] + (("1.414",), ("instead of", "d_k")),
    ),
    Blind(
        name="scaled_multiplied",
        cell="table_scaled",
        source='machines_scaled = machines_scores * math.sqrt(2)\nprint(machines_scaled)\n',
        test_cell="check_table_scaled",
        mistake="Multiplied the scores by sqrt(d_k) instead of dividing by it.",
        names_it=(("multiplied",), ("multiply",), ("times",), ("divide", "instead"),
                  ("divided", "instead"), ("larger",), ("bigger",)),
    ),
    Blind(
        name="scaled_copied_rounded_slide",
        cell="table_scaled",
        source='# the slide: 0.70 0.21 -0.49 0.98 divided by 1.41\n'
               'machines_scaled = torch.tensor([0.50, 0.15, -0.35, 0.69], dtype=torch.float64)\n'
               'print(machines_scaled)\n',
        test_cell="check_table_scaled",
        mistake="Typed in the scaled scores rounded to two decimals (from the slide / by hand) "
                "instead of computing them at full precision.",
        names_it=_ROUNDING + (("hard-coded",), ("hardcoded",), ("typed",), ("full precision",)),
    ),
    # ---------------------------------------------------------------- table_weights
    Blind(
        name="weights_from_unscaled_scores",
        cell="table_weights",
        source='e = torch.exp(machines_scores)\n'
               'machines_weights = e / e.sum()\n'
               'print(machines_weights, "sum =", float(machines_weights.sum()))\n',
        test_cell="check_table_weights",
        mistake="Took the softmax of the raw scores (machines_scores) instead of the scaled "
                "scores (machines_scaled).",
        names_it=(("scaled",), ("unscaled",), ("raw",), ("sqrt",), ("machines_scores",)),
    ),
    Blind(
        name="weights_not_normalised",
        cell="table_weights",
        source='machines_weights = torch.exp(machines_scaled)\n'
               'print(machines_weights, "sum =", float(machines_weights.sum()))\n',
        test_cell="check_table_weights",
        mistake="Exponentiated the scaled scores but forgot to divide by their sum, so the "
                "weights do not add up to 1.",
        names_it=(("sum to 1",), ("sums to 1",), ("add up to 1",), ("normalis",), ("normaliz",),
                  ("divide", "sum"), ("divided", "sum")),
    ),
    Blind(
        name="weights_no_exp",
        cell="table_weights",
        source='machines_weights = machines_scaled / machines_scaled.sum()\n'
               'print(machines_weights, "sum =", float(machines_weights.sum()))\n',
        test_cell="check_table_weights",
        mistake="Normalised the scaled scores by their sum without exponentiating first, so the "
                "weights sum to 1 but one is negative and they are not a softmax.",
        names_it=(("exp",), ("exponent",), ("negative",)),
    ),
    # ---------------------------------------------------------------- table_weighted
    Blind(
        name="weighted_already_summed",
        cell="table_weighted",
        source='machines_weighted_values = machines_weights @ V\nprint(machines_weighted_values)\n',
        test_cell="check_table_weighted",
        mistake="Used a matrix product, which already sums the weighted rows: the result is z "
                "(shape (2,)) rather than one weighted row per word (shape (4, 2)).",
        names_it=(("(4, 2)",), ("4 × 2",), ("4 x 2",), ("one row per",), ("already summed",),
                  ("summed",), ("(2,)",)),
    ),
    Blind(
        name="weighted_transposed",
        cell="table_weighted",
        source='machines_weighted_values = machines_weights * V.T\nprint(machines_weighted_values)\n',
        test_cell="check_table_weighted",
        mistake="Transposed V to make the broadcasting work and kept the (2, 4) result, so the "
                "rows are the two coordinates instead of the four words.",
        names_it=(("transpos",), ("(2, 4)",), ("(4, 2)",), ("4 × 2",), ("4 x 2",)),
    ),
    Blind(
        name="weighted_by_scores",
        cell="table_weighted",
        source='machines_weighted_values = machines_scaled[:, None] * V\nprint(machines_weighted_values)\n',
        test_cell="check_table_weighted",
        mistake="Weighted the value vectors by the scaled scores instead of by the softmax weights.",
        names_it=(("scores", "instead"), ("scaled scores",), ("softmax weights",),
                  ("before the softmax",), ("machines_scaled",), ("not the weights",)),
    ),
    # ---------------------------------------------------------------- table_z
    Blind(
        name="z_wrong_axis",
        cell="table_z",
        source='z_machines = machines_weighted_values.sum(dim=1)\nprint(z_machines)\n',
        test_cell="check_table_z",
        mistake="Summed along the wrong axis (dim=1, across the two coordinates of each row) "
                "instead of over the four rows (dim=0).",
        names_it=(("axis",), ("dim",), ("dimension",), ("(4,)",), ("over the rows",),
                  ("across",)),
    ),
    Blind(
        name="z_mean_not_sum",
        cell="table_z",
        source='z_machines = machines_weighted_values.mean(dim=0)\nprint(z_machines)\n',
        test_cell="check_table_z",
        mistake="Averaged the weighted rows instead of summing them (the weights already sum to "
                "1, so z is 4 times too small).",
        names_it=(("mean",), ("average",), ("by 4",), ("4 times",), ("factor 4",),
                  ("factor of 4",), ("quarter",)),
    ),
    Blind(
        name="z_rounded",
        cell="table_z",
        source='z_machines = torch.round(machines_weighted_values.sum(dim=0), decimals=2)\nprint(z_machines)\n',
        test_cell="check_table_z",
        mistake="Rounded z to two decimals like the slide ([0.23, 0.55]) instead of keeping full "
                "precision; the check asks for four decimals.",
        names_it=_ROUNDING + (("four decimals",), ("4 decimals",)),
    ),
    # ---------------------------------------------------------------- attention_scores
    Blind(
        name="scores_not_scaled",
        cell="attention_scores",
        source='def attention_scores(Q, K):\n'
               '    """Scaled dot-product scores: Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k)."""\n'
               '    return Q @ K.transpose(-2, -1)\n',
        test_cell="check_attention_scores",
        mistake="Returned the raw dot products Q K^T without dividing by sqrt(d_k).",
        names_it=_SCALE,
    ),
    Blind(
        name="scores_sqrt_precedence",
        cell="attention_scores",
        source='def attention_scores(Q, K):\n'
               '    """Scaled dot-product scores: Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k)."""\n'
               '    d_k = Q.shape[-1]\n'
               '    return Q @ K.transpose(-2, -1) / d_k ** 1/2\n',
        test_cell="check_attention_scores",
        mistake="Wrote `d_k ** 1/2` for the square root; ** binds tighter than /, so it divides "
                "by d_k/2 (1 for the table, 8 instead of 4 for d_k = 16).",
        names_it=_SCALE[:3] + (("d_k / 2",), ("d_k/2",), ("precedence",), ("** 1/2",)),
    ),
    Blind(
        name="scores_dk_from_first_dim",
        cell="attention_scores",
        source='def attention_scores(Q, K):\n'
               '    """Scaled dot-product scores: Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k)."""\n'
               '    d_k = Q.shape[0]\n'
               '    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n',
        test_cell="check_attention_scores",
        mistake="Took d_k from the first dimension of Q (the number of words, or the batch size) "
                "instead of the last one, Q.shape[-1].",
        names_it=(("d_k",), ("last dim",), ("shape[-1]",), ("key length",), ("wrong dimension",)),
    ),
    Blind(
        name="scores_k_times_q",
        cell="attention_scores",
        source='def attention_scores(Q, K):\n'
               '    """Scaled dot-product scores: Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k)."""\n'
               '    d_k = K.shape[-1]\n'
               '    return K @ Q.transpose(-2, -1) / math.sqrt(d_k)\n',
        test_cell="check_attention_scores",
        mistake="Multiplied in the wrong order, K Q^T, which gives the transposed matrix "
                "(n_k, n_q): rows are keys instead of queries. The table does not show it because "
                "there Q = K.",
        names_it=(("transpos",), ("order",), ("swapped",), ("k q",), ("(n_k, n_q)",),
                  ("n_k, n_q",), ("rows", "keys")),
    ),
    # ---------------------------------------------------------------- softmax
    Blind(
        name="softmax_not_stable",
        cell="softmax",
        source='def softmax(x, dim=-1):\n'
               '    """Numerically stable softmax of x along dim."""\n'
               '    e = torch.exp(x)\n'
               '    return e / e.sum(dim=dim, keepdim=True)\n',
        test_cell="check_softmax",
        mistake="Did not subtract the maximum before exponentiating, so scores near 1000 overflow "
                "to inf and the result is nan.",
        names_it=(("nan",), ("overflow",), ("max",), ("stable",), ("stability",), ("inf",),
                  ("1000",), ("large",)),
    ),
    Blind(
        name="softmax_ignores_dim",
        cell="softmax",
        source='def softmax(x, dim=-1):\n'
               '    """Numerically stable softmax of x along dim."""\n'
               '    x = x - x.max(dim=-1, keepdim=True).values\n'
               '    e = torch.exp(x)\n'
               '    return e / e.sum(dim=-1, keepdim=True)\n',
        test_cell="check_softmax",
        mistake="Hard-coded dim=-1 in max and sum, so the dim argument is ignored and softmax "
                "along dim=0 is wrong.",
        names_it=(("dim",), ("axis",), ("dimension",)),
    ),
    Blind(
        name="softmax_global_sum",
        cell="softmax",
        source='def softmax(x, dim=-1):\n'
               '    """Numerically stable softmax of x along dim."""\n'
               '    e = torch.exp(x - x.max(dim=dim, keepdim=True).values)\n'
               '    return e / e.sum()\n',
        test_cell="check_softmax",
        mistake="Divided by the sum of the whole tensor instead of the sum along dim, so only "
                "the whole tensor sums to 1, not each row.",
        names_it=(("dim",), ("axis",), ("each row",), ("every row",), ("whole tensor",),
                  ("all elements",), ("along",)),
    ),
    Blind(
        name="softmax_divides_by_max",
        cell="softmax",
        source='def softmax(x, dim=-1):\n'
               '    """Numerically stable softmax of x along dim."""\n'
               '    x = x / x.abs().max(dim=dim, keepdim=True).values\n'
               '    e = torch.exp(x)\n'
               '    return e / e.sum(dim=dim, keepdim=True)\n',
        test_cell="check_softmax",
        mistake="'Stabilised' the softmax by dividing by the largest magnitude instead of "
                "subtracting the maximum; that changes the result (softmax is invariant only "
                "to shifts, not to scaling).",
        names_it=(("subtract",), ("divid",), ("shift",), ("scal",)),
    ),
    # ---------------------------------------------------------------- self_attention
    Blind(
        name="sa_mask_after_softmax",
        cell="self_attention",
        source='def self_attention(Q, K, V, mask=None):\n'
               '    """Return (output, weights) of scaled dot-product attention; mask is True where allowed."""\n'
               '    weights = softmax(attention_scores(Q, K), dim=-1)\n'
               '    if mask is not None:\n'
               '        weights = weights * mask\n'
               '    return weights @ V, weights\n',
        test_cell="check_self_attention",
        mistake="Zeroed the forbidden weights after the softmax instead of setting the scores to "
                "-inf before it, so the masked rows no longer sum to 1.",
        names_it=(("before",), ("after the softmax",), ("sum to 1",), ("sums to 1",),
                  ("-inf",), ("renormal",)),
    ),
    Blind(
        name="sa_mask_inverted",
        cell="self_attention",
        source='def self_attention(Q, K, V, mask=None):\n'
               '    """Return (output, weights) of scaled dot-product attention; mask is True where allowed."""\n'
               '    scores = attention_scores(Q, K)\n'
               '    if mask is not None:\n'
               '        scores = scores.masked_fill(mask, float("-inf"))\n'
               '    weights = softmax(scores, dim=-1)\n'
               '    return weights @ V, weights\n',
        test_cell="check_self_attention",
        mistake="Filled -inf where the mask is True, i.e. blocked the allowed positions and kept "
                "the forbidden ones (forgot the ~).",
        names_it=(("invert",), ("opposite",), ("~mask",), ("reversed",), ("true where",),
                  ("the future",), ("allowed", "blocked")),
    ),
    Blind(
        name="sa_mask_fill_zero",
        cell="self_attention",
        source='def self_attention(Q, K, V, mask=None):\n'
               '    """Return (output, weights) of scaled dot-product attention; mask is True where allowed."""\n'
               '    scores = attention_scores(Q, K)\n'
               '    if mask is not None:\n'
               '        scores = scores.masked_fill(~mask, 0.0)\n'
               '    weights = softmax(scores, dim=-1)\n'
               '    return weights @ V, weights\n',
        test_cell="check_self_attention",
        mistake="Set the forbidden scores to 0 instead of -inf; e^0 = 1, so masked positions still "
                "get weight.",
        names_it=(("-inf",), ("infinity",), ("-∞",), ("−∞",), ("masked", "nonzero"),
                  ("masked", "non-zero"), ("masked", "not zero"), ("weight 0",), ("exactly 0",)),
    ),
    Blind(
        name="sa_masked_fill_not_assigned",
        cell="self_attention",
        source='def self_attention(Q, K, V, mask=None):\n'
               '    """Return (output, weights) of scaled dot-product attention; mask is True where allowed."""\n'
               '    scores = attention_scores(Q, K)\n'
               '    if mask is not None:\n'
               '        scores.masked_fill(~mask, float("-inf"))\n'
               '    weights = softmax(scores, dim=-1)\n'
               '    return weights @ V, weights\n',
        test_cell="check_self_attention",
        mistake="Called scores.masked_fill(...) without assigning the result; masked_fill is not in "
                "place, so the mask has no effect.",
        names_it=(("mask", "ignored"), ("mask", "no effect"), ("mask", "not applied"),
                  ("in place",), ("in-place",), ("the future",), ("masked", "nonzero"),
                  ("masked", "non-zero"), ("masked", "not zero"), ("without the mask",)),
    ),
    Blind(
        name="sa_returns_swapped",
        cell="self_attention",
        source='def self_attention(Q, K, V, mask=None):\n'
               '    """Return (output, weights) of scaled dot-product attention; mask is True where allowed."""\n'
               '    scores = attention_scores(Q, K)\n'
               '    if mask is not None:\n'
               '        scores = scores.masked_fill(~mask, float("-inf"))\n'
               '    weights = softmax(scores, dim=-1)\n'
               '    return weights, weights @ V\n',
        test_cell="check_self_attention",
        mistake="Returned (weights, output) instead of (output, weights).",
        names_it=(("order",), ("swap",), ("(output, weights)",), ("first",)),
    ),
    Blind(
        name="sa_softmax_over_queries",
        cell="self_attention",
        source='def self_attention(Q, K, V, mask=None):\n'
               '    """Return (output, weights) of scaled dot-product attention; mask is True where allowed."""\n'
               '    scores = attention_scores(Q, K)\n'
               '    if mask is not None:\n'
               '        scores = scores.masked_fill(~mask, float("-inf"))\n'
               '    weights = softmax(scores, dim=-2)\n'
               '    return weights @ V, weights\n',
        test_cell="check_self_attention",
        mistake="Took the softmax along dim=-2 (over the queries, columns sum to 1) instead of "
                "along the keys, dim=-1.",
        names_it=(("dim",), ("axis",), ("column",), ("over the keys",), ("rows", "sum to 1"),
                  ("each row",), ("every row",)),
    ),
    Blind(
        name="sa_output_from_scores",
        cell="self_attention",
        source='def self_attention(Q, K, V, mask=None):\n'
               '    """Return (output, weights) of scaled dot-product attention; mask is True where allowed."""\n'
               '    scores = attention_scores(Q, K)\n'
               '    if mask is not None:\n'
               '        scores = scores.masked_fill(~mask, float("-inf"))\n'
               '    weights = softmax(scores, dim=-1)\n'
               '    return scores @ V, weights\n',
        test_cell="check_self_attention",
        mistake="Multiplied V by the (masked) scores instead of the softmax weights; the weights "
                "it returns are right but the output is not weights @ V.",
        names_it=(("weights @ v",), ("scores @ v",), ("output", "weights are right"),
                  ("output", "weights are correct"), ("output is wrong",), ("output", "scores")),
    ),
    # ---------------------------------------------------------------- causal_mask
    Blind(
        name="mask_upper_triangle",
        cell="causal_mask",
        source='def causal_mask(n):\n'
               '    """(n, n) bool tensor, True where query i may attend to key j (j <= i)."""\n'
               '    return torch.triu(torch.ones(n, n, dtype=torch.bool))\n',
        test_cell="check_causal_mask",
        mistake="Used the upper triangle (torch.triu) instead of the lower one, so each word may "
                "look at the future and not the past.",
        names_it=(("upper",), ("lower",), ("triu",), ("tril",), ("future",), ("transpos",)),
    ),
    Blind(
        name="mask_no_diagonal",
        cell="causal_mask",
        source='def causal_mask(n):\n'
               '    """(n, n) bool tensor, True where query i may attend to key j (j <= i)."""\n'
               '    i = torch.arange(n)\n'
               '    return i[:, None] > i[None, :]\n',
        test_cell="check_causal_mask",
        mistake="Used j < i instead of j <= i, leaving out the diagonal: a word may not attend to "
                "itself and the first row is all False.",
        names_it=(("diagonal",), ("itself",), ("j <= i",), ("<=",)),
    ),
    Blind(
        name="mask_float_dtype",
        cell="causal_mask",
        source='def causal_mask(n):\n'
               '    """(n, n) bool tensor, True where query i may attend to key j (j <= i)."""\n'
               '    return torch.tril(torch.ones(n, n))\n',
        test_cell="check_causal_mask",
        mistake="Returned a float tensor of 1s and 0s instead of a bool tensor.",
        names_it=(("bool",), ("dtype",), ("float",)),
    ),
    # ---------------------------------------------------------------- space_invader
    Blind(
        name="si_zero_after_softmax",
        cell="space_invader",
        source='space_invader_weights = softmax(si_scores, dim=-1) * causal_mask(4)\n'
               'print(space_invader_weights)\n',
        test_cell="check_space_invader",
        mistake="Took the softmax of the full scores and then zeroed the future, so the rows no "
                "longer sum to 1.",
        names_it=(("sum to 1",), ("sums to 1",), ("before the softmax",), ("after the softmax",),
                  ("renormal",), ("-inf",)),
    ),
    Blind(
        name="si_scaled_again",
        cell="space_invader",
        source='masked = si_scores.masked_fill(~causal_mask(4), float("-inf"))\n'
               'space_invader_weights = softmax(masked / math.sqrt(4), dim=-1)\n'
               'print(space_invader_weights)\n',
        test_cell="check_space_invader",
        mistake="Divided the slide's scores by sqrt(4) although they are already scaled.",
        names_it=(("already scaled",), ("scaled twice",), ("twice",), ("sqrt",), ("divid",),
                  ("scal",)),
    ),
    Blind(
        name="si_softmax_over_columns",
        cell="space_invader",
        source='masked = si_scores.masked_fill(~causal_mask(4), float("-inf"))\n'
               'space_invader_weights = softmax(masked, dim=0)\n'
               'print(space_invader_weights)\n',
        test_cell="check_space_invader",
        mistake="Normalised each column (dim=0) instead of each row, so a key's weights sum to 1 "
                "over the queries.",
        names_it=(("dim",), ("axis",), ("column",), ("each row",), ("every row",), ("rows", "sum")),
    ),
    Blind(
        name="si_mask_transposed",
        cell="space_invader",
        source='masked = si_scores.masked_fill(~causal_mask(4).T, float("-inf"))\n'
               'space_invader_weights = softmax(masked, dim=-1)\n'
               'print(space_invader_weights)\n',
        test_cell="check_space_invader",
        mistake="Transposed the mask, so each word attends to itself and the words after it "
                "(the future) instead of the ones before it.",
        names_it=(("future",), ("upper",), ("lower",), ("transpos",), ("j <= i",)),
    ),
    # ---------------------------------------------------------------- brown_dog
    Blind(
        name="brown_not_scaled",
        cell="brown_dog",
        source='brown_dog_weights = softmax(brown_scores, dim=-1)\nprint(brown_dog_weights)\n',
        test_cell="check_brown_dog",
        mistake="Took the softmax of the raw scores without dividing by sqrt(64) = 8.",
        names_it=_SCALE + (("by 8",), ("divide",), ("divided",)),
    ),
    Blind(
        name="brown_divided_by_dk",
        cell="brown_dog",
        source='brown_dog_weights = softmax(brown_scores / 64, dim=-1)\nprint(brown_dog_weights)\n',
        test_cell="check_brown_dog",
        mistake="Divided by d_k = 64 instead of sqrt(d_k) = 8.",
        names_it=(("sqrt",), ("square root",), ("√",), ("by 8",), ("not 64",), ("instead of 8",)),
    ),
    Blind(
        name="brown_sqrt_of_n_words",
        cell="brown_dog",
        source='brown_dog_weights = softmax(brown_scores / math.sqrt(len(brown_scores)), dim=-1)\n'
               'print(brown_dog_weights)\n',
        test_cell="check_brown_dog",
        mistake="Divided by the square root of the number of words (4) instead of sqrt(d_k) = "
                "sqrt(64): confused the sequence length with the key length.",
        names_it=(("d_k",), ("64",), ("by 8",), ("key length",), ("number of words",)),
    ),
]


ALTERNATIVES = {
    "loops": {
        "table_scores": (
            "machines_scores = torch.zeros(4, dtype=torch.float64)\n"
            "for j in range(4):\n"
            "    total = 0.0\n"
            "    for d in range(Q.shape[1]):\n"
            "        total += Q[3, d] * K[j, d]\n"
            "    machines_scores[j] = total\n"
            "print(machines_scores)\n"
        ),
        "table_scaled": (
            "d_k = K.shape[1]\n"
            "machines_scaled = torch.tensor([s / d_k ** 0.5 for s in machines_scores.tolist()], dtype=torch.float64)\n"
            "print(machines_scaled)\n"
        ),
        "table_weights": (
            "exps = [math.exp(s) for s in machines_scaled.tolist()]\n"
            "total = sum(exps)\n"
            "machines_weights = torch.tensor([e / total for e in exps], dtype=torch.float64)\n"
            "print(machines_weights, \"sum =\", float(machines_weights.sum()))\n"
        ),
        "table_weighted": (
            "rows = []\n"
            "for j in range(4):\n"
            "    rows.append(machines_weights[j] * V[j])\n"
            "machines_weighted_values = torch.stack(rows)\n"
            "print(machines_weighted_values)\n"
        ),
        "table_z": (
            "z_machines = torch.zeros(2, dtype=torch.float64)\n"
            "for row in machines_weighted_values:\n"
            "    z_machines = z_machines + row\n"
            "print(z_machines)\n"
        ),
        "attention_scores": (
            "def attention_scores(Q, K):\n"
            "    \"\"\"Scaled dot-product scores: Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k).\"\"\"\n"
            "    scale = 1.0 / Q.size(-1) ** 0.5\n"
            "    return torch.matmul(Q * scale, K.transpose(-1, -2))\n"
        ),
        "softmax": (
            "def softmax(x, dim=-1):\n"
            "    \"\"\"Numerically stable softmax of x along dim.\"\"\"\n"
            "    m = torch.amax(x, dim=dim, keepdim=True)\n"
            "    e = (x - m).exp()\n"
            "    total = torch.sum(e, dim=dim, keepdim=True)\n"
            "    return e / total\n"
        ),
        "self_attention": (
            "def self_attention(Q, K, V, mask=None):\n"
            "    \"\"\"Return (output, weights) of scaled dot-product attention; mask is True where allowed.\"\"\"\n"
            "    scores = attention_scores(Q, K)\n"
            "    if mask is not None:\n"
            "        scores = torch.where(mask, scores, torch.full_like(scores, float('-inf')))\n"
            "    weights = softmax(scores, dim=scores.dim() - 1)\n"
            "    output = torch.matmul(weights, V)\n"
            "    return (output, weights)\n"
        ),
        "causal_mask": (
            "def causal_mask(n):\n"
            "    \"\"\"(n, n) bool tensor, True where query i may attend to key j (j <= i).\"\"\"\n"
            "    mask = torch.zeros(n, n, dtype=torch.bool)\n"
            "    for i in range(n):\n"
            "        for j in range(i + 1):\n"
            "            mask[i, j] = True\n"
            "    return mask\n"
        ),
        "space_invader": (
            "rows = []\n"
            "for i in range(4):\n"
            "    exps = [math.exp(float(si_scores[i, j])) if j <= i else 0.0 for j in range(4)]\n"
            "    rows.append([e / sum(exps) for e in exps])\n"
            "space_invader_weights = torch.tensor(rows, dtype=torch.float64)\n"
            "print(space_invader_weights)\n"
        ),
        "brown_dog": (
            "exps = [math.exp(s / 8) for s in brown_scores.tolist()]\n"
            "brown_dog_weights = torch.tensor([e / sum(exps) for e in exps], dtype=torch.float64)\n"
            "print(brown_dog_weights)\n"
        ),
    },
    "vectorised_keywords": {
        "table_scores": (
            "machines_scores = torch.mv(K, Q[-1])   # the last word is 'machines'\n"
            "print(machines_scores)\n"
        ),
        "table_scaled": (
            "machines_scaled = machines_scores.div(math.sqrt(Q.shape[-1]))\n"
            "print(machines_scaled)\n"
        ),
        "table_weights": (
            "shifted = machines_scaled - machines_scaled.max()\n"
            "machines_weights = shifted.exp() / shifted.exp().sum()\n"
            "print(machines_weights, \"sum =\", float(machines_weights.sum()))\n"
        ),
        "table_weighted": (
            "machines_weighted_values = torch.diag(machines_weights) @ V\n"
            "print(machines_weighted_values)\n"
        ),
        "table_z": (
            "z_machines = torch.sum(machines_weighted_values, dim=0, keepdim=False)\n"
            "print(z_machines)\n"
        ),
        "attention_scores": (
            "def attention_scores(Q, K):\n"
            "    \"\"\"Scaled dot-product scores: Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k).\"\"\"\n"
            "    d_k = torch.tensor(Q.shape[-1], dtype=Q.dtype, device=Q.device)\n"
            "    return torch.einsum('...qd,...kd->...qk', Q, K) / torch.sqrt(d_k)\n"
        ),
        "softmax": (
            "def softmax(x, dim=-1):\n"
            "    \"\"\"Numerically stable softmax of x along dim.\"\"\"\n"
            "    x = x - x.max(dim, True)[0]\n"
            "    return x.exp() / x.exp().sum(dim=dim).unsqueeze(dim)\n"
        ),
        "self_attention": (
            "def self_attention(Q, K, V, mask=None):\n"
            "    \"\"\"Return (output, weights) of scaled dot-product attention; mask is True where allowed.\"\"\"\n"
            "    scores = attention_scores(Q=Q, K=K)\n"
            "    if mask is None:\n"
            "        mask = torch.ones_like(scores, dtype=torch.bool)\n"
            "    scores = scores.masked_fill(mask.logical_not(), -math.inf)\n"
            "    weights = softmax(x=scores, dim=-1)\n"
            "    return weights.matmul(V), weights\n"
        ),
        "causal_mask": (
            "def causal_mask(n):\n"
            "    \"\"\"(n, n) bool tensor, True where query i may attend to key j (j <= i).\"\"\"\n"
            "    idx = torch.arange(n)\n"
            "    return idx.unsqueeze(1) >= idx.unsqueeze(0)\n"
        ),
        "space_invader": (
            "allowed = ~torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)\n"
            "space_invader_weights = softmax(si_scores.masked_fill(~allowed, -math.inf), dim=1)\n"
            "print(space_invader_weights)\n"
        ),
        "brown_dog": (
            "d_k = 64\n"
            "brown_dog_weights = softmax(x=brown_scores / d_k ** 0.5, dim=0)\n"
            "print(brown_dog_weights)\n"
        ),
    },
    "numpy_inside": {
        "table_scores": (
            "import numpy as np\n"
            "machines_scores = torch.from_numpy(X.numpy() @ X.numpy()[3])\n"
            "print(machines_scores)\n"
        ),
        "table_scaled": (
            "import numpy as np\n"
            "machines_scaled = torch.from_numpy(machines_scores.numpy() / np.sqrt(2.0))\n"
            "print(machines_scaled)\n"
        ),
        "table_weights": (
            "import numpy as np\n"
            "e = np.exp(machines_scaled.numpy())\n"
            "machines_weights = torch.from_numpy(e / e.sum())\n"
            "print(machines_weights, \"sum =\", float(machines_weights.sum()))\n"
        ),
        "table_weighted": (
            "machines_weighted_values = torch.from_numpy(machines_weights.numpy()[:, None] * V.numpy())\n"
            "print(machines_weighted_values)\n"
        ),
        "table_z": (
            "z_machines = torch.from_numpy(machines_weighted_values.numpy().sum(axis=0))\n"
            "print(z_machines)\n"
        ),
        "causal_mask": (
            "import numpy as np\n"
            "def causal_mask(n):\n"
            "    \"\"\"(n, n) bool tensor, True where query i may attend to key j (j <= i).\"\"\"\n"
            "    return torch.from_numpy(np.tril(np.ones((n, n), dtype=bool)))\n"
        ),
        "space_invader": (
            "import numpy as np\n"
            "s = np.where(np.tril(np.ones((4, 4), dtype=bool)), si_scores.numpy(), -np.inf)\n"
            "e = np.exp(s - s.max(axis=1, keepdims=True))\n"
            "space_invader_weights = torch.from_numpy(e / e.sum(axis=1, keepdims=True))\n"
            "print(space_invader_weights)\n"
        ),
        "brown_dog": (
            "import numpy as np\n"
            "s = brown_scores.numpy() / np.sqrt(64)\n"
            "e = np.exp(s - s.max())\n"
            "brown_dog_weights = torch.from_numpy(e / e.sum())\n"
            "print(brown_dog_weights)\n"
        ),
    },
    "list_scores_and_transposed_mask": {
        # the notebook allows "a tensor or a list of 4 numbers" for the scores
        "table_scores": (
            "machines_scores = [float(Q[3] @ K[j]) for j in range(4)]\n"
            "print(machines_scores)\n"
        ),
        "table_scaled": (
            "machines_scaled = torch.tensor(machines_scores, dtype=torch.float64) / math.sqrt(2)\n"
            "print(machines_scaled)\n"
        ),
        "causal_mask": (
            "def causal_mask(n):\n"
            "    \"\"\"(n, n) bool tensor, True where query i may attend to key j (j <= i).\"\"\"\n"
            "    return torch.triu(torch.ones(n, n, dtype=torch.bool)).T.contiguous()\n"
        ),
        "self_attention": (
            "def self_attention(Q, K, V, mask=None):\n"
            "    \"\"\"Return (output, weights) of scaled dot-product attention; mask is True where allowed.\"\"\"\n"
            "    scores = attention_scores(Q, K)\n"
            "    if mask is not None:\n"
            "        # add -inf where forbidden, 0 where allowed\n"
            "        bias = torch.zeros_like(scores).masked_fill(~mask, float('-inf'))\n"
            "        scores = scores + bias\n"
            "    weights = softmax(scores)\n"
            "    return weights @ V, weights\n"
        ),
    },
}
