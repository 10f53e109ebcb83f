"""`tf.summary`: TensorBoard summaries written to event files, eagerly and from inside tf.functions.

A summary call looks at three pieces of per-thread state, as TensorFlow does: the default writer (set by
`writer.as_default()`), the default step (`tf.summary.experimental.set_step`) and the recording condition
(`tf.summary.record_if`). Without a default writer, or with a condition known to be false, a call writes
nothing and returns False. Otherwise it adds one stateful `WriteSummary` op, so the write happens each
time a traced function runs, in program order, with the step (often a `tf.Variable`) and a tensor
condition read when the op runs. The op's kernel turns the data into the tensor TensorBoard's plugin
expects (histogram buckets, PNG images) only when it records, and returns whether it did.

Graphs (TensorBoard's Graphs dashboard): `graph(g)` writes an Event holding the GraphDef of a graph
(exported by io/formats/graph_export.py, with TensorFlow's op names and attrs); `trace_on()` records every
traced function a program calls eagerly until `trace_export(name, step)` writes their graphs as one
RunMetadata string tensor (plugin "graph_run_metadata_graph") and ends the trace, as TensorFlow does.

Each plugin writes what TensorBoard's own `tf.summary` functions write: scalars as float32 tensors
(plugin "scalars"), histograms as float64 `[buckets, 3]` tensors of `[left, right, count]` ("histograms"),
text as string tensors ("text"), images as `[width, height, png, ...]` string tensors ("images").
"""
import contextlib
import logging
import re
import threading

import numpy as np

from ..framework import errors
from ..framework.context import name_scope, state as _context
from ..framework.tensor import Tensor
from ..ops.convert import convert_to_tensor
from ..ops.logging import assert_scalar
from ..ops.math.arith import cast
from ..ops.registry import OpDef, apply
from .codecs import png_encode
from .summary_events import EventFileWriter, encode_run_metadata, encode_summary_metadata
from ..types import dtypes as _dt
from ..types.shape import TensorShape

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "write", "scalar", "histogram", "text",
           "image", "flush", "record_if", "should_record_summaries", "set_step", "get_step", "summary_scope",
           "graph", "trace_on", "trace_off", "trace_export"]

NO_STEP_MESSAGE = ("No step set. Please specify one either through the `step` argument or through "
                   "tf.summary.experimental.set_step()")
DEFAULT_HISTOGRAM_BUCKETS = 30


class _SummaryState(threading.local):
    def __init__(self):
        self.writer = None
        self.step = None
        self.record_condition = True


_state = _SummaryState()


# -- writers ---------------------------------------------------------------------------------------

class SummaryWriter:
    """`tf.summary.SummaryWriter`: the interface of summary writers."""

    def set_as_default(self, step=None):
        """Makes this the default writer (and `step`, when given, the default step) from now on."""
        _state.writer = self
        if step is not None:
            _state.step = step

    @contextlib.contextmanager
    def as_default(self, step=None):
        """Makes this the default writer inside the `with` block, and flushes it when the block ends."""
        previous_writer, previous_step = _state.writer, _state.step
        try:
            self.set_as_default(step)
            yield self
            self.flush()
        finally:
            _state.writer, _state.step = previous_writer, previous_step

    def init(self):
        """Writers are ready when created; kept for TensorFlow's interface."""

    def flush(self):
        raise NotImplementedError

    def close(self):
        raise NotImplementedError


class _FileSummaryWriter(SummaryWriter):
    """Writes to one event file created in `logdir` when the writer is created."""

    def __init__(self, logdir, max_queue, flush_millis, filename_suffix):
        self._events = EventFileWriter(logdir, max_queue=max_queue, flush_millis=flush_millis,
                                       filename_suffix=filename_suffix)

    @property
    def event_file_path(self):
        return self._events.path

    def flush(self):
        """Writes queued events to disk: at once eagerly, each time the function runs in a tf.function."""
        if _context.graph is None:
            self._events.flush()
            return None
        return apply(FLUSH_SUMMARY_WRITER, (), {"writer": self._events}, "FlushSummaryWriter")

    def close(self):
        """Flushes and closes the event file; writing to a closed writer raises NotFoundError."""
        self._events.close()


class _NoopSummaryWriter(SummaryWriter):
    """A writer that records nothing: being the default writer changes neither writer nor step."""

    @contextlib.contextmanager
    def as_default(self, step=None):
        yield self

    def set_as_default(self, step=None):
        pass

    def flush(self):
        pass

    def close(self):
        pass


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None):
    """`tf.summary.create_file_writer`: a writer to a new event file in `logdir` (created if missing).

    Events are written to disk once more than `max_queue` (10) are queued, `flush_millis` (120000) after
    the last flush, on `flush()`, when an `as_default()` block ends, and on `close()`.
    """
    if isinstance(logdir, Tensor):
        logdir = logdir.numpy()
    if isinstance(logdir, bytes):
        logdir = logdir.decode("utf-8")
    return _FileSummaryWriter(str(logdir), 10 if max_queue is None else int(max_queue),
                              120000 if flush_millis is None else int(flush_millis),
                              ".v2" if filename_suffix is None else str(filename_suffix))


def create_noop_writer():
    """`tf.summary.create_noop_writer`: a writer whose summaries go nowhere."""
    return _NoopSummaryWriter()


def flush(writer=None, name=None):
    """`tf.summary.flush`: flushes `writer`, or the default writer."""
    writer = _state.writer if writer is None else writer
    if writer is None:
        return None
    return writer.flush()


# -- step and recording condition ------------------------------------------------------------------

def set_step(step):
    """`tf.summary.experimental.set_step`: the step used when a summary call is given none (an int, a
    tensor, or a `tf.Variable` read each time a summary is written)."""
    _state.step = step


def get_step():
    """`tf.summary.experimental.get_step`: the default step, or None."""
    return _state.step


@contextlib.contextmanager
def record_if(condition):
    """`tf.summary.record_if`: summaries inside record only while `condition` (a bool, a boolean tensor
    evaluated when the summary op runs, or a callable returning either) holds."""
    previous = _state.record_condition
    _state.record_condition = condition
    try:
        yield
    finally:
        _state.record_condition = previous


def _default_file_writer():
    writer = _state.writer
    return writer if isinstance(writer, _FileSummaryWriter) else None


def _recording_condition():
    """False, True, or a boolean scalar tensor when it is only known when the op runs."""
    if _default_file_writer() is None:
        return False
    condition = _state.record_condition
    if callable(condition):
        condition = condition()
    if isinstance(condition, Tensor):
        if _context.graph is None:
            return bool(condition.numpy())
        return cast(condition, _dt.bool) if condition.dtype is not _dt.bool else condition
    return bool(condition)


def should_record_summaries():
    """`tf.summary.should_record_summaries`: a boolean tensor, whether summaries would be written now."""
    return convert_to_tensor(_recording_condition(), dtype=_dt.bool)


# -- the WriteSummary op ---------------------------------------------------------------------------

def _write_summary_kernel(should_record, step, data, writer, tag, metadata, encode):
    if should_record:
        if writer.closed:
            raise errors.NotFoundError(None, None, f"Resource summary writer for {writer.path} does not exist.")
        writer.write_summary(int(step), tag, data if encode is None else encode(data), metadata)
    return np.array(bool(should_record))


def _infer_write_summary(inputs, attrs):
    return [(_dt.bool, TensorShape([]))]


def _flush_kernel(writer):
    writer.flush()
    return ()


WRITE_SUMMARY = OpDef("WriteSummary", _infer_write_summary, _write_summary_kernel, stateful=True,
                      input_names=("should_record", "step", "tensor"))
FLUSH_SUMMARY_WRITER = OpDef("FlushSummaryWriter", lambda inputs, attrs: [], _flush_kernel, stateful=True,
                             multi=True)


def _write(tag, data, step, metadata, encode=None, check=None):
    """Adds (or runs) a WriteSummary of `data` under `tag`, unless nothing would be recorded.

    `data` may be a callable, called only when recording; `check(data)` validates it then; `encode`
    maps the NumPy value to the tensor TensorBoard's plugin reads, each time the op records.
    """
    condition = _recording_condition()
    if condition is False:
        return convert_to_tensor(False)
    step = _state.step if step is None else step
    if step is None:
        raise ValueError(NO_STEP_MESSAGE)
    step = convert_to_tensor(step, dtype=_dt.int64)
    data = convert_to_tensor(data() if callable(data) else data)
    if check is not None:
        check(data)
    attrs = {"writer": _default_file_writer()._events, "tag": tag, "metadata": metadata, "encode": encode}
    should_record = convert_to_tensor(condition, dtype=_dt.bool)
    return apply(WRITE_SUMMARY, (should_record, step, data), attrs, "write_summary")


def write(tag, tensor, step=None, metadata=None, name=None):
    """`tf.summary.write`: writes `tensor` (or the result of calling it) under `tag` exactly as given.

    `metadata` is a serialized SummaryMetadata (bytes), or None.
    """
    with name_scope(name or "write_summary"):
        return _write(str(tag), tensor, step, bytes(metadata or b""))


_INVALID_SCOPE_CHARACTERS = re.compile(r"[^-/\w.]")


@contextlib.contextmanager
def summary_scope(name, default_name="summary", values=None):
    """`tf.summary.experimental.summary_scope`: yields `(tag, scope)`; the tag is `name` under the
    enclosing name scopes, never made unique; the scope is a name scope for the ops."""
    name = name or default_name
    graph = _context.graph
    enclosing = _context.name_stack if graph is None else graph._name_stack
    tag = enclosing + name
    with name_scope(_INVALID_SCOPE_CHARACTERS.sub("", name) or default_name) as scope:
        yield tag, scope


# -- plugins ---------------------------------------------------------------------------------------

def scalar(name, data, step=None, description=None):
    """`tf.summary.scalar`: writes `data`, a real scalar, as float32 (TensorBoard's Scalars dashboard)."""
    with summary_scope(name, "scalar_summary") as (tag, _):
        data = assert_scalar(data)
        return _write(tag, cast(data, _dt.float32), step, encode_summary_metadata("scalars", b"", description))


def _histogram_buckets(data, bucket_count):
    """`[bucket_count, 3]` float64 rows `[left_edge, right_edge, count]` of equal width from min to max;
    empty data gives zero rows; a single distinct value gives zero-width buckets, all counted in the last."""
    values = np.asarray(data, dtype=np.float64).reshape(-1)
    if values.size == 0 or bucket_count == 0:
        return np.zeros((bucket_count, 3), dtype=np.float64)
    low, high = values.min(), values.max()
    if low == high:
        counts = np.zeros(bucket_count)
        counts[-1] = values.size
        return np.stack([np.full(bucket_count, high), np.full(bucket_count, high), counts], axis=1)
    width = (high - low) / bucket_count
    indices = np.minimum(np.floor((values - low) / width).astype(np.int64), bucket_count - 1)
    counts = np.bincount(indices, minlength=bucket_count).astype(np.float64)
    edges = np.linspace(low, high, bucket_count + 1)
    edges[-1] = high
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


def histogram(name, data, step=None, buckets=None, description=None):
    """`tf.summary.histogram`: writes the distribution of `data` in `buckets` (30) equal-width buckets."""
    bucket_count = max(0, int(DEFAULT_HISTOGRAM_BUCKETS if buckets is None else buckets))

    def check(data):
        if data.dtype is _dt.string:
            raise errors.UnimplementedError(None, "Cast", "Cast string to double is not supported")

    with summary_scope(name, "histogram_summary") as (tag, _):
        return _write(tag, data, step, encode_summary_metadata("histograms", b"", description),
                      encode=lambda values: _histogram_buckets(values, bucket_count), check=check)


def text(name, data, step=None, description=None):
    """`tf.summary.text`: writes a string tensor (rendered as Markdown by TensorBoard's Text dashboard)."""
    with summary_scope(name, "text_summary") as (tag, _):
        data = convert_to_tensor(data)
        if data.dtype is not _dt.string:
            raise TypeError(f"tensor must be of type tf.string; got {data.dtype!r}")
        return _write(tag, data, step, encode_summary_metadata("text", b"", description))


def encode_png(pixels):
    """A PNG file of an 8-bit `[height, width, channels]` image (the codec `tf.io.encode_png` uses)."""
    return png_encode.encode_batch(pixels).item()


def _as_uint8_pixels(images):
    """TensorFlow's `convert_image_dtype(images, uint8, saturate=True)`: floats in [0, 1] scale to
    [0, 255] (saturating, truncated); wider integers keep their top 8 bits."""
    if images.dtype == np.uint8:
        return images
    if images.dtype.kind == "f":
        return np.clip(images * images.dtype.type(255.5), 0, 255).astype(np.uint8)
    if images.dtype.kind in "iu" and np.iinfo(images.dtype).max > 255:
        return (images // ((int(np.iinfo(images.dtype).max) + 1) // 256)).astype(np.uint8)
    # Narrower types (int8) saturate negatives to 0, then scale up to the 8-bit range.
    return np.clip(images, 0, None).astype(np.uint8) * (256 // (int(np.iinfo(images.dtype).max) + 1))


def _image_strings(images, max_outputs):
    shown = _as_uint8_pixels(images[:max_outputs])
    dimensions = [str(images.shape[2]).encode(), str(images.shape[1]).encode()]
    strings = np.empty(2 + len(shown), dtype=object)
    strings[:] = dimensions + [encode_png(image) for image in shown]
    return strings


def _check_rank(data, rank):
    """The ValueError TensorBoard's image and audio summaries raise for a batch of another rank."""
    if data.shape.rank != rank:
        tensor_name = "" if _context.graph is None else data.name
        raise ValueError(f"Tensor {tensor_name} must have rank {rank}.  Received rank {data.shape.rank}, "
                         f"shape {data.shape}")


def image(name, data, step=None, max_outputs=3, description=None):
    """`tf.summary.image`: writes up to `max_outputs` images of a `[k, height, width, channels]` batch as
    PNGs (floats are taken to lie in [0, 1])."""
    max_outputs = int(max_outputs)

    def check(data):
        _check_rank(data, 4)
        if max_outputs < 0:
            raise errors.InvalidArgumentError(None, None, "max_outputs must be non-negative")

    with summary_scope(name, "image_summary") as (tag, _):
        return _write(tag, data, step, encode_summary_metadata("images", b"", description),
                      encode=lambda images: _image_strings(images, max_outputs), check=check)


_AUDIO_WAV = b"\x10\x0b"   # TensorBoard's AudioPluginData: version 0, encoding WAV (11)


def _audio_strings(clips, sample_rate, max_outputs):
    """`[k, 2]` strings: each clip as a 16-bit PCM WAV file (tf.audio.encode_wav's bytes) and an empty label."""
    from .audio import _encode_wav_kernel
    shown = clips[:max_outputs]
    strings = np.empty((len(shown), 2), dtype=object)
    for i, clip in enumerate(shown):
        strings[i] = (_encode_wav_kernel(clip, sample_rate).item(), b"")
    return strings


def audio(name, data, sample_rate, step=None, max_outputs=3, encoding=None, description=None):
    """`tf.summary.audio`: writes up to `max_outputs` clips of a `[k, frames, channels]` float batch (samples
    in [-1, 1]) as WAV files for TensorBoard's audio plugin."""
    if encoding is None:
        encoding = "wav"
    if encoding != "wav":
        raise ValueError(f"Unknown encoding: {encoding!r}")
    max_outputs, rate = int(max_outputs), int(np.asarray(getattr(sample_rate, "numpy", lambda: sample_rate)()))

    def check(data):
        _check_rank(data, 3)
        if max_outputs < 0:     # TensorBoard's audio summary asserts it (tf.debugging.assert_non_negative)
            raise errors.InvalidArgumentError(None, None, f"\nCondition x >= 0 did not hold element-wise:\nx (shape=() "
                                                          f"dtype=int32) = \n{max_outputs}")

    with summary_scope(name, "audio_summary") as (tag, _):
        return _write(tag, data, step, encode_summary_metadata("audio", _AUDIO_WAV, description),
                      encode=lambda clips: _audio_strings(clips, rate, max_outputs), check=check)


# -- graphs ----------------------------------------------------------------------------------------

_logger = logging.getLogger("tensorflow")


def _graph_def_bytes(graph_data):
    """The serialized GraphDef of a tf.Graph (tensorflux's) or of a GraphDef message, or None."""
    from ..framework.graph import Graph
    if isinstance(graph_data, Graph):
        from .formats.graph_export import export_graph_def
        return export_graph_def(graph_data).SerializeToString()
    descriptor = getattr(graph_data, "DESCRIPTOR", None)
    if getattr(descriptor, "full_name", None) == "tensorflow.GraphDef" and hasattr(graph_data, "SerializeToString"):
        return graph_data.SerializeToString()
    return None


def graph(graph_data):
    """`tf.summary.graph`: writes a `tf.Graph` (e.g. `f.get_concrete_function().graph`) or a GraphDef
    message to the default writer as a graph event; eager only. Returns whether it was written."""
    if _context.graph is not None:
        raise ValueError("graph() cannot be invoked inside a graph context.")
    writer = _state.writer
    if writer is None or not isinstance(writer, _FileSummaryWriter) or _recording_condition() is False:
        return convert_to_tensor(False)
    data = _graph_def_bytes(graph_data)
    if data is None:
        raise ValueError(f"Argument 'graph_data' is not tf.Graph or tf.compat.v1.GraphDef. Received "
                         f"graph_data={graph_data} of type {type(graph_data).__name__}.")
    if writer._events.closed:
        raise errors.NotFoundError(None, None, f"Resource summary writer for {writer._events.path} does not exist.")
    writer._events.write_graph(data)
    return convert_to_tensor(True)


class _Trace:
    """The trace started by `trace_on`: the concrete functions called eagerly since, in call order.

    While a trace runs, the call methods of tf.function and ConcreteFunction are wrapped to note what
    runs; the wrappers are removed when it ends, so calls cost nothing extra when no trace is on.
    """

    def __init__(self, graphs, profiler):
        self.graphs = graphs
        self.profiler = profiler
        self.functions = []
        self._seen = set()
        self._originals = []

    def note(self, concrete):
        if id(concrete) not in self._seen:
            self._seen.add(id(concrete))
            self.functions.append(concrete)

    def start(self):
        from ..function.concrete import ConcreteFunction
        from ..function.polymorphic import Function
        trace = self

        def function_call(fn, *args, **kwargs):
            result = original_function_call(fn, *args, **kwargs)
            if _context.graph is None and not _context.run_eagerly:
                try:
                    trace.note(fn._concrete_for_call(args, kwargs)[0])
                except Exception:  # noqa: BLE001 (the call succeeded; a function it cannot name is not recorded)
                    pass
            return result

        def concrete_call(cf, *args, **kwargs):
            if _context.graph is None:
                trace.note(cf)
            return original_concrete_call(cf, *args, **kwargs)

        original_function_call, original_concrete_call = Function.__call__, ConcreteFunction.__call__
        self._originals = [(Function, original_function_call), (ConcreteFunction, original_concrete_call)]
        Function.__call__ = function_call
        ConcreteFunction.__call__ = concrete_call

    def stop(self):
        for cls, original in self._originals:
            cls.__call__ = original
        self._originals = []


_trace_lock = threading.Lock()
_current_trace = [None]


def trace_on(graph=True, profiler=False, profiler_outdir=None):
    """`tf.summary.trace_on`: starts recording the graphs of the tf.functions the program calls (eagerly),
    for `trace_export`; with `profiler=True` and a `profiler_outdir`, also runs the profiler
    (`tf.profiler.experimental`), whose profile `trace_export`/`trace_off` write there."""
    if _context.graph is not None:
        _logger.warning("Cannot enable trace inside a tf.function.")
        return
    with _trace_lock:
        if _current_trace[0] is not None:
            _logger.warning("Trace already enabled")
            return
        if profiler:
            if profiler_outdir is None:
                _logger.warning("No `profiler_outdir` passed to trace_on(). Profiler won't be enabled.")
            else:
                from ..runtime import profiler as _profiler
                _profiler.start(profiler_outdir)
        trace = _Trace(bool(graph) or bool(profiler), bool(profiler))
        if trace.graphs:
            trace.start()
        _current_trace[0] = trace


def trace_off():
    """`tf.summary.trace_off`: stops the trace without writing anything."""
    with _trace_lock:
        trace, _current_trace[0] = _current_trace[0], None
    if trace is not None:
        trace.stop()
        if trace.profiler:
            from ..runtime import profiler as _profiler
            try:
                _profiler.stop()
            except Exception as e:   # as TensorFlow: already stopped by trace_export, or never started
                _logger.warning("Error while stopping profiler: %s", e)


def trace_export(name, step=None, profiler_outdir=None):
    """`tf.summary.trace_export`: writes the graphs recorded since `trace_on` under `name` at `step` to the
    default writer (nothing without one) and stops the trace."""
    if _context.graph is not None:
        _logger.warning("Cannot export trace inside a tf.function.")
        return None
    with _trace_lock:
        trace = _current_trace[0]
    if trace is None:
        raise ValueError("Must enable trace before export through tf.summary.trace_on.")
    if profiler_outdir:
        _logger.warning("Ignoring `profiler_outdir` passed to trace_export(). Please pass it to trace_on() "
                        "instead.")
    if _default_file_writer() is not None:
        from .formats.graph_export import ExportError, export_graph_def
        if step is None and _state.step is None:
            raise ValueError(NO_STEP_MESSAGE)
        trace.stop()  # exporting must not record itself
        graphs = []
        for cf in trace.functions:
            try:
                graphs.append(export_graph_def(cf).SerializeToString())
            except ExportError as e:   # e.g. a gradient helper op with no TensorFlow form: keep the others
                _logger.warning("trace_export: the graph of %s is left out: %s", getattr(cf, "name", cf), e)
        metadata = encode_run_metadata(graphs)
        plugin = "graph_run_metadata_graph" if trace.graphs and not trace.profiler else "graph_run_metadata"
        with summary_scope(name, "graph_run_metadata_graph_summary") as (tag, _):
            _write(tag, np.array(metadata, dtype=object), step, encode_summary_metadata(plugin, b"1"))
    if trace.profiler:    # TensorFlow stops (and saves) the profiler here, raising if none was started
        from ..runtime import profiler as _profiler
        _profiler.stop()  # (on that error the trace stays on, as in TensorFlow)
    trace_off()
    return None


API = {
    "summary": ["SummaryWriter", "create_file_writer", "create_noop_writer", "write", "scalar", "histogram", "audio",
                "text", "image", "flush", "record_if", "should_record_summaries", "graph", "trace_on",
                "trace_off", "trace_export"],
    "summary.experimental": ["set_step", "get_step", "summary_scope"],
}
