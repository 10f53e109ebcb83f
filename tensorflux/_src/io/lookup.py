"""`tf.lookup`: hash tables from keys to values, filled from tensors or a text file, as TensorFlow's.

A table is a resource: its state is a `HashTable` (formats/table_rules.py) behind a `ResourceHandle`, the
same kind of handle a variable has, so a `tf.function` that uses a table captures the handle and its graph
holds `LookupTableFindV2`/`LookupTableSizeV2` nodes as TensorFlow's does. Tables are made and filled
eagerly, even when the object is built inside a function being traced (TensorFlow lifts them out the
same way), and every read and update holds the table's own lock.

`lookup` maps dense tensors, and the values of `SparseTensor`s and `RaggedTensor`s, keeping the structure.
A `StaticVocabularyTable` sends keys it does not hold to `num_oov_buckets` extra ids after the vocabulary,
by FarmHash Fingerprint64 of the key (of its decimal text for integer keys), as TensorFlow does.

Tables are trackable: in a `tf.train.Checkpoint` a `MutableHashTable` (with `checkpoint=True`) saves its
contents under TensorFlow's keys (`<path>/.ATTRIBUTES/table-keys` and `-values`) and restores them, a
`DenseHashTable` restores from TensorFlow's bucket arrays, and a static table is a node without values
(its initializer a child, as in TensorFlow).

Not reproduced: the order in which `export()` lists entries (TensorFlow's follows its hash map, which
changes from process to process; here it is insertion order, and a `DenseHashTable` lists its entries
before its empty buckets), and so writing a `DenseHashTable` to a checkpoint (TensorFlow adopts the saved
bucket arrays as its hash layout, which tensorflux does not compute) raises NotImplementedError.
"""
import threading

import numpy as np

from ..framework import errors
from ..framework.context import init_scope
from ..framework.tensor import EagerTensor
from ..ops.array.where import where
from ..ops.convert import convert_to_tensor
from ..ops.fingerprints import to_hash_bucket_fast
from ..ops.math.arith import add, cast
from ..ops.math.logic import not_equal
from ..ops.registry import apply
from ..ops.state import ResourceHandle
from ..ops.strings import as_string
from ..types import dtypes as _dt
from . import lookup_ops as _ops
from .formats import table_rules as _tables

__all__ = ["TextFileIndex", "KeyValueTensorInitializer", "TextFileInitializer", "StaticHashTable",
           "StaticVocabularyTable", "MutableHashTable", "DenseHashTable"]

API = {
    "lookup": ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable", "TextFileIndex",
               "TextFileInitializer"],
    "lookup.experimental": ["DenseHashTable", "MutableHashTable"],
}

# TensorFlow registers hash-table kernels for these key dtypes only; a table of other keys has no kernel.
_KEY_DTYPES = (_dt.string, _dt.int32, _dt.int64)


class TextFileIndex:
    """Where a text-file table takes a key or value from: a column number, or one of these."""
    WHOLE_LINE = _ops.WHOLE_LINE
    LINE_NUMBER = _ops.LINE_NUMBER


class KeyValueTensorInitializer:
    """Fills a table from two tensors of the same shape: keys and their values."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        with init_scope():
            self._keys = convert_to_tensor(keys, dtype=key_dtype, name="keys")
            self._values = convert_to_tensor(values, dtype=value_dtype, name="values")
        self._name = name

    @property
    def key_dtype(self):
        return self._keys.dtype

    @property
    def value_dtype(self):
        return self._values.dtype

    def initialize(self, table):
        return _no_output(apply(_tables.IMPORT, (table.resource_handle, self._keys, self._values), {},
                                "LookupTableImportV2"))

    def _trackable_children(self):
        return []       # a node of a checkpoint's object graph (a static table's `_initializer`), no values


def _check_column(role, index, dtype, line_number_wording, period):
    """TensorFlow's checks of a text-file table's key or value column and dtype (its messages word the two
    roles slightly differently, hence the wording arguments)."""
    if index < -2:
        raise ValueError(f"`{role}_index` should be >= -2, received: {index}{period}")
    if index == TextFileIndex.LINE_NUMBER and dtype is not _dt.int64:
        raise ValueError(f"`{role}_dtype` must be int64 {line_number_wording} {TextFileIndex.LINE_NUMBER}, received: "
                         f"{dtype}")
    if index == TextFileIndex.WHOLE_LINE and not (dtype.is_integer or dtype is _dt.string):
        raise ValueError(f"`{role}_dtype` should be either integer or string for `{role}_index` "
                         f"{TextFileIndex.WHOLE_LINE}, received: {dtype}")


class TextFileInitializer:
    """Fills a table from a text file: one entry per line, the key and the value each a column (split at
    `delimiter`), the whole line, or the line number (`TextFileIndex`)."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index, vocab_size=None, delimiter="\t",
                 name=None, value_index_offset=0):
        if filename is None or (isinstance(filename, (str, bytes)) and not filename):
            raise ValueError("`filename` argument required for tf.lookup.TextFileInitializer")
        key_dtype, value_dtype = _dt.as_dtype(key_dtype), _dt.as_dtype(value_dtype)
        _check_column("key", key_index, key_dtype, "if `key_index` is", ".")
        _check_column("value", value_index, value_dtype, "for `value_index`", "")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        with init_scope():
            self._filename = convert_to_tensor(filename, dtype=_dt.string, name="asset_filepath")
        self.key_dtype, self.value_dtype = key_dtype, value_dtype
        self._attrs = {"key_index": int(key_index), "value_index": int(value_index),
                       "vocab_size": -1 if vocab_size is None else int(vocab_size), "delimiter": delimiter,
                       "offset": int(value_index_offset)}
        self._name = name

    @property
    def _shared_name(self):
        """TensorFlow shares a text-file table between every table built from the same file, columns, size
        and offset (its resource's shared name, which its errors print)."""
        a = self._attrs
        path = self._filename.numpy().decode("utf-8", "backslashreplace")
        parts = [path] + ([str(a["vocab_size"])] if a["vocab_size"] != -1 else []) + \
            [str(a["key_index"]), str(a["value_index"])] + ([str(a["offset"])] if a["offset"] else [])
        return "hash_table_" + "_".join(parts)

    def initialize(self, table):
        return _no_output(apply(_ops.INIT_FROM_TEXT_FILE, (table.resource_handle, self._filename), dict(self._attrs),
                                "InitializeTableFromTextFileV2"))


_ENUM_NAMES = {"float32": "DT_FLOAT", "float64": "DT_DOUBLE", "float16": "DT_HALF"}


def _type_string(dtype):
    """A dtype as TensorFlow's kernels print it (float, double, int64, string)."""
    return _ENUM_NAMES.get(dtype.name, "DT_" + dtype.name.upper())[3:].lower()


def _enum_name(dtype):
    """TensorFlow's DataType enum name of a dtype, as its kernel errors print it (DT_FLOAT)."""
    return _ENUM_NAMES.get(dtype.name, "DT_" + dtype.name.upper())


def _no_output(result):
    """An op without outputs: None when run eagerly (as TensorFlow returns), the Operation in a graph."""
    return None if result == () else result


# Tables made with a shared name (text-file tables), by that name, for the life of the process as TensorFlow's
# resource manager keeps them.
_SHARED = {}
_SHARED_LOCK = threading.Lock()


def _shared_table(shared_name, key_dtype, value_dtype):
    with _SHARED_LOCK:
        handle = _SHARED.get(shared_name)
        if handle is None:
            handle = _SHARED[shared_name] = _new_table(_tables.HASH_TABLE, {"key_dtype": key_dtype,
                                                                             "value_dtype": value_dtype,
                                                                             "shared_name": shared_name})
    table = handle._value
    if (table.key_dtype, table.value_dtype) != (key_dtype, value_dtype):
        names = [_type_string(d) for d in (key_dtype, value_dtype, table.key_dtype, table.value_dtype)]
        raise errors.eager_error(errors.InvalidArgumentError, f"Conflicting key/value dtypes {names[0]}->{names[1]} "
                                 f"with {names[2]}-{names[3]} for table {shared_name}", "HashTableV2", "hash_table")
    return handle


def _new_table(op, attrs, inputs=()):
    """Runs a table-creating op's kernel eagerly (its output is the table state itself, which an eager
    tensor cannot hold) and wraps the table as a resource handle; a failure reads as the eager op's."""
    arrays = [t._value for t in inputs]
    try:
        table = op.kernel(*arrays, **attrs)
    except errors.OpError as error:
        raise errors.eager_error(type(error), error.message, op.name, op.name.replace("V2", ""),
                                 arrays=arrays) from None
    return ResourceHandle(table)


def _values_of(keys):
    """(the key tensor to look up, how to put the results back into the keys' structure)."""
    values = getattr(keys, "values", None)
    if values is not None and hasattr(keys, "with_values"):               # RaggedTensor
        return values, keys.with_values
    if values is not None and hasattr(keys, "dense_shape"):               # SparseTensor
        return values, lambda out: type(keys)(keys.indices, out, keys.dense_shape)
    return keys, lambda out: out


def _check_key_dtype(keys, expected):
    if keys.dtype.base_dtype != expected:
        raise TypeError(f"Dtype of argument `keys` must be {expected}, received: {keys.dtype}")


def _export(table, name):
    """(keys, values): every entry of a table (a vocabulary table has no export, as in TensorFlow)."""
    return apply(_ops.EXPORT, (table.resource_handle,), {"Tkeys": table.key_dtype, "Tvalues": table.value_dtype},
                 name or "LookupTableExportV2")


class _Table:
    """What every table offers: its handle, dtypes, size and exported contents."""

    _default_value = None

    @property
    def resource_handle(self):
        return self._resource_handle

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype

    @property
    def name(self):
        return None   # TensorFlow 2's eager tables report no name, whatever was passed

    def size(self, name=None):
        return apply(_tables.SIZE, (self._resource_handle,), {}, name or "LookupTableSizeV2")

    # -- checkpoints: a node of the object graph; mutable tables hold values (see the module docstring) ----
    _CHECKPOINT_SUFFIXES = ("-keys", "-values")

    def _trackable_children(self):
        initializer = getattr(self, "_initializer", None)
        return [("_initializer", initializer)] if hasattr(initializer, "_trackable_children") else []

    def _checkpoint_tensors(self):
        """{attribute name: {key suffix: NumPy array}} saved with the table (none for a static table)."""
        return {}

    def _restore_checkpoint_tensors(self, attribute, arrays):
        raise ValueError(f"A {type(self).__name__} has no saved contents to restore")

    def _find(self, keys, default, name):
        return apply(_tables.FIND, (self._resource_handle, keys, default), {}, name or "LookupTableFindV2")


class StaticHashTable(_Table):
    """A table filled once by its initializer; keys it does not hold give `default_value`."""

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        self._initializer = initializer
        self._key_dtype, self._value_dtype = initializer.key_dtype, initializer.value_dtype
        with init_scope():
            default = convert_to_tensor(default_value, dtype=self._value_dtype)
            if default.shape.rank != 0:
                raise ValueError(f"Shapes {default.shape} and () are not compatible")
            self._default_value = default
        if self._key_dtype not in _KEY_DTYPES:
            raise errors.NotFoundError(None, "HashTableV2",
                                       f"Could not find device for node: {{{{node HashTableV2}}}} = HashTableV2["
                                       f"key_dtype={_enum_name(self._key_dtype)}, value_dtype="
                                       f"{_enum_name(self._value_dtype)}]")
        shared_name = getattr(initializer, "_shared_name", None)
        if shared_name is not None:
            self._resource_handle = _shared_table(shared_name, self._key_dtype, self._value_dtype)
        else:
            self._resource_handle = _new_table(_tables.HASH_TABLE, {"key_dtype": self._key_dtype,
                                                                    "value_dtype": self._value_dtype})
        with init_scope():
            initializer.initialize(self)

    @property
    def default_value(self):
        return self._default_value

    def export(self, name=None):
        return _export(self, name)

    def lookup(self, keys, name=None):
        flat, rebuild = _values_of(keys)
        _check_key_dtype(keys, self._key_dtype)
        return rebuild(self._find(flat, self._default_value, name))

    __getitem__ = lookup


class StaticVocabularyTable(_Table):
    """A vocabulary of ids 0..n-1 from its initializer, and `num_oov_buckets` more ids (n, n+1, …) that keys
    outside the vocabulary hash into."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        key_dtype = _dt.string
        self._table = None
        if initializer is not None:
            if initializer.value_dtype is not _dt.int64:
                raise TypeError(f"Invalid `value_dtype`, expected {_dt.int64} but got {initializer.value_dtype}.")
            key_dtype = initializer.key_dtype
            if key_dtype not in (_dt.int64, _dt.string):
                raise TypeError(f"Invalid `key_dtype`, expected one of {(_dt.int64, _dt.string)}, but got "
                                f"{key_dtype}.")
        lookup_key_dtype = key_dtype if lookup_key_dtype is None else _dt.as_dtype(lookup_key_dtype)
        if lookup_key_dtype.is_integer and not key_dtype.is_integer:
            raise TypeError(f"Invalid `key_dtype`, expected integer but got {key_dtype}.")
        if not lookup_key_dtype.is_integer and lookup_key_dtype is not key_dtype:
            raise TypeError(f"Invalid `key_dtype`, expected {key_dtype} but got {lookup_key_dtype}.")
        if initializer is not None:
            self._table = StaticHashTable(initializer, np.int64(-1))
            self._resource_handle = self._table.resource_handle
        else:
            self._resource_handle = None
        self._num_oov_buckets = int(num_oov_buckets)
        self._key_dtype, self._value_dtype = lookup_key_dtype, _dt.int64

    def size(self, name=None):
        if self._table is None:
            with init_scope():
                return convert_to_tensor(np.int64(self._num_oov_buckets))
        return add(self._table.size(), np.int64(self._num_oov_buckets), name=name)

    def lookup(self, keys, name=None):
        flat, rebuild = _values_of(keys)
        _check_key_dtype(keys, self._key_dtype)
        if flat.dtype.is_integer:
            if flat.dtype is not _dt.int64:
                flat = cast(flat, _dt.int64)
            buckets = to_hash_bucket_fast(as_string(flat), self._num_oov_buckets)
        else:
            buckets = to_hash_bucket_fast(flat, self._num_oov_buckets)
        if self._table is None:
            return rebuild(buckets)
        default = self._table.default_value
        ids = self._table._find(flat, default, None)
        buckets = add(buckets, self._table.size())
        return rebuild(where(not_equal(ids, default), ids, buckets))

    __getitem__ = lookup


class MutableHashTable(_Table):
    """A table that takes inserts and removals; values may be tensors (the shape of `default_value`)."""

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable", checkpoint=True,
                 experimental_is_anonymous=False):
        self._key_dtype, self._value_dtype = _dt.as_dtype(key_dtype), _dt.as_dtype(value_dtype)
        with init_scope():
            self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        value_shape = self._default_value.shape
        if value_shape.rank == 0:
            op, attrs = _tables.MUTABLE_HASH_TABLE, {}
        else:
            op, attrs = _ops.MUTABLE_TABLE_OF_TENSORS, {"value_shape": value_shape}
        attrs.update(key_dtype=self._key_dtype, value_dtype=self._value_dtype)
        self._resource_handle = _new_table(op, attrs)
        self._checkpoint = bool(checkpoint)

    def insert(self, keys, values, name=None):
        keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
        values = convert_to_tensor(values, dtype=self._value_dtype, name="values")
        return _no_output(apply(_tables.INSERT, (self._resource_handle, keys, values), {},
                                name or "LookupTableInsertV2"))

    def lookup(self, keys, dynamic_default_values=None, name=None):
        keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
        default = self._default_value if dynamic_default_values is None else convert_to_tensor(
            dynamic_default_values, dtype=self._value_dtype, name="default_values")
        out = self._find(keys, default, name)
        if self._default_value.shape.rank and not isinstance(out, EagerTensor):
            out.set_shape(keys.shape.concatenate(self._default_value.shape))
        return out

    __getitem__ = lookup

    def export(self, name=None):
        return _export(self, name)

    def _checkpoint_tensors(self):
        if not self._checkpoint:
            return {}
        keys, values = (t._value for t in _export(self, None))
        return {"table": {"-keys": keys, "-values": values}}

    def _restore_checkpoint_tensors(self, attribute, arrays):
        keys, values = arrays["-keys"], arrays["-values"]
        _ops.replace_contents(self._resource_handle._value, keys, values)

    def remove(self, keys, name=None):
        if not hasattr(keys, "dtype"):
            keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
        _check_key_dtype(keys, self._key_dtype)
        return _no_output(apply(_ops.REMOVE, (self._resource_handle, keys), {}, name or "LookupTableRemoveV2"))


class DenseHashTable(MutableHashTable):
    """TensorFlow's open-addressing table: `empty_key` and `deleted_key` are reserved (never stored), and its
    bucket count, a power of two, doubles as it fills."""

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key, initial_num_buckets=None,
                 name="MutableDenseHashTable", checkpoint=True, experimental_is_anonymous=False):
        self._key_dtype, self._value_dtype = _dt.as_dtype(key_dtype), _dt.as_dtype(value_dtype)
        with init_scope():
            self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
            empty = convert_to_tensor(empty_key, dtype=self._key_dtype, name="empty_key")
            deleted = convert_to_tensor(deleted_key, dtype=self._key_dtype, name="deleted_key")
        attrs = {"value_dtype": self._value_dtype, "value_shape": self._default_value.shape}
        if initial_num_buckets is not None:
            attrs["initial_num_buckets"] = int(initial_num_buckets)
        self._resource_handle = _new_table(_ops.MUTABLE_DENSE_TABLE, attrs, (empty, deleted))
        self._checkpoint = bool(checkpoint)

    insert_or_assign = MutableHashTable.insert

    def _checkpoint_tensors(self):
        if not self._checkpoint:
            return {}
        raise NotImplementedError("tensorflux cannot write a DenseHashTable to a checkpoint: TensorFlow reads the "
                                  "saved bucket arrays as its own hash layout, which tensorflux does not compute "
                                  "(restoring one TensorFlow wrote works); pass checkpoint=False to leave it out")

    def erase(self, keys, name=None):
        return self.remove(keys, name)
