"""ONNX handlers for less common ops models still use: depth/space rearrangement, band matrices (causal
masks), scatters into tensors, LRN, and the small math and loss ops TensorFlow gives their own op types.
"""
import numpy as np

from .builder import handles, unsupported
from .nn_handlers import channels_first, channels_last


def _scalar(b, value, like, hint):
    return b.const(np.asarray(value, dtype=like.dtype.as_numpy_dtype), hint)


@handles("GuaranteeConst")
def _guarantee_const(b, op, ins):
    return [ins[0]]


@handles("DepthToSpace", "SpaceToDepth")
def _depth_space(b, op, ins):
    """TensorFlow orders the moved block as ONNX's DCR mode (block row, block column, then channel)."""
    block = int(op.attrs["block_size"])
    attrs = {"blocksize": block}
    if op.type == "DepthToSpace":
        attrs["mode"] = "DCR"
    if str(op.attrs.get("data_format", "NHWC")).upper() == "NCHW":
        return [b.op(op.type, [ins[0]], op.name, **attrs)]
    y = b.op(op.type, [channels_first(b, ins[0], 4, op.name)], f"{op.name}/channels_first", **attrs)
    return [channels_last(b, y, 4, op.name)]


@handles("MatrixBandPart")
def _band_part(b, op, ins):
    """Keeps num_lower diagonals below and num_upper above the main one (-1: all), as two ONNX Trilu."""
    out = ins[0]
    lower, upper = b.value(ins[1]), b.value(ins[2])
    if lower is None or upper is None:
        raise unsupported(op, "num_lower and num_upper must be known at export time")
    if int(upper) >= 0:   # zero what lies above diagonal +upper
        out = b.op("Trilu", [out, b.i64(int(upper), f"{op.name}/upper_k")], f"{op.name}/below_upper", upper=0)
    if int(lower) >= 0:   # zero what lies below diagonal -lower
        out = b.op("Trilu", [out, b.i64(-int(lower), f"{op.name}/lower_k")], f"{op.name}/above_lower", upper=1)
    return [out if out != ins[0] else b.op("Identity", [out], op.name)]


@handles("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterMax", "TensorScatterMin")
def _tensor_scatter(b, op, ins):
    reduction = {"TensorScatterUpdate": "none", "TensorScatterAdd": "add", "TensorScatterMax": "max",
                 "TensorScatterMin": "min"}[op.type]
    if reduction in ("max", "min") and b.ctx.opset < 18:
        raise unsupported(op, "ScatterND with max/min needs opset 18 or later")
    attrs = {} if reduction == "none" else {"reduction": reduction}
    return [b.op("ScatterND", [ins[0], b.as_int64(ins[1], f"{op.name}/indices"), ins[2]], op.name, **attrs)]


@handles("ScatterNd")
def _scatter_nd(b, op, ins):
    """Updates summed into zeros of `shape` (TensorFlow adds the updates of repeated indices)."""
    dtype = op.outputs[0].dtype
    zero = b.ctx.onnx.numpy_helper.from_array(np.zeros([1], dtype=dtype.as_numpy_dtype))
    zeros = b.op("ConstantOfShape", [b.as_int64(ins[2], f"{op.name}/shape")], f"{op.name}/zeros", value=zero)
    return [b.op("ScatterND", [zeros, b.as_int64(ins[0], f"{op.name}/indices"), ins[1]], op.name, reduction="add")]


@handles("LRN")
def _lrn(b, op, ins):
    """TensorFlow: x / (bias + alpha·Σ x²)^beta over 2r+1 channels; ONNX scales its alpha by the window size."""
    radius = int(op.attrs.get("depth_radius", 5))
    size = 2 * radius + 1
    y = b.op("LRN", [channels_first(b, ins[0], 4, op.name)], f"{op.name}/channels_first", size=size,
             alpha=float(op.attrs.get("alpha", 1.0)) * size, beta=float(op.attrs.get("beta", 0.5)),
             bias=float(op.attrs.get("bias", 1.0)))
    return [channels_last(b, y, 4, op.name)]


@handles("Erfc")
def _erfc(b, op, ins):
    return [b.op("Sub", [_scalar(b, 1, op.inputs[0], f"{op.name}/one"), b.op("Erf", ins, f"{op.name}/erf")], op.name)]


@handles("Xlogy", "Xdivy")
def _x_log_div_y(b, op, ins):
    """x·log(y) (x / y) that is 0 where x is 0, whatever y is."""
    x, y = ins
    zero = _scalar(b, 0, op.inputs[0], f"{op.name}/zero")
    if op.type == "Xlogy":
        value = b.op("Mul", [x, b.op("Log", [y], f"{op.name}/log")], f"{op.name}/value")
    else:
        value = b.op("Div", [x, y], f"{op.name}/value")
    x_is_zero = b.op("Equal", [x, zero], f"{op.name}/x_is_zero")
    return [b.op("Where", [x_is_zero, b.op("Mul", [x, zero], f"{op.name}/zeros"), value], op.name)]


@handles("L2Loss")
def _l2_loss(b, op, ins):
    squares = b.op("Mul", [ins[0], ins[0]], f"{op.name}/squares")
    total = b.reduce("Sum", squares, None, False, f"{op.name}/sum")
    return [b.op("Mul", [total, _scalar(b, 0.5, op.inputs[0], f"{op.name}/half")], op.name)]


@handles("SigmoidCrossEntropyWithLogits")
def _sigmoid_cross_entropy(b, op, ins):
    """max(z, 0) − z·labels + log(1 + exp(−|z|)), TensorFlow's overflow-free form."""
    labels, z = ins
    zero = _scalar(b, 0, op.inputs[1], f"{op.name}/zero")
    one = _scalar(b, 1, op.inputs[1], f"{op.name}/one")
    relu = b.op("Max", [z, zero], f"{op.name}/relu")
    soft = b.op("Log", [b.op("Add", [one, b.op("Exp", [b.op("Neg", [b.op("Abs", [z], f"{op.name}/abs")],
                                                                     f"{op.name}/neg_abs")], f"{op.name}/exp")],
                             f"{op.name}/one_plus")], f"{op.name}/softplus")
    return [b.op("Add", [b.op("Sub", [relu, b.op("Mul", [z, labels], f"{op.name}/zl")], f"{op.name}/diff"), soft],
                 op.name)]
