"""`keras.optimizers.ScheduleFreeAdamW` (Defazio et al., 2024): AdamW without a learning-rate schedule.

The optimizer keeps, per variable, a sequence `z` (the slot Keras names "momentum", starting at the
variable's value) that takes plain Adam-normalized gradient steps (second moment only, bias-corrected, no
first moment), and an average `x` of the z's with weights 1/t. The model's variable holds neither: it holds
`y = (1 - beta_1) z + beta_1 x`, the point gradients are taken at. `x` is not stored; each step recovers it
from y and z, then advances it and writes the new y. `warmup_steps` ramps the rate linearly over the first
steps.

As Keras 3.15 computes it on TensorFlow, x is recovered from the *updated* z (the slot, read after its
update, is what its "old" value names there), so that is the rule here: with z' the new z,
`x = (y - (1 - beta_1) z') / beta_1`, `x' = (1 - 1/t) x + z' / t`, `y' = (1 - beta_1) z' + beta_1 x'`.
Checked against Keras 3.15 over five steps (test_optimizers_keras315.py).
"""
import tensorflux as tf

from .optimizer import _BY_NAME, Optimizer


class ScheduleFreeAdamW(Optimizer):
    """Schedule-free AdamW: the variable interpolates an Adam sequence and its running average."""

    def __init__(self, learning_rate=0.0025, beta_1=0.9, beta_2=0.999, epsilon=1e-8, warmup_steps=0,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum, ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor,
                         gradient_accumulation_steps=gradient_accumulation_steps, **kwargs)
        self.beta_1, self.beta_2, self.epsilon, self.warmup_steps = beta_1, beta_2, epsilon, warmup_steps

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(var_list, ["momentum", "velocity"])
        for z, variable in zip(self._momentums, var_list):     # z starts where the variable is
            z.assign(tf.convert_to_tensor(variable))

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        lr = tf.cast(learning_rate, dtype)
        gradient = tf.cast(tf.convert_to_tensor(gradient), dtype)
        step = self._step(dtype)
        beta_1, beta_2 = tf.cast(self.beta_1, dtype), tf.cast(self.beta_2, dtype)
        if self.warmup_steps > 0:
            lr = lr * tf.minimum(step / tf.cast(self.warmup_steps, dtype), 1.0)
        i = self._index(variable)
        z, v = self._momentums[i], self._velocities[i]
        v.assign_add((tf.square(gradient) - v) * (1 - beta_2))
        denominator = tf.sqrt(v / (1 - tf.pow(beta_2, step))) + tf.cast(self.epsilon, dtype)
        z.assign_sub(lr * gradient / denominator)
        weight = 1.0 / step
        z_new = tf.convert_to_tensor(z)
        x = (tf.convert_to_tensor(variable) - (1 - beta_1) * z_new) / beta_1
        x = (1 - weight) * x + weight * z_new
        variable.assign((1 - beta_1) * z_new + beta_1 * x)


_BY_NAME.update({"schedulefreeadamw": ScheduleFreeAdamW})

API = {"keras.optimizers": ["ScheduleFreeAdamW"]}
