"""How each tensorflux op becomes TensorFlow nodes when a graph is exported (see graph_export.py). A rule is
`rule(builder, op, inputs) -> [Value per output of op]`, adding nodes with `builder.emit`/`builder.const`.

Most ops share TensorFlow's type name and attr names and go through `generic`: tensorflux's attrs are
copied under TensorFlow's names, type and count attrs are read from the wired tensors, defaults filled.
The rules below cover the differences:

- an attr in tensorflux that is an input in TensorFlow (reduction axes, `perm`, `dim`, `split_dim`, the
  axis of ConcatV2/GatherV2/ArgMax/ReverseV2/Cumsum) becomes a `Const` input `<node>/<input name>`;
- renamed attrs (`keepdims` -> `keep_dims`, Squeeze's `axis` -> `squeeze_dims`);
- ops TensorFlow computes as several nodes (Moments, BatchNormalization, Gelu, Silu) are written in
  TensorFlow's decomposed form, as `tf.nn.moments`/`tf.nn.batch_normalization`/`tf.nn.gelu` trace;
- If/While become TensorFlow's functional control flow: every branch function takes every input, the
  cond and body functions of a loop take (and the body returns) every loop input;
- calls of concrete functions become `PartitionedCall`/`StatefulPartitionedCall`.
"""
import numpy as np

from ...types import dtypes as _dt
from ...types.shape import TensorShape
from .op_interfaces import interface

__all__ = ["generic", "rule", "rule_for", "ExportError"]


class ExportError(ValueError):
    """A graph holds something TensorFlow's graph format cannot express."""


# tensorflux op type -> rule(builder, op, inputs) -> [a Value per op output]
RULES = {}


def rule(*op_types):
    def register(fn):
        for t in op_types:
            RULES[t] = fn
        return fn
    return register

# tensorflux attrs with no TensorFlow counterpart that carry nothing TensorFlow needs.
_DROPPED = {"ReadVariableOp": {"shape"}, "EnsureShape": {"tensor_name"}, "RandomUniform": {"stream"}, "RandomStandardNormal": {"stream"},
            "TruncatedNormal": {"stream"}, "RandomUniformInt": {"stream"}, "RandomShuffle": {"stream"},
            "Multinomial": {"stream"}}
_RENAMED = {"keepdims": "keep_dims"}
# tensorflux attrs TensorFlow's op lacks, which may be left out only when they hold these values.
_ONLY_WHEN = {"GatherNd": {"batch_dims": 0}, "LinSpace": {"axis": 0}, "Angle": {"deg": False},
              "MaxPool3D": {"explicit_paddings": ()}, "MaxPool3DGrad": {"explicit_paddings": ()},
              "MaxPoolGradGrad": {"explicit_paddings": ()}}


def _out_specs(op):
    return [(t.dtype, t.shape) for t in op.outputs]


def controls(b, op):
    """Names of the exported nodes `op` must run after."""
    return [b.op_nodes[id(c)] for c in op.control_inputs if id(c) in b.op_nodes]


def generic(b, op, ins, op_type=None, attrs=None, drop=()):
    """`op` as one node of TensorFlow's op of the same name (or `op_type`)."""
    op_type = op_type or op.type
    iface = interface(op_type)
    if iface is None:
        raise ExportError(f"Cannot export the op '{op.name}' (type {op.type}) of the graph '{op.graph.name}': "
                          f"TensorFlow has no op {op_type}, and tensorflux knows no equivalent to write.")
    source = op.attrs if attrs is None else attrs
    converted = {}
    dropped = _DROPPED.get(op.type, set()) | set(drop)
    for key, value in source.items():
        key = _RENAMED.get(key, key)
        if key in dropped:
            continue
        only = _ONLY_WHEN.get(op.type, {})
        if key in only and key not in iface.attrs:
            if value == only[key] or (isinstance(value, (list, tuple)) and tuple(value) == only[key]):
                continue
            raise ExportError(f"Cannot export the op '{op.name}' (type {op.type}) with {key}={value!r}: "
                              f"TensorFlow's {op_type} has no such attr.")
        if key not in iface.attrs:
            raise ExportError(f"Cannot export the op '{op.name}' (type {op.type}): its attr '{key}' has no "
                              f"counterpart in TensorFlow's {op_type}.")
        converted[key] = _dt.as_dtype(value) if iface.attrs[key][0] == "type" else value
    return b.emit(op_type, ins, converted, _out_specs(op), control=controls(b, op))


def _rank(op, value):
    if value.shape.rank is None:
        raise ExportError(f"Cannot export the op '{op.name}' ({op.type}): TensorFlow's form needs the rank of "
                          f"its input, which is unknown.")
    return value.shape.rank


def _axis_input(b, op, axis, input_name, dtype=np.int32):
    return b.const(np.asarray(axis, dtype=dtype), f"{op.name}/{input_name}")


def _without(attrs, *keys):
    return {k: v for k, v in attrs.items() if k not in keys}


# -- nodes every graph has --------------------------------------------------------------------------
@rule("Const")
def _const(b, op, ins):
    value = np.asarray(op.attrs["value"])
    dtype = op.outputs[0].dtype
    return b.emit("Const", [], {"value": value, "dtype": dtype}, _out_specs(op), control=controls(b, op))


@rule("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp")
def _assign(b, op, ins):
    return b.emit(op.type, ins, {"dtype": ins[1].dtype}, [], control=controls(b, op))


# -- attrs that are inputs in TensorFlow ------------------------------------------------------------
@rule("Sum", "Mean", "Max", "Min", "Prod", "All", "Any", "EuclideanNorm")
def _reduce(b, op, ins):
    axis = op.attrs.get("axis")
    if axis is None and ins[0].shape.rank is None:
        # Every axis of a tensor of unknown rank: Range(0, Rank(x), 1), as TensorFlow writes it.
        n = op.name
        rank = _node(b, "Rank", [ins[0]], f"{n}/Rank", out_dtype=_dt.int32, shape=TensorShape([]))
        start, delta = b.const(np.int32(0), f"{n}/range/start"), b.const(np.int32(1), f"{n}/range/delta")
        axes = _node(b, "Range", [start, rank, delta], f"{n}/range", out_dtype=_dt.int32, shape=TensorShape([None]))
        return generic(b, op, [ins[0], axes], attrs=_without(op.attrs, "axis"))
    if axis is None:   # every axis: TensorFlow's constant of all of them, made outside the op's name scope
        axes = b.const(np.arange(_rank(op, ins[0]), dtype=np.int32), "Const")
        return generic(b, op, [ins[0], axes], attrs=_without(op.attrs, "axis"))
    axes = _axis_input(b, op, axis, "reduction_indices")
    return generic(b, op, [ins[0], axes], attrs=_without(op.attrs, "axis"))


@rule("Transpose")
def _transpose(b, op, ins):
    perm = op.attrs.get("perm")
    if perm is None:
        perm = list(reversed(range(_rank(op, ins[0]))))
    return generic(b, op, [ins[0], _axis_input(b, op, perm, "perm")], attrs=_without(op.attrs, "perm"))


def _axis_rule(input_name, position):
    def export(b, op, ins):
        axis = _axis_input(b, op, op.attrs["axis"], input_name)
        args = list(ins)
        args.insert(len(args) if position is None else position, axis)
        return generic(b, op, args, attrs=_without(op.attrs, "axis"))
    return export


rule("ExpandDims")(_axis_rule("dim", None))
rule("ConcatV2")(_axis_rule("axis", None))
rule("GatherV2")(_axis_rule("axis", None))
rule("ArgMax", "ArgMin")(_axis_rule("dimension", None))
rule("ReverseV2")(_axis_rule("axis", None))
rule("Cumsum", "Cumprod", "CumulativeLogsumexp")(_axis_rule("axis", None))
rule("Split")(_axis_rule("split_dim", 0))
rule("SparseReduceSum", "SparseReduceSumSparse", "SparseReduceMax", "SparseReduceMaxSparse")(
    lambda b, op, ins: generic(b, op, list(ins) + [_axis_input(b, op, list(op.attrs["axes"]), "reduction_axes")],
                               attrs=_without(op.attrs, "axes")))
rule("SplitV")(_axis_rule("split_dim", None))


@rule("Squeeze")
def _squeeze(b, op, ins):
    axis = op.attrs.get("axis")
    dims = [] if axis is None else ([axis] if isinstance(axis, int) else list(axis))
    return generic(b, op, ins, attrs={"squeeze_dims": dims})


def _last_axis(op, value, axis):
    rank = value.shape.rank
    if axis in (-1, None) or (rank is not None and axis == rank - 1):
        return
    raise ExportError(f"Cannot export the op '{op.name}' ({op.type}) over axis {axis}: TensorFlow's {op.type} "
                      f"works on the last axis only.")


@rule("Softmax", "LogSoftmax", "SoftmaxCrossEntropyWithLogits")
def _softmax(b, op, ins):
    _last_axis(op, ins[0], op.attrs.get("axis", -1))
    return generic(b, op, ins, attrs=_without(op.attrs, "axis"))


@rule("Pad")
def _pad(b, op, ins):
    fill = op.attrs.get("constant_values")
    if fill is None or not np.any(np.asarray(fill)):
        return generic(b, op, ins, attrs={})
    value = b.const(np.asarray(fill, dtype=ins[0].dtype.as_numpy_dtype), f"{op.name}/constant_values")
    return generic(b, op, ins + [value], op_type="PadV2", attrs={})


# -- ops TensorFlow writes as several nodes -------------------------------------------------------------
def _node(b, op_type, ins, name, out_dtype=None, shape=None, attrs=None):
    (out,) = b.emit(op_type, ins, attrs or {}, [(out_dtype or ins[0].dtype, ins[0].shape if shape is None
                                                 else shape)], name=name)
    return out


@rule("FusedLayerNorm")
def _fused_layer_norm(b, op, ins):
    """Keras' LayerNormalization in TensorFlow's ops, in the fused op's order of operations:
    y = x·(r·γ) + (β − μ·(r·γ)), μ = mean(x), r = rsqrt(mean((x − μ)²) + ε) over the axes from begin_axis."""
    x, gamma, beta = ins
    rank = _rank(op, x)
    begin = op.attrs["begin_axis"]
    n = op.name
    kept = TensorShape([1 if i >= begin else d for i, d in enumerate(x.shape.as_list())])
    axes = _axis_input(b, op, list(range(begin, rank)), "moments/mean/reduction_indices")
    (mean,) = b.emit("Mean", [x, axes], {"keep_dims": True}, [(x.dtype, kept)], name=f"{n}/moments/mean")
    squared = _node(b, "SquaredDifference", [x, mean], f"{n}/moments/SquaredDifference")
    (variance,) = b.emit("Mean", [squared, axes], {"keep_dims": True}, [(x.dtype, kept)], name=f"{n}/moments/variance")
    eps = b.const(np.asarray(op.attrs["epsilon"], dtype=x.dtype.as_numpy_dtype), f"{n}/batchnorm/add/y")
    r = _node(b, "Rsqrt", [_node(b, "AddV2", [variance, eps], f"{n}/batchnorm/add")], f"{n}/batchnorm/Rsqrt")
    scale = _node(b, "Mul", [r, gamma], f"{n}/batchnorm/mul", shape=x.shape)     # broadcast to x's shape
    shift = _node(b, "Sub", [beta, _node(b, "Mul", [mean, scale], f"{n}/batchnorm/mul_2", shape=x.shape)],
                  f"{n}/batchnorm/sub", shape=x.shape)
    (out,) = b.emit("AddV2", [_node(b, "Mul", [x, scale], f"{n}/batchnorm/mul_1"), shift], {}, _out_specs(op),
                    name=f"{n}/batchnorm/add_1")
    return [out]


@rule("Moments")
def _moments(b, op, ins):
    x = ins[0]
    axes = list(op.attrs["axes"])
    keep = bool(op.attrs.get("keepdims", False))
    kept_shape = op.outputs[0].shape if keep else None
    indices = _axis_input(b, op, axes, "mean/reduction_indices")
    mean = _node(b, "Mean", [x, indices], f"{op.name}/mean", shape=kept_shape, attrs={"keep_dims": True})
    stopped = _node(b, "StopGradient", [mean], f"{op.name}/StopGradient")
    diff = _node(b, "SquaredDifference", [x, stopped], f"{op.name}/SquaredDifference")
    indices2 = _axis_input(b, op, axes, "variance/reduction_indices")
    var = _node(b, "Mean", [diff, indices2], f"{op.name}/variance", shape=kept_shape, attrs={"keep_dims": True})
    if keep:
        return [mean, var]
    shape = op.outputs[0].shape
    return [_node(b, "Squeeze", [mean], f"{op.name}/Squeeze", shape=shape, attrs={"squeeze_dims": axes}),
            _node(b, "Squeeze", [var], f"{op.name}/Squeeze_1", shape=shape, attrs={"squeeze_dims": axes})]


@rule("BatchNormalization")
def _batch_norm(b, op, ins):
    x, mean, var = ins[:3]
    affine = iter(ins[3:])
    offset = next(affine) if op.attrs.get("has_offset") else None
    scale = next(affine) if op.attrs.get("has_scale") else None
    name = f"{op.name}/batchnorm"
    eps = b.const(np.asarray(op.attrs["variance_epsilon"], dtype=x.dtype.as_numpy_dtype), f"{name}/add/y")
    inv = _node(b, "Rsqrt", [_node(b, "AddV2", [var, eps], f"{name}/add")], f"{name}/Rsqrt")
    if scale is not None:
        inv = _node(b, "Mul", [inv, scale], f"{name}/mul")
    scaled = _node(b, "Mul", [x, inv], f"{name}/mul_1", shape=op.outputs[0].shape)
    shift = _node(b, "Mul", [mean, inv], f"{name}/mul_2")
    shift = _node(b, "Sub", [offset, shift], f"{name}/sub") if offset is not None else \
        _node(b, "Neg", [shift], f"{name}/Neg")
    (out,) = b.emit("AddV2", [scaled, shift], {}, _out_specs(op), name=f"{name}/add_1")
    return [out]


@rule("Gelu")
def _gelu(b, op, ins):
    x = ins[0]
    dt = x.dtype.as_numpy_dtype
    if op.attrs.get("approximate"):
        cube = _node(b, "Pow", [x, b.const(np.asarray(3, dt), f"{op.name}/Pow/y")], f"{op.name}/Pow")
        inner = _node(b, "Mul", [b.const(np.asarray(0.044715, dt), f"{op.name}/mul/x"), cube], f"{op.name}/mul")
        inner = _node(b, "AddV2", [x, inner], f"{op.name}/add")
        inner = _node(b, "Mul", [b.const(np.asarray(np.sqrt(2 / np.pi), dt), f"{op.name}/mul_1/x"), inner],
                      f"{op.name}/mul_1")
        gate = _node(b, "Tanh", [inner], f"{op.name}/Tanh")
    else:
        scaled = _node(b, "Mul", [x, b.const(np.asarray(1 / np.sqrt(2), dt), f"{op.name}/Cast")], f"{op.name}/truediv")
        gate = _node(b, "Erf", [scaled], f"{op.name}/Erf")
    one = _node(b, "AddV2", [b.const(np.asarray(1, dt), f"{op.name}/add_1/x"), gate], f"{op.name}/add_1")
    half = _node(b, "Mul", [b.const(np.asarray(0.5, dt), f"{op.name}/mul_2/x"), x], f"{op.name}/mul_2")
    (out,) = b.emit("Mul", [half, one], {}, _out_specs(op), name=f"{op.name}/mul_3")
    return [out]


@rule("Silu")
def _silu(b, op, ins):
    gate = _node(b, "Sigmoid", [ins[0]], f"{op.name}/Sigmoid")
    (out,) = b.emit("Mul", [ins[0], gate], {}, _out_specs(op), name=f"{op.name}/mul")
    return [out]


# -- control flow and calls ---------------------------------------------------------------------------
def _dummies(tensors):
    return [(t.dtype, t.shape) for t in tensors]


@rule("If", "StatelessIf")
def _if(b, op, ins):
    then_graph, else_graph, n_then = op.attrs["then_graph"], op.attrs["else_graph"], op.attrs["n_then"]
    then_in, else_in = list(then_graph.inputs), list(else_graph.inputs)
    # One input per distinct outer tensor, as TensorFlow's cond: both branch functions take every input, a
    # branch that does not use one gets a placeholder for it.
    inputs, where = [], {}
    for v in ins[1:]:
        if id(v) not in where:
            where[id(v)] = len(inputs)
            inputs.append(v)
    then_layout, else_layout = [(v.dtype, v.shape) for v in inputs], [(v.dtype, v.shape) for v in inputs]
    for i, placeholder in enumerate(then_in):
        then_layout[where[id(ins[1 + i])]] = placeholder
    for j, placeholder in enumerate(else_in):
        else_layout[where[id(ins[1 + n_then + j])]] = placeholder
    outer = [v.ref.split(":")[0] for v in inputs]
    # TensorFlow numbers branch functions with its graph-wide counter: `cond_true_6`, `cond_false_7`
    then_number, else_number = b.exporter.function_numbers(then_graph, else_graph)
    then_fn = b.function(then_graph, then_graph.outputs, layout=then_layout, name=f"{op.name}_true_{then_number}",
                         wrap=_cond_branch_outputs, branch=(op.name, outer))
    else_fn = b.function(else_graph, else_graph.outputs, layout=else_layout, name=f"{op.name}_false_{else_number}",
                         wrap=_cond_branch_outputs, branch=(op.name, outer))
    attrs = {"then_branch": then_fn, "else_branch": else_fn, "output_shapes": [t.shape for t in op.outputs]}
    read_only = _read_only_resources([ins[0]] + inputs, [then_layout, else_layout], offset=1)
    return b.emit(op.type, [ins[0]] + inputs, attrs, _out_specs(op), control=controls(b, op),
                  private=[("_read_only_resource_inputs", "list(int)", read_only),
                           ("_lower_using_switch_merge", "bool", True)])


def _branch_outputs(b, args, results):
    """A branch function returns its results through Identity nodes, as TensorFlow's cond builds them."""
    return [_node(b, "Identity", [r], "Identity", shape=r.shape) for r in results]


def _cond_branch_outputs(b, args, results):
    """A cond branch's outputs; with stateful nodes, TensorFlow's automatic control NoOp after them, which
    every output Identity waits for (`^cond/NoOp`)."""
    if not b.stateful_nodes:
        return _branch_outputs(b, args, results)
    noop = b.reserve("NoOp")
    outs = [b.emit("Identity", [r], {}, [(r.dtype, r.shape)], name="Identity", control=[noop])[0] for r in results]
    b.emit("NoOp", [], {}, [], name=noop, reserved=True, control=list(b.stateful_nodes))
    return outs


@rule("While", "StatelessWhile")
def _while(b, op, ins):
    """TensorFlow's while_v2 form: the loop carries a counter and the maximum number of iterations (-1 for
    none) ahead of the loop variables, then every captured input; the cond and body functions take all of
    them, the body adds one to the counter and returns everything through Identity nodes."""
    cond_graph, body_graph = op.attrs["cond_graph"], op.attrs["body_graph"]
    n_vars, n_cond = op.attrs["n_vars"], op.attrs["n_cond"]
    if op.attrs.get("keep_history"):
        raise ExportError(f"Cannot export the loop '{op.name}': it keeps its iterations for a GradientTape, "
                          f"which TensorFlow's While cannot express; export the function outside the tape.")
    has_max = bool(op.attrs.get("has_max"))
    ins = list(ins)
    # the loop's own counter and limit constants (`while/loop_counter`), made with it as TensorFlow does
    counter, limit = [b.values.get(id(t)) if t is not None else None for t in op.attrs.get("lead", (None, None))]
    if has_max:
        limit = _as_int32(b, op, ins.pop())
    elif limit is None:
        limit = b.const(np.asarray(-1, np.int32), f"{op.name}/maximum_iterations")
    if counter is None:
        counter = b.const(np.asarray(0, np.int32), f"{op.name}/loop_counter")
    loop, cond_caps, body_caps = ins[:n_vars], ins[n_vars:n_vars + n_cond], ins[n_vars + n_cond:]
    cond_in, body_in = list(cond_graph.inputs), list(body_graph.inputs)
    # Every function sees [counter, limit, loop vars, cond captures, body captures]
    lead = [(_dt.int32, ()), (_dt.int32, ())]
    cond_layout = lead + cond_in + _dummies(body_in[n_vars:])
    body_layout = lead + body_in[:n_vars] + _dummies(cond_in[n_vars:]) + body_in[n_vars:]
    inputs = [counter, limit] + loop + cond_caps + body_caps
    outer = [v.ref.split(":")[0] for v in inputs]
    outer[2:2 + n_vars] = [None] * n_vars     # loop variables' placeholders: `<scope>/Placeholder`
    cond_number, body_number = b.exporter.function_numbers(cond_graph, body_graph)
    cond_fn = b.function(cond_graph, cond_graph.outputs, layout=cond_layout, name=f"{op.name}_cond_{cond_number}",
                         wrap=_counted_cond if has_max else _branch_outputs, branch=(op.name, outer, 2))
    body_fn = b.function(body_graph, body_graph.outputs[:n_vars], layout=body_layout,
                         name=f"{op.name}_body_{body_number}", wrap=_counted_body, branch=(op.name, outer, 2),
                         passthrough=tuple(range(2 + n_vars, len(body_layout))))
    outputs = [(_dt.int32, ()), (_dt.int32, ())] + _out_specs(op)[:n_vars] + \
        [(v.dtype, v.shape) for v in cond_caps + body_caps]
    attrs = {"cond": cond_fn, "body": body_fn, "output_shapes": [s for _, s in outputs], "parallel_iterations": 10}
    read_only = _read_only_resources(inputs, [cond_layout, body_layout])
    refs = b.emit(op.type, inputs, attrs, outputs, control=controls(b, op),
                  private=[("_read_only_resource_inputs", "list(int)", read_only),
                           ("_num_original_outputs", "int", len(outputs)),
                           ("_lower_using_switch_merge", "bool", True)])
    return refs[2:2 + len(op.outputs)]


def _as_int32(b, op, value):
    if value.dtype is _dt.int32:
        return value
    (out,) = b.emit("Cast", [value], {"DstT": _dt.int32}, [(_dt.int32, value.shape)],
                    name=f"{op.name}/maximum_iterations")
    return out


def _counted_cond(b, args, results):
    """The loop goes on while the counter is below the limit and the user's condition holds."""
    below = _node(b, "Less", [args[0], args[1]], "Less", out_dtype=_dt.bool, shape=())
    return _branch_outputs(b, args, [_node(b, "LogicalAnd", [below, results[0]], "LogicalAnd", out_dtype=_dt.bool,
                                           shape=())])


def _counted_body(b, args, results):
    """The next counter (`<scope>/add_1` when the body has its own `add`), the limit and the loop variables,
    each through an Identity (the captured inputs follow as they are: the function's passthrough)."""
    name = b.reserve("add")
    one = b.const(np.asarray(1, np.int32), f"{name}/y", scoped=False)
    (following,) = b.emit("AddV2", [args[0], one], {}, [(_dt.int32, TensorShape([]))], name=name, reserved=True)
    return _branch_outputs(b, args, [following, args[1]] + list(results))


@rule("StatefulPartitionedCall")
def _call(b, op, ins):
    concrete = op.attrs["concrete"]
    outputs = list(op.attrs["outputs"])
    fn = b.exporter.function(concrete.graph, outputs, name=concrete._inference_name)
    stateful = any(o.opdef is not None and o.opdef.stateful for o in concrete.graph.get_operations()
                   if o.type != "StatefulPartitionedCall") or any(
        o.type == "StatefulPartitionedCall" for o in concrete.graph.get_operations())
    op_type = "StatefulPartitionedCall" if stateful else "PartitionedCall"
    scope, _, base = op.name.rpartition("/")
    if not stateful and base.startswith("StatefulPartitionedCall"):   # TensorFlow names a pure call so
        base = base[len("Stateful"):]
    read_only = _read_only_resources(ins, [list(concrete.graph.inputs)])
    return b.emit(op_type, ins, {"f": fn, "config_proto": CPU_CONFIG_PROTO}, _out_specs(op),
                  name=f"{scope}/{base}" if scope else base, control=controls(b, op), stateful=stateful,
                  private=[("_read_only_resource_inputs", "list(int)", read_only),
                           ("_collective_manager_ids", "list(int)", [])])


# The serialized ConfigProto TensorFlow 2.21 records on the calls it traces in a CPU-only process
# (device_count {CPU: 1, GPU: 0}, allow_soft_placement, empty GPU and experimental options).
CPU_CONFIG_PROTO = b"\n\x07\n\x03CPU\x10\x01\n\x07\n\x03GPU\x10\x002\x02J\x008\x01\x82\x01\x00\x92\x01\x02J\x00"
# Ops that only read the resource they take (TensorFlow's read-only resource inputs).
_RESOURCE_READS = frozenset({"ReadVariableOp", "ResourceGather", "ResourceGatherNd", "VariableShape"})


def _read_only_resources(inputs, layouts, offset=0):
    """TensorFlow's `_read_only_resource_inputs`: the indices (into the node's inputs) of resource inputs
    that every callee function at most reads. `layouts[j][i]` is callee j's placeholder for input
    `offset + i` (a `(dtype, shape)` pair for an input it ignores)."""
    found = []
    for i, value in enumerate(inputs[offset:]):
        if value.dtype is not _dt.resource:
            continue
        placeholders = [layout[i] for layout in layouts if i < len(layout) and not isinstance(layout[i], tuple)]
        if all(_only_read(p) for p in placeholders):
            found.append(i + offset)
    return found


def _only_read(placeholder):
    graph = placeholder.op.graph
    return all(o.type in _RESOURCE_READS for o in graph.get_operations()
               if any(t is placeholder for t in o.inputs))


def rule_for(op_type):
    """The export rule of a tensorflux op type (generic when TensorFlow has an op of the same name)."""
    fn = RULES.get(op_type)
    if fn is None and interface(op_type) is not None:
        return generic
    return fn


# -- TensorLists ---------------------------------------------------------------------------------------
def _element_shape(b, op, shape, name):
    """TensorFlow's element_shape input: -1 for an unknown rank, else the dims with -1 for unknown sizes."""
    if shape is None or shape.rank is None:
        value = np.asarray(-1, np.int32)
    else:
        value = np.asarray([-1 if d is None else d for d in shape.as_list()], np.int32)
    return b.const(value, f"{op.name}/{name}")


@rule("TensorListReserve")
def _list_reserve(b, op, ins):
    shape = _element_shape(b, op, op.attrs["element_shape"], "element_shape")
    return b.emit("TensorListReserve", [shape, ins[0]], {"element_dtype": op.attrs["dtype"]}, _out_specs(op),
                  control=controls(b, op))


@rule("TensorListGetItem", "TensorListGather")
def _list_read(b, op, ins):
    shape = _element_shape(b, op, op.attrs["element_shape"], "element_shape")
    return b.emit(op.type, ins + [shape], {}, _out_specs(op), control=controls(b, op))


@rule("TensorListStack")
def _list_stack(b, op, ins):
    shape = _element_shape(b, op, op.attrs["element_shape"], "element_shape")
    return b.emit("TensorListStack", ins + [shape], {"element_dtype": op.attrs["dtype"]}, _out_specs(op),
                  control=controls(b, op))


@rule("TensorListSetItem")
def _list_set(b, op, ins):
    return b.emit("TensorListSetItem", ins, {"resize_if_index_out_of_bounds": bool(op.attrs.get("dynamic"))},
                  _out_specs(op), control=controls(b, op))


@rule("TensorListFromTensor")
def _list_from_tensor(b, op, ins):
    shape = ins[0].shape[1:] if ins[0].shape.rank is not None else TensorShape(None)
    return b.emit("TensorListFromTensor", ins + [_element_shape(b, op, shape, "element_shape")], {},
                  _out_specs(op), control=controls(b, op))


# -- ops that call back into Python ---------------------------------------------------------------------
@rule("PyFunc", "EagerPyFunc")
def _py_func(b, op, ins):
    raise ExportError(f"Cannot export the op '{op.name}' (type {op.type}): it calls back into Python "
                      f"(tf.py_function / tf.numpy_function), and a TensorFlow graph cannot hold a Python function.")


@rule("SigmoidCrossEntropyWithLogits")
def _sigmoid_cross_entropy(b, op, ins):
    labels, logits = ins
    n = op.name
    # TensorFlow's stable form: max(x, 0) - x * z + log1p(exp(-|x|))
    positive = _node(b, "Relu", [logits], f"{n}/Relu")
    product = _node(b, "Mul", [logits, labels], f"{n}/mul")
    linear = _node(b, "Sub", [positive, product], f"{n}/sub")
    soft = _node(b, "Log1p", [_node(b, "Exp", [_node(b, "Neg", [_node(b, "Abs", [logits], f"{n}/Abs")], f"{n}/Neg")],
                                   f"{n}/Exp")], f"{n}/Log1p")
    (out,) = b.emit("AddV2", [linear, soft], {}, _out_specs(op), name=n)
    return [out]


@rule("Sort", "ArgSort")
def _sort(b, op, ins):
    x = ins[0]
    rank = _rank(op, x)
    axis = op.attrs.get("axis", -1)
    axis = -1 if axis is None else axis
    if axis not in (-1, rank - 1) or x.shape[-1] is None:
        raise ExportError(f"Cannot export the op '{op.name}' ({op.type}): TensorFlow sorts with TopKV2 along a "
                          f"last axis of known size; this sorts axis {axis} of shape {x.shape}.")
    k = b.const(np.asarray(x.shape[-1], np.int32), f"{op.name}/k")
    descending = bool(op.attrs.get("descending"))
    source = x if descending else _node(b, "Neg", [x], f"{op.name}/Neg")
    values, indices = b.emit("TopKV2", [source, k], {"sorted": True},
                             [(x.dtype, x.shape), (_dt.int32, x.shape)], name=f"{op.name}/TopKV2")
    if op.type == "ArgSort":
        return [indices]
    return [values if descending else _node(b, "Neg", [values], f"{op.name}/Neg_1")]


@rule("CustomGradient")
def _custom_gradient(b, op, ins):
    """TensorFlow's IdentityN(ys..., xs...) with a `_gradient_op_type`, and the traced gradient function
    when the exporter keeps custom gradients (see custom_gradients.py)."""
    from . import custom_gradients
    return custom_gradients.export(b, op, ins, controls(b, op))
