"""tf.signal: FFTs, framing, windows, STFTs. Values are checked against NumPy's FFTs and against outputs
of TensorFlow 2.21 (hard-coded below, marked "TF 2.21"); gradients against finite differences."""
import numpy as np
import pytest

import tensorflux as tf
from tests.helpers import check_gradients, static_shape, traced

RNG = np.random.default_rng(7)


def complex_array(shape, dtype=np.complex128):
    return (RNG.normal(size=shape) + 1j * RNG.normal(size=shape)).astype(dtype)


def make_complex(re, im):
    """A complex128 tensor from float64 parts (tensorflux has no tf.complex yet)."""
    return tf.cast(re, tf.complex128) + tf.cast(im, tf.complex128) * 1j


def real_and_imag(z):
    """[Re z, Im z] along the last axis: a real function of a complex tensor, for gradient checks."""
    return tf.concat([tf.cast(z, tf.float64), tf.cast(z * -1j, tf.float64)], -1)


# -- complex transforms -----------------------------------------------------------------------------

C2C = [(tf.signal.fft, np.fft.fft, 1, False), (tf.signal.ifft, np.fft.ifft, 1, True),
       (tf.signal.fft2d, np.fft.fft2, 2, False), (tf.signal.ifft2d, np.fft.ifft2, 2, True),
       (tf.signal.fft3d, np.fft.fftn, 3, False), (tf.signal.ifft3d, np.fft.ifftn, 3, True)]


@pytest.mark.parametrize("fn, reference, rank, inverse", C2C)
@pytest.mark.parametrize("dtype, tol", [(np.complex64, 1e-5), (np.complex128, 1e-12)])
def test_complex_transforms_match_numpy_eagerly_and_traced(fn, reference, rank, inverse, dtype, tol):
    x = complex_array((2, 3, 4, 5), dtype)
    expected = reference(x, axes=tuple(range(-rank, 0))) if rank == 3 else reference(x)
    for out in (fn(tf.constant(x)), traced(fn, tf.constant(x))):
        assert out.dtype == tf.as_dtype(dtype) and out.shape == x.shape
        np.testing.assert_allclose(out.numpy(), expected, rtol=tol, atol=tol * 10)


def test_ifft_value_from_tensorflow():
    out = tf.signal.ifft(tf.constant([1 + 2j, 3 + 1j, 2 - 1j], tf.complex64))
    # TF 2.21
    np.testing.assert_allclose(out.numpy(), [2 + 0.6666667j, -1.0773504 + 0.9553418j, 0.07735026 + 0.37799153j],
                               rtol=1e-6)


@pytest.mark.parametrize("fn", [c[0] for c in C2C])
def test_complex_transforms_reject_real_input(fn):
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'Tcomplex' of float is not in the list"):
        fn(tf.constant([[[1.0, 2.0]]]))
    with pytest.raises(TypeError, match="DataType int32 not in list of allowed values: complex64, complex128"):
        traced(fn, tf.constant([[[1, 2]]]))


def test_complex_transform_rank_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"rank of at least 2 but got: \[1\]"):
        tf.signal.fft2d(tf.constant([1 + 2j], tf.complex64))
    with pytest.raises(ValueError, match="Shape must be at least rank 3 but is rank 2"):
        static_shape(tf.signal.fft3d, tf.TensorSpec([4, 4], tf.complex64))


def test_complex_transforms_keep_static_shapes_and_empty_inputs():
    assert static_shape(tf.signal.fft2d, tf.TensorSpec([None, 6], tf.complex64)) == [None, 6]
    assert static_shape(tf.signal.ifft, tf.TensorSpec(None, tf.complex128)) is None
    assert tf.signal.fft(tf.zeros([2, 0], tf.complex64)).shape == (2, 0)


@pytest.mark.parametrize("fn, rank", [(tf.signal.fft, 1), (tf.signal.ifft, 1), (tf.signal.fft2d, 2),
                                      (tf.signal.ifft3d, 3)])
def test_complex_transform_gradients(fn, rank):
    shape = (2, 2, 2, 3)[-rank - 1:]
    check_gradients(lambda a, b: real_and_imag(fn(make_complex(a, b))),
                    [RNG.normal(size=shape), RNG.normal(size=shape)], rtol=1e-6, atol=1e-8)


def test_fft_gradient_values_from_tensorflow():
    z = tf.constant([1 + 2j, 3 - 1j, 0.5 + 0.5j, -1 + 1j])
    with tf.GradientTape() as tape:
        tape.watch(z)
        loss = tf.reduce_sum(tf.abs(tf.signal.fft(z)))
    # TF 2.21
    expected = [0.5169245249422085 + 1.6146924211600773j, 2.777709009520068 - 1.327641181700534j,
                0.7183101471948934 + 1.5089453176599559j, -0.7580097968302297 + 0.5289562177568866j]
    np.testing.assert_allclose(tape.gradient(loss, z).numpy(), expected, rtol=1e-12)


# -- real transforms --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype, cdtype", [(tf.float32, tf.complex64), (tf.float64, tf.complex128)])
@pytest.mark.parametrize("length", [None, 4, 7, 12])
def test_rfft_crops_or_pads_to_fft_length(dtype, cdtype, length):
    x = RNG.normal(size=(3, 7)).astype(dtype.as_numpy_dtype)
    fft_length = None if length is None else [length]
    out = tf.signal.rfft(tf.constant(x), fft_length)
    assert out.dtype is cdtype
    np.testing.assert_allclose(out.numpy(), np.fft.rfft(x, n=length), rtol=1e-5, atol=1e-5)
    back = tf.signal.irfft(out, fft_length)
    assert back.dtype is dtype
    np.testing.assert_allclose(back.numpy(), np.fft.irfft(out.numpy(), n=length), rtol=1e-5, atol=1e-5)


def test_real_transform_values_from_tensorflow():
    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    # TF 2.21
    np.testing.assert_allclose(tf.signal.rfft(x, [6]).numpy(),
                               [10, -3.5 - 4.330127j, 2.5 + 0.8660253j, -2], rtol=1e-6)
    spectrum = tf.constant([1 + 2j, 3 + 1j, 2 - 1j], tf.complex64)
    np.testing.assert_allclose(tf.signal.irfft(spectrum).numpy(), [2.25, -0.75, -0.75, 0.25])
    np.testing.assert_allclose(tf.signal.irfft(spectrum, [5]).numpy(),
                               [2.2, -0.2217017, -1.1391436, 0.09192987, 0.06891534], rtol=1e-6)
    # A spectrum that is not Hermitian: the imaginary parts of the self-conjugate bins are ignored.
    z = tf.constant([[1 + 2j, 3 + 1j, 2 - 1j], [0.5 + 1j, 2 + 2j, -1 + 3j]])
    np.testing.assert_allclose(tf.signal.irfft2d(z).numpy(), [[1.5625, -0.6875, -0.9375, 0.8125],
                                                             [0.6875, -0.0625, 0.1875, -0.5625]], atol=1e-15)
    out = tf.signal.rfft2d(tf.constant([[1.0, 2.0, 0.5], [-1.0, 3.0, 2.0]], tf.float64), [3, 4])
    np.testing.assert_allclose(out.numpy(), [[7.5, -2.5 - 5j, -2.5],
                                             [1.5 - 3.4641016151377544j, -0.598076211353316 + 2.098076211353316j,
                                              0.5 + 1.7320508075688772j],
                                             [1.5 + 3.4641016151377544j, 4.598076211353316 - 3.098076211353316j,
                                              0.5 - 1.7320508075688772j]], atol=1e-14)


@pytest.mark.parametrize("forward, inverse, reference, back, rank", [
    (tf.signal.rfft2d, tf.signal.irfft2d, np.fft.rfft2, np.fft.irfft2, 2),
    (tf.signal.rfft3d, tf.signal.irfft3d, np.fft.rfftn, np.fft.irfftn, 3)])
def test_multidimensional_real_transforms(forward, inverse, reference, back, rank):
    x = RNG.normal(size=(2, 3, 4, 6))
    axes = tuple(range(-rank, 0))
    lengths = [5, 3, 8][-rank:]
    spectrum = traced(lambda t: forward(t, lengths), tf.constant(x))
    np.testing.assert_allclose(spectrum.numpy(), reference(x, s=lengths, axes=axes), atol=1e-12)
    np.testing.assert_allclose(inverse(spectrum, lengths).numpy(),
                               back(spectrum.numpy(), s=lengths, axes=axes), atol=1e-12)


def test_real_transform_dtype_and_rank_errors():
    with pytest.raises(ValueError, match="RFFT requires tf.float32 or tf.float64 inputs, got: tf.Tensor"):
        tf.signal.rfft(tf.constant([1, 2, 3]))
    with pytest.raises(ValueError, match="RFFT requires tf.float32 or tf.float64 inputs"):
        tf.signal.rfft2d(tf.constant([[1.0]], tf.float16))
    with pytest.raises(ValueError, match="IRFFT requires tf.complex64 or tf.complex128 inputs"):
        tf.signal.irfft(tf.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"Shape \(\) must have rank at least 1"):
        tf.signal.rfft(tf.constant(1.0))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"fft_length must have shape \[1\]"):
        tf.signal.rfft(tf.constant([1.0, 2.0]), [2, 3])
    # Python lists become float32 / complex64, as in TensorFlow.
    assert tf.signal.rfft([1.0, 2.0, 3.0]).dtype is tf.complex64
    assert tf.signal.irfft([1 + 2j, 3 + 1j]).dtype is tf.float32


def test_real_transform_static_shapes():
    spec = tf.TensorSpec
    assert static_shape(lambda s: tf.signal.rfft(s, [8]), spec([3, None], tf.float32)) == [3, 5]
    assert static_shape(tf.signal.rfft, spec([3, None], tf.float32)) == [3, None]
    assert static_shape(lambda s, n: tf.signal.rfft(s, n), spec([3, 7], tf.float32), spec([1], tf.int32)) == [3, None]
    assert static_shape(tf.signal.irfft, spec([3, 5], tf.complex64)) == [3, 8]
    assert static_shape(lambda s: tf.signal.irfft2d(s, [5, 6]), spec([3, None, 6], tf.complex64)) == [3, 5, 6]
    x = RNG.normal(size=(2, 9)).astype(np.float32)
    unknown = tf.function(tf.signal.rfft, input_signature=[spec([None, None], tf.float32)])
    np.testing.assert_allclose(unknown(tf.constant(x)).numpy(), np.fft.rfft(x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("length", [None, 4, 5, 9])
def test_rfft_gradient(length):
    fft_length = None if length is None else [length]
    check_gradients(lambda a: real_and_imag(tf.signal.rfft(a, fft_length)), [RNG.normal(size=(2, 6))],
                    rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("length", [None, 3, 5, 6, 12])
def test_irfft_gradient(length):
    fft_length = None if length is None else [length]
    check_gradients(lambda a, b: tf.signal.irfft(make_complex(a, b), fft_length),
                    [RNG.normal(size=(2, 4)), RNG.normal(size=(2, 4))], rtol=1e-6, atol=1e-8)


def test_multidimensional_real_transform_gradients():
    check_gradients(lambda a: real_and_imag(tf.signal.rfft2d(a, [3, 5])), [RNG.normal(size=(2, 4, 6))],
                    rtol=1e-6, atol=1e-8)
    check_gradients(lambda a, b: tf.signal.irfft2d(make_complex(a, b), [3, 4]),
                    [RNG.normal(size=(2, 4, 3)), RNG.normal(size=(2, 4, 3))], rtol=1e-6, atol=1e-8)
    check_gradients(lambda a, b: tf.signal.irfft3d(make_complex(a, b)),
                    [RNG.normal(size=(2, 2, 3)), RNG.normal(size=(2, 2, 3))], rtol=1e-6, atol=1e-8)


def test_real_transform_gradient_values_from_tensorflow():
    x = tf.constant([1.0, 2.0, -1.0, 0.5, 3.0], tf.float64)
    z = tf.constant([1 + 2j, 3 - 1j, 0.5 + 0.5j, -1 + 1j])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        power = tf.reduce_sum(tf.abs(tf.signal.rfft(x)) ** 2)
        weighted = tf.reduce_sum(tf.signal.irfft(z) * tf.constant([1.0, 2, 3, 4, 5, 6], tf.float64))
    # TF 2.21
    np.testing.assert_allclose(tape.gradient(power, x).numpy(), [10.5, 15.5, 0.5, 8.0, 20.5], rtol=1e-12)
    np.testing.assert_allclose(tape.gradient(weighted, z).numpy(),
                               [3.5, -1 + 1.7320508075688772j, -1 + 0.5773502691896257j, -0.5], rtol=1e-12)


def test_real_transform_gradients_with_unknown_shapes_match_eager():
    def gradients(x, re, im):
        with tf.GradientTape() as tape:
            tape.watch([x, re, im])
            loss = tf.reduce_sum(tf.sin(tf.abs(tf.signal.rfft(x, [5])))) + \
                tf.reduce_sum(tf.sin(tf.signal.irfft(make_complex(re, im))))
        return tape.gradient(loss, [x, re, im])
    args = [tf.constant(RNG.normal(size=(2, 7))), tf.constant(RNG.normal(size=(2, 5))),
            tf.constant(RNG.normal(size=(2, 5)))]
    unknown = [tf.TensorSpec([None, None], tf.float64)] * 3
    for eager, graph in zip(gradients(*args), tf.function(gradients, input_signature=unknown)(*args)):
        np.testing.assert_allclose(graph.numpy(), eager.numpy(), rtol=1e-12, atol=1e-12)


# -- fftshift ---------------------------------------------------------------------------------------

def test_fftshift_and_ifftshift():
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    np.testing.assert_array_equal(tf.signal.fftshift(tf.constant(x)).numpy(), np.fft.fftshift(x))
    np.testing.assert_array_equal(tf.signal.ifftshift(tf.constant(x), axes=1).numpy(), np.fft.ifftshift(x, axes=1))
    # TF 2.21
    assert tf.signal.fftshift(tf.constant(x), axes=[-1, 0]).numpy().tolist() == [
        [[14, 15, 12, 13], [18, 19, 16, 17], [22, 23, 20, 21]], [[2, 3, 0, 1], [6, 7, 4, 5], [10, 11, 8, 9]]]
    assert tf.signal.ifftshift(tf.range(5)).numpy().tolist() == [2, 3, 4, 0, 1]
    unknown = tf.function(tf.signal.ifftshift, input_signature=[tf.TensorSpec([None, None], tf.int32)])
    np.testing.assert_array_equal(unknown(tf.constant(x[0])).numpy(), np.fft.ifftshift(x[0]))
    assert static_shape(tf.signal.fftshift, tf.TensorSpec([None, 3], tf.float32)) == [None, 3]
    check_gradients(tf.signal.fftshift, [RNG.normal(size=(3, 5))])


# -- frame / overlap_and_add ------------------------------------------------------------------------

def test_frame_values_from_tensorflow():
    signal = tf.range(10)
    # TF 2.21
    assert tf.signal.frame(signal, 4, 3).numpy().tolist() == [[0, 1, 2, 3], [3, 4, 5, 6], [6, 7, 8, 9]]
    assert tf.signal.frame(signal, 4, 3, pad_end=True, pad_value=-1).numpy().tolist() == [
        [0, 1, 2, 3], [3, 4, 5, 6], [6, 7, 8, 9], [9, -1, -1, -1]]
    assert tf.signal.frame(tf.range(3), 4, 3).shape == (0, 4)
    assert tf.signal.frame(tf.range(3), 4, 3, pad_end=True).numpy().tolist() == [[0, 1, 2, 0]]
    assert tf.signal.frame(tf.zeros([0]), 4, 3, pad_end=True).shape == (0, 4)
    padded = tf.signal.frame(tf.ones([5]), 4, 2, pad_end=True, pad_value=0.5)
    np.testing.assert_array_equal(padded.numpy(), [[1, 1, 1, 1], [1, 1, 1, 0.5], [1, 0.5, 0.5, 0.5]])
    with pytest.raises(ValueError, match=r"Shape \(\) must have rank at least 1"):
        tf.signal.frame(tf.constant(1.0), 4, 3)


def test_frame_along_any_axis():
    x = np.arange(40.0).reshape(2, 10, 2)
    out = tf.signal.frame(tf.constant(x), 4, 3, axis=1)
    assert out.shape == (2, 3, 4, 2)
    np.testing.assert_array_equal(out.numpy()[:, 2, :, :], x[:, 6:10, :])
    assert tf.signal.frame(tf.constant(x[0]), 4, 3, axis=0).shape == (3, 4, 2)


def test_frame_in_graphs():
    spec = tf.TensorSpec
    assert static_shape(lambda s: tf.signal.frame(s, 4, 3), spec([None], tf.float32)) == [None, 4]
    assert static_shape(lambda s: tf.signal.frame(s, 4, 3, pad_end=True), spec([2, 17], tf.float32)) == [2, 6, 4]
    framed = tf.function(lambda s: tf.signal.frame(s, 4, 3, pad_end=True, pad_value=-1.0),
                         input_signature=[spec([None, None], tf.float32)])
    x = RNG.normal(size=(2, 11)).astype(np.float32)
    np.testing.assert_array_equal(framed(tf.constant(x)).numpy(),
                                  tf.signal.frame(tf.constant(x), 4, 3, pad_end=True, pad_value=-1.0).numpy())
    check_gradients(lambda a: tf.signal.frame(a, 3, 2, pad_end=True, axis=0), [RNG.normal(size=(7, 2))])


def test_overlap_and_add():
    frames = tf.reshape(tf.range(12.0), [3, 4])
    # TF 2.21
    assert tf.signal.overlap_and_add(frames, 2).numpy().tolist() == [0, 1, 6, 8, 14, 16, 10, 11]
    assert tf.signal.overlap_and_add(frames, 5).numpy().tolist() == [0, 1, 2, 3, 0, 4, 5, 6, 7, 0, 8, 9, 10, 11]
    assert tf.signal.overlap_and_add(tf.zeros([0, 4]), 2).shape == (2,)
    batched = RNG.normal(size=(2, 3, 5, 4))
    out = tf.signal.overlap_and_add(tf.constant(batched), 3)
    expected = np.zeros((2, 3, 16))
    for i in range(5):
        expected[..., 3 * i:3 * i + 4] += batched[:, :, i]
    np.testing.assert_allclose(out.numpy(), expected, atol=1e-12)
    with pytest.raises(ValueError, match=r"must have rank at least 2"):
        tf.signal.overlap_and_add(tf.range(4.0), 2)
    with pytest.raises(ValueError, match="frame_step must be an integer"):
        tf.signal.overlap_and_add(frames, 2.0)


def test_overlap_and_add_in_graphs_and_gradients():
    spec = tf.TensorSpec
    assert static_shape(lambda s: tf.signal.overlap_and_add(s, 2), spec([3, 5, 4], tf.float32)) == [3, 12]
    assert static_shape(lambda s: tf.signal.overlap_and_add(s, 2), spec([3, None, 4], tf.float32)) == [3, None]
    unknown = tf.function(lambda s: tf.signal.overlap_and_add(s, 2), input_signature=[spec([None] * 3, tf.float32)])
    x = tf.reshape(tf.range(24.0), [2, 3, 4])
    np.testing.assert_array_equal(unknown(x).numpy(), tf.signal.overlap_and_add(x, 2).numpy())
    check_gradients(lambda a: tf.signal.overlap_and_add(a, 2), [RNG.normal(size=(2, 3, 4))])
    with tf.GradientTape() as tape:
        frames = tf.ones([3, 4], tf.float64)
        tape.watch(frames)
        loss = tf.reduce_sum(tf.signal.overlap_and_add(frames, 2) * tf.range(8.0, dtype=tf.float64))
    # TF 2.21
    assert tape.gradient(loss, frames).numpy().tolist() == [[0, 1, 2, 3], [2, 3, 4, 5], [4, 5, 6, 7]]


# -- windows ----------------------------------------------------------------------------------------

def test_windows_match_tensorflow():
    # TF 2.21 (float32 results: TF's cos differs from NumPy's by an ulp at most)
    np.testing.assert_allclose(tf.signal.hann_window(6).numpy(), [0, 0.25, 0.75, 1, 0.74999994, 0.24999982],
                               atol=1e-7)
    np.testing.assert_allclose(tf.signal.hann_window(6, periodic=False).numpy(),
                               [0, 0.34549153, 0.9045085, 0.9045085, 0.34549144, 0], atol=1e-7)
    # An odd-length periodic window is the symmetric one (TensorFlow's rule).
    assert tf.signal.hann_window(5).numpy().tolist() == [0, 0.5, 1, 0.5, 0]
    np.testing.assert_allclose(tf.signal.hamming_window(6, dtype=tf.float64).numpy(),
                               [0.08, 0.31, 0.77, 1.0, 0.77, 0.31], rtol=1e-14)
    np.testing.assert_allclose(tf.signal.hamming_window(7, periodic=False).numpy(),
                               [0.08000001, 0.31000003, 0.77000004, 1, 0.77, 0.30999985, 0.08000001], atol=1e-7)
    assert tf.signal.hann_window(1).numpy().tolist() == [1.0]
    assert tf.signal.hann_window(0).shape == (0,)
    assert tf.signal.hann_window(4, dtype=tf.float16).dtype is tf.float16
    with pytest.raises(ValueError, match="dtype must be a floating point type. Found <dtype: 'int32'>"):
        tf.signal.hann_window(4, dtype=tf.int32)


def test_window_with_a_length_known_at_run_time():
    window = tf.function(lambda n: tf.signal.hann_window(n), input_signature=[tf.TensorSpec([], tf.int32)])
    assert static_shape(lambda n: tf.signal.hann_window(n), tf.TensorSpec([], tf.int32)) == [None]
    assert window(tf.constant(1)).numpy().tolist() == [1.0]
    np.testing.assert_array_equal(window(tf.constant(8)).numpy(), tf.signal.hann_window(8).numpy())
    np.testing.assert_array_equal(tf.signal.hamming_window(tf.constant(7)).numpy(),
                                  tf.signal.hamming_window(7).numpy())


# -- stft / inverse_stft ----------------------------------------------------------------------------

def numpy_stft(x, frame_length, frame_step, fft_length):
    count = 1 + (x.shape[-1] - frame_length) // frame_step
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(frame_length) / frame_length)
    frames = np.stack([x[..., i * frame_step:i * frame_step + frame_length] for i in range(count)], -2)
    return np.fft.rfft(frames * window, n=fft_length)


def test_stft_values():
    signal = np.sin(np.arange(20) * 0.3).astype(np.float32)
    out = tf.signal.stft(tf.constant(signal), 8, 4)
    assert out.dtype is tf.complex64 and out.shape == (4, 5)
    # TF 2.21 (first two frames)
    np.testing.assert_allclose(out.numpy()[:2], [
        [3.3910027, -1.8868699 + 0.39265043j, 0.16279405 - 0.09966785j, 0.022791684 - 0.016554713j, 0.011565685],
        [2.4575124, -1.3674437 - 0.79903924j, 0.11797941 + 0.20282269j, 0.016517282 + 0.033688396j, 0.008381724]],
        rtol=1e-5, atol=1e-6)
    x = RNG.normal(size=(2, 50))
    np.testing.assert_allclose(tf.signal.stft(tf.constant(x), 10, 3, fft_length=16).numpy(),
                               numpy_stft(x, 10, 3, 16), atol=1e-12)
    assert tf.signal.stft(tf.constant(x), 5, 4).shape == (2, 12, 5)  # fft_length 8: the power of two above 5
    with pytest.raises(ValueError, match="dtype must be a floating point type"):
        tf.signal.stft(tf.range(16), 8, 4)


def test_stft_in_graphs():
    spec = tf.TensorSpec
    assert static_shape(lambda s: tf.signal.stft(s, 8, 4), spec([2, None], tf.float32)) == [2, None, 5]
    assert static_shape(lambda s: tf.signal.stft(s, 8, 4, pad_end=True), spec([2, 17], tf.float32)) == [2, 5, 5]
    assert static_shape(lambda s: tf.signal.inverse_stft(s, 8, 4), spec([2, None, 5], tf.complex64)) == [2, None]
    assert static_shape(lambda s: tf.signal.inverse_stft(s, 8, 4), spec([2, 3, 5], tf.complex64)) == [2, 16]
    x = tf.constant(RNG.normal(size=(2, 21)).astype(np.float32))
    unknown = tf.function(lambda s: tf.signal.stft(s, 8, 4, pad_end=True),
                          input_signature=[spec([None, None], tf.float32)])
    np.testing.assert_allclose(unknown(x).numpy(), tf.signal.stft(x, 8, 4, pad_end=True).numpy(), atol=1e-6)


def test_inverse_stft_values_from_tensorflow():
    stfts = tf.signal.stft(tf.range(16.0), 8, 4)
    # TF 2.21
    np.testing.assert_allclose(tf.signal.inverse_stft(stfts, 8, 4).numpy(), [
        0.0, 0.02144666, 0.5, 2.18566, 4.0, 3.75, 3.0, 5.25, 8.0, 6.75, 5.0, 8.25, 12.0, 9.471193, 3.5, 0.3216985],
        atol=2e-5)
    window_fn = tf.signal.inverse_stft_window_fn(4)
    np.testing.assert_allclose(tf.signal.inverse_stft(stfts, 8, 4, window_fn=window_fn).numpy(), [
        0.0, 0.02859555, 1.0, 2.914213, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 12.62826, 7.0, 0.4289314],
        atol=2e-5)
    # frame_length above fft_length: the frames are zero-padded before windowing.
    longer = tf.signal.inverse_stft(tf.signal.stft(tf.range(16.0), 8, 4, fft_length=8), 10, 4, fft_length=8)
    assert longer.shape == (18,)
    np.testing.assert_allclose(longer.numpy()[:6], [0.0, 0.01398444, 0.3454915, 1.675974, 3.618034, 4.337689],
                               atol=2e-5)
    np.testing.assert_allclose(tf.signal.inverse_stft_window_fn(3)(8, tf.float32).numpy(), [
        0.0, 0.14042343, 0.5109583, 0.8722604, 0.958871, 0.8722604, 0.5109583, 0.14042327], atol=1e-6)


def test_inverse_stft_reconstructs_the_signal():
    x = RNG.normal(size=(3, 64))
    stfts = tf.signal.stft(tf.constant(x), 16, 4)
    rebuilt = tf.signal.inverse_stft(stfts, 16, 4, window_fn=tf.signal.inverse_stft_window_fn(4))
    # Away from the edges (covered by fewer frames) the reconstruction is exact.
    np.testing.assert_allclose(rebuilt.numpy()[:, 12:-12], x[:, 12:-12], atol=1e-12)


def test_stft_gradients():
    check_gradients(lambda a: tf.abs(tf.signal.stft(a, 8, 4)) ** 2, [RNG.normal(size=(2, 20))],
                    rtol=1e-6, atol=1e-8)
    check_gradients(lambda a, b: tf.signal.inverse_stft(make_complex(a, b), 8, 4),
                    [RNG.normal(size=(3, 5)), RNG.normal(size=(3, 5))], rtol=1e-6, atol=1e-8)
    signal = tf.constant(np.sin(np.arange(20) * 0.3).astype(np.float32))
    with tf.GradientTape() as tape:
        tape.watch(signal)
        loss = tf.reduce_sum(tf.abs(tf.signal.stft(signal, 8, 4)))
    # TF 2.21
    expected = [0.0, -0.06893974, 0.17786485, 0.86528003, 3.0227911, 0.9908507, 2.419074, 0.9858093, 2.9259834,
                0.21932864, 0.047941327, 0.14379895, -2.7214746, -1.0003428, -2.3106856, -0.9856666, -3.002664,
                -1.1509167, -0.40026712, 0.17365457]
    np.testing.assert_allclose(tape.gradient(loss, signal).numpy(), expected, atol=2e-5)


def test_a_spectral_loss_trains():
    """Gradient descent on a spectrogram distance, in a tf.function, brings a noisy signal's STFT
    magnitudes to the clean signal's."""
    clean = np.sin(np.arange(64) * 0.5)
    target = tf.abs(tf.signal.stft(tf.constant(clean), 16, 8))
    signal = tf.Variable(clean + 0.3 * RNG.normal(size=64))

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum((tf.abs(tf.signal.stft(signal, 16, 8)) - target) ** 2)
        signal.assign_sub(0.005 * tape.gradient(loss, signal))
        return loss
    losses = [float(step()) for _ in range(60)]
    assert losses[-1] < 0.05 * losses[0]


# -- mel filterbank ---------------------------------------------------------------------------------

def test_linear_to_mel_weight_matrix():
    weights = tf.signal.linear_to_mel_weight_matrix(5, 17, 16000, 20.0, 7000.0)
    assert weights.dtype is tf.float32 and weights.shape == (17, 5)
    # TF 2.21 (rows 1-3 and 9-10)
    np.testing.assert_allclose(weights.numpy()[1:4], [[0.7066203, 0.29337975, 0, 0, 0],
                                                      [0, 0.8247287, 0.17527129, 0, 0],
                                                      [0, 0.17192096, 0.82807904, 0, 0]], atol=1e-6)
    np.testing.assert_allclose(weights.numpy()[8:10], [[0, 0, 0, 0.24991183, 0.75008816], [0, 0, 0, 0, 0.99394244]],
                               atol=1e-6)
    assert not weights.numpy()[0].any() and not weights.numpy()[14:].any()
    doubles = tf.signal.linear_to_mel_weight_matrix(3, 5, 16000, 0.0, 8000.0, dtype=tf.float64)
    np.testing.assert_allclose(doubles.numpy(), [[0, 0, 0], [0, 0.8572574530071057, 0.14274254699289432],
                                                 [0, 0, 0.9773984334478543], [0, 0, 0.4146281106808294], [0, 0, 0]],
                               rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="num_mel_bins must be positive. Got: 0"):
        tf.signal.linear_to_mel_weight_matrix(0)
    with pytest.raises(ValueError, match="lower_edge_hertz 3800.0 >= upper_edge_hertz 125.0"):
        tf.signal.linear_to_mel_weight_matrix(4, 9, 8000, 3800.0, 125.0)
    with pytest.raises(ValueError, match=r"must not be larger than the Nyquist frequency"):
        tf.signal.linear_to_mel_weight_matrix(4, 9, 8000, 125.0, 5000.0)


def test_namespace_is_complete():
    names = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d", "irfft2d", "rfft3d",
             "irfft3d", "fftshift", "ifftshift", "frame", "overlap_and_add", "hann_window", "hamming_window", "stft",
             "inverse_stft", "inverse_stft_window_fn", "linear_to_mel_weight_matrix"]
    assert all(callable(getattr(tf.signal, n)) for n in names)
