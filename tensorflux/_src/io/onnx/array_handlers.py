"""ONNX handlers for TensorFlow's shape and array ops: Shape, Reshape, Transpose, Concat, Pack/Unpack,
Split, StridedSlice/Slice, Gather, ExpandDims/Squeeze, Fill, Tile, Pad, Range, OneHot and friends.

TensorFlow's index tensors are usually int32 and ONNX's shape-like inputs are int64: inputs are cast on
the way in (at export time when they are constants) and outputs are cast back to the graph's dtype.
"""
import numpy as np

from ...types import dtypes as _dt
from .builder import INT64_MAX, handles, unsupported


def _rank(op, tensor):
    rank = tensor.shape.rank
    if rank is None:
        raise unsupported(op, f"the rank of its input '{tensor.name}' is unknown")
    return rank


def _as_dtype(b, name, dtype, hint):
    return name if dtype is _dt.int64 else b.cast(name, dtype, hint)


@handles("Shape")
def _shape(b, op, ins):
    shape = op.inputs[0].shape
    if shape.is_fully_defined():   # static: a constant, so the shape arithmetic after it folds away
        return [b.const(np.array(shape.as_list(), dtype=op.outputs[0].dtype.as_numpy_dtype), op.name)]
    return [_as_dtype(b, b.op("Shape", ins, f"{op.name}/int64"), op.outputs[0].dtype, op.name)]


@handles("ShapeN")
def _shape_n(b, op, ins):
    return [_as_dtype(b, b.op("Shape", [x], f"{op.name}/int64_{i}"), t.dtype, f"{op.name}_{i}")
            for i, (x, t) in enumerate(zip(ins, op.outputs))]


@handles("Size")
def _size(b, op, ins):
    return [_as_dtype(b, b.op("Size", ins, f"{op.name}/int64"), op.outputs[0].dtype, op.name)]


@handles("Rank")
def _rank_op(b, op, ins):
    shape = b.op("Shape", ins, f"{op.name}/shape")
    return [_as_dtype(b, b.op("Size", [shape], f"{op.name}/int64"), op.outputs[0].dtype, op.name)]


@handles("Reshape")
def _reshape(b, op, ins):
    shape = b.as_int64(ins[1], f"{op.name}/shape")
    known = b.value(shape)
    # TensorFlow's 0 is a zero-sized dimension; ONNX reads 0 as "copy the input's" unless allowzero is set.
    allowzero = int(known is not None and 0 in known.tolist())
    return [b.op("Reshape", [ins[0], shape], op.name, **({"allowzero": 1} if allowzero else {}))]


@handles("Transpose")
def _transpose(b, op, ins):
    if len(ins) > 1:
        perm = b.value(ins[1])
        if perm is None:
            raise unsupported(op, "the permutation must be known at export time")
    else:
        perm = op.attrs.get("perm")
        if perm is None:
            perm = list(range(_rank(op, op.inputs[0])))[::-1]
    return [b.op("Transpose", [ins[0]], op.name, perm=[int(p) for p in perm])]


def _axis_attr(b, op, ins, index):
    """An axis given as the attr `axis` or as the constant input `index`."""
    if "axis" in op.attrs and op.attrs["axis"] is not None:
        return int(op.attrs["axis"]) if np.ndim(op.attrs["axis"]) == 0 else [int(a) for a in op.attrs["axis"]]
    if len(ins) > index:
        value = b.value(ins[index])
        if value is not None:
            return int(value) if np.ndim(value) == 0 else [int(a) for a in value]
    raise unsupported(op, "the axis must be known at export time")


@handles("ConcatV2")
def _concat(b, op, ins):
    axis = op.attrs.get("axis")
    values = list(ins)
    if axis is None:
        axis = b.value(values.pop())
        if axis is None:
            raise unsupported(op, "the axis must be known at export time")
    if len(values) == 1:
        return [values[0]]
    return [b.op("Concat", values, op.name, axis=int(axis))]


@handles("Pack")
def _pack(b, op, ins):
    axis = int(op.attrs.get("axis", 0))
    if axis < 0:
        axis += _rank(op, op.inputs[0]) + 1
    parts = [b.unsqueeze(x, [axis], f"{op.name}/in{i}") for i, x in enumerate(ins)]
    return [parts[0] if len(parts) == 1 else b.op("Concat", parts, op.name, axis=axis)]


@handles("Unpack")
def _unpack(b, op, ins):
    axis, num = int(op.attrs.get("axis", 0)), len(op.outputs)
    if axis < 0:
        axis += _rank(op, op.inputs[0])
    pieces = b.node("Split", [ins[0], b.i64([1] * num, f"{op.name}/sizes")], f"{op.name}/split", num, axis=axis)
    return [b.squeeze(p, [axis], f"{op.name}:{i}") for i, p in enumerate(pieces)]


@handles("Split")
def _split(b, op, ins):
    x, axis, num = ins[0], _axis_attr(b, op, ins, 1), len(op.outputs)
    if num == 1:
        return [x]
    shape = op.inputs[0].shape
    dim = shape.as_list()[axis] if shape.rank is not None else None
    if dim is not None:
        return b.node("Split", [x, b.i64([dim // num] * num, f"{op.name}/sizes")], op.name, num, axis=axis)
    if b.ctx.opset >= 18:
        return b.node("Split", [x], op.name, num, axis=axis, num_outputs=num)
    raise unsupported(op, "splitting a dimension of unknown size needs opset 18 or later")


@handles("SplitV")
def _split_v(b, op, ins):
    axis = _axis_attr(b, op, ins, 2)
    sizes = b.value(b.as_int64(ins[1], f"{op.name}/sizes"))
    num = len(op.outputs)
    if sizes is None:
        return b.node("Split", [ins[0], b.as_int64(ins[1], f"{op.name}/sizes")], op.name, num, axis=axis)
    sizes = [int(s) for s in sizes]
    if -1 in sizes:
        shape = op.inputs[0].shape
        dim = shape.as_list()[axis] if shape.rank is not None else None
        if dim is None:
            raise unsupported(op, "a size of -1 needs the split dimension's size")
        sizes[sizes.index(-1)] = dim - sum(s for s in sizes if s != -1)
    return b.node("Split", [ins[0], b.i64(sizes, f"{op.name}/sizes")], op.name, num, axis=axis)


@handles("GatherV2")
def _gather(b, op, ins):
    if int(op.attrs.get("batch_dims", 0)) != 0:
        raise unsupported(op, "batch_dims other than 0")
    axis = op.attrs.get("axis")
    if axis is None:
        axis = b.value(ins[2]) if len(ins) > 2 else 0
        if axis is None:
            raise unsupported(op, "the axis must be known at export time")
    return [b.op("Gather", ins[:2], op.name, axis=int(axis))]


@handles("GatherNd")
def _gather_nd(b, op, ins):
    return [b.op("GatherND", [ins[0], b.as_int64(ins[1], f"{op.name}/indices")], op.name,
                 batch_dims=int(op.attrs.get("batch_dims", 0)))]


@handles("ExpandDims")
def _expand_dims(b, op, ins):
    axis = _axis_attr(b, op, ins, 1)
    return [b.unsqueeze(ins[0], [axis], op.name)]


@handles("Squeeze")
def _squeeze(b, op, ins):
    axis = op.attrs.get("axis")
    if axis is None or len(axis) == 0:
        return [b.op("Squeeze", [ins[0]], op.name)]
    return [b.squeeze(ins[0], [int(a) for a in axis], op.name)]


@handles("Fill")
def _fill(b, op, ins):
    return [b.op("Expand", [ins[1], b.as_int64(ins[0], f"{op.name}/dims")], op.name)]


@handles("BroadcastTo")
def _broadcast_to(b, op, ins):
    return [b.op("Expand", [ins[0], b.as_int64(ins[1], f"{op.name}/shape")], op.name)]


@handles("ZerosLike", "OnesLike")
def _zeros_like(b, op, ins):
    dtype = op.outputs[0].dtype
    fill = b.ctx.onnx.numpy_helper.from_array(np.array([0 if op.type == "ZerosLike" else 1],
                                                       dtype=dtype.as_numpy_dtype))
    return [b.op("ConstantOfShape", [b.op("Shape", ins, f"{op.name}/shape")], op.name, value=fill)]


@handles("Tile")
def _tile(b, op, ins):
    return [b.op("Tile", [ins[0], b.as_int64(ins[1], f"{op.name}/multiples")], op.name)]


def _onnx_pads(b, op, name):
    """TensorFlow's [[before, after]] per dimension as ONNX's [befores..., afters...] (int64)."""
    paddings = b.as_int64(name, f"{op.name}/paddings")
    known = b.value(paddings)
    if known is not None:
        return b.i64(np.asarray(known).T.reshape(-1), f"{op.name}/pads")
    flipped = b.op("Transpose", [paddings], f"{op.name}/pads_T", perm=[1, 0])
    return b.op("Reshape", [flipped, b.i64([-1], f"{op.name}/flat")], f"{op.name}/pads")


@handles("Pad", "PadV2")
def _pad(b, op, ins):
    inputs = [ins[0], _onnx_pads(b, op, ins[1])]
    if len(ins) > 2:
        inputs.append(ins[2])
    elif op.attrs.get("constant_values") is not None:
        inputs.append(b.const(np.asarray(op.attrs["constant_values"], dtype=op.outputs[0].dtype.as_numpy_dtype),
                              f"{op.name}/value"))
    return [b.op("Pad", inputs, op.name, mode="constant")]


@handles("MirrorPad")
def _mirror_pad(b, op, ins):
    mode = str(op.attrs.get("mode", "REFLECT")).upper()
    if mode != "REFLECT":
        raise unsupported(op, f"mode {mode} (ONNX pads by reflection or by edge only)")
    return [b.op("Pad", [ins[0], _onnx_pads(b, op, ins[1])], op.name, mode="reflect")]


@handles("Range")
def _range(b, op, ins):
    dtype = op.outputs[0].dtype
    ins = [x if t.dtype is dtype else b.cast(x, dtype, f"{op.name}/in{i}") for i, (x, t) in enumerate(zip(ins, op.inputs))]
    return [b.op("Range", ins, op.name)]


@handles("OneHot")
def _one_hot(b, op, ins):
    indices, depth, on, off = ins
    # TensorFlow gives an all-off row for a negative index; ONNX would count it from the end.
    index_zero = b.const(np.zeros((), op.inputs[0].dtype.as_numpy_dtype), f"{op.name}/zero")
    past_end = b.cast(depth, op.inputs[0].dtype, f"{op.name}/past_end")
    indices = b.op("Where", [b.op("Less", [indices, index_zero], f"{op.name}/negative"), past_end, indices],
                   f"{op.name}/indices")
    values = b.op("Concat", [b.unsqueeze(off, [0], f"{op.name}/off"), b.unsqueeze(on, [0], f"{op.name}/on")],
                  f"{op.name}/values", axis=0)
    return [b.op("OneHot", [indices, depth, values], op.name, axis=int(op.attrs.get("axis", -1)))]


@handles("Where")
def _where(b, op, ins):
    if len(ins) == 3:
        return [b.op("Where", ins, op.name)]
    return [b.op("Transpose", [b.op("NonZero", ins, f"{op.name}/nonzero")], op.name, perm=[1, 0])]


@handles("ReverseV2")
def _reverse(b, op, ins):
    axes = op.attrs.get("axis")
    if axes is None:
        axes = b.value(ins[1]) if len(ins) > 1 else None
        if axes is None:
            raise unsupported(op, "the axes must be known at export time")
    out = ins[0]
    for a in np.atleast_1d(axes):
        out = b.op("Slice", [out, b.i64([-1], f"{op.name}/start"), b.i64([-INT64_MAX], f"{op.name}/end"),
                             b.i64([int(a)], f"{op.name}/axis"), b.i64([-1], f"{op.name}/step")], op.name)
    return [out]


@handles("Slice")
def _slice(b, op, ins):
    begin = b.as_int64(ins[1], f"{op.name}/begin")
    size = b.as_int64(ins[2], f"{op.name}/size")
    known_begin, known_size = b.value(begin), b.value(size)
    if known_begin is not None and known_size is not None:
        end = b.i64([INT64_MAX if s == -1 else int(bg) + int(s) for bg, s in zip(known_begin, known_size)],
                    f"{op.name}/end")
    else:   # size -1 means "to the end"
        minus_one = b.i64(-1, f"{op.name}/minus_one")
        end = b.op("Where", [b.op("Equal", [size, minus_one], f"{op.name}/to_end"), b.i64(INT64_MAX, f"{op.name}/max"),
                             b.op("Add", [begin, size], f"{op.name}/stop")], f"{op.name}/end")
    return [b.op("Slice", [ins[0], begin, end], op.name)]


@handles("StridedSlice")
def _strided_slice(b, op, ins):
    """TensorFlow's strided slice as Slice, then Squeeze (shrink_axis_mask), then Unsqueeze (new_axis_mask).

    The masks are attrs (known); begin and end may be tensors (an index computed in a loop), strides must
    be constants."""
    attrs = op.attrs
    strides = b.value(b.as_int64(ins[3], f"{op.name}/strides"))
    if strides is None:
        raise unsupported(op, "the strides must be known at export time")
    strides = [int(s) for s in strides]
    n = len(strides)
    rank = _rank(op, op.inputs[0])

    def bit(mask, j):
        return bool((int(attrs.get(mask, 0)) >> j) & 1)

    new_axes = [j for j in range(n) if bit("new_axis_mask", j)]
    ellipsis = [j for j in range(n) if bit("ellipsis_mask", j)]
    covered = n - len(new_axes) - len(ellipsis)
    # Walk the spec: which input dimension each entry slices, where output dimensions appear.
    entries, dim, out_pos, unsqueeze, squeeze = [], 0, 0, [], []
    for j in range(n):
        if j in ellipsis:
            span = rank - covered
            dim += span
            out_pos += span
        elif j in new_axes:
            unsqueeze.append(out_pos)
            out_pos += 1
        else:
            entries.append((j, dim))
            if bit("shrink_axis_mask", j):
                squeeze.append(dim)
            else:
                out_pos += 1
            dim += 1
    if not entries:
        out = ins[0]
    else:
        starts, ends = _slice_bounds(b, op, ins, entries, strides, bit)
        axes = b.i64([d for _, d in entries], f"{op.name}/axes")
        steps = b.i64([strides[j] for j, _ in entries], f"{op.name}/steps")
        out = b.op("Slice", [ins[0], starts, ends, axes, steps], f"{op.name}/slice")
    out = b.squeeze(out, squeeze, f"{op.name}/squeeze")
    if unsqueeze:
        out = b.unsqueeze(out, unsqueeze, f"{op.name}/unsqueeze")
    return [b.op("Identity", [out], op.name) if out == ins[0] else out]


def _slice_bounds(b, op, ins, entries, strides, bit):
    """ONNX Slice starts and ends (int64 vectors) for the spec entries that slice an input dimension."""
    begin = b.as_int64(ins[1], f"{op.name}/begin")
    end = b.as_int64(ins[2], f"{op.name}/end")
    known_begin, known_end = b.value(begin), b.value(end)
    default_start = [0 if strides[j] > 0 else INT64_MAX for j, _ in entries]
    default_end = [INT64_MAX if strides[j] > 0 else -INT64_MAX for j, _ in entries]
    if known_begin is not None and known_end is not None:
        starts, ends = [], []
        for k, (j, _) in enumerate(entries):
            s = default_start[k] if bit("begin_mask", j) else int(known_begin[j])
            if bit("shrink_axis_mask", j):
                e = INT64_MAX if s == -1 else s + 1
            else:
                e = default_end[k] if bit("end_mask", j) else int(known_end[j])
            starts.append(s)
            ends.append(e)
        return b.i64(starts, f"{op.name}/starts"), b.i64(ends, f"{op.name}/ends")
    # Computed bounds: pick the entries' elements, then the masks' defaults where a mask bit is set.
    picks = b.i64([j for j, _ in entries], f"{op.name}/entries")
    begin = b.op("Gather", [begin, picks], f"{op.name}/begin_used", axis=0)
    end = b.op("Gather", [end, picks], f"{op.name}/end_used", axis=0)
    begin_mask = [bit("begin_mask", j) for j, _ in entries]
    end_mask = [bit("end_mask", j) for j, _ in entries]
    shrink = [bit("shrink_axis_mask", j) for j, _ in entries]
    starts = b.op("Where", [b.const(np.array(begin_mask), f"{op.name}/begin_mask"),
                            b.i64(default_start, f"{op.name}/default_start"), begin], f"{op.name}/starts")
    one_past = b.op("Add", [starts, b.i64(1, f"{op.name}/one")], f"{op.name}/one_past")
    one_past = b.op("Where", [b.op("Equal", [starts, b.i64(-1, f"{op.name}/last")], f"{op.name}/is_last"),
                              b.i64(INT64_MAX, f"{op.name}/max"), one_past], f"{op.name}/shrunk_end")
    ends = b.op("Where", [b.const(np.array(end_mask), f"{op.name}/end_mask"),
                          b.i64(default_end, f"{op.name}/default_end"), end], f"{op.name}/masked_end")
    ends = b.op("Where", [b.const(np.array(shrink), f"{op.name}/shrink_mask"), one_past, ends], f"{op.name}/ends")
    return starts, ends
