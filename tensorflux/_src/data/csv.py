"""CSV files as datasets: `tf.data.experimental.CsvDataset` (one tuple of scalars per record, typed by
`record_defaults`) and `tf.data.experimental.make_csv_dataset` (batches of `(features dict, label)`, column
types inferred from the first rows).

A field is parsed by the type of its column: int32/int64 from decimal integers, float32/float64 from
decimals, strings as bytes. An empty field (or one equal to `na_value`) takes the column's default; a
column declared by a dtype alone has none, and an empty field there raises InvalidArgumentError as
TensorFlow's reader does. Files are read when the dataset is iterated; fields are only ever parsed as
numbers or kept as bytes.
"""
import collections
import csv
import io
import os

import numpy as np

from ..framework.errors import InvalidArgumentError
from ..framework.tensor import Tensor
from ..io import gfile as io_ops
from ..types import dtypes as _dt
from ..types.spec import TensorSpec
from .dataset import Dataset
from .readers import _strings

__all__ = ["CsvDataset", "make_csv_dataset"]

_NO_DEFAULT = object()
_ALLOWED = (_dt.int32, _dt.int64, _dt.float32, _dt.float64, _dt.string)


def _column(default):
    """(dtype, default value or _NO_DEFAULT) for one entry of `record_defaults`."""
    if isinstance(default, _dt.DType):
        dtype, value = default, _NO_DEFAULT
    elif isinstance(default, type):
        raise TypeError(f"record_defaults entries must be dtypes or values, got the type {default!r}")
    elif isinstance(default, np.generic) and default.dtype.kind in "if":
        dtype, value = _dt.as_dtype(default.dtype), default
    else:
        array = np.asarray(default.numpy() if isinstance(default, Tensor) else default)
        if array.size == 0:
            dtype = _dt.as_dtype(getattr(default, "dtype", _dt.float32))
            value = _NO_DEFAULT
        else:
            value = array.reshape(-1)[0]
            if isinstance(default, Tensor):
                dtype = default.dtype
            elif array.dtype.kind in "USO":
                dtype = _dt.string
            elif array.dtype.kind == "f":
                dtype = _dt.float32
            else:
                dtype = _dt.int32
    if dtype not in _ALLOWED:
        raise TypeError(f"CsvDataset columns must be int32, int64, float32, float64 or string; got {dtype!r}")
    return dtype, value


def _parse(field, dtype, default, row, col):
    if field == "" or field is None:
        if default is _NO_DEFAULT:
            raise InvalidArgumentError(None, None, f"Field {col} is required but missing in record {row}!")
        field = default
        if dtype == _dt.string:
            return np.array(field if isinstance(field, bytes) else str(field).encode(), dtype=object)
        return np.asarray(field, dtype=dtype.as_numpy_dtype)
    if dtype == _dt.string:
        return np.array(field.encode(), dtype=object)
    try:
        number = int(field) if dtype.is_integer else float(field)
    except ValueError:
        kind = "int" if dtype.is_integer else "float"
        raise InvalidArgumentError(None, None, f"Field {col} in record {row} is not a valid {kind}: {field}") \
            from None
    return np.asarray(number, dtype=dtype.as_numpy_dtype)


def _records(path, delimiter, use_quote_delim, header):
    """The rows of one CSV file as lists of strings (the header row skipped when there is one)."""
    text = io_ops.read_local_file(os.fsdecode(path)).decode("utf-8")
    reader = csv.reader(io.StringIO(text), delimiter=delimiter,
                        quoting=csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE)
    rows = (row for row in reader if row)
    if header:
        next(rows, None)
    return rows


def CsvDataset(filenames, record_defaults, compression_type=None, buffer_size=None, header=False,
               field_delim=",", use_quote_delim=True, na_value="", select_cols=None, exclude_cols=None,
               name=None):
    """The records of the CSV files as tuples of scalars, one entry per (selected) column."""
    if compression_type not in (None, ""):
        raise NotImplementedError(f"CsvDataset reads uncompressed files only; compression_type="
                                  f"{compression_type!r} is not supported.")
    if select_cols is not None and exclude_cols is not None:
        raise ValueError("Either select_cols or exclude_cols should be set, but not both.")
    paths = _strings(filenames, "filenames")
    columns = [_column(d) for d in record_defaults]
    if select_cols is not None:
        select_cols = [int(c) for c in select_cols]
        if select_cols != sorted(set(select_cols)) or (select_cols and select_cols[0] < 0):
            raise InvalidArgumentError(None, None, "select_cols is not strictly increasing.")
        if len(select_cols) != len(columns):
            raise InvalidArgumentError(None, None, "Expected len(select_cols) == len(record_defaults): "
                                                   f"{len(select_cols)} vs {len(columns)}")
    spec = tuple(TensorSpec([], dtype) for dtype, _ in columns)

    def arrays():
        for path in paths:
            for number, row in enumerate(_records(path, field_delim, use_quote_delim, header)):
                if exclude_cols is not None:
                    row = [f for i, f in enumerate(row) if i not in set(exclude_cols)]
                fields = [row[i] if i < len(row) else "" for i in select_cols] if select_cols is not None else row
                if len(fields) != len(columns):
                    raise InvalidArgumentError(None, None, f"Expect {len(columns)} fields but have {len(fields)} "
                                                           f"in record {number}")
                yield [_parse(None if f == na_value and na_value else f, dtype, default, number, i)
                       for i, (f, (dtype, default)) in enumerate(zip(fields, columns))]

    return Dataset(spec, arrays, "CsvDatasetV2")


def _infer_type(values):
    """The narrowest of int32, int64, float32, string that parses every non-empty value (TensorFlow's rule)."""
    kind = _dt.int32
    for value in values:
        if value == "":
            continue
        try:
            number = int(value)
            if kind == _dt.int32 and not -2 ** 31 <= number < 2 ** 31:
                kind = _dt.int64
            continue
        except ValueError:
            pass
        try:
            float(value)
            kind = _dt.float32 if kind in (_dt.int32, _dt.int64, _dt.float32) else kind
        except ValueError:
            return _dt.string
    return kind


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None, label_name=None,
                     select_columns=None, field_delim=",", use_quote_delim=True, na_value="", header=True,
                     num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False, num_rows_for_inference=100,
                     compression_type=None, ignore_errors=False, encoding="utf-8"):
    """Batches of `(features, label)` (or of features without `label_name`) read from the CSV files
    matching `file_pattern`: features is a dict by column name in file order; column types come from
    `column_defaults` or are inferred from the first `num_rows_for_inference` rows."""
    paths = sorted(os.fsencode(m) for p in _strings(file_pattern, "file_pattern") for m in io_ops.glob(p))
    if not paths:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    first = list(_records(paths[0], field_delim, use_quote_delim, False))
    if column_names is None:
        if not header:
            raise ValueError("Expected file header names or `column_names` when `header=False`.")
        column_names = first[0]
    column_names = list(column_names)
    if len(set(column_names)) != len(column_names):
        raise ValueError("Duplicate column names are not allowed.")
    if select_columns is not None:
        if all(isinstance(c, int) for c in select_columns):
            indices = sorted(select_columns)
        else:
            unknown = [c for c in select_columns if c not in column_names]
            if unknown:
                raise ValueError(f"Column {unknown[0]!r} in `select_columns` is not among the column names "
                                 f"{column_names}.")
            indices = sorted(column_names.index(c) for c in select_columns)
    else:
        indices = list(range(len(column_names)))
    names = [column_names[i] for i in indices]
    if label_name is not None and label_name not in names:
        raise ValueError(f"`label_name` provided must be one of the columns: {names}. Received: {label_name}")
    if column_defaults is not None:
        defaults = list(column_defaults)
        if len(defaults) == len(column_names) and len(indices) != len(column_names):
            defaults = [defaults[i] for i in indices]
    else:
        rows = first[1 if header else 0:][:num_rows_for_inference]
        defaults = [_typed_empty_default(_infer_type([row[i] if i < len(row) else "" for row in rows]))
                    for i in indices]
    records = CsvDataset(paths, defaults, header=header, field_delim=field_delim, use_quote_delim=use_quote_delim,
                         na_value=na_value, select_cols=indices if len(indices) != len(column_names) else None)
    if num_epochs != 1:
        records = records.repeat(num_epochs)
    if shuffle:
        records = records.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    records = records.batch(batch_size, drop_remainder=num_epochs is None)

    def to_features(*columns):
        features = collections.OrderedDict(zip(names, columns))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label

    return records.map(to_features)


def _typed_empty_default(dtype):
    """An inferred column's default: empty fields read as 0 (numbers) or b'' (strings), as TensorFlow's."""
    return {_dt.int32: np.int32(0), _dt.int64: np.int64(0), _dt.float32: np.float32(0.0)}.get(dtype, "")


API = {"data.experimental": ["CsvDataset", "make_csv_dataset"]}
