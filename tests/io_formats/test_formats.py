"""The formats room against files real TensorFlow 2.21 wrote (tests/io_formats/fixtures/, made by
make_fixtures.py): exact values back, byte-identical output where TensorFlow's is deterministic,
round trips, and corruption (every bit flip, every truncation) raising TensorFlow's error classes."""
import io
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("google.protobuf")

from tensorflux._src.framework.errors import DataLossError, NotFoundError  # noqa: E402
from tensorflux._src.io.formats import crc32c, protos, tfrecord  # noqa: E402

from .fixture_values import EXAMPLES, RAW_RECORDS  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
CKPT = os.path.join(FIXTURES, "checkpoint", "ckpt")


def fixture(*parts):
    return os.path.join(FIXTURES, *parts)


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def variable_key(name):
    return f"{name}/.ATTRIBUTES/VARIABLE_VALUE"


def assert_same_value(got, expected):
    assert got.shape == expected.shape
    if expected.dtype == object:
        assert got.dtype == object and got.tolist() == expected.tolist()
    else:
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


# -- CRC-32C -----------------------------------------------------------------------------------------

def _bytewise_crc(data):
    register = 0xFFFFFFFF
    for byte in data:
        register ^= byte
        for _ in range(8):
            register = (register >> 1) ^ 0x82F63B78 if register & 1 else register >> 1
    return register ^ 0xFFFFFFFF


def test_crc32c_known_vectors():
    # RFC 3720 appendix B.4 and the usual check value.
    assert crc32c.crc32c(bytes(32)) == 0x8A9136AA
    assert crc32c.crc32c(b"\xff" * 32) == 0x62A8AB43
    assert crc32c.crc32c(bytes(range(32))) == 0x46DD794E
    assert crc32c.crc32c(b"123456789") == 0xE3069283
    assert crc32c.unmask(crc32c.mask(0x12345678)) == 0x12345678


@pytest.mark.parametrize("size", [16383, 16384, 16385, 70001, 262144 + 3])
def test_crc32c_lane_path_matches_bit_by_bit(size):
    data = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8).tobytes()
    expected = _bytewise_crc(data)
    assert crc32c.crc32c(data) == expected
    cut = size // 3
    assert crc32c.crc32c(data[cut:], crc32c.crc32c(data[:cut])) == expected


# -- protobuf modules ----------------------------------------------------------------------------------

def test_import_tensorflux_does_not_load_protobuf():
    code = "import sys, tensorflux; print('google.protobuf' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_protos_load_only_known_modules():
    assert protos.load("tensor").__name__ == "tensorflux._src.io.formats.pb.tensor_pb2"
    with pytest.raises(ValueError, match="no generated protobuf module"):
        protos.load("os")


def test_messages_keep_tensorflow_names_in_a_private_pool():
    from google.protobuf import descriptor_pool
    tensor_pb2 = protos.load("tensor")
    assert tensor_pb2.TensorProto.DESCRIPTOR.full_name == "tensorflow.TensorProto"
    with pytest.raises(KeyError):
        descriptor_pool.Default().FindMessageTypeByName("tensorflow.TensorProto")
    holder = protos.load("meta_graph").MetaGraphDef()
    holder.meta_info_def.any_info.Pack(tensor_pb2.TensorProto(dtype=1))
    assert holder.meta_info_def.any_info.type_url == "type.googleapis.com/tensorflow.TensorProto"


def test_saved_model_written_by_tensorflow_parses():
    saved_model = protos.parse(protos.load("saved_model").SavedModel,
                               read_bytes(fixture("saved_model", "saved_model.pb")), "saved_model.pb")
    (meta_graph,) = saved_model.meta_graphs
    assert list(meta_graph.meta_info_def.tags) == ["serve"]
    signature = meta_graph.signature_def["serving_default"]
    assert signature.method_name == "tensorflow/serving/predict"
    assert list(signature.inputs) == ["x"] and list(signature.outputs) == ["y"]
    assert [d.size for d in signature.inputs["x"].tensor_shape.dim] == [-1, 2]
    ops = {node.op for function in meta_graph.graph_def.library.function for node in function.node_def}
    assert {"MatMul", "Relu", "AddV2"} <= ops
    kinds = {node.WhichOneof("kind") for node in meta_graph.object_graph_def.nodes}
    assert {"user_object", "variable", "function"} <= kinds
    fingerprint = protos.parse(protos.load("fingerprint").FingerprintDef,
                               read_bytes(fixture("saved_model", "fingerprint.pb")), "fingerprint.pb")
    assert fingerprint.saved_model_checksum != 0


def test_graph_def_written_by_tensorflow_parses():
    graph = protos.parse(protos.load("graph").GraphDef, read_bytes(fixture("affine.graphdef.pb")), "GraphDef")
    assert {"Placeholder", "MatMul", "Relu", "ReadVariableOp"} <= {node.op for node in graph.node}
    by_name = {node.name: node for node in graph.node}
    assert by_name["x"].op == "Placeholder"
    assert by_name["x"].attr["dtype"].type == protos.load("types").DT_FLOAT
    assert graph.versions.producer > 0


def test_event_file_written_by_tensorflow_parses():
    event_pb2 = protos.load("event")
    events = [event_pb2.Event.FromString(r) for r in tfrecord.read_records(fixture("scalar.tfevents"))]
    assert events[0].file_version == "brain.Event:2"
    (value,) = [v for e in events for v in e.summary.value]
    step = [e.step for e in events if e.summary.value][0]
    assert (value.tag, step) == ("loss", 3)
    assert value.tensor.dtype == protos.load("types").DT_FLOAT
    assert struct.unpack("<f", value.tensor.tensor_content)[0] == 0.125 or list(value.tensor.float_val) == [0.125]


def test_garbage_is_data_loss():
    with pytest.raises(DataLossError, match="SavedModel"):
        protos.parse(protos.load("saved_model").SavedModel, b"\xff\xff\xff", "saved_model.pb")


# -- TFRecord ------------------------------------------------------------------------------------------

def _example_values(example):
    out = {}
    for name, feature in example.features.feature.items():
        kind = feature.WhichOneof("kind")
        values = list(getattr(feature, kind).value)
        out[name] = ({"int64_list": "int64", "float_list": "float", "bytes_list": "bytes"}[kind], values)
    return out


@pytest.mark.parametrize("suffix,compression", [("", None), (".gz", "GZIP"), (".zlib", "ZLIB")])
def test_examples_written_by_tensorflow(suffix, compression):
    example_pb2 = protos.load("example")
    records = tfrecord.read_records(fixture("examples.tfrecord" + suffix), compression)
    assert [_example_values(example_pb2.Example.FromString(r)) for r in records] == EXAMPLES


def test_raw_records_read_and_written_byte_for_byte():
    assert tfrecord.read_records(fixture("raw.tfrecord")) == RAW_RECORDS
    out = io.BytesIO()
    with tfrecord.RecordWriter(out) as writer:
        for record in RAW_RECORDS:
            writer.write(record)
    assert out.getvalue() == read_bytes(fixture("raw.tfrecord"))


@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_record_round_trip_with_flush(tmp_path, compression):
    path = tmp_path / "r.tfrecord"
    with open(path, "wb") as f:
        writer = tfrecord.RecordWriter(f, compression)
        writer.write(b"first")
        writer.flush()
        with open(path, "rb") as reader:  # what a follower sees after a flush
            assert list(tfrecord.iter_records(reader, compression)) == [b"first"]
        writer.write(b"second" * 1000)
        writer.close()
    assert tfrecord.read_records(path, compression) == [b"first", b"second" * 1000]
    tfrecord.write_records(path, [b"x", b""], compression)
    assert tfrecord.read_records(path, compression) == [b"x", b""]
    assert os.listdir(tmp_path) == ["r.tfrecord"]


def test_every_bit_flip_in_a_record_file_is_data_loss(tmp_path):
    data = read_bytes(fixture("raw.tfrecord"))
    for position in range(0, len(data), 7):
        broken = bytearray(data)
        broken[position] ^= 1 << (position % 8)
        with pytest.raises(DataLossError, match="corrupted record at"):
            list(tfrecord.iter_records(io.BytesIO(bytes(broken))))


def test_truncated_record_files_end_or_raise_as_tensorflow_does():
    data = read_bytes(fixture("raw.tfrecord"))
    starts, offset = [], 0
    for record in RAW_RECORDS:
        starts.append(offset)
        offset += 16 + len(record)
    for cut in range(len(data)):
        complete = sum(1 for s, r in zip(starts, RAW_RECORDS) if s + 16 + len(r) <= cut)
        current = max(s for s in starts if s <= cut)
        if cut - current < 12:  # inside a header: the records before it, quietly (as TF)
            assert list(tfrecord.iter_records(io.BytesIO(data[:cut]))) == RAW_RECORDS[:complete]
        else:
            with pytest.raises(DataLossError, match=f"truncated record at {current}'"):
                list(tfrecord.iter_records(io.BytesIO(data[:cut])))


def test_broken_compressed_stream_is_data_loss():
    data = read_bytes(fixture("examples.tfrecord.gz"))
    with pytest.raises(DataLossError, match="inflate\\(\\) failed with error -3"):
        tfrecord.read_records(fixture("raw.tfrecord"), "GZIP")
    broken = data[:30] + bytes([data[30] ^ 0xFF]) + data[31:]
    with pytest.raises(DataLossError):
        list(tfrecord.iter_records(io.BytesIO(broken), "GZIP"))


def test_forged_huge_length_does_not_allocate_it():
    length = struct.pack("<Q", 1 << 60)
    forged = length + struct.pack("<I", crc32c.masked_crc32c(length)) + b"tiny"
    with pytest.raises(DataLossError, match="truncated record at 0'"):
        list(tfrecord.iter_records(io.BytesIO(forged)))


def test_record_errors_name_the_problem():
    with pytest.raises(NotFoundError, match="No such file"):
        tfrecord.read_records("/nonexistent/x.tfrecord")
    from tensorflux._src.framework.errors import InvalidArgumentError
    with pytest.raises(InvalidArgumentError, match="compression_type"):
        tfrecord.RecordWriter(io.BytesIO(), "BZIP2")
