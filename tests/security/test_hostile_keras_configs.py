"""Hostile Keras configs: class names come from the allow-list only, `safe_mode` refuses Lambda bytecode
with Keras' message, and sizes read from a config are capped (the file fuzz is in test_hostile_files.py)."""
import json
import zipfile

import pytest

import tensorflux as tf

keras = tf.keras


def _keras_config():
    inputs = keras.Input((3,))
    return json.loads(keras.Model(inputs, keras.layers.Dense(2)(inputs)).to_json())


def test_config_classes_come_from_the_allow_list_only(tmp_path):
    config = _keras_config()
    config["config"]["layers"][1].update({"module": "os", "class_name": "system", "registered_name": None,
                                          "config": {"command": "touch " + str(tmp_path / "SENTINEL")}})
    with pytest.raises(ValueError, match="Could not locate class 'system'"):
        keras.models.model_from_json(json.dumps(config))
    assert not (tmp_path / "SENTINEL").exists()
    config = _keras_config()
    config["config"]["layers"][1]["config"]["kernel_initializer"] = {"module": "builtins", "class_name": "eval",
                                                                     "config": {}, "registered_name": None}
    with pytest.raises(ValueError, match="Could not locate class 'eval'"):
        keras.models.model_from_json(json.dumps(config))


LAMBDA_MESSAGE = ("Requested the deserialization of a `Lambda` layer whose `function` is a Python lambda. This "
                  "carries a potential risk of arbitrary code execution and thus it is disallowed by default. If "
                  "you trust the source of the artifact, you can override this error by passing `safe_mode=False` "
                  "to the loading function, or calling `keras.config.enable_unsafe_deserialization().")


def test_safe_mode_refuses_lambda_bytecode_with_keras_message(tmp_path):
    config = _keras_config()
    config["config"]["layers"][1] = {
        "module": "keras.layers", "class_name": "Lambda", "registered_name": None, "name": "l", "inbound_nodes": [],
        "config": {"name": "l", "function": {"class_name": "__lambda__", "config": {"code": "4wEAAAA=",
                                                                                  "defaults": None,
                                                                                  "closure": None}}}}
    with pytest.raises(ValueError) as info:
        keras.models.model_from_json(json.dumps(config))
    assert str(info.value) == LAMBDA_MESSAGE
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    path = str(tmp_path / "m.keras")
    model.save(path)
    with zipfile.ZipFile(path) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    with zipfile.ZipFile(path, "w") as z:
        for name, data in entries.items():
            z.writestr(name, json.dumps(config) if name == "config.json" else data)
    with pytest.raises(ValueError) as info:
        keras.models.load_model(path)
    assert str(info.value) == LAMBDA_MESSAGE
    with pytest.raises(ValueError, match="never runs code from a file, even with `safe_mode=False`"):
        keras.models.load_model(path, safe_mode=False)
    with pytest.raises(ValueError) as info:
        keras.layers.Lambda.from_config(config["config"]["layers"][1]["config"])
    assert str(info.value) == LAMBDA_MESSAGE


def test_huge_build_shapes_are_capped():
    config = json.loads(keras.Sequential([keras.layers.Dense(2)]).to_json())
    for shapes in ([None, 100_000, 100_000], [[None, 3]] * 5000):
        config["build_config"] = {"input_shape": shapes}
        with pytest.raises(ValueError, match="exceed the limit of 16777216 elements"):
            keras.models.model_from_json(json.dumps(config))
    config["build_config"] = {"input_shape": [None, -3]}
    with pytest.raises(ValueError, match="negative dimension"):
        keras.models.model_from_json(json.dumps(config))
    config["build_config"] = {"input_shape": [None, 3]}
    assert keras.models.model_from_json(json.dumps(config)).built
