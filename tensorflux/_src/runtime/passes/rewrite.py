"""The machinery the rewriting passes (simplify, fold, CSE) share: one forward walk over an op list.

A pass reads `ops` in order and, for each op, either keeps it or replaces its outputs by other tensors
(dropping the op). Keeping an op whose inputs were replaced earlier means keeping a COPY with the new
inputs: the Operations of a FuncGraph are user-visible (`cf.graph.get_operations()`), so a pass never
mutates one. The result is the new op list, `remap` (id of a replaced tensor → its replacement, for the
function outputs) and the rewrite counts by kind.

    rw = Rewrite()
    for op in ops:
        inputs = rw.inputs_of(op)
        if rw.replaceable(op) and <op computes inputs[0]>:
            rw.replace(op, [inputs[0]], "identity chain")
        else:
            rw.keep(op, inputs)
    return rw.result()
"""
import collections

import numpy as np

from ...framework.graph import Operation, SymbolicTensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape

__all__ = ["Rewrite", "PassResult", "const_value", "const_op", "plain_key", "is_random"]

PassResult = collections.namedtuple("PassResult", ["ops", "remap", "counts"])


class Rewrite:
    """One pass over an op list: input remapping, copy-on-rewrite and rewrite counting."""

    def __init__(self):
        self.out = []
        self.remap = {}        # id(old tensor) -> new tensor (the old ops stay alive in `ops`)
        self._copies = {}      # id(old op) -> its copy, so control inputs follow copies
        self._dropped = set()  # ids of replaced ops
        self.counts = collections.Counter()

    def inputs_of(self, op):
        """`op`'s inputs after the rewrites so far: `op.inputs` itself when none of them changed."""
        remap = self.remap
        if not remap or not any(id(t) in remap for t in op.inputs):
            return op.inputs
        return [remap.get(id(t), t) for t in op.inputs]

    def replaceable(self, op):
        """Whether `op` may be dropped: its value is all it contributes.

        Not placeholders, stateful ops, ops without outputs, nor ops with control inputs: those order the op
        after other ops and, when pruning with `keep_stateful=False`, keep them alive. A pure op that is
        itself a control input may go (being ordered after a computation without effects means nothing);
        later ops then lose that control input.
        """
        if op.type == "Placeholder" or not op.outputs or op.control_inputs:
            return False
        return op.type == "Const" or (op.opdef is not None and not op.opdef.stateful)

    def controls_of(self, op):
        """`op`'s control inputs after the rewrites so far (copies for copied ops, dropped ops left out)."""
        controls = op.control_inputs
        if controls:
            controls = [self._copies.get(id(c), c) for c in controls if id(c) not in self._dropped]
            if len(controls) == len(op.control_inputs) and all(a is b for a, b in zip(controls, op.control_inputs)):
                controls = op.control_inputs
        return controls

    def keep(self, op, inputs):
        """Appends `op` (a copy of it when its inputs or control inputs changed); returns what was appended."""
        controls = self.controls_of(op)
        if inputs is op.inputs and controls is op.control_inputs:
            self.out.append(op)
            return op
        new = copy_op(op, inputs, controls)
        for old_t, new_t in zip(op.outputs, new.outputs):
            self.remap[id(old_t)] = new_t
        self._copies[id(op)] = new
        self.out.append(new)
        return new

    def replace(self, op, tensors, kind):
        """Drops `op`: its outputs become `tensors` for every later op and for the function outputs."""
        for old_t, new_t in zip(op.outputs, tensors):
            self.remap[id(old_t)] = new_t
        self._dropped.add(id(op))
        self.counts[kind] += 1

    def substitute(self, op, new, kind):
        """Appends `new`, an op of another type that does `op`'s work (and has its outputs' roles): later
        control inputs on `op` follow it."""
        for old_t, new_t in zip(op.outputs, new.outputs):
            self.remap[id(old_t)] = new_t
        self._copies[id(op)] = new
        self.out.append(new)
        self.counts[kind] += 1

    def drop(self, op):
        """Leaves out `op`, whose outputs no later op reads (another op took over its work)."""
        self._dropped.add(id(op))

    def add(self, op):
        """Appends a new op (a folded constant)."""
        self.out.append(op)

    def result(self):
        return PassResult(self.out, self.remap, self.counts)


def copy_op(op, inputs, control_inputs):
    """A copy of `op` reading `inputs`, with fresh output tensors of the same dtypes and static shapes."""
    new = Operation(op.graph, op.name, op.opdef, op.type, list(inputs), op.attrs, op.source)
    new.device = op.device
    new.outputs = [SymbolicTensor(new, i, t.dtype, t.shape) for i, t in enumerate(op.outputs)]
    new.control_inputs = list(control_inputs)
    return new


def const_value(tensor):
    """The NumPy value of `tensor` when a Const op produces it, else None."""
    op = tensor.op
    return op.attrs["value"] if op.type == "Const" else None


def const_op(template, index, value):
    """A Const op holding `value`, standing for output `index` of `template` (named after it)."""
    out = template.outputs[index]
    name = template.name if len(template.outputs) == 1 else f"{template.name}_{index}"
    op = Operation(template.graph, name, None, "Const", [], {"value": value, "dtype": out.dtype}, template.source)
    op.outputs = [SymbolicTensor(op, 0, out.dtype, TensorShape._from_tuple(tuple(value.shape)))]
    return op


_PLAIN_SCALARS = (int, float, bool, str, bytes, type(None), np.dtype, _dt.DType)


def plain_key(value):
    """A hashable key equal for equal attr values, or None when `value` is not a plain static value.

    Plain values (numbers, bools, strings, None, NumPy/tf dtypes, TensorShapes and tuples of them)
    compare by value; the type is part of the key so `1`, `1.0` and `True` stay apart, and floats are
    keyed by their repr so `0.0` and `-0.0` differ. Anything else (graphs, functions, arrays, lists)
    has no key: callers compare it by identity, or refuse to evaluate it.
    """
    kind = type(value)
    if kind is float or isinstance(value, np.floating):
        return (kind, repr(value))
    if kind in _PLAIN_SCALARS or isinstance(value, (np.integer, np.bool_, np.dtype, _dt.DType)):
        return (kind, value)
    if kind is TensorShape:
        return (kind, value._dims)
    if kind is tuple:
        parts = tuple(plain_key(v) for v in value)
        return None if any(p is None for p in parts) else (kind, parts)
    return None


# Random ops draw fresh numbers (stateful ones) or are costly and seed-bound (stateless ones): they are
# never evaluated at compile time nor merged, whatever their `stateful` flag says.
_RANDOM_WORDS = ("Random", "Multinomial", "TruncatedNormal", "Categorical", "Dropout", "Shuffle")


_RANDOM_TYPES = {}


def is_random(op_type):
    found = _RANDOM_TYPES.get(op_type)
    if found is None:
        found = _RANDOM_TYPES[op_type] = any(word in op_type for word in _RANDOM_WORDS)
    return found
