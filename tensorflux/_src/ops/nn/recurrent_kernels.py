"""Fused recurrent sequences for training Keras's LSTM, GRU and SimpleRNN: one op runs the whole time
loop forward, one op the whole loop backward (issue 20).

Written as a cell under a `While`, a step is a dozen graph ops and its gradient two dozen more, each a
NumPy call on a [batch, units] array: at batch 32 and 128 units the interpreter, not the arithmetic, is
the cost. Here:

- forward (`FusedRecurrentSequence`): the input projections of all time steps are one GEMM
  ([T·B, I] @ [I, gates·U] + bias), then per step one recurrent GEMM ([B, U] @ [U, gates·U]) and the
  gates computed in place (σ(z) as ½·tanh(½z) + ½: no overflow, one transcendental);
- backward (`FusedRecurrentSequenceGrad`): per step only the recurrent GEMM back to h; the gradients of
  the projections of all steps are kept, so the kernel, recurrent-kernel, bias and input gradients
  are whole-sequence GEMMs and sums at the end.

The op keeps what the backward needs as outputs: the activated gates of every step (`kept`) and the
states after every step. Keras's semantics are kept: a per-step `mask` ([T, B] bool, or empty) keeps
the previous states and output at masked steps (`zero_output_for_mask` gives zeros instead), a
recurrent-dropout multiplier ([B, U], or empty) scales the state entering the recurrent projection,
and input dropout, reversal (go_backwards) and stateful carries are plain ops around this one. Gate
orders are Keras's: LSTM i, f, c, o; GRU z, r, h (reset_after: bias [2, 3U], r applied to the
recurrent candidate projection with its bias; reset_before: r·h projected).

Outputs: y [T, B, U] (the layer's per-step outputs), h [T, B, U] and c [T, B, U] (the states after each
step: h[-1], c[-1] are the final ones; c is empty but for the LSTM), kept [T, B, k·U]. These ops exist
in tensorflux only: Keras layers use them while training and keep TensorFlow's While form for
inference graphs, which are the ones exported.
"""
import numpy as np

from ...framework import errors
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..linalg.blas_threads import gemm, gemm_tn
from ..convert import convert_to_tensor
from ..registry import OpDef, apply
from . import compiled_recurrent

__all__ = ["recurrent_sequence", "lstm_sequence"]

_FLOATS = (_dt.float32, _dt.float64)


def _sigmoid_(z):
    """σ(z) in place: ½·tanh(½z) + ½."""
    z *= 0.5
    np.tanh(z, out=z)
    z *= 0.5
    z += 0.5
    return z


# Per cell: gates (columns of the kernels), and the width of what a step keeps for the backward.
_GATES = {"lstm": 4, "gru": 3, "gru_reset_before": 3, "simple_rnn": 1}
_KEPT = {"lstm": 4, "gru": 4, "gru_reset_before": 3, "simple_rnn": 1}


def _check(cell, x, h0, c0, kernel, recurrent, bias):
    if cell not in _GATES:
        raise errors.InvalidArgumentError(None, None, f"FusedRecurrentSequence: unknown cell {cell!r}")
    if x.ndim != 3:
        raise errors.InvalidArgumentError(None, None, f"x must be [time, batch, features], got shape {list(x.shape)}")
    units = recurrent.shape[0] if recurrent.ndim == 2 else -1
    width = _GATES[cell] * units
    bias_shape = (2, width) if cell == "gru" else (width,)
    c_shape = h0.shape if cell == "lstm" else (0,)
    if (kernel.shape != (x.shape[2], width) or recurrent.shape != (units, width) or bias.shape != bias_shape
            or h0.shape != (x.shape[1], units) or c0.shape != c_shape):
        raise errors.InvalidArgumentError(
            None, None, f"FusedRecurrentSequence ({cell}): inconsistent shapes x {list(x.shape)}, h0 "
                        f"{list(h0.shape)}, c0 {list(c0.shape)}, kernel {list(kernel.shape)}, recurrent_kernel "
                        f"{list(recurrent.shape)}, bias {list(bias.shape)}")
    return units


# -- one step forward: z is the step's input projection (bias added), updated in place into what the
# backward keeps; writes the new states into h_new (and c_new) --------------------------------------------
def _lstm_step(z, kept, h, hr, c, recurrent, recurrent_bias, h_new, c_new, units):
    z += hr @ recurrent
    compiled = compiled_recurrent.lstm_kernels()
    if compiled is not None:
        z *= compiled_recurrent.sigmoid_halving(units, z.dtype)
        np.tanh(z, out=z)
        compiled[0](z, c, c_new, units)
        np.multiply(z[:, 3 * units:], np.tanh(c_new), out=h_new)
        return
    _sigmoid_(z[:, :2 * units])
    np.tanh(z[:, 2 * units:3 * units], out=z[:, 2 * units:3 * units])
    _sigmoid_(z[:, 3 * units:])
    i, f, g, o = z[:, :units], z[:, units:2 * units], z[:, 2 * units:3 * units], z[:, 3 * units:]
    np.multiply(f, c, out=c_new)
    c_new += i * g
    np.multiply(o, np.tanh(c_new), out=h_new)     # kept: the LSTM's kept gates are z itself


def _gru_step(z, kept, h, hr, c, recurrent, recurrent_bias, h_new, c_new, units):
    """reset_after=True: r multiplies the recurrent candidate projection (bias included). kept: z, r, hh, rh."""
    rec = hr @ recurrent
    compiled = compiled_recurrent.gru_kernels()
    if compiled is not None:
        preactivations, candidate, state, _ = compiled
        preactivations(z, rec, recurrent_bias, kept, units)
        np.tanh(kept[:, :2 * units], out=kept[:, :2 * units])
        candidate(z, kept, units)
        np.tanh(kept[:, 2 * units:3 * units], out=kept[:, 2 * units:3 * units])
        state(kept, np.ascontiguousarray(h), h_new, units)
        return
    rec += recurrent_bias
    gate_z, gate_r, cand, rec_h = kept[:, :units], kept[:, units:2 * units], kept[:, 2 * units:3 * units], \
        kept[:, 3 * units:]
    np.add(z[:, :2 * units], rec[:, :2 * units], out=kept[:, :2 * units])
    _sigmoid_(kept[:, :2 * units])
    rec_h[...] = rec[:, 2 * units:]
    np.multiply(gate_r, rec_h, out=cand)
    cand += z[:, 2 * units:]
    np.tanh(cand, out=cand)
    np.subtract(h, cand, out=h_new)        # h_new = z·h + (1 - z)·hh = hh + z·(h - hh)
    h_new *= gate_z
    h_new += cand


def _gru_reset_before_step(z, kept, h, hr, c, recurrent, recurrent_bias, h_new, c_new, units):
    """reset_after=False: the candidate's recurrent projection is of r·h. kept: z, r, hh."""
    gate_zr, cand = kept[:, :2 * units], kept[:, 2 * units:]
    np.add(z[:, :2 * units], hr @ recurrent[:, :2 * units], out=gate_zr)
    _sigmoid_(gate_zr)
    np.add(z[:, 2 * units:], (kept[:, units:2 * units] * hr) @ recurrent[:, 2 * units:], out=cand)
    np.tanh(cand, out=cand)
    np.subtract(h, cand, out=h_new)
    h_new *= kept[:, :units]
    h_new += cand


def _simple_rnn_step(z, kept, h, hr, c, recurrent, recurrent_bias, h_new, c_new, units):
    z += hr @ recurrent
    np.tanh(z, out=h_new)
    kept[...] = h_new


_STEPS = {"lstm": _lstm_step, "gru": _gru_step, "gru_reset_before": _gru_reset_before_step,
          "simple_rnn": _simple_rnn_step}


def _biases(cell, bias):
    """(input bias, recurrent bias or None): GRU's reset_after bias is [2, 3U], one row for each."""
    return (bias[0], bias[1]) if cell == "gru" else (bias, None)


def _forward(cell, x, h0, c0, kernel, recurrent, bias, mask, recurrent_scale, zero_output_for_mask):
    units = _check(cell, x, h0, c0, kernel, recurrent, bias)
    steps, batch, _ = x.shape
    dtype = x.dtype
    input_bias, recurrent_bias = _biases(cell, bias)
    projections = gemm(x.reshape(steps * batch, -1), kernel).reshape(steps, batch, -1)
    projections += input_bias
    kept = projections if cell == "lstm" else np.empty((steps, batch, _KEPT[cell] * units), dtype)
    hs = np.empty((steps, batch, units), dtype)
    lstm = cell == "lstm"
    cs = np.empty((steps, batch, units), dtype) if lstm else np.zeros((0,), dtype)
    masked = mask.size > 0
    ys = np.empty((steps, batch, units), dtype) if masked else hs
    scaled = recurrent_scale.size > 0
    step = _STEPS[cell]
    h, c = h0, c0
    y = np.zeros((batch, units), dtype)
    for t in range(steps):
        c_new = cs[t] if lstm else None
        step(projections[t], kept[t], h, h * recurrent_scale if scaled else h, c, recurrent, recurrent_bias, hs[t],
             c_new, units)
        if masked:
            keep = mask[t][:, None]
            ys[t] = np.where(keep, hs[t], 0 if zero_output_for_mask else y)
            np.copyto(hs[t], h, where=~keep)
            if lstm:
                np.copyto(c_new, c, where=~keep)
            y = ys[t]
        h, c = hs[t], c_new
    return ys.copy() if not masked else ys, hs, cs, kept


# -- one step backward: from dh (and dc) of the step's new states, the gradients of its input projection
# (into dz) and of its recurrent projection (into drec, when not the same); returns the gradient reaching
# the previous h through the recurrent product (before the dropout scale) and the direct one (and dc) ---
def _lstm_back(kept, h_prev, hr, c_prev, c_new, recurrent_t, dh_new, dc_new, dz, drec, units):
    tanh_c = np.tanh(c_new)     # where a step is masked c_new is the old state, but its gradient is zero
    compiled = compiled_recurrent.lstm_kernels()
    if compiled is not None:
        dc_prev = np.empty_like(tanh_c)
        compiled[1](kept, tanh_c, c_prev, np.ascontiguousarray(dh_new), np.ascontiguousarray(dc_new), dz, dc_prev,
                    units)
        return dz @ recurrent_t, None, dc_prev
    i, f, g, o = kept[:, :units], kept[:, units:2 * units], kept[:, 2 * units:3 * units], kept[:, 3 * units:]
    d_i, d_f, d_g, d_o = dz[:, :units], dz[:, units:2 * units], dz[:, 2 * units:3 * units], dz[:, 3 * units:]
    np.multiply(dh_new, tanh_c, out=d_o)
    dc_new = dc_new + dh_new * o * (1 - tanh_c * tanh_c)
    np.multiply(dc_new, g, out=d_i)
    np.multiply(dc_new, c_prev, out=d_f)
    np.multiply(dc_new, i, out=d_g)
    d_i *= i * (1 - i)
    d_f *= f * (1 - f)
    d_g *= 1 - g * g
    d_o *= o * (1 - o)
    return dz @ recurrent_t, None, dc_new * f


def _gru_back(kept, h_prev, hr, c_prev, c_new, recurrent_t, dh_new, dc_new, dz, drec, units):
    compiled = compiled_recurrent.gru_kernels()
    if compiled is not None:
        direct = np.empty_like(h_prev)
        compiled[3](kept, np.ascontiguousarray(h_prev), np.ascontiguousarray(dh_new), dz, drec, direct, units)
        return drec @ recurrent_t, direct, None
    gate_z, gate_r, cand, rec_h = kept[:, :units], kept[:, units:2 * units], kept[:, 2 * units:3 * units], \
        kept[:, 3 * units:]
    d_z, d_r, d_h = dz[:, :units], dz[:, units:2 * units], dz[:, 2 * units:]
    np.multiply(dh_new, h_prev - cand, out=d_z)
    d_z *= gate_z * (1 - gate_z)
    np.multiply(dh_new, 1 - gate_z, out=d_h)
    d_h *= 1 - cand * cand
    np.multiply(d_h, rec_h, out=d_r)
    d_r *= gate_r * (1 - gate_r)
    drec[:, :2 * units] = dz[:, :2 * units]
    np.multiply(d_h, gate_r, out=drec[:, 2 * units:])
    return drec @ recurrent_t, dh_new * gate_z, None


def _gru_reset_before_back(kept, h_prev, hr, c_prev, c_new, recurrent_t, dh_new, dc_new, dz, drec, units):
    gate_z, gate_r, cand = kept[:, :units], kept[:, units:2 * units], kept[:, 2 * units:]
    d_z, d_r, d_h = dz[:, :units], dz[:, units:2 * units], dz[:, 2 * units:]
    np.multiply(dh_new, h_prev - cand, out=d_z)
    d_z *= gate_z * (1 - gate_z)
    np.multiply(dh_new, 1 - gate_z, out=d_h)
    d_h *= 1 - cand * cand
    d_reset_input = d_h @ recurrent_t[2 * units:]             # gradient of r·hr
    np.multiply(d_reset_input, hr, out=d_r)
    d_r *= gate_r * (1 - gate_r)
    return d_reset_input * gate_r + dz[:, :2 * units] @ recurrent_t[:2 * units], dh_new * gate_z, None


def _simple_rnn_back(kept, h_prev, hr, c_prev, c_new, recurrent_t, dh_new, dc_new, dz, drec, units):
    compiled = compiled_recurrent.simple_rnn_back()
    if compiled is not None:
        compiled(kept, np.ascontiguousarray(dh_new), dz)
        return dz @ recurrent_t, None, None
    np.multiply(dh_new, 1 - kept * kept, out=dz)
    return dz @ recurrent_t, None, None


_BACKS = {"lstm": _lstm_back, "gru": _gru_back, "gru_reset_before": _gru_reset_before_back,
          "simple_rnn": _simple_rnn_back}


def _backward(cell, x, h0, c0, kernel, recurrent, bias, mask, recurrent_scale, hs, cs, kept, dys, dhs, dcs,
              zero_output_for_mask):
    """Gradients (x, h0, c0, kernel, recurrent_kernel, bias) from those of the outputs y, h, c (each
    [T, B, U] or empty when nothing reached it)."""
    steps, batch, _ = x.shape
    units = recurrent.shape[0]
    dtype = x.dtype
    lstm = cell == "lstm"
    masked = mask.size > 0
    scaled = recurrent_scale.size > 0
    back = _BACKS[cell]
    dz = np.empty((steps, batch, _GATES[cell] * units), dtype)
    drec = np.empty_like(dz) if cell == "gru" else dz
    dh = np.zeros((batch, units), dtype)
    dc = np.zeros((batch, units), dtype) if lstm else None
    dy_carry = np.zeros((batch, units), dtype)
    recurrent_t = recurrent.T
    for t in range(steps - 1, -1, -1):
        h_prev = hs[t - 1] if t > 0 else h0
        c_prev = (cs[t - 1] if t > 0 else c0) if lstm else None
        if dhs.size:
            dh += dhs[t]
        if lstm and dcs.size:
            dc += dcs[t]
        gy = dys[t] + dy_carry if dys.size else dy_carry
        if masked:
            keep = mask[t][:, None]
            dh_new = np.where(keep, gy + dh, 0)
            dc_new = np.where(keep, dc, 0) if lstm else None
            dy_carry = np.zeros_like(gy) if zero_output_for_mask else np.where(keep, 0, gy)
            dh_skip = np.where(keep, 0, dh)
            dc_skip = np.where(keep, 0, dc) if lstm else None
        else:
            dh_new, dc_new = gy + dh, dc
        hr = h_prev * recurrent_scale if scaled else h_prev
        dh, direct, dc = back(kept[t], h_prev, hr, c_prev, cs[t] if lstm else None, recurrent_t, dh_new, dc_new,
                              dz[t], drec[t], units)
        if scaled:
            dh *= recurrent_scale
        if direct is not None:
            dh += direct
        if masked:
            dh += dh_skip
            if lstm:
                dc += dc_skip
    flat = dz.reshape(steps * batch, -1)
    dx = gemm(flat, kernel.T).reshape(x.shape)
    dkernel = gemm_tn(x.reshape(steps * batch, -1), flat)
    h_prev = np.concatenate([h0[None], hs[:-1]], axis=0)
    if scaled:
        h_prev = h_prev * recurrent_scale
    h_prev = h_prev.reshape(steps * batch, units)
    if cell == "gru_reset_before":
        reset = kept[:, :, units:2 * units].reshape(steps * batch, units)
        drecurrent = np.concatenate([gemm_tn(h_prev, flat[:, :2 * units]),
                                     gemm_tn(h_prev * reset, flat[:, 2 * units:])], axis=1)
    else:
        drecurrent = gemm_tn(h_prev, drec.reshape(steps * batch, -1))
    dbias = flat.sum(axis=0)
    if cell == "gru":
        dbias = np.stack([dbias, drec.reshape(steps * batch, -1).sum(axis=0)])
    return dx, dh, (dc if lstm else np.zeros((0,), dtype)), dkernel, drecurrent, dbias


def _forward_kernel(x, h0, c0, kernel, recurrent, bias, mask, recurrent_scale, cell="lstm",
                    zero_output_for_mask=False):
    return _forward(cell, x, h0, c0, kernel, recurrent, bias, mask, recurrent_scale, zero_output_for_mask)


def _backward_kernel(x, h0, c0, kernel, recurrent, bias, mask, recurrent_scale, hs, cs, kept, dys, dhs, dcs,
                     cell="lstm", zero_output_for_mask=False):
    return _backward(cell, x, h0, c0, kernel, recurrent, bias, mask, recurrent_scale, hs, cs, kept, dys, dhs,
                     dcs, zero_output_for_mask)


def _infer_forward(inputs, attrs):
    x, _, _, _, recurrent = inputs[:5]
    cell = attrs.get("cell", "lstm")
    dtype = x.dtype
    xd = x.shape.as_list() if x.shape.rank is not None else [None, None, None]
    if len(xd) != 3:
        raise ValueError(f"FusedRecurrentSequence: x must be [time, batch, features], got {x.shape}")
    units = recurrent.shape.as_list()[0] if recurrent.shape.rank == 2 else None
    seq = TensorShape([xd[0], xd[1], units])
    kept = TensorShape([xd[0], xd[1], None if units is None else _KEPT[cell] * units])
    return [(dtype, seq), (dtype, seq), (dtype, seq if cell == "lstm" else TensorShape([0])), (dtype, kept)]


def _infer_backward(inputs, attrs):
    return [(t.dtype, t.shape) for t in inputs[:6]]


def _empty_like_grad(reference):
    return convert_to_tensor(np.zeros((0,), reference.dtype.as_numpy_dtype))


def _forward_grad(op, dys, dhs, dcs, _dkept):
    ys, hs, cs, kept = op.outputs
    missing = [_empty_like_grad(ys) if g is None else g for g in (dys, dhs, dcs)]
    grads = apply(FUSED_RECURRENT_SEQUENCE_GRAD, tuple(op.inputs) + (hs, cs, kept, *missing), op.attrs,
                  "FusedRecurrentSequenceGrad")
    grads = list(grads)
    if op.attrs.get("cell", "lstm") != "lstm":
        grads[2] = None     # c0 is an empty placeholder
    return grads + [None, None]


_INPUTS = ("x", "h0", "c0", "kernel", "recurrent_kernel", "bias", "mask", "recurrent_scale")
FUSED_RECURRENT_SEQUENCE = OpDef("FusedRecurrentSequence", _infer_forward, _forward_kernel, grad=_forward_grad,
                                 multi=True, input_names=_INPUTS)
FUSED_RECURRENT_SEQUENCE.none_grads = True
FUSED_RECURRENT_SEQUENCE_GRAD = OpDef("FusedRecurrentSequenceGrad", _infer_backward, _backward_kernel, multi=True,
                                      input_names=_INPUTS + ("h", "c", "kept", "dy", "dh", "dc"))


def recurrent_sequence(cell, x, h0, c0, kernel, recurrent_kernel, bias, mask, recurrent_scale,
                       zero_output_for_mask=False):
    """Runs a Keras recurrent cell with its default activations over time-major `x` [T, B, I]: `cell` is
    "lstm" (states h, c), "gru" (reset_after=True, bias [2, 3U]), "gru_reset_before" (bias [3U]) or
    "simple_rnn" (tanh). Returns (y, h, c, kept), each per step; `c0` and `c` are empty but for the LSTM.
    `mask` is [T, B] bool or an empty bool tensor; `recurrent_scale` [B, U] or an empty tensor."""
    return apply(FUSED_RECURRENT_SEQUENCE, (x, h0, c0, kernel, recurrent_kernel, bias, mask, recurrent_scale),
                 {"cell": cell, "zero_output_for_mask": bool(zero_output_for_mask)}, "FusedRecurrentSequence")


def lstm_sequence(x, h0, c0, kernel, recurrent_kernel, bias, mask, recurrent_scale, zero_output_for_mask=False):
    """`recurrent_sequence("lstm", ...)`."""
    return recurrent_sequence("lstm", x, h0, c0, kernel, recurrent_kernel, bias, mask, recurrent_scale,
                              zero_output_for_mask)
