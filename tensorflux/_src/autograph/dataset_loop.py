"""`for x in dataset` inside a tf.function: one ReduceDataset op, as TensorFlow stages it.

TensorFlow turns a loop over a `tf.data.Dataset` into `Dataset.reduce`: the loop body becomes the reduce
function (loop variables in, loop variables out, one element per call) and the graph holds a single
`ReduceDataset` node, with no `While` around an iterator. A `break` (the loop's extra test) stops the
reduction before the next element. tensorflux builds the same op: `operators._tf_while` traces the body
with the element as extra inputs and hands the traced graphs to `build`; the code generator emits a
Python `for` over the dataset's elements around the inlined body (`runtime/codegen.py`).

Loops over `iter(dataset)`, over a distributed dataset and over an iterator stay `While` loops over
iterator ops, as in TensorFlow.

    @tf.function
    def total():
        acc = tf.constant(0, tf.int64)
        for x in tf.data.Dataset.range(5):   # graph: one ReduceDataset node
            acc += x
        return acc
"""
from ..framework import nest
from ..ops.control_flow.cond_while import LoopVar
from ..ops.registry import OpDef, apply
from ..types.spec import TensorSpec

__all__ = ["REDUCE_DATASET", "DatasetElements", "staged_by_reduce"]


def _infer_from_attrs(inputs, attrs):
    return list(attrs["output_types"])


def _no_kernel(*arrays, **attrs):
    raise NotImplementedError("ReduceDataset runs through the generated code, not as a kernel")


def _no_gradient(op, *grads):
    """TensorFlow registers no gradient through a dataset's reduction: gradients stop there (None)."""
    return [None] * len(op.inputs)


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
        """One ReduceDataset op: inputs are the dataset, the initial loop variables, then the tensors the
        extra test (when there is one) and the body capture; outputs are the final loop variables."""
        body_graph.outputs = list(body_out)
        inputs = [self.dataset._variant_tensor()] + list(init)
        n_cond = 0
        if cond_graph is not None:
            cond_graph.outputs = [keep]
            n_cond = len(cond_graph.external_captures)
            inputs += cond_graph.external_captures
        inputs += body_graph.external_captures
        attrs = {"cond_graph": cond_graph, "body_graph": body_graph, "n_vars": len(init), "n_cond": n_cond,
                 "n_elements": len(self.specs), "output_types": [(s.dtype, s.shape) for s in specs],
                 "has_max": maximum_iterations is not None}
        if maximum_iterations is not None:
            inputs.append(maximum_iterations)
        outs = apply(REDUCE_DATASET, inputs, attrs, "ReduceDataset")
        return outs if specs else []   # no loop variables: the op alone (kept, as it is stateful)
