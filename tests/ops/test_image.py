"""tf.image: resize (bilinear/nearest/bicubic/area/filters), flips, rotations, crops and pads, dtype
conversion, colour adjustments, HSV, grayscale, standardization, random augmentation, image gradients,
total variation, extract_patches and psnr.

Values against NumPy references and against numbers printed by real TensorFlow, TensorFlow's errors,
static inference with unknown dims, traced == eager, and gradients against central finite differences.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from helpers import numeric_grad, static_shape, traced
from tensorflux._src.ops.image import basic as image, color as image_color, resize as image_resize

IAE = tf.errors.InvalidArgumentError
S = tf.TensorSpec
SETTINGS = settings(max_examples=25, deadline=None)
RNG = np.random.default_rng(7)
IMG = RNG.uniform(0, 1, (2, 5, 6, 3)).astype(np.float32)
GRID = np.arange(12, dtype=np.float32).reshape(1, 3, 4, 1)


def check_gradient(fn, x, eps=1e-6, rtol=1e-6, atol=1e-7, seed=0):
    """Tape gradient of sum(fn(x) * w) against finite differences, and traced == eager."""
    x = np.asarray(x, dtype=np.float64)
    out = fn(tf.constant(x))
    weights = np.random.default_rng(seed).uniform(-1.5, 1.5, size=out.shape.as_list())

    def tape_grad(t):
        with tf.GradientTape() as tape:
            tape.watch(t)
            y = fn(t)
            loss = tf.reduce_sum(tf.cast(y, tf.float64) * tf.constant(weights))
        return tape.gradient(loss, t)

    eager = tape_grad(tf.constant(x))
    assert eager.dtype is tf.float64 and eager.shape == x.shape

    def scalar(value):
        return float(np.sum(fn(tf.constant(value)).numpy().astype(np.float64) * weights))

    np.testing.assert_allclose(eager.numpy(), numeric_grad(scalar, x, eps), rtol=rtol, atol=atol)
    graph = tf.function(tape_grad)(tf.constant(x))
    np.testing.assert_allclose(graph.numpy(), eager.numpy(), rtol=1e-6, atol=1e-9)


# -- NumPy references ------------------------------------------------------------------------------------
def bilinear_reference(x, out_h, out_w):
    """Half-pixel-centre bilinear sampling, one output pixel at a time (float64)."""
    b, h, w, c = x.shape
    out = np.zeros((b, out_h, out_w, c))
    for i in range(out_h):
        for j in range(out_w):
            y = (i + 0.5) * h / out_h - 0.5
            xx = (j + 0.5) * w / out_w - 0.5
            y0, x0 = int(np.floor(y)), int(np.floor(xx))
            fy, fx = y - y0, xx - x0
            clamp = lambda v, n: min(max(v, 0), n - 1)  # noqa: E731
            a = x[:, clamp(y0, h), clamp(x0, w)]
            bb = x[:, clamp(y0, h), clamp(x0 + 1, w)]
            cc = x[:, clamp(y0 + 1, h), clamp(x0, w)]
            d = x[:, clamp(y0 + 1, h), clamp(x0 + 1, w)]
            out[:, i, j] = (a * (1 - fx) + bb * fx) * (1 - fy) + (cc * (1 - fx) + d * fx) * fy
    return out


def nearest_reference(x, out_h, out_w):
    _, h, w, _ = x.shape
    rows = [min(int(np.floor((i + 0.5) * h / out_h)), h - 1) for i in range(out_h)]
    cols = [min(int(np.floor((j + 0.5) * w / out_w)), w - 1) for j in range(out_w)]
    return x[:, rows][:, :, cols]


def hsv_reference(rgb):
    import colorsys
    flat = rgb.reshape(-1, 3).astype(np.float64)
    return np.array([colorsys.rgb_to_hsv(*p) for p in flat]).reshape(rgb.shape)


# -- resize ----------------------------------------------------------------------------------------------
@SETTINGS
@given(st.integers(1, 3), st.integers(1, 7), st.integers(1, 7), st.integers(1, 9), st.integers(1, 9),
       st.integers(1, 3))
def test_resize_bilinear_and_nearest_match_references(b, h, w, oh, ow, c):
    x = RNG.uniform(-5, 5, (b, h, w, c)).astype(np.float32)
    out = tf.image.resize(x, [oh, ow])
    assert out.dtype is tf.float32 and out.shape == (b, oh, ow, c)
    np.testing.assert_allclose(out.numpy(), bilinear_reference(x.astype(np.float64), oh, ow), rtol=1e-5, atol=1e-5)
    near = tf.image.resize(x, [oh, ow], method="nearest")
    assert near.dtype is tf.float32
    np.testing.assert_array_equal(near.numpy(), nearest_reference(x, oh, ow))


TF_RESIZE_3x4_TO_2x5 = {  # printed by TensorFlow 2 for tf.image.resize(arange(12).reshape(1, 3, 4, 1), [2, 5])
    "bilinear": [[1., 1.7, 2.5, 3.3, 4.], [7., 7.7, 8.5, 9.3, 10.]],
    "nearest": [[0., 1., 2., 2., 3.], [8., 9., 10., 10., 11.]],
    "bicubic": [[0.628409, 1.319859, 2.171533, 3.023206, 3.714657],
                [7.285344, 7.976794, 8.828468, 9.68014, 10.371592]],
    "area": [[1.333333, 2.083333, 2.833334, 3.583334, 4.333333],
             [6.666666, 7.416666, 8.166667, 8.916666, 9.666665]],
    "lanczos3": [[0.453581, 1.103748, 1.992857, 2.881966, 3.532132],
                 [7.467868, 8.118034, 9.007143, 9.896252, 10.546419]],
    "mitchellcubic": [[0.900775, 1.55298, 2.385496, 3.218012, 3.870216],
                      [7.129784, 7.781988, 8.614504, 9.44702, 10.099225]],
    "gaussian": [[1.158938, 1.801577, 2.575766, 3.349954, 3.992593],
                 [7.007406, 7.650046, 8.424234, 9.198423, 9.841063]],
}


@pytest.mark.parametrize("method", sorted(TF_RESIZE_3x4_TO_2x5))
def test_resize_methods_match_tensorflow_numbers(method):
    out = tf.image.resize(GRID, [2, 5], method=method)
    assert out.dtype is tf.float32 and out.shape == (1, 2, 5, 1)
    np.testing.assert_allclose(out.numpy()[0, :, :, 0], TF_RESIZE_3x4_TO_2x5[method], rtol=1e-5, atol=2e-6)
    np.testing.assert_allclose(traced(lambda x: tf.image.resize(x, [2, 5], method=method), tf.constant(GRID)).numpy(),
                               out.numpy())


def test_resize_antialias_matches_tensorflow_numbers():
    out = tf.image.resize(GRID, [2, 3], antialias=True)
    np.testing.assert_allclose(out.numpy()[0, :, :, 0], [[1.8, 3., 4.2], [6.8, 8., 9.2]], rtol=1e-5)
    out = tf.image.resize(GRID, [2, 3], "bicubic", antialias=True)
    np.testing.assert_allclose(out.numpy()[0, :, :, 0], [[1.429097, 2.739165, 4.049234],
                                                         [6.950766, 8.260834, 9.570903]], rtol=1e-5)
    # antialiasing never changes an upscale with the triangle filter: it equals plain bilinear
    np.testing.assert_allclose(tf.image.resize(GRID, [5, 7], antialias=True).numpy(),
                               tf.image.resize(GRID, [5, 7]).numpy(), rtol=1e-5, atol=1e-5)


def test_resize_dtypes_ranks_and_aspect_ratio():
    u8 = (IMG * 255).astype(np.uint8)
    assert tf.image.resize(u8, [3, 4], "nearest").dtype is tf.uint8
    assert tf.image.resize(u8, [3, 4]).dtype is tf.float32
    assert tf.image.resize(u8.astype(np.float64), [3, 4], "area").dtype is tf.float32
    three = tf.image.resize(IMG[0], [3, 7])
    assert three.shape == (3, 7, 3)
    np.testing.assert_allclose(three.numpy(), tf.image.resize(IMG, [3, 7]).numpy()[0])
    assert tf.image.resize(IMG, [7, 7], preserve_aspect_ratio=True).shape == (2, 6, 7, 3)
    assert tf.image.resize(IMG, [3, 7], preserve_aspect_ratio=True).shape == (2, 3, 4, 3)
    same = tf.image.resize(IMG, [5, 6])
    np.testing.assert_allclose(same.numpy(), IMG, rtol=1e-6)
    assert tf.image.resize(IMG, [4, 4], method=tf.image.ResizeMethod.BICUBIC).shape == (2, 4, 4, 3)


def test_resize_errors():
    with pytest.raises(ValueError, match="must have either 3 or 4 dimensions"):
        tf.image.resize(IMG[0, 0], [3, 4])
    with pytest.raises(ValueError, match="1-D Tensor of 2 elements"):
        tf.image.resize(IMG, [3])
    with pytest.raises(ValueError, match="1-D int32 Tensor"):
        tf.image.resize(IMG, [3.0, 7.0])
    with pytest.raises(ValueError, match="Resize method is not implemented: foo"):
        tf.image.resize(IMG, [3, 4], method="foo")
    with pytest.raises(IAE, match="output dimensions must be positive"):
        tf.image.resize(IMG, [0, 4])
    with pytest.raises(IAE, match="attr 'T' of bool"):
        tf.image.resize(IMG > 0.5, [3, 4])
    with pytest.raises(ValueError, match="contains no shape"):
        tf.function(lambda x: tf.image.resize(x, [2, 2]), input_signature=[S(None, tf.float32)]).get_concrete_function()


def test_resize_static_inference():
    assert static_shape(lambda x: tf.image.resize(x, [3, 4]), S([None, None, None, 2], tf.float32)) == [None, 3, 4, 2]
    assert static_shape(lambda x, s: tf.image.resize(x, s), S([1, 5, 5, 2], tf.float32), S([2], tf.int32)) == \
        [1, None, None, 2]
    assert static_shape(lambda x: tf.image.resize(x, [3, 4], "nearest"), S([None, 8, 8, None], tf.uint8)) == \
        [None, 3, 4, None]
    assert static_shape(lambda x: tf.image.resize(x, [3, 4], "lanczos3"), S([None, 8, None, 1], tf.float32)) == \
        [None, 3, 4, 1]
    infer = image_resize.RESIZE_BILINEAR.infer
    assert infer([S([None, None, None, 3], tf.uint8), tf.constant([2, 9])], {}) == [(tf.float32, tf.TensorShape([None, 2, 9, 3]))]
    (dtype, shape), = infer([S(None, tf.float32), S([2], tf.int32)], {})
    assert dtype is tf.float32 and shape.as_list() == [None, None, None, None]
    with pytest.raises(ValueError, match="must be rank 4"):
        infer([S([2, 3, 4], tf.float32), S([2], tf.int32)], {})
    (dtype, shape), = image_resize.RESIZE_NEAREST_NEIGHBOR.infer([S([2, None, 3, 1], tf.int32), S([2], tf.int32)], {})
    assert dtype is tf.int32 and shape.as_list() == [2, None, None, 1]


def test_resize_with_unknown_size_in_function():
    fn = tf.function(lambda x, s: tf.image.resize(x, s))
    np.testing.assert_allclose(fn(tf.constant(IMG), tf.constant([3, 8])).numpy(),
                               tf.image.resize(IMG, [3, 8]).numpy())


@SETTINGS
@given(st.integers(1, 5), st.integers(1, 5), st.integers(1, 6), st.integers(1, 6))
def test_resize_bilinear_gradient(h, w, oh, ow):
    # the op is linear with float32 output, so a large step gives exact differences
    x = RNG.uniform(-1, 1, (1, h, w, 2))
    check_gradient(lambda t: tf.image.resize(t, [oh, ow]), x, eps=0.5, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("method,antialias", [("nearest", False), ("bicubic", False), ("lanczos3", False),
                                              ("bilinear", True), ("bicubic", True), ("gaussian", True)])
def test_resize_gradients_of_other_methods(method, antialias):
    x = RNG.uniform(-1, 1, (2, 5, 4, 2))
    for size in ([3, 7], [8, 2]):
        check_gradient(lambda t: tf.image.resize(t, size, method, antialias=antialias), x, eps=0.5,
                       rtol=1e-4, atol=1e-5)


def test_resize_bilinear_grad_op_matches_weights_transpose():
    grads = RNG.uniform(-1, 1, (1, 3, 7, 1)).astype(np.float32)
    original = np.zeros((1, 4, 5, 1), np.float64)
    out = image_resize.apply(image_resize.RESIZE_BILINEAR_GRAD, (tf.constant(grads), tf.constant(original)))
    assert out.dtype is tf.float64 and out.shape == (1, 4, 5, 1)
    # <resize(e_ij), g> == grad_ij for every basis image e_ij
    expected = np.zeros((4, 5))
    for i in range(4):
        for j in range(5):
            basis = np.zeros((1, 4, 5, 1), np.float32)
            basis[0, i, j, 0] = 1
            expected[i, j] = np.sum(tf.image.resize(basis, [3, 7]).numpy() * grads)
    np.testing.assert_allclose(out.numpy()[0, :, :, 0], expected, rtol=1e-5, atol=1e-6)


def test_resize_area_and_integer_images_have_no_gradient():
    x = tf.constant(IMG)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.image.resize(x, [3, 3], "area")
    with pytest.raises(LookupError, match="ResizeArea"):
        tape.gradient(y, x)


# -- flips, rotations, transpose -------------------------------------------------------------------------
@pytest.mark.parametrize("x", [IMG, IMG[0]])
def test_flips_rotations_and_transpose(x):
    batch = x.ndim - 3
    h, w = batch, batch + 1
    cases = {
        tf.image.flip_left_right: np.flip(x, w), tf.image.flip_up_down: np.flip(x, h),
        tf.image.transpose: np.swapaxes(x, h, w),
    }
    for k in range(-2, 6):
        cases[lambda t, k=k: tf.image.rot90(t, k)] = np.rot90(x, k, axes=(h, w))
    for fn, expected in cases.items():
        out = fn(x)
        assert out.dtype is tf.float32
        np.testing.assert_array_equal(out.numpy(), expected)
        np.testing.assert_array_equal(traced(fn, tf.constant(x)).numpy(), expected)


def test_rot90_with_a_tensor_k_inside_a_function():
    fn = tf.function(lambda x, k: tf.image.rot90(x, k))
    for k in range(4):
        np.testing.assert_array_equal(fn(tf.constant(IMG[0]), tf.constant(k)).numpy(), np.rot90(IMG[0], k))


def test_flip_and_rotation_errors_and_inference():
    with pytest.raises(ValueError, match="must be at least three-dimensional"):
        tf.image.flip_left_right(IMG[0, 0])
    with pytest.raises(ValueError, match="must have either 3 or 4 dimensions"):
        tf.image.flip_up_down(IMG[None])
    with pytest.raises(ValueError, match="must have rank 0"):
        tf.image.rot90(IMG, k=[1])
    with pytest.raises(TypeError):
        tf.image.rot90(IMG, k=1.5)
    with pytest.raises(ValueError, match="must have either 3 or 4 dimensions"):
        tf.image.transpose(IMG[None])
    assert static_shape(tf.image.flip_left_right, S([None, 4, None, 3], tf.float32)) == [None, 4, None, 3]
    assert static_shape(lambda x: tf.image.rot90(x, 1), S([2, 4, 5, 3], tf.float32)) == [2, 5, 4, 3]
    assert static_shape(tf.image.transpose, S([None, 4, 5], tf.float32)) == [4, None, 5]
    assert static_shape(tf.image.flip_up_down, S(None, tf.float32)) is None


def test_geometric_ops_gradients():
    x = RNG.uniform(-1, 1, (2, 3, 4, 2))
    for fn in (tf.image.flip_left_right, lambda t: tf.image.rot90(t, 3), tf.image.transpose,
               lambda t: tf.image.crop_to_bounding_box(t, 1, 1, 2, 2),
               lambda t: tf.image.pad_to_bounding_box(t, 1, 0, 5, 6),
               lambda t: tf.image.resize_with_crop_or_pad(t, 2, 7),
               lambda t: tf.image.central_crop(t, 0.5)):
        check_gradient(fn, x)


# -- crops and pads --------------------------------------------------------------------------------------
def test_crops_and_pads_against_numpy():
    x = IMG
    np.testing.assert_array_equal(tf.image.crop_to_bounding_box(x, 1, 2, 3, 4).numpy(), x[:, 1:4, 2:6])
    np.testing.assert_array_equal(tf.image.crop_to_bounding_box(x[0], 0, 0, 5, 6).numpy(), x[0])
    padded = tf.image.pad_to_bounding_box(x[0], 1, 2, 8, 9)
    np.testing.assert_array_equal(padded.numpy(), np.pad(x[0], [(1, 2), (2, 1), (0, 0)]))
    np.testing.assert_array_equal(tf.image.central_crop(x, 0.5).numpy(), x[:, 1:4, 1:5])
    np.testing.assert_array_equal(tf.image.central_crop(x[0], 0.33).numpy(), x[0, 1:4, 2:4])
    assert tf.image.central_crop(x, 1.0) is not None
    # crop when larger, pad when smaller, centred (odd differences favour the top/left like TF)
    np.testing.assert_array_equal(tf.image.resize_with_crop_or_pad(x, 3, 9).numpy(),
                                  np.pad(x[:, 1:4], [(0, 0), (0, 0), (1, 2), (0, 0)]))
    np.testing.assert_array_equal(tf.image.resize_with_crop_or_pad(x[0], 8, 2).numpy(),
                                  np.pad(x[0, :, 2:4], [(1, 2), (0, 0), (0, 0)]))
    out = tf.image.resize_with_pad(x, 8, 4)
    assert out.shape == (2, 8, 4, 3) and np.all(out.numpy()[:, :1] == 0) and np.all(out.numpy()[:, -2:] == 0)


def test_crop_and_pad_errors():
    with pytest.raises(ValueError, match="height must be >= target \\+ offset."):
        tf.image.crop_to_bounding_box(IMG, 1, 1, 5, 2)
    with pytest.raises(ValueError, match="offset_height must be >= 0."):
        tf.image.crop_to_bounding_box(IMG, -1, 1, 2, 2)
    with pytest.raises(ValueError, match="target_height must be > 0."):
        tf.image.crop_to_bounding_box(IMG, 1, 1, 0, 2)
    with pytest.raises(ValueError, match="height must be <= target - offset"):
        tf.image.pad_to_bounding_box(IMG, 1, 1, 4, 9)
    with pytest.raises(ValueError, match="offset_height must be >= 0"):
        tf.image.pad_to_bounding_box(IMG, -1, 1, 8, 9)
    with pytest.raises(ValueError, match="target_height must be > 0."):
        tf.image.resize_with_crop_or_pad(IMG, 0, 3)
    with pytest.raises(ValueError, match="central_fraction must be within"):
        tf.image.central_crop(IMG, 0.0)
    with pytest.raises(ValueError, match="must have either 3 or 4 dimensions"):
        tf.image.crop_to_bounding_box(IMG[0, 0], 0, 0, 1, 1)
    # offsets only known at run time are checked by an Assert op
    fn = tf.function(lambda x, o: tf.image.crop_to_bounding_box(x, o, 0, 3, 3))
    np.testing.assert_array_equal(fn(tf.constant(IMG), tf.constant(2)).numpy(), IMG[:, 2:5, 0:3])
    with pytest.raises(IAE, match="height must be >= target \\+ offset."):
        fn(tf.constant(IMG), tf.constant(3))


def test_crop_and_pad_with_unknown_dims():
    spec = S([None, None, None, 3], tf.float32)
    assert static_shape(lambda x: tf.image.crop_to_bounding_box(x, 1, 1, 2, 3), spec) == [None, 2, 3, 3]
    assert static_shape(lambda x: tf.image.pad_to_bounding_box(x, 1, 1, 9, 9), spec) == [None, 9, 9, 3]
    fn = tf.function(lambda x: tf.image.resize_with_crop_or_pad(x, 4, 8), input_signature=[spec])
    np.testing.assert_array_equal(fn(tf.constant(IMG)).numpy(), tf.image.resize_with_crop_or_pad(IMG, 4, 8).numpy())
    fn = tf.function(lambda x: tf.image.central_crop(x, 0.5), input_signature=[spec])
    np.testing.assert_array_equal(fn(tf.constant(IMG)).numpy(), IMG[:, 1:4, 1:5])


# -- convert_image_dtype ---------------------------------------------------------------------------------
def test_convert_image_dtype_scaling_rules():
    c = tf.image.convert_image_dtype
    np.testing.assert_allclose(c(np.array([0, 51, 255], np.uint8), tf.float32).numpy(), [0, 0.2, 1], rtol=1e-6)
    values = np.array([-1., 0.3, 1.2, 0.99999])
    np.testing.assert_array_equal(c(values, tf.uint8, saturate=True).numpy(), [0, 76, 255, 255])
    np.testing.assert_array_equal(c(values, tf.uint8).numpy(), [1, 76, 50, 255])  # wraps, like TensorFlow
    np.testing.assert_array_equal(c(np.array([200, 255], np.uint8), tf.int16).numpy(), [25600, 32640])
    np.testing.assert_array_equal(c(np.array([-5, 32767], np.int16), tf.uint8).numpy(), [255, 255])
    np.testing.assert_array_equal(c(np.array([-5, 32767], np.int16), tf.uint8, saturate=True).numpy(), [0, 255])
    np.testing.assert_array_equal(c(np.array([0.5], np.float32), tf.int32).numpy(), [1073741824])
    out = c(np.array([1.5], np.float32), tf.float64)
    assert out.dtype is tf.float64 and out.numpy()[0] == 1.5
    x = tf.constant([1, 2], tf.int32)
    assert c(x, tf.int32).dtype is tf.int32
    with pytest.raises(AttributeError, match="dtype must be either floating point or integer"):
        c(IMG, tf.bool)
    with pytest.raises(AttributeError, match="image dtype must be either floating point or integer"):
        c(IMG > 0, tf.float32)


# -- colour ----------------------------------------------------------------------------------------------
PIXELS = np.array([[[0.9, 0.2, 0.4], [0.1, 0.6, 0.3]]], np.float32)


def test_adjustments_match_tensorflow_numbers():
    np.testing.assert_allclose(tf.image.adjust_hue(PIXELS, 0.2).numpy(), [[[0.9, 0.84, 0.2], [0.1, 0.3, 0.6]]],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tf.image.adjust_saturation(PIXELS, 0.5).numpy(),
                               [[[0.9, 0.55, 0.65], [0.35, 0.6, 0.45]]], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tf.image.adjust_contrast(PIXELS, 2.).numpy(),
                               [[[1.3, 0., 0.45], [-0.3, 0.8, 0.25]]], rtol=1e-5, atol=1e-6)


def test_brightness_and_contrast_against_numpy():
    out = tf.image.adjust_brightness(IMG, 0.3)
    np.testing.assert_allclose(out.numpy(), IMG + np.float32(0.3))
    u8 = (IMG * 255).astype(np.uint8)
    bright = tf.image.adjust_brightness(u8, 0.1)
    assert bright.dtype is tf.uint8
    expected = np.clip((u8 / 255.0 + 0.1) * 255.5, 0, 255).astype(np.uint8)
    assert np.max(np.abs(bright.numpy().astype(int) - expected)) <= 1
    contrast = tf.image.adjust_contrast(IMG, 1.7)
    mean = IMG.mean(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(contrast.numpy(), (IMG - mean) * 1.7 + mean, rtol=1e-5, atol=1e-6)
    assert tf.image.adjust_contrast(u8, 0.4).dtype is tf.uint8
    f64 = tf.image.adjust_contrast(IMG.astype(np.float64), 1.3)
    assert f64.dtype is tf.float64


def test_hsv_round_trip_and_reference():
    hsv = tf.image.rgb_to_hsv(IMG)
    assert hsv.dtype is tf.float32 and hsv.shape == IMG.shape
    np.testing.assert_allclose(hsv.numpy(), hsv_reference(IMG), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tf.image.hsv_to_rgb(hsv).numpy(), IMG, rtol=1e-5, atol=1e-6)
    ties = np.array([[0.5, 0.5, 0.2], [0.3, 0.3, 0.3], [0, 0, 0], [1, 0, 0]], np.float64)
    np.testing.assert_allclose(tf.image.rgb_to_hsv(ties).numpy(), hsv_reference(ties), atol=1e-12)
    assert tf.image.rgb_to_hsv([[1, 2, 3]]).dtype is tf.float32


@SETTINGS
@given(st.floats(-1, 1), st.floats(0, 3))
def test_hue_and_saturation_against_colorsys(delta, factor):
    import colorsys
    flat = IMG.reshape(-1, 3).astype(np.float64)
    hue = np.array([colorsys.hsv_to_rgb((h + delta) % 1.0, s, v) for h, s, v in
                    (colorsys.rgb_to_hsv(*p) for p in flat)]).reshape(IMG.shape)
    np.testing.assert_allclose(tf.image.adjust_hue(IMG, delta).numpy(), hue, atol=2e-5)
    sat = np.array([colorsys.hsv_to_rgb(h, min(s * factor, 1.0), v) for h, s, v in
                    (colorsys.rgb_to_hsv(*p) for p in flat)]).reshape(IMG.shape)
    np.testing.assert_allclose(tf.image.adjust_saturation(IMG, factor).numpy(), sat, atol=2e-5)


def test_colour_errors_and_inference():
    with pytest.raises(IAE, match="input must be at least 3-D, got shape\\[6,3\\]"):
        image_color.apply(image_color.ADJUST_CONTRAST, (tf.constant(IMG[0, 0]), tf.constant(2.)))
    with pytest.raises(IAE, match="contrast_factor must be scalar"):
        tf.image.adjust_contrast(IMG, tf.constant([2., 1.]))
    with pytest.raises(IAE, match="input must have 3 channels but instead has 2 channels"):
        tf.image.adjust_saturation(IMG[..., :2], 2.)
    with pytest.raises(IAE, match="input must have 3 channels but instead has 2 channels"):
        tf.image.adjust_hue(IMG[..., :2], .2)
    with pytest.raises(ValueError, match="delta must be in the interval \\[-1, 1\\]"):
        tf.image.adjust_hue(IMG, 1.5)
    with pytest.raises(tf.errors.FailedPreconditionError, match="input must have 3 channels but input only has 2"):
        tf.image.rgb_to_hsv(IMG[..., :2])
    with pytest.raises(ValueError, match="Dimension must be 3 but is 2"):
        image_color.RGB_TO_HSV.infer([S([None, 2], tf.float32)], {})
    assert image_color.RGB_TO_HSV.infer([S(None, tf.float64)], {})[0][0] is tf.float64
    assert image_color.ADJUST_HUE.infer([S([None, None, 3], tf.float32), S([], tf.float32)], {}) == \
        [(tf.float32, tf.TensorShape([None, None, 3]))]
    with pytest.raises(ValueError, match="Last dimension of a grayscale image should be size 1"):
        tf.image.grayscale_to_rgb(IMG)
    with pytest.raises(ValueError, match="must be at least two-dimensional"):
        tf.image.grayscale_to_rgb(IMG[0, 0, 0, :1])


def test_colour_ops_in_functions_equal_eager():
    for fn in (lambda x: tf.image.adjust_hue(x, 0.3), lambda x: tf.image.adjust_saturation(x, 1.5),
               lambda x: tf.image.adjust_contrast(x, 0.5), lambda x: tf.image.adjust_brightness(x, -0.1),
               tf.image.rgb_to_hsv, tf.image.hsv_to_rgb, tf.image.rgb_to_grayscale, tf.image.per_image_standardization,
               lambda x: tf.image.convert_image_dtype(x, tf.uint8, saturate=True)):
        np.testing.assert_allclose(traced(fn, tf.constant(IMG)).numpy(), fn(tf.constant(IMG)).numpy(), rtol=1e-6)


def test_rgb_to_hsv_gradient():
    x = RNG.uniform(0.05, 1, (2, 4, 3))
    check_gradient(tf.image.rgb_to_hsv, x, rtol=1e-5, atol=1e-6)
    with pytest.raises(LookupError, match="AdjustContrastv2"):
        t = tf.constant(IMG)
        with tf.GradientTape() as tape:
            tape.watch(t)
            y = tf.image.adjust_contrast(t, 2.0)
        tape.gradient(y, t)


def test_grayscale_and_standardization():
    gray = tf.image.rgb_to_grayscale(IMG)
    assert gray.shape == (2, 5, 6, 1)
    np.testing.assert_allclose(gray.numpy()[..., 0], IMG @ np.array([0.2989, 0.5870, 0.1140], np.float32), rtol=1e-6)
    u8 = (IMG * 255).astype(np.uint8)
    assert tf.image.rgb_to_grayscale(u8).dtype is tf.uint8
    rgb = tf.image.grayscale_to_rgb(gray)
    np.testing.assert_array_equal(rgb.numpy(), np.repeat(gray.numpy(), 3, axis=-1))
    std = tf.image.per_image_standardization(u8)
    assert std.dtype is tf.float32
    f = u8.astype(np.float64)
    mean = f.mean(axis=(1, 2, 3), keepdims=True)
    sd = np.maximum(f.std(axis=(1, 2, 3), keepdims=True), 1 / np.sqrt(90))
    np.testing.assert_allclose(std.numpy(), (f - mean) / sd, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(tf.image.per_image_standardization(np.ones((3, 3, 1), np.float32)).numpy(), 0)
    assert static_shape(tf.image.per_image_standardization, S([None, None, None, 3], tf.uint8)) == [None, None, None, 3]
    assert static_shape(tf.image.grayscale_to_rgb, S([None, 4, 1], tf.float32)) == [None, 4, 3]
    x = RNG.uniform(0, 1, (2, 3, 2, 3))
    check_gradient(tf.image.per_image_standardization, x, eps=1e-2, rtol=2e-3, atol=2e-3)  # float32 inside
    check_gradient(tf.image.rgb_to_grayscale, x, eps=0.5, rtol=1e-5, atol=1e-6)  # linear, float32 inside


# -- random augmentation ---------------------------------------------------------------------------------
def test_random_flips_are_flips_and_seeded():
    tf.random.set_seed(3)
    seen = set()
    for _ in range(12):
        out = tf.image.random_flip_left_right(IMG[0]).numpy()
        matches = [np.array_equal(out, IMG[0]), np.array_equal(out, IMG[0, :, ::-1])]
        assert any(matches)
        seen.add(matches.index(True))
    assert seen == {0, 1}
    batch = tf.image.random_flip_up_down(np.concatenate([IMG] * 4), seed=5).numpy()
    for b in range(8):
        assert np.array_equal(batch[b], IMG[b % 2]) or np.array_equal(batch[b], IMG[b % 2, ::-1])
    tf.random.set_seed(11)
    first = [tf.image.random_flip_left_right(IMG, seed=1).numpy() for _ in range(3)]
    tf.random.set_seed(11)
    second = [tf.image.random_flip_left_right(IMG, seed=1).numpy() for _ in range(3)]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    out = traced(lambda x: tf.image.random_flip_left_right(x, seed=2), tf.constant(IMG[0])).numpy()
    assert np.array_equal(out, IMG[0]) or np.array_equal(out, IMG[0, :, ::-1])


def test_random_brightness_contrast_saturation_hue():
    tf.random.set_seed(4)
    out = tf.image.random_brightness(IMG, 0.2).numpy()
    delta = out - IMG
    assert np.allclose(delta, delta.flat[0], atol=1e-6) and abs(delta.flat[0]) <= 0.2
    assert tf.image.random_contrast(IMG, 0.5, 1.5).shape == IMG.shape
    assert tf.image.random_saturation(IMG, 0.5, 1.5).shape == IMG.shape
    assert tf.image.random_hue(IMG, 0.1).shape == IMG.shape
    with pytest.raises(ValueError, match="max_delta must be non-negative."):
        tf.image.random_brightness(IMG, -1.)
    with pytest.raises(ValueError, match="upper must be > lower."):
        tf.image.random_contrast(IMG, 1.0, 0.5)
    with pytest.raises(ValueError, match="max_delta must be <= 0.5."):
        tf.image.random_hue(IMG, 0.6)


def test_random_crop():
    tf.random.set_seed(5)
    for _ in range(5):
        out = tf.image.random_crop(IMG, [2, 3, 4, 3]).numpy()
        windows = [IMG[:, i:i + 3, j:j + 4] for i in range(3) for j in range(3)]
        assert any(np.array_equal(out, w) for w in windows)
    with pytest.raises(IAE, match="Need value.shape >= size"):
        tf.image.random_crop(IMG, [2, 6, 4, 3])
    fn = tf.function(lambda x: tf.image.random_crop(x, [3, 3, 3], seed=1))
    assert fn(tf.constant(IMG[0])).shape == (3, 3, 3)


# -- image gradients, total variation, psnr, patches -----------------------------------------------------
def test_image_gradients_total_variation_psnr():
    x = np.arange(25, dtype=np.float32).reshape(1, 5, 5, 1)
    dy, dx = tf.image.image_gradients(x)
    np.testing.assert_array_equal(dy.numpy()[0, :, :, 0], np.vstack([np.full((4, 5), 5.), np.zeros((1, 5))]))
    np.testing.assert_array_equal(dx.numpy()[0, :, :, 0], np.hstack([np.ones((5, 4)), np.zeros((5, 1))]))
    with pytest.raises(ValueError, match="image_gradients expects a 4D tensor"):
        tf.image.image_gradients(x[0])
    tv = tf.image.total_variation(IMG)
    expected = np.abs(np.diff(IMG, axis=1)).sum(axis=(1, 2, 3)) + np.abs(np.diff(IMG, axis=2)).sum(axis=(1, 2, 3))
    np.testing.assert_allclose(tv.numpy(), expected, rtol=1e-5)
    assert tf.image.total_variation(IMG[0]).shape == ()
    with pytest.raises(ValueError, match="must be either 3 or 4-dimensional"):
        tf.image.total_variation(IMG[0, 0])
    p = tf.image.psnr(IMG, IMG * 0.9, 1.0)
    mse = ((IMG - IMG * 0.9) ** 2).mean(axis=(1, 2, 3))
    np.testing.assert_allclose(p.numpy(), 10 * np.log10(1 / mse), rtol=1e-5)
    u8 = (IMG * 255).astype(np.uint8)
    np.testing.assert_allclose(tf.image.psnr(u8, u8 // 2, 255).numpy(),
                               tf.image.psnr(u8.astype(np.float32) / 255, (u8 // 2).astype(np.float32) / 255, 1.0).numpy(),
                               rtol=1e-5)
    check_gradient(tf.image.total_variation, RNG.uniform(-1, 1, (2, 3, 4, 1)))
    check_gradient(lambda t: tf.image.image_gradients(t)[1], RNG.uniform(-1, 1, (1, 3, 4, 2)))


def patches_reference(x, k, s, r, padding):
    b, h, w, c = x.shape
    eff = [(k[i] - 1) * r[i] + 1 for i in range(2)]
    if padding == "VALID":
        out = [max(-(-(n - e + 1) // st_), 0) for n, e, st_ in zip((h, w), eff, s)]
        before = [0, 0]
    else:
        out = [-(-n // st_) for n, st_ in zip((h, w), s)]
        before = [max((o - 1) * st_ + e - n, 0) // 2 for o, st_, e, n in zip(out, s, eff, (h, w))]
    result = np.zeros((b, out[0], out[1], k[0] * k[1] * c), x.dtype)
    for i in range(out[0]):
        for j in range(out[1]):
            taps = []
            for a in range(k[0]):
                for bb in range(k[1]):
                    y, xx = i * s[0] + a * r[0] - before[0], j * s[1] + bb * r[1] - before[1]
                    inside = 0 <= y < h and 0 <= xx < w
                    taps.append(x[:, y, xx] if inside else np.zeros((b, c), x.dtype))
            result[:, i, j] = np.concatenate(taps, axis=-1)
    return result


@SETTINGS
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3),
       st.integers(1, 3), st.integers(1, 2), st.integers(1, 2), st.sampled_from(["SAME", "VALID"]))
def test_extract_patches_matches_reference(h, w, kh, kw, sh, sw, rh, rw, padding):
    x = RNG.uniform(-1, 1, (2, h, w, 2)).astype(np.float32)
    out = tf.image.extract_patches(x, [1, kh, kw, 1], [1, sh, sw, 1], [1, rh, rw, 1], padding)
    np.testing.assert_array_equal(out.numpy(), patches_reference(x, (kh, kw), (sh, sw), (rh, rw), padding))
    spec = S([None, h, w, 2], tf.float32)
    assert static_shape(lambda t: tf.image.extract_patches(t, [1, kh, kw, 1], [1, sh, sw, 1], [1, rh, rw, 1], padding),
                        spec) == [None] + list(out.shape[1:])


def test_extract_patches_gradient_and_errors():
    x = RNG.uniform(-1, 1, (1, 5, 4, 2))
    for args in (([1, 3, 2, 1], [1, 2, 3, 1], [1, 2, 1, 1], "SAME"), ([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")):
        check_gradient(lambda t: tf.image.extract_patches(t, *args), x)
    with pytest.raises(ValueError, match="padding"):
        tf.image.extract_patches(IMG, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "FULL")
    with pytest.raises(IAE, match="Only support ksizes across space"):
        tf.image.extract_patches(IMG, [2, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    with pytest.raises(ValueError, match="must be rank 4"):
        image.EXTRACT_IMAGE_PATCHES.infer([S([3, 4, 2], tf.float32)], {"ksizes": (1, 1, 1, 1), "strides": (1, 1, 1, 1),
                                                                          "rates": (1, 1, 1, 1), "padding": "SAME"})


def test_namespace_exports():
    for name in ("resize", "flip_left_right", "rot90", "central_crop", "convert_image_dtype", "adjust_hue",
                 "random_crop", "extract_patches", "psnr", "ResizeMethod"):
        assert hasattr(tf.image, name)
