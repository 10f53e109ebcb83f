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
from ..framework.composite import CompositeTensor, TypeSpec
from ..framework.tensor import Tensor, _numpy_text
from ..ops.state import ResourceHandle, VariableResource
from ..state.variables import ResourceVariable
from ..function.trace_type import from_value
from ..types.spec import TensorSpec

__all__ = ["PerReplica", "PerReplicaSpec", "MirroredVariable", "MirroredResource", "mirror_variable", "share_state", "unmirror_variable", "select_replica",
           "regroup", "local_values"]


class PerReplica(CompositeTensor):
    """One value per local replica (what `strategy.run` returns for a tensor on several replicas, and what
    a distributed dataset yields). Its replicas' tensors are its components, so a tf.function takes and
    returns it as TensorFlow's does: one placeholder per replica, traced once for all steps."""

    __slots__ = ("_values",)

    def __init__(self, values):
        self._values = tuple(values)

    @property
    def values(self):
        return self._values

    @property
    def _type_spec(self):
        return PerReplicaSpec(*(v._type_spec if isinstance(v, CompositeTensor) else TensorSpec(v.shape, v.dtype)
                                for v in self._values))

    def __tf_tracing_type__(self, context):
        if all(isinstance(v, (Tensor, CompositeTensor)) for v in self._values):
            return self._type_spec
        return from_value(self._values, context)       # Python values: traced by value, as a tuple

    def _to_components(self):
        return [part for v in self._values
                for part in (v._to_components() if isinstance(v, CompositeTensor) else [v])]

    def _text(self, show):
        lines = [f"  {i}: {show(v)}" for i, v in enumerate(self._values)]
        return f"{type(self).__name__}:{{\n" + ",\n".join(lines) + "\n}"

    def __str__(self):
        return self._text(str)

    def __repr__(self):
        return self._text(repr)


class PerReplicaSpec(TypeSpec):
    """The type of a PerReplica value: one spec per replica (`PerReplicaSpec(TensorSpec(...), ...)`)."""

    __slots__ = ("_value_specs",)

    def __init__(self, *value_specs):
        self._value_specs = tuple(value_specs)

    value_type = property(lambda self: PerReplica)

    def _key(self):
        return self._value_specs

    def _component_specs(self):
        return [part for spec in self._value_specs
                for part in (spec._component_specs() if isinstance(spec, TypeSpec) else [spec])]

    def _from_components(self, components):
        values, at = [], 0
        for spec in self._value_specs:
            if isinstance(spec, TypeSpec):
                n = len(spec._component_specs())
                values.append(spec._from_components(list(components[at:at + n])))
                at += n
            else:
                values.append(components[at])
                at += 1
        return PerReplica(values)

    def _to_components(self, value):
        return value._to_components()

    def is_compatible_with(self, spec_or_value):
        other = spec_or_value if isinstance(spec_or_value, TypeSpec) else getattr(spec_or_value, "_type_spec", None)
        return type(other) is PerReplicaSpec and len(other._value_specs) == len(self._value_specs) and \
            all(a.is_compatible_with(b) for a, b in zip(self._value_specs, other._value_specs))

    def is_subtype_of(self, other):
        return type(other) is PerReplicaSpec and len(other._value_specs) == len(self._value_specs) and \
            all(a == b or a.is_subtype_of(b) for a, b in zip(self._value_specs, other._value_specs))

    def most_specific_common_supertype(self, others):
        merged = []
        for i, spec in enumerate(self._value_specs):
            if any(type(o) is not PerReplicaSpec or len(o._value_specs) != len(self._value_specs) for o in others):
                return None
            common = spec.most_specific_common_supertype([o._value_specs[i] for o in others])
            if common is None:
                return None
            merged.append(common)
        return PerReplicaSpec(*merged)

    def __reduce__(self):
        return PerReplicaSpec, self._value_specs

    def __repr__(self):
        return f"PerReplicaSpec({', '.join(repr(s) for s in self._value_specs)})"


class MirroredResource(VariableResource):
    """A variable's state with one copy per replica; `value` and `lock` are the current replica's."""

    __slots__ = ("_copies", "_strategy", "_copy_handles")

    def __init__(self, first, copies, strategy):
        self._copies = [first] + list(copies)    # set first: VariableResource.__init__ assigns `value`
        self._strategy = strategy
        self._copy_handles = None
        super().__init__(first.value, first.dtype, first.shape, first.name, first.id)

    def copy_handles(self, shared):
        """One handle per copy (made once), for the ops of each replica."""
        if self._copy_handles is None:
            self._copy_handles = [ResourceHandle(copy, shared._variable_ref) for copy in self._copies]
        return self._copy_handles

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


_SHARED_HANDLE = ResourceVariable._handle     # the slot holding the handle of every copy at once


class MirroredVariable(ResourceVariable):
    """A tf.Variable created in the scope of a strategy with several local replicas (see the module)."""

    __slots__ = ()

    @property
    def _handle(self):
        # Inside replica i, ops take the handle of copy i itself, so a tf.function traced there captures
        # that copy: the function's graph runs in the caller's thread, where the shared handle means the
        # cross-replica context (reads of the first copy, writes of every copy).
        shared = _SHARED_HANDLE.__get__(self)
        resource = shared._value
        if not isinstance(resource, MirroredResource):
            return shared
        index = resource._strategy._current_replica_index()
        return shared if index is None else resource.copy_handles(shared)[index]

    @_handle.setter
    def _handle(self, value):
        _SHARED_HANDLE.__set__(self, value)

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


_MIRRORED_CLASSES = {}      # the mirrored class made for a Variable subclass -> that subclass


def _mirrored_class(cls):
    """`cls` whose ops inside a replica use that replica's copy (MirroredVariable's `_handle`), made once."""
    for mirrored, original in _MIRRORED_CLASSES.items():
        if original is cls:
            return mirrored
    mirrored = type(cls.__name__, (cls,), {"__slots__": (), "_handle": MirroredVariable.__dict__["_handle"],
                                            "__module__": cls.__module__})
    _MIRRORED_CLASSES[mirrored] = cls
    return mirrored


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
    elif not isinstance(variable, MirroredVariable):   # a subclass (a Keras Variable) keeps its class's
        variable.__class__ = _mirrored_class(type(variable))   # behaviour, with each replica's handle
    return variable


def share_state(variable, mirrored):
    """Makes `variable` (created by another replica) a view of the MirroredVariable `mirrored`'s state."""
    variable._resource = mirrored._resource
    variable._handle._value = mirrored._resource
    variable._name = mirrored._name
    variable._handle_id = mirrored._handle_id
    variable.__class__ = type(mirrored)
    return variable


def unmirror_variable(variable, summed=False):
    """Turns a MirroredVariable back into one state shared by every local replica (its first copy): the
    replicas run one at a time, so their updates of a shared accumulator (a metric's totals) add up."""
    resource = variable._resource
    if isinstance(resource, MirroredResource):
        first = resource._copies[0]
        if summed:     # a metric's totals made in the replicas: every copy counted its replica's slice
            for copy in resource._copies[1:]:
                first.value = first.value + copy.value
        variable._resource = first
        variable._handle._value = first
        if type(variable) in _MIRRORED_CLASSES:
            variable.__class__ = _MIRRORED_CLASSES[type(variable)]
        elif type(variable) is MirroredVariable:
            variable.__class__ = ResourceVariable
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
        if all(v is first or isinstance(v, ResourceVariable) and isinstance(first, ResourceVariable)
               and isinstance(v._resource, MirroredResource) and v._resource is first._resource for v in values):
            return first     # the same value, or the variable every replica made (one MirroredVariable)
        return PerReplica(values)
    return nest.map_structure(one, *results)


def local_values(value):
    """The per-replica values of `value` (a PerReplica's values, or the value itself, once)."""
    if isinstance(value, PerReplica):
        return value._values
    return (value,)
