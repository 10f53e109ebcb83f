"""Logging and checking ops: `tf.print`, `tf.debugging.Assert` and the `assert_*` family, check_numerics.

`tf.print` is two ops, as in TensorFlow: `StringFormat` renders the tensors into one string (Python
values are formatted statically into its template) and `PrintV2`, a stateful op, writes that string when
it runs — every time a traced function runs, not only while tracing. The output stream is looked up when
the op runs, so `sys.stderr` means whatever `sys.stderr` is at that moment.

Assertions behave like TensorFlow's: eagerly, the condition is checked in Python and a failure raises
`InvalidArgumentError` with TensorFlow's eager message (NumPy-style values); in a graph they add a
stateful `Assert` op whose kernel raises TensorFlow's graph message (`assertion failed: [..] [..]`).
"""
import logging as _pylogging
import sys

import numpy as np

from ..framework import errors
from ..framework import nest as _nest
from ..framework.context import state as _state
from ..framework.tensor import Tensor, is_tensor
from ..types import dtypes as _dt
from .convert import binary_operands, convert_to_tensor
from .infer import infer_unary
from .registry import OpDef, apply, FLOAT, NUMBER
from .array import join as _join
from .shapes import shape_ops as _shape_ops
from .math import arith as _math
from .math import reduce as _reduce
from .assertion import Assert


def _string():
    """ops/strings.py, imported on first use (tf.strings is a lazy room: namespaces.LAZY_ROOMS)."""
    from . import strings
    return strings


__all__ = ["print_v2", "Assert", "assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
           "assert_greater", "assert_greater_equal", "assert_positive", "assert_negative",
           "assert_non_negative", "assert_non_positive", "assert_near", "assert_rank",
           "assert_rank_at_least", "assert_rank_in", "assert_type", "assert_scalar", "assert_integer",
           "assert_all_finite", "check_numerics", "is_numeric_tensor"]


def _no_outputs(inputs, attrs):
    return []


# -- PrintV2 -----------------------------------------------------------------------------------------

_LOG_LEVELS = {"log(info)": _pylogging.INFO, "log(warning)": _pylogging.WARNING,
               "log(error)": _pylogging.ERROR}


def _print_kernel(text, output_stream, end):
    message = _string()._text(text[()]) + end
    if output_stream == "stderr":
        sys.stderr.write(message)
        sys.stderr.flush()
    elif output_stream == "stdout":
        sys.stdout.write(message)
        sys.stdout.flush()
    elif output_stream in _LOG_LEVELS:
        _pylogging.getLogger("tensorflow").log(_LOG_LEVELS[output_stream], message.rstrip("\n"))
    else:
        with open(output_stream[len("file://"):], "a", encoding="utf-8", errors="surrogateescape") as f:
            f.write(message)
    return ()


PRINT_V2 = OpDef("PrintV2", _no_outputs, _print_kernel, stateful=True, multi=True, input_names=("input",))

# tensorflux has no tf.compat.v1.logging: Python's own logging functions stand for TensorFlow's.
_LOGGING_STREAMS = {_pylogging.info: "log(info)", _pylogging.warning: "log(warning)",
                    _pylogging.error: "log(error)"}
_DEFAULT_STREAM = object()


def _stream_name(stream):
    if stream is _DEFAULT_STREAM or stream is sys.stderr or stream is sys.__stderr__:
        return "stderr"
    if stream is sys.stdout or stream is sys.__stdout__:
        return "stdout"
    if isinstance(stream, str) and stream.startswith("file://"):
        return stream
    try:
        name = _LOGGING_STREAMS.get(stream)
    except TypeError:  # unhashable
        name = None
    if name is None:
        raise ValueError(f"Unsupported output stream, logging level, or file.{stream}. Supported streams are "
                         f"sys.stdout, sys.stderr, tf.logging.info, tf.logging.warning, tf.logging.error. "
                         f"File needs to be in the form of 'file://<filepath>'.")
    return name


def _placeholder_for(text):
    """A placeholder that does not occur in the static text of the template."""
    placeholder = "{}"
    digit = 0
    while placeholder in text:
        placeholder += str(digit % 10)
        digit += 7
    return placeholder


def print_v2(*inputs, output_stream=_DEFAULT_STREAM, summarize=3, sep=" ", end="\n", name=None):
    """`tf.print`: prints tensors (and Python values) when the op runs, with TensorFlow's formatting.

    Nested structures print like Python's `pprint` with each tensor replaced by its value; a top-level
    Python string is printed as is; a single scalar string tensor prints without quotes.
    """
    stream = _stream_name(output_stream)
    if len(inputs) == 1 and isinstance(inputs[0], Tensor) and inputs[0].dtype is _dt.string \
            and inputs[0].shape.rank == 0:
        formatted = inputs[0]
    else:
        import pprint as _pprint   # here, not at import: pprint pulls in dataclasses (~5 ms)
        tensor_free = " ".join(x if isinstance(x, str) else _pprint.pformat(
            _nest.map_structure(lambda v: "" if is_tensor(v) else v, x)) for x in inputs)
        placeholder = _placeholder_for(tensor_free)
        templates, tensors = [], []
        for x in inputs:
            if isinstance(x, str):
                templates.append(x)
                continue
            leaves = []
            for leaf in _nest.flatten(x):
                if is_tensor(leaf):
                    tensors.append(convert_to_tensor(leaf))
                    leaves.append(placeholder)
                else:
                    leaves.append(leaf)
            templates.append(_pprint.pformat(_nest.pack_sequence_as(x, leaves)))
        # pprint quoted the placeholders it saw as strings; tensors print unquoted.
        template = sep.join(templates).replace("'" + placeholder + "'", placeholder)
        formatted = _string().format(template, tensors, placeholder=placeholder, summarize=summarize)
    out = apply(PRINT_V2, (formatted,), {"output_stream": stream, "end": end}, name or "PrintV2")
    return None if _state.graph is None else out


# -- comparisons -------------------------------------------------------------------------------------

def _pretty(item, summarize):
    """An item of an eager assertion message: tensors as a list of leading values, the rest via str()."""
    if isinstance(item, Tensor):
        value = np.asarray(item._value)
        if value.ndim == 0:
            return str(value[()])
        flat = value.reshape(-1)
        items = [str(v) for v in flat[:summarize]]
        if len(items) < flat.size:
            items.append("...")
        return str(items)
    return str(item)


def _describe(t):
    """How assertion messages name a tensor: its graph name, or its shape and dtype when it has none."""
    if _state.graph is not None and getattr(t, "_value", None) is None:
        return t.name
    return f"shape={t.shape} dtype={t.dtype.name}"


def _message_prefix(message):
    return f"{message}.  " if message else ""


def _compare_eagerly(op_name, compare, x, y):
    """`compare(x, y)` on the values, with the errors TensorFlow's comparison op would raise."""
    if x.dtype is not y.dtype:
        raise errors.eager_error(
            errors.InvalidArgumentError,
            f"cannot compute {op_name} as input #1(zero-based) was expected to be a "
            f"{_dtype_text(x.dtype)} tensor but is a {_dtype_text(y.dtype)} tensor", op_name)
    try:
        np.broadcast_shapes(x._value.shape, y._value.shape)
    except ValueError:
        raise errors.eager_error(
            errors.InvalidArgumentError,
            f"Incompatible shapes: {_string()._dims(x._value.shape)} vs. {_string()._dims(y._value.shape)}",
            op_name) from None
    return np.asarray(compare(x._value, y._value))


def _dtype_text(dtype):
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name, dtype.name)


def _binary_assert(sym, op_name, compare, math_fn, x, y, data, summarize, message, name):
    x, y = binary_operands(x, y)
    if _state.graph is not None:
        condition = _reduce.reduce_all(getattr(_math, math_fn)(x, y))
        if data is None:
            data = [f"Condition x {sym} y did not hold element-wise:", f"x ({_describe(x)}) = ", x,
                    f"y ({_describe(y)}) = ", y]
        if message is not None:
            data = [message] + list(data)
        return Assert(condition, data, summarize, name=name or "assert_" + math_fn)
    holds = _compare_eagerly(op_name, compare, x, y)
    if holds.all():
        return None
    summarize = 3 if summarize is None else (10 ** 9 if summarize < 0 else summarize)
    if data is None:
        data = _failure_report(sym, x, y, holds, summarize)
    if message is not None:
        data = [message] + list(data)
    raise errors.InvalidArgumentError(None, None, "\n".join(_pretty(d, summarize) for d in data))


def _failure_report(sym, x, y, holds, summarize):
    """TensorFlow's eager report: failing indices and values (same non-scalar shapes), leading values."""
    lines = [f"Condition x {sym} y did not hold."]
    if summarize <= 0:
        return lines
    xv, yv = np.asarray(x._value), np.asarray(y._value)
    if xv.shape == yv.shape and xv.ndim:
        failed = ~holds
        indices = np.argwhere(failed)
        n = min(summarize, len(indices))
        lines += [f"Indices of first {n} different values:", indices[:n],
                  "Corresponding x values:", xv[failed][:n], "Corresponding y values:", yv[failed][:n]]
    xf, yf = xv.reshape(-1), yv.reshape(-1)
    nx, ny = min(xf.size, summarize), min(yf.size, summarize)
    lines += [f"First {nx} elements of x:", xf[:nx], f"First {ny} elements of y:", yf[:ny]]
    return lines


def assert_equal(x, y, message=None, summarize=None, name=None):
    """`tf.debugging.assert_equal`: raises InvalidArgumentError unless `x == y` everywhere."""
    return _binary_assert("==", "Equal", np.equal, "equal", x, y, None, summarize, message, name)


def assert_none_equal(x, y, summarize=None, message=None, name=None):
    """`tf.debugging.assert_none_equal`: raises unless `x != y` everywhere."""
    return _binary_assert("!=", "NotEqual", np.not_equal, "not_equal", x, y, None, summarize, message, name)


def assert_less(x, y, message=None, summarize=None, name=None):
    """`tf.debugging.assert_less`: raises unless `x < y` everywhere."""
    return _binary_assert("<", "Less", np.less, "less", x, y, None, summarize, message, name)


def assert_less_equal(x, y, message=None, summarize=None, name=None):
    """`tf.debugging.assert_less_equal`: raises unless `x <= y` everywhere."""
    return _binary_assert("<=", "LessEqual", np.less_equal, "less_equal", x, y, None, summarize, message, name)


def assert_greater(x, y, message=None, summarize=None, name=None):
    """`tf.debugging.assert_greater`: raises unless `x > y` everywhere."""
    return _binary_assert(">", "Greater", np.greater, "greater", x, y, None, summarize, message, name)


def assert_greater_equal(x, y, message=None, summarize=None, name=None):
    """`tf.debugging.assert_greater_equal`: raises unless `x >= y` everywhere."""
    return _binary_assert(">=", "GreaterEqual", np.greater_equal, "greater_equal", x, y, None, summarize,
                          message, name)


def _sign_assert(x, condition_text, zero_first, comparison, message, summarize, name):
    """assert_positive & co.: TensorFlow compares `x` with zero and reports `x` under its own heading."""
    x = convert_to_tensor(x)
    described = f"x ({_describe(x)}) = "
    if condition_text.endswith(":x"):  # TensorFlow joins assert_non_positive's two heading lines
        data = [_message_prefix(message), condition_text[:-1] + described, x]
    else:
        data = [_message_prefix(message), condition_text, described, x]
    zero = convert_to_tensor(np.zeros((), dtype=x.dtype._np))
    a, b = (zero, x) if zero_first else (x, zero)
    sym, op_name, compare, math_fn = comparison
    return _binary_assert(sym, op_name, compare, math_fn, a, b, data, summarize, None, name)


_LESS = ("<", "Less", np.less, "less")
_LESS_EQUAL = ("<=", "LessEqual", np.less_equal, "less_equal")


def assert_positive(x, message=None, summarize=None, name=None):
    """`tf.debugging.assert_positive`: raises unless every element is > 0."""
    return _sign_assert(x, "Condition x > 0 did not hold element-wise:", True, _LESS, message, summarize,
                        name or "assert_positive")


def assert_negative(x, message=None, summarize=None, name=None):
    """`tf.debugging.assert_negative`: raises unless every element is < 0."""
    return _sign_assert(x, "Condition x < 0 did not hold element-wise:", False, _LESS, message, summarize,
                        name or "assert_negative")


def assert_non_negative(x, message=None, summarize=None, name=None):
    """`tf.debugging.assert_non_negative`: raises unless every element is >= 0."""
    return _sign_assert(x, "Condition x >= 0 did not hold element-wise:", True, _LESS_EQUAL, message,
                        summarize, name or "assert_non_negative")


def assert_non_positive(x, message=None, summarize=None, name=None):
    """`tf.debugging.assert_non_positive`: raises unless every element is <= 0."""
    return _sign_assert(x, "Condition x <= 0 did not hold element-wise:x", False, _LESS_EQUAL, message,
                        summarize, name or "assert_non_positive")


def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """`tf.debugging.assert_near`: raises unless `|x - y| <= atol + rtol * |y|` everywhere.

    The default tolerances are ten machine epsilons of the dtype.
    """
    x, y = binary_operands(x, y)
    eps = float(np.finfo(x.dtype._np).eps) if x.dtype.is_floating or x.dtype.is_complex else 0.0
    rtol = convert_to_tensor(10 * eps if rtol is None else rtol, dtype=x.dtype.real_dtype)
    atol = convert_to_tensor(10 * eps if atol is None else atol, dtype=x.dtype.real_dtype)
    data = [message if message is not None else "",
            f"x and y not equal to tolerance rtol = {rtol!s}, atol = {atol!s}",
            f"x ({_describe(x)}) = ", x, f"y ({_describe(y)}) = ", y]
    if _state.graph is not None:
        tolerance = _math.add(atol, _math.multiply(rtol, _math.abs(y)))
        condition = _reduce.reduce_all(_math.less_equal(_math.abs(_math.subtract(x, y)), tolerance))
        return Assert(condition, data, summarize, name=name or "assert_near")
    _compare_eagerly("Sub", np.subtract, x, y)
    xv, yv = x._value, y._value
    holds = bool(np.all(np.abs(xv - yv) <= atol._value + rtol._value * np.abs(yv)))
    condition = convert_to_tensor(holds)
    return Assert(condition, data, summarize, name=name)


# -- static checks -----------------------------------------------------------------------------------

def _static_rank(x):
    return convert_to_tensor(x).shape.rank


def _rank_error(x, message, requirement):
    x = convert_to_tensor(x)
    tensor_name = "" if _state.graph is None else x.name
    return ValueError(f"{_message_prefix(message)}Tensor {tensor_name} must have rank {requirement}.  "
                      f"Received rank {x.shape.rank}, shape {x.shape}")


def _dynamic_rank_assert(x, predicate_fn, text, message, name):
    """Unknown rank while tracing: check the rank when the graph runs."""
    x = convert_to_tensor(x)
    data = [_message_prefix(message) + f"Tensor {x.name} must have rank {text}.", "Received rank:",
            _shape_ops.rank(x)]
    return Assert(predicate_fn(_shape_ops.rank(x)), data, name=name)


def assert_rank(x, rank, message=None, name=None):
    """`tf.debugging.assert_rank`: ValueError (statically) unless `x` has rank `rank`."""
    static = _static_rank(x)
    rank = int(rank)
    if static is None:
        return _dynamic_rank_assert(x, lambda r: _math.equal(r, rank), str(rank), message, name)
    if static != rank:
        raise _rank_error(x, message, rank)
    return None


def assert_rank_at_least(x, rank, message=None, name=None):
    """`tf.debugging.assert_rank_at_least`: ValueError unless `x` has rank >= `rank`."""
    static = _static_rank(x)
    rank = int(rank)
    if static is None:
        return _dynamic_rank_assert(x, lambda r: _math.greater_equal(r, rank), f"at least {rank}", message,
                                    name)
    if static < rank:
        raise _rank_error(x, message, f"at least {rank}")
    return None


def assert_rank_in(x, ranks, message=None, name=None):
    """`tf.debugging.assert_rank_in`: ValueError unless the rank of `x` is one of `ranks`."""
    static = _static_rank(x)
    ranks = tuple(int(r) for r in ranks)
    if static is None:
        def any_equal(r):
            return _reduce.reduce_any(_math.equal(r, convert_to_tensor(list(ranks))))
        return _dynamic_rank_assert(x, any_equal, f"in {ranks}", message, name)
    if static not in ranks:
        raise _rank_error(x, message, f"in {ranks}")
    return None


def assert_type(tensor, tf_type, message=None, name=None):
    """`tf.debugging.assert_type`: TypeError unless `tensor` has dtype `tf_type`."""
    dtype = _dt.as_dtype(tf_type)
    t = convert_to_tensor(tensor)
    if t.dtype is not dtype:
        tensor_name = "tensor" if _state.graph is None else t.name
        raise TypeError(f"{_message_prefix(message)}{tensor_name} must be of type {dtype!r}; got {t.dtype!r}")
    return None


def assert_scalar(tensor, message=None, name=None):
    """`tf.debugging.assert_scalar`: ValueError unless `tensor` is statically a scalar; returns it."""
    t = convert_to_tensor(tensor)
    rank = t.shape.rank
    if rank != 0:
        if _state.graph is not None and rank is None:
            raise ValueError(f"{_message_prefix(message)}A Tensor of unknown rank is not a scalar: {t.name}")
        raise ValueError(f"{_message_prefix(message)}Expected scalar shape, saw shape: {t.shape}.")
    return t


def assert_integer(x, message=None, name=None):
    """`tf.debugging.assert_integer`: TypeError unless `x` has an integer dtype."""
    t = convert_to_tensor(x)
    if not t.dtype.is_integer:
        what = "tensor" if _state.graph is None else t.name
        raise TypeError(f'{_message_prefix(message)}Expected "x" to be integer type.  Found: {what} of dtype '
                        f"<dtype: '{t.dtype.name}'>")
    return None


def is_numeric_tensor(tensor):
    """`tf.debugging.is_numeric_tensor`: a tensor whose dtype is a number type."""
    return isinstance(tensor, Tensor) and tensor.dtype in NUMBER


# -- CheckNumerics -----------------------------------------------------------------------------------

def _check_numerics_kernel(x, message):
    has_inf = bool(np.isinf(x).any())
    has_nan = bool(np.isnan(x).any())
    if has_inf or has_nan:
        found = "Inf and NaN" if has_inf and has_nan else "Inf" if has_inf else "NaN"
        raise errors.InvalidArgumentError(None, None, f"{message} : Tensor had {found} values")
    return x


CHECK_NUMERICS = OpDef("CheckNumerics", infer_unary, _check_numerics_kernel, stateful=True, allowed=FLOAT,
                       input_names=("tensor",))


def check_numerics(tensor, message, name=None):
    """`tf.debugging.check_numerics`: returns `tensor`, raising InvalidArgumentError if it has NaN/Inf."""
    if not isinstance(message, (str, bytes)):  # a string attr, checked by TensorFlow before the op runs
        raise TypeError(f"Expected string for argument 'message' not {message!r}.")
    if isinstance(message, bytes):
        message = message.decode("utf-8", "replace")
    x = convert_to_tensor(tensor)
    return apply(CHECK_NUMERICS, (x,), {"message": message}, name or "CheckNumerics")


def assert_all_finite(x, message, name=None):
    """`tf.debugging.assert_all_finite`: `check_numerics` under another name."""
    return check_numerics(x, message, name=name)


API = {
    "": ["print=print_v2", "assert_equal", "assert_greater", "assert_less", "assert_rank"],
    "debugging": ["assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
                  "assert_greater", "assert_greater_equal", "assert_positive", "assert_negative",
                  "assert_non_negative", "assert_non_positive", "assert_near", "assert_rank",
                  "assert_rank_at_least", "assert_rank_in", "assert_type", "assert_scalar",
                  "assert_integer", "assert_all_finite", "check_numerics", "is_numeric_tensor"],
}


# -- assert_shapes -----------------------------------------------------------------------------------
# Symbolic shape constraints: a dimension entry is an explicit size when int() accepts it, any size when
# it is None or '.', and otherwise a symbol that must denote the same size wherever it appears. A leading
# `...` or '*' constrains only the innermost dimensions. A scalar counts as shape (1,), and an empty spec
# as (1,). Sizes known while tracing are checked at once (ValueError); the others become Assert ops.

def _shape_and_dtype_text(t):
    return f"shape={t.shape} dtype={t.dtype.name}"


def _is_any_size(symbol):
    return symbol is None or (isinstance(symbol, str) and symbol == ".")


def _is_explicit_size(symbol):
    if symbol is None:
        return False
    try:
        int(symbol)
    except (TypeError, ValueError):
        return False
    return True


def _is_outer_wildcard(symbol):
    return symbol is Ellipsis or (isinstance(symbol, str) and symbol == "*")


def _size_at(x, dim):
    """Dimension `dim` (negative: from the end) of `x` seen as at least rank 1: an int when static, else a
    scalar int32 tensor."""
    dims = x.shape._dims
    if dims is not None:
        dims = dims or (1,)
        size = dims[dim]
        return size if size is not None else _shape_ops.shape(x)[dim]
    one = convert_to_tensor(np.array([1], dtype=np.int32))
    padded = _join.concat([_shape_ops.shape(x), one] if dim >= 0 else [one, _shape_ops.shape(x)], 0)
    return padded[dim]


def _rank_requirement(x, wanted, prefix_data, data, summarize, message):
    """The rank check of one constraint: static ValueError, or an Assert when the rank is unknown."""
    kind, rank = wanted
    static = x.shape.rank
    holds = {"equal": lambda r: r == rank, "at least": lambda r: r >= rank, "in": lambda r: r in (0, 1)}[kind]
    text = {"equal": str(rank), "at least": f"at least {rank}", "in": "in (0, 1)"}[kind]
    if static is not None:
        if not holds(static):
            raise _rank_error(x, message, text)
        return
    actual = _shape_ops.rank(x)
    if kind == "equal":
        condition = _math.equal(actual, rank)
        default = [prefix_data, f"Tensor {x.name} must have rank", rank]
    elif kind == "at least":
        condition = _math.greater_equal(actual, rank)
        default = [prefix_data, f"Tensor {x.name} must have rank at least", rank]
    else:
        condition = _reduce.reduce_any(_math.equal(actual, convert_to_tensor([0, 1])))
        default = [prefix_data, f"Tensor {x.name} must have rank in", 0, 1]
    Assert(condition, data if data is not None else default + ["Received shape: ", _shape_ops.shape(x)], summarize)


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """`tf.debugging.assert_shapes`: checks tensors against symbolic shapes such as `(x, ('N', 'Q'))`.

    Raises ValueError for a violation visible statically; inside a graph, dimensions known only at run time
    are checked by Assert ops (InvalidArgumentError when the function runs).
    """
    if isinstance(shapes, dict):
        shapes = shapes.items()
    prefix = _message_prefix(message)
    graph = _state.graph

    def tensor_name(t):
        return _shape_and_dtype_text(t) if graph is None else t.name

    constraints = [(convert_to_tensor(x), s) for x, s in shapes if s is not None]
    specs = []
    for x, spec in constraints:
        if not (hasattr(spec, "__iter__") or hasattr(spec, "__getitem__")):
            raise ValueError(f"{prefix}Tensor {tensor_name(x)}.  Specified shape must be an iterable.  An iterable "
                             f"has the attribute `__iter__` or `__getitem__`.  Received specified shape: {spec}")
        symbols = tuple(spec)
        innermost = False
        for i, symbol in enumerate(symbols):
            if not _is_outer_wildcard(symbol):
                continue
            if i != 0:
                raise ValueError(f"{prefix}Tensor {tensor_name(x)} specified shape index {i}.  Symbol `...` or `*` "
                                 f"for a variable number of unspecified dimensions is only allowed as the first entry")
            innermost = True
        symbols = (symbols[1:] if innermost else symbols) or (1,)
        specs.append((x, innermost, symbols))

    for x, innermost, symbols in specs:
        rank = len(symbols)
        if innermost and rank == 1:
            continue  # any tensor has at least one dimension once a scalar counts as shape (1,)
        wanted = ("at least", rank) if innermost else ("in", rank) if rank == 1 else ("equal", rank)
        _rank_requirement(x, wanted, prefix, data, summarize, message)

    seen = {}
    for x, innermost, symbols in specs:
        for i, symbol in enumerate(symbols):
            if _is_any_size(symbol):
                continue
            dim = i - len(symbols) if innermost else i
            explicit = _is_explicit_size(symbol)
            if not explicit and symbol not in seen:
                seen[symbol] = (_size_at(x, dim), x, dim)
                continue
            if explicit:
                wanted, origin = int(symbol), "Specified explicitly"
            else:
                wanted, by, at = seen[symbol]
                origin = f"Specified by tensor {tensor_name(by)} dimension {at}"
            actual = _size_at(x, dim)
            if isinstance(actual, int) and isinstance(wanted, int):
                if actual != wanted:
                    raise ValueError(f"{prefix}{origin}.  Tensor {tensor_name(x)} dimension {dim} must have size "
                                     f"{wanted}.  Received size {actual}, shape {x.shape}")
                continue
            condition = _math.equal(convert_to_tensor(actual), convert_to_tensor(wanted))
            shown = data if data is not None else [
                prefix, origin, f"Tensor {tensor_name(x)} dimension", dim, "must have size", wanted,
                "Received shape: ", _shape_ops.shape(x)]
            Assert(condition, shown, summarize)
    return None


API["debugging"].append("assert_shapes")
