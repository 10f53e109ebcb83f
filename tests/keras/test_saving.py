"""Whole-model saving: `.keras` files (Keras 3's layout) round-trip Sequential, functional and subclassed models
(their structure, weights, compile arguments and optimizer state); configs rebuild layers; unsavable things
fail clearly. Files exchanged with real Keras: tests/interop/test_interop_keras_files.py."""
import json
import zipfile

import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras
layers = keras.layers
RNG = np.random.default_rng(0)


def _same_predictions(a, b, x):
    for p, q in zip(tf.nest.flatten(a.predict(x, verbose=0)), tf.nest.flatten(b.predict(x, verbose=0))):
        np.testing.assert_array_equal(p, q)


def test_functional_round_trip_with_graph_operators_and_compile(tmp_path):
    a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
    c = layers.Concatenate()([a, b])
    h = layers.Dense(4, activation="tanh", kernel_regularizer="l2")(c)
    shared = layers.Dense(2, activation=tf.nn.relu)
    out = layers.Dense(1)(h) * 0.5 + a[:, :1]
    model = keras.Model({"a": a, "b": b}, [out, shared(h) - shared(layers.Dense(4)(c))])
    model.compile(optimizer=keras.optimizers.Adam(0.01, beta_1=0.8),
                  loss=["mse", keras.losses.MeanAbsoluteError()], metrics=[["mae"], []])
    x = {"a": RNG.standard_normal((8, 3)).astype("float32"), "b": RNG.standard_normal((8, 2)).astype("float32")}
    y = [RNG.standard_normal((8, 1)).astype("float32"), RNG.standard_normal((8, 2)).astype("float32")]
    model.fit(x, y, verbose=0)
    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    assert type(loaded).__name__ == "Functional"
    assert [layer.name for layer in loaded.layers] == [layer.name for layer in model.layers]
    _same_predictions(model, loaded, x)
    assert loaded.optimizer.get_config()["learning_rate"] == pytest.approx(0.01)
    assert float(loaded.optimizer.beta_1) == pytest.approx(0.8)
    assert len(loaded.losses) == 1       # the regularizer came back
    history = loaded.fit(x, y, verbose=0).history
    assert sorted(history) == ["dense_loss", "loss", "subtract_loss"] or "loss" in history
    assert int(loaded.optimizer.iterations.numpy()) == 2     # the optimizer state came back (then one more step)
    with zipfile.ZipFile(path) as archive:
        assert archive.namelist() == ["metadata.json", "config.json", "model.weights.h5"]
        assert all(info.compress_type == zipfile.ZIP_STORED for info in archive.infolist())    # as Keras writes
        config = json.loads(archive.read("config.json"))
        assert (config["module"], config["class_name"], config["registered_name"]) == \
            ("keras.src.models.functional", "Functional", "Functional")
        assert sorted(json.loads(archive.read("metadata.json"))) == ["date_saved", "keras_version"]


def test_sequential_built_by_a_call_and_nested_layers(tmp_path):
    model = keras.Sequential([layers.Dense(3, activation="relu"), layers.Dropout(0.2),
                              layers.BatchNormalization(), layers.Dense(1)])
    model(np.ones((2, 4), np.float32))
    path = str(tmp_path / "seq.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    assert len(loaded.weights) == len(model.weights) == 8
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_array_equal(model(x).numpy(), loaded(x).numpy())
    rnn = keras.Sequential([keras.Input((4, 3)), layers.Bidirectional(layers.LSTM(2, return_sequences=True)),
                            layers.GRU(2)])
    rnn.save(path)
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    np.testing.assert_array_equal(rnn(x).numpy(), keras.models.load_model(path)(x).numpy())


def test_subclassed_models_and_registered_layers(tmp_path):
    @keras.saving.register_keras_serializable(package="Tests")
    class Scale(layers.Layer):
        def __init__(self, factor, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

    class TwoLayers(keras.Model):
        def __init__(self, units):
            super().__init__()
            self.dense = layers.Dense(units)
            self.scale = Scale(3.0)

        def call(self, x):
            return self.scale(self.dense(x))

    model = TwoLayers(5)
    model(np.ones((1, 3), np.float32))
    path = str(tmp_path / "sub.keras")
    model.save(path)
    loaded = keras.models.load_model(path, custom_objects={"TwoLayers": TwoLayers})
    assert isinstance(loaded, TwoLayers) and loaded.dense.units == 5
    np.testing.assert_array_equal(model(np.ones((2, 3))).numpy(), loaded(np.ones((2, 3))).numpy())

    inputs = keras.Input((2,))
    functional = keras.Model(inputs, Scale(2.0, name="scale")(inputs))
    functional.save(path)
    assert keras.models.load_model(path).get_layer("scale").factor == 2.0


def test_layer_configs_rebuild_layers():
    dense = layers.Dense(3, activation="relu", use_bias=False, name="d")
    config = dense.get_config()
    assert config["units"] == 3 and config["activation"] == "relu" and config["name"] == "d"
    clone = layers.Dense.from_config(config)
    assert clone.units == 3 and clone.use_bias is False and clone.name == "d"
    data = keras.saving.serialize_keras_object(layers.Conv2D(4, (3, 3), padding="same"))
    rebuilt = keras.saving.deserialize_keras_object(json.loads(json.dumps(data)))
    assert type(rebuilt).__name__ == "Conv2D" and rebuilt.kernel_size == (3, 3) and rebuilt.padding == "same"


def test_what_cannot_be_saved_fails_clearly(tmp_path):
    model = keras.Sequential([keras.Input((2,)), layers.Lambda(lambda t: t * 2)])
    model.save(str(tmp_path / "m.keras"))  # written as Keras does; loading it is refused (test_lambda_saving.py)
    with pytest.raises(ValueError, match="Invalid filepath extension for saving"):
        model.save(str(tmp_path / "m.h5"))
    with pytest.raises(ValueError, match="File not found"):
        keras.models.load_model(str(tmp_path / "missing.keras"))
    (tmp_path / "bad.keras").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="is not a Keras 3 `.keras` model file"):
        keras.models.load_model(str(tmp_path / "bad.keras"))

    class Local(layers.Layer):
        def call(self, x):
            return x
    inputs = keras.Input((2,))
    keras.Model(inputs, Local()(inputs)).save(str(tmp_path / "local.keras"))
    with pytest.raises(ValueError, match="Could not locate class .*Local.*custom_objects"):
        keras.models.load_model(str(tmp_path / "local.keras"))


def test_clone_and_json_rebuild_the_structure_with_new_weights():
    inputs = keras.Input((3,))
    model = keras.Model(inputs, layers.Dense(2, activation="relu")(layers.Dense(4)(inputs)))
    for copy in (keras.models.clone_model(model), keras.models.model_from_json(model.to_json())):
        assert [type(layer).__name__ for layer in copy.layers] == ["InputLayer", "Dense", "Dense"]
        assert [w.shape.as_list() for w in copy.weights] == [w.shape.as_list() for w in model.weights]
        assert not np.array_equal(copy.get_weights()[0], model.get_weights()[0])   # fresh weights
        copy.set_weights(model.get_weights())
        x = RNG.standard_normal((2, 3)).astype(np.float32)
        np.testing.assert_array_equal(copy(x).numpy(), model(x).numpy())


def test_save_refuses_what_it_cannot_write(tmp_path):
    model = keras.Sequential([keras.Input((2,)), layers.Dense(1)])
    with pytest.raises(ValueError, match="When using `zipped=False`, the `filepath` argument should not end in"):
        model.save(str(tmp_path / "m.keras"), zipped=False)
    # a directory of the archive's entries, as Keras 3 writes it; saved again in place, then loaded
    model.save(str(tmp_path / "m_dir"), zipped=False)
    model.save(str(tmp_path / "m_dir"), zipped=False)
    assert sorted(p.name for p in (tmp_path / "m_dir").iterdir()) == ["assets", "config.json", "metadata.json",
                                                                      "model.weights.h5"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m_dir"]       # no staging directory left
    x = np.ones((2, 2), np.float32)
    np.testing.assert_array_equal(keras.models.load_model(str(tmp_path / "m_dir"))(x).numpy(), model(x).numpy())
    with pytest.raises(FileExistsError):
        model.save(str(tmp_path / "m_dir"), zipped=False, overwrite=False)
    with pytest.warns(UserWarning, match="The `save_format` argument is deprecated in Keras 3"):
        model.save(str(tmp_path / "m.keras"), save_format="keras")
    with pytest.raises(ValueError, match=r"The following argument\(s\) are not supported: \['compress'\]"):
        model.save(str(tmp_path / "m.keras"), compress=True)


def test_save_replaces_the_file_atomically_and_bad_archives_fail_clearly(tmp_path):
    path = tmp_path / "m.keras"
    model = keras.Sequential([keras.Input((2,)), layers.Dense(1)])
    model.save(str(path))
    model.set_weights([np.ones((2, 1), np.float32), np.zeros(1, np.float32)])
    model.save(str(path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.keras"]    # no temporary sibling left
    np.testing.assert_array_equal(keras.models.load_model(str(path)).get_weights()[0], np.ones((2, 1)))
    with zipfile.ZipFile(path) as archive:
        entries = {n: archive.read(n) for n in archive.namelist()}
    bomb = tmp_path / "bomb.keras"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, b" " * (8 << 20) if name == "config.json" else data)
    with pytest.raises(ValueError, match="refused as a zip bomb"):
        keras.models.load_model(str(bomb))
    cut = tmp_path / "cut.keras"
    cut.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(ValueError, match="is not a Keras 3 `.keras` model file"):
        keras.models.load_model(str(cut))


def test_custom_object_registry_scopes_and_unsafe_switch(tmp_path, monkeypatch):
    from tensorflux._src.keras.saving import object_registration

    @keras.saving.register_keras_serializable(package="Tests", name="Doubler")
    class Doubler(layers.Layer):
        def call(self, x):
            return x * 2

    assert keras.utils.get_custom_objects()["Tests>Doubler"] is Doubler
    assert keras.utils.get_registered_name(Doubler) == "Tests>Doubler"
    assert keras.utils.get_registered_object("Tests>Doubler") is Doubler
    assert keras.saving.get_registered_name(len) == "len"

    class NoConfig:
        pass
    with pytest.raises(ValueError, match="does not have a get_config"):
        keras.saving.register_keras_serializable()(NoConfig)

    class Halver(layers.Layer):         # not registered: found through a scope or `custom_objects` only
        def call(self, x):
            return x / 2
    inputs = keras.Input((2,))
    model = keras.Model(inputs, Halver()(Doubler()(inputs)))
    path = tmp_path / "custom.keras"
    model.save(path)
    with pytest.raises(ValueError, match="Could not locate class 'Halver'"):
        keras.models.load_model(path)
    with keras.utils.custom_object_scope({"Halver": Halver}):
        loaded = keras.models.load_model(path)
    assert [type(layer).__name__ for layer in loaded.layers] == ["InputLayer", "Doubler", "Halver"]
    np.testing.assert_array_equal(loaded(np.ones((1, 2), np.float32)).numpy(), np.ones((1, 2)))
    assert keras.utils.get_registered_object("Halver") is None      # the scope ended
    config = keras.layers.serialize(layers.Dense(2))
    assert config["module"] == "keras.layers" and keras.layers.deserialize(config).units == 2

    monkeypatch.setattr(object_registration, "_UNSAFE", [False])
    lambda_config = {"module": "keras.layers", "class_name": "Lambda", "registered_name": None,
                     "config": {"name": "l", "function": {"class_name": "__lambda__", "config": {"code": "AA=="}}}}
    with pytest.raises(ValueError, match="Requested the deserialization of a `Lambda` layer"):
        keras.saving.deserialize_keras_object(lambda_config)
    keras.config.enable_unsafe_deserialization()
    with pytest.raises(ValueError, match="never runs code from a file"):
        keras.saving.deserialize_keras_object(lambda_config)


def test_optimizer_state_and_schedules_round_trip(tmp_path):
    x = RNG.standard_normal((8, 3)).astype(np.float32)
    y = RNG.standard_normal((8, 1)).astype(np.float32)
    schedule = keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=2, decay_rate=0.5)
    for optimizer in (keras.optimizers.SGD(schedule, momentum=0.9), keras.optimizers.RMSprop(0.01, momentum=0.5),
                      keras.optimizers.Adam(0.01, amsgrad=True), keras.optimizers.Ftrl(0.1)):
        model = keras.Sequential([keras.Input((3,)), layers.Dense(2, activation="tanh"), layers.Dense(1)])
        model.compile(optimizer=optimizer, loss="mse")
        model.fit(x, y, epochs=2, batch_size=4, verbose=0)
        model.save(tmp_path / "m.keras")
        loaded = keras.models.load_model(tmp_path / "m.keras")
        assert type(loaded.optimizer) is type(optimizer)
        scheduled = not isinstance(optimizer.learning_rate, tf.Variable)   # then Keras saves no rate variable
        for i, (a, b) in enumerate(zip(optimizer.variables, loaded.optimizer.variables)):
            if not (scheduled and i == 1):
                np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        model.fit(x, y, epochs=1, batch_size=8, verbose=0, shuffle=False)
        loaded.fit(x, y, epochs=1, batch_size=8, verbose=0, shuffle=False)
        np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6, atol=1e-6)


def test_export_writes_a_servable_saved_model(tmp_path, capsys):
    model = keras.Sequential([keras.Input((4,)), layers.Dense(3, activation="tanh"), layers.Dense(1)])
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    model.export(str(tmp_path / "served"))
    printed = capsys.readouterr().out
    assert printed.startswith(f"Saved artifact at '{tmp_path / 'served'}'. The following endpoints are available:")
    assert "* Endpoint 'serve'" in printed and "TensorSpec(shape=(None, 4), dtype=tf.float32" in printed
    reloaded = tf.saved_model.load(str(tmp_path / "served"))
    np.testing.assert_allclose(reloaded.serve(x).numpy(), model(x).numpy(), rtol=1e-6, atol=1e-6)
    outputs = reloaded.signatures["serving_default"](tf.constant(x))
    np.testing.assert_allclose(outputs["output_0"].numpy(), model(x).numpy(), rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match=r"Unrecognized format=jax. Supported formats are"):
        model.export(str(tmp_path / "other"), format="jax")
    # a multi-input model exports too: tests/saved_model/test_multi_input_export.py


def test_clone_model_knows_the_models_own_classes():
    class Scale(layers.Layer):          # neither registered nor passed in custom_objects
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

    class Net(keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = layers.Dense(2)
            self.scale = Scale(3.0)

        def call(self, x):
            return self.scale(self.dense(x))

    model = Net()
    model(np.ones((1, 3), np.float32))
    twin = keras.models.clone_model(model)
    assert type(twin) is Net and twin.scale.factor == 3.0 and len(twin.weights) == 2
    inputs = keras.Input((3,))
    assert keras.models.clone_model(keras.Model(inputs, Scale(4.0)(inputs))).layers[1].factor == 4.0
