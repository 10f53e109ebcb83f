"""Attention layers of `keras.layers`: MultiHeadAttention, Attention (dot-product or "concat" scores) and
AdditiveAttention, with Keras 3's weights (shapes and order) and numerics.

Masks are boolean, True meaning "may attend" (other dtypes count nonzero as True). As in Keras, a masked
score is set to -1e9 (MultiHeadAttention) or lowered by 1e9 (Attention) before the softmax, so a query
whose keys are all masked out gets uniform weights — except that MultiHeadAttention zeroes masked weights
when Keras would compute explicit scores (`dropout > 0` or `return_attention_scores=True`), and Attention
zeroes the outputs of masked queries. MultiHeadAttention takes rank-3 inputs `(batch, steps, features)`
only (attention over axis 1).
"""
import string

import tensorflux as tf

from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .layer import Layer, _as_input, _shape_of

_MASKED_SCORE = -1e9  # what Keras puts in place of a masked attention score before the softmax


def _as_bool_mask(mask):
    mask = tf.convert_to_tensor(mask)
    return mask if mask.dtype == tf.bool else tf.not_equal(mask, tf.zeros_like(mask))


def _and_masks(first, second):
    return second if first is None else tf.logical_and(first, second)


def _causal_mask(query_steps, value_steps):
    """(1, T, S) boolean: query step i may attend to value steps j <= i."""
    rows = tf.range(query_steps)
    cols = tf.range(value_steps)
    return tf.expand_dims(tf.greater_equal(tf.expand_dims(rows, 1), tf.expand_dims(cols, 0)), 0)


def _positive_int(value, arg):
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"Received an invalid value for argument `{arg}`, expected a positive integer. "
                         f"Received: {arg}={value}")
    return value


def _dropout_rate(rate):
    if not 0 <= rate <= 1:
        raise ValueError(f"Invalid value received for argument `dropout`. Expected a float value between 0 and 1. "
                         f"Received: dropout={rate}")
    return rate


def _require_default(arg, value, default, layer):
    if value != default:
        raise NotImplementedError(f"tensorflux's {layer} does not implement `{arg}`. Received: {arg}={value!r}")


class MultiHeadAttention(Layer):
    """Projects query, key and value into `num_heads` heads, attends with scaled dot products in each head,
    and projects the concatenated heads back to the query's last dimension (or `output_shape`).

    Weights, in order: query kernel `(query_dim, heads, key_dim)` and bias `(heads, key_dim)`, the same for
    key (`key_dim`) and value (`value_dim`), then the output kernel `(heads, value_dim, *output_shape)` and
    bias `output_shape`. Built from the shapes of query, value and key together:
    `build(query_shape, value_shape, key_shape=None)`.
    """

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True, output_shape=None,
                 attention_axes=None, sliding_window=None, flash_attention=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 use_gate=False, seed=None, **kwargs):
        self.num_heads = _positive_int(num_heads, "num_heads")
        self.key_dim = _positive_int(key_dim, "key_dim")
        if value_dim is not None:
            _positive_int(value_dim, "value_dim")
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        for arg, value, default in (("attention_axes", attention_axes, None), ("sliding_window", sliding_window, None),
                                    ("flash_attention", bool(flash_attention), False),
                                    ("use_gate", use_gate, False)):
            _require_default(arg, value, default, "MultiHeadAttention")
        self.value_dim = value_dim or key_dim
        self.dropout = _dropout_rate(dropout)
        self.use_bias = use_bias
        if output_shape:
            if isinstance(output_shape, int):
                output_shape = (output_shape,)
            try:
                output_shape = tuple(output_shape)
            except TypeError:
                raise ValueError(f"Invalid `output_shape`: {output_shape}. When specified, the `output_shape` "
                                 f"should be of type tuple, list, or int.") from None
        self.output_shape = output_shape or None
        self.seed = seed
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        self.kernel_constraint = _constraints.get(kernel_constraint)
        self.bias_constraint = _constraints.get(bias_constraint)

    def __call__(self, query, value, key=None, **kwargs):
        # Keras builds from all three inputs' shapes; the base class would only see the query's.
        query, value = _as_input(query), _as_input(value)
        key = None if key is None else _as_input(key)
        if not self.built:
            self.build(_shape_of(query), _shape_of(value), None if key is None else _shape_of(key))
        return super().__call__(query, value, key, **kwargs)

    def _projection(self, name, input_dim, head_dim):
        kernel = self.add_weight(shape=(input_dim, self.num_heads, head_dim), initializer=self.kernel_initializer,
                                 regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
                                 name=f"{name}/kernel")
        bias = self.add_weight(shape=(self.num_heads, head_dim), initializer=self.bias_initializer,
                               regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                               name=f"{name}/bias") if self.use_bias else None
        return kernel, bias

    def build(self, query_shape, value_shape, key_shape=None):
        query_shape, value_shape = tuple(query_shape), tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError(f"All dimensions of `value` and `key`, except the last one, must be equal. Received: "
                             f"value_shape={value_shape} and key_shape={key_shape}")
        for arg, shape in (("query", query_shape), ("value", value_shape), ("key", key_shape)):
            if len(shape) != 3:
                raise ValueError(f"tensorflux's MultiHeadAttention supports rank-3 inputs (batch, steps, features) "
                                 f"only. Received: {arg} shape {shape}")
            if shape[-1] is None:
                raise ValueError(f"The last dimension of `{arg}` should be defined. Received: {arg} shape {shape}")
        self.query_kernel, self.query_bias = self._projection("query", query_shape[-1], self.key_dim)
        self.key_kernel, self.key_bias = self._projection("key", key_shape[-1], self.key_dim)
        self.value_kernel, self.value_bias = self._projection("value", value_shape[-1], self.value_dim)
        output_dims = self.output_shape or (query_shape[-1],)
        self.output_kernel = self.add_weight(shape=(self.num_heads, self.value_dim) + output_dims,
                                             initializer=self.kernel_initializer,
                                             regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
                                             name="attention_output/kernel")
        self.output_bias = self.add_weight(shape=output_dims, initializer=self.bias_initializer,
                                           regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                           name="attention_output/bias") if self.use_bias else None

    @staticmethod
    def _project(x, kernel, bias):
        out = tf.einsum("abc,cde->abde", x, kernel)
        return out if bias is None else out + bias

    def _attention_mask(self, query, value, value_mask, key_mask, attention_mask, use_causal_mask):
        """The combined (…, T, S) boolean mask, or None."""
        mask = None
        for keys_mask in (value_mask, key_mask):
            if keys_mask is not None:
                mask = _and_masks(mask, tf.expand_dims(_as_bool_mask(keys_mask), -2))
        if use_causal_mask:
            mask = _and_masks(mask, _causal_mask(tf.shape(query)[1], tf.shape(value)[1]))
        if attention_mask is not None:
            mask = _and_masks(mask, _as_bool_mask(attention_mask))
        return mask

    def call(self, query, value, key=None, *, value_mask=None, key_mask=None, attention_mask=None,
             return_attention_scores=False, training=None, use_causal_mask=False):
        if key is None:
            key = value
        mask = self._attention_mask(query, value, value_mask, key_mask, attention_mask, use_causal_mask)
        query = self._project(query, self.query_kernel, self.query_bias)   # (B, T, N, key_dim)
        key = self._project(key, self.key_kernel, self.key_bias)           # (B, S, N, key_dim)
        value = self._project(value, self.value_kernel, self.value_bias)   # (B, S, N, value_dim)
        query = query * (1.0 / float(self.key_dim) ** 0.5)
        scores = tf.einsum("aecd,abcd->acbe", key, query)                  # (B, N, T, S)
        if mask is not None:
            while mask.shape.rank < 4:  # broadcast over the heads axis
                mask = tf.expand_dims(mask, -3)
            scores = tf.where(mask, scores, tf.fill(tf.shape(scores), _MASKED_SCORE))
        weights = tf.nn.softmax(scores, axis=-1)
        # Keras only takes the path that zeroes masked weights when it must materialise the scores.
        if mask is not None and (self.dropout > 0 or return_attention_scores):
            weights = tf.where(mask, weights, tf.zeros_like(weights))
        dropped = weights
        if training and self.dropout > 0:
            dropped = tf.nn.dropout(weights, self.dropout, seed=self.seed)
        heads = tf.einsum("acbe,aecd->abcd", dropped, value)               # (B, T, N, value_dim)
        out_letters = string.ascii_lowercase[4:4 + len(self.output_kernel.shape) - 2]
        output = tf.einsum(f"abcd,cd{out_letters}->ab{out_letters}", heads, self.output_kernel)
        if self.output_bias is not None:
            output = output + self.output_bias
        if return_attention_scores:
            return output, weights
        return output

    def compute_output_shape(self, query_shape, value_shape, key_shape=None):
        query_shape, value_shape = tuple(query_shape), tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError(f"All dimensions of `value` and `key`, except the last one, must be equal. Received: "
                             f"value_shape={value_shape} and key_shape={key_shape}")
        if self.output_shape:
            return query_shape[:-1] + self.output_shape
        return query_shape


def _check_attention_inputs(layer, inputs, mask=None):
    name = type(layer).__name__
    if not isinstance(inputs, (list, tuple)):
        raise ValueError(f"{name} layer must be called on a list of inputs, namely [query, value] or "
                         f"[query, value, key]. Received: inputs={inputs}.")
    if not 2 <= len(inputs) <= 3:
        raise ValueError(f"{name} layer accepts inputs list of length 2 or 3, namely [query, value] or "
                         f"[query, value, key]. Received length: {len(inputs)}.")
    if mask is not None:
        if not isinstance(mask, (list, tuple)):
            raise ValueError(f"{name} layer mask must be a list, namely [query_mask, value_mask]. "
                             f"Received: mask={mask}.")
        if not 2 <= len(mask) <= 3:
            raise ValueError(f"{name} layer accepts mask list of length 2 or 3. Received: mask={mask}.")


def _input_shapes(layer, input_shape):
    """The list of shapes a list-input attention layer is built with (a single shape is an error)."""
    if not isinstance(input_shape, (list, tuple)) or not input_shape or \
            not isinstance(input_shape[0], (list, tuple)):
        _check_attention_inputs(layer, None)
    _check_attention_inputs(layer, list(input_shape))
    return [tuple(s) for s in input_shape]


class Attention(Layer):
    """Dot-product attention (Luong style) over `inputs=[query, value]` or `[query, value, key]` (key defaults
    to value): `softmax(scores) @ value` with `scores = query @ key^T` ("dot", times `scale` if `use_scale`) or
    `concat_score_weight * sum(tanh(scale * (query + key)))` ("concat").

    `mask=[query_mask, value_mask]`: masked values are left out of the softmax (their scores lowered by 1e9)
    and masked queries give zero outputs.
    """

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.use_scale = use_scale
        self.score_mode = score_mode
        self.dropout = _dropout_rate(dropout)
        self.seed = seed
        if score_mode not in ("dot", "concat"):
            raise ValueError(f"Invalid value for argument score_mode. Expected one of {{'dot', 'concat'}}. "
                             f"Received: score_mode={score_mode}")
        self.scale = self.concat_score_weight = None

    def build(self, input_shape):
        _input_shapes(self, input_shape)
        if self.use_scale:
            self.scale = self.add_weight(shape=(), initializer="ones", name="scale")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight(shape=(), initializer="ones", name="concat_score_weight")

    def _scores(self, query, key):
        """(batch, Tq, Tv) scores of each query step against each key step."""
        if self.score_mode == "dot":
            scores = tf.einsum("...qd,...kd->...qk", query, key)   # one batched GEMM, BLAS threads by size
            return scores if self.scale is None else scores * self.scale
        pairs = tf.expand_dims(query, -2) + tf.expand_dims(key, -3)    # (batch, Tq, Tv, dim)
        if self.scale is not None:
            pairs = self.scale * pairs
        return self.concat_score_weight * tf.reduce_sum(tf.tanh(pairs), axis=-1)

    def call(self, inputs, mask=None, training=False, return_attention_scores=False, use_causal_mask=False):
        _check_attention_inputs(self, inputs, mask)
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        query_mask = value_mask = None
        if mask is not None:
            query_mask = None if mask[0] is None else _as_bool_mask(mask[0])
            value_mask = None if mask[1] is None else tf.expand_dims(_as_bool_mask(mask[1]), -2)  # (batch, 1, Tv)
        scores = self._scores(query, key)
        scores_mask = value_mask
        if use_causal_mask:
            steps = tf.shape(scores)
            scores_mask = _and_masks(value_mask, _causal_mask(steps[-2], steps[-1]))
        if scores_mask is not None:
            scores = tf.where(scores_mask, scores, scores + _MASKED_SCORE)
        weights = tf.nn.softmax(scores, axis=-1)
        dropped = weights
        if training and self.dropout > 0:
            dropped = tf.nn.dropout(weights, self.dropout, seed=self.seed)
        output = tf.einsum("...qk,...kd->...qd", dropped, value)
        if query_mask is not None:
            output = tf.where(tf.expand_dims(query_mask, -1), output, tf.zeros_like(output))
        if return_attention_scores:
            return output, weights
        return output

    def compute_output_shape(self, input_shape):
        shapes = _input_shapes(self, input_shape)
        return shapes[0][:-1] + shapes[1][-1:]


class AdditiveAttention(Attention):
    """Additive (Bahdanau style) attention: `scores = sum(scale * tanh(query + key))` over the features, with a
    trainable `scale` vector of the query's dimension (glorot_uniform) when `use_scale`; otherwise as
    `Attention`."""

    def __init__(self, use_scale=True, dropout=0.0, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape):
        shapes = _input_shapes(self, input_shape)
        if self.use_scale:
            self.scale = self.add_weight(shape=shapes[0][-1:], initializer="glorot_uniform", name="scale")

    def _scores(self, query, key):
        pairs = tf.tanh(tf.expand_dims(query, -2) + tf.expand_dims(key, -3))    # (batch, Tq, Tv, dim)
        if self.scale is not None:
            pairs = self.scale * pairs
        return tf.reduce_sum(pairs, axis=-1)


API = {"keras.layers": ["MultiHeadAttention", "Attention", "AdditiveAttention"]}
