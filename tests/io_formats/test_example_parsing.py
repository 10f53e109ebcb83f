"""tf.io.parse_example / parse_single_example with every feature kind (FixedLen, FixedLenSequence,
VarLen, SparseFeature, RaggedFeature) give what TensorFlow 2.21 gave for the same serialized Examples
(fixtures/example_parsing.json, recorded by running the same parse in TensorFlow), eagerly, inside
tf.function and in Dataset.map."""
import base64
import json
import os

import numpy as np
import pytest

import tensorflux as tf

with open(os.path.join(os.path.dirname(__file__), "fixtures", "example_parsing.json")) as f:
    EXPECTED = json.load(f)
SERIALIZED = [base64.b64decode(s) for s in EXPECTED["serialized"]]
FEATURES = {
    "dense": tf.io.FixedLenFeature([2], tf.float32),
    "var": tf.io.VarLenFeature(tf.int64),
    "str": tf.io.VarLenFeature(tf.string),
    "rag": tf.io.RaggedFeature(tf.float32),
    "sp": tf.io.SparseFeature("idx", "val", tf.float32, 5),
    "seq": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
}


def describe(v):
    if isinstance(v, tf.SparseTensor):
        values = [x.decode() if isinstance(x, bytes) else x for x in v.values.numpy().tolist()]
        return {"kind": "sparse", "indices": v.indices.numpy().tolist(), "values": values,
                "dense_shape": v.dense_shape.numpy().tolist(), "dtype": v.dtype.name}
    if isinstance(v, tf.RaggedTensor):
        return {"kind": "ragged", "list": v.to_list(), "dtype": v.dtype.name, "splits_dtype": v.row_splits.dtype.name}
    return {"kind": "dense", "value": v.numpy().tolist(), "dtype": v.dtype.name, "shape": v.shape.as_list()}


def test_parse_example_batch():
    got = tf.io.parse_example(SERIALIZED, FEATURES)
    assert {k: describe(v) for k, v in got.items()} == EXPECTED["batch"]


def test_parse_single_example():
    got = tf.io.parse_single_example(SERIALIZED[0], FEATURES)
    assert {k: describe(v) for k, v in got.items()} == EXPECTED["single"]


def test_parse_example_inside_tf_function_and_dataset_map():
    traced = tf.function(lambda s: tf.io.parse_example(s, FEATURES))(tf.constant(SERIALIZED))
    assert {k: describe(v) for k, v in traced.items()} == EXPECTED["batch"]
    ds = tf.data.Dataset.from_tensor_slices(SERIALIZED).map(
        lambda s: tf.io.parse_single_example(s, {"var": FEATURES["var"], "dense": FEATURES["dense"]}))
    rows = [(r["dense"].numpy().tolist(), r["var"].values.numpy().tolist()) for r in ds]
    assert rows == [([1.0, 2.0], [1, 2, 3]), ([3.0, 4.0], []), ([5.0, 6.0], [7])]


def test_feature_kind_errors():
    with pytest.raises(ValueError, match="requires allow_missing to be True"):
        tf.io.parse_example(SERIALIZED, {"seq": tf.io.FixedLenSequenceFeature([2], tf.float32)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Data types don't match"):
        tf.io.parse_example(SERIALIZED, {"var": tf.io.VarLenFeature(tf.float32)})


SEQUENCES = [base64.b64decode(s) for s in EXPECTED["seq_serialized"]]
CONTEXT = {"len": tf.io.FixedLenFeature([], tf.int64), "tag": tf.io.VarLenFeature(tf.string)}
SEQUENCE = {"tok": tf.io.FixedLenSequenceFeature([2], tf.int64), "w": tf.io.VarLenFeature(tf.float32),
            "r": tf.io.RaggedFeature(tf.float32)}


def test_parse_single_sequence_example():
    context, sequences = tf.io.parse_single_sequence_example(SEQUENCES[0], CONTEXT, SEQUENCE)
    got = {"context": {k: describe(v) for k, v in context.items()},
           "sequence": {k: describe(v) for k, v in sequences.items()}}
    assert got == EXPECTED["seq_single"]


@pytest.mark.parametrize("traced", [False, True])
def test_parse_sequence_example_batch(traced):
    parse = lambda s: tf.io.parse_sequence_example(s, CONTEXT, SEQUENCE)  # noqa: E731
    context, sequences, lengths = (tf.function(parse) if traced else parse)(tf.constant(SEQUENCES))
    got = {"context": {k: describe(v) for k, v in context.items()},
           "sequence": {k: describe(v) for k, v in sequences.items()},
           "lengths": {k: describe(v) for k, v in lengths.items()}}
    assert got == EXPECTED["seq_batch"]


def test_missing_feature_list_is_an_error_unless_allowed():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Feature list: 'nope' is required"):
        tf.io.parse_single_sequence_example(SEQUENCES[0], sequence_features={
            "nope": tf.io.FixedLenSequenceFeature([], tf.int64)})
    _, sequences = tf.io.parse_single_sequence_example(SEQUENCES[0], sequence_features={
        "nope": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True)})
    assert sequences["nope"].shape == (0,)


JSON_EXAMPLES = ['{"features": {"feature": {"x": {"int64List": {"value": ["1", "2"]}}, "a": {"floatList": '
                 '{"value": [1.5]}}, "s": {"bytesList": {"value": ["aGk="]}}}}}', '{"features": {}}', '{}']
# tf.io.decode_json_example(JSON_EXAMPLES) in TensorFlow 2.21 (the feature map in the JSON's key order)
JSON_BINARY = [b"\n(\n\x0b\n\x01x\x12\x06\x1a\x04\x08\x01\x08\x02\n\x0c\n\x01a\x12\x07\x12\x05\r\x00\x00\xc0?\n\x0b"
               b"\n\x01s\x12\x06\n\x04\n\x02hi", b"\n\x00", b""]


def test_decode_json_example_gives_tensorflows_bytes():
    got = tf.io.decode_json_example(JSON_EXAMPLES)
    assert got.dtype == tf.string and got.numpy().tolist() == JSON_BINARY
    parsed = tf.io.parse_single_example(got[0], {"x": tf.io.VarLenFeature(tf.int64),
                                                 "a": tf.io.FixedLenFeature([1], tf.float32)})
    assert parsed["x"].values.numpy().tolist() == [1, 2] and parsed["a"].numpy().tolist() == [1.5]
    for bad in ['{"x": 1}', "not json", '{"features": {"feature": {"x": {"int64List": {"value": ["a"]}}}}}']:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Error while parsing JSON"):
            tf.io.decode_json_example(bad)
