"""`keras.optimizers.schedules`: learning rates as functions of the optimizer's step.

A schedule is called with the step (an optimizer passes its `iterations` variable, so the rate follows the
step inside a tf.function too) and returns a float32 scalar tensor. Everything is computed with tensor ops,
never Python branches on the step.
"""
import inspect
import math

import tensorflux as tf

from .. import config as _config


class LearningRateSchedule:
    """Base class: subclasses implement `__call__(step)`."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _config.record_init_arguments(cls)    # so an optimizer using a schedule can be saved with a model

    def __call__(self, step):
        raise NotImplementedError(f"Learning rate schedule '{type(self).__name__}' must override "
                                  f"`__call__(self, step)`.")

    def get_config(self):
        """Every constructor argument in signature order (as Keras lists them, `name` included), the
        given ones as given and the others at their defaults."""
        recorded = _config.init_arguments(self)
        config = {}
        for parameter in list(inspect.signature(type(self).__init__).parameters.values())[1:]:
            if parameter.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
                continue
            if parameter.name == "name":
                config["name"] = getattr(self, "name", recorded.get("name"))
            elif parameter.name in recorded:
                config[parameter.name] = recorded[parameter.name]
            elif parameter.default is not inspect.Parameter.empty:
                config[parameter.name] = parameter.default
        config.update({k: v for k, v in recorded.items() if k not in config})
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _check_decay_steps(value, argument="decay_steps"):
    if value <= 0:
        raise ValueError(f"Argument `{argument}` must be > 0. Received: {argument}={value}")


def _float(value):
    return tf.cast(value, tf.float32)


class _StepDecay(LearningRateSchedule):
    """Schedules of `progress = step / decay_steps` (floored with `staircase`): subclasses give `_rate`."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name=None):
        _check_decay_steps(decay_steps)
        self.initial_learning_rate, self.decay_steps, self.decay_rate = initial_learning_rate, decay_steps, decay_rate
        self.staircase, self.name = staircase, name or type(self).__name__

    def __call__(self, step):
        progress = _float(step) / _float(self.decay_steps)
        if self.staircase:
            progress = tf.floor(progress)
        return self._rate(_float(self.initial_learning_rate), _float(self.decay_rate), progress)


class ExponentialDecay(_StepDecay):
    """`initial_learning_rate * decay_rate ^ (step / decay_steps)` (the exponent floored with `staircase`)."""

    def _rate(self, initial, decay_rate, progress):
        return initial * tf.pow(decay_rate, progress)


class PiecewiseConstantDecay(LearningRateSchedule):
    """`values[0]` up to and including `boundaries[0]`, `values[1]` up to `boundaries[1]`, …"""

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(boundaries) != len(values) - 1:
            raise ValueError(f"The length of boundaries should be 1 less than the length of values. Received: "
                             f"boundaries={boundaries} of length {len(boundaries)}, and values={values} of length "
                             f"{len(values)}.")
        self.boundaries, self.values, self.name = boundaries, values, name

    def __call__(self, step):
        step = tf.convert_to_tensor(step)
        boundaries = [tf.cast(b, step.dtype) for b in self.boundaries]
        values = [tf.convert_to_tensor(v) for v in self.values]
        dtype = values[0].dtype
        # Exactly one interval holds the step; summing value × (step in interval) selects its value.
        result = tf.cast(step <= boundaries[0], dtype) * values[0] + tf.cast(step > boundaries[-1], dtype) * values[-1]
        for low, high, value in zip(boundaries[:-1], boundaries[1:], values[1:-1]):
            result += tf.cast(tf.logical_and(step > low, step <= high), dtype) * value
        return result


class PolynomialDecay(LearningRateSchedule):
    """From `initial_learning_rate` to `end_learning_rate` over `decay_steps` along `(1 - step/decay_steps)^power`;
    held at the end, or with `cycle` restarted over the next multiple of `decay_steps`."""

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False,
                 name="PolynomialDecay"):
        _check_decay_steps(decay_steps)
        self.initial_learning_rate, self.decay_steps, self.end_learning_rate = (initial_learning_rate, decay_steps,
                                                                                end_learning_rate)
        self.power, self.cycle, self.name = power, cycle, name

    def __call__(self, step):
        initial, end = _float(self.initial_learning_rate), _float(self.end_learning_rate)
        step, decay_steps = _float(step), _float(self.decay_steps)
        if self.cycle:
            # The first multiple of decay_steps at or past the step (one at step 0).
            multiplier = tf.where(tf.equal(step, 0.0), 1.0, tf.math.ceil(step / decay_steps))
            decay_steps = decay_steps * multiplier
        else:
            step = tf.minimum(step, decay_steps)
        return (initial - end) * tf.pow(1.0 - step / decay_steps, _float(self.power)) + end


class InverseTimeDecay(_StepDecay):
    """`initial_learning_rate / (1 + decay_rate * step / decay_steps)` (the ratio floored with `staircase`)."""

    def _rate(self, initial, decay_rate, progress):
        return initial / (1.0 + decay_rate * progress)


def _cosine_decay(fraction, alpha, start):
    """`start` scaled by a half cosine from 1 at `fraction` 0 to `alpha` at 1."""
    cosine = 0.5 * (1.0 + tf.cos(math.pi * fraction))
    return start * ((1.0 - alpha) * cosine + alpha)


class CosineDecay(LearningRateSchedule):
    """A half cosine from `initial_learning_rate` down to `alpha` times it over `decay_steps`. With
    `warmup_target`, first a linear rise from `initial_learning_rate` to `warmup_target` over `warmup_steps`,
    then the cosine starts from `warmup_target`."""

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name="CosineDecay", warmup_target=None,
                 warmup_steps=0):
        _check_decay_steps(decay_steps)
        self.initial_learning_rate, self.decay_steps, self.alpha, self.name = (initial_learning_rate, decay_steps,
                                                                               alpha, name)
        self.warmup_target, self.warmup_steps = warmup_target, warmup_steps

    def __call__(self, step):
        initial, decay_steps, step = _float(self.initial_learning_rate), _float(self.decay_steps), _float(step)
        if self.warmup_target is None:
            return _cosine_decay(tf.minimum(step, decay_steps) / decay_steps, self.alpha, initial)
        target, warmup_steps = _float(self.warmup_target), _float(self.warmup_steps)
        step = tf.minimum(step, decay_steps + warmup_steps)
        # Both branches are computed; the unused one may divide by zero (warmup_steps=0) but is discarded.
        warming = (target - initial) * (step / warmup_steps) + initial
        decaying = _cosine_decay((step - warmup_steps) / decay_steps, self.alpha, target)
        return tf.where(step < warmup_steps, warming, decaying)


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay restarted after `first_decay_steps`, each period `t_mul` times longer than the last and
    starting `m_mul` times lower (SGDR, Loshchilov & Hutter)."""

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0, name="SGDRDecay"):
        _check_decay_steps(first_decay_steps, "first_decay_steps")
        self.initial_learning_rate, self.first_decay_steps, self.alpha, self.name = (
            initial_learning_rate, first_decay_steps, alpha, name)
        self._t_mul, self._m_mul = t_mul, m_mul

    def __call__(self, step):
        t_mul, m_mul = _float(self._t_mul), _float(self._m_mul)
        fraction = _float(step) / _float(self.first_decay_steps)     # in units of the first period
        if self._t_mul == 1.0:
            restarts = tf.floor(fraction)
            fraction_in_period = fraction - restarts
        else:
            # Periods grow geometrically: the i-th restart happens at (1 - t_mul^i) / (1 - t_mul) first periods.
            restarts = tf.floor(tf.math.log(1.0 - fraction * (1.0 - t_mul)) / tf.math.log(t_mul))
            elapsed = (1.0 - tf.pow(t_mul, restarts)) / (1.0 - t_mul)
            fraction_in_period = (fraction - elapsed) / tf.pow(t_mul, restarts)
        # m_mul^restarts scales the cosine only: every period still decays towards alpha * initial rate.
        cosine = 0.5 * tf.pow(m_mul, restarts) * (1.0 + tf.cos(math.pi * fraction_in_period))
        alpha = _float(self.alpha)
        return _float(self.initial_learning_rate) * ((1.0 - alpha) * cosine + alpha)


API = {"keras.optimizers.schedules": ["LearningRateSchedule", "ExponentialDecay", "PiecewiseConstantDecay",
                                      "PolynomialDecay", "InverseTimeDecay", "CosineDecay", "CosineDecayRestarts"]}
