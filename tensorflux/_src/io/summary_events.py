"""TensorBoard event files, written without protobuf: TFRecord framing and the few messages TensorBoard reads.

An event file is a sequence of TFRecords, each `uint64 length | masked crc32c(length) | data |
masked crc32c(data)` (little endian), and each record's data is a serialized `Event` message. The first
event of a file carries `file_version: "brain.Event:2"`; the others carry a `Summary` with one value
holding a `TensorProto` and its `SummaryMetadata` (the plugin that displays it).

Messages are encoded by hand with the protobuf wire format, fields in field-number order and proto3
defaults (zero, empty) left out, which is how TensorFlow's writer lays them out byte for byte:

    Event          wall_time=1 (double), step=2 (int64), file_version=3 (string), graph_def=4 (bytes: a
                   serialized GraphDef), summary=5, source_metadata=10 { writer=1 (string) }
    RunMetadata    function_graphs=4 { pre_optimization_graph=2, post_optimization_graph=3 (GraphDef) }
                   (what `tf.summary.trace_export` writes, as a string tensor, for TensorBoard's graphs)
    Summary        value=1 (repeated Value)
    Value          tag=1 (string), tensor=8 (TensorProto), metadata=9 (SummaryMetadata)
    SummaryMetadata plugin_data=1 { plugin_name=1, content=2 (bytes) }, summary_description=3
    TensorProto    dtype=1 (enum), tensor_shape=2 { dim=2 { size=1 } }, tensor_content=4, string_val=8
"""
import os
import platform
import struct
import time
import weakref

import numpy as np

from .formats.crc32c import masked_crc32c  # noqa: F401  (part of this module's __all__)
from .formats.tfrecord import frame

__all__ = ["EventFileWriter", "encode_summary_metadata", "masked_crc32c", "frame_record", "event_file_name",
           "encode_run_metadata"]

FILE_VERSION = b"brain.Event:2"
SOURCE_WRITER = b"tensorflux.summary_events"


# Event files are TFRecord files: CRC-32C and record framing come from the formats room.
frame_record = frame


# -- protobuf wire format --------------------------------------------------------------------------

_VARINT, _FIXED64, _LENGTH_DELIMITED = 0, 1, 2


def _varint(value):
    value &= 0xFFFFFFFFFFFFFFFF  # negative int64s are sent as their 64-bit two's complement
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _key(field, wire_type):
    return _varint((field << 3) | wire_type)


def _bytes_field(field, payload):
    return _key(field, _LENGTH_DELIMITED) + _varint(len(payload)) + payload


def _optional_bytes_field(field, payload):
    return _bytes_field(field, payload) if payload else b""


def _varint_field(field, value):
    return _key(field, _VARINT) + _varint(value) if value else b""


def _double_field(field, value):
    return _key(field, _FIXED64) + struct.pack("<d", value) if value else b""


# TensorFlow's DataType enum values, by NumPy dtype (strings are NumPy object arrays of bytes).
_DATA_TYPES = {np.dtype(np.float32): 1, np.dtype(np.float64): 2, np.dtype(np.int32): 3, np.dtype(np.uint8): 4,
               np.dtype(np.int16): 5, np.dtype(np.int8): 6, np.dtype(object): 7, np.dtype(np.int64): 9,
               np.dtype(np.bool_): 10, np.dtype(np.uint16): 17, np.dtype(np.float16): 19,
               np.dtype(np.uint32): 22, np.dtype(np.uint64): 23}
_DT_STRING = 7


def _tensor_proto(array):
    data_type = _DATA_TYPES.get(array.dtype)
    if data_type is None:
        raise TypeError(f"Summaries cannot hold tensors of NumPy dtype {array.dtype}")
    shape = b"".join(_bytes_field(2, _varint_field(1, size)) for size in array.shape)
    encoded = _varint_field(1, data_type) + _bytes_field(2, shape)
    if data_type == _DT_STRING:
        return encoded + b"".join(_bytes_field(8, _as_bytes(item)) for item in array.reshape(-1))
    little_endian = array.astype(array.dtype.newbyteorder("<"), copy=False)
    return encoded + _optional_bytes_field(4, np.ascontiguousarray(little_endian).tobytes())


def _as_bytes(item):
    return item.encode("utf-8") if isinstance(item, str) else bytes(item)


def encode_summary_metadata(plugin_name, content=b"", description=None):
    """A serialized SummaryMetadata naming the TensorBoard plugin that displays the value."""
    plugin_data = _bytes_field(1, plugin_name.encode("utf-8")) + _optional_bytes_field(2, content)
    return _bytes_field(1, plugin_data) + _optional_bytes_field(3, (description or "").encode("utf-8"))


def _summary_event(wall_time, step, tag, array, metadata):
    value = _bytes_field(1, tag.encode("utf-8")) + _bytes_field(8, _tensor_proto(array))
    value += _optional_bytes_field(9, metadata)
    return _double_field(1, wall_time) + _varint_field(2, step) + _bytes_field(5, _bytes_field(1, value))


def encode_run_metadata(graph_defs):
    """A serialized RunMetadata holding one FunctionGraphs entry per serialized GraphDef (the graph before
    and after optimisation, which are the same graph in tensorflux)."""
    return b"".join(_bytes_field(4, _bytes_field(2, g) + _bytes_field(3, g)) for g in graph_defs)


def _graph_event(wall_time, graph_def):
    return _double_field(1, wall_time) + _bytes_field(4, graph_def)


def _file_version_event(wall_time):
    return (_double_field(1, wall_time) + _bytes_field(3, FILE_VERSION)
            + _bytes_field(10, _bytes_field(1, SOURCE_WRITER)))


# -- the writer ------------------------------------------------------------------------------------

_files_created = [0]  # numbers the event files of this process, as TensorFlow does across all writers


def event_file_name(wall_time, suffix):
    """`events.out.tfevents.<seconds>.<host>.<pid>.<n><suffix>`; the suffix always starts with a dot."""
    number = _files_created[0]
    _files_created[0] += 1
    if not suffix.startswith("."):
        suffix = "." + suffix
    return f"events.out.tfevents.{int(wall_time):010d}.{platform.node()}.{os.getpid()}.{number}{suffix}"


class _PendingRecords:
    """The open file and the records not yet written to it; shared with the finalizer that flushes them
    when the writer is garbage collected or the interpreter exits."""

    def __init__(self, file):
        self.file = file
        self.records = []

    def flush(self):
        if self.records:
            self.file.write(b"".join(self.records))
            self.records.clear()
        self.file.flush()

    def close(self):
        if not self.file.closed:
            self.flush()
            self.file.close()


class EventFileWriter:
    """Appends summary events to a new event file in `logdir`.

    Events are queued and written once more than `max_queue` are pending or `flush_millis` have passed
    since the last flush (checked when an event arrives), and always on `flush()` and `close()`.
    """

    def __init__(self, logdir, max_queue=10, flush_millis=120000, filename_suffix=".v2"):
        os.makedirs(logdir, exist_ok=True)
        created = time.time()
        self.path = os.path.join(logdir, event_file_name(created, filename_suffix))
        self._max_queue = max_queue
        self._flush_seconds = flush_millis / 1000.0
        self._pending = _PendingRecords(open(self.path, "wb"))
        self._finalizer = weakref.finalize(self, self._pending.close)
        # TensorFlow stamps the version event with whole seconds, the same time as in the file name.
        self._pending.records.append(frame_record(_file_version_event(float(int(created)))))
        self.flush()

    @property
    def closed(self):
        return not self._finalizer.alive

    def write_summary(self, step, tag, array, metadata):
        now = time.time()
        self._pending.records.append(frame_record(_summary_event(now, step, tag, array, metadata)))
        if len(self._pending.records) > self._max_queue or now - self._last_flush >= self._flush_seconds:
            self.flush()

    def write_graph(self, graph_def):
        """Appends an Event holding a serialized GraphDef (`tf.summary.graph`), flushing as summaries do."""
        now = time.time()
        self._pending.records.append(frame_record(_graph_event(now, graph_def)))
        if len(self._pending.records) > self._max_queue or now - self._last_flush >= self._flush_seconds:
            self.flush()

    def flush(self):
        if not self.closed:
            self._pending.flush()
            self._last_flush = time.time()

    def close(self):
        self._finalizer()
