"""ReversibleEmbedding: an Embedding that can also map vectors back to logits over its vocabulary
(`layer(x, reverse=True)` multiplies by the embedding matrix transposed, or by a separate
`reverse_embeddings` matrix when `tie_weights=False`), with an optional tanh soft cap on the logits."""
import tensorflux as tf

from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .layer import Layer


class ReversibleEmbedding(Layer):
    """Token ids -> vectors (forward); vectors -> vocabulary logits (reverse=True)."""

    def __init__(self, input_dim, output_dim, tie_weights=True, embeddings_initializer="uniform",
                 embeddings_regularizer=None, embeddings_constraint=None, mask_zero=False, reverse_dtype=None,
                 logit_soft_cap=None, **kwargs):
        super().__init__(**kwargs)
        self.input_dim, self.output_dim = input_dim, output_dim
        self.tie_weights, self.mask_zero = tie_weights, mask_zero
        self.reverse_dtype, self.logit_soft_cap = reverse_dtype, logit_soft_cap
        self.embeddings_initializer = _initializers.get(embeddings_initializer)
        self.embeddings_regularizer = _regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = _constraints.get(embeddings_constraint)

    def build(self, input_shape=None):
        self.embeddings = self.add_weight(shape=(self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint, name="embeddings")
        self.reverse_embeddings = None if self.tie_weights else self.add_weight(
            shape=(self.output_dim, self.input_dim), initializer=self.embeddings_initializer,
            name="reverse_embeddings")

    def call(self, inputs, reverse=False):
        if not reverse:
            return tf.gather(self.embeddings, tf.cast(inputs, tf.int32))
        kernel = tf.transpose(self.embeddings) if self.reverse_embeddings is None else self.reverse_embeddings
        inputs = tf.convert_to_tensor(inputs)
        if self.reverse_dtype is not None:
            inputs, kernel = tf.cast(inputs, self.reverse_dtype), tf.cast(kernel, self.reverse_dtype)
        logits = tf.matmul(inputs, tf.cast(kernel, inputs.dtype))
        if self.logit_soft_cap is not None:
            cap = tf.cast(self.logit_soft_cap, logits.dtype)
            logits = cap * tf.tanh(logits / cap)
        return logits

    def compute_mask(self, inputs, mask=None):
        return tf.not_equal(inputs, 0) if self.mask_zero else None

    def compute_output_shape(self, input_shape, reverse=False):
        if reverse:
            return tuple(input_shape[:-1]) + (self.input_dim,)
        return tuple(input_shape) + (self.output_dim,)


API = {"keras.layers": ["ReversibleEmbedding"]}
