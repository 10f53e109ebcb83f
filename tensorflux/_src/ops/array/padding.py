"""Tiling and padding: tile (Tile), pad (Pad, PadV2, MirrorPad and its gradient MirrorPadGrad).

Each op is one OpDef (TensorFlow's op type name, static inference, vectorised NumPy kernel) plus its
public function with TensorFlow's signature. Things TensorFlow takes as tensors that users compute are
op inputs whose values inference reads with `constant_value`; static configuration are attrs.
"""
import numpy as np

from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..math.summation import reduce_sum
from ..registry import OPS, OpDef, apply, constant_value, dtype_error_name
from ..shapes.common import _UNKNOWN, _eager_const, bad, fmt_shape, index_input, unknown_vector_dims, value_dims, partial_dims
from .join import stack
from ..shapes.shape_ops import shape, shape_of
from ..shapes.shaping import reshape




# ---------------------------------------------------------------------------------------------------
# Tile, pad
# ---------------------------------------------------------------------------------------------------

def _tile_kernel(x, multiples):
    if multiples.ndim != 1 or multiples.shape[0] != x.ndim:
        raise bad(f"Expected multiples argument to be a vector of length {x.ndim} but got length "
                  f"{multiples.shape[0] if multiples.ndim else 0}")
    for i, m in enumerate(multiples.tolist()):
        if m < 0:
            raise bad(f"Expected multiples[{i}] >= 0, but got {m}")
    return np.tile(x, multiples) if x.ndim else x


def _tile_infer(inputs, attrs):
    x, multiples = inputs
    mult = value_dims(multiples)
    dims = x.shape._dims
    if mult is None:
        partial = partial_dims(multiples)      # multiples known in part (TensorFlow's shape refiner)
        if dims is not None and partial is not None and len(partial) == len(dims):
            return [(x.dtype, TensorShape(tuple(None if d is None or m is None else d * m
                                                for d, m in zip(dims, partial))))]
        return [(x.dtype, unknown_vector_dims(multiples) if dims is None else TensorShape((None,) * len(dims)))]
    if dims is None:
        return [(x.dtype, TensorShape((None,) * len(mult)))]
    if len(mult) != len(dims):
        raise ValueError(f"Shape must be rank {len(dims)} but is rank {len(mult)}")
    return [(x.dtype, TensorShape(tuple(None if d is None else d * m for d, m in zip(dims, mult))))]


def _tile_grad(op, grad):
    """View `grad` as [m0, d0, m1, d1, ...] (copy-major, as np.tile lays copies out) and sum the copies."""
    x, multiples = op.inputs
    rank = x.shape.rank if x.shape.rank is not None else (
        multiples.shape[0] if multiples.shape.rank == 1 else None)
    if rank is None:
        raise ValueError("The gradient of tile needs an input of known rank.")
    if rank == 0:
        return [grad, None]
    dims, mult = shape_of(x), value_dims(multiples)
    if isinstance(dims, list) and mult is not None:
        split_shape = [v for pair in zip(mult, dims) for v in pair]
    else:
        pairs = stack([multiples, shape(x, out_type=multiples.dtype)], axis=1)
        split_shape = reshape(pairs, [-1])
    summed = reduce_sum(reshape(grad, split_shape), axis=list(range(0, 2 * rank, 2)))
    return [reshape(summed, dims), None]


TILE = OpDef("Tile", _tile_infer, _tile_kernel, grad=_tile_grad, input_names=("input", "multiples"))


def tile(input, multiples, name=None):  # noqa: A002
    """`tf.tile`: repeats `input` `multiples[i]` times along dimension i."""
    input = convert_to_tensor(input)
    return apply(TILE, (input, index_input(multiples, "Tmultiples", "Tile", "multiples")), None, name or "Tile")


def _check_paddings(x, paddings):
    if paddings.ndim != 2 or paddings.shape[0] != x.ndim or paddings.shape[1] != 2:
        raise bad(f"The first dimension of paddings must be the rank of inputs{fmt_shape(paddings.shape)} "
                  f"{fmt_shape(x.shape)}")
    pads = paddings.tolist()
    for before, after in pads:
        if before < 0 or after < 0:
            raise bad(f"Paddings must be non-negative: {before} {after}")
    return pads


def _pad_kernel(x, paddings, constant_values=None):
    pads = _check_paddings(x, paddings)
    if constant_values is None:
        constant_values = b"" if x.dtype == object else 0
    elif np.size(constant_values) != 1:
        raise bad(f"constant_values must be a scalar. Got: {np.size(constant_values)}")
    if x.ndim == 0:
        return x
    return np.pad(x, pads, mode="constant", constant_values=np.reshape(constant_values, ()).item()
                  if isinstance(constant_values, np.ndarray) and constant_values.dtype == object
                  else constant_values)


def _pad_v2_kernel(x, paddings, constant_values):
    if constant_values.dtype != x.dtype:  # one attr T for both
        raise bad(f"cannot compute PadV2 as input #2(zero-based) was expected to be a "
                  f"{dtype_error_name(_dt.FROM_NUMPY[x.dtype])} tensor but is a "
                  f"{dtype_error_name(_dt.FROM_NUMPY[constant_values.dtype])} tensor")
    if constant_values.ndim != 0:
        raise bad(f"constant_values must be a scalar. Got: {fmt_shape(constant_values.shape)}")
    return _pad_kernel(x, paddings, constant_values)


def _pad_v2_infer(inputs, attrs):
    x, values = inputs[0], inputs[2]
    if values.dtype is not x.dtype:
        raise TypeError(f"Input 'constant_values' of 'PadV2' Op has type {values.dtype.name} that does not match "
                        f"type {x.dtype.name} of argument 'input'.")
    return _pad_infer(inputs, attrs)


def _mirror_pad_kernel(x, paddings, mode):
    pads = _check_paddings(x, paddings)
    offset = 1 if mode == "REFLECT" else 0
    for d, (before, after) in zip(x.shape, pads):
        if before > d - offset or after > d - offset:
            if offset:
                raise bad(f"paddings must be less than the dimension size: {before}, {after} not less than {d}")
            raise bad(f"paddings must be no greater than the dimension size: {before}, {after} greater than {d}")
    if x.ndim == 0:
        return x
    return np.pad(x, pads, mode=mode.lower())


def _partial_paddings(t, depth=0):
    """Paddings known in part, as TensorFlow's tf.pad restores them (constant_value with partial=True):
    nested lists with None where an element is unknown, read through constants and axis-0 Packs (a list
    holding tensors, `[[0, 0], [n, 1]]`); None when nothing is known."""
    value = constant_value(t)
    if value is not None:
        return np.asarray(value).tolist()
    op = getattr(t, "op", None)
    if op is not None and op.type == "Pack" and op.attrs.get("axis", 0) == 0 and op.inputs and depth < 4:
        return [_partial_paddings(i, depth + 1) for i in op.inputs]
    return None


def _pad_infer(inputs, attrs):
    x, paddings = inputs[0], inputs[1]
    pads = constant_value(paddings)
    dims = x.shape._dims
    if pads is None:
        rows = _partial_paddings(paddings)
        if dims is not None and isinstance(rows, list) and len(rows) == len(dims):
            return [(x.dtype, TensorShape(tuple(
                None if d is None or not isinstance(row, list) or len(row) != 2 or None in row else d + row[0] + row[1]
                for d, row in zip(dims, rows))))]
        if dims is not None:
            return [(x.dtype, TensorShape((None,) * len(dims)))]
        n = paddings.shape[0] if paddings.shape.rank == 2 else None
        return [(x.dtype, _UNKNOWN if n is None else TensorShape((None,) * n))]
    pads = np.asarray(pads).reshape(-1, 2).tolist()
    if dims is None:
        dims = (None,) * len(pads)
    if len(pads) != len(dims):
        raise ValueError(f"Shape must be rank {len(dims)} but is rank {len(pads)}")
    return [(x.dtype, TensorShape(tuple(None if d is None else d + b + a for d, (b, a) in zip(dims, pads))))]


def _pad_grad(op, grad):
    """The un-padded block of `grad`; the padding value gets no gradient (as in TensorFlow)."""
    x, paddings = op.inputs[0], op.inputs[1]
    pads = constant_value(paddings)
    if pads is not None and x.shape.rank is not None:
        begin = _eager_const(np.asarray(pads).reshape(-1, 2)[:, 0].astype(paddings.dtype._np), "Pad_begin")
    else:
        begin = reshape(paddings[:, 0], [-1])
    size = shape_of(x)
    if isinstance(size, list):
        size = _eager_const(np.array(size, dtype=begin.dtype._np), "Pad_size")
    else:
        size = shape(x, out_type=begin.dtype)
    return [apply(OPS["Slice"], (grad, begin, size), None, "Slice")] + [None] * (len(op.inputs) - 1)


def _mirror_pad_grad_kernel(grad, paddings, mode):
    """Folds the mirrored borders of `grad` back onto the elements they copy (one slice-add per border)."""
    pads = _check_paddings(grad, paddings)
    offset = 1 if mode == "REFLECT" else 0
    out = grad
    for axis, (before, after) in enumerate(pads):
        size = out.shape[axis] - before - after
        if size < 0 or before > size - offset or after > size - offset:
            raise bad(f"MirrorPadGrad: paddings [{before}, {after}] do not fit a dimension of size {size}")

        def part(start, stop):
            index = [slice(None)] * out.ndim
            index[axis] = slice(start, stop)
            return tuple(index)

        core = out[part(before, before + size)].copy()
        if before:
            core[part(offset, offset + before)] += np.flip(out[part(0, before)], axis)
        if after:
            end = size - offset
            core[part(end - after, end)] += np.flip(out[part(before + size, before + size + after)], axis)
        out = core
    return out


def _mirror_pad_grad_infer(inputs, attrs):
    grad, paddings = inputs
    pads = constant_value(paddings)
    dims = grad.shape._dims
    if dims is None or pads is None:
        return [(grad.dtype, _UNKNOWN if dims is None else TensorShape((None,) * len(dims)))]
    pads = np.asarray(pads).reshape(-1, 2).tolist()
    return [(grad.dtype, TensorShape(tuple(None if d is None else d - b - a for d, (b, a) in zip(dims, pads))))]


def _mirror_pad_grad(op, grad):
    return [apply(MIRROR_PAD_GRAD, (grad, op.inputs[1]), {"mode": op.attrs["mode"]}, "MirrorPadGrad"), None]


def _mirror_pad_grad_grad(op, grad):
    return [apply(MIRROR_PAD, (grad, op.inputs[1]), {"mode": op.attrs["mode"]}, "MirrorPad"), None]


PAD = OpDef("Pad", _pad_infer, _pad_kernel, grad=_pad_grad, input_names=("input", "paddings"))
PAD_V2 = OpDef("PadV2", _pad_v2_infer, _pad_v2_kernel, grad=_pad_grad,
               input_names=("input", "paddings", "constant_values"))
MIRROR_PAD = OpDef("MirrorPad", _pad_infer, _mirror_pad_kernel, grad=_mirror_pad_grad,
                   input_names=("input", "paddings"))
MIRROR_PAD_GRAD = OpDef("MirrorPadGrad", _mirror_pad_grad_infer, _mirror_pad_grad_kernel, grad=_mirror_pad_grad_grad,
                        input_names=("input", "paddings"))


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """`tf.pad`: pads each dimension by `paddings[i] = [before, after]` (CONSTANT/REFLECT/SYMMETRIC)."""
    tensor = convert_to_tensor(tensor)
    mode = str(mode).upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
                         f"Received `mode` = {mode}")
    pad_op = "Pad" if mode == "CONSTANT" else "MirrorPad"
    paddings = index_input(paddings, "Tpaddings", pad_op, "paddings")
    if mode != "CONSTANT":
        return apply(MIRROR_PAD, (tensor, paddings), {"mode": mode}, name or "MirrorPad")
    if not isinstance(constant_values, Tensor) and np.ndim(constant_values) == 0 and not isinstance(
            constant_values, (str, bytes)) and constant_values == 0:
        return apply(PAD, (tensor, paddings), None, name or "Pad")
    # A tensor keeps its dtype (the op reports a mismatch); a Python value must convert to the input's.
    values = constant_values if isinstance(constant_values, Tensor) else convert_to_tensor(constant_values,
                                                                                          dtype=tensor.dtype)
    return apply(PAD_V2, (tensor, paddings, values), None, name or "PadV2")


API = {"": ["tile", "pad"]}
