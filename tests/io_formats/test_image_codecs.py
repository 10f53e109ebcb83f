"""tf.io.decode_jpeg / decode_png / decode_image / decode_and_crop_jpeg / encode_png against the pixels
TensorFlow 2.21 decoded from the same files (tests/io_formats/fixtures/image_codecs.npz, recorded by
tools/record_image_codecs.py): bit-exact for every JPEG mode (fast and accurate IDCT, fancy and plain
upsampling, baseline and progressive, gray and colour) and every PNG layout."""
import ast
import os

import numpy as np
import pytest

import tensorflux as tf

FIXTURES = np.load(os.path.join(os.path.dirname(__file__), "fixtures", "image_codecs.npz"))
JPEGS = sorted({k.split("/")[1] for k in FIXTURES.files if k.startswith("jpeg/")})
PNGS = sorted({k.split("/")[1] for k in FIXTURES.files if k.startswith("png/")})


def _bytes(kind, name):
    return FIXTURES[f"{kind}/{name}"].tobytes()


@pytest.mark.parametrize("name", JPEGS)
def test_jpeg_pixels_match_tensorflow(name):
    data = _bytes("jpeg", name)
    for channels in (0, 1, 3):
        got = tf.io.decode_jpeg(data, channels=channels)
        assert got.dtype == tf.uint8
        np.testing.assert_array_equal(got.numpy(), FIXTURES[f"jpeg/{name}/c{channels}"])
    np.testing.assert_array_equal(tf.io.decode_jpeg(data, dct_method="INTEGER_ACCURATE").numpy(),
                                  FIXTURES[f"jpeg/{name}/accurate"])
    np.testing.assert_array_equal(tf.io.decode_jpeg(data, channels=1, dct_method="INTEGER_ACCURATE").numpy(),
                                  FIXTURES[f"jpeg/{name}/accurate_c1"])
    np.testing.assert_array_equal(tf.io.decode_jpeg(data, fancy_upscaling=False).numpy(),
                                  FIXTURES[f"jpeg/{name}/not_fancy"])
    np.testing.assert_array_equal(tf.io.decode_image(data, dtype=tf.float32).numpy(),
                                  FIXTURES[f"jpeg/{name}/image_float32"])
    np.testing.assert_array_equal(tf.io.decode_image(data, dtype=tf.uint16).numpy(),
                                  FIXTURES[f"jpeg/{name}/image_uint16"])


@pytest.mark.parametrize("name", PNGS)
def test_png_pixels_match_tensorflow(name):
    data = _bytes("png", name)
    for channels in (0, 1, 3, 4):
        for dtype in (tf.uint8, tf.uint16):
            got = tf.io.decode_png(data, channels=channels, dtype=dtype)
            want = FIXTURES[f"png/{name}/c{channels}/{dtype.name}"]
            assert got.dtype == dtype and got.shape == want.shape
            np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(tf.io.decode_image(data, dtype=tf.float32).numpy(),
                                  FIXTURES[f"png/{name}/image_float32"])


GIFS = sorted({k.split("/")[1] for k in FIXTURES.files if k.startswith("gif/")})
BMPS = sorted({k.split("/")[1] for k in FIXTURES.files if k.startswith("bmp/")})


@pytest.mark.parametrize("name", GIFS)
def test_gif_frames_match_tensorflow(name):
    data = _bytes("gif", name)
    frames = tf.io.decode_gif(data)
    assert frames.dtype == tf.uint8
    np.testing.assert_array_equal(frames.numpy(), FIXTURES[f"gif/{name}/gif"])
    np.testing.assert_array_equal(tf.io.decode_image(data).numpy(), FIXTURES[f"gif/{name}/image"])
    first = tf.io.decode_image(data, expand_animations=False)
    np.testing.assert_array_equal(first.numpy(), FIXTURES[f"gif/{name}/gif"][0])


@pytest.mark.parametrize("name", BMPS)
def test_bmp_pixels_match_tensorflow(name):
    data = _bytes("bmp", name)
    for channels in (0, 3, 4):
        np.testing.assert_array_equal(tf.io.decode_bmp(data, channels=channels).numpy(),
                                      FIXTURES[f"bmp/{name}/c{channels}"])
    np.testing.assert_array_equal(tf.io.decode_image(data).numpy(), FIXTURES[f"bmp/{name}/image"])


def test_gif_and_bmp_rules_of_the_other_decoders():
    animated, jpeg = _bytes("gif", "animated"), _bytes("jpeg", "q75_420")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Got 3 frames, but animated gifs can only be decoded"):
        tf.io.decode_jpeg(animated)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Trying to decode GIF format using DecodeBmp op"):
        tf.io.decode_bmp(animated)
    with pytest.raises(tf.errors.InvalidArgumentError, match="channels must be 0 or 3 for GIF, got 1"):
        tf.io.decode_image(animated, channels=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="`channels` must be 0, 3 or 4 for BMP, but got 1"):
        tf.io.decode_bmp(_bytes("bmp", "rgb"), channels=1)
    np.testing.assert_array_equal(tf.io.decode_gif(jpeg).numpy(), FIXTURES["jpeg/q75_420/c3"][None])
    np.testing.assert_array_equal(tf.io.decode_png(_bytes("gif", "one")).numpy(), FIXTURES["gif/one/gif"][0])

    @tf.function
    def shapes(x):
        return tf.io.decode_gif(x).shape.as_list(), tf.io.decode_bmp(x, channels=3).shape.as_list()

    assert shapes(tf.constant(animated)) == ([None, None, None, 3], [None, None, 3])


def test_every_decoder_reads_every_format():
    jpeg, png = _bytes("jpeg", "q75_420"), _bytes("png", "rgb8")
    np.testing.assert_array_equal(tf.io.decode_png(jpeg).numpy(), FIXTURES["jpeg/q75_420/c0"])
    np.testing.assert_array_equal(tf.io.decode_jpeg(png).numpy(), FIXTURES["png/rgb8/c0/uint8"])
    np.testing.assert_array_equal(tf.image.decode_image(png).numpy(), FIXTURES["png/rgb8/c0/uint8"])


def test_decode_and_crop_jpeg_is_the_window_of_the_decoded_image():
    data = _bytes("jpeg", "noise_420")
    full = FIXTURES["jpeg/noise_420/c0"]
    np.testing.assert_array_equal(tf.io.decode_and_crop_jpeg(data, [2, 3, 5, 6]).numpy(), full[2:7, 3:9])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid JPEG data or crop window"):
        tf.io.decode_and_crop_jpeg(data, [2, 3, 500, 6])


def test_decoding_inside_tf_function_and_dataset():
    data = _bytes("jpeg", "q75_420")

    @tf.function
    def decode(x):
        image = tf.io.decode_jpeg(x, channels=3)
        assert image.shape.as_list() == [None, None, 3]
        assert tf.io.decode_jpeg(x).shape.as_list() == [None, None, None]
        assert tf.io.decode_image(x).shape.rank is None
        assert tf.io.decode_image(x, expand_animations=False).shape.rank == 3
        assert tf.io.decode_and_crop_jpeg(x, [0, 0, 2, 2], channels=1).shape.as_list() == [2, 2, 1]
        return image

    np.testing.assert_array_equal(decode(tf.constant(data)).numpy(), FIXTURES["jpeg/q75_420/c3"])
    ds = tf.data.Dataset.from_tensor_slices([data, _bytes("png", "rgb8")]).map(lambda b: tf.io.decode_image(
        b, channels=3, expand_animations=False))
    shapes = [tuple(x.shape) for x in ds]
    assert shapes == [(13, 19, 3), (5, 7, 3)]


@pytest.mark.parametrize("call, error, message", [
    (lambda d: tf.io.decode_jpeg(d, channels=2), tf.errors.InvalidArgumentError, "`channels` must be 0, 1, 3 or 4 but got 2"),
    (lambda d: tf.io.decode_jpeg(d, channels=4), tf.errors.InvalidArgumentError, "JPEG does not support 4 channels"),
    (lambda d: tf.io.decode_jpeg(d, ratio=3), tf.errors.InvalidArgumentError, "ratio must be 1, 2, 4, or 8, got 3"),
    (lambda d: tf.io.decode_jpeg(d, dct_method="FOO"), tf.errors.InvalidArgumentError, "dct_method must be one of"),
    (lambda d: tf.io.decode_jpeg(b"abc"), tf.errors.InvalidArgumentError, "Unknown image file format. One of JPEG"),
    (lambda d: tf.io.decode_jpeg(d[:300]), tf.errors.InvalidArgumentError, "Invalid JPEG data"),
    (lambda d: tf.io.decode_jpeg([d]), tf.errors.InvalidArgumentError, r"`contents` must be scalar but got shape\[1\]"),
    (lambda d: tf.io.decode_png(d, channels=5), tf.errors.InvalidArgumentError, "`channels` must be 0, 1, 3 or 4 but got 5"),
    (lambda d: tf.io.decode_png(d, dtype=tf.float32), tf.errors.InvalidArgumentError, "dtype"),
    (lambda d: tf.io.decode_image(d, channels=2), tf.errors.InvalidArgumentError, "`channels` must be 0, 1, 3 or 4"),
    (lambda d: tf.io.decode_jpeg(tf.constant(1.0)), (TypeError, ValueError), "string"),
])
def test_errors_as_tensorflow(call, error, message):
    with pytest.raises(error, match=message):
        call(_bytes("jpeg", "q75_420"))


def test_truncated_png_is_invalid():
    data = _bytes("png", "rgb8")
    for cut in (60, len(data) - 20):
        with pytest.raises(tf.errors.InvalidArgumentError, match="PNG"):
            tf.io.decode_png(data[:cut])


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_encode_png_round_trips(dtype, channels):
    rng = np.random.default_rng(channels)
    image = rng.integers(0, np.iinfo(dtype).max + 1, (6, 5, channels)).astype(dtype)
    data = tf.io.encode_png(image)
    assert data.dtype == tf.string and data.shape == ()
    decoded = tf.io.decode_png(data, dtype=tf.uint16 if dtype == np.uint16 else tf.uint8)
    np.testing.assert_array_equal(decoded.numpy(), image)


def test_encode_png_batches_and_errors():
    batch = np.zeros((2, 3, 4, 5, 3), np.uint8)
    assert tf.io.encode_png(batch).shape == (2, 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="image must have 1, 2, 3, or 4 channels, got 5"):
        tf.io.encode_png(np.zeros((2, 2, 5), np.uint8))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"images must be at least rank 3\[2,2\]"):
        tf.io.encode_png(np.zeros((2, 2), np.uint8))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"compression should be in \[-1,9\], got 10"):
        tf.io.encode_png(np.zeros((2, 2, 3), np.uint8), compression=10)
    with pytest.raises(tf.errors.InvalidArgumentError, match="'T' of float is not in the list of allowed values: uint8, uint16"):
        tf.io.encode_png(np.zeros((2, 2, 3), np.float32))
    with pytest.raises(ValueError, match=r"Shape must be at least rank 3 but is rank 2 .*\[2,2\]"):
        tf.function(tf.io.encode_png).get_concrete_function(tf.TensorSpec([2, 2], tf.uint8))


def test_corrupt_inputs_raise_invalid_argument_never_internal_errors():
    rng = np.random.default_rng(0)
    for kind, name in (("jpeg", "q75_420"), ("jpeg", "q50_progressive"), ("png", "rgb8"), ("png", "palette4"),
                       ("gif", "animated"), ("gif", "interlaced"), ("bmp", "rgb")):
        data = bytearray(_bytes(kind, name))
        for trial in range(60):
            broken = bytearray(data)
            for _ in range(1 + trial % 4):
                broken[rng.integers(2, len(broken))] = rng.integers(0, 256)
            try:
                tf.io.decode_image(bytes(broken))
            except tf.errors.InvalidArgumentError:
                pass


ENCODINGS = sorted({int(k.split("/")[1]) for k in FIXTURES.files if k.startswith("encode/") and k[7].isdigit()})


def _kwargs(text):
    """The recorded keyword arguments: a repr of sorted (name, value) pairs of str/int/bool values."""
    return dict(ast.literal_eval(text))


@pytest.mark.parametrize("index", ENCODINGS)
def test_encode_jpeg_writes_tensorflows_bytes(index):
    image = FIXTURES[f"encode/{index}/image"]
    for k, text in enumerate(FIXTURES["encode/kwargs"]):
        kwargs = _kwargs(str(text))
        got = tf.io.encode_jpeg(image, **kwargs).numpy()
        assert got == FIXTURES[f"encode/{index}/{k}"].tobytes(), (image.shape, kwargs)


def test_adjust_jpeg_quality_as_tensorflow():
    image = FIXTURES["adjust/image"]
    for quality in (0, 30, 75, 100):
        np.testing.assert_array_equal(tf.image.adjust_jpeg_quality(image, quality).numpy(),
                                      FIXTURES[f"adjust/{quality}/uint8"])
        got = tf.image.adjust_jpeg_quality(image.astype(np.float32) / 255.0, quality)
        assert got.dtype == tf.float32
        np.testing.assert_array_equal(got.numpy(), FIXTURES[f"adjust/{quality}/float32"])
    np.testing.assert_array_equal(
        tf.image.adjust_jpeg_quality(image[..., :1], 60, dct_method="INTEGER_ACCURATE").numpy(),
        FIXTURES["adjust/gray/accurate"])
    np.testing.assert_array_equal(tf.image.stateless_random_jpeg_quality(image, 20, 90, seed=(1, 2)).numpy(),
                                  FIXTURES["adjust/stateless"])
    out = tf.function(lambda x, q: tf.image.adjust_jpeg_quality(x, q))(image, tf.constant(75))
    np.testing.assert_array_equal(out.numpy(), FIXTURES["adjust/75/uint8"])
    assert tf.image.random_jpeg_quality(image, 10, 20, seed=3).shape == image.shape


def test_encode_jpeg_errors_as_tensorflow():
    image = FIXTURES["adjust/image"]
    cases = [
        (lambda: tf.io.encode_jpeg(image[..., :2]), tf.errors.InvalidArgumentError,
         r"image must have 1 or 3 channels, got \[12,15,2\]"),
        (lambda: tf.io.encode_jpeg(image, format="grayscale"), tf.errors.InvalidArgumentError,
         r"format grayscale expects 1 channels, got \[12,15,3\]"),
        (lambda: tf.io.encode_jpeg(image, quality=101), tf.errors.InvalidArgumentError,
         r"quality must be in \[0,100\], got 101"),
        (lambda: tf.io.encode_jpeg(image, format="bogus"), tf.errors.InvalidArgumentError, "attr 'format'"),
        (lambda: tf.io.encode_jpeg(image[None]), tf.errors.InvalidArgumentError,
         r"image must be 3-dimensional\[1,12,15,3\]"),
        (lambda: tf.io.encode_jpeg(np.zeros((0, 3, 3), np.uint8)), tf.errors.InternalError, "JPEG encoding failed"),
        (lambda: tf.io.encode_jpeg(image.astype(np.float32)), tf.errors.InvalidArgumentError, "'T' of float"),
        (lambda: tf.image.random_jpeg_quality(image, 50, 40), ValueError, "must be less than"),
        (lambda: tf.image.random_jpeg_quality(image, -1, 40), ValueError, "between 0 and 100"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()
    assert tf.io.encode_jpeg(image, quality=0).numpy() == tf.io.encode_jpeg(image, quality=1).numpy()


@pytest.mark.parametrize("path", ["interpreted", "compiled"])
def test_both_entropy_decoders_give_tensorflows_pixels(path, monkeypatch):
    from tensorflux._src.io.codecs import jpeg_compiled
    from tensorflux._src.ops import jit
    if path == "compiled":
        loop = jit.build_now("jpeg_baseline_segment", jpeg_compiled._compile)
        if loop is None:
            pytest.skip("numba (the [jit] extra) is not installed")
        monkeypatch.setattr(jpeg_compiled, "baseline_segment", lambda: loop)
    else:
        monkeypatch.setattr(jpeg_compiled, "baseline_segment", lambda: None)
    for name in JPEGS:
        data = _bytes("jpeg", name)
        np.testing.assert_array_equal(tf.io.decode_jpeg(data).numpy(), FIXTURES[f"jpeg/{name}/c0"])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid JPEG data"):
            tf.io.decode_jpeg(data[:len(data) // 2])
