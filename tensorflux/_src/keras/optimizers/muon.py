"""`keras.optimizers.Muon` (Jordan et al., 2024; with Liu et al., 2025's update scaling): momentum steps
orthogonalized by a Newton-Schulz iteration for matrices, AdamW for everything else.

Which rule a variable gets is fixed when the optimizer is built, as in Keras 3.15: AdamW for a variable of
rank other than 2, for one whose path contains "embedding" (with `exclude_embeddings`), and for one whose
path matches a regular expression of `exclude_layers` (re.search); Muon for the other matrices.

- Muon: `m += g + (momentum - 1) m` (that is `m = momentum m + g`); the direction is `g + momentum m` with
  Nesterov, else m; it is replaced by the quintic Newton-Schulz iteration's approximation of its orthogonal
  factor (on the wide orientation: a tall matrix is transposed there and back; first divided by its
  Frobenius norm + 1e-7, then `ns_steps` times `A = X Xᵀ; X = a X + (b A + (c A) A) X`), and
  `lr * update * sqrt(max(rows, cols)) * rms_rate` is subtracted (no scaling when rms_rate is None).
- AdamW: Keras' Adam step (bias correction folded into the step size) at `learning_rate * adam_lr_ratio`.
- Weight decay, before the step: `weight_decay` on Muon's variables, `adam_weight_decay` on AdamW's.
Slots, variable by variable: a momentum for every variable, then a velocity for the AdamW ones.
"""
import re

import tensorflux as tf

from .optimizer import _BY_NAME, Optimizer

# Keras 3.15's get_config() order: the base entries, then these.
_CONFIG_ORDER = ("adam_beta_1", "adam_beta_2", "epsilon", "exclude_layers", "muon_a", "muon_b", "muon_c",
                 "adam_lr_ratio", "momentum", "ns_steps", "nesterov", "exclude_embeddings", "adam_weight_decay",
                 "rms_rate")


def _path(variable):
    return getattr(variable, "path", None) or variable.name.rsplit(":", 1)[0]


class Muon(Optimizer):
    """Newton-Schulz-orthogonalized momentum for matrices, AdamW for the rest (see the module docstring)."""

    def __init__(self, learning_rate=0.001, adam_beta_1=0.9, adam_beta_2=0.999, adam_weight_decay=0.004,
                 epsilon=1e-7, weight_decay=0.004, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, exclude_layers=None, exclude_embeddings=True,
                 muon_a=3.4445, muon_b=-4.7750, muon_c=2.0315, adam_lr_ratio=1, momentum=0.95, ns_steps=5,
                 nesterov=True, rms_rate=0.2, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum, ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps, **kwargs)
        self.adam_beta_1, self.adam_beta_2, self.epsilon = adam_beta_1, adam_beta_2, epsilon
        self.muon_a, self.muon_b, self.muon_c = muon_a, muon_b, muon_c
        self.adam_lr_ratio, self.momentum, self.ns_steps, self.nesterov = adam_lr_ratio, momentum, ns_steps, nesterov
        self.exclude_embeddings = exclude_embeddings
        self.exclude_layers = exclude_layers or []
        self.adam_weight_decay, self.rms_rate = adam_weight_decay, rms_rate

    def _should_use_adamw(self, variable):
        if len(variable.shape) != 2:
            return True
        path = _path(variable)
        if self.exclude_embeddings and "embedding" in path.lower():
            return True
        return any(re.search(keyword, path) for keyword in self.exclude_layers)

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self.momentums, self.adam_velocities = [], []
        for variable in var_list:
            self.momentums.append(self.add_variable_from_reference(variable, "momentum"))
            adam = self._should_use_adamw(variable)
            self.adam_velocities.append(self.add_variable_from_reference(variable, "velocity") if adam else None)

    def _apply_weight_decay(self, variables, learning_rate):
        for variable in variables:
            if not self._use_weight_decay(variable):
                continue
            decay = self.adam_weight_decay if self._should_use_adamw(variable) else self.weight_decay
            if decay is None:
                continue
            dtype = variable.dtype
            variable.assign(variable - variable * tf.cast(decay, dtype) * tf.cast(learning_rate, dtype))

    def update_step(self, gradient, variable, learning_rate):
        gradient = tf.convert_to_tensor(gradient)
        i = self._index(variable)
        m, v = self.momentums[i], self.adam_velocities[i]
        if v is not None:
            self._adamw_step(gradient, variable, learning_rate * self.adam_lr_ratio, m, v)
        else:
            self._muon_step(gradient, variable, learning_rate, m)

    def _muon_step(self, gradient, variable, learning_rate, m):
        m.assign_add(gradient + m * (self.momentum - 1))
        direction = gradient + self.momentum * tf.convert_to_tensor(m) if self.nesterov else tf.convert_to_tensor(m)
        update = self.zeropower_via_newtonschulz5(direction, self.ns_steps)
        variable.assign_sub(self.lr_adjust(learning_rate * update))

    def _adamw_step(self, gradient, variable, learning_rate, m, v):
        dtype = variable.dtype
        lr = tf.cast(learning_rate, dtype)
        gradient = tf.cast(gradient, dtype)
        step = self._step(dtype)
        beta_1_power = tf.pow(tf.cast(self.adam_beta_1, dtype), step)
        beta_2_power = tf.pow(tf.cast(self.adam_beta_2, dtype), step)
        alpha = lr * tf.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        m.assign_add((gradient - m) * (1 - self.adam_beta_1))
        v.assign_add((tf.square(gradient) - v) * (1 - self.adam_beta_2))
        variable.assign_sub(m * alpha / (tf.sqrt(v) + self.epsilon))

    @staticmethod
    def transpose_last_axis(x):
        """`x` with its last two axes swapped."""
        rank = len(x.shape)
        return tf.transpose(x, list(range(rank - 2)) + [rank - 1, rank - 2])

    def lr_adjust(self, x):
        """`x * sqrt(max(rows, cols)) * rms_rate` (Liu et al., 2025), or `x` when rms_rate is None."""
        if self.rms_rate is None:
            return x
        return x * tf.sqrt(tf.cast(max(x.shape[0], x.shape[1]), x.dtype)) * self.rms_rate

    def zeropower_via_newtonschulz5(self, x, steps):
        """The quintic Newton-Schulz approximation of the orthogonal factor of `x` (rank >= 2)."""
        shape = x.shape
        if len(shape) < 2:
            raise ValueError(f"Expected gradient or momentum to have at least 2 dimensions. Received: shape={shape}")
        a, b, c = self.muon_a, self.muon_b, self.muon_c
        tall = shape[-2] > shape[-1]
        if tall:
            x = self.transpose_last_axis(x)
        x = x / (tf.sqrt(tf.reduce_sum(x * x, axis=[-2, -1], keepdims=True)) + 1e-7)   # spectral norm <= 1
        for _ in range(steps):
            gram = x @ self.transpose_last_axis(x)
            x = a * x + (b * gram + c * gram @ gram) @ x
        return self.transpose_last_axis(x) if tall else x

    def get_config(self):
        config = Optimizer._builtin_get_config(self)
        config["exclude_layers"] = self.exclude_layers      # None is written as Keras keeps it: []
        base = [k for k in config if k not in _CONFIG_ORDER]
        return {k: config[k] for k in base + list(_CONFIG_ORDER)}


_BY_NAME.update({"muon": Muon})

API = {"keras.optimizers": ["Muon"]}
