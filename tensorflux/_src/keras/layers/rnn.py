"""Recurrent `keras.layers`: the cells SimpleRNNCell, LSTMCell and GRUCell, the generic `RNN(cell)` layer that
runs a cell over the time axis, and the SimpleRNN/LSTM/GRU layers built on it (`Bidirectional` wraps them,
in layers.bidirectional).

Weights are laid out like Keras 3, so weights copied from real Keras give the same outputs: kernels are
`[input_dim, gates * units]` and recurrent kernels `[units, gates * units]` with the gates concatenated in
Keras's order (LSTM: input, forget, cell, output; GRU: update z, reset r, candidate h). GRU with
`reset_after=True` (the default) has a `[2, 3 * units]` bias: row 0 is added to the input projection, row 1
to the recurrent one, and the reset gate multiplies the recurrent candidate after its bias is added.

The time loop: eagerly (or with `unroll=True`) it is a Python loop over the time steps; while a graph is
traced it is one `While` op over TensorArrays, so a tf.function holds the step once whatever the sequence
length. Both are made of differentiable ops, so gradients reach the weights, the inputs and the initial
states. A `mask` (batch, time) — passed, or carried by the input (an Embedding with `mask_zero`, a
Masking layer) — keeps the previous output and states at masked steps, or gives zero outputs with
`zero_output_for_mask=True`; a layer returning sequences passes the mask on to its outputs.
With `stateful=True` the final states of a call are the initial states of the next (kept in variables,
`layer.states`, sized by the first call's batch) until `reset_states()` zeroes them.

Dropout (`dropout`, `recurrent_dropout`) draws one mask per layer call for the step inputs and one for the
recurrent state, shared by all time steps and all gates (variational dropout) — Keras draws separate masks
per gate when `recurrent_dropout` is used, which has the same distribution per gate but different values.
"""
import inspect

import tensorflux as tf

from ...autodiff import tape as _tape
from ...ops.nn import recurrent_kernels as _recurrent_kernels
from .. import activations as _activations
from .. import constraints as _constraints
from .. import initializers as _initializers
from .layer import Layer
from .stacked_cells import StackedRNNCells


# Keras's default for recurrent kernels; `keras.initializers.get` knows it by name and config.
Orthogonal = _initializers.Orthogonal
_initializer = _initializers.get


def _serialized_orthogonal(initializer):
    return {"module": "keras.initializers", "class_name": "Orthogonal",
            "config": {"seed": initializer.seed, "gain": initializer.gain}, "registered_name": None}


# -- cells ------------------------------------------------------------------------------------------------
def _check_units(units):
    if not isinstance(units, int) or isinstance(units, bool) or units <= 0:
        raise ValueError(f"Received an invalid value for argument `units`, expected a positive integer, got "
                         f"{units}.")


def _rate(value, arg):
    value = float(value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"Invalid value received for argument `{arg}`. Expected a float value between 0 and 1. "
                         f"Received: {arg}={value}")
    return value


def store_cell_arguments(cell, activation, recurrent_activation, use_bias, kernel_initializer, recurrent_initializer,
                         bias_initializer, kernel_regularizer, recurrent_regularizer, bias_regularizer,
                         kernel_constraint, recurrent_constraint, bias_constraint, dropout, recurrent_dropout, seed):
    """The arguments every recurrent cell takes (SimpleRNN/GRU/LSTM cells, ConvLSTMCell), resolved and stored."""
    cell.activation = _activations.get(activation)
    cell.recurrent_activation = _activations.get(recurrent_activation)
    cell.use_bias = bool(use_bias)
    cell.kernel_initializer = _initializer(kernel_initializer)
    cell.recurrent_initializer = _initializer(recurrent_initializer)
    cell.bias_initializer = _initializer(bias_initializer)
    cell.kernel_regularizer = kernel_regularizer
    cell.recurrent_regularizer = recurrent_regularizer
    cell.bias_regularizer = bias_regularizer
    # Applied by the optimizer after each update (keras.Variable.constraint), as in Keras 3.
    cell.kernel_constraint = _constraints.get(kernel_constraint)
    cell.recurrent_constraint = _constraints.get(recurrent_constraint)
    cell.bias_constraint = _constraints.get(bias_constraint)
    cell.dropout = _rate(dropout, "dropout")
    cell.recurrent_dropout = _rate(recurrent_dropout, "recurrent_dropout")
    cell.seed = seed


class _RecurrentCell(Layer):
    """What the three Keras cells share: units, activations, initializers, regularizers, dropout masks."""

    _gates = 1              # blocks of `units` columns in the kernels
    _default_name = None    # the fixed name Keras gives the cell a layer builds (e.g. "lstm_cell")

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 **kwargs):
        _check_units(units)
        kwargs.pop("implementation", None)  # Keras's two implementations compute the same function
        super().__init__(**kwargs)
        self.units = units
        store_cell_arguments(self, activation, recurrent_activation, use_bias, kernel_initializer,
                             recurrent_initializer, bias_initializer, kernel_regularizer, recurrent_regularizer,
                             bias_regularizer, kernel_constraint, recurrent_constraint, bias_constraint, dropout,
                             recurrent_dropout, seed)
        self.state_size = units
        self.output_size = units
        self._per_call = None  # weights and dropout masks fixed for the time steps of one RNN call
        self.bias = None

    def build(self, input_shape):
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(f"The last dimension of the inputs to {type(self).__name__} should be defined. "
                             f"Found None. Full input shape received: {tuple(input_shape)}")
        width = self._gates * self.units
        self.kernel = self.add_weight(shape=(input_dim, width), initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
                                      name="kernel")
        self.recurrent_kernel = self.add_weight(shape=(self.units, width), initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint, name="recurrent_kernel")
        if self.use_bias:
            self.bias = self.add_weight(shape=self._bias_shape(), initializer=self._bias_init(),
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        name="bias")

    def _bias_shape(self):
        return (self._gates * self.units,)

    def _bias_init(self):
        return self.bias_initializer

    def get_initial_state(self, batch_size=None):
        sizes = self.state_size if isinstance(self.state_size, (list, tuple)) else [self.state_size]
        return [_zeros(batch_size, size) for size in sizes]

    # What one RNN call fixes for all its time steps: the weights (read once) and the dropout masks.
    def _start_call(self, step_inputs, state, training):
        """Called by `RNN` before its loop, with the first step's inputs and the first state."""
        self._per_call = _PerCall(self, step_inputs, state, training)

    def _end_call(self):
        self._per_call = None

    def _step_weights(self):
        """(kernel, recurrent_kernel, bias) as used by one step."""
        per_call = self._per_call
        if per_call is None:
            return self.kernel, self.recurrent_kernel, self.bias
        return per_call.weights()

    def _dropped(self, inputs, h_tm1, training):
        per_call = self._per_call
        if per_call is None:
            per_call = _PerCall(self, inputs, h_tm1, training)
        return per_call.drop(inputs, per_call.input_keep), per_call.drop(h_tm1, per_call.state_keep)

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units, "activation": _activations.serialize(self.activation),
                       "recurrent_activation": _activations.serialize(self.recurrent_activation),
                       "use_bias": self.use_bias, "kernel_initializer": self.kernel_initializer,
                       "recurrent_initializer": self.recurrent_initializer,
                       "bias_initializer": self.bias_initializer, "kernel_regularizer": self.kernel_regularizer,
                       "recurrent_regularizer": self.recurrent_regularizer,
                       "bias_regularizer": self.bias_regularizer, "dropout": self.dropout,
                       "recurrent_dropout": self.recurrent_dropout, "seed": self.seed})
        return self._keras_serialized(config)


class _PerCall:
    """The weights and dropout masks of one RNN call.

    The weights are read once, before the loop; each step reshapes those reads to their (fully known) shape.
    Dropout masks are boolean "keep" tensors. Both choices are for the graph loop's gradient: every float
    tensor a `While` body captures needs a gradient accumulator of fully known shape, and the gradients of a
    step computed with an unknown batch size lose their static shapes (a boolean capture needs none).
    """

    def __init__(self, cell, step_inputs, state, training):
        variables = (cell.kernel, cell.recurrent_kernel, cell.bias)
        self.reads = [None if v is None else tf.convert_to_tensor(v) for v in variables]
        self.training = bool(training)
        self.input_keep = self.state_keep = None
        if training:
            self.input_keep = _keep_mask(step_inputs, cell.dropout, cell.seed)
            self.state_keep = _keep_mask(state, cell.recurrent_dropout, None if cell.seed is None else cell.seed + 1)
        self.scales = {id(mask): 1.0 / (1.0 - rate) for mask, rate in
                       ((self.input_keep, cell.dropout), (self.state_keep, cell.recurrent_dropout))
                       if mask is not None}

    def weights(self):
        if tf.executing_eagerly():
            return self.reads
        return [None if r is None else tf.reshape(r, r.shape.as_list()) for r in self.reads]

    def drop(self, x, keep):
        if keep is None:
            return x
        return x * (tf.cast(keep, x.dtype) * self.scales[id(keep)])


def _keep_mask(like, rate, seed):
    """Which entries dropout keeps (each with probability 1 - rate), or None when nothing is dropped."""
    if not 0.0 < rate < 1.0:
        return None
    return tf.random.uniform(tf.shape(like), seed=seed) >= rate


def forget_bias_one(base, units):
    """An LSTM bias initializer (gates input, forget, cell, output; `units` each) whose forget block is 1:
    the forget gate starts open, so that early training does not forget everything."""
    def initializer(shape, dtype=None):
        return tf.concat([base((units,), dtype), tf.ones((units,), dtype or "float32"), base((2 * units,), dtype)], 0)
    return initializer


def _zeros(batch_size, size):
    """A float32 `[batch_size, size]` zero state (`size` may be a list of dimensions); `batch_size` may be
    a scalar tensor (unknown statically)."""
    dims = list(size) if isinstance(size, (list, tuple)) else [size]
    if isinstance(batch_size, int):
        return tf.zeros([batch_size] + dims)
    return tf.ensure_shape(tf.zeros(tf.stack([batch_size] + dims)), [None] + dims)


def _first_state(states):
    return states[0] if isinstance(states, (list, tuple)) else states


class SimpleRNNCell(_RecurrentCell):
    """`h = activation(x @ kernel + bias + h_prev @ recurrent_kernel)`; the output is the new state."""

    _default_name = "simple_rnn_cell"

    def __init__(self, units, activation="tanh", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 **kwargs):
        super().__init__(units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
                         bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                         recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
                         dropout=dropout, recurrent_dropout=recurrent_dropout, seed=seed, **kwargs)

    def call(self, sequence, states, training=False):
        kernel, recurrent_kernel, bias = self._step_weights()
        inputs, h_tm1 = self._dropped(sequence, _first_state(states), training)
        h = tf.matmul(inputs, kernel)
        if bias is not None:
            h = h + bias
        output = self.activation(h + tf.matmul(h_tm1, recurrent_kernel))
        return output, ([output] if isinstance(states, (list, tuple)) else output)

    def get_config(self):
        config = super().get_config()
        del config["recurrent_activation"]
        return config


class LSTMCell(_RecurrentCell):
    """Long short-term memory: states `[h, c]`; gates i, f, o are `recurrent_activation`s of the fused
    projection `x @ kernel + h @ recurrent_kernel + bias`, `c = f * c_prev + i * activation(z_c)`,
    `h = o * activation(c)`."""

    _gates = 4
    _default_name = "lstm_cell"

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, **kwargs):
        super().__init__(units, activation=activation, recurrent_activation=recurrent_activation,
                         use_bias=use_bias, kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer, **kwargs)
        self.unit_forget_bias = bool(unit_forget_bias)
        self.state_size = [units, units]

    def _bias_init(self):
        return forget_bias_one(self.bias_initializer, self.units) if self.unit_forget_bias else self.bias_initializer

    def call(self, inputs, states, training=False):
        h_tm1, c_tm1 = states[0], states[1]
        kernel, recurrent_kernel, bias = self._step_weights()
        inputs, h_rec = self._dropped(inputs, h_tm1, training)
        z = tf.matmul(inputs, kernel) + tf.matmul(h_rec, recurrent_kernel)
        if bias is not None:
            z = z + bias
        z_i, z_f, z_c, z_o = tf.split(z, 4, axis=1)
        i = self.recurrent_activation(z_i)
        f = self.recurrent_activation(z_f)
        c = f * c_tm1 + i * self.activation(z_c)
        o = self.recurrent_activation(z_o)
        h = o * self.activation(c)
        return h, [h, c]

    def get_config(self):
        config = super().get_config()
        config["unit_forget_bias"] = self.unit_forget_bias
        return config


class GRUCell(_RecurrentCell):
    """Gated recurrent unit: `h = z * h_prev + (1 - z) * activation(x_h + r * (h_prev @ U_h + b_h))` with
    `reset_after=True` (Keras 3's default), or `activation(x_h + (r * h_prev) @ U_h)` with `reset_after=False`."""

    _gates = 3
    _default_name = "gru_cell"

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 reset_after=True, **kwargs):
        super().__init__(units, activation=activation, recurrent_activation=recurrent_activation,
                         use_bias=use_bias, kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer, **kwargs)
        self.reset_after = bool(reset_after)

    def _bias_shape(self):
        # Separate input and recurrent biases when the reset gate acts after the recurrent projection.
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def call(self, inputs, states, training=False):
        h_tm1 = _first_state(states)
        kernel, recurrent_kernel, bias = self._step_weights()
        inputs, h_rec = self._dropped(inputs, h_tm1, training)
        units = self.units
        input_bias = recurrent_bias = None
        if bias is not None:
            if self.reset_after:
                input_bias, recurrent_bias = tf.unstack(bias)
            else:
                input_bias = bias
        x = tf.matmul(inputs, kernel)
        if input_bias is not None:
            x = x + input_bias
        x_z, x_r, x_h = tf.split(x, 3, axis=-1)
        if self.reset_after:
            inner = tf.matmul(h_rec, recurrent_kernel)
            if recurrent_bias is not None:
                inner = inner + recurrent_bias
            rec_z, rec_r, rec_h = tf.split(inner, 3, axis=-1)
        else:
            rec_z, rec_r = tf.split(tf.matmul(h_rec, recurrent_kernel[:, :2 * units]), 2, axis=-1)
        z = self.recurrent_activation(x_z + rec_z)
        r = self.recurrent_activation(x_r + rec_r)
        if self.reset_after:
            rec_h = r * rec_h
        else:
            rec_h = tf.matmul(r * h_rec, recurrent_kernel[:, 2 * units:])
        candidate = self.activation(x_h + rec_h)
        h = z * h_tm1 + (1.0 - z) * candidate
        return h, ([h] if isinstance(states, (list, tuple)) else h)

    def get_config(self):
        config = super().get_config()
        config["reset_after"] = self.reset_after
        return config


# -- the time loop --------------------------------------------------------------------------------------
def _time_major(x):
    rank = x.shape.rank
    return tf.transpose(x, [1, 0] + list(range(2, rank)))


def _masked(step_mask, new, old):
    """`new` where the step is kept, `old` elsewhere (`step_mask` is a boolean `[batch, 1]`)."""
    return tf.where(step_mask, new, old)


def run_time_loop(step, inputs, initial_states, output_size, mask=None, go_backwards=False,
                  return_sequences=False, zero_output_for_mask=False, unroll=False):
    """Runs `step(x_t, states) -> (output, states)` over axis 1 of `inputs`.

    Returns `(last_output, outputs, final_states)`; `outputs` is `[batch, time, output_size]` in the order
    the steps ran (reversed time when `go_backwards`), or None unless `return_sequences`.
    """
    steps = _time_major(inputs)
    step_masks = None
    if mask is not None:
        step_masks = tf.expand_dims(tf.transpose(tf.cast(mask, tf.bool), [1, 0]), -1)
    if go_backwards:
        steps = tf.reverse(steps, [0])
        if step_masks is not None:
            step_masks = tf.reverse(step_masks, [0])
    if tf.executing_eagerly() or unroll:
        return _python_loop(step, steps, step_masks, initial_states, return_sequences, zero_output_for_mask)
    return _graph_loop(step, steps, step_masks, initial_states, output_size, return_sequences,
                       zero_output_for_mask)


def _python_loop(step, steps, step_masks, states, return_sequences, zero_output_for_mask):
    length = steps.shape[0]
    if length is None:
        raise ValueError("Cannot unroll a RNN if the time dimension is undefined.")
    if length == 0:
        raise ValueError("The time dimension of the inputs of a RNN layer must be at least 1. Received 0.")
    outputs, last = [], None
    xs = tf.unstack(steps)
    ms = tf.unstack(step_masks) if step_masks is not None else None
    for t, x in enumerate(xs):
        output, new_states = step(x, states)
        if ms is not None:
            # A masked step repeats the previous output (zeros before the first step) and keeps the states.
            fallback = tf.zeros_like(output) if zero_output_for_mask or last is None else last
            output = _masked(ms[t], output, fallback)
            new_states = [_masked(ms[t], n, s) for n, s in zip(new_states, states)]
        last, states = output, list(new_states)
        if return_sequences:
            outputs.append(output)
    return last, (tf.stack(outputs, axis=1) if return_sequences else None), states


def _graph_loop(step, steps, step_masks, states, output_size, return_sequences, zero_output_for_mask):
    length = tf.shape(steps)[0]
    dtype = steps.dtype
    inputs_ta = tf.TensorArray(dtype, size=length, element_shape=steps.shape[1:]).unstack(steps)
    masks_ta = None
    if step_masks is not None:
        masks_ta = tf.TensorArray(tf.bool, size=length, element_shape=step_masks.shape[1:]).unstack(step_masks)
    batch = steps.shape[1] if steps.shape[1] is not None else tf.shape(steps)[1]
    first_output = _zeros(batch, output_size)
    # A growing list rather than one reserved with `length`: the reservation would depend on the inputs' shape,
    # and the gradient would then have to pass through TensorListReserve, which has none.
    outputs_ta = tf.TensorArray(dtype, size=0, dynamic_size=True, element_shape=first_output.shape)

    def keep_going(t, last, states, outputs):
        return t < length

    def body(t, last, states, outputs):
        output, new_states = step(inputs_ta.read(t), states)
        new_states = list(new_states)
        if masks_ta is not None:
            keep = masks_ta.read(t)
            output = _masked(keep, output, tf.zeros_like(output) if zero_output_for_mask else last)
            new_states = [_masked(keep, n, s) for n, s in zip(new_states, states)]
        if return_sequences:
            outputs = outputs.write(t, output)
        return t + 1, output, new_states, outputs

    _, last, states, outputs_ta = tf.while_loop(keep_going, body, [tf.constant(0), first_output, list(states),
                                                                   outputs_ta])
    outputs = None
    if return_sequences:
        outputs = _time_major(outputs_ta.stack())
    return last, outputs, list(states)


# -- layers ---------------------------------------------------------------------------------------------
def _state_sizes(cell):
    flat = getattr(cell, "flat_state_size", None)     # StackedRNNCells: every cell's states, in order
    if flat is not None:
        return [s if isinstance(s, int) else [int(d) for d in tf.TensorShape(s).as_list()] for s in flat]
    size = getattr(cell, "state_size", None)
    if size is None:
        raise ValueError("The RNN cell should have a `state_size` attribute (single integer or list of integers, "
                         f"one integer per RNN state). Received: cell={cell}")
    if isinstance(size, int):
        return [size]
    if isinstance(size, (list, tuple)):
        # As Keras: entries may also be shapes (a state of several dimensions per example).
        return [s if isinstance(s, int) else [int(d) for d in tf.TensorShape(s).as_list()] for s in size]
    raise ValueError("state_size must be an integer, or a list/tuple of integers (one for each state tensor).")


class RNN(Layer):
    """Runs `cell` over the time axis of `(batch, time, features)` inputs.

    A cell is a layer (or any object) with `call(inputs, states) -> (output, new_states)` and a
    `state_size`; it is built from the shape of one time step.
    """

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False, stateful=False,
                 unroll=False, zero_output_for_mask=False, **kwargs):
        if isinstance(cell, (list, tuple)):      # stacked cells, as Keras: one cell of them all
            cell = StackedRNNCells(cell)
        if not callable(getattr(cell, "call", None)):
            raise ValueError(f"Argument `cell` should have a `call` method. Received: cell={cell}")
        super().__init__(**kwargs)
        self.cell = cell
        self.state_size = _state_sizes(cell)
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = bool(stateful)
        self.states = None      # stateful: the states carried from call to call (variables, batch-sized)
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)

    @property
    def _output_size(self):
        size = getattr(self.cell, "output_size", None)
        return self.state_size[0] if size is None else size

    def build(self, sequences_shape, initial_state_shape=None):
        nested = isinstance(sequences_shape, (list, tuple)) and bool(sequences_shape) and \
            isinstance(sequences_shape[0], (list, tuple, tf.TensorShape))
        if not nested and (sequences_shape is None or len(sequences_shape) < 3):
            raise ValueError(f"Input 0 of layer \"{self.name}\" is incompatible with the layer: expected ndim=3, "
                             f"found ndim={None if sequences_shape is None else len(sequences_shape)}. Full shape "
                             f"received: {sequences_shape}")
        # Nested inputs get the same slicing as Keras 3.15 gives them (the cells of its RNN guide then fail).
        step_shape = (sequences_shape[0],) + tuple(sequences_shape[2:])
        if isinstance(self.cell, Layer) and not self.cell.built:
            self.cell._build_with_shape(step_shape)
        elif not isinstance(self.cell, Layer) and hasattr(self.cell, "build"):
            self.cell.build(step_shape)

    def get_initial_state(self, batch_size):
        make = getattr(self.cell, "get_initial_state", None)
        if make is not None:
            states = make(batch_size=batch_size)
            return list(states) if isinstance(states, (list, tuple)) else [states]
        return [_zeros(batch_size, size) for size in self.state_size]

    def _carried_states(self, sequences):
        """The states a stateful layer carries over: zeros of the first call's batch size, then whatever the
        previous call ended with."""
        if self.states is None:
            if sequences.shape[0] is None:
                raise ValueError(f"Layer {self.name} is stateful, so it needs a fixed batch size: pass `batch_size` "
                                 f"to its Input (or call it on arrays of one batch size).")
            self.states = [tf.Variable(s, trainable=False, name=f"{self.name}/state_{i}")
                           for i, s in enumerate(self.get_initial_state(sequences.shape[0]))]
        return [v.read_value() for v in self.states]

    def reset_states(self):
        """Sets the carried states of a stateful layer back to zeros."""
        for variable in self.states or ():
            variable.assign(tf.zeros_like(variable))

    reset_state = reset_states

    def _initial_states(self, sequences, initial_state):
        batch = sequences.shape[0] if sequences.shape[0] is not None else tf.shape(sequences)[0]
        if initial_state is None:
            return self.get_initial_state(batch)
        states = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
        if isinstance(self.cell, StackedRNNCells):       # one list of states per cell, or all of them flat
            states = [s for group in states for s in (group if isinstance(group, (list, tuple)) else [group])]
        if len(states) != len(self.state_size):
            raise ValueError(f"Layer {self.name} expects {len(self.state_size)} initial state(s) (one per entry of "
                             f"cell.state_size={self.state_size}), but it received {len(states)} initial "
                             f"state(s).")
        states = [tf.cast(tf.convert_to_tensor(s), tf.float32) if not isinstance(s, tf.Tensor) or s.dtype !=
                  tf.float32 else s for s in states]
        for s, size in zip(states, self.state_size):
            dims = list(size) if isinstance(size, (list, tuple)) else [size]
            if s.shape.rank != 1 + len(dims) or any(d not in (None, want) for d, want in zip(s.shape[1:], dims)):
                want = ", ".join(str(d) for d in dims)
                raise ValueError(f"An initial state of layer {self.name} must have shape (batch_size, {want}). "
                                 f"Received: shape={tuple(s.shape.as_list()) if s.shape.rank is not None else None}")
        return states

    def call(self, sequences, initial_state=None, mask=None, training=False):
        if sequences.shape.rank is not None and sequences.shape.rank < 3:
            raise ValueError(f"Input 0 of layer \"{self.name}\" is incompatible with the layer: expected ndim=3, "
                             f"found ndim={sequences.shape.rank}. Full shape received: "
                             f"{tuple(sequences.shape.as_list())}")
        if self.unroll and sequences.shape[1] is None:
            raise ValueError("Cannot unroll a RNN if the time dimension is undefined.")
        if self.stateful and initial_state is None:
            initial_state = self._carried_states(sequences)
        states = self._initial_states(sequences, initial_state)
        kind = _fused_kind(self.cell, sequences, states) if training else None
        if kind is not None:
            return self._finish_call(sequences, *self._fused_sequence(kind, sequences, states, mask, training))
        own_cell = hasattr(self.cell, "_start_call")     # tensorflux's cells: weights and masks per call
        if own_cell:
            self.cell._start_call(sequences[:, 0], states[0], training)
        accepts_training = isinstance(self.cell, Layer) and "training" in _call_params(type(self.cell))

        def step(x, step_states):
            kwargs = {"training": training} if accepts_training else {}
            output, new_states = self.cell(x, list(step_states), **kwargs)
            if not isinstance(new_states, (list, tuple)):
                new_states = [new_states]
            return output, list(new_states)

        try:
            last, outputs, states = run_time_loop(step, sequences, states, self._output_size, mask=mask,
                                                  go_backwards=self.go_backwards,
                                                  return_sequences=self.return_sequences,
                                                  zero_output_for_mask=self.zero_output_for_mask,
                                                  unroll=self.unroll)
        finally:
            if own_cell:
                self.cell._end_call()
        return self._finish_call(sequences, last, outputs, states)

    def _fused_sequence(self, kind, sequences, states, mask, training):
        """The whole time loop of a training call as one fused op and its gradient as another
        (ops/nn/recurrent_kernels.py): same dropout draws, masks and reversal as the step loop."""
        cell = self.cell
        per_call = _PerCall(cell, sequences[:, 0], states[0], training)
        kernel, recurrent_kernel, bias = per_call.reads
        steps = _time_major(sequences)
        if per_call.input_keep is not None:
            steps = per_call.drop(steps, per_call.input_keep)     # one mask for every step
        dtype = steps.dtype
        scale = tf.zeros([0], dtype)
        if per_call.state_keep is not None:
            scale = tf.cast(per_call.state_keep, dtype) * per_call.scales[id(per_call.state_keep)]
        if bias is None:
            bias = tf.zeros(cell._bias_shape(), dtype)
        step_masks = tf.zeros([0], tf.bool) if mask is None else tf.transpose(tf.cast(mask, tf.bool), [1, 0])
        if self.go_backwards:
            steps = tf.reverse(steps, [0])
            if mask is not None:
                step_masks = tf.reverse(step_masks, [0])
        c0 = states[1] if kind == "lstm" else tf.zeros([0], dtype)
        ys, hs, cs, _ = _recurrent_kernels.recurrent_sequence(kind, steps, states[0], c0, kernel, recurrent_kernel,
                                                              bias, step_masks, scale, self.zero_output_for_mask)
        outputs = _time_major(ys) if self.return_sequences else None
        return ys[-1], outputs, ([hs[-1], cs[-1]] if kind == "lstm" else [hs[-1]])

    def _finish_call(self, sequences, last, outputs, states):
        if self.stateful:
            for variable, state in zip(self.states, states):
                variable.assign(state)
        output = outputs if self.return_sequences else last
        if self.return_sequences and output.shape.rank is not None and sequences.shape[1] is not None:
            # the traced time loop stacks its outputs with an unknown length; the input's is the answer
            output.set_shape([None, sequences.shape[1]] + [None] * (output.shape.rank - 2))
        if self.return_state:
            return (output, *self._grouped(list(states)))
        return output

    def _grouped(self, states):
        """The final states as Keras returns them: flat, or for stacked cells one list per cell."""
        if not isinstance(self.cell, StackedRNNCells):
            return states
        groups, at = [], 0
        for cell in self.cell.cells:
            n = len(_state_sizes(cell))
            groups.append(states[at:at + n])
            at += n
        return groups

    def compute_mask(self, inputs, mask=None):
        """Sequences keep the input's mask; a last output or a state has none."""
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        output_mask = mask if self.return_sequences else None
        return [output_mask] + self._grouped([None] * len(self.state_size)) if self.return_state else output_mask

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        batch, length = sequences_shape[0], sequences_shape[1]

        def dims(size):        # a size may be several dimensions (ConvLSTM's states)
            return tuple(size) if isinstance(size, (list, tuple)) else (size,)
        output = (batch, length, *dims(self._output_size)) if self.return_sequences else \
            (batch, *dims(self._output_size))
        if self.return_state:
            return (output,) + tuple(self._grouped([(batch, *dims(size)) for size in self.state_size]))
        return output

    def get_config(self):
        config = super().get_config()
        config.update({"cell": self.cell, "return_sequences": self.return_sequences,
                       "return_state": self.return_state, "go_backwards": self.go_backwards,
                       "stateful": self.stateful, "unroll": self.unroll,
                       "zero_output_for_mask": self.zero_output_for_mask})
        return self._keras_serialized(config)

    def _copy(self, **changes):
        """A new, unbuilt layer with this one's configuration (and fresh weights)."""
        config = self.get_config()
        config.pop("dtype", None)
        config.update(changes)
        if "cell" in config:
            cell = config["cell"]
            cell_config = cell.get_config()
            cell_config.pop("dtype", None)
            try:
                config["cell"] = type(cell)(**cell_config)
            except TypeError as e:
                raise ValueError(f"Cannot copy the cell {cell!r} from its get_config() ({e}); pass "
                                 f"`backward_layer=` to Bidirectional explicitly.") from None
        return type(self).from_config(config)


def _fused_kind(cell, sequences, states):
    """The fused op's cell name when a training call can run as one fused op, else None: Keras's own
    LSTM, GRU or SimpleRNN cell with its default activations (tanh, and sigmoid for the gates),
    float32/float64 sequences of known feature size and at least one step, states of their dtype."""
    kind = {LSTMCell: "lstm", GRUCell: "gru", SimpleRNNCell: "simple_rnn"}.get(type(cell))
    if kind is None or not cell.built or _second_order_possible():
        return None
    if cell.activation is not _activations.get("tanh") or (
            kind != "simple_rnn" and cell.recurrent_activation is not _activations.get("sigmoid")):
        return None
    if kind == "gru" and not cell.reset_after:
        kind = "gru_reset_before"
    dtype = sequences.dtype
    fits = (dtype in (tf.float32, tf.float64) and sequences.shape.rank == 3 and sequences.shape[2] is not None
            and sequences.shape[1] != 0 and all(s.dtype == dtype for s in states) and cell.kernel.dtype == dtype)
    return kind if fits else None


def _second_order_possible():
    """Whether a gradient of this call's gradient may be taken (two tapes recording). The fused op's
    backward has no gradient of its own, so such calls keep the cell loop (TensorFlow's While form,
    differentiable to any order, as in TensorFlow)."""
    return sum(1 for t in _tape.active_tapes() if t._recording) > 1


def _call_params(cls):
    try:
        return inspect.signature(cls.call).parameters
    except (TypeError, ValueError):
        return {}


class _KerasRecurrent(RNN):
    """SimpleRNN, LSTM and GRU: an RNN around their own cell, configured by the same arguments."""

    _cell_class = None
    _rnn_args = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll", "zero_output_for_mask")
    _layer_args = ("name", "trainable", "dtype", "input_shape", "input_dim", "batch_input_shape",
                   "activity_regularizer", "autocast")
    _keras_ignores = ()             # arguments Keras' layer accepts and drops

    def __init__(self, units, **kwargs):
        kwargs.pop("use_cudnn", None)  # a GPU switch in Keras; the results are the same
        for key in self._keras_ignores:
            kwargs.pop(key, None)
        rnn_kwargs = {k: kwargs.pop(k) for k in self._rnn_args if k in kwargs}
        layer_kwargs = {k: kwargs.pop(k) for k in self._layer_args if k in kwargs}
        cell = self._cell_class(units, name=self._cell_class._default_name, **kwargs)
        super().__init__(cell, **rnn_kwargs, **layer_kwargs)

    def __getattr__(self, name):
        # Keras exposes the cell's configuration on the layer (layer.units, layer.activation, layer.kernel…).
        if name.startswith("_") or name == "cell":
            raise AttributeError(name)
        cell = self.__dict__.get("cell")
        if cell is not None and hasattr(cell, name):
            return getattr(cell, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def get_config(self):
        """Keras 3's config (its key order comes from keras.saving's table), the cell's Orthogonal
        initializer in Keras' serialized form."""
        config = {k: v for k, v in RNN.get_config(self).items() if k != "cell"}
        for key in ("kernel_initializer", "recurrent_initializer", "bias_initializer"):
            if isinstance(getattr(self.cell, key, None), Orthogonal):
                config[key] = _serialized_orthogonal(getattr(self.cell, key))
        if "activity_regularizer" in self._keras_ignores:
            config["activity_regularizer"] = None
        return config


class SimpleRNN(_KerasRecurrent):
    """A fully connected RNN whose output is fed back as the next step's state."""
    _cell_class = SimpleRNNCell
    # Keras 3.15's SimpleRNN drops its activity_regularizer (the layer's is None, its config says None).
    _keras_ignores = ("activity_regularizer",)


class LSTM(_KerasRecurrent):
    """Long short-term memory (Hochreiter & Schmidhuber); `return_state=True` also returns `h` and `c`."""
    _cell_class = LSTMCell


class GRU(_KerasRecurrent):
    """Gated recurrent unit (Cho et al.), with Keras 3's `reset_after=True` default."""
    _cell_class = GRUCell


API = {"keras.layers": ["RNN", "SimpleRNNCell", "LSTMCell", "GRUCell", "SimpleRNN", "LSTM", "GRU"]}
