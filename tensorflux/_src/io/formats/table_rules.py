"""TensorFlow's hash-table ops, so that SavedModels holding lookup tables (a Keras StringLookup,
IntegerLookup or TextVectorization exported by `model.export()`, a `tf.lookup.StaticHashTable`) load and
serve in tensorflux.

TensorFlow's export keeps a table as a `resource` object of the SavedObjectGraph whose `_create_resource`
function runs `HashTableV2` (or `MutableHashTableV2`) and whose `_initialize` function fills it with
`LookupTableImportV2` from two captured constants (keys, values); the serving functions capture the table
handle and call `LookupTableFindV2(handle, keys, default_value)` (`LookupTableSizeV2` gives its size,
`LookupTableInsertV2` adds entries to a mutable one). Here the table is a `HashTable`: a dict from key to
value behind a resource handle (an EagerTensor of dtype resource, as a variable's), filled and read only
by these ops' kernels. Keys from a file are dictionary keys (bytes or integers), never names that reach
code.

The interface facts of these ops (inputs, outputs, attrs) are TensorFlow 2.21's, in the generated table of
`op_signatures`, so the graph importer binds their inputs and attrs as it does for every other op.
"""
import threading

import numpy as np

from ...framework import errors
from ...ops.registry import OpDef
from ...types import dtypes as _dt
from ...types.shape import TensorShape

__all__ = ["HashTable", "table_of", "value_rows", "fill_static", "HASH_TABLE", "MUTABLE_HASH_TABLE", "IMPORT", "FIND", "SIZE", "INSERT"]

_SCALAR = TensorShape(())


class HashTable:
    """The state of one table: key -> value, the dtypes fixed when it is made. A static table (HashTableV2)
    is filled once; a mutable one (MutableHashTableV2) takes inserts."""

    __slots__ = ("entries", "key_dtype", "value_dtype", "name", "mutable", "filled", "lock", "value_shape", "dense")

    def __init__(self, key_dtype, value_dtype, name, mutable, value_shape=(), dense=None):
        self.entries = {}
        self.key_dtype, self.value_dtype = key_dtype, value_dtype
        self.name, self.mutable, self.filled = name, mutable, False
        self.lock = threading.Lock()
        self.value_shape = tuple(value_shape)   # each value's shape: () but for MutableHashTableOfTensors
        self.dense = dense    # a MutableDenseHashTable's reserved keys and buckets (io/lookup_ops.py), or None

    def __repr__(self):
        kind = "MutableHashTable" if self.mutable else "HashTable"
        return f'<ResourceHandle(name="{self.name}", device="/job:localhost/replica:0/task:0/device:CPU:0", ' \
               f'container="Anonymous", type="tensorflow::lookup::{kind}")>'


def table_of(value):
    """The HashTable a resource value stands for (ops such as Identity may hand it on as a 0-d object
    array); InvalidArgumentError for anything else."""
    if isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 0:
        value = value.item()
    if not isinstance(value, HashTable):
        raise errors.InvalidArgumentError(None, None, f"Expected a lookup table resource, got {type(value).__name__}.")
    return value


def _key_list(keys, table, op):
    keys = np.asarray(keys)
    expected = np.dtype(object) if table.key_dtype is _dt.string else np.dtype(table.key_dtype.as_numpy_dtype)
    if (keys.dtype.kind in "OSU") != (expected.kind == "O") or (expected.kind != "O" and keys.dtype != expected):
        raise errors.InvalidArgumentError(None, op, f"Key dtype {_dtype_name(keys)} does not match the table's key "
                                                    f"dtype {table.key_dtype.name}.")
    flat = keys.reshape(-1).tolist()
    if expected.kind == "O":
        flat = [k if isinstance(k, bytes) else str(k).encode("utf-8") for k in flat]
    return flat


def _dtype_name(array):
    return "string" if array.dtype.kind in "OSU" else array.dtype.name


def _value_array(values, table):
    if table.value_dtype is _dt.string:
        return np.asarray(values, object)
    return np.asarray(values).astype(table.value_dtype.as_numpy_dtype, copy=False)


def _as_dtype(value):
    """A table dtype from the importer's attr (a NumPy dtype; object arrays are strings) or a DType."""
    if isinstance(value, np.dtype) and value.kind in "OSU":
        return _dt.string
    return _dt.as_dtype(value)


# -- inference ---------------------------------------------------------------------------------------------
def _infer_table(inputs, attrs):
    return [(_dt.resource, _SCALAR)]


def _infer_none(inputs, attrs):
    return []


def _infer_find(inputs, attrs):
    # A table of tensors (a default value of rank > 0) gives keys.shape + the value shape, which only the table
    # knows: unknown here, set by tf.lookup's caller.
    return [(inputs[2].dtype, inputs[1].shape if inputs[2].shape.rank == 0 else TensorShape(None))]


def _infer_size(inputs, attrs):
    return [(_dt.int64, _SCALAR)]


# -- kernels -----------------------------------------------------------------------------------------------
def _new_table(mutable):
    def kernel(*, key_dtype, value_dtype, container="", shared_name="", use_node_name_sharing=False):
        # A fresh table per run of the creating function: a loaded model creates its tables once.
        # The op's value is the table itself (what kernels receive for a resource input); whoever keeps the
        # handle outside a graph wraps it as a ResourceHandle.
        return HashTable(_as_dtype(key_dtype), _as_dtype(value_dtype), shared_name or "hash_table", mutable)
    return kernel


def value_rows(table, keys, values, op):
    """The values as one entry per key (a scalar, or a tuple for a table of tensors), after TensorFlow's check
    that their shape is the keys' shape followed by the table's value shape."""
    values = _value_array(values, table)
    expected = tuple(np.shape(keys)) + table.value_shape
    if values.shape != expected:
        raise errors.InvalidArgumentError(None, op, f"Expected shape {_shape_text(expected)} for value, got "
                                                    f"{_shape_text(values.shape)}")
    if not table.value_shape:
        return values.reshape(-1).tolist()
    return [tuple(row) for row in values.reshape((-1,) + table.value_shape).tolist()]


def _shape_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _shown(value):
    return value.decode("utf-8", "backslashreplace") if isinstance(value, bytes) else value


def fill_static(table, flat, rows, op):
    """Adds entries to a static table: a key already there with another value is TensorFlow's
    FailedPreconditionError; the same pair again is accepted. Called with the table's lock held."""
    entries = table.entries
    for key, row in zip(flat, rows):
        old = entries.setdefault(key, row)
        if old != row:
            raise errors.FailedPreconditionError(None, op, f"HashTable has different value for same key. Key "
                                                           f"{_shown(key)} has {_shown(old)} and trying to add value "
                                                           f"{_shown(row)}")
    table.filled = True


def _import_kernel(table, keys, values):
    table = table_of(table)
    flat = _key_list(keys, table, "LookupTableImportV2")
    rows = value_rows(table, keys, values, "LookupTableImportV2")
    with table.lock:
        if table.mutable:       # an import replaces a mutable table's contents
            table.entries = dict(zip(flat, rows))
            table.filled = True
        else:
            fill_static(table, flat, rows, "LookupTableImportV2")
    return ()


def _insert_kernel(table, keys, values):
    table = table_of(table)
    if not table.mutable:
        raise errors.InvalidArgumentError(None, "LookupTableInsertV2", "Table is not mutable.")
    flat = _key_list(keys, table, "LookupTableInsertV2")
    rows = value_rows(table, keys, values, "LookupTableInsertV2")
    with table.lock:
        if table.dense is not None:
            table.dense.before_insert(table, flat, "LookupTableInsertV2")
        table.entries.update(zip(flat, rows))
    return ()


def _find_kernel(table, keys, default_value):
    table = table_of(table)
    if not table.mutable and not table.filled:
        raise errors.FailedPreconditionError(None, "LookupTableFindV2", "Table not initialized.")
    flat = _key_list(keys, table, "LookupTableFindV2")
    default = np.asarray(default_value)
    shape = tuple(np.shape(keys)) + table.value_shape
    if table.value_shape and default.shape == shape:      # a default per key (`dynamic_default_values`)
        rows = default.reshape((-1,) + table.value_shape).tolist()
        get = table.entries.get
        found = [get(k, tuple(d)) for k, d in zip(flat, rows)]
        return _value_array(found, table).reshape(shape)
    if default.shape != table.value_shape and not (not table.value_shape and default.shape == shape):
        raise errors.InvalidArgumentError(None, "LookupTableFindV2", f"Expected shape {list(table.value_shape)} "
                                                                     f"for default value, got {list(default.shape)}")
    get = table.entries.get
    if default.shape == table.value_shape:
        fallback = tuple(default.tolist()) if table.value_shape else default.item()
        found = [get(k, fallback) for k in flat]
    else:                                                   # a scalar table with a default per key
        found = [get(k, d) for k, d in zip(flat, default.reshape(-1).tolist())]
    if not flat:
        return np.zeros(shape, _value_array([], table).dtype)
    return _value_array(found, table).reshape(shape)


def _size_kernel(table):
    table = table_of(table)
    return np.int64(len(table.entries))


HASH_TABLE = OpDef("HashTableV2", _infer_table, _new_table(False), stateful=True)
MUTABLE_HASH_TABLE = OpDef("MutableHashTableV2", _infer_table, _new_table(True), stateful=True)
IMPORT = OpDef("LookupTableImportV2", _infer_none, _import_kernel, stateful=True, multi=True,
               input_names=("table_handle", "keys", "values"))
INSERT = OpDef("LookupTableInsertV2", _infer_none, _insert_kernel, stateful=True, multi=True,
               input_names=("table_handle", "keys", "values"))
FIND = OpDef("LookupTableFindV2", _infer_find, _find_kernel, stateful=True,
             input_names=("table_handle", "keys", "default_value"))
SIZE = OpDef("LookupTableSizeV2", _infer_size, _size_kernel, stateful=True, input_names=("table_handle",))

API = {}
