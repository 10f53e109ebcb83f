"""TensorFlow's automatic dispatch for RaggedTensors: `tf.math.abs(rt)`, `tf.add(rt, 1)`,
`tf.reduce_sum(rt, axis=1)`, `tf.concat([rt, rt], 0)`, `tf.math.bincount(rt, axis=-1)` work as they do in
TensorFlow, and so do RaggedTensor's Python operators (`rt + 1`, `-rt`, `rt < 3`).

The public functions listed below are re-exported, under the same names, wrapped: the wrapper looks at
the types of its first arguments and, only when one is a RaggedTensor, applies the op to the flat values
(element-wise ops) or calls the ragged reduction/concat; otherwise it calls the original at once. The
wrapped originals are found through the API tables of the modules already imported (this room comes after
the math, array and nn families in the import order, so its table entries take precedence).
tensorflux's own code keeps calling the originals; Tensor's operators never pass through here.
"""
import functools
import inspect
import sys

from ...framework import errors
from ..convert import convert_to_tensor
from ..array import gather as _gather
from . import ragged_ops
from .ragged_tensor import RaggedTensor

__all__ = []

_UNARY = ["abs", "negative", "sign", "square", "sqrt", "rsqrt", "exp", "expm1", "log", "log1p", "sin", "cos", "tan",
          "tanh", "sinh", "cosh", "asin", "acos", "atan", "sigmoid", "floor", "ceil", "round", "reciprocal",
          "logical_not", "is_nan", "is_inf", "is_finite", "erf", "erfc", "softplus", "cast", "saturate_cast",
          "real", "imag", "conj", "relu", "relu6", "elu", "selu", "gelu", "silu", "swish", "leaky_relu", "softsign",
          "lgamma", "digamma", "bitwise_not", "invert"]
_BINARY = ["add", "subtract", "multiply", "divide", "truediv", "realdiv", "floordiv", "floormod", "mod", "pow",
           "maximum", "minimum", "squared_difference", "equal", "not_equal", "less", "less_equal", "greater",
           "greater_equal", "logical_and", "logical_or", "logical_xor", "divide_no_nan", "multiply_no_nan", "atan2",
           "truncatediv", "truncatemod", "xdivy", "xlogy", "add_n"]
_REDUCE = {"reduce_sum": "sum", "reduce_mean": "mean", "reduce_max": "max", "reduce_min": "min",
           "reduce_prod": "prod", "reduce_any": "any", "reduce_all": "all"}


def _is_ragged(x):
    return type(x) is RaggedTensor


def _parameters(fn):
    try:
        return tuple(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return None


def _unary(fn):
    if _parameters(fn) == ("x", "name"):      # the common signature: no argument packing on the way through
        @functools.wraps(fn)
        def plain(x, name=None):
            if type(x) is RaggedTensor:
                return x.with_flat_values(fn(x.flat_values, name))
            return fn(x, name)
        return plain

    @functools.wraps(fn)
    def wrapper(x, *args, **kwargs):
        if type(x) is RaggedTensor:
            return x.with_flat_values(fn(x.flat_values, *args, **kwargs))
        return fn(x, *args, **kwargs)
    return wrapper


def _broadcast_operand(rt, other):
    """`other` (dense) as values lined up with `rt.flat_values`, by TensorFlow's ragged broadcasting: a
    tensor of the inner dimensions' shape broadcasts as it is; one with a size-1 ragged dimension, per row."""
    other = convert_to_tensor(other, dtype_hint=rt.dtype)
    flat_rank = rt.flat_values.shape.rank
    if other.shape.rank is None or other.shape.rank < flat_rank:
        return other
    rank = rt.shape.rank
    if rt.ragged_rank == 1 and other.shape.rank == rank and other.shape[1] in (1, None):
        rows = _gather.gather(other, rt.value_rowids())        # [nvals, 1, inner...]
        from ..shapes import shaping
        return shaping.squeeze(rows, axis=[1])
    raise ValueError(f"Unable to broadcast a tensor of shape {other.shape} with a RaggedTensor of shape {rt.shape}")


def _same_partition(a, b):
    if not ragged_ops._same_partition(a, b):
        raise errors.InvalidArgumentError(None, None, "Inputs must have identical ragged splits. Condition x == y did "
                                          "not hold element-wise")


def _binary(fn):
    if _parameters(fn) == ("x", "y", "name"):
        @functools.wraps(fn)
        def plain(x, y, name=None):
            if type(x) is not RaggedTensor and type(y) is not RaggedTensor:
                return fn(x, y, name)
            return _ragged_binary(fn, x, y, (name,), {})
        return plain

    @functools.wraps(fn)
    def wrapper(x, y, *args, **kwargs):
        if type(x) is not RaggedTensor and type(y) is not RaggedTensor:
            return fn(x, y, *args, **kwargs)
        return _ragged_binary(fn, x, y, args, kwargs)
    return wrapper


def _ragged_binary(fn, x, y, args, kwargs):
    """`fn` on the flat values: two RaggedTensors of one row partition, or one and a broadcast tensor."""
    xr, yr = type(x) is RaggedTensor, type(y) is RaggedTensor
    if xr and yr:
        _same_partition(x, y)
        return x.with_flat_values(fn(x.flat_values, y.flat_values, *args, **kwargs))
    if xr:
        return x.with_flat_values(fn(x.flat_values, _broadcast_operand(x, y), *args, **kwargs))
    return y.with_flat_values(fn(_broadcast_operand(y, x), y.flat_values, *args, **kwargs))


def _add_n(fn):
    @functools.wraps(fn)
    def wrapper(inputs, name=None):
        inputs = list(inputs)
        if inputs and type(inputs[0]) is RaggedTensor:
            for other in inputs[1:]:
                _same_partition(inputs[0], other)
            return inputs[0].with_flat_values(fn([r.flat_values for r in inputs]))
        return fn(inputs, name=name) if name is not None else fn(inputs)
    return wrapper


def _reduction(fn, kind):
    if _parameters(fn) == ("input_tensor", "axis", "keepdims", "name"):
        @functools.wraps(fn)
        def plain(input_tensor, axis=None, keepdims=False, name=None):
            if type(input_tensor) is RaggedTensor:
                return ragged_ops.reduce(kind, input_tensor, axis, bool(keepdims))
            return fn(input_tensor, axis, keepdims, name)
        return plain

    @functools.wraps(fn)
    def wrapper(input_tensor, axis=None, keepdims=False, *args, **kwargs):
        if type(input_tensor) is RaggedTensor:
            return ragged_ops.reduce(kind, input_tensor, axis, bool(keepdims))
        return fn(input_tensor, axis, keepdims, *args, **kwargs)
    return wrapper


def _concat(fn):
    @functools.wraps(fn)
    def wrapper(values, axis, name="concat"):
        if isinstance(values, (list, tuple)) and any(type(v) is RaggedTensor for v in values):
            return ragged_ops.concat(values, axis)
        return fn(values, axis, name)
    return wrapper


def _stack(fn):
    @functools.wraps(fn)
    def wrapper(values, axis=0, name="stack"):
        if isinstance(values, (list, tuple)) and any(type(v) is RaggedTensor for v in values):
            return ragged_ops.stack(values, axis)
        return fn(values, axis, name)
    return wrapper


def _bincount(fn):
    @functools.wraps(fn)
    def wrapper(arr, *args, **kwargs):
        if type(arr) is RaggedTensor:
            from . import bincount    # its own lazy room: the RaggedBincount op
            return bincount.ragged_bincount(arr, *args, **kwargs)
        return fn(arr, *args, **kwargs)
    return wrapper


def _wrapper_for(name):
    if name == "bincount":
        return _bincount
    if name in _REDUCE:
        return lambda fn: _reduction(fn, _REDUCE[name])
    if name == "concat":
        return _concat
    if name == "stack":
        return _stack
    if name == "add_n":
        return _add_n
    if name in _BINARY:
        return _binary
    return _unary


def _collect():
    """{(namespace, name): wrapper} for the listed names, one wrapper per original function object."""
    wanted = set(_UNARY) | set(_BINARY) | set(_REDUCE) | {"concat", "stack", "bincount"}
    spaces = {"", "math", "nn", "bitwise", "dtypes"}   # every namespace that holds one of these functions
    wrappers, table = {}, {}
    for module_name, module in sorted(sys.modules.items()):
        if not module_name.startswith("tensorflux._src.ops.") or module is None or module_name.startswith(__package__):
            continue
        for ns, names in (getattr(module, "API", None) or {}).items():
            if ns not in spaces:
                continue
            for entry in names:
                public, _, private = entry.partition("=")
                if public not in wanted:
                    continue
                fn = getattr(module, private or public, None)
                if not callable(fn) or isinstance(fn, type):
                    continue
                if id(fn) not in wrappers:
                    wrappers[id(fn)] = _wrapper_for(public)(fn)
                table[(ns, public)] = wrappers[id(fn)]
    return table


_WRAPPED = _collect()
for (_ns, _name), _fn in _WRAPPED.items():
    globals()[f"_{_ns or 'top'}__{_name}"] = _fn

API = {}
for (_ns, _name) in _WRAPPED:
    API.setdefault(_ns, []).append(f"{_name}=_{_ns or 'top'}__{_name}")


# -- RaggedTensor's Python operators ----------------------------------------------------------------------------

def _op(name, reflected=False):
    fn = _WRAPPED.get(("math", name)) or _WRAPPED.get(("", name))
    if reflected:
        return lambda self, other: fn(other, self)
    return lambda self, other: fn(self, other)


def _install_operators():
    binary = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "truediv", "floordiv": "floordiv",
              "mod": "floormod", "pow": "pow", "and": "logical_and", "or": "logical_or", "xor": "logical_xor"}
    for dunder, name in binary.items():
        if ("math", name) in _WRAPPED or ("", name) in _WRAPPED:
            setattr(RaggedTensor, f"__{dunder}__", _op(name))
            setattr(RaggedTensor, f"__r{dunder}__", _op(name, reflected=True))
    for dunder, name in {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal"}.items():
        setattr(RaggedTensor, f"__{dunder}__", _op(name))
    neg, absolute = _WRAPPED.get(("math", "negative")), _WRAPPED.get(("math", "abs"))
    invert = _WRAPPED.get(("math", "logical_not"))
    RaggedTensor.__neg__ = lambda self: neg(self)
    RaggedTensor.__abs__ = lambda self: absolute(self)
    RaggedTensor.__invert__ = lambda self: invert(self)


_install_operators()
