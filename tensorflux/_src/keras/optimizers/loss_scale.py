"""`keras.optimizers.LossScaleOptimizer`: dynamic loss scaling around another optimizer (for float16).

Gradients of a float16 model underflow where they are small; multiplying the loss by a large scale
(`scale_loss`, which a train step applies before taking gradients) lifts them, and this optimizer divides
them by the same scale before the inner optimizer applies them. The scale adapts, as in Keras 3.15:
- a step whose gradients are all finite is applied (unscaled) by the inner optimizer; after
  `dynamic_growth_steps` such steps in a row the scale doubles and the count restarts;
- a step with an inf or NaN anywhere is skipped (the inner optimizer does not move, its `iterations`
  neither), the scale halves and the count restarts.
Its own variables are Keras's: its iteration and learning rate (unused; `iterations` and `learning_rate`
are the inner optimizer's), `step_counter` (int64) and `dynamic_scale` (float32), followed by the inner
optimizer's. When `apply` builds it, the inner optimizer's slots are made under this optimizer's name
(`loss_scale_optimizer/adam/kernel_momentum`), as Keras names them.
"""
import tensorflux as tf

from .optimizer import Optimizer, _keras_variables

# Base-optimizer arguments older Keras configs of this class hold: accepted at their defaults only.
_BASE_DEFAULTS = {"weight_decay": None, "clipnorm": None, "global_clipnorm": None, "clipvalue": None,
                  "use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None,
                  "loss_scale_factor": None, "gradient_accumulation_steps": None}


class LossScaleOptimizer(Optimizer):
    """Dynamic loss scaling around `inner_optimizer` (see the module docstring)."""

    def __init__(self, inner_optimizer, initial_scale=2.0 ** 15, dynamic_growth_steps=2000, name=None, **kwargs):
        if not kwargs.pop("dynamic", True):
            raise ValueError("LossScaleOptimizer no longer supports `dynamic=False`. Instead, simply set "
                             "`loss_scale_factor` directly on the `inner_optimizer`.")
        for argument, default in _BASE_DEFAULTS.items():
            if argument in kwargs and kwargs.pop(argument) != default:
                raise ValueError(f"LossScaleOptimizer does not support `{argument}`. Instead, set `{argument}` on "
                                 f"the `inner_optimizer`.")
        if kwargs:
            raise ValueError(f"LossScaleOptimizer does not support arguments: `{'`, `'.join(kwargs)}`.")
        super().__init__(learning_rate=0.0, name=name)
        self.inner_optimizer = inner_optimizer
        self.initial_scale = initial_scale
        self.dynamic_growth_steps = dynamic_growth_steps
        inner_optimizer.loss_scale_factor = None      # the gradients are unscaled here, once

    def build(self, var_list):
        self.step_counter = tf.Variable(tf.constant(0, tf.int64), trainable=False, name=f"{self.name}/step_counter")
        self.dynamic_scale = tf.Variable(tf.constant(self.initial_scale, tf.float32), trainable=False,
                                         name=f"{self.name}/dynamic_scale")
        self._variables += [self.step_counter, self.dynamic_scale]
        if not self.inner_optimizer.built:
            if self._building_in_apply:     # Keras builds in apply under this optimizer's name scope
                with tf.name_scope(self.name):
                    self.inner_optimizer.build(var_list)
            else:
                self.inner_optimizer.build(var_list)
        super().build(var_list)

    _building_in_apply = False

    @property
    def variables(self):
        return self._variables + _keras_variables(self.inner_optimizer)

    @property
    def iterations(self):
        return self.inner_optimizer.iterations

    @property
    def learning_rate(self):
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        self.inner_optimizer.learning_rate = value

    def scale_loss(self, loss):
        """`loss` times the current scale (the initial one before the first step)."""
        scale = self.dynamic_scale if self.built else self.initial_scale
        return tf.multiply(loss, scale)

    def check_finite(self, grads):
        """A boolean scalar: whether every gradient (None ones left out) is free of inf and NaN."""
        values = [g.values if isinstance(g, tf.IndexedSlices) else g for g in grads if g is not None]
        return tf.reduce_all(tf.stack([tf.reduce_all(tf.math.is_finite(g)) for g in values]))

    def apply(self, grads, trainable_variables=None):
        grads = list(grads)
        if not self.built:
            if trainable_variables is None:
                raise ValueError("When passing `grads` without `variables`, the optimizer must already be built "
                                 "on a list of variables. Call `optimizer.build(trainable_variables)` first. ")
            self._building_in_apply = True
            try:
                self.build(list(trainable_variables))
            finally:
                self._building_in_apply = False
        tf.cond(self._finite_everywhere(grads), lambda: self._apply_finite(grads, trainable_variables),
                self._skip)

    def _finite_everywhere(self, grads):
        """check_finite, agreed across replicas: under a strategy every replica must take the same branch
        (applying all-reduces the gradients, a collective all of them join), so a step is skipped when the
        gradients of any replica are not finite. (Keras decides by the first replica's gradients alone.)"""
        finite = self.check_finite(grads)
        context = tf.distribute.get_replica_context()
        if context is None or context.num_replicas_in_sync == 1:
            return finite
        not_finite = context.all_reduce("SUM", [tf.cast(tf.logical_not(finite), tf.float32)])[0]
        return tf.equal(not_finite, 0.0)

    def _unscaled(self, g):
        # Divided in float32 (the scale's dtype) and cast back: a float16 gradient gets the rounding Keras
        # gives it (its division promotes to float32; its update steps cast to the variable's dtype).
        if isinstance(g, tf.IndexedSlices):
            return tf.IndexedSlices(self._unscaled(g.values), g.indices, g.dense_shape)
        g = tf.convert_to_tensor(g)
        return tf.cast(tf.cast(g, tf.float32) / self.dynamic_scale, g.dtype)

    def _apply_finite(self, grads, trainable_variables):
        self.inner_optimizer.apply([None if g is None else self._unscaled(g) for g in grads],
                                   trainable_variables=trainable_variables)
        grow = tf.equal(self.step_counter, self.dynamic_growth_steps - 1)
        tf.cond(grow, self._grow, self._count)
        return tf.constant(True)

    def _grow(self):
        self.step_counter.assign(0)
        self.dynamic_scale.assign(self.dynamic_scale * 2.0)
        return tf.constant(True)

    def _count(self):
        self.step_counter.assign_add(1)
        return tf.constant(False)

    def _skip(self):
        self.step_counter.assign(0)
        self.dynamic_scale.assign(self.dynamic_scale * 0.5)
        return tf.constant(False)

    def get_config(self):
        from ..saving.keras_config import keras_object
        return {"name": self.name, "inner_optimizer": keras_object(self.inner_optimizer),
                "initial_scale": self.initial_scale, "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from ..saving.keras_revive import revive
        config = dict(config)
        inner = revive(config.pop("inner_optimizer"), custom_objects)
        return cls(inner, **config)


API = {"keras.optimizers": ["LossScaleOptimizer"], "keras.mixed_precision": ["LossScaleOptimizer"]}
