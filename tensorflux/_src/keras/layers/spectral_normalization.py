"""`keras.layers.SpectralNormalization`: a wrapper that divides its layer's kernel (or embeddings) by the
kernel's largest singular value, estimated by power iteration, on every training call.

As Keras 3 does it:
- build: the wrapped layer is built; the wrapper holds its kernel as an attribute (so the kernel is also
  the wrapper's own weight, listed first: `weights` is kernel, vector_u, then the layer's other weights)
  and adds `vector_u`, a non-trainable `(1, units)` vector drawn from a truncated normal (stddev 0.02);
- a call with `training=True` runs `power_iterations` steps of v = normalize(u @ W^T), u = normalize(v @ W)
  on the kernel reshaped to `(-1, units)`, with sigma = (v @ W) @ u^T, then stores u in `vector_u` and
  kernel / sigma in the kernel itself (the variable is overwritten; a kernel of zeros is left alone), and
  calls the layer; with `training=False` it only calls the layer;
- the result is cast to the input's dtype.
"""
import tensorflux as tf

from .. import initializers as _initializers
from .. import ops_nn as _ops_nn
from .structural import Wrapper


class SpectralNormalization(Wrapper):
    """Keeps the spectral norm of `layer`'s kernel at 1 during training (see the module docstring)."""

    def __init__(self, layer, power_iterations=1, **kwargs):
        super().__init__(layer, **kwargs)
        if power_iterations <= 0:
            raise ValueError("`power_iterations` should be greater than zero. Received: "
                             f"`power_iterations={power_iterations}`")
        self.power_iterations = power_iterations

    def build(self, input_shape):
        super().build(input_shape)
        if hasattr(self.layer, "kernel"):
            self.kernel = self.layer.kernel
        elif hasattr(self.layer, "embeddings"):
            self.kernel = self.layer.embeddings
        else:
            raise ValueError(f"{type(self.layer).__name__} object has no attribute 'kernel' nor 'embeddings'")
        self.kernel_shape = tuple(self.kernel.shape)
        self.vector_u = self.add_weight(shape=(1, self.kernel_shape[-1]),
                                        initializer=_initializers.TruncatedNormal(stddev=0.02), trainable=False,
                                        name="vector_u", dtype=self.kernel.dtype)

    def call(self, inputs, training=False):
        if training:
            kernel = self.kernel.read_value() if hasattr(self.kernel, "read_value") else tf.convert_to_tensor(self.kernel)
            vector_u, new_kernel = tf.cond(tf.reduce_all(tf.equal(kernel, 0)),
                                           lambda: (tf.convert_to_tensor(self.vector_u), kernel),
                                           lambda: self.normalized_weights(kernel))
            self.vector_u.assign(vector_u)
            self.kernel.assign(new_kernel)
        output = self.layer(inputs)
        return tf.cast(output, inputs.dtype)

    def normalized_weights(self, kernel=None):
        """(the new vector_u, the kernel divided by its estimated spectral norm) for the current kernel."""
        kernel = tf.convert_to_tensor(self.kernel) if kernel is None else kernel
        weights = tf.reshape(kernel, [-1, self.kernel_shape[-1]])
        vector_u = tf.convert_to_tensor(self.vector_u)
        vector_v = None
        for _ in range(self.power_iterations):
            vector_v = _ops_nn.normalize(tf.matmul(vector_u, tf.transpose(weights)), axis=None)
            vector_u = _ops_nn.normalize(tf.matmul(vector_v, weights), axis=None)
        vector_u = tf.stop_gradient(vector_u)
        vector_v = tf.stop_gradient(vector_v)
        sigma = tf.matmul(tf.matmul(vector_v, weights), tf.transpose(vector_u))
        normalized = tf.reshape(kernel / sigma, self.kernel_shape)
        return tf.cast(vector_u, self.vector_u.dtype), tf.cast(normalized, self.kernel.dtype)

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)


API = {"keras.layers": ["SpectralNormalization"]}
