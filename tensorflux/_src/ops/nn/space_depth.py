"""`tf.nn.space_to_depth` / `tf.nn.depth_to_space` (SpaceToDepth / DepthToSpace, NHWC): blocks of
block_size x block_size pixels moved into (or out of) the channel dimension; each op's gradient is the
other one.
"""
import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply


def _check(x, block, op_name):
    if x.ndim != 4:
        raise errors.InvalidArgumentError(None, None, f"Input rank should be: 4 instead of: {x.ndim}")
    if block < 2:
        raise errors.InvalidArgumentError(None, None, f"Value for attr 'block_size' of {block} must be at least 2")


def _space_to_depth_kernel(x, block_size, data_format="NHWC"):
    _check(x, block_size, "SpaceToDepth")
    b, h, w, c = x.shape
    if h % block_size or w % block_size:
        raise errors.InvalidArgumentError(
            None, None, f"Image width {w} and height {h} should be divisible by block_size: {block_size}")
    blocks = x.reshape(b, h // block_size, block_size, w // block_size, block_size, c)
    return np.ascontiguousarray(blocks.transpose(0, 1, 3, 2, 4, 5)).reshape(
        b, h // block_size, w // block_size, block_size * block_size * c)


def _depth_to_space_kernel(x, block_size, data_format="NHWC"):
    _check(x, block_size, "DepthToSpace")
    b, h, w, c = x.shape
    square = block_size * block_size
    if c % square:
        raise errors.InvalidArgumentError(
            None, None, f"Input depth dimension {c} should be divisible by: {square}")
    blocks = x.reshape(b, h, w, block_size, block_size, c // square)
    return np.ascontiguousarray(blocks.transpose(0, 1, 3, 2, 4, 5)).reshape(
        b, h * block_size, w * block_size, c // square)


def _infer(to_depth):
    def infer(inputs, attrs):
        shape = inputs[0].shape
        name = "SpaceToDepth" if to_depth else "DepthToSpace"
        if shape.rank is None:
            return [(inputs[0].dtype, TensorShape([None] * 4))]
        if shape.rank != 4:
            raise ValueError(f"Shape must be rank 4 but is rank {shape.rank} for '{name}'")
        k = attrs["block_size"]
        if k < 2:
            raise ValueError(f"Attr 'block_size' of '{name}' Op passed {k} less than minimum 2.")
        b, h, w, c = shape.as_list()
        if to_depth:
            out = [b, None if h is None else h // k, None if w is None else w // k, None if c is None else c * k * k]
        else:
            out = [b, None if h is None else h * k, None if w is None else w * k, None if c is None else c // (k * k)]
        return [(inputs[0].dtype, TensorShape(out))]
    return infer


SPACE_TO_DEPTH = OpDef("SpaceToDepth", _infer(True), _space_to_depth_kernel, input_names=("input",),
                       grad=lambda op, grad: [depth_to_space(grad, op.attrs["block_size"])])
DEPTH_TO_SPACE = OpDef("DepthToSpace", _infer(False), _depth_to_space_kernel, input_names=("input",),
                       grad=lambda op, grad: [space_to_depth(grad, op.attrs["block_size"])])


def _attrs(block_size, data_format):
    if data_format != "NHWC":
        raise errors.InvalidArgumentError(None, None, f"data_format {data_format} is not supported on CPU; use NHWC")
    return {"block_size": int(block_size), "data_format": data_format}


def space_to_depth(input, block_size, data_format="NHWC", name=None):  # noqa: A002 - TensorFlow's name
    """`tf.nn.space_to_depth`: [b, h, w, c] -> [b, h/k, w/k, c*k*k], each k x k block into the channels."""
    input = input if isinstance(input, Tensor) else convert_to_tensor(input)
    return apply(SPACE_TO_DEPTH, (input,), _attrs(block_size, data_format), name or "SpaceToDepth")


def depth_to_space(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """`tf.nn.depth_to_space`: [b, h, w, c] -> [b, h*k, w*k, c/(k*k)], the inverse of space_to_depth."""
    input = input if isinstance(input, Tensor) else convert_to_tensor(input)
    return apply(DEPTH_TO_SPACE, (input,), _attrs(block_size, data_format), name or "DepthToSpace")


API = {"nn": ["space_to_depth", "depth_to_space"]}
