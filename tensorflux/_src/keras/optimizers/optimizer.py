"""`keras.optimizers`: SGD, Adam, AdamW, Nadam, Adamax, RMSprop, Adagrad, Adadelta, Ftrl and Lion with Keras 3's
update rules.

An optimizer owns an `iterations` counter and a `learning_rate` variable from the start, and creates its
slot variables (momentums, velocities…) on the first `apply_gradients`, for exactly the variables it is
given then. Inside a tf.function that first call creates variables, so calling the same tf.function with a
second, fresh optimizer breaks tf.function's rule that variables are only created on the first call.

Slots are keyed by the variable's handle id, which a variable keeps when passed into a tf.function.

The base class takes Keras 3's arguments (a learning rate is required: a Python float, a schedule or a
callable) and offers the API optimizers written for Keras 3 use: add_variable(_from_reference), assign*,
_get_variable_index, set_weights, save/load_own_variables, exclude_from_weight_decay and scale_loss.

`learning_rate` may be a `keras.optimizers.schedules.LearningRateSchedule`, called with `iterations` (the
number of steps taken so far) on every step, or any other callable, called without arguments.

Sparse gradients (`tf.IndexedSlices`, from gather and Embedding) are applied as Keras 3 applies them on
TensorFlow: SGD without momentum subtracts the scaled rows at their indices; Adam, AdamW, Nadam, RMSprop,
Adagrad, Adadelta and Ftrl, whose TensorFlow backend squares the slices before they are summed, accumulate
the sum of the squared rows where an index repeats (not the square of the summed row); Adadelta also keeps
one step per slice (squared before summing, scatter-added); the rest of each rule, and every other
optimizer, uses the densified gradient.
"""
import re
import warnings

import tensorflux as tf

from .. import config as _config
from . import schedules as _schedules

from ..naming import to_snake_case, unique_name


def _key(variable):
    return getattr(variable, "_handle_id", None) or id(variable)


def _slot_name(variable, slot):
    # A Keras variable is named by its path ('dense/kernel'; its `name` is the short 'kernel').
    path = getattr(variable, "path", None) or variable.name.rsplit(":", 1)[0]
    return path.replace("/", "_") + "_" + slot


class Optimizer:
    """Base class: subclasses create slots in `build` and update one variable in `update_step`."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _config.record_init_arguments(cls)    # so compile() arguments can be saved with a model

    def __init__(self, learning_rate, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None,
                 loss_scale_factor=None, gradient_accumulation_steps=None, name=None, **kwargs):
        # As Keras 3: the base class has no default learning rate, and a number must be a Python float (an
        # int, a NumPy scalar or a tensor is refused); Keras 2's `decay` is accepted and ignored.
        if kwargs.pop("decay", None) is not None:
            warnings.warn("Argument `decay` is no longer supported and will be ignored.")
        if kwargs:
            raise ValueError(f"Argument(s) not recognized: {kwargs}")
        if gradient_accumulation_steps and not gradient_accumulation_steps >= 2:
            raise ValueError(f"`gradient_accumulation_steps` must be an integer >= 2. Received: "
                             f"gradient_accumulation_steps={gradient_accumulation_steps}")
        if not callable(learning_rate) and not isinstance(learning_rate, float):
            raise ValueError(f"Argument `learning_rate` should be float, or an instance of LearningRateSchedule, "
                             f"or a callable (that takes in the current iteration value and returns the "
                             f"corresponding learning rate value). Received instead: learning_rate={learning_rate}")
        if use_ema or gradient_accumulation_steps:
            raise NotImplementedError(f"tensorflux's Keras optimizers implement neither the exponential moving "
                                      f"average of weights (`use_ema`) nor gradient accumulation "
                                      f"(`gradient_accumulation_steps`). Received: use_ema={use_ema}, "
                                      f"gradient_accumulation_steps={gradient_accumulation_steps}")
        if sum(c is not None for c in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError(f"Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: "
                             f"clipnorm={clipnorm}, clipvalue={clipvalue}, global_clipnorm={global_clipnorm}")
        self.name = name or unique_name(to_snake_case(type(self).__name__))   # adam, adam_1, ... as Keras
        self.weight_decay = weight_decay
        self.clipnorm, self.clipvalue, self.global_clipnorm = clipnorm, clipvalue, global_clipnorm
        self.loss_scale_factor = loss_scale_factor
        self.built = False
        self._slots = {}   # handle id -> index into the slot lists
        self._trainable_variables = []
        self._iterations = tf.Variable(0, dtype=tf.int64, trainable=False, name=f"{self.name}/iteration")
        self._schedule = learning_rate if callable(learning_rate) else None
        initial = self._scheduled_learning_rate() if self._schedule is not None else learning_rate
        # With a schedule this variable holds the rate of the latest step (for saving and callbacks).
        self._learning_rate = tf.Variable(tf.cast(initial, tf.float32), trainable=False,
                                          name=f"{self.name}/learning_rate")
        self._variables = [self._iterations, self._learning_rate]

    # -- state -------------------------------------------------------------------------------
    @property
    def iterations(self):
        return self._iterations

    @property
    def learning_rate(self):
        """The rate the next step uses: a variable, or with a schedule the schedule's value at `iterations`."""
        if isinstance(self._schedule, _schedules.LearningRateSchedule):
            return tf.cast(self._scheduled_learning_rate(), tf.float32)
        return self._learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        if callable(value):
            self._schedule = value
            return
        if isinstance(self._schedule, _schedules.LearningRateSchedule):
            raise TypeError("This optimizer was created with a `LearningRateSchedule` object as its "
                            "`learning_rate` constructor argument, hence its learning rate is not settable. If you "
                            "need the learning rate to be settable, you should instantiate the optimizer with a "
                            "float `learning_rate` argument.")
        self._schedule = None
        self._learning_rate.assign(tf.cast(value, tf.float32))

    def _scheduled_learning_rate(self):
        if isinstance(self._schedule, _schedules.LearningRateSchedule):
            return self._schedule(self._iterations)
        return self._schedule()

    @property
    def variables(self):
        return list(self._variables)

    def add_variable_from_reference(self, reference_variable, name, initializer="zeros"):
        """A non-trainable slot shaped like `reference_variable` (zeros unless `initializer` is a number)."""
        shape, dtype = reference_variable.shape, reference_variable.dtype
        if isinstance(initializer, (int, float)):
            value = initializer
            make = lambda: tf.fill(shape, tf.cast(value, dtype))  # noqa: E731
        else:
            make = lambda: tf.zeros(shape, dtype)  # noqa: E731
        variable = tf.Variable(make, trainable=False, dtype=dtype,
                               name=f"{self.name}/{_slot_name(reference_variable, name)}")
        self._variables.append(variable)
        return variable

    def add_optimizer_variables(self, var_list, name, initializer="zeros"):
        """Slots for every variable of `var_list`. With a list of names (and optionally one initializer per
        name), the slots are made variable by variable -- m0, v0, m1, v1, ... as Keras 3 makes them, which is
        the order of `optimizer/_variables/N` in checkpoints -- and a tuple of one list per name returned."""
        if isinstance(name, str):
            return [self.add_variable_from_reference(v, name, initializer) for v in var_list]
        names = list(name)
        initializers = list(initializer) if isinstance(initializer, (list, tuple)) else [initializer] * len(names)
        slots = [[] for _ in names]
        for v in var_list:
            for k, (slot_name, init) in enumerate(zip(names, initializers)):
                slots[k].append(self.add_variable_from_reference(v, slot_name, init))
        return tuple(slots)

    def build(self, var_list):
        self._trainable_variables = list(var_list)
        self._slots = {_key(v): i for i, v in enumerate(var_list)}
        self.built = True

    def _index(self, variable):
        return self._slots[_key(variable)]

    # Keras' names for the same lookups, which optimizers written for Keras call.
    def _get_variable_index(self, variable):
        return self._index(variable)

    def _var_key(self, variable):
        return _key(variable)

    def add_variable(self, shape, initializer="zeros", dtype=None, aggregation="none", layout=None, name=None):
        """A non-trainable optimizer variable of `shape` (dtype floatx unless given), filled by `initializer`
        (a Keras initializer or its name), named under the optimizer's name and listed in `variables`."""
        from .. import initializers
        dtype = tf.as_dtype(dtype or "float32")
        init = initializers.get(initializer)
        variable = tf.Variable(lambda: tf.cast(init(list(shape), dtype=dtype), dtype), trainable=False, dtype=dtype,
                               name=f"{self.name}/{name or 'variable'}")
        self._variables.append(variable)
        return variable

    # Keras routes the writes of update steps through these (other backends update differently).
    def assign(self, variable, value):
        variable.assign(value)

    def assign_add(self, variable, value):
        variable.assign_add(value)

    def assign_sub(self, variable, value):
        variable.assign_sub(value)

    def set_weights(self, weights):
        """Sets the optimizer's variables, in the order of `variables`, from arrays of the same shapes."""
        if not self.built:
            raise ValueError("You are calling `set_weights()` on an optimizer that has not yet been built. Please "
                             "call `optimizer.build(trainable_variables)` to create the optimizer weights before "
                             "calling `set_weights()`.")
        for variable, weight in zip(self._variables, weights):
            if tuple(variable.shape) != tuple(getattr(weight, "shape", ())):
                raise ValueError(f"Optimizer variable {self._var_key(variable)} has shape {tuple(variable.shape)} "
                                 f"not compatible with provided weight shape {tuple(weight.shape)}.")
            variable.assign(weight)

    def save_own_variables(self, store):
        """Writes the variables (as Keras lists them: see `_keras_variables`) to `store` under "0", "1", ..."""
        for i, variable in enumerate(_keras_variables(self)):
            store[str(i)] = variable.numpy()

    def load_own_variables(self, store):
        """Reads what save_own_variables wrote; with another count of variables, warns and loads nothing."""
        variables = _keras_variables(self)
        if len(store.keys()) != len(variables):
            message = (f"Skipping variable loading for optimizer '{self.name}', because it has {len(variables)} "
                       f"variables whereas the saved optimizer has {len(store.keys())} variables. ")
            if not variables:
                message += "This is likely because the optimizer has not been called/built yet."
            warnings.warn(message, stacklevel=2)
            return
        for i, variable in enumerate(variables):
            variable.assign(store[str(i)])

    def finalize_variable_values(self, var_list):
        """What Keras does at the end of fit: with `use_ema`, puts the averages in the model's variables.
        tensorflux refuses use_ema, so there is nothing to put."""
        return None

    # -- applying ----------------------------------------------------------------------------
    def apply_gradients(self, grads_and_vars):
        grads_and_vars = list(grads_and_vars)
        if not grads_and_vars:
            return self.iterations
        grads, variables = zip(*grads_and_vars)
        self.apply(list(grads), list(variables))
        return self.iterations

    def apply(self, grads, trainable_variables=None):
        grads = list(grads)
        if not grads:
            return
        if trainable_variables is None:
            if not self.built:
                raise ValueError("When passing `grads` without `variables`, the optimizer must already be built "
                                 "on a list of variables. Call `optimizer.build(trainable_variables)` first. ")
            trainable_variables = self._trainable_variables
        else:
            trainable_variables = list(trainable_variables)
            if not self.built:
                self.build(trainable_variables)
            for v in trainable_variables:
                if _key(v) not in self._slots:
                    raise ValueError(f"Unknown variable: {v}. This optimizer can only be called for the "
                                     f"variables it was originally built with. When working with a new set of "
                                     f"variables, you should recreate a new optimizer instance.")
        pairs = [(g, v) for g, v in zip(grads, trainable_variables) if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable.")
        grads = [g if isinstance(g, tf.IndexedSlices) else tf.convert_to_tensor(g) for g, _ in pairs]
        variables = [v for _, v in pairs]
        if self.loss_scale_factor is not None:
            grads = [_scaled(g, 1 / self.loss_scale_factor) for g in grads]
        if self.clipnorm is not None or self.clipvalue is not None or self.global_clipnorm is not None:
            grads = [tf.convert_to_tensor(g) for g in grads]
        grads = self._clip(grads)
        if self._schedule is not None:
            self._learning_rate.assign(tf.cast(self._scheduled_learning_rate(), tf.float32))
        learning_rate = self._learning_rate.read_value()
        self._apply_weight_decay(variables, learning_rate)
        self._update_all(_summed_across_replicas(grads), variables, learning_rate)
        for v in variables:       # Keras applies weight constraints right after the update
            constraint = getattr(v, "constraint", None)
            if constraint is not None:
                v.assign(constraint(v))
        self._iterations.assign_add(tf.constant(1, tf.int64))

    def _apply_weight_decay(self, variables, learning_rate):
        if self.weight_decay:
            # Decoupled weight decay, in Keras's order of operations (v * wd * lr) for identical rounding.
            for v in variables:
                if self._use_weight_decay(v):
                    v.assign_sub(v * tf.cast(self.weight_decay, v.dtype) * tf.cast(learning_rate, v.dtype))

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        """Leaves out of weight decay the variables of `var_list` and those whose name contains one of
        `var_names` (a regular expression each, searched in the name); only before the optimizer is built."""
        if self.built:
            raise ValueError("`exclude_from_weight_decay()` can only be configured before the optimizer is built.")
        self._excluded_from_decay = {_key(v) for v in var_list or ()}
        self._excluded_pattern = "|".join(set(var_names)) if var_names else None

    _excluded_from_decay = frozenset()
    _excluded_pattern = None

    def _use_weight_decay(self, variable):
        if _key(variable) in self._excluded_from_decay:
            return False
        return self._excluded_pattern is None or re.search(self._excluded_pattern, variable.name) is None

    def scale_loss(self, loss):
        """The loss times `loss_scale_factor` (unchanged without one): what gradients are taken of, before
        `apply` divides them by the same factor."""
        return loss * self.loss_scale_factor if self.loss_scale_factor is not None else loss

    # Whether update_step takes a tf.IndexedSlices as it is (reading it with _dense and _squared).
    _takes_slices = False

    def _update_all(self, grads, variables, learning_rate):
        for g, v in zip(grads, variables):
            if isinstance(g, tf.IndexedSlices) and not self._takes_slices:
                g = tf.convert_to_tensor(g)
            self.update_step(g, v, learning_rate)

    def _clip(self, grads):
        if self.clipnorm is not None:
            return [_clip_by_norm(g, self.clipnorm) for g in grads]
        if self.clipvalue is not None:
            return [tf.clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        if self.global_clipnorm is not None:
            norm = tf.sqrt(tf.add_n([tf.reduce_sum(tf.square(g)) for g in grads]))
            scale = self.global_clipnorm / tf.maximum(norm, self.global_clipnorm)
            return [g * tf.cast(scale, g.dtype) for g in grads]
        return grads

    def update_step(self, gradient, variable, learning_rate):
        raise NotImplementedError(f"{type(self).__name__} must implement `update_step`.")

    def _step(self, dtype, offset=1):
        return tf.cast(self._iterations + offset, dtype)

    # Set by keras.saving (which builds on this module): Keras 3's get_config() of a built-in optimizer.
    _builtin_get_config = None

    def get_config(self):
        """Keras 3's config: a built-in optimizer gives every argument (the base class's first, the current
        learning rate or the serialized schedule); a subclass gets the base entries to extend."""
        if Optimizer._builtin_get_config is not None and type(self).__module__.startswith("tensorflux.") and \
                type(self).get_config is Optimizer.get_config:    # a class writing its own extends the base
            return Optimizer._builtin_get_config(self)
        return {"name": self.name, "learning_rate": self._config_learning_rate(),
                "weight_decay": self.weight_decay, "clipnorm": self.clipnorm, "global_clipnorm": self.global_clipnorm,
                "clipvalue": self.clipvalue, "use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None,
                "loss_scale_factor": None, "gradient_accumulation_steps": None}

    # Set by keras.saving: revives a serialized object (a learning rate schedule's config).
    _revive = None

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """An optimizer from its get_config() (a serialized learning rate schedule revived)."""
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict) and Optimizer._revive is not None:
            config["learning_rate"] = Optimizer._revive(config["learning_rate"], custom_objects)
        return cls(**config)

    def _config_learning_rate(self):
        """The learning rate as a config holds it: the schedule, or the variable's current value."""
        return self._schedule if self._schedule is not None else float(self._learning_rate.numpy())

    def __repr__(self):
        # Keras' optimizers keep Python's default repr, naming the class by its module in keras.src.
        return _keras_repr(self)


# The Keras module of the built-in classes whose module is not their lowercased name.
_KERAS_MODULES = {"ScheduleFreeAdamW": "schedule_free_adamw", "LossScaleOptimizer": "loss_scale_optimizer",
                  "MultiOptimizer": "multi_optimizer", "OptimizerMap": "multi_optimizer"}


def _keras_repr(obj):
    """Python's default repr as Keras' objects have it, naming a built-in class by its module in keras.src."""
    cls = type(obj)
    module = cls.__module__
    if module.startswith(__package__ + ".") and module != __package__ + ".schedules":
        module = "keras.src.optimizers." + _KERAS_MODULES.get(cls.__name__, cls.__name__.lower())
    return f"<{module}.{cls.__qualname__} object at {hex(id(obj))}>"


def _keras_variables(optimizer):
    """`optimizer.variables` as Keras 3 lists them: without the learning-rate variable when the rate is a
    schedule or a callable (Keras makes none then; tensorflux keeps the latest rate in one). What a wrapper
    (LossScaleOptimizer, MultiOptimizer) lists of its inner optimizers, so a saved file holds Keras' count."""
    if optimizer._schedule is None:
        return optimizer.variables
    return [v for v in optimizer.variables if v is not optimizer._learning_rate]


def _scaled(g, factor):
    if isinstance(g, tf.IndexedSlices):
        return tf.IndexedSlices(g.values * factor, g.indices, g.dense_shape)
    return g * factor


def _dense(gradient):
    return tf.convert_to_tensor(gradient) if isinstance(gradient, tf.IndexedSlices) else gradient


def _squared(gradient):
    """The square of a gradient; for slices, each row squared before repeated rows are summed (as Keras 3's
    TensorFlow backend squares an IndexedSlices)."""
    if isinstance(gradient, tf.IndexedSlices):
        return tf.convert_to_tensor(tf.IndexedSlices(tf.square(gradient.values), gradient.indices,
                                                     gradient.dense_shape))
    return tf.square(gradient)


def _clip_by_norm(g, clip):
    norm = tf.sqrt(tf.reduce_sum(tf.square(g)))
    return tf.where(norm > clip, g * (clip / tf.maximum(norm, clip)), g)


class SGD(Optimizer):
    """`v -= lr * g`; with momentum `m = momentum * m - lr * g; v += m` (Nesterov: `v += momentum * m - lr * g`)."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        if not isinstance(momentum, float) and not isinstance(momentum, int) or not 0 <= momentum <= 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        self.momentum = momentum
        self.nesterov = nesterov

    def build(self, var_list):
        super().build(var_list)
        self.momentums = self.add_optimizer_variables(var_list, "momentum") if self.momentum != 0 else []

    _takes_slices = True

    def update_step(self, gradient, variable, learning_rate):
        lr = tf.cast(learning_rate, variable.dtype)
        if self.momentum == 0:
            if isinstance(gradient, tf.IndexedSlices):  # only the gathered rows change
                rows = tf.expand_dims(gradient.indices, -1)
                variable.assign(tf.tensor_scatter_nd_sub(variable, rows, gradient.values * lr))
            else:
                variable.assign_sub(gradient * lr)
            return
        gradient = _dense(gradient)
        m = self.momentums[self._index(variable)]
        momentum = tf.cast(self.momentum, variable.dtype)
        m.assign(m * momentum - gradient * lr)
        if self.nesterov:
            variable.assign_add(m * momentum - gradient * lr)
        else:
            variable.assign_add(m)


class Adam(Optimizer):
    """Adam with bias correction folded into the step size, as Keras computes it."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False, name=None,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon, self.amsgrad = beta_1, beta_2, epsilon, amsgrad

    def build(self, var_list):
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(var_list, ["momentum", "velocity"])
        self._velocity_hats = self.add_optimizer_variables(var_list, "velocity_hat") if self.amsgrad else []

    _takes_slices = True
    _step_sizes = None

    def _update_all(self, grads, variables, learning_rate):
        # The bias-corrected step size depends only on the dtype and the step: computed once per dtype for
        # all variables of a step (about ten small ops per variable otherwise: 22 variables in the keras-io
        # transformer), with the same ops, so the same values.
        self._step_sizes = {}
        try:
            super()._update_all(grads, variables, learning_rate)
        finally:
            self._step_sizes = None

    def _step_size(self, dtype, learning_rate):
        sizes = self._step_sizes
        if sizes is not None and dtype in sizes:
            return sizes[dtype]
        lr = tf.cast(learning_rate, dtype)
        step = self._step(dtype)
        beta_1_power = tf.pow(tf.cast(self.beta_1, dtype), step)
        beta_2_power = tf.pow(tf.cast(self.beta_2, dtype), step)
        alpha = lr * tf.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        if sizes is not None:
            sizes[dtype] = alpha
        return alpha

    def update_step(self, gradient, variable, learning_rate):
        squared, gradient = _squared(gradient), _dense(gradient)
        alpha = self._step_size(variable.dtype, learning_rate)
        i = self._index(variable)
        m, v = self._momentums[i], self._velocities[i]
        m.assign_add((gradient - m) * (1 - self.beta_1))
        v.assign_add((squared - v) * (1 - self.beta_2))
        if self.amsgrad:
            v_hat = self._velocity_hats[i]
            v_hat.assign(tf.maximum(v_hat, v))
            v = v_hat
        variable.assign_sub(m * alpha / (tf.sqrt(v) + self.epsilon))


class Nadam(Optimizer):
    """Adam with Nesterov momentum and Dozat's momentum schedule (`u_t = beta_1 (1 - 0.5 * 0.96^t)`)."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    def build(self, var_list):
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(var_list, ["momentum", "velocity"])
        dtype = var_list[0].dtype if var_list else tf.float32
        self._u_product = tf.Variable(tf.constant(1.0, dtype), trainable=False, name=f"{self.name}/u_product")
        self._variables.append(self._u_product)

    def _update_all(self, grads, variables, learning_rate):
        # The running product of the momentum schedule advances once per step, before the variable updates.
        dtype = self._u_product.dtype
        self._u_product.assign(self._u_product * self.beta_1 *
                               (1.0 - 0.5 * tf.pow(tf.constant(0.96, dtype), self._step(dtype))))
        super()._update_all(grads, variables, learning_rate)

    _takes_slices = True

    def update_step(self, gradient, variable, learning_rate):
        squared, gradient = _squared(gradient), _dense(gradient)
        dtype = variable.dtype
        lr = tf.cast(learning_rate, dtype)
        local_step, next_step = self._step(dtype), self._step(dtype, 2)
        decay = tf.constant(0.96, dtype)
        beta_1 = tf.cast(self.beta_1, dtype)
        u_t = beta_1 * (1.0 - 0.5 * tf.pow(decay, local_step))
        u_t_1 = beta_1 * (1.0 - 0.5 * tf.pow(decay, next_step))
        u_product_t = tf.cast(self._u_product, dtype)
        u_product_t_1 = u_product_t * u_t_1
        beta_2 = tf.cast(self.beta_2, dtype)
        beta_2_power = tf.pow(beta_2, local_step)
        i = self._index(variable)
        m, v = self._momentums[i], self._velocities[i]
        # Unlike Adam, Keras's Nadam forms `1 - beta` from the betas cast to the variable's dtype.
        m.assign_add((gradient - m) * (1 - beta_1))
        v.assign_add((squared - v) * (1 - beta_2))
        m_hat = u_t_1 * m / (1 - u_product_t_1) + (1 - u_t) * gradient / (1 - u_product_t)
        v_hat = v / (1 - beta_2_power)
        variable.assign_sub(m_hat * lr / (tf.sqrt(v_hat) + self.epsilon))


class RMSprop(Optimizer):
    """Divides the gradient by a running root mean square of recent gradients."""

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False,
                 name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.rho, self.momentum, self.epsilon, self.centered = rho, momentum, epsilon, centered

    def build(self, var_list):
        super().build(var_list)
        self._velocities = self.add_optimizer_variables(var_list, "velocity")
        self._momentums = self.add_optimizer_variables(var_list, "momentum") if self.momentum > 0 else []
        self._average_gradients = self.add_optimizer_variables(var_list, "average_gradient") \
            if self.centered else []

    _takes_slices = True

    def update_step(self, gradient, variable, learning_rate):
        squared, gradient = _squared(gradient), _dense(gradient)
        lr = tf.cast(learning_rate, variable.dtype)
        i = self._index(variable)
        velocity = self._velocities[i]
        rho = self.rho
        velocity.assign(rho * velocity + (1 - rho) * squared)
        if self.centered:
            average = self._average_gradients[i]
            average.assign(rho * average + (1 - rho) * gradient)
            denominator = velocity - tf.square(average) + self.epsilon
        else:
            denominator = velocity + self.epsilon
        increment = lr * gradient / tf.sqrt(denominator)
        if self.momentum > 0:
            momentum = self._momentums[i]
            momentum.assign(self.momentum * momentum + increment)
            variable.assign_sub(momentum)
        else:
            variable.assign_sub(increment)


class Adagrad(Optimizer):
    """Scales each coordinate's step by the root of its accumulated squared gradients."""

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7, name=None,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.initial_accumulator_value, self.epsilon = initial_accumulator_value, epsilon

    def build(self, var_list):
        super().build(var_list)
        self._accumulators = self.add_optimizer_variables(var_list, "accumulator",
                                                          float(self.initial_accumulator_value))

    _takes_slices = True

    def update_step(self, gradient, variable, learning_rate):
        squared, gradient = _squared(gradient), _dense(gradient)
        lr = tf.cast(learning_rate, variable.dtype)
        accumulator = self._accumulators[self._index(variable)]
        accumulator.assign_add(squared)
        variable.assign_sub(lr * gradient / tf.sqrt(accumulator + self.epsilon))


class AdamW(Adam):
    """Adam with decoupled weight decay (`v -= v * weight_decay * lr` before each step)."""

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
                         amsgrad=amsgrad, weight_decay=weight_decay, name=name, **kwargs)
        if self.weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: weight_decay=None")


class Adamax(Optimizer):
    """Adam with the infinity norm: `u = max(beta_2 * u, |g|)` replaces the second moment."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    def build(self, var_list):
        super().build(var_list)
        self._m, self._u = self.add_optimizer_variables(var_list, ["momentum", "norm"])

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        lr = tf.cast(learning_rate, dtype)
        beta_1_power = tf.pow(tf.cast(self.beta_1, dtype), self._step(dtype))
        i = self._index(variable)
        m, u = self._m[i], self._u[i]
        m.assign_add((gradient - m) * (1 - self.beta_1))
        u.assign(tf.maximum(self.beta_2 * u, tf.abs(gradient)))
        variable.assign_sub(lr * m / ((1 - beta_1_power) * (u + self.epsilon)))


class Adadelta(Optimizer):
    """Steps of `rms(past steps) / rms(gradients)` times the gradient, both running averages with decay `rho`."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.rho, self.epsilon = rho, epsilon

    def build(self, var_list):
        super().build(var_list)
        self._accumulated_grads, self._accumulated_delta_vars = self.add_optimizer_variables(
            var_list, ["accumulated_grad", "accumulated_delta_var"])

    _takes_slices = True

    def update_step(self, gradient, variable, learning_rate):
        lr = tf.cast(learning_rate, variable.dtype)
        i = self._index(variable)
        accumulated_grad, accumulated_delta = self._accumulated_grads[i], self._accumulated_delta_vars[i]
        rho = self.rho
        accumulated_grad.assign(rho * accumulated_grad + (1 - rho) * _squared(gradient))
        rms_delta = tf.sqrt(accumulated_delta + self.epsilon)
        rms_grad = tf.sqrt(accumulated_grad + self.epsilon)
        if isinstance(gradient, tf.IndexedSlices):
            # Keras' TensorFlow backend multiplies slices by dense tensors row by row (gathering the dense
            # rows), so each slice keeps its own step: the squares of the steps are summed where an index
            # repeats (not the square of their sum) and the steps are scatter-added to the variable.
            rows = gradient.indices
            steps = -(tf.gather(rms_delta, rows) * gradient.values) / tf.gather(rms_grad, rows)
            accumulated_delta.assign(rho * accumulated_delta + (1 - rho) * _squared(
                tf.IndexedSlices(steps, rows, gradient.dense_shape)))
            variable.assign(tf.tensor_scatter_nd_add(variable, tf.expand_dims(rows, -1), lr * steps))
            return
        delta = -(rms_delta * gradient) / rms_grad
        accumulated_delta.assign(rho * accumulated_delta + (1 - rho) * tf.square(delta))
        variable.assign_add(lr * delta)


class Ftrl(Optimizer):
    """Follow The Regularized Leader (McMahan et al., 2013) with L1, L2 and L2-shrinkage regularization."""

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 l2_shrinkage_regularization_strength=0.0, beta=0.0, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        if initial_accumulator_value < 0.0:
            raise ValueError(f"`initial_accumulator_value` needs to be positive or zero. Received: "
                             f"initial_accumulator_value={initial_accumulator_value}.")
        if learning_rate_power > 0.0:
            raise ValueError(f"`learning_rate_power` needs to be negative or zero. Received: "
                             f"learning_rate_power={learning_rate_power}.")
        for argument, value in (("l1_regularization_strength", l1_regularization_strength),
                                ("l2_regularization_strength", l2_regularization_strength),
                                ("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength)):
            if value < 0.0:
                raise ValueError(f"`{argument}` needs to be positive or zero. Received: {argument}={value}.")
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta

    def build(self, var_list):
        super().build(var_list)
        self._accumulators, self._linears = self.add_optimizer_variables(
            var_list, ["accumulator", "linear"], [float(self.initial_accumulator_value), "zeros"])

    _takes_slices = True

    def update_step(self, gradient, variable, learning_rate):
        lr = tf.cast(learning_rate, variable.dtype)
        i = self._index(variable)
        accumulator, linear = self._accumulators[i], self._linears[i]
        power = -self.learning_rate_power
        l2 = self.l2_regularization_strength + self.beta / (2.0 * lr)
        # Slices: the accumulator sums the squared rows where an index repeats (Keras' TensorFlow backend);
        # everything else uses the densified gradient.
        shrunk_gradient = _dense(gradient) + 2 * self.l2_shrinkage_regularization_strength * variable
        new_accumulator = accumulator + _squared(gradient)
        sigma = (tf.pow(new_accumulator, power) - tf.pow(accumulator, power)) / lr
        linear.assign_add(shrunk_gradient - sigma * variable)
        quadratic = tf.pow(new_accumulator, power) / lr + 2 * l2
        l1 = self.l1_regularization_strength
        # Coordinates whose |linear| stays within l1 are set to exactly zero.
        variable.assign((tf.clip_by_value(linear, -l1, l1) - linear) / quadratic)
        accumulator.assign(new_accumulator)


class Lion(Optimizer):
    """EvoLved Sign Momentum (Chen et al., 2023): steps of `lr * sign(interpolated momentum)`."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2 = beta_1, beta_2
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError(f"Argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer degenerates "
                             f"to SignSGD. Received: beta_1={beta_1}.")

    def build(self, var_list):
        super().build(var_list)
        self._momentums = self.add_optimizer_variables(var_list, "momentum")

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        lr = tf.cast(learning_rate, dtype)
        beta_1, beta_2 = tf.cast(self.beta_1, dtype), tf.cast(self.beta_2, dtype)
        m = self._momentums[self._index(variable)]
        variable.assign_sub(lr * tf.sign(m * beta_1 + gradient * (1.0 - beta_1)))
        m.assign(m * beta_2 + gradient * (1.0 - beta_2))


_BY_NAME = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "nadam": Nadam, "adamax": Adamax, "rmsprop": RMSprop,
            "adagrad": Adagrad, "adadelta": Adadelta, "ftrl": Ftrl, "lion": Lion}


def get(identifier):
    """An optimizer from a name ("adam", "SGD"…) or an instance."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier.lower())
        if cls is not None:
            return cls()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")


API = {"keras.optimizers": ["Optimizer", "SGD", "Adam", "AdamW", "Nadam", "Adamax", "RMSprop", "Adagrad", "Adadelta",
                            "Ftrl", "Lion", "get"]}


def _summed_across_replicas(grads):
    """Inside `strategy.run` with several replicas, each replica's gradients are summed across replicas (one
    fused all-reduce), after clipping, as Keras does under a tf.distribute strategy."""
    context = tf.distribute.get_replica_context()
    if context is None or context.num_replicas_in_sync == 1:
        return grads
    return context.all_reduce("SUM", [tf.convert_to_tensor(g) for g in grads])

