"""`tf.data.Options`: the knobs a pipeline carries (`dataset.with_options(options)`, `dataset.options()`).

tensorflux runs pipelines in the calling thread, so most knobs (threading, optimisation, autotuning) are
recorded and reported back but change nothing; the one that changes results is
`experimental_distribute.auto_shard_policy`, read by `tf.distribute` when a dataset is split across
workers. Options are typed as TensorFlow types them: setting an unknown property raises AttributeError, a
value of the wrong type TypeError.

Unlike TensorFlow, options are not carried through later transformations: set them last, just before
handing the dataset to a strategy (as the tf.distribute guides do).
"""
import copy
import enum

from .dataset import Dataset

__all__ = ["Options", "AutoShardPolicy", "DistributeOptions", "ThreadingOptions", "OptimizationOptions",
           "AutotuneOptions"]


class AutoShardPolicy(enum.IntEnum):
    """How a multi-worker strategy splits a dataset between workers."""
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class _OptionsBase:
    """Typed properties: `_PROPERTIES = {name: (types, default)}`; unknown names and wrong types refused."""

    _PROPERTIES = {}

    def __init__(self):
        for name, (_, default) in self._PROPERTIES.items():
            object.__setattr__(self, name, default() if callable(default) else default)

    def __setattr__(self, name, value):
        if name not in self._PROPERTIES:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        types = self._PROPERTIES[name][0]
        if value is not None and not isinstance(value, types):
            expected = types[0] if isinstance(types, tuple) else types
            raise TypeError(f'Property "{name}" must be of type {expected}, got: {value!r} '
                            f'(type: {type(value)})')
        object.__setattr__(self, name, value)

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self._PROPERTIES)

    __hash__ = None

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self._PROPERTIES)})"


class DistributeOptions(_OptionsBase):
    _PROPERTIES = {"auto_shard_policy": (AutoShardPolicy, AutoShardPolicy.AUTO), "num_devices": (int, None)}


class ThreadingOptions(_OptionsBase):
    _PROPERTIES = {"max_intra_op_parallelism": (int, None), "private_threadpool_size": (int, None)}


class OptimizationOptions(_OptionsBase):
    _PROPERTIES = {name: (bool, None) for name in (
        "apply_default_optimizations", "filter_fusion", "filter_parallelization", "inject_prefetch",
        "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion", "map_parallelization",
        "noop_elimination", "parallel_batch", "shuffle_and_repeat_fusion", "seq_interleave_prefetch")}


class AutotuneOptions(_OptionsBase):
    _PROPERTIES = {"enabled": (bool, None), "cpu_budget": (int, None), "ram_budget": (int, None),
                   "autotune_algorithm": (object, None)}


class Options(_OptionsBase):
    """`tf.data.Options()`: every property starts unset (None) or at its default sub-options."""

    _PROPERTIES = {
        "deterministic": (bool, None),
        "autotune": (AutotuneOptions, AutotuneOptions),
        "experimental_distribute": (DistributeOptions, DistributeOptions),
        "experimental_external_state_policy": (object, None),
        "experimental_optimization": (OptimizationOptions, OptimizationOptions),
        "experimental_slack": (bool, None),
        "experimental_symbolic_checkpoint": (bool, None),
        "experimental_warm_start": (bool, None),
        "threading": (ThreadingOptions, ThreadingOptions),
    }

    def merge(self, options):
        """A new Options: `self`, with every property `options` sets (non-None) taking precedence."""
        return _merged(self, options)


def _merged(base, override):
    out = copy.deepcopy(base)
    for name in type(base)._PROPERTIES:
        value = getattr(override, name)
        if isinstance(value, _OptionsBase):
            object.__setattr__(out, name, _merged(getattr(out, name), value))
        elif value is not None:
            object.__setattr__(out, name, value)
    return out


def with_options(self, options, name=None):
    """The same dataset carrying `options` (merged over the options it already has)."""
    if not isinstance(options, Options):
        raise TypeError(f"`options` must be a `tf.data.Options`. Received: {type(options).__name__}")
    out = Dataset(self._element_spec, self._make_arrays, self._kind, self._cardinality)
    out._options = _merged(self.options(), options)
    return out


def options(self):
    """The options set on this dataset (a fresh `tf.data.Options()` when none were set)."""
    found = getattr(self, "_options", None)
    return copy.deepcopy(found) if found is not None else Options()


Dataset._options = None
Dataset.with_options = with_options
Dataset.options = options

API = {"data": ["Options", "ThreadingOptions"],
       "data.experimental": ["AutoShardPolicy", "DistributeOptions", "OptimizationOptions", "AutotuneOptions",
                             "ThreadingOptions"]}
