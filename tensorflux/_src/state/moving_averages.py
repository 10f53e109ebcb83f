"""`tf.train.ExponentialMovingAverage`: a shadow variable per averaged variable, moved towards the
variable's value at each `apply`: `shadow -= (shadow - value) * (1 - decay)`, computed in the variable's
dtype as TensorFlow computes it (so the float32 results match to the last bit). With `num_updates`, the
decay is `min(decay, (1 + num_updates) / (10 + num_updates))`. Eager programs average variables only."""
import weakref

import numpy as np

from ..framework.tensor import Tensor
from ..ops.convert import convert_to_tensor
from ..types import dtypes as _dt
from .variables import Variable

__all__ = ["ExponentialMovingAverage"]

_FLOATING = (_dt.float16, _dt.float32, _dt.float64)
# Every variable some ExponentialMovingAverage averages, in first-averaged order (TensorFlow's
# moving_average_variables collection), for `variables_to_restore`.
_averaged = weakref.WeakValueDictionary()


class ExponentialMovingAverage:
    """Keeps exponential moving averages of variables (`apply`), read back with `average(var)`."""

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias   # applies to averaged tensors, which eager execution does not allow
        self._name = name
        self._averages = {}   # id(variable) -> (variable, shadow variable)

    @property
    def name(self):
        return self._name

    def average_name(self, var):
        """The name of `var`'s shadow variable: `<var name>/<this average's name>`."""
        return f"{var.name.split(':')[0]}/{self._name}"

    def average(self, var):
        """`var`'s shadow variable, or None when `var` is not averaged here."""
        entry = self._averages.get(id(var))
        return entry[1] if entry is not None and entry[0] is var else None

    def apply(self, var_list=None):
        """Creates the shadow variables of `var_list` (initialised to their values) on first use, then moves
        every shadow of `var_list` one step towards its variable."""
        if var_list is None:
            raise ValueError("`var_list` is required: tensorflux has no global collection of trainable "
                             "variables to default to.")
        var_list = list(var_list)
        for var in var_list:
            if not isinstance(var, Variable):
                if isinstance(var, Tensor):
                    raise TypeError("tf.train.ExponentialMovingAverage does not support non-Variable tensors "
                                    "when eager execution is enabled.")
                raise TypeError(f"Expected a variable to average, got {type(var).__name__}.")
            if var.dtype.base_dtype not in _FLOATING:
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
        for var in var_list:
            if self.average(var) is None:
                shadow = Variable(var.read_value(), trainable=False, name=self.average_name(var))
                self._averages[id(var)] = (var, shadow)
                _averaged.setdefault(id(var), var)
        decay = self._current_decay()
        for var in var_list:
            shadow = self.average(var)
            step = convert_to_tensor(1.0, dtype=var.dtype) - convert_to_tensor(decay, dtype=var.dtype)
            shadow.assign_sub((shadow.read_value() - var.read_value()) * step)
        return None

    def _current_decay(self):
        decay = convert_to_tensor(self._decay, dtype=_dt.float32)
        if self._num_updates is None:
            return decay.numpy()
        updates = np.float32(np.asarray(getattr(self._num_updates, "numpy", lambda: self._num_updates)()))
        return np.minimum(decay.numpy(), (np.float32(1.0) + updates) / (np.float32(10.0) + updates))

    def variables_to_restore(self, moving_avg_variables=None):
        """{shadow name: variable} for every averaged variable (or those given): restoring a checkpoint with
        this mapping loads the averages into the variables themselves."""
        variables = list(_averaged.values()) if moving_avg_variables is None else list(moving_avg_variables)
        return {self.average_name(v): v for v in variables}


API = {"train": __all__}
