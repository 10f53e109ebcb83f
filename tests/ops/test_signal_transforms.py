"""tf.signal's DCT family, MDCT, Vorbis/Kaiser/KBD windows and MFCCs against values recorded from
TensorFlow 2.21 (signal_transforms_cases.json). TensorFlow computes the twiddle factors in complex64,
so results agree to float32 rounding (rtol 1e-5), not bit for bit; windows agree to ~1e-7."""
import json
import os

import numpy as np
import pytest

import tensorflux as tf

with open(os.path.join(os.path.dirname(__file__), "signal_transforms_cases.json")) as f:
    E = json.load(f)
X = np.array(E["x"], np.float32)
X64 = np.array(E["x64"])
SIG = np.array(E["sig"], np.float32)


def close(got, name, rtol=1e-5, atol=1e-5):
    want = np.array(E[name])
    got = np.asarray(got)
    assert got.shape == want.shape, name
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=name)


@pytest.mark.parametrize("kind", [1, 2, 3, 4])
def test_dct_and_idct(kind):
    close(tf.signal.dct(X, type=kind), f"dct{kind}")
    close(tf.signal.idct(X, type=kind), f"idct{kind}")
    out64 = tf.signal.dct(X64, type=kind)
    assert out64.dtype == tf.float64
    close(out64, f"dct{kind}_64")
    if kind != 1:
        close(tf.signal.dct(X, type=kind, norm="ortho"), f"dct{kind}_ortho")
        close(tf.signal.idct(X, type=kind, norm="ortho"), f"idct{kind}_ortho")
        # orthonormal: idct inverts dct exactly (up to rounding)
        back = tf.signal.idct(tf.signal.dct(X, type=kind, norm="ortho"), type=kind, norm="ortho")
        np.testing.assert_allclose(back.numpy(), X, rtol=1e-5, atol=1e-5)


def test_dct_length_argument_and_tracing_and_gradient():
    close(tf.signal.dct(X, n=10), "dct2_n10")
    close(tf.signal.dct(X, n=20), "dct2_n20")
    close(tf.function(lambda v: tf.signal.dct(v, norm="ortho"))(X), "dct2_ortho")
    xv = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(xv)
        y = tf.reduce_sum(tf.signal.dct(xv, type=2, norm="ortho") * np.arange(16, dtype=np.float32))
    close(tape.gradient(y, xv), "grad_dct2_ortho")


@pytest.mark.parametrize("n", [1, 2, 7, 16])
def test_windows(n):
    close(tf.signal.vorbis_window(n), f"vorbis{n}", rtol=1e-6, atol=1e-7)
    close(tf.signal.kaiser_window(n), f"kaiser{n}", rtol=1e-6, atol=1e-7)
    window = tf.signal.kaiser_window(n, beta=3.0, dtype=tf.float64)
    assert window.dtype == tf.float64
    close(window, f"kaiser{n}_b3", rtol=1e-12, atol=1e-12)
    close(tf.signal.kaiser_bessel_derived_window(n), f"kbd{n}", rtol=1e-6, atol=1e-7)


def test_mdct_round_trip_and_mfccs():
    m = tf.signal.mdct(SIG, 16)
    close(m, "mdct")
    close(tf.signal.mdct(SIG, 16, window_fn=tf.signal.kaiser_bessel_derived_window, norm="ortho"), "mdct_ortho_kbd")
    close(tf.signal.inverse_mdct(m), "imdct")
    close(tf.signal.mdct(SIG[:, :60], 16, window_fn=None, pad_end=True), "mdct_nowindow_pad")
    close(tf.signal.inverse_mdct(m, window_fn=None), "imdct_nowindow")
    close(tf.signal.mfccs_from_log_mel_spectrograms(np.array(E["logmel"], np.float32)), "mfcc")


def test_errors():
    with pytest.raises(ValueError, match="Types I, II, III and IV"):
        tf.signal.dct(X, type=5)
    with pytest.raises(NotImplementedError, match="axis must be -1"):
        tf.signal.dct(X, axis=0)
    with pytest.raises(ValueError, match="Normalization is not supported for the Type-I DCT"):
        tf.signal.dct(X, type=1, norm="ortho")
    with pytest.raises(ValueError, match="Unknown normalization"):
        tf.signal.dct(X, norm="forward")
