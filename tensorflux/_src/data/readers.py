"""The file sources of tf.data: `tf.data.TextLineDataset`, `tf.data.TFRecordDataset` and `Dataset.list_files`
(local files)."""
import os

import numpy as np

from ..io import gfile as io_ops
from ..io.formats import tfrecord
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import Tensor
from ..ops import convert as _convert
from ..types import dtypes as _dt
from ..types.spec import TensorSpec
from .dataset import Dataset
from .graph_values import deferred, note_file_reader
from .sharding import file_share, shard_file_names

__all__ = ["TextLineDataset", "TFRecordDataset", "list_files"]


def _string_tensor(value, argument):
    tensor = value if isinstance(value, Tensor) else _convert.convert_to_tensor(value)
    if tensor.dtype != _dt.string:
        raise TypeError(f"The `{argument}` argument must contain `tf.string` elements. Got `{tensor.dtype!r}` "
                        f"elements.")
    return tensor


def _strings(value, argument):
    """The bytes in `value` (a string, a list of them or a string tensor of any shape)."""
    return list(np.asarray(_string_tensor(value, argument)).ravel())


def _file_names(value, argument):
    """A function giving the file names in `value` when the reader starts: a symbolic tensor (a name given
    by `flat_map`/`interleave`, traced once) is read when the graph runs."""
    tensor = _string_tensor(value, argument)
    later = deferred([tensor])
    if later is not None:
        return lambda: list(later()[0].ravel())
    names = list(np.asarray(tensor).ravel())
    return lambda: names


def _names_dataset(names):
    return Dataset(TensorSpec([], _dt.string), lambda: ([np.array(p, dtype=object)] for p in names()),
                   "_TensorSliceDataset")


def _lines(path):
    """A file's lines as scalar strings, without their '\\n' and with every '\\r' removed (as TensorFlow)."""
    lines = io_ops.read_local_file(os.fsdecode(path)).split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    for line in lines:
        yield [np.array(line.replace(b"\r", b""), dtype=object)]


def TextLineDataset(filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
    """The lines of the files `filenames`, file after file; with `num_parallel_reads`, lines of that many
    files in turn (TensorFlow's order). Files are read when iterated."""
    if compression_type not in (None, ""):
        raise NotImplementedError(f"TextLineDataset reads uncompressed files only; compression_type="
                                  f"{compression_type!r} is not supported.")
    paths = _file_names(filenames, "filenames")
    if num_parallel_reads is not None:
        return shard_file_names(_names_dataset(paths)).interleave(
            TextLineDataset, cycle_length=num_parallel_reads, num_parallel_calls=num_parallel_reads)
    note_file_reader()       # a flat_map/interleave making this reader shards its input under FILE
    return Dataset(TensorSpec([], _dt.string),
                   lambda: (line for path in file_share(paths()) for line in _lines(path)),
                   "TextLineDatasetV2")


def _records(path, compression):
    """The records of one TFRecord file as scalar strings; read lazily, so a bad record fails when reached."""
    path = os.fsdecode(path)
    try:
        f = open(path, "rb")
    except OSError as error:
        raise io_ops.file_error(error, path) from None
    with f:
        for record in tfrecord.iter_records(f, compression):
            yield [np.array(record, dtype=object)]


def TFRecordDataset(filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
    """The records of the TFRecord files `filenames` (a string, a list of them, a string tensor or a dataset
    of strings), file after file; with `num_parallel_reads`, records of that many files in turn. Bad
    records raise DataLossError when reached, as TensorFlow's reader does."""
    if isinstance(filenames, Dataset):
        if filenames.element_spec != TensorSpec([], _dt.string):
            raise TypeError(f"The `filenames` argument must contain `tf.string` elements. Got a dataset of "
                            f"`{filenames.element_spec!r}` elements.")
        read = lambda path: TFRecordDataset(path, compression_type)  # noqa: E731
        filenames = shard_file_names(filenames)      # one worker's names under AutoShardPolicy.FILE
        if num_parallel_reads is None:
            return filenames.flat_map(read)
        return filenames.interleave(read, cycle_length=num_parallel_reads, num_parallel_calls=num_parallel_reads)
    paths = _file_names(filenames, "filenames")
    if num_parallel_reads is not None:
        return TFRecordDataset(_names_dataset(paths), compression_type, buffer_size, num_parallel_reads)
    compression = compression_type.numpy() if isinstance(compression_type, Tensor) else compression_type
    note_file_reader()       # a flat_map/interleave making this reader shards its input under FILE

    def arrays():
        # The compression type is checked when the dataset is iterated (where TensorFlow's kernel checks it).
        for path in file_share(paths()):     # one worker's files under AutoShardPolicy.FILE
            yield from _records(path, compression)

    return Dataset(TensorSpec([], _dt.string), arrays, "TFRecordDatasetV2")


def list_files(file_pattern, shuffle, seed):
    """The files matching the pattern(s), sorted, then shuffled unless `shuffle` is False. The files are
    matched when the dataset is made, so its cardinality is known."""
    patterns = _strings(file_pattern, "file_pattern")
    matches = sorted(os.fsencode(m) for p in patterns for m in io_ops.glob(p))
    if not matches:
        summary = b"No files matched pattern: " + b", ".join(patterns)
        raise InvalidArgumentError(None, None, f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
                                               f"Summarized data: {summary!r}")
    files = Dataset.from_tensor_slices(np.array(matches, dtype=object))
    # Under AutoShardPolicy.FILE each worker keeps every N-th name (after the shuffle, as TensorFlow shards).
    return shard_file_names(files if shuffle is False else files.shuffle(len(matches), seed=seed))


API = {"data": ["TFRecordDataset"]}
