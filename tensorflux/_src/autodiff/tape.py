"""`tf.GradientTape`: records the ops that touch watched tensors, then differentiates them in reverse.

Recording is the registry's tape hook: every op executed (eagerly) or added to the current graph (inside
a tf.function) while a tape is recording is kept when one of its inputs is watched, and its outputs
become watched. Trainable variables are watched when read (`watch_accessed_variables=True`): their
`ReadVariableOp` inputs the variable's handle, and the handle is what the tape differentiates against.

    with tf.GradientTape() as tape:
        y = x * x
    tape.gradient(y, x)      # 2x
"""
import enum
import logging
import sys

from ..framework import errors, nest
from ..framework.context import state as _state
from ..framework.tensor import Tensor
from ..ops import array as _array
from ..ops.array import creation as _creation
from ..ops import registry
from ..ops.convert import convert_to_tensor
from ..types import dtypes as _dt
from .backprop import Record, backprop

__all__ = ["GradientTape", "UnconnectedGradients", "active_tapes"]


class UnconnectedGradients(enum.Enum):
    NONE = "none"
    ZERO = "zero"


# TensorFlow's warning (on its "tensorflow" logger, at every such call) when a persistent tape computes a
# gradient inside its own `with` block: the gradient's ops are then recorded too (so they can be
# differentiated again), which costs time and memory when no higher-order gradient is wanted.
_GRADIENT_INSIDE_CONTEXT = (
    "Calling GradientTape.gradient on a persistent tape inside its context is significantly less efficient "
    "than calling it outside the context (it causes the gradient ops to be recorded on the tape, leading to "
    "increased CPU and memory usage). Only call GradientTape.gradient inside the context if you actually want "
    "to trace the gradient in order to compute higher order derivatives.")


_warned_call_sites = set()


def _warn_once_per_call_site():
    """The warning above, once per (file, line) calling `gradient` -- TensorFlow's `log_first_n` token: a
    loop warns once, every distinct line of user code once."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    site = (frame.f_code.co_filename, frame.f_lineno) if frame is not None else None
    if site not in _warned_call_sites:
        _warned_call_sites.add(site)
        logging.getLogger("tensorflow").warning(_GRADIENT_INSIDE_CONTEXT)


def active_tapes():
    return list(_state.tapes)


def _refresh_flag():
    _state.tape_active = any(t._recording for t in _state.tapes)


def _record(opdef, inputs, attrs, outputs):
    """The registry's tape hook: called for every op while some tape records."""
    multi = isinstance(outputs, tuple)
    outs = outputs if multi else (outputs,)
    graph = _state.graph
    record = None
    for tape in _state.tapes:
        if not tape._recording or tape._graph is not graph:
            continue
        if tape._watch_accessed:
            for t in inputs:
                if t.dtype is _dt.resource:
                    variable = _variable_of(t, graph)
                    if variable is not None and variable.trainable:
                        tape._watch_variable(variable)
        if not any(id(t) in tape._watched for t in inputs):
            continue
        if record is None:
            record = outs[0].op if graph is not None else Record(opdef, tuple(inputs), outs, attrs)
        tape._records.append(record)
        for t in outs:
            tape._watched[id(t)] = t


registry.register_tape_hook(_record)


def _variable_of(handle, graph):
    variable = getattr(handle, "_variable", None)
    if variable is None and graph is not None:
        variable = graph.variable_of(handle) if hasattr(graph, "variable_of") else None
    return variable


def variable_handle_in(graph, variable):
    """What stands for `variable` in `graph` (None: eagerly): its handle, or the placeholder that captures it."""
    handle = variable.handle
    if graph is not None and getattr(handle, "op", None) is None:
        return graph._graph_input(handle)  # the captured placeholder standing for the handle
    return handle


def _is_variable(x):
    return getattr(x, "_is_variable", False)


class GradientTape:
    """Records operations for automatic differentiation (`tf.GradientTape`)."""

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed = watch_accessed_variables
        self._records = []
        self._watched = {}            # id -> tensor (kept alive so ids stay unique)
        self._variables = {}          # id(handle) -> variable, in first-watch order
        self._recording = False
        self._used = False
        self._graph = None

    # -- recording -------------------------------------------------------------------------------
    def __enter__(self):
        self._graph = _state.graph
        self._recording = True
        _state.tapes.append(self)
        _refresh_flag()
        return self

    def __exit__(self, *exc):
        self._stop_recording_for_good()
        return False

    def _stop_recording_for_good(self):
        self._recording = False
        if self in _state.tapes:
            _state.tapes.remove(self)
        _refresh_flag()

    def watch(self, tensor):
        """Makes the tape record operations on `tensor` (a tensor, variable or nested structure of them)."""
        for t in nest.flatten(tensor):
            if _is_variable(t):
                self._watch_variable(t)
            elif isinstance(t, Tensor):
                if t.dtype.is_floating or t.dtype.is_complex:
                    t = self._in_graph(t)
                    self._watched[id(t)] = t
            else:
                raise ValueError(f"Passed in object {t!r} of type {type(t).__name__!r}, not tf.Tensor or "
                                 f"tf.Variable or ExtensionType.")

    def _watch_variable(self, variable):
        handle = self._graph_handle(variable)
        if id(handle) not in self._watched:
            self._watched[id(handle)] = handle
            self._variables[id(handle)] = variable

    def _graph_handle(self, variable):
        return variable_handle_in(self._graph, variable)

    def stop_recording(self):
        """A context manager in which this tape records nothing."""
        tape = self

        class _Paused:
            def __enter__(self):
                if not tape._recording:
                    raise ValueError("Tape currently not recording.")
                tape._recording = False
                _refresh_flag()

            def __exit__(self, *exc):
                tape._recording = True
                _refresh_flag()
                return False

        return _Paused()

    def reset(self):
        """Forgets everything recorded so far."""
        self._records = []
        self._watched = {}
        self._variables = {}

    def watched_variables(self):
        return tuple(self._variables.values())

    # -- differentiation -------------------------------------------------------------------------
    def _check_usable(self):
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients "
                               "(or jacobians)")
        self._used = True

    def _in_graph(self, t):
        """Inside a tf.function, an eager tensor from outside stands for its capture placeholder."""
        graph = self._graph
        if graph is not None and getattr(t, "op", None) is None:
            return graph._graph_input(t)
        return t

    def _source(self, s):
        if _is_variable(s):
            return self._graph_handle(s)
        if isinstance(s, Tensor):
            return self._in_graph(s)
        raise ValueError(f"Passed in object {s!r} of type {type(s).__name__!r}, not tf.Tensor or tf.Variable "
                         f"or ExtensionType.")

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
        """d(target)/d(sources), with the structure of `sources`; None (or zeros) where unconnected."""
        self._check_usable()
        # A variable target stands for its handle, as a variable source does: d(v)/d(v) is ones (as in
        # TensorFlow, whether or not v was watched or read); its value only gives the seed's shape.
        flat_targets = [self._graph_handle(t) if _is_variable(t) else t for t in nest.flatten(target)]
        values = [t.read_value() if _is_variable(t) else t for t in nest.flatten(target)]
        flat_sources = nest.flatten(sources)
        source_tensors = [self._source(s) for s in flat_sources]
        if output_gradients is None:
            seeds = [_ones_seed(t) for t in values]
        else:
            seeds = _checked_seeds(nest.flatten(output_gradients), values)
        # Inside its own `with` block, a persistent tape keeps recording while it differentiates, so
        # the gradient can be differentiated again (TensorFlow warns of the cost); a non-persistent
        # tape stops recording for good, as TensorFlow's does (it can give no second gradient anyway).
        record_gradient = self._recording and self._persistent
        if record_gradient:
            _warn_once_per_call_site()
        elif self._recording and self in _state.tapes:
            self._stop_recording_for_good()
        was_recording = self._recording
        self._recording = record_gradient
        _refresh_flag()
        try:
            grads = backprop(self._records, flat_targets, seeds, source_tensors, keep_sparse=True)
        finally:
            self._recording = was_recording
            _refresh_flag()
        out = []
        for g, s in zip(grads, flat_sources):
            if g is None and UnconnectedGradients(unconnected_gradients) is UnconnectedGradients.ZERO:
                g = _creation.zeros_like(s.read_value() if _is_variable(s) else s)
            out.append(g)
        return nest.pack_sequence_as(sources, out)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """d(target[i...])/d(source[j...]) with shape target.shape + source.shape, per source."""
        self._check_usable()
        flat_sources = nest.flatten(sources)
        source_tensors = [self._source(s) for s in flat_sources]
        n = int(_size(target))
        flat_target = _array.reshape(target, [-1])
        rows = [[] for _ in flat_sources]
        was_recording = self._recording
        self._recording = False
        _refresh_flag()
        try:
            # The reshape above is not recorded; differentiate `target` seeded with one-hot rows instead.
            for i in range(n):
                seed = _array.reshape(_creation.one_hot(i, n, dtype=target.dtype), _array.shape(target))
                grads = backprop(self._records, [target], [seed], source_tensors)
                for k, (g, s) in enumerate(zip(grads, source_tensors)):
                    if g is None:
                        like = s if s.dtype is not _dt.resource else flat_sources[k].read_value()
                        g = _creation.zeros_like(like)
                    rows[k].append(g)
        finally:
            self._recording = was_recording
            _refresh_flag()
        del flat_target
        out = []
        for k, s in enumerate(flat_sources):
            like = s.read_value() if _is_variable(s) else s
            if n == 0:
                out.append(_creation.zeros(_concat_shapes(target, like), dtype=like.dtype))
                continue
            stacked = _array.stack(rows[k])
            out.append(_array.reshape(stacked, _concat_shapes(target, like)))
        return nest.pack_sequence_as(sources, out)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example jacobian: shape [batch] + target.shape[1:] + source.shape[1:]."""
        self._check_usable()
        source_tensor = self._source(source)
        batch = target.shape[0]
        inner = int(_size(target)) // batch if batch else 0
        was_recording = self._recording
        self._recording = False
        _refresh_flag()
        columns = []
        try:
            for j in range(inner):
                one = _creation.one_hot(j, inner, dtype=target.dtype)
                seed = _array.reshape(_array.tile(_array.expand_dims(one, 0), [batch, 1]), _array.shape(target))
                (g,) = backprop(self._records, [target], [seed], [source_tensor])
                columns.append(g if g is not None else _creation.zeros_like(source))
        finally:
            self._recording = was_recording
            _refresh_flag()
        stacked = _array.stack(columns, axis=1)  # [batch, inner, *source.shape[1:]]
        shape = [batch] + list(target.shape[1:]) + list(source.shape[1:])
        return _array.reshape(stacked, shape)


def _ones_seed(target):
    """The output gradient a target gets by default: ones of its shape. In a graph, with the shape known,
    a constant named `ones`, as TensorFlow's tape makes it there: the ops that shape it for the backward
    pass (a mean's Reshape, RealDiv and BroadcastTo) then fold into constants, four ops fewer per call of
    a training step; otherwise OnesLike."""
    dtype = target.dtype
    if (_state.graph is not None and target.shape.is_fully_defined()
            and (dtype.is_floating or dtype.is_complex or dtype.is_integer)):
        return _creation.ones(target.shape.as_list(), dtype)
    return _creation.ones_like(target)


def _checked_seeds(output_gradients, targets):
    """`output_gradients` as one seed per target (None means ones), each of its target's shape.

    A seed of another shape would silently broadcast through the backward ops into a gradient of the
    wrong value or shape, so it is refused up front with TensorFlow's error class for the shape clash.
    """
    if len(output_gradients) != len(targets):
        raise ValueError(f"`output_gradients` must have one entry per target: expected {len(targets)} "
                         f"(the flattened target), received {len(output_gradients)}.")
    seeds = []
    for i, (g, t) in enumerate(zip(output_gradients, targets)):
        if g is None:
            seeds.append(_ones_seed(t))
            continue
        if not isinstance(g, Tensor):
            g = convert_to_tensor(g, dtype=t.dtype)
        if not g.shape.is_compatible_with(t.shape):
            where = "" if len(targets) == 1 else f"[{i}]"
            raise errors.InvalidArgumentError(
                None, None, f"`output_gradients{where}` must have the shape of its target: expected shape "
                            f"{t.shape} (dtype {t.dtype.name}), received shape {g.shape} (dtype {g.dtype.name}).")
        seeds.append(g)
    return seeds


def _size(t):
    n = t.shape.num_elements()
    if n is None:
        raise ValueError("jacobian needs a target of fully known static shape in tensorflux.")
    return n


def _concat_shapes(a, b):
    return list(a.shape.as_list()) + list(b.shape.as_list())

