"""TensorFlow's public record API: `tf.io.TFRecordWriter` / `tf.io.TFRecordOptions`, the `tf.train.Example`
messages, and `tf.io.FixedLenFeature` (parsing, with the other feature kinds, is in example_parsing.py).

The framing and compression live in `formats/tfrecord.py`; this module is the public face.

The `tf.train` message classes are the generated protobuf classes themselves, loaded on first access of
`tf.train.Example` (etc.) so that `import tensorflux` does not load protobuf.
"""
import collections
import functools
import os

import numpy as np

from ..framework.context import init_scope
from ..framework.errors import FailedPreconditionError, InvalidArgumentError
from ..framework.tensor import Tensor
from ..ops import convert as _convert
from ..ops.registry import OpDef, apply
from ..types import dtypes as _dt
from ..types.shape import TensorShape

__all__ = ["TFRecordOptions", "TFRecordWriter", "FixedLenFeature"]


# -- writing ------------------------------------------------------------------------------------------------
class TFRecordOptions:
    """`tf.io.TFRecordOptions`: the compression of a TFRecord file ("" / "ZLIB" / "GZIP") and its level.
    The zlib tuning fields are kept for compatibility; only `compression_level` changes the bytes."""

    compression_type_map = {0: "", 1: "ZLIB", 2: "GZIP"}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None, output_buffer_size=None,
                 window_bits=None, compression_level=None, compression_method=None, mem_level=None,
                 compression_strategy=None):
        self.get_compression_type_string(compression_type)  # fails early on an unknown type, as TF
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """"", "ZLIB" or "GZIP" for None, a type name, a TFRecordOptions or a TFRecordCompressionType number."""
        if options is None:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.get_compression_type_string(options.compression_type)
        if isinstance(options, int) and not isinstance(options, bool) and options in cls.compression_type_map:
            return cls.compression_type_map[options]
        if isinstance(options, str) and options in cls.compression_type_map.values():
            return options
        raise ValueError(f'Not a valid compression_type: "{options}"')


class TFRecordWriter:
    """`tf.io.TFRecordWriter(path, options=None)`: appends records to a new file at `path`.

    A streaming writer, as TensorFlow's: records reach the file as they are written (compressed ones at
    `flush()` or `close()`), so a reader can follow the file while it grows."""

    def __init__(self, path, options=None):
        kind = TFRecordOptions.get_compression_type_string(options)
        level = options.compression_level if isinstance(options, TFRecordOptions) else None
        path = os.fsdecode(path.numpy() if isinstance(path, Tensor) else path)
        try:
            self._file = open(path, "wb")
        except OSError as error:
            from .gfile import file_error  # the io room loads on first use (namespaces.LAZY_ROOMS)
            raise file_error(error, path) from None
        from .formats import tfrecord
        self._writer = tfrecord.RecordWriter(self._file, TFRecordOptions(kind, compression_level=level))

    def _check_open(self):
        if self._file is None:
            raise FailedPreconditionError(None, None, "Writer is closed.")

    def write(self, record):
        """Writes one record (bytes; a str is written as UTF-8)."""
        self._check_open()
        self._writer.write(record.encode("utf-8") if isinstance(record, str) else bytes(record))

    def flush(self):
        self._check_open()
        self._writer.flush()

    def close(self):
        """Finishes the file; closing twice is allowed."""
        if self._file is not None:
            self._writer.close()
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        file = getattr(self, "_file", None)
        if file is not None:
            self.close()


# -- tf.train messages, loaded on first use -----------------------------------------------------------------
# Each public message name and the generated module holding it (a fixed table: names never come from data).
_TRAIN_MESSAGES = {"Example": "example", "SequenceExample": "example", "Features": "feature",
                   "Feature": "feature", "FeatureList": "feature", "FeatureLists": "feature",
                   "BytesList": "feature", "FloatList": "feature", "Int64List": "feature"}


def train_message(name):
    """The protobuf class `tf.train.<name>` (e.g. "Example")."""
    from .formats import protos
    return getattr(protos.load(_TRAIN_MESSAGES[name]), name)


# The message classes need protobuf, so they are listed as lazy names (made on first read), not in `API`.
LAZY_API = {"train": {name: functools.partial(train_message, name) for name in _TRAIN_MESSAGES}}


# -- parsing ------------------------------------------------------------------------------------------------
class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """`tf.io.FixedLenFeature(shape, dtype, default_value=None)`: a feature with a fixed number of values."""

    __slots__ = ()

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


_PARSE_DTYPES = {_dt.float32: "float", _dt.int64: "int64", _dt.string: "string"}
# The value list of each Feature kind, by the name TensorFlow uses in its messages.
_KINDS = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}
_KIND_NAMES = {"float": "float", "int64": "int64", "string": "bytes"}


def _parse_one(example_class, data):
    from google.protobuf.message import DecodeError
    example = example_class()
    try:
        example.ParseFromString(bytes(data))
    except (DecodeError, RuntimeWarning, ValueError):
        raise InvalidArgumentError(None, None, f"Could not parse example input, value: {bytes(data)[:64]!r}") from None
    return example


def _dense_default(key, feature):
    """The default of a FixedLenFeature as an array of its shape; an empty array means "required"."""
    dtype = feature.dtype
    if feature.default_value is None:
        return _convert.convert_to_tensor(np.zeros([0], dtype=object if dtype == _dt.string else dtype._np),
                                          dtype=dtype)
    with init_scope():  # a constant, also when parsing inside a tf.function: its value is needed here
        value = _convert.convert_to_tensor(feature.default_value, dtype=dtype).numpy()
    size = int(np.prod(feature.shape, dtype=np.int64))
    if value.size != size:
        raise InvalidArgumentError(None, "Reshape", f"Input to reshape is a tensor with {value.size} values, but "
                                                    f"the requested shape has {size} [Op:Reshape]")
    return _convert.convert_to_tensor(value.reshape(feature.shape), dtype=dtype)


API = {"io": ["TFRecordOptions", "TFRecordWriter", "FixedLenFeature"]}
