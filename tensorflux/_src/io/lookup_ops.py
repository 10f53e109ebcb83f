"""The hash-table ops behind `tf.lookup` that a loaded SavedModel does not need: exporting and removing
entries, filling a table from a text file, a mutable table whose values are tensors, and TensorFlow's
open-addressing table (`MutableDenseHashTableV2`) with its reserved empty and deleted keys.

They work on the `HashTable` state of `formats/table_rules.py` (the ops both kinds of table share — find,
import, insert, size — live there). A table's file is read as data: its lines become dictionary keys and
values, converted by dtype, never names that reach code.

    LookupTableExportV2(table)                  -> keys, values
    LookupTableRemoveV2(table, keys)            -> ()
    InitializeTableFromTextFileV2(table, filename; key_index, value_index, vocab_size, delimiter, offset)
    MutableHashTableOfTensorsV2(; key_dtype, value_dtype, value_shape)            -> table
    MutableDenseHashTableV2(empty_key, deleted_key; value_dtype, initial_num_buckets, max_load_factor) -> table
"""
import numpy as np

from ..framework import errors
from ..ops.registry import OpDef
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from .formats import table_rules
from .formats.table_rules import HashTable, table_of

__all__ = ["EXPORT", "REMOVE", "INIT_FROM_TEXT_FILE", "MUTABLE_TABLE_OF_TENSORS", "MUTABLE_DENSE_TABLE",
           "WHOLE_LINE", "LINE_NUMBER"]

WHOLE_LINE, LINE_NUMBER = -2, -1     # TextFileIndex: a column index, or the whole line, or its number
_SCALAR = TensorShape(())


def _infer_table(inputs, attrs):
    return [(_dt.resource, _SCALAR)]


def _infer_none(inputs, attrs):
    return []


def _table_dtype(value):
    return _dt.string if isinstance(value, np.dtype) and value.kind in "OSU" else _dt.as_dtype(value)


# -- export and remove -----------------------------------------------------------------------------------------
def _infer_export(inputs, attrs):
    key_dtype, value_dtype = _table_dtype(attrs["Tkeys"]), _table_dtype(attrs["Tvalues"])
    return [(key_dtype, TensorShape(None)), (value_dtype, TensorShape(None))]   # a dense table's are [n, 1]


def _array(values, dtype, shape):
    """An export's keys or values (scalars, or one tuple per entry for a table of tensors) as an array."""
    flat = [v for row in values for v in row] if values and isinstance(values[0], tuple) else values
    if dtype is _dt.string:
        out = np.empty(len(flat), object)
        out[:] = flat
        return out.reshape(shape)
    return np.asarray(flat, dtype.as_numpy_dtype).reshape(shape)


def _export_kernel(table, Tkeys=None, Tvalues=None):
    table = table_of(table)
    with table.lock:
        keys, values = list(table.entries), list(table.entries.values())
    if table.dense is not None:
        return table.dense.export(table, keys, values)
    return (_array(keys, table.key_dtype, (len(keys),)),
            _array(values, table.value_dtype, (len(keys),) + table.value_shape))


def replace_contents(table, keys, values):
    """Gives a mutable table the entries of a checkpoint's saved keys and values (TensorFlow's import: the
    old entries are dropped). A dense table's saved arrays are its buckets: their empty and deleted keys
    are no entries, and their count is its bucket count. The arrays are data from a file: their dtypes and
    shapes are checked as an import's are."""
    table = table_of(table)
    keys, values = np.asarray(keys), np.asarray(values)
    buckets = None
    if table.dense is not None:
        if keys.ndim != 2 or keys.shape[1] != 1 or values.shape[:1] != keys.shape[:1]:
            raise errors.InvalidArgumentError(None, "LookupTableImportV2", f"Expected a [buckets, 1] key array and as "
                                                                           f"many value rows, got keys of shape "
                                                                           f"{list(keys.shape)} and values of "
                                                                           f"shape {list(values.shape)}")
        buckets = keys.shape[0]
        keys = keys.reshape(-1)
        if values.size == buckets * int(np.prod(table.value_shape, dtype=np.int64)):
            values = values.reshape((buckets,) + table.value_shape)     # scalar values are saved as [buckets, 1]
        reserved = (table.dense.empty_key, table.dense.deleted_key)
        flat_keys = table_rules._key_list(keys, table, "LookupTableImportV2")
        keep = np.array([k not in reserved for k in flat_keys], dtype=bool)
        keys, values = keys[keep], values[keep]
    flat = table_rules._key_list(keys, table, "LookupTableImportV2")
    rows = table_rules.value_rows(table, keys, values, "LookupTableImportV2")
    with table.lock:
        table.entries = dict(zip(flat, rows))
        table.filled = True
        if buckets is not None:
            table.dense.num_buckets, table.dense.deleted = buckets, 0


def _remove_kernel(table, keys):
    table = table_of(table)
    if not table.mutable:
        raise errors.InvalidArgumentError(None, "LookupTableRemoveV2", "Table is not mutable.")
    flat = table_rules._key_list(keys, table, "LookupTableRemoveV2")
    with table.lock:
        if table.dense is not None:
            table.dense.check_keys(flat, "LookupTableRemoveV2")
            table.dense.deleted += sum(1 for k in flat if k in table.entries)
        for key in flat:
            table.entries.pop(key, None)
    return ()


# -- a table from a text file -----------------------------------------------------------------------------------
_FIELD_TYPES = {_dt.int64: (int, "int64"), _dt.int32: (int, "int32"), _dt.float32: (float, "float"),
                _dt.float64: (float, "double"), _dt.string: (None, "string")}


def _field(text, dtype, line_number, path):
    convert, name = _FIELD_TYPES.get(dtype, (None, dtype.name))
    if convert is None:
        return text.encode("utf-8") if isinstance(text, str) else text
    try:
        value = convert(text)
    except ValueError:
        value = None
    if value is None or (convert is int and not _fits(value, dtype)):
        shown = text.decode("utf-8", "backslashreplace")
        raise errors.InvalidArgumentError(None, "InitializeTableFromTextFileV2",
                                          f"Field {shown} in line {line_number} is not a valid {name}.")
    return value


def _fits(value, dtype):
    info = np.iinfo(dtype.as_numpy_dtype)
    return info.min <= value <= info.max


def _column(line, index, line_number, delimiter, dtype, path, offset=0):
    if index == LINE_NUMBER:
        return line_number + offset
    if index == WHOLE_LINE:
        return _field(line, dtype, line_number, path)
    columns = line.split(delimiter) if delimiter else line.split()
    if index >= len(columns):
        shown = line.decode("utf-8", "backslashreplace")
        raise errors.InvalidArgumentError(None, "InitializeTableFromTextFileV2",
                                          f"Invalid number of columns in {path} line {line_number} ({shown}) : "
                                          f"expected at least {index + 1} got {len(columns)}")
    return _field(columns[index], dtype, line_number, path)


def _init_from_text_file_kernel(table, filename, *, key_index, value_index, vocab_size=-1, delimiter="\t",
                                offset=0):
    table = table_of(table)
    path = filename.item() if isinstance(filename, np.ndarray) else filename
    path = path.decode("utf-8") if isinstance(path, bytes) else str(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, "InitializeTableFromTextFileV2", f"{path}; No such file or directory") from None
    sep = delimiter.encode("utf-8") if isinstance(delimiter, str) else delimiter
    keys, values, position = [], [], 0
    for number, raw in enumerate(data.split(b"\n")):
        if vocab_size != -1 and number >= vocab_size:
            break
        last = position + len(raw) >= len(data)
        if last and not raw:
            break                                       # the newline that ends the file
        position += len(raw) + (0 if last else 1)
        line = raw[:-1] if raw.endswith(b"\r") else raw
        if not line:
            raise errors.InvalidArgumentError(None, "InitializeTableFromTextFileV2",
                                              f"Invalid content in {path}: empty line found at position {position}.")
        keys.append(_column(line, key_index, number, sep, table.key_dtype, path))
        values.append(_column(line, value_index, number, sep, table.value_dtype, path, offset))
    if vocab_size != -1 and len(keys) < vocab_size:
        raise errors.InvalidArgumentError(None, "InitializeTableFromTextFileV2",
                                          f"Invalid vocab_size in {path}: expected {vocab_size} but got {len(keys)}")
    with table.lock:
        if table.mutable:
            table.entries.update(zip(keys, values))
            table.filled = True
        else:
            table_rules.fill_static(table, keys, values, "InitializeTableFromTextFileV2")
    return ()


# -- table kinds ---------------------------------------------------------------------------------------------------
def _table_of_tensors_kernel(*, key_dtype, value_dtype, value_shape=(), container="", shared_name="",
                             use_node_name_sharing=False):
    shape = tuple(TensorShape(value_shape).as_list())
    return HashTable(_table_dtype(key_dtype), _table_dtype(value_dtype), shared_name or "MutableHashTableOfTensors",
                     True, shape)


class DenseBuckets:
    """What makes a MutableDenseHashTable differ from a dict: two reserved keys that may never be stored, and
    a bucket count (a power of two, at least 4) that doubles when the entries would pass the load factor. The
    bucket *layout* (which slot a key lands in) follows TensorFlow's hash and is not reproduced: `export`
    returns the entries first, then the empty buckets."""

    __slots__ = ("empty_key", "deleted_key", "num_buckets", "max_load_factor", "deleted")

    def __init__(self, empty_key, deleted_key, num_buckets, max_load_factor):
        self.empty_key, self.deleted_key = empty_key, deleted_key
        self.num_buckets, self.max_load_factor, self.deleted = num_buckets, max_load_factor, 0

    def check_keys(self, flat, op):
        for key in flat:
            if key == self.empty_key:
                raise errors.InvalidArgumentError(None, op, "Using the empty_key as a table key is not allowed")
            if key == self.deleted_key:
                raise errors.InvalidArgumentError(None, op, "Using the deleted_key as a table key is not allowed")

    def before_insert(self, table, flat, op):
        self.check_keys(flat, op)
        needed = len(table.entries) + len(set(flat) - table.entries.keys())
        while needed > self.max_load_factor * self.num_buckets:
            self.num_buckets *= 2
            self.deleted = 0                            # growing rehashes: deleted slots are gone

    def export(self, table, keys, values):
        free = self.num_buckets - len(keys)
        empty_value = b"" if table.value_dtype is _dt.string else 0
        keys = keys + [self.empty_key] * free
        values = values + [empty_value] * free
        return (_array(keys, table.key_dtype, (self.num_buckets, 1)),
                _array(values, table.value_dtype, (self.num_buckets,) + (table.value_shape or (1,))))


def _dense_table_kernel(empty_key, deleted_key, *, value_dtype, key_dtype=None, value_shape=(),
                        initial_num_buckets=131072, max_load_factor=0.8, container="", shared_name="",
                        use_node_name_sharing=False):
    buckets = int(initial_num_buckets)
    if buckets < 4 or buckets & (buckets - 1):
        raise errors.InvalidArgumentError(None, "MutableDenseHashTableV2", f"Number of buckets must be at least 4 "
                                                                           f"and a power of 2, got: {buckets}")
    if not 0.0 < max_load_factor < 1.0:
        raise errors.InvalidArgumentError(None, "MutableDenseHashTableV2", f"max_load_factor must be between 0 and "
                                                                           f"1, got: {max_load_factor}")
    empty, deleted = (np.asarray(k).reshape(-1).tolist()[0] for k in (empty_key, deleted_key))
    if empty == deleted:
        raise errors.InvalidArgumentError(None, "MutableDenseHashTableV2", "Empty and deleted keys cannot be equal")
    key_type = _dt.string if np.asarray(empty_key).dtype.kind in "OSU" else _dt.as_dtype(np.asarray(empty_key).dtype)
    table = HashTable(key_type, _table_dtype(value_dtype), shared_name or "MutableDenseHashTable", True,
                      tuple(TensorShape(value_shape).as_list()),
                      DenseBuckets(empty, deleted, buckets, float(max_load_factor)))
    return table


EXPORT = OpDef("LookupTableExportV2", _infer_export, _export_kernel, stateful=True, multi=True,
               input_names=("table_handle",))
REMOVE = OpDef("LookupTableRemoveV2", _infer_none, _remove_kernel, stateful=True, multi=True,
               input_names=("table_handle", "keys"))
INIT_FROM_TEXT_FILE = OpDef("InitializeTableFromTextFileV2", _infer_none, _init_from_text_file_kernel,
                            stateful=True, multi=True, input_names=("table_handle", "filename"))
MUTABLE_TABLE_OF_TENSORS = OpDef("MutableHashTableOfTensorsV2", _infer_table, _table_of_tensors_kernel,
                                 stateful=True)
MUTABLE_DENSE_TABLE = OpDef("MutableDenseHashTableV2", _infer_table, _dense_table_kernel, stateful=True,
                            input_names=("empty_key", "deleted_key"))

API = {}
