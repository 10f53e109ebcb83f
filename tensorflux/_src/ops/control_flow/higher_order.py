"""Higher-order functions over the leading dimension: `tf.map_fn`, `tf.foldl`, `tf.foldr`, `tf.scan` and
`tf.vectorized_map`.

Eagerly each is a plain Python loop: every input is sliced by one `Unpack`, `fn` runs once per element
and per-step results are joined by one `Pack`, so a GradientTape records ordinary differentiable ops.
While a graph is being built each becomes ONE `While` op whatever the length: the body reads element
`i` with `GatherV2` from the captured inputs and writes per-step results into TensorArrays that are
stacked after the loop. (Elements are gathered from captured tensors rather than unstacked into a
TensorArray first because the While gradient flows into floating-point captures, not variant ones.)

`vectorized_map` runs `fn` once per element (there is no automatic vectorisation, hence no "fallback"
to choose); inside a graph it first traces `fn` on the element signature to learn what it returns, so
`fn`'s Python side effects happen twice while tracing.

    tf.map_fn(lambda x: x * x, tf.constant([1, 2, 3]))              # [1, 4, 9]
    tf.scan(lambda acc, x: acc + x, tf.constant([1, 2, 3]))         # [1, 3, 6]
    tf.foldr(lambda acc, x: acc * 2 + x, tf.constant([1, 2, 3]))    # 17
"""
from ...framework import errors, nest
from ...framework.context import autograph_callable, name_scope
from ...framework.context import state as _state
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import Dimension, TensorShape
from ...types.spec import TensorSpec
from ..array import join as _join
from ..shapes import shape_ops as _shape_ops
from . import cond_while as _cf
from ..shapes import creators as _creators
from ..array import gather as _gather
from .. import logging as _logging
from ..convert import convert_to_tensor
from .tensor_array import TensorArray

__all__ = ["map_fn", "foldl", "foldr", "scan", "vectorized_map"]


def _as_tensor(value, dtype_hint=None):
    return value if isinstance(value, Tensor) else convert_to_tensor(value, dtype_hint=dtype_hint)


def _check_callable(fn):
    if not callable(fn):
        raise TypeError(f"The provided function {getattr(fn, '__name__', repr(fn))} is not callable. fn must be "
                        f"a callable.")


class _Elems:
    """The inputs of a higher-order function: their structure, flat tensors and common leading length."""

    __slots__ = ("structure", "flat", "static_length")

    def __init__(self, elems):
        flat = nest.flatten(elems)
        if not flat:
            raise ValueError(f"elems must be a Tensor or (possibly nested) sequence of Tensors. Got {elems}, which "
                             f"does not contain any Tensors.")
        self.structure = elems
        self.flat = [_as_tensor(t) for t in flat]
        length = Dimension(None)
        for t in self.flat:
            if t.shape.rank == 0:
                raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
            if t.shape.rank is not None:
                length = length.merge_with(t.shape[0])  # ValueError: Dimensions 2 and 3 are not compatible
        self.static_length = length.value

    def length(self):
        """The number of elements: a Python int when static, else an int32 tensor (graphs only), with a
        run-time check that every input agrees."""
        if self.static_length is not None:
            n = self.static_length
        else:
            n = _shape_ops.shape(self.flat[0])[0]
        if len(self.flat) > 1:
            for t in self.flat:
                if t.shape.rank is None or t.shape[0] is None:
                    _logging.assert_equal(_shape_ops.shape(t)[0], n, message="All elems must have the same size in "
                                                                         "their first dimension")
        return n

    def rows(self):
        """Every element as a structure of eager tensors (one Unpack per input)."""
        n = self.static_length
        columns = [_join.unstack(t, num=n) for t in self.flat]
        return [nest.pack_sequence_as(self.structure, [c[i] for c in columns]) for i in range(n)]

    def row(self, i):
        """Element `i` (a scalar tensor) as a structure of graph tensors."""
        return nest.pack_sequence_as(self.structure, [_gather.gather(t, i) for t in self.flat])

    def row_specs(self):
        return [_cf.LoopVar(t.dtype, t.shape[1:], f"elem_{k}") for k, t in enumerate(self.flat)]


# -- per-step outputs ---------------------------------------------------------------------------------
def _signature_specs(signature):
    """[[dtype, shape]] for the leaves of `fn_output_signature` (DTypes, TensorSpecs or dtype names)."""
    specs = []
    for leaf in nest.flatten(signature):
        if isinstance(leaf, TensorSpec):
            specs.append([leaf.dtype, leaf.shape])
            continue
        try:
            dtype = _dt.as_dtype(leaf)
        except TypeError:
            raise TypeError(f"fn_output_signature must contain tf.DType or tf.TensorSpec values, got "
                            f"{leaf!r}") from None
        specs.append([dtype, TensorShape(None)])
    return specs


def _checked(value, structure, specs, infer_shape):
    """The flat tensors of one step's result, checked like writes into TensorArrays described by `specs`
    (updated in place: with `infer_shape`, each write narrows the expected element shape)."""
    nest.assert_same_structure(structure, value)
    out = []
    for k, v in enumerate(nest.flatten(value)):
        dtype, shape = specs[k]
        t = _as_tensor(v, dtype_hint=dtype)
        if t.dtype is not dtype:
            raise errors.InvalidArgumentError(None, None, f"TensorArray dtype is {dtype.name} but Op is trying to "
                                                          f"write dtype {t.dtype.name} ")
        if not shape.is_compatible_with(t.shape):
            raise ValueError(f"Incompatible shape for value ({t.shape}), expected ({shape})")
        if infer_shape:
            specs[k][1] = shape.merge_with(t.shape)
        out.append(t)
    return out


def _empty(dtype, shape):
    """The stack of zero elements of `shape`: TensorFlow knows its element shape only when fully defined."""
    if shape.rank is None:
        return _creators.zeros([0], dtype)
    if not shape.is_fully_defined():
        raise ValueError(f"Tensor's shape (0,) is not compatible with supplied shape "
                         f"{TensorShape([0]).concatenate(shape)}.")
    return _creators.zeros([0] + shape.as_list(), dtype)


def _stack_eager(flat_rows, specs, n):
    """The per-step flat results (index order) joined along a new leading axis."""
    if n == 0:
        return [_empty(dtype, shape) for dtype, shape in specs]
    return [_join.stack([row[k] for row in flat_rows]) for k in range(len(specs))]


def _stack_graph(tas, specs, n):
    """Stacks the TensorArrays coming out of a While; their element shapes are those the body traced."""
    out = []
    for ta, (dtype, shape) in zip(tas, specs):
        t = TensorArray(dtype, element_shape=shape, flow=ta.flow).stack()
        if isinstance(n, int):
            t.set_shape(TensorShape([n]).concatenate(shape))
        out.append(t)
    return out


# -- map_fn ---------------------------------------------------------------------------------------------
def _map(fn, elems, structure, specs, infer_shape):
    """`fn` over every element of `elems` (an _Elems); results are checked against `specs` and stacked."""
    if _state.graph is None:
        rows = [_checked(fn(row), structure, specs, infer_shape) for row in elems.rows()]
        return nest.pack_sequence_as(structure, _stack_eager(rows, specs, elems.static_length))
    n = elems.length()
    tas = [TensorArray(dtype, size=n, element_shape=shape, infer_shape=infer_shape) for dtype, shape in specs]

    def body(i, *tas):
        flat = _checked(fn(elems.row(i)), structure, specs, infer_shape)
        return (i + 1,) + tuple(ta.write(i, t) for ta, t in zip(tas, flat))

    _, *tas = _cf.while_loop(lambda i, *_: i < n, body, (0,) + tuple(tas))
    return nest.pack_sequence_as(structure, _stack_graph(tas, specs, n))


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None, fn_output_signature=None):
    """`fn` applied to the elements of `elems` (unstacked on dimension 0), results stacked.

    `elems` may be a nested structure of tensors with the same leading size; `fn` receives one element
    of that structure. `fn_output_signature` (or the legacy `dtype`) describes `fn`'s result with
    DTypes / TensorSpecs when it differs from `elems`. `parallel_iterations`, `swap_memory` and
    `back_prop` are accepted for compatibility: steps run in order, and TensorFlow 2 differentiates
    through map_fn even with back_prop=False.
    """
    _check_callable(fn)
    fn = autograph_callable(fn)
    elems = _Elems(elems)
    signature = fn_output_signature if fn_output_signature is not None else dtype
    if signature is None:
        structure, specs = elems.structure, [[t.dtype, TensorShape(None)] for t in elems.flat]
    else:
        structure, specs = signature, _signature_specs(signature)
    if _state.graph is None:
        return _map(fn, elems, structure, specs, infer_shape)
    with name_scope(name or "map"):
        return _map(fn, elems, structure, specs, infer_shape)


# -- foldl / foldr --------------------------------------------------------------------------------------
def _start(elems, initializer, reverse):
    """(n, first index fn sees, initial accumulator, whether that accumulator is element `first`)."""
    n = elems.length()
    first = n - 1 if reverse else 0
    if initializer is not None:
        return n, first, nest.map_structure(_as_tensor, initializer), False
    return n, first, elems.row(first), True


def _empty_error(reverse):
    return errors.OutOfRangeError(None, None, "Reading from negative indices (index -1) is not allowed." if reverse
                                  else "Tried to read from index 0 but array size is: 0")


def _fold(fn, elems, initializer, reverse, name):
    _check_callable(fn)
    fn = autograph_callable(fn)
    elems = _Elems(elems)
    if _state.graph is None:
        rows = elems.rows()
        if reverse:
            rows.reverse()
        if initializer is None:
            if not rows:
                raise _empty_error(reverse)
            acc, rows = rows[0], rows[1:]
        else:
            acc = nest.map_structure(_as_tensor, initializer)
        for row in rows:
            new = fn(acc, row)
            nest.assert_same_structure(acc, new)
            acc = nest.map_structure(_as_tensor, new)
        return acc
    with name_scope(name or ("foldr" if reverse else "foldl")):
        n, first, acc, from_elems = _start(elems, initializer, reverse)
        step = -1 if reverse else 1
        start = first + step if from_elems else first

        def body(i, a):
            new = fn(a, elems.row(i))
            nest.assert_same_structure(a, new)
            return i + step, new

        keep_going = (lambda i, a: i >= 0) if reverse else (lambda i, a: i < n)
        return _cf.while_loop(keep_going, body, (start, acc))[1]


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """`fn(...fn(fn(initializer, elems[0]), elems[1])..., elems[n-1])`; without an initializer the first
    element starts the accumulation. `elems` and the accumulator may be nested structures."""
    return _fold(fn, elems, initializer, False, name)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """Like `foldl`, from the last element to the first (the last one starts without an initializer)."""
    return _fold(fn, elems, initializer, True, name)


# -- scan -------------------------------------------------------------------------------------------------
def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
         infer_shape=True, reverse=False, name=None):
    """Every intermediate accumulator of a fold, stacked: out[i] = fn(out[i-1], elems[i]).

    Without an initializer out[0] is elems[0] (out[n-1] = elems[n-1] with `reverse`), and the
    accumulator has the structure of an element. Each accumulator keeps the dtype and (with
    `infer_shape`) a shape compatible with the initial one.
    """
    _check_callable(fn)
    fn = autograph_callable(fn)
    elems = _Elems(elems)
    if _state.graph is None:
        return _scan_eager(fn, elems, initializer, infer_shape, reverse)
    with name_scope(name or "scan"):
        n, first, acc, from_elems = _start(elems, initializer, reverse)
        step = -1 if reverse else 1
        start = first + step if from_elems else first
        specs = [[t.dtype, t.shape if infer_shape else TensorShape(None)] for t in nest.flatten(acc)]
        tas = [TensorArray(dtype, size=n, element_shape=shape, infer_shape=infer_shape) for dtype, shape in specs]

        def body(i, a, tas):
            flat = _checked(fn(a, elems.row(i)), a, specs, infer_shape)
            return i + step, nest.pack_sequence_as(a, flat), [ta.write(i, t) for ta, t in zip(tas, flat)]

        keep_going = (lambda i, a, tas: i >= 0) if reverse else (lambda i, a, tas: i < n)
        tas = _cf.while_loop(keep_going, body, (start, acc, tas))[2]
        if from_elems:  # written after the loop: gradients do not flow into a While's variant inputs
            tas = [ta.write(first, t) for ta, t in zip(tas, nest.flatten(acc))]
        return nest.pack_sequence_as(acc, _stack_graph(tas, specs, n))


def _scan_eager(fn, elems, initializer, infer_shape, reverse):
    rows = elems.rows()
    n = len(rows)
    order = list(range(n - 1, -1, -1) if reverse else range(n))
    outputs = [None] * n
    if initializer is None:
        if not rows:
            raise _empty_error(reverse)
        first = order.pop(0)
        acc = rows[first]
        outputs[first] = nest.flatten(acc)
    else:
        acc = nest.map_structure(_as_tensor, initializer)
    structure = acc
    specs = [[t.dtype, t.shape if infer_shape else TensorShape(None)] for t in nest.flatten(acc)]
    for i in order:
        flat = _checked(fn(acc, rows[i]), structure, specs, infer_shape)
        acc = nest.pack_sequence_as(structure, flat)
        outputs[i] = flat
    return nest.pack_sequence_as(structure, _stack_eager(outputs, specs, n))


# -- vectorized_map ---------------------------------------------------------------------------------------
def _probe(fn, elems):
    """(structure, [[dtype, shape]]) of `fn`'s result, from tracing it once on the element signature in a
    throwaway graph."""
    def call(*row):
        result = fn(nest.pack_sequence_as(elems.structure, list(row)))
        return result, [[t.dtype, t.shape] for t in (_as_tensor(v) for v in nest.flatten(result))]

    _, (structure, specs) = _cf.trace_branch(call, "vectorized_map_probe", elems.row_specs())
    return structure, specs


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """`fn` applied to every element of `elems`, outputs stacked; `fn`'s result structure, dtypes and
    shapes are learned from `fn` itself (no signature needed), and outputs that do not depend on the
    element are repeated for every element, as TensorFlow does. `fn` runs once per element (in graphs:
    one While op); `fallback_to_while_loop` and `warn` are accepted for compatibility."""
    _check_callable(fn)
    fn = autograph_callable(fn)
    elems = _Elems(elems)
    if _state.graph is not None:
        with name_scope("vectorized_map"):
            structure, specs = _probe(fn, elems)
            return _map(fn, elems, structure, specs, True)
    results = [fn(row) for row in elems.rows()]
    if results:
        structure = results[0]
        specs = [[t.dtype, t.shape] for t in (_as_tensor(v) for v in nest.flatten(structure))]
    else:
        structure, specs = _probe(fn, elems)
    rows = [_checked(r, structure, specs, True) for r in results]
    return nest.pack_sequence_as(structure, _stack_eager(rows, specs, len(results)))


API = {"": ["map_fn", "foldl", "foldr", "scan", "vectorized_map"]}
