"""Values of a strategy with several replicas in this process: `PerReplica` results and mirrored variables.

`strategy.run(fn)` on a MirroredStrategy over several local devices returns, for each tensor `fn` returned,
a `PerReplica` holding one value per replica (printed as TensorFlow prints it). A variable created in the
strategy's scope is *mirrored*: one copy of its state per replica. Its resource is a `MirroredResource`,
whose `value` is the copy of the replica running now (the thread's replica context) and, outside any
replica of the strategy, the first copy when read and every copy when written. So the same ops, graphs
and kernels serve all replicas: a ReadVariableOp or RngReadAndSkip run inside replica 1 touches replica
1's copy, and an assign in the cross-replica context (a restore, `v.assign(...)` in the scope) updates
them all, as TensorFlow's MirroredVariable does.
"""
from ..framework import nest
from ..framework.tensor import _numpy_text
from ..ops.state import VariableResource
from ..state.variables import ResourceVariable

__all__ = ["PerReplica", "MirroredVariable", "MirroredResource", "mirror_variable", "select_replica",
           "regroup", "local_values"]


class PerReplica:
    """One value per local replica (what `strategy.run` returns for a tensor on several replicas)."""

    def __init__(self, values):
        self._values = tuple(values)

    @property
    def values(self):
        return self._values

    def _text(self, show):
        lines = [f"  {i}: {show(v)}" for i, v in enumerate(self._values)]
        return f"{type(self).__name__}:{{\n" + ",\n".join(lines) + "\n}"

    def __str__(self):
        return self._text(str)

    def __repr__(self):
        return self._text(repr)


class MirroredResource(VariableResource):
    """A variable's state with one copy per replica; `value` and `lock` are the current replica's."""

    __slots__ = ("_copies", "_strategy")

    def __init__(self, first, copies, strategy):
        self._copies = [first] + list(copies)    # set first: VariableResource.__init__ assigns `value`
        self._strategy = strategy
        super().__init__(first.value, first.dtype, first.shape, first.name, first.id)

    def _current(self):
        index = self._strategy._current_replica_index()
        return self._copies[0 if index is None else index]

    @property
    def value(self):
        return self._current().value

    @value.setter
    def value(self, new):
        index = self._strategy._current_replica_index()
        if index is None:          # the cross-replica context: every copy gets the value
            for copy in self._copies:
                copy.value = new
        else:
            self._copies[index].value = new

    @property
    def lock(self):
        return self._current().lock

    @lock.setter
    def lock(self, new):         # VariableResource.__init__ sets a lock; the copies keep their own
        pass


class MirroredVariable(ResourceVariable):
    """A tf.Variable created in the scope of a strategy with several local replicas (see the module)."""

    __slots__ = ()

    def __repr__(self):
        copies = self._resource._copies
        lines = []
        for i, copy in enumerate(copies):
            name = self._name if i == 0 else f"{self._name[:-2]}/replica_{i}:0"
            text = ResourceVariable.__repr__(self) if i == 0 else _copy_repr(self, copy, name)
            lines.append(f"  {i}: {text}")
        return "MirroredVariable:{\n" + ",\n".join(lines) + "\n}"

    __str__ = __repr__


def _copy_repr(variable, copy, name):
    text = _numpy_text(copy.value, True)
    return (f"<tf.Variable '{name}' shape={variable.shape} dtype={variable.dtype.name}, "
            f"numpy={chr(10) if chr(10) in text else ''}{text}>")


def mirror_variable(variable, strategy, count):
    """Turns `variable` (just created in `strategy`'s scope) into a MirroredVariable with `count` copies."""
    first = variable._resource
    copies = [VariableResource(first.value, first.dtype, first.shape, f"{first.name}/replica_{i}", first.id)
              for i in range(1, count)]
    mirrored = MirroredResource(first, copies, strategy)
    variable._resource = mirrored
    variable._handle._value = mirrored
    if type(variable) is ResourceVariable:
        variable.__class__ = MirroredVariable
    return variable


def select_replica(index, structure):
    """`structure` as replica `index` sees it: each PerReplica replaced by that replica's value."""
    return nest.map_structure(lambda v: v._values[index] if isinstance(v, PerReplica) else v, structure)


def regroup(results):
    """One structure from the replicas' results: leaves that differ become PerReplica values."""
    if len(results) == 1:
        return results[0]

    def one(*values):
        first = values[0]
        if all(v is first for v in values):
            return first
        return PerReplica(values)
    return nest.map_structure(one, *results)


def local_values(value):
    """The per-replica values of `value` (a PerReplica's values, or the value itself, once)."""
    if isinstance(value, PerReplica):
        return value._values
    return (value,)
