"""tf.io.decode_webp / tf.image.decode_webp / decode_image of WebP files against TensorFlow 2.21's pixels
(fixtures/webp_pixels.npz, made by make_webp_fixture.py: lossless and lossy files with and without alpha,
RGBA animations), and TensorFlow's errors. The pixels come from libwebp through Pillow (the [io] extra)."""
import os

import numpy as np
import pytest

import tensorflux as tf

pytest.importorskip("PIL", reason='WebP decoding needs Pillow: pip install "tensorflux[io]"')
FIXTURES = np.load(os.path.join(os.path.dirname(__file__), "fixtures", "webp_pixels.npz"))
STILLS = ["lossless_rgb", "lossless_rgba", "lossy_rgb", "lossy_rgba", "lossy_rgb_q30"]
ANIMATIONS = ["anim_rgba_lossless", "anim_rgba_lossy"]


def blob(name):
    return FIXTURES[name].tobytes()


@pytest.mark.parametrize("name", STILLS + ANIMATIONS)
def test_decode_webp_gives_tensorflows_frames(name):
    expected = FIXTURES[name + "_webp"]
    got = tf.io.decode_webp(blob(name))
    assert got.dtype == tf.uint8 and got.shape == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected)
    np.testing.assert_array_equal(tf.io.decode_webp(blob(name), channels=expected.shape[-1]).numpy(), expected)
    assert tf.image.decode_webp is tf.io.decode_webp


@pytest.mark.parametrize("name", STILLS + ANIMATIONS)
def test_decode_image_of_webp(name):
    # expand_animations=True gives [frames, h, w, c] even for a still WebP, as TensorFlow does
    np.testing.assert_array_equal(tf.io.decode_image(blob(name)).numpy(), FIXTURES[name + "_image"])
    still = tf.io.decode_image(blob(name), expand_animations=False)
    np.testing.assert_array_equal(still.numpy(), FIXTURES[name + "_image_still"])
    assert still.shape.rank == 3
    as_float = tf.io.decode_image(blob(name), dtype=tf.float32, expand_animations=False)
    np.testing.assert_array_equal(as_float.numpy(), FIXTURES[name + "_image_still"].astype(np.float32)
                                  * np.float32(1 / 255))


def test_channel_requests_must_match_the_file():
    for name, wrong in [("lossy_rgb", 4), ("lossless_rgba", 3), ("anim_rgba_lossy", 3)]:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Number of channels requested does not match input"):
            tf.io.decode_webp(blob(name), channels=wrong)
    for op in (tf.io.decode_webp, tf.io.decode_image):
        with pytest.raises(tf.errors.InvalidArgumentError, match="WebP only supports 3 or 4 channels"):
            op(blob("lossy_rgb"), channels=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="`channels` must be 0, 1, 3 or 4 but got 2"):
        tf.io.decode_webp(blob("lossy_rgb"), channels=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="'dtype' of float32 is not in the list of allowed "
                                                             "values: uint8"):
        tf.io.decode_webp(blob("lossy_rgb"), dtype=tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"`contents` must be scalar but got shape\[2\]"):
        tf.io.decode_webp([blob("lossy_rgb")] * 2)


@pytest.mark.parametrize("data, message", [
    (b"", "Input is empty."),
    (b"RIFF", "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required."),
    (b"garbage" * 5, "Unknown image file format."),
    (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "Failed to decode WebP header."),
    ("lossy_rgb", "Failed to decode WebP image."),          # cut to 40 bytes: header intact, data missing
    ("lossless_rgb", "Failed to decode WebP image."),
])
def test_bad_webp_data_gets_tensorflows_errors(data, message):
    if isinstance(data, str):
        data = blob(data)[:40 if data == "lossy_rgb" else 30]
    for op in (tf.io.decode_webp, tf.io.decode_image):
        with pytest.raises(tf.errors.InvalidArgumentError, match=message.replace(".", r"\.")):
            op(data)


def test_traced_decode_webp_shapes():
    traced = tf.function(lambda s: tf.io.decode_webp(s)).get_concrete_function(tf.TensorSpec([], tf.string))
    assert traced.structured_outputs.shape.as_list() == [None, None, None, None]
    rgba = tf.function(lambda s: tf.io.decode_webp(s, channels=4))
    assert rgba.get_concrete_function(tf.TensorSpec([], tf.string)).structured_outputs.shape.as_list() == \
        [None, None, None, 4]
    np.testing.assert_array_equal(rgba(tf.constant(blob("lossless_rgba"))).numpy(), FIXTURES["lossless_rgba_webp"])
    images = tf.data.Dataset.from_tensor_slices([blob("lossy_rgb"), blob("lossless_rgb")]).map(tf.io.decode_webp)
    for got, name in zip(images, ["lossy_rgb", "lossless_rgb"]):
        np.testing.assert_array_equal(got.numpy(), FIXTURES[name + "_webp"])
