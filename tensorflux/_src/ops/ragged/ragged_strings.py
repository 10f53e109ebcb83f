"""The tf.strings ops whose results are ragged: `split`, `bytes_split`, `unicode_split`, `unicode_decode`,
`unicode_encode`, their `_with_offsets` forms, `ngrams` and `reduce_join` (ragged or dense input).

They live here, not in ops/strings.py, because that module sits below the ragged room. Each one works on
the innermost dimension: an input of rank r gives a result of rank r + 1 whose last dimension is ragged
(a scalar input gives a plain tensor). Kernels use Python's own UTF-8 codec; invalid bytes are replaced
by U+FFFD (`errors="replace"`, TensorFlow's default), skipped (`"ignore"`) or refused (`"strict"`).
"""
import numpy as np

from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply
from ..shapes.common import bad
from .ragged_tensor import RaggedTensor, is_ragged


def _strings():
    """ops/strings.py, imported on first use (tf.strings is a lazy room: namespaces.LAZY_ROOMS)."""
    from .. import strings
    return strings


__all__ = ["split", "bytes_split", "unicode_split", "unicode_decode", "unicode_encode", "unicode_decode_with_offsets",
           "unicode_split_with_offsets", "ngrams", "reduce_join"]

API = {"strings": ["split", "bytes_split", "unicode_split", "unicode_decode", "unicode_encode",
                   "unicode_decode_with_offsets", "unicode_split_with_offsets", "ngrams", "reduce_join"]}

_REPLACEMENT = 0xFFFD


def _bytes_of(x):
    return x if isinstance(x, bytes) else str(x).encode()


def _splits_of(lengths):
    return np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(np.int64)


def _object_array(items):
    out = np.empty(len(items), dtype=object)
    out[:] = items if items else []
    return out


def _on_innermost(flat_op, x):
    """Applies a rows-producing op to every string of `x` (a scalar, a tensor, or a RaggedTensor): the
    result gets one more, ragged, dimension."""
    if is_ragged(x):
        return x.with_flat_values(_on_innermost(flat_op, x.flat_values))
    x = convert_to_tensor(x)
    rank = x.shape.rank
    if rank == 0:
        rt = flat_op(_reshape(x, [1]))
        return rt.values
    if rank == 1:
        return flat_op(x)
    return _nest_uniform(flat_op(_reshape(x, [-1])), x)


def _reshape(x, shape):
    from ..shapes import shaping
    return shaping.reshape(x, shape)


def _nest_uniform(rt, dense):
    """`rt` (one row per element of `dense`, in row-major order) regrouped by `dense`'s dimensions."""
    from ..shapes import shape_ops
    from ..shapes import creators
    from ..math import reduce
    shape = shape_ops.shape(dense, out_type=_dt.int64)
    result = rt
    for axis in range(dense.shape.rank - 1, 0, -1):
        rows = reduce.reduce_prod(shape[:axis])
        result = RaggedTensor.from_row_splits(result, creators.range(rows + 1, dtype=_dt.int64) * shape[axis],
                                              validate=False)
    return result


# -- split ------------------------------------------------------------------------------------------------------

def _split_kernel(x, sep, maxsplit):
    pieces = []
    for s in x.reshape(-1).tolist():
        s = _bytes_of(s)
        if sep == b"":
            parts = s.split(None, maxsplit) if maxsplit >= 0 else s.split()
        else:
            parts = s.split(sep, maxsplit) if maxsplit >= 0 else s.split(sep)
        pieces.append(parts)
    values = _object_array([p for parts in pieces for p in parts])
    return _splits_of([len(p) for p in pieces]), values


def _rows_infer(dtype):
    def infer(inputs, attrs):
        return [(_dt.int64, TensorShape([None])), (dtype, TensorShape([None]))]
    return infer


STRING_SPLIT = OpDef("StringSplitV2", _rows_infer(_dt.string), _split_kernel, multi=True, input_names=("input",))


def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002 - TensorFlow's argument name
    """`tf.strings.split`: each string split at `sep` (runs of whitespace when None); one more dimension,
    ragged (a scalar gives a vector)."""
    separator = b"" if sep is None else _bytes_of(sep)

    def rows(flat):
        splits, values = apply(STRING_SPLIT, (_strings()._strings(flat),), {"sep": separator, "maxsplit": int(maxsplit)},
                               name or "StringSplitV2")
        return RaggedTensor._make(values, splits)
    return _on_innermost(rows, input)


def _bytes_kernel(x):
    pieces = [[bytes([b]) for b in _bytes_of(s)] for s in x.reshape(-1).tolist()]
    return _splits_of([len(p) for p in pieces]), _object_array([p for parts in pieces for p in parts])


BYTES_SPLIT = OpDef("BytesSplit", _rows_infer(_dt.string), _bytes_kernel, multi=True, input_names=("input",))


def bytes_split(input, name=None):  # noqa: A002
    """`tf.strings.bytes_split`: each string as its single bytes."""
    def rows(flat):
        splits, values = apply(BYTES_SPLIT, (_strings()._strings(flat),), None, name or "BytesSplit")
        return RaggedTensor._make(values, splits)
    return _on_innermost(rows, input)


# -- unicode decode / encode ----------------------------------------------------------------------------------------

_CODECS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}


def _codec(encoding, what):
    name = _CODECS.get(str(encoding).upper())
    if name is None:
        raise bad(f"{what} must be one of UTF-8, UTF-16-BE, UTF-32-BE; got {encoding}")
    return name


def _decode_one(data, codec, errors, replacement):
    """(code points, byte offsets) of one string."""
    points, offsets, i = [], [], 0
    unit = 1 if codec == "utf-8" else (2 if codec == "utf-16-be" else 4)
    decoder_errors = "strict"
    while i < len(data):
        # the longest valid character starting at i (UTF-8 up to 4 bytes; UTF-16 surrogate pairs 4)
        for size in ((1, 2, 3, 4) if unit == 1 else (unit, 2 * unit)):
            try:
                ch = data[i:i + size].decode(codec, decoder_errors)
            except UnicodeDecodeError:
                continue
            if len(ch) == 1:
                points.append(ord(ch))
                offsets.append(i)
                i += size
                break
        else:
            if errors == "strict":
                raise bad(f"Invalid formatting on input string")
            if errors == "replace":
                points.append(replacement)
                offsets.append(i)
            i += unit if unit > 1 else 1
    return points, offsets


def _decode_kernel(x, input_encoding, errors, replacement_char, with_offsets):
    codec = _codec(input_encoding, "input_encoding")
    rows, all_offsets = [], []
    for s in x.reshape(-1).tolist():
        points, offsets = _decode_one(_bytes_of(s), codec, errors, replacement_char)
        rows.append(points)
        all_offsets.append(offsets)
    splits = _splits_of([len(r) for r in rows])
    values = np.asarray([p for r in rows for p in r], dtype=np.int32)
    if with_offsets:
        return splits, values, np.asarray([o for r in all_offsets for o in r], dtype=np.int64)
    return splits, values


def _decode_infer(inputs, attrs):
    out = [(_dt.int64, TensorShape([None])), (_dt.int32, TensorShape([None]))]
    return out + [(_dt.int64, TensorShape([None]))] if attrs["with_offsets"] else out


UNICODE_DECODE = OpDef("UnicodeDecodeWithOffsets", _decode_infer, _decode_kernel, multi=True, input_names=("input",))


def _decode(input, input_encoding, errors, replacement_char, with_offsets, name):  # noqa: A002
    if errors not in ("replace", "ignore", "strict"):
        raise ValueError(f"errors must be one of 'strict', 'replace' or 'ignore', got {errors!r}")
    attrs = {"input_encoding": input_encoding, "errors": errors, "replacement_char": int(replacement_char),
             "with_offsets": with_offsets}
    offsets_box = []

    def rows(flat):
        outs = apply(UNICODE_DECODE, (_strings()._strings(flat),), attrs, name or "UnicodeDecodeWithOffsets")
        if with_offsets:
            offsets_box.append(RaggedTensor._make(outs[2], outs[0]))
        return RaggedTensor._make(outs[1], outs[0])
    chars = _on_innermost(rows, input)
    if not with_offsets:
        return chars
    offsets = chars.with_flat_values(offsets_box[0].values) if is_ragged(chars) else offsets_box[0].values
    return chars, offsets


def unicode_decode(input, input_encoding, errors="replace", replacement_char=0xFFFD,  # noqa: A002
                   replace_control_characters=False, name=None):
    """`tf.strings.unicode_decode`: each string's code points (int32)."""
    return _decode(input, input_encoding, errors, replacement_char, False, name)


def unicode_decode_with_offsets(input, input_encoding, errors="replace", replacement_char=0xFFFD,  # noqa: A002
                                replace_control_characters=False, name=None):
    """`tf.strings.unicode_decode_with_offsets`: code points and the byte offset where each starts."""
    return _decode(input, input_encoding, errors, replacement_char, True, name)


def _encode_kernel(values, splits, output_encoding, errors, replacement_char):
    codec = _codec(output_encoding, "output_encoding")
    out = []
    for i in range(len(splits) - 1):
        chars = []
        for p in values[splits[i]:splits[i + 1]].tolist():
            if 0 <= p <= 0x10FFFF and not 0xD800 <= p <= 0xDFFF:
                chars.append(chr(p))
            elif errors == "strict":
                raise bad(f"Invalid code point {p}")
            elif errors == "replace":
                chars.append(chr(replacement_char))
        out.append("".join(chars).encode(codec))
    return _object_array(out)


UNICODE_ENCODE = OpDef("UnicodeEncode", lambda inputs, attrs: [(_dt.string, TensorShape([None]))], _encode_kernel,
                       input_names=("input_values", "input_splits"))


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """`tf.strings.unicode_encode`: code points (innermost dimension, ragged or not) joined into strings."""
    attrs = {"output_encoding": output_encoding, "errors": errors, "replacement_char": int(replacement_char)}
    if is_ragged(input):
        if is_ragged(input.values):
            return input.with_values(unicode_encode(input.values, output_encoding, errors, replacement_char))
        return apply(UNICODE_ENCODE, (convert_to_tensor(input.values, dtype=_dt.int32), input.row_splits), attrs,
                     name or "UnicodeEncode")
    x = convert_to_tensor(input, dtype=_dt.int32)
    if x.shape.rank == 0:
        raise ValueError("Rank of input must be at least 1")
    if x.shape.rank == 1:
        n = x.shape[0]
        splits = convert_to_tensor(np.asarray([0, n], np.int64)) if n is not None else None
        return _reshape(apply(UNICODE_ENCODE, (x, splits), attrs, name or "UnicodeEncode"), [])
    return unicode_encode(RaggedTensor.from_tensor(x, ragged_rank=x.shape.rank - 1), output_encoding, errors,
                          replacement_char, name)


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """`tf.strings.unicode_split`: each string as its characters (each a string of one code point)."""
    return _chars(unicode_decode(input, input_encoding, errors, replacement_char), input_encoding)


def unicode_split_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                               name=None):
    """`tf.strings.unicode_split_with_offsets`: the characters and the byte offset where each starts."""
    codes, offsets = unicode_decode_with_offsets(input, input_encoding, errors, replacement_char)
    return _chars(codes, input_encoding), offsets


def _chars(codes, encoding):
    flat = codes.flat_values if is_ragged(codes) else codes
    from ..shapes import shape_ops, creators
    n = shape_ops.size(flat, out_type=_dt.int64)
    one_each = apply(UNICODE_ENCODE, (flat, creators.range(n + 1, dtype=_dt.int64)),
                     {"output_encoding": encoding, "errors": "replace", "replacement_char": _REPLACEMENT},
                     "UnicodeEncode")
    return codes.with_flat_values(one_each) if is_ragged(codes) else one_each


# -- ngrams, reduce_join -----------------------------------------------------------------------------------------------

def _ngrams_kernel(data, splits, separator, widths, left_pad, right_pad, pad_width, preserve_short):
    out, lengths = [], []
    for i in range(len(splits) - 1):
        row = [_bytes_of(v) for v in data[splits[i]:splits[i + 1]].tolist()]
        made = []
        for n in widths:
            pad = n - 1 if pad_width < 0 else min(pad_width, n - 1)
            padded = [left_pad] * pad + row + [right_pad] * pad
            count = len(padded) - n + 1
            if count <= 0 and preserve_short and row:
                made.append(separator.join(padded))
                continue
            made.extend(separator.join(padded[k:k + n]) for k in range(max(count, 0)))
        out.extend(made)
        lengths.append(len(made))
    return _splits_of(lengths), _object_array(out)


STRING_NGRAMS = OpDef("StringNGrams", _rows_infer(_dt.string), _ngrams_kernel, multi=True,
                      input_names=("data", "data_splits"))


def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None, preserve_short_sequences=False,
           name=None):
    """`tf.strings.ngrams`: the n-grams of the innermost dimension (each width of `ngram_width`), joined by
    `separator`; `pad_values` (left, right) pad each sequence by `padding_width` (n - 1 by default)."""
    widths = (ngram_width,) if isinstance(ngram_width, int) else tuple(ngram_width)
    if any(w <= 0 for w in widths):
        raise ValueError(f"All ngram_widths must be greater than 0. Got {list(widths)}")
    if pad_values is None:
        left = right = b""
        pad_width = 0
    else:
        left, right = (pad_values, pad_values) if isinstance(pad_values, (str, bytes)) else pad_values
        left, right = _bytes_of(left), _bytes_of(right)
        pad_width = -1 if padding_width is None else int(padding_width)
        if padding_width is not None and padding_width < 1:
            raise ValueError(f"padding_width must be greater than 0. Got {padding_width}")
    attrs = {"separator": _bytes_of(separator), "widths": widths, "left_pad": left, "right_pad": right,
             "pad_width": pad_width, "preserve_short": bool(preserve_short_sequences)}
    if is_ragged(data):
        if is_ragged(data.values):
            return data.with_values(ngrams(data.values, ngram_width, separator, pad_values, padding_width,
                                           preserve_short_sequences, name))
        splits, values = apply(STRING_NGRAMS, (data.values, data.row_splits), attrs, name or "StringNGrams")
        return RaggedTensor._make(values, splits)
    data = convert_to_tensor(data)
    if data.shape.rank == 1:
        n = data.shape[0]
        splits = convert_to_tensor(np.asarray([0, n], np.int64))
        return apply(STRING_NGRAMS, (data, splits), attrs, name or "StringNGrams")[1]
    if data.shape.rank == 0:
        raise ValueError("Data must have rank>0")
    return ngrams(RaggedTensor.from_tensor(data, ragged_rank=data.shape.rank - 1), ngram_width, separator,
                  pad_values, padding_width, preserve_short_sequences, name).to_tensor()


def _row_join_kernel(values, splits, separator):
    return _object_array([separator.join(_bytes_of(v) for v in values[splits[i]:splits[i + 1]].tolist())
                          for i in range(len(splits) - 1)])


ROW_JOIN = OpDef("RaggedReduceJoin", lambda inputs, attrs: [(_dt.string, TensorShape([None]))], _row_join_kernel,
                 input_names=("values", "splits"))


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """`tf.strings.reduce_join`: strings joined along `axis` (all of them when None)."""
    sep = _bytes_of(separator)
    if is_ragged(inputs):
        rank = inputs.shape.rank
        a = None if axis is None else (axis + rank if axis < 0 else axis)
        if a is None:
            return reduce_join(inputs.flat_values, None, keepdims, separator)
        if a == rank - 1 and inputs.ragged_rank == rank - 1:
            inner = inputs
            path = []
            while is_ragged(inner.values):
                path.append(inner)
                inner = inner.values
            joined = apply(ROW_JOIN, (inner.values, inner.row_splits), {"separator": sep}, name or "ReduceJoin")
            for outer in reversed(path):
                joined = RaggedTensor._make(joined, outer.row_splits)
            return joined
        raise ValueError("tf.strings.reduce_join of a RaggedTensor supports axis=None or the innermost axis")
    x = convert_to_tensor(inputs)
    rank = x.shape.rank
    axes = list(range(rank)) if axis is None else ([axis] if isinstance(axis, int) else list(axis))
    axes = sorted(a + rank if a < 0 else a for a in axes)
    result = x
    for a in reversed(axes):
        moved = _move_last(result, a)
        n = moved.shape[-1]
        rows = _reshape(moved, [-1, n if n is not None else -1])
        from ..shapes import shape_ops, creators
        count = shape_ops.shape(rows, out_type=_dt.int64)
        splits = creators.range(count[0] + 1, dtype=_dt.int64) * count[1]
        joined = apply(ROW_JOIN, (_reshape(rows, [-1]), splits), {"separator": sep}, name or "ReduceJoin")
        kept = shape_ops.shape(moved, out_type=_dt.int64)[:-1]
        result = _reshape(joined, kept)
        if keepdims:
            from ..shapes import shaping
            result = shaping.expand_dims(result, a)
    return result


def _move_last(x, axis):
    rank = x.shape.rank
    if axis == rank - 1:
        return x
    from ..array import reorder
    return reorder.transpose(x, [d for d in range(rank) if d != axis] + [axis])
