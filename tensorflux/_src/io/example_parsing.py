"""Parsing `tf.train.Example` and `tf.train.SequenceExample` into tensors for every feature kind of
TensorFlow: `FixedLenFeature` (dense), `FixedLenSequenceFeature` (dense, padded along a sequence),
`VarLenFeature` (a SparseTensor of the values), `SparseFeature` (a SparseTensor built from an index
and a value feature), and `RaggedFeature` (a RaggedTensor; without partitions).

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
from . import records

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
    the values as a RaggedTensor (one row per example). Partitions are not implemented."""
    __slots__ = ()

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=_dt.int32, validate=False):
        return super().__new__(cls, dtype, value_key, tuple(partitions), row_splits_dtype, validate)


# -- the plan: one entry per feature, hashable (it is the op's attr) -------------------------------------
# (kind, key, dtype, shape, source keys) with kind in dense / sequence / varlen / sparse / ragged.

def _dtype(feature, key):
    dtype = _dt.as_dtype(feature.dtype)
    if dtype not in records._PARSE_DTYPES:
        raise InvalidArgumentError(None, None, f"Value for attr 'Tdense' of {dtype.name} is not in the list of "
                                               "allowed values: float, int64, string")
    return dtype


def _plan(features, in_sequence=False):
    if not features:
        return ()
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
            index_keys = (feature.index_key,) if isinstance(feature.index_key, str) else tuple(feature.index_key)
            size = (feature.size,) if isinstance(feature.size, int) else tuple(feature.size)
            if len(size) != len(index_keys):
                raise ValueError(f"SparseFeature {key!r}: index_key and size must have the same length")
            plan.append(("sparse", key, _dtype(feature, key), size, index_keys + (feature.value_key,)))
        elif isinstance(feature, RaggedFeature):
            if feature.partitions:
                raise NotImplementedError("tf.io.RaggedFeature partitions are not implemented in tensorflux "
                                          f"(feature {key!r}); parse the values and build the RaggedTensor with "
                                          "tf.RaggedTensor.from_row_lengths")
            splits = _dt.as_dtype(feature.row_splits_dtype)
            plan.append(("ragged", key, _dtype(feature, key), (splits,), (feature.value_key or key,)))
        else:
            raise ValueError(f"Unsupported feature type {type(feature).__name__} for {key!r}")
    return tuple(plan)


def _outputs_of(kind):
    return {"dense": 1, "sequence": 1, "varlen": 3, "sparse": 3, "ragged": 2}[kind]


# -- values out of the protos ---------------------------------------------------------------------------

def _values(feature, key, dtype, where=0, single=False):
    """The value list of one Feature proto as a list (empty for an absent feature), type-checked."""
    kind = feature.WhichOneof("kind") if feature is not None else None
    if kind is None:
        return []
    found = records._KINDS[kind]
    wanted = records._PARSE_DTYPES[dtype]
    if found != wanted:
        place = f"Key: {key}." if single else f"Name: <unknown>, Key: {key}, Index: {where}."
        raise InvalidArgumentError(None, None, f"{place}  Data types don't match. Data type: {found} but "
                                               f"expected type: {wanted}")
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


def _sparse_feature(rows_of_indices, rows_of_values, dtype, size, key, single, sort):
    entries = []
    for b, (index_lists, values) in enumerate(zip(rows_of_indices, rows_of_values)):
        if any(len(ix) != len(values) for ix in index_lists):
            raise InvalidArgumentError(None, None, f"SparseFeature {key}: the index and value features of example "
                                                   f"{b} have different lengths")
        row = []
        for j, value in enumerate(values):
            index = tuple(int(ix[j]) for ix in index_lists)
            if any(not 0 <= i < s for i, s in zip(index, size)):
                raise InvalidArgumentError(None, None, f"Key: {key}, Index: {b}.  Index {index} out of range "
                                                       f"[0, {list(size)})")
            row.append((index, value))
        if sort:
            row.sort(key=lambda item: item[0])
        entries.extend(((() if single else (b,)) + index, value) for index, value in row)
    rank = len(size) + (0 if single else 1)
    indices = np.asarray([i for i, _ in entries], np.int64).reshape(len(entries), rank)
    shape = list(size) if single else [len(rows_of_values)] + list(size)
    return indices, _array([v for _, v in entries], dtype), np.asarray(shape, np.int64)


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
        rows = [_values(f, sources[-1], dtype, where, single)
                for where, f in enumerate(_features_of(examples, sources[-1]))]
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
            index_rows = [[_values(f, k, _dt.int64) for f in _features_of(examples, k)] for k in sources[:-1]]
            outputs.extend(_sparse_feature(list(zip(*index_rows)), rows, dtype, shape, key, single, True))
        else:   # ragged
            splits_dtype = shape[0]
            lengths = [len(r) for r in rows]
            values = _array([v for r in rows for v in r], dtype)
            outputs.append(values)
            outputs.append(np.concatenate([[0], np.cumsum(lengths)]).astype(splits_dtype._np))
    return outputs


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
            rank = (1 if kind == "varlen" else len(shape)) + len(lead)
            out += [(_dt.int64, TensorShape([None, rank])), (dtype, TensorShape([None])),
                    (_dt.int64, TensorShape([rank]))]
        else:
            out.append((dtype, TensorShape([None])))
            out.append((shape[0], TensorShape([None if batch is None else batch + 1])))
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
            values, splits = next(it), next(it)
            result[key] = values if single else RaggedTensor.from_row_splits(values, splits, validate=False)
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
        per_example = [_steps(e, sources[-1], dtype, b, kind != "sequence" or allow_missing[key], single)
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
            splits_dtype = shape[0]._np
            steps = [values for s in per_example for values in s]
            outputs.append(_array([v for values in steps for v in values], dtype))
            outputs.append(np.concatenate([[0], np.cumsum([len(v) for v in steps])]).astype(splits_dtype))
            if not single:
                outputs.append(np.concatenate([[0], np.cumsum([len(s) for s in per_example])]).astype(splits_dtype))
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
            out += [(dtype, TensorShape([None])), (shape[0], TensorShape([None]))]
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
    n_context = sum(_outputs_of(kind) for kind, *_ in context_plan)
    context = _assemble(context_plan, outputs[:n_context], single)
    it = iter(outputs[n_context:])
    sequences, lengths = {}, {}
    for kind, key, dtype, shape, _ in sequence_plan:
        if kind == "sequence":
            sequences[key] = next(it)
        elif kind == "varlen":
            sequences[key] = SparseTensor(next(it), next(it), next(it))
        else:
            values, inner = next(it), next(it)
            ragged = RaggedTensor.from_row_splits(values, inner, validate=False)
            sequences[key] = ragged if single else RaggedTensor.from_row_splits(ragged, next(it), validate=False)
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
