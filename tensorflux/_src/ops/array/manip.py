"""Array manipulation ops TensorFlow code uses everywhere: repeat, roll, meshgrid, reverse_sequence,
searchsorted, histogram_fixed_width, unravel_index, ensure_shape, embedding_lookup, and the grouping ops
identity_n, no_op, group and tuple.

Ops TensorFlow has as kernels (Roll, ReverseSequence, LowerBound/UpperBound, HistogramFixedWidth,
UnravelIndex, EnsureShape, IdentityN, NoOp) are OpDefs here. `repeat`, `meshgrid`, `embedding_lookup`,
`group` and `tuple` are Python compositions in TensorFlow too, so they are built from existing ops (and
get their gradients from them): `repeat` is a gather by repeated positions, `meshgrid` reshapes and
broadcasts, `embedding_lookup` gathers rows.
"""
import numpy as np

from ...framework import errors
from ...framework import nest as _nest
from ...framework.context import state as _state
from ...framework.graph import Operation
from ...framework.tensor import EagerTensor, Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from . import join as _join
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping
from ..shapes import creators as _creators
from . import gather as _gather
from . import where as _where
from .. import assertion as _assertion
from ..math import arith as _math
from ..math import reduce as _reduce
from ..shapes.common import attr_type_error, bad, fmt_shape, static_int
from ..convert import constant, convert_to_tensor
from ..registry import REAL, OpDef, apply, constant_value, dtype_error_name

__all__ = ["repeat", "roll", "meshgrid", "reverse_sequence", "identity_n", "no_op", "group", "tuple",
           "searchsorted", "histogram_fixed_width", "embedding_lookup", "unravel_index", "ensure_shape"]

_INDEX_TYPES = (_dt.int32, _dt.int64)
_builtin_tuple = type(())  # `tuple` below is TensorFlow's tf.tuple
_UNKNOWN = TensorShape(None)


def _index_tensor(value, attr, op_name, param):
    t = convert_to_tensor(value)
    if t.dtype not in _INDEX_TYPES:
        raise attr_type_error(attr, t.dtype, op_name, _INDEX_TYPES, param)
    return t


# ---------------------------------------------------------------------------------------------------
# repeat
# ---------------------------------------------------------------------------------------------------

def _negative_repeat_error(count):
    return errors.eager_error(errors.InvalidArgumentError, f"Expected multiples[1] >= 0, but got {count}", "Tile")


def _repeat_positions(repeats, length, rank_one):
    """The source position of every output element along the axis, as a constant when static."""
    counts = np.reshape(repeats, -1)
    if not rank_one:
        if int(counts[0]) < 0:
            raise _negative_repeat_error(int(counts[0]))
        counts = np.broadcast_to(counts, (length,))
    elif counts.size == 1:
        counts = np.broadcast_to(counts, (length,))
    return np.repeat(np.arange(len(counts), dtype=np.int64), np.maximum(counts, 0)).astype(np.int32)


def repeat(input, repeats, axis=None, name=None):  # noqa: A002 - TensorFlow's argument name
    """`tf.repeat`: each slice along `axis` repeated `repeats` times (`axis=None`: of the flattened input)."""
    input = convert_to_tensor(input)
    repeats = convert_to_tensor(repeats)
    if not repeats.dtype.is_integer:
        shown = repeats.numpy() if getattr(repeats, "_value", None) is not None else repeats
        raise TypeError(f"Argument `tensor` (name: repeats) must be of type integer. Received `tensor` = {shown} of "
                        f"dtype: <dtype: '{repeats.dtype.name}'>")
    if axis is None:
        input = _shaping.reshape(input, [-1])
        axis = 0
    axis = static_int(axis, "axis")
    rank = input.shape.rank
    if rank is not None:
        if not -rank <= axis < rank:
            raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
        axis %= rank
    elif axis < 0:
        raise ValueError("`axis` must be non-negative for an input of unknown rank")
    r_rank = repeats.shape.rank
    if r_rank is not None and r_rank > 1:
        raise ValueError(f"Shape {repeats.shape} must have rank at most 1")
    length = input.shape[axis] if rank is not None else None
    known = constant_value(repeats)
    if known is not None:
        known = np.asarray(known)
        if known.ndim == 1 and known.size != 1:
            if length is not None and length != known.size:
                raise ValueError(f"Dimensions {length} and {known.size} are not compatible")
            length = known.size
        if length is not None:
            positions = constant(_repeat_positions(known, length, known.ndim == 1))
            return _gather.gather(input, positions, axis=axis, name=name or "Repeat")
    return _dynamic_repeat(input, repeats, axis, name)


def _dynamic_repeat(input, repeats, axis, name):  # noqa: A002
    """Repeat counts known only at run time: output position p reads the slice whose running count of
    repeats first exceeds p (a searchsorted over the cumulative counts)."""
    length = _shape_ops.shape(input)[axis]
    if repeats.dtype is not _dt.int32:
        repeats = _math.cast(repeats, _dt.int32)
    if repeats.shape.rank == 0:
        _assertion.Assert(_math.greater_equal(repeats, 0), ["Expected multiples[1] >= 0, but got", repeats])
    counts = _shaping.broadcast_to(_math.maximum(repeats, 0), _shaping.reshape(length, [1]))
    ends = _reduce.cumsum(counts)
    positions = searchsorted(ends, _creators.range(_reduce.reduce_sum(counts)), side="right")
    return _gather.gather(input, positions, axis=axis, name=name or "Repeat")


# ---------------------------------------------------------------------------------------------------
# roll
# ---------------------------------------------------------------------------------------------------

def _roll_kernel(x, shift, axis):
    if x.ndim == 0:
        raise bad("input must be 1-D or higher")
    if shift.ndim > 1:
        raise bad(f"shift must be a scalar or a 1-D vector. Found: {fmt_shape(shift.shape)}")
    if axis.ndim > 1:
        raise bad(f"axis must be a scalar or a 1-D vector. Found: {fmt_shape(axis.shape)}")
    if shift.shape != axis.shape:
        raise bad("shift and axis must have the same size")
    axes = np.reshape(axis, -1)
    for a in axes.tolist():
        if not -x.ndim <= a < x.ndim:
            raise bad(f"axis {a} is out of range")
    # np.roll adds up the shifts of a repeated axis, as TensorFlow does.
    return np.roll(x, _builtin_tuple(int(s) for s in np.reshape(shift, -1)),
                   _builtin_tuple(int(a) for a in axes))


def _roll_infer(inputs, attrs):
    x, shift, axis = inputs
    if x.shape.rank == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0 for '{{node Roll}}'")
    for t, what in ((shift, "shift"), (axis, "axis")):
        if t.shape.rank is not None and t.shape.rank > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {t.shape.rank} for '{{{{node Roll}}}}'")
    s, a = shift.shape, axis.shape
    if s.rank == 1 and a.rank == 1 and s[0] is not None and a[0] is not None and s[0] != a[0]:
        raise ValueError(f"Dimension 0 in both shapes must be equal, but are {s[0]} and {a[0]}. Shapes are "
                         f"{fmt_shape(s)} and {fmt_shape(a)}. for '{{{{node Roll}}}}'")
    return [(x.dtype, x.shape)]


def _roll_grad(op, grad):
    _, shift, axis = op.inputs
    return [apply(ROLL, (grad, _math.negative(shift), axis), None, "Roll"), None, None]


ROLL = OpDef("Roll", _roll_infer, _roll_kernel, grad=_roll_grad, input_names=("input", "shift", "axis"))


def roll(input, shift, axis, name=None):  # noqa: A002
    """`tf.roll`: elements shifted cyclically by `shift` along `axis` (both scalars or equal-length lists)."""
    input = convert_to_tensor(input)
    shift = _index_tensor(shift, "Tshift", "Roll", "shift")
    axis = _index_tensor(axis, "Taxis", "Roll", "axis")
    return apply(ROLL, (input, shift, axis), None, name or "Roll")


# ---------------------------------------------------------------------------------------------------
# meshgrid
# ---------------------------------------------------------------------------------------------------

def meshgrid(*args, **kwargs):
    """`tf.meshgrid`: N-D coordinate grids from 1-D coordinate vectors ('xy': Cartesian, 'ij': matrix)."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")  # noqa: F841 - accepted for TensorFlow's signature
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'")
    ndim = len(args)
    if not ndim:
        return []
    tensors = [convert_to_tensor(a) for a in args]
    sizes = [t.shape.num_elements() for t in tensors]
    sizes = [_shape_ops.size(t) if n is None else n for t, n in zip(tensors, sizes)]
    order = list(range(ndim))
    if indexing == "xy" and ndim > 1:  # Cartesian: the first two axes swap
        order[0], order[1] = 1, 0
    outputs = []
    for i, t in enumerate(tensors):
        placement = [1] * ndim
        placement[order[i]] = -1
        outputs.append(_shaping.reshape(t, placement))
    grid = [sizes[order.index(k)] for k in range(ndim)]
    if not all(isinstance(s, int) for s in grid):
        grid = _join.stack([s if isinstance(s, Tensor) else constant(np.int32(s)) for s in grid])
    # Multiplying by ones (rather than broadcast_to) is what TensorFlow does, including its dtype errors.
    ones = _creators.ones(grid, dtype=tensors[0].dtype)
    grids = [_math.multiply(x, ones) for x in outputs]
    if _state.graph is not None:  # dims known statically stay known when others are dynamic
        static = TensorShape([sizes[order.index(k)] if isinstance(sizes[order.index(k)], int) else None
                              for k in range(ndim)])
        for t in grids:
            t.set_shape(static)
    return grids


# ---------------------------------------------------------------------------------------------------
# reverse_sequence
# ---------------------------------------------------------------------------------------------------

def _reverse_sequence_kernel(x, seq_lengths, seq_dim, batch_dim):
    rank = x.ndim
    if batch_dim < 0:
        raise bad(f"Invalid batch_dim {batch_dim}")
    if seq_dim < 0:
        raise bad(f"Invalid seq_dim {seq_dim}")
    if batch_dim == seq_dim:
        raise bad(f"batch_dim == seq_dim == {seq_dim}")
    if seq_dim >= rank:
        raise bad(f"seq_dim must be < input rank ( {seq_dim} vs. {rank})")
    if batch_dim >= rank:
        raise bad(f"batch_dim must be < input rank ( {batch_dim} vs. {rank})")
    if seq_lengths.ndim != 1:
        raise bad(f"seq_lengths must be 1-dim, not {seq_lengths.ndim}")
    if seq_lengths.shape[0] != x.shape[batch_dim]:
        raise bad(f"Length of seq_lengths != input.dims({batch_dim}), ({seq_lengths.shape[0]} vs. "
                  f"{x.shape[batch_dim]})")
    for i, n in enumerate(seq_lengths.tolist()):
        if n < 0:
            raise bad(f"seq_lens({i}) < 0")
        if n > x.shape[seq_dim]:
            raise bad(f"seq_lens({i}) > input.dims({seq_dim})")
    # source[b, j] = len[b] - 1 - j inside each sequence, j past its end; laid out along (batch, seq) dims.
    lengths = seq_lengths.astype(np.int64)[:, None]
    positions = np.arange(x.shape[seq_dim], dtype=np.int64)[None, :]
    source = np.where(positions < lengths, lengths - 1 - positions, positions)
    if batch_dim > seq_dim:
        source = source.T
    view = [1] * rank
    view[batch_dim], view[seq_dim] = x.shape[batch_dim], x.shape[seq_dim]
    source = np.broadcast_to(source.reshape(view), x.shape)
    return np.take_along_axis(x, source, axis=seq_dim)


def _reverse_sequence_infer(inputs, attrs):
    x, lengths = inputs
    seq_dim, batch_dim = attrs["seq_dim"], attrs["batch_dim"]
    if lengths.shape.rank is not None and lengths.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {lengths.shape.rank} for '{{{{node ReverseSequence}}}}'")
    dims = x.shape._dims
    if dims is None:
        return [(x.dtype, _UNKNOWN)]
    if seq_dim >= len(dims):
        raise ValueError(f"seq_dim must be < input rank: {seq_dim} vs. {len(dims)} for '{{{{node ReverseSequence}}}}'")
    if batch_dim >= len(dims):
        raise ValueError(f"batch_dim must be < input rank: {batch_dim} vs. {len(dims)} for "
                         f"'{{{{node ReverseSequence}}}}'")
    n = lengths.shape[0] if lengths.shape.rank == 1 else None
    batch = dims[batch_dim] if batch_dim >= 0 else None
    if n is not None and batch is not None and n != batch:
        raise ValueError(f"Dimensions must be equal, but are {batch} and {n} for '{{{{node ReverseSequence}}}}'")
    out = list(dims)
    if batch_dim >= 0 and batch is None:
        out[batch_dim] = n
    return [(x.dtype, TensorShape(_builtin_tuple(out)))]


def _reverse_sequence_grad(op, grad):
    return [apply(REVERSE_SEQUENCE, (grad, op.inputs[1]), op.attrs, "ReverseSequence"), None]


REVERSE_SEQUENCE = OpDef("ReverseSequence", _reverse_sequence_infer, _reverse_sequence_kernel,
                         grad=_reverse_sequence_grad, input_names=("input", "seq_lengths"))


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):  # noqa: A002
    """`tf.reverse_sequence`: for each batch entry b, reverses its first `seq_lengths[b]` elements along
    `seq_axis`."""
    if seq_axis is None:
        raise TypeError("Expected int for argument 'seq_dim' not None.")
    input = convert_to_tensor(input)
    seq_lengths = _index_tensor(seq_lengths, "Tlen", "ReverseSequence", "seq_lengths")
    attrs = {"seq_dim": static_int(seq_axis, "seq_axis"),
             "batch_dim": 0 if batch_axis is None else static_int(batch_axis, "batch_axis")}
    return apply(REVERSE_SEQUENCE, (input, seq_lengths), attrs, name or "ReverseSequence")


# ---------------------------------------------------------------------------------------------------
# identity_n, no_op, group, tuple
# ---------------------------------------------------------------------------------------------------

def _identity_n_kernel(*arrays):
    return arrays


def _identity_n_infer(inputs, attrs):
    return [(t.dtype, t.shape) for t in inputs]


def _identity_n_grad(op, *grads):
    return list(grads)


IDENTITY_N = OpDef("IdentityN", _identity_n_infer, _identity_n_kernel, grad=_identity_n_grad, multi=True,
                   input_names=("input",), list_input="input")


def identity_n(input, name=None):  # noqa: A002
    """`tf.identity_n`: the same tensors (one IdentityN node in a graph), as a list."""
    tensors = _builtin_tuple(t if isinstance(t, Tensor) else convert_to_tensor(t) for t in input)
    return list(apply(IDENTITY_N, tensors, None, name or "IdentityN"))


def _no_outputs(inputs, attrs):
    return []


def _no_op_kernel(*arrays):
    return ()


# Stateful so that pruning keeps it (and, through its control inputs, what it groups).
NO_OP = OpDef("NoOp", _no_outputs, _no_op_kernel, stateful=True, multi=True, input_names=())


def _add_no_op(name):
    return apply(NO_OP, (), None, name)  # in a graph, an op without outputs comes back as the Operation


def no_op(name=None):
    """`tf.no_op`: does nothing; in a graph, an Operation to hang control dependencies on."""
    if _state.graph is None:
        return None
    return _add_no_op(name or "NoOp")


def group(*inputs, **kwargs):
    """`tf.group`: an Operation that runs after all `inputs` (None eagerly, where ops already ran)."""
    if _state.graph is None:
        return None
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError("Unknown keyword arguments: " + ", ".join(kwargs))
    deps = [d for d in _nest.flatten(list(inputs)) if d is not None]
    with _state.graph.control_dependencies(deps):
        return _add_no_op(name or "group_deps")


def tuple(tensors, control_inputs=None, name=None):  # noqa: A001 - TensorFlow's name
    """`tf.tuple`: the tensors, each available only after all of them (and `control_inputs`) are computed."""
    if _state.graph is None:
        return list(tensors)
    for c in control_inputs or []:
        if not isinstance(c, (Operation, Tensor)):
            raise TypeError(f"'control_inputs' must only contain Operation or Tensor. Received: {c!r}")
    tensors = list(tensors)
    graph = _state.graph
    with graph.name_scope(name or "tuple"):
        gate = group(*[t for t in tensors if t is not None], *(control_inputs or []))
        with graph.control_dependencies([gate]):
            return [None if t is None else _shape_ops.identity(t, name="control_dependency") for t in tensors]


# ---------------------------------------------------------------------------------------------------
# searchsorted (LowerBound / UpperBound)
# ---------------------------------------------------------------------------------------------------

def _bound_kernel(upper):
    def kernel(sorted_inputs, values, out_type):
        if sorted_inputs.shape[0] != values.shape[0]:
            raise bad("Leading dim_size of both tensors must match.")
        n = sorted_inputs.shape[1]
        # The binary search of std::lower_bound/upper_bound, run for all values at once (one step per
        # halving), so that unsorted input and NaNs give TensorFlow's exact answers.
        first = np.zeros(values.shape, np.int64)
        count = np.full(values.shape, n, np.int64)
        rows = np.arange(values.shape[0])[:, None]
        while True:
            active = count > 0
            if not active.any():
                break
            half = count >> 1
            middle = first + half
            probe = sorted_inputs[rows, np.minimum(middle, n - 1)]
            right = ~(values < probe) if upper else probe < values
            right &= active
            first = np.where(right, middle + 1, first)
            count = np.where(right, count - half - 1, np.where(active, half, count))
        return first.astype(out_type)
    return kernel


def _bound_infer(inputs, attrs):
    sorted_inputs, values = inputs
    for t in inputs:
        if t.shape.rank is not None and t.shape.rank != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {t.shape.rank}")
    return [(_dt.as_dtype(attrs["out_type"]), values.shape)]


LOWER_BOUND = OpDef("LowerBound", _bound_infer, _bound_kernel(False), allowed=REAL, same_dtype=True,
                    input_names=("sorted_inputs", "values"))
UPPER_BOUND = OpDef("UpperBound", _bound_infer, _bound_kernel(True), allowed=REAL, same_dtype=True,
                    input_names=("sorted_inputs", "values"))


def _last_dim(t):
    dims = t.shape._dims
    if dims is not None and dims and dims[-1] is not None:
        return dims[-1]
    return _shape_ops.shape(t)[-1]  # (a scalar fails here with TensorFlow's strided-slice error)


def _as_rows(t, last):
    if isinstance(last, int):
        return _shaping.reshape(t, [-1, last])
    return _shaping.reshape(t, _join.stack([constant(np.int32(-1)), last]))


def searchsorted(sorted_sequence, values, side="left", out_type=_dt.int32, name=None):
    """`tf.searchsorted`: for each value, the index in the innermost sorted row where it would be inserted."""
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = '{side}'.")
    sorted_sequence = convert_to_tensor(sorted_sequence)
    values = convert_to_tensor(values)
    out = _dt.as_dtype(out_type)
    op = LOWER_BOUND if side == "left" else UPPER_BOUND
    if out not in _INDEX_TYPES:
        raise attr_type_error("out_type", out, op.name, _INDEX_TYPES, "out_type")
    rows = _as_rows(sorted_sequence, _last_dim(sorted_sequence))
    queries = _as_rows(values, _last_dim(values))
    result = apply(op, (rows, queries), {"out_type": out._np}, name or op.name)
    result = _shaping.reshape(result, _shape_ops.shape_of(values))
    if _state.graph is not None:
        result.set_shape(values.shape)
    return result


# ---------------------------------------------------------------------------------------------------
# histogram_fixed_width
# ---------------------------------------------------------------------------------------------------

def _number_text(v):
    return f"{float(v):g}" if isinstance(v, (float, np.floating)) else str(v)


def _histogram_kernel(values, value_range, nbins, dtype):
    if value_range.dtype != values.dtype:  # one attr T for both
        raise bad(f"cannot compute HistogramFixedWidth as input #1(zero-based) was expected to be a "
                  f"{dtype_error_name(_dt.FROM_NUMPY[values.dtype])} tensor but is a "
                  f"{dtype_error_name(_dt.FROM_NUMPY[value_range.dtype])} tensor")
    if value_range.shape != (2,):
        raise bad("value_range should be a vector of 2 elements.")
    if nbins.ndim != 0:
        raise bad(f"nbins should be a scalar, but got {fmt_shape(nbins.shape)}")
    n = int(nbins)
    if n <= 0:
        raise bad(f"nbins should be a positive number, but got '{n}'")
    lo, hi = value_range[0], value_range[1]
    if not lo < hi:
        raise bad(f"value_range should satisfy value_range[0] < value_range[1], but got "
                  f"'[{_number_text(lo)}, {_number_text(hi)}]'")
    if values.dtype.kind == "f" and np.isnan(values).any():
        raise bad("Histogram values must not contain NaN")
    # TensorFlow's arithmetic: the offset from the lower edge in the input dtype, then bins of width
    # (hi - lo) / nbins in double, truncated; values past either edge fall into the first/last bin.
    step = float(hi - lo) / n
    offsets = (np.maximum(values, lo) - lo).astype(np.float64)
    bins = np.minimum(offsets / step, n - 1).astype(np.int64)
    return np.bincount(bins.reshape(-1), minlength=n).astype(dtype)


def _histogram_infer(inputs, attrs):
    values, value_range = inputs[0], inputs[1]
    if value_range.dtype is not values.dtype:
        raise TypeError(f"Input 'value_range' of 'HistogramFixedWidth' Op has type {value_range.dtype.name} that "
                        f"does not match type {values.dtype.name} of argument 'values'.")
    dims = value_range.shape._dims
    if dims is not None and len(dims) != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {len(dims)} for 'value_range' of "
                         f"'{{{{node HistogramFixedWidth}}}}': {fmt_shape(dims)}")
    if dims is not None and dims[0] is not None and dims[0] != 2:
        raise ValueError(f"Dimension must be 2 but is {dims[0]} for 'value_range' of "
                         f"'{{{{node HistogramFixedWidth}}}}': {fmt_shape(dims)}")
    n = constant_value(inputs[2])
    if n is not None and np.ndim(n) == 0 and int(n) <= 0 and _state.graph is not None:
        raise ValueError(f"Requires nbins > 0: {int(n)}")
    return [(_dt.as_dtype(attrs["dtype"]), TensorShape((None if n is None else int(n),)))]


HISTOGRAM_FIXED_WIDTH = OpDef("HistogramFixedWidth", _histogram_infer, _histogram_kernel,
                              allowed=(_dt.int32, _dt.int64, _dt.float32, _dt.float64),
                              input_names=("values", "value_range", "nbins"))


def histogram_fixed_width(values, value_range, nbins=100, dtype=_dt.int32, name=None):
    """`tf.histogram_fixed_width`: counts of `values` in `nbins` equal bins spanning `value_range`
    (values outside the range count in the first or last bin)."""
    values = convert_to_tensor(values)
    value_range = convert_to_tensor(value_range, dtype=values.dtype) if not isinstance(value_range, Tensor) \
        else value_range
    nbins = convert_to_tensor(nbins, dtype=_dt.int32)
    out = _dt.as_dtype(dtype)
    if out not in _INDEX_TYPES:
        raise attr_type_error("dtype", out, "HistogramFixedWidth", _INDEX_TYPES, "dtype")
    return apply(HISTOGRAM_FIXED_WIDTH, (values, value_range, nbins), {"dtype": out._np},
                 name or "HistogramFixedWidth")


# ---------------------------------------------------------------------------------------------------
# embedding_lookup
# ---------------------------------------------------------------------------------------------------

def _concat_shards(params):
    """Shards of one table as TensorFlow's "div" strategy lays them out: consecutive id ranges, the first
    `total % n` shards one row longer. Such shards concatenate into the whole table."""
    rows = [p.shape[0] if p.shape.rank else None for p in params]
    if None in rows:
        raise ValueError("embedding_lookup with several params shards needs their first dimensions statically")
    total, n = sum(rows), len(rows)
    expected = [total // n + (1 if i < total % n else 0) for i in range(n)]
    if rows != expected:
        raise ValueError(f"embedding_lookup shards of sizes {rows} do not follow the 'div' partition strategy "
                         f"(expected {expected})")
    return _join.concat(params, 0)


def _clip_rows(rows, max_norm, id_rank):
    """Rows scaled down to an L2 norm of at most `max_norm` (TensorFlow's clip_by_norm arithmetic)."""
    rank = rows.shape.rank
    if rank is None or id_rank is None:
        raise ValueError("embedding_lookup with max_norm needs params and ids of known rank")
    axes = list(range(id_rank, rank))
    limit = convert_to_tensor(max_norm, dtype=rows.dtype)
    l2sum = _reduce.reduce_sum(_math.multiply(rows, rows), axis=axes, keepdims=True)
    positive = _math.greater(l2sum, _creators.zeros_like(l2sum))
    safe = _where.where(positive, l2sum, _creators.ones_like(l2sum))
    l2norm = _where.where(positive, _math.sqrt(safe), l2sum)
    return _math.divide(_math.multiply(rows, limit), _math.maximum(l2norm, limit))


def embedding_lookup(params, ids, max_norm=None, name=None):
    """`tf.nn.embedding_lookup`: the rows of `params` at `ids` (a list of params is a table sharded
    by TensorFlow's 'div' strategy); rows longer than `max_norm` are scaled down to it."""
    if isinstance(params, (list, _builtin_tuple)):
        shards = [convert_to_tensor(p) for p in params]
        if not shards:
            raise ValueError("Need at least one param")
        params = shards[0] if len(shards) == 1 else _concat_shards(shards)
    ids = convert_to_tensor(ids)
    rows = _gather.gather(params, ids, name=name or "embedding_lookup")
    if max_norm is not None:
        rows = _clip_rows(rows, max_norm, ids.shape.rank)
    return rows


# ---------------------------------------------------------------------------------------------------
# unravel_index
# ---------------------------------------------------------------------------------------------------

def _unravel_index_kernel(indices, dims):
    if dims.ndim != 1:
        raise bad(f'The indices can only be 1-D, got "{fmt_shape(dims.shape)}"')
    if indices.ndim > 1:
        raise bad(f'The indices can only be scalar or vector, got "{fmt_shape(indices.shape)}"')
    for i, d in enumerate(dims.tolist()):
        if d == 0:
            raise bad(f"Input dims cannot contain a dim of zero, but dims contains zero at index {i}")
        if d < 0:
            raise bad(f"Input dims cannot be negative. Got dim = {d} at index {i}")
    if indices.size == 0:
        raise bad(f"received empty tensor indices: Tensor<type: {_dt.FROM_NUMPY[indices.dtype].name} shape: "
                  f"{fmt_shape(indices.shape)} values: >")
    if (indices >= np.prod(dims, dtype=np.int64)).any():
        raise bad("index is out of bound as with dims")
    strides = np.concatenate([np.cumprod(dims[:0:-1], dtype=np.int64)[::-1], [1]]).astype(indices.dtype)
    flat = indices.reshape(1, -1)
    # C++ integer division and remainder truncate toward zero (a negative index gives negative coordinates).
    quotient = (flat - np.fmod(flat, strides[:, None])) // strides[:, None]
    coords = np.fmod(quotient, dims[:, None]).astype(indices.dtype)
    return coords.reshape(-1) if indices.ndim == 0 else coords


def _unravel_index_infer(inputs, attrs):
    indices, dims = inputs
    d = dims.shape[0] if dims.shape.rank == 1 else None
    rank = indices.shape.rank
    if rank == 0:
        return [(indices.dtype, TensorShape((d,)))]
    if rank is None:
        return [(indices.dtype, _UNKNOWN)]
    return [(indices.dtype, TensorShape((d, indices.shape.num_elements())))]


UNRAVEL_INDEX = OpDef("UnravelIndex", _unravel_index_infer, _unravel_index_kernel, same_dtype=True,
                      input_names=("indices", "dims"))


def unravel_index(indices, dims, name=None):
    """`tf.unravel_index`: the coordinates in an array of shape `dims` of flat `indices` ([len(dims), N])."""
    indices = _index_tensor(indices, "Tidx", "UnravelIndex", "indices")
    dims = dims if isinstance(dims, Tensor) else convert_to_tensor(dims, dtype=indices.dtype)
    return apply(UNRAVEL_INDEX, (indices, dims), None, name or "UnravelIndex")


# ---------------------------------------------------------------------------------------------------
# ensure_shape
# ---------------------------------------------------------------------------------------------------

def _ensure_shape_kernel(x, shape, tensor_name):
    expected = TensorShape(shape)
    if not expected.is_compatible_with(TensorShape(x.shape)):
        raise bad(f"Shape of tensor {tensor_name} {fmt_shape(x.shape)} is not compatible with expected shape "
                  f"{_shape_text(expected)}.")
    return x


def _shape_text(shape):
    return "<unknown>" if shape.rank is None else fmt_shape(shape.as_list())


def _ensure_shape_infer(inputs, attrs):
    x = inputs[0]
    expected = TensorShape(attrs["shape"])
    have = x.shape
    if expected.rank is not None and have.rank is not None:
        if expected.rank != have.rank:
            raise ValueError(f"Shape must be rank {expected.rank} but is rank {have.rank} for "
                             f"'{{{{node EnsureShape}}}}'")
        for i, (a, b) in enumerate(zip(expected.as_list(), have.as_list())):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimension {i} in both shapes must be equal, but are {a} and {b}. Shapes are "
                                 f"{_shape_text(expected)} and {_shape_text(have)}. for '{{{{node EnsureShape}}}}'")
    return [(x.dtype, have.merge_with(expected))]


def _ensure_shape_grad(op, grad):
    return [grad]


ENSURE_SHAPE = OpDef("EnsureShape", _ensure_shape_infer, _ensure_shape_kernel, grad=_ensure_shape_grad,
                     input_names=("input",), list_input="input")


def _static_shape(shape):
    if isinstance(shape, TensorShape):
        return shape
    if isinstance(shape, Tensor):
        value = constant_value(shape)
        if value is None:
            raise ValueError("`shape` of ensure_shape must be statically known")
        return TensorShape([None if d < 0 else int(d) for d in np.reshape(value, -1)])
    return TensorShape(shape)


def ensure_shape(x, shape, name=None):
    """`tf.ensure_shape`: `x` unchanged, after checking that its shape is compatible with `shape` (while
    tracing for the static part, and when the op runs); in a graph the result has the merged shape."""
    x = convert_to_tensor(x)
    expected = _static_shape(shape)
    dims = None if expected.rank is None else _builtin_tuple(expected.as_list())
    # A captured eager tensor has no node of its own in the graph being traced: TensorFlow names it "input".
    tensor_name = "input" if _state.graph is None or isinstance(x, EagerTensor) else x.op.name
    return apply(ENSURE_SHAPE, (x,), {"shape": dims, "tensor_name": tensor_name}, name or "EnsureShape")


API = {
    "": ["repeat", "roll", "meshgrid", "reverse_sequence", "identity_n", "no_op", "group", "tuple",
         "searchsorted", "histogram_fixed_width", "unravel_index", "ensure_shape"],
    "nn": ["embedding_lookup"],
}
