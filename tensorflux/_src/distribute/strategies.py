"""`tf.distribute` on one CPU: the strategies a script creates before building its model, with the
semantics TensorFlow gives them when a single device is present.

A strategy has one replica here (`num_replicas_in_sync == 1`): `run(fn, args)` calls `fn` once,
`reduce(op, value, axis)` reduces over `axis` (None: across the one replica, i.e. the value itself),
`experimental_distribute_dataset` returns the dataset, and `scope()` makes the strategy current (so
`tf.distribute.get_strategy()` and `has_strategy()` see it). `MirroredStrategy` and `OneDeviceStrategy`
accept only CPU devices, since tensorflux computes on the CPU.
"""
import contextlib
import enum
import threading

from ..framework.device import DeviceSpec
from ..ops.math import reduce as math_reduce

__all__ = ["Strategy", "MirroredStrategy", "OneDeviceStrategy", "ReduceOp", "InputContext", "get_strategy",
           "has_strategy", "in_cross_replica_context", "get_replica_context"]

_CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


class ReduceOp(enum.Enum):
    SUM = "SUM"
    MEAN = "MEAN"


class InputContext:
    """What `distribute_datasets_from_function` passes to its function: one pipeline, one replica."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self.num_input_pipelines = num_input_pipelines
        self.input_pipeline_id = input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self.num_replicas_in_sync}")
        return global_batch_size // self.num_replicas_in_sync


class _Extended:
    def __init__(self, devices):
        self.worker_devices = tuple(devices)
        self.parameter_devices = tuple(devices)


class Strategy:
    """The strategy TensorFlow uses when none is set (and the base of the others)."""

    def __init__(self, devices=(_CPU,)):
        self.extended = _Extended(devices)

    @property
    def num_replicas_in_sync(self):
        return 1

    @contextlib.contextmanager
    def scope(self):
        _STACK.strategies.append(self)
        try:
            yield self
        finally:
            _STACK.strategies.pop()

    def run(self, fn, args=(), kwargs=None, options=None):
        return fn(*args, **(kwargs or {}))

    def reduce(self, reduce_op, value, axis):
        op = ReduceOp(reduce_op.value if isinstance(reduce_op, ReduceOp) else str(reduce_op).upper())
        if axis is None:
            return value      # across one replica
        reduce = math_reduce.reduce_sum if op is ReduceOp.SUM else math_reduce.reduce_mean
        return reduce(value, axis=axis)

    def experimental_distribute_dataset(self, dataset, options=None):
        return dataset

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        return dataset_fn(InputContext())

    def experimental_local_results(self, value):
        return (value,)

    def gather(self, value, axis):
        return value


class MirroredStrategy(Strategy):
    def __init__(self, devices=None, cross_device_ops=None):
        names = [_cpu_device(d) for d in devices] if devices is not None else [_CPU]
        if len(names) != 1:
            raise ValueError(f"tensorflux runs on one CPU: MirroredStrategy takes one device. Received: {devices}")
        super().__init__(names)


class OneDeviceStrategy(Strategy):
    def __init__(self, device):
        super().__init__([_cpu_device(device)])


def _cpu_device(name):
    spec = DeviceSpec.from_string(str(name))
    if spec.device_type not in (None, "CPU") or spec.device_index not in (None, 0):
        raise ValueError(f"tensorflux computes on the CPU only; cannot place a replica on {name!r}.")
    return _CPU


class _StrategyStack(threading.local):
    def __init__(self):
        self.strategies = []


_STACK = _StrategyStack()
_DEFAULT = Strategy()


def get_strategy():
    return _STACK.strategies[-1] if _STACK.strategies else _DEFAULT


def has_strategy():
    return bool(_STACK.strategies)


def in_cross_replica_context():
    return has_strategy()


class _ReplicaContext:
    num_replicas_in_sync = 1
    replica_id_in_sync_group = 0

    @property
    def strategy(self):
        return get_strategy()

    def all_reduce(self, reduce_op, value, options=None):
        return value


def get_replica_context():
    return None if has_strategy() else _ReplicaContext()


API = {"distribute": __all__}
