"""BiasAddGrad: the bias gradient of `tf.nn.bias_add`, summed in the order TensorFlow's CPU kernel adds.

TensorFlow does not reduce the gradient as `reduce_sum` does (Eigen's column reducer, four accumulators
per packet of channels): channels last, it views the gradient as [rows, channels] and adds row after row
into per-block buffers. The order, established by experiment against TensorFlow 2.21 on this machine
(2 CPUs; every case of tests/ops/test_bias_add_grad.py, no differing bit):

* no rows: zeros; one row: that row.
* more than 32 channels per thread of the pool: each channel is a running sum of its rows from zero.
* otherwise the rows are cut into `blocks` = min(threads, rows, ceil(rows·channels / ceil(2000 /
  channels))) blocks of ceil(rows / blocks) rows, handed to Eigen's `parallelFor`. When its cost model
  gives the work one thread, the shard is all the blocks: one running sum of every row. Else each shard
  of blocks is a running sum from zero of its rows, and the shards' sums are added in order.

Each running sum is independent of the others, so the shards (and, for the running sum of many
channels, blocks of channels) run in the worker threads: the bits never depend on how they ran. Half
types add in float32, as TensorFlow's accumulator type. Channels first (NCHW) TensorFlow reduces the
middle dimension in an order not reproduced here: that layout keeps `reduce_sum`'s order.
"""
import numpy as np

from ...framework import errors
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from .. import eigen_pool, jit
from ..linalg import blas_threads
from ..math import eigen_sum
from ..registry import OpDef, apply
from ..shapes.common import fmt_shape as _dims_text
from ..shapes.shape_ops import shape_of
from ..shapes.shaping import broadcast_to, reshape

__all__ = ["BIAS_ADD_GRAD", "bias_add_grad", "bias_sums"]

_NARROW = (np.dtype(_dt.float16._np), np.dtype(_dt.bfloat16._np))
# Eigen's cost model (TensorCostModel.h): cycles per loaded byte (an L2 line of 64 bytes, 11 cycles); its
# thread and task constants are in ops/eigen_pool.py.
_LOAD_CYCLES_PER_BYTE = 11 / 64
_MIN_BLOCK_WORK = 2000        # redux_functor's smallest block, in values
_CHANNELS_PER_THREAD = 32     # above this many channels per thread, TensorFlow splits the channels
HOT_CALLS = 3               # sums of big gradients before the compiled loop is built (numba installed)
_LOOP_DTYPES = tuple(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))
# Below this many values one thread sums alone. The compiled loop sums 11 MB (the keras-io convnet's first
# bias gradient, [128, 26, 26, 32]) in 0.6-1.0 ms; handing half to a worker cost more than it saved on the
# loaded machine (two halves 0.85-1.4 ms, one thread 0.56-0.98 ms: best and median, interleaved).
_THREADED_MIN_VALUES = 1 << 22


# The pool's size (tests replace `_threads` to model another machine) and parallelFor's blocks.
_threads = eigen_pool.pool_size
_parallel_for_shards = eigen_pool.parallel_for_blocks


def _divup(a, b):
    return -(-a // b)


def _running_sum_loop(rows, out):
    """out[c] = ((0 + rows[0, c]) + rows[1, c]) + ...: the channel loop innermost, so that it vectorises
    without reordering any channel's additions."""
    for c in range(out.shape[0]):
        out[c] = 0
    for r in range(rows.shape[0]):
        for c in range(out.shape[0]):
            out[c] = out[c] + rows[r, c]


def _compile(numba):
    loop = numba.njit(nogil=True, cache=True)(_running_sum_loop)
    for t in (numba.float32, numba.float64, numba.complex64, numba.complex128):
        loop.compile((t[:, :], t[::1]))
    return loop


def _running_sum(rows, out):
    """out[:] = the running sum of `rows` [r, c] from zero, row after row (r >= 1)."""
    loop = jit.when_hot("bias_add_grad", _compile, HOT_CALLS, rows.size)
    if loop is not None and rows.dtype in _LOOP_DTYPES:
        loop(rows, out)
    elif rows.shape[1] < 8:   # NumPy reduces a narrow array along its rows pairwise: accumulate keeps order
        np.add(np.add.accumulate(rows, axis=0)[-1], 0, out=out)
    else:                   # row after row; + 0 as the buffer's zero (-0.0 sums become +0.0)
        np.add.reduce(rows, axis=0, out=out)
        out += 0


def _row_ranges(rows, channels, threads, itemsize, add_cycles):
    """The row ranges TensorFlow sums separately (added in order afterwards), for channels <= 32·threads."""
    most = min(rows, _divup(rows * channels, _divup(_MIN_BLOCK_WORK, channels)))
    blocks = min(most, threads)
    block_rows = _divup(rows, blocks)
    cost = block_rows * channels * (itemsize * _LOAD_CYCLES_PER_BYTE + add_cycles)
    shards = _parallel_for_shards(blocks, cost, threads)
    return [(lo * block_rows, min(rows, hi * block_rows)) for lo, hi in shards]


def bias_sums(x2d):
    """The sums of the columns of `x2d` [rows, channels] (float or complex; half types summed in float32)
    in TensorFlow's BiasAddGrad order."""
    out_dtype = x2d.dtype
    x2d = np.ascontiguousarray(x2d, np.float32 if out_dtype in _NARROW else None)
    rows, channels = x2d.shape
    if rows == 0 or channels == 0:
        return np.zeros(channels, out_dtype)
    if rows == 1:
        return x2d[0].astype(out_dtype)
    threads = _threads()
    workers = blas_threads.usable_workers() if x2d.size >= _THREADED_MIN_VALUES else 1
    if channels > _CHANNELS_PER_THREAD * threads:
        ranges = [(0, rows)]
        # independent channels: blocks of whole cache lines of them in the worker threads
        step = max(16, _divup(_divup(channels, 2 * workers), 16) * 16)
        columns = [(lo, min(channels, lo + step)) for lo in range(0, channels, step)] if workers > 1 else [
            (0, channels)]
    else:
        # the bytes are the input's (half types: 2), the cost of an addition Eigen's (2 for a complex)
        ranges = _row_ranges(rows, channels, threads, np.dtype(out_dtype).itemsize,
                             2 if x2d.dtype.kind == "c" else 1)
        columns = [(0, channels)]
    partial = np.empty((len(ranges), channels), x2d.dtype)
    jobs = [(r, c) for r in range(len(ranges)) for c in columns]

    def run(i):
        r, (c0, c1) = jobs[i]
        lo, hi = ranges[r]
        _running_sum(x2d[lo:hi, c0:c1], partial[r, c0:c1])
    if workers > 1 and len(jobs) > 1:
        blas_threads.run_blocks(run, len(jobs))
    else:
        for i in range(len(jobs)):
            run(i)
    total = partial[0]
    for p in partial[1:]:
        total += p
    return total.astype(out_dtype, copy=False)


def _bias_add_grad_kernel(out_backprop, data_format):
    if out_backprop.ndim < 2:
        raise errors.InvalidArgumentError(
            None, None, f"Input tensor must be at least 2D: {_dims_text(out_backprop.shape)}")
    if data_format == "NCHW":
        axes = tuple(a for a in range(out_backprop.ndim) if a != 1)
        if out_backprop.dtype in (np.float32,) + _NARROW:
            sums = eigen_sum.reduce_sum(out_backprop.astype(np.float32, copy=False), axes)
            return sums.astype(out_backprop.dtype, copy=False)
        return np.add.reduce(out_backprop, axis=axes)
    x2d = out_backprop.reshape(-1, out_backprop.shape[-1])
    if out_backprop.dtype.kind in "fc":
        return bias_sums(x2d)
    return np.add.reduce(x2d, axis=0, dtype=out_backprop.dtype)     # integers wrap: any order gives the same


def _infer_bias_add_grad(inputs, attrs):
    x = inputs[0]
    dims = x.shape._dims
    if dims is None:
        return [(x.dtype, TensorShape([None]))]
    if len(dims) < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {len(dims)} for '{{{{node BiasAddGrad}}}}' "
                         f"with input shapes: [{','.join('?' if d is None else str(d) for d in dims)}].")
    return [(x.dtype, TensorShape([dims[1] if attrs["data_format"] == "NCHW" else dims[-1]]))]


def _bias_add_grad_grad(op, grad):
    """Each channel's incoming gradient spread back over every position of that channel."""
    x = op.inputs[0]
    rank = x.shape.rank
    if op.attrs["data_format"] == "NCHW":
        expanded = reshape(grad, [1, -1] + [1] * (rank - 2))
    else:
        expanded = reshape(grad, [1] * (rank - 1) + [-1])
    return [broadcast_to(expanded, shape_of(x))]


BIAS_ADD_GRAD = OpDef("BiasAddGrad", _infer_bias_add_grad, _bias_add_grad_kernel, grad=_bias_add_grad_grad,
                      allowed=(_dt.float32, _dt.float64, _dt.int32, _dt.uint8, _dt.int16, _dt.int8, _dt.int64,
                               _dt.bfloat16, _dt.uint16, _dt.float16, _dt.uint32, _dt.uint64, _dt.complex64,
                               _dt.complex128),
                      input_names=("out_backprop",))


def bias_add_grad(out_backprop, data_format="NHWC", name=None):
    """The BiasAddGrad op on a tensor (`tf.nn.bias_add`'s gradient for its bias calls this)."""
    data_format = "NCHW" if data_format is not None and str(data_format).startswith("NC") else "NHWC"
    return apply(BIAS_ADD_GRAD, (out_backprop,), {"data_format": data_format}, name or "BiasAddGrad")
