"""ONNX handlers for TensorFlow's elementwise, matrix, reduction and casting ops.

Each handler keeps TensorFlow's dtypes: a value that is int32 in the graph stays int32 in the ONNX model,
with a Cast to int64 only where ONNX wants int64 (shapes, axes, pads) and back where ONNX returns int64
(Shape, Size, ArgMax) but TensorFlow returned int32.
"""
import numpy as np

from ...types import dtypes as _dt
from .builder import handles, unsupported

# TensorFlow op type -> ONNX op type, for ops that map one to one (same inputs, same broadcasting).
_ONE_TO_ONE = {
    "AddV2": "Add", "Add": "Add", "Sub": "Sub", "Mul": "Mul", "RealDiv": "Div", "Pow": "Pow",
    "Maximum": "Max", "Minimum": "Min", "Less": "Less", "LessEqual": "LessOrEqual", "Greater": "Greater",
    "GreaterEqual": "GreaterOrEqual", "Equal": "Equal", "LogicalAnd": "And", "LogicalOr": "Or",
    "LogicalNot": "Not", "Neg": "Neg", "Abs": "Abs", "Exp": "Exp", "Log": "Log", "Sqrt": "Sqrt",
    "Reciprocal": "Reciprocal", "Tanh": "Tanh", "Sigmoid": "Sigmoid", "Relu": "Relu", "Softplus": "Softplus",
    "Softsign": "Softsign", "Sin": "Sin", "Cos": "Cos", "Tan": "Tan", "Asin": "Asin", "Acos": "Acos",
    "Atan": "Atan", "Sinh": "Sinh", "Cosh": "Cosh", "Asinh": "Asinh", "Acosh": "Acosh", "Atanh": "Atanh",
    "Floor": "Floor", "Ceil": "Ceil", "Round": "Round", "Rint": "Round", "Sign": "Sign", "Erf": "Erf",
    "IsNan": "IsNaN", "IsInf": "IsInf", "AddN": "Sum", "SelectV2": "Where",
}
# Ops whose output is their (first) input: they only check or annotate it.
_PASS_THROUGH = ("Identity", "StopGradient", "EnsureShape", "CheckNumerics")


def _one_to_one(onnx_type):
    def handler(b, op, ins):
        return [b.op(onnx_type, ins, op.name)]
    return handler


for _tf_type, _onnx_type in _ONE_TO_ONE.items():
    handles(_tf_type)(_one_to_one(_onnx_type))


@handles(*_PASS_THROUGH)
def _pass_through(b, op, ins):
    return [ins[0]]


@handles("Einsum")
def _einsum(b, op, ins):
    return [b.op("Einsum", ins, op.name, equation=op.attrs["equation"])]


@handles("IdentityN")
def _identity_n(b, op, ins):
    return list(ins)


@handles("DivNoNan", "MulNoNan")
def _no_nan(b, op, ins):
    """x / y (x · y) that is 0 where y is 0, whatever x is."""
    x, y = ins
    zero = _scalar(b, 0, op.inputs[1], f"{op.name}/zero")
    y_is_zero = b.op("Equal", [y, zero], f"{op.name}/y_is_zero")
    safe_y = b.op("Where", [y_is_zero, _scalar(b, 1, op.inputs[1], f"{op.name}/one"), y], f"{op.name}/safe_y")
    value = b.op("Div" if op.type == "DivNoNan" else "Mul", [x, safe_y], f"{op.name}/value")
    return [b.op("Where", [y_is_zero, b.op("Mul", [value, zero], f"{op.name}/zeros"), value], op.name)]


@handles("IsFinite")
def _is_finite(b, op, ins):
    bad = b.op("Or", [b.op("IsNaN", ins, f"{op.name}/nan"), b.op("IsInf", ins, f"{op.name}/inf")], f"{op.name}/bad")
    return [b.op("Not", [bad], op.name)]


@handles("TruncateDiv")
def _truncate_div(b, op, ins):
    if op.outputs[0].dtype.is_floating:   # TensorFlow's TruncateDiv is integer-only; keep the rule anyway
        return [b.op("Cast", [b.op("Cast", [b.op("Div", ins, f"{op.name}/div")], f"{op.name}/int",
                                   to=b.ctx.elem_type(np.int64))], op.name, to=b.ctx.elem_type(op.outputs[0].dtype))]
    return [b.op("Div", ins, op.name)]          # ONNX's integer Div truncates, as C does


@handles("TruncateMod")
def _truncate_mod(b, op, ins):
    return [b.op("Mod", ins, op.name, fmod=1)]   # the remainder with the dividend's sign


@handles("TopKV2")
def _top_k(b, op, ins):
    k = b.op("Reshape", [b.as_int64(ins[1], f"{op.name}/k64"), b.i64([1], f"{op.name}/one")], f"{op.name}/k")
    values, indices = b.node("TopK", [ins[0], k], op.name, 2, axis=-1, largest=1, sorted=1)
    if op.outputs[1].dtype is not _dt.int64:
        indices = b.cast(indices, op.outputs[1].dtype, f"{op.name}/indices")
    return [values, indices]


@handles("NotEqual")
def _not_equal(b, op, ins):
    return [b.op("Not", [b.op("Equal", ins, f"{op.name}/equal")], op.name)]


@handles("Square")
def _square(b, op, ins):
    return [b.op("Mul", [ins[0], ins[0]], op.name)]


@handles("Rsqrt")
def _rsqrt(b, op, ins):
    return [b.op("Reciprocal", [b.op("Sqrt", ins, f"{op.name}/sqrt")], op.name)]


@handles("SquaredDifference")
def _squared_difference(b, op, ins):
    d = b.op("Sub", ins, f"{op.name}/sub")
    return [b.op("Mul", [d, d], op.name)]


def _scalar(b, value, like, hint):
    """A scalar constant of `like`'s dtype (a tensorflux tensor)."""
    return b.const(np.asarray(value, dtype=like.dtype.as_numpy_dtype), hint)


@handles("Log1p")
def _log1p(b, op, ins):
    one = _scalar(b, 1, op.inputs[0], f"{op.name}/one")
    return [b.op("Log", [b.op("Add", [ins[0], one], f"{op.name}/add")], op.name)]


@handles("Expm1")
def _expm1(b, op, ins):
    one = _scalar(b, 1, op.inputs[0], f"{op.name}/one")
    return [b.op("Sub", [b.op("Exp", ins, f"{op.name}/exp"), one], op.name)]


@handles("FloorDiv")
def _floor_div(b, op, ins):
    x, y = ins
    if op.outputs[0].dtype.is_floating:
        return [b.op("Floor", [b.op("Div", ins, f"{op.name}/div")], op.name)]
    # ONNX's integer Div truncates toward zero; Python and TensorFlow round toward -inf.
    q = b.op("Div", ins, f"{op.name}/trunc")
    r = b.op("Sub", [x, b.op("Mul", [q, y], f"{op.name}/qy")], f"{op.name}/rem")
    zero = _scalar(b, 0, op.inputs[0], f"{op.name}/zero")
    signs_differ = b.op("Xor", [b.op("Less", [r, zero], f"{op.name}/r_neg"),
                                b.op("Less", [y, zero], f"{op.name}/y_neg")], f"{op.name}/differ")
    adjust = b.op("And", [b.op("Not", [b.op("Equal", [r, zero], f"{op.name}/r_zero")], f"{op.name}/r_nonzero"),
                          signs_differ], f"{op.name}/adjust")
    return [b.op("Sub", [q, b.cast(adjust, op.outputs[0].dtype, f"{op.name}/adjust_n")], op.name)]


@handles("FloorMod")
def _floor_mod(b, op, ins):
    fmod = 1 if op.outputs[0].dtype.is_floating else 0
    if fmod:   # ONNX's float Mod is C's fmod; the floor remainder takes the divisor's sign
        r = b.op("Mod", ins, f"{op.name}/fmod", fmod=1)
        zero = _scalar(b, 0, op.inputs[0], f"{op.name}/zero")
        fix = b.op("And", [b.op("Not", [b.op("Equal", [r, zero], f"{op.name}/r_zero")], f"{op.name}/nz"),
                           b.op("Xor", [b.op("Less", [r, zero], f"{op.name}/r_neg"),
                                        b.op("Less", [ins[1], zero], f"{op.name}/y_neg")], f"{op.name}/differ")],
                    f"{op.name}/fix")
        return [b.op("Where", [fix, b.op("Add", [r, ins[1]], f"{op.name}/shifted"), r], op.name)]
    return [b.op("Mod", ins, op.name, fmod=0)]


@handles("LeakyRelu")
def _leaky_relu(b, op, ins):
    return [b.op("LeakyRelu", ins, op.name, alpha=float(op.attrs.get("alpha", 0.2)))]


@handles("Relu6")
def _relu6(b, op, ins):
    lo = _scalar(b, 0, op.inputs[0], f"{op.name}/min")
    hi = _scalar(b, 6, op.inputs[0], f"{op.name}/max")
    return [b.op("Clip", [ins[0], lo, hi], op.name)]


@handles("Elu")
def _elu(b, op, ins):
    return [b.op("Elu", ins, op.name, alpha=1.0)]


@handles("Selu")
def _selu(b, op, ins):
    return [b.op("Selu", ins, op.name, alpha=1.6732632423543772, gamma=1.0507009873554805)]


@handles("Gelu")
def _gelu(b, op, ins):
    x = ins[0]
    t = op.inputs[0]
    half = _scalar(b, 0.5, t, f"{op.name}/half")
    one = _scalar(b, 1.0, t, f"{op.name}/one")
    if op.attrs.get("approximate"):   # 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
        cube = b.op("Mul", [x, b.op("Mul", [x, x], f"{op.name}/x2")], f"{op.name}/x3")
        inner = b.op("Add", [x, b.op("Mul", [cube, _scalar(b, 0.044715, t, f"{op.name}/c")], f"{op.name}/cx3")],
                     f"{op.name}/inner")
        scaled = b.op("Mul", [inner, _scalar(b, np.sqrt(2 / np.pi), t, f"{op.name}/k")], f"{op.name}/scaled")
        gate = b.op("Tanh", [scaled], f"{op.name}/tanh")
    else:                             # 0.5·x·(1 + erf(x/√2))
        gate = b.op("Erf", [b.op("Mul", [x, _scalar(b, 1 / np.sqrt(2), t, f"{op.name}/k")], f"{op.name}/scaled")],
                    f"{op.name}/erf")
    return [b.op("Mul", [b.op("Mul", [x, half], f"{op.name}/halfx"), b.op("Add", [gate, one], f"{op.name}/gate")],
                 op.name)]


@handles("Silu")
def _silu(b, op, ins):
    x = ins[0]
    beta = float(op.attrs.get("beta", 1.0))
    z = x if beta == 1.0 else b.op("Mul", [x, _scalar(b, beta, op.inputs[0], f"{op.name}/beta")], f"{op.name}/bx")
    return [b.op("Mul", [x, b.op("Sigmoid", [z], f"{op.name}/sigmoid")], op.name)]


@handles("Softmax", "LogSoftmax")
def _softmax(b, op, ins):
    return [b.op(op.type, ins, op.name, axis=int(op.attrs.get("axis", -1)))]


@handles("Cast")
def _cast(b, op, ins):
    return [b.op("Cast", ins, op.name, to=b.ctx.elem_type(op.outputs[0].dtype))]


# -- matrices --------------------------------------------------------------------------------------
def _swap_last_two(b, name, tensor, hint):
    rank = tensor.shape.rank
    if rank is None:
        raise NotImplementedError(f"ONNX export needs the rank of '{tensor.name}' to transpose it.")
    perm = list(range(rank))
    perm[-2:] = perm[-1], perm[-2]
    return b.op("Transpose", [name], hint, perm=perm)


@handles("MatMul", "BatchMatMulV2")
def _matmul(b, op, ins):
    a, c = ins
    flip_a = op.attrs.get("transpose_a") or op.attrs.get("adj_x")
    flip_b = op.attrs.get("transpose_b") or op.attrs.get("adj_y")
    if flip_a:
        a = _swap_last_two(b, a, op.inputs[0], f"{op.name}/a_T")
    if flip_b:
        c = _swap_last_two(b, c, op.inputs[1], f"{op.name}/b_T")
    return [b.op("MatMul", [a, c], op.name)]


# -- reductions ------------------------------------------------------------------------------------
_REDUCE = {"Sum": "Sum", "Mean": "Mean", "Max": "Max", "Min": "Min", "Prod": "Prod", "EuclideanNorm": "L2"}


def _reduction_axes(b, op, ins):
    if len(ins) > 1:
        value = b.value(ins[1])
        if value is None:
            raise unsupported(op, "the reduction axes must be known at export time")
        return [int(a) for a in np.atleast_1d(value)]
    axis = op.attrs.get("axis", op.attrs.get("axes"))
    return None if axis is None else [int(a) for a in np.atleast_1d(axis)]


@handles(*_REDUCE)
def _reduce(b, op, ins):
    axes = _reduction_axes(b, op, ins)
    if axes == []:
        return [ins[0]]
    return [b.reduce(_REDUCE[op.type], ins[0], axes, op.attrs.get("keepdims", False), op.name)]


@handles("All", "Any")
def _all_any(b, op, ins):
    axes = _reduction_axes(b, op, ins)
    if axes == []:
        return [ins[0]]
    as_int = b.cast(ins[0], np.int32, f"{op.name}/int")
    reduced = b.reduce("Min" if op.type == "All" else "Max", as_int, axes, op.attrs.get("keepdims", False),
                       f"{op.name}/reduced")
    return [b.cast(reduced, _dt.bool, op.name)]


@handles("ArgMax", "ArgMin")
def _arg_max(b, op, ins):
    axis = _reduction_axes(b, op, ins)
    axis = 0 if axis is None else axis[0]
    index = b.op(op.type, [ins[0]], f"{op.name}/int64", axis=axis, keepdims=0)
    return [index if op.outputs[0].dtype is _dt.int64 else b.cast(index, op.outputs[0].dtype, op.name)]


@handles("Moments")
def _moments(b, op, ins):
    axes = [int(a) for a in np.atleast_1d(op.attrs["axes"])]
    keep = bool(op.attrs.get("keepdims", False))
    mean = b.reduce("Mean", ins[0], axes, True, f"{op.name}/mean_kept")
    centered = b.op("Sub", [ins[0], mean], f"{op.name}/centered")
    variance = b.reduce("Mean", b.op("Mul", [centered, centered], f"{op.name}/sq"), axes, keep, f"{op.name}/variance")
    if not keep:
        mean = b.squeeze(mean, axes, f"{op.name}/mean")
    return [mean, variance]


@handles("BatchNormalization")
def _batch_norm(b, op, ins):
    """tf.nn.batch_normalization: (x - mean)·rsqrt(variance + ε)·scale + offset, broadcasting as TF does."""
    x, mean, variance, *affine = ins
    offset = affine.pop(0) if op.attrs.get("has_offset") else None
    scale = affine.pop(0) if op.attrs.get("has_scale") else None
    eps = _scalar(b, op.attrs["variance_epsilon"], op.inputs[0], f"{op.name}/epsilon")
    inv = b.op("Reciprocal", [b.op("Sqrt", [b.op("Add", [variance, eps], f"{op.name}/var_eps")], f"{op.name}/std")],
               f"{op.name}/inv")
    if scale is not None:
        inv = b.op("Mul", [inv, scale], f"{op.name}/scaled_inv")
    out = b.op("Mul", [b.op("Sub", [x, mean], f"{op.name}/centered"), inv], f"{op.name}/normalized")
    if offset is not None:
        out = b.op("Add", [out, offset], op.name)
    return [out]


@handles("Cumsum")
def _cumsum(b, op, ins):
    axis = b.i64(int(op.attrs.get("axis", 0)), f"{op.name}/axis")
    return [b.op("CumSum", [ins[0], axis], op.name, exclusive=int(bool(op.attrs.get("exclusive"))),
                 reverse=int(bool(op.attrs.get("reverse"))))]
