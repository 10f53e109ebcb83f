"""`tf.io.decode_csv` (the DecodeCSV op): each string of `records` split into fields, each field parsed as
its column's dtype (int32, int64, float32, float64 or string) or taken from the column's default when
empty, with TensorFlow's quoting rules and error messages.

Quoting (`use_quote_delim`): a field that starts with '"' runs to the next lone '"', may hold the
delimiter, and writes '"' as '""'.
"""
import numpy as np

from ..framework import errors
from ..framework.tensor import Tensor
from ..ops.convert import convert_to_tensor
from ..ops.registry import OpDef, apply, dtype_error_name
from ..types import dtypes as _dt
from ..types.shape import TensorShape

_CSV_TYPES = (_dt.float32, _dt.float64, _dt.int32, _dt.int64, _dt.string)
_INT_LIMITS = {_dt.int32: (-2 ** 31, 2 ** 31 - 1), _dt.int64: (-2 ** 63, 2 ** 63 - 1)}


def _bad(message):
    return errors.InvalidArgumentError(None, None, message)


def _split(record, delim, use_quote, index):
    """The fields of one record (bytes), with TensorFlow's quote handling."""
    fields = []
    i, n = 0, len(record)
    if n == 0:
        return [b""]
    while i <= n:
        if use_quote and i < n and record[i:i + 1] == b'"':
            value = bytearray()
            i += 1
            while True:
                if i >= n:
                    raise _bad(f"Quoted field has to end with quote followed by delim or end of record {index}")
                if record[i:i + 1] == b'"':
                    if record[i + 1:i + 2] == b'"':
                        value += b'"'
                        i += 2
                        continue
                    i += 1
                    break
                value += record[i:i + 1]
                i += 1
            if i < n and record[i:i + 1] != delim:
                raise _bad(f"Quoted field has to end with quote followed by delim or end of record {index}")
            fields.append(bytes(value))
            i += 1
        else:
            end = record.find(delim, i)
            end = n if end < 0 else end
            field = record[i:end]
            if use_quote and b'"' in field:
                raise _bad(f"Unquoted fields cannot have quotes inside of record {index}")
            fields.append(field)
            i = end + 1
    return fields


def _parse(text, dtype, field, record):
    name = dtype_error_name(dtype)
    try:
        if b"_" in text or text != text.strip():  # Python's int()/float() accept these; TensorFlow does not
            raise ValueError
        if dtype.is_integer:
            value = int(text, 10)
            low, high = _INT_LIMITS[dtype]
            if not low <= value <= high:
                raise ValueError
            return value
        return float(text)
    except ValueError:
        raise _bad(f"Field {field} in record {record} is not a valid {name}: {text.decode(errors='replace')}") \
            from None


def _decode_csv_kernel(records, *defaults, OUT_TYPE=(), field_delim=",", use_quote_delim=True, na_value="",
                       select_cols=()):  # noqa: N803 - TensorFlow's attr name
    delim = field_delim.encode() if isinstance(field_delim, str) else field_delim
    na = na_value.encode() if isinstance(na_value, str) else na_value
    select = list(select_cols)
    flat = [r if isinstance(r, bytes) else str(r).encode() for r in records.reshape(-1)]
    columns = [[] for _ in OUT_TYPE]
    for index, record in enumerate(flat):
        fields = _split(record, delim, use_quote_delim, index)
        if select:
            if len(fields) <= select[-1]:
                raise _bad(f"Expect {len(OUT_TYPE)} fields but have {len(fields)} in record {index}")
            fields = [fields[c] for c in select]
        elif len(fields) != len(OUT_TYPE):
            raise _bad(f"Expect {len(OUT_TYPE)} fields but have {len(fields)} in record {index}")
        for f, (text, dtype, default) in enumerate(zip(fields, OUT_TYPE, defaults)):
            if text == b"" or (na and text == na):
                if default.size == 0:
                    raise _bad(f"Field {f} is required but missing in record {index}!")
                value = default.reshape(-1)[0]
                columns[f].append(value if dtype is not _dt.string else
                                  (value if isinstance(value, bytes) else str(value).encode()))
            else:
                columns[f].append(text if dtype is _dt.string else _parse(text, dtype, f, index))
    outputs = []
    for values, dtype in zip(columns, OUT_TYPE):
        array = np.array(values, dtype=object if dtype is _dt.string else dtype._np)
        outputs.append(array.reshape(records.shape))
    return tuple(outputs)


def _infer_decode_csv(inputs, attrs):
    records = inputs[0]
    for i, default in enumerate(inputs[1:]):
        rank = default.shape.rank
        if rank is not None and rank > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {rank} for 'DecodeCSV' (record_defaults[{i}])")
    return [(dtype, records.shape) for dtype in attrs["OUT_TYPE"]]


DECODE_CSV = OpDef("DecodeCSV", _infer_decode_csv, _decode_csv_kernel, allowed=(_dt.string,),
                   input_names=("records", "record_defaults"), multi=True)


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None, na_value="",
               select_cols=None):
    """`tf.io.decode_csv`: one tensor per column, shaped like `records`; `record_defaults[i]` gives column
    i's dtype and its value for empty fields (an empty default makes the field required)."""
    records = records if isinstance(records, Tensor) else convert_to_tensor(records, dtype=_dt.string)
    if select_cols is not None:
        select_cols = [int(c) for c in select_cols]
        if any(b <= a for a, b in zip(select_cols, select_cols[1:])) or (select_cols and select_cols[0] < 0):
            raise ValueError("select_cols is not strictly increasing.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    defaults = []
    for d in record_defaults:
        t = d if isinstance(d, Tensor) else convert_to_tensor(d)
        if t.dtype not in _CSV_TYPES:
            raise TypeError(f"Value for attr 'OUT_TYPE' of {t.dtype.name} is not in the list of allowed values: "
                            "float, double, int32, int64, string")
        defaults.append(t)
    if isinstance(field_delim, str) and len(field_delim.encode()) != 1:
        raise errors.InvalidArgumentError(None, "DecodeCSV", "field_delim should be only 1 char")
    attrs = {"OUT_TYPE": tuple(t.dtype for t in defaults), "field_delim": field_delim,
             "use_quote_delim": bool(use_quote_delim), "na_value": na_value, "select_cols": tuple(select_cols or ())}
    out = apply(DECODE_CSV, (records, *defaults), attrs, name or "DecodeCSV")
    return list(out)


API = {"io": ["decode_csv"]}
