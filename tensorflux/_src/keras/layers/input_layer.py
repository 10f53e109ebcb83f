"""`keras.Input` and `keras.layers.InputLayer`: the entry point of a functional model (or the declared input
shape of a Sequential one). `Input(shape)` returns the InputLayer's output, a KerasTensor of shape
`(batch_size, *shape)`; the InputLayer is the Node that produced it."""
import tensorflux as tf

from ..keras_tensor import KerasTensor, Node
from .layer import Layer


class InputLayer(Layer):
    def __init__(self, shape=None, batch_size=None, dtype=None, sparse=None, batch_shape=None, input_tensor=None,
                 optional=False, name=None, **kwargs):
        if sparse or input_tensor is not None or optional:
            raise ValueError("tensorflux's keras.Input supports neither `sparse`, `input_tensor` nor `optional`.")
        super().__init__(name=name, **kwargs)
        if batch_shape is not None:
            if shape is not None or batch_size is not None:
                raise ValueError("You cannot pass both `shape` and `batch_shape` at the same time.")
            batch_shape = tuple(batch_shape)
        else:
            if shape is None:
                raise ValueError("You must pass a `shape` argument.")
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            batch_shape = (batch_size,) + shape
        self.batch_shape = tuple(None if d is None else int(d) for d in batch_shape)
        self._input_dtype = tf.as_dtype(getattr(dtype, "name", dtype) or "float32")
        node = Node(self, (), {})
        # As Keras 3: the tensor takes the name given to Input, else its own (keras_tensor, keras_tensor_1, …).
        tensor = KerasTensor(self.batch_shape, self._input_dtype, name=name, history=(node, 0))
        node.outputs.append(tensor)
        node.structure = tensor
        self._first_node = node     # what Layer.output reads
        self._output_shape = tf.TensorShape(self.batch_shape)
        self.built = True

    @property
    def dtype(self):
        return self._input_dtype.name

    def call(self, inputs):
        return inputs

    def get_config(self):
        return {"batch_shape": self.batch_shape, "dtype": self.dtype, "name": self.name}


def Input(shape=None, batch_size=None, dtype=None, sparse=None, batch_shape=None, name=None, tensor=None,
          optional=False):
    """`keras.Input`: a KerasTensor to call layers on, then to pass to `keras.Model(inputs, outputs)`."""
    return InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, sparse=sparse, batch_shape=batch_shape,
                      input_tensor=tensor, optional=optional, name=name).output


API = {"keras.layers": ["InputLayer"]}
