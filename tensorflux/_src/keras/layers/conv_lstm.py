"""`keras.layers.ConvLSTM1D/2D/3D`: an LSTM whose input and recurrent transforms are convolutions, run by
the RNN layer (layers/rnn.py) over `(batch, time, *spatial, channels)` inputs, or with `channels_first`
`(batch, time, channels, *spatial)`.

As Keras 3: the cell's kernel is `(*kernel_size, channels, 4 * filters)`, its recurrent kernel
`(*kernel_size, filters, 4 * filters)`, its bias `4 * filters` (the forget gate's block starts at 1 with
`unit_forget_bias`), the gates in LSTM's order (input, forget, cell, output). Each gate is its own
convolution, as Keras' TensorFlow backend computes it: the input's with the layer's strides, padding and
dilation (plus the gate's bias), the state's with stride 1 and "same" padding. The states `h` and `c` are
`(batch, *output spatial, filters)` (`(batch, filters, *output spatial)` with channels_first); the output
is `h`. As Keras, the spatial sizes must be static (the states' shapes are fixed when the cell is built).
channels_first computes in channels_last, transposing the step's input and states, as Keras' TensorFlow
backend does on CPU (the values are the same in both layouts).
"""
import tensorflux as tf

from .layer import Layer
from .rnn import RNN, _PerCall, forget_bias_one, store_cell_arguments


def _tuple(value, rank, name):
    values = (value,) * rank if isinstance(value, int) else tuple(value)
    if len(values) != rank or not all(isinstance(v, int) and v > 0 for v in values):
        raise ValueError(f"The `{name}` argument must be a tuple of {rank} integers. Received {name}={value}")
    return values


def _output_length(length, kernel, stride, dilation, padding):
    if length is None:
        return None
    if padding == "same":
        return -(-length // stride)
    return -(-(length - (kernel - 1) * dilation) // stride)


class ConvLSTMCell(Layer):
    """One ConvLSTM step over `(batch, *spatial, channels)` (see the module docstring)."""

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 activation="tanh", recurrent_activation="sigmoid", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", unit_forget_bias=True,
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 **kwargs):
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last", "channels_first"):
            raise ValueError("The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
                             f"Received: data_format={data_format}")
        padding = padding.lower()
        if padding not in ("valid", "same"):
            raise ValueError(f"The `padding` argument must be a string 'valid' or 'same'. Received: {padding}")
        self.rank, self.filters = rank, filters
        self.kernel_size = _tuple(kernel_size, rank, "kernel_size")
        self.strides = _tuple(strides, rank, "strides")
        self.dilation_rate = _tuple(dilation_rate, rank, "dilation_rate")
        self.padding, self.data_format = padding, data_format or "channels_last"
        self._channels_first = self.data_format == "channels_first"
        store_cell_arguments(self, activation, recurrent_activation, use_bias, kernel_initializer,
                             recurrent_initializer, bias_initializer, kernel_regularizer, recurrent_regularizer,
                             bias_regularizer, kernel_constraint, recurrent_constraint, bias_constraint, dropout,
                             recurrent_dropout, seed)
        self.unit_forget_bias = bool(unit_forget_bias)
        self.state_size = [filters, filters]      # the spatial sizes join when the cell is built
        self.output_size = filters
        self._per_call = None
        self.bias = None

    def build(self, input_shape):
        channels, spatial_in = (input_shape[1], input_shape[2:]) if self._channels_first else \
            (input_shape[-1], input_shape[1:-1])
        if None in tuple(spatial_in):
            raise ValueError(f"ConvLSTM layers only support static input shapes for the spatial dimension. Received "
                             f"invalid input shape: input_shape={tuple(input_shape)}")
        if channels is None:
            raise ValueError(f"The channel dimension of the inputs to ConvLSTM{self.rank}D should be defined. Found "
                             f"None. Full input shape received: {tuple(input_shape)}")
        spatial = [_output_length(n, k, s, d, self.padding) for n, k, s, d in
                   zip(spatial_in, self.kernel_size, self.strides, self.dilation_rate)]
        state = [self.filters] + spatial if self._channels_first else spatial + [self.filters]
        self.state_size, self.output_size = [state, state], state
        width = 4 * self.filters
        self.kernel = self.add_weight(shape=self.kernel_size + (channels, width), initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
                                      name="kernel")
        self.recurrent_kernel = self.add_weight(shape=self.kernel_size + (self.filters, width),
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint, name="recurrent_kernel")
        if self.use_bias:
            self.bias = self.add_weight(shape=(width,), initializer=self._bias_init(),
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        name="bias")

    def _bias_init(self):
        return forget_bias_one(self.bias_initializer, self.filters) if self.unit_forget_bias else \
            self.bias_initializer

    def get_initial_state(self, batch_size=None):
        shape = [batch_size] + list(self.state_size[0])
        zeros = tf.zeros(tf.stack(shape)) if not isinstance(batch_size, int) else tf.zeros(shape)
        return [zeros, zeros]

    def _start_call(self, step_inputs, state, training):
        self._per_call = _PerCall(self, step_inputs, state, training)

    def _end_call(self):
        self._per_call = None

    def call(self, inputs, states, training=False):
        h_tm1, c_tm1 = states[0], states[1]
        per_call = self._per_call or _PerCall(self, inputs, h_tm1, training)
        # dropout in the layer's own layout (its masks are made from the step's input and state)
        inputs = per_call.drop(inputs, per_call.input_keep)
        h_tm1 = per_call.drop(h_tm1, per_call.state_keep)
        if not self._channels_first:
            h, c = self._step(inputs, h_tm1, c_tm1, per_call)
            return h, [h, c]
        last = [0] + list(range(2, self.rank + 2)) + [1]
        h, c = self._step(tf.transpose(inputs, last), tf.transpose(h_tm1, last), tf.transpose(c_tm1, last), per_call)
        first = [0, self.rank + 1] + list(range(1, self.rank + 1))
        h, c = tf.transpose(h, first), tf.transpose(c, first)
        return h, [h, c]

    def _step(self, inputs, h_tm1, c_tm1, per_call):
        """One step in channels_last: the new h and c."""
        kernel, recurrent_kernel, bias = per_call.weights()
        kernels = tf.split(kernel, 4, axis=self.rank + 1)
        recurrent_kernels = tf.split(recurrent_kernel, 4, axis=self.rank + 1)
        biases = tf.split(bias, 4) if bias is not None else [None] * 4
        x_i, x_f, x_c, x_o = (self._input_conv(inputs, k, b) for k, b in zip(kernels, biases))
        h_i, h_f, h_c, h_o = (tf.nn.convolution(h_tm1, k, strides=1, padding="SAME") for k in recurrent_kernels)
        i = self.recurrent_activation(x_i + h_i)
        f = self.recurrent_activation(x_f + h_f)
        c = f * c_tm1 + i * self.activation(x_c + h_c)
        o = self.recurrent_activation(x_o + h_o)
        h = o * self.activation(c)
        return h, c

    def _input_conv(self, x, kernel, bias):
        out = tf.nn.convolution(x, kernel, strides=list(self.strides), padding=self.padding.upper(),
                                dilations=list(self.dilation_rate))
        return out if bias is None else tf.nn.bias_add(out, bias)


# Keras 3.15's get_config() order: the base keys, the RNN layer's, then the cell's arguments.
_KEY_ORDER = ("name", "trainable", "dtype", "return_sequences", "return_state", "go_backwards", "stateful", "unroll",
              "zero_output_for_mask", "filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
              "activation", "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer",
              "bias_initializer", "unit_forget_bias", "kernel_regularizer", "recurrent_regularizer",
              "bias_regularizer", "activity_regularizer", "kernel_constraint", "recurrent_constraint",
              "bias_constraint", "dropout", "recurrent_dropout", "seed")


class _ConvLSTM(RNN):
    """ConvLSTM{rank}D: RNN(ConvLSTMCell) taking the cell's arguments and the RNN layer's."""

    _rank = None

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 activation="tanh", recurrent_activation="sigmoid", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", unit_forget_bias=True,
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, **kwargs):
        cell = ConvLSTMCell(self._rank, filters, kernel_size, strides=strides, padding=padding,
                            data_format=data_format, dilation_rate=dilation_rate, activation=activation,
                            recurrent_activation=recurrent_activation, use_bias=use_bias,
                            kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
                            bias_initializer=bias_initializer, unit_forget_bias=unit_forget_bias,
                            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
                            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
                            dropout=dropout, recurrent_dropout=recurrent_dropout, seed=seed, name="conv_lstm_cell")
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, activity_regularizer=activity_regularizer,
                         **kwargs)

    def build(self, sequences_shape, initial_state_shape=None):
        rank = self._rank + 3
        if sequences_shape is not None and len(sequences_shape) != rank:
            raise ValueError(f"Input 0 with name 'None' of layer '{self.name}' is incompatible with the layer: "
                             f"expected ndim={rank}, found ndim={len(sequences_shape)}. Full shape received: "
                             f"{tuple(sequences_shape)}")
        super().build(sequences_shape, initial_state_shape)
        self.state_size = [list(s) for s in self.cell.state_size]      # now with the spatial sizes

    @property
    def _output_size(self):
        return self.cell.output_size

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        """From the sequence's shape, built or not (the states' spatial sizes follow the input convolution)."""
        cell = self.cell
        spatial_in = sequences_shape[3:] if cell._channels_first else sequences_shape[2:-1]
        spatial = [_output_length(n, k, s, d, cell.padding) for n, k, s, d in
                   zip(spatial_in, cell.kernel_size, cell.strides, cell.dilation_rate)]
        state = (sequences_shape[0], cell.filters, *spatial) if cell._channels_first else \
            (sequences_shape[0], *spatial, cell.filters)
        output = (sequences_shape[0], sequences_shape[1], *state[1:]) if self.return_sequences else state
        return (output, state, state) if self.return_state else output

    def get_config(self):
        config = {k: v for k, v in RNN.get_config(self).items() if k != "cell"}
        config.setdefault("activity_regularizer", None)     # Keras writes it in place, set or not
        listed = [k for k in _KEY_ORDER if k in config]
        return {k: config[k] for k in listed + [k for k in config if k not in listed]}

    def __getattr__(self, name):
        # the cell's arguments read through the layer (layer.filters, layer.kernel_size, ...), as Keras
        cell = self.__dict__.get("cell")
        if cell is not None and not name.startswith("_") and hasattr(cell, name):
            return getattr(cell, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


class ConvLSTM1D(_ConvLSTM):
    _rank = 1


class ConvLSTM2D(_ConvLSTM):
    _rank = 2


class ConvLSTM3D(_ConvLSTM):
    _rank = 3


API = {"keras.layers": ["ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"]}
