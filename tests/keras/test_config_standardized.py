"""Arguments Keras 3 standardizes before writing a layer's config (N-tuples for the windows and steps of N-D
layers, data_format None as "channels_last", paddings/croppings as pairs per axis, a pooling layer's strides
as its pool size, Normalization's axis as a tuple, MultiHeadAttention's value_dim as key_dim): tensorflux's
get_config() writes the same values. Expected values recorded with TensorFlow 2.21 + Keras 3.15 (JSON form:
tuples as lists)."""
import json

import pytest

import tensorflux as tf

layers = tf.keras.layers

CASES = [
    (lambda: layers.Conv2D(2, (3, 1), strides=2, dilation_rate=1),
     {'kernel_size': [3, 1],
       'strides': [2, 2],
       'dilation_rate': [1, 1],
       'padding': 'valid',
       'data_format': 'channels_last'}),
    (lambda: layers.Conv1D(2, 3, strides=2),
     {'kernel_size': [3], 'strides': [2], 'dilation_rate': [1], 'padding': 'valid', 'data_format': 'channels_last'}),
    (lambda: layers.MaxPooling2D((2, 3), strides=1),
     {'strides': [1, 1], 'pool_size': [2, 3], 'padding': 'valid', 'data_format': 'channels_last'}),
    (lambda: layers.MaxPooling1D(3),
     {'strides': [3], 'pool_size': [3], 'padding': 'valid', 'data_format': 'channels_last'}),
    (lambda: layers.ZeroPadding2D(((1, 2), (3, 4))),
     {'padding': [[1, 2], [3, 4]], 'data_format': 'channels_last'}),
    (lambda: layers.ZeroPadding2D(2),
     {'padding': [[2, 2], [2, 2]], 'data_format': 'channels_last'}),
    (lambda: layers.ZeroPadding2D((1, 2)),
     {'padding': [[1, 1], [2, 2]], 'data_format': 'channels_last'}),
    (lambda: layers.ZeroPadding1D(2),
     {'padding': [2, 2], 'data_format': 'channels_last'}),
    (lambda: layers.Cropping2D(1),
     {'cropping': [[1, 1], [1, 1]], 'data_format': 'channels_last'}),
    (lambda: layers.Cropping1D(1),
     {'cropping': [1, 1]}),
    (lambda: layers.Cropping3D(1),
     {'cropping': [[1, 1], [1, 1], [1, 1]], 'data_format': 'channels_last'}),
    (lambda: layers.UpSampling2D(2),
     {'size': [2, 2], 'data_format': 'channels_last'}),
    (lambda: layers.UpSampling1D(2),
     {'size': 2}),
    (lambda: layers.UpSampling3D(2),
     {'size': [2, 2, 2], 'data_format': 'channels_last'}),
    (lambda: layers.Conv3D(2, 3),
     {'kernel_size': [3, 3, 3],
       'strides': [1, 1, 1],
       'dilation_rate': [1, 1, 1],
       'padding': 'valid',
       'data_format': 'channels_last'}),
    (lambda: layers.AveragePooling3D(2),
     {'strides': [2, 2, 2], 'pool_size': [2, 2, 2], 'padding': 'valid', 'data_format': 'channels_last'}),
    (lambda: layers.SeparableConv1D(2, 3),
     {'kernel_size': [3], 'strides': [1], 'dilation_rate': [1], 'padding': 'valid', 'data_format': 'channels_last'}),
    (lambda: layers.DepthwiseConv2D(3, strides=2),
     {'kernel_size': [3, 3],
       'strides': [2, 2],
       'dilation_rate': [1, 1],
       'padding': 'valid',
       'data_format': 'channels_last'}),
    (lambda: layers.Normalization(axis=1),
     {'axis': [1]}),
    (lambda: layers.Normalization(axis=None),
     {'axis': []}),
    (lambda: layers.MultiHeadAttention(2, 3),
     {'value_dim': 3}),
    (lambda: layers.MultiHeadAttention(2, 3, value_dim=4),
     {'value_dim': 4}),
    (lambda: layers.Conv2DTranspose(2, 3, output_padding=1, strides=2),
     {'kernel_size': [3, 3],
       'strides': [2, 2],
       'dilation_rate': [1, 1],
       'padding': 'valid',
       'output_padding': [1, 1],
       'data_format': 'channels_last'}),
    (lambda: layers.Conv1DTranspose(2, 3),
     {'kernel_size': [3],
       'strides': [1],
       'dilation_rate': [1],
       'padding': 'valid',
       'output_padding': None,
       'data_format': 'channels_last'}),
    (lambda: layers.GlobalMaxPooling1D(),
     {'data_format': 'channels_last'}),
    (lambda: layers.ZeroPadding3D(1),
     {'padding': [[1, 1], [1, 1], [1, 1]], 'data_format': 'channels_last'}),
]


@pytest.mark.parametrize("make, expected", CASES)
def test_config_arguments_standardized_as_keras(make, expected):
    config = json.loads(json.dumps(make().get_config()))
    assert {k: config[k] for k in expected} == expected
    assert set(expected) <= set(config)
