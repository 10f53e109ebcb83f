"""`keras.layers.Bidirectional`: a recurrent layer run forwards and a copy of it run backwards over the
sequence, their outputs merged (`merge_mode`); a mask reaches both directions."""
import tensorflux as tf

from .layer import Layer
from .rnn import RNN

_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


class Bidirectional(Layer):
    """Runs a recurrent layer forwards and a copy of it backwards over the sequence and merges the two.

    The backward layer's sequence outputs are flipped back into time order before merging; with
    `return_state=True` the forward states come first, then the backward ones. Weights: forward, then backward.
    """

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        if not isinstance(layer, RNN):
            raise ValueError(f"Please initialize `Bidirectional` layer with a `keras.layers.RNN` instance. "
                             f"Received: {layer}")
        if backward_layer is not None and not isinstance(backward_layer, RNN):
            raise ValueError(f"`backward_layer` need to be a `keras.layers.Layer` instance. Received: "
                             f"{backward_layer}")
        if merge_mode not in _MERGE_MODES:
            raise ValueError(f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                             '{"sum", "mul", "ave", "concat", None}')
        super().__init__(**kwargs)
        base = layer.name
        self.forward_layer = layer._copy(name="forward_" + _strip(base, "forward_"))
        if backward_layer is None:
            backward_layer = layer._copy(go_backwards=not layer.go_backwards,
                                         name="backward_" + _strip(base, "backward_"))
        self.backward_layer = backward_layer
        if self.forward_layer.go_backwards == self.backward_layer.go_backwards:
            raise ValueError(f"Forward layer and backward layer should have different `go_backwards` value. "
                             f"Received: forward_layer.go_backwards {self.forward_layer.go_backwards}, "
                             f"backward_layer.go_backwards={self.backward_layer.go_backwards}")
        for attr in ("stateful", "return_sequences", "return_state"):
            forward_value, backward_value = getattr(self.forward_layer, attr), getattr(self.backward_layer, attr)
            if forward_value != backward_value:
                raise ValueError(f"Forward layer and backward layer are expected to have the same value for "
                                 f"attribute \"{attr}\", got \"{forward_value}\" for forward layer and "
                                 f"\"{backward_value}\" for backward layer")
        for sub in (self.forward_layer, self.backward_layer):
            if sub.return_sequences:
                sub.zero_output_for_mask = True  # like Keras: padded steps give zeros in both directions
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.stateful = False
        if weights:
            half = len(weights) // 2
            self._initial_weights = (weights[:half], weights[half:])
        else:
            self._initial_weights = None

    def build(self, sequences_shape, initial_state_shape=None):
        self.forward_layer._build_with_shape(tuple(sequences_shape))
        self.backward_layer._build_with_shape(tuple(sequences_shape))
        if self._initial_weights is not None:
            self.forward_layer.set_weights(self._initial_weights[0])
            self.backward_layer.set_weights(self._initial_weights[1])
            self._initial_weights = None

    def call(self, sequences, initial_state=None, mask=None, training=None):
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = list(initial_state[:half]), list(initial_state[half:])
        y = self.forward_layer(sequences, initial_state=forward_state, mask=mask, training=training)
        y_rev = self.backward_layer(sequences, initial_state=backward_state, mask=mask, training=training)
        states = ()
        if self.return_state:
            states = tuple(y[1:]) + tuple(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = tf.reverse(y_rev, [1])
        if self.merge_mode == "concat":
            output = tf.concat([y, y_rev], axis=-1)
        elif self.merge_mode == "sum":
            output = y + y_rev
        elif self.merge_mode == "ave":
            output = (y + y_rev) / 2.0
        elif self.merge_mode == "mul":
            output = y * y_rev
        else:
            output = (y, y_rev)
        if self.return_state:
            return (*output, *states) if self.merge_mode is None else (output, *states)
        return list(output) if self.merge_mode is None else output

    def compute_mask(self, inputs, mask=None):
        """Sequences keep the input's mask; a last output or a state has none."""
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        output_mask = mask if self.return_sequences else None
        outputs = [output_mask, output_mask] if self.merge_mode is None else [output_mask]
        if self.return_state:
            return outputs + [None] * (len(self.forward_layer.state_size) * 2)
        return outputs if self.merge_mode is None else output_mask

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        shape = self.forward_layer.compute_output_shape(sequences_shape)
        states = ()
        if self.return_state:
            shape, states = shape[0], tuple(shape[1:])
        if self.merge_mode == "concat":
            shape = tuple(shape[:-1]) + (shape[-1] * 2,)
        elif self.merge_mode is None:
            shape = [tuple(shape), tuple(shape)]
        if self.return_state:
            if self.merge_mode is None:
                return tuple(shape) + states + states
            return (tuple(shape),) + states + states
        return shape if self.merge_mode is None else tuple(shape)

    def get_config(self):
        config = super().get_config()
        config.update({"layer": self.forward_layer, "merge_mode": self.merge_mode,
                       "backward_layer": self.backward_layer})
        return self._keras_serialized(config)


def _strip(name, prefix):
    return name[len(prefix):] if name.startswith(prefix) else name


API = {"keras.layers": ["Bidirectional"]}
