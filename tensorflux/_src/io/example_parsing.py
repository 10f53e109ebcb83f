"""Parsing `tf.train.Example` and `tf.train.SequenceExample` into tensors for every feature kind of
TensorFlow: `FixedLenFeature` (dense), `FixedLenSequenceFeature` (dense, padded along a sequence),
`VarLenFeature` (a SparseTensor of the values), `SparseFeature` (a SparseTensor built from an index
and a value feature), and `RaggedFeature` (a RaggedTensor, split by its row partitions: ragged_partitions.py;
in a SequenceExample each step is split by its own partition).

Each parse is one op whose kernel decodes the protos (so it runs eagerly, in tf.function and in
Dataset.map), with its outputs flattened -- a dense feature gives one tensor, a sparse one its indices,
values and dense shape, a ragged one its values and row splits -- and put back together as the composite
tensors TensorFlow returns. Serialized messages are data: protobuf decodes them into values of the
declared dtype, nothing more.
"""
import collections

import numpy as np

from ..framework.context import init_scope
from ..framework.errors import InvalidArgumentError
from ..ops import convert as _convert
from ..ops.ragged.ragged_tensor import RaggedTensor
from ..ops.registry import OpDef, apply
from ..ops.sparse.sparse_tensor import SparseTensor
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from . import ragged_partitions, records

__all__ = ["VarLenFeature", "SparseFeature", "FixedLenSequenceFeature", "RaggedFeature", "parse_example",
           "parse_single_example", "parse_sequence_example", "parse_single_sequence_example"]


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """`tf.io.VarLenFeature(dtype)`: any number of values, parsed into a SparseTensor."""
    __slots__ = ()


class SparseFeature(collections.namedtuple("SparseFeature",
                                           ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """`tf.io.SparseFeature(index_key, value_key, dtype, size, already_sorted=False)`: a SparseTensor whose
    indices come from the `index_key` feature(s) and values from the `value_key` feature."""
    __slots__ = ()

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


class FixedLenSequenceFeature(collections.namedtuple("FixedLenSequenceFeature",
                                                     ["shape", "dtype", "allow_missing", "default_value"])):
    """`tf.io.FixedLenSequenceFeature(shape, dtype, allow_missing=False, default_value=None)`: a sequence of
    values of `shape`, parsed into a dense tensor padded to the longest sequence of the batch."""
    __slots__ = ()

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class RaggedFeature(collections.namedtuple("RaggedFeature",
                                           ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"])):
    """`tf.io.RaggedFeature(dtype, value_key=None, partitions=(), row_splits_dtype=tf.int32, validate=False)`:
    the values as a RaggedTensor, one row per example, each split further by `partitions` (outermost first:
    `RaggedFeature.RowLengths("key")`, `RowSplits`, `RowStarts`, `RowLimits`, `ValueRowIds`, or
    `UniformRowLength(n)`)."""
    __slots__ = ()
    RowSplits, RowLengths, RowStarts = ragged_partitions.RowSplits, ragged_partitions.RowLengths, ragged_partitions.RowStarts
    RowLimits, ValueRowIds = ragged_partitions.RowLimits, ragged_partitions.ValueRowIds
    UniformRowLength = ragged_partitions.UniformRowLength

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=_dt.int32, validate=False):
        splits = _dt.as_dtype(row_splits_dtype)
        if splits not in (_dt.int32, _dt.int64):
            raise ValueError(f"Argument `row_splits_dtype` must be int32 or int64; got{splits!r}")
        return super().__new__(cls, dtype, value_key, ragged_partitions.check_partitions(partitions), splits,
                               validate)


# -- the plan: one entry per feature, hashable (it is the op's attr) -------------------------------------
# (kind, key, dtype, shape, source keys) with kind in dense / sequence / varlen / sparse / ragged.

def _dtype(feature, key):
    dtype = _dt.as_dtype(feature.dtype)
    if dtype not in records._PARSE_DTYPES:
        raise InvalidArgumentError(None, None, f"Value for attr 'Tdense' of {dtype.name} is not in the list of "
                                               "allowed values: float, int64, string")
    return dtype


def _sparse_sizes(feature):
    """(index keys, sizes) of a SparseFeature, with TensorFlow's checks of `size` against `index_key`."""
    def is_size(v):
        return isinstance(v, (int, np.integer)) and not isinstance(v, bool)
    if isinstance(feature.index_key, str):
        if not is_size(feature.size):
            raise TypeError(f"vocab_size has to be a Tensor or Python int. Found {type(feature.size)}")
        return (feature.index_key,), (int(feature.size),)
    if not isinstance(feature.size, (list, tuple)) or not all(is_size(v) for v in feature.size):
        raise TypeError(f"vocab_size has to be a list of Tensors or Python ints. Found {type(feature.size)}")
    if len(feature.size) != len(feature.index_key):
        raise ValueError("sp_ids and vocab_size have to have equal lengths.")
    return tuple(feature.index_key), tuple(int(v) for v in feature.size)


def _check_split_types(features):
    """A key read as a ragged value or partition by several RaggedFeatures needs one row splits dtype."""
    seen = {}
    for key in sorted(features):
        feature = features[key]
        if not isinstance(feature, RaggedFeature):
            continue
        splits = _dt.as_dtype(feature.row_splits_dtype)
        for source in [feature.value_key or key] + [p.key for p in feature.partitions if hasattr(p, "key")]:
            first = seen.setdefault(source, splits)
            if first is not splits:
                raise ValueError(f"Conflicting partition type <dtype: '{first.name}'> vs <dtype: '{splits.name}'> "
                                 f"for feature {source}.")


def _plan(features, in_sequence=False):
    if not features:
        return ()
    _check_split_types(features)
    plan = []
    for key in sorted(features):
        feature = features[key]
        if isinstance(feature, records.FixedLenFeature):
            if feature.shape is None:
                raise ValueError(f"Missing shape for feature {key}. Received feature={feature!r}.")
            plan.append(("dense", key, _dtype(feature, key), tuple(TensorShape(feature.shape).as_list()), (key,)))
        elif isinstance(feature, FixedLenSequenceFeature):
            if not in_sequence and not feature.allow_missing:
                raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be True.")
            plan.append(("sequence", key, _dtype(feature, key), tuple(TensorShape(feature.shape).as_list()), (key,)))
        elif isinstance(feature, VarLenFeature):
            plan.append(("varlen", key, _dtype(feature, key), (), (key,)))
        elif isinstance(feature, SparseFeature):
            index_keys, size = _sparse_sizes(feature)
            plan.append(("sparse", key, _dtype(feature, key), (size, bool(feature.already_sorted)),
                         index_keys + (feature.value_key,)))
        elif isinstance(feature, RaggedFeature):
            spec = ragged_partitions.partition_plan(feature.partitions)
            keys = tuple(arg for kind, arg in spec if kind != "uniform")
            plan.append(("ragged", key, _dtype(feature, key), (_dt.as_dtype(feature.row_splits_dtype), spec,
                                                               bool(feature.validate)),
                         (feature.value_key or key,) + keys))
        else:
            raise ValueError(f"Unsupported feature type {type(feature).__name__} for {key!r}")
    return tuple(plan)


def _outputs_of(entry, single):
    kind = entry[0]
    if kind == "ragged":    # the values, then the row splits of the batch and of each ragged partition
        return 1 + ragged_partitions.split_levels(entry[3][1])[1] + (0 if single else 1)
    return {"dense": 1, "sequence": 1, "varlen": 3, "sparse": 3}[kind]


# -- values out of the protos ---------------------------------------------------------------------------

def _values(feature, key, dtype, where=0, single=False, dense=True):
    """The value list of one Feature proto as a list (empty for an absent feature), type-checked (TensorFlow
    words the mismatch differently for dense features and for the others)."""
    kind = feature.WhichOneof("kind") if feature is not None else None
    if kind is None:
        return []
    found = records._KINDS[kind]
    wanted = records._PARSE_DTYPES[dtype]
    if found != wanted:
        place = f"Key: {key}." if single else f"Name: <unknown>, Key: {key}, Index: {where}."
        mismatch = (f"Data type: {found} but expected type: {wanted}" if dense else
                    f"Expected type: {wanted}, Actual type: {found}")
        raise InvalidArgumentError(None, None, f"{place}  Data types don't match. {mismatch}")
    return list(getattr(feature, kind).value)


def _array(values, dtype):
    if dtype == _dt.string:
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out
    return np.asarray(values, dtype=dtype._np).reshape(len(values))


def _padding(dtype, default):
    if default is not None and default.size:
        return default.reshape(-1)[0]
    return b"" if dtype == _dt.string else dtype._np.type(0)


def _sparse(rows, dtype, single):
    """(indices, values, dense_shape) of a list of value lists; `single` drops the batch dimension."""
    indices = [((j,) if single else (b, j)) for b, values in enumerate(rows) for j in range(len(values))]
    width = max((len(v) for v in rows), default=0)
    shape = [width] if single else [len(rows), width]
    values = [v for row in rows for v in row]
    return (np.asarray(indices, np.int64).reshape(len(indices), len(shape)), _array(values, dtype),
            np.asarray(shape, np.int64))


def _sparse_feature(index_rows, value_rows, dtype, size, single, already_sorted):
    """(indices, values, dense_shape) of a SparseFeature, as TensorFlow merges its index and value lists:
    the i-th index of the whole batch goes with its i-th value (the example is that of the first index
    list's entry), indices are not range-checked, and unless `already_sorted` the entries are put in
    row-major order (equal indices keep their order)."""
    values = [v for row in value_rows for v in row]
    columns = []
    for rows in index_rows:
        flat = np.asarray([i for row in rows for i in row], np.int64)
        if len(flat) != len(values):
            raise ValueError(f"Dimensions {len(flat)} and {len(values)} are not compatible")
        columns.append(flat)
    if not single:
        columns.insert(0, np.repeat(np.arange(len(index_rows[0]), dtype=np.int64),
                                    [len(row) for row in index_rows[0]]))
    indices = np.stack(columns, axis=1) if columns else np.zeros((0, 0), np.int64)
    values = _array(values, dtype)
    if not already_sorted and len(values) > 1:
        order = np.lexsort(indices.T[::-1])       # stable, first column most significant
        indices, values = indices[order], values[order]
    shape = list(size) if single else [len(value_rows)] + list(size)
    return indices.reshape(len(values), len(shape)), values, np.asarray(shape, np.int64)


def _dense_rows(rows, dtype, shape, key, default, single):
    size = int(np.prod(shape, dtype=np.int64))
    out = []
    for where, values in enumerate(rows):
        if not values:
            if default is None or not default.size:
                prefix = "" if single else "Name: <unknown>, "
                raise InvalidArgumentError(None, None, f"{prefix}Feature: {key} (data type: "
                                                       f"{records._PARSE_DTYPES[dtype]}) is required but could "
                                                       "not be found.")
            out.append(default.reshape(shape))
            continue
        if len(values) != size and single:
            raise InvalidArgumentError(None, None, f"Key: {key}.  Can't parse serialized Example: Some "
                                                   f"{records._KIND_NAMES[records._PARSE_DTYPES[dtype]]}_list slice "
                                                   "was not parsed.")
        if len(values) != size:
            raise InvalidArgumentError(None, None, f"Name: <unknown>, Key: {key}, Index: {where}.  Number of "
                                                   f"{records._PARSE_DTYPES[dtype]} values != expected.  Values "
                                                   f"size: {len(values)} but output shape: {list(shape)}")
        out.append(_array(values, dtype).reshape(shape))
    return out


def _padded(sequences, dtype, shape, default, key):
    """`[batch, longest, *shape]` of sequences of `shape`-sized steps, padded with the default."""
    size = max(int(np.prod(shape, dtype=np.int64)), 1)
    for where, values in enumerate(sequences):
        if len(values) % size:
            raise InvalidArgumentError(None, None, f"Name: <unknown>, Key: {key}, Index: {where}.  Number of "
                                                   f"values is not a multiple of the feature's element size "
                                                   f"{size}: {len(values)}")
    longest = max((len(v) // size for v in sequences), default=0)
    out = np.empty((len(sequences), longest) + tuple(shape), dtype=object if dtype == _dt.string else dtype._np)
    out[...] = _padding(dtype, default)
    for b, values in enumerate(sequences):
        steps = len(values) // size
        if steps:
            out[b, :steps] = _array(values, dtype).reshape((steps,) + tuple(shape))
    return out


# -- Example ---------------------------------------------------------------------------------------------

def _features_of(examples, key):
    return [example.features.feature.get(key) for example in examples]


def _parse_examples(examples, plan, defaults, single):
    outputs = []
    for (kind, key, dtype, shape, sources), default in zip(plan, defaults):
        value_key = sources[0] if kind == "ragged" else sources[-1]
        rows = [_values(f, value_key, dtype, where, single, dense=kind in ("dense", "sequence"))
                for where, f in enumerate(_features_of(examples, value_key))]
        if kind == "dense":
            parts = _dense_rows(rows, dtype, shape, key, default, single)
            stacked = np.stack(parts) if parts else np.zeros((0,) + shape, object if dtype == _dt.string else
                                                             dtype._np)
            outputs.append(stacked[0] if single else stacked)
        elif kind == "sequence":
            padded = _padded(rows, dtype, shape, default, key)
            outputs.append(padded[0] if single else padded)
        elif kind == "varlen":
            outputs.extend(_sparse(rows, dtype, single))
        elif kind == "sparse":
            index_rows = [[_values(f, k, _dt.int64, where, single, dense=False)
                           for where, f in enumerate(_features_of(examples, k))] for k in sources[:-1]]
            outputs.extend(_sparse_feature(index_rows, rows, dtype, shape[0], single, shape[1]))
        else:   # ragged
            outputs.extend(_ragged(examples, rows, dtype, shape, sources, single))
    return outputs


def _ragged(examples, rows, dtype, attrs, sources, single):
    """[values, row splits of the batch (unless `single`), row splits of each ragged partition level]."""
    splits_dtype, spec, validate = attrs
    def concatenated(value_rows, value_dtype):
        splits = np.concatenate([[0], np.cumsum([len(r) for r in value_rows], dtype=np.int64)]).astype(np.int64)
        return _array([v for r in value_rows for v in r], value_dtype), splits
    values, splits = concatenated(rows, dtype)
    partition_rows = {}
    for key in sources[1:]:
        if key not in partition_rows:
            partition_rows[key] = concatenated(
                [_values(f, key, _dt.int64, where, single, dense=False)
                 for where, f in enumerate(_features_of(examples, key))], _dt.int64)
    values, nested = ragged_partitions.apply_partitions(values, splits, partition_rows, spec, splits_dtype._np,
                                                        validate)
    return [values] + (nested[1:] if single else nested)


def _k_parse(serialized, *defaults, plan, single):
    example_class = records.train_message("Example")
    examples = [records._parse_one(example_class, s) for s in serialized.reshape(-1)]
    return tuple(_parse_examples(examples, plan, _expand_defaults(plan, defaults), single))


def _expand_defaults(plan, defaults):
    out, it = [], iter(defaults)
    for kind, *_ in plan:
        out.append(next(it) if kind in ("dense", "sequence") else None)
    return out


def _infer(plan, single, batch=None):
    out = []
    lead = [] if single else [batch]
    for kind, key, dtype, shape, _ in plan:
        if kind == "dense":
            out.append((dtype, TensorShape(lead + list(shape))))
        elif kind == "sequence":
            out.append((dtype, TensorShape(lead + [None] + list(shape))))
        elif kind in ("varlen", "sparse"):
            rank = (1 if kind == "varlen" else len(shape[0])) + len(lead)
            out += [(_dt.int64, TensorShape([None, rank])), (dtype, TensorShape([None])),
                    (_dt.int64, TensorShape([rank]))]
        else:
            inner_dims, levels = ragged_partitions.split_levels(shape[1])
            out.append((dtype, TensorShape([None] + inner_dims)))
            if not single:
                out.append((shape[0], TensorShape([None if batch is None else batch + 1])))
            out += [(shape[0], TensorShape([None]))] * levels
    return out


PARSE_EXAMPLE = OpDef("ParseExampleV2", lambda i, a: _infer(a["plan"], a["single"], i[0].shape.num_elements()
                                                            if not a["single"] else None),
                      _k_parse, multi=True, input_names=("serialized",))


def _default_tensors(plan, features):
    tensors = []
    for kind, key, dtype, shape, _ in plan:
        if kind == "dense":
            tensors.append(records._dense_default(key, features[key]._replace(dtype=dtype)))
        elif kind == "sequence":
            value = features[key].default_value
            with init_scope():
                tensors.append(_convert.convert_to_tensor(
                    np.zeros([0], dtype=object if dtype == _dt.string else dtype._np) if value is None else value,
                    dtype=dtype))
    return tensors


def _assemble(plan, outputs, single):
    """{key: tensor} from the op's flat outputs: composites rebuilt from their components."""
    result, it = {}, iter(outputs)
    for kind, key, dtype, shape, _ in plan:
        if kind in ("dense", "sequence"):
            result[key] = next(it)
        elif kind in ("varlen", "sparse"):
            indices, values, dense_shape = next(it), next(it), next(it)
            result[key] = SparseTensor(indices, values, dense_shape)
        else:
            values = next(it)
            nested = [next(it) for _ in range(_outputs_of((kind, key, dtype, shape), single) - 1)]
            result[key] = RaggedTensor.from_nested_row_splits(values, nested, validate=False) if nested else values
    return result


def _serialized(serialized, single):
    serialized = _convert.convert_to_tensor(serialized, dtype=_dt.string)
    rank = serialized.shape.rank
    if single and rank is not None and rank != 0:
        raise ValueError("Input serialized must be a scalar")
    if not single and rank is not None and rank > 1:
        raise InvalidArgumentError(None, "ParseExampleV2", f"Expected serialized to be a scalar or vector, got "
                                   f"shape: [{','.join(map(str, serialized.shape.as_list()))}] [Op:ParseExampleV2]")
    return serialized


def parse_example(serialized, features, example_names=None, name=None):
    """`tf.io.parse_example`: serialized Examples parsed into {key: tensor}, one entry per feature."""
    if not features:
        raise ValueError("Invalid argument: features cannot be empty.")
    plan = _plan(features)
    serialized = _serialized(serialized, False)
    single = serialized.shape.rank == 0
    outputs = apply(PARSE_EXAMPLE, (serialized, *_default_tensors(plan, features)),
                    {"plan": plan, "single": single}, name or "ParseExampleV2")
    return _assemble(plan, outputs, single)


def parse_single_example(serialized, features, example_names=None, name=None):
    """`tf.io.parse_single_example`: one serialized Example (a scalar string) parsed into {key: tensor}."""
    _serialized(serialized, True)
    return parse_example(serialized, features, name=name)


# -- SequenceExample -------------------------------------------------------------------------------------

class _Context:
    """A SequenceExample seen as an Example (its context features), for `_parse_examples`."""
    __slots__ = ("features",)

    def __init__(self, sequence_example):
        self.features = sequence_example.context


def _steps(sequence_example, key, dtype, where, allow_missing, single):
    """The value lists of the steps of feature list `key` (None when the list is absent)."""
    lists = sequence_example.feature_lists.feature_list
    if key not in lists:
        if not allow_missing:
            raise InvalidArgumentError(None, None, f"Name: <unknown>, Feature list: '{key}' is required but could "
                                                   "not be found.  Did you mean to include it in "
                                                   "feature_list_dense_missing_assumed_empty or "
                                                   "feature_list_dense_defaults?")
        return None
    return [_values(f, key, dtype, where, single) for f in lists[key].feature]


def _parse_sequences(examples, plan, single, allow_missing):
    outputs, lengths = [], []
    for kind, key, dtype, shape, sources in plan:
        value_key = sources[0] if kind == "ragged" else sources[-1]     # a ragged feature's partitions follow
        per_example = [_steps(e, value_key, dtype, b, kind != "sequence" or allow_missing[key], single)
                       for b, e in enumerate(examples)]
        per_example = [steps or [] for steps in per_example]
        if kind == "sequence":
            size = int(np.prod(shape, dtype=np.int64))
            for b, steps in enumerate(per_example):
                for values in steps:
                    if len(values) != size:
                        raise InvalidArgumentError(None, None, f"Name: <unknown>, Key: {key}, Index: {b}.  Number "
                                                               f"of {records._PARSE_DTYPES[dtype]} values != "
                                                               f"expected.  values size: {len(values)} but output "
                                                               f"shape: {list(shape)}")
            flat = [[v for step in steps for v in step] for steps in per_example]
            padded = _padded(flat, dtype, shape, None, key)
            outputs.append(padded[0] if single else padded)
            counts = np.asarray([len(steps) for steps in per_example], np.int64)
            lengths.append(counts[0] if single else counts)
        elif kind == "varlen":
            entries = [((t, j) if single else (b, t, j), v) for b, steps in enumerate(per_example)
                       for t, values in enumerate(steps) for j, v in enumerate(values)]
            rank = 2 if single else 3
            longest_steps = max((len(s) for s in per_example), default=0)
            longest = max((len(v) for s in per_example for v in s), default=0)
            dense_shape = [longest_steps, longest] if single else [len(per_example), longest_steps, longest]
            outputs += [np.asarray([i for i, _ in entries], np.int64).reshape(len(entries), rank),
                        _array([v for _, v in entries], dtype), np.asarray(dense_shape, np.int64)]
        elif kind == "ragged":
            # the steps of all examples are the rows the partitions split (each step by its own partition)
            splits_dtype, spec, validate = shape
            steps = [values for s in per_example for values in s]
            values = _array([v for values in steps for v in values], dtype)
            step_splits = np.concatenate([[0], np.cumsum([len(v) for v in steps], dtype=np.int64)]).astype(np.int64)
            partition_rows = {}
            for partition_key in sources[1:]:
                partition_steps = [step for b, e in enumerate(examples)
                                   for step in (_steps(e, partition_key, _dt.int64, b, True, single) or [])]
                partition_rows[partition_key] = (
                    _array([v for step in partition_steps for v in step], _dt.int64),
                    np.concatenate([[0], np.cumsum([len(v) for v in partition_steps], dtype=np.int64)]))
            values, nested = ragged_partitions.apply_partitions(values, step_splits, partition_rows, spec,
                                                                splits_dtype._np, validate)
            outputs.append(values)
            outputs.extend(nested)
            if not single:
                outputs.append(np.concatenate([[0], np.cumsum([len(s) for s in per_example])]).astype(splits_dtype._np))
        else:
            raise ValueError(f"{kind} features are not sequence features ({key!r})")
    return outputs + lengths


def _k_parse_sequence(serialized, *defaults, context_plan, sequence_plan, allow_missing, single):
    message = records.train_message("SequenceExample")
    examples = [records._parse_one(message, s) for s in serialized.reshape(-1)]
    context = _parse_examples([_Context(e) for e in examples], context_plan,
                              _expand_defaults(context_plan, defaults), single)
    return tuple(context + _parse_sequences(examples, sequence_plan, single, dict(allow_missing)))


def _infer_sequence(inputs, attrs):
    single = attrs["single"]
    rank = inputs[0].shape.rank
    if rank is not None and rank > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {rank} for the serialized input of "
                         "ParseSequenceExampleV2")
    out = _infer(attrs["context_plan"], single)
    lead = [] if single else [None]
    n_lengths = 0
    for kind, key, dtype, shape, _ in attrs["sequence_plan"]:
        if kind == "sequence":
            out.append((dtype, TensorShape(lead + [None] + list(shape))))
            n_lengths += 1
        elif kind == "varlen":
            rank = 2 if single else 3
            out += [(_dt.int64, TensorShape([None, rank])), (dtype, TensorShape([None])),
                    (_dt.int64, TensorShape([rank]))]
        else:
            inner_dims, levels = ragged_partitions.split_levels(shape[1])
            out += [(dtype, TensorShape([None] + inner_dims))] + [(shape[0], TensorShape([None]))] * (1 + levels)
            if not single:
                out.append((shape[0], TensorShape([None])))
    return out + [(_dt.int64, TensorShape(lead))] * n_lengths


PARSE_SEQUENCE_EXAMPLE = OpDef("ParseSequenceExampleV2", _infer_sequence, _k_parse_sequence, multi=True,
                               input_names=("serialized",))


def _parse_sequence(serialized, context_features, sequence_features, single, name):
    if not context_features and not sequence_features:
        raise ValueError("Must provide at least one context_feature or sequence_feature.")
    context_plan = _plan(context_features or {})
    sequence_plan = _plan(sequence_features or {}, in_sequence=True)
    allow = tuple((key, bool(getattr(f, "allow_missing", True))) for key, f in sorted((sequence_features or {}).items()))
    serialized = _convert.convert_to_tensor(serialized, dtype=_dt.string)
    if single and serialized.shape.rank not in (None, 0):
        raise ValueError("Input serialized must be a scalar")
    outputs = apply(PARSE_SEQUENCE_EXAMPLE, (serialized, *_default_tensors(context_plan, context_features or {})),
                    {"context_plan": context_plan, "sequence_plan": sequence_plan, "allow_missing": allow,
                     "single": single}, name or "ParseSequenceExampleV2")
    n_context = sum(_outputs_of(entry, single) for entry in context_plan)
    context = _assemble(context_plan, outputs[:n_context], single)
    it = iter(outputs[n_context:])
    sequences, lengths = {}, {}
    for kind, key, dtype, shape, _ in sequence_plan:
        if kind == "sequence":
            sequences[key] = next(it)
        elif kind == "varlen":
            sequences[key] = SparseTensor(next(it), next(it), next(it))
        else:
            values = next(it)
            nested = [next(it) for _ in range(1 + ragged_partitions.split_levels(shape[1])[1])]
            if not single:
                nested.insert(0, next(it))      # the examples' steps, outermost
            sequences[key] = RaggedTensor.from_nested_row_splits(values, nested, validate=False)
    for kind, key, *_ in sequence_plan:
        if kind == "sequence":
            lengths[key] = next(it)
    return context, sequences, lengths


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None, example_name=None,
                                  name=None):
    """`tf.io.parse_single_sequence_example`: (context dict, sequence dict) of one SequenceExample."""
    context, sequences, _ = _parse_sequence(serialized, context_features, sequence_features, True, name)
    return context, sequences


def parse_sequence_example(serialized, context_features=None, sequence_features=None, example_names=None,
                           name=None):
    """`tf.io.parse_sequence_example`: (context, sequences, lengths of the dense sequence features) of a
    vector of SequenceExamples, sequences padded to the longest."""
    serialized = _convert.convert_to_tensor(serialized, dtype=_dt.string)
    return _parse_sequence(serialized, context_features, sequence_features, serialized.shape.rank == 0, name)


# -- JSON ----------------------------------------------------------------------------------------------

def _varint(n):
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _json_example_bytes(text):
    """The binary Example of its JSON form, with the feature map written in the JSON's key order (as
    TensorFlow's C++ parser writes it; Python's protobuf would order the map its own way)."""
    import json

    from google.protobuf import json_format
    example_class = records.train_message("Example")
    features_class = records.train_message("Features")
    try:
        example = json_format.Parse(text, example_class())
        ordered = json.loads(text, object_pairs_hook=list)
    except (json_format.ParseError, ValueError) as e:
        raise InvalidArgumentError(None, None, f"Error while parsing JSON: {e}") from None
    top = dict(ordered) if isinstance(ordered, list) else {}
    if "features" not in top:
        return b""
    inner = dict(top["features"]) if isinstance(top["features"], list) else {}
    keys = [k for k, _ in inner.get("feature", [])] if isinstance(inner.get("feature"), list) else []
    del features_class
    parts = []
    for key in keys:
        name = key.encode()
        feature = _feature_bytes(example.features.feature[key])
        entry = b"\n" + _varint(len(name)) + name + b"\x12" + _varint(len(feature)) + feature
        parts.append(b"\n" + _varint(len(entry)) + entry)
    body = b"".join(parts)
    return b"\n" + _varint(len(body)) + body


def _feature_bytes(feature):
    """A Feature message as TensorFlow's JSON reader writes it: repeated numbers unpacked (one tag per
    value), where Python's protobuf would pack them."""
    import struct
    kind = feature.WhichOneof("kind")
    if kind is None:
        return b""
    values = getattr(feature, kind).value
    if kind == "bytes_list":
        body, tag = b"".join(b"\n" + _varint(len(v)) + v for v in values), b"\n"
    elif kind == "float_list":
        body, tag = b"".join(b"\r" + struct.pack("<f", v) for v in values), b"\x12"
    else:
        body, tag = b"".join(b"\x08" + _varint(v & 0xFFFFFFFFFFFFFFFF) for v in values), b"\x1a"
    return tag + _varint(len(body)) + body


def _k_decode_json(json_examples):
    out = np.empty(json_examples.shape, dtype=object)
    flat = out.reshape(-1)
    for i, value in enumerate(json_examples.reshape(-1)):
        text = value.decode() if isinstance(value, bytes) else str(value)
        flat[i] = _json_example_bytes(text)
    return out


DECODE_JSON_EXAMPLE = OpDef("DecodeJSONExample", lambda i, a: [(_dt.string, i[0].shape)], _k_decode_json,
                            allowed=(_dt.string,), input_names=("json_examples",))


def decode_json_example(json_examples, name=None):
    """`tf.io.decode_json_example`: Example protos in JSON form -> the same protos serialized (binary),
    ready for `parse_example`."""
    examples = json_examples if hasattr(json_examples, "dtype") and hasattr(json_examples, "shape") and \
        not isinstance(json_examples, np.ndarray) else _convert.convert_to_tensor(json_examples, dtype=_dt.string)
    return apply(DECODE_JSON_EXAMPLE, (examples,), {}, name or "DecodeJSONExample")


API = {"io": ["VarLenFeature", "SparseFeature", "FixedLenSequenceFeature", "RaggedFeature", "parse_example",
              "parse_single_example", "parse_sequence_example", "parse_single_sequence_example",
              "decode_json_example"]}
