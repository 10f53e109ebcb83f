"""tf.image names added for TensorFlow 2.21 (YIQ/YUV, adjust_gamma, sobel_edges, ssim(_multiscale), the
stateless random adjustments, non-max suppression, crop_and_resize) against outputs recorded from TF 2.21."""
import json
import os

import numpy as np
import pytest

import tensorflux as tf
import image_extra_cases
from test_tnp_recorded import _compare
from tnp_cases import describe

with open(os.path.join(os.path.dirname(__file__), "image_extra_recorded.json")) as f:
    RECORDED = json.load(f)

CASES = image_extra_cases.cases(tf, np)


def test_every_case_is_recorded():
    assert sorted(CASES) == sorted(RECORDED)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_matches_tensorflow(name):
    expected = RECORDED[name]
    if "error" in expected:
        pytest.skip(f"TensorFlow raised {expected['error']}")
    _compare(describe(CASES[name]()), expected, name)


def test_ssim_gradient_and_tracing():
    a = tf.Variable(np.random.default_rng(0).uniform(size=(1, 8, 8, 1)).astype("float32"))
    b = tf.constant(np.random.default_rng(1).uniform(size=(1, 8, 8, 1)).astype("float32"))
    with tf.GradientTape() as tape:
        value = tf.reduce_sum(tf.image.ssim(a, b, 1.0, filter_size=3))
    assert tape.gradient(value, a).shape.as_list() == [1, 8, 8, 1]
    traced = tf.function(lambda x, y: tf.image.non_max_suppression(x, y, 2))
    boxes = tf.constant([[0.0, 0.0, 1.0, 1.0], [0.0, 0.05, 1.0, 1.05], [2.0, 2.0, 3.0, 3.0]])
    assert traced(boxes, tf.constant([0.9, 0.8, 0.7])).numpy().tolist() == [0, 2]


def test_is_jpeg_is_the_io_function():
    assert tf.image.is_jpeg is tf.io.is_jpeg and tf.image.extract_jpeg_shape is tf.io.extract_jpeg_shape
