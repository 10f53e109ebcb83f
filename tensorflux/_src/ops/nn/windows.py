"""The window geometry convolution and pooling share: TensorFlow's output sizes and padding (effective
kernel `(k - 1)·dilation + 1`; VALID gives `(in - eff) // stride + 1`; SAME gives `ceil(in / stride)`
with the padding split low/high as `total // 2`, `total - total // 2`; EXPLICIT pads by the given
pairs), the normalisation of strides/ksize/dilations/padding arguments to TensorFlow's attr form (4-long
lists in `data_format` order, flat `explicit_paddings`), channels-last conversion, and the inference of
gradient ops whose output shape is one of their inputs.
"""
import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..shapes.common import partial_dims
from ..shapes.shape_ops import shape, shape_of
from ..convert import constant
from ..registry import constant_value, dtype_error_name


_NARROW = (np.dtype(_dt.float16._np), np.dtype(_dt.bfloat16._np))


def _dims_text(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def _node_text(op_name, *shapes):
    texts = ", ".join("?" if s.rank is None else _dims_text(s._dims) for s in shapes)
    return f"for '{{{{node {op_name}}}}}' with input shapes: {texts}."


# -- shared window geometry --------------------------------------------------------------------------
def _spatial_axes(rank, data_format):
    """Indices of the spatial dimensions for a tensor of `rank` in `data_format` ("NHWC"-like/"NCHW")."""
    return tuple(range(2, rank)) if data_format.startswith("NC") else tuple(range(1, rank - 1))


def _window(size, k, stride, dilation, padding, pads):
    """(output size, pad before, pad after) for one spatial dim; output None when size is None.

    Returns output < 0 (with the effective kernel size) when the window does not fit, for callers to
    report in their own error style.
    """
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        if size is None:
            return None, 0, 0
        out = -(-size // stride)
        total = max((out - 1) * stride + eff - size, 0)
        return out, total // 2, total - total // 2
    before, after = pads if padding == "EXPLICIT" else (0, 0)
    if size is None:
        return None, before, after
    padded = size + before + after
    if padded < eff:
        return -1, before, after
    return (padded - eff) // stride + 1, before, after


def _normalize_list(value, what, rank, data_format, default=1):
    """TensorFlow's 1/2/N-long `strides`/`ksize`/`dilations` argument as a full `rank`-long tuple."""
    n = rank - 2
    if value is None:
        value = default
    if isinstance(value, Tensor):
        raise TypeError(f"`{what}` must be a static int or list of ints, not a tensor.")
    if isinstance(value, (int, np.integer)):
        value = [int(value)] * n
    value = [int(v) for v in value]
    if len(value) == 1:
        value = value * n
    if len(value) == n:
        value = ([1, 1] + value) if data_format.startswith("NC") else ([1] + value + [1])
    elif len(value) != rank:
        allowed = f"1, {n} or {rank}"
        raise ValueError(f"{what} should be of length {allowed}. Received: {what}={value} of length {len(value)}")
    return tuple(value)


def _normalize_padding(padding, rank, data_format, allow_explicit=True):
    """(padding string, flat explicit_paddings) from "SAME"/"VALID" or a list of `rank` [before, after] pairs."""
    if isinstance(padding, str):
        return padding, ()
    if not allow_explicit:
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    pairs = [list(p) for p in padding]
    if len(pairs) != rank:
        raise ValueError(f"When padding is a list, it must be of size {rank}. Received: padding={padding} of size "
                         f"{len(pairs)}")
    return "EXPLICIT", tuple(int(v) for p in pairs for v in p)


def _check_padding_attr(padding, op_name, explicit_ok=True):
    allowed = ("SAME", "VALID", "EXPLICIT") if explicit_ok else ("SAME", "VALID")
    if padding not in allowed:
        names = ", ".join(f'"{a}"' for a in allowed)
        raise errors.InvalidArgumentError(
            None, op_name, f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: {names}")


def _explicit_pairs(explicit_paddings, rank):
    flat = explicit_paddings or (0,) * (2 * rank)
    return [tuple(flat[2 * i:2 * i + 2]) for i in range(rank)]


def _to_channels_last(x, data_format):
    return np.moveaxis(x, 1, -1) if data_format.startswith("NC") else x


def _from_channels_last(x, data_format):
    return np.moveaxis(x, -1, 1) if data_format.startswith("NC") else x


def _infer_sized(size_index, dtype_index, rank):
    """Inference for an op whose output shape is the value of input `size_index`."""
    def infer(inputs, attrs):
        value = constant_value(inputs[size_index])
        dtype = inputs[dtype_index].dtype
        if value is None:
            partial = partial_dims(inputs[size_index])   # the sizes known through tf.shape(...), as TensorFlow
            if partial is not None:
                return [(dtype, TensorShape([d if d is not None and d >= 0 else None for d in partial]))]
            n = inputs[size_index].shape[0] if inputs[size_index].shape.rank == 1 else rank
            return [(dtype, TensorShape([None] * n) if n is not None else TensorShape(None))]
        return [(dtype, TensorShape([int(d) for d in np.reshape(value, -1)]))]
    return infer


_WINDOW_FLOATS = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)


def _typed_sized(size_index, pair, names, op_name, rank):
    """`_infer_sized` for a backprop op whose two inputs at `pair` share TensorFlow's float attr T (the
    sizes input has its own int type): a mismatch or a non-float is TensorFlow's TypeError at trace time."""
    base = _infer_sized(size_index, pair[0], rank)

    def infer(inputs, attrs):
        first, second = (inputs[i].dtype for i in pair)
        if first not in _WINDOW_FLOATS:
            allowed = ", ".join(d.name for d in _WINDOW_FLOATS)
            raise TypeError(f"Value passed to parameter '{names[pair[0]]}' has DataType {first.name} not in list "
                            f"of allowed values: {allowed}")
        if second is not first:
            raise TypeError(f"Input '{names[pair[1]]}' of '{op_name}' Op has type {second.name} that does not "
                            f"match type {first.name} of argument '{names[pair[0]]}'.")
        result = base(inputs, attrs)
        if op_name == "Conv2DBackpropInput":     # TensorFlow takes an unknown batch from out_backprop's
            dtype, out = result[0]
            dims = out.as_list() if out.rank is not None else None
            batch = inputs[2].shape[0] if inputs[2].shape.rank else None
            if dims and dims[0] is None and batch is not None:
                result = [(dtype, TensorShape([batch] + dims[1:]))]
        return result
    return infer


def _typed_kernel(kernel, pair, op_name):
    """The eager form of `_typed_sized`'s check, before `kernel` runs: TensorFlow's InvalidArgumentError."""
    allowed_np = frozenset(d._np for d in _WINDOW_FLOATS)

    def checked(*arrays, **attrs):
        first, second = (arrays[i].dtype for i in pair)
        if first not in allowed_np:
            allowed = ", ".join(dtype_error_name(d) for d in _WINDOW_FLOATS)
            raise errors.InvalidArgumentError(
                None, op_name, f"Value for attr 'T' of {dtype_error_name(_dt.FROM_NUMPY[first])} is not in the "
                               f"list of allowed values: {allowed}\n\t; NodeDef: {{{{node {op_name}}}}}")
        if second != first:
            raise errors.InvalidArgumentError(
                None, op_name, f"cannot compute {op_name} as input #{pair[1]}(zero-based) was expected to be a "
                               f"{dtype_error_name(_dt.FROM_NUMPY[first])} tensor but is a "
                               f"{dtype_error_name(_dt.FROM_NUMPY[second])} tensor")
        return kernel(*arrays, **attrs)
    return checked


def _shape_input(t):
    dims = shape_of(t)
    return constant(np.array(dims, dtype=np.int32)) if isinstance(dims, list) else shape(t)
