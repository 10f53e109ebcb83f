"""Tensor bundles (TF2 checkpoints) against the checkpoint TensorFlow 2.21 wrote in fixtures/checkpoint:
exact values back, byte-identical files from the writer, and corruption raising TensorFlow's classes."""
import os
import shutil

import ml_dtypes
import numpy as np
import pytest

pytest.importorskip("google.protobuf")

from tensorflux._src.framework.errors import (DataLossError, NotFoundError, OutOfRangeError,  # noqa: E402
                                              UnimplementedError)
from tensorflux._src.io.formats import protos, sstable, tensor_bundle  # noqa: E402

from .fixture_values import CHECKPOINT_VARIABLES  # noqa: E402
from .test_formats import CKPT, assert_same_value, read_bytes, variable_key  # noqa: E402

GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
DATA = ".data-00000-of-00001"


def test_reads_every_variable_tensorflow_wrote():
    with tensor_bundle.BundleReader(CKPT) as reader:
        assert sorted(reader.keys()) == sorted([GRAPH_KEY] + [variable_key(n) for n in CHECKPOINT_VARIABLES])
        for name, expected in CHECKPOINT_VARIABLES.items():
            assert_same_value(reader.read(variable_key(name)), expected)
            assert reader.shape(variable_key(name)) == expected.shape
        graph = protos.load("trackable_object_graph").TrackableObjectGraph.FromString(reader.read(GRAPH_KEY).item())
        names = {child.local_name for child in graph.nodes[0].children}
        assert names == set(CHECKPOINT_VARIABLES)
        with pytest.raises(NotFoundError, match="Key nope not found in checkpoint"):
            reader.read("nope")


def test_writer_output_is_tensorflows_byte_for_byte(tmp_path):
    with tensor_bundle.BundleReader(CKPT) as reader:
        graph = reader.read(GRAPH_KEY)
    prefix = str(tmp_path / "ckpt")
    # TensorFlow adds the variables in key order and the object graph last.
    with tensor_bundle.BundleWriter(prefix) as writer:
        for name in sorted(CHECKPOINT_VARIABLES):
            writer.add(variable_key(name), CHECKPOINT_VARIABLES[name])
        writer.add(GRAPH_KEY, graph)
    for suffix in (".index", DATA):
        assert read_bytes(prefix + suffix) == read_bytes(CKPT + suffix)
    assert sorted(os.listdir(tmp_path)) == ["ckpt" + DATA, "ckpt.index"]


def test_round_trip_of_every_dtype_and_many_blocks(tmp_path):
    rng = np.random.default_rng(0)
    values = {f"v{i:03d}": rng.standard_normal((i % 5, 3)).astype(dtype) for i, dtype in enumerate(
        [np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint16, np.uint32, np.uint64,
         np.complex128, ml_dtypes.bfloat16, np.float16] * 30)}
    values["strings"] = np.array([[b"a", b"\x00\xff"], [b"", "\u00fc".encode()]], dtype=object)
    values["big"] = rng.standard_normal(100_000).astype(np.float32)  # the lane-parallel CRC path
    prefix = str(tmp_path / "ckpt")
    tensor_bundle.write_bundle(prefix, values)
    entries = sstable.read_table(read_bytes(prefix + ".index"))
    assert len(entries) == len(values) + 1
    with tensor_bundle.BundleReader(prefix) as reader:
        for key, value in values.items():
            assert_same_value(reader.read(key), value)


def _copy(tmp_path, index=None, data=None):
    prefix = str(tmp_path / "ckpt")
    with open(prefix + ".index", "wb") as f:
        f.write(read_bytes(CKPT + ".index") if index is None else index)
    with open(prefix + DATA, "wb") as f:
        f.write(read_bytes(CKPT + DATA) if data is None else data)
    return prefix


def _read_all(prefix):
    with tensor_bundle.BundleReader(prefix) as reader:
        return {key: reader.read(key) for key in reader.keys()}


def test_every_index_bit_flip_is_caught_or_harmless(tmp_path):
    original = _read_all(CKPT)
    index = read_bytes(CKPT + ".index")
    for position in range(len(index)):
        broken = bytearray(index)
        broken[position] ^= 1 << (position % 8)
        prefix = _copy(tmp_path, index=bytes(broken))
        try:
            got = _read_all(prefix)
        except DataLossError:
            continue
        # Only bytes no checksum covers (the footer's padding) may change without an error, and then
        # nothing read may differ.
        assert position >= len(index) - sstable.FOOTER_SIZE, position
        assert got.keys() == original.keys()
        for key in got:
            assert_same_value(got[key], original[key])


def test_every_data_bit_flip_is_data_loss(tmp_path):
    data = read_bytes(CKPT + DATA)
    with tensor_bundle.BundleReader(CKPT) as reader:
        spans = {key: (reader.entry(key).offset, reader.entry(key).size) for key in reader.keys()}
    for position in range(0, len(data), 3):
        broken = bytearray(data)
        broken[position] ^= 1 << (position % 8)
        prefix = _copy(tmp_path, data=bytes(broken))
        (key,) = [k for k, (start, size) in spans.items() if start <= position < start + size]
        with tensor_bundle.BundleReader(prefix) as reader:
            with pytest.raises(DataLossError, match="does not match|do not add up|bad string length"):
                reader.read(key)


def test_truncation(tmp_path):
    index = read_bytes(CKPT + ".index")
    for cut in (0, 10, len(index) // 2, len(index) - 1):
        with pytest.raises(DataLossError, match="sstable|Unable to read file"):
            tensor_bundle.BundleReader(_copy(tmp_path, index=index[:cut]))
    prefix = _copy(tmp_path, data=read_bytes(CKPT + DATA)[:100])
    with tensor_bundle.BundleReader(prefix) as reader:
        assert_same_value(reader.read(variable_key("brain")), CHECKPOINT_VARIABLES["brain"])
        with pytest.raises(OutOfRangeError, match="Read less bytes than requested"):
            reader.read(variable_key("weights"))


def test_missing_files(tmp_path):
    with pytest.raises(NotFoundError, match="No such file"):
        tensor_bundle.BundleReader(str(tmp_path / "nothing"))
    prefix = _copy(tmp_path)
    os.remove(prefix + DATA)
    with tensor_bundle.BundleReader(prefix) as reader:
        with pytest.raises(NotFoundError, match=r"data-00000-of-00001; No such file"):
            reader.read(variable_key("brain"))


def _forged_index(tmp_path, mutate):
    """A bundle whose index entries are rewritten by `mutate(key, entry)` (CRCs recomputed)."""
    pb = protos.load("tensor_bundle")
    entries = sstable.read_table(read_bytes(CKPT + ".index"))
    prefix = str(tmp_path / "forged")
    with open(prefix + ".index", "wb") as f:
        table = sstable.TableWriter(f)
        table.add(entries[0][0], entries[0][1])
        for key, value in entries[1:]:
            entry = pb.BundleEntryProto.FromString(value)
            mutate(key.decode(), entry)
            table.add(key, entry.SerializeToString())
        table.finish()
    shutil.copy(CKPT + DATA, prefix + DATA)
    return prefix


def test_forged_sizes_fail_before_allocating(tmp_path):
    def huge(key, entry):
        if key == variable_key("weights"):
            del entry.shape.dim[:]
            entry.shape.dim.add().size = 1 << 58
            entry.size = 4 << 58
    with tensor_bundle.BundleReader(_forged_index(tmp_path, huge)) as reader:
        with pytest.raises(OutOfRangeError, match="Read less bytes than requested"):
            reader.read(variable_key("weights"))

    def inconsistent(key, entry):
        if key == variable_key("weights"):
            entry.size = 8
    with pytest.raises(DataLossError, match="needs 24 bytes but the entry has 8"):
        tensor_bundle.BundleReader(_forged_index(tmp_path, inconsistent))

    def many_strings(key, entry):
        if key == variable_key("names"):
            entry.shape.dim[0].size = 1 << 50
    with tensor_bundle.BundleReader(_forged_index(tmp_path, many_strings)) as reader:
        with pytest.raises(DataLossError, match="cannot fit"):
            reader.read(variable_key("names"))

    def variant(key, entry):
        if key == variable_key("step"):
            entry.dtype = 21
    with tensor_bundle.BundleReader(_forged_index(tmp_path, variant)) as reader:
        with pytest.raises(UnimplementedError, match="variant"):
            reader.read(variable_key("step"))


def test_rewriting_a_prefix_commits_on_the_index_rename(tmp_path, monkeypatch):
    """A bundle written over an existing one names its data file differently (one shard of one, or shard 0
    of two with an empty shard 1), so until the new index replaces the old one the old index still finds
    its own data; the replaced data file is deleted only after that rename."""
    prefix = str(tmp_path / "same")
    tensor_bundle.write_bundle(prefix, {"v": np.arange(4.0)})
    tensor_bundle.write_bundle(prefix, {"v": np.arange(5.0)})
    assert sorted(os.listdir(tmp_path)) == ["same.data-00000-of-00002", "same.data-00001-of-00002", "same.index"]
    with tensor_bundle.BundleReader(prefix) as reader:
        assert reader.header.num_shards == 2 and reader.read("v").tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    real_replace = os.replace

    def replace_but_not_the_index(source, target):
        if str(target).endswith(".index"):
            raise KeyboardInterrupt("killed before the commit")
        return real_replace(source, target)

    monkeypatch.setattr(os, "replace", replace_but_not_the_index)
    with pytest.raises(KeyboardInterrupt):
        tensor_bundle.write_bundle(prefix, {"v": np.arange(6.0)})
    monkeypatch.undo()
    with tensor_bundle.BundleReader(prefix) as reader:   # the previous bundle, whole
        assert reader.read("v").tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    tensor_bundle.write_bundle(prefix, {"v": np.arange(6.0)})
    assert sorted(os.listdir(tmp_path)) == ["same.data-00000-of-00001", "same.index"]
    with tensor_bundle.BundleReader(prefix) as reader:
        assert reader.header.num_shards == 1 and reader.read("v").tolist() == list(np.arange(6.0))


def test_temporaries_of_dead_writers_are_removed_by_the_next_write(tmp_path):
    import subprocess
    import sys
    dead = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True).stdout)
    prefix = str(tmp_path / "b")
    stale = [f".b.index.saving-{dead}-a1", f".b.data-00000-of-00001.saving-{dead}-zz"]
    kept = [f".b.index.saving-{os.getpid()}-mine", f".c.index.saving-{dead}-a1", ".b.index.saving-1-"]
    for name in stale + kept:
        (tmp_path / name).write_bytes(b"x")
    tensor_bundle.write_bundle(prefix, {"v": np.zeros(2)})
    left = set(os.listdir(tmp_path))
    assert not left & set(stale) and set(kept) <= left
