"""TensorFlow's public record API: tf.io.TFRecordWriter, tf.data.TFRecordDataset, tf.train.Example and
tf.io.parse_single_example / parse_example with FixedLenFeature. Expected bytes were recorded from
TensorFlow 2.21."""
import sys
import subprocess

import numpy as np
import pytest

pytest.importorskip("google.protobuf")

import tensorflux as tf  # noqa: E402

# tf.train.Example with features i=[3, 4] (int64), s=[b"ab"] (bytes), x=[1.5] (float), serialized by
# TensorFlow 2.21 (deterministic=True), and the TFRecord file tf.io.TFRecordWriter wrote for it.
TF_EXAMPLE = (b"\n)\n\x0b\n\x01i\x12\x06\x1a\x04\n\x02\x03\x04\n\x0b\n\x01s\x12\x06\n\x04\n\x02ab\n\r\n\x01x\x12\x08"
              b"\x12\x06\n\x04\x00\x00\xc0?")
TF_FILE = (b"+\x00\x00\x00\x00\x00\x00\x00\x86\x1b\xc3K" + TF_EXAMPLE + b"\xf6\xe7\x10,")
# tf.io.TFRecordWriter(path, TFRecordOptions(compression_type="ZLIB", compression_level=9)) writing b"abc".
TF_ZLIB_FILE = b"x\xdacf\x80\x80\r3=\xf9\x12\x93\x92\xf3\xc2?*\x02\x00\x1cy\x04\xa1"

FEATURES = {"x": tf.io.FixedLenFeature([], tf.float32), "i": tf.io.FixedLenFeature([2], tf.int64),
            "s": tf.io.FixedLenFeature((), tf.string),
            "d": tf.io.FixedLenFeature([], tf.float32, default_value=7.0)}


def _example(x, i, s):
    feature = {"i": tf.train.Feature(int64_list=tf.train.Int64List(value=i)),
               "s": tf.train.Feature(bytes_list=tf.train.BytesList(value=[s])),
               "x": tf.train.Feature(float_list=tf.train.FloatList(value=[x]))}
    return tf.train.Example(features=tf.train.Features(feature=feature))


def test_example_bytes_and_file_equal_tensorflows(tmp_path):
    example = _example(1.5, [3, 4], b"ab")
    assert example.SerializeToString(deterministic=True) == TF_EXAMPLE
    assert tf.train.Example.FromString(TF_EXAMPLE) == example
    path = str(tmp_path / "one.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        writer.write(TF_EXAMPLE)
    assert open(path, "rb").read() == TF_FILE
    assert 'key: "x"' in str(example) and "float_list {\n        value: 1.5" in str(example)


def test_compressed_writer_matches_tensorflow_and_reads_back(tmp_path):
    path = str(tmp_path / "z.tfrecord")
    writer = tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(compression_type="ZLIB", compression_level=9))
    writer.write(b"abc")
    writer.close()
    assert open(path, "rb").read() == TF_ZLIB_FILE
    records = [r.numpy() for r in tf.data.TFRecordDataset(path, compression_type="ZLIB")]
    assert records == [b"abc"]
    gz = str(tmp_path / "g.tfrecord")
    with tf.io.TFRecordWriter(gz, "GZIP") as w:
        w.write(b"one")
        w.flush()
        w.write("two")
    assert [r.numpy() for r in tf.data.TFRecordDataset([gz], "GZIP")] == [b"one", b"two"]


def test_docs_example_write_read_parse_in_map(tmp_path):
    path = str(tmp_path / "data.tfrecord")
    rows = [(0.5, [1, 2], b"a"), (1.5, [3, 4], b"bb"), (2.5, [5, 6], b"ccc")]
    with tf.io.TFRecordWriter(path) as writer:
        for row in rows:
            writer.write(_example(*row).SerializeToString())
    dataset = tf.data.TFRecordDataset([path])
    assert dataset.element_spec == tf.TensorSpec(shape=(), dtype=tf.string)
    parsed = dataset.map(lambda record: tf.io.parse_single_example(record, FEATURES))
    assert parsed.element_spec["i"] == tf.TensorSpec([2], tf.int64)
    got = [{k: v.numpy() for k, v in element.items()} for element in parsed]
    assert [g["x"] for g in got] == [0.5, 1.5, 2.5]
    assert [g["i"].tolist() for g in got] == [r[1] for r in rows]
    assert [g["s"] for g in got] == [b"a", b"bb", b"ccc"]
    assert all(g["d"] == 7.0 and g["d"].dtype == np.float32 for g in got)
    batch = tf.io.parse_example([r.numpy() for r in dataset], FEATURES)
    assert batch["i"].shape == (3, 2) and batch["s"].numpy().tolist() == [b"a", b"bb", b"ccc"]


def test_filenames_as_dataset_and_parallel_reads(tmp_path):
    paths = []
    for n in range(2):
        paths.append(str(tmp_path / f"{n}.rec"))
        with tf.io.TFRecordWriter(paths[-1]) as w:
            for k in range(2):
                w.write(f"{n}{k}".encode())
    files = tf.data.Dataset.from_tensor_slices(paths)
    assert [r.numpy() for r in tf.data.TFRecordDataset(files)] == [b"00", b"01", b"10", b"11"]
    assert [r.numpy() for r in tf.data.TFRecordDataset(paths, num_parallel_reads=2)] == [b"00", b"10", b"01", b"11"]


def test_parse_inside_tf_function():
    @tf.function
    def parse(serialized):
        return tf.io.parse_example(serialized, FEATURES)

    out = parse(tf.constant([TF_EXAMPLE, TF_EXAMPLE]))
    assert out["x"].numpy().tolist() == [1.5, 1.5] and out["i"].numpy().tolist() == [[3, 4], [3, 4]]


def test_parse_errors_as_tensorflow():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Feature: y \(data type: float\) is required but could not be found\."):
        tf.io.parse_single_example(TF_EXAMPLE, {"y": tf.io.FixedLenFeature([], tf.float32)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Name: <unknown>, Feature: y"):
        tf.io.parse_example([TF_EXAMPLE], {"y": tf.io.FixedLenFeature([], tf.float32)})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Key: x.  Data types don't match. Data type: float but expected type: int64"):
        tf.io.parse_single_example(TF_EXAMPLE, {"x": tf.io.FixedLenFeature([], tf.int64)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Some int64_list slice was not parsed"):
        tf.io.parse_single_example(TF_EXAMPLE, {"i": tf.io.FixedLenFeature([], tf.int64)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Values size: 2 but output shape: \\[\\]"):
        tf.io.parse_example([TF_EXAMPLE], {"i": tf.io.FixedLenFeature([], tf.int64)})
    with pytest.raises(ValueError, match="Input serialized must be a scalar"):
        tf.io.parse_single_example([TF_EXAMPLE], FEATURES)
    with pytest.raises(ValueError, match="features cannot be empty"):
        tf.io.parse_single_example(TF_EXAMPLE, {})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse example input"):
        tf.io.parse_single_example(b"\xff\xff", {"i": tf.io.FixedLenFeature([], tf.int64)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="not in the list of allowed values"):
        tf.io.parse_single_example(TF_EXAMPLE, {"i": tf.io.FixedLenFeature([2], tf.int32)})


def test_reader_and_writer_errors(tmp_path):
    bad = tmp_path / "bad.rec"
    bad.write_bytes(TF_FILE[:-1] + b"\x00")
    dataset = tf.data.TFRecordDataset(str(bad))  # made without reading: the error comes when iterated
    with pytest.raises(tf.errors.DataLossError, match="corrupted record at 12"):
        list(dataset)
    with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
        list(tf.data.TFRecordDataset(str(tmp_path / "missing.rec")))
    with pytest.raises(TypeError, match="must contain `tf.string` elements"):
        tf.data.TFRecordDataset([1])
    with pytest.raises(ValueError, match='Not a valid compression_type: "BAD"'):
        tf.io.TFRecordWriter(str(tmp_path / "x.rec"), "BAD")
    writer = tf.io.TFRecordWriter(str(tmp_path / "closed.rec"))
    writer.close()
    with pytest.raises(tf.errors.FailedPreconditionError, match="Writer is closed."):
        writer.write(b"x")


def test_train_messages_do_not_load_protobuf_at_import():
    code = ("import sys, tensorflux as tf; before = 'google.protobuf' in sys.modules; "
            "name = tf.train.Example.DESCRIPTOR.full_name; print(before, name, 'Example' in dir(tf.train))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "tensorflow.Example", "True"]
