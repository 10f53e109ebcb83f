"""`keras.layers.Masking`: marks as padding every timestep whose features all equal `mask_value`.

    masked = keras.layers.Masking(mask_value=0.0)(x)     # x: (batch, time, features)
    masked._keras_mask                                   # (batch, time) booleans, False at padding

The output is the input with padded timesteps zeroed, carrying the mask (keras.masks) for the layers after
it (an LSTM skips the masked steps)."""
import tensorflux as tf

from .layer import Layer


class Masking(Layer):
    """Masks the timesteps whose every feature equals `mask_value`."""

    supports_masking = True

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value

    def _kept(self, inputs):
        inputs = tf.convert_to_tensor(inputs)
        return tf.reduce_any(tf.not_equal(inputs, tf.cast(self.mask_value, inputs.dtype)), axis=-1)

    def call(self, inputs):
        kept = self._kept(inputs)
        return inputs * tf.cast(tf.expand_dims(kept, -1), inputs.dtype)

    def compute_mask(self, inputs, mask=None):
        return self._kept(inputs)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["mask_value"] = self.mask_value
        return config


API = {"keras.layers": ["Masking"]}
