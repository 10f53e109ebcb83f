"""The public namespaces hold TensorFlow's names (and Keras 3's, under tf.keras), plus the documented
extensions below, and nothing leaked from the implementation (imported modules, internal rooms).

The reference lists were recorded from TensorFlow 2.21.0 and Keras 3.15 (`tests/reference/public_names.json`).
"""
import json
import os
import types

import pytest

import tensorflux as tf
import tensorflux.keras  # noqa: F401  (builds the tf.keras namespaces)
from tensorflux._src import namespaces

with open(os.path.join(os.path.dirname(__file__), "reference", "public_names.json")) as f:
    REFERENCE = json.load(f)

# tensorflux's own additions, each documented in the README.
EXTENSIONS = {
    "version": {"TENSORFLUX_VERSION"},           # tensorflux's release beside the TF API version
    "errors": {"InaccessibleTensorError"},       # the class TF raises for leaked tensors, which TF does not export
    # diagnostics beyond TensorFlow (docs/debugging.md)
    "debugging": {"compare_eager", "show", "enable_stale_capture_warnings", "disable_stale_capture_warnings"},
    "config.experimental": {"compare_with_eager"},
    "": {"onnx"},                                # tensorflux.onnx: ONNX export (beyond TensorFlow)
    "onnx": {"export"},
}


def _allowed(name):
    allowed = set(REFERENCE["tensorflow"].get(name, ()))
    if name == "keras" or name.startswith("keras."):
        # tf.keras is Keras 3: TF 2.21's tf.keras re-exports most of it; the rest is Keras 3's own API.
        allowed |= set(REFERENCE["keras"].get(name, ()))
    return allowed | EXTENSIONS.get(name, set())


def _public_namespaces():
    return {"": tf, **namespaces.NAMESPACES}


@pytest.mark.parametrize("name", sorted(_public_namespaces()))
def test_namespace_holds_only_tensorflow_names(name):
    module = _public_namespaces()[name]
    ours = {k for k in dir(module) if not k.startswith("_")}
    extra = sorted(ours - _allowed(name))
    assert not extra, f"tf.{name or '<top>'} exports names TensorFlow does not have there: {extra}"


@pytest.mark.parametrize("name", sorted(_public_namespaces()))
def test_no_module_leaks_into_a_namespace(name):
    module = _public_namespaces()[name]
    leaked = sorted(k for k in dir(module) if isinstance(getattr(module, k), types.ModuleType)
                    and not k.startswith("_") and (f"{name}.{k}" if name else k) not in namespaces.NAMESPACES)
    assert not leaked, f"tf.{name or '<top>'} holds modules that are not public namespaces: {leaked}"


def test_internal_rooms_are_not_public():
    for room in ("ops", "runtime", "framework", "function", "autodiff", "state", "checkpoint", "variables",
                 "module", "io_ops", "summary_events"):
        assert not hasattr(tf, room) or room in REFERENCE["tensorflow"][""], room
    assert not hasattr(tf.data, "dataset") and not hasattr(tf.summary, "np")


def test_version_is_the_tensorflow_api_version():
    assert tf.__version__ == tf.version.VERSION == "2.21.0"
    assert tf.version.GRAPH_DEF_VERSION >= tf.version.GRAPH_DEF_VERSION_MIN_CONSUMER
    assert isinstance(tf.version.TENSORFLUX_VERSION, str) and tf.version.GIT_VERSION
    for field in REFERENCE["tensorflow"]["version"]:
        assert hasattr(tf.version, field), field


def test_lazy_names_are_listed_and_made_on_first_read():
    # tf.train's protobuf message classes are lazy names (namespaces.lazy_names): listed by dir(), made on
    # first read and then cached on the namespace; unknown names still raise AttributeError.
    assert "Example" in dir(tf.train) and "Checkpoint" in dir(tf.train)
    assert tf.train.Example is tf.train.Example and "Example" in vars(tf.train)
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchMessage'"):
        tf.train.NoSuchMessage
