"""Merge layers of the functional API: they take a list of inputs and return one tensor
(`Concatenate`, `Add`, `Subtract`, `Multiply`, `Average`, `Maximum`, `Minimum`)."""
import tensorflux as tf

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


API = {"keras.layers": ["Concatenate", "Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum"]}
