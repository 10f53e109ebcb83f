"""Adaptive pooling layers: AdaptiveAverage/MaxPooling1D, 2D, 3D pool each spatial axis into `output_size`
bins (PyTorch's bins: bin i spans [floor(i·n/out), ceil((i+1)·n/out))), through keras.ops."""
from .. import ops_nn as _ops_nn
from . import core as _core
from .layer import Layer


class _AdaptivePooling(Layer):
    _rank = None
    _pool = None

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(**kwargs)
        size = (output_size,) * self._rank if isinstance(output_size, int) else tuple(output_size)
        if len(size) != self._rank or not all(isinstance(s, int) and s > 0 for s in size):
            raise ValueError(f"`output_size` must be an integer or a tuple of {self._rank} positive integers. "
                             f"Received: output_size={output_size}")
        self.output_size = size
        self.data_format = _core._channels_last(data_format)

    def call(self, inputs):
        return type(self)._pool(inputs, self.output_size)

    def compute_output_shape(self, input_shape):
        return (input_shape[0],) + self.output_size + (input_shape[-1],)


def _make(name, rank, pool, what):
    return type(name, (_AdaptivePooling,), {"_rank": rank, "_pool": staticmethod(pool), "__module__": __name__,
                                            "__doc__": f"{what} of {rank}-D inputs into `output_size` bins."})


AdaptiveAveragePooling1D = _make("AdaptiveAveragePooling1D", 1, _ops_nn.adaptive_average_pool, "Adaptive average pooling")
AdaptiveAveragePooling2D = _make("AdaptiveAveragePooling2D", 2, _ops_nn.adaptive_average_pool, "Adaptive average pooling")
AdaptiveAveragePooling3D = _make("AdaptiveAveragePooling3D", 3, _ops_nn.adaptive_average_pool, "Adaptive average pooling")
AdaptiveMaxPooling1D = _make("AdaptiveMaxPooling1D", 1, _ops_nn.adaptive_max_pool, "Adaptive max pooling")
AdaptiveMaxPooling2D = _make("AdaptiveMaxPooling2D", 2, _ops_nn.adaptive_max_pool, "Adaptive max pooling")
AdaptiveMaxPooling3D = _make("AdaptiveMaxPooling3D", 3, _ops_nn.adaptive_max_pool, "Adaptive max pooling")

API = {"keras.layers": ["AdaptiveAveragePooling1D", "AdaptiveAveragePooling2D", "AdaptiveAveragePooling3D",
                        "AdaptiveMaxPooling1D", "AdaptiveMaxPooling2D", "AdaptiveMaxPooling3D"]}
