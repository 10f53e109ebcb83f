"""Run by test_tensorflow_interop.py with an interpreter that has real TensorFlow (never imported by
tensorflux's tests themselves): reads the files tensorflux wrote and compares tensorflux's protobuf
schemas with TensorFlow's. Prints one JSON object of findings.

    python tensorflow_side.py WORKDIR SHIM_DIR [ours-first]
"""
import json
import os
import sys

WORK, SHIM = sys.argv[1], sys.argv[2]
sys.path.insert(0, SHIM)  # a stand-in `tensorflux` package holding only the formats room
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

if len(sys.argv) > 3:  # the other import order: tensorflux's modules before TensorFlow's
    from tensorflux._src.io.formats.pb import saved_model_pb2  # noqa: F401

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from google.protobuf import descriptor_pb2, descriptor_pool  # noqa: E402

import fixture_values  # noqa: E402

found = {}


def check(name, function):
    try:
        found[name] = function()
    except Exception as error:  # reported to the test, which shows it
        found[name] = f"{type(error).__name__}: {error}"


def checkpoint_values():
    reader = tf.train.load_checkpoint(os.path.join(WORK, "ckpt"))
    for name, expected in fixture_values.CHECKPOINT_VARIABLES.items():
        got = reader.get_tensor(f"{name}/.ATTRIBUTES/VARIABLE_VALUE")
        got = np.asarray(got)
        if got.dtype == object or expected.dtype == object:
            assert got.tolist() == expected.tolist(), name
        else:
            assert got.dtype == expected.dtype and got.shape == expected.shape, (name, got.dtype, got.shape)
            np.testing.assert_array_equal(got, expected)
    return "ok"


def checkpoint_restore():
    variables = {name: tf.Variable(tf.zeros_like(value) if value.dtype != object else tf.fill(value.shape, ""))
                 for name, value in fixture_values.CHECKPOINT_VARIABLES.items()}
    tf.train.Checkpoint(**variables).read(os.path.join(WORK, "ckpt")).assert_consumed()
    for name, expected in fixture_values.CHECKPOINT_VARIABLES.items():
        got = np.asarray(variables[name].numpy(), dtype=expected.dtype)
        assert (got.tolist() == expected.tolist()) if expected.dtype == object else np.array_equal(got, expected)
    return "ok"


def records(compression):
    path = os.path.join(WORK, f"raw-{compression or 'none'}.tfrecord")
    got = [r.numpy() for r in tf.data.TFRecordDataset(path, compression_type=compression or "")]
    assert got == fixture_values.RAW_RECORDS, [len(r) for r in got]
    return "ok"


def examples():
    spec = {"id": tf.io.VarLenFeature(tf.int64), "score": tf.io.VarLenFeature(tf.float32),
            "label": tf.io.VarLenFeature(tf.string)}
    for record, expected in zip(tf.data.TFRecordDataset(os.path.join(WORK, "examples.tfrecord")),
                                fixture_values.EXAMPLES):
        parsed = tf.io.parse_single_example(record, spec)
        for name, (_, values) in expected.items():
            got = parsed[name].values.numpy().tolist()
            assert got == list(values), (name, got, values)
    return "ok"


def _sort_nested(message):
    # The order in which nested types are declared is not part of the format (protoc puts a map's
    # entry type where the map field is declared).
    nested = sorted(message.nested_type, key=lambda m: m.name)
    del message.nested_type[:]
    for child in nested:
        _sort_nested(child)
        message.nested_type.add().CopyFrom(child)


def _normalized(file_descriptor):
    proto = descriptor_pb2.FileDescriptorProto()
    file_descriptor.CopyToProto(proto)
    proto.ClearField("options")  # java/go package names and the like: not part of the wire format
    for message in proto.message_type:
        _sort_nested(message)
    return proto


def schemas():
    from tensorflux._src.io.formats import protos
    differences = []
    for name in sorted(protos.MODULES):
        ours = protos.load(name).DESCRIPTOR
        theirs = descriptor_pool.Default().FindFileByName(ours.name)
        if _normalized(ours) != _normalized(theirs):
            differences.append(ours.name)
    return differences


def coexistence():
    from tensorflux._src.io.formats import protos
    from tensorflow.core.framework import tensor_pb2 as tf_tensor_pb2
    ours = protos.load("tensor").TensorProto
    proto = tf.make_tensor_proto(np.arange(6, dtype=np.float32).reshape(2, 3))
    back = ours.FromString(proto.SerializeToString())
    assert tf_tensor_pb2.TensorProto.FromString(back.SerializeToString()) == proto
    return [d.size for d in back.tensor_shape.dim]


check("checkpoint_values", checkpoint_values)
check("checkpoint_restore", checkpoint_restore)
for compression in ("", "GZIP", "ZLIB"):
    check(f"records_{compression or 'none'}", lambda: records(compression))
check("examples", examples)
if len(sys.argv) <= 3:
    # Loading every TensorFlow module whose descriptors are compared (they load lazily otherwise).
    import tensorflow.core.protobuf.saved_model_pb2  # noqa: F401
    import tensorflow.core.protobuf.fingerprint_pb2  # noqa: F401
    import tensorflow.core.protobuf.tensor_bundle_pb2  # noqa: F401
    import tensorflow.core.util.event_pb2  # noqa: F401
    import tensorflow.core.example.example_pb2  # noqa: F401
    check("schemas", schemas)
check("coexistence", coexistence)
print("RESULT " + json.dumps(found))
