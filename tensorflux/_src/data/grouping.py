"""Transformations that regroup elements by a key: `group_by_window`, `bucket_by_sequence_length` and
`group_by_reducer` (`Dataset` methods and `tf.data.experimental` functions).

Their functions are traced once, as TensorFlow traces them, and the traced graphs run per element (a
Python `print` in a function prints once; its `tf.print`s print per element):

- `group_by_window`: `key_func(element)` and `window_size_func(key)` give int64 scalars; `reduce_func(key,
  window)` makes a dataset from a window stand-in (traced_functions.DatasetFunction) and is bound to each
  full window, then to the windows left at the end, in ascending key order.
- `bucket_by_sequence_length` is `group_by_window` over functions made of tensorflux ops: the bucket of an
  element is the number of boundaries at or below its length, and a bucket's window is padded-batched with
  its batch size (and boundary), tensors read when the window's dataset runs (arguments.py).
- `group_by_reducer`: `init_func(key)`, `reduce_func(state, element)` (traced until the state's spec is
  stable) and `finalize_func(state)`; one output per key, in ascending key order (TensorFlow's order).
"""
import numpy as np

from ..autograph.api import converted_call
from ..framework import nest
from ..framework.composite import CompositeTensor
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import EagerTensor, Tensor
from ..function.polymorphic import Function
from ..ops import convert as _convert
from ..ops.array.gather import gather
from ..ops.logging import assert_less
from ..ops.math.arith import cast
from ..ops.math.logic import less_equal
from ..ops.math.summation import reduce_sum
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from ..types.spec import TensorSpec
from .dataset import Dataset, DatasetSpec, call_with_element, flatten_up_to, pack_element, trace_arguments
from .arguments import int64_scalar
from .graph_values import deferred, is_symbolic, with_bound_captures
from .traced_functions import DatasetFunction, as_state, trace_state_function

__all__ = ["group_by_window", "bucket_by_sequence_length", "Reducer", "group_by_reducer"]

_KEY_SPEC = TensorSpec([], _dt.int64)


def _spec_of(value):
    return value._type_spec if isinstance(value, CompositeTensor) else TensorSpec(value.shape, value.dtype)


def _traced(func, arguments, name):
    """`func` traced once for `arguments` (specs or stand-ins), spread over its parameters."""
    return Function(lambda *args: converted_call(func, args, None), name=name).get_concrete_function(*arguments)


def _element_arguments(spec):
    arguments = trace_arguments(spec)
    return arguments if isinstance(spec, tuple) else (arguments,)


def _int64_scalar_function(func, arguments, what):
    """`func` traced once for `arguments`, checked to return one int64 scalar as TensorFlow checks `key_func`
    of group_by_window (an int32 result fails its conversion to int64)."""
    concrete = _traced(func, arguments, what)
    out = concrete.structured_outputs
    if isinstance(out, (tuple, list)) and out and all(isinstance(t, Tensor) for t in out):
        spec = TensorSpec([len(out)], out[0].dtype)        # TensorFlow packs a returned sequence into one tensor
    elif isinstance(out, Tensor):
        if out.dtype != _dt.int64:
            raise ValueError(f"Tensor conversion requested dtype int64 for Tensor with dtype {out.dtype.name}: "
                             f"{out!r}")
        spec = TensorSpec(out.shape, out.dtype)
    else:
        spec = out
    if spec != _KEY_SPEC:
        raise ValueError(f"Invalid `{what}`. `{what}` must return a single `tf.int64` scalar tensor but its return "
                         f"type is {spec}.")
    return with_bound_captures(concrete)


def _key_value(key_of, element):
    return int(np.asarray(call_with_element(key_of, element)))


# -- group_by_window ---------------------------------------------------------------------------------
def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    """Groups elements by the int64 `key_func(element)` into windows of `window_size` (or
    `window_size_func(key)`), and yields the elements of `reduce_func(key, window_dataset)` for each full
    window, then for the windows left over at the end (in ascending key order, as TensorFlow)."""
    if (window_size is None) == (window_size_func is None):
        raise ValueError("Either the `window_size` argument or the `window_size_func` argument must be specified.")

    def apply(dataset):
        spec = dataset.element_spec
        key_of = _int64_scalar_function(key_func, _element_arguments(spec), "key_func")
        size_of = None if window_size_func is None else \
            _int64_scalar_function(window_size_func, (_KEY_SPEC,), "window_size_func")
        reducer = DatasetFunction(reduce_func, (_KEY_SPEC, DatasetSpec(spec)), "reduce_func", what="reduce_func")
        fixed_size = None if window_size is None else _window_size(window_size)

        def reduced(key, window):
            rows = list(window)
            dataset_of_window = Dataset(spec, lambda: iter(rows), "_VariantDataset", len(rows))
            return reducer.dataset_for((EagerTensor(np.int64(key)), dataset_of_window))._arrays()

        def arrays():
            windows, sizes = {}, {}
            for flat in dataset._arrays():
                key = _key_value(key_of, pack_element(spec, flat))
                if key not in sizes:
                    sizes[key] = fixed_size() if size_of is None else \
                        int(np.asarray(size_of(EagerTensor(np.int64(key)))))
                    if sizes[key] <= 0:     # TensorFlow's kernel checks each window's size when it starts one
                        raise InvalidArgumentError(None, None, f"Window size must be greater than zero, but got "
                                                               f"{sizes[key]}.")
                window = windows.setdefault(key, [])
                window.append(flat)
                if len(window) >= sizes[key]:
                    del windows[key]
                    yield from reduced(key, window)
            for key, window in sorted(windows.items()):   # TensorFlow flushes its groups in key order
                yield from reduced(key, window)

        return Dataset(reducer.element_spec, arrays, "_GroupByWindowDataset")
    return apply


def _window_size(window_size):
    """`window_size` as a function giving its int when the dataset runs (a symbolic one is read then)."""
    if isinstance(window_size, Tensor) and window_size.dtype != _dt.int64:
        raise ValueError(f"Tensor conversion requested dtype int64 for Tensor with dtype {window_size.dtype.name}: "
                         f"{window_size!r}")
    size = int64_scalar(window_size)
    later = deferred([size]) if is_symbolic(size) else None
    return (lambda: size) if later is None else (lambda: int(later()[0]))


# -- bucket_by_sequence_length -----------------------------------------------------------------------
def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None,
                              padding_values=None, pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """Batches elements of similar length together: bucket i holds the int32 lengths in [boundaries[i-1],
    boundaries[i]) and is padded-batched by bucket_batch_sizes[i] (plain batches with `no_padding`; padded
    to boundaries[i] - 1 with `pad_to_bucket_boundary`, which refuses the last, unbounded bucket)."""
    boundaries = [int(b) for b in bucket_boundaries]
    if len(bucket_batch_sizes) != len(boundaries) + 1:
        raise ValueError(f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                         f"`len(bucket_batch_sizes)={len(bucket_batch_sizes)}` and "
                         f"`len(bucket_boundaries)={len(boundaries)}`.")
    batch_sizes = _convert.constant(np.asarray(bucket_batch_sizes, np.int64))

    def bucket_of(*element):
        length = converted_call(element_length_func, element, None)
        # Lengths are int32, as TensorFlow compares them with int32 bounds.
        at_or_below = less_equal(_convert.constant(np.asarray(boundaries, np.int32)), length)
        return reduce_sum(cast(at_or_below, _dt.int64))

    def size_of(key):
        return gather(batch_sizes, key)

    def batched(key, window):
        size = size_of(key)
        if no_padding:
            return window.batch(size, drop_remainder)
        shapes = padded_shapes
        if pad_to_bucket_boundary:
            assert_less(key, _convert.constant(np.int64(len(boundaries))),
                        message="When pad_to_bucket_boundary=True, elements must have length < "
                                "max(bucket_boundaries).")
            filler = gather(_convert.constant(np.asarray(boundaries, np.int64)), key) - 1
            structure = window.element_spec
            given = nest.flatten(structure) if padded_shapes is None else \
                flatten_up_to(structure, padded_shapes, "padded_shapes")
            shapes = nest.pack_sequence_as(structure, [[filler if d is None else d for d in _dims(s)]
                                                       for s in given])
        return window.padded_batch(size, shapes, padding_values, drop_remainder)

    return group_by_window(bucket_of, batched, window_size_func=size_of)


def _dims(shape_or_spec):
    shape = shape_or_spec.shape if isinstance(shape_or_spec, TensorSpec) else TensorShape(shape_or_spec)
    return shape.as_list()


# -- group_by_reducer --------------------------------------------------------------------------------
class Reducer:
    """How `group_by_reducer` folds the elements of one key: init_func(key) -> state,
    reduce_func(state, element) -> state, finalize_func(state) -> output."""

    def __init__(self, init_func, reduce_func, finalize_func):
        self._init_func, self._reduce_func, self._finalize_func = init_func, reduce_func, finalize_func

    @property
    def init_func(self):
        return self._init_func

    @property
    def reduce_func(self):
        return self._reduce_func

    @property
    def finalize_func(self):
        return self._finalize_func


def _types(structure):
    return nest.map_structure(lambda s: s.dtype, structure)


def _reducer_state_spec(state_spec, outputs):
    new_spec = nest.map_structure(_spec_of, as_state(outputs))
    if _types(nest.flatten(new_spec)) != _types(nest.flatten(state_spec)):
        raise TypeError(f"Invalid `reducer`. The element types for the new state {_types(new_spec)} do not match "
                        f"the element types of the old state {_types(state_spec)}.")
    return new_spec


def group_by_reducer(key_func, reducer):
    """One element per key: `finalize_func` of the fold of all the elements with that key, in ascending key
    order."""
    def apply(dataset):
        spec = dataset.element_spec
        key_concrete = _traced(key_func, _element_arguments(spec), "key_func")
        key_spec = nest.map_structure(_spec_of, as_state(key_concrete.structured_outputs))
        if key_spec != _KEY_SPEC:
            raise ValueError(f"Invalid `key_func`. Expected `key_func` to return a scalar tf.int64 tensor, but "
                             f"instead `key_func` has output types={_types(key_spec)} and shapes="
                             f"{nest.map_structure(lambda s: s.shape, key_spec)}.")
        key_of = with_bound_captures(key_concrete)
        init_concrete = Function(lambda key: as_state(converted_call(reducer.init_func, (key,), None)),
                                 name="init_func").get_concrete_function(_KEY_SPEC)
        init = with_bound_captures(init_concrete)
        fold = Function(lambda state, element: as_state(converted_call(reducer.reduce_func, (state, element),
                                                                       None)), name="reduce_func")
        state_spec = nest.map_structure(_spec_of, init_concrete.structured_outputs)
        reduce_concrete = trace_state_function(fold, state_spec, trace_arguments(spec), _reducer_state_spec)
        reduce = with_bound_captures(reduce_concrete)
        state_spec = reduce_concrete.structured_input_signature[0][0]
        structured = isinstance(state_spec, tuple)
        finalize_concrete = _traced(reducer.finalize_func, state_spec if structured else (state_spec,),
                                    "finalize_func")
        finalize = with_bound_captures(finalize_concrete)
        outputs = as_state(finalize_concrete.structured_outputs)

        def arrays():
            states = {}
            for flat in dataset._arrays():
                element = pack_element(spec, flat)
                key = _key_value(key_of, element)
                if key not in states:
                    states[key] = init(EagerTensor(np.int64(key)))
                states[key] = reduce(states[key], element)
            for key in sorted(states):
                result = call_with_element(finalize, states[key])
                yield [t if isinstance(t, CompositeTensor) else np.asarray(t) for t in nest.flatten(result)]

        return Dataset(nest.map_structure(_spec_of, outputs), arrays, "_GroupByReducerDataset")
    return apply


def _group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None, name=None):
    return group_by_window(key_func, reduce_func, window_size, window_size_func)(self)


def _bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None,
                               padding_values=None, pad_to_bucket_boundary=False, no_padding=False,
                               drop_remainder=False, name=None):
    return bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
                                     padding_values, pad_to_bucket_boundary, no_padding, drop_remainder)(self)


# The Dataset methods TensorFlow 2.21 has for these transformations (attached as methods.py attaches its own).
Dataset.group_by_window = _group_by_window
Dataset.bucket_by_sequence_length = _bucket_by_sequence_length

API = {"data.experimental": ["group_by_window", "bucket_by_sequence_length", "Reducer", "group_by_reducer"]}
