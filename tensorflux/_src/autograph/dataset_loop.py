"""`for x in dataset` inside a tf.function: ScanDataset -> ReduceDataset, as TensorFlow stages it.

TensorFlow turns a loop over a `tf.data.Dataset` into a scan whose function is the loop body (loop
variables in, loop variables out, one element per call), followed by a reduction that keeps the last
state: the graph holds `ScanDataset` and `ReduceDataset` nodes, with no `While` around an iterator. A
loop that can `break` carries a "keep going" flag in the scan state, a `TakeWhileDataset` between the two
stops at the first false flag, and the reduction's state holds the flag too. A loop without variables
scans a dummy `Const` state. tensorflux builds the same nodes: `operators._tf_while` traces the body with
the element as extra inputs and hands the traced graphs to `build`; the code generator emits one Python
`for` over the dataset's elements around the inlined body at the ReduceDataset node, reading the body
and the extra test from its ScanDataset (`runtime/codegen.py`); the scan and take-while nodes emit nothing.

Loops over `iter(dataset)`, over a distributed dataset and over an iterator stay `While` loops over
iterator ops, as in TensorFlow.

    @tf.function
    def total():
        acc = tf.constant(0, tf.int64)
        for x in tf.data.Dataset.range(5):   # graph: ScanDataset -> ReduceDataset
            acc += x
        return acc
"""
import numpy as np

from ..framework import nest
from ..framework.context import state as _state
from ..ops.control_flow.cond_while import LoopVar
from ..ops.registry import OpDef, apply
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from ..types.spec import TensorSpec

__all__ = ["REDUCE_DATASET", "SCAN_DATASET", "TAKE_WHILE_DATASET", "DatasetElements", "staged_by_reduce"]


def _infer_from_attrs(inputs, attrs):
    return list(attrs["output_types"])


def _variant_output(inputs, attrs):
    return [(_dt.variant, TensorShape([]))]


def _no_kernel(*arrays, **attrs):
    raise NotImplementedError("a dataset loop's ops run through the generated code, not as kernels")


def _no_gradient(op, *grads):
    """TensorFlow registers no gradient through a dataset's reduction: gradients stop there (None)."""
    return [None] * len(op.inputs)


# The scan and take-while stages compute nothing by themselves (the loop runs at the ReduceDataset node):
# not stateful, as in TensorFlow, so only the reduction is among the ops a function must run.
SCAN_DATASET = OpDef("ScanDataset", _variant_output, _no_kernel, grad=_no_gradient, multi=False, input_names=())
TAKE_WHILE_DATASET = OpDef("TakeWhileDataset", _variant_output, _no_kernel, grad=_no_gradient, multi=False,
                           input_names=())
REDUCE_DATASET = OpDef("ReduceDataset", _infer_from_attrs, _no_kernel, grad=_no_gradient, stateful=True, multi=True,
                       input_names=())


def _defining_class(klass, attribute):
    for c in klass.__mro__:
        if attribute in c.__dict__:
            return c
    return None


def staged_by_reduce(iterable):
    """True for a dataset whose loop TensorFlow stages as `Dataset.reduce`: a `tf.data.Dataset` of plain
    tensors whose class keeps the dataset's own loop (a distributed dataset, which regroups each step
    into per-replica values, and `iter(dataset)` keep their iterator loops)."""
    klass = type(iterable)
    loop_owner = _defining_class(klass, "_ag_for_stmt")
    if loop_owner is None or loop_owner is not _defining_class(klass, "_variant_tensor"):
        return False
    spec = getattr(iterable, "_element_spec", None)
    return spec is not None and all(type(s) is TensorSpec for s in nest.flatten(spec))


class DatasetElements:
    """The element a traced loop body sees: placeholders of the reduce function (`bind`), packed into the
    dataset's element structure (`element`); `build` adds the ReduceDataset op over the traced graphs."""

    def __init__(self, dataset):
        self.dataset = dataset
        self.structure = dataset._element_spec
        self.specs = [LoopVar(s.dtype, s.shape, f"element_{i}") for i, s in enumerate(nest.flatten(self.structure))]
        self._values = None

    def bind(self, values):
        self._values = list(values)

    def element(self):
        return nest.pack_sequence_as(self.structure, self._values)

    def build(self, init, specs, cond_graph, keep, body_graph, body_out, maximum_iterations=None):
        """ScanDataset(dataset, state..., extra-test captures..., body captures...), then TakeWhileDataset
        when the loop can break, then ReduceDataset(previous stage, state..., [maximum iterations]), whose
        first outputs are the final loop variables. The state is the loop variables (a dummy 0 when there
        are none), plus TensorFlow's `False` "stopped" flag when the loop can break."""
        body_graph.outputs = list(body_out)
        graph = _state.graph
        state = list(init) or [graph.add_constant(np.array(0, np.int32))]
        scan_state = list(state)
        if cond_graph is not None:
            cond_graph.outputs = [keep]
            scan_state.append(graph.add_constant(np.array(False), name="normalize_element/component_1"))
        cond_caps = cond_graph.external_captures if cond_graph is not None else []
        scan_inputs = [self.dataset._variant_tensor()] + scan_state + list(cond_caps) + list(body_graph.external_captures)
        scan_attrs = {"cond_graph": cond_graph, "body_graph": body_graph, "n_vars": len(init),
                      "n_state": len(scan_state), "n_cond": len(cond_caps), "n_elements": len(self.specs)}
        stage = apply(SCAN_DATASET, scan_inputs, scan_attrs, "ScanDataset")
        reduce_state = list(state)
        if cond_graph is not None:
            stage = apply(TAKE_WHILE_DATASET, [stage], {"predicate": cond_graph}, "TakeWhileDataset")
            reduce_state.append(graph.add_constant(np.array(False), name="initial_state/normalize_element/component_1"))
        attrs = {"n_vars": len(init), "output_types": [(t.dtype, t.shape) for t in reduce_state[len(init):]],
                 "has_max": maximum_iterations is not None}
        attrs["output_types"] = [(s.dtype, s.shape) for s in specs] + attrs["output_types"]
        inputs = [stage] + reduce_state
        if maximum_iterations is not None:
            inputs.append(maximum_iterations)
        outs = apply(REDUCE_DATASET, inputs, attrs, "ReduceDataset")
        return list(outs[:len(init)]) if specs else []   # no loop variables: the op alone (kept, as it is stateful)
