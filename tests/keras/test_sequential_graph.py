"""A Sequential whose input is known gets a graph as Keras 3 gives it: inputs/outputs, input/output shapes,
get_layer, and `input`/`output` on its layers (usable to build feature-extraction models)."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras
layers = keras.layers


def test_unbuilt_sequential_and_uncalled_layer_raise_attribute_errors():
    model = keras.Sequential([layers.Dense(2)])
    for attribute, what in (("inputs", "inputs"), ("outputs", "outputs"), ("input_shape", "input shape"),
                            ("output_shape", "output shape")):
        with pytest.raises(AttributeError, match=f"has no defined {what} yet"):
            getattr(model, attribute)
    with pytest.raises(AttributeError, match="has never been called and thus has no defined output"):
        layers.Dense(2).output
    with pytest.raises(AttributeError, match="has never been called and thus has no defined input"):
        model.input


def test_sequential_started_with_input_has_a_graph():
    start = keras.Input((3,))
    model = keras.Sequential([start, layers.Dense(4, name="first"), layers.Dense(2, name="second")])
    assert model.inputs == [start] and model.input_shape == (None, 3)
    assert model.output_shape == (None, 2) and model.outputs[0].shape == (None, 2)
    first = model.get_layer("first")
    assert first is model.get_layer(index=0)
    assert first.input is start and first.output.shape == (None, 4)
    with pytest.raises(ValueError, match=r"No such layer: zz. Existing layers are: \['first', 'second'\]"):
        model.get_layer("zz")
    with pytest.raises(ValueError, match="index 5 but model only has 2 layers"):
        model.get_layer(index=5)
    model.pop()
    assert model.output_shape == (None, 4)


def test_feature_extractor_from_sequential_layers():
    base = keras.Sequential([keras.Input((5,)), layers.Dense(4), layers.Dense(3, name="mid"), layers.Dense(2)])
    extractor = keras.Model(inputs=base.inputs, outputs=[layer.output for layer in base.layers])
    x = np.ones((2, 5), "float32")
    features = extractor(x)
    assert [tuple(f.shape) for f in features] == [(2, 4), (2, 3), (2, 2)]
    np.testing.assert_allclose(features[-1].numpy(), base(x).numpy(), rtol=1e-6)
    mid = keras.Model(base.inputs, base.get_layer("mid").output)
    assert [layer.name for layer in mid.layers][1:] == [base.layers[0].name, "mid"]


class CountingModel(keras.Model):
    steps = 0

    def train_step(self, data):
        CountingModel.steps += 1
        return super().train_step(data)


class SelfBuilt(keras.Model):
    def __init__(self):
        inputs = keras.Input((3,))
        super().__init__(inputs=inputs, outputs=layers.Dense(1)(inputs))
        self.note = "kept"


def test_model_subclasses_built_functionally_keep_their_methods():
    inputs = keras.Input((3,))
    model = CountingModel(inputs, layers.Dense(1)(inputs))
    assert type(model).__name__ == "CountingModel" and isinstance(model, CountingModel)
    assert [layer.name for layer in model.layers][1:] == [model.layers[1].name] and model.inputs == [inputs]
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 3), "float32"), np.ones((4, 1), "float32"), batch_size=2, verbose=0)
    assert CountingModel.steps >= 1
    built = SelfBuilt()
    assert built.note == "kept" and built(np.ones((2, 3), "float32")).shape == (2, 1)
    assert type(built).__name__ == "SelfBuilt" and len(built.layers) == 2
