"""The LSTM step's elementwise work as one compiled pass each way (numba, the optional `jit` extra), for
recurrent_kernels.py's fused sequences.

At batch 32 and 128 units a step's gates are [32, 512] arrays: NumPy spends more on its ~10 forward and
~20 backward calls than on their arithmetic. Compiled, the forward is: the GEMM, one multiply that
halves the sigmoid gates' columns, one np.tanh over all four gates (σ(z) = ½·tanh(½z) + ½; NumPy's tanh
is vectorised, numba's is a scalar libm call 7× slower), this module's pass (the gates and the new cell
state) and np.tanh of the cell state; the backward: np.tanh of the cell state and this module's pass
(every gate's pre-activation gradient and the cell gradient). Built once the fused op is hot (see
`jit.when_hot`); without numba the NumPy steps run.
"""
import numpy as np

from .. import jit

__all__ = ["lstm_kernels", "sigmoid_halving"]

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


def _compile(numba):
    return (numba.njit(nogil=True, cache=True)(_lstm_gates), numba.njit(nogil=True, cache=True)(_lstm_back))


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
