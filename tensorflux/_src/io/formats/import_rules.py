"""How TensorFlow nodes become tensorflux ops when a FunctionDef is imported (see graph_import.py).

A rule is `rule(builder, node, inputs, attrs) -> [tensor per TensorFlow output]`, where `attrs` are the
node's attrs read against TensorFlow's OpDef (DTypes, TensorShapes, tuples, names of functions). Most
ops share their name with a tensorflux op and go through `generic`: the attrs tensorflux's kernel takes
are passed on (dtypes as NumPy dtypes, lists as tuples); TensorFlow's type attrs are dropped (tensorflux
infers them from the inputs), and any other attr tensorflux does not take must hold TensorFlow's default,
otherwise the node is refused (NotImplementedError naming the op and the attr). The rules below are the
inverse of `export_rules.py`: constant inputs that are attrs in tensorflux (reduction axes, `perm`,
`split_dim`, …), renamed attrs, FusedBatchNormV3 in inference mode, functional control flow and calls.
"""
import inspect

import numpy as np

from ...framework import errors
from ...function.concrete import CALL
from ...ops import registry
from ...types import dtypes as _dt
from ...types.shape import TensorShape

__all__ = ["supported", "build"]

RULES = {}


def rule(*op_types):
    def register(fn):
        for t in op_types:
            RULES[t] = fn
        return fn
    return register


def supported(op_type):
    return op_type in RULES or op_type in registry.OPS and op_type not in _NOT_GENERIC


# tensorflux ops of TensorFlow's name that only a rule may build (their attrs are tensorflux objects).
_NOT_GENERIC = {"If", "StatelessIf", "While", "StatelessWhile", "StatefulPartitionedCall", "Placeholder"}
_RENAMED = {"keep_dims": "keepdims"}
# TensorFlow attrs that only tune how TensorFlow runs an op, never what it computes.
_IGNORED = {"grad_a", "grad_b", "use_cudnn_on_gpu", "validate_shape", "_class"}
# tensorflux attrs TensorFlow's op lacks, with the value that gives TensorFlow's behaviour.
_FILLED = {"GatherNd": {"batch_dims": 0}, "LinSpace": {"axis": 0}, "Angle": {"deg": False},
           "MaxPool3D": {"explicit_paddings": ()}, "MaxPool3DGrad": {"explicit_paddings": ()},
           "MaxPoolGradGrad": {"explicit_paddings": ()}}


def build(builder, node, inputs, attrs):
    fn = RULES.get(node.op, generic)
    return fn(builder, node, inputs, attrs)


def _unsupported(builder, node, what):
    return NotImplementedError(f"SavedModel uses op '{node.op}' with {what}, which tensorflux does not implement "
                               f"({builder.where(node)}).")


_accepted = {}


def _kernel_attrs(opdef):
    """The attr names tensorflux's kernel of `opdef` takes (None: any)."""
    if opdef in _accepted:
        return _accepted[opdef]
    try:
        params = list(inspect.signature(opdef.kernel).parameters.values())
    except (TypeError, ValueError):
        params = []
    if any(p.kind is p.VAR_KEYWORD for p in params):
        names = None
    else:
        positional = [p for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
        # leading positional parameters take the inputs; attrs are keyword-only, defaulted or trailing
        names = frozenset(p.name for p in params if p.kind is p.KEYWORD_ONLY or
                          (p.kind is p.POSITIONAL_OR_KEYWORD and p in positional[_n_inputs(opdef):]))
    _accepted[opdef] = names
    return names


def _n_inputs(opdef):
    names = opdef.input_names
    return len(names) if names and names != ("x", "y", "z") else 1


def _python(value):
    if isinstance(value, _dt.DType):
        return np.dtype(value.as_numpy_dtype) if value not in (_dt.resource, _dt.variant) else value
    if isinstance(value, tuple):
        return tuple(_python(v) for v in value)
    return value


def generic(builder, node, inputs, attrs, op_type=None, extra=None):
    """One tensorflux op of the node's type (or `op_type`), with the attrs its kernel takes."""
    from .op_interfaces import interface
    op_type = op_type or node.op
    opdef = registry.OPS.get(op_type)
    if opdef is None:
        raise NotImplementedError(f"SavedModel uses op '{node.op}' which tensorflux does not implement "
                                  f"({builder.where(node)}).")
    iface = interface(node.op)
    accepted = _kernel_attrs(opdef)
    passed = {}
    counts = {a.number_attr for a in iface.inputs if a.number_attr}  # implied by the inputs
    for key, value in attrs.items():
        name = _RENAMED.get(key, key)
        kind, default = iface.attrs[key]
        if accepted is not None and name in accepted:
            passed[name] = _python(value)
        elif kind in ("type", "list(type)") or key in _IGNORED or key in counts:
            continue
        elif not _is_default(value, kind, default):
            raise _unsupported(builder, node, f"{key}={value!r}")
    for key, value in _FILLED.get(op_type, {}).items():
        if accepted is None or key in accepted:
            passed.setdefault(key, value)
    passed.update(extra or {})
    try:
        out = builder.graph.create_op(opdef, inputs, passed, node.name, type_name=op_type)
    except (TypeError, ValueError, KeyError, errors.OpError) as e:
        if isinstance(e, errors.OpError):
            raise
        raise errors.InvalidArgumentError(None, None, f"The {builder.where(node)} cannot be built: {e}") from None
    if isinstance(out, tuple):
        return list(out)
    if not hasattr(out, "dtype"):  # an op without outputs
        return []
    return [out]


def _is_default(value, kind, default):
    from .op_interfaces import NO_DEFAULT
    if default is NO_DEFAULT:
        return False
    if kind == "type":
        return value is _dt.as_dtype(default)
    if kind.startswith("list("):
        return tuple(value) == tuple(default) or (kind == "list(type)" and tuple(value) == tuple(
            _dt.as_dtype(d) for d in default))
    if kind == "shape":
        return isinstance(value, TensorShape) and (value.rank is None if default is None else value.as_list() == default)
    return value == default


_FOLD_DEPTH = 32  # how many ops deep a constant input may be computed from constants


def _folded(graph, tensor, depth=0):
    """The value of `tensor` when it is computed from constants by stateless ops (TensorFlow computes axes
    as `Range(0, Rank)` and the like), else None; kernels run on the constants, at most _FOLD_DEPTH deep."""
    value = graph.constant_value_of(tensor)
    if value is not None or depth >= _FOLD_DEPTH:
        return value
    op = tensor.op
    if op.opdef is None or op.opdef.stateful or op.type in _NOT_GENERIC or op.type == "Placeholder":
        return None
    arrays = []
    for t in op.inputs:
        v = _folded(graph, t, depth + 1)
        if v is None:
            return None
        arrays.append(np.asarray(v))
    try:
        result = op.opdef.kernel(*arrays, **op.attrs)
    except Exception:  # noqa: BLE001 (a kernel that cannot fold its inputs leaves the value unknown)
        return None
    result = result[tensor.value_index] if op.opdef.multi else result
    return np.asarray(result)


def constant_of(builder, node, tensor, what):
    value = _folded(builder.graph, tensor)
    if value is None:
        raise _unsupported(builder, node, f"a {what} computed at run time (tensorflux needs a constant)")
    return np.asarray(value)


# -- nodes every function has -----------------------------------------------------------------------
@rule("Const")
def _const(builder, node, inputs, attrs):
    value = attrs["value"]
    dtype = attrs["dtype"]
    if _dt.FROM_NUMPY.get(value.dtype) is not dtype:
        raise errors.InvalidArgumentError(None, None, f"The {builder.where(node)} declares dtype {dtype.name} but "
                                                      f"holds a {_dt.FROM_NUMPY[value.dtype].name} value.")
    op = builder.graph._add_op(None, "Const", [], {"value": value, "dtype": dtype}, node.name,
                               [(dtype, TensorShape(value.shape))])
    return [op.outputs[0]]


@rule("ReadVariableOp")
def _read(builder, node, inputs, attrs):
    graph = builder.graph
    variable = graph.handle_variables.get(id(inputs[0]))
    if variable is not None:
        shape = tuple(variable.shape.as_list()) if variable.shape.rank is not None else None
    else:
        shapes = builder.output_shapes(node)
        shape = shapes[0] if shapes else TensorShape(None)
        shape = None if shape.rank is None else tuple(shape.as_list())
    return generic(builder, node, inputs, attrs, extra={"shape": shape})


# -- constant inputs that are attrs in tensorflux --------------------------------------------------
def _axes(builder, node, tensor, what="reduction axis"):
    value = constant_of(builder, node, tensor, what)
    return tuple(int(v) for v in value.reshape(-1)) if value.ndim else int(value)


def _every_axis(graph, axes, x):
    """Whether `axes` is Range(0, Rank(x), 1): TensorFlow's reduction over all axes of a tensor of unknown
    rank (`tf.reduce_sum(x)` inside `tf.clip_by_norm`, `tf.norm`, …)."""
    op = axes.op
    if op.type != "Range" or len(op.inputs) != 3:
        return False
    start, limit, delta = op.inputs
    if limit.op.type != "Rank" or limit.op.inputs[0] is not x:
        return False
    start, delta = _folded(graph, start), _folded(graph, delta)
    return start is not None and delta is not None and np.asarray(start).size == 1 and \
        np.asarray(delta).size == 1 and int(start) == 0 and int(delta) == 1


@rule("Sum", "Mean", "Max", "Min", "Prod", "All", "Any", "EuclideanNorm")
def _reduce(builder, node, inputs, attrs):
    if _folded(builder.graph, inputs[1]) is None and _every_axis(builder.graph, inputs[1], inputs[0]):
        return generic(builder, node, inputs[:1], attrs, extra={"axis": None})
    axis = _axes(builder, node, inputs[1])
    axis = (axis,) if isinstance(axis, int) else axis
    return generic(builder, node, inputs[:1], attrs, extra={"axis": axis})


@rule("Transpose")
def _transpose(builder, node, inputs, attrs):
    perm = constant_of(builder, node, inputs[1], "permutation")
    return generic(builder, node, inputs[:1], attrs, extra={"perm": tuple(int(p) for p in perm.reshape(-1))})


def _scalar_axis_rule(position, as_tuple=False):
    def build_it(builder, node, inputs, attrs):
        axis = _axes(builder, node, inputs[position], "axis")
        if as_tuple:
            axis = (axis,) if isinstance(axis, int) else axis
        elif not isinstance(axis, int):
            if len(axis) != 1:
                raise _unsupported(builder, node, f"the axis {axis}")
            axis = axis[0]
        rest = inputs[:position] + inputs[position + 1:]
        return generic(builder, node, rest, attrs, extra={"axis": axis})
    return build_it


rule("ExpandDims")(_scalar_axis_rule(1))
rule("GatherV2")(_scalar_axis_rule(2))
rule("ArgMax", "ArgMin")(_scalar_axis_rule(1))
rule("Cumsum", "Cumprod", "CumulativeLogsumexp")(_scalar_axis_rule(1))
rule("ReverseV2")(_scalar_axis_rule(1, as_tuple=True))
rule("Split")(_scalar_axis_rule(0))


@rule("SparseReduceSum", "SparseReduceSumSparse", "SparseReduceMax", "SparseReduceMaxSparse")
def _sparse_reduce(builder, node, inputs, attrs):
    axis = _axes(builder, node, inputs[3])
    rest = {k: v for k, v in attrs.items() if k != "keep_dims"}    # the kernels' own name (not `keepdims`)
    return generic(builder, node, inputs[:3], rest, extra={"axes": (axis,) if isinstance(axis, int) else axis,
                                                           "keep_dims": bool(_python(attrs.get("keep_dims", False)))})
rule("SplitV")(_scalar_axis_rule(2))


@rule("ConcatV2")
def _concat(builder, node, inputs, attrs):
    return _scalar_axis_rule(len(inputs) - 1)(builder, node, inputs, attrs)


@rule("Squeeze")
def _squeeze(builder, node, inputs, attrs):
    dims = tuple(attrs.pop("squeeze_dims", ()))
    return generic(builder, node, inputs, attrs, extra={"axis": dims or None})


@rule("Softmax", "LogSoftmax", "SoftmaxCrossEntropyWithLogits")
def _softmax(builder, node, inputs, attrs):
    return generic(builder, node, inputs, attrs, extra={"axis": -1})


@rule("FusedBatchNorm", "FusedBatchNormV3")
def _fused_batch_norm(builder, node, inputs, attrs):
    if attrs.get("is_training", True):
        raise _unsupported(builder, node, "is_training=True (batch statistics)")
    if attrs.get("data_format", "NHWC") not in ("NHWC", "NDHWC"):
        raise _unsupported(builder, node, f"data_format={attrs['data_format']!r}")
    x, scale, offset, mean, variance = inputs
    if x.dtype is not mean.dtype:
        raise _unsupported(builder, node, f"a {x.dtype.name} input with {mean.dtype.name} statistics")
    y = builder.graph.create_op(registry.OPS["BatchNormalization"], [x, mean, variance, offset, scale],
                                {"variance_epsilon": float(attrs["epsilon"]), "has_offset": True, "has_scale": True},
                                node.name)
    extra = 3 if node.op == "FusedBatchNormV3" else 2
    return [y, mean, variance] + [mean, variance, mean][:extra]


@rule("IdentityN")
def _identity_n(builder, node, inputs, attrs):
    """TensorFlow's form of a custom gradient when the library registers its op type (custom_gradients.py)."""
    from .custom_gradients import import_identity_n
    return import_identity_n(builder, node, inputs, attrs, generic)


# -- control flow and calls ---------------------------------------------------------------------------
def _output_types(dtypes, shapes):
    shapes = list(shapes) if shapes else [TensorShape(None)] * len(dtypes)
    if len(shapes) != len(dtypes):
        shapes = [TensorShape(None)] * len(dtypes)
    return [(d, s) for d, s in zip(dtypes, shapes)]


def _branch(builder, name, node, n_inputs, what):
    graph, outputs = builder.library.graph(name, outer_graph=builder.graph)
    if len(graph.inputs) != n_inputs:
        raise errors.InvalidArgumentError(None, None, f"The {what} function {name!r} of {builder.where(node)} takes "
                                                      f"{len(graph.inputs)} inputs, the node passes {n_inputs}.")
    return graph, outputs


@rule("If", "StatelessIf")
def _if(builder, node, inputs, attrs):
    pred, args = inputs[0], inputs[1:]
    if pred.dtype is not _dt.bool:
        raise _unsupported(builder, node, f"a {pred.dtype.name} condition")
    then_graph, then_out = _branch(builder, attrs["then_branch"], node, len(args), "then_branch")
    else_graph, else_out = _branch(builder, attrs["else_branch"], node, len(args), "else_branch")
    tout = list(attrs["Tout"])
    for outs, which in ((then_out, "then_branch"), (else_out, "else_branch")):
        if [t.dtype for t in outs] != tout:
            raise errors.InvalidArgumentError(None, None, f"The {which} of {builder.where(node)} returns "
                                                          f"{[t.dtype.name for t in outs]}, the node declares "
                                                          f"{[d.name for d in tout]}.")
    shapes = attrs.get("output_shapes") or [a.shape.most_specific_compatible_shape(b.shape)
                                            for a, b in zip(then_out, else_out)]
    out = builder.graph.create_op(registry.OPS[node.op], [pred] + args + args,
                                  {"then_graph": then_graph, "else_graph": else_graph, "n_then": len(args),
                                   "output_types": _output_types(tout, shapes)}, node.name)
    return list(out) if isinstance(out, tuple) else []


@rule("While", "StatelessWhile")
def _while(builder, node, inputs, attrs):
    cond_graph, cond_out = _branch(builder, attrs["cond"], node, len(inputs), "cond")
    body_graph, body_out = _branch(builder, attrs["body"], node, len(inputs), "body")
    if len(cond_out) != 1 or cond_out[0].dtype is not _dt.bool:
        raise _unsupported(builder, node, "a loop condition that is not one bool tensor")
    types = list(attrs["T"])
    if [t.dtype for t in body_out] != types:
        raise errors.InvalidArgumentError(None, None, f"The body of {builder.where(node)} returns "
                                                      f"{[t.dtype.name for t in body_out]}, the loop carries "
                                                      f"{[d.name for d in types]}.")
    shapes = attrs.get("output_shapes") or [TensorShape(None)] * len(types)
    out = builder.graph.create_op(registry.OPS[node.op], list(inputs),
                                  {"cond_graph": cond_graph, "body_graph": body_graph, "n_vars": len(inputs),
                                   "n_cond": 0, "output_types": _output_types(types, shapes), "has_max": False},
                                  node.name)
    return list(out) if isinstance(out, tuple) else []


@rule("PartitionedCall", "StatefulPartitionedCall")
def _call(builder, node, inputs, attrs):
    callee = builder.library.callee(attrs["f"])
    flat = list(callee._trace.flat_outputs)
    if [t.dtype for t in flat] != list(attrs["Tout"]):
        raise errors.InvalidArgumentError(None, None, f"The function {attrs['f']!r} called by "
                                                      f"{builder.where(node)} returns {[t.dtype.name for t in flat]}, "
                                                      f"the call declares {[d.name for d in attrs['Tout']]}.")
    if len(callee.graph.inputs) != len(inputs):
        raise errors.InvalidArgumentError(None, None, f"The function {attrs['f']!r} takes {len(callee.graph.inputs)} "
                                                      f"inputs; {builder.where(node)} passes {len(inputs)}.")
    out = builder.graph.create_op(CALL, inputs, {"concrete": callee, "graph": callee.graph, "outputs": flat,
                                                 "output_types": [(t.dtype, t.shape) for t in flat]}, node.name)
    return list(out) if isinstance(out, tuple) else []


# -- TensorFlow ops tensorflux computes through others ---------------------------------------------
@rule("Erfc")
def _erfc(builder, node, inputs, attrs):
    x = inputs[0]
    graph = builder.graph
    one = graph.add_constant(np.asarray(1, dtype=x.dtype.as_numpy_dtype), f"{node.name}/one")
    erf = graph.create_op(registry.OPS["Erf"], [x], {}, f"{node.name}/Erf")
    return [graph.create_op(registry.OPS["Sub"], [one, erf], {}, node.name)]


# -- TensorLists (TensorArrays, the state of Keras RNN loops) ------------------------------------------
def _element_shape(builder, node, tensor):
    """TensorFlow's element_shape input: -1 for an unknown rank, else dims with -1 for unknown sizes."""
    value = constant_of(builder, node, tensor, "element shape")
    if value.ndim == 0:
        return TensorShape(None) if int(value) == -1 else TensorShape([int(value)])
    return TensorShape([None if int(d) == -1 else int(d) for d in value.reshape(-1)])


def _list_op(builder, node, op_type, inputs, attrs):
    out = builder.graph.create_op(registry.OPS[op_type], inputs, attrs, node.name)
    return list(out) if isinstance(out, tuple) else [out]


@rule("TensorListReserve")
def _list_reserve(builder, node, inputs, attrs):
    shape = _element_shape(builder, node, inputs[0])
    return _list_op(builder, node, "TensorListReserve", [inputs[1]],
                    {"dtype": attrs["element_dtype"], "element_shape": shape})


@rule("TensorListGetItem", "TensorListGather")
def _list_read(builder, node, inputs, attrs):
    shape = _element_shape(builder, node, inputs[2])
    return _list_op(builder, node, node.op, inputs[:2], {"dtype": attrs["element_dtype"], "element_shape": shape})


@rule("TensorListStack")
def _list_stack(builder, node, inputs, attrs):
    shape = _element_shape(builder, node, inputs[1])
    return _list_op(builder, node, "TensorListStack", inputs[:1], {"dtype": attrs["element_dtype"], "element_shape": shape})


@rule("TensorListSetItem")
def _list_set(builder, node, inputs, attrs):
    return _list_op(builder, node, "TensorListSetItem", inputs,
                    {"dynamic": bool(attrs.get("resize_if_index_out_of_bounds", False))})


@rule("TensorListFromTensor")
def _list_from_tensor(builder, node, inputs, attrs):
    return _list_op(builder, node, "TensorListFromTensor", inputs[:1], {})


@rule("EnsureShape")
def _ensure_shape(builder, node, inputs, attrs):
    # tensorflux's error message names the tensor checked; TensorFlow's node has no such attr
    return generic(builder, node, inputs, attrs, extra={"tensor_name": inputs[0].name})


# -- stateful random ops: tensorflux keeps each op's Philox stream in its attrs ------------------------------
@rule("RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt", "RandomShuffle", "Multinomial")
def _random(builder, node, inputs, attrs):
    from ...ops.random.seeds import RandomStream
    seed, seed2 = int(attrs.get("seed", 0)), int(attrs.get("seed2", 0))
    stream = RandomStream(seed, seed2) if seed or seed2 else RandomStream(None, None)
    return generic(builder, node, inputs, attrs, extra={"stream": stream})


# -- strings ----------------------------------------------------------------------------------------------
@rule("StringToHashBucketFast", "StringToHashBucket")
def _hash_bucket(builder, node, inputs, attrs):
    # the kernels take their attrs as keywords (**key for the keyed hash), so they are passed by name here
    return generic(builder, node, inputs, {}, extra={"num_buckets": int(attrs["num_buckets"])})


@rule("StringToHashBucketStrong")
def _hash_bucket_strong(builder, node, inputs, attrs):
    key = [int(k) for k in attrs["key"]]
    if len(key) != 2:
        raise errors.InvalidArgumentError(None, None, f"The {builder.where(node)} has a key of {len(key)} "
                                                      f"elements; it must have 2.")
    mask = (1 << 64) - 1
    return generic(builder, node, inputs, {}, extra={"num_buckets": int(attrs["num_buckets"]), "k0": key[0] & mask,
                                                     "k1": key[1] & mask})


@rule("StringSplitV2")
def _string_split(builder, node, inputs, attrs):
    """TensorFlow's StringSplitV2 gives the parts of a SparseTensor (indices, values, dense shape: one row per
    string); tensorflux's op gives a ragged tensor's row splits and values, made sparse here."""
    from ...ops.ragged.ragged_tensor import RaggedTensor
    separator = constant_of(builder, node, inputs[1], "separator")
    if separator.size != 1:
        raise errors.InvalidArgumentError(None, None, f"The separator of the {builder.where(node)} must be a scalar.")
    separator = separator.reshape(()).item()
    separator = separator if isinstance(separator, bytes) else str(separator).encode("utf-8")
    graph = builder.graph
    splits, values = graph.create_op(registry.OPS["StringSplitV2"], [inputs[0]],
                                     {"sep": separator, "maxsplit": int(attrs.get("maxsplit", -1))}, node.name)
    with graph.as_default():
        sparse = RaggedTensor._make(values, splits).to_sparse(name=f"{node.name}/to_sparse")
    return [sparse.indices, sparse.values, sparse.dense_shape]


def _bytes_attr(value):
    value = _python(value)
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


@rule("StaticRegexReplace")
def _static_regex_replace(builder, node, inputs, attrs):
    # the kernel matches bytes with a bytes pattern and rewrite (tf.strings.regex_replace encodes them)
    as_bytes = {k: _bytes_attr(attrs[k]) for k in ("pattern", "rewrite")}
    return generic(builder, node, inputs, {k: v for k, v in attrs.items() if k not in as_bytes}, extra=as_bytes)


@rule("StringNGrams")
def _string_ngrams(builder, node, inputs, attrs):
    # TensorFlow's attr names, and its outputs in the other order: (ngrams, ngrams_splits)
    splits, ngrams = builder.graph.create_op(registry.OPS["StringNGrams"], list(inputs), {
        "separator": _bytes_attr(attrs["separator"]), "widths": tuple(int(w) for w in attrs["ngram_widths"]),
        "left_pad": _bytes_attr(attrs["left_pad"]), "right_pad": _bytes_attr(attrs["right_pad"]),
        "pad_width": int(attrs["pad_width"]), "preserve_short": bool(attrs["preserve_short_sequences"])}, node.name)
    return [ngrams, splits]


@rule("RaggedTensorToTensor")
def _ragged_to_tensor(builder, node, inputs, attrs):
    """A ragged tensor of ragged rank 1 (one ROW_SPLITS partition, or FIRST_DIM_SIZE + VALUE_ROWIDS as
    `RaggedTensor.to_tensor` writes it) made dense through tensorflux's RaggedTensor; the shape input is a
    constant (-1: any size)."""
    from ...ops.ragged.ragged_tensor import RaggedTensor
    kinds = [k.decode() if isinstance(k, bytes) else str(k) for k in attrs.get("row_partition_types", ())]
    if kinds not in (["ROW_SPLITS"], ["FIRST_DIM_SIZE", "VALUE_ROWIDS"]) or len(inputs) != 3 + len(kinds):
        raise _unsupported(builder, node, f"row_partition_types={kinds}")
    shape = constant_of(builder, node, inputs[0], "shape")
    shape = None if shape.ndim == 0 else [None if int(d) < 0 else int(d) for d in shape.reshape(-1)]
    graph = builder.graph
    with graph.as_default():
        ragged = RaggedTensor._make(inputs[1], inputs[3]) if kinds == ["ROW_SPLITS"] else \
            RaggedTensor.from_value_rowids(inputs[1], inputs[4], nrows=inputs[3], validate=False)
        return [ragged.to_tensor(default_value=inputs[2], shape=shape, name=node.name)]


@rule("Select")
def _select(builder, node, inputs, attrs):
    """TensorFlow 1's Select: a condition of the values' shape, or a vector choosing whole rows."""
    condition, x, y = inputs
    graph = builder.graph
    if condition.shape.rank == 1 and x.shape.rank is not None and x.shape.rank > 1:
        shape = graph.add_constant(np.asarray([-1] + [1] * (x.shape.rank - 1), np.int32), f"{node.name}/shape")
        condition = graph.create_op(registry.OPS["Reshape"], [condition, shape], {}, f"{node.name}/Reshape")
    elif condition.shape.rank is None or x.shape.rank is None:
        # Unknown ranks: the condition is padded with trailing 1s to x's rank at run time (no change for a
        # condition of x's shape; a vector then chooses whole rows, as Select does).
        from ...ops.array.join import concat
        from ...ops.shapes.creators import ones
        from ...ops.shapes.shape_ops import rank, shape as shape_of
        from ...ops.shapes.shaping import reshape
        with graph.as_default():
            padding = ones([rank(x) - rank(condition)], dtype=_dt.int32, name=f"{node.name}/padding")
            condition = reshape(condition, concat([shape_of(condition), padding], 0), name=f"{node.name}/Reshape")
    return generic(builder, node, [condition, x, y], attrs, op_type="SelectV2")


@rule("Case", "StatelessCase")
def _case(builder, node, inputs, attrs):
    """TensorFlow's n-way Case (tf.switch_case) as a chain of Ifs: branch k runs when the index is k, the
    last branch otherwise (TensorFlow runs the last branch for an index out of range)."""
    from ...framework.graph import FuncGraph
    index, args = inputs[0], list(inputs[1:])
    names = list(attrs["branches"])
    if not names:
        raise _unsupported(builder, node, "no branches")
    tout = list(attrs["Tout"])
    branches = []
    for name in names:
        graph, outs = _branch(builder, name, node, len(args), "branch")
        if [t.dtype for t in outs] != tout:
            raise errors.InvalidArgumentError(None, None, f"The branch {name!r} of {builder.where(node)} returns "
                                                          f"{[t.dtype.name for t in outs]}, the node declares "
                                                          f"{[d.name for d in tout]}.")
        branches.append(graph)
    output_types = _output_types(tout, attrs.get("output_shapes"))
    if_op = registry.OPS["If" if node.op == "Case" else "StatelessIf"]

    def chain(graph, index, args, k, name):
        """Adds to `graph` the Ifs choosing among branches k.. and returns their outputs."""
        if k == len(branches) - 1:   # one branch left (a single-branch Case): it always runs
            pred = graph.add_constant(np.asarray(True), f"{name}/always")
            then_graph = else_graph = branches[k]
            else_inputs = args
        else:
            position = graph.add_constant(np.asarray(k, np.int32), f"{name}/branch_{k}")
            pred = graph.create_op(registry.OPS["Equal"], [index, position], {}, f"{name}/Equal_{k}")
            then_graph = branches[k]
            if k == len(branches) - 2:
                else_graph, else_inputs = branches[k + 1], args
            else:
                else_graph = FuncGraph(f"{name}_rest_{k + 1}", outer_graph=graph)
                inner_index = else_graph.placeholder(index.dtype, index.shape, "branch_index")
                inner_args = [else_graph.placeholder(t.dtype, t.shape, f"input_{i}") for i, t in enumerate(args)]
                else_graph.outputs = list(chain(else_graph, inner_index, inner_args, k + 1, name))
                else_graph.mark_out_of_scope()
                else_inputs = [index] + args
        out = graph.create_op(if_op, [pred] + args + else_inputs,
                              {"then_graph": then_graph, "else_graph": else_graph, "n_then": len(args),
                               "output_types": output_types}, name if graph is builder.graph else f"{name}/If_{k}")
        return list(out) if isinstance(out, tuple) else []

    return chain(builder.graph, index, args, 0, node.name)
