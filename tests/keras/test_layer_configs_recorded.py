"""`get_config()` of the built-in layers, key order and values, against Keras 3.15 (on TensorFlow 2.21)
for the same constructor arguments: tests/keras/fixtures/keras315_layer_configs.json holds what Keras
returned (serialized to JSON; layer names left out, as their counters differ; RandomCrop's seed, which
Keras draws, too; a Lambda's marshalled code, which names the file it was made in). A constructor Keras refuses is recorded with its error and must fail the same way."""
import json
import pathlib

import pytest

import tensorflux as tf

K = tf.keras.layers
RECORDED = json.loads((pathlib.Path(__file__).parent / "fixtures" / "keras315_layer_configs.json").read_text())

# Positional arguments of each layer's constructor (None: made from other layers below).
ARGUMENTS = {
    "Dense": (3,), "EinsumDense": ("ab,bc->ac", 4), "Conv1D": (2, 3), "Conv2D": (2, 3), "Conv3D": (2, 3),
    "Conv1DTranspose": (2, 3), "Conv2DTranspose": (2, 3), "Conv3DTranspose": (2, 3), "SeparableConv1D": (2, 3),
    "SeparableConv2D": (2, 3), "DepthwiseConv1D": (3,), "DepthwiseConv2D": (3,), "Embedding": (10, 3),
    "Dropout": (0.5,), "SpatialDropout1D": (0.5,), "SpatialDropout2D": (0.5,), "SpatialDropout3D": (0.5,),
    "GaussianNoise": (0.1,), "GaussianDropout": (0.1,), "AlphaDropout": (0.1,), "Reshape": ((2, 2),),
    "Permute": ((2, 1),), "RepeatVector": (3,), "Masking": (), "Cropping1D": (), "Cropping2D": (),
    "Cropping3D": (), "ZeroPadding1D": (), "ZeroPadding2D": (), "ZeroPadding3D": (), "UpSampling1D": (),
    "UpSampling2D": (), "UpSampling3D": (), "LSTM": (2,), "GRU": (2,), "SimpleRNN": (2,), "LSTMCell": (2,),
    "GRUCell": (2,), "SimpleRNNCell": (2,), "MultiHeadAttention": (2, 4), "Attention": (), "AdditiveAttention": (),
    "Resizing": (4, 4), "CenterCrop": (4, 4), "Rescaling": (0.5,), "RandomCrop": (4, 4), "RandomFlip": (),
    "RandomRotation": (0.1,), "RandomZoom": (0.1,), "RandomTranslation": (0.1, 0.1), "RandomContrast": (0.1,),
    "RandomBrightness": (0.1,), "Discretization": (), "CategoryEncoding": (3,), "Hashing": (4,),
    "IntegerLookup": (), "StringLookup": (), "TextVectorization": (), "HashedCrossing": (4,),
    "Normalization": (), "BatchNormalization": (), "LayerNormalization": (), "GroupNormalization": (),
    "UnitNormalization": (), "Activation": ("relu",), "ActivityRegularization": (), "Flatten": (),
    "GlobalAveragePooling1D": (), "GlobalAveragePooling2D": (), "GlobalMaxPooling1D": (), "GlobalMaxPooling2D": (),
    "MaxPooling1D": (), "MaxPooling2D": (), "AveragePooling1D": (), "AveragePooling2D": (),
    "Concatenate": (), "Add": (), "Multiply": (), "Average": (), "Maximum": (), "Minimum": (), "Subtract": (),
    "Dot": (1,), "ELU": (), "ReLU": (), "LeakyReLU": (), "PReLU": (), "Softmax": (), "Identity": (),
    "Lambda": (lambda x: x,), "ConvLSTM1D": (2, 3), "ConvLSTM2D": (2, 3),
    "TimeDistributed": None, "Bidirectional": None, "RNN": None, "StackedRNNCells": None,
    "SpectralNormalization": None,
}
NOT_IMPLEMENTED = set()


def _make(name):
    cls = getattr(K, name)
    arguments = ARGUMENTS[name]
    if arguments is not None:
        return cls(*arguments)
    inner = {"TimeDistributed": lambda: K.Dense(2), "Bidirectional": lambda: K.LSTM(2),
             "RNN": lambda: K.SimpleRNNCell(2), "StackedRNNCells": lambda: [K.SimpleRNNCell(2)],
             "SpectralNormalization": lambda: K.Dense(2)}[name]
    return cls(inner())


def _json(value):
    return json.loads(json.dumps(value, default=lambda o: f"<unserialized {type(o).__name__}>"))


def _without_names(value):
    if isinstance(value, dict):
        return {k: _without_names(v) for k, v in value.items() if k != "name"}
    if isinstance(value, list):
        return [_without_names(v) for v in value]
    return value


def _cases():
    for name in sorted(RECORDED):
        marks = [pytest.mark.xfail(strict=True, raises=AttributeError, reason="not implemented in tensorflux")] \
            if name in NOT_IMPLEMENTED else []
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", list(_cases()))
def test_get_config_is_keras(name):
    recorded = RECORDED[name]
    if "error" in recorded:
        kind, message = recorded["error"].split(": ", 1)
        with pytest.raises(getattr(__builtins__, kind, None) or Exception, match=None) as info:
            _make(name)
        assert type(info.value).__name__ == kind and str(info.value) == message
        return
    config = _make(name).get_config()
    assert list(config) == recorded["keys"]
    values = _without_names(_json({k: v for k, v in config.items() if k != "name"}))
    expected = _without_names(recorded["values"])
    if name == "RandomCrop":
        values.pop("seed")
    if name == "Lambda":     # the function's marshalled code names the file it was written in
        values["function"]["config"].pop("code")
        expected["function"]["config"].pop("code")
    assert values == expected


# Built layers (layer.build(shape)): a wrapper's inner layers carry their build_config, with the shapes
# Keras built them for (TimeDistributed: the batch size, then the step's shape).
BUILT = {"TimeDistributed": lambda: K.TimeDistributed(K.Dense(2)), "Bidirectional": lambda: K.Bidirectional(K.LSTM(2)),
         "RNN": lambda: K.RNN(K.LSTMCell(2)), "RNN_stacked": lambda: K.RNN([K.LSTMCell(2), K.GRUCell(3)]),
         "Dense": lambda: K.Dense(3), "Conv2D": lambda: K.Conv2D(2, 3), "LSTM": lambda: K.LSTM(2)}
BUILT_RECORDED = json.loads((pathlib.Path(__file__).parent / "fixtures" / "keras315_built_layer_configs.json")
                            .read_text())


@pytest.mark.parametrize("name", sorted(BUILT))
def test_get_config_of_built_layers_is_keras(name):
    recorded = BUILT_RECORDED[name]
    layer = BUILT[name]()
    layer.build(tuple(recorded["shape"]))
    assert _without_names(json.loads(json.dumps(layer.get_config(), default=str))) == \
        _without_names(recorded["config"])
