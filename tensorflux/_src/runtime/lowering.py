"""Lowering: a FuncGraph (after the runtime passes) as the source of one numba kernel.

The kernel is the whole function: scalars stay native scalars, array ops are NumPy array expressions,
which numba fuses into one loop per elementwise chain (with broadcasting), `If` is a native branch and
`While` a native loop, full reductions are loops (a float32 sum adds in TensorFlow's order as
ops/math/eigen_sum.py does, a float64 sum is NumPy's own pairwise summation: the NumPy path's bits). The caller (`runtime/tiering.py`) compiles the source with numba.

Invariants:
- The source is canonical: values are named `p<k>` (parameters), `c<k>` (constants, never written into
  the text: arrays are passed in as arguments, scalars are the kernel's globals, frozen when it is
  compiled) and `v<k>` (op results), numbered in emission order, so two traces of the same graph give the
  same text, which (with the scalar constants' values) is what the disk cache is keyed by. Only fixed
  text of this module and those names appear in it (graphs may come from files).
- Every scalar result is converted back to its dtype (`np.float32(...)`, `np.int32(...)`): numba widens
  integer scalars to 64 bits, and the conversion makes int32 arithmetic wrap as TensorFlow's does.
- Values: IEEE-exact ops (+ - * / sqrt, abs, min/max, comparisons, floor/ceil, casts, ordered sums)
  give the bits the NumPy kernels give. Transcendental ops (exp, log, tanh, sin, …) call libm. NumPy
  computes float32 ones with its own SIMD code, up to 4 ulp from libm's (tanh 3, exp 2, log 4, sin/cos
  1); float64 ones too on a CPU with AVX-512 (`numpy_float64_is_libm`, ops/libm.py), elsewhere
  it calls libm (bit-equal, checked over 4M values). `Lowered.exact` says whether a kernel holds an op
  that may differ, and automatic tiering compiles only exact kernels (`jit_compile=True` compiles both).
- An op this module cannot lower raises `Unsupported(op, reason)`; nothing is ever half-lowered.
- Variables (`ReadVariableOp`, `AssignVariableOp`, `AssignAddVariableOp`, `AssignSubVariableOp`,
  `ResourceApplyGradientDescent` on a captured variable of known rank) are kernel locals: the kernel is
  passed each variable's value at the start of the call (`w<k> = p<k>`), a read takes the local's current
  array, a write rebinds the local to the new value, and the kernel returns each written variable's final
  value after its results, which the runner stores back while holding the variables' locks
  (runtime/tiering.py). A new value goes into a new array (an earlier read keeps its value: ops/state.py's
  invariant), except for an update at the kernel's top level of a variable the kernel never reads or
  assigns, which writes into the variable's own array when a proof made in the kernel shows that nothing
  else holds it (`write_in_place`). Reads and writes keep the op list's order (program order, as
  automatic control dependencies order them), inside `If` and `While` bodies too. A shape an update needs
  checked at run time raises in the kernel, before anything is stored or written in place: the runner
  then falls back to the NumPy path, which raises TensorFlow's error.
- A kernel that is exactly one elementwise loop of at least PARALLEL_MIN_ELEMENTS elements (or of an
  unknown count) also gets the same loop as a block function threads share (`MapPlan`, run by
  runtime/blocked_map.py): the same expressions, so the same bits.
"""
import re

import numpy as np

from ..ops import state as _state
from ..ops.math import eigen_sum as _eigen_sum
from . import passes
from .lowered_ops import (_ARRAY_FUNCTIONS, _COMPARISONS, _DTYPES, _ELEMENTWISE, _EXACT_UNARY, _FLOAT_ONLY, _FLOATS,
                          _FULL_REDUCTIONS, _LIBM_UNARY, _OPERATORS, _VARIABLE_OPS,
                          LOWERED_TYPES, NOT_XLA_COMPILABLE, numpy_float64_is_libm)

__all__ = ["lower", "Lowered", "MapPlan", "VariableInput", "Unsupported", "NOT_XLA_COMPILABLE",
           "numpy_float64_is_libm", "PARALLEL_MIN_ELEMENTS", "LOWERED_TYPES"]

PARALLEL_MIN_ELEMENTS = 1 << 20   # elementwise loops this long run on all cores
WRITE_IN_PLACE = True   # False: updates always allocate, in kernels lowered afterwards (a measurement's A side)

class _Region:
    """An elementwise loop being gathered: its shape, element loads, body lines and stored results."""

    def __init__(self, shape):
        self.shape = shape
        self.loads = []        # (element name, array name)
        self.local = {}        # id(tensor) -> element name inside the loop
        self.body = []
        self.ops = []
        self.results = []      # (tensor, element name, returned, consumers): candidates for storing
        self.updates = {}      # variable local -> element name of its new value (stored, then rebound)


class Unsupported(Exception):
    """An op the lowering has no form for (`op`), and why."""

    def __init__(self, op, reason):
        super().__init__(f"{op.type} ({op.name}): {reason}")
        self.op = op
        self.reason = reason

    @property
    def xla_has_no_kernel(self):
        """True when TensorFlow's XLA cannot compile this op either (strings, Python callbacks, files)."""
        return self.op.type in NOT_XLA_COMPILABLE or any(
            t.dtype.name in ("string", "variant") for t in list(self.op.inputs) + list(self.op.outputs))


class Lowered:
    """A kernel's source and how to call it: `kernel(*args, *captures, *constants)`, rank-0 inputs as
    scalars (`scalar_inputs[k]`), a variable's input as the variable's value (`variables`); `outputs`
    gives (dtype name, rank) per returned value (the function's `n_results`, then the written variables');
    `exact` is False when it calls libm transcendentals in float32."""

    __slots__ = ("source", "name", "constants", "outputs", "exact", "scalar_inputs", "parallel", "work", "map",
                 "variables", "n_results", "probes", "frozen")

    def __init__(self, source, name, constants, outputs, exact, scalar_inputs, parallel, work, map_plan=None,
                 variables=(), n_results=None, probes=(), frozen=()):
        self.source, self.name, self.constants = source, name, constants
        self.outputs, self.exact, self.scalar_inputs = outputs, exact, scalar_inputs
        self.parallel = parallel   # holds a prange loop: compile with parallel=True
        self.work = work           # ops lowered, loops counting 100: below a few, a kernel call costs more
        self.map = map_plan        # MapPlan when the kernel is one large elementwise loop, else None
        # One VariableInput per resource input (a captured variable): the runner passes its value and
        # stores the written ones back. Kernel outputs n_results.. are the written variables' final values.
        self.variables = tuple(variables)
        self.n_results = len(outputs) if n_results is None else n_results
        # Input positions of the variables the kernel may write in place: the kernel takes each one's
        # resource probe after the inputs, before the constants (`kernel(*args, *probes, *constants)`).
        self.probes = tuple(probes)
        # (name, value) of the scalar constants the source reads as globals (their values are part of
        # the compiled code, so of the disk cache's key: runtime/tiering.py)
        self.frozen = tuple(frozen)


class VariableInput:
    """A variable the kernel reads or writes: input `position` (a captured resource), its dtype name and
    rank, and `output`, the kernel output holding its final value when the kernel writes it (else None)."""

    __slots__ = ("position", "dtype", "rank", "output")

    def __init__(self, position, dtype, rank, output):
        self.position, self.dtype, self.rank, self.output = position, dtype, rank, output


class MapPlan:
    """How to run a kernel that is one elementwise loop over large arrays in blocks: the source also
    holds `<name>_block(*args, *constants, *stores, counters, blocks, step)` (see `_Emitter.map_block`),
    the same loop over the flat arguments `sliced` (positions in args + constants; the others are passed
    whole: scalars) writing the flat arrays `stores` (dtype names) it is given; output k of the kernel is
    store `output_stores[k]`. `size` is the loop's static element count, None when a dimension is
    unknown."""

    __slots__ = ("sliced", "stores", "output_stores", "size")

    def __init__(self, sliced, stores, output_stores, size):
        self.sliced, self.stores, self.output_stores, self.size = sliced, stores, output_stores, size


def lower(graph, outputs, inputs, name="kernel", parallel=False, ops=None):
    """Lowers `graph` computing `outputs` from `inputs` (placeholders) into a numba kernel's source;
    `parallel`: large elementwise loops may use `prange` (only with a thread-safe numba threading layer).
    `ops`: an op list the passes already made, computing `outputs` from `inputs` (any tensors of the
    graph: a region of it, runtime/regions.py), lowered as it is."""
    em = _Emitter(parallel)
    params = []
    captured = _captured_variables(graph)
    for position, t in enumerate(inputs):
        p = em.fresh("p")
        params.append(p)
        if t.dtype.name == "resource":
            em.add_variable(t, p, position, captured)
            continue
        _check_value(t.op, t)
        em.values[id(t)] = em.scalar_of(p, t)
    em.params = set(params)
    results = em.emit_graph(graph, outputs, 1, ops)
    probes = em.write_in_place()
    # Scalar constants are the kernel's globals, frozen into its machine code when it is compiled (an
    # argument costs its type's lookup on every call); arrays are arguments.
    frozen = [(c, v) for c, v in em.constants if not isinstance(v, np.ndarray)]
    passed = [(c, v) for c, v in em.constants if isinstance(v, np.ndarray)]
    args = params + [slot.probe for slot in probes] + [c for c, _ in passed]
    written = [slot for slot in em.slots.values() if slot.written]
    block, map_plan = em.map_block(f"{name}_block", args, results) if not em.slots else ("", None)
    returned = results + [slot.name for slot in written]
    em.lines.append(f"    return ({', '.join(returned)}{',' if len(returned) == 1 else ''})")
    source = f"def {name}({', '.join(args)}):\n" + "\n".join(em.lines) + "\n" + block
    kinds = [(t.dtype.name, t.shape.rank) for t in outputs] + [(slot.dtype, slot.rank) for slot in written]
    variables = [VariableInput(slot.position, slot.dtype, slot.rank,
                               len(outputs) + written.index(slot) if slot.written else None)
                 for slot in em.slots.values()]
    # Rank-0 inputs are passed as scalars; a variable's input is its value, of the variable's rank.
    ranks = {slot.position: slot.rank for slot in em.slots.values()}
    scalar_inputs = [ranks.get(k, t.shape.rank) == 0 for k, t in enumerate(inputs)]
    return Lowered(source, name, [v for _, v in passed], kinds, em.exact, scalar_inputs, em.parallel,
                   em.work, map_plan, variables, len(outputs), [slot.position for slot in probes], frozen)


def _captured_variables(graph):
    """id(resource placeholder) -> the VariableResource it was captured from (variables captured by the
    traced function; a variable passed as an argument has no fixed resource and is not lowered)."""
    found = {}
    for external, internal in zip(graph.external_captures, graph.internal_captures):
        resource = getattr(external, "_value", None)
        if internal.dtype.name == "resource" and isinstance(resource, _state.VariableResource):
            found[id(internal)] = resource     # (a lookup table's or an iterator's resource is not lowered)
    return found


class _Slot:
    """A variable inside the kernel: `name`, the local holding its current value; where it came in."""

    __slots__ = ("name", "position", "dtype", "rank", "shape", "written", "aliased", "probe")

    def __init__(self, name, position, dtype, shape):
        self.name, self.position, self.dtype, self.shape = name, position, dtype, shape
        self.rank = len(shape)
        self.written = False
        self.aliased = False    # read or assigned in the kernel (sharing an array): never written in place
        self.probe = None       # the parameter naming its resource's probe, when written in place


def _check_value(op, t):
    if t.dtype.name not in _DTYPES:
        raise Unsupported(op, f"dtype {t.dtype.name}")
    if t.shape.rank is None:
        raise Unsupported(op, "a tensor of unknown rank")


class _Emitter:
    def __init__(self, parallel=False):
        self.lines, self.constants = [], []
        self.values = {}       # id(tensor) -> name of its value in the kernel
        self.counter = 0
        self.exact = True
        self.region = None     # the elementwise loop being gathered: _Region or None
        self.parallel_ok = parallel
        self.parallel = False  # True once a loop uses prange (the kernel is then compiled parallel=True)
        self.work = 0
        self.top_loops = []    # (first line, end line, region, size, stores) of each top-level loop
        self.slots = {}        # local name of a variable's current value -> _Slot
        self.resources = {}    # id(VariableResource) -> its local (a variable captured twice is refused)
        self.params = set()    # the kernel's input names
        # Lines that can raise: (index, the lines of a shape check that may run earlier instead, or None).
        self.raisers = []
        # Top-level loops storing updates: (first line, end line, [(allocation line, _Slot, array)]).
        self.candidates = []

    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def scalar_of(self, name, t):
        """Rank-0 parameters are passed as NumPy scalars (the runner unwraps 0-d arrays)."""
        return name

    def emit_graph(self, graph, outputs, indent, ops=None):
        if ops is None:
            ops, outputs = passes.run_all(graph, outputs)
        consumers = {}
        for op in ops:
            for t in op.inputs:
                consumers.setdefault(id(t), []).append(op)
        returned = {id(t) for t in outputs}
        saved, self.region = self.region, None
        for op in ops:
            if op.type == "Placeholder":
                if id(op.outputs[0]) not in self.values:
                    raise Unsupported(op, "a placeholder that is not an input")
                continue
            for t in op.outputs:
                _check_value(op, t)
            if op.type == "Const":
                self.emit_const(op)
                continue
            self.work += 100 if op.type in ("While", "StatelessWhile") else 1
            if self.join_region(op, consumers, returned, indent):
                continue
            self.flush(indent)
            if op.type in _VARIABLE_OPS:
                self.emit_variable_op(op, indent)
            elif op.type in ("If", "StatelessIf"):
                self.emit_if(op, indent)
            elif op.type in ("While", "StatelessWhile"):
                self.emit_while(op, indent)
            else:
                self.emit_op(op, indent)
        self.flush(indent)
        self.region = saved
        return [self.values[id(t)] for t in outputs]

    def emit_const(self, op):
        value = np.asarray(op.attrs["value"])
        c = self.fresh("c")
        # A scalar constant is passed as a NumPy scalar (typed exactly), an array as a C-contiguous array.
        self.constants.append((c, value[()] if value.ndim == 0 else np.ascontiguousarray(value)))
        self.values[id(op.outputs[0])] = c

    def line(self, indent, text):
        self.lines.append("    " * indent + text)

    def check(self, indent, condition, operands):
        """`if condition: raise`, recorded as a line that can raise, with a copy that may run at the top
        when `operands` are inputs or variables of static shape (their shapes the same all along)."""
        lines = [f"if {condition}:", "    raise ValueError('Incompatible shapes')"]
        early = operands is not None and all(n in self.params or None not in getattr(self.slots.get(n), "shape", [None])
                                             for n in operands)
        self.raisers.append((len(self.lines), ["    " + line for line in lines] if early else None))
        self.lines += ["    " * indent + line for line in lines]

    def write_in_place(self):
        """Each top-level loop storing updates becomes `if u_unshared(w, q): v = u_writable(w); <loop> else:
        v = np.empty(...); <loop>` (runtime/tiering.py's proof that nothing but the variable holds its
        array; two loops, as one storing to either array runs 2x slower). Only for variables the kernel
        never reads or assigns (a read shares the array), and where nothing after the loop can raise but
        shape checks of inputs and variables, repeated before the first such loop: a kernel raises before
        it wrote in place, so the runner's fallback never runs an update twice. Returns the slots given a
        probe, in input order."""
        last_raise = max((index for index, early in self.raisers if early is None), default=-1)
        blocks = []
        for start, end, allocations in self.candidates:
            kept = [a for a in allocations if not a[1].aliased and a[3] is not None]
            if kept and start > last_raise and WRITE_IN_PLACE:
                blocks.append((start, end, kept))
        if not blocks:
            return []
        first = blocks[0][0]
        early = [text for index, lines in self.raisers if index > first for text in lines]
        slots = []
        for _, _, kept in blocks:
            for _, slot, _, _, _ in kept:
                if slot.probe is None:
                    slot.probe = self.fresh("q")
                    slots.append(slot)
        lines = self.lines[:first] + early
        at = first
        for start, end, kept in blocks:
            lines += self.lines[at:start]
            block = self.lines[start:end]
            proof = " and ".join(f"u_unshared({slot.name}, {slot.probe})" for _, slot, _, _, _ in kept)
            writable = {index - start: f"    {array} = u_writable({slot.name})" for index, slot, array, _, _ in kept}
            in_place = [writable.get(k, text) for k, text in enumerate(block)]
            # old elements loaded from the array stored to: with two names for it the compiler finds them
            # overlapping and runs the scalar loop (2.3x slower)
            for _, _, _, old, new in kept:
                in_place = [re.sub(rf"\b{old}\[", f"{new}[", text) if k not in writable else text
                            for k, text in enumerate(in_place)]
            lines.append(f"    if {proof}:")
            lines += ["    " + text for text in in_place]
            lines.append("    else:")
            lines += ["    " + text for text in block]
            at = end
        self.lines = lines + self.lines[at:]
        return sorted(slots, key=lambda slot: slot.position)

    # -- elementwise loops ---------------------------------------------------------------------------
    def join_region(self, op, consumers, returned, indent):
        """Adds an elementwise op over arrays of one static shape to the loop being gathered (starting one
        when needed); False for any other op."""
        if op.type in ("AssignAddVariableOp", "AssignSubVariableOp", "ResourceApplyGradientDescent"):
            return self.join_update(op, indent)
        if len(op.outputs) != 1 or op.outputs[0].shape.rank in (0, None) or op.type not in _ELEMENTWISE:
            return False
        shape = op.outputs[0].shape.as_list()
        if any(t.shape.rank != 0 and t.shape.as_list() != shape for t in op.inputs):
            return False       # broadcasting between arrays: an array expression (emit_op)
        if any(d is None for d in shape) and sum(1 for t in op.inputs if t.shape.rank) > 1 and \
                not all(t.shape.as_list() == shape for t in op.inputs if t.shape.rank):
            return False
        region = self.region_of(shape, indent)
        args = []
        for t in op.inputs:
            name = region.local.get(id(t))
            if name is None:
                outer = self.values[id(t)]
                if t.shape.rank == 0:
                    name = outer
                else:
                    name = self.fresh("e")
                    region.loads.append((name, outer))
                    region.local[id(t)] = name
            args.append(name)
        out = op.outputs[0]
        element = self.fresh("e")
        region.body.append(f"{element} = {_DTYPES[out.dtype.name]}({self.element_expression(op, args)})")
        region.local[id(out)] = element
        region.ops.append(op)
        region.results.append((out, element, id(out) in returned, consumers.get(id(out), ())))
        return True

    def region_of(self, shape, indent):
        """The loop being gathered, over `shape` (the one before is flushed when its shape differs)."""
        if self.region is not None and self.region.shape != shape:
            self.flush(indent)
        if self.region is None:
            self.region = _Region(shape)
        return self.region

    def join_update(self, op, indent):
        """An update of a variable of fully known shape by a value of that shape joins the loop: the new
        value is one more element expression (the old value's element plus or minus the delta's), stored
        to a new array the variable's local is rebound to after the loop (a variable's array is never
        written into). Any other update is emitted on its own (emit_variable_op)."""
        slot = self.slots.get(self.values.get(id(op.inputs[0])))
        value = op.inputs[-1]
        if slot is None or not slot.rank or None in slot.shape or slot.dtype == "bool" or \
                value.dtype.name != slot.dtype or value.shape.as_list() != list(slot.shape):
            return False
        alpha = None
        if op.type == "ResourceApplyGradientDescent":
            alpha = op.inputs[1]
            if slot.dtype not in _FLOATS or alpha.dtype.name != slot.dtype or alpha.shape.rank != 0:
                return False    # emit_variable_op refuses it: the NumPy kernel raises TensorFlow's error
        region = self.region_of(list(slot.shape), indent)
        key = ("variable", slot.name)
        current = region.local.get(key)
        if current is None:
            current = self.fresh("e")
            region.loads.append((current, slot.name))
        delta = region.local.get(id(value))
        if delta is None:
            delta = self.fresh("e")
            region.loads.append((delta, self.values[id(value)]))
            region.local[id(value)] = delta
        element = self.fresh("e")
        sign = "+" if op.type == "AssignAddVariableOp" else "-"
        if alpha is not None:
            # var - alpha * delta, the product rounded to the dtype first (no fused multiply-add), in the
            # operand order the NumPy kernel uses (it decides which NaN a product of two NaNs gives)
            scale = self.values[id(alpha)]
            product = self.fresh("e")
            factors = (delta, scale) if op.attrs.get("_delta_first") else (scale, delta)
            region.body.append(f"{product} = {_DTYPES[slot.dtype]}({factors[0]} * {factors[1]})")
            delta = product
        region.body.append(f"{element} = {_DTYPES[slot.dtype]}({current} {sign} {delta})")
        region.local[key] = element
        region.updates[slot.name] = element
        region.ops.append(op)
        slot.written = True
        return True

    def flush(self, indent):
        region, self.region = self.region, None
        if region is None:
            return
        members = {id(op) for op in region.ops}
        # Stored: values returned or read by an op outside the loop; the rest live in registers only.
        results = [(t, e) for t, e, returned, users in region.results
                   if returned or any(id(u) not in members for u in users)]
        if not results and not region.updates:
            return
        if not region.loads:
            raise Unsupported(region.ops[0], "an array computed from scalars only")
        start = len(self.lines)
        first = region.loads[0][1]
        flat = {}
        one_dim = len(region.shape) == 1     # rank-1 arrays are indexed as they are (no reshaped view)
        for _, outer in region.loads:
            if outer not in flat:
                flat[outer] = outer if one_dim else self.fresh("f")
                if outer != first:
                    self.check(indent, f"{outer}.shape != {first}.shape", (outer, first))
                if not one_dim:
                    self.line(indent, f"{flat[outer]} = {outer}.reshape(-1)")
        stores = []
        for t, element in results:
            array = self.fresh("v")
            self.line(indent, f"{array} = np.empty({first}.shape, {_DTYPES[t.dtype.name]})")
            stores.append((array if one_dim else self.fresh("f"), element))
            if not one_dim:
                self.line(indent, f"{stores[-1][0]} = {array}.reshape(-1)")
            self.values[id(t)] = array
        rebinds = []
        block_start, allocations = len(self.lines), []
        for local, element in region.updates.items():
            array = self.fresh("v")
            self.line(indent, f"{array} = np.empty({first}.shape, {_DTYPES[self.slots[local].dtype]})")
            stores.append((array if one_dim else self.fresh("f"), element))
            # (the allocation's line, the variable, its new array, the loop's names of the old and new arrays)
            allocations.append((len(self.lines) - 1, self.slots[local], array, flat.get(local), stores[-1][0]))
            if not one_dim:
                self.line(indent, f"{stores[-1][0]} = {array}.reshape(-1)")
            rebinds.append(f"{local} = {array}")
        index = self.fresh("i")
        size = None if any(d is None for d in region.shape) else int(np.prod(region.shape, dtype=np.int64))
        loops = ["range"]
        if self.parallel_ok and (size is None or size >= PARALLEL_MIN_ELEMENTS):
            # Large loops run on all cores (numba's prange); small ones never pay for starting threads.
            self.parallel = True
            loops = ["prange", "range"] if size is None else ["prange"]
            if size is None:
                self.line(indent, f"if {flat[first]}.size >= {PARALLEL_MIN_ELEMENTS}:")
        for k, loop in enumerate(loops):
            inner = indent + (1 if len(loops) > 1 else 0)
            if k == 1:
                self.line(indent, "else:")
            self.line(inner, f"for {index} in {loop}({flat[first]}.size):")
            for name, outer in region.loads:
                self.line(inner + 1, f"{name} = {flat[outer]}[{index}]")
            for text in region.body:
                self.line(inner + 1, text)
            for target, element in stores:
                self.line(inner + 1, f"{target}[{index}] = {element}")
        if indent == 1 and allocations:   # candidates for writing in place (write_in_place decides)
            self.candidates.append((block_start, len(self.lines), allocations))
        for text in rebinds:      # after the loop, which read the variables' old arrays
            self.line(indent, text)
        if indent == 1:
            self.top_loops.append((start, len(self.lines), region, size,
                                   [(self.values[id(t)], t.dtype.name, e) for t, e in results]))

    def map_block(self, name, args, results):
        """(source of `name`, MapPlan) when the kernel so far is exactly one elementwise loop over at least
        PARALLEL_MIN_ELEMENTS elements (or an unknown number) storing every result; ("", None) otherwise.
        `name(*args, *stores, counters, blocks, step)` is the same loop over the 1-D arrays it is passed,
        taking blocks of `step` elements while `u_claim(counters, 0)` (an atomic add) gives one below
        `blocks` and counting each finished block in counters[1], so that threads calling it at once
        share the blocks (runtime/blocked_map.py). Each element is computed by the same expression as in
        the kernel, so the values are the same bits."""
        if len(self.top_loops) != 1:
            return "", None
        start, end, region, size, stores = self.top_loops[0]
        names = [array for array, _, _ in stores]
        if start != 0 or end != len(self.lines) or any(r not in names for r in results) or \
                (size is not None and size < PARALLEL_MIN_ELEMENTS):
            return "", None
        outer = [o for _, o in region.loads]
        sliced = [k for k, a in enumerate(args) if a in outer]
        targets = [f"s{k}" for k in range(len(stores))]
        arrays = [a for a in args if a in outer] + targets
        lines = [f"def {name}({', '.join(args + targets)}, counters, blocks, step):",
                 "    while True:",
                 "        k = u_claim(counters, 0)",
                 "        if k >= blocks:",
                 "            break",
                 "        lo = k * step",
                 f"        hi = min(lo + step, {targets[0]}.size)"]
        # Slices, then a loop from 0: with a loop from `lo` numba cannot prove the index non-negative and
        # the loop is not vectorised (measured 2.3x slower).
        lines += [f"        x{a} = {a}[lo:hi]" for a in arrays]
        lines.append(f"        for i in range(x{targets[0]}.size):")
        lines += [f"            {element} = x{array}[i]" for element, array in region.loads]
        lines += [f"            {text}" for text in region.body]
        lines += [f"            x{target}[i] = {element}" for target, (_, _, element) in zip(targets, stores)]
        lines.append("        u_claim(counters, 1)")
        plan = MapPlan(sliced, [dtype for _, dtype, _ in stores], [names.index(r) for r in results], size)
        return "\n".join(lines) + "\n", plan

    def element_expression(self, op, args):
        """One element of an elementwise op, from its inputs' elements (scalars)."""
        in_kind = op.inputs[0].dtype.name
        out_kind = op.outputs[0].dtype.name
        if op.type in _FLOAT_ONLY and in_kind not in _FLOATS:
            raise Unsupported(op, f"{op.type} of {in_kind}")
        if op.type in _OPERATORS:
            if in_kind == "bool" and op.type in ("AddV2", "Sub", "Mul", "RealDiv"):
                raise Unsupported(op, "boolean arithmetic")
            return f"{args[0]} {_OPERATORS[op.type]} {args[1]}"
        if op.type in ("Maximum", "Minimum"):
            a, b = args
            # NumPy's rule: the first operand when it wins or is NaN, else the second (so on a tie, which
            # matters for signed zeros: np.maximum(-0.0, 0.0) is 0.0, np.maximum(0.0, -0.0) is -0.0).
            compare = ">" if op.type == "Maximum" else "<"
            nan = f" or {a} != {a}" if in_kind in _FLOATS else ""
            return f"{a} if ({a} {compare} {b}{nan}) else {b}"
        if op.type == "Relu":
            return f"{args[0]} if ({args[0]} > 0 or {args[0]} != {args[0]}) else {_DTYPES[in_kind]}(0)"
        if op.type in _EXACT_UNARY:
            fn = _EXACT_UNARY[op.type]
            return f"{fn}({args[0]})" if fn else args[0]
        if op.type == "Tanh" and in_kind == "float32":
            return f"u_eigen_tanh({args[0]})"      # Eigen's tanh, as the NumPy path computes it (exact)
        if op.type in _LIBM_UNARY:
            if in_kind != "float64":
                if in_kind != "float32":
                    raise Unsupported(op, f"{op.type} of {in_kind}")
                self.exact = False
            elif not numpy_float64_is_libm(op.type):
                self.exact = False
            return f"{_LIBM_UNARY[op.type]}({args[0]})"
        if op.type in ("FloorMod", "FloorDiv"):
            divisor = op.inputs[1].op
            if op.outputs[0].dtype._np.kind not in "iu" or op.inputs[1].shape.rank != 0 or \
                    divisor.type != "Const" or not np.all(divisor.attrs["value"]):
                raise Unsupported(op, "division by a divisor that is not a non-zero integer constant")
            return f"{args[0]} {'//' if op.type == 'FloorDiv' else '%'} {args[1]}"
        if op.type in ("Select", "SelectV2"):
            return f"{args[1]} if {args[0]} else {args[2]}"
        if op.type == "Cast":
            if in_kind in _FLOATS and out_kind not in _FLOATS:
                raise Unsupported(op, f"Cast {in_kind} to {out_kind} (TensorFlow's saturating conversion)")
            return f"{args[0]} != 0" if out_kind == "bool" else args[0]
        raise Unsupported(op, "no compiled form")

    # -- variables -------------------------------------------------------------------------------------
    def add_variable(self, t, param, position, captured):
        """Kernel input `param` is the value of the variable captured as placeholder `t`: bound to the
        local that holds the variable's current value from here on."""
        resource = captured.get(id(t))
        if resource is None:
            raise Unsupported(t.op, "a variable passed as an argument (only captured variables are lowered)")
        dtype = np.dtype(resource.dtype).name
        if dtype not in _DTYPES:
            raise Unsupported(t.op, f"a variable of dtype {dtype}")
        if resource.shape is None:
            raise Unsupported(t.op, "a variable of unknown rank (validate_shape=False)")
        if id(resource) in self.resources:
            raise Unsupported(t.op, "one variable captured twice")
        name = self.fresh("w")
        self.resources[id(resource)] = name
        self.line(1, f"{name} = {param}")
        self.slots[name] = _Slot(name, position, dtype, tuple(resource.shape))
        self.values[id(t)] = name

    def emit_variable_op(self, op, indent):
        """A read takes the variable's current array (a new name: a later write rebinds the variable's
        local, never this value); a write rebinds the local to the new value, checked as the NumPy kernels
        of ops/state.py check it (a mismatch known now is left to the NumPy path, one known only at run
        time raises in the kernel, before anything is stored)."""
        slot = self.slots.get(self.values.get(id(op.inputs[0])))
        if slot is None:
            raise Unsupported(op, "a resource that is not a captured variable")
        if op.type == "ResourceApplyGradientDescent":    # joined into a loop when it can be (join_update)
            raise Unsupported(op, "an update whose shapes or dtypes are not the variable's own")
        if op.type == "ReadVariableOp":
            out = op.outputs[0]
            if out.dtype.name != slot.dtype or out.shape.rank != slot.rank:
                raise Unsupported(op, "a read whose dtype or rank is not the variable's")
            v = self.fresh("v")
            self.line(indent, f"{v} = {slot.name}")
            self.values[id(out)] = v
            slot.aliased = True
            return
        value = op.inputs[1]
        if value.dtype.name != slot.dtype:
            raise Unsupported(op, f"a {value.dtype.name} value for a {slot.dtype} variable")
        if value.shape.rank != slot.rank:
            raise Unsupported(op, f"a value of rank {value.shape.rank} for a variable of rank {slot.rank}")
        if op.type != "AssignVariableOp" and slot.dtype == "bool":
            raise Unsupported(op, "boolean arithmetic")
        arg = self.values[id(value)]
        # The dimensions a write must match: the declared ones (the NumPy kernels check the declared shape
        # for an assignment and the current one, which has the declared dimensions, for an update); a free
        # dimension of an update matches the variable's current size, which only the running kernel knows.
        # A mismatch the graph already shows is checked too: that kernel always falls back to the NumPy
        # path, which raises TensorFlow's error at run time, as TensorFlow does.
        checks = []
        for k, (declared, got) in enumerate(zip(slot.shape, value.shape.as_list())):
            if declared is not None and got != declared:
                checks.append((k, str(declared)))
            elif declared is None and op.type != "AssignVariableOp":
                checks.append((k, f"{slot.name}.shape[{k}]"))
        for k, expected in checks:
            self.check(indent, f"{arg}.shape[{k}] != {expected}", None)
        if op.type == "AssignVariableOp":
            expression = arg
            slot.aliased = True
        else:
            expression = f"{slot.name} {'+' if op.type == 'AssignAddVariableOp' else '-'} {arg}"
        if slot.rank == 0:
            expression = f"{_DTYPES[slot.dtype]}({expression})"   # int32 wraps as TensorFlow's does
        self.line(indent, f"{slot.name} = {expression}")
        slot.written = True

    # -- everything else -------------------------------------------------------------------------------
    def assign(self, op, expression, indent):
        out = op.outputs[0]
        v = self.fresh("v")
        if out.shape.rank == 0:
            expression = f"{_DTYPES[out.dtype.name]}({expression})"
        self.line(indent, f"{v} = {expression}")
        self.values[id(out)] = v

    def emit_op(self, op, indent):
        if op.opdef is not None and op.opdef.stateful:
            raise Unsupported(op, "a stateful op")
        if len(op.outputs) != 1:
            raise Unsupported(op, "an op with other than one output")
        args = [self.values[id(t)] for t in op.inputs]
        if op.type in _FULL_REDUCTIONS:
            return self.emit_reduction(op, args, indent)
        if op.type not in _ELEMENTWISE:
            raise Unsupported(op, "no compiled form")
        if op.outputs[0].shape.rank == 0:
            return self.assign(op, self.element_expression(op, args), indent)
        # Arrays that broadcast against each other: a NumPy array expression numba compiles itself.
        if op.type in _ARRAY_FUNCTIONS and not any(t.dtype.name == "bool" for t in op.inputs[:1]) or \
                op.type in _COMPARISONS:
            self.raisers.append((len(self.lines), None))     # arrays that do not broadcast raise
            return self.assign(op, f"{_ARRAY_FUNCTIONS[op.type]}({', '.join(args)})", indent)
        raise Unsupported(op, "broadcasting of this op")

    def float_total(self, kind, arg, rank):
        """The sum of a float array as the NumPy path adds it: TensorFlow's (Eigen's) order for float32,
        with the thread count Eigen's cost model would use passed in as a constant; NumPy's pairwise
        order for float64."""
        if kind != "float32":
            return f"u_pairwise_total({arg})"
        threads = self.fresh("c")
        self.constants.append((threads, np.int64(_eigen_sum._threads())))
        return f"u_eigen_{'flat_' if rank == 1 else ''}total({arg}, {threads})"

    def emit_reduction(self, op, args, indent):
        x, out = op.inputs[0], op.outputs[0]
        axis, keepdims = op.attrs.get("axis"), op.attrs.get("keepdims", False)
        rank = x.shape.rank
        if axis is not None and sorted(a % rank if rank else a for a in axis) != list(range(rank)):
            raise Unsupported(op, "a reduction over some of the axes")
        kind = x.dtype.name
        if rank == 0:
            # NumPy's add.reduce starts from 0, so the sum (and mean) of -0.0 is +0.0.
            value = f"{_DTYPES[kind]}(0) + {args[0]}" if op.type in ("Sum", "Mean") and kind in _FLOATS \
                else args[0]
        elif op.type == "Sum":
            value = self.float_total(kind, args[0], rank) if kind in _FLOATS else f"np.sum({args[0]})"
        elif op.type == "Mean":
            if kind not in _FLOATS:
                raise Unsupported(op, "an integer mean")
            count = self.fresh("v")
            self.line(indent, f"{count} = {_DTYPES[kind]}({args[0]}.size)")
            value = f"{self.float_total(kind, args[0], rank)} / {count}"
        elif op.type in ("Max", "Min"):
            if kind in _FLOATS:
                value = f"u_{op.type.lower()}_total({args[0]})"
            elif kind != "bool":
                # TensorFlow's empty reduction is the dtype's extreme, passed in as a constant.
                info = np.iinfo(np.dtype(kind))
                c = self.fresh("c")
                self.constants.append((c, np.dtype(kind).type(info.min if op.type == "Max" else info.max)))
                value = f"u_i{op.type.lower()}_total({args[0]}, {c})"
            else:
                raise Unsupported(op, f"{op.type} of {kind}")
        elif op.type == "Prod":
            raise Unsupported(op, "a product reduction")
        else:
            value = f"np.{'all' if op.type == 'All' else 'any'}({args[0]})"
        v = self.fresh("v")
        self.line(indent, f"{v} = {_DTYPES[out.dtype.name]}({value})")
        if keepdims and rank:
            k = self.fresh("v")
            self.line(indent, f"{k} = np.full(({', '.join(['1'] * rank)},), {v})")
            v = k
        self.values[id(out)] = v

    def emit_subgraph(self, graph, names, indent):
        for p, n in zip(graph.inputs, names):
            self.values[id(p)] = n
        return self.emit_graph(graph, graph.outputs, indent)

    def emit_if(self, op, indent):
        then_graph, else_graph, n_then = op.attrs["then_graph"], op.attrs["else_graph"], op.attrs["n_then"]
        if op.inputs[0].shape.rank != 0:
            raise Unsupported(op, "a non-scalar predicate")
        names = [self.values[id(t)] for t in op.inputs]
        outs = [self.fresh("v") for _ in op.outputs]
        self.line(indent, f"if {names[0]}:")
        for graph, inputs in ((then_graph, names[1:1 + n_then]), (else_graph, names[1 + n_then:])):
            if graph is else_graph:
                self.line(indent, "else:")
            results = self.emit_subgraph(graph, inputs, indent + 1)
            self.bind(outs, results, op.outputs, indent + 1)
        for t, n in zip(op.outputs, outs):
            self.values[id(t)] = n

    def bind(self, names, results, tensors, indent):
        """`names = results`, each converted to its dtype: both branches and every loop iteration must
        give numba one type per name."""
        if not names:
            self.line(indent, "pass")
        for n, r, t in zip(names, results, tensors):
            if t.shape.rank == 0:
                self.line(indent, f"{n} = {_DTYPES[t.dtype.name]}({r})")
            else:
                self.line(indent, f"{n} = {r}")

    def emit_while(self, op, indent):
        if op.attrs.get("keep_history"):
            raise Unsupported(op, "a loop whose iterations a gradient replays")
        cond_graph, body_graph = op.attrs["cond_graph"], op.attrs["body_graph"]
        n_vars, n_cond = op.attrs["n_vars"], op.attrs["n_cond"]
        names = [self.values[id(t)] for t in op.inputs]
        init, rest = names[:n_vars], names[n_vars:]
        limit = rest.pop() if op.attrs.get("has_max") else None
        cond_caps, body_caps = rest[:n_cond], rest[n_cond:]
        loop = [self.fresh("v") for _ in range(n_vars)]
        self.bind(loop, init, op.outputs[:n_vars], indent)
        if limit is not None:
            counter = self.fresh("v")
            self.line(indent, f"{counter} = 0")
            self.line(indent, f"while {counter} < {limit}:")
        else:
            self.line(indent, "while True:")
        (keep,) = self.emit_subgraph(cond_graph, loop + cond_caps, indent + 1)
        self.line(indent + 1, f"if not {keep}:")
        self.line(indent + 2, "break")
        results = self.emit_subgraph(body_graph, loop + body_caps, indent + 1)
        if any(r in loop for r in results):
            # `x, prev = f(x), x`: all read before any is rebound (one after the other, prev gets the new x)
            temporaries = [self.fresh("v") for _ in results]
            self.bind(temporaries, results, op.outputs[:n_vars], indent + 1)
            results = temporaries
        self.bind(loop, results, op.outputs[:n_vars], indent + 1)
        if limit is not None:
            self.line(indent + 1, f"{counter} += 1")
        for t, n in zip(op.outputs, loop):
            self.values[id(t)] = n
