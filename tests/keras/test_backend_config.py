"""Keras's global settings: the values tensorflux's Keras uses, and clear errors for ones it cannot honour."""
import pytest

import tensorflux as tf

keras = tf.keras


def test_settings():
    assert keras.backend.floatx() == keras.config.floatx() == "float32"
    assert keras.backend.image_data_format() == "channels_last" and keras.backend.epsilon() == 1e-7
    keras.backend.set_floatx("float32")
    with pytest.raises(NotImplementedError, match="float32 only"):
        keras.backend.set_floatx("float16")
    with pytest.raises(NotImplementedError, match="channels_last only"):
        keras.config.set_image_data_format("channels_first")


def test_mixed_precision_policy():
    assert keras.mixed_precision.global_policy().name == "float32"
    keras.mixed_precision.set_global_policy("float32")
    with pytest.raises(NotImplementedError, match="mixed precision"):
        keras.mixed_precision.set_global_policy("mixed_float16")
    assert keras.mixed_precision.Policy("float32").compute_dtype == "float32"
