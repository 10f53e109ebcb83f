"""tf.io.encode_jpeg(progressive=True) against TensorFlow 2.21's bytes (fixtures/jpeg_progressive.npz, made by
make_jpeg_progressive.py from the same images): libjpeg-turbo's progressive script with per-scan optimal
Huffman tables, for 4:2:0, 4:4:4 and grayscale images, odd sizes, quality 1-100, and the other options."""
import os

import numpy as np
import pytest

import tensorflux as tf
from io_formats.make_jpeg_progressive import CASES, images


@pytest.fixture(scope="module")
def recorded():
    return np.load(os.path.join(os.path.dirname(__file__), "fixtures", "jpeg_progressive.npz"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_progressive_bytes_are_tensorflows(name, recorded):
    image_name, kwargs = CASES[name]
    image = images()[image_name]
    got = tf.io.encode_jpeg(image, progressive=True, **kwargs).numpy()
    assert got == recorded[name].tobytes()
    assert got[:2] == b"\xff\xd8" and b"\xff\xc2" in got
    # the same coefficients as the baseline file: the decoded pixels are the baseline file's
    baseline = tf.io.encode_jpeg(image, **kwargs)
    np.testing.assert_array_equal(tf.io.decode_jpeg(got).numpy(), tf.io.decode_jpeg(baseline).numpy())


def test_progressive_inside_tf_function(recorded):
    encode = tf.function(lambda image: tf.io.encode_jpeg(image, progressive=True))
    assert encode(tf.constant(images()["noisy_rgb"])).numpy() == recorded["noisy_rgb_q95"].tobytes()
