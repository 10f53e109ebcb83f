"""A `Lambda` layer's function saves to `.keras` in Keras 3's `__lambda__` form (bytecode, for Keras to
read) and tensorflux refuses to load it: Keras's safe-mode message by default, the house rule (files are
data, never code) with `safe_mode=False`. Expected texts recorded from Keras 3.15."""
import base64
import json
import zipfile

import pytest

import tensorflux as tf

keras = tf.keras

KERAS_SAFE_MODE_MESSAGE = (
    "Requested the deserialization of a `Lambda` layer whose `function` is a Python lambda. This carries a "
    "potential risk of arbitrary code execution and thus it is disallowed by default. If you trust the source "
    "of the artifact, you can override this error by passing `safe_mode=False` to the loading function, or "
    "calling `keras.config.enable_unsafe_deserialization().")


def _saved(tmp_path, scale=3.0):
    model = keras.Sequential([keras.layers.Lambda(lambda t, k=2.0: tf.stack([t, t * k * scale], axis=1)),
                              keras.layers.Dense(units=1, kernel_initializer=tf.random.normal)])
    model(tf.constant([1.0, 2.0]))
    path = str(tmp_path / "lambda.keras")
    model.save(path)
    with zipfile.ZipFile(path) as archive:
        config = json.loads(archive.read("config.json"))
    return path, config


def test_lambda_function_is_written_as_keras_writes_it(tmp_path):
    _, config = _saved(tmp_path)
    lam, dense = config["config"]["layers"][1], config["config"]["layers"][2]
    assert (lam["module"], lam["class_name"]) == ("keras.layers", "Lambda")
    function = lam["config"]["function"]
    assert function["class_name"] == "__lambda__" and sorted(function["config"]) == ["closure", "code", "defaults"]
    code = function["config"]["code"]
    assert code.endswith("\n") and max(len(line) for line in code.splitlines()) == 76  # base64 lines, as Keras
    assert base64.decodebytes(code.encode("ascii"))[:1] == b"\xe3"  # a marshalled code object
    assert function["config"]["defaults"] == [2.0] and function["config"]["closure"] == [3.0]
    # Keras names a plain (unregistered) function by its name alone.
    assert dense["config"]["kernel_initializer"] == {
        "module": "builtins", "class_name": "function", "config": "normal", "registered_name": "function"}


def test_loading_a_lambda_is_refused_in_either_mode(tmp_path):
    path, _ = _saved(tmp_path)
    with pytest.raises(ValueError) as info:
        keras.models.load_model(path)
    assert str(info.value) == KERAS_SAFE_MODE_MESSAGE
    with pytest.raises(ValueError, match="never runs code from a file, even with `safe_mode=False`"):
        keras.models.load_model(path, safe_mode=False)
