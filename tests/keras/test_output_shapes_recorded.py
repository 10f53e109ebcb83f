"""compute_output_shape and the symbolic output shapes (a keras.Input through the layer) of 70 built-in
layers against Keras 3.15 on TensorFlow 2.21 (fixtures/keras315_output_shapes.json, recorded with the same
arguments and input shapes): what model.summary() and functional models show."""
import json
import pathlib

import pytest

import tensorflux as tf

keras = tf.keras
K = keras.layers
RECORDED = json.loads((pathlib.Path(__file__).parent / "fixtures" / "keras315_output_shapes.json").read_text())
B = None
CASES = {
 "Dense": ((3,), (B, 5)), "EinsumDense": (("ab,bc->ac", 4), (B, 3)), "Conv1D": ((2, 3), (B, 10, 4)), "Conv2D": ((2, 3), (B, 9, 8, 3)),
 "Conv3D": ((2, 3), (B, 6, 7, 8, 2)), "Conv1DTranspose": ((2, 3), (B, 10, 4)), "Conv2DTranspose": ((2, 3), (B, 9, 8, 3)),
 "Conv3DTranspose": ((2, 3), (B, 6, 7, 8, 2)), "SeparableConv1D": ((2, 3), (B, 10, 4)), "SeparableConv2D": ((2, 3), (B, 9, 8, 3)),
 "DepthwiseConv1D": ((3,), (B, 10, 4)), "DepthwiseConv2D": ((3,), (B, 9, 8, 3)), "Embedding": ((10, 3), (B, 7)),
 "Dropout": ((0.5,), (B, 4)), "Reshape": (((2, 2),), (B, 4)), "Permute": (((2, 1),), (B, 3, 4)), "RepeatVector": ((3,), (B, 4)),
 "Cropping1D": ((), (B, 10, 3)), "Cropping2D": ((), (B, 9, 8, 3)), "Cropping3D": ((), (B, 6, 7, 8, 2)),
 "ZeroPadding1D": ((), (B, 10, 3)), "ZeroPadding2D": ((), (B, 9, 8, 3)), "ZeroPadding3D": ((), (B, 6, 7, 8, 2)),
 "UpSampling1D": ((), (B, 10, 3)), "UpSampling2D": ((), (B, 9, 8, 3)), "UpSampling3D": ((), (B, 6, 7, 8, 2)),
 "LSTM": ((2,), (B, 5, 3)), "GRU": ((2,), (B, 5, 3)), "SimpleRNN": ((2,), (B, 5, 3)),
 "Resizing": ((4, 5), (B, 9, 8, 3)), "CenterCrop": ((4, 5), (B, 9, 8, 3)), "Rescaling": ((0.5,), (B, 9, 8, 3)),
 "RandomCrop": ((4, 5), (B, 9, 8, 3)), "CategoryEncoding": ((3,), (B, 2)), "Hashing": ((4,), (B, 2)),
 "Normalization": ((), (B, 4)), "BatchNormalization": ((), (B, 4)), "LayerNormalization": ((), (B, 3, 4)),
 "GroupNormalization": ((), (B, 8, 32)), "UnitNormalization": ((), (B, 4)), "Activation": (("relu",), (B, 4)),
 "Flatten": ((), (B, 3, 4)), "GlobalAveragePooling1D": ((), (B, 10, 3)), "GlobalAveragePooling2D": ((), (B, 9, 8, 3)),
 "GlobalMaxPooling1D": ((), (B, 10, 3)), "GlobalMaxPooling2D": ((), (B, 9, 8, 3)), "GlobalAveragePooling3D": ((), (B, 6, 7, 8, 2)),
 "MaxPooling1D": ((), (B, 10, 3)), "MaxPooling2D": ((), (B, 9, 8, 3)), "MaxPooling3D": ((), (B, 6, 7, 8, 2)),
 "AveragePooling1D": ((2,), (B, 10, 3)), "AveragePooling2D": ((2,), (B, 9, 8, 3)), "AveragePooling3D": ((2,), (B, 6, 7, 8, 2)),
 "ConvLSTM2D": ((2, 3), (B, 4, 9, 8, 3)), "ConvLSTM1D": ((2, 3), (B, 4, 9, 3)),
 "ActivityRegularization": ((), (B, 4)), "ELU": ((), (B, 4)), "ReLU": ((), (B, 4)), "Softmax": ((), (B, 4)),
 "TimeDistributed": (None, (B, 5, 4)), "Bidirectional": (None, (B, 5, 3)), "Masking": ((), (B, 5, 3)),
 "SpatialDropout1D": ((0.5,), (B, 5, 3)), "SpatialDropout2D": ((0.5,), (B, 9, 8, 3)), "GaussianNoise": ((0.1,), (B, 4)),
 "Identity": ((), (B, 4)), "RandomFlip": ((), (B, 9, 8, 3)), "RandomRotation": ((0.1,), (B, 9, 8, 3)),
 "Discretization": (None, (B, 4)), "StringLookup": (None, (B, 2)),
}
MADE = {"TimeDistributed": lambda: K.TimeDistributed(K.Dense(2)),
        "Bidirectional": lambda: K.Bidirectional(K.LSTM(2, return_sequences=True)),
        "Discretization": lambda: K.Discretization(bin_boundaries=[0.0, 1.0]),
        "StringLookup": lambda: K.StringLookup(vocabulary=["a", "b"])}
INPUT_DTYPES = {"StringLookup": "string", "Embedding": "int32", "CategoryEncoding": "int32"}


def _json(value):
    return json.loads(json.dumps(value, default=str))


@pytest.mark.parametrize("name", sorted(CASES))
def test_output_shapes_are_keras(name):
    args, shape = CASES[name]
    layer = MADE[name]() if args is None else getattr(K, name)(*args)
    assert _json(layer.compute_output_shape(shape)) == RECORDED[name]
    y = layer(keras.Input(shape[1:], dtype=INPUT_DTYPES.get(name, "float32")))
    assert [list(t.shape) for t in (y if isinstance(y, (list, tuple)) else [y])] == RECORDED[name + ":symbolic"]
