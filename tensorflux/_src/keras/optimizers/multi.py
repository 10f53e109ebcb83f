"""`keras.optimizers.MultiOptimizer` and `OptimizerMap`: different optimizers for different variables.

An `OptimizerMap` maps variable paths to optimizers: an exact key first, else the one key that matches the
whole path as a regular expression (two matching keys are an error), else the default optimizer. A
`MultiOptimizer` takes such a map, or any callable from a variable to an optimizer, and on `build` hands each
inner optimizer the variables it is given; `apply` passes each one its gradients (in the variables' order
within it) and then counts a step of its own. As in Keras 3.15: its variables are its own iteration and
(unused) learning rate followed by each inner optimizer's, in the order the inner optimizers were first met
(the map's values, then the default, then any a callable returns); it has no learning rate of its own; its
`loss_scale_factor` is set on every inner optimizer; a LossScaleOptimizer or MultiOptimizer may not be inside.
"""
import re
from collections.abc import MutableMapping

from .loss_scale import LossScaleOptimizer
from .optimizer import Optimizer, _key, _keras_repr, _keras_variables


def _path(variable):
    return getattr(variable, "path", None) or variable.name.rsplit(":", 1)[0]


def _revived(value, custom_objects):
    # The Keras reviver revives nested objects before from_config sees them; a plain call passes dicts.
    if isinstance(value, dict) and "class_name" in value:
        from ..saving.keras_revive import revive
        return revive(value, custom_objects)
    if isinstance(value, dict):
        return {k: _revived(v, custom_objects) for k, v in value.items()}
    return value


class OptimizerMap(MutableMapping):
    """Variable paths (or regular expressions matching whole paths) to optimizers, with a default."""

    def __init__(self, default_optimizer, optimizer_map=None):
        if not isinstance(default_optimizer, Optimizer):
            raise TypeError(f"default_optimizer must be a Keras Optimizer instance. Received: {default_optimizer}")
        if optimizer_map is not None and not isinstance(optimizer_map, dict):
            raise TypeError(f"optimizer_map must be a dictionary. Received: {optimizer_map}")
        self._default_optimizer = default_optimizer
        self._optimizer_map = optimizer_map or {}

    @property
    def default_optimizer(self):
        return self._default_optimizer

    def __getitem__(self, key):
        if key in self._optimizer_map:
            return self._optimizer_map[key]
        matching = [pattern for pattern in self._optimizer_map if re.fullmatch(pattern, key)]
        if len(matching) > 1:
            raise ValueError(f"Multiple optimizers assigned to variable {key}.")
        return self._optimizer_map[matching[0]] if matching else self._default_optimizer

    def __setitem__(self, key, optimizer):
        if key in self._optimizer_map:
            raise ValueError(f"'{key}' already exists in the OptimizerMap with value {self._optimizer_map[key]}. "
                             f"Please make sure to not use duplicated keys.")
        if not isinstance(key, str):
            raise ValueError(f"key must be a string. Received: {key}")
        if not isinstance(optimizer, Optimizer):
            raise ValueError(f"optimizer must be a Keras Optimizer instance. Received: {optimizer}")
        if isinstance(optimizer, LossScaleOptimizer):
            raise ValueError("optimizer cannot be LossScaleOptimizer.")
        if isinstance(optimizer, MultiOptimizer):
            raise ValueError("optimizer cannot be MultiOptimizer.")
        self._optimizer_map[key] = optimizer

    def __delitem__(self, key):
        del self._optimizer_map[key]

    def __len__(self):
        return len(self._optimizer_map)

    def __iter__(self):
        return iter(self._optimizer_map)

    def __call__(self, variable):
        return self[_path(variable)]

    __repr__ = _keras_repr

    def get_config(self):
        from ..saving.keras_config import keras_object
        return {"default_optimizer": keras_object(self._default_optimizer),
                "optimizer_map": keras_object(self._optimizer_map)}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(_revived(config["default_optimizer"], custom_objects),
                   _revived(config["optimizer_map"], custom_objects))


class MultiOptimizer(Optimizer):
    """Delegates each variable to the optimizer `optimizer_map` gives it (see the module docstring)."""

    def __init__(self, optimizer_map, loss_scale_factor=None, name=None):
        super().__init__(learning_rate=0.0, loss_scale_factor=loss_scale_factor, name=name)
        self._optimizer_map = optimizer_map
        self._inner_optimizers = []
        for optimizer in list(getattr(optimizer_map, "values", lambda: [])()) + \
                [getattr(optimizer_map, "default_optimizer", None)]:
            if optimizer is not None and optimizer not in self._inner_optimizers:
                optimizer.loss_scale_factor = loss_scale_factor
                self._inner_optimizers.append(optimizer)

    def build(self, var_list):
        if self.built:
            return
        self._owner = {}
        groups = [[] for _ in self._inner_optimizers]
        for variable in var_list:
            optimizer = self._optimizer_map(variable)
            if not isinstance(optimizer, Optimizer):
                raise ValueError(f"Optimizer for variable {variable} is not an Optimizer instance.")
            if isinstance(optimizer, LossScaleOptimizer):
                raise ValueError("LossScaleOptimizer cannot be used inside an MultiOptimizer.")
            if isinstance(optimizer, MultiOptimizer):
                raise ValueError("MultiOptimizer cannot be used inside an MultiOptimizer.")
            if optimizer not in self._inner_optimizers:
                optimizer.loss_scale_factor = self.loss_scale_factor
                self._inner_optimizers.append(optimizer)
                groups.append([])
            index = self._inner_optimizers.index(optimizer)
            self._owner[_key(variable)] = index
            groups[index].append(variable)
        for optimizer, variables in zip(self._inner_optimizers, groups):
            if variables:
                optimizer.build(variables)
        super().build(var_list)

    @property
    def optimizers(self):
        return self._inner_optimizers

    @property
    def variables(self):
        return self._variables + [v for optimizer in self._inner_optimizers for v in _keras_variables(optimizer)]

    @property
    def learning_rate(self):
        raise AttributeError("Learning rate cannot be accessed on a MultiOptimizer. Access the learning rate on the "
                             "individual sub-optimizers instead.")

    @learning_rate.setter
    def learning_rate(self, value):
        raise AttributeError("Learning rate cannot be set on a MultiOptimizer. Set the learning rate on the "
                             "individual sub-optimizers instead.")

    @property
    def loss_scale_factor(self):
        return getattr(self, "_loss_scale_factor", None)

    @loss_scale_factor.setter
    def loss_scale_factor(self, value):
        self._loss_scale_factor = value
        for optimizer in getattr(self, "_inner_optimizers", ()):
            optimizer.loss_scale_factor = value

    def apply(self, grads, trainable_variables=None):
        grads = list(grads)
        if not grads:
            return
        if trainable_variables is None:
            if not self.built:
                raise ValueError("When passing `grads` without `variables`, the optimizer must already be built "
                                 "on a list of variables. Call `optimizer.build(trainable_variables)` first.")
            trainable_variables = self._trainable_variables
        trainable_variables = list(trainable_variables)
        if not self.built:
            self.build(trainable_variables)
        if len(grads) != len(self._owner):
            raise ValueError(f"Gradients must match trainable variables one-to-one. Received {len(grads)} gradients "
                             f"and {len(self._owner)} variables.")
        pairs = [[] for _ in self._inner_optimizers]
        for g, v in zip(grads, trainable_variables):
            pairs[self._owner[_key(v)]].append((g, v))
        for optimizer, own in zip(self._inner_optimizers, pairs):
            if own:
                optimizer.apply([g for g, _ in own], [v for _, v in own])
        self._iterations.assign_add(1)

    def set_weights(self, weights):
        """Its own variables, then each inner optimizer's, in the order of `variables`."""
        if not self.built:
            raise ValueError("You are calling `set_weights()` on an optimizer that has not yet been built. Please "
                             "call `optimizer.build(trainable_variables)` to create the optimizer weights before "
                             "calling `set_weights()`.")
        weights = list(weights)
        for variable, weight in zip(self._variables, weights):
            variable.assign(weight)
        start = len(self._variables)
        for optimizer in self._inner_optimizers:
            count = len(optimizer.variables)
            if count:
                optimizer.set_weights(weights[start:start + count])
                start += count

    def get_config(self):
        from ..saving.keras_config import keras_object
        return {"optimizer_map": keras_object(self._optimizer_map), "loss_scale_factor": self.loss_scale_factor,
                "name": self.name}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["optimizer_map"] = _revived(config["optimizer_map"], custom_objects)
        return cls(**config)


API = {"keras.optimizers": ["OptimizerMap", "MultiOptimizer"]}
