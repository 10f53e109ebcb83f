"""tf.summary: event files read back by an independent reader here (TFRecord CRCs, protobuf fields) and,
where real TensorFlow is installed at ~/venv-tf, by TensorBoard's own reader and compared with the bytes
TensorFlow writes for the same summaries."""
import json
import functools
import os
import re
import socket
import struct
import subprocess
import textwrap
import zlib

import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.io import summary as tf_summary
from tensorflux._src.framework import errors

TF_PYTHON = os.path.expanduser("~/venv-tf/bin/python")


# -- an independent reader: TFRecord framing with CRC checks, and just enough protobuf ---------------

def _crc32c_bitwise(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 * (crc & 1))
    return crc ^ 0xFFFFFFFF


def _masked(data):
    crc = _crc32c_bitwise(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def read_records(path):
    with open(path, "rb") as f:
        data = f.read()
    records, position = [], 0
    while position < len(data):
        header = data[position:position + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[position + 8:position + 12])
        assert length_crc == _masked(header), "length CRC mismatch"
        payload = data[position + 12:position + 12 + length]
        (payload_crc,) = struct.unpack("<I", data[position + 12 + length:position + 16 + length])
        assert payload_crc == _masked(payload), "data CRC mismatch"
        records.append(payload)
        position += 16 + length
    assert position == len(data)
    return records


def _fields(message):
    """[(field number, value)]: ints for varints, bytes for fixed64 and length-delimited fields."""
    fields, position = [], 0
    while position < len(message):
        key, position = _read_varint(message, position)
        field, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value, position = _read_varint(message, position)
        elif wire_type == 1:
            value, position = message[position:position + 8], position + 8
        elif wire_type == 2:
            length, position = _read_varint(message, position)
            value, position = message[position:position + length], position + length
        else:
            raise AssertionError(f"unexpected wire type {wire_type}")
        fields.append((field, value))
    return fields


def _read_varint(data, position):
    result = shift = 0
    while True:
        byte = data[position]
        position += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, position


def _first(fields, number, default=None):
    return next((value for field, value in fields if field == number), default)


_NUMPY_TYPES = {1: np.float32, 2: np.float64, 3: np.int32, 9: np.int64}


def _decode_tensor(message):
    fields = _fields(message)
    dtype = _first(fields, 1)
    shape = tuple(_first(_fields(dim), 1, 0) for field, dim in _fields(_first(fields, 2, b"")) if field == 2)
    if dtype == 7:
        strings = [value for field, value in fields if field == 8]
        return np.array(strings, dtype=object).reshape(shape)
    return np.frombuffer(_first(fields, 4, b""), dtype=_NUMPY_TYPES[dtype]).reshape(shape)


def read_events(path):
    """Every event as a dict: wall_time, step, and file_version or tag/value/plugin/description."""
    events = []
    for record in read_records(path):
        fields = _fields(record)
        event = {"wall_time": struct.unpack("<d", _first(fields, 1, bytes(8)))[0], "step": _first(fields, 2, 0)}
        if _first(fields, 3) is not None:
            event["file_version"] = _first(fields, 3).decode()
        summary = _first(fields, 5)
        if summary is not None:
            values = [value for field, value in _fields(summary) if field == 1]
            assert len(values) == 1
            value = _fields(values[0])
            metadata = _fields(_first(value, 9, b""))
            event.update(tag=_first(value, 1).decode(), value=_decode_tensor(_first(value, 8)),
                         plugin=_first(_fields(_first(metadata, 1, b"")), 1, b"").decode(),
                         description=_first(metadata, 3, b"").decode())
        events.append(event)
    return events


def summaries(writer):
    events = read_events(writer.event_file_path)
    assert events[0]["file_version"] == "brain.Event:2"
    return events[1:]


def decode_png(png):
    """Pixels of a PNG written by tensorflux (8-bit, unfiltered rows)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, position = {}, 8
    while position < len(png):
        (length,) = struct.unpack(">I", png[position:position + 4])
        kind, payload = png[position + 4:position + 8], png[position + 8:position + 8 + length]
        assert struct.unpack(">I", png[position + 8 + length:position + 12 + length])[0] == zlib.crc32(kind + payload)
        chunks[kind] = chunks.get(kind, b"") + payload
        position += 12 + length
    width, height, depth, color_type = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[color_type]
    assert depth == 8
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(height, 1 + width * channels)
    assert not rows[:, 0].any()
    return rows[:, 1:].reshape(height, width, channels)


@pytest.fixture(autouse=True)
def _fresh_summary_state():
    yield
    tf_summary.set_step(None)
    tf_summary._state.writer = None
    tf_summary._state.record_condition = True
    tf_summary.trace_off()


# -- the file --------------------------------------------------------------------------------------

def test_event_file_is_named_like_tensorflows_and_starts_with_the_version_event(tmp_path):
    first = tf_summary.create_file_writer(str(tmp_path / "logs"))
    second = tf_summary.create_file_writer(str(tmp_path / "logs"))
    pattern = rf"events\.out\.tfevents\.(\d{{10}})\.{re.escape(socket.gethostname())}\.{os.getpid()}\.(\d+)\.v2"
    first_match = re.fullmatch(pattern, os.path.basename(first.event_file_path))
    second_match = re.fullmatch(pattern, os.path.basename(second.event_file_path))
    assert first_match and second_match
    assert int(second_match.group(2)) == int(first_match.group(2)) + 1
    events = read_events(first.event_file_path)  # written at creation, before any summary
    assert len(events) == 1 and events[0]["file_version"] == "brain.Event:2"
    assert events[0]["wall_time"] == int(first_match.group(1))
    assert tf_summary.create_file_writer(str(tmp_path), filename_suffix="abc").event_file_path.endswith(".abc")
    assert tf_summary.create_file_writer(str(tmp_path), filename_suffix=".x").event_file_path.endswith(".x")
    assert tf_summary.create_file_writer(str(tmp_path), filename_suffix="").event_file_path.endswith(".")


def test_events_are_queued_until_flushed(tmp_path):
    writer = tf_summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        tf_summary.scalar("a", 1.0, step=1)
        assert len(summaries(writer)) == 0
        tf_summary.flush()
        assert len(summaries(writer)) == 1
        tf_summary.scalar("b", 1.0, step=1)
    assert len(summaries(writer)) == 2  # leaving as_default flushes


def test_max_queue_bounds_the_events_kept_in_memory(tmp_path):
    writer = tf_summary.create_file_writer(str(tmp_path), max_queue=2)
    with writer.as_default(step=0):
        for expected_on_disk in (0, 0, 3):
            tf_summary.scalar("a", 1.0)
            assert len(summaries(writer)) == expected_on_disk


# -- eager summaries -------------------------------------------------------------------------------

def test_eager_summaries_of_every_plugin(tmp_path):
    writer = tf_summary.create_file_writer(str(tmp_path))
    pixels = np.random.RandomState(0).randint(0, 256, size=(4, 3, 5, 3)).astype(np.uint8)
    with writer.as_default():
        written = tf_summary.scalar("loss", 0.25, step=3, description="the loss")
        assert written.dtype == tf.bool and written.numpy()
        tf_summary.scalar("int_scalar", tf.constant(7, tf.int64), step=4)
        tf_summary.histogram("weights", [1.0, 2.0, 3.0, 10.0], step=5, buckets=3)
        tf_summary.text("notes", ["a", "b"], step=6)
        tf_summary.image("pictures", pixels, step=7, max_outputs=2)
    loss, int_scalar, weights, notes, pictures = summaries(writer)
    assert (loss["tag"], loss["step"], loss["plugin"], loss["description"]) == ("loss", 3, "scalars", "the loss")
    assert loss["value"].dtype == np.float32 and loss["value"].shape == () and loss["value"] == 0.25
    assert int_scalar["value"].dtype == np.float32 and int_scalar["value"] == 7
    assert (weights["plugin"], weights["value"].dtype) == ("histograms", np.float64)
    np.testing.assert_array_equal(weights["value"], [[1, 4, 3], [4, 7, 0], [7, 10, 1]])
    assert notes["plugin"] == "text" and notes["value"].tolist() == [b"a", b"b"]
    assert pictures["plugin"] == "images" and pictures["value"].shape == (4,)
    assert pictures["value"][:2].tolist() == [b"5", b"3"]  # width, then height
    for png, expected in zip(pictures["value"][2:], pixels):
        np.testing.assert_array_equal(decode_png(png), expected)
    assert loss["wall_time"] <= int_scalar["wall_time"] <= pictures["wall_time"]


def test_images_are_converted_to_8_bits_like_convert_image_dtype(tmp_path):
    writer = tf_summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=1):
        tf_summary.image("float", np.array([[[[-1.0], [0.5], [0.999], [2.0]]]], np.float32))
        tf_summary.image("int32", np.array([[[[0, 1 << 24, 1 << 30]]]], np.int32))
        tf_summary.image("int8", np.array([[[[-3, 5, 127]]]], np.int8))
    floats, wide, narrow = summaries(writer)
    assert decode_png(floats["value"][2]).ravel().tolist() == [0, 127, 255, 255]
    assert decode_png(wide["value"][2]).ravel().tolist() == [0, 2, 128]
    assert decode_png(narrow["value"][2]).ravel().tolist() == [0, 10, 254]


def test_histogram_bucket_edge_cases():
    buckets = tf_summary._histogram_buckets
    np.testing.assert_array_equal(buckets(np.array([]), 4), np.zeros((4, 3)))
    np.testing.assert_array_equal(buckets(np.array([2.0, 2.0, 2.0]), 3), [[2, 2, 0], [2, 2, 0], [2, 2, 3]])
    assert buckets(np.array([1.0, 2.0]), 0).shape == (0, 3)
    np.testing.assert_array_equal(buckets(np.arange(1, 6), 2), [[1, 3, 2], [3, 5, 3]])


def test_name_scopes_prefix_tags_and_are_not_made_unique(tmp_path):
    writer = tf_summary.create_file_writer(str(tmp_path))

    @tf.function
    def in_graph():
        with tf.name_scope("outer"):
            tf_summary.scalar("loss", 1.0, step=1)
            tf_summary.scalar("loss", 2.0, step=1)
        tf_summary.scalar("my loss:x", 3.0, step=1)

    with writer.as_default():
        with tf.name_scope("a"):
            with tf.name_scope("b"):
                tf_summary.scalar("c", 1.0, step=1)
        in_graph()
    assert [e["tag"] for e in summaries(writer)] == ["a/b/c", "outer/loss", "outer/loss", "my loss:x"]


# -- when nothing is written -------------------------------------------------------------------------

def test_without_a_default_writer_summaries_return_false_and_write_nothing(tmp_path):
    writer = tf_summary.create_file_writer(str(tmp_path))
    result = tf_summary.scalar("x", 1.0, step=1)
    assert isinstance(result, tf.Tensor) and result.dtype == tf.bool and not result.numpy()
    assert not tf_summary.histogram("h", [1.0], step=1).numpy()
    assert not tf_summary.should_record_summaries().numpy()
    with tf_summary.create_noop_writer().as_default(step=3):
        assert not tf_summary.scalar("x", 1.0).numpy()  # no step needed: nothing is recorded
        assert tf_summary.get_step() is None  # a noop writer does not set the step either
    assert tf.function(lambda: tf_summary.scalar("z", 1.0, step=1))().numpy() == np.False_
    writer.flush()
    assert summaries(writer) == []


def test_record_if_with_bools_callables_and_tensors(tmp_path):
    writer = tf_summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        assert tf_summary.should_record_summaries().numpy()
        with tf_summary.record_if(False):
            assert not tf_summary.scalar("off", 1.0).numpy()  # a static False needs no step
            assert not tf_summary.should_record_summaries().numpy()
        with tf_summary.record_if(lambda: False):
            assert not tf_summary.scalar("off", 1.0, step=1).numpy()
        with tf_summary.record_if(tf.constant(False)):
            assert not tf_summary.scalar("off", 1.0, step=1).numpy()
        with tf_summary.record_if(tf.constant(True)):
            assert tf_summary.scalar("on", 1.0, step=1).numpy()
    assert [e["tag"] for e in summaries(writer)] == ["on"]


# -- errors ----------------------------------------------------------------------------------------

def test_missing_step_is_a_value_error_eagerly_and_while_tracing(tmp_path):
    writer = tf_summary.create_file_writer(str(tmp_path))
    message = ("No step set. Please specify one either through the `step` argument or through "
               "tf.summary.experimental.set_step()")
    with writer.as_default():
        with pytest.raises(ValueError) as eager:
            tf_summary.scalar("x", 1.0)
        with pytest.raises(ValueError, match=re.escape(message)):
            tf.function(lambda: tf_summary.scalar("x", 1.0))()
    assert str(eager.value) == message


def test_bad_inputs_raise_tensorflows_errors(tmp_path):
    writer = tf_summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        with pytest.raises(TypeError, match="Cannot convert 2.7 to EagerTensor of dtype int64"):
            tf_summary.scalar("x", 1.0, step=2.7)
    with pytest.raises(ValueError, match=re.escape("Expected scalar shape, saw shape: (2,).")):
        tf_summary.scalar("x", [1.0, 2.0], step=1)  # checked even without a writer, as TensorFlow does
    with pytest.raises(TypeError, match="tensor must be of type tf.string; got tf.int32"):
        tf_summary.text("t", 3, step=1)
    with writer.as_default(step=1):
        with pytest.raises(ValueError, match=re.escape("Tensor  must have rank 4.  Received rank 3, shape (2, 2, 2)")):
            tf_summary.image("i", np.zeros((2, 2, 2)))
        with pytest.raises(errors.InvalidArgumentError, match="image must have 1, 2, 3, or 4 channels, got 5"):
            tf_summary.image("i", np.zeros((1, 1, 1, 5), np.float32))
    writer.close()
    writer.flush()  # flushing a closed writer is harmless
    with writer.as_default(step=1):
        with pytest.raises(errors.NotFoundError, match="does not exist"):
            tf_summary.scalar("x", 1.0)


# -- steps and default writers -------------------------------------------------------------------------

def test_default_writer_and_step_are_scoped(tmp_path):
    writer = tf_summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=7):
        assert tf_summary.get_step() == 7
        tf_summary.scalar("a", 1.0)
    assert tf_summary.get_step() is None
    assert not tf_summary.scalar("ignored", 1.0, step=1).numpy()
    writer.set_as_default(step=9)
    assert tf_summary.scalar("b", 1.0).numpy()
    tf_summary.flush()
    assert [(e["tag"], e["step"]) for e in summaries(writer)] == [("a", 7), ("b", 9)]


def _train_in_a_tf_function(logdir):
    """A training loop whose summaries are written from a traced function with a variable step."""
    writer = tf_summary.create_file_writer(logdir)
    step = tf.Variable(0, dtype=tf.int64)
    weight = tf.Variable(4.0)
    tf_summary.set_step(step)
    traces = []

    @tf.function
    def train_step(x):
        traces.append(1)
        with tf.GradientTape() as tape:
            loss = (weight * x - 2.0) ** 2
        weight.assign_sub(0.1 * tape.gradient(loss, weight))
        before = tf_summary.scalar("loss", loss)           # the step as it is now...
        step.assign_add(1)
        tf_summary.histogram("weight", weight, step=step)  # ...and after the increment
        with tf_summary.record_if(step % 2 == 0):
            recorded = tf_summary.scalar("every_other", weight)
        return before, recorded

    results = []
    with writer.as_default():
        for _ in range(4):
            results.append([r.numpy() for r in train_step(tf.constant(1.0))])
    writer.close()
    return writer, traces, results, weight


def test_summaries_from_a_tf_function_are_written_each_run_in_program_order(tmp_path):
    writer, traces, results, weight = _train_in_a_tf_function(str(tmp_path))
    assert len(traces) == 1
    assert results == [[True, False], [True, True], [True, False], [True, True]]
    events = summaries(writer)
    assert [(e["tag"], e["step"]) for e in events] == [
        ("loss", 0), ("weight", 1), ("loss", 1), ("weight", 2), ("every_other", 2),
        ("loss", 2), ("weight", 3), ("loss", 3), ("weight", 4), ("every_other", 4)]
    weights, w = [], 4.0
    for _ in range(4):
        loss = (w - 2.0) ** 2
        w -= 0.1 * 2 * (w - 2.0)
        weights.append((loss, w))
    losses = [e["value"] for e in events if e["tag"] == "loss"]
    np.testing.assert_allclose(losses, [loss for loss, _ in weights], rtol=1e-6)
    histograms = [e["value"] for e in events if e["tag"] == "weight"]
    np.testing.assert_allclose([h[-1] for h in histograms], [[w, w, 1.0] for _, w in weights], rtol=1e-6)
    assert all(e["plugin"] == "histograms" and e["value"].shape == (30, 3) for e in events if e["tag"] == "weight")
    assert weight.numpy() == pytest.approx(weights[-1][1])


# -- against real TensorFlow and TensorBoard (skipped where ~/venv-tf is missing) ---------------------------

@functools.lru_cache(maxsize=None)
def _missing_reference_packages():
    """Which of tensorflow/tensorboard the reference interpreter cannot import ('' when it has both)."""
    if not os.path.exists(TF_PYTHON):
        return "an interpreter at ~/venv-tf/bin/python"
    missing = []
    for package in ("tensorflow", "tensorboard"):
        probe = subprocess.run([TF_PYTHON, "-c", f"import {package}"], capture_output=True, timeout=300,
                               env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
        if probe.returncode != 0:
            missing.append(package)
    return " and ".join(missing)


def _run_real_tensorflow(script):
    missing = _missing_reference_packages()
    if missing:
        pytest.skip(f"the reference TensorFlow environment lacks {missing}")
    completed = subprocess.run([TF_PYTHON, "-c", textwrap.dedent(script)], capture_output=True, text=True,
                               timeout=300, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    if "NO_TENSORBOARD" in completed.stdout:
        pytest.skip("the tensorboard package is not installed next to TensorFlow")
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.strip().splitlines()[-1])


_TENSORBOARD_READER = """
    import json, sys
    try:
        from tensorboard.backend.event_processing import event_accumulator
    except ImportError:
        print("NO_TENSORBOARD"); sys.exit(0)
    import tensorflow as tf
    path = {path!r}
    # TFRecordDataset checks every record's CRCs and fails on a corrupt file.
    records = [r.numpy() for r in tf.data.TFRecordDataset(path)]
    first = tf.compat.v1.Event.FromString(records[0])
    accumulator = event_accumulator.EventAccumulator(path, size_guidance={{event_accumulator.TENSORS: 0}})
    accumulator.Reload()
    out = {{"file_version": first.file_version, "tags": {{}}}}
    for tag in accumulator.Tags()["tensors"]:
        plugin = accumulator.SummaryMetadata(tag).plugin_data.plugin_name
        events = [(e.step, tf.make_ndarray(e.tensor_proto)) for e in accumulator.Tensors(tag)]
        if plugin == "images":
            values = [[int(v[0]), int(v[1])] + [tf.io.decode_png(p).numpy().tolist() for p in v[2:]]
                      for _, v in events]
        else:
            values = [v.tolist() for _, v in events]
        out["tags"][tag] = {{"plugin": plugin, "steps": [s for s, _ in events], "values": values}}
    print(json.dumps(out, default=bytes.decode))
"""


def test_tensorboard_reads_the_event_file(tmp_path):
    writer, _, _, _ = _train_in_a_tf_function(str(tmp_path / "train"))
    with tf_summary.create_file_writer(str(tmp_path / "eager")).as_default(step=5) as eager_writer:
        tf_summary.text("notes", "hello")
        tf_summary.image("picture", np.arange(2 * 3 * 4, dtype=np.uint8).reshape(1, 2, 3, 4))
    seen = _run_real_tensorflow(_TENSORBOARD_READER.format(path=writer.event_file_path))
    assert seen["file_version"] == "brain.Event:2"
    assert seen["tags"]["loss"]["plugin"] == "scalars" and seen["tags"]["loss"]["steps"] == [0, 1, 2, 3]
    assert seen["tags"]["loss"]["values"][0] == pytest.approx(4.0)
    assert seen["tags"]["every_other"]["steps"] == [2, 4]
    assert seen["tags"]["weight"]["plugin"] == "histograms"
    assert np.array(seen["tags"]["weight"]["values"]).shape == (4, 30, 3)
    seen = _run_real_tensorflow(_TENSORBOARD_READER.format(path=eager_writer.event_file_path))
    assert seen["tags"]["notes"] == {"plugin": "text", "steps": [5], "values": ["hello"]}
    (picture,) = seen["tags"]["picture"]["values"]
    assert seen["tags"]["picture"]["plugin"] == "images" and picture[:2] == [3, 2]
    assert picture[2] == np.arange(24).reshape(2, 3, 4).tolist()


def _records_without_wall_time(path):
    """Each event's bytes after its leading wall_time field (tag byte 0x09 and 8 bytes of double)."""
    records = read_records(path)
    assert all(record[0] == 0x09 for record in records)
    return [record[9:].hex() for record in records]


def test_summary_records_match_tensorflows_bytes(tmp_path):
    data = np.random.RandomState(1).normal(size=50)

    def write_summaries(summary):
        summary.scalar("loss", 0.5, step=3, description="the loss")
        summary.scalar("count", 7, step=-2)
        summary.histogram("normal", data, step=4)
        summary.histogram("constant", [2.0, 2.0], step=4, buckets=4)
        summary.text("notes", ["a", "bc"], step=5)

    with tf_summary.create_file_writer(str(tmp_path / "ours")).as_default() as ours:
        with tf.name_scope("scope"):
            write_summaries(tf_summary)
    theirs = _run_real_tensorflow(f"""
        import glob, json, numpy as np, tensorflow as tf
        data = np.array({data.tolist()!r})
        with tf.summary.create_file_writer({str(tmp_path / "theirs")!r}).as_default():
            with tf.name_scope("scope"):
                tf.summary.scalar("loss", 0.5, step=3, description="the loss")
                tf.summary.scalar("count", 7, step=-2)
                tf.summary.histogram("normal", data, step=4)
                tf.summary.histogram("constant", [2.0, 2.0], step=4, buckets=4)
                tf.summary.text("notes", ["a", "bc"], step=5)
        print(json.dumps(glob.glob({str(tmp_path / "theirs" / "*")!r})))
    """)
    our_records = _records_without_wall_time(ours.event_file_path)
    their_records = _records_without_wall_time(theirs[0])
    assert our_records[1:] == their_records[1:]
    version_event = "1a0d" + b"brain.Event:2".hex()  # then source_metadata, which names the writer
    assert our_records[0].startswith(version_event) and their_records[0].startswith(version_event)


# -- graphs: tf.summary.graph and the trace API ------------------------------------------------------------

def _graph_events(path):
    """The serialized GraphDefs of an event file's graph events (Event field 4)."""
    return [_first(_fields(record), 4) for record in read_records(path) if _first(_fields(record), 4) is not None]


def _graph_def(data):
    from tensorflux._src.io.formats import attr_values
    graph_def = attr_values.messages().GraphDef()
    graph_def.ParseFromString(data)
    return graph_def


@tf.function
def _relu_plus_one(x):
    return tf.nn.relu(x) + 1.0


def test_graph_writes_the_graph_def_of_a_traced_function(tmp_path):
    pytest.importorskip("google.protobuf")
    writer = tf_summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        written = tf_summary.graph(_relu_plus_one.get_concrete_function(tf.TensorSpec([2])).graph)
    assert written.dtype == tf.bool and bool(written)
    (data,) = _graph_events(writer.event_file_path)
    graph_def = _graph_def(data)
    assert [(n.name, n.op) for n in graph_def.node][:2] == [("x", "Placeholder"), ("Relu", "Relu")]
    assert graph_def.node[1].attr["T"].type == tf.float32.as_datatype_enum
    with writer.as_default():  # a GraphDef message is written as it is
        assert bool(tf_summary.graph(graph_def))
    assert _graph_events(writer.event_file_path)[1] == graph_def.SerializeToString()


def test_graph_refuses_other_values_and_graph_contexts(tmp_path):
    pytest.importorskip("google.protobuf")
    writer = tf_summary.create_file_writer(str(tmp_path))
    with writer.as_default(), pytest.raises(ValueError, match="Argument 'graph_data' is not tf.Graph or "
                                                                r"tf.compat.v1.GraphDef. Received graph_data=3 of type int."):
        tf_summary.graph(3)
    graph = _relu_plus_one.get_concrete_function(tf.TensorSpec([2])).graph
    assert not bool(tf_summary.graph(graph))          # no default writer
    with writer.as_default(), tf_summary.record_if(False):
        assert not bool(tf_summary.graph(graph))

    @tf.function
    def inside():
        with writer.as_default():
            return tf_summary.graph(graph)

    with pytest.raises(ValueError, match="graph\\(\\) cannot be invoked inside a graph context."):
        inside()
    assert _graph_events(writer.event_file_path) == []


def _run_metadata_graphs(value):
    """The pre-optimization GraphDefs of a serialized RunMetadata (field 4 -> field 2)."""
    return [_graph_def(_first(_fields(entry), 2)) for field, entry in _fields(value) if field == 4]


def test_trace_export_writes_the_graphs_of_the_functions_called(tmp_path):
    pytest.importorskip("google.protobuf")
    from tensorflux._src.function.polymorphic import Function
    original_call = Function.__call__

    @tf.function
    def other(x):
        return tf.square(x)

    _relu_plus_one(tf.constant([1.0, 2.0]))       # traced before the trace starts: still recorded when run
    tf_summary.trace_on(graph=True, profiler=False)
    assert Function.__call__ is not original_call
    _relu_plus_one(tf.constant([1.0, -2.0]))
    _relu_plus_one(tf.constant([3.0, -2.0]))
    other(tf.constant(3.0))
    writer = tf_summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        assert tf_summary.trace_export(name="my_trace", step=3) is None
    assert Function.__call__ is original_call      # the trace is over: calls are not observed any more
    (event,) = summaries(writer)
    assert (event["tag"], event["step"], event["plugin"]) == ("my_trace", 3, "graph_run_metadata_graph")
    graphs = _run_metadata_graphs(event["value"][()])
    assert [[n.op for n in g.node] for g in graphs] == [["Placeholder", "Relu", "Const", "AddV2", "Identity"],
                                                        ["Placeholder", "Square", "Identity"]]
    with pytest.raises(ValueError, match="Must enable trace before export through tf.summary.trace_on."):
        tf_summary.trace_export("again", step=1)


def test_trace_export_without_writer_or_step(tmp_path):
    tf_summary.trace_on()
    assert tf_summary.trace_export("nothing", step=1) is None        # no writer: nothing written, trace over
    with pytest.raises(ValueError, match="Must enable trace"):
        tf_summary.trace_export("nothing", step=1)
    tf_summary.trace_on()
    writer = tf_summary.create_file_writer(str(tmp_path))
    with writer.as_default(), pytest.raises(ValueError, match="No step set"):
        tf_summary.trace_export("no_step")
    tf_summary.trace_off()   # the failed export left the trace on; trace_off ends it (and twice is harmless)
    tf_summary.trace_off()
    with pytest.raises(ValueError, match="Must enable trace"):
        tf_summary.trace_export("x", step=0)


_TENSORBOARD_GRAPHS = """
    import json, sys
    try:
        from tensorboard.backend.event_processing import event_accumulator
    except ImportError:
        print("NO_TENSORBOARD"); sys.exit(0)
    from tensorflow.core.protobuf import config_pb2
    out = {{}}
    for name, path in (("graph", {graph!r}), ("trace", {trace!r})):
        accumulator = event_accumulator.EventAccumulator(path, size_guidance={{event_accumulator.TENSORS: 0}})
        accumulator.Reload()
        tags = accumulator.Tags()
        out[name] = {{"has_graph": tags["graph"]}}
        if tags["graph"]:
            out[name]["nodes"] = [[n.name, n.op] for n in accumulator.Graph().node]
        for tag in tags["tensors"]:
            (event,) = accumulator.Tensors(tag)
            meta = config_pb2.RunMetadata.FromString(event.tensor_proto.string_val[0])
            out[name][tag] = {{"step": event.step,
                              "plugin": accumulator.SummaryMetadata(tag).plugin_data.plugin_name,
                              "graphs": [[n.op for n in f.pre_optimization_graph.node] for f in meta.function_graphs]}}
    print(json.dumps(out))
"""


def test_tensorboard_reads_graph_and_trace_events(tmp_path):
    pytest.importorskip("google.protobuf")
    graph_writer = tf_summary.create_file_writer(str(tmp_path / "graph"))
    with graph_writer.as_default():
        tf_summary.graph(_relu_plus_one.get_concrete_function(tf.TensorSpec([2])).graph)
    tf_summary.trace_on(graph=True)
    _relu_plus_one(tf.constant([1.0, -2.0]))
    trace_writer = tf_summary.create_file_writer(str(tmp_path / "trace"))
    with trace_writer.as_default():
        tf_summary.trace_export("step_trace", step=7)
    seen = _run_real_tensorflow(_TENSORBOARD_GRAPHS.format(graph=graph_writer.event_file_path,
                                                           trace=trace_writer.event_file_path))
    assert seen["graph"]["has_graph"]
    assert seen["graph"]["nodes"][:2] == [["x", "Placeholder"], ["Relu", "Relu"]]
    assert seen["trace"]["step_trace"] == {"step": 7, "plugin": "graph_run_metadata_graph",
                                           "graphs": [["Placeholder", "Relu", "Const", "AddV2", "Identity"]]}


def test_graph_def_views_and_trace_export_of_an_unexportable_graph(tmp_path):
    """`as_graph_def()` is TensorFlow's GraphDef protocol buffer, or the light node view for a graph holding
    an op TensorFlow's format lacks; trace_export writes the graphs it can and names the one left out."""
    import logging

    @tf.function
    def dropped(x):
        return tf.nn.dropout(x, 0.5, seed=1)      # training-mode Dropout: no TensorFlow GraphDef form

    @tf.function
    def doubled(x):
        return x * 2.0

    proto = doubled.get_concrete_function(tf.ones([4])).graph.as_graph_def()
    assert hasattr(proto, "SerializeToString") and [n.op for n in proto.node][:3] == ["Placeholder", "Const", "Mul"]
    view = dropped.get_concrete_function(tf.ones([4])).graph.as_graph_def()
    assert not hasattr(view, "SerializeToString") and "Dropout" in [n.op for n in view.node]

    messages = []

    class Keep(logging.Handler):
        def emit(self, record):
            messages.append(record.getMessage())

    handler = Keep()
    logging.getLogger("tensorflow").addHandler(handler)
    try:
        writer = tf.summary.create_file_writer(str(tmp_path))
        tf.summary.trace_on(graph=True)
        dropped(tf.ones([4]))
        doubled(tf.ones([4]))
        with writer.as_default():
            tf.summary.trace_export("both", step=0)
        writer.flush()
    finally:
        logging.getLogger("tensorflow").removeHandler(handler)
    assert any("left out" in m and "Dropout" in m for m in messages)
    assert any(name.startswith("events.out.tfevents") for name in os.listdir(tmp_path))


def test_audio_summaries_hold_tensorflows_wav_bytes(tmp_path):
    import hashlib
    writer = tf_summary.create_file_writer(str(tmp_path))
    clips = np.stack([np.sin(np.linspace(0, 20, 100)).reshape(50, 2) * s for s in (0.5, 1.0, 0.25, 0.1)])
    clips = clips.astype(np.float32)
    with writer.as_default():
        assert tf.summary.audio("clip", clips, 8000, step=3, max_outputs=2, description="two").numpy()
        tf.summary.audio("mono", clips[:1, :, :1], 16000, step=4)
        with pytest.raises(ValueError, match=r"^Tensor  must have rank 3\.  Received rank 2, shape \(50, 2\)$"):
            tf.summary.audio("b", clips[0], 8000, step=1)
        with pytest.raises(ValueError, match=r"^Unknown encoding: 'mp3'$"):
            tf.summary.audio("b", clips, 8000, step=1, encoding="mp3")
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Condition x >= 0 did not hold element-wise"):
            tf.summary.audio("b", clips, 8000, step=1, max_outputs=-1)
    clip, mono = summaries(writer)
    assert (clip["tag"], clip["step"], clip["plugin"], clip["description"]) == ("clip", 3, "audio", "two")
    # md5 prefixes of the WAV files TensorFlow 2.21 wrote for the same calls (the labels are empty)
    digests = [[hashlib.md5(b).hexdigest()[:8] for b in row] for row in clip["value"].tolist()]
    assert digests == [["790a23a8", "d41d8cd9"], ["e2006940", "d41d8cd9"]]
    assert [hashlib.md5(b).hexdigest()[:8] for b in mono["value"].ravel().tolist()] == ["e4ee6163", "d41d8cd9"]
    assert mono["value"].shape == (1, 2) and len(mono["value"][0, 0]) == 144
