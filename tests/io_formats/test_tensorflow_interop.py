"""Files written by tensorflux's formats room, read by real TensorFlow 2.21 (and tensorflux's schemas
compared with TensorFlow's). Runs when an interpreter with TensorFlow is found (TENSORFLOW_PYTHON, or
~/venv-tf/bin/python) and can import it; skipped otherwise."""
import json
import os
import subprocess

import pytest

pytest.importorskip("google.protobuf")

from tensorflux._src.io.formats import protos, tensor_bundle, tfrecord  # noqa: E402

from .fixture_values import CHECKPOINT_VARIABLES, EXAMPLES, RAW_RECORDS  # noqa: E402
from .test_formats import CKPT, variable_key  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FORMATS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tensorflux", "_src", "io", "formats")


def _tensorflow_python():
    for candidate in (os.environ.get("TENSORFLOW_PYTHON"), os.path.expanduser("~/venv-tf/bin/python")):
        if candidate and os.path.exists(candidate):
            probe = subprocess.run([candidate, "-c", "import tensorflow"], capture_output=True, timeout=300)
            if probe.returncode == 0:
                return candidate
    return None


def _shim(root):
    """A stand-in `tensorflux` package holding only the formats room, for TensorFlow's interpreter."""
    package = os.path.join(root, "tensorflux", "_src", "io")
    os.makedirs(package)
    for folder in ("tensorflux", "tensorflux/_src", "tensorflux/_src/io"):
        with open(os.path.join(root, folder, "__init__.py"), "w") as f:
            f.write('"""Stand-in for tests."""\n')
    os.symlink(FORMATS, os.path.join(package, "formats"))
    return root


def _write_files(work):
    with tensor_bundle.BundleReader(CKPT) as reader:
        graph = reader.read("_CHECKPOINTABLE_OBJECT_GRAPH")
    with tensor_bundle.BundleWriter(os.path.join(work, "ckpt")) as writer:
        writer.add("_CHECKPOINTABLE_OBJECT_GRAPH", graph)
        for name, value in CHECKPOINT_VARIABLES.items():
            writer.add(variable_key(name), value)
    for compression in ("", "GZIP", "ZLIB"):
        tfrecord.write_records(os.path.join(work, f"raw-{compression or 'none'}.tfrecord"), RAW_RECORDS,
                               compression)
    example_pb2 = protos.load("example")
    serialized = []
    for features in EXAMPLES:
        example = example_pb2.Example()
        for name, (kind, values) in features.items():
            getattr(example.features.feature[name], f"{kind}_list").value.extend(values)
        serialized.append(example.SerializeToString())
    tfrecord.write_records(os.path.join(work, "examples.tfrecord"), serialized)


@pytest.fixture(scope="module")
def tensorflow_findings(tmp_path_factory):
    python = _tensorflow_python()
    if python is None:
        pytest.skip("no interpreter with TensorFlow (set TENSORFLOW_PYTHON)")
    work = str(tmp_path_factory.mktemp("written"))
    shim = _shim(str(tmp_path_factory.mktemp("shim")))
    _write_files(work)
    findings = []
    for extra in ([], ["ours-first"]):
        run = subprocess.run([python, os.path.join(HERE, "tensorflow_side.py"), work, shim] + extra,
                             capture_output=True, text=True, timeout=900)
        lines = [line for line in run.stdout.splitlines() if line.startswith("RESULT ")]
        assert lines, run.stderr[-3000:]
        findings.append(json.loads(lines[-1][len("RESULT "):]))
    return findings


@pytest.mark.parametrize("check", ["checkpoint_values", "checkpoint_restore", "records_none", "records_GZIP",
                                   "records_ZLIB", "examples"])
def test_tensorflow_reads_what_tensorflux_wrote(tensorflow_findings, check):
    assert tensorflow_findings[0][check] == "ok"
    assert tensorflow_findings[1][check] == "ok"  # with tensorflux's modules imported before TensorFlow


def test_schemas_equal_tensorflows(tensorflow_findings):
    assert tensorflow_findings[0]["schemas"] == []


def test_both_message_sets_live_in_one_process(tensorflow_findings):
    assert tensorflow_findings[0]["coexistence"] == [2, 3]
    assert tensorflow_findings[1]["coexistence"] == [2, 3]
