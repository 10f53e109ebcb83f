"""tf.audio.decode_wav / encode_wav against TensorFlow 2.21: bytes, samples, and the errors of malformed files.

Every expected value below was printed by TensorFlow 2.21 for the same input (files built in the test by
`_wav`, the same builder the recording script used)."""
import struct

import numpy as np
import pytest

import tensorflux as tf


def _wav(channels=1, rate=8000, bits=16, fmt=1, data=b"\x01\x00\x02\x00", fmt_size=16, extra_chunks=b"",
         wave=b"WAVE", fmtid=b"fmt ", block=None, byterate=None, data_size=None):
    block = block if block is not None else channels * bits // 8
    byterate = byterate if byterate is not None else rate * block
    fmt_chunk = struct.pack("<HHIIHH", fmt, channels, rate, byterate, block, bits) + b"\x00" * (fmt_size - 16)
    body = (wave + fmtid + struct.pack("<I", fmt_size) + fmt_chunk + extra_chunks + b"data" +
            struct.pack("<I", len(data) if data_size is None else data_size) + data)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def test_encode_then_decode_round_trip_as_tensorflow():
    audio = tf.constant([[0.0, 0.5], [1.0, -1.0], [0.25, -0.3], [2.0, -2.0], [1e-5, 0.999999]])
    encoded = tf.audio.encode_wav(audio, 16000)
    assert encoded.dtype == tf.string and encoded.shape == []
    assert encoded.numpy().hex() == (
        "524946463800000057415645666d74201000000001000200803e000000fa0000040010006461746114000000"
        "00000040ff7f008000209ad9ff7f00800000ff7f")
    decoded, rate = tf.audio.decode_wav(encoded)
    np.testing.assert_array_equal(decoded.numpy(), np.array(
        [[0.0, 0.5], [0.9999695, -1.0], [0.25, -0.2999878], [0.9999695, -1.0], [0.0, 0.9999695]], np.float32))
    assert rate.dtype == tf.int32 and int(rate) == 16000
    # TensorFlow's result is a namedtuple
    assert type(tf.audio.decode_wav(encoded)).__name__ == "DecodeWav"


def test_encoding_rounds_half_away_from_zero_and_clamps():
    x = np.array([[1.5 / 32768], [2.5 / 32768], [-1.5 / 32768], [-2.5 / 32768], [np.nan], [np.inf], [-np.inf],
                  [0.49999 / 32768]], np.float32)
    pcm = np.frombuffer(tf.audio.encode_wav(x, 8000).numpy()[44:], "<i2")
    assert pcm.tolist() == [2, 3, -2, -3, 0, 32767, -32768, 0]
    assert tf.audio.encode_wav(tf.constant([[0.5, 0.25, 0.1]]), 44100).numpy().hex() == (
        "524946462a00000057415645666d7420100000000100030044ac0000980904000600100064617461060000000040"
        "0020cd0c")
    # Header fields wrap as TensorFlow's 32-bit ones do; empty audio is a header alone.
    assert tf.audio.encode_wav(np.zeros((2, 1), np.float32), 2 ** 31 - 1).numpy().hex() == (
        "524946462800000057415645666d74201000000001000100ffffff7ffeffffff020010006461746104000000"
        "00000000")
    assert tf.audio.encode_wav(np.zeros((0, 1), np.float32), 8000).numpy().hex() == (
        "524946462400000057415645666d74201000000001000100401f0000803e00000200100064617461"
        "00000000")
    # a NumPy float64 array converts to the op's float32, as TensorFlow's wrapper converts it
    assert tf.audio.encode_wav(np.zeros((2, 1)), 8000).numpy().hex() == (
        "524946462800000057415645666d74201000000001000100401f0000803e000002001000646174610400000000000000")


def test_desired_channels_and_samples():
    encoded = tf.audio.encode_wav(tf.constant([[0.5, -0.5], [0.25, 0.125]]), 8000)
    cases = [(dict(desired_channels=0), [[], []], [2, 0]),
             (dict(desired_channels=-1), [[0.5, -0.5], [0.25, 0.125]], [2, 2]),
             (dict(desired_samples=-1), [[0.5, -0.5], [0.25, 0.125]], [2, 2]),
             (dict(desired_samples=0), [], [0, 2]),
             (dict(desired_samples=1), [[0.5, -0.5]], [1, 2]),
             (dict(desired_channels=3), [[0.5, -0.5, -0.5], [0.25, 0.125, 0.125]], [2, 3]),
             (dict(desired_channels=1, desired_samples=4), [[0.5], [0.25], [0.0], [0.0]], [4, 1])]
    for kwargs, values, shape in cases:
        audio, _ = tf.audio.decode_wav(encoded, **kwargs)
        assert audio.shape.as_list() == shape, kwargs
        assert audio.numpy().tolist() == values, kwargs


FILES = {  # name: (file, TensorFlow's outcome: samples and rate, or the message)
    "ok": (_wav(), ([[3.0517578125e-05], [6.103515625e-05]], 8000)),
    "fmt18": (_wav(fmt_size=18), ([[3.0517578125e-05], [6.103515625e-05]], 8000)),
    "list_chunk": (_wav(extra_chunks=b"LIST" + struct.pack("<I", 4) + b"abcd"),
                   ([[3.0517578125e-05], [6.103515625e-05]], 8000)),
    "rate0": (_wav(rate=0), ([[3.0517578125e-05], [6.103515625e-05]], 0)),
    "ch3": (_wav(channels=3, data=b"\x01\x00" * 6), ([[3.0517578125e-05] * 3] * 2, 8000)),
    "stereo_odd": (_wav(channels=2, data=b"\x01\x00\x02\x00\x03\x00"), "Data too short when trying to read string"),
    "bits8": (_wav(bits=8, data=b"\x01\x02"), "Can only read 16-bit WAV files, but received 8"),
    "bits24": (_wav(bits=24, data=b"\x01\x02\x03"), "Can only read 16-bit WAV files, but received 24"),
    "float_fmt": (_wav(fmt=3), "Bad audio format for WAV: Expected 1 (PCM), but got3"),
    "extensible": (_wav(fmt=0xFFFE), "Bad audio format for WAV: Expected 1 (PCM), but got65534"),
    "fmt40": (_wav(fmt_size=40), "Bad format chunk size for WAV: Expected 16 or 18, but got40"),
    "wave_bad": (_wav(wave=b"WAVX"), "Header mismatch: Expected WAVE but found WAVX"),
    "fmt_bad": (_wav(fmtid=b"fmx "), "Unexpected field fmx "),
    "odd_chunk": (_wav(extra_chunks=b"junk" + struct.pack("<I", 3) + b"abc\x00"), "No data chunk found in WAV"),
    "data_short": (_wav(data_size=100), "Data too short when trying to read string"),
    "channels0": (_wav(channels=0), "Bad number of channels for WAV: Expected at least 1, but got 0"),
    "block_bad": (_wav(block=3), "Bad bytes per sample in WAV header: Expected 2 but got 3"),
    "byterate_bad": (_wav(byterate=5), "Bad bytes per second in WAV header: Expected 16000 but got 5 "
                                       "(sample_rate=8000, bytes_per_sample=2)"),
    "no_data": (_wav()[:-12], "No data chunk found in WAV"),
    "empty": (b"", "Data too short when trying to read string"),
    "riff_only": (b"RIFF", "Data too short when trying to read string"),
    "riff_size_big": (_wav()[:4] + struct.pack("<I", 1000) + _wav()[8:], ([[3.0517578125e-05], [6.103515625e-05]], 8000)),
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_files_decode_or_fail_as_in_tensorflow(name):
    data, expected = FILES[name]
    if isinstance(expected, str):
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            tf.audio.decode_wav(tf.constant(data))
        assert f"}} {expected} [Op:DecodeWav]" in str(info.value)
    else:
        audio, rate = tf.audio.decode_wav(tf.constant(data))
        assert (audio.numpy().tolist(), int(rate)) == expected


def test_errors_of_bad_arguments_are_tensorflows():
    prefix = "{{function_node __wrapped__%s_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
    cases = [
        (lambda: tf.audio.encode_wav(tf.constant([[0.5]], tf.float64), 8000),
         "cannot compute EncodeWav as input #0(zero-based) was expected to be a float tensor but is a double tensor "
         "[Op:EncodeWav] name: "),
        (lambda: tf.audio.encode_wav(tf.constant([[0.5]]), tf.constant(8000, tf.int64)),
         "cannot compute EncodeWav as input #1(zero-based) was expected to be a int32 tensor but is a int64 tensor "
         "[Op:EncodeWav] name: "),
        (lambda: tf.audio.encode_wav(tf.constant([1.0, 2.0]), 8000),
         prefix % "EncodeWav" + "audio must be 2-dimensional[2] [Op:EncodeWav] name: "),
        (lambda: tf.audio.encode_wav(tf.constant([[0.5]]), -1),
         prefix % "EncodeWav" + "sample_rate must be in (0, 2^32), got: 18446744073709551615 [Op:EncodeWav] name: "),
        (lambda: tf.audio.encode_wav(tf.zeros([2, 0]), 8000),
         prefix % "EncodeWav" + "num_channels must be in (0, 2^16), got: 0 [Op:EncodeWav] name: "),
        (lambda: tf.audio.decode_wav(tf.constant(["a", "b"])),
         prefix % "DecodeWav" + "contents must be scalar, got shape [2] [Op:DecodeWav] name: "),
        (lambda: tf.audio.decode_wav(tf.constant(1)),
         "cannot compute DecodeWav as input #0(zero-based) was expected to be a string tensor but is a int32 tensor "
         "[Op:DecodeWav] name: "),
    ]
    for call, message in cases:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            call()
        assert str(info.value) == message


def test_in_a_graph():
    @tf.function
    def decode(data):
        return tf.audio.decode_wav(data, desired_channels=2, desired_samples=10)

    outputs = decode.get_concrete_function(tf.TensorSpec([], tf.string)).structured_outputs
    assert outputs.audio.shape.as_list() == [10, 2] and outputs.sample_rate.shape.as_list() == []
    audio, rate = decode(tf.audio.encode_wav(tf.constant([[0.5, -0.5]]), 8000))
    assert audio.numpy()[0].tolist() == [0.5, -0.5] and audio.numpy()[1:].sum() == 0 and int(rate) == 8000

    @tf.function
    def encode(audio):
        return tf.audio.encode_wav(audio, 8000)

    with pytest.raises(TypeError) as info:      # framed as TensorFlow frames errors of converted code
        encode.get_concrete_function(tf.TensorSpec([None, None], tf.float64))
    assert str(info.value).startswith("in user code:")
    assert str(info.value).endswith("    TypeError: Input 'audio' of 'EncodeWav' Op has type float64 that does not "
                                    "match expected type of float32.\n")

    @tf.function
    def decode_any(data):
        return tf.audio.decode_wav(data)

    with pytest.raises(ValueError) as info:
        decode_any.get_concrete_function(tf.TensorSpec([2], tf.string))
    assert str(info.value).endswith("    ValueError: Shape must be rank 0 but is rank 1 for '{{node DecodeWav}} = "
                                    "DecodeWav[desired_channels=-1, desired_samples=-1](data)' with input shapes: "
                                    "[2].\n")
