"""`tf.VariableAggregation` and `tf.VariableSynchronization`: how a distributed variable's replica updates
combine and when its copies are synchronised (the values TensorFlow stores in a SavedModel's variables)."""
import enum

__all__ = ["VariableAggregation", "VariableSynchronization"]


class VariableAggregation(enum.Enum):
    """How updates from the replicas of a distributed variable are combined."""
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


VariableAggregation.__name__ = VariableAggregation.__qualname__ = "VariableAggregationV2"   # TensorFlow's


class _VariableAggregationV1(enum.Enum):
    """TensorFlow 1's enum: what a `tf.Variable` created without `aggregation` reports (TensorFlow 2 keeps
    it as the default), equal to the same member of `tf.VariableAggregation`."""
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3

    def __eq__(self, other):
        if isinstance(other, (VariableAggregation, _VariableAggregationV1)):
            return self.value == other.value
        return NotImplemented

    def __hash__(self):
        return hash(self.value)


_VariableAggregationV1.__name__ = _VariableAggregationV1.__qualname__ = "VariableAggregation"


def _v2_eq(self, other):
    if isinstance(other, (VariableAggregation, _VariableAggregationV1)):
        return self.value == other.value
    return NotImplemented


VariableAggregation.__eq__ = _v2_eq
VariableAggregation.__hash__ = lambda self: hash(self.value)


class VariableSynchronization(enum.Enum):
    """When a distributed variable's copies are synchronised."""
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


def aggregation_of(aggregation, name):
    """A variable's `aggregation` argument as TensorFlow takes it: None gives TF 1's NONE (the default TF 2
    keeps), a member or its integer value gives `tf.VariableAggregation`'s member; anything else is
    TensorFlow's ValueError."""
    if aggregation is None:
        return _VariableAggregationV1.NONE
    if isinstance(aggregation, _VariableAggregationV1):
        return VariableAggregation(aggregation.value)
    try:
        return VariableAggregation(aggregation)
    except ValueError:
        raise ValueError(f"Invalid variable aggregation mode: {aggregation} for variable: {name}") from None


def synchronization_of(synchronization, name):
    """A variable's `synchronization` argument as TensorFlow takes it (None is AUTO; a member or its integer
    value; anything else is TensorFlow's ValueError)."""
    if synchronization is None:
        return VariableSynchronization.AUTO
    try:
        return VariableSynchronization(synchronization)
    except ValueError:
        raise ValueError(f"Invalid variable synchronization mode: {synchronization} for variable: {name}") from None


API = {"": __all__}
