"""Fifth blind set for notebook 02, section 11 (skip-gram with negative sampling), written from the student notebook only."""
from blind_case import Blind

NOTEBOOK = "02_ffnn_lm"

BLIND = [
    # ---------------------------------------------------------------- skipgram_pairs
    Blind(name="pairs_right_edge_short", cell="skipgram_pairs", test_cell="check_skipgram_pairs",
          source='''def skipgram_pairs(ids, window):
    """[(center id, context id), ...]: each word with every word up to window positions before and after it."""
    pairs = []
    for i in range(len(ids)):
        for j in range(i - window, i + window):
            if j != i and 0 <= j < len(ids):
                pairs.append((ids[i], ids[j]))
    return pairs
''',
          mistake="The inner range stops at i + window - 1 (range excludes its end), so the word exactly window positions to the right is never a context: off by one on the right side only.",
          names_it=(("window positions", "after"), ("right",), ("off by one",), ("missing", "pair"), ("too few",)),
          part="the right end of the window"),
    Blind(name="pairs_with_itself", cell="skipgram_pairs", test_cell="check_skipgram_pairs",
          source='''def skipgram_pairs(ids, window):
    """[(center id, context id), ...]: each word with every word up to window positions before and after it."""
    pairs = []
    for i in range(len(ids)):
        for j in range(max(0, i - window), min(len(ids), i + window + 1)):
            pairs.append((ids[i], ids[j]))
    return pairs
''',
          mistake="Forgets to skip j == i, so every word is also paired with itself at its own position.",
          names_it=(("itself",), ("own position",), ("same position",), ("j == i",), ("too many",)),
          part="excluding the center position"),
    Blind(name="pairs_skip_same_id", cell="skipgram_pairs", test_cell="check_skipgram_pairs",
          source='''def skipgram_pairs(ids, window):
    """[(center id, context id), ...]: each word with every word up to window positions before and after it."""
    pairs = []
    for i, center in enumerate(ids):
        for j in range(max(0, i - window), min(len(ids), i + window + 1)):
            if ids[j] != center:
                pairs.append((center, ids[j]))
    return pairs
''',
          mistake="Excludes the center by comparing word ids instead of positions, so a repeated word (the two 'the' in 'the file and the path') is never paired with its other occurrence.",
          names_it=(("repeated",), ("same word",), ("position", "not", "id"), ("other occurrence",)),
          part="excluding by id instead of by position"),
    Blind(name="pairs_forward_only", cell="skipgram_pairs", test_cell="check_skipgram_pairs",
          source='''def skipgram_pairs(ids, window):
    """[(center id, context id), ...]: each word with every word up to window positions before and after it."""
    pairs = []
    for i in range(len(ids)):
        for j in range(i + 1, min(len(ids), i + window + 1)):
            pairs.append((ids[i], ids[j]))
    return pairs
''',
          mistake="Only pairs each center with the words after it, never with the words before it (half the pairs).",
          names_it=(("before",), ("left",), ("both sides",), ("half",), ("(3, 7)",)),
          part="the context words before the center"),
    Blind(name="pairs_no_edge_centers", cell="skipgram_pairs", test_cell="check_skipgram_pairs",
          source='''def skipgram_pairs(ids, window):
    """[(center id, context id), ...]: each word with every word up to window positions before and after it."""
    pairs = []
    for i in range(window, len(ids) - window):
        for j in range(i - window, i + window + 1):
            if j != i:
                pairs.append((ids[i], ids[j]))
    return pairs
''',
          mistake="Only uses centers that have a full window on both sides, so the words near the ends of the sentence are never centers (and short sentences give no pairs at all).",
          names_it=(("edge",), ("ends",), ("first word",), ("last word",), ("fewer neighbours",), ("short sentence",)),
          part="centers at the ends of the sentence"),
    Blind(name="pairs_negative_index_wraps", cell="skipgram_pairs", test_cell="check_skipgram_pairs",
          source='''def skipgram_pairs(ids, window):
    """[(center id, context id), ...]: each word with every word up to window positions before and after it."""
    pairs = []
    for i in range(len(ids)):
        for j in range(i - window, i + window + 1):
            if j == i or j >= len(ids):
                continue
            pairs.append((ids[i], ids[j]))
    return pairs
''',
          mistake="Checks only the right end of the sentence: for the first words j goes negative and Python's ids[-1] wraps around, pairing them with words from the end of the sentence.",
          names_it=(("negative index",), ("wrap",), ("beginning",), ("start", "sentence"), ("j < 0",), ("end of the sentence",)),
          part="the left edge of the sentence"),
    Blind(name="pairs_slice_negative_start", cell="skipgram_pairs", test_cell="check_skipgram_pairs",
          source='''def skipgram_pairs(ids, window):
    """[(center id, context id), ...]: each word with every word up to window positions before and after it."""
    pairs = []
    for i, c in enumerate(ids):
        context = ids[i - window:i] + ids[i + 1:i + window + 1]
        pairs += [(c, o) for o in context]
    return pairs
''',
          mistake="Slices ids[i - window:i] for the left context: when i < window the start is negative, the slice is empty, so the first words lose their left neighbours.",
          names_it=(("slice",), ("negative",), ("left", "start"), ("beginning",), ("before", "first")),
          part="left context of the first words"),
    Blind(name="pairs_window_as_width", cell="skipgram_pairs", test_cell="check_skipgram_pairs",
          source='''def skipgram_pairs(ids, window):
    """[(center id, context id), ...]: each word with every word up to window positions before and after it."""
    half = window // 2
    pairs = []
    for i in range(len(ids)):
        for j in range(max(0, i - half), min(len(ids), i + half + 1)):
            if j != i:
                pairs.append((ids[i], ids[j]))
    return pairs
''',
          mistake="Reads window as the total width of the window and goes only window // 2 positions to each side (window = 1 gives no pairs at all).",
          names_it=(("window positions", "each side"), ("before and after",), ("window = 1",), ("half",), ("too few",)),
          part="how far the window reaches"),
    Blind(name="pairs_dedup_set", cell="skipgram_pairs", test_cell="check_skipgram_pairs",
          source='''def skipgram_pairs(ids, window):
    """[(center id, context id), ...]: each word with every word up to window positions before and after it."""
    pairs = set()
    for i in range(len(ids)):
        for j in range(max(0, i - window), min(len(ids), i + window + 1)):
            if i != j:
                pairs.add((ids[i], ids[j]))
    return list(pairs)
''',
          mistake="Collects the pairs in a set, so a pair that occurs twice (possible when a word is repeated) is counted once: the pairs are a multiset, each occurrence is a training example.",
          names_it=(("duplicate",), ("twice",), ("set",), ("repeated",), ("each occurrence",), ("count",)),
          part="repeated pairs"),
    Blind(name="pairs_positions_not_ids", cell="skipgram_pairs", test_cell="check_skipgram_pairs",
          source='''def skipgram_pairs(ids, window):
    """[(center id, context id), ...]: each word with every word up to window positions before and after it."""
    pairs = []
    for i in range(len(ids)):
        for j in range(max(0, i - window), min(len(ids), i + window + 1)):
            if j != i:
                pairs.append((i, j))
    return pairs
''',
          mistake="Appends the positions (i, j) instead of the word ids (ids[i], ids[j]).",
          names_it=(("position",), ("ids[i]",), ("word id",), ("index", "instead")),
          part="ids versus positions"),
    Blind(name="pairs_last_word_not_center", cell="skipgram_pairs", test_cell="check_skipgram_pairs",
          source='''def skipgram_pairs(ids, window):
    """[(center id, context id), ...]: each word with every word up to window positions before and after it."""
    pairs = []
    for i in range(len(ids) - 1):
        lo, hi = max(0, i - window), min(len(ids), i + window + 1)
        for j in range(lo, hi):
            if j != i:
                pairs.append((ids[i], ids[j]))
    return pairs
''',
          mistake="The loop over centers stops one early (range(len(ids) - 1)), so the last word of the sentence is never a center.",
          names_it=(("last word",), ("every center",), ("each word", "center"), ("off by one",), ("(9, 3)",)),
          part="the last center"),

    # ---------------------------------------------------------------- negative_distribution
    Blind(name="negdist_no_power", cell="negative_distribution", test_cell="check_negative_distribution",
          source='''def negative_distribution(counts):
    """(V,) float probabilities: count ** 0.75, renormalised to sum to 1."""
    counts = counts.float()
    return counts / counts.sum()
''',
          mistake="Returns the plain unigram distribution: forgets to raise the counts to the power 3/4.",
          names_it=(("3/4",), ("0.75",), ("power",), ("unigram",)),
          part="the 3/4 power"),
    Blind(name="negdist_power_after_normalising", cell="negative_distribution", test_cell="check_negative_distribution",
          source='''def negative_distribution(counts):
    """(V,) float probabilities: count ** 0.75, renormalised to sum to 1."""
    unigram = counts.float() / counts.sum()
    return unigram ** 0.75
''',
          mistake="Normalises first and raises to 3/4 afterwards, so the result no longer sums to 1.",
          names_it=(("sum to 1",), ("sums to",), ("renormalis",), ("normalis", "after")),
          part="the order of power and normalisation"),
    Blind(name="negdist_not_renormalised", cell="negative_distribution", test_cell="check_negative_distribution",
          source='''def negative_distribution(counts):
    """(V,) float probabilities: count ** 0.75, renormalised to sum to 1."""
    return counts.float() ** 0.75
''',
          mistake="Raises the counts to 3/4 but never divides by their sum: not a probability distribution.",
          names_it=(("sum to 1",), ("sums to",), ("renormalis",), ("divide",)),
          part="the renormalisation"),
    Blind(name="negdist_integer_division_power", cell="negative_distribution", test_cell="check_negative_distribution",
          source='''def negative_distribution(counts):
    """(V,) float probabilities: count ** 0.75, renormalised to sum to 1."""
    powered = counts.float() ** (3 // 4)
    return powered / powered.sum()
''',
          mistake="Writes the power as 3 // 4, which is integer division and equals 0: every count becomes 1 (even 0 ** 0), so the result is uniform.",
          names_it=(("uniform",), ("3 // 4",), ("power",), ("0.75",), ("zero count",), ("counted 0",)),
          part="the exponent"),
    Blind(name="negdist_precedence", cell="negative_distribution", test_cell="check_negative_distribution",
          source='''def negative_distribution(counts):
    """(V,) float probabilities: count ** 0.75, renormalised to sum to 1."""
    powered = counts.float() ** 3/4
    return powered / powered.sum()
''',
          mistake="Writes counts ** 3/4 without brackets: ** binds tighter than /, so it computes counts cubed divided by 4, a far too peaked distribution.",
          names_it=(("3/4",), ("0.75",), ("power",), ("bracket",), ("precedence",)),
          part="the exponent"),
    Blind(name="negdist_times_not_power", cell="negative_distribution", test_cell="check_negative_distribution",
          source='''def negative_distribution(counts):
    """(V,) float probabilities: count ** 0.75, renormalised to sum to 1."""
    powered = counts * 0.75
    return powered / powered.sum()
''',
          mistake="Multiplies the counts by 0.75 instead of raising them to the power 0.75; after normalising this is just the unigram distribution.",
          names_it=(("power",), ("0.75",), ("3/4",), ("unigram",), ("multipl",)),
          part="the exponent"),
    Blind(name="negdist_inverse_power", cell="negative_distribution", test_cell="check_negative_distribution",
          source='''def negative_distribution(counts):
    """(V,) float probabilities: count ** 0.75, renormalised to sum to 1."""
    powered = counts.float() ** (4 / 3)
    return powered / powered.sum()
''',
          mistake="Uses the power 4/3 instead of 3/4, which sharpens the distribution instead of flattening it.",
          names_it=(("3/4",), ("0.75",), ("power",), ("flatten",)),
          part="the exponent"),
    Blind(name="negdist_add_one", cell="negative_distribution", test_cell="check_negative_distribution",
          source='''def negative_distribution(counts):
    """(V,) float probabilities: count ** 0.75, renormalised to sum to 1."""
    powered = (counts.float() + 1) ** 0.75  # +1 so that no word has probability zero
    return powered / powered.sum()
''',
          mistake="Adds one to every count (add-one smoothing habit from notebook 01), so a word counted 0 times gets a positive probability and every other share shifts.",
          names_it=(("counted 0",), ("zero count",), ("0 times",), ("smoothing",), ("probability 0",), ("never seen",)),
          part="words with count 0"),
    Blind(name="negdist_softmax", cell="negative_distribution", test_cell="check_negative_distribution",
          source='''def negative_distribution(counts):
    """(V,) float probabilities: count ** 0.75, renormalised to sum to 1."""
    return torch.softmax(counts.float() ** 0.75, dim=0)
''',
          mistake="Normalises with softmax (exponentiates the powered counts) instead of dividing by their sum.",
          names_it=(("softmax",), ("exp",), ("divide", "sum"), ("renormalis",)),
          part="the normalisation"),
    Blind(name="negdist_max_normalised", cell="negative_distribution", test_cell="check_negative_distribution",
          source='''def negative_distribution(counts):
    """(V,) float probabilities: count ** 0.75, renormalised to sum to 1."""
    powered = counts.float() ** 0.75
    return powered / powered.max()
''',
          mistake="Divides by the largest value instead of the sum, so the most frequent word gets 1.0 and the total is above 1.",
          names_it=(("sum to 1",), ("sums to",), ("max",), ("renormalis",)),
          part="the normalisation"),
    Blind(name="negdist_inplace_int", cell="negative_distribution", test_cell="check_negative_distribution",
          source='''def negative_distribution(counts):
    """(V,) float probabilities: count ** 0.75, renormalised to sum to 1."""
    counts.pow_(0.75)
    return counts / counts.sum()
''',
          mistake="Raises the integer count tensor to 0.75 in place: an integer tensor cannot hold the float result (error), and even for floats it would overwrite the caller's counts.",
          names_it=(("in place",), ("in-place",), ("integer",), ("long",), ("float",), ("pow_",)),
          part="in-place power on the integer counts"),
    Blind(name="negdist_numpy", cell="negative_distribution", test_cell="check_negative_distribution",
          source='''import numpy as np


def negative_distribution(counts):
    """(V,) float probabilities: count ** 0.75, renormalised to sum to 1."""
    powered = np.power(counts.numpy().astype(float), 0.75)
    return powered / powered.sum()
''',
          mistake="Computes the distribution in numpy and returns a numpy array (float64), not a torch tensor.",
          names_it=(("tensor",), ("numpy",), ("ndarray",), ("type",)),
          part="the return type"),

    # ---------------------------------------------------------------- draw_negatives
    Blind(name="draw_no_replacement", cell="draw_negatives", test_cell="check_draw_negatives",
          source='''def draw_negatives(distribution, num_pairs, k):
    """(num_pairs, k) word ids, each drawn with probability distribution[id], with replacement."""
    return torch.multinomial(distribution, num_pairs * k).view(num_pairs, k)
''',
          mistake="Forgets replacement=True: torch.multinomial draws without replacement by default, so it cannot draw more words than the vocabulary has (error).",
          names_it=(("replacement",), ("replacement=true",)),
          part="drawing with replacement"),
    Blind(name="draw_flat_shape", cell="draw_negatives", test_cell="check_draw_negatives",
          source='''def draw_negatives(distribution, num_pairs, k):
    """(num_pairs, k) word ids, each drawn with probability distribution[id], with replacement."""
    return torch.multinomial(distribution, num_pairs * k, replacement=True)
''',
          mistake="Draws the right number of words but returns them flat, shape (num_pairs * k,), instead of (num_pairs, k).",
          names_it=(("shape",), ("(num_pairs, k)",), ("reshape",), ("view",)),
          part="the output shape"),
    Blind(name="draw_transposed_shape", cell="draw_negatives", test_cell="check_draw_negatives",
          source='''def draw_negatives(distribution, num_pairs, k):
    """(num_pairs, k) word ids, each drawn with probability distribution[id], with replacement."""
    rows = distribution.unsqueeze(0).expand(k, -1)
    return torch.multinomial(rows, num_pairs, replacement=True)
''',
          mistake="Gives multinomial k rows of num_pairs draws, so the result has shape (k, num_pairs), transposed.",
          names_it=(("shape",), ("(num_pairs, k)",), ("transpose",), ("swapped",)),
          part="the output shape"),
    Blind(name="draw_powered_again", cell="draw_negatives", test_cell="check_draw_negatives",
          source='''def draw_negatives(distribution, num_pairs, k):
    """(num_pairs, k) word ids, each drawn with probability distribution[id], with replacement."""
    probs = distribution ** 0.75
    probs = probs / probs.sum()
    return torch.multinomial(probs, num_pairs * k, replacement=True).view(num_pairs, k)
''',
          mistake="Raises the distribution to 3/4 again, although it is already powered: the words are drawn from a flatter distribution than the one given.",
          names_it=(("again",), ("already",), ("twice",), ("0.75",), ("3/4",), ("frequen",)),
          part="the distribution sampled from"),
    Blind(name="draw_uniform", cell="draw_negatives", test_cell="check_draw_negatives",
          source='''def draw_negatives(distribution, num_pairs, k):
    """(num_pairs, k) word ids, each drawn with probability distribution[id], with replacement."""
    return torch.randint(0, len(distribution), (num_pairs, k))
''',
          mistake="Draws word ids uniformly at random, ignoring the probabilities in distribution.",
          names_it=(("uniform",), ("distribution[id]",), ("probabilit",), ("frequen",), ("ignor",)),
          part="the distribution sampled from"),
    Blind(name="draw_same_row_repeated", cell="draw_negatives", test_cell="check_draw_negatives",
          source='''def draw_negatives(distribution, num_pairs, k):
    """(num_pairs, k) word ids, each drawn with probability distribution[id], with replacement."""
    row = torch.multinomial(distribution, k, replacement=True)
    return row.repeat(num_pairs, 1)
''',
          mistake="Draws only k words once and repeats that row for every pair: the pairs do not get independent negatives.",
          names_it=(("independent",), ("same negatives",), ("every pair",), ("repeat",), ("identical",), ("each pair",)),
          part="drawing independently for each pair"),
    Blind(name="draw_rows_no_replacement", cell="draw_negatives", test_cell="check_draw_negatives",
          source='''def draw_negatives(distribution, num_pairs, k):
    """(num_pairs, k) word ids, each drawn with probability distribution[id], with replacement."""
    rows = distribution.expand(num_pairs, -1)
    return torch.multinomial(rows, k)
''',
          mistake="Draws each row of k from the expanded distribution but without replacement, so no word appears twice in a row and frequent words come out less often than their probability.",
          names_it=(("replacement",), ("twice",), ("frequen", "too"), ("less often",)),
          part="drawing with replacement"),
    Blind(name="draw_softmax_distribution", cell="draw_negatives", test_cell="check_draw_negatives",
          source='''def draw_negatives(distribution, num_pairs, k):
    """(num_pairs, k) word ids, each drawn with probability distribution[id], with replacement."""
    probs = torch.softmax(distribution, dim=0)
    return torch.multinomial(probs, num_pairs * k, replacement=True).reshape(num_pairs, k)
''',
          mistake="Passes the distribution through softmax first (as if it were scores), which makes it nearly uniform instead of drawing with the given probabilities.",
          names_it=(("softmax",), ("uniform",), ("distribution[id]",), ("already", "probabilit"), ("frequen",)),
          part="the distribution sampled from"),
    Blind(name="draw_k_plus_one", cell="draw_negatives", test_cell="check_draw_negatives",
          source='''def draw_negatives(distribution, num_pairs, k):
    """(num_pairs, k) word ids, each drawn with probability distribution[id], with replacement."""
    # one column for the context word plus k negatives
    return torch.multinomial(distribution, num_pairs * (k + 1), replacement=True).view(num_pairs, k + 1)
''',
          mistake="Draws k + 1 words per pair (thinking of the context word as an extra slot), so the shape is (num_pairs, k + 1).",
          names_it=(("shape",), ("k + 1",), ("(num_pairs, k)",), ("too many",), ("count",)),
          part="the number of negatives per pair"),
    Blind(name="draw_shifted_cdf", cell="draw_negatives", test_cell="check_draw_negatives",
          source='''def draw_negatives(distribution, num_pairs, k):
    """(num_pairs, k) word ids, each drawn with probability distribution[id], with replacement."""
    starts = torch.cumsum(distribution, dim=0) - distribution  # where each word's interval starts
    u = torch.rand(num_pairs, k)
    return torch.searchsorted(starts, u)
''',
          mistake="Inverse-CDF sampling against the interval starts instead of the ends: searchsorted returns the index of the next word, so every draw is shifted by one (and can be V, past the vocabulary).",
          names_it=(("off by one",), ("shift",), ("out of range",), ("distribution[id]",), ("frequen",), ("wrong word",)),
          part="the cumulative-distribution lookup"),
    Blind(name="draw_numpy_choice", cell="draw_negatives", test_cell="check_draw_negatives",
          source='''import numpy as np


def draw_negatives(distribution, num_pairs, k):
    """(num_pairs, k) word ids, each drawn with probability distribution[id], with replacement."""
    p = distribution.double().numpy()
    p = p / p.sum()
    return np.random.choice(len(p), size=(num_pairs, k), replace=True, p=p)
''',
          mistake="Draws with numpy's random.choice and returns a numpy array, not a long torch tensor.",
          names_it=(("tensor",), ("numpy",), ("ndarray",), ("long",), ("type",)),
          part="the return type"),
    Blind(name="draw_float_ids", cell="draw_negatives", test_cell="check_draw_negatives",
          source='''def draw_negatives(distribution, num_pairs, k):
    """(num_pairs, k) word ids, each drawn with probability distribution[id], with replacement."""
    out = torch.zeros(num_pairs, k)
    for row in range(num_pairs):
        out[row] = torch.multinomial(distribution, k, replacement=True)
    return out
''',
          mistake="Fills a torch.zeros tensor, which is float32 by default, so the word ids come back as floats instead of a long tensor (and cannot index an embedding table).",
          names_it=(("long",), ("dtype",), ("int64",), ("float",), ("integer",)),
          part="the dtype of the ids"),

    # ---------------------------------------------------------------- sgns_loss
    Blind(name="loss_log_sigmoid_unstable", cell="sgns_loss", test_cell="check_sgns_loss",
          source='''def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    pos = (u_context * v_center).sum(-1)
    neg = (u_negative * v_center[:, None, :]).sum(-1)
    loss = -torch.log(torch.sigmoid(pos)) - torch.log(torch.sigmoid(-neg)).sum(-1)
    return loss.mean()
''',
          mistake="Uses torch.log(torch.sigmoid(x)): for scores of a few hundred sigmoid rounds to 0 and the loss becomes inf (and its gradient nan).",
          names_it=(("logsigmoid",), ("inf",), ("stable",), ("overflow",), ("underflow",), ("large score",), ("nan",)),
          part="numerical stability of log sigma"),
    Blind(name="loss_neg_sign", cell="sgns_loss", test_cell="check_sgns_loss",
          source='''def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    pos = (u_context * v_center).sum(-1)
    neg = (u_negative * v_center[:, None, :]).sum(-1)
    loss = -F.logsigmoid(pos) - F.logsigmoid(neg).sum(-1)
    return loss.mean()
''',
          mistake="Forgets the minus sign inside the second sigma: rewards negatives for scoring high.",
          names_it=(("minus",), ("sign",), ("-u_k",), ("negative", "score", "low")),
          part="sign of the negative scores"),
    Blind(name="loss_pos_sign", cell="sgns_loss", test_cell="check_sgns_loss",
          source='''def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    pos = torch.sum(u_context * v_center, dim=1)
    neg = torch.sum(u_negative * v_center.unsqueeze(1), dim=2)
    loss = -F.logsigmoid(-pos) - F.logsigmoid(-neg).sum(dim=1)
    return loss.mean()
''',
          mistake="Puts the minus sign inside both sigmas, so the real context word is also pushed to score low.",
          names_it=(("sign",), ("minus",), ("context", "score", "high"), ("positive",)),
          part="sign of the positive score"),
    Blind(name="loss_sum_over_batch", cell="sgns_loss", test_cell="check_sgns_loss",
          source='''def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    pos = (u_context * v_center).sum(-1)
    neg = (u_negative * v_center[:, None, :]).sum(-1)
    return -(F.logsigmoid(pos).sum() + F.logsigmoid(-neg).sum())
''',
          mistake="Sums the loss over the batch instead of averaging it over the pairs.",
          names_it=(("mean",), ("average",), ("batch size",), ("sum instead",), ("times b",)),
          part="reduction over the batch"),
    Blind(name="loss_mean_over_negatives", cell="sgns_loss", test_cell="check_sgns_loss",
          source='''def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    pos = (u_context * v_center).sum(-1)
    neg = (u_negative * v_center[:, None, :]).sum(-1)
    loss = -F.logsigmoid(pos) - F.logsigmoid(-neg).mean(-1)
    return loss.mean()
''',
          mistake="Averages the negative terms over the k negatives instead of summing them.",
          names_it=(("sum", "negatives"), ("summed",), ("k negatives",), ("mean", "k"), ("divided by k",)),
          part="reduction over the negatives"),
    Blind(name="loss_mean_everything", cell="sgns_loss", test_cell="check_sgns_loss",
          source='''def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    pos = (u_context * v_center).sum(-1, keepdim=True)          # (B, 1)
    neg = (u_negative * v_center[:, None, :]).sum(-1)           # (B, k)
    terms = torch.cat([F.logsigmoid(pos), F.logsigmoid(-neg)], dim=1)
    return -terms.mean()
''',
          mistake="Concatenates the positive and negative log-sigmas and takes one mean over all B * (k + 1) terms, so the per-pair loss is divided by k + 1.",
          names_it=(("k + 1",), ("summed", "negatives"), ("sum", "k"), ("mean", "pairs"), ("averaged", "over")),
          part="reduction over the negatives"),
    Blind(name="loss_no_negatives", cell="sgns_loss", test_cell="check_sgns_loss",
          source='''def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    scores = (u_context * v_center).sum(dim=-1)
    return -F.logsigmoid(scores).mean()
''',
          mistake="Leaves out the negative term entirely (u_negative is never used).",
          names_it=(("negative term",), ("u_negative",), ("negatives",), ("second term",)),
          part="the negative term"),
    Blind(name="loss_softmax", cell="sgns_loss", test_cell="check_sgns_loss",
          source='''def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    pos = (u_context * v_center).sum(-1, keepdim=True)          # (B, 1)
    neg = (u_negative * v_center[:, None, :]).sum(-1)           # (B, k)
    logits = torch.cat([pos, neg], dim=1)                       # the context word is class 0
    return -torch.log_softmax(logits, dim=1)[:, 0].mean()
''',
          mistake="Uses a softmax over the context word and its k negatives (one (k + 1)-way classification) instead of k + 1 independent sigmoids.",
          names_it=(("sigmoid",), ("softmax",), ("logsigmoid",), ("binary",)),
          part="sigmoid versus softmax"),
    Blind(name="loss_wrong_axis", cell="sgns_loss", test_cell="check_sgns_loss",
          source='''def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    pos = (u_context * v_center).sum(-1)
    neg = (u_negative * v_center[:, None, :]).sum(1)            # (B, d)
    loss = -F.logsigmoid(pos) - F.logsigmoid(-neg).sum(-1)
    return loss.mean()
''',
          mistake="Sums the product of the negatives with v_center over the k axis instead of the d axis, so the 'scores' are (B, d) sums over negatives, not dot products.",
          names_it=(("axis",), ("dim",), ("dot product",), ("(b, k)",), ("sum(-1)",), ("last dim",)),
          part="the axis of the negative dot products"),
    Blind(name="loss_full_matrix", cell="sgns_loss", test_cell="check_sgns_loss",
          source='''def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    pos = v_center @ u_context.T                                # scores u_o . v_c
    neg = (u_negative * v_center[:, None, :]).sum(-1)
    return -F.logsigmoid(pos).mean() - F.logsigmoid(-neg).sum(-1).mean()
''',
          mistake="Computes v_center @ u_context.T, the (B, B) matrix of every center with every context, and averages all of it instead of taking only the diagonal (each pair's own dot product).",
          names_it=(("diagonal",), ("(b, b)",), ("dot product",), ("each pair",), ("row by row",), ("matrix",)),
          part="the positive dot products"),
    Blind(name="loss_item", cell="sgns_loss", test_cell="check_sgns_loss",
          source='''def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    pos = (u_context * v_center).sum(-1)
    neg = (u_negative * v_center[:, None, :]).sum(-1)
    loss = -F.logsigmoid(pos) - F.logsigmoid(-neg).sum(-1)
    return loss.mean().item()
''',
          mistake="Returns loss.mean().item(), a Python float, so there is no tensor and no gradient to backpropagate.",
          names_it=(("gradient",), ("tensor",), ("item",), ("float",), ("backward",)),
          part="the return value carries gradients"),
    Blind(name="loss_clamped_log", cell="sgns_loss", test_cell="check_sgns_loss",
          source='''def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    eps = 1e-7
    pos = (u_context * v_center).sum(-1)
    neg = (u_negative * v_center[:, None, :]).sum(-1)
    loss = -torch.log(torch.sigmoid(pos).clamp(min=eps)) - torch.log(torch.sigmoid(-neg).clamp(min=eps)).sum(-1)
    return loss.mean()
''',
          mistake="Avoids log(0) by clamping sigma at 1e-7: the loss is capped at about 16 per term for large wrong scores (should be a few hundred) and the gradient there is 0.",
          names_it=(("logsigmoid",), ("clamp",), ("large score",), ("stable",), ("gradient",), ("few hundred",)),
          part="numerical stability of log sigma"),
    Blind(name="loss_log1p_exp_overflow", cell="sgns_loss", test_cell="check_sgns_loss",
          source='''def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    def log_sigmoid(x):
        return -torch.log1p(torch.exp(-x))      # log sigma(x) = -log(1 + e^-x)

    pos = (u_context * v_center).sum(-1)
    neg = (u_negative * v_center[:, None, :]).sum(-1)
    return (-log_sigmoid(pos) - log_sigmoid(-neg).sum(-1)).mean()
''',
          mistake="Writes log sigma(x) = -log1p(exp(-x)) directly: for a score of -200 exp(200) overflows to inf in float32, so the loss is inf.",
          names_it=(("logsigmoid",), ("inf",), ("overflow",), ("stable",), ("large score",), ("nan",)),
          part="numerical stability of log sigma"),
    Blind(name="loss_bmm_no_unsqueeze", cell="sgns_loss", test_cell="check_sgns_loss",
          source='''def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    pos = (u_context * v_center).sum(-1)
    neg = torch.bmm(u_negative, v_center)                      # (B, k)
    loss = -F.logsigmoid(pos) - F.logsigmoid(-neg).sum(-1)
    return loss.mean()
''',
          mistake="Calls torch.bmm(u_negative, v_center) with the 2-D v_center: bmm needs a (B, d, 1) batch of matrices, so it raises a shape error.",
          names_it=(("bmm",), ("unsqueeze",), ("3d",), ("3-d",), ("shape",), ("dimension",)),
          part="the batched dot product of the negatives"),
]

VALID = [
    # ---------------------------------------------------------------- skipgram_pairs
    ("loops", "skipgram_pairs", '''def skipgram_pairs(ids, window):
    """[(center id, context id), ...]: each word with every word up to window positions before and after it."""
    pairs = []
    n = len(ids)
    for i in range(n):
        start = max(0, i - window)
        stop = min(n - 1, i + window)
        for j in range(start, stop + 1):
            if j == i:
                continue
            pairs.append((ids[i], ids[j]))
    return pairs
'''),
    ("comprehension", "skipgram_pairs", '''def skipgram_pairs(ids, window):
    """[(center id, context id), ...]: each word with every word up to window positions before and after it."""
    n = len(ids)
    return [(ids[i], ids[i + d])
            for i in range(n)
            for d in range(-window, window + 1)
            if d != 0 and 0 <= i + d < n]
'''),
    ("offsets_both_ways", "skipgram_pairs", '''def skipgram_pairs(ids, window):
    """[(center id, context id), ...]: each word with every word up to window positions before and after it."""
    ids = [int(x) for x in ids]
    pairs = []
    for d in range(1, window + 1):          # every pair of positions d apart, in both directions
        for a, b in zip(ids, ids[d:]):
            pairs.append((a, b))
            pairs.append((b, a))
    return pairs
'''),
    ("enumerate_slices", "skipgram_pairs", '''def skipgram_pairs(ids, window):
    """[(center id, context id), ...]: each word with every word up to window positions before and after it."""
    pairs = []
    for i, center in enumerate(ids):
        left = ids[max(0, i - window):i]
        right = ids[i + 1:i + 1 + window]
        for context in list(left) + list(right):
            pairs.append((center, context))
    return pairs
'''),

    # ---------------------------------------------------------------- negative_distribution
    ("pow_method", "negative_distribution", '''def negative_distribution(counts):
    """(V,) float probabilities: count ** 0.75, renormalised to sum to 1."""
    weights = counts.to(torch.float32).pow(0.75)
    return weights / weights.sum()
'''),
    ("exp_log", "negative_distribution", '''def negative_distribution(counts):
    """(V,) float probabilities: count ** 0.75, renormalised to sum to 1."""
    # count ** 0.75 = exp(0.75 log count); log 0 = -inf and exp(-inf) = 0, so unseen words get 0
    weights = torch.exp(0.75 * torch.log(counts.float()))
    return weights / torch.sum(weights)
'''),
    ("double_then_float", "negative_distribution", '''def negative_distribution(counts):
    """(V,) float probabilities: count ** 0.75, renormalised to sum to 1."""
    powered = counts.double() ** (3 / 4)
    probs = powered / powered.sum()
    return probs.float()
'''),
    ("numpy_back_to_torch", "negative_distribution", '''import numpy as np


def negative_distribution(counts):
    """(V,) float probabilities: count ** 0.75, renormalised to sum to 1."""
    powered = np.asarray(counts.tolist(), dtype=np.float64) ** 0.75
    return torch.from_numpy(powered / powered.sum()).to(torch.float32)
'''),

    # ---------------------------------------------------------------- draw_negatives
    ("flat_then_view", "draw_negatives", '''def draw_negatives(distribution, num_pairs, k):
    """(num_pairs, k) word ids, each drawn with probability distribution[id], with replacement."""
    flat = torch.multinomial(distribution, num_samples=num_pairs * k, replacement=True)
    return flat.view(num_pairs, k)
'''),
    ("rows_with_replacement", "draw_negatives", '''def draw_negatives(distribution, num_pairs, k):
    """(num_pairs, k) word ids, each drawn with probability distribution[id], with replacement."""
    rows = distribution.unsqueeze(0).expand(num_pairs, -1)
    return torch.multinomial(rows, k, replacement=True)
'''),
    ("categorical", "draw_negatives", '''def draw_negatives(distribution, num_pairs, k):
    """(num_pairs, k) word ids, each drawn with probability distribution[id], with replacement."""
    dist = torch.distributions.Categorical(probs=distribution, validate_args=False)
    return dist.sample((num_pairs, k))
'''),
    ("inverse_cdf", "draw_negatives", '''def draw_negatives(distribution, num_pairs, k):
    """(num_pairs, k) word ids, each drawn with probability distribution[id], with replacement."""
    cdf = torch.cumsum(distribution.double(), dim=0)
    u = torch.rand(num_pairs, k, dtype=torch.float64) * cdf[-1]
    ids = torch.searchsorted(cdf, u, right=True)     # first word whose interval end is above u
    return ids.clamp(max=len(distribution) - 1).long()
'''),

    # ---------------------------------------------------------------- sgns_loss
    ("mul_sum", "sgns_loss", '''def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    pos = (u_context * v_center).sum(dim=-1)                    # (B,)
    neg = (u_negative * v_center[:, None, :]).sum(dim=-1)       # (B, k)
    per_pair = -F.logsigmoid(pos) - F.logsigmoid(-neg).sum(dim=-1)
    return per_pair.mean()
'''),
    ("bmm", "sgns_loss", '''def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    pos = torch.bmm(u_context.unsqueeze(1), v_center.unsqueeze(2)).squeeze(2).squeeze(1)   # (B,)
    neg = torch.bmm(u_negative, v_center.unsqueeze(2)).squeeze(2)                          # (B, k)
    return -(F.logsigmoid(pos) + F.logsigmoid(-neg).sum(1)).mean()
'''),
    ("einsum_softplus", "sgns_loss", '''def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    # -log sigma(x) = softplus(-x), so -log sigma(-s) = softplus(s)
    pos = torch.einsum("bd,bd->b", u_context, v_center)
    neg = torch.einsum("bkd,bd->bk", u_negative, v_center)
    return (F.softplus(-pos) + F.softplus(neg).sum(-1)).mean()
'''),
    ("manual_stable", "sgns_loss", '''def sgns_loss(v_center, u_context, u_negative):
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c)."""
    def neg_log_sigmoid(x):
        # -log sigma(x) = log(1 + e^-x) = max(-x, 0) + log(1 + e^-|x|), never overflows
        return torch.clamp(-x, min=0) + torch.log1p(torch.exp(-x.abs()))

    pos = (u_context * v_center).sum(-1)
    neg = torch.matmul(u_negative, v_center.unsqueeze(-1)).squeeze(-1)
    loss = neg_log_sigmoid(pos) + neg_log_sigmoid(-neg).sum(-1)
    return loss.sum() / loss.shape[0]
'''),
]

ALTERNATIVES = {style: {cell: source} for style, cell, source in VALID}
