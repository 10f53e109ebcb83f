"""Fused recurrent sequences for training Keras's LSTM: one op runs the whole time loop forward, one op
the whole loop backward (issue 20).

Written as a cell under a `While`, an LSTM step is a dozen graph ops and its gradient two dozen more,
each a NumPy call on a [batch, units] array: at batch 32 and 128 units the interpreter, not the
arithmetic, is the cost. Here:

- forward (`FusedLSTMSequence`): the input projections of all time steps are one GEMM
  ([T·B, I] @ [I, 4U] + bias), then per step one recurrent GEMM ([B, U] @ [U, 4U]) into the same
  buffer and the gates computed in place (σ(z) as ½·tanh(½z) + ½: no overflow, one transcendental);
- backward (`FusedLSTMSequenceGrad`): per step only the recurrent GEMM back to h; the pre-activation
  gradients of all steps are kept, so the kernel, recurrent-kernel, bias and input gradients are
  four GEMMs/reductions over the whole sequence at the end.

The op keeps what the backward needs as outputs: the activated gates and the states after every step.
Keras's semantics are kept: a per-step `mask` ([T, B] bool, or empty) keeps the previous states and
output at masked steps (`zero_output_for_mask` gives zeros instead), a recurrent-dropout multiplier
([B, U], or empty) scales the state entering the recurrent projection, and input dropout, reversal
(go_backwards) and stateful carries are plain ops around this one. Gate order is Keras's: i, f, c, o.

Outputs: y [T, B, U] (the layer's per-step outputs), h [T, B, U] and c [T, B, U] (the states after each
step: h[-1], c[-1] are the final ones), gates [T, B, 4U] (activated; an internal output). These ops
exist in tensorflux only: Keras layers use them while training and keep TensorFlow's While form for
inference graphs, which are the ones exported.
"""
import numpy as np

from ...framework import errors
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..linalg.blas_threads import gemm, gemm_tn
from ..convert import convert_to_tensor
from ..registry import OpDef, apply

__all__ = ["lstm_sequence"]

_FLOATS = (_dt.float32, _dt.float64)


def _sigmoid_(z):
    """σ(z) in place: ½·tanh(½z) + ½."""
    z *= 0.5
    np.tanh(z, out=z)
    z *= 0.5
    z += 0.5
    return z


def _check(x, h0, c0, kernel, recurrent, bias):
    if x.ndim != 3:
        raise errors.InvalidArgumentError(None, None, f"x must be [time, batch, features], got shape {list(x.shape)}")
    units = recurrent.shape[0]
    if (kernel.shape != (x.shape[2], 4 * units) or recurrent.shape != (units, 4 * units)
            or bias.shape != (4 * units,) or h0.shape != (x.shape[1], units) or c0.shape != h0.shape):
        raise errors.InvalidArgumentError(
            None, None, f"FusedLSTMSequence: inconsistent shapes x {list(x.shape)}, h0 {list(h0.shape)}, "
                        f"c0 {list(c0.shape)}, kernel {list(kernel.shape)}, recurrent_kernel "
                        f"{list(recurrent.shape)}, bias {list(bias.shape)}")
    return units


def _lstm_forward(x, h0, c0, kernel, recurrent, bias, mask, recurrent_scale, zero_output_for_mask=False):
    units = _check(x, h0, c0, kernel, recurrent, bias)
    steps, batch, _ = x.shape
    dtype = x.dtype
    gates = gemm(x.reshape(steps * batch, -1), kernel).reshape(steps, batch, 4 * units)
    gates += bias
    hs = np.empty((steps, batch, units), dtype)
    cs = np.empty((steps, batch, units), dtype)
    masked = mask.size > 0
    ys = np.empty((steps, batch, units), dtype) if masked else hs
    scaled = recurrent_scale.size > 0
    h, c = h0, c0
    y = np.zeros((batch, units), dtype)
    tanh_c = np.empty((batch, units), dtype)
    for t in range(steps):
        z = gates[t]
        z += (h * recurrent_scale if scaled else h) @ recurrent
        _sigmoid_(z[:, :2 * units])
        np.tanh(z[:, 2 * units:3 * units], out=z[:, 2 * units:3 * units])
        _sigmoid_(z[:, 3 * units:])
        i, f, g, o = z[:, :units], z[:, units:2 * units], z[:, 2 * units:3 * units], z[:, 3 * units:]
        c_new = cs[t]
        np.multiply(f, c, out=c_new)
        c_new += i * g
        np.tanh(c_new, out=tanh_c)
        h_new = hs[t]
        np.multiply(o, tanh_c, out=h_new)
        if masked:
            keep = mask[t][:, None]
            ys[t] = np.where(keep, h_new, 0 if zero_output_for_mask else y)
            np.copyto(h_new, h, where=~keep)
            np.copyto(c_new, c, where=~keep)
            y = ys[t]
        h, c = h_new, c_new
    return ys.copy() if not masked else ys, hs, cs, gates


def _lstm_backward(x, h0, c0, kernel, recurrent, bias, mask, recurrent_scale, hs, cs, gates, dys, dhs, dcs,
                   zero_output_for_mask=False):
    """Gradients (x, h0, c0, kernel, recurrent_kernel, bias) from those of the outputs y, h, c (each
    [T, B, U] or empty when nothing reached it)."""
    steps, batch, _ = x.shape
    units = recurrent.shape[0]
    dtype = x.dtype
    masked = mask.size > 0
    scaled = recurrent_scale.size > 0
    dz = np.empty((steps, batch, 4 * units), dtype)
    dh = np.zeros((batch, units), dtype)
    dc = np.zeros((batch, units), dtype)
    dy_carry = np.zeros((batch, units), dtype)
    recurrent_t = recurrent.T
    for t in range(steps - 1, -1, -1):
        c_prev = cs[t - 1] if t > 0 else c0
        if dhs.size:
            dh += dhs[t]
        if dcs.size:
            dc += dcs[t]
        gy = dys[t] + dy_carry if dys.size else dy_carry
        if masked:
            keep = mask[t][:, None]
            dh_new = np.where(keep, gy + dh, 0)
            dc_new = np.where(keep, dc, 0)
            dy_carry = np.zeros_like(gy) if zero_output_for_mask else np.where(keep, 0, gy)
            dh_skip, dc_skip = np.where(keep, 0, dh), np.where(keep, 0, dc)
        else:
            dh_new, dc_new = gy + dh, dc
        z = gates[t]
        i, f, g, o = z[:, :units], z[:, units:2 * units], z[:, 2 * units:3 * units], z[:, 3 * units:]
        tanh_c = np.tanh(cs[t])     # where a step is masked cs[t] is the old state, but its gradient is zero
        d = dz[t]
        d_i, d_f, d_g, d_o = d[:, :units], d[:, units:2 * units], d[:, 2 * units:3 * units], d[:, 3 * units:]
        np.multiply(dh_new, tanh_c, out=d_o)                      # dL/do
        dc_new = dc_new + dh_new * o * (1 - tanh_c * tanh_c)      # dL/dc_new
        np.multiply(dc_new, g, out=d_i)
        np.multiply(dc_new, c_prev, out=d_f)
        np.multiply(dc_new, i, out=d_g)
        d_i *= i * (1 - i)
        d_f *= f * (1 - f)
        d_g *= 1 - g * g
        d_o *= o * (1 - o)
        dc = dc_new * f
        dh = d @ recurrent_t
        if scaled:
            dh *= recurrent_scale
        if masked:
            dh += dh_skip
            dc += dc_skip
    flat = dz.reshape(steps * batch, 4 * units)
    dx = gemm(flat, kernel.T).reshape(x.shape)
    dkernel = gemm_tn(x.reshape(steps * batch, -1), flat)
    h_prev = np.concatenate([h0[None], hs[:-1]], axis=0).reshape(steps * batch, units)
    if scaled:
        h_prev = h_prev * np.tile(recurrent_scale, (steps, 1))
    drecurrent = gemm_tn(h_prev, flat)
    dbias = flat.sum(axis=0)
    return dx, dh, dc, dkernel, drecurrent, dbias


def _forward_kernel(x, h0, c0, kernel, recurrent, bias, mask, recurrent_scale, zero_output_for_mask=False):
    return _lstm_forward(x, h0, c0, kernel, recurrent, bias, mask, recurrent_scale, zero_output_for_mask)


def _backward_kernel(x, h0, c0, kernel, recurrent, bias, mask, recurrent_scale, hs, cs, gates, dys, dhs, dcs,
                     zero_output_for_mask=False):
    return _lstm_backward(x, h0, c0, kernel, recurrent, bias, mask, recurrent_scale, hs, cs, gates, dys, dhs,
                          dcs, zero_output_for_mask)


def _infer_forward(inputs, attrs):
    x, _, _, _, recurrent = inputs[:5]
    dtype = x.dtype
    xd = x.shape.as_list() if x.shape.rank is not None else [None, None, None]
    if len(xd) != 3:
        raise ValueError(f"FusedLSTMSequence: x must be [time, batch, features], got {x.shape}")
    units = recurrent.shape.as_list()[0] if recurrent.shape.rank == 2 else None
    seq = TensorShape([xd[0], xd[1], units])
    return [(dtype, seq), (dtype, seq), (dtype, seq),
            (dtype, TensorShape([xd[0], xd[1], None if units is None else 4 * units]))]


def _infer_backward(inputs, attrs):
    return [(t.dtype, t.shape) for t in inputs[:6]]


def _empty_like_grad(reference):
    return convert_to_tensor(np.zeros((0,), reference.dtype.as_numpy_dtype))


def _forward_grad(op, dys, dhs, dcs, _dgates):
    ys, hs, cs, gates = op.outputs
    missing = [_empty_like_grad(ys) if g is None else g for g in (dys, dhs, dcs)]
    grads = apply(FUSED_LSTM_SEQUENCE_GRAD, tuple(op.inputs) + (hs, cs, gates, *missing), op.attrs,
                  "FusedLSTMSequenceGrad")
    return list(grads) + [None, None]


FUSED_LSTM_SEQUENCE = OpDef("FusedLSTMSequence", _infer_forward, _forward_kernel, grad=_forward_grad, multi=True,
                            input_names=("x", "h0", "c0", "kernel", "recurrent_kernel", "bias", "mask",
                                         "recurrent_scale"))
FUSED_LSTM_SEQUENCE.none_grads = True
FUSED_LSTM_SEQUENCE_GRAD = OpDef("FusedLSTMSequenceGrad", _infer_backward, _backward_kernel, multi=True,
                                 input_names=("x", "h0", "c0", "kernel", "recurrent_kernel", "bias", "mask",
                                              "recurrent_scale", "h", "c", "gates", "dy", "dh", "dc"))


def lstm_sequence(x, h0, c0, kernel, recurrent_kernel, bias, mask, recurrent_scale, zero_output_for_mask=False):
    """Runs a Keras LSTM (tanh/sigmoid) over time-major `x` [T, B, I]; returns (y, h, c, gates), each per
    step. `mask` is [T, B] bool or an empty bool tensor; `recurrent_scale` [B, U] or an empty tensor."""
    return apply(FUSED_LSTM_SEQUENCE, (x, h0, c0, kernel, recurrent_kernel, bias, mask, recurrent_scale),
                 {"zero_output_for_mask": bool(zero_output_for_mask)}, "FusedLSTMSequence")
