"""Layers that rearrange or encode rather than learn a fixed form: EinsumDense (a dense layer given by an
einsum equation), CategoryEncoding (one-hot / multi-hot / count of integer tokens), Discretization
(bucketing by boundaries, or by quantiles learned with `adapt`), Pipeline (layers applied in order,
as a preprocessing step), Wrapper (a layer holding another), and InputSpec (the inputs a layer accepts).
"""
import re

import numpy as np

import tensorflux as tf

from .. import activations as _activations
from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .layer import Layer


class InputSpec:
    """What a layer accepts: a dtype, shape, rank (or rank bounds) and the size of given axes."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None,
                 allow_last_axis_squeeze=False, name=None, optional=False):
        self.dtype = None if dtype is None else tf.as_dtype(getattr(dtype, "name", dtype)).name
        self.shape = None if shape is None else tuple(shape)
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim, self.min_ndim = max_ndim, min_ndim
        self.name, self.optional = name, optional
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.axes = {int(k): v for k, v in (axes or {}).items()}
        if self.axes and self.ndim is not None and any(k >= self.ndim for k in self.axes if k >= 0):
            raise ValueError(f"Axis {max(self.axes)} is greater than the maximum allowed value: {self.ndim - 1}")

    def __repr__(self):
        parts = [f"{key}={value}" for key, value in (("dtype", self.dtype), ("shape", self.shape),
                                                     ("ndim", self.ndim), ("max_ndim", self.max_ndim),
                                                     ("min_ndim", self.min_ndim), ("axes", self.axes or None))
                 if value is not None]
        return f"InputSpec({', '.join(parts)})"

    def get_config(self):
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim, "max_ndim": self.max_ndim,
                "min_ndim": self.min_ndim, "axes": self.axes, "optional": self.optional}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


_EQUATION_FORMS = "Equations must be in the form [X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]...."


def _split(equation):
    """(input letters, kernel letters, output letters, where an ellipsis stands: "left", "right" or None)."""
    text = equation.replace("...", "0")
    for pattern, elided in ((r"0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)", "left"),
                            (r"([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0", "right"),
                            (r"([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)", None)):
        match = re.fullmatch(pattern, text)
        if match is not None:
            return (*match.groups(), elided)
    raise ValueError(f"Invalid einsum equation '{equation}'. {_EQUATION_FORMS}")


def _einsum_shapes(equation, bias_axes, input_shape, output_shape):
    """(kernel shape, bias shape or None, full output shape) of an EinsumDense, as Keras 3 derives them:
    the output is `output_shape` after the batch axis, with the axes an ellipsis stands for taken from the
    input (after the batch axis for a leading ellipsis, at the end for a trailing one); a kernel axis takes
    its size from the input, else from the output; a None of `output_shape` stays None."""
    spec_in, spec_kernel, spec_out, elided_at = _split(equation)
    input_shape = list(input_shape)
    elided = len(input_shape) - len(spec_in)
    output = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    output.insert(0, input_shape[0])
    if elided > 0 and elided_at == "left":
        # Keras inserts each elided axis right after the batch axis in turn, so a static shape lists two
        # or more of them in reverse (the computed output has them in order): its static shape is kept.
        output[1:1] = input_shape[1:elided][::-1]
    elif elided > 0 and elided_at == "right":
        output += input_shape[len(input_shape) - elided:]
    shift = elided if elided_at == "left" else 0
    in_at = {letter: k + shift for k, letter in enumerate(spec_in)}
    out_at = {letter: k + shift for k, letter in enumerate(spec_out)}
    for letter in spec_in:
        if letter in out_at:
            have, want = input_shape[in_at[letter]], output[out_at[letter]]
            if want is not None and want != have:
                raise ValueError(f"Input shape and output shape do not match at shared dimension '{letter}'. "
                                 f"Input shape is {have}, and output shape is {want}.")
    for letter in spec_out:
        if letter not in spec_in and letter not in spec_kernel:
            raise ValueError(f"Dimension '{letter}' was specified in the output '{spec_out}' but has no "
                             f"corresponding dim in the input spec '{spec_in}' or weight spec '{spec_out}'")
    kernel = []
    for letter in spec_kernel:
        if letter in in_at:
            kernel.append(input_shape[in_at[letter]])
        elif letter in out_at:
            kernel.append(output[out_at[letter]])
        else:
            raise ValueError(f"Weight dimension '{letter}' did not have a match in either the input spec "
                             f"'{spec_in}' or the output spec '{spec_out}'. For this layer, the weight must be "
                             f"fully specified.")
    bias = None
    if bias_axes is not None:
        for letter in bias_axes:
            if letter not in spec_out:
                raise ValueError(f"Bias dimension '{letter}' was requested, but is not part of the output spec "
                                 f"'{spec_out}'")
        first = min(spec_out.find(letter) for letter in bias_axes)
        bias = [output[out_at[letter]] if letter in bias_axes else 1 for letter in spec_out[first:]]
        if elided_at != "left":
            bias += [1] * max(elided, 0)
    return kernel, bias, output


class EinsumDense(Layer):
    """y = einsum(equation, x, kernel) (+ bias over `bias_axes`), with the kernel's shape read from the
    equation, the input's shape and `output_shape` (the output without its batch axis, nor the axes an
    ellipsis stands for; see _einsum_shapes)."""

    def __init__(self, equation, output_shape, activation=None, bias_axes=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, lora_rank=None, lora_alpha=None, gptq_unpacked_column_size=None,
                 quantization_config=None, **kwargs):
        super().__init__(**kwargs)
        if lora_rank or quantization_config:
            raise ValueError("tensorflux's EinsumDense supports neither LoRA nor quantization.")
        self.equation = equation
        self.partial_output_shape = tuple(output_shape) if isinstance(output_shape, (list, tuple)) else (output_shape,)
        self.bias_axes = bias_axes
        self.activation = _activations.get(activation)
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)
        self.kernel_constraint = _constraints.get(kernel_constraint)
        self.bias_constraint = _constraints.get(bias_constraint)

    def build(self, input_shape):
        kernel_shape, bias_shape, output = _einsum_shapes(self.equation, self.bias_axes, input_shape,
                                                          self.partial_output_shape)
        self.full_output_shape = tuple(output)
        self.kernel = self.add_weight(shape=tuple(kernel_shape), initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
                                      name="kernel")
        if bias_shape is not None:
            self.bias = self.add_weight(shape=tuple(bias_shape), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        name="bias")
        else:
            self.bias = None

    def call(self, inputs):
        result = tf.einsum(self.equation, inputs, tf.cast(self.kernel, inputs.dtype))
        if self.bias is not None:
            result = result + tf.cast(self.bias, result.dtype)
        return self.activation(result)

    def compute_output_shape(self, input_shape):
        return tuple(_einsum_shapes(self.equation, self.bias_axes, input_shape, self.partial_output_shape)[2])


class CategoryEncoding(Layer):
    """Integer tokens in [0, num_tokens) as one-hot rows, multi-hot rows (per example), or counts (summed
    `count_weights` when given); float32."""

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if output_mode not in ("one_hot", "multi_hot", "count"):
            raise ValueError(f"Unknown arg for output_mode: {output_mode}")
        if num_tokens is None or num_tokens < 1:
            raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens}.")
        if sparse:
            raise ValueError("tensorflux's CategoryEncoding produces dense outputs only (sparse=False).")
        self.num_tokens, self.output_mode, self.sparse = num_tokens, output_mode, sparse

    def call(self, inputs, count_weights=None):
        inputs = tf.cast(tf.convert_to_tensor(inputs), tf.int32)
        if self.output_mode == "one_hot":
            if inputs.shape.rank and inputs.shape[-1] == 1 and inputs.shape.rank > 1:
                inputs = tf.squeeze(inputs, -1)
            return tf.one_hot(inputs, self.num_tokens, dtype=tf.float32)
        rank1 = inputs.shape.rank == 1
        if rank1:
            inputs = tf.expand_dims(inputs, 0)
        hot = tf.one_hot(inputs, self.num_tokens, dtype=tf.float32)
        if self.output_mode == "multi_hot":
            result = tf.reduce_max(hot, axis=-2)
        else:
            if count_weights is not None:
                weights = tf.cast(tf.convert_to_tensor(count_weights), tf.float32)
                hot = hot * tf.expand_dims(tf.expand_dims(weights, 0) if rank1 else weights, -1)
            result = tf.reduce_sum(hot, axis=-2)
        return result[0] if rank1 else result

    def compute_output_shape(self, input_shape):
        if self.output_mode == "one_hot":
            shape = tuple(input_shape)
            return (shape[:-1] if len(shape) > 1 and shape[-1] == 1 else shape) + (self.num_tokens,)
        return tuple(input_shape[:-1]) + (self.num_tokens,)


class Discretization(Layer):
    """The bin index of each value: i with boundaries[i-1] <= x < boundaries[i] (int32), or its one-hot /
    multi-hot / count encoding. `adapt(data)` learns `num_bins` boundaries from the data's quantiles (exact
    lower quantiles; Keras uses an approximate quantile summary, so adapted boundaries can differ slightly)."""

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int", sparse=False,
                 dtype=None, name=None):
        super().__init__(name=name)
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError(f"Invalid value for argument `output_mode`. Received: output_mode={output_mode}")
        if bin_boundaries is not None and num_bins is not None:
            raise ValueError("Both `num_bins` and `bin_boundaries` should not be set. Received: "
                             f"`num_bins={num_bins}` and `bin_boundaries={list(bin_boundaries)}`")
        if bin_boundaries is None and num_bins is None:
            raise ValueError("You need to set either `num_bins` or `bin_boundaries`.")
        self.bin_boundaries = None if bin_boundaries is None else list(bin_boundaries)
        self.num_bins, self.epsilon, self.output_mode, self.sparse = num_bins, epsilon, output_mode, sparse
        self.output_dtype = dtype

    def adapt(self, data, steps=None):
        values = np.concatenate([np.asarray(batch).reshape(-1) for batch in data]) if isinstance(
            data, tf.data.Dataset) else np.asarray(data, np.float64).reshape(-1)
        quantiles = np.quantile(values, np.arange(1, self.num_bins) / self.num_bins, method="lower")
        self.bin_boundaries = [float(q) for q in quantiles]

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise ValueError("You need to either pass the `bin_boundaries` argument at construction time or "
                             "call `adapt(dataset)` before you can start using the `Discretization` layer.")
        inputs = tf.convert_to_tensor(inputs)
        boundaries = tf.constant(self.bin_boundaries, inputs.dtype if inputs.dtype.is_floating else tf.float32)
        flat = tf.reshape(tf.cast(inputs, boundaries.dtype), [-1])
        indices = tf.reshape(tf.searchsorted(boundaries, flat, side="right"), tf.shape(inputs))
        if self.output_mode == "int":
            return tf.cast(indices, self.output_dtype) if self.output_dtype else indices
        depth = len(self.bin_boundaries) + 1
        encoded = CategoryEncoding(depth, output_mode=self.output_mode)
        return encoded(indices)

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return tuple(input_shape)
        depth = len(self.bin_boundaries or []) + 1 if self.bin_boundaries is not None else self.num_bins
        return tuple(input_shape[:-1]) + (depth,) if self.output_mode != "one_hot" else tuple(input_shape) + (depth,)


class Pipeline(Layer):
    """Applies `layers` in order (preprocessing steps, usable inside tf.data.Dataset.map)."""

    def __init__(self, layers, name=None):
        super().__init__(name=name)
        self.layers = list(layers)

    def call(self, inputs, training=None, mask=None):
        for layer in self.layers:
            inputs = layer(inputs)
        return inputs

    def compute_output_shape(self, input_shape):
        for layer in self.layers:
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape


class Wrapper(Layer):
    """A layer holding another layer (`self.layer`), which it builds and, unless a subclass says
    otherwise, calls."""

    def __init__(self, layer, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(layer, Layer):
            raise ValueError(f"Layer {layer} supplied to Wrapper isn't a supported layer type. Please ensure "
                             f"wrapped layer is a valid Keras layer.")
        self.layer = layer

    def build(self, input_shape=None):
        if not self.layer.built:
            self.layer._build_with_shape(input_shape)

    def call(self, inputs, *args, **kwargs):
        return self.layer(inputs, *args, **kwargs)

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)


API = {"keras.layers": ["InputSpec", "EinsumDense", "CategoryEncoding", "Discretization", "Pipeline", "Wrapper"]}
