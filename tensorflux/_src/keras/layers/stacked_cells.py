"""`keras.layers.StackedRNNCells`: several RNN cells used as one, each step's output the next cell's input.
`RNN([cell, cell, ...])` wraps its list in one, as Keras 3 does.

Its `state_size` is Keras' nested list (one entry per cell: an LSTMCell's is `[units, units]`); the RNN
layer (layers/rnn.py) runs it on the flat list of all the cells' states, in order (`flat_state_size`), and
returns them flat with `return_state=True`, as Keras does. Called by hand, it takes the states either way:
nested per cell (as Keras passes them) or flat, and answers in the same form.
"""
import tensorflux as tf

from .layer import Layer


def _sizes_of(cell):
    size = cell.state_size
    return list(size) if isinstance(size, (list, tuple)) else [size]


class StackedRNNCells(Layer):
    """Runs `cells` one after the other within one time step."""

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        for cell in cells:
            if "call" not in dir(cell):
                raise ValueError(f"All cells must have a `call` method. Received cell without a `call` method: {cell}")
            if "state_size" not in dir(cell):
                raise ValueError(f"All cells must have a `state_size` attribute. Received cell without a "
                                 f"`state_size`: {cell}")
        self.cells = list(cells)
        # which cells take `training` (looked up once, not at every time step)
        self._takes_training = tuple(isinstance(c, Layer) and "training" in _call_parameters(c) for c in cells)

    @property
    def state_size(self):
        return [cell.state_size for cell in self.cells]

    @property
    def flat_state_size(self):
        """Every cell's states, in order: what the RNN layer carries from step to step."""
        return [size for cell in self.cells for size in _sizes_of(cell)]

    @property
    def output_size(self):
        last = self.cells[-1]
        size = getattr(last, "output_size", None)
        return size if size is not None else _sizes_of(last)[0]

    def get_initial_state(self, batch_size=None):
        states = []
        for cell in self.cells:
            make = getattr(cell, "get_initial_state", None)
            if make is not None:
                made = make(batch_size=batch_size)
                states += list(made) if isinstance(made, (list, tuple)) else [made]
            else:
                states += [tf.zeros([batch_size] + ([s] if isinstance(s, int) else list(s))) for s in _sizes_of(cell)]
        return states

    def build(self, input_shape):
        shape = tuple(input_shape)
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                cell._build_with_shape(shape)
            elif not isinstance(cell, Layer) and hasattr(cell, "build"):
                cell.build(shape)
            size = getattr(cell, "output_size", None)
            shape = shape[:-1] + (size if size is not None else _sizes_of(cell)[0],)

    def _grouped(self, states):
        """(the states of each cell, whether they came nested)."""
        states = list(states) if isinstance(states, (list, tuple)) else [states]
        if len(states) == len(self.cells) and any(isinstance(s, (list, tuple)) for s in states):
            return [list(s) if isinstance(s, (list, tuple)) else [s] for s in states], True
        groups, at = [], 0
        for cell in self.cells:
            n = len(_sizes_of(cell))
            groups.append(states[at:at + n])
            at += n
        return groups, False

    def call(self, inputs, states, training=None):
        groups, nested = self._grouped(states)
        new_states = []
        for cell, cell_states, takes_training in zip(self.cells, groups, self._takes_training):
            kwargs = {"training": training} if takes_training else {}
            inputs, cell_new = (cell if callable(cell) else cell.call)(inputs, cell_states, **kwargs)
            cell_new = list(cell_new) if isinstance(cell_new, (list, tuple)) else [cell_new]
            new_states.append(cell_new)
        if nested:
            return inputs, new_states
        return inputs, [s for group in new_states for s in group]

    # The RNN layer fixes each of its own cells' weights and dropout masks for the time steps of a call
    # (rnn._RecurrentCell._start_call): every cell of the stack gets the same, with a zero input of its
    # width (a mask depends only on the shape).
    def _start_call(self, step_inputs, state, training):
        batch = tf.shape(step_inputs)[0] if step_inputs.shape[0] is None else step_inputs.shape[0]
        x = step_inputs
        for cell in self.cells:
            sizes = _sizes_of(cell)
            if hasattr(cell, "_start_call"):
                cell._start_call(x, tf.zeros(tf.stack([batch, sizes[0]]), step_inputs.dtype), training)
            size = getattr(cell, "output_size", None)
            x = tf.zeros(tf.stack([batch, size if size is not None else sizes[0]]), step_inputs.dtype)

    def _end_call(self):
        for cell in self.cells:
            if hasattr(cell, "_end_call"):
                cell._end_call()

    def get_config(self):
        config = super().get_config()
        config["cells"] = list(self.cells)
        return self._keras_serialized(config)


def _call_parameters(cell):
    import inspect
    try:
        return inspect.signature(type(cell).call).parameters
    except (TypeError, ValueError):
        return {}


API = {"keras.layers": ["StackedRNNCells"]}
