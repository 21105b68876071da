"""Blind wrong answers and correct alternatives for notebook 05_self_attention.

Written without reading the checks: each case is one slip a student really makes, with what a
feedback sentence must say for that student to see the mistake.
"""
from blind_case import Blind

NOTEBOOK = "05_self_attention"

BLIND = [
    # ---------------------------------------------------------------- table_scores
    Blind(
        name="scores_elementwise_no_sum",
        cell="table_scores",
        source=(
            "q_machines = Q[3]\n"
            "machines_scores = q_machines * K      # products of q with every key\n"
            "print(machines_scores)\n"
        ),
        test_cell="check_table_scores",
        mistake="Multiplied the query with every key element-wise but never summed over the two "
                "coordinates, so the 'scores' are a (4, 2) matrix instead of four dot products.",
        names_it=(("shape",), ("element",), ("sum", "product"), ("summ",)),
    ),
    Blind(
        name="scores_wrong_word_row",
        cell="table_scores",
        source=(
            "q_machines = Q[2]          # machines is the 4th word... counted from 1 minus 2\n"
            "machines_scores = K @ q_machines\n"
            "print(machines_scores)\n"
        ),
        test_cell="check_table_scores",
        mistake="Took the query of the wrong word (row 2, 'thinking') instead of row 3, 'machines'.",
        names_it=(("thinking",), ("wrong word",), ("wrong row",), ("another word",),
                  ("other word",), ("row 2",), ("index 2",), ("q_4",), ("fourth",), ("last row",),
                  ("row 3",), ("index 3",)),
    ),
    # ---------------------------------------------------------------- table_scaled
    Blind(
        name="scaled_by_dk_not_sqrt",
        cell="table_scaled",
        source=(
            "d_k = 2\n"
            "machines_scaled = machines_scores / d_k\n"
            "print(machines_scaled)\n"
        ),
        test_cell="check_table_scaled",
        mistake="Divided the scores by d_k = 2 instead of by its square root.",
        names_it=(("sqrt",), ("square root",), ("√",)),
    ),
    Blind(
        name="scaled_multiplied",
        cell="table_scaled",
        source=(
            "machines_scaled = machines_scores * math.sqrt(2)\n"
            "print(machines_scaled)\n"
        ),
        test_cell="check_table_scaled",
        mistake="Multiplied the scores by sqrt(2) instead of dividing by it.",
        names_it=(("multipl",), ("divid", "sqrt"), ("divid", "square root"), ("divid", "√")),
    ),
    # ---------------------------------------------------------------- table_weights
    Blind(
        name="weights_not_normalised",
        cell="table_weights",
        source=(
            "machines_weights = torch.exp(machines_scaled)\n"
            "print(machines_weights, \"sum =\", float(machines_weights.sum()))\n"
        ),
        test_cell="check_table_weights",
        mistake="Exponentiated the scaled scores but never divided by their sum, so the weights do "
                "not add up to 1.",
        names_it=(("sum", "1"), ("sum to one",), ("add up",), ("normali",), ("divid", "sum")),
    ),
    Blind(
        name="weights_from_unscaled_scores",
        cell="table_weights",
        source=(
            "e = torch.exp(machines_scores)\n"
            "machines_weights = e / e.sum()\n"
            "print(machines_weights, \"sum =\", float(machines_weights.sum()))\n"
        ),
        test_cell="check_table_weights",
        mistake="Took the softmax of the raw scores (machines_scores) instead of the scaled ones "
                "(machines_scaled).",
        names_it=(("scaled",), ("machines_scaled",), ("sqrt",), ("square root",), ("raw",),
                  ("unscaled",)),
    ),
    Blind(
        name="weights_no_exp",
        cell="table_weights",
        source=(
            "machines_weights = machines_scaled / machines_scaled.sum()\n"
            "print(machines_weights, \"sum =\", float(machines_weights.sum()))\n"
        ),
        test_cell="check_table_weights",
        mistake="Normalised the scaled scores by their sum without exponentiating first: the result "
                "sums to 1 but has negative entries and is not a softmax.",
        names_it=(("exp",), ("exponen",), ("negative",)),
    ),
    # ---------------------------------------------------------------- table_weighted
    Blind(
        name="weighted_already_summed",
        cell="table_weighted",
        source=(
            "machines_weighted_values = machines_weights @ V\n"
            "print(machines_weighted_values)\n"
        ),
        test_cell="check_table_weighted",
        mistake="Used a matrix product, which weights AND sums the values (that is step 5); step 4 "
                "wants the 4 x 2 matrix of rows a_j v_j before summing.",
        names_it=(("shape",), ("one row per",), ("per word",), ("summed",), ("before summing",)),
    ),
    Blind(
        name="weighted_by_scores",
        cell="table_weighted",
        source=(
            "machines_weighted_values = machines_scaled[:, None] * V\n"
            "print(machines_weighted_values)\n"
        ),
        test_cell="check_table_weighted",
        mistake="Multiplied each value by its scaled score instead of by its softmax weight.",
        names_it=(("softmax",), ("machines_weights",), ("score", "instead"), ("score", "not")),
    ),
    # ---------------------------------------------------------------- table_z
    Blind(
        name="z_sum_wrong_axis",
        cell="table_z",
        source=(
            "z_machines = machines_weighted_values.sum(dim=1)\n"
            "print(z_machines)\n"
        ),
        test_cell="check_table_z",
        mistake="Summed each row (over the two coordinates, dim=1) instead of adding the rows "
                "together (over the words, dim=0).",
        names_it=(("axis",), ("dim",), ("dimension",), ("shape",), ("over the words",),
                  ("over the rows",), ("add the rows",)),
    ),
    Blind(
        name="z_mean_not_sum",
        cell="table_z",
        source=(
            "z_machines = machines_weighted_values.mean(dim=0)\n"
            "print(z_machines)\n"
        ),
        test_cell="check_table_z",
        mistake="Averaged the weighted rows instead of summing them; the weights already make it "
                "an average, so this divides by 4 once more.",
        names_it=(("mean",), ("average",), ("divided by 4",), ("factor",), ("4 times",),
                  ("quarter",)),
    ),
    Blind(
        name="z_rounded_like_slide",
        cell="table_z",
        source=(
            "z_machines = torch.round(machines_weighted_values.sum(0), decimals=2)   # like the slide\n"
            "print(z_machines)\n"
        ),
        test_cell="check_table_z",
        mistake="Rounded z to two decimals to match the slide, but the exercise wants it exact to "
                "four decimals.",
        names_it=(("round",), ("decimal",), ("precision",)),
    ),
    # ---------------------------------------------------------------- attention_scores
    Blind(
        name="scores_no_scaling",
        cell="attention_scores",
        source=(
            "def attention_scores(Q, K):\n"
            "    \"\"\"Scaled dot-product scores: Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k).\"\"\"\n"
            "    return Q @ K.transpose(-2, -1)\n"
        ),
        test_cell="check_attention_scores",
        mistake="Returned the raw dot products Q K^T without dividing by sqrt(d_k).",
        names_it=(("sqrt",), ("square root",), ("scale",), ("√",)),
    ),
    Blind(
        name="scores_sqrt_of_n_keys",
        cell="attention_scores",
        source=(
            "def attention_scores(Q, K):\n"
            "    \"\"\"Scaled dot-product scores: Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k).\"\"\"\n"
            "    d_k = K.shape[-2]\n"
            "    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n"
        ),
        test_cell="check_attention_scores",
        mistake="Took d_k from the wrong dimension (K.shape[-2], the number of keys) instead of the "
                "key length K.shape[-1], so the scores are divided by sqrt(n_k).",
        names_it=(("n_k",), ("number of keys",), ("key length",), ("last dim",), ("shape[-1]",),
                  ("d_k",)),
    ),
    Blind(
        name="scores_pow_precedence",
        cell="attention_scores",
        source=(
            "def attention_scores(Q, K):\n"
            "    \"\"\"Scaled dot-product scores: Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k).\"\"\"\n"
            "    d_k = Q.shape[-1]\n"
            "    return Q @ K.transpose(-2, -1) / d_k ** 1/2\n"
        ),
        test_cell="check_attention_scores",
        mistake="Wrote d_k ** 1/2, which Python reads as (d_k ** 1) / 2, so the scores are divided "
                "by 2 d_k instead of sqrt(d_k).",
        names_it=(("sqrt",), ("square root",), ("precedence",), ("√",)),
    ),
    Blind(
        name="scores_transposed_k_q",
        cell="attention_scores",
        source=(
            "def attention_scores(Q, K):\n"
            "    \"\"\"Scaled dot-product scores: Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k).\"\"\"\n"
            "    d_k = Q.shape[-1]\n"
            "    return K @ Q.transpose(-2, -1) / math.sqrt(d_k)\n"
        ),
        test_cell="check_attention_scores",
        mistake="Computed K Q^T instead of Q K^T: rows are keys and columns are queries, the "
                "transpose of the wanted scores (invisible on the table, where Q = K).",
        names_it=(("transpose",), ("swap",), ("order",), ("rows", "columns"), ("k @ q",),
                  ("k q^t",), ("n_k", "n_q")),
    ),
    # ---------------------------------------------------------------- softmax
    Blind(
        name="softmax_not_stable",
        cell="softmax",
        source=(
            "def softmax(x, dim=-1):\n"
            "    \"\"\"Numerically stable softmax of x along dim.\"\"\"\n"
            "    e = torch.exp(x)\n"
            "    return e / e.sum(dim=dim, keepdim=True)\n"
        ),
        test_cell="check_softmax",
        mistake="Did not subtract the maximum before exponentiating, so exp overflows to inf and "
                "the softmax returns nan for scores near 1000.",
        names_it=(("max",), ("overflow",), ("nan",), ("inf",), ("stable",), ("1000",)),
    ),
    Blind(
        name="softmax_ignores_dim",
        cell="softmax",
        source=(
            "def softmax(x, dim=-1):\n"
            "    \"\"\"Numerically stable softmax of x along dim.\"\"\"\n"
            "    x = x - x.max(dim=-1, keepdim=True).values\n"
            "    e = torch.exp(x)\n"
            "    return e / e.sum(dim=-1, keepdim=True)\n"
        ),
        test_cell="check_softmax",
        mistake="Hard-coded the last dimension (dim=-1) inside the function, so softmax(x, dim=0) "
                "still normalises along the last axis.",
        names_it=(("dim",), ("axis",), ("dimension",)),
    ),
    Blind(
        name="softmax_returns_log",
        cell="softmax",
        source=(
            "def softmax(x, dim=-1):\n"
            "    \"\"\"Numerically stable softmax of x along dim.\"\"\"\n"
            "    x = x - x.max(dim=dim, keepdim=True).values\n"
            "    return x - torch.log(torch.exp(x).sum(dim=dim, keepdim=True))\n"
        ),
        test_cell="check_softmax",
        mistake="Returned the log-softmax (x - log sum exp x) instead of the probabilities: the "
                "final exp is missing.",
        names_it=(("log",), ("exp",), ("negative",)),
    ),
    # ---------------------------------------------------------------- self_attention
    Blind(
        name="sa_mask_after_softmax",
        cell="self_attention",
        source=(
            "def self_attention(Q, K, V, mask=None):\n"
            "    \"\"\"Return (output, weights) of scaled dot-product attention; mask is True where allowed.\"\"\"\n"
            "    weights = softmax(attention_scores(Q, K), dim=-1)\n"
            "    if mask is not None:\n"
            "        weights = weights.masked_fill(~mask, 0.0)\n"
            "    return weights @ V, weights\n"
        ),
        test_cell="check_self_attention",
        mistake="Zeroed the masked weights after the softmax instead of setting the scores to -inf "
                "before it, so masked rows no longer sum to 1.",
        names_it=(("before",), ("after the softmax",), ("sum to 1",), ("sum to one",),
                  ("renormali",)),
    ),
    Blind(
        name="sa_mask_inverted",
        cell="self_attention",
        source=(
            "def self_attention(Q, K, V, mask=None):\n"
            "    \"\"\"Return (output, weights) of scaled dot-product attention; mask is True where allowed.\"\"\"\n"
            "    scores = attention_scores(Q, K)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(mask, float(\"-inf\"))   # hide the masked positions\n"
            "    weights = softmax(scores, dim=-1)\n"
            "    return weights @ V, weights\n"
        ),
        test_cell="check_self_attention",
        mistake="Treated True in the mask as 'blocked': filled -inf where the mask is True, i.e. "
                "where attention is allowed (forgot the ~).",
        names_it=(("true",), ("invert",), ("opposite",), ("~mask",), ("allowed",), ("revers",)),
    ),
    Blind(
        name="sa_returns_swapped_pair",
        cell="self_attention",
        source=(
            "def self_attention(Q, K, V, mask=None):\n"
            "    \"\"\"Return (output, weights) of scaled dot-product attention; mask is True where allowed.\"\"\"\n"
            "    scores = attention_scores(Q, K)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = softmax(scores, dim=-1)\n"
            "    output = weights @ V\n"
            "    return weights, output\n"
        ),
        test_cell="check_self_attention",
        mistake="Returned the pair in the wrong order, (weights, output) instead of (output, weights).",
        names_it=(("order",), ("swap",), ("first",), ("(output, weights)",)),
    ),
    Blind(
        name="sa_softmax_over_queries",
        cell="self_attention",
        source=(
            "def self_attention(Q, K, V, mask=None):\n"
            "    \"\"\"Return (output, weights) of scaled dot-product attention; mask is True where allowed.\"\"\"\n"
            "    scores = attention_scores(Q, K)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
            "    weights = softmax(scores, dim=-2)\n"
            "    return weights @ V, weights\n"
        ),
        test_cell="check_self_attention",
        mistake="Normalised the scores over the queries (dim=-2, columns) instead of over the keys "
                "(dim=-1, each row).",
        names_it=(("dim",), ("axis",), ("dimension",), ("column",), ("over the keys",),
                  ("each row",)),
    ),
    Blind(
        name="sa_mask_fill_zero",
        cell="self_attention",
        source=(
            "def self_attention(Q, K, V, mask=None):\n"
            "    \"\"\"Return (output, weights) of scaled dot-product attention; mask is True where allowed.\"\"\"\n"
            "    scores = attention_scores(Q, K)\n"
            "    if mask is not None:\n"
            "        scores = scores.masked_fill(~mask, 0)\n"
            "    weights = softmax(scores, dim=-1)\n"
            "    return weights @ V, weights\n"
        ),
        test_cell="check_self_attention",
        mistake="Set the forbidden scores to 0 instead of -inf, so after the softmax the masked "
                "positions still get weight e^0 / sum.",
        names_it=(("-inf",), ("inf",), ("infinity",), ("-∞",), ("zero score",), ("nonzero",),
                  ("non-zero",), ("not zero",)),
    ),
    # ---------------------------------------------------------------- causal_mask
    Blind(
        name="mask_upper_triangle",
        cell="causal_mask",
        source=(
            "def causal_mask(n):\n"
            "    \"\"\"(n, n) bool tensor, True where query i may attend to key j (j <= i).\"\"\"\n"
            "    return torch.triu(torch.ones(n, n, dtype=torch.bool))\n"
        ),
        test_cell="check_causal_mask",
        mistake="Used torch.triu: the upper triangle lets each word see the future and hides the past.",
        names_it=(("upper",), ("lower",), ("future",), ("transpos",)),
    ),
    Blind(
        name="mask_no_diagonal",
        cell="causal_mask",
        source=(
            "def causal_mask(n):\n"
            "    \"\"\"(n, n) bool tensor, True where query i may attend to key j (j <= i).\"\"\"\n"
            "    return torch.tril(torch.ones(n, n, dtype=torch.bool), diagonal=-1)\n"
        ),
        test_cell="check_causal_mask",
        mistake="Excluded the diagonal (j < i instead of j <= i), so a word cannot attend to itself "
                "and the first row is all False.",
        names_it=(("diagonal",), ("itself",), ("j <= i",)),
    ),
    Blind(
        name="mask_float_not_bool",
        cell="causal_mask",
        source=(
            "def causal_mask(n):\n"
            "    \"\"\"(n, n) bool tensor, True where query i may attend to key j (j <= i).\"\"\"\n"
            "    return torch.tril(torch.ones(n, n))\n"
        ),
        test_cell="check_causal_mask",
        mistake="Returned a float tensor of 0s and 1s instead of a bool tensor.",
        names_it=(("bool",), ("dtype",)),
    ),
    Blind(
        name="mask_one_future_step",
        cell="causal_mask",
        source=(
            "def causal_mask(n):\n"
            "    \"\"\"(n, n) bool tensor, True where query i may attend to key j (j <= i).\"\"\"\n"
            "    i = torch.arange(n)\n"
            "    return i[None, :] <= i[:, None] + 1\n"
        ),
        test_cell="check_causal_mask",
        mistake="Off by one in the comparison: allows j <= i + 1, so every word also sees the next "
                "word (one step above the diagonal).",
        names_it=(("diagonal",), ("future",), ("next word",), ("above",), ("j <= i",)),
    ),
    # ---------------------------------------------------------------- space_invader
    Blind(
        name="si_zero_after_softmax",
        cell="space_invader",
        source=(
            "space_invader_weights = softmax(si_scores, dim=-1) * causal_mask(4)\n"
            "print(space_invader_weights)\n"
        ),
        test_cell="check_space_invader",
        mistake="Took the softmax of all scores and then zeroed the future weights, so the rows no "
                "longer sum to 1 (the mask must go in before the softmax).",
        names_it=(("before",), ("after the softmax",), ("sum to 1",), ("sum to one",),
                  ("renormali",)),
    ),
    Blind(
        name="si_scaled_again",
        cell="space_invader",
        source=(
            "masked = si_scores.masked_fill(~causal_mask(4), float(\"-inf\"))\n"
            "space_invader_weights = softmax(masked / math.sqrt(4), dim=-1)\n"
            "print(space_invader_weights)\n"
        ),
        test_cell="check_space_invader",
        mistake="Divided the slide's scores by sqrt(4) again, although they are already scaled.",
        names_it=(("already scaled",), ("scale",), ("sqrt",), ("square root",), ("divid",)),
    ),
    Blind(
        name="si_mask_inverted",
        cell="space_invader",
        source=(
            "masked = si_scores.masked_fill(causal_mask(4), float(\"-inf\"))\n"
            "space_invader_weights = softmax(masked, dim=-1)\n"
            "print(space_invader_weights)\n"
        ),
        test_cell="check_space_invader",
        mistake="Filled -inf where the causal mask is True (the allowed past) instead of where it is "
                "False, so rows hide the past and the last row is all -inf (nan).",
        names_it=(("~",), ("invert",), ("opposite",), ("true",), ("allowed",), ("future",),
                  ("nan",)),
    ),
    Blind(
        name="si_no_mask",
        cell="space_invader",
        source=(
            "space_invader_weights = softmax(si_scores, dim=-1)\n"
            "print(space_invader_weights)\n"
        ),
        test_cell="check_space_invader",
        mistake="Forgot to apply the causal mask: every word still attends to future words.",
        names_it=(("mask",), ("future",), ("causal",)),
    ),
    # ---------------------------------------------------------------- brown_dog
    Blind(
        name="brown_no_scaling",
        cell="brown_dog",
        source=(
            "brown_dog_weights = softmax(brown_scores)\n"
            "print(brown_dog_weights)\n"
        ),
        test_cell="check_brown_dog",
        mistake="Took the softmax of the raw scores without dividing by sqrt(64) = 8.",
        names_it=(("sqrt",), ("square root",), ("scale",), ("divid",), ("√",)),
    ),
    Blind(
        name="brown_divided_by_64",
        cell="brown_dog",
        source=(
            "d_k = 64\n"
            "brown_dog_weights = softmax(brown_scores / d_k)\n"
            "print(brown_dog_weights)\n"
        ),
        test_cell="check_brown_dog",
        mistake="Divided the scores by d_k = 64 instead of by sqrt(64) = 8.",
        names_it=(("sqrt",), ("square root",), ("by 64",), ("instead of 8",), ("√",)),
    ),
    Blind(
        name="brown_scaled_after_softmax",
        cell="brown_dog",
        source=(
            "brown_dog_weights = softmax(brown_scores) / math.sqrt(64)\n"
            "print(brown_dog_weights)\n"
        ),
        test_cell="check_brown_dog",
        mistake="Divided by sqrt(64) after the softmax instead of before it: the weights are the "
                "unscaled softmax shrunk by 8 and sum to 1/8.",
        names_it=(("before",), ("after the softmax",), ("order",), ("sum to 1",), ("sum to one",)),
    ),
]


ALTERNATIVES = {
    "explicit_loops": {
        "table_scores": (
            "q_machines = Q[3]\n"
            "scores = []\n"
            "for j in range(len(words)):\n"
            "    s = 0.0\n"
            "    for d in range(q_machines.shape[0]):\n"
            "        s += float(q_machines[d]) * float(K[j, d])\n"
            "    scores.append(s)\n"
            "machines_scores = torch.tensor(scores, dtype=torch.float64)\n"
            "print(machines_scores)\n"
        ),
        "table_scaled": (
            "d_k = K.shape[1]\n"
            "machines_scaled = torch.tensor([s / math.sqrt(d_k) for s in machines_scores.tolist()],\n"
            "                               dtype=torch.float64)\n"
            "print(machines_scaled)\n"
        ),
        "table_weights": (
            "exps = [math.exp(s) for s in machines_scaled.tolist()]\n"
            "total = 0.0\n"
            "for e in exps:\n"
            "    total += e\n"
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
            "z_machines = torch.zeros(V.shape[1], dtype=V.dtype)\n"
            "for row in machines_weighted_values:\n"
            "    z_machines = z_machines + row\n"
            "print(z_machines)\n"
        ),
        "attention_scores": (
            "def attention_scores(Q, K):\n"
            "    \"\"\"Scaled dot-product scores: Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k).\"\"\"\n"
            "    *lead, n_q, d_k = Q.shape\n"
            "    n_k = K.shape[-2]\n"
            "    lead = torch.broadcast_shapes(tuple(lead), tuple(K.shape[:-2]))\n"
            "    Qf = Q.expand(*lead, n_q, d_k).reshape(-1, n_q, d_k)\n"
            "    Kf = K.expand(*lead, n_k, d_k).reshape(-1, n_k, d_k)\n"
            "    out = torch.empty(Qf.shape[0], n_q, n_k, dtype=Q.dtype, device=Q.device)\n"
            "    for b in range(Qf.shape[0]):\n"
            "        for i in range(n_q):\n"
            "            out[b, i] = (Kf[b] * Qf[b, i]).sum(dim=-1) / math.sqrt(d_k)\n"
            "    return out.reshape(*lead, n_q, n_k)\n"
        ),
        "softmax": (
            "def softmax(x, dim=-1):\n"
            "    \"\"\"Numerically stable softmax of x along dim.\"\"\"\n"
            "    moved = x.movedim(dim, -1)\n"
            "    flat = moved.reshape(-1, moved.shape[-1])\n"
            "    out = torch.empty_like(flat)\n"
            "    for r in range(flat.shape[0]):\n"
            "        row = flat[r]\n"
            "        e = torch.exp(row - row.max())\n"
            "        out[r] = e / e.sum()\n"
            "    return out.reshape(moved.shape).movedim(-1, dim)\n"
        ),
        "self_attention": (
            "def self_attention(Q, K, V, mask=None):\n"
            "    \"\"\"Return (output, weights) of scaled dot-product attention; mask is True where allowed.\"\"\"\n"
            "    scores = attention_scores(Q, K)\n"
            "    if mask is not None:\n"
            "        mask = torch.broadcast_to(mask, scores.shape)\n"
            "        scores = scores.clone()\n"
            "        scores[~mask] = float(\"-inf\")\n"
            "    weights = softmax(scores, dim=-1)\n"
            "    output = weights @ V\n"
            "    return output, weights\n"
        ),
        "causal_mask": (
            "def causal_mask(n):\n"
            "    \"\"\"(n, n) bool tensor, True where query i may attend to key j (j <= i).\"\"\"\n"
            "    m = torch.zeros(n, n, dtype=torch.bool)\n"
            "    for i in range(n):\n"
            "        for j in range(i + 1):\n"
            "            m[i, j] = True\n"
            "    return m\n"
        ),
        "space_invader": (
            "rows = []\n"
            "for i in range(4):\n"
            "    visible = si_scores[i, : i + 1]\n"
            "    e = torch.exp(visible - visible.max())\n"
            "    w = torch.zeros(4, dtype=si_scores.dtype)\n"
            "    w[: i + 1] = e / e.sum()\n"
            "    rows.append(w)\n"
            "space_invader_weights = torch.stack(rows)\n"
            "print(space_invader_weights)\n"
        ),
        "brown_dog": (
            "scaled = [s / math.sqrt(64) for s in brown_scores.tolist()]\n"
            "top = max(scaled)\n"
            "exps = [math.exp(s - top) for s in scaled]\n"
            "brown_dog_weights = torch.tensor([e / sum(exps) for e in exps], dtype=torch.float64)\n"
            "print(brown_dog_weights)\n"
        ),
    },
    "keywords_einsum": {
        "table_scores": (
            "machines_scores = torch.mv(K, Q[-1])\n"
            "print(machines_scores)\n"
        ),
        "table_scaled": (
            "machines_scaled = torch.div(machines_scores, Q.shape[-1] ** 0.5)\n"
            "print(machines_scaled)\n"
        ),
        "table_weights": (
            "machines_weights = torch.exp(machines_scaled) / torch.sum(torch.exp(machines_scaled), dim=0)\n"
            "print(machines_weights, \"sum =\", float(machines_weights.sum()))\n"
        ),
        "table_weighted": (
            "machines_weighted_values = V * machines_weights.unsqueeze(dim=1)\n"
            "print(machines_weighted_values)\n"
        ),
        "table_z": (
            "z_machines = torch.sum(machines_weighted_values, dim=0)\n"
            "print(z_machines)\n"
        ),
        "attention_scores": (
            "def attention_scores(Q, K):\n"
            "    \"\"\"Scaled dot-product scores: Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k).\"\"\"\n"
            "    return torch.einsum(\"...qd,...kd->...qk\", Q, K) * Q.size(-1) ** -0.5\n"
        ),
        "softmax": (
            "def softmax(x, dim=-1):\n"
            "    \"\"\"Numerically stable softmax of x along dim.\"\"\"\n"
            "    shifted = torch.sub(x, torch.amax(x, dim=dim, keepdim=True))\n"
            "    numer = torch.exp(shifted)\n"
            "    return torch.div(numer, torch.sum(numer, dim=dim, keepdim=True))\n"
        ),
        "self_attention": (
            "def self_attention(Q, K, V, mask=None):\n"
            "    \"\"\"Return (output, weights) of scaled dot-product attention; mask is True where allowed.\"\"\"\n"
            "    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(K.shape[-1])\n"
            "    if mask is not None:\n"
            "        scores = torch.where(mask, scores, torch.full_like(scores, float(\"-inf\")))\n"
            "    weights = softmax(x=scores, dim=-1)\n"
            "    return torch.matmul(weights, V), weights\n"
        ),
        "causal_mask": (
            "def causal_mask(n):\n"
            "    \"\"\"(n, n) bool tensor, True where query i may attend to key j (j <= i).\"\"\"\n"
            "    idx = torch.arange(n)\n"
            "    return idx.unsqueeze(1) >= idx.unsqueeze(0)\n"
        ),
        "space_invader": (
            "space_invader_weights = softmax(\n"
            "    torch.where(causal_mask(n=4), si_scores, torch.tensor(float(\"-inf\"), dtype=si_scores.dtype)),\n"
            "    dim=1,\n"
            ")\n"
            "print(space_invader_weights)\n"
        ),
        "brown_dog": (
            "brown_dog_weights = softmax(x=brown_scores / 8.0, dim=0)   # sqrt(64) = 8\n"
            "print(brown_dog_weights)\n"
        ),
    },
    "numpy_inside": {
        "table_scores": (
            "import numpy as np\n"
            "machines_scores = torch.from_numpy(K.numpy() @ Q.numpy()[3])\n"
            "print(machines_scores)\n"
        ),
        "table_scaled": (
            "import numpy as np\n"
            "machines_scaled = torch.from_numpy(np.asarray(machines_scores) / np.sqrt(2.0))\n"
            "print(machines_scaled)\n"
        ),
        "table_weights": (
            "import numpy as np\n"
            "e = np.exp(machines_scaled.numpy())\n"
            "machines_weights = torch.from_numpy(e / e.sum())\n"
            "print(machines_weights, \"sum =\", float(machines_weights.sum()))\n"
        ),
        "table_weighted": (
            "import numpy as np\n"
            "machines_weighted_values = torch.from_numpy(np.einsum(\"j,jd->jd\", machines_weights.numpy(), V.numpy()))\n"
            "print(machines_weighted_values)\n"
        ),
        "table_z": (
            "import numpy as np\n"
            "z_machines = torch.from_numpy(machines_weighted_values.numpy().sum(axis=0))\n"
            "print(z_machines)\n"
        ),
        "causal_mask": (
            "def causal_mask(n):\n"
            "    \"\"\"(n, n) bool tensor, True where query i may attend to key j (j <= i).\"\"\"\n"
            "    import numpy as np\n"
            "    return torch.from_numpy(np.tri(n, dtype=bool))\n"
        ),
        "space_invader": (
            "import numpy as np\n"
            "s = si_scores.numpy().copy()\n"
            "s[np.triu_indices(4, k=1)] = -np.inf\n"
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
    "other_formulations": {
        "table_scores": (
            "machines_scores = (Q[3] * K).sum(dim=1)     # q_4 . k_j for each j\n"
            "print(machines_scores)\n"
        ),
        "table_weights": (
            "# exp(s - logsumexp) written out by hand\n"
            "m = machines_scaled.max()\n"
            "machines_weights = torch.exp(machines_scaled - m - torch.log(torch.exp(machines_scaled - m).sum()))\n"
            "print(machines_weights, \"sum =\", float(machines_weights.sum()))\n"
        ),
        "table_weighted": (
            "machines_weighted_values = torch.diag(machines_weights) @ V\n"
            "print(machines_weighted_values)\n"
        ),
        "table_z": (
            "z_machines = torch.ones(4, dtype=V.dtype) @ machines_weighted_values\n"
            "print(z_machines)\n"
        ),
        "attention_scores": (
            "def attention_scores(Q, K):\n"
            "    \"\"\"Scaled dot-product scores: Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k).\"\"\"\n"
            "    d_k = K.shape[-1]\n"
            "    Q = Q / math.sqrt(d_k)           # scale first, then one matrix product\n"
            "    return Q @ K.mT\n"
        ),
        "softmax": (
            "def softmax(x, dim=-1):\n"
            "    \"\"\"Numerically stable softmax of x along dim.\"\"\"\n"
            "    z = x - x.max(dim, keepdim=True)[0]\n"
            "    log_norm = z.exp().sum(dim, keepdim=True).log()\n"
            "    return (z - log_norm).exp()\n"
        ),
        "self_attention": (
            "def self_attention(Q, K, V, mask=None):\n"
            "    \"\"\"Return (output, weights) of scaled dot-product attention; mask is True where allowed.\"\"\"\n"
            "    scores = attention_scores(Q, K)\n"
            "    if mask is not None:\n"
            "        bias = torch.zeros(mask.shape, dtype=scores.dtype, device=scores.device)\n"
            "        bias = bias.masked_fill(mask.logical_not(), float(\"-inf\"))\n"
            "        scores = scores + bias\n"
            "    weights = softmax(scores)\n"
            "    output = torch.einsum(\"...qk,...kd->...qd\", weights, V)\n"
            "    return (output, weights)\n"
        ),
        "causal_mask": (
            "def causal_mask(n):\n"
            "    \"\"\"(n, n) bool tensor, True where query i may attend to key j (j <= i).\"\"\"\n"
            "    return ~torch.ones(n, n, dtype=torch.bool).triu(diagonal=1)\n"
        ),
        "space_invader": (
            "masked = si_scores + torch.log(causal_mask(4).to(si_scores.dtype))   # log 0 = -inf\n"
            "space_invader_weights = softmax(masked, dim=-1)\n"
            "print(space_invader_weights)\n"
        ),
        "brown_dog": (
            "brown_dog_weights = softmax(brown_scores[None, :] / torch.sqrt(torch.tensor(64.0, dtype=torch.float64)))[0]\n"
            "print(brown_dog_weights)\n"
        ),
    },
    "plain_list_scores": {
        "table_scores": (
            "q = Q[3].tolist()\n"
            "machines_scores = [sum(a * b for a, b in zip(q, k)) for k in K.tolist()]\n"
            "print(machines_scores)\n"
        ),
        "table_scaled": (
            "machines_scaled = torch.as_tensor(machines_scores, dtype=torch.float64) / math.sqrt(2)\n"
            "print(machines_scaled)\n"
        ),
    },
}
