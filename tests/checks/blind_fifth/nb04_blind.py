"""Fifth blind set for notebook 04 (long short-term memory): the Bi-LSTM tagger's head and loss and the
many-to-one classifier's last states, written from the student notebook only (no check code read)."""
from blind_case import Blind

NOTEBOOK = "04_lstm"

_TL_SIG = '''def tag_logits(forward_states, backward_states, W, b):
    """Per-token logits: forward_states, backward_states (B, T, H), W (C, 2H), b (C,) -> (B, T, C)."""
'''
_LOSS_SIG = '''def tag_loss(logits, tags, lengths):
    """Mean cross-entropy over the real tokens: logits (B, T, C), tags (B, T), lengths (B,) -> ()."""
'''
_LS_SIG = '''def last_states(outputs, lengths):
    """Each row's state after its last real token: outputs (B, T, H), lengths (B,) -> (B, H)."""
'''

BLIND = [
    # ---------------------------------------------------------------- tag_logits
    Blind(name="tl_directions_swapped", cell="tag_logits", test_cell="check_tag_logits",
          source=_TL_SIG + '''    both = torch.cat([backward_states, forward_states], dim=-1)  # (B, T, 2H)
    return both @ W.T + b
''',
          mistake="Concatenates [backward; forward] instead of [forward; backward], so the first H columns of W, "
                  "which belong to the forward state, multiply the backward one.",
          names_it=(("order",), ("forward", "first"), ("[forward; backward]",), ("swapped",), ("first h columns",)),
          part="the concatenation order"),
    Blind(name="tl_forward_only", cell="tag_logits", test_cell="check_tag_logits",
          source=_TL_SIG + '''    H = forward_states.shape[-1]
    return forward_states @ W[:, :H].T + b
''',
          mistake="Uses only the forward direction (and the first H columns of W); the backward states are ignored.",
          names_it=(("backward",), ("both directions",), ("one direction",), ("last h columns",)),
          part="the backward direction"),
    Blind(name="tl_same_half_of_w", cell="tag_logits", test_cell="check_tag_logits",
          source=_TL_SIG + '''    H = forward_states.shape[-1]
    W_half = W[:, :H]
    return forward_states @ W_half.T + backward_states @ W_half.T + b
''',
          mistake="Multiplies both directions by the first H columns of W; the backward state must use the last H columns.",
          names_it=(("last h columns",), ("columns",), ("backward", "w")),
          part="which columns of W read the backward state"),
    Blind(name="tl_interleaved_stack", cell="tag_logits", test_cell="check_tag_logits",
          source=_TL_SIG + '''    B, T, H = forward_states.shape
    both = torch.stack([forward_states, backward_states], dim=-1).reshape(B, T, 2 * H)
    return both @ W.T + b
''',
          mistake="Stacks the two directions on a new last axis and reshapes to 2H, which interleaves them "
                  "(f1, b1, f2, b2, ...) instead of putting the forward block before the backward block.",
          names_it=(("interleav",), ("concatenat",), ("torch.cat",), ("block",)),
          part="combining the two directions"),
    Blind(name="tl_backward_flipped", cell="tag_logits", test_cell="check_tag_logits",
          source=_TL_SIG + '''    # the backward LSTM read the line from the end, so turn its states round first
    backward_in_order = backward_states.flip(1)
    return torch.cat([forward_states, backward_in_order], dim=-1) @ W.T + b
''',
          mistake="Reverses the backward states in time although they are already given in time order, so token t "
                  "gets the backward state of token T-1-t.",
          names_it=(("time order",), ("flip",), ("revers",), ("already",)),
          part="the backward states' time order"),
    Blind(name="tl_no_bias", cell="tag_logits", test_cell="check_tag_logits",
          source=_TL_SIG + '''    return torch.cat([forward_states, backward_states], dim=-1) @ W.T
''',
          mistake="Leaves out the bias b.",
          names_it=(("bias",), ("+ b",)),
          part="the bias"),
    Blind(name="tl_bias_twice", cell="tag_logits", test_cell="check_tag_logits",
          source=_TL_SIG + '''    H = forward_states.shape[-1]
    forward_part = forward_states @ W[:, :H].T + b
    backward_part = backward_states @ W[:, H:].T + b
    return forward_part + backward_part
''',
          mistake="Splits the product into the two halves of W correctly but adds the bias to each half, so b is counted twice.",
          names_it=(("bias", "twice"), ("bias", "once"), ("2b",), ("2 * b",)),
          part="the bias"),
    Blind(name="tl_flattened_output", cell="tag_logits", test_cell="check_tag_logits",
          source=_TL_SIG + '''    C = W.shape[0]
    both = torch.cat([forward_states, backward_states], dim=-1)
    logits = both.reshape(-1, both.shape[-1]) @ W.T + b
    return logits.reshape(-1, C)  # (B*T, C), ready for cross_entropy
''',
          mistake="Returns the logits flattened to (B*T, C) (ready for cross-entropy) instead of (B, T, C).",
          names_it=(("shape",), ("(b, t, c)",), ("flatten",)),
          part="the output's shape"),
    Blind(name="tl_softmax", cell="tag_logits", test_cell="check_tag_logits",
          source=_TL_SIG + '''    scores = torch.cat([forward_states, backward_states], dim=-1) @ W.T + b
    return torch.log_softmax(scores, dim=-1)
''',
          mistake="Applies log-softmax to the scores; the function must return the raw logits.",
          names_it=(("softmax",), ("raw",), ("normalis",), ("normaliz",)),
          part="a softmax on the logits"),
    Blind(name="tl_cat_time_axis", cell="tag_logits", test_cell="check_tag_logits",
          source=_TL_SIG + '''    both = torch.cat([forward_states, backward_states], dim=1)
    return both @ W.T + b
''',
          mistake="Concatenates the two directions along the time axis (dim=1) instead of the feature axis: "
                  "the result is (B, 2T, H), which does not fit W (C, 2H).",
          names_it=(("dim=-1",), ("last axis",), ("feature",), ("time axis",), ("dim=1",)),
          part="the axis of the concatenation"),
    Blind(name="tl_w_not_transposed", cell="tag_logits", test_cell="check_tag_logits",
          source=_TL_SIG + '''    both = torch.cat([forward_states, backward_states], dim=-1)
    return both @ W + b
''',
          mistake="Multiplies by W instead of W^T: (B, T, 2H) @ (C, 2H) is a shape error.",
          names_it=(("transpose",), ("w.t",), ("w^t",), ("shape",)),
          part="the product with W"),
    Blind(name="tl_backward_summary_broadcast", cell="tag_logits", test_cell="check_tag_logits",
          source=_TL_SIG + '''    # the backward LSTM ends at the first token: its state there summarises the whole line
    summary = backward_states[:, :1].expand_as(backward_states)
    return torch.cat([forward_states, summary], dim=-1) @ W.T + b
''',
          mistake="Gives every token the backward state at position 0 (the backward LSTM's final state) instead of "
                  "the backward state at the token's own position.",
          names_it=(("each position",), ("every token",), ("position 0",), ("per token",), ("own position",)),
          part="which backward state each token gets"),

    # ---------------------------------------------------------------- tag_loss
    Blind(name="loss_mean_over_padding", cell="tag_loss", test_cell="check_tag_loss",
          source=_LOSS_SIG + '''    C = logits.shape[-1]
    return F.cross_entropy(logits.reshape(-1, C), tags.reshape(-1))
''',
          mistake="Averages the cross-entropy over every position, padding included; lengths is not used.",
          names_it=(("padding",), ("real tokens",), ("lengths",)),
          part="the padding positions"),
    Blind(name="loss_masked_then_mean_all", cell="tag_loss", test_cell="check_tag_loss",
          source=_LOSS_SIG + '''    B, T, C = logits.shape
    mask = torch.arange(T, device=logits.device)[None, :] < lengths[:, None]
    per_token = F.cross_entropy(logits.reshape(-1, C), tags.reshape(-1), reduction="none").reshape(B, T)
    return (per_token * mask).mean()
''',
          mistake="Zeroes the padding's losses but then takes .mean() over all B*T positions, so it divides by the "
                  "padded size instead of the number of real tokens.",
          names_it=(("divide",), ("number of real tokens",), ("denominator",), ("lengths.sum",), ("mask.sum",)),
          part="the denominator of the mean"),
    Blind(name="loss_mask_one_short", cell="tag_loss", test_cell="check_tag_loss",
          source=_LOSS_SIG + '''    T = logits.shape[1]
    mask = torch.arange(T, device=logits.device)[None, :] < lengths[:, None] - 1
    return F.cross_entropy(logits[mask], tags[mask])
''',
          mistake="Builds the mask with positions < lengths - 1, dropping every row's last real token.",
          names_it=(("last real token",), ("off by one",), ("lengths - 1",), ("first lengths",)),
          part="the mask's length"),
    Blind(name="loss_mask_one_long", cell="tag_loss", test_cell="check_tag_loss",
          source=_LOSS_SIG + '''    T = logits.shape[1]
    mask = torch.arange(T, device=logits.device)[None, :] <= lengths[:, None]
    return F.cross_entropy(logits[mask], tags[mask])
''',
          mistake="Builds the mask with positions <= lengths, so the first padding position of every shorter row counts.",
          names_it=(("off by one",), ("<=",), ("first padding",), ("padding",)),
          part="the mask's length"),
    Blind(name="loss_no_permute", cell="tag_loss", test_cell="check_tag_loss",
          source=_LOSS_SIG + '''    T = logits.shape[1]
    padding = torch.arange(T, device=tags.device)[None, :] >= lengths[:, None]
    targets = tags.masked_fill(padding, -100)
    return F.cross_entropy(logits, targets, ignore_index=-100)
''',
          mistake="Masks the padding correctly with ignore_index, but passes the (B, T, C) logits straight to "
                  "F.cross_entropy, which wants the classes on dim 1 ((B, C, T)) or flattened (N, C).",
          names_it=(("dim 1",), ("(b, c, t)",), ("permute",), ("transpose",), ("flatten",), ("classes",)),
          part="the logits' layout for cross_entropy"),
    Blind(name="loss_ignore_tag_zero", cell="tag_loss", test_cell="check_tag_loss",
          source=_LOSS_SIG + '''    C = logits.shape[-1]
    # padding is id 0, so its tag is 0 too: let cross_entropy skip it
    return F.cross_entropy(logits.reshape(-1, C), tags.reshape(-1), ignore_index=0)
''',
          mistake="Assumes the padding's tag is 0 and ignores tag 0; the padding holds some other tag, and real "
                  "tokens whose tag is 0 are dropped. lengths is not used.",
          names_it=(("tag 0",), ("lengths",), ("ignore_index",), ("padding",)),
          part="how the padding is found"),
    Blind(name="loss_wrong_ignore_value", cell="tag_loss", test_cell="check_tag_loss",
          source=_LOSS_SIG + '''    B, T, C = logits.shape
    padding = torch.arange(T, device=tags.device)[None, :] >= lengths[:, None]
    targets = tags.masked_fill(padding, -1)
    return F.cross_entropy(logits.reshape(-1, C), targets.reshape(-1))
''',
          mistake="Marks the padding's tags with -1, but F.cross_entropy ignores -100 by default: -1 is an "
                  "out-of-range target.",
          names_it=(("-100",), ("ignore_index",), ("-1",), ("out of bounds",)),
          part="the ignore value"),
    Blind(name="loss_mean_of_row_means", cell="tag_loss", test_cell="check_tag_loss",
          source=_LOSS_SIG + '''    row_losses = []
    for row in range(logits.shape[0]):
        n = int(lengths[row])
        row_losses.append(F.cross_entropy(logits[row, :n], tags[row, :n]))
    return torch.stack(row_losses).mean()
''',
          mistake="Averages each line's mean loss over the lines, so a short line's tokens weigh more than a long "
                  "line's; the mean must be over all real tokens together.",
          names_it=(("per line",), ("per row",), ("each token",), ("all real tokens",), ("weigh",)),
          part="averaging over lines, not tokens"),
    Blind(name="loss_sum", cell="tag_loss", test_cell="check_tag_loss",
          source=_LOSS_SIG + '''    T = logits.shape[1]
    mask = torch.arange(T, device=logits.device)[None, :] < lengths[:, None]
    return F.cross_entropy(logits[mask], tags[mask], reduction="sum")
''',
          mistake="Returns the sum of the real tokens' losses instead of their mean.",
          names_it=(("sum",), ("mean",), ("average",)),
          part="the reduction"),
    Blind(name="loss_divide_by_batch", cell="tag_loss", test_cell="check_tag_loss",
          source=_LOSS_SIG + '''    T = logits.shape[1]
    mask = torch.arange(T, device=logits.device)[None, :] < lengths[:, None]
    total = F.cross_entropy(logits[mask], tags[mask], reduction="sum")
    return total / logits.shape[0]
''',
          mistake="Divides the real tokens' summed loss by the number of lines B instead of the number of real tokens.",
          names_it=(("number of real tokens",), ("divide",), ("lengths.sum",), ("denominator",)),
          part="the denominator of the mean"),
    Blind(name="loss_nll_on_logits", cell="tag_loss", test_cell="check_tag_loss",
          source=_LOSS_SIG + '''    T = logits.shape[1]
    mask = torch.arange(T, device=logits.device)[None, :] < lengths[:, None]
    return F.nll_loss(logits[mask], tags[mask])
''',
          mistake="Uses F.nll_loss on the raw logits, forgetting the log-softmax that cross-entropy includes.",
          names_it=(("log_softmax",), ("log-softmax",), ("log softmax",), ("nll",)),
          part="the log-softmax"),
    Blind(name="loss_double_softmax", cell="tag_loss", test_cell="check_tag_loss",
          source=_LOSS_SIG + '''    T = logits.shape[1]
    mask = torch.arange(T, device=logits.device)[None, :] < lengths[:, None]
    probs = torch.softmax(logits, dim=-1)
    return F.cross_entropy(probs[mask], tags[mask])
''',
          mistake="Applies softmax before F.cross_entropy, which applies its own log-softmax to the logits.",
          names_it=(("softmax",), ("raw logits",), ("twice",)),
          part="a softmax before cross_entropy"),
    Blind(name="loss_left_padding", cell="tag_loss", test_cell="check_tag_loss",
          source=_LOSS_SIG + '''    T = logits.shape[1]
    # the real tokens are the last lengths[b] of each row
    mask = torch.arange(T, device=logits.device)[None, :] >= T - lengths[:, None]
    return F.cross_entropy(logits[mask], tags[mask])
''',
          mistake="Takes the real tokens as the last lengths[b] of each row (padding on the left); they are the first lengths[b].",
          names_it=(("first lengths",), ("left",), ("beginning",), ("end of the row",)),
          part="where the real tokens are"),
    Blind(name="loss_mask_transposed", cell="tag_loss", test_cell="check_tag_loss",
          source=_LOSS_SIG + '''    T = logits.shape[1]
    mask = torch.arange(T, device=logits.device)[:, None] < lengths[None, :]  # (T, B)
    return F.cross_entropy(logits[mask], tags[mask])
''',
          mistake="Broadcasts the mask the wrong way round, (T, B) instead of (B, T), so it does not index the (B, T) batch.",
          names_it=(("(b, t)",), ("transpos",), ("shape",), ("broadcast",)),
          part="the mask's shape"),
    Blind(name="loss_unreduced", cell="tag_loss", test_cell="check_tag_loss",
          source=_LOSS_SIG + '''    T = logits.shape[1]
    mask = torch.arange(T, device=logits.device)[None, :] < lengths[:, None]
    return F.cross_entropy(logits[mask], tags[mask], reduction="none")
''',
          mistake="Returns the per-token losses of the real tokens, shape (N,), instead of their mean, shape ().",
          names_it=(("shape ()",), ("scalar",), ("mean",), ("shape",)),
          part="the reduction"),
    Blind(name="loss_python_floats", cell="tag_loss", test_cell="check_tag_loss",
          source=_LOSS_SIG + '''    total, count = 0.0, 0
    for row in range(logits.shape[0]):
        n = int(lengths[row])
        total += F.cross_entropy(logits[row, :n], tags[row, :n], reduction="sum").item()
        count += n
    return torch.tensor(total / count)
''',
          mistake="Accumulates the loss as Python floats with .item() and returns a new tensor: the value is right "
                  "but it carries no gradient back to the logits (and is float32 for float64 inputs).",
          names_it=(("gradient",), (".item()",), ("grad",), ("backward",)),
          part="the gradient of the loss"),

    # ---------------------------------------------------------------- last_states
    Blind(name="ls_position_minus_one", cell="last_states", test_cell="check_last_states",
          source=_LS_SIG + '''    return outputs[:, -1]
''',
          mistake="Takes position -1 of the padded batch for every row; shorter rows' state there has read padding.",
          names_it=(("-1",), ("padding",), ("lengths[b] - 1",)),
          part="the position read"),
    Blind(name="ls_no_minus_one", cell="last_states", test_cell="check_last_states",
          source=_LS_SIG + '''    rows = torch.arange(outputs.shape[0], device=outputs.device)
    return outputs[rows, lengths]
''',
          mistake="Indexes position lengths[b] instead of lengths[b] - 1: the first padding position, and out of "
                  "range for the longest row.",
          names_it=(("lengths[b] - 1",), ("off by one",), ("- 1",), ("out of range",), ("index",)),
          part="the position read"),
    Blind(name="ls_column_index", cell="last_states", test_cell="check_last_states",
          source=_LS_SIG + '''    return outputs[:, lengths - 1]
''',
          mistake="Indexes outputs[:, lengths - 1], which takes every row's states at every row's last position, "
                  "(B, B, H), instead of pairing row b with lengths[b] - 1.",
          names_it=(("(b, h)",), ("shape",), ("row b",), ("torch.arange",), ("pair",)),
          part="pairing rows with positions"),
    Blind(name="ls_gather_not_expanded", cell="last_states", test_cell="check_last_states",
          source=_LS_SIG + '''    index = (lengths - 1).view(-1, 1, 1)  # (B, 1, 1)
    return outputs.gather(1, index).squeeze()
''',
          mistake="Gathers with an index of shape (B, 1, 1) without expanding it to (B, 1, H), so only the first "
                  "feature of each state comes back, shape (B,).",
          names_it=(("expand",), ("shape",), ("(b, h)",), ("gather",)),
          part="the gather index's shape"),
    Blind(name="ls_first_position", cell="last_states", test_cell="check_last_states",
          source=_LS_SIG + '''    # every row starts at position 0, padding is only at the end, so position 0 is always real
    return outputs[:, 0]
''',
          mistake="Takes the state at position 0 (after the first token only) instead of after the last real token.",
          names_it=(("position 0",), ("first token",), ("last real token",), ("lengths[b] - 1",)),
          part="the position read"),
    Blind(name="ls_mean_over_real", cell="last_states", test_cell="check_last_states",
          source=_LS_SIG + '''    T = outputs.shape[1]
    mask = (torch.arange(T, device=outputs.device)[None, :] < lengths[:, None]).to(outputs.dtype)  # (B, T)
    return (outputs * mask[..., None]).sum(1) / lengths[:, None].to(outputs.dtype)
''',
          mistake="Averages the states over each row's real tokens (mean pooling) instead of taking the state after "
                  "the last one.",
          names_it=(("mean",), ("average",), ("last real token",), ("pool",)),
          part="pooling instead of the last state"),
    Blind(name="ls_max_pool", cell="last_states", test_cell="check_last_states",
          source=_LS_SIG + '''    return outputs.max(dim=1).values
''',
          mistake="Max-pools the states over time, padding included, instead of taking the state after the last real token.",
          names_it=(("max",), ("pool",), ("last real token",), ("padding",)),
          part="pooling instead of the last state"),
    Blind(name="ls_sorted_rows", cell="last_states", test_cell="check_last_states",
          source=_LS_SIG + '''    # like pack_padded_sequence: longest first
    order = torch.argsort(lengths, descending=True)
    return outputs[order, lengths[order] - 1]
''',
          mistake="Sorts the rows by length (as pack_padded_sequence wants) and returns them in that order, not in "
                  "the batch's order.",
          names_it=(("order",), ("sort",), ("row b",), ("same order",)),
          part="the order of the rows"),
    Blind(name="ls_negative_index", cell="last_states", test_cell="check_last_states",
          source=_LS_SIG + '''    rows = torch.arange(outputs.shape[0], device=outputs.device)
    return outputs[rows, -lengths]
''',
          mistake="Indexes position -lengths[b], counting from the end of the padded row, which is T - lengths[b], "
                  "not lengths[b] - 1.",
          names_it=(("lengths[b] - 1",), ("from the end",), ("negative",), ("position",)),
          part="the position read"),
    Blind(name="ls_flat_no_row_offset", cell="last_states", test_cell="check_last_states",
          source=_LS_SIG + '''    H = outputs.shape[-1]
    flat = outputs.reshape(-1, H)  # (B*T, H)
    return flat[lengths - 1]
''',
          mistake="Flattens to (B*T, H) and indexes lengths - 1 without adding each row's offset b*T, so all rows "
                  "are read from the first line.",
          names_it=(("offset",), ("b * t",), ("row b",), ("flatten",), ("first row",)),
          part="the flat index"),
    Blind(name="ls_flat_time_major", cell="last_states", test_cell="check_last_states",
          source=_LS_SIG + '''    B, T, H = outputs.shape
    flat = outputs.transpose(0, 1).reshape(-1, H)  # (T*B, H)
    index = torch.arange(B, device=outputs.device) * T + lengths - 1
    return flat[index]
''',
          mistake="Flattens time-major (transpose then reshape) but computes the index b*T + lengths[b] - 1 of a "
                  "batch-major layout.",
          names_it=(("layout",), ("transpose",), ("batch-major",), ("time-major",), ("reshape",)),
          part="the flat index"),
    Blind(name="ls_cat_not_stack", cell="last_states", test_cell="check_last_states",
          source=_LS_SIG + '''    states = []
    for b in range(outputs.shape[0]):
        states.append(outputs[b, int(lengths[b]) - 1])
    return torch.cat(states)
''',
          mistake="Picks the right states in a loop but joins them with torch.cat, giving one (B*H,) vector instead "
                  "of stacking them to (B, H).",
          names_it=(("stack",), ("shape",), ("(b, h)",)),
          part="joining the rows"),
    Blind(name="ls_rebuilt_tensor", cell="last_states", test_cell="check_last_states",
          source=_LS_SIG + '''    picked = [outputs[b, int(lengths[b]) - 1].tolist() for b in range(len(lengths))]
    return torch.tensor(picked)
''',
          mistake="Copies the right states into a new tensor through .tolist(): the values are right but there is "
                  "no gradient back to outputs, and the dtype becomes float32 (and the device the CPU).",
          names_it=(("gradient",), ("grad",), ("dtype",), ("float64",)),
          part="the returned tensor's gradient and dtype"),
    Blind(name="ls_onehot_off_by_one", cell="last_states", test_cell="check_last_states",
          source=_LS_SIG + '''    T = outputs.shape[1]
    pick = (torch.arange(T, device=outputs.device)[None, :] == lengths[:, None]).to(outputs.dtype)  # (B, T)
    return (outputs * pick[..., None]).sum(dim=1)
''',
          mistake="Selects with a one-hot mask at position lengths[b] instead of lengths[b] - 1: the first padding "
                  "position, and all zeros for the longest row.",
          names_it=(("lengths[b] - 1",), ("off by one",), ("- 1",), ("zero",)),
          part="the position read"),
]


ALTERNATIVES = {
    "cat_and_index": {
        "tag_logits": _TL_SIG + '''    return torch.cat([forward_states, backward_states], dim=-1) @ W.T + b
''',
        "tag_loss": _LOSS_SIG + '''    T = logits.shape[1]
    real = torch.arange(T, device=logits.device)[None, :] < lengths.to(logits.device)[:, None]  # (B, T)
    return F.cross_entropy(logits[real], tags[real])
''',
        "last_states": _LS_SIG + '''    rows = torch.arange(outputs.shape[0], device=outputs.device)
    return outputs[rows, lengths.to(outputs.device) - 1]
''',
    },
    "split_weights_ignore_index_gather": {
        "tag_logits": _TL_SIG + '''    H = forward_states.shape[-1]
    W_forward, W_backward = W[:, :H], W[:, H:]
    return forward_states @ W_forward.T + backward_states @ W_backward.T + b
''',
        "tag_loss": _LOSS_SIG + '''    B, T, C = logits.shape
    positions = torch.arange(T, device=tags.device).expand(B, T)
    targets = tags.masked_fill(positions >= lengths.to(tags.device).unsqueeze(1), -100)
    return F.cross_entropy(logits.reshape(B * T, C), targets.reshape(B * T), ignore_index=-100)
''',
        "last_states": _LS_SIG + '''    B, T, H = outputs.shape
    index = (lengths.to(outputs.device) - 1).long().view(B, 1, 1).expand(B, 1, H)
    return outputs.gather(1, index).squeeze(1)
''',
    },
    "loops": {
        "tag_logits": _TL_SIG + '''    B, T, H = forward_states.shape
    rows = []
    for i in range(B):
        steps = []
        for t in range(T):
            h = torch.cat((forward_states[i, t], backward_states[i, t]))  # (2H,)
            steps.append(W @ h + b)  # (C,)
        rows.append(torch.stack(steps))
    return torch.stack(rows)
''',
        "tag_loss": _LOSS_SIG + '''    total = logits.new_zeros(())
    count = 0
    for row in range(logits.shape[0]):
        n = int(lengths[row])
        log_p = torch.log_softmax(logits[row, :n], dim=-1)  # (n, C)
        total = total - log_p[torch.arange(n, device=logits.device), tags[row, :n]].sum()
        count += n
    return total / count
''',
        "last_states": _LS_SIG + '''    picked = []
    for b in range(outputs.shape[0]):
        n = int(lengths[b])
        picked.append(outputs[b, :n][-1])
    return torch.stack(picked)
''',
    },
    "functional_and_masks": {
        "tag_logits": _TL_SIG + '''    return F.linear(torch.cat((forward_states, backward_states), dim=2), W, b)
''',
        "tag_loss": _LOSS_SIG + '''    T = logits.shape[1]
    mask = (torch.arange(T, device=logits.device)[None, :] < lengths.to(logits.device)[:, None]).to(logits.dtype)
    per_token = F.cross_entropy(logits.permute(0, 2, 1), tags, reduction="none")  # (B, T)
    return (per_token * mask).sum() / mask.sum()
''',
        "last_states": _LS_SIG + '''    T = outputs.shape[1]
    one_hot = F.one_hot(lengths.to(outputs.device).long() - 1, num_classes=T).to(outputs.dtype)  # (B, T)
    return torch.einsum("bt,bth->bh", one_hot, outputs)
''',
    },
    "einsum_and_flat_index": {
        "tag_logits": _TL_SIG + '''    H = forward_states.shape[-1]
    return (torch.einsum("bth,ch->btc", forward_states, W[:, :H])
            + torch.einsum("bth,ch->btc", backward_states, W[:, H:]) + b)
''',
        "tag_loss": _LOSS_SIG + '''    B, T, C = logits.shape
    keep = (torch.arange(T, device=logits.device) < lengths.to(logits.device).view(-1, 1)).reshape(-1)
    flat_logits, flat_tags = logits.reshape(-1, C)[keep], tags.reshape(-1)[keep]
    return -torch.log_softmax(flat_logits, dim=-1).gather(1, flat_tags.view(-1, 1)).mean()
''',
        "last_states": _LS_SIG + '''    B, T, H = outputs.shape
    flat = outputs.reshape(B * T, H)
    return flat[torch.arange(B, device=outputs.device) * T + lengths.to(outputs.device) - 1]
''',
    },
}
