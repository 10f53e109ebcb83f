"""Merge layers of the functional API: they take a list of inputs and return one tensor
(`Concatenate`, `Add`, `Subtract`, `Multiply`, `Average`, `Maximum`, `Minimum`, `Dot`), and the
lower-case helpers (`keras.layers.add([a, b])`, …) that make such a layer and call it at once."""
import tensorflux as tf

from ..naming import to_snake_case
from .layer import Layer


def _check_merge_inputs(inputs, layer):
    if not isinstance(inputs, (list, tuple)) or len(inputs) < 1:
        raise ValueError(f"A merge layer should be called on a list of inputs. Received: inputs={inputs} "
                         f"(not a list of tensors)")
    return list(inputs)


class Concatenate(Layer):
    """Joins a list of inputs along `axis` (all other dimensions must match)."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def build(self, input_shape):
        if not isinstance(input_shape, (list, tuple)) or len(input_shape) < 1 or \
                not isinstance(input_shape[0], (list, tuple)):
            raise ValueError(f"A `Concatenate` layer should be called on a list of at least 1 input. Received: "
                             f"input_shape={input_shape}")
        shapes = [list(s) for s in input_shape]
        rank = len(shapes[0])
        axis = self.axis % rank if -rank <= self.axis < rank else None
        for s in shapes:
            others = [d for i, d in enumerate(s) if i != axis]
            ref = [d for i, d in enumerate(shapes[0]) if i != axis]
            if len(s) != rank or axis is None or any(a is not None and b is not None and a != b
                                                      for a, b in zip(others, ref)):
                raise ValueError(f"A `Concatenate` layer requires inputs with matching shapes except for the "
                                 f"concatenation axis. Received: input_shape={[tuple(x) for x in shapes]}")

    def call(self, inputs):
        return tf.concat(_check_merge_inputs(inputs, "Concatenate"), axis=self.axis)

    def compute_output_shape(self, input_shape):
        shapes = [list(s) for s in input_shape]
        out = shapes[0][:]
        axis = self.axis % len(out)
        sizes = [s[axis] for s in shapes]
        out[axis] = None if None in sizes else sum(sizes)
        return tuple(out)


class _Elementwise(Layer):
    """Merges a list of inputs element by element (broadcasting), folding `_combine` over them."""

    def call(self, inputs):
        inputs = _check_merge_inputs(inputs, type(self).__name__)
        out = inputs[0]
        for x in inputs[1:]:
            out = self._combine(out, x)
        return out

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[0])


class Add(_Elementwise):
    """The element-wise sum of a list of inputs."""
    _combine = staticmethod(tf.add)


class Multiply(_Elementwise):
    """The element-wise product of a list of inputs."""
    _combine = staticmethod(tf.multiply)


class Maximum(_Elementwise):
    _combine = staticmethod(tf.maximum)


class Minimum(_Elementwise):
    _combine = staticmethod(tf.minimum)


class Average(_Elementwise):
    """The element-wise mean of a list of inputs."""
    _combine = staticmethod(tf.add)

    def call(self, inputs):
        return super().call(inputs) / len(inputs)


class Subtract(Layer):
    """The first of exactly two inputs minus the second."""

    def call(self, inputs):
        inputs = _check_merge_inputs(inputs, "Subtract")
        if len(inputs) != 2:
            raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. Received: inputs={inputs}")
        return inputs[0] - inputs[1]

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[0])


class Dot(Layer):
    """The dot product of two inputs along `axes` (one axis for both, or one per input), sample by sample:
    (batch, 3) . (batch, 3) -> (batch, 1); (batch, 3, 4) . (batch, 3, 5) with axes=1 -> (batch, 4, 5).
    With `normalize=True` both inputs are L2-normalised along their axis first (a cosine similarity)."""

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(axes, int):
            if not isinstance(axes, (list, tuple)) or len(axes) != 2 or \
                    not all(isinstance(a, int) for a in axes):
                raise ValueError(f"Invalid format for argument `axes`: it should contain two elements. "
                                 f"Received: axes={axes}")
            axes = list(axes)
        self.axes = axes
        self.normalize = normalize

    def _axes_for(self, shape1, shape2):
        axes = [self.axes, self.axes] if isinstance(self.axes, int) else self.axes
        return [a % len(s) if a < 0 else a for a, s in zip(axes, (shape1, shape2))]

    def build(self, input_shape):
        if not isinstance(input_shape, (list, tuple)) or len(input_shape) != 2 or \
                not isinstance(input_shape[0], (list, tuple)):
            raise ValueError(f"A `Dot` layer should be called on a list of 2 inputs. Received: "
                             f"input_shape={input_shape}")
        shape1, shape2 = (tuple(s) for s in input_shape)
        if shape1[0] is not None and shape2[0] is not None and shape1[0] != shape2[0]:
            raise ValueError(f"Cannot do batch_dot on inputs with different batch sizes. Received inputs with "
                             f"shapes {shape1} and {shape2}.")
        ax1, ax2 = self._axes_for(shape1, shape2)
        if shape1[ax1] is not None and shape2[ax2] is not None and shape1[ax1] != shape2[ax2]:
            raise ValueError(f"Incompatible input shapes: axis values {shape1[ax1]} (at axis {ax1}) != "
                             f"{shape2[ax2]} (at axis {ax2}). Full input shapes: {shape1}, {shape2}")

    def call(self, inputs):
        inputs = _check_merge_inputs(inputs, "Dot")
        if len(inputs) != 2:
            raise ValueError(f"A `Dot` layer should be called on exactly 2 inputs. Received: inputs={inputs}")
        x, y = inputs
        ax1, ax2 = self._axes_for(x.shape, y.shape)
        if self.normalize:
            x = tf.math.l2_normalize(x, axis=ax1)
            y = tf.math.l2_normalize(y, axis=ax2)
        return _batch_dot(x, y, ax1, ax2)

    def compute_output_shape(self, input_shape):
        shape1, shape2 = (list(s) for s in input_shape)
        ax1, ax2 = self._axes_for(shape1, shape2)
        out = [shape1[0]] + [d for i, d in enumerate(shape1) if i not in (0, ax1)] + \
            [d for i, d in enumerate(shape2) if i not in (0, ax2)]
        return tuple(out if len(out) > 1 else out + [1])

    def get_config(self):
        config = super().get_config()
        config.update({"axes": self.axes, "normalize": self.normalize})
        return config


def _batch_dot(x, y, ax1, ax2):
    """Per sample, contracts axis `ax1` of x with axis `ax2` of y; the result keeps x's remaining axes then
    y's; a result of rank 1 gets a trailing axis of size 1."""
    rank1, rank2 = len(x.shape), len(y.shape)
    x = tf.transpose(x, [i for i in range(rank1) if i != ax1] + [ax1])     # (batch, ...x, k)
    y = tf.transpose(y, [0, ax2] + [i for i in range(1, rank2) if i != ax2])  # (batch, k, ...y)
    x_rest, y_rest = tf.shape(x)[1:-1], tf.shape(y)[2:]
    batch, k = tf.shape(x)[0], tf.shape(x)[-1]
    flat = tf.matmul(tf.reshape(x, tf.stack([batch, -1, k])), tf.reshape(y, tf.stack([batch, k, -1])))
    out = tf.reshape(flat, tf.concat([[batch], x_rest, y_rest], axis=0))
    return out if rank1 + rank2 - 3 > 1 else tf.expand_dims(out, -1)


def _merge_function(layer_class, doc):
    def merge(inputs, **kwargs):
        return layer_class(**kwargs)(inputs)
    merge.__name__ = merge.__qualname__ = to_snake_case(layer_class.__name__)
    merge.__doc__ = doc
    return merge


add = _merge_function(Add, "`Add()(inputs)`: the element-wise sum of a list of inputs.")
subtract = _merge_function(Subtract, "`Subtract()(inputs)`: the first of two inputs minus the second.")
multiply = _merge_function(Multiply, "`Multiply()(inputs)`: the element-wise product of a list of inputs.")
average = _merge_function(Average, "`Average()(inputs)`: the element-wise mean of a list of inputs.")
maximum = _merge_function(Maximum, "`Maximum()(inputs)`: the element-wise maximum of a list of inputs.")
minimum = _merge_function(Minimum, "`Minimum()(inputs)`: the element-wise minimum of a list of inputs.")


def concatenate(inputs, axis=-1, **kwargs):
    """`Concatenate(axis)(inputs)`: joins a list of inputs along `axis`."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs, axes=-1, **kwargs):
    """`Dot(axes)(inputs)`: the per-sample dot product of two inputs along `axes`."""
    return Dot(axes=axes, **kwargs)(inputs)


API = {"keras.layers": ["Concatenate", "Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Dot",
                        "add", "subtract", "multiply", "average", "maximum", "minimum", "concatenate", "dot"]}
