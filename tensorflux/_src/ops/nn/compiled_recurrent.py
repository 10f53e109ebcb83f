"""The LSTM and GRU steps' elementwise work as compiled passes (numba, the optional `jit` extra), and the
SimpleRNN step's backward, for recurrent_kernels.py's fused sequences.

At batch 32 and 128 units a step's gates are [32, 512] arrays: NumPy spends more on its ~10 forward and
~20 backward calls than on their arithmetic. Compiled, the forward is: the GEMM, one multiply that
halves the sigmoid gates' columns, one np.tanh over all four gates (σ(z) = ½·tanh(½z) + ½; NumPy's tanh
is vectorised, numba's is a scalar libm call 7× slower), this module's pass (the gates and the new cell
state) and np.tanh of the cell state; the backward: np.tanh of the cell state and this module's pass
(every gate's pre-activation gradient and the cell gradient). The GRU's (reset_after, Keras' default)
forward is the GEMM, a pass adding the biases and halving the z and r columns, np.tanh of those, a pass
finishing the gates and the candidate's pre-activation, np.tanh of the candidate and a pass for the new
state (about 6 calls instead of 14); its backward is one pass before the recurrent GEMM (instead of 12).
The SimpleRNN forward is already a GEMM and one np.tanh; its backward's 1 - h² product is one pass.
Each pass does the NumPy path's operations in the same order (float32 products with the constants ½
and 1 are rounded through float64 by numba, so the last bit may differ from NumPy's). Built once the
fused op is hot (see `jit.when_hot`); without numba the NumPy steps run.
"""
import numpy as np

from .. import jit

__all__ = ["lstm_kernels", "gru_kernels", "simple_rnn_back", "sigmoid_halving"]

HOT_CALLS = 3
_HALVING = {}


def _lstm_gates(t, c_prev, c_new, units):
    """t = tanh of [½z_i, ½z_f, z_g, ½z_o] in place into the gates (i, f, g, o); c_new = f·c_prev + i·g."""
    for b in range(t.shape[0]):
        row, cp, cn = t[b], c_prev[b], c_new[b]
        for u in range(units):
            i = 0.5 * row[u] + 0.5
            f = 0.5 * row[units + u] + 0.5
            row[u] = i
            row[units + u] = f
            row[3 * units + u] = 0.5 * row[3 * units + u] + 0.5
            cn[u] = f * cp[u] + i * row[2 * units + u]


def _lstm_back(gates, tanh_c, c_prev, dh, dc, dz, dc_prev, units):
    """From dh, dc of a step's new states: dz (the pre-activation gradients, i, f, g, o) and dc_prev."""
    for b in range(gates.shape[0]):
        row, d, tc, cp, gh, gc, out = gates[b], dz[b], tanh_c[b], c_prev[b], dh[b], dc[b], dc_prev[b]
        for u in range(units):
            i, f, g, o = row[u], row[units + u], row[2 * units + u], row[3 * units + u]
            t = tc[u]
            dcn = gc[u] + gh[u] * o * (1 - t * t)
            d[u] = dcn * g * i * (1 - i)
            d[units + u] = dcn * cp[u] * f * (1 - f)
            d[2 * units + u] = dcn * i * (1 - g * g)
            d[3 * units + u] = gh[u] * t * o * (1 - o)
            out[u] = dcn * f


def _gru_preactivations(z, rec, recurrent_bias, kept, units):
    """kept[:, :2U] = ½·(z + (rec + b)) for the z and r gates (halved for σ = ½·tanh(½·) + ½), and
    kept[:, 3U:] = rec + b of the candidate columns (the recurrent candidate projection, bias included)."""
    for b in range(z.shape[0]):
        zr, rr, out = z[b], rec[b], kept[b]
        for u in range(2 * units):
            out[u] = 0.5 * (zr[u] + (rr[u] + recurrent_bias[u]))
        for u in range(units):
            out[3 * units + u] = rr[2 * units + u] + recurrent_bias[2 * units + u]


def _gru_candidate(z, kept, units):
    """From the tanh'd halves: the z and r gates, and the candidate's pre-activation r·(rec_h) + z_h."""
    for b in range(z.shape[0]):
        zr, out = z[b], kept[b]
        for u in range(2 * units):
            out[u] = 0.5 * out[u] + 0.5
        for u in range(units):
            out[2 * units + u] = out[units + u] * out[3 * units + u] + zr[2 * units + u]


def _gru_state(kept, h, h_new, units):
    """h_new = (h - hh)·z + hh (z·h + (1 - z)·hh)."""
    for b in range(h.shape[0]):
        out, hp, hn = kept[b], h[b], h_new[b]
        for u in range(units):
            cand = out[2 * units + u]
            hn[u] = (hp[u] - cand) * out[u] + cand


def _gru_back(kept, h_prev, dh, dz, drec, direct, units):
    """The pre-activation gradients of a GRU step (dz: z, r, input candidate; drec: the recurrent ones,
    whose candidate part is scaled by r) and the gradient reaching h_prev directly (dh·z)."""
    for b in range(kept.shape[0]):
        row, hp, g, d, dr, out = kept[b], h_prev[b], dh[b], dz[b], drec[b], direct[b]
        for u in range(units):
            gz, gr, cand, rec_h = row[u], row[units + u], row[2 * units + u], row[3 * units + u]
            dgz = (g[u] * (hp[u] - cand)) * (gz * (1 - gz))
            dgh = (g[u] * (1 - gz)) * (1 - cand * cand)
            dgr = (dgh * rec_h) * (gr * (1 - gr))
            d[u] = dgz
            d[units + u] = dgr
            d[2 * units + u] = dgh
            dr[u] = dgz
            dr[units + u] = dgr
            dr[2 * units + u] = dgh * gr
            out[u] = g[u] * gz


def _simple_rnn_back(kept, dh, dz):
    """dz = dh·(1 - h²)."""
    for b in range(kept.shape[0]):
        row, g, d = kept[b], dh[b], dz[b]
        for u in range(row.shape[0]):
            d[u] = g[u] * (1 - row[u] * row[u])


def _compile(numba):
    return (numba.njit(nogil=True, cache=True)(_lstm_gates), numba.njit(nogil=True, cache=True)(_lstm_back))


def _compile_gru(numba):
    return tuple(numba.njit(nogil=True, cache=True)(f)
                 for f in (_gru_preactivations, _gru_candidate, _gru_state, _gru_back))


def gru_kernels():
    """(preactivations, candidate, state, back) compiled, or None (numba missing, or not hot yet)."""
    return jit.when_hot("gru_steps", _compile_gru, HOT_CALLS)


def simple_rnn_back():
    """The SimpleRNN step's backward pass compiled, or None (numba missing, or not hot yet)."""
    return jit.when_hot("simple_rnn_back", lambda numba: numba.njit(nogil=True, cache=True)(_simple_rnn_back),
                        HOT_CALLS)


def lstm_kernels():
    """(gates, back) compiled, or None (numba missing, or the fused op not hot yet)."""
    return jit.when_hot("lstm_steps", _compile, HOT_CALLS)


def sigmoid_halving(units, dtype):
    """[½]·U, [½]·U, [1]·U, [½]·U: the column scale that turns tanh into the sigmoid gates' ½·tanh(½z)."""
    key = (units, np.dtype(dtype))
    scale = _HALVING.get(key)
    if scale is None:
        scale = np.full(4 * units, 0.5, dtype)
        scale[2 * units:3 * units] = 1
        _HALVING[key] = scale
    return scale
