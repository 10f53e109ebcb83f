"""String ops (`tf.strings`) and TensorFlow's text rendering of tensor values.

Strings are object arrays of `bytes`. Kernels work on whole arrays: NumPy's object arithmetic (`a + b`
concatenates bytes elementwise) where it exists, otherwise `np.frompyfunc` over a bytes method.

Tensor values are rendered the way TensorFlow's C++ runtime renders them, in two layouts:
`summarize_v2` (used by `tf.strings.format` and `tf.print`: nested brackets, rows on separate lines,
the first and last `summarize` entries of every dimension around `...`) and `summarize_v1` (used by the
graph-mode `Assert` message: the first `summarize` entries in row-major order). Floats print with the
shortest of 6/9 (float) or 15/17 (double) significant digits that round-trips, like C's `%g`.
"""
import functools
import re

import numpy as np

from ..framework import errors
from ..framework.composite import CompositeTensor
from ..framework.context import state as _state
from ..framework.tensor import Tensor
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from .convert import convert_to_tensor, convert_n
from .infer import broadcast_shape, infer_unary
from .registry import OpDef, apply, constant_value, dtype_error_name

__all__ = ["format", "join", "length", "as_string", "to_number", "upper", "lower", "strip",
           "regex_replace", "regex_full_match", "substr", "summarize_v1", "summarize_v2", "unsorted_segment_join",
           "unicode_transcode"]

_OBJECT = np.dtype(object)


# -- rendering of single elements -------------------------------------------------------------------

def _float_text(value, short, long, tiny, narrow):
    """C's `%g` with the fewest digits (`short`, else `long`) that parse back to the same value."""
    if value != value:
        return "nan"
    if value != 0 and abs(value) < tiny:  # TensorFlow's CPU runtime flushes denormals to zero
        return "-0" if value < 0 else "0"
    text = "%.*g" % (short, value)
    if narrow(float(text)) != value:
        text = "%.*g" % (long, value)
    return text


def _float32_text(v):
    return _float_text(float(v), 6, 9, 1.1754943508222875e-38, np.float32)


def _float64_text(v):
    return _float_text(float(v), 15, 17, 2.2250738585072014e-308, float)


# C-style escapes; in TensorFlow's v2 layout bytes >= 0x80 pass through unescaped (UTF-8 stays readable).
_NAMED_ESCAPES = {ord("\n"): b"\\n", ord("\r"): b"\\r", ord("\t"): b"\\t", ord('"'): b'\\"',
                  ord("'"): b"\\'", ord("\\"): b"\\\\"}
_ESCAPE_UTF8_SAFE = re.compile(rb"[\x00-\x1f\x7f\"'\\]")
_ESCAPE_ALL = re.compile(rb"[\x00-\x1f\x7f-\xff\"'\\]")


def _escape_byte(match):
    c = match.group()[0]
    return _NAMED_ESCAPES.get(c) or b"\\%03o" % c


def _text(b):
    return b.decode("utf-8", "surrogateescape")


def _quoted_v2(b):
    return '"' + _text(_ESCAPE_UTF8_SAFE.sub(_escape_byte, b)) + '"'


def _escaped_v1(b):
    return _text(_ESCAPE_ALL.sub(_escape_byte, b))


_V2_STRING = np.frompyfunc(_quoted_v2, 1, 1)
_V1_STRING = np.frompyfunc(_escaped_v1, 1, 1)
_F32_TEXT = np.frompyfunc(_float32_text, 1, 1)
_F64_TEXT = np.frompyfunc(_float64_text, 1, 1)
_INT_TEXT = np.frompyfunc(str, 1, 1)


def _element_texts(arr, v2):
    """An object array (same shape) of the text of each element, as TensorFlow prints it."""
    return _object_array(_element_texts_raw(arr, v2), arr.shape)


def _element_texts_raw(arr, v2):
    kind = arr.dtype.kind
    if arr.dtype == _OBJECT:
        return (_V2_STRING if v2 else _V1_STRING)(arr)
    if kind == "b":
        return np.where(arr, "1", "0").astype(object)
    if kind in "iu":
        return _INT_TEXT(arr.astype(object))
    if kind == "c":
        return np.full(arr.shape, "?", dtype=object)
    with np.errstate(invalid="ignore"):  # NaN elements are rendered, not an error
        if arr.dtype == np.float64:
            return _F64_TEXT(arr)
        return _F32_TEXT(arr.astype(np.float32))  # half and bfloat16 print as float, like TensorFlow


def summarize_v2(value, summarize=3):
    """TensorFlow's `SummarizeValue(summarize, print_v2=true)` text of an array (a Python str)."""
    arr = np.asarray(value)
    size = arr.size
    limit = size if summarize is None or summarize < 0 else min(summarize, size)
    if arr.ndim == 0:
        return "..." if limit == 0 else _element_texts(arr, True)[()]
    shape = arr.shape
    # Format only the entries that will be shown: the first and last `limit` along every dimension.
    keep = [np.r_[0:min(limit, n), max(limit, n - limit):n] for n in shape]
    texts = _element_texts(arr[np.ix_(*keep)], True)
    rank = arr.ndim

    def render(sub, d):
        if d == rank:
            return sub
        n = shape[d]
        head = min(limit, n)
        spacing = " " if d == rank - 1 else "\n" * (rank - d - 1) + " " * (d + 1)
        pieces = [render(sub[i], d + 1) for i in range(head)]
        if n > 2 * limit:
            pieces.append("...")
        pieces += [render(sub[i], d + 1) for i in range(head, len(sub))]
        if head == 0 and n > 0:  # TensorFlow puts the spacing before "..." even when nothing precedes it
            return "[" + spacing + spacing.join(pieces) + "]"
        return "[" + spacing.join(pieces) + "]"

    return render(texts, 0)


def summarize_v1(value, summarize=3):
    """TensorFlow's `SummarizeValue(summarize)` text (the layout of graph-mode assertion messages):
    the first `summarize` entries in row-major order, then `...` if any were left out."""
    arr = np.asarray(value)
    size = arr.size
    limit = size if summarize is None or summarize < 0 else min(summarize, size)
    texts = _element_texts(arr.reshape(-1)[:limit], False)
    if arr.ndim <= 1:
        return " ".join(texts) + ("..." if size > limit else "")
    shape = arr.shape
    rank = arr.ndim
    state = {"next": 0, "stopped": False}

    def render(d, top):
        out = [] if top else ["["]
        for i in range(shape[d]):
            if state["next"] >= limit:
                out.append("...")
                state["stopped"] = True
                break
            if d == rank - 1:
                if i:
                    out.append(" ")
                out.append(texts[state["next"]])
                state["next"] += 1
            else:
                out.append(render(d + 1, False))
                if state["stopped"]:
                    break
        if not top:
            out.append("]")
        return "".join(out)

    return render(0, True)


# -- StringFormat ------------------------------------------------------------------------------------

def _string_format_kernel(*arrays, template, placeholder, summarize):
    pieces = template.split(placeholder)
    out = [pieces[0]]
    for arr, piece in zip(arrays, pieces[1:]):
        out.append(summarize_v2(arr, summarize))
        out.append(piece)
    return np.array("".join(out).encode("utf-8", "surrogateescape"), dtype=object)


def _infer_scalar_string(inputs, attrs):
    return [(_dt.string, TensorShape(()))]


STRING_FORMAT = OpDef("StringFormat", _infer_scalar_string, _string_format_kernel)


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001 - TF's name
    """`tf.strings.format`: `template` with each `placeholder` replaced by the text of one tensor."""
    if isinstance(inputs, (list, tuple)):
        tensors = [convert_to_tensor(t) for t in inputs]
    else:
        tensors = [convert_to_tensor(inputs)]
    if not isinstance(template, str):
        raise TypeError(f"`template` must be a Python string, got {type(template).__name__}.")
    expected = template.count(placeholder)
    if expected != len(tensors):
        raise ValueError(f"The template expects {expected} tensors, but the inputs only has {len(tensors)}. "
                         f"Please ensure the number of placeholders in template matches inputs length.")
    attrs = {"template": template, "placeholder": placeholder,
             "summarize": 3 if summarize is None else int(summarize)}
    return apply(STRING_FORMAT, tuple(tensors), attrs, name or "StringFormat")


# -- StringJoin --------------------------------------------------------------------------------------

def _join_kernel(*arrays, separator):
    shape = None
    for a in arrays:
        if a.ndim:
            if shape is not None and a.shape != shape:
                raise errors.InvalidArgumentError(
                    None, None, "Input shapes do not match: " + _dims(shape) + " vs. " + _dims(a.shape))
            shape = a.shape
    if not arrays:
        return np.array(b"", dtype=object)
    sep = separator.encode() if isinstance(separator, str) else separator
    # An object-array separator: a bare bytes scalar would become np.bytes_, which drops trailing NULs.
    sep = np.array(sep, dtype=object)
    result = arrays[0]
    for a in arrays[1:]:
        result = result + sep + a if sep else result + a
    return _object_array(result, shape or ())


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _object_array(value, shape):
    """Results of object arithmetic on 0-d arrays come back as bare bytes; keep them arrays."""
    if isinstance(value, np.ndarray):
        return value if value.shape == tuple(shape) else np.broadcast_to(value, shape).copy()
    out = np.empty((), dtype=object)
    out[()] = value
    return np.broadcast_to(out, shape).copy() if shape else out


def _infer_join(inputs, attrs):
    shape, unknown_rank = TensorShape(()), False
    for t in inputs:
        rank = t.shape.rank
        if rank == 0:
            continue
        if rank is None:
            unknown_rank = True
        elif shape.rank == 0:
            shape = t.shape
        elif not shape.is_compatible_with(t.shape):
            raise ValueError(f"Input shapes do not match: {shape} vs. {t.shape}")
        else:
            shape = shape.merge_with(t.shape)
    if unknown_rank and shape.rank == 0:
        shape = TensorShape(None)
    return [(_dt.string, shape)]


STRING_JOIN = OpDef("StringJoin", _infer_join, _join_kernel, input_names=("inputs",), list_input="inputs")


def _strings(value):
    """The string tensor for an argument: tensors pass (their kernel checks the dtype, as TensorFlow's
    does); Python values must be strings (TypeError otherwise)."""
    if isinstance(value, Tensor):
        return value
    return convert_to_tensor(value, dtype=_dt.string)


def join(inputs, separator="", name=None):
    """`tf.strings.join`: elementwise concatenation of string tensors (scalars broadcast)."""
    if isinstance(inputs, (str, bytes)):
        raise TypeError(f"Expected list for 'inputs' argument to 'string_join' Op, not {inputs!r}.")
    if not isinstance(inputs, (list, tuple)):
        inputs = list(convert_to_tensor(inputs))
    tensors = [convert_to_tensor(t, dtype=_dt.string) for t in inputs]
    return apply(STRING_JOIN, tuple(tensors), {"separator": separator}, name or "StringJoin")


# -- StringLength ------------------------------------------------------------------------------------

_NOT_CONTINUATION = bytes(range(0x80)) + bytes(range(0xC0, 0x100))
_BYTE_LEN = np.frompyfunc(len, 1, 1)
# A UTF-8 character starts at every byte that is not a continuation byte (0b10xxxxxx).
_CHAR_LEN = np.frompyfunc(lambda b: len(b) - len(b.translate(None, _NOT_CONTINUATION)), 1, 1)


def _string_check(op_name, arr):
    if arr.dtype != _OBJECT:
        raise errors.InvalidArgumentError(
            None, None, f"cannot compute {op_name} as input #0(zero-based) was expected to be a string tensor "
                        f"but is a {_dt.FROM_NUMPY[arr.dtype].name} tensor")


def _length_kernel(x, unit):
    _string_check("StringLength", x)
    counter = _BYTE_LEN if unit == "BYTE" else _CHAR_LEN
    return np.asarray(counter(x), dtype=object).astype(np.int32)


def _infer_length(inputs, attrs):
    return [(_dt.int32, inputs[0].shape)]


STRING_LENGTH = OpDef("StringLength", _infer_length, _length_kernel)
_UNITS = ("BYTE", "UTF8_CHAR")


def _check_unit(unit, op_name):
    if unit not in _UNITS:
        raise errors.InvalidArgumentError(
            None, op_name, f"Value for attr 'unit' of \"{unit}\" is not in the list of allowed values: "
                           f"\"BYTE\", \"UTF8_CHAR\"\n\t; NodeDef: {{{{node {op_name}}}}} [Op:{op_name}]")


def length(input, unit="BYTE", name=None):  # noqa: A002 - TensorFlow's argument name
    """`tf.strings.length`: the number of bytes (or UTF-8 characters) of each string."""
    _check_unit(unit, "StringLength")
    return apply(STRING_LENGTH, (_strings(input),), {"unit": unit}, name or "StringLength")


# -- AsString ----------------------------------------------------------------------------------------

_FILL_FLAGS = ("", " ", "+", "-", "0", "#")


def _as_string_kernel(x, precision, scientific, shortest, width, fill):
    dtype = _dt.FROM_NUMPY[x.dtype]
    kind = x.dtype.kind
    if len(fill) > 1:
        raise errors.InvalidArgumentError(None, None, "Fill string must be one or fewer characters")
    if scientific and shortest:
        raise errors.InvalidArgumentError(None, None, "Cannot select both scientific and shortest notation")
    if fill not in _FILL_FLAGS:
        raise errors.InvalidArgumentError(None, None, f'Fill argument not supported: "{fill}"')
    is_float = kind in "fc" or x.dtype == _dt.bfloat16._np
    if not is_float and (scientific or shortest):
        raise errors.InvalidArgumentError(
            None, None, f"scientific and shortest format not supported for datatype {dtype.name}")
    if not is_float and precision > -1:
        raise errors.InvalidArgumentError(None, None, f"precision not supported for datatype {dtype.name}")
    return _object_array(_render_printf(x, kind, is_float, precision, scientific, shortest, width, fill),
                         x.shape)


def _render_printf(x, kind, is_float, precision, scientific, shortest, width, fill):
    spec = "%" + fill + (str(width) if width > -1 else "")
    if kind == "b":
        return np.where(x, b"true", b"false").astype(object)
    if x.dtype == _OBJECT:
        fmt = (spec + "s").encode()
        return np.frompyfunc(lambda b: fmt % b, 1, 1)(x)
    if not is_float:
        fmt = spec + "d"
        return np.frompyfunc(lambda v: (fmt % v).encode(), 1, 1)(x.astype(object))
    spec += ("." + str(precision) if precision > -1 else "") + ("e" if scientific else "g" if shortest else "f")
    if kind == "c":
        fmt = "(" + spec + "," + spec + ")"
        return np.frompyfunc(lambda v: (fmt % (v.real, v.imag)).encode(), 1, 1)(x)
    values = x.astype(np.float64) if x.dtype != np.float64 else x
    return np.frompyfunc(lambda v: (spec % v).encode(), 1, 1)(values)


def _infer_as_string(inputs, attrs):
    return [(_dt.string, inputs[0].shape)]


AS_STRING = OpDef("AsString", _infer_as_string, _as_string_kernel)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """`tf.strings.as_string`: each element rendered with printf-style options."""
    x = convert_to_tensor(input)
    attrs = {"precision": int(precision), "scientific": bool(scientific), "shortest": bool(shortest),
             "width": int(width), "fill": fill}
    return apply(AS_STRING, (x,), attrs, name or "AsString")


# -- StringToNumber ----------------------------------------------------------------------------------

# What C's strtod accepts (decimal, hex floats, inf/nan words), with surrounding whitespace.
_FLOAT_SYNTAX = re.compile(rb"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan"
                           rb"|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?)\s*",
                           re.IGNORECASE)
_INT_SYNTAX = re.compile(rb"\s*[+-]?\d+\s*")
_OUT_TYPES = (_dt.float32, _dt.float64, _dt.int32, _dt.int64, _dt.uint32, _dt.uint64)


def _parse_float(b):
    if _FLOAT_SYNTAX.fullmatch(b) is None:
        return None
    text = b.strip().decode("ascii")
    body = text.lstrip("+-")
    if body[:2].lower() == "0x":
        value = float.fromhex(body)
        return -value if text.startswith("-") else value
    return float(text)


def _parse_int(b):
    return int(b) if _INT_SYNTAX.fullmatch(b) is not None else None


_PARSE_FLOAT = np.frompyfunc(_parse_float, 1, 1)
_PARSE_INT = np.frompyfunc(_parse_int, 1, 1)


def _to_number_kernel(x, out_type):
    _string_check("StringToNumber", x)
    floating = out_type.kind == "f"
    parsed = (_PARSE_FLOAT if floating else _PARSE_INT)(x)
    parsed = np.asarray(parsed, dtype=object)
    bad = np.equal(parsed, None)
    if not floating and not bad.all():
        info = np.iinfo(out_type)
        ok = ~bad
        values = parsed[ok]
        bad[ok] = (values < info.min) | (values > info.max)
    if bad.any():
        first = x.reshape(-1)[int(np.argmax(bad.reshape(-1)))]
        raise errors.InvalidArgumentError(
            None, None, f"StringToNumberOp could not correctly convert string: {_text(first)}")
    with np.errstate(over="ignore"):
        return parsed.astype(np.float64 if floating else object).astype(out_type)


def _infer_to_number(inputs, attrs):
    return [(_dt.FROM_NUMPY[attrs["out_type"]], inputs[0].shape)]


STRING_TO_NUMBER = OpDef("StringToNumber", _infer_to_number, _to_number_kernel)


def to_number(string_tensor, out_type=_dt.float32, name=None):
    """`tf.strings.to_number`: parses each string as a number of `out_type` (float32 by default)."""
    out = _dt.as_dtype(out_type)
    if out not in _OUT_TYPES:
        allowed = ", ".join({"float32": "float", "float64": "double"}.get(d.name, d.name) for d in _OUT_TYPES)
        shown = {"float16": "half"}.get(out.name, out.name)
        raise errors.InvalidArgumentError(
            None, "StringToNumber", f"Value for attr 'out_type' of {shown} is not in the list of allowed "
                                    f"values: {allowed}\n\t; NodeDef: {{{{node StringToNumber}}}} "
                                    f"[Op:StringToNumber]")
    x = _strings(string_tensor)
    return apply(STRING_TO_NUMBER, (x,), {"out_type": out._np}, name or "StringToNumber")


# -- case, strip -------------------------------------------------------------------------------------

def _case_kernel(method, op_name):
    ascii_op = np.frompyfunc(getattr(bytes, method), 1, 1)
    utf8_op = np.frompyfunc(
        lambda b: getattr(b.decode("utf-8", "surrogateescape"), method)().encode("utf-8", "surrogateescape"),
        1, 1)

    def kernel(x, encoding):
        _string_check(op_name, x)
        op = utf8_op if encoding.lower().replace("-", "") == "utf8" else ascii_op
        return _object_array(op(x), x.shape)
    return kernel


STRING_UPPER = OpDef("StringUpper", infer_unary, _case_kernel("upper", "StringUpper"))
STRING_LOWER = OpDef("StringLower", infer_unary, _case_kernel("lower", "StringLower"))


def upper(input, encoding="", name=None):  # noqa: A002
    """`tf.strings.upper`: ASCII upper case (full Unicode with `encoding="utf-8"`)."""
    return apply(STRING_UPPER, (_strings(input),), {"encoding": encoding}, name or "StringUpper")


def lower(input, encoding="", name=None):  # noqa: A002
    """`tf.strings.lower`: ASCII lower case (full Unicode with `encoding="utf-8"`)."""
    return apply(STRING_LOWER, (_strings(input),), {"encoding": encoding}, name or "StringLower")


_STRIP = np.frompyfunc(bytes.strip, 1, 1)


def _strip_kernel(x):
    _string_check("StringStrip", x)
    return _object_array(_STRIP(x), x.shape)


STRING_STRIP = OpDef("StringStrip", infer_unary, _strip_kernel)


def strip(input, name=None):  # noqa: A002
    """`tf.strings.strip`: removes leading and trailing whitespace."""
    return apply(STRING_STRIP, (_strings(input),), None, name or "StringStrip")


# -- regular expressions -----------------------------------------------------------------------------

_REWRITE_TOKEN = re.compile(rb"\\(\\|\d)")


def _compile(pattern, op_name):
    try:
        return re.compile(pattern)
    except re.error as e:
        p = _text(pattern)
        raise errors.InvalidArgumentError(None, None, f"Invalid pattern: {p}, error: {e}") from None


def _rewriter(rewrite):
    """RE2's rewrite syntax (`\\1`, `\\0` for the whole match, `\\\\`) as a replacement function."""
    parts = _REWRITE_TOKEN.split(rewrite)  # alternates literal text and escape payloads

    def replace(match):
        out = [parts[0]]
        for i in range(1, len(parts), 2):
            token = parts[i]
            out.append(b"\\" if token == b"\\" else (match.group(int(token)) or b""))
            out.append(parts[i + 1])
        return b"".join(out)
    return replace


def _as_bytes(value):
    return value.encode() if isinstance(value, str) else bytes(value)


def _static_regex_replace_kernel(x, pattern, rewrite, replace_global):
    regex = _compile(pattern, "StaticRegexReplace")
    replace = _rewriter(rewrite)
    count = 0 if replace_global else 1
    return _object_array(np.frompyfunc(lambda b: regex.sub(replace, b, count=count), 1, 1)(x), x.shape)


def _regex_replace_kernel(x, pattern, rewrite, replace_global):
    for what, arr in (("Pattern", pattern), ("Rewrite", rewrite)):
        if arr.ndim:
            raise errors.InvalidArgumentError(None, None, f"{what} must be scalar, but received "
                                                          f"{_dims(arr.shape)}")
    return _static_regex_replace_kernel(x, pattern[()], rewrite[()], replace_global)


STATIC_REGEX_REPLACE = OpDef("StaticRegexReplace", infer_unary, _static_regex_replace_kernel)
REGEX_REPLACE = OpDef("RegexReplace", infer_unary, _regex_replace_kernel)


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """`tf.strings.regex_replace`: replaces matches of `pattern` with `rewrite` (`\\1` refers to groups)."""
    x = _strings(input)
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        attrs = {"pattern": _as_bytes(pattern), "rewrite": _as_bytes(rewrite),
                 "replace_global": bool(replace_global)}
        return apply(STATIC_REGEX_REPLACE, (x,), attrs, name or "StaticRegexReplace")
    return apply(REGEX_REPLACE, (x, _strings(pattern), _strings(rewrite)),
                 {"replace_global": bool(replace_global)}, name or "RegexReplace")


def _full_match_kernel(x, pattern):
    regex = _compile(pattern, "StaticRegexFullMatch")
    return np.asarray(np.frompyfunc(lambda b: regex.fullmatch(b) is not None, 1, 1)(x), dtype=object) \
        .astype(np.bool_)


def _dynamic_full_match_kernel(x, pattern):
    if pattern.ndim:
        raise errors.InvalidArgumentError(None, None, "Pattern must be scalar, but received " +
                                          _dims(pattern.shape))
    return _full_match_kernel(x, pattern[()])


def _infer_match(inputs, attrs):
    return [(_dt.bool, inputs[0].shape)]


STATIC_REGEX_FULL_MATCH = OpDef("StaticRegexFullMatch", _infer_match, _full_match_kernel)
REGEX_FULL_MATCH = OpDef("RegexFullMatch", _infer_match, _dynamic_full_match_kernel)


def regex_full_match(input, pattern, name=None):  # noqa: A002
    """`tf.strings.regex_full_match`: whether each whole string matches `pattern`."""
    x = _strings(input)
    if isinstance(pattern, (str, bytes)):
        return apply(STATIC_REGEX_FULL_MATCH, (x,), {"pattern": _as_bytes(pattern)},
                     name or "StaticRegexFullMatch")
    return apply(REGEX_FULL_MATCH, (x, _strings(pattern)), None, name or "RegexFullMatch")


# -- Substr ------------------------------------------------------------------------------------------

def _utf8_chars(b):
    return b.decode("utf-8", "surrogateescape")


def _substr_kernel(x, pos, len, unit):  # noqa: A002 - TensorFlow's input name
    _string_check("Substr", x)
    if pos.shape != len.shape:
        raise errors.InvalidArgumentError(
            None, None, f"pos and len should have the same shape, got: {_dims(pos.shape)} vs. "
                        f"{_dims(len.shape)}")
    try:
        xs, ps, ls = np.broadcast_arrays(x, pos, len)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"Incompatible shapes: {_dims(x.shape)} vs. {_dims(pos.shape)}") from None
    texts = xs if unit == "BYTE" else np.frompyfunc(_utf8_chars, 1, 1)(xs)
    sizes = np.asarray(_BYTE_LEN(texts), dtype=object).astype(np.int64)
    bad = (ps > sizes) | (ps < -sizes)
    if bad.any():
        i = int(np.argmax(bad.reshape(-1)))
        raise errors.InvalidArgumentError(
            None, None, f"pos {ps.reshape(-1)[i]} out of range for string b'{_text(xs.reshape(-1)[i])}' "
                        f"at index {i}")
    starts = np.where(ps < 0, ps + sizes, ps)
    ends = starts + np.maximum(ls, 0)
    out = np.frompyfunc(lambda s, a, b: s[a:b], 3, 1)(texts, starts.astype(object), ends.astype(object))
    if unit != "BYTE":
        out = np.frompyfunc(lambda s: s.encode("utf-8", "surrogateescape"), 1, 1)(out)
    return _object_array(out, xs.shape)


def _infer_substr(inputs, attrs):
    return [(_dt.string, broadcast_shape(inputs[0].shape, inputs[1].shape))]


SUBSTR = OpDef("Substr", _infer_substr, _substr_kernel, input_names=("input", "pos", "len"))


def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002 - TensorFlow's argument names
    """`tf.strings.substr`: `len` bytes (or UTF-8 characters) starting at `pos` (negative: from the end)."""
    _check_unit(unit, "Substr")
    x = _strings(input)
    pos, len = convert_n([pos, len])
    graph = _state.graph is not None  # TensorFlow: TypeError while building a graph, else the kernel's error
    if pos.dtype not in (_dt.int32, _dt.int64):
        if graph:
            raise TypeError(f"Value passed to parameter 'pos' has DataType {pos.dtype.name} not in list of "
                            f"allowed values: int32, int64")
        raise errors.InvalidArgumentError(
            None, "Substr", f"Value for attr 'T' of {dtype_error_name(pos.dtype)} is not in the list of allowed "
                            f"values: int32, int64\n\t; NodeDef: {{{{node Substr}}}}")
    if len.dtype is not pos.dtype:  # pos and len share the attr T
        if graph:
            raise TypeError(f"Input 'len' of 'Substr' Op has type {len.dtype.name} that does not match type "
                            f"{pos.dtype.name} of argument 'pos'.")
        raise errors.InvalidArgumentError(
            None, "Substr", f"cannot compute Substr as input #2(zero-based) was expected to be a "
                            f"{dtype_error_name(pos.dtype)} tensor but is a {dtype_error_name(len.dtype)} tensor")
    return apply(SUBSTR, (x, pos, len), {"unit": unit}, name or "Substr")


# -- unsorted_segment_join, unicode_transcode -------------------------------------------------------------------

def _segment_join_kernel(inputs, segment_ids, num_segments, separator):
    num = int(num_segments)
    if segment_ids.shape != inputs.shape[:segment_ids.ndim]:
        raise errors.InvalidArgumentError(None, None, f"segment_ids.shape = {_dims(segment_ids.shape)} does not match "
                                          f"data.shape prefix {_dims(inputs.shape[:segment_ids.ndim])}")
    rows = inputs.reshape((-1,) + inputs.shape[segment_ids.ndim:])
    ids = segment_ids.reshape(-1)
    out = np.empty((num,) + rows.shape[1:], dtype=object)
    out.fill(b"")
    started = np.zeros(num, dtype=bool)
    for k, seg in enumerate(ids.tolist()):
        if seg < 0:
            continue
        if seg >= num:
            raise errors.InvalidArgumentError(None, None, f"segment_id[{k}] = {seg} is out of range [0, {num})")
        if started[seg]:
            out[seg] = out[seg] + separator + rows[k]
        else:
            out[seg] = rows[k] if rows.ndim == 1 else rows[k].copy()
            started[seg] = True
    return out


def _infer_segment_join(inputs, attrs):
    n = constant_num(inputs[2])
    inner = inputs[0].shape[inputs[1].shape.rank:] if inputs[0].shape.rank is not None and \
        inputs[1].shape.rank is not None else None
    return [(_dt.string, TensorShape(None) if inner is None else TensorShape([n]).concatenate(inner))]


def constant_num(t):
    v = constant_value(t)
    return None if v is None else int(v)


UNSORTED_SEGMENT_JOIN = OpDef("UnsortedSegmentJoin", _infer_segment_join, _segment_join_kernel,
                              input_names=("inputs", "segment_ids", "num_segments"))


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """`tf.strings.unsorted_segment_join`: the strings of each segment joined (in input order) by `separator`;
    segments nothing maps to are empty strings."""
    x = _strings(inputs)
    ids = convert_to_tensor(segment_ids)
    num = convert_to_tensor(num_segments)
    sep = separator if isinstance(separator, bytes) else str(separator).encode()
    return apply(UNSORTED_SEGMENT_JOIN, (x, ids, num), {"separator": sep}, name or "UnsortedSegmentJoin")


_ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be", "US-ASCII": "ascii",
              "ISO-8859-1": "latin-1"}


def _transcode_kernel(x, input_encoding, output_encoding, errors, replacement_char):
    source, target = _ENCODINGS[input_encoding], _ENCODINGS[output_encoding]
    handler = {"replace": "replace", "ignore": "ignore", "strict": "strict"}[errors]

    def one(b):
        text = b.decode(source, handler)
        if handler == "replace" and replacement_char != 0xFFFD:
            text = text.replace("\ufffd", chr(replacement_char))
        return text.encode(target, handler)
    try:
        return _object_array(np.frompyfunc(one, 1, 1)(x), x.shape)
    except UnicodeError as e:
        raise errors.InvalidArgumentError(None, None, f"Invalid formatting on input string: {e}") from None


UNICODE_TRANSCODE = OpDef("UnicodeTranscode", infer_unary, _transcode_kernel, input_names=("input",))


def unicode_transcode(input, input_encoding, output_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                      replace_control_characters=False, name=None):
    """`tf.strings.unicode_transcode`: each string re-encoded from `input_encoding` to `output_encoding`."""
    for what, enc in (("input_encoding", input_encoding), ("output_encoding", output_encoding)):
        if enc not in _ENCODINGS:
            raise errors.InvalidArgumentError(None, None, f"Could not create converter for {what} encoding: {enc}")
    return apply(UNICODE_TRANSCODE, (_strings(input),), {"input_encoding": input_encoding,
                 "output_encoding": output_encoding, "errors": errors, "replacement_char": int(replacement_char)},
                 name or "UnicodeTranscode")


# -- ragged inputs ----------------------------------------------------------------------------------------------

def _on_flat_values(fn):
    """The element-wise string ops accept a RaggedTensor too (TensorFlow's dispatch): the op runs on its flat
    values and the result keeps its row partition. (RaggedTensor lives in a room above this module; it is
    recognised as a composite that has flat values.)"""
    @functools.wraps(fn)
    def wrapper(input, *args, **kwargs):  # noqa: A002
        if isinstance(input, CompositeTensor) and hasattr(input, "with_flat_values"):
            return input.with_flat_values(fn(input.flat_values, *args, **kwargs))
        return fn(input, *args, **kwargs)
    return wrapper


length, as_string, upper, lower, strip, regex_replace, regex_full_match, substr, unicode_transcode, to_number = (
    _on_flat_values(f) for f in (length, as_string, upper, lower, strip, regex_replace, regex_full_match, substr,
                                 unicode_transcode, to_number))


API = {
    "strings": ["format", "join", "length", "as_string", "to_number", "upper", "lower", "strip",
                "regex_replace", "regex_full_match", "substr", "unsorted_segment_join", "unicode_transcode"],
    "": ["as_string"],
}
