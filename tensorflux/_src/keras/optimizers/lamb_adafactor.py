"""Two Keras 3 optimizers that scale Adam-like steps per variable: `Lamb` and `Adafactor`.

- Lamb (You et al., 2019): Adam's bias-corrected step `m̂ / (sqrt(v̂) + epsilon)`, multiplied by the trust
  ratio ||w|| / ||step|| (1 when either norm is 0). Slots: momentum and velocity, variable by variable.
- Adafactor (Shazeer & Stern, 2018): second moments of a variable of rank ≥ 2 kept factored, as a row
  vector `r` (mean over the last axis) and a column vector `c` (mean over the second to last), their
  product divided by the mean of `r` standing for the full velocity; rank 0 and 1 keep the full velocity.
  The decay is `1 - t ** beta_2_decay`; with `relative_step` the learning rate is capped by 1 / sqrt(t);
  the step is scaled by max(rms(w), epsilon_2) and its own rms clipped to `clip_threshold`. Slots: r and c
  (named as the variable, as Keras names them; scalars for rank < 2, unused) and the velocity.
Both were checked against Keras 3.15's values over five steps on variables of ranks 1 and 2.
"""
import tensorflux as tf

from .optimizer import _BY_NAME, Optimizer, _dense


def _rms(x):
    return tf.sqrt(tf.reduce_mean(tf.square(x)))


class Lamb(Optimizer):
    """Adam's step times the trust ratio ||w|| / ||step|| (see the module docstring)."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    def build(self, var_list):
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(var_list, ["momentum", "velocity"])

    def update_step(self, gradient, variable, learning_rate):
        gradient = _dense(gradient)
        dtype = variable.dtype
        lr = tf.cast(learning_rate, dtype)
        step = self._step(dtype)
        beta_1, beta_2 = tf.cast(self.beta_1, dtype), tf.cast(self.beta_2, dtype)
        index = self._index(variable)
        m, v = self._momentums[index], self._velocities[index]
        m.assign_add((gradient - m) * (1 - beta_1))
        v.assign_add((tf.square(gradient) - v) * (1 - beta_2))
        m_hat = m / (1 - tf.pow(beta_1, step))
        v_hat = v / (1 - tf.pow(beta_2, step))
        update = m_hat / (tf.sqrt(v_hat) + tf.cast(self.epsilon, dtype))
        w_norm = tf.norm(tf.convert_to_tensor(variable))
        g_norm = tf.norm(update)
        ratio = tf.where(tf.logical_and(w_norm > 0, g_norm > 0), w_norm / g_norm, tf.ones_like(w_norm))
        variable.assign_sub(lr * ratio * update)


class Adafactor(Optimizer):
    """Factored second moments, relative step sizes, update clipping (see the module docstring)."""

    def __init__(self, learning_rate=0.001, beta_2_decay=-0.8, epsilon_1=1e-30, epsilon_2=1e-3, clip_threshold=1.0,
                 relative_step=True, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_2_decay, self.epsilon_1, self.epsilon_2 = beta_2_decay, epsilon_1, epsilon_2
        self.clip_threshold, self.relative_step = clip_threshold, relative_step

    def build(self, var_list):
        super().build(var_list)
        self._r, self._c, self._v = [], [], []
        for variable in var_list:
            shape = list(variable.shape)
            rows = shape[:-1] if len(shape) >= 2 else []
            cols = shape[:-2] + shape[-1:] if len(shape) >= 2 else []
            self._r.append(self._slot(variable, rows))
            self._c.append(self._slot(variable, cols))
            self._v.append(self.add_variable_from_reference(variable, "velocity"))

    def _slot(self, reference, shape):
        name = (getattr(reference, "path", None) or reference.name.rsplit(":", 1)[0]).replace("/", "_")
        slot = tf.Variable(tf.zeros(shape, reference.dtype), trainable=False, name=f"{self.name}/{name}")
        self._variables.append(slot)
        return slot

    def update_step(self, gradient, variable, learning_rate):
        gradient = _dense(gradient)
        dtype = variable.dtype
        lr = tf.cast(learning_rate, dtype)
        step = self._step(dtype)
        if self.relative_step:
            lr = tf.minimum(lr, 1 / tf.sqrt(step))
        index = self._index(variable)
        r, c, v = self._r[index], self._c[index], self._v[index]
        beta_2 = 1 - tf.pow(step, tf.cast(self.beta_2_decay, dtype))
        squared = tf.square(gradient) + tf.cast(self.epsilon_1, dtype)
        value = tf.convert_to_tensor(variable)
        alpha = lr * tf.maximum(_rms(value), tf.cast(self.epsilon_2, dtype))
        if len(variable.shape) < 2:
            v.assign(beta_2 * v + (1 - beta_2) * squared)
        else:
            r.assign(beta_2 * r + (1 - beta_2) * tf.reduce_mean(squared, axis=-1))
            c.assign(beta_2 * c + (1 - beta_2) * tf.reduce_mean(squared, axis=-2))
            rows = tf.convert_to_tensor(r)
            v.assign(tf.expand_dims(rows / tf.reduce_mean(rows, axis=-1, keepdims=True), -1) *
                     tf.expand_dims(tf.convert_to_tensor(c), -2))
        u = gradient * tf.math.rsqrt(tf.convert_to_tensor(v))
        u_hat = u / tf.maximum(tf.ones([], dtype), _rms(u) / tf.cast(self.clip_threshold, dtype))
        variable.assign_sub(alpha * u_hat)


# Keras 3.15 resolves "adafactor" by name; "lamb" is not in its table (get("lamb") raises there too).
_BY_NAME.update({"adafactor": Adafactor})

API = {"keras.optimizers": ["Lamb", "Adafactor"]}
