"""Moving spatial blocks into the batch dimension and back: `tf.space_to_batch_nd` (SpaceToBatchND),
`tf.batch_to_space` (BatchToSpaceND), `tf.space_to_batch` / `tf.nn.space_to_batch` (the same op, TF2's
argument order) and `tf.required_space_to_batch_paddings`; each op's gradient is the other one.
"""
import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply, constant_value
from ..math import arith as _math
from .join import stack

_INDEX = (_dt.int32, _dt.int64)


def _bad(message):
    return errors.InvalidArgumentError(None, None, message)


def _index_tensor(value):
    return value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=_dt.int32)


def _space_to_batch_kernel(x, block_shape, paddings):
    block = [int(b) for b in np.asarray(block_shape).reshape(-1)]
    m = len(block)
    pads = np.asarray(paddings).reshape(m, 2)
    if x.ndim < m + 1:
        raise _bad(f"input rank should be >= {m + 1} instead of {x.ndim}")
    if (pads < 0).any() or min(block, default=1) < 1:
        raise _bad("block_shape and paddings must be non-negative (block_shape >= 1)")
    padded = np.pad(x, [(0, 0)] + [tuple(p) for p in pads.tolist()] + [(0, 0)] * (x.ndim - m - 1))
    spatial = padded.shape[1:m + 1]
    for i, (size, b) in enumerate(zip(spatial, block)):
        if size % b:
            raise _bad(f"padded_shape[{i}]={size} is not divisible by block_shape[{i}]={b}")
    batch = x.shape[0]
    rest = padded.shape[m + 1:]
    # [batch, s0/b0, b0, s1/b1, b1, ..., rest] -> [b0, b1, ..., batch, s0/b0, s1/b1, ..., rest]
    split = [batch]
    for size, b in zip(spatial, block):
        split += [size // b, b]
    reshaped = padded.reshape(split + list(rest))
    order = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + \
        list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    out = reshaped.transpose(order)
    return np.ascontiguousarray(out).reshape([batch * int(np.prod(block, dtype=np.int64))] +
                                             [s // b for s, b in zip(spatial, block)] + list(rest))


def _batch_to_space_kernel(x, block_shape, crops):
    block = [int(b) for b in np.asarray(block_shape).reshape(-1)]
    m = len(block)
    crop = np.asarray(crops).reshape(m, 2)
    total = int(np.prod(block, dtype=np.int64))
    if x.shape[0] % total:
        raise _bad(f"Input batch dimension ({x.shape[0]}) is not divisible by product of block sizes ({total})")
    batch = x.shape[0] // total
    spatial = x.shape[1:m + 1]
    rest = x.shape[m + 1:]
    reshaped = x.reshape(block + [batch] + list(spatial) + list(rest))
    order = [m]
    for i in range(m):
        order += [m + 1 + i, i]
    order += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    full = np.ascontiguousarray(reshaped.transpose(order)).reshape(
        [batch] + [s * b for s, b in zip(spatial, block)] + list(rest))
    index = [slice(None)]
    for i in range(m):
        start, stop = int(crop[i, 0]), full.shape[1 + i] - int(crop[i, 1])
        if start < 0 or stop < start:
            raise _bad(f"Crops must be non-negative and not larger than the block-expanded dimension {i}")
        index.append(slice(start, stop))
    return full[tuple(index)]


def _infer(to_batch):
    def infer(inputs, attrs):
        x = inputs[0]
        block = constant_value(inputs[1])
        amounts = constant_value(inputs[2])
        if x.shape.rank is None or block is None or amounts is None:
            return [(x.dtype, TensorShape(None) if x.shape.rank is None else TensorShape([None] * x.shape.rank))]
        block = [int(b) for b in np.asarray(block).reshape(-1)]
        if x.shape.rank < 1 + len(block):
            raise ValueError(f"Shape must be at least rank {1 + len(block)} but is rank {x.shape.rank} for "
                             f"'{{{{node {'SpaceToBatchND' if to_batch else 'BatchToSpaceND'}}}}}' with input "
                             f"shapes: {x.shape.as_list()}.")
        amounts = np.asarray(amounts).reshape(len(block), 2)
        dims = x.shape.as_list()
        total = int(np.prod(block, dtype=np.int64))
        out = list(dims)
        if to_batch:
            out[0] = None if dims[0] is None else dims[0] * total
            for i, b in enumerate(block):
                d = dims[1 + i]
                out[1 + i] = None if d is None else (d + int(amounts[i].sum())) // b
        else:
            out[0] = None if dims[0] is None else dims[0] // total
            for i, b in enumerate(block):
                d = dims[1 + i]
                out[1 + i] = None if d is None else d * b - int(amounts[i].sum())
        return [(x.dtype, TensorShape(out))]
    return infer


SPACE_TO_BATCH_ND = OpDef("SpaceToBatchND", _infer(True), _space_to_batch_kernel,
                          input_names=("input", "block_shape", "paddings"),
                          grad=lambda op, g: [batch_to_space(g, op.inputs[1], op.inputs[2]), None, None])
BATCH_TO_SPACE_ND = OpDef("BatchToSpaceND", _infer(False), _batch_to_space_kernel,
                          input_names=("input", "block_shape", "crops"),
                          grad=lambda op, g: [space_to_batch_nd(g, op.inputs[1], op.inputs[2]), None, None])


def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002 - TensorFlow's name
    """`tf.space_to_batch_nd`: zero-pads the spatial dims, then moves block_shape blocks into the batch."""
    input = input if isinstance(input, Tensor) else convert_to_tensor(input)
    return apply(SPACE_TO_BATCH_ND, (input, _index_tensor(block_shape), _index_tensor(paddings)), None,
                 name or "SpaceToBatchND")


def space_to_batch(input, block_shape, paddings, name=None):  # noqa: A002
    """`tf.space_to_batch` (and `tf.nn.space_to_batch`): TF2's name of space_to_batch_nd."""
    return space_to_batch_nd(input, block_shape, paddings, name=name)


def batch_to_space(input, block_shape, crops, name=None):  # noqa: A002
    """`tf.batch_to_space`: the inverse of space_to_batch_nd, cropping `crops` from the spatial dims."""
    input = input if isinstance(input, Tensor) else convert_to_tensor(input)
    return apply(BATCH_TO_SPACE_ND, (input, _index_tensor(block_shape), _index_tensor(crops)), None,
                 name or "BatchToSpaceND")


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """`tf.required_space_to_batch_paddings`: (paddings, crops) that make input_shape + base_paddings
    divisible by block_shape, for a space_to_batch_nd / batch_to_space round trip."""
    shape = _index_tensor(input_shape)
    block = _math.cast(_index_tensor(block_shape), shape.dtype)
    if base_paddings is None:
        zero = _math.multiply(block, 0)
        base = stack([zero, zero], axis=1)
    else:
        base = _math.cast(_index_tensor(base_paddings), shape.dtype)
    start, end = base[:, 0], base[:, 1]
    full = _math.add(_math.add(shape, start), end)
    extra = _math.floormod(_math.subtract(block, _math.floormod(full, block)), block)
    paddings = stack([start, _math.add(end, extra)], axis=1)
    crops = stack([_math.multiply(start, 0), extra], axis=1)
    return paddings, crops


API = {
    "": ["space_to_batch_nd", "space_to_batch", "batch_to_space", "required_space_to_batch_paddings"],
    "nn": ["space_to_batch"],
}
